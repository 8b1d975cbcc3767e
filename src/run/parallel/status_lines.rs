//! The scheduler's status lines: every few seconds a line per claim (its state, how long, its
//! attempt, and the last line its agent wrote, see [`super::activity`]), redrawn in place as
//! one block on a terminal. The wording of the lines is the reporter's
//! ([`crate::run::events::board`]).

use std::time::Duration;

use super::activity::last_activity;
use super::sched::{ClaimState, Sched};
use crate::run::events::Event;

/// How often the status lines of the running stories are printed (a line each), or redrawn in
/// place on a terminal.
const STATUS_EVERY: Duration = Duration::from_secs(10);
const STATUS_LIVE_EVERY: Duration = Duration::from_secs(1);

impl Sched<'_> {
    pub(super) fn status_every(&self) -> Duration {
        match self.opts.reporter.live() {
            true => STATUS_LIVE_EVERY,
            false => STATUS_EVERY,
        }
    }

    /// A status line per claim: on a terminal one block redrawn in place, else a line each.
    pub(super) fn print_status_lines(&self) {
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
