//! What a story produced, as the files record it: its latest progress.txt entry, its
//! `.ralph/history.jsonl` records, and what people told live runs about it (steering notes that
//! reached it, `ralph skip` / `retry`). The one source both the context builder (a blocker's
//! outputs in the prompt) and `ralph show` read.
//!
//! [`of`], [`latest_entry`], [`last_done`] and [`control_for`] are pure (a parsed log, the records
//! in); [`read`] reads the two files first.

use std::path::Path;

use super::history::{self, ControlKind, ControlRecord, Outcome, Record};
use crate::progress::LogView;

/// A story's outputs: its latest progress entry, every history record for it and the control
/// lines about it ([`control_for`]), oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct StoryOutputs {
    pub progress_entry: Option<String>,
    pub records: Vec<Record>,
    pub control: Vec<ControlRecord>,
}

/// The outputs of story `id` from a parsed progress log (if any) and the history.
pub(crate) fn of(
    log: Option<&LogView<'_>>,
    records: &[Record],
    control: &[ControlRecord],
    id: &str,
) -> StoryOutputs {
    let records: Vec<Record> = records.iter().filter(|r| r.story == id).cloned().collect();
    StoryOutputs {
        progress_entry: log.and_then(|l| latest_entry(l, id)),
        control: control_for(&records, control, id),
        records,
    }
}

/// What people told live runs about story `id`: its own notes, skips and releases, and the notes
/// for every story that reached one of its prompts (a later attempt in the same run). `mine`
/// are the story's history records.
pub(crate) fn control_for(
    mine: &[Record],
    control: &[ControlRecord],
    id: &str,
) -> Vec<ControlRecord> {
    let time = |s: &str| s.parse::<jiff::Timestamp>().ok();
    let reached = |c: &ControlRecord| {
        mine.iter().any(|r| {
            r.run_id == c.run_id
                && match (time(&r.start), time(&c.time)) {
                    (Some(start), Some(note)) => start >= note,
                    _ => r.start >= c.time,
                }
        })
    };
    control
        .iter()
        .filter(|c| match (&c.story, c.control) {
            (Some(s), _) => s == id,
            (None, ControlKind::Steer) => reached(c),
            (None, _) => false,
        })
        .cloned()
        .collect()
}

/// Story `id`'s latest progress.txt entry.
pub(crate) fn latest_entry(log: &LogView<'_>, id: &str) -> Option<String> {
    log.last_entry_for(id).map(|e| e.text().into_owned())
}

/// Story `id`'s latest `done` record among `records` (borrowed: nothing copied).
pub(crate) fn last_done<'a>(records: &'a [Record], id: &str) -> Option<&'a Record> {
    records
        .iter()
        .rev()
        .find(|r| r.story == id && r.outcome == Outcome::Done)
}

/// Read progress.txt (if any) and the history under `root`, and take story `id`'s outputs.
/// Also returns how many history lines were skipped as not records.
pub(crate) fn read(root: &Path, id: &str) -> Result<(StoryOutputs, usize), ReadError> {
    let path = crate::progress::path_in(root);
    let bytes = crate::fsutil::read_if_exists(&path)?;
    let log = bytes.as_deref().map(LogView::parse);
    let h = history::read_all(root)?;
    Ok((of(log.as_ref(), &h.records, &h.control, id), h.skipped))
}

/// progress.txt or the history cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
    #[error(transparent)]
    History(#[from] history::HistoryError),
}

impl crate::problem::Coded for ReadError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        match self {
            ReadError::Io(f) => f.problem(),
            ReadError::History(h) => h.problem(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_latest_entry_and_only_the_story_records() {
        let text = b"# Ralph Progress Log\n---\n\n## 2026-01-01 - US-001\n- first\n---\n\n## 2026-01-02 - US-002\n- other\n---\n\n## 2026-01-03 - US-001\n- second\n---\n";
        let log = LogView::parse(text);
        let out = of(Some(&log), &[], &[], "US-001");
        assert!(out.progress_entry.unwrap().contains("second"));
        assert!(out.records.is_empty());
        assert_eq!(of(None, &[], &[], "US-001"), StoryOutputs::default());
    }

    #[test]
    fn a_story_gets_its_own_control_lines_and_the_notes_for_all_that_reached_it() {
        let at = |m: u32| format!("2026-11-26T10:{m:02}:00Z");
        let rec = |run: &str, m: u32| Record::new(run, 1, "A", at(m), Outcome::Done);
        let ctl = |kind, run: &str, story: Option<&str>, m: u32| ControlRecord {
            control: kind,
            run_id: run.into(),
            time: at(m),
            request: format!("q{m}"),
            story: story.map(String::from),
            text: None,
        };
        let control = [
            ctl(ControlKind::Steer, "r1", None, 1),
            ctl(ControlKind::Steer, "r1", Some("A"), 2),
            ctl(ControlKind::Steer, "r1", Some("B"), 3),
            ctl(ControlKind::Skip, "r1", Some("A"), 4),
            ctl(ControlKind::Pause, "r1", None, 5),
            ctl(ControlKind::Steer, "r1", None, 20),
            ctl(ControlKind::Steer, "r2", None, 1),
        ];
        let mine = [rec("r1", 10)];
        let got: Vec<String> = control_for(&mine, &control, "A")
            .iter()
            .map(|c| c.request.clone())
            .collect();
        // The note for all at :20 came after A's last prompt; r2's in a run A never ran in.
        assert_eq!(got, ["q1", "q2", "q4"]);
    }

    #[test]
    fn the_last_done_record_is_the_storys_latest_done_one() {
        let rec = |story: &str, i: u32, outcome: Outcome| {
            Record::new("r", i, story, String::new(), outcome)
        };
        let records = [
            rec("A", 1, Outcome::Done),
            rec("B", 2, Outcome::Done),
            rec("A", 3, Outcome::Done),
            rec("A", 4, Outcome::VerifyFailed),
        ];
        assert_eq!(last_done(&records, "A").map(|r| r.iteration), Some(3));
        assert_eq!(last_done(&records, "C"), None);
    }
}
