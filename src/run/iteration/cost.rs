//! What iterations cost, added up: the spend of the running loop against `--max-cost`
//! ([`Spent`]) and the totals of a history for `ralph status` ([`Totals`]).
//!
//! Owns the sums and the cost-cap rule (stop before the next iteration once the reported spend
//! reaches the cap; say once when the agent reports no cost, since the cap cannot then be
//! enforced). Pure. Does not read agents' output (`crate::agent::telemetry`), write history
//! (`crate::state::history`) or end the run (`crate::run::sequential`).

use serde::Serialize;

use crate::agent::telemetry::Usage;
use crate::config::Dollars;
use crate::report::thousands;
use crate::state::history::{Record, counted_cost};

/// The cost reported so far in this run.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Spent {
    usd: Option<f64>,
    warned: bool,
}

impl Spent {
    /// Count one iteration's record. Returns a warning, once per run, when a cap is set and
    /// the agent reported no cost for it.
    pub(crate) fn add(&mut self, rec: &Record, cap: Option<Dollars>) -> Option<String> {
        // The reviewer's spend (`--review`) counts too.
        if let Some(c) = review_usage(rec)
            .and_then(|u| u.cost_usd)
            .and_then(counted_cost)
        {
            self.usd = Some(self.usd.unwrap_or(0.0) + c);
        }
        match rec
            .usage
            .as_ref()
            .and_then(|u| u.cost_usd)
            .and_then(counted_cost)
        {
            Some(c) => {
                self.usd = Some(self.usd.unwrap_or(0.0) + c);
                None
            }
            _ if cap.is_some() && !self.warned => {
                self.warned = true;
                Some(format!(
                    "--max-cost cannot be enforced: {} reported no cost for iteration {} (of the presets only claude and opencode report one); the run goes on up to its iteration limit",
                    rec.agent, rec.iteration
                ))
            }
            _ => None,
        }
    }

    /// US dollars reported, if any agent reported a cost.
    pub(crate) fn usd(&self) -> Option<f64> {
        self.usd
    }

    /// Whether the spend has reached `cap`: no next iteration.
    pub(crate) fn reached(&self, cap: Option<Dollars>) -> bool {
        matches!((self.usd, cap), (Some(s), Some(c)) if s >= c.usd())
    }
}

/// What a history's iterations used, as their agents reported it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Totals {
    /// Iterations whose agent reported usage.
    pub iterations: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_tokens: u64,
    /// US dollars, when at least one iteration reported a cost.
    pub cost_usd: Option<f64>,
}

impl Totals {
    pub(crate) fn of<'a>(records: impl IntoIterator<Item = &'a Record>) -> Totals {
        let mut t = Totals::default();
        for r in records {
            if r.usage.is_some() {
                t.iterations += 1;
            }
            t.add(r.usage.iter().chain(review_usage(r)));
        }
        t
    }

    fn add<'a>(&mut self, usages: impl Iterator<Item = &'a Usage>) {
        let t = self;
        for u in usages {
            t.input_tokens = t.input_tokens.saturating_add(u.input_tokens);
            t.output_tokens = t.output_tokens.saturating_add(u.output_tokens);
            t.cached_tokens = t.cached_tokens.saturating_add(u.cached_tokens);
            if let Some(c) = u.cost_usd.and_then(counted_cost) {
                t.cost_usd = Some(t.cost_usd.unwrap_or(0.0) + c);
            }
        }
    }

    /// "tokens: 50,018 in (44,150 cached) / 267 out · cost: $0.07 (3 iterations reporting)".
    pub(crate) fn line(&self) -> String {
        let cost = match self.cost_usd {
            Some(c) => format!("${c:.2}"),
            None => "not reported".into(),
        };
        format!(
            "{} in ({} cached) / {} out · cost: {cost} ({} iteration(s) reporting)",
            thousands(self.input_tokens),
            thousands(self.cached_tokens),
            thousands(self.output_tokens),
            self.iterations
        )
    }
}

