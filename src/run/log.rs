//! A run's logs on disk: the iteration log an agent's output goes to (`iter-N.log`,
//! `review-N.log`, `merge-N.log`), a structured agent's raw events (`iter-N.events.jsonl`),
//! ralph's own lines in them, and the redaction every line passes through first. A leaf: the
//! agent's launch, the gate, the review, the merge queue and the heartbeat write through it.

use std::path::Path;
use std::sync::{Arc, Mutex};

use super::events::{Event, Reporter};
use crate::agent::process::{LogSink, RawLog};

/// The most bytes of raw events kept per agent run (the translated log has everything the
/// agent said; this is for looking at the format itself).
pub(crate) const EVENTS_CAP: u64 = 32 * 1024 * 1024;

/// Every iteration log line passes through here before it reaches disk: secrets (API keys,
/// tokens, private keys, passwords) are redacted, as they are in prompts.
pub(crate) fn redact_for_log(s: &str) -> String {
    crate::context::redact::redact(s).0
}

/// The log an agent's output goes to (redacted), appended; `None` (and a warning) when it
/// cannot be opened: the output then goes to the terminal only.
pub(crate) fn log_sink(path: &Path, rep: &dyn Reporter) -> Option<Arc<Mutex<LogSink>>> {
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) => {
            rep.report(Event::Warning {
                text: format!(
                    "{}: cannot open the iteration log ({e}); output goes to the terminal only",
                    path.display()
                ),
            });
            return None;
        }
    };
    Some(Arc::new(Mutex::new(LogSink {
        file,
        redact: redact_for_log,
    })))
}

/// The raw events file, created fresh; `None` (and a warning) when it cannot be.
pub(crate) fn raw_log(path: &Path, rep: &dyn Reporter) -> Option<Arc<Mutex<RawLog>>> {
    match std::fs::File::create(path) {
        Ok(f) => Some(Arc::new(Mutex::new(RawLog::new(
            f,
            redact_for_log,
            EVENTS_CAP,
        )))),
        Err(e) => {
            rep.report(Event::Warning {
                text: format!(
                    "{}: cannot keep the agent's raw events ({e})",
                    path.display()
                ),
            });
            None
        }
    }
}

/// One line of ralph's own into the log (redacted like the agent's).
pub(crate) fn log_line(log: &Option<Arc<Mutex<LogSink>>>, line: &str) {
    use std::io::Write;
    if let Some(l) = log
        && let Ok(mut sink) = l.lock()
    {
        let text = (sink.redact)(&format!("{line}\n"));
        let _ = sink.file.write_all(text.as_bytes());
    }
}
