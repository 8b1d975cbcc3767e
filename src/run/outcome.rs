//! The outcome of one iteration and the no-progress skip rule, as pure policy.
//!
//! A story is done only when (a) prd.json marks it passing, or the agent printed a completion
//! signal for it AND verify commands are configured (a bare signal is a claim without evidence:
//! with nothing to check it, it never counts), and (b) every verify command passed. Owns that decision and when a story is
//! skipped for making no progress; does not run anything.

use std::collections::HashMap;

use crate::agent::detect::Signal;

/// What an iteration achieved: the data is recorded in history, so it lives in
/// [`crate::state::history`]; the policy deciding it is here.
pub use crate::state::history::Outcome;

/// What is known once the agent has exited and the integrity guard has run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentFacts {
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub interrupted: bool,
    /// prd.json (after the guard) marks the story passing.
    pub passes_after: bool,
    /// The agent printed a completion signal for this story.
    pub signalled: bool,
    /// The last BLOCKED or FAILED signal the agent printed for this story (never `Complete`).
    pub said: Option<crate::agent::detect::Signal>,
    /// A usage/rate-limit message was seen where it matters.
    pub rate_limited: bool,
    /// Verify commands are configured: a bare completion signal can be checked.
    pub gated: bool,
}

impl AgentFacts {
    /// The agent claims the story: verify commands must run before it counts.
    pub fn claimed(&self) -> bool {
        !self.interrupted
            && !self.blocked()
            && (self.passes_after || (self.signalled && self.gated && !self.failed()))
    }

    /// The agent printed a BLOCKED signal.
    pub fn blocked(&self) -> bool {
        matches!(self.said, Some(Signal::Blocked(_)))
    }

    /// The agent printed a FAILED signal.
    pub fn failed(&self) -> bool {
        matches!(self.said, Some(Signal::Failed(_)))
    }

    /// The agent printed a completion signal but did not mark prd.json, and nothing is
    /// configured to check the claim: it does not count, and the iteration says so.
    pub fn bare_claim(&self) -> bool {
        !self.interrupted
            && self.said.is_none()
            && self.signalled
            && !self.passes_after
            && !self.gated
    }
}

/// The outcome, given whether every verify command passed (`true` when there are none).
/// `verified` is ignored unless the story was claimed.
pub fn decide(f: &AgentFacts, verified: bool) -> Outcome {
    if f.interrupted {
        return Outcome::Interrupted;
    }
    if f.blocked() {
        return Outcome::Blocked;
    }
    if f.claimed() {
        return if verified {
            Outcome::Done
        } else {
            Outcome::VerifyFailed
        };
    }
    if f.failed() {
        Outcome::Failed
    } else if f.rate_limited {
        Outcome::RateLimited
    } else if f.timed_out {
        Outcome::TimedOut
    } else if f.exit_code == Some(0) {
        Outcome::Incomplete
    } else {
        Outcome::AgentFailed
    }
}

/// Evidence that the agent did something, even if the story is not done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub committed: bool,
    pub tree_changed: bool,
    pub passes_flipped: bool,
}

impl Progress {
    pub fn any(self) -> bool {
        self.committed || self.tree_changed || self.passes_flipped
    }
}

/// Counts iterations in a row without progress per story; skips a story at `max`.
#[derive(Debug, Clone)]
pub struct Strikes {
    max: u32,
    counts: HashMap<String, u32>,
}

impl Strikes {
    pub fn new(max: u32) -> Strikes {
        Strikes {
            max: max.max(1),
            counts: HashMap::new(),
        }
    }

