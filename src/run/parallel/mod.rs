//! `ralph run [N] --parallel K` (K ≥ 2): up to K ready stories at once, each in its own git
//! worktree under `.ralph/worktrees/<key>` on its own branch `<branchName>--<key>` made from the
//! tip, merged into `branchName` one at a time (specs/parallel.md).
//!
//! The main thread is the scheduler: it claims stories ([`policy::select`] on the main tree's
//! prd.json, so a dependant waits for its blockers' merges), starts one worker thread per
//! attempt (`iteration::run_one` with the worktree as its root, output only to its log), runs
//! the merge queue ([`queue::merge`]) and is the only writer of the main tree's prd.json,
//! progress.txt and history.jsonl. Git steps are in [`worktree`] and [`queue`], the pure
//! decisions in [`policy`], the printed lines in [`board`]; what people ask of the live run
//! (`ralph pause`, `steer`, `skip`, …) is applied on every tick by [`steer`]. `--parallel 1` is
//! the sequential loop of the parent module, untouched.

pub(crate) mod board;
mod carry;
pub(crate) mod conflicts;
mod finished;
mod landing;
pub(crate) mod policy;
pub(crate) mod predict;
pub(crate) mod queue;
mod steer;
mod worker;
pub(crate) mod worktree;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::events::Event;
use super::outcome::Strikes;
use super::prompt::RetryNote;
use super::{Exit, Options, RunError, status};
use crate::graph;
use crate::prd::Prd;
use crate::state::history::Record;
use crate::state::state_dir;
use landing::record;
use worker::{AttemptDone, Job, MakeWorktree, work};

/// How often the status lines of the running stories are printed (a line each), or redrawn in
/// place on a terminal.
const BOARD_EVERY: Duration = Duration::from_secs(10);
const BOARD_LIVE_EVERY: Duration = Duration::from_secs(1);

/// Ports apart per worker, for agents that start servers: worker `w` gets `RALPH_PORT_OFFSET`
/// = 100 × (w − 1) (README, "Parallel runs").
pub(crate) const PORT_STRIDE: u32 = 100;

/// The port offset of worker `w` (1-based).
pub(crate) fn port_offset(w: u32) -> u32 {
    PORT_STRIDE * w.saturating_sub(1)
}

/// Why a parallel run could not start or go on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ParallelError {
    #[error(transparent)]
    Git(#[from] worktree::GitError),
    #[error("merging {story}: {source}")]
    Queue {
        story: String,
        #[source]
        source: queue::QueueError,
    },
    #[error("the merge queue stopped: {0}")]
    Paused(String),
    #[error("{0} is outside the project root; --parallel needs prd.json in the repository")]
    PrdOutside(PathBuf),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClaimState {
    Running,
    /// The next attempt starts at this instant (after `--sleep`, a send-back, a rate limit).
    Waiting(Instant),
    Queued,
}

impl ClaimState {
    fn name(self) -> &'static str {
        match self {
            ClaimState::Running => "running",
            ClaimState::Waiting(_) => "waiting",
            ClaimState::Queued => "queued",
        }
    }
}

/// A claimed story: its slot, worktree and branch, from claim to merge, hold or the end.
struct Claim {
    title: String,
    /// The commands the merge re-verifies with: the run's, then the story's own.
    verify: Vec<String>,
    branch: String,
    wt: PathBuf,
    base: String,
    attempt: u32,
    worker: u32,
    state: ClaimState,
    since: Instant,
    claimed: Instant,
    retry: Option<RetryNote>,
    /// The worktree is not made yet (its first attempt makes it).
    fresh: bool,
    failures: BTreeMap<&'static str, u32>,
    agent: Duration,
    log: PathBuf,
    /// The number of stories merged when `base` was set (who merged since, for notes).
    merged_mark: usize,
    /// The gated attempt waiting for the queue.
    gated: Option<Record>,
}

