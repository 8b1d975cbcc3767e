//! `.ralph/history.jsonl`: one JSON record per iteration, appended; and its reader.
//!
//! Owns the record's shape (a stable, documented serde struct other modules read, e.g. the
//! context builder shows what a blocker story produced), with the data it holds: [`Outcome`],
//! [`VerifyResult`], [`MergeRecord`]; and the lines a person's request to a live run leaves
//! ([`ControlRecord`]: `ralph pause`, `resume`, `steer`, `skip`, `retry`), which are not
//! iterations: [`read_all`] returns them apart and no reader counts them as junk. Does not
//! decide an outcome (`crate::run::iteration::outcome`) or run a verify command (`crate::run::iteration::verify`).
//! Appends are one `write` of one line, one at a time within the process;
//! a line that is not a record (torn by a crash, or junk written by anyone) is skipped by
//! [`read`] and counted by [`read_counted`] (the loop warns once); the file is kept and new
//! records go on being appended. Something that is not a regular file in its place is moved
//! to `.ralph/rejected/` and a new history started.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::fsutil::fs_err;

/// What an iteration achieved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
    /// Claimed and verified: the story passes.
    Done,
    /// Claimed, but a verify command failed: `passes` is set back to false.
    VerifyFailed,
    /// The agent exited 0 without claiming the story.
    Incomplete,
    /// The agent exited non-zero (or by a signal) without claiming the story.
    AgentFailed,
    /// The iteration hit `--timeout`.
    TimedOut,
    /// The agent hit a usage/rate limit; the iteration does not count.
    RateLimited,
    /// Ctrl-C / SIGTERM.
    Interrupted,
    /// Parallel runs: gated in its worktree, but the merge onto the branch's tip conflicted.
    MergeConflict,
    /// Parallel runs: gated in its worktree, but the verify commands failed on the merged result.
    MergeVerifyFailed,
    /// The agent printed a BLOCKED signal: the story is held for the rest of the run.
    Blocked,
    /// The agent printed a FAILED signal: an attempt, its reason in the next prompt.
    Failed,
    /// Gated, but the review (`--review`) asked for changes or gave no verdict: `passes` is
    /// set back to false and the items go into the next prompt.
    ReviewChanges,
    /// The agent CLI refused to start or exited at once without starting a session (an
    /// argument it does not know, root refused, not logged in): the run stops.
    StartFailed,
}

impl Outcome {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::VerifyFailed => "verify failed",
            Outcome::Incomplete => "not finished",
            Outcome::AgentFailed => "agent failed",
            Outcome::TimedOut => "timed out",
            Outcome::RateLimited => "rate limited",
            Outcome::Interrupted => "interrupted",
            Outcome::MergeConflict => "merge conflict",
            Outcome::MergeVerifyFailed => "failed verify once merged",
            Outcome::Blocked => "blocked",
            Outcome::Failed => "failed",
            Outcome::ReviewChanges => "changes requested",
            Outcome::StartFailed => "could not start",
        }
    }
}

/// One verify command's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct VerifyResult {
    pub command: String,
    pub exit_code: Option<i32>,
    pub passed: bool,
    pub timed_out: bool,
    pub duration_ms: u64,
}

/// One iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub run_id: String,
    pub iteration: u32,
    pub story: String,
    pub agent: String,
    /// The agent CLI's version, as its `--version` said (absent for a custom command, or
    /// when it could not be told).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
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
    /// Parallel runs: the worker (1..K) that ran the attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<u32>,
    /// Parallel runs: the commit the story branch was made from or last reset onto.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Parallel runs: the merge of a gated attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<MergeRecord>,
    /// Parallel runs: where a sent-back attempt's work is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_ref: Option<String>,
    /// What the agent reported it used (tokens, cost, model), when its output says; absent
    /// for plain-text agents and in records written before ralph read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::agent::telemetry::Usage>,
    /// The agent's reason, for `blocked` and `failed` iterations (its BLOCKED / FAILED signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The review of a gated attempt (`ralph run --review`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewRecord>,
    /// Where the agent's raw output is kept as it printed it (a structured agent's events,
    /// redacted and bounded), relative to the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<String>,
    /// The red run of the red-green gate (`ralph run --red-green`), when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red_green: Option<RedGreenRecord>,
}

