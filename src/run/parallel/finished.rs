//! A worker's attempt acted on, on the scheduler thread: its history record completed (worker,
//! base, usage counted against `--max-cost`), then queued for the merge when it passed its gate,
//! a rate-limit wait for every worker, or the next attempt (or the story held) when it failed.
//! Merges are [`super::landing`]'s; the attempt itself is [`super::worker`]'s.

use std::time::{Duration, Instant};

use super::sched::{ClaimState, Sched};
use super::worker::AttemptDone;
use crate::agent::detect::StartFailure;
use crate::run::events::Event;
use crate::run::iteration::outcome::{Attempted, Outcome, Progress};
use crate::run::iteration::prompt::RetryNote;
use crate::run::wait::ratelimit;
use crate::state::history::Record;

impl Sched<'_> {
    /// A worker finished an attempt.
    pub(super) fn finished(&mut self, id: &str, r: Result<AttemptDone, String>) {
        let done = match r {
            Ok(d) => d,
            Err(e) => {
                self.warn(format!(
                    "{id}: the attempt failed: {e}; holding it for this run"
                ));
                self.hold_for_run(id, e);
                return;
            }
        };
        crate::run::errors_seen::used_reported(
            &self.main.root,
            &done.patterns_used,
            &*self.opts.reporter,
        );
        if !self.claims.contains_key(id) {
            return;
        }
        let mut rec = done.record;
        if let Some(text) = self.spent.add(&rec, self.opts.settings.max_cost) {
            self.warn(text);
        }
        if !self.account(id, &mut rec, done.resumed) {
            return;
        }
        match done.outcome {
            Outcome::Done => self.gated(id, rec),
            Outcome::RateLimited => self.rate_limited(id, rec, done.rate_line),
            Outcome::StartFailed => self.not_started(id, rec, done.start_failure),
            Outcome::Interrupted => {
                self.record(&rec);
                if let Some(c) = self.claims.get_mut(id) {
                    c.state = ClaimState::Waiting(Instant::now() + Duration::from_secs(3600));
                }
            }
            outcome => self.failed(id, rec, outcome, done.retry, done.progress),
        }
    }

    /// The attempt's record completed from its claim (worker, base: where a resumed branch
    /// forked, from now on), its agent time counted; false when `id` is not claimed.
    fn account(&mut self, id: &str, rec: &mut Record, resumed: Option<String>) -> bool {
        let Some(c) = self.claims.get_mut(id) else {
            return false;
        };
        if let Some(base) = resumed {
            // Its worktree resumed the branch an earlier run left: the merge and its notes
            // count from where that branch forked.
            c.base = base;
        }
        rec.worker = Some(c.worker);
        rec.base = Some(c.base.clone());
        c.agent += Duration::from_millis(rec.duration_ms);
        self.totals.agent += Duration::from_millis(rec.duration_ms);
        c.since = Instant::now();
        true
    }

    /// The line that says the attempt `rec` of `id` ended (`outcome`, `detail`).
    fn finished_event(&self, id: &str, rec: &Record, outcome: Outcome, detail: String) -> Event {
        Event::IterationFinished {
            iteration: rec.iteration,
            limit: self.opts.settings.iterations,
            story: id.to_string(),
            title: self
                .claims
                .get(id)
                .map(|c| c.title.clone())
                .unwrap_or_default(),
            elapsed: Duration::from_millis(rec.duration_ms),
            outcome,
            detail,
            cost_usd: crate::run::iteration::cost::of_record(rec),
        }
    }

    /// Passed its gate: queued for the merge.
    fn gated(&mut self, id: &str, rec: Record) {
        let Some(attempt) = self.claims.get(id).map(|c| c.attempt) else {
            return;
        };
        let detail = format!("gated (attempt {attempt}); queued for merge");
        self.opts
            .reporter
            .report(self.finished_event(id, &rec, Outcome::Done, detail));
        if let Some(c) = self.claims.get_mut(id) {
            c.state = ClaimState::Queued;
            c.gated = Some(rec);
        }
        self.queue.push_back(id.to_string());
    }

    /// Rate-limited: the attempt does not count, and every worker waits (`line`: what the agent
    /// said about when the limit resets).
    fn rate_limited(&mut self, id: &str, rec: Record, line: Option<String>) {
        self.n -= 1;
        if let Some(c) = self.claims.get_mut(id) {
            c.attempt -= 1;
        }
        self.record(&rec);
        let line = line.unwrap_or_default();
        self.limit_streak += 1;
        let s = &self.opts.settings;
        let now = jiff::Zoned::now();
        let waited = ratelimit::next_wait(line, self.limit_streak, s.no_wait, s.max_wait, &now);
        let (d, event) = match waited {
            Ok(w) => w,
            Err(e) => {
                self.fatal = Some(e);
                return;
            }
        };
        self.opts.reporter.report(event);
        let until = Instant::now() + d;
        self.rate_until = Some(until);
        if let Some(c) = self.claims.get_mut(id) {
            c.state = ClaimState::Waiting(until);
        }
    }

    /// The agent could not start: said once for the run (with advice), no attempt starts any
    /// more, and this claim is released.
    fn not_started(&mut self, id: &str, rec: Record, failure: Option<StartFailure>) {
        let event = self.finished_event(id, &rec, Outcome::StartFailed, String::new());
        self.opts.reporter.report(event);
        self.record(&rec);
        if !self.start_failed {
            self.start_failed = true;
            let agent = &self.opts.agent;
            let failure = failure.unwrap_or(StartFailure::NoSession(rec.exit_code.unwrap_or(1)));
            self.opts.reporter.report(Event::AgentNotStarted {
                story: id.to_string(),
                agent: agent.kind.name().to_string(),
                version: agent.version.as_ref().map(ToString::to_string),
                message: rec.reason.clone().unwrap_or_default(),
                advice: crate::agent::advice::for_failure(&failure, agent.kind, &agent.argv),
            });
        }
        self.release(id, "not started");
    }

    /// Failed (`outcome`): the next attempt after `--sleep` with its retry note, or the story
    /// held when it failed too often.
    fn failed(
        &mut self,
        id: &str,
        mut rec: Record,
        outcome: Outcome,
        retry: Option<RetryNote>,
        progress: Option<Progress>,
    ) {
        self.limit_streak = 0;
        let sleep = self.opts.settings.sleep;
        let max_rounds = self.opts.settings.review.max_rounds;
        let Some(c) = self.claims.get_mut(id) else {
            return;
        };
        *c.failures.entry(outcome.name()).or_insert(0) += 1;
        c.retry = retry;
        c.state = ClaimState::Waiting(Instant::now() + sleep);
        let a = Attempted {
            attempt: c.attempt,
            progress,
            reviews: c
                .failures
                .get(Outcome::ReviewChanges.name())
                .copied()
                .unwrap_or(0),
            max_rounds,
        };
        let event = self.finished_event(id, &rec, outcome, format!("attempt {}", a.attempt));
        let held = crate::run::iteration::outcome::hold(&mut self.strikes, &mut rec, a);
        self.opts.reporter.report(event);
        self.record(&rec);
        if let Some((k, why)) = held {
            self.report_held(id, k, &why);
            self.hold_for_run(id, why);
        }
    }
}
