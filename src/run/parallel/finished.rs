//! A worker's attempt acted on, on the scheduler thread: its history record completed (worker,
//! base, usage counted against `--max-cost`), then queued for the merge when it passed its gate,
//! a rate-limit wait for every worker, or the next attempt (or the story held) when it failed.
//! Merges are [`super::landing`]'s; the attempt itself is [`super::worker`]'s.

use std::time::{Duration, Instant};

use super::sched::{ClaimState, Sched};
use super::worker::AttemptDone;
use crate::run::events::Event;
use crate::run::outcome::Outcome;
use crate::run::ratelimit;

impl Sched<'_> {
    /// A worker finished an attempt.
    pub(super) fn finished(&mut self, id: &str, r: Result<AttemptDone, String>) {
        let s = &self.opts.settings;
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
        crate::run::patterns::used_reported(
            &self.main.root,
            &done.patterns_used,
            &*self.opts.reporter,
        );
        if !self.claims.contains_key(id) {
            return;
        }
        let mut rec = done.record;
        if let Some(text) = self.spent.add(&rec, s.max_cost) {
            self.opts.reporter.report(Event::Warning { text });
        }
        let Some(c) = self.claims.get_mut(id) else {
            return;
        };
        if let Some(base) = done.resumed {
            // Its worktree resumed the branch an earlier run left: the merge and its notes
            // count from where that branch forked.
            c.base = base;
        }
        rec.worker = Some(c.worker);
        rec.base = Some(c.base.clone());
        c.agent += Duration::from_millis(rec.duration_ms);
        self.totals.agent += Duration::from_millis(rec.duration_ms);
        c.since = Instant::now();
        let cost_usd = crate::run::cost::of_record(&rec);
        let (iteration, elapsed) = (rec.iteration, Duration::from_millis(rec.duration_ms));
        let finished = |detail: String| Event::IterationFinished {
            iteration,
            limit: s.iterations,
            story: id.to_string(),
            title: c.title.clone(),
            elapsed,
            outcome: done.outcome,
            detail,
            cost_usd,
        };
        match done.outcome {
            Outcome::Done => {
                self.opts.reporter.report(finished(format!(
                    "gated (attempt {}); queued for merge",
                    c.attempt
                )));
                c.state = ClaimState::Queued;
                c.gated = Some(rec);
                self.queue.push_back(id.to_string());
            }
            Outcome::RateLimited => {
                self.n -= 1;
                c.attempt -= 1;
                self.record(&rec);
                let line = done.rate_line.unwrap_or_default();
                self.limit_streak += 1;
                let now = jiff::Zoned::now();
                let (d, event) = match ratelimit::next_wait(
                    line,
                    self.limit_streak,
                    s.no_wait,
                    s.max_wait,
                    &now,
                ) {
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
            Outcome::StartFailed => {
                self.opts.reporter.report(finished(String::new()));
                self.record(&rec);
                if !self.start_failed {
                    self.start_failed = true;
                    let agent = &self.opts.agent;
                    let failure = done.start_failure.unwrap_or(
                        crate::agent::detect::StartFailure::NoSession(rec.exit_code.unwrap_or(1)),
                    );
                    self.opts.reporter.report(Event::AgentNotStarted {
                        story: id.to_string(),
                        agent: agent.kind.name().to_string(),
                        version: agent.version.as_ref().map(ToString::to_string),
                        message: rec.reason.clone().unwrap_or_default(),
                        advice: crate::agent::advice::for_failure(
                            &failure,
                            agent.kind,
                            &agent.argv,
                        ),
                    });
                }
                self.release(id, "not started");
            }
            Outcome::Interrupted => {
                c.state = ClaimState::Waiting(Instant::now() + Duration::from_secs(3600));
                self.record(&rec);
            }
            outcome => {
                self.limit_streak = 0;
                *c.failures.entry(outcome.name()).or_insert(0) += 1;
                c.retry = done.retry;
                c.state = ClaimState::Waiting(Instant::now() + s.sleep);
                let a = crate::run::outcome::Attempted {
                    attempt: c.attempt,
                    progress: done.progress,
                    reviews: c
                        .failures
                        .get(Outcome::ReviewChanges.name())
                        .copied()
                        .unwrap_or(0),
                    max_rounds: s.review.max_rounds,
                };
                let held = crate::run::outcome::hold(&mut self.strikes, &mut rec, a);
                let detail = format!("attempt {}", c.attempt);
                self.opts.reporter.report(finished(detail));
                self.record(&rec);
                if let Some((k, why)) = held {
                    self.report_held(id, k, &why);
                    self.hold_for_run(id, why);
                }
            }
        }
    }
}