/// The scheduler's state (see the module doc).
struct Sched<'a> {
    opts: &'a Options,
    /// The live run's control channel (`ralph pause`, `steer`, …).
    steer: steer::Steer,
    root: PathBuf,
    prd_rel: String,
    branch: String,
    tip: String,
    run_id: String,
    run_dir: PathBuf,
    keys: HashMap<String, String>,
    claims: BTreeMap<String, Claim>,
    held: BTreeMap<String, String>,
    queue: VecDeque<String>,
    /// Attempts started (the iteration limit counts these).
    n: u32,
    strikes: Strikes,
    limit_streak: usize,
    rate_until: Option<Instant>,
    merged: Vec<(String, String)>,
    rows: Vec<crate::run::events::board::Row>,
    /// Worktrees and branches of merged stories, removed once the next attempts have started
    /// (off the path from a merge to the dependants' start).
    cleanup: Vec<(PathBuf, String)>,
    totals: crate::run::events::board::Totals,
    fatal: Option<RunError>,
    /// For the end: stories that pass when all do; why the others cannot run.
    passing: usize,
    unfinished: Vec<String>,
    /// What the agents reported spending (see [`crate::run::cost`]).
    spent: crate::run::cost::Spent,
    /// An agent could not start: no attempt starts any more; what runs finishes and merges.
    start_failed: bool,
    /// Predicted files, for conflict-aware claiming (see [`conflicts`]).
    conflicts: conflicts::Conflicts,
}

