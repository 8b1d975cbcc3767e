//! `.ralph/runs/<run-id>/`: one folder per `ralph run` (its prompts and iteration logs) and the
//! run's manifest, `manifest.json`: who ran what, when, and how it ended.
//!
//! Owns the manifest's shape on disk (written atomically, `schema_version` 1), the reader that
//! lists the run folders with their time (the manifest's end or start, else the run id's
//! timestamp, else the folder's mtime), tolerating junk (no manifest, a corrupt one, a file where
//! a folder should be), and the stories a run attempted (from its history records). Does not
//! decide when a manifest is written (the loop, `crate::run::start::upkeep`) nor what is removed
//! (`crate::clean`).

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::fsutil::{self, FsError};
use crate::state::history::Record;

/// The manifest's version.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// The manifest's file name inside a run folder.
pub(crate) const MANIFEST: &str = "manifest.json";

/// `.ralph/runs/`.
pub(crate) fn dir(state_dir: &Path) -> PathBuf {
    state_dir.join("runs")
}

/// How a run ended (`running` until it does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RunOutcome {
    Running,
    AllDone,
    Limit,
    NoReady,
    CostLimit,
    Interrupted,
    /// The agent CLI could not start.
    StartFailed,
    Error,
}

/// `.ralph/runs/<run-id>/manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub schema_version: u32,
    pub run_id: String,
    /// RFC 3339.
    pub start: String,
    /// RFC 3339; `null` while the run goes on (or when it was killed outright).
    pub end: Option<String>,
    pub agent: String,
    /// The agent CLI's version, when it could be told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
    /// Stories at once (1: the sequential loop).
    pub parallel: u32,
    /// The branch the run worked on, when known.
    pub branch: Option<String>,
    /// The iteration limit.
    pub iterations: u32,
    /// Story ids, in the order of their first attempt.
    pub stories_attempted: Vec<String>,
    pub outcome: RunOutcome,
    /// The error's message when `outcome` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub pid: u32,
}

impl Manifest {
    /// A run starting now.
    pub(crate) fn begin(run_id: &str, agent: &str, parallel: u32, iterations: u32) -> Manifest {
        Manifest {
            schema_version: SCHEMA_VERSION,
            run_id: run_id.to_string(),
            start: Timestamp::now().to_string(),
            end: None,
            agent: agent.to_string(),
            agent_version: None,
            parallel,
            branch: None,
            iterations,
            stories_attempted: vec![],
            outcome: RunOutcome::Running,
            error: None,
            pid: std::process::id(),
        }
    }

    /// The run ended now with `outcome`; `records` is the history (the run's own are picked).
    pub(crate) fn finish(
        &mut self,
        outcome: RunOutcome,
        error: Option<String>,
        records: &[Record],
    ) {
        self.end = Some(Timestamp::now().to_string());
        self.outcome = outcome;
        self.error = error;
        self.stories_attempted = stories_attempted(records, &self.run_id);
    }

    /// When the run ended, or started; `None` when neither parses.
    pub(crate) fn time(&self) -> Option<Timestamp> {
        let parse = |s: &Option<String>| s.as_deref().and_then(|s| s.parse::<Timestamp>().ok());
        parse(&self.end).or_else(|| parse(&Some(self.start.clone())))
    }
}

/// The stories `run_id`'s records name, in the order of their first attempt. Pure.
pub(crate) fn stories_attempted(records: &[Record], run_id: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in records.iter().filter(|r| r.run_id == run_id) {
        if !r.story.is_empty() && !out.contains(&r.story) {
            out.push(r.story.clone());
        }
    }
    out
}

/// Write `m` into its run folder (atomically: a reader never sees half a manifest).
pub(crate) fn write(run_dir: &Path, m: &Manifest) -> Result<(), FsError> {
    let mut text = serde_json::to_string_pretty(m).unwrap_or_default();
    text.push('\n');
    fsutil::atomic_write(&run_dir.join(MANIFEST), text.as_bytes())
}

