//! `ralph run --json`: one JSON object per event on stdout, for tools (the shape is in
//! specs/json.md). A closed or failing output is given up on quietly.

use std::io::Write;
use std::sync::Mutex;

use super::event::{Event, Reporter};

/// One JSON object per line, for tools. A closed or failing output is given up on quietly:
/// the run itself goes on (its history and logs are on disk).
#[derive(Debug)]
pub(crate) struct JsonLines<W: Write + Send + std::fmt::Debug> {
    out: Mutex<Option<W>>,
}

impl<W: Write + Send + std::fmt::Debug> JsonLines<W> {
    pub(crate) fn new(out: W) -> JsonLines<W> {
        JsonLines {
            out: Mutex::new(Some(out)),
        }
    }

    /// The writer back (for tests).
    #[cfg(test)]
    pub(crate) fn into_inner(self) -> Option<W> {
        self.out.into_inner().ok().flatten()
    }
}

impl<W: Write + Send + std::fmt::Debug> Reporter for JsonLines<W> {
    fn report(&self, event: Event) {
        let Ok(mut guard) = self.out.lock() else {
            return;
        };
        let Some(w) = guard.as_mut() else { return };
        let Ok(mut line) = serde_json::to_vec(&event) else {
            return;
        };
        line.push(b'\n');
        if w.write_all(&line).and_then(|()| w.flush()).is_err() {
            *guard = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::events::terminal::lines;
    use crate::state::history::Outcome;
    use std::time::Duration;

    #[test]
    fn watching_events_in_json() {
        let r = JsonLines::new(Vec::new());
        r.report(Event::Heartbeat {
            story: "A".into(),
            elapsed: Duration::from_millis(1500),
            bytes: 3,
            silent: Duration::from_millis(700),
            last_line: String::new(),
            live: false,
        });
        r.report(Event::Stopping {
            what: "the agent".into(),
            reason: crate::agent::process::Stop::Interrupt,
            elapsed: Duration::from_millis(20),
            grace: Duration::from_millis(300),
        });
        let out = String::from_utf8(r.into_inner().unwrap()).unwrap();
        let v: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            v[0],
            serde_json::json!({"event": "heartbeat", "story": "A", "elapsed": 1500, "bytes": 3,
                "silent": 700, "last_line": ""})
        );
        assert_eq!(
            v[1],
            serde_json::json!({"event": "stopping", "what": "the agent", "reason": "interrupt",
                "elapsed": 20, "grace": 300})
        );
    }

    #[test]
    fn json_lines_are_one_object_per_event_with_its_name() {
        let r = JsonLines::new(Vec::new());
        r.report(Event::Note { text: "hi".into() });
        r.report(Event::IterationFinished {
            iteration: 1,
            limit: 2,
            story: "S".into(),
            title: "T".into(),
            elapsed: Duration::from_millis(1500),
            outcome: Outcome::VerifyFailed,
            detail: "verify 0/1 passed".into(),
            cost_usd: Some(0.25),
        });
        let out = String::from_utf8(r.into_inner().unwrap()).unwrap();
        let v: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(v[0], serde_json::json!({"event": "note", "text": "hi"}));
        assert_eq!(v[1]["event"], "iteration-finished");
        assert_eq!(v[1]["elapsed"], 1500);
        assert_eq!(v[1]["outcome"], "verify-failed");
        assert_eq!(v[1]["cost_usd"], 0.25);
    }

    #[test]
    fn the_live_board_is_for_a_terminal_only() {
        let r = JsonLines::new(Vec::new());
        r.report(Event::Board {
            lines: vec!["A Title · running 1s · attempt 1".into()],
        });
        r.report(Event::Note { text: "n".into() });
        let out = String::from_utf8(r.into_inner().unwrap()).unwrap();
        assert_eq!(out, "{\"event\":\"note\",\"text\":\"n\"}\n");
        let board = Event::Board {
            lines: vec!["A · running".into(), "B · queued".into()],
        };
        assert_eq!(lines(&board), ["ralph: A · running", "ralph: B · queued"]);
    }

    #[test]
    fn a_closed_output_is_given_up_without_a_panic() {
        #[derive(Debug)]
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let r = JsonLines::new(Closed);
        r.report(Event::Note { text: "a".into() });
        r.report(Event::Note { text: "b".into() });
        assert!(r.into_inner().is_none());
    }
}