/// What the red-green gate's red run gave: the story's test-file changes alone, on the
/// story's base commit in a scratch worktree, must fail its verify commands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RedGreenRecord {
    /// `red` (a command failed, as required), `green` (they all passed without the change:
    /// sent back), `no-tests` (the story changed no test file: sent back), `inconclusive`
    /// (the red run could not judge; the gate's verdict stands).
    pub result: String,
    /// The commit the test files were put on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The test files taken from the story's change (deleted ones too).
    #[serde(default)]
    pub test_files: Vec<String>,
    /// The red run's commands, to the first that failed.
    #[serde(default)]
    pub verify: Vec<VerifyResult>,
    /// The whole red run: the scratch worktree made, set up, run and removed.
    pub duration_ms: u64,
    /// Why it could not judge (`inconclusive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// What the reviewer of a gated attempt said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ReviewRecord {
    /// `approve`, `changes` or `none` (no verdict: not approved).
    pub verdict: String,
    /// What to change, for `changes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
    /// The story's review round in this run (1-based).
    pub round: u32,
    /// The reviewer: an agent preset's name or `custom`.
    pub reviewer: String,
    pub duration_ms: u64,
    /// Why there is no verdict (timed out, no verdict line, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Files the reviewer changed although told not to (kept, and reported).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    /// What the reviewer reported it used (counted against `--max-cost` with the agent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::agent::telemetry::Usage>,
}

impl Record {
    /// A record of `outcome` for `story` with nothing else known yet (no exit code, no verify
    /// results, no commits): the loop fills in what it observed.
    pub(crate) fn new(
        run_id: &str,
        iteration: u32,
        story: &str,
        start: String,
        outcome: Outcome,
    ) -> Record {
        Record {
            run_id: run_id.to_string(),
            iteration,
            story: story.to_string(),
            agent: String::new(),
            agent_version: None,
            start,
            duration_ms: 0,
            exit_code: None,
            term_signal: None,
            timed_out: false,
            signal_seen: false,
            verify: vec![],
            outcome,
            head_before: None,
            head_after: None,
            files_changed: vec![],
            restored: vec![],
            rate_limit: None,
            skipped: false,
            worker: None,
            base: None,
            merge: None,
            attempt_ref: None,
            reason: None,
            usage: None,
            review: None,
            events: None,
            red_green: None,
        }
    }
}

/// How a parallel run's merge queue handled a gated attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MergeRecord {
    /// `merged`, `conflict`, `verify-failed`.
    pub result: String,
    pub tip_before: String,
    pub tip_after: Option<String>,
    pub fast_forward: bool,
    #[serde(default)]
    pub conflicts: Vec<String>,
    /// The re-verify on the merged result (empty for a fast-forward).
    #[serde(default)]
    pub verify: Vec<VerifyResult>,
}

/// What a person asked of a live run (`ralph pause`, `resume`, `steer`, `skip`, `retry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ControlKind {
    Pause,
    Resume,
    Steer,
    Skip,
    Retry,
}

impl ControlKind {
    /// The command that asks for it (`pause`, `steer`, …).
    pub(crate) fn name(self) -> &'static str {
        match self {
            ControlKind::Pause => "pause",
            ControlKind::Resume => "resume",
            ControlKind::Steer => "steer",
            ControlKind::Skip => "skip",
            ControlKind::Retry => "retry",
        }
    }
}

/// One request a live run took, as a line of its own in history.jsonl:
/// `{"control": "steer", "run_id", "time", "request", "story", "text"}`. Not an iteration:
/// `control` tells it apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ControlRecord {
    pub control: ControlKind,
    pub run_id: String,
    /// RFC 3339, when the run took it.
    pub time: String,
    /// The request's id (`.ralph/control/requests/<id>.json`).
    pub request: String,
    /// The story it is about (`skip`, `retry`, `steer --story`); `null` for every story.
    #[serde(default)]
    pub story: Option<String>,
    /// A steering note's text, redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A history file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HistoryError {
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

