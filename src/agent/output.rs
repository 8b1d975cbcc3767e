//! Where a supervised child's output goes and what is known of it so far: the line log
//! ([`LogSink`]), a structured agent's raw log ([`RawLog`]), the line watch ([`LineWatch`]), the
//! activity ([`Activity`]) and how much is kept in memory ([`TAIL_BYTES`]).
//!
//! A leaf the supervisor (`process.rs`) and the stream pumps (`pump.rs`) share; `process`
//! re-exports it. Does not read or start anything.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// How much output is kept in memory (the log file has all of it).
pub(crate) const TAIL_BYTES: usize = 64 * 1024;

/// A called-back function that sees every complete output line (stdout and stderr).
pub(crate) type LineWatch = Arc<dyn Fn(&str) + Send + Sync>;

/// The output of a running process so far, as a [`super::process::Watcher`] sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Activity {
    /// Bytes read from stdout and stderr.
    pub bytes: u64,
    /// When the last bytes arrived (`None`: no output yet).
    pub last_output: Option<Instant>,
    /// The last non-blank complete line, trimmed, at most 200 characters (not redacted).
    pub last_line: String,
    /// The last bytes read did not end a line (a prompt, a progress bar): a line written now
    /// would run into it.
    pub mid_line: bool,
}

/// Where output lines are logged: an open file and the redaction applied to each line.
pub(crate) struct LogSink {
    pub file: std::fs::File,
    pub redact: fn(&str) -> String,
}

/// Where a structured agent's raw output lines are kept as it printed them (redacted), up to
/// `cap` bytes: past it one JSON line says how much was left out, and nothing more is written.
pub(crate) struct RawLog {
    pub file: std::fs::File,
    pub redact: fn(&str) -> String,
    pub cap: u64,
    pub written: u64,
    pub dropped: u64,
}

impl RawLog {
    /// A raw log writing to `file`, at most `cap` bytes.
    pub(crate) fn new(file: std::fs::File, redact: fn(&str) -> String, cap: u64) -> RawLog {
        RawLog {
            file,
            redact,
            cap,
            written: 0,
            dropped: 0,
        }
    }

    /// One raw line (with its newline). Best effort: a full disk must not stop the agent.
    pub(crate) fn line(&mut self, line: &str) {
        if self.dropped > 0 {
            self.dropped += line.len() as u64;
            return;
        }
        let mut text = (self.redact)(line);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if self.written + text.len() as u64 > self.cap {
            self.dropped = line.len() as u64;
            return;
        }
        self.written += text.len() as u64;
        let _ = self.file.write_all(text.as_bytes());
    }

    /// Say how much was left out, if anything (once, at the end).
    pub(crate) fn finish(&mut self) {
        if self.dropped > 0 {
            let note = serde_json::json!({
                "ralph": "truncated",
                "kept_bytes": self.written,
                "dropped_bytes": self.dropped,
            });
            let _ = writeln!(self.file, "{note}");
        }
    }
}
