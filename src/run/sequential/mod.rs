//! The sequential loop: its state between iterations is one value, [`Loop`], and each step of
//! an iteration is one short method: [`Loop::start`] (lock, leftovers, branch, banner),
//! [`Loop::next`] (load prd.json, archive, compact, pick the story or end),
//! [`Loop::iterate`] (one agent run, see [`crate::run::iteration`]) and [`Loop::settle`] (rate
//! limits, strikes, history, the status line, the sleep). What people ask of the live run
//! (`ralph pause`, `steer`, `skip`, …) is applied at each check by [`steer`].
//!
//! Owns the order of the steps and the counters (iterations, attempts, strikes, rate-limit
//! streak); the decisions are pure elsewhere ([`crate::run::iteration::verdict`], [`crate::run::iteration::outcome`],
//! [`crate::graph`]), the reports go to [`crate::run::events`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::config::Settings;
use crate::graph;
use crate::prd::Story;
use crate::run::ending::Exit;
use crate::run::error::RunError;
use crate::run::events::status;
use crate::run::events::{Event, Reporter};
use crate::run::guard::repair;
use crate::run::iteration::cost;
use crate::run::iteration::outcome::{Outcome, Progress, Strikes};
use crate::run::iteration::prompt::RetryNote;
use crate::run::iteration::{self, Done};
use crate::run::options::{Options, PrdSnapshot};
use crate::run::start::branch;
use crate::run::wait::{ratelimit, sleep, watch};
use crate::state::{archive, history, state_dir};

mod state;
mod steer;

use state::{Loop, PrdCache};

/// What [`Loop::next`] found.
enum Next {
    /// The snapshot and the index of the story to run in it.
    Story(PrdSnapshot, usize),
    End(Exit),
    /// The run was paused and is resumed: look again.
    Again,
}

/// Run the loop until every story passes, nothing is ready, the limit, or an interrupt.
pub(super) fn run(opts: &Options, interrupt: &AtomicBool) -> Result<Exit, RunError> {
    let mut l = Loop::start(opts, interrupt)?;
    let result = l.drive();
    l.control.end();
    crate::run::start::upkeep::finish(&opts.root, &l.run_dir, &mut l.manifest, &result, l.rep);
    result
}

impl<'a> Loop<'a> {
    /// The iterations, until the run ends.
    fn drive(&mut self) -> Result<Exit, RunError> {
        loop {
            let (snap, i) = match self.next()? {
                Next::End(exit) => return Ok(exit),
                Next::Again => continue,
                Next::Story(snap, i) => (snap, i),
            };
            let story = &snap.prd.stories[i];
            let t0 = Instant::now();
            let done = self.iterate(&snap, story)?;
            if let Some(exit) = self.settle(story, t0, done)? {
                return Ok(exit);
            }
        }
    }

