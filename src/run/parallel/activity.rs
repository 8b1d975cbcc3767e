//! What a parallel run's status lines quote: the age and text of an attempt's last output line,
//! read from the tail of its log. The wording of the lines and of the summary table is the
//! reporter's ([`crate::run::events::board`]).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

/// The age and text of the last non-empty line of a log (its last 4 KiB), redacted.
pub(crate) fn last_activity(log: &Path) -> Option<(Duration, String)> {
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
    Some((age, crate::run::log::redact_for_log(line)))
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