/// The manifest in `run_dir`; `None` when there is none or it is not one (junk is tolerated).
pub(crate) fn read(run_dir: &Path) -> Option<Manifest> {
    let bytes = fsutil::read(&run_dir.join(MANIFEST)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The time in a run id (`20261126T143000-4242`, local time) or a rejected copy's name
/// (`20261126T143000-iter3-prd.json`).
pub(crate) fn stamp_time(name: &str) -> Option<Timestamp> {
    let stamp = name.get(..15)?;
    let dt = jiff::civil::DateTime::strptime("%Y%m%dT%H%M%S", stamp).ok()?;
    dt.to_zoned(jiff::tz::TimeZone::system())
        .ok()
        .map(|z| z.timestamp())
}

/// One entry of `.ralph/runs/`.
#[derive(Debug, Clone)]
pub(crate) struct RunFolder {
    pub path: PathBuf,
    /// The folder's name (the run id for a real run).
    pub name: String,
    pub manifest: Option<Manifest>,
    /// Manifest end or start, else the run id's time, else the mtime; `None` when nothing says.
    pub time: Option<Timestamp>,
}

impl RunFolder {
    /// The run is still going: its manifest says `running`, the project lock names its pid
    /// (`holder`: [`crate::state::lock::holder`]) and that pid is alive. A pid alone is not
    /// enough: a SIGKILLed run leaves `running` behind, and its pid may be reused by any process.
    /// A running ralph holds the lock the whole run, and whoever takes the lock next writes its
    /// own pid there, so under the lock (`ralph clean`, the clean at a run's start, before that
    /// run's manifest exists) every other `running` manifest is dead.
    pub(crate) fn is_live(&self, holder: Option<&str>) -> bool {
        self.manifest.as_ref().is_some_and(|m| {
            let pid = m.pid.to_string();
            m.outcome == RunOutcome::Running
                && holder.is_some_and(|h| h.trim() == pid)
                && crate::state::lock::pid_alive(&pid)
        })
    }
}

/// The mtime of whatever sits at `path` (a symlink's own), as a timestamp.
pub(crate) fn mtime(path: &Path) -> Option<Timestamp> {
    let t = std::fs::symlink_metadata(path).ok()?.modified().ok()?;
    Timestamp::try_from(t).ok()
}

/// Every entry of `.ralph/runs/`, in name order; none when the folder does not exist.
pub(crate) fn list(state_dir: &Path) -> Result<Vec<RunFolder>, FsError> {
    let d = dir(state_dir);
    let entries = match std::fs::read_dir(&d) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(fsutil::fs_err(&d, "list")(e)),
    };
    let mut out: Vec<RunFolder> = entries
        .flatten()
        .map(|e| {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            let manifest = is_dir.then(|| read(&path)).flatten();
            let time = manifest
                .as_ref()
                .and_then(Manifest::time)
                .or_else(|| stamp_time(&name))
                .or_else(|| mtime(&path));
            RunFolder {
                path,
                name,
                manifest,
                time,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::history::Outcome;

    fn rec(run: &str, story: &str) -> Record {
        Record::new(run, 1, story, "2026-01-01T00:00:00Z".into(), Outcome::Done)
    }

    #[test]
    fn stories_attempted_are_the_runs_own_in_first_attempt_order() {
        let h = [
            rec("r1", "B"),
            rec("r0", "Z"),
            rec("r1", "A"),
            rec("r1", "B"),
            rec("r1", ""),
        ];
        assert_eq!(stories_attempted(&h, "r1"), ["B", "A"]);
        assert!(stories_attempted(&h, "r9").is_empty());
    }

    #[test]
    fn a_manifest_round_trips_and_its_time_is_the_end_else_the_start() {
        let d = tempfile::tempdir().unwrap();
        let mut m = Manifest::begin("20260101T000000-1", "claude", 1, 10);
        m.start = "2026-01-01T00:00:00Z".into();
        write(d.path(), &m).unwrap();
        assert_eq!(read(d.path()).unwrap(), m);
        assert_eq!(m.time(), Some("2026-01-01T00:00:00Z".parse().unwrap()));
        let text = std::fs::read_to_string(d.path().join(MANIFEST)).unwrap();
        assert!(text.contains("\"outcome\": \"running\""), "{text}");
        assert!(text.contains("\"end\": null"), "{text}");
        m.finish(
            RunOutcome::Error,
            Some("boom".into()),
            &[rec(&m.run_id, "A")],
        );
        assert_eq!(m.stories_attempted, ["A"]);
        assert_ne!(m.time(), Some("2026-01-01T00:00:00Z".parse().unwrap()));
        write(d.path(), &m).unwrap();
        let text = std::fs::read_to_string(d.path().join(MANIFEST)).unwrap();
        assert!(text.contains("\"outcome\": \"error\""), "{text}");
        assert!(text.contains("\"error\": \"boom\""), "{text}");
    }

    #[test]
    fn run_ids_and_rejected_names_carry_their_local_time() {
        let now = jiff::Zoned::now();
        let id = format!("{}-42", now.strftime("%Y%m%dT%H%M%S"));
        let t = stamp_time(&id).unwrap();
        assert!((now.timestamp().as_second() - t.as_second()).abs() <= 1);
        assert!(stamp_time("20260101T000000-iter3-prd.json").is_some());
        for junk in [
            "",
            "notes.txt",
            "2026-01-01",
            "20261399T000000-1",
            "ééééééééééééééééé",
        ] {
            assert_eq!(stamp_time(junk), None, "{junk}");
        }
    }

    #[test]
    fn the_listing_tolerates_junk_and_dates_each_entry() {
        let d = tempfile::tempdir().unwrap();
        assert!(list(d.path()).unwrap().is_empty(), "no runs folder");
        let runs = dir(d.path());
        std::fs::create_dir_all(runs.join("20200101T000000-1")).unwrap();
        std::fs::create_dir_all(runs.join("no-stamp")).unwrap();
        std::fs::create_dir_all(runs.join("20200202T000000-2")).unwrap();
        std::fs::write(runs.join("20200202T000000-2").join(MANIFEST), "{not json").unwrap();
        std::fs::write(runs.join("stray-file"), "x").unwrap();
        let mut m = Manifest::begin("20200303T000000-3", "codex", 2, 5);
        m.start = "2021-05-05T00:00:00Z".into();
        std::fs::create_dir_all(runs.join(&m.run_id)).unwrap();
        write(&runs.join(&m.run_id), &m).unwrap();
        let l = list(d.path()).unwrap();
        let names: Vec<&str> = l.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "20200101T000000-1",
                "20200202T000000-2",
                "20200303T000000-3",
                "no-stamp",
                "stray-file"
            ]
        );
        assert_eq!(l[0].time, stamp_time("20200101T000000-1"));
        assert!(l[1].manifest.is_none(), "a corrupt manifest is no manifest");
        assert_eq!(l[1].time, stamp_time("20200202T000000-2"));
        assert_eq!(l[2].time, Some("2021-05-05T00:00:00Z".parse().unwrap()));
        let me = std::process::id().to_string();
        assert!(
            l[2].is_live(Some(&me)),
            "running, this process holds the lock and is alive"
        );
        assert!(!l[2].is_live(None), "nobody holds the lock: a killed run");
        assert!(
            !l[2].is_live(Some("99999999")),
            "another holds the lock: this pid was reused"
        );
        assert!(l[3].time.is_some(), "the mtime");
        assert!(!l[4].path.is_dir() && l[4].manifest.is_none());
    }
}