    /// Record an iteration; returns the number of strikes in a row when the story must now be
    /// skipped. Rate-limited, interrupted and blocked (held anyway) iterations do not count
    /// either way; `failed` counts like `agent-failed`. Nor do ones
    /// whose progress is unknown (`None`: outside git, no `passes` flip).
    pub fn record(
        &mut self,
        story: &str,
        outcome: Outcome,
        progress: Option<Progress>,
    ) -> Option<u32> {
        let Some(progress) = progress else {
            if outcome == Outcome::Done {
                self.counts.remove(story);
            }
            return None;
        };
        match outcome {
            Outcome::RateLimited | Outcome::Interrupted | Outcome::Blocked => None,
            Outcome::Done => {
                self.counts.remove(story);
                None
            }
            _ if progress.any() => {
                self.counts.remove(story);
                None
            }
            _ => {
                let n = self.counts.entry(story.to_string()).or_insert(0);
                *n += 1;
                (*n >= self.max).then_some(*n)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> AgentFacts {
        AgentFacts {
            exit_code: Some(0),
            gated: true,
            ..AgentFacts::default()
        }
    }

    #[test]
    fn a_bare_signal_counts_only_behind_a_verify_gate() {
        let mut f = facts();
        f.signalled = true;
        f.gated = false;
        assert!(!f.claimed() && f.bare_claim());
        assert_eq!(decide(&f, true), Outcome::Incomplete);
        f.exit_code = Some(1);
        assert_eq!(decide(&f, true), Outcome::AgentFailed);
        // Marking prd.json is the evidence when nothing verifies.
        f.passes_after = true;
        assert!(f.claimed() && !f.bare_claim());
        assert_eq!(decide(&f, true), Outcome::Done);
        f.gated = true;
        f.passes_after = false;
        assert!(f.claimed() && !f.bare_claim());
    }

    #[test]
    fn done_needs_a_claim_and_passing_verification() {
        let mut f = facts();
        assert_eq!(decide(&f, true), Outcome::Incomplete);
        f.signalled = true;
        assert_eq!(decide(&f, true), Outcome::Done);
        assert_eq!(decide(&f, false), Outcome::VerifyFailed);
        let mut g = facts();
        g.passes_after = true;
        assert_eq!(decide(&g, false), Outcome::VerifyFailed);
        g.exit_code = Some(1);
        assert_eq!(decide(&g, true), Outcome::Done);
    }

    #[test]
    fn unclaimed_runs_say_why() {
        let mut f = facts();
        f.exit_code = Some(2);
        assert_eq!(decide(&f, true), Outcome::AgentFailed);
        f.timed_out = true;
        assert_eq!(decide(&f, true), Outcome::TimedOut);
        f.rate_limited = true;
        assert_eq!(decide(&f, true), Outcome::RateLimited);
        f.interrupted = true;
        f.signalled = true;
        assert_eq!(decide(&f, true), Outcome::Interrupted);
        assert!(!f.claimed());
    }

    #[test]
    fn blocked_and_failed_signals_rule_unless_prd_json_is_marked() {
        let mut f = facts();
        f.signalled = true;
        f.said = Some(Signal::Failed("db".into()));
        // A completion signal next to FAILED does not count: no gate.
        assert!(!f.claimed() && !f.bare_claim());
        assert_eq!(decide(&f, true), Outcome::Failed);
        f.rate_limited = true;
        f.timed_out = true;
        assert_eq!(decide(&f, true), Outcome::Failed);
        // Marking prd.json is a claim the gate checks.
        f.passes_after = true;
        assert_eq!(decide(&f, true), Outcome::Done);
        assert_eq!(decide(&f, false), Outcome::VerifyFailed);
        // BLOCKED wins over any claim; only an interrupt outranks it.
        f.said = Some(Signal::Blocked("key".into()));
        assert!(!f.claimed());
        assert_eq!(decide(&f, true), Outcome::Blocked);
        f.interrupted = true;
        assert_eq!(decide(&f, true), Outcome::Interrupted);
        let mut s = Strikes::new(1);
        let none = Progress::default();
        assert_eq!(s.record("A", Outcome::Blocked, Some(none)), None);
        assert_eq!(s.record("A", Outcome::Failed, Some(none)), Some(1));
    }

    #[test]
    fn three_strikes_without_progress_skip_a_story() {
        let none = Progress::default();
        let some = Progress {
            committed: true,
            ..none
        };
        let mut s = Strikes::new(3);
        assert_eq!(s.record("A", Outcome::AgentFailed, Some(none)), None);
        assert_eq!(s.record("A", Outcome::Incomplete, Some(none)), None);
        // Progress resets the count; limits and interrupts do not count.
        assert_eq!(s.record("A", Outcome::VerifyFailed, Some(some)), None);
        assert_eq!(s.record("A", Outcome::Incomplete, Some(none)), None);
        assert_eq!(s.record("A", Outcome::RateLimited, Some(none)), None);
        assert_eq!(s.record("B", Outcome::Incomplete, Some(none)), None);
        assert_eq!(s.record("A", Outcome::TimedOut, Some(none)), None);
        assert_eq!(s.record("A", Outcome::Incomplete, Some(none)), Some(3));
        // Unknown progress (outside git) never strikes, nor resets.
        let mut u = Strikes::new(1);
        assert_eq!(u.record("A", Outcome::AgentFailed, None), None);
        assert_eq!(u.record("A", Outcome::Incomplete, None), None);
        assert_eq!(u.record("A", Outcome::Incomplete, Some(none)), Some(1));
    }
}