/// Run stories in parallel until every story passes, nothing is ready, the limit, an
/// interrupt, or a pause of the merge queue.
pub(crate) fn run(opts: &Options, interrupt: &AtomicBool) -> Result<Exit, RunError> {
    let root = std::path::absolute(&opts.root).unwrap_or_else(|_| opts.root.clone());
    let prd_path = std::path::absolute(&opts.prd_path).unwrap_or_else(|_| opts.prd_path.clone());
    let prd_rel = prd_path
        .strip_prefix(&root)
        .map_err(|_| ParallelError::PrdOutside(prd_path.clone()))?
        .to_string_lossy()
        .into_owned();
    let state = state_dir(&root);
    let lock = crate::run::driver::begin(opts)?;
    let s = &opts.settings;
    let rep = &*opts.reporter;
    let note = |text: String| rep.report(Event::Note { text });
    let prd = Prd::load(&prd_path)?;
    let prd_branch = |p: &Prd| {
        p.value
            .get("branchName")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    for line in worktree::recover(
        &root,
        &crate::state::worktrees_dir(&root),
        &prd_branch(&prd),
        s.grace,
    ) {
        note(line);
    }
    // The same start as the sequential loop: the branch checked out or created.
    let (events, prd) = super::branch::prepare_parallel(&root, &prd)?;
    for e in events {
        rep.report(e);
    }
    let branch = prd_branch(&prd);
    let tip = worktree::preconditions(&root, &branch, &prd_rel).map_err(ParallelError::from)?;
    // `--story` must name a story (its readiness is checked as the sequential loop does).
    super::choose(
        &prd,
        &graph::states(&prd.stories),
        opts.story.as_deref(),
        &HashSet::new(),
    )?;
    let ids: Vec<&str> = prd.stories.iter().map(|s| s.id.as_str()).collect();
    let keys = ids
        .iter()
        .map(|s| s.to_string())
        .zip(policy::story_keys(&ids))
        .collect();
    super::upkeep::clean_at_start(opts, rep);
    let run_id = super::new_run_id();
    let run_dir = state.join("runs").join(&run_id);
    crate::fsutil::create_dir_all(&run_dir)?;
    let mut manifest = super::upkeep::begin(opts, &run_id, &run_dir, Some(branch.clone()), rep);
    let live = super::control::Live::start(super::control::Setup {
        root: root.clone(),
        prd_path: prd_path.clone(),
        run_id: run_id.clone(),
        parallel: s.parallel,
        branch: Some(branch.clone()),
        limit: s.iterations,
        reporter: opts.reporter.clone(),
    });
    rep.report(Event::RunStarted {
        run_id: run_id.clone(),
        agent: opts.agent.kind.name().to_string(),
        iterations: s.iterations,
        verify: s.verify.clone(),
        parallel: Some(s.parallel),
        branch: Some(branch.clone()),
    });
    for e in super::gate::start_notes(s, &prd.stories) {
        rep.report(e);
    }
    let mut sched = Sched {
        opts,
        steer: steer::Steer::new(live),
        root,
        prd_rel,
        branch,
        tip,
        run_id,
        run_dir,
        keys,
        claims: BTreeMap::new(),
        held: BTreeMap::new(),
        queue: VecDeque::new(),
        n: 0,
        strikes: Strikes::new(s.max_failures),
        limit_streak: 0,
        rate_until: None,
        merged: vec![],
        rows: vec![],
        cleanup: vec![],
        totals: crate::run::events::board::Totals::default(),
        fatal: None,
        passing: 0,
        unfinished: vec![],
        spent: Default::default(),
        start_failed: false,
        conflicts: Default::default(),
    };
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let exit = sched.run(interrupt, &stop);
    super::upkeep::finish(&sched.root, &sched.run_dir, &mut manifest, &exit, rep);
    sched.totals.wall = started.elapsed();
    if !sched.rows.is_empty() {
        rep.report(Event::Summary {
            rows: std::mem::take(&mut sched.rows),
            totals: sched.totals,
        });
    }
    let _ = std::fs::remove_dir(state.join("worktrees"));
    sched.steer.live.end();
    drop(lock);
    // The end goes last, after the summary and with the lock released.
    let exit = exit?;
    rep.report(sched.ended(exit, started));
    Ok(exit)
}

impl Sched<'_> {
    fn run(&mut self, interrupt: &AtomicBool, stop: &AtomicBool) -> Result<Exit, RunError> {
        let (tx, rx) = mpsc::channel::<(String, Result<AttemptDone, String>)>();
        let mut tx = Some(tx);
        std::thread::scope(|scope| {
            let mut running = 0usize;
            let mut board_at = Instant::now() + self.board_every();
            let result = loop {
                if interrupt.load(Ordering::SeqCst) || self.fatal.is_some() {
                    stop.store(true, Ordering::SeqCst);
                    break None;
                }
                let merging = self.queue.front().cloned();
                self.steer_tick(merging.as_deref());
                if let Some(id) = self.queue.pop_front() {
                    // The signal itself: `stop` is set only once this loop sees it.
                    self.merge(&id, interrupt);
                    continue;
                }
                for job in self.start_attempts() {
                    let Some(tx) = tx.clone() else { break };
                    running += 1;
                    scope.spawn(move || {
                        // A panic must still answer, or the scheduler would wait for ever.
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            work(&job, stop)
                        }))
                        .unwrap_or_else(|_| Err("the worker thread panicked".to_string()));
                        let _ = tx.send((job.id, r));
                    });
                }
                if self.claims.is_empty() && !self.idle_paused() {
                    break Some(self.finish());
                }
                match rx.recv_timeout(Duration::from_millis(100)) {
                    Ok((id, r)) => {
                        running -= 1;
                        self.finished(&id, r);
                    }
                    Err(_) => {
                        // Quiet for a moment: merged worktrees go now, not while workers
                        // wait for the worktree lock to make theirs or a merge waits.
                        self.tidy();
                        if Instant::now() >= board_at {
                            board_at = Instant::now() + self.board_every();
                            self.print_board();
                        }
                    }
                }
            };
            // Stopping: every worker sees `stop`, its agent group gets SIGTERM, then SIGKILL.
            // Only the workers' senders are left: `recv` ends once they are all gone.
            tx = None;
            while running > 0 {
                let Ok((id, r)) = rx.recv() else { break };
                running -= 1;
                self.finished(&id, r);
            }
            self.tidy();
            // Nothing runs now: what agents left outside their groups can be stopped.
            if crate::agent::process::stop_orphans(self.opts.settings.grace) {
                self.note("stopped processes the agents left running".into());
            }
            let ids: Vec<String> = self.claims.keys().cloned().collect();
            for id in ids {
                self.release(&id, "interrupted");
            }
            match (self.fatal.take(), result) {
                (Some(e), _) => Err(e),
                (None, Some(exit)) => exit,
                (None, None) => Ok(Exit::Interrupted),
            }
        })
    }

    /// The run is over once nothing is claimed: why.
    fn finish(&mut self) -> Result<Exit, RunError> {
        let prd = Prd::load(&self.opts.prd_path)?;
        if self.start_failed {
            self.unfinished = status::remaining(&prd.stories);
            return Ok(Exit::StartFailed);
        }
        if prd.all_done() {
            self.passing = prd.stories.iter().filter(|s| !s.removed).count();
            return Ok(Exit::AllDone);
        }
        let states = graph::states(&prd.stories);
        let busy: HashSet<String> = self.held.keys().cloned().collect();
        if self.spent.reached(self.opts.settings.max_cost) {
            self.unfinished = status::remaining(&prd.stories);
            return Ok(Exit::CostLimit);
        }
        if self.n >= self.opts.settings.iterations
            && !policy::select(&prd.stories, &states, &busy, 1, None).is_empty()
        {
            self.unfinished = status::remaining(&prd.stories);
            return Ok(Exit::Limit);
        }
        self.unfinished = status::not_runnable(&prd.stories, &states, &self.held);
        Ok(Exit::NoReady)
    }

    /// Claim new stories into free slots and start every attempt that is due.
    fn start_attempts(&mut self) -> Vec<Job> {
        if self.steer.live.paused() {
            return vec![];
        }
        let s = &self.opts.settings;
        let now = Instant::now();
        if self.rate_until.is_some_and(|t| now < t) {
            return vec![];
        }
        self.rate_until = None;
        // `--max-cost` reached, or an agent that cannot start: no attempt starts; what runs
        // finishes and merges.
        let spent_out = self.spent.reached(s.max_cost) || self.start_failed;
        if self.n < s.iterations
            && !spent_out
            && self.claims.len() < s.parallel as usize
            && let Err(e) = self.claim_new()
        {
            self.fatal = Some(e);
            return vec![];
        }
        let due: Vec<String> = self
            .claims
            .iter()
            .filter(|(_, c)| matches!(c.state, ClaimState::Waiting(t) if t <= now))
            .map(|(id, _)| id.clone())
            .collect();
        let mut jobs = vec![];
        for id in due {
            if self.n >= s.iterations || spent_out {
                // Out of attempts (or of budget): this story cannot go on in this run.
                let why = match (self.start_failed, spent_out) {
                    (true, _) => "not started",
                    (false, true) => "cost limit",
                    (false, false) => "limit",
                };
                self.release(&id, why);
                continue;
            }
            jobs.push(self.job(&id));
        }
        jobs
    }

    fn claim_new(&mut self) -> Result<(), RunError> {
        let prd = Prd::load(&self.opts.prd_path)?;
        let states = graph::states(&prd.stories);
        let busy: HashSet<String> = self
            .claims
            .keys()
            .chain(self.held.keys())
            .cloned()
            .collect();
        let free = self.opts.settings.parallel as usize - self.claims.len();
        let forced = self.opts.story.as_deref();
        let ready = policy::select(&prd.stories, &states, &busy, usize::MAX, forced);
        for i in self.pick(&prd, ready, free) {
            let story = &prd.stories[i];
            // A story discovered during the run gets a key of its own, never an empty one.
            let key = match self.keys.get(&story.id) {
                Some(k) => k.clone(),
                None => crate::kept::key_for_new(&story.id, self.keys.values()),
            };
            self.keys.insert(story.id.clone(), key.clone());
            let branch = policy::story_branch(&self.branch, &key);
            let wt = crate::state::worktrees_dir(&self.root).join(&key);
            let worker = (1..=self.opts.settings.parallel)
                .find(|w| self.claims.values().all(|c| c.worker != *w))
                .unwrap_or(1);
            self.claims.insert(
                story.id.clone(),
                Claim {
                    title: story.title.clone(),
                    verify: story.gate_commands(&self.opts.settings.verify),
                    branch,
                    wt,
                    base: self.tip.clone(),
                    attempt: 0,
                    worker,
                    state: ClaimState::Waiting(Instant::now()),
                    since: Instant::now(),
                    claimed: Instant::now(),
                    retry: None,
                    fresh: true,
                    failures: BTreeMap::new(),
                    agent: Duration::ZERO,
                    log: PathBuf::new(),
                    merged_mark: self.merged.len(),
                    gated: None,
                },
            );
        }
        Ok(())
    }

    /// The next attempt of a claimed story, for a worker.
    fn job(&mut self, id: &str) -> Job {
        self.n += 1;
        let n = self.n;
        let c = self.claims.get_mut(id).expect("claimed");
        c.attempt += 1;
        c.state = ClaimState::Running;
        c.since = Instant::now();
        c.log = self.run_dir.join(format!("iter-{n}.log"));
        let make = std::mem::take(&mut c.fresh).then(|| MakeWorktree {
            root: self.root.clone(),
            branch: c.branch.clone(),
            tip: c.base.clone(),
        });
        let mut opts = self.opts.clone();
        opts.root = c.wt.clone();
        opts.prd_path = c.wt.join(&self.prd_rel);
        opts.echo = false;
        opts.settings.context.save_index = false;
        opts.settings.context.steering = self.steer.live.notes_for(id);
        opts.env.push(("RALPH_BASE".into(), c.base.clone()));
        opts.env.push(("RALPH_WORKER".into(), c.worker.to_string()));
        opts.env.push((
            "RALPH_PORT_OFFSET".into(),
            port_offset(c.worker).to_string(),
        ));
        self.opts.reporter.report(Event::IterationStarted {
            iteration: n,
            limit: self.opts.settings.iterations,
            story: id.to_string(),
            title: c.title.clone(),
            attempt: c.attempt,
            agent: self.opts.agent.kind.name().to_string(),
            worker: Some(c.worker),
            log: Some(c.log.display().to_string()),
        });
        Job {
            id: id.to_string(),
            opts,
            run_id: self.run_id.clone(),
            run_dir: self.run_dir.clone(),
            n,
            attempt: c.attempt,
            retry: c.retry.clone(),
            make,
            history: crate::state::history::path(&self.root),
            review_round: c
                .failures
                .get(crate::run::outcome::Outcome::ReviewChanges.name())
                .copied()
                .unwrap_or(0)
                + 1,
            base: c.base.clone(),
        }
    }

    fn board_every(&self) -> Duration {
        match self.opts.reporter.live() {
            true => BOARD_LIVE_EVERY,
            false => BOARD_EVERY,
        }
    }

    /// A status line per claim: on a terminal one block redrawn in place, else a line each.
    fn print_board(&self) {
        let live = self.opts.reporter.live();
        let mut lines = Vec::new();
        for (id, c) in &self.claims {
            let last = matches!(c.state, ClaimState::Running)
                .then(|| board::last_activity(&c.log))
                .flatten();
            if live {
                let state = c.state.name();
                let (elapsed, n) = (c.since.elapsed(), c.attempt);
                let line = crate::run::events::board::status_line(
                    id,
                    &c.title,
                    state,
                    elapsed,
                    n,
                    last.as_ref(),
                );
                lines.push(line);
                continue;
            }
            let (last_age, last_line) = last.map_or((None, None), |(a, l)| (Some(a), Some(l)));
            self.opts.reporter.report(Event::Claim {
                story: id.clone(),
                title: c.title.clone(),
                state: c.state.name().to_string(),
                elapsed: c.since.elapsed(),
                attempt: c.attempt,
                last_line,
                last_age,
            });
        }
        if live && !lines.is_empty() {
            self.opts.reporter.report(Event::Board { lines });
        }
    }

    fn note(&self, text: String) {
        self.opts.reporter.report(Event::Note { text });
    }

    fn warn(&self, text: String) {
        self.opts.reporter.report(Event::Warning { text });
    }

    /// A story held for the rest of the run (`k` failures in a row).
    fn report_held(&self, id: &str, k: u32, why: &str) {
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

    /// The run's last report.
    fn ended(&self, exit: Exit, started: Instant) -> Event {
        Event::RunEnded {
            ending: exit,
            iterations: self.n,
            limit: self.opts.settings.iterations,
            elapsed: started.elapsed(),
            passing: self.passing,
            unfinished: self.unfinished.clone(),
            history_written: true,
            cost_usd: self.spent.usd(),
            max_cost: self.opts.settings.max_cost.map(|m| m.usd()),
        }
    }
}