    /// Everything before the first iteration: the agent exists, the lock, what a killed ralph
    /// left, `.ralph/` kept out of git, the branch checked out, the banner.
    fn start(opts: &'a Options, interrupt: &'a AtomicBool) -> Result<Loop<'a>, RunError> {
        let rep = &*opts.reporter;
        let state = state_dir(&opts.root);
        let lock = crate::run::start::begin(opts)?;
        let mut cache = PrdCache::default();
        checkout(opts, &mut cache, rep)?;
        crate::run::start::upkeep::clean_at_start(opts, rep);
        let run_id = crate::run::start::upkeep::new_run_id();
        // Absolute, so the agent can be told where its prompt file is whatever its cwd.
        let run_dir = state.join("runs").join(&run_id);
        let run_dir = std::path::absolute(&run_dir).unwrap_or(run_dir);
        crate::fsutil::create_dir_all(&run_dir)?;
        let branch = cache.last.as_ref().and_then(|l| {
            let b = l.prd.value.get("branchName")?;
            b.as_str().map(String::from)
        });
        let manifest =
            crate::run::start::upkeep::begin(opts, &run_id, &run_dir, branch.clone(), rep);
        let s = &opts.settings;
        let control = steer::open(opts, &run_id, branch);
        rep.report(Event::RunStarted {
            run_id: run_id.clone(),
            agent: opts.agent.kind.name().to_string(),
            iterations: s.iterations,
            verify: s.verify.clone(),
            parallel: None,
            branch: None,
        });
        if let Some(last) = &cache.last {
            crate::run::iteration::gate::start_notes(s, &last.prd.stories)
                .into_iter()
                .for_each(|e| rep.report(e));
        }
        Ok(Loop {
            opts,
            interrupt,
            rep,
            control,
            _lock: lock,
            state,
            run_id,
            run_dir,
            started: Instant::now(),
            cache,
            first: true,
            n: 0,
            attempts: HashMap::new(),
            retries: HashMap::new(),
            reviews: HashMap::new(),
            bases: HashMap::new(),
            strikes: Strikes::new(s.max_failures),
            skipped: BTreeMap::new(),
            limit_streak: 0,
            tree: None,
            good: None,
            spent: cost::Spent::default(),
            manifest,
        })
    }

    fn note(&self, text: String) {
        self.rep.report(Event::Note { text });
    }

    /// The run's last report, and its exit.
    fn end(&self, ending: Exit, passing: usize, unfinished: Vec<String>, written: bool) -> Exit {
        self.rep.report(Event::RunEnded {
            ending,
            iterations: self.n,
            limit: self.opts.settings.iterations,
            elapsed: self.started.elapsed(),
            passing,
            unfinished,
            history_written: written,
            cost_usd: self.spent.usd(),
            max_cost: self.opts.settings.max_cost.map(|m| m.usd()),
        });
        ending
    }

    /// Steps 2-5: load and validate prd.json, archive on a branch change, compact, then the
    /// next story, or the end of the run.
    fn next(&mut self) -> Result<Next, RunError> {
        if self.interrupt.load(Ordering::SeqCst) {
            return Ok(Next::End(self.end(Exit::Interrupted, 0, vec![], false)));
        }
        crate::fsutil::create_dir_all(&self.run_dir)?;
        self.apply_control();
        // Step 2: load and validate (errors carry the full diagnostics).
        let (snap, fresh) = self.cache.load(&self.opts.prd_path)?;
        let fresh = fresh || std::mem::take(&mut self.first);
        self.keep_good_copy(&snap)?;
        self.housekeeping(&snap, fresh)?;
        // Step 4: finished, or stuck?
        let prd = &snap.prd;
        if prd.all_done() {
            let total = prd.stories.iter().filter(|s| !s.removed).count();
            return Ok(Next::End(self.end(Exit::AllDone, total, vec![], false)));
        }
        let states = graph::states(&prd.stories);
        let skip: HashSet<String> = self.skipped.keys().cloned().collect();
        // Step 5: the next story.
        let Some(i) = crate::run::choose::choose(prd, &states, self.opts.story.as_deref(), &skip)?
        else {
            if self.hold_while_paused(None) {
                return Ok(Next::Again);
            }
            let why = status::not_runnable(&prd.stories, &states, &self.skipped);
            return Ok(Next::End(self.end(Exit::NoReady, 0, why, false)));
        };
        if self.spent.reached(self.opts.settings.max_cost) {
            let left = status::remaining(&prd.stories);
            return Ok(Next::End(self.end(Exit::CostLimit, 0, left, false)));
        }
        if self.n >= self.opts.settings.iterations {
            let left = status::remaining(&prd.stories);
            return Ok(Next::End(self.end(Exit::Limit, 0, left, false)));
        }
        if self.hold_while_paused(Some(&prd.stories[i].id)) {
            return Ok(Next::Again);
        }
        Ok(Next::Story(snap.clone(), i))
    }

    /// The copy a failed write falls back to (see [`repair`]); written while there is room.
    fn keep_good_copy(&mut self, snap: &PrdSnapshot) -> Result<(), RunError> {
        if self.good.as_deref() != Some(&*snap.bytes) || !repair::good_copy(&self.state).exists() {
            crate::fsutil::atomic_write(&repair::good_copy(&self.state), &snap.bytes)?;
            self.good = Some(snap.bytes.clone());
        }
        Ok(())
    }

    /// Step 3: archive on a branch change (the branch only changes with the file), and compact
    /// progress.txt when it is over the threshold. Either one is ralph's change of the tree,
    /// not the next agent's: the next "before" is taken afresh.
    fn housekeeping(&mut self, snap: &PrdSnapshot, fresh: bool) -> Result<(), RunError> {
        let root = &self.opts.root;
        let branch = snap
            .prd
            .value
            .get("branchName")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let progress = root.join("progress.txt");
        let paths = archive::Paths {
            root,
            state_dir: &self.state,
            progress: &progress,
        };
        if fresh
            && let Some(dir) = archive::on_branch(&paths, branch, &snap.bytes, &jiff::Zoned::now())?
        {
            self.tree = None;
            self.note(format!(
                "branch changed to {branch}: archived the previous run to {} and started a fresh progress.txt",
                dir.display()
            ));
        }
        if let Some(line) = compact_before(root, &self.opts.settings) {
            self.tree = None;
            self.note(line);
        }
        Ok(())
    }

    /// Step 6-9 for `story`: one agent run (see [`iteration::run_one`]).
    fn iterate(&mut self, snap: &PrdSnapshot, story: &Story) -> Result<Done, RunError> {
        let steered = self.steered(&story.id);
        let opts = steered.as_ref().unwrap_or(self.opts);
        let attempt = self.attempts.get(&story.id).copied().unwrap_or(0) + 1;
        self.show_running(&story.id, &story.title, attempt);
        tracing::debug!(story = %story.id, attempt, skipped = self.skipped.len(), "next story");
        self.rep.report(Event::IterationStarted {
            iteration: self.n + 1,
            limit: opts.settings.iterations,
            story: story.id.clone(),
            title: story.title.clone(),
            attempt,
            agent: opts.agent.kind.name().to_string(),
            worker: None,
            log: None,
        });
        let done = iteration::run_one(iteration::Attempt {
            opts,
            run_id: &self.run_id,
            run_dir: &self.run_dir,
            interrupt: self.interrupt,
            prd: snap,
            story,
            n: self.n + 1,
            attempt,
            retry: self.retries.get(&story.id),
            before: self.tree.take(),
            review_round: self.reviews.get(&story.id).copied().unwrap_or(0) + 1,
            review_base: self.bases.get(&story.id).map(String::as_str),
        })?;
        self.remember_base(&story.id, &done);
        self.tree = done.after.clone();
        crate::run::errors_seen::used_reported(&opts.root, &done.patterns_used, self.rep);
        // The agent may have deleted `.ralph/` (the lock does not live there): ralph's own
        // state goes on being written.
        crate::fsutil::create_dir_all(&self.run_dir)?;
        if let Some(changed) = &done.changed {
            archive::remember_prd(&self.state, &changed.bytes)?;
            self.cache.set(changed.clone());
        }
        Ok(done)
    }

    /// The base of `id`'s review diff: HEAD before its first attempt. Another story's commits
    /// on top would be in that diff, so a commit of this story's attempt drops the others'.
    fn remember_base(&mut self, id: &str, done: &Done) {
        if done.progress.is_some_and(|p| p.committed) {
            self.bases.retain(|other, _| other == id);
        }
        if let Some(head) = &done.record.head_before {
            self.bases
                .entry(id.to_string())
                .or_insert_with(|| head.clone());
        }
    }

    /// Step 9-10 after an agent run: a rate limit waits (it does not count); otherwise the
    /// counters, the no-progress skip, the history record, the status line and the sleep.
    /// `Some(exit)` ends the run.
    fn settle(&mut self, story: &Story, t0: Instant, done: Done) -> Result<Option<Exit>, RunError> {
        let s = &self.opts.settings;
        let mut record = done.record;
        if let Some(text) = self.spent.add(&record, s.max_cost) {
            self.rep.report(Event::Warning { text });
        }
        if done.outcome == Outcome::RateLimited {
            iteration::record::append(&self.opts.root, &record)?;
            return self.wait_for_limit(done.rate_line.unwrap_or_default());
        }
        if let Some(failure) = &done.start_failure {
            self.n += 1;
            iteration::record::append(&self.opts.root, &record)?;
            return Ok(Some(self.not_started(story, t0, &record, failure)));
        }
        self.limit_streak = 0;
        self.n += 1;
        let failed_before = self.count(story, done.retry, done.outcome, done.progress, &mut record);
        iteration::record::append(&self.opts.root, &record)?;
        if let (Outcome::Done, Some(f)) = (done.outcome, &failed_before) {
            crate::run::errors_seen::learn_reported(&self.opts.root, f, &record, self.rep);
        }
        self.finished(story, t0, done.outcome, done.extra, &record);
        if done.outcome == Outcome::Interrupted {
            return Ok(Some(self.end(Exit::Interrupted, 0, vec![], true)));
        }
        // Step 10: sleep unless the next check will stop anyway.
        let sleeps = self.n < s.iterations && !done.all_done;
        self.show_between(sleeps.then_some(("sleep", s.sleep)));
        if sleeps && sleep::sleep(s.sleep, self.interrupt) {
            return Ok(Some(self.end(Exit::Interrupted, 0, vec![], false)));
        }
        Ok(None)
    }

    /// The attempt counted: its retry note kept for the next prompt, a review round counted,
    /// the no-progress rule applied (a story held is reported skipped; `record` says so).
    /// Returns the previous attempt's verify failure (learned from when this one passes).
    fn count(
        &mut self,
        story: &Story,
        retry: Option<RetryNote>,
        outcome: Outcome,
        progress: Option<Progress>,
        record: &mut history::Record,
    ) -> Option<crate::errors_seen::Failure> {
        let attempt = self.attempts.entry(story.id.clone()).or_insert(0);
        *attempt += 1;
        let failed_before = self.retries.get(&story.id).and_then(|r| r.failure.clone());
        match retry {
            Some(r) => self.retries.insert(story.id.clone(), r),
            None => self.retries.remove(&story.id),
        };
        let reviews = self.reviews.entry(story.id.clone()).or_insert(0);
        if outcome == Outcome::ReviewChanges {
            *reviews += 1;
        }
        let a = crate::run::iteration::outcome::Attempted {
            attempt: *attempt,
            progress,
            reviews: *reviews,
            max_rounds: self.opts.settings.review.max_rounds,
        };
        let held = crate::run::iteration::outcome::hold(&mut self.strikes, record, a);
        if let Some((k, reason)) = held {
            self.skipped.insert(story.id.clone(), reason.clone());
            self.rep.report(Event::StorySkipped {
                story: story.id.clone(),
                title: story.title.clone(),
                attempts: k,
                reason,
            });
        }
        failed_before
    }

    /// The iteration's status line, and the story done when it landed.
    fn finished(
        &self,
        story: &Story,
        t0: Instant,
        outcome: Outcome,
        detail: String,
        record: &history::Record,
    ) {
        let landed = (outcome == Outcome::Done).then(|| record.head_after.clone());
        self.rep.report(Event::IterationFinished {
            iteration: self.n,
            limit: self.opts.settings.iterations,
            story: story.id.clone(),
            title: story.title.clone(),
            elapsed: t0.elapsed(),
            outcome,
            detail,
            cost_usd: cost::of_record(record),
        });
        if let Some(commit) = landed {
            self.rep.report(Event::StoryDone {
                story: story.id.clone(),
                title: story.title.clone(),
                commit,
                how: None,
            });
        }
    }

    /// The agent could not start: no other story would fare better, so the run stops here with
    /// the CLI's words and what to do (never a strike, never a skip).
    fn not_started(
        &self,
        story: &Story,
        t0: Instant,
        record: &history::Record,
        failure: &crate::agent::detect::StartFailure,
    ) -> Exit {
        let agent = &self.opts.agent;
        self.finished(story, t0, Outcome::StartFailed, String::new(), record);
        self.rep.report(Event::AgentNotStarted {
            story: story.id.clone(),
            agent: agent.kind.name().to_string(),
            version: agent.version.as_ref().map(ToString::to_string),
            message: record.reason.clone().unwrap_or_default(),
            advice: crate::agent::advice::for_failure(failure, agent.kind, &agent.argv),
        });
        let left = self
            .cache
            .last
            .as_ref()
            .map(|l| status::remaining(&l.prd.stories))
            .unwrap_or_default();
        self.end(Exit::StartFailed, 0, left, true)
    }

    /// A usage limit: wait as the agent's message says (or back off), up to
    /// [`MAX_RATE_LIMIT_WAITS`] times in a row; `--no-wait` stops instead.
    fn wait_for_limit(&mut self, line: String) -> Result<Option<Exit>, RunError> {
        let s = &self.opts.settings;
        self.limit_streak += 1;
        let (d, event) = ratelimit::next_wait(
            line,
            self.limit_streak,
            s.no_wait,
            s.max_wait,
            &jiff::Zoned::now(),
        )?;
        self.rep.report(event);
        self.tree = None;
        self.show_between(Some(("rate-limit", d)));
        // The countdown writes to stderr whatever the reporter (with --json too).
        let live = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let cadence = watch::Cadence::new(live, s.heartbeat);
        if sleep::countdown(d, self.interrupt, "ralph: waiting", cadence) {
            return Ok(Some(self.end(Exit::Interrupted, 0, vec![], false)));
        }
        Ok(None)
    }
}