impl crate::problem::Coded for HistoryError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        match self {
            HistoryError::Io(f) => f.problem(),
            HistoryError::Corrupt { path, line, .. } => {
                Some(crate::problem::Problem::at("history-corrupt", path).line(*line))
            }
        }
    }
}

/// The stories whose latest record holds them for a person, with the reason: the agent
/// reported them blocked, or their review did not approve them in `max_rounds` (pure; the
/// caller leaves out the stories that pass by now).
pub(crate) fn agent_blocked(records: &[Record]) -> std::collections::BTreeMap<String, String> {
    let mut latest: std::collections::BTreeMap<&str, &Record> = Default::default();
    for r in records {
        latest.insert(&r.story, r);
    }
    latest
        .into_iter()
        .filter(|(_, r)| {
            r.outcome == Outcome::Blocked || (r.outcome == Outcome::ReviewChanges && r.skipped)
        })
        .map(|(id, r)| {
            let why = r
                .reason
                .as_deref()
                .unwrap_or(crate::agent::detect::NO_REASON);
            (id.to_string(), why.to_string())
        })
        .collect()
}

/// A reported cost as every sum counts it (`--max-cost`, `ralph status`, `ralph report`): a
/// negative or non-finite one is junk, counted as not reported. Pure.
pub(crate) fn counted_cost(usd: f64) -> Option<f64> {
    (usd.is_finite() && usd >= 0.0).then_some(usd)
}

pub(crate) fn path(root: &Path) -> PathBuf {
    super::state_dir(root).join("history.jsonl")
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
pub(crate) fn append(root: &Path, rec: &Record) -> Result<(), HistoryError> {
    append_line(root, rec, rec.iteration)
}

/// Append one request a live run took (see [`ControlRecord`]).
pub(crate) fn append_control(root: &Path, rec: &ControlRecord) -> Result<(), HistoryError> {
    append_line(root, rec, 0)
}

/// Appends from the loop and from a live run's control thread, one at a time: the torn-line
/// check and the write must not interleave.
static APPENDING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn append_line<T: Serialize>(root: &Path, rec: &T, iteration: u32) -> Result<(), HistoryError> {
    let _one = APPENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let p = path(root);
    if let Some(dir) = p.parent() {
        crate::fsutil::create_dir_all(dir)?;
    }
    if std::fs::symlink_metadata(&p).is_ok_and(|m| !m.is_file()) {
        super::rejected::move_aside(&super::state_dir(root), iteration, &p)?;
    }
    let mut line = serde_json::to_string(rec).map_err(|source| HistoryError::Corrupt {
        path: p.clone(),
        line: 0,
        source,
    })?;
    line.push('\n');
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(&p)
        .map_err(fs_err(&p, "open for append"))?;
    // A torn last line (a crash mid-append) must stay a line of its own: gluing this record
    // onto it would make a bad line in the middle, and the file unreadable for good.
    if ends_without_newline(&mut f).map_err(fs_err(&p, "read"))? {
        line.insert(0, '\n');
    }
    f.write_all(line.as_bytes()).map_err(fs_err(&p, "append"))?;
    Ok(())
}

/// Every record, oldest first. A missing file is an empty history; a line that is not a
/// record is skipped.
pub(crate) fn read(root: &Path) -> Result<Vec<Record>, HistoryError> {
    read_counted(root).map(|(r, _)| r)
}

/// Every record, and how many non-empty lines were skipped because they are not records
/// (a torn line from a crash, junk; the file itself is never changed here). Control lines
/// ([`ControlRecord`]) are neither.
pub(crate) fn read_counted(root: &Path) -> Result<(Vec<Record>, usize), HistoryError> {
    read_file(&path(root))
}

/// [`read_counted`] of a history at any path (`ralph report --history FILE`); missing is empty.
pub(crate) fn read_file(p: &Path) -> Result<(Vec<Record>, usize), HistoryError> {
    read_all_at(p).map(|h| (h.records, h.skipped))
}

/// The whole history: iterations and control lines apart, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct History {
    pub records: Vec<Record>,
    pub control: Vec<ControlRecord>,
    /// Non-empty lines that are neither (torn, junk).
    pub skipped: usize,
}