/// US dollars an iteration reported: its agent's and its reviewer's (`None` when neither
/// reported a cost).
pub(crate) fn of_record(rec: &Record) -> Option<f64> {
    let costs = rec
        .usage
        .iter()
        .chain(review_usage(rec))
        .filter_map(|u| u.cost_usd.and_then(counted_cost));
    costs.fold(None, |sum, c| Some(sum.unwrap_or(0.0) + c))
}

/// What the reviewer of this iteration reported using, if it was reviewed.
fn review_usage(rec: &Record) -> Option<&Usage> {
    rec.review.as_ref().and_then(|r| r.usage.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::iteration::outcome::Outcome;

    fn rec(i: u32, cost: Option<f64>, usage: bool) -> Record {
        Record {
            agent: "claude".into(),
            duration_ms: 5,
            exit_code: Some(0),
            usage: usage.then(|| Usage {
                input_tokens: 1000,
                output_tokens: 10,
                cached_tokens: 900,
                cost_usd: cost,
                ..Usage::default()
            }),
            ..Record::new("r", i, "A", "2026-11-22T10:00:00Z".into(), Outcome::Done)
        }
    }

    #[test]
    fn the_cap_is_reached_once_the_reported_spend_meets_it() {
        let cap = Dollars::new(0.25);
        let mut s = Spent::default();
        assert!(!s.reached(cap));
        assert_eq!(s.add(&rec(1, Some(0.10), true), cap), None);
        assert!(!s.reached(cap));
        s.add(&rec(2, Some(0.15), true), cap);
        assert!(s.reached(cap), "{s:?}");
        assert!(!s.reached(None));
    }

    #[test]
    fn the_reviewers_spend_counts_against_the_cap_and_in_the_totals() {
        let mut r = rec(1, Some(0.10), true);
        r.review = Some(crate::state::history::ReviewRecord {
            verdict: "approve".into(),
            items: vec![],
            round: 1,
            reviewer: "codex".into(),
            duration_ms: 1,
            why: None,
            changed: vec![],
            usage: Some(Usage {
                input_tokens: 500,
                output_tokens: 5,
                cost_usd: Some(0.20),
                ..Usage::default()
            }),
        });
        let cap = Dollars::new(0.25);
        let mut s = Spent::default();
        s.add(&r, cap);
        assert!(s.reached(cap), "{s:?}");
        assert!((of_record(&r).unwrap() - 0.30).abs() < 1e-9);
        assert_eq!(of_record(&rec(2, None, false)), None);
        let t = Totals::of([&r]);
        assert_eq!(
            (t.iterations, t.input_tokens, t.output_tokens),
            (1, 1500, 15)
        );
        assert!((t.cost_usd.unwrap() - 0.30).abs() < 1e-9);
    }

    #[test]
    fn no_reported_cost_is_said_once_and_only_with_a_cap() {
        let mut s = Spent::default();
        assert_eq!(s.add(&rec(1, None, false), None), None);
        let cap = Dollars::new(1.0);
        assert!(s.add(&rec(2, None, true), cap).is_some());
        assert_eq!(s.add(&rec(3, None, false), cap), None);
        assert!(!s.reached(cap));
        assert_eq!(s.usd(), None);
    }

    #[test]
    fn totals_add_up_what_was_reported() {
        let recs = [
            rec(1, Some(0.5), true),
            rec(2, None, false),
            rec(3, None, true),
        ];
        let t = Totals::of(&recs);
        assert_eq!(t.iterations, 2);
        assert_eq!(
            (t.input_tokens, t.cached_tokens, t.output_tokens),
            (2000, 1800, 20)
        );
        assert_eq!(t.cost_usd, Some(0.5));
        assert_eq!(
            t.line(),
            "2,000 in (1,800 cached) / 20 out · cost: $0.50 (2 iteration(s) reporting)"
        );
    }
}
