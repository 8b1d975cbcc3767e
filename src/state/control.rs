//! `.ralph/control/`: the channel between a running `ralph run` and the commands that steer it
//! from another terminal (`ralph pause`, `resume`, `steer`, `skip`, `retry`, and `ralph status`,
//! which reads what the run publishes).
//!
//! - `requests/<id>.json`: one [`Request`] per file, written atomically by the command (a run
//!   never sees half a request); the run takes each once, answers, then removes it.
//! - `acks/<id>.json`: the run's [`Ack`] to request `<id>`, written atomically; the command that
//!   waits for it reads it and removes it.
//! - `run.json`: the live run's [`RunState`] (paused or not, claims, held stories, steering
//!   notes), rewritten atomically on every change, removed when the run ends.
//!
//! Owns where these files live, their shape on disk (`schema_version` 1) and whether the run that
//! published `run.json` is still the one holding the project lock ([`live_run`]). Does not decide
//! what a request does (`crate::run::control`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};

use super::history::ControlKind;
use crate::fsutil::{self, FsError};

/// The version of the three files' shapes.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// `.ralph/control/`.
pub(crate) fn dir(root: &Path) -> PathBuf {
    super::state_dir(root).join("control")
}

/// `.ralph/control/requests/`.
pub(crate) fn requests_dir(root: &Path) -> PathBuf {
    dir(root).join("requests")
}

/// `.ralph/control/acks/`.
pub(crate) fn acks_dir(root: &Path) -> PathBuf {
    dir(root).join("acks")
}

/// `.ralph/control/run.json`.
pub(crate) fn run_path(root: &Path) -> PathBuf {
    dir(root).join("run.json")
}

/// A person's request to the live run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Request {
    pub schema_version: u32,
    /// Unique, and ordered by time: `<unix ms, 13 digits>-<pid>-<n>`; the file's name.
    pub id: String,
    /// The run it is meant for (from `run.json`): another run refuses it.
    pub run_id: String,
    pub action: ControlKind,
    /// `skip`, `retry`: the story; `steer`: the story, or `null` for every story.
    #[serde(default)]
    pub story: Option<String>,
    /// `steer`: the note.
    #[serde(default)]
    pub text: Option<String>,
    /// RFC 3339, when it was sent.
    pub time: String,
    /// The sending command's pid.
    pub pid: u32,
}

/// The run's answer to one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ack {
    pub schema_version: u32,
    /// The request's id.
    pub id: String,
    pub run_id: String,
    /// False: refused (an unknown story, an empty note, …); `message` says why.
    pub accepted: bool,
    /// Whether it changed anything (pausing a paused run does not).
    pub changed: bool,
    /// What the run did, or why not, in a person's words.
    pub message: String,
    /// RFC 3339, when the run took it.
    pub time: String,
}

/// A steering note of the live run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Note {
    /// `n1`, `n2`, … in the order the run took them.
    pub id: String,
    /// The story it is for; `null`: every story.
    pub story: Option<String>,
    /// The text, redacted.
    pub text: String,
    /// RFC 3339, when the run took it.
    pub time: String,
}

/// A claimed story as `ralph status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ClaimView {
    pub story: String,
    pub title: String,
    /// `running`, `waiting` (for its next attempt), `queued` (for the merge), `merging`.
    pub state: String,
    /// Its attempt in this run (the running one, or the last).
    pub attempt: u32,
    /// Parallel runs: the worker (1..K).
    pub worker: Option<u32>,
    /// RFC 3339, since when it is in `state`.
    pub since: String,
}

/// A story held for the rest of the run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Held {
    pub story: String,
    pub reason: String,
}

/// A wait of the run between iterations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Wait {
    /// `sleep` (`--sleep`) or `rate-limit`.
    pub why: String,
    /// RFC 3339.
    pub until: String,
}

/// What the live run publishes in `run.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RunState {
    pub schema_version: u32,
    pub run_id: String,
    pub pid: u32,
    /// The run's start time in clock ticks since boot (`/proc/<pid>/stat`): with the pid, its
    /// identity (a reused pid is another process). `null` where it cannot be read.
    pub pid_start: Option<u64>,
    /// The prd.json it runs (as given to it).
    pub prd: String,
    /// RFC 3339.
    pub started: String,
    pub updated: String,
    /// Stories at once (1: the sequential loop).
    pub parallel: u32,
    pub branch: Option<String>,
    pub paused: bool,
    /// RFC 3339, when it was paused.
    pub paused_since: Option<String>,
    pub wait: Option<Wait>,
    /// Iterations started, and the limit.
    pub iteration: u32,
    pub limit: u32,
    pub claims: Vec<ClaimView>,
    pub held: Vec<Held>,
    pub steering: Vec<Note>,
}