/// Read the history (a missing file is an empty one).
pub(crate) fn read_all(root: &Path) -> Result<History, HistoryError> {
    read_all_at(&path(root))
}

fn read_all_at(p: &Path) -> Result<History, HistoryError> {
    let bytes = crate::fsutil::read_if_exists(p)?.unwrap_or_default();
    Ok(parse(&String::from_utf8_lossy(&bytes)))
}

/// The records among `text`'s lines, and how many non-empty lines are neither records nor
/// control lines. Pure.
#[cfg(test)]
pub(crate) fn parse_lines(text: &str) -> (Vec<Record>, usize) {
    let h = parse(text);
    (h.records, h.skipped)
}

/// The lines of a history file, sorted into iterations, control lines and junk. Fields added
/// since a line was written are optional, unknown ones ignored: every file ralph wrote reads.
/// Pure.
pub(crate) fn parse(text: &str) -> History {
    let mut h = History::default();
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str(l) {
            Ok(r) => h.records.push(r),
            Err(_) if is_control_line(l) => {
                if let Ok(c) = serde_json::from_str(l) {
                    h.control.push(c);
                }
            }
            Err(_) => h.skipped += 1,
        }
    }
    h
}

/// Whether a history line is a control line (`"control"` names a request), whatever else it
/// holds: a newer ralph's control line this one cannot read is still not junk.
pub(crate) fn is_control_line(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .is_ok_and(|v| v.get("control").is_some_and(serde_json::Value::is_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(i: u32) -> Record {
        Record {
            agent: "claude".into(),
            duration_ms: 5,
            exit_code: Some(0),
            signal_seen: true,
            files_changed: vec!["src/a.rs".into()],
            ..Record::new("r", i, "A", "2026-11-22T10:00:00Z".into(), Outcome::Done)
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
    fn junk_lines_are_skipped_counted_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), &rec(1)).unwrap();
        let p = path(dir.path());
        let mut text = std::fs::read_to_string(&p).unwrap();
        text.push_str("garbage\n{\"run_id\": 3}\n\u{0}\u{ff}\n");
        text.push_str(&serde_json::to_string(&rec(2)).unwrap());
        std::fs::write(&p, &text).unwrap();
        assert_eq!(read_counted(dir.path()).unwrap(), (vec![rec(1), rec(2)], 3));
        append(dir.path(), &rec(3)).unwrap();
        assert_eq!(read(dir.path()).unwrap(), vec![rec(1), rec(2), rec(3)]);
        assert!(std::fs::read_to_string(&p).unwrap().starts_with(&text));
    }

    #[test]
    fn control_lines_are_read_apart_and_never_counted_as_junk() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), &rec(1)).unwrap();
        let steer = ControlRecord {
            control: ControlKind::Steer,
            run_id: "r".into(),
            time: "2026-11-22T10:00:00Z".into(),
            request: "q1".into(),
            story: None,
            text: Some("use the new client".into()),
        };
        append_control(dir.path(), &steer).unwrap();
        let mut text = std::fs::read_to_string(path(dir.path())).unwrap();
        text.push_str("{\"control\": \"future-kind\", \"run_id\": \"r\"}\njunk\n");
        std::fs::write(path(dir.path()), &text).unwrap();
        append(dir.path(), &rec(2)).unwrap();
        let h = read_all(dir.path()).unwrap();
        assert_eq!(h.records, vec![rec(1), rec(2)]);
        assert_eq!(h.control, vec![steer]);
        assert_eq!(h.skipped, 1, "only the junk line");
        assert_eq!(read_counted(dir.path()).unwrap().1, 1);
        let line = text.lines().nth(1).unwrap();
        assert!(line.starts_with("{\"control\":\"steer\""), "{line}");
        assert!(!line.contains("outcome"));
    }

    #[test]
    fn a_fifo_in_place_of_the_history_is_moved_aside_never_blocked_on() {
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path());
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(read(dir.path()).is_err());
        append(dir.path(), &rec(1)).unwrap();
        assert_eq!(read(dir.path()).unwrap(), vec![rec(1)]);
        assert_eq!(
            std::fs::read_dir(dir.path().join(".ralph/rejected"))
                .unwrap()
                .count(),
            1
        );
    }
}
