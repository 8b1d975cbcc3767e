//! A parallel run's status lines: a line per claim every few seconds (redrawn in place on a
//! terminal), and what they quote: the age and text of an attempt's last output line, read from
//! the tail of its log. The wording of the lines and of the summary table is the reporter's
//! ([`crate::run::events::board`]).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use super::sched::{ClaimState, Sched};
use crate::run::events::Event;

/// How often the status lines of the running stories are printed (a line each), or redrawn in
/// place on a terminal.
const BOARD_EVERY: Duration = Duration::from_secs(10);
const BOARD_LIVE_EVERY: Duration = Duration::from_secs(1);

impl Sched<'_> {
    pub(super) fn board_every(&self) -> Duration {
        match self.opts.reporter.live() {
            true => BOARD_LIVE_EVERY,
            false => BOARD_EVERY,
        }
    }

    /// A status line per claim: on a terminal one block redrawn in place, else a line each.
    pub(super) fn print_board(&self) {
        let live = self.opts.reporter.live();
        let mut lines = Vec::new();
        for (id, c) in &self.claims {
            let last = matches!(c.state, ClaimState::Running)
                .then(|| last_activity(&c.log))
                .flatten();
            if live {
                let state = c.state.name();
                let (elapsed, n) = (c.since.elapsed(), c.attempt);
                let line = crate::run::events::board::status_line(
                    id,
                    &c.title,
                    state,
                    elapsed,
                    n,
                    last.as_ref(),
                );
                lines.push(line);
                continue;
            }
            let (last_age, last_line) = last.map_or((None, None), |(a, l)| (Some(a), Some(l)));
            self.opts.reporter.report(Event::Claim {
                story: id.clone(),
                title: c.title.clone(),
                state: c.state.name().to_string(),
                elapsed: c.since.elapsed(),
                attempt: c.attempt,
                last_line,
                last_age,
            });
        }
        if live && !lines.is_empty() {
            self.opts.reporter.report(Event::Board { lines });
        }
    }
}

/// The age and text of the last non-empty line of a log (its last 4 KiB), redacted.
pub fn last_activity(log: &Path) -> Option<(Duration, String)> {
    let mut f = std::fs::File::open(log).ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let len = meta.len();
    f.seek(SeekFrom::Start(len.saturating_sub(4096))).ok()?;
    let mut buf = Vec::new();
    f.take(4096).read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?.trim();
    let age = meta.modified().ok()?.elapsed().unwrap_or_default();
    Some((age, crate::run::redact_for_log(line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_activity_is_the_last_non_empty_line_of_the_log() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("log");
        std::fs::write(&p, "first\nrunning tests\n\n").unwrap();
        let (_, line) = last_activity(&p).unwrap();
        assert_eq!(line, "running tests");
        assert!(last_activity(&d.path().join("none")).is_none());
    }
}
