//! The scheduler's state, shared by every file of the parallel loop: [`Sched`] (the run's
//! claims, held stories, merge queue, tip and totals), a claimed story ([`Claim`], its
//! [`ClaimState`]), the live run's channel ([`Steer`]), and the few ways the scheduler reports
//! (notes, warnings, held stories, history records). What the scheduler does with this state is
//! in the files beside it (`run_loop`, `claiming`, `finished`, `landing`, `steer`, `status_lines`).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::conflicts::Conflicts;
use super::main_tree::MainTree;
use crate::run::control::Live;
use crate::run::error::RunError;
use crate::run::events::Event;
use crate::run::events::board::{Row, Totals};
use crate::run::iteration;
use crate::run::iteration::outcome::Strikes;
use crate::run::iteration::prompt::RetryNote;
use crate::run::options::Options;
use crate::state::history::Record;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ClaimState {
    Running,
    /// The next attempt starts at this instant (after `--sleep`, a send-back, a rate limit).
    Waiting(Instant),
    Queued,
}

impl ClaimState {
    pub(super) fn name(self) -> &'static str {
        match self {
            ClaimState::Running => "running",
            ClaimState::Waiting(_) => "waiting",
            ClaimState::Queued => "queued",
        }
    }
}

/// A claimed story: its slot, worktree and branch, from claim to merge, hold or the end.
pub(super) struct Claim {
    pub(super) title: String,
    /// The commands the merge re-verifies with: the run's, then the story's own.
    pub(super) verify: Vec<String>,
    pub(super) branch: String,
    pub(super) wt: PathBuf,
    pub(super) base: String,
    pub(super) attempt: u32,
    pub(super) worker: u32,
    pub(super) state: ClaimState,
    pub(super) since: Instant,
    pub(super) claimed: Instant,
    pub(super) retry: Option<RetryNote>,
    /// The worktree is not made yet (its first attempt makes it).
    pub(super) fresh: bool,
    pub(super) failures: BTreeMap<&'static str, u32>,
    pub(super) agent: Duration,
    pub(super) log: PathBuf,
    /// The number of stories merged when `base` was set (who merged since, for notes).
    pub(super) merged_mark: usize,
    /// The gated attempt waiting for the queue.
    pub(super) gated: Option<Record>,
}

/// The live run's channel (`ralph pause`, `steer`, …), and when a paused, idle run last looked
/// at prd.json (see `super::steer`).
pub(super) struct Steer {
    pub(super) live: Live,
    pub(super) checked: Option<(Instant, bool)>,
}

impl Steer {
    pub(super) fn new(live: Live) -> Steer {
        Steer {
            live,
            checked: None,
        }
    }
}

/// The scheduler's state (see the module doc of `super`).
pub(super) struct Sched<'a> {
    pub(super) opts: &'a Options,
    /// The live run's control channel (`ralph pause`, `steer`, …).
    pub(super) steer: Steer,
    /// Where stories land.
    pub(super) main: MainTree,
    pub(super) tip: String,
    pub(super) run_id: String,
    pub(super) run_dir: PathBuf,
    pub(super) keys: HashMap<String, String>,
    pub(super) claims: BTreeMap<String, Claim>,
    pub(super) held: BTreeMap<String, String>,
    pub(super) queue: VecDeque<String>,
    /// Attempts started (the iteration limit counts these).
    pub(super) n: u32,
    pub(super) strikes: Strikes,
    pub(super) limit_streak: usize,
    pub(super) rate_until: Option<Instant>,
    pub(super) merged: Vec<(String, String)>,
    pub(super) rows: Vec<Row>,
    /// Worktrees and branches of merged stories, removed once the next attempts have started
    /// (off the path from a merge to the dependants' start).
    pub(super) cleanup: Vec<(PathBuf, String)>,
    pub(super) totals: Totals,
    pub(super) fatal: Option<RunError>,
    /// For the end: stories that pass when all do; why the others cannot run.
    pub(super) passing: usize,
    pub(super) unfinished: Vec<String>,
    /// What the agents reported spending (see [`crate::run::iteration::cost`]).
    pub(super) spent: crate::run::iteration::cost::Spent,
    /// An agent could not start: no attempt starts any more; what runs finishes and merges.
    pub(super) start_failed: bool,
    /// Predicted files, for conflict-aware claiming (see [`super::conflicts`]).
    pub(super) conflicts: Conflicts,
}

impl<'a> Sched<'a> {
    /// A scheduler with nothing claimed yet, at `tip`.
    pub(super) fn new(
        opts: &'a Options,
        live: Live,
        main: MainTree,
        tip: String,
        run_id: String,
        run_dir: PathBuf,
        keys: HashMap<String, String>,
    ) -> Sched<'a> {
        Sched {
            opts,
            steer: Steer::new(live),
            main,
            tip,
            run_id,
            run_dir,
            keys,
            claims: BTreeMap::new(),
            held: BTreeMap::new(),
            queue: VecDeque::new(),
            n: 0,
            strikes: Strikes::new(opts.settings.max_failures),
            limit_streak: 0,
            rate_until: None,
            merged: vec![],
            rows: vec![],
            cleanup: vec![],
            totals: Totals::default(),
            fatal: None,
            passing: 0,
            unfinished: vec![],
            spent: Default::default(),
            start_failed: false,
            conflicts: Default::default(),
        }
    }
}

impl Sched<'_> {
    pub(super) fn note(&self, text: String) {
        self.opts.reporter.report(Event::Note { text });
    }

    pub(super) fn warn(&self, text: String) {
        self.opts.reporter.report(Event::Warning { text });
    }

    /// Append a history record to the main tree's history; a failure is reported, never fatal.
    pub(super) fn record(&self, rec: &Record) {
        if let Err(e) = iteration::record::append(&self.main.root, rec) {
            self.warn(e.to_string());
        }
    }

    /// A story held for the rest of the run (`k` failures in a row).
    pub(super) fn report_held(&self, id: &str, k: u32, why: &str) {
        let title = self
            .claims
            .get(id)
            .map(|c| c.title.clone())
            .unwrap_or_default();
        self.opts.reporter.report(Event::StorySkipped {
            story: id.to_string(),
            title,
            attempts: k,
            reason: why.to_string(),
        });
    }

    /// Hold `id` for the rest of the run (`why`) and free its slot.
    pub(super) fn hold_for_run(&mut self, id: &str, why: String) {
        self.held.insert(id.to_string(), why);
        self.release(id, "held");
    }
}