/// Step 2 once before anything else, then the branch (see [`branch`]): a dirty work tree or a
/// missing baseBranch stops the run here, with nothing written or checked out.
fn checkout(opts: &Options, cache: &mut PrdCache, rep: &dyn Reporter) -> Result<(), RunError> {
    let (before, _) = cache.load(&opts.prd_path)?;
    for event in branch::prepare(&opts.root, &before.prd, opts.settings.allow_dirty)? {
        rep.report(event);
    }
    if let (after, true) = cache.load(&opts.prd_path)? {
        for event in branch::changed_notes(&opts.prd_path, &before.prd, &after.prd) {
            rep.report(event);
        }
    }
    Ok(())
}

/// Compact progress.txt when it is over the threshold. Returns a line for the status output
/// ("compacted progress.txt: 512 -> 190 lines, ..."). Honours `--no-compact`. A failed
/// compaction never stops the loop: it is reported and skipped (the original is untouched, see
/// `progress::store`).
fn compact_before(root: &Path, settings: &Settings) -> Option<String> {
    if !settings.compact {
        return None;
    }
    let opts = crate::progress::compact::Options {
        threshold: settings.compact_threshold,
        keep_recent: settings.compact_keep_recent,
        ..crate::progress::compact::Options::default()
    };
    match crate::progress::compact::auto(root, &opts) {
        Ok(summary) => summary.map(|s| s.to_string()),
        Err(e) => Some(format!("progress.txt not compacted: {e}")),
    }
}
