//! `.ralph/history.jsonl`: one JSON record per iteration, appended; and its reader.
//!
//! Owns the record's shape (a stable, documented serde struct other modules read, e.g. the
//! context builder shows what a blocker story produced). Appends are one `write` of one line;
//! a torn last line (a crash mid-write) is skipped by [`read`].

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::outcome::Outcome;

/// One verify command's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyResult {
    pub command: String,
    pub exit_code: Option<i32>,
    pub passed: bool,
    pub timed_out: bool,
    pub duration_ms: u64,
}

/// One iteration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub run_id: String,
    pub iteration: u32,
    pub story: String,
    pub agent: String,
    /// RFC 3339 start time.
    pub start: String,
    pub duration_ms: u64,
    pub exit_code: Option<i32>,
    /// The signal that ended the agent, if any.
    #[serde(default)]
    pub term_signal: Option<i32>,
    pub timed_out: bool,
    /// The agent printed a completion signal for the story.
    pub signal_seen: bool,
    #[serde(default)]
    pub verify: Vec<VerifyResult>,
    pub outcome: Outcome,
    pub head_before: Option<String>,
    pub head_after: Option<String>,
    #[serde(default)]
    pub files_changed: Vec<String>,
    /// Why prd.json was restored, when the integrity guard did.
    #[serde(default)]
    pub restored: Vec<String>,
    /// The limit message, for rate-limited iterations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<String>,
    /// Set when this iteration made the story be skipped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
}

/// A history file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
    #[error(
        "{path}:{line}: not a history record: {source}; move the file aside to start a new history"
    )]
    Corrupt {
        path: PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
}

pub fn path(root: &Path) -> PathBuf {
    root.join(".ralph").join("history.jsonl")
}

/// Whether the file is non-empty and its last byte is not a newline.
fn ends_without_newline(f: &mut std::fs::File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    if f.metadata()?.len() == 0 {
        return Ok(false);
    }
    f.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    f.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// Append one record as one line (after a newline, when the last line was torn).
pub fn append(root: &Path, rec: &Record) -> Result<(), HistoryError> {
    let p = path(root);
    let fs_err = |action: &'static str| {
        let p = p.clone();
        move |source| crate::fsutil::FsError {
            path: p,
            action,
            source,
        }
    };
    if let Some(dir) = p.parent() {
        crate::fsutil::create_dir_all(dir)?;
    }
    let mut line = serde_json::to_string(rec).map_err(|source| HistoryError::Corrupt {
        path: p.clone(),
        line: 0,
        source,
    })?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&p)
        .map_err(fs_err("open for append"))?;
    // A torn last line (a crash mid-append) must stay a line of its own: gluing this record
    // onto it would make a bad line in the middle, and the file unreadable for good.
    if ends_without_newline(&mut f).map_err(fs_err("read"))? {
        line.insert(0, '\n');
    }
    f.write_all(line.as_bytes()).map_err(fs_err("append"))?;
    Ok(())
}

/// Every record, oldest first. A missing file is an empty history; an unparsable LAST line
/// and a line that stops mid-JSON (both torn by a crash) are skipped; any other unparsable
/// line is an error naming it.
pub fn read(root: &Path) -> Result<Vec<Record>, HistoryError> {
    let p = path(root);
    let text = match std::fs::read_to_string(&p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(source) => {
            return Err(crate::fsutil::FsError {
                path: p,
                action: "read",
                source,
            }
            .into());
        }
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(l) {
            Ok(r) => out.push(r),
            Err(_) if i + 1 == lines.len() => {}
            // A line cut short by a crash (the JSON just stops) that later appends ended with a
            // newline: a torn record, not corruption.
            Err(e) if e.is_eof() => {}
            Err(source) => {
                return Err(HistoryError::Corrupt {
                    path: p,
                    line: i + 1,
                    source,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(i: u32) -> Record {
        Record {
            run_id: "r".into(),
            iteration: i,
            story: "A".into(),
            agent: "claude".into(),
            start: "2026-11-22T10:00:00Z".into(),
            duration_ms: 5,
            exit_code: Some(0),
            term_signal: None,
            timed_out: false,
            signal_seen: true,
            verify: vec![],
            outcome: Outcome::Done,
            head_before: None,
            head_after: None,
            files_changed: vec!["src/a.rs".into()],
            restored: vec![],
            rate_limit: None,
            skipped: false,
        }
    }

    #[test]
    fn appends_and_reads_back_skipping_a_torn_last_line() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().is_empty());
        append(dir.path(), &rec(1)).unwrap();
        append(dir.path(), &rec(2)).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(path(dir.path()))
            .unwrap();
        f.write_all(b"{\"run_id\":\"r\",\"itera").unwrap();
        let got = read(dir.path()).unwrap();
        assert_eq!(got, vec![rec(1), rec(2)]);
    }

    #[test]
    fn append_after_a_torn_line_starts_a_new_line_and_stays_readable() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), &rec(1)).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(path(dir.path()))
            .unwrap();
        f.write_all(b"{\"run_id\":\"r\",\"itera").unwrap();
        append(dir.path(), &rec(2)).unwrap();
        append(dir.path(), &rec(3)).unwrap();
        let text = std::fs::read_to_string(path(dir.path())).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        assert_eq!(read(dir.path()).unwrap(), vec![rec(1), rec(2), rec(3)]);
    }

    #[test]
    fn corrupt_middle_line_is_an_error_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), &rec(1)).unwrap();
        let p = path(dir.path());
        let mut text = std::fs::read_to_string(&p).unwrap();
        text.push_str("garbage\n");
        text.push_str(&serde_json::to_string(&rec(2)).unwrap());
        std::fs::write(&p, text).unwrap();
        let err = read(dir.path()).unwrap_err().to_string();
        assert!(err.contains("history.jsonl:2:"), "{err}");
    }
}
