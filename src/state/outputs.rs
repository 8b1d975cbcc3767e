//! What a story produced, as the files record it: its latest progress.txt entry and its
//! `.ralph/history.jsonl` records. The one source both the context builder (a blocker's
//! outputs in the prompt) and `ralph show` read.
//!
//! [`of`], [`latest_entry`] and [`last_done`] are pure (a parsed log, the records in); [`read`]
//! reads the two files first.

use std::path::Path;

use super::history::{self, Outcome, Record};
use crate::progress::LogView;

/// A story's outputs: its latest progress entry and every history record for it, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoryOutputs {
    pub progress_entry: Option<String>,
    pub records: Vec<Record>,
}

/// The outputs of story `id` from a parsed progress log (if any) and the history records.
pub fn of(log: Option<&LogView<'_>>, records: &[Record], id: &str) -> StoryOutputs {
    StoryOutputs {
        progress_entry: log.and_then(|l| latest_entry(l, id)),
        records: records.iter().filter(|r| r.story == id).cloned().collect(),
    }
}

/// Story `id`'s latest progress.txt entry.
pub fn latest_entry(log: &LogView<'_>, id: &str) -> Option<String> {
    log.last_entry_for(id).map(|e| e.text().into_owned())
}

/// Story `id`'s latest `done` record among `records` (borrowed: nothing copied).
pub fn last_done<'a>(records: &'a [Record], id: &str) -> Option<&'a Record> {
    records
        .iter()
        .rev()
        .find(|r| r.story == id && r.outcome == Outcome::Done)
}

/// Read progress.txt (if any) and the history under `root`, and take story `id`'s outputs.
/// Also returns how many history lines were skipped as not records.
pub fn read(root: &Path, id: &str) -> Result<(StoryOutputs, usize), ReadError> {
    let path = crate::progress::path_in(root);
    let bytes = crate::fsutil::read_if_exists(&path)?;
    let log = bytes.as_deref().map(LogView::parse);
    let (records, skipped) = history::read_counted(root)?;
    Ok((of(log.as_ref(), &records, id), skipped))
}

/// progress.txt or the history cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
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
        let out = of(Some(&log), &[], "US-001");
        assert!(out.progress_entry.unwrap().contains("second"));
        assert!(out.records.is_empty());
        assert_eq!(of(None, &[], "US-001"), StoryOutputs::default());
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
