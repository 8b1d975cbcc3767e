//! Claiming stories and starting their attempts, on the scheduler thread: ready stories
//! claimed into free slots (`policy::select` on the main tree's prd.json, kept apart by their
//! predicted files, `policy::schedule`), each given a key, a story branch, a worktree path and
//! a worker number; then the attempts that are due handed out as [`Job`]s for worker threads,
//! or their claims released once the iteration limit, the cost cap or an agent that cannot
//! start says no attempt may start. What a worker does with a job is [`super::worker`]'s.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::policy;
use super::sched::{Claim, ClaimState, Sched};
use super::worker::{Job, MakeWorktree};
use crate::graph;
use crate::prd::{Prd, Story};
use crate::run::error::RunError;
use crate::run::events::Event;
use crate::run::options::Options;

/// Ports apart per worker, for agents that start servers: worker `w` gets `RALPH_PORT_OFFSET`
/// = 100 × (w − 1) (README, "Parallel runs").
pub(crate) const PORT_STRIDE: u32 = 100;

/// The port offset of worker `w` (1-based).
pub(crate) fn port_offset(w: u32) -> u32 {
    PORT_STRIDE * w.saturating_sub(1)
}

/// Why a due attempt cannot start: an agent could not start, the cost cap, or the limit.
fn why_not_started(start_failed: bool, spent_out: bool) -> &'static str {
    match (start_failed, spent_out) {
        (true, _) => "not started",
        (false, true) => "cost limit",
        (false, false) => "limit",
    }
}

impl Sched<'_> {
    /// Claim new stories into free slots and start every attempt that is due.
    pub(super) fn start_attempts(&mut self) -> Vec<Job> {
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
        let mut jobs = vec![];
        for id in self.due(now) {
            if self.n >= s.iterations || spent_out {
                // Out of attempts (or of budget): this story cannot go on in this run.
                self.release(&id, why_not_started(self.start_failed, spent_out));
                continue;
            }
            jobs.push(self.job(&id));
        }
        jobs
    }

    /// The claims whose next attempt is due at `now`.
    fn due(&self, now: Instant) -> Vec<String> {
        self.claims
            .iter()
            .filter(|(_, c)| matches!(c.state, ClaimState::Waiting(t) if t <= now))
            .map(|(id, _)| id.clone())
            .collect()
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
            let claim = self.claim(story);
            self.claims.insert(story.id.clone(), claim);
        }
        Ok(())
    }

    /// A new claim of `story`: its key (a story discovered during the run gets one of its own,
    /// never an empty one), branch, worktree and the first free worker number.
    fn claim(&mut self, story: &Story) -> Claim {
        let key = match self.keys.get(&story.id) {
            Some(k) => k.clone(),
            None => crate::kept::key_for_new(&story.id, self.keys.values()),
        };
        self.keys.insert(story.id.clone(), key.clone());
        let worker = (1..=self.opts.settings.parallel)
            .find(|w| self.claims.values().all(|c| c.worker != *w))
            .unwrap_or(1);
        Claim {
            title: story.title.clone(),
            verify: story.gate_commands(&self.opts.settings.verify),
            branch: policy::story_branch(&self.main.branch, &key),
            wt: crate::state::worktrees_dir(&self.main.root).join(&key),
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
        }
    }

    /// Of the `ready` stories of `prd` (in select order), those to claim into `free` slots:
    /// none predicted to overlap a live claim (see [`super::conflicts`]).
    fn pick(&mut self, prd: &Prd, ready: Vec<usize>, free: usize) -> Vec<usize> {
        let threshold = self.opts.settings.conflict_threshold.value();
        if threshold.is_none() || free == 0 {
            return ready.into_iter().take(free).collect();
        }
        let ids: Vec<String> = ready.iter().map(|&i| prd.stories[i].id.clone()).collect();
        let live: Vec<String> = self.claims.keys().cloned().collect();
        let (root, tip) = (self.main.root.clone(), self.tip.clone());
        let c = &mut self.conflicts;
        let (picked, waits) = policy::schedule(&ids, &live, free, threshold, |id| {
            c.predict(&root, &tip, prd, id)
        });
        for w in waits {
            if self.conflicts.first_time(&w.story, &w.with) {
                self.note(format!(
                    "{} waits for {}: both would touch {} (overlap {:.2} ≥ {:.2}, --conflict-threshold)",
                    w.story,
                    w.with,
                    w.overlap.file,
                    w.overlap.score,
                    threshold.unwrap_or_default()
                ));
            }
        }
        ready
            .into_iter()
            .filter(|&i| picked.contains(&prd.stories[i].id))
            .collect()
    }

    /// The next attempt of a claimed story, for a worker.
    fn job(&mut self, id: &str) -> Job {
        self.n += 1;
        let n = self.n;
        let log = self.run_dir.join(format!("iter-{n}.log"));
        let c = self.claims.get_mut(id).expect("claimed");
        c.attempt += 1;
        c.state = ClaimState::Running;
        c.since = Instant::now();
        c.log = log;
        let make = std::mem::take(&mut c.fresh).then(|| MakeWorktree {
            root: self.main.root.clone(),
            branch: c.branch.clone(),
            tip: c.base.clone(),
        });
        let c = &self.claims[id];
        let opts = self.worker_opts(id, c);
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
            history: crate::state::history::path(&self.main.root),
            review_round: c
                .failures
                .get(crate::run::iteration::outcome::Outcome::ReviewChanges.name())
                .copied()
                .unwrap_or(0)
                + 1,
            base: c.base.clone(),
        }
    }

    /// The run's options for an attempt of claim `c` (story `id`) in its worktree: rooted
    /// there, quiet, with the people's steering notes and its worker's environment.
    fn worker_opts(&self, id: &str, c: &Claim) -> Options {
        let mut opts = self.opts.clone();
        opts.root = c.wt.clone();
        opts.prd_path = c.wt.join(&self.main.prd_rel);
        opts.echo = false;
        opts.settings.context.save_index = false;
        opts.settings.context.steering = self.steer.live.notes_for(id);
        opts.env.push(("RALPH_BASE".into(), c.base.clone()));
        opts.env.push(("RALPH_WORKER".into(), c.worker.to_string()));
        opts.env.push((
            "RALPH_PORT_OFFSET".into(),
            port_offset(c.worker).to_string(),
        ));
        opts
    }
}
