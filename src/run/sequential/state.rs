//! The sequential loop's state between iterations ([`Loop`]) and its prd.json cache: a leaf,
//! so the loop's steps ([`super`]) and its steering ([`super::steer`]) both build on it without
//! importing each other.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::prd::Prd;
use crate::run::error::RunError;
use crate::run::events::Reporter;
use crate::run::git;
use crate::run::iteration::cost;
use crate::run::iteration::outcome::Strikes;
use crate::run::iteration::prompt::RetryNote;
use crate::run::options::{Options, PrdSnapshot};
use crate::state::lock;

/// Loads prd.json, reusing the last validated value when the bytes did not change (a
/// 2,000-story file is validated once, not every iteration, and never copied).
#[derive(Default)]
pub(super) struct PrdCache {
    pub(super) last: Option<PrdSnapshot>,
}

impl PrdCache {
    /// The current prd.json, and whether it differs from the last one seen.
    pub(super) fn load(&mut self, path: &Path) -> Result<(PrdSnapshot, bool), RunError> {
        let bytes = crate::fsutil::read(path)?;
        if let Some(last) = &self.last
            && bytes == *last.bytes
        {
            return Ok((last.clone(), false));
        }
        let snap = PrdSnapshot::new(Prd::from_bytes(path, &bytes)?, bytes);
        self.last = Some(snap.clone());
        Ok((snap, true))
    }

    pub(super) fn set(&mut self, snap: PrdSnapshot) {
        self.last = Some(snap);
    }
}

/// The loop's state between iterations.
pub(super) struct Loop<'a> {
    pub(super) opts: &'a Options,
    pub(super) interrupt: &'a AtomicBool,
    pub(super) rep: &'a dyn Reporter,
    /// The live run's control channel (`ralph pause`, `steer`, …); ends before the lock.
    pub(super) control: crate::run::control::Live,
    /// Held for the whole run.
    pub(super) _lock: lock::Lock,
    pub(super) state: PathBuf,
    pub(super) run_id: String,
    pub(super) run_dir: PathBuf,
    pub(super) started: Instant,
    pub(super) cache: PrdCache,
    /// The first load counts as new for the archive step.
    pub(super) first: bool,
    /// Counted iterations.
    pub(super) n: u32,
    pub(super) attempts: HashMap<String, u32>,
    pub(super) retries: HashMap<String, RetryNote>,
    /// Reviews that did not approve, per story (`--review`).
    pub(super) reviews: HashMap<String, u32>,
    /// HEAD before each story's first attempt in this run: the base of its review's diff.
    pub(super) bases: HashMap<String, String>,
    pub(super) strikes: Strikes,
    pub(super) skipped: BTreeMap<String, String>,
    pub(super) limit_streak: usize,
    /// The work tree as the last iteration left it, reused as the next "before" (one `git
    /// status` per iteration, not two); forgotten when ralph changes the tree (archive,
    /// compaction) or waits long (rate limit): edits made by hand during `--sleep` would be
    /// credited to the next agent.
    pub(super) tree: Option<git::Snapshot>,
    /// What `.ralph/prd.good.json` holds.
    pub(super) good: Option<Arc<Vec<u8>>>,
    /// What the agents reported spending in this run (see [`crate::run::iteration::cost`]).
    pub(super) spent: cost::Spent,
    /// `.ralph/runs/<run-id>/manifest.json`, rewritten at the end (see [`crate::run::start::upkeep`]).
    pub(super) manifest: crate::state::runs::Manifest,
}
