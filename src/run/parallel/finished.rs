//! A worker's attempt acted on, on the scheduler thread: its history record completed (worker,
//! base, usage counted against `--max-cost`), then queued for the merge when it passed its gate,
//! a rate-limit wait for every worker, or the next attempt (or the story held) when it failed.
//! Merges are [`super::landing`]'s; the attempt itself is [`super::worker`]'s.

use std::time::{Duration, Instant};

use super::{AttemptDone, ClaimState, Sched, record};
use crate::run::events::Event;
use crate::run::outcome::Outcome;
use crate::run::{RunError, ratelimit};

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
                self.held.insert(id.to_string(), e);
                self.release(id, "held");
                return;
            }
        };
        crate::run::patterns::used_reported(&self.root, &done.patterns_used, &*self.opts.reporter);
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
        rec.worker = Some(c.worker);
        rec.base = Some(c.base.clone());
        c.agent += Duration::from_millis(rec.duration_ms);
        self.totals.agent += Duration::from_millis(rec.duration_ms);
        c.since = Instant::now();
        let cost_usd = crate::run::cost::of_record(&rec);
        let finished = |detail: String| Event::IterationFinished {
            iteration: rec.iteration,
            limit: s.iterations,
            story: id.to_string(),
            title: c.title.clone(),
            elapsed: Duration::from_millis(rec.duration_ms),
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
                record(&self.root, &rec, &*self.opts.reporter);
                let line = done.rate_line.unwrap_or_default();
                self.limit_streak += 1;
                if s.no_wait {
                    self.fatal = Some(RunError::RateLimited { line });
                    return;
                }
                if self.limit_streak >= crate::run::MAX_RATE_LIMIT_WAITS {
                    self.fatal = Some(RunError::RateLimitedTooOften { line });
                    return;
                }
                let now = jiff::Zoned::now();
                let wait = ratelimit::plan(&line, &now, self.limit_streak - 1);
                let mut d = wait.duration_from(&now);
                if let Some(cap) = s.max_wait {
                    d = d.min(cap);
                }
                self.opts.reporter.report(Event::RateLimited {
                    line,
                    until: None,
                    wait: d,
                });
                let until = Instant::now() + d;
                self.rate_until = Some(until);
                c.state = ClaimState::Waiting(until);
            }
            Outcome::Interrupted => {
                record(&self.root, &rec, &*self.opts.reporter);
                c.state = ClaimState::Waiting(Instant::now() + Duration::from_secs(3600));
            }
            outcome => {
                self.limit_streak = 0;
                *c.failures.entry(outcome.name()).or_insert(0) += 1;
                c.retry = done.retry;
                c.state = ClaimState::Waiting(Instant::now() + s.sleep);
                let held = match self.strikes.record(id, outcome, done.progress) {
                    Some(k) => Some((k, format!("no progress in {k} attempts in a row"))),
                    None if outcome == Outcome::Blocked => {
                        Some((c.attempt, crate::run::driver::blocked_reason(&rec)))
                    }
                    None if outcome == Outcome::ReviewChanges => {
                        let rounds = c.failures.get(outcome.name()).copied().unwrap_or(0);
                        crate::review::held(rounds, s.review.max_rounds, id).map(|why| {
                            rec.reason = Some(why.clone());
                            (c.attempt, why)
                        })
                    }
                    None => None,
                };
                rec.skipped = held.is_some();
                let detail = format!("attempt {}", c.attempt);
                self.opts.reporter.report(finished(detail));
                record(&self.root, &rec, &*self.opts.reporter);
                if let Some((k, why)) = held {
                    self.report_held(id, k, &why);
                    self.held.insert(id.to_string(), why);
                    self.release(id, "held");
                }
            }
        }
    }
}
