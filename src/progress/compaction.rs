//! A compaction's terms (pure data): how to compact ([`Options`] and its defaults), who wrote the
//! summary ([`SummaryMethod`]), what was done ([`Stats`], [`Compacted`]) and why nothing was
//! ([`CompactError`]).
//!
//! A leaf the policy (`compact.rs`) and the store (`store.rs`, which logs what was done) share;
//! imports only the [`Summarizer`] trait. Does not compact anything.

use std::sync::Arc;

use super::summarizer::Summarizer;

/// Default: compact when progress.txt has more lines than this.
pub(crate) const DEFAULT_THRESHOLD: usize = 400;
/// Default: lines of the most recent entries kept verbatim.
pub(crate) const DEFAULT_KEEP_RECENT: usize = 200;

/// How to compact.
#[derive(Clone)]
pub struct Options {
    /// Compact only when the file has more lines than this (unless `force`).
    pub threshold: usize,
    /// Lines of the most recent entries kept verbatim. Whole entries only; the newest entry is
    /// always kept when this is above 0, even if it is longer.
    pub keep_recent: usize,
    /// Compact even under the threshold.
    pub force: bool,
    /// Ask this summarizer for the summary; fall back to the deterministic one when it fails or
    /// its answer is rejected (see [`super::summarizer::accept`]).
    pub summarizer: Option<Arc<dyn Summarizer + Send + Sync>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: DEFAULT_THRESHOLD,
            keep_recent: DEFAULT_KEEP_RECENT,
            force: false,
            summarizer: None,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("threshold", &self.threshold)
            .field("keep_recent", &self.keep_recent)
            .field("force", &self.force)
            .field("summarizer", &self.summarizer.is_some())
            .finish()
    }
}

/// Who wrote the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SummaryMethod {
    Deterministic,
    Agent,
    /// The summarizer failed or its answer was rejected; the reason is kept for the report.
    Fallback(String),
}

impl std::fmt::Display for SummaryMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SummaryMethod::Deterministic => f.write_str("deterministic"),
            SummaryMethod::Agent => f.write_str("agent"),
            SummaryMethod::Fallback(why) => {
                write!(f, "deterministic (agent summary not used: {why})")
            }
        }
    }
}

/// What a compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    pub lines_before: usize,
    pub lines_after: usize,
    /// Entries folded into the Compacted History section.
    pub entries_compacted: usize,
    /// Entries kept verbatim.
    pub entries_kept: usize,
    /// Story lines in the new section.
    pub stories: usize,
    /// Learning lines kept in the new section (deterministic summary).
    pub learnings: usize,
    /// Learning lines merged into an earlier one (exact or near duplicates).
    pub duplicates_merged: usize,
    pub method: SummaryMethod,
}

/// The compacted file and what was done.
#[derive(Debug, Clone)]
pub struct Compacted {
    pub bytes: Vec<u8>,
    pub stats: Stats,
}

/// Why nothing was compacted. None of these is a failure: the file stays as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    #[error(
        "nothing to compact: {lines} lines, not more than the threshold of {threshold} (--force compacts anyway)"
    )]
    UnderThreshold { lines: usize, threshold: usize },
    #[error(
        "nothing to compact: no entry is older than the most recent {keep_recent} lines ({entries} entries in all; lower --keep-recent to fold more)"
    )]
    NothingOld { entries: usize, keep_recent: usize },
    #[error(
        "nothing to compact: the result would not be shorter ({before} lines before, {after} after)"
    )]
    NotShorter { before: usize, after: usize },
}