/// Why there is no run to talk to.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NoRun {
    #[error(
        "no ralph run is active in {root} (nothing published {path}); pause, resume, steer, skip and retry talk to a running `ralph run`: start one first"
    )]
    None { root: PathBuf, path: PathBuf },
    #[error(
        "no ralph run is active in {root}: run {run_id} (pid {pid}) is no longer running (it was killed before it could clean up {path}; the next `ralph run` replaces it)"
    )]
    Gone {
        root: PathBuf,
        path: PathBuf,
        run_id: String,
        pid: u32,
    },
    #[error(
        "{path}: not a run state ({why}); no ralph run can be told apart in {root}: if one is running, wait for its next change, else the next `ralph run` replaces the file"
    )]
    Unreadable {
        root: PathBuf,
        path: PathBuf,
        why: String,
    },
}

impl crate::problem::Coded for NoRun {
    fn problem(&self) -> Option<crate::problem::Problem> {
        let (NoRun::None { path, .. } | NoRun::Gone { path, .. } | NoRun::Unreadable { path, .. }) =
            self;
        Some(crate::problem::Problem::at("no-run", path))
    }
}

/// A new request id: `<unix ms, 13 digits>-<pid>-<n>`, so the names sort in sending order.
pub(crate) fn new_request_id() -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let ms = jiff::Timestamp::now().as_millisecond().max(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!("{ms:013}-{}-{n}", std::process::id())
}

fn to_json<T: Serialize>(v: &T) -> Vec<u8> {
    let mut text = serde_json::to_vec_pretty(v).unwrap_or_default();
    text.push(b'\n');
    text
}

/// Whether `id` can be a file name here (what a request names is also a path).
fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Write `req` as `requests/<id>.json`, atomically: its path.
pub(crate) fn write_request(root: &Path, req: &Request) -> Result<PathBuf, FsError> {
    let dir = requests_dir(root);
    fsutil::create_dir_all(&dir)?;
    let path = dir.join(format!("{}.json", req.id));
    fsutil::atomic_write(&path, &to_json(req))?;
    Ok(path)
}

/// The requests waiting, oldest first: each file's path and the request, or why it is not one.
/// Temp files of writes under way are not requests yet.
pub(crate) fn pending(root: &Path) -> Vec<(PathBuf, Result<Request, String>)> {
    let Ok(entries) = std::fs::read_dir(requests_dir(root)) else {
        return vec![];
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with(fsutil::TEMP_PREFIX)
        })
        .map(|e| e.path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let req = read_request(&p);
            (p, req)
        })
        .collect()
}

fn read_request(path: &Path) -> Result<Request, String> {
    let bytes = fsutil::read(path).map_err(|e| e.to_string())?;
    let req: Request = serde_json::from_slice(&bytes).map_err(|e| format!("not a request: {e}"))?;
    if !safe_id(&req.id) || path.file_stem().and_then(|s| s.to_str()) != Some(req.id.as_str()) {
        return Err(format!(
            "the request's id {:?} is not its file name",
            req.id
        ));
    }
    Ok(req)
}

/// Write the answer to request `ack.id`, atomically.
pub(crate) fn write_ack(root: &Path, ack: &Ack) -> Result<(), FsError> {
    let dir = acks_dir(root);
    fsutil::create_dir_all(&dir)?;
    fsutil::atomic_write(&dir.join(format!("{}.json", ack.id)), &to_json(ack))
}

/// The answer to request `id`, once there is one (taken: the file is removed).
pub(crate) fn take_ack(root: &Path, id: &str) -> Option<Ack> {
    if !safe_id(id) {
        return None;
    }
    let path = acks_dir(root).join(format!("{id}.json"));
    let ack: Ack = serde_json::from_slice(&fsutil::read(&path).ok()?).ok()?;
    let _ = std::fs::remove_file(&path);
    Some(ack)
}

/// Publish the live run's state, atomically.
pub(crate) fn publish(root: &Path, state: &RunState) -> Result<(), FsError> {
    fsutil::create_dir_all(&dir(root))?;
    fsutil::atomic_write(&run_path(root), &to_json(state))
}

