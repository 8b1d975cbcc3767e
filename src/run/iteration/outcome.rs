//! The outcome of one iteration and the no-progress skip rule, as pure policy.
//!
//! A story is done only when (a) prd.json marks it passing, or the agent printed a completion
//! signal for it AND verify commands are configured (a bare signal is a claim without evidence:
//! with nothing to check it, it never counts), and (b) every verify command passed. Owns that decision and when a story is
//! skipped for making no progress; does not run anything.

use std::collections::HashMap;

pub(crate) use crate::agent::detect::StartFailure;
use crate::agent::detect::{Refusal, Signal};

/// What an iteration achieved: the data is recorded in history, so it lives in
/// [`crate::state::history`]; the policy deciding it is here.
pub(crate) use crate::state::history::Outcome;
use crate::state::history::Record;

/// What is known once the agent has exited and the integrity guard has run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AgentFacts {
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
    pub(crate) fn claimed(&self) -> bool {
        !self.interrupted
            && !self.blocked()
            && (self.passes_after || (self.signalled && self.gated && !self.failed()))
    }

    /// The agent printed a BLOCKED signal.
    pub(crate) fn blocked(&self) -> bool {
        matches!(self.said, Some(Signal::Blocked(_)))
    }

    /// The agent printed a FAILED signal.
    pub(crate) fn failed(&self) -> bool {
        matches!(self.said, Some(Signal::Failed(_)))
    }

    /// The agent printed a completion signal but did not mark prd.json, and nothing is
    /// configured to check the claim: it does not count, and the iteration says so.
    pub(crate) fn bare_claim(&self) -> bool {
        !self.interrupted
            && self.said.is_none()
            && self.signalled
            && !self.passes_after
            && !self.gated
    }
}

