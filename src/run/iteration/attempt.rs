//! What one attempt is given ([`Attempt`], and [`ToVerify`] once its gate runs): the context every step of an iteration reads (the
//! prompt, the agent, the gate, the review, the record), so the steps share one shape instead of
//! each copying the fields it needs into a bag of its own. A leaf: it names the loop's types and
//! none of the steps.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::prompt::RetryNote;
use crate::agent::process::LogSink;
use crate::prd::Story;
use crate::run::git;
use crate::run::options::{Options, PrdSnapshot};

/// Everything one iteration needs from the loop.
pub(crate) struct Attempt<'a> {
    pub opts: &'a Options,
    pub run_id: &'a str,
    pub run_dir: &'a Path,
    pub interrupt: &'a AtomicBool,
    /// prd.json as the loop read it before this iteration.
    pub prd: &'a PrdSnapshot,
    pub story: &'a Story,
    /// The counted iteration number (1-based).
    pub n: u32,
    /// This story's attempt number in this run (1-based).
    pub attempt: u32,
    pub retry: Option<&'a RetryNote>,
    /// The work tree as the previous iteration left it, if known (saves a `git status`).
    pub before: Option<git::Snapshot>,
    /// The review round this attempt gets if it passes its gate (1-based; `--review`).
    pub review_round: u32,
    /// Where the story's work started (its first attempt's HEAD, a parallel story's base): the
    /// review reads the diff from here, so a second round sees the whole story, not the fix.
    /// `None`: this attempt's HEAD before.
    pub review_base: Option<&'a str>,
}

impl Attempt<'_> {
    /// `<run_dir>/<prefix>-<n>.<ext>`: the files this iteration writes (`iter-3.log`).
    pub(crate) fn file(&self, prefix: &str, ext: &str) -> std::path::PathBuf {
        self.run_dir.join(format!("{prefix}-{}.{ext}", self.n))
    }
}

/// An attempt whose gate runs (the verify commands, then the red run): the attempt, where the
/// story's work started (the red run puts the tests on it), the iteration log, prd.json's path
/// relative to the root (never a test file, left out of diffs).
pub(crate) struct ToVerify<'a> {
    pub at: &'a Attempt<'a>,
    pub base: Option<&'a str>,
    pub log: Option<Arc<Mutex<LogSink>>>,
    pub prd_rel: &'a str,
}