/// The published run state, whether its run lives or not: `None` when there is none.
pub(crate) fn read_run(root: &Path) -> Option<Result<RunState, String>> {
    let path = run_path(root);
    let bytes = match fsutil::read_if_exists(&path) {
        Ok(Some(b)) => b,
        Ok(None) => return None,
        Err(e) => return Some(Err(e.to_string())),
    };
    Some(serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
}

/// The run's start time in clock ticks since boot (Linux; `None` elsewhere).
pub(crate) fn start_ticks(pid: u32) -> Option<u64> {
    crate::agent::group::stat(i32::try_from(pid).ok()?).map(|s| s.start)
}

/// Whether the process that published `state` is still there and holds the project lock: its
/// pid is alive with the same start time, and `.ralph/lock` names it.
pub(crate) fn alive(root: &Path, state: &RunState) -> bool {
    let pid = state.pid.to_string();
    if !super::lock::pid_alive(&pid) || super::lock::holder(root).as_deref() != Some(pid.as_str()) {
        return false;
    }
    match (state.pid_start, start_ticks(state.pid)) {
        (Some(recorded), Some(now)) => recorded == now,
        // Cannot tell (no /proc): the pid and the lock say it is.
        _ => true,
    }
}

/// The live run of the project at `root`, or why there is none.
pub(crate) fn live_run(root: &Path) -> Result<RunState, NoRun> {
    let path = run_path(root);
    let state = match read_run(root) {
        None => {
            return Err(NoRun::None {
                root: root.to_path_buf(),
                path,
            });
        }
        Some(Err(why)) => {
            return Err(NoRun::Unreadable {
                root: root.to_path_buf(),
                path,
                why,
            });
        }
        Some(Ok(s)) => s,
    };
    if !alive(root, &state) {
        return Err(NoRun::Gone {
            root: root.to_path_buf(),
            path,
            run_id: state.run_id,
            pid: state.pid,
        });
    }
    Ok(state)
}

/// Remove `run.json` when it is still `run_id`'s (a later run's is never touched).
pub(crate) fn remove_run(root: &Path, run_id: &str) {
    if let Some(Ok(s)) = read_run(root)
        && s.run_id == run_id
    {
        let _ = std::fs::remove_file(run_path(root));
    }
}

/// At a run's start (with the lock held): requests and answers left by an earlier run are
/// nobody's any more (a request names its run; no command can know the new run's id yet).
/// Only regular files ralph's commands write there (`*.json`, temp files) are removed.
pub(crate) fn clear_stale(root: &Path) {
    for d in [requests_dir(root), acks_dir(root)] {
        fsutil::sweep_temp_files(&d);
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let ours = p.extension().is_some_and(|x| x == "json")
                && e.file_type().is_ok_and(|t| t.is_file());
            if ours {
                let _ = std::fs::remove_file(&p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(id: &str) -> Request {
        Request {
            schema_version: SCHEMA_VERSION,
            id: id.into(),
            run_id: "r1".into(),
            action: ControlKind::Steer,
            story: None,
            text: Some("use the new client".into()),
            time: "2026-11-26T10:00:00Z".into(),
            pid: 7,
        }
    }

    #[test]
    fn requests_are_listed_oldest_first_and_a_bad_one_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(pending(root).is_empty());
        let (a, b) = (new_request_id(), new_request_id());
        assert!(a < b, "{a} {b}");
        write_request(root, &request(&b)).unwrap();
        write_request(root, &request(&a)).unwrap();
        std::fs::write(requests_dir(root).join("junk.json"), "{").unwrap();
        std::fs::write(requests_dir(root).join(".ralph-tmp-x"), "{").unwrap();
        let mut renamed = request("zz");
        renamed.id = "../escape".into();
        std::fs::write(
            requests_dir(root).join("zz.json"),
            serde_json::to_vec(&renamed).unwrap(),
        )
        .unwrap();
        let got = pending(root);
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(got[0].1.as_ref().unwrap().id, a);
        assert_eq!(got[1].1.as_ref().unwrap().id, b);
        assert!(got[2].1.as_ref().unwrap_err().contains("not a request"));
        assert!(got[3].1.as_ref().unwrap_err().contains("not its file name"));
    }

    #[test]
    fn an_ack_is_taken_once_and_stale_files_are_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ack = Ack {
            schema_version: SCHEMA_VERSION,
            id: "1-2-3".into(),
            run_id: "r1".into(),
            accepted: true,
            changed: true,
            message: "paused".into(),
            time: "t".into(),
        };
        write_ack(root, &ack).unwrap();
        assert_eq!(take_ack(root, "../x"), None);
        assert_eq!(take_ack(root, "1-2-3"), Some(ack));
        assert_eq!(take_ack(root, "1-2-3"), None);
        write_request(root, &request("1-2-4")).unwrap();
        std::fs::write(requests_dir(root).join("keep.txt"), "mine").unwrap();
        clear_stale(root);
        assert!(pending(root).iter().all(|(p, _)| p.ends_with("keep.txt")));
    }

    #[test]
    fn no_run_is_live_without_a_state_or_with_a_dead_pid() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let e = live_run(root).unwrap_err().to_string();
        assert!(e.starts_with("no ralph run is active in"), "{e}");
        let mut s = RunState {
            schema_version: SCHEMA_VERSION,
            run_id: "r1".into(),
            pid: std::process::id(),
            pid_start: start_ticks(std::process::id()),
            prd: "prd.json".into(),
            started: "t".into(),
            updated: "t".into(),
            parallel: 1,
            branch: None,
            paused: false,
            paused_since: None,
            wait: None,
            iteration: 0,
            limit: 10,
            claims: vec![],
            held: vec![],
            steering: vec![],
        };
        publish(root, &s).unwrap();
        // Alive, but the lock does not name it.
        assert!(matches!(live_run(root), Err(NoRun::Gone { .. })));
        let lock = crate::state::lock::Lock::acquire(root).unwrap();
        assert_eq!(live_run(root).unwrap(), s);
        s.pid_start = s.pid_start.map(|t| t + 1);
        publish(root, &s).unwrap();
        assert!(
            matches!(live_run(root), Err(NoRun::Gone { .. })),
            "a reused pid"
        );
        remove_run(root, "other");
        assert!(run_path(root).exists());
        remove_run(root, "r1");
        assert!(!run_path(root).exists());
        std::fs::write(run_path(root), "junk").unwrap();
        assert!(matches!(live_run(root), Err(NoRun::Unreadable { .. })));
        drop(lock);
    }
}