/// The outcome, given whether every verify command passed (`true` when there are none).
/// `verified` is ignored unless the story was claimed.
pub(crate) fn classify(f: &AgentFacts, verified: bool) -> Outcome {
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
pub(crate) struct Progress {
    pub committed: bool,
    pub tree_changed: bool,
    pub passes_flipped: bool,
}

impl Progress {
    pub(crate) fn any(self) -> bool {
        self.committed || self.tree_changed || self.passes_flipped
    }
}

/// Counts iterations in a row without progress per story; skips a story at `max`.
#[derive(Debug, Clone)]
pub(crate) struct Strikes {
    max: u32,
    counts: HashMap<String, u32>,
}

impl Strikes {
    pub(crate) fn new(max: u32) -> Strikes {
        Strikes {
            max: max.max(1),
            counts: HashMap::new(),
        }
    }

    /// Start `story`'s count over (`ralph retry` released it).
    pub(crate) fn forget(&mut self, story: &str) {
        self.counts.remove(story);
    }

    /// Record an iteration; returns the number of strikes in a row when the story must now be
    /// skipped. Rate-limited, interrupted and blocked (held anyway) iterations do not count
    /// either way; `failed` counts like `agent-failed`. Nor do ones
    /// whose progress is unknown (`None`: outside git, no `passes` flip).
    pub(crate) fn record(
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

/// Where a story stands after an attempt, for [`hold`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attempted {
    /// The story's attempt number in this run.
    pub attempt: u32,
    pub progress: Option<Progress>,
    /// Its reviews that did not approve in this run, this attempt's included (`--review`).
    pub reviews: u32,
    pub max_rounds: u32,
}

/// Whether the attempt `rec` holds its story for the rest of the run, and why, with the
/// number the skip reports: no progress `--max-failures` times in a row, the agent's BLOCKED,
/// or `max_rounds` reviews that did not approve. The one rule of the sequential loop and the
/// parallel scheduler; marks `rec` skipped (and a review hold's reason in it).
pub(crate) fn hold(strikes: &mut Strikes, rec: &mut Record, a: Attempted) -> Option<(u32, String)> {
    let held = match strikes.record(&rec.story, rec.outcome, a.progress) {
        Some(k) => Some((
            k,
            format!(
                "no progress in {k} attempts in a row (no commit, no file change, no passes flip)"
            ),
        )),
        // The agent says the story cannot be done.
        None if rec.outcome == Outcome::Blocked => Some((a.attempt, blocked_reason(rec))),
        None if rec.outcome == Outcome::ReviewChanges => {
            crate::review::held(a.reviews, a.max_rounds, &rec.story).map(|why| {
                rec.reason = Some(why.clone());
                (a.attempt, why)
            })
        }
        None => None,
    };
    rec.skipped = held.is_some();
    held
}

/// Why a story the agent reported BLOCKED is held: `blocked: <its reason>`.
fn blocked_reason(rec: &Record) -> String {
    format!(
        "blocked: {}",
        rec.reason
            .as_deref()
            .unwrap_or(crate::agent::detect::NO_REASON)
    )
}

/// An agent run that exits non-zero this soon without any structured event never started its
/// session (a CLI's start-up, config or argument error).
pub(crate) const QUICK_EXIT: std::time::Duration = std::time::Duration::from_secs(30);

/// How an agent run began, for [`start_failure`].
#[derive(Debug, Clone, Default)]
pub(crate) struct StartFacts {
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub interrupted: bool,
    pub duration: std::time::Duration,
    /// The argv turns on a structured format (its events show the session started).
    pub structured: bool,
    /// At least one structured event was read from its output.
    pub events_seen: bool,
    /// What the end of its output says, if it is a known refusal.
    pub refusal: Option<(Refusal, String)>,
    /// It changed something (a commit, the work tree, a `passes` flip), or claimed the story.
    pub worked: bool,
    /// Its output ends with a usage/rate-limit message: a wait, not a start failure.
    pub rate_limited: bool,
}

/// The agent never got going, so another attempt (of this story or any other) would fail the
/// same way: it exited non-zero, did nothing, and either its output ends with a known refusal,
/// or the command could not be run, or a structured agent exited at once without an event.
/// Pure.
pub(crate) fn start_failure(f: &StartFacts) -> Option<StartFailure> {
    let code = f.exit_code.filter(|c| *c != 0)?;
    if f.timed_out || f.interrupted || f.worked || f.rate_limited {
        return None;
    }
    if let Some((kind, line)) = &f.refusal {
        return Some(StartFailure::Refused(*kind, line.clone()));
    }
    if matches!(code, 126 | 127) {
        return Some(StartFailure::NotRunnable(code));
    }
    (f.structured && !f.events_seen && f.duration < QUICK_EXIT)
        .then_some(StartFailure::NoSession(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_failure_needs_a_non_zero_exit_and_no_work() {
        let root = StartFacts {
            exit_code: Some(1),
            structured: true,
            events_seen: false,
            duration: std::time::Duration::from_millis(300),
            refusal: Some((
                Refusal::Root,
                "cannot be used with root/sudo privileges".into(),
            )),
            ..StartFacts::default()
        };
        assert_eq!(
            start_failure(&root),
            Some(StartFailure::Refused(
                Refusal::Root,
                "cannot be used with root/sudo privileges".into()
            ))
        );
        for not in worked_or_ended(&root) {
            assert_eq!(start_failure(&not), None, "{not:?}");
        }
        fails_fast(&root);
    }

    /// The refusal of `root`, but the agent exited 0, was killed, worked, timed out, was
    /// interrupted or hit a limit: none of them is a start failure.
    fn worked_or_ended(root: &StartFacts) -> [StartFacts; 6] {
        [
            StartFacts {
                exit_code: Some(0),
                ..root.clone()
            },
            StartFacts {
                exit_code: None,
                ..root.clone()
            },
            StartFacts {
                worked: true,
                ..root.clone()
            },
            StartFacts {
                timed_out: true,
                ..root.clone()
            },
            StartFacts {
                interrupted: true,
                ..root.clone()
            },
            StartFacts {
                rate_limited: true,
                ..root.clone()
            },
        ]
    }

    /// Without a refusal: a quick non-zero exit of a structured agent that printed nothing is no
    /// session; slow, talkative or plain ones are attempts; 127 is not runnable.
    fn fails_fast(root: &StartFacts) {
        let quiet = StartFacts {
            refusal: None,
            ..root.clone()
        };
        assert_eq!(start_failure(&quiet), Some(StartFailure::NoSession(1)));
        let slow = StartFacts {
            duration: QUICK_EXIT,
            ..quiet.clone()
        };
        assert_eq!(start_failure(&slow), None, "a slow failure may be anything");
        let talked = StartFacts {
            events_seen: true,
            ..quiet.clone()
        };
        assert_eq!(start_failure(&talked), None, "its session started");
        let plain = StartFacts {
            structured: false,
            ..quiet.clone()
        };
        assert_eq!(
            start_failure(&plain),
            None,
            "a plain agent failing fast is an attempt"
        );
        let missing = StartFacts {
            exit_code: Some(127),
            ..plain
        };
        assert_eq!(
            start_failure(&missing),
            Some(StartFailure::NotRunnable(127))
        );
    }

    #[test]
    fn hold_says_why_for_no_progress_blocked_and_review_rounds() {
        let mut strikes = Strikes::new(2);
        let none = Attempted {
            attempt: 1,
            progress: Some(Progress::default()),
            reviews: 0,
            max_rounds: 2,
        };
        let mut rec = Record::new("r", 1, "A", String::new(), Outcome::Incomplete);
        assert_eq!(hold(&mut strikes, &mut rec, none), None);
        assert!(!rec.skipped);
        let (k, why) = hold(&mut strikes, &mut rec, none).expect("held");
        assert_eq!(k, 2);
        assert!(
            why.starts_with("no progress in 2 attempts in a row"),
            "{why}"
        );
        assert!(rec.skipped);
        let mut rec = Record::new("r", 2, "B", String::new(), Outcome::Blocked);
        rec.reason = Some("needs a key".into());
        let held = hold(&mut strikes, &mut rec, Attempted { attempt: 3, ..none });
        assert_eq!(held, Some((3, "blocked: needs a key".into())));
        let mut rec = Record::new("r", 3, "C", String::new(), Outcome::ReviewChanges);
        let busy = Attempted {
            progress: Some(Progress {
                committed: true,
                ..Progress::default()
            }),
            reviews: 1,
            ..none
        };
        assert_eq!(hold(&mut strikes, &mut rec, busy), None);
        let (_, why) = hold(&mut strikes, &mut rec, Attempted { reviews: 2, ..busy }).unwrap();
        assert!(
            why.starts_with("review: not approved in 2 round(s)"),
            "{why}"
        );
        assert_eq!(rec.reason.as_deref(), Some(why.as_str()));
    }

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
        assert_eq!(classify(&f, true), Outcome::Incomplete);
        f.exit_code = Some(1);
        assert_eq!(classify(&f, true), Outcome::AgentFailed);
        // Marking prd.json is the evidence when nothing verifies.
        f.passes_after = true;
        assert!(f.claimed() && !f.bare_claim());
        assert_eq!(classify(&f, true), Outcome::Done);
        f.gated = true;
        f.passes_after = false;
        assert!(f.claimed() && !f.bare_claim());
    }

    #[test]
    fn done_needs_a_claim_and_passing_verification() {
        let mut f = facts();
        assert_eq!(classify(&f, true), Outcome::Incomplete);
        f.signalled = true;
        assert_eq!(classify(&f, true), Outcome::Done);
        assert_eq!(classify(&f, false), Outcome::VerifyFailed);
        let mut g = facts();
        g.passes_after = true;
        assert_eq!(classify(&g, false), Outcome::VerifyFailed);
        g.exit_code = Some(1);
        assert_eq!(classify(&g, true), Outcome::Done);
    }

    #[test]
    fn unclaimed_runs_say_why() {
        let mut f = facts();
        f.exit_code = Some(2);
        assert_eq!(classify(&f, true), Outcome::AgentFailed);
        f.timed_out = true;
        assert_eq!(classify(&f, true), Outcome::TimedOut);
        f.rate_limited = true;
        assert_eq!(classify(&f, true), Outcome::RateLimited);
        f.interrupted = true;
        f.signalled = true;
        assert_eq!(classify(&f, true), Outcome::Interrupted);
        assert!(!f.claimed());
    }

    #[test]
    fn blocked_and_failed_signals_rule_unless_prd_json_is_marked() {
        let mut f = facts();
        f.signalled = true;
        f.said = Some(Signal::Failed("db".into()));
        // A completion signal next to FAILED does not count: no gate.
        assert!(!f.claimed() && !f.bare_claim());
        assert_eq!(classify(&f, true), Outcome::Failed);
        f.rate_limited = true;
        f.timed_out = true;
        assert_eq!(classify(&f, true), Outcome::Failed);
        // Marking prd.json is a claim the gate checks.
        f.passes_after = true;
        assert_eq!(classify(&f, true), Outcome::Done);
        assert_eq!(classify(&f, false), Outcome::VerifyFailed);
        // BLOCKED wins over any claim; only an interrupt outranks it.
        f.said = Some(Signal::Blocked("key".into()));
        assert!(!f.claimed());
        assert_eq!(classify(&f, true), Outcome::Blocked);
        f.interrupted = true;
        assert_eq!(classify(&f, true), Outcome::Interrupted);
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
