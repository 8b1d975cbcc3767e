//! What one iteration amounts to, as a pure function of what was observed: the outcome, the
//! `passes` values the loop settles itself, the note the story's next prompt carries, and the
//! short text of the status line. Owns those decisions; runs nothing and writes nothing (the
//! agent run, the guard and the verify gate are in [`super::iteration`], the outcome rule in
//! [`super::outcome`]).

use std::time::Duration;

use super::outcome::{self, AgentFacts, Outcome};
use super::prompt::RetryNote;
use crate::agent::detect::Signal;

/// The most bytes of output a retry note carries.
const NOTE_TAIL: usize = 4096;

/// The retry note when the agent printed a completion signal but left prd.json unmarked and no
/// verify command could check the claim.
const BARE_CLAIM_NOTE: &str = "You printed the completion signal but did not set \"passes\": true for your story in prd.json. With no verify commands configured, a signal alone does not count: finish the story, then mark it passing in prd.json.";

/// The verify gate, reduced to what the verdict needs (`None` in [`Observed::gate`]: it did
/// not run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GateSummary {
    /// Commands configured.
    pub total: usize,
    /// Commands that passed.
    pub passed: usize,
    /// The command that failed: its text, how it ended ("exited 1", "timed out") and the tail
    /// of its output.
    pub failed: Option<(String, String, String)>,
    /// The gate was stopped by Ctrl-C / SIGTERM.
    pub interrupted: bool,
    /// The red-green gate's word, when it ran (after every command passed).
    pub red_green: Option<RedVerdict>,
}

/// What the red-green gate's red run says about a passed gate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RedVerdict {
    /// The status line's part ("red run failed without the change, as required").
    pub short: String,
    /// Why the story goes back (the next prompt's reason), when it does.
    pub sent_back: Option<String>,
}

/// Everything observed about one iteration once the agent, the guard and the gate are done.
#[derive(Debug, Clone)]
pub(crate) struct Observed<'a> {
    pub story: &'a str,
    /// This story's attempt number in this run (1-based).
    pub attempt: u32,
    pub facts: AgentFacts,
    pub gate: Option<GateSummary>,
    /// `passes` flips the agent made in prd.json (story id, new value), after the guard.
    pub flips: &'a [(String, bool)],
    /// The agent's edits to prd.json the guard put back, in words.
    pub restored: &'a [String],
    /// The agent's exit code and terminating signal.
    pub signal: Option<i32>,
    /// The tail of the agent's output.
    pub tail: &'a str,
    /// `--timeout`, for the note of a timed-out run.
    pub timeout: Duration,
}

/// The decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub outcome: Outcome,
    /// `passes` values the loop writes itself (story id, value).
    pub settle: Vec<(String, bool)>,
    /// What the story's next prompt says (none when it is done).
    pub retry: Option<RetryNote>,
    /// The status line's detail ("verify 2/3 passed: `cargo test` exited 101").
    pub extra: String,
}

/// Decide the iteration (see the module doc).
pub(crate) fn decide(o: &Observed<'_>) -> Verdict {
    let mut facts = o.facts.clone();
    facts.interrupted |= o.gate.as_ref().is_some_and(|g| g.interrupted);
    let verified = o.gate.as_ref().is_none_or(|g| {
        g.failed.is_none()
            && !g.interrupted
            && g.red_green.as_ref().is_none_or(|r| r.sent_back.is_none())
    });
    let outcome = outcome::classify(&facts, verified);
    let mut extra = o.gate.as_ref().map_or_else(String::new, gate_text);
    if facts.bare_claim() && outcome != Outcome::Interrupted {
        extra = "the agent claimed completion without marking prd.json".to_string();
    }
    if let (Outcome::Blocked | Outcome::Failed, Some(Signal::Blocked(r) | Signal::Failed(r))) =
        (outcome, &facts.said)
    {
        extra = r.clone();
    }
    let retry = if outcome == Outcome::Done {
        None
    } else {
        with_restored(retry_note(o, &facts, outcome), o)
    };
    Verdict {
        outcome,
        settle: settle(o, &facts, outcome),
        retry,
        extra,
    }
}

/// A gated iteration after its review (`--review`): approved, it stays done; otherwise the
/// story goes back like a failed gate (`passes` false, every false→true flip undone) with the
/// reviewer's items in its next prompt. Any other verdict is returned as it was.
pub(crate) fn after_review(
    o: &Observed<'_>,
    v: Verdict,
    review: &crate::review::Verdict,
    round: u32,
    max_rounds: u32,
) -> Verdict {
    if v.outcome != Outcome::Done {
        return v;
    }
    if review.approved() {
        let extra = match v.extra.is_empty() {
            true => "review approved".to_string(),
            false => format!("{} · review approved", v.extra),
        };
        return Verdict { extra, ..v };
    }
    let outcome = Outcome::ReviewChanges;
    let note = RetryNote {
        attempt: o.attempt,
        reason: crate::review::retry_reason(review, round, max_rounds),
        output_tail: None,
        failure: None,
    };
    Verdict {
        outcome,
        settle: settle(o, &o.facts, outcome),
        retry: with_restored(Some(note), o),
        extra: crate::review::detail(review),
    }
}

fn gate_text(g: &GateSummary) -> String {
    let head = format!("verify {}/{} passed", g.passed, g.total);
    match (&g.failed, &g.red_green) {
        (Some((command, how, _)), _) => format!("{head}: `{command}` {how}"),
        (None, Some(r)) => format!("{head} · {}", r.short),
        (None, None) => head,
    }
}

/// `true` when the agent only signalled; when the gate failed or the run was interrupted
/// before it could judge, every false→true flip of this iteration is undone.
fn settle(o: &Observed<'_>, facts: &AgentFacts, outcome: Outcome) -> Vec<(String, bool)> {
    let mut settle: Vec<(String, bool)> = match outcome {
        Outcome::Done if !facts.passes_after => vec![(o.story.to_string(), true)],
        Outcome::VerifyFailed
        | Outcome::ReviewChanges
        | Outcome::Interrupted
        | Outcome::Blocked => o
            .flips
            .iter()
            .filter(|(_, p)| *p)
            .map(|(id, _)| (id.clone(), false))
            .collect(),
        _ => vec![],
    };
    if matches!(outcome, Outcome::VerifyFailed | Outcome::ReviewChanges)
        && facts.passes_after
        && !settle.iter().any(|(id, _)| id == o.story)
    {
        settle.push((o.story.to_string(), false));
    }
    settle
}

fn retry_note(o: &Observed<'_>, facts: &AgentFacts, outcome: Outcome) -> Option<RetryNote> {
    if outcome == Outcome::VerifyFailed
        && let Some(why) = o
            .gate
            .as_ref()
            .and_then(|g| g.red_green.as_ref())
            .and_then(|r| r.sent_back.clone())
    {
        return Some(RetryNote {
            attempt: o.attempt,
            reason: why,
            output_tail: None,
            failure: None,
        });
    }
    if outcome == Outcome::VerifyFailed
        && let Some((command, how, tail)) = o.gate.as_ref().and_then(|g| g.failed.as_ref())
    {
        return Some(RetryNote {
            attempt: o.attempt,
            reason: format!(
                "Verification failed: `{command}` {how}. The story was marked not passing again."
            ),
            output_tail: Some(tail_of(tail, NOTE_TAIL).to_string()),
            failure: Some(crate::errors_seen::Failure {
                command: command.clone(),
                tail: tail_of(tail, NOTE_TAIL).to_string(),
            }),
        });
    }
    let reason = match outcome {
        Outcome::TimedOut => format!(
            "The agent timed out after {} and was stopped.",
            crate::run::events::durations::format_remaining(o.timeout)
        ),
        Outcome::Incomplete | Outcome::AgentFailed if facts.bare_claim() => {
            BARE_CLAIM_NOTE.to_string()
        }
        Outcome::AgentFailed => format!(
            "The agent exited with {} before finishing the story.",
            match (facts.exit_code, o.signal) {
                (Some(c), _) => format!("code {c}"),
                (None, Some(sig)) => format!("signal {sig}"),
                _ => "an unknown status".into(),
            }
        ),
        Outcome::Failed => match &facts.said {
            Some(Signal::Failed(r)) => format!("You reported FAILED: {r}"),
            _ => return None,
        },
        Outcome::Incomplete => "The agent ended without completing the story (prd.json not updated, no completion signal).".to_string(),
        _ => return None,
    };
    Some(RetryNote {
        attempt: o.attempt,
        reason,
        output_tail: Some(tail_of(o.tail, NOTE_TAIL).to_string()).filter(|t| !t.trim().is_empty()),
        failure: None,
    })
}

/// The note says first that the agent's edits to prd.json were put back, when they were.
fn with_restored(retry: Option<RetryNote>, o: &Observed<'_>) -> Option<RetryNote> {
    if o.restored.is_empty() {
        return retry;
    }
    let note = format!(
        "Your edits to prd.json were reverted: {}. Only change \"passes\" and \"notes\".",
        o.restored.join("; ")
    );
    Some(match retry {
        Some(mut r) => {
            r.reason = format!("{note}\n{}", r.reason);
            r
        }
        None => RetryNote {
            attempt: o.attempt,
            reason: note,
            output_tail: None,
            failure: None,
        },
    })
}

/// The last `max` bytes of `s`, starting on a char boundary and a line start when possible.
pub(crate) fn tail_of(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    let t = &s[start..];
    match t.find('\n') {
        Some(i) if i + 1 < t.len() => &t[i + 1..],
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed<'a>(facts: AgentFacts, gate: Option<GateSummary>) -> Observed<'a> {
        Observed {
            story: "S-1",
            attempt: 2,
            facts,
            gate,
            flips: &[],
            restored: &[],
            signal: None,
            tail: "last words\n",
            timeout: Duration::from_secs(60),
        }
    }

    fn failed_gate() -> GateSummary {
        GateSummary {
            total: 2,
            passed: 1,
            failed: Some(("cargo test".into(), "exited 101".into(), "boom\n".into())),
            interrupted: false,
            red_green: None,
        }
    }

    #[test]
    fn tail_of_cuts_at_a_line_start_and_char_boundary() {
        assert_eq!(tail_of("short", 10), "short");
        assert_eq!(tail_of("line one\nline two\nthree", 12), "three");
        let s = "é".repeat(10);
        assert!(tail_of(&s, 5).chars().all(|c| c == 'é'));
    }

    #[test]
    fn a_signal_checked_by_the_gate_is_done_and_the_loop_marks_it() {
        let facts = AgentFacts {
            exit_code: Some(0),
            signalled: true,
            gated: true,
            ..AgentFacts::default()
        };
        let gate = GateSummary {
            total: 1,
            passed: 1,
            ..GateSummary::default()
        };
        let v = decide(&observed(facts, Some(gate)));
        assert_eq!(v.outcome, Outcome::Done);
        assert_eq!(v.settle, [("S-1".to_string(), true)]);
        assert_eq!(v.retry, None);
        assert_eq!(v.extra, "verify 1/1 passed");
    }

    #[test]
    fn a_failed_gate_undoes_every_flip_and_carries_the_command_and_its_output() {
        let facts = AgentFacts {
            exit_code: Some(0),
            passes_after: true,
            gated: true,
            ..AgentFacts::default()
        };
        let flips = [("S-1".to_string(), true), ("S-2".to_string(), true)];
        let o = Observed {
            flips: &flips,
            ..observed(facts, Some(failed_gate()))
        };
        let v = decide(&o);
        assert_eq!(v.outcome, Outcome::VerifyFailed);
        assert_eq!(
            v.settle,
            [("S-1".to_string(), false), ("S-2".to_string(), false)]
        );
        let r = v.retry.expect("a note");
        assert!(r.reason.contains("`cargo test` exited 101"), "{}", r.reason);
        assert_eq!(r.output_tail.as_deref(), Some("boom\n"));
        let f = r.failure.expect("the failure, for error patterns");
        assert_eq!(
            (f.command.as_str(), f.tail.as_str()),
            ("cargo test", "boom\n")
        );
        assert_eq!(v.extra, "verify 1/2 passed: `cargo test` exited 101");
    }

    #[test]
    fn a_red_run_that_passes_sends_the_story_back_with_its_reason() {
        let facts = AgentFacts {
            exit_code: Some(0),
            passes_after: true,
            gated: true,
            ..AgentFacts::default()
        };
        let flips = [("S-1".to_string(), true)];
        let gate = |sent_back: Option<&str>| GateSummary {
            total: 1,
            passed: 1,
            red_green: Some(RedVerdict {
                short: "red run: the new tests pass without the change".into(),
                sent_back: sent_back.map(String::from),
            }),
            ..GateSummary::default()
        };
        let o = Observed {
            flips: &flips,
            ..observed(facts.clone(), Some(gate(Some("they do not test it"))))
        };
        let v = decide(&o);
        assert_eq!(v.outcome, Outcome::VerifyFailed);
        assert_eq!(v.settle, [("S-1".to_string(), false)]);
        let note = v.retry.expect("a note");
        assert_eq!(
            (note.reason.as_str(), note.output_tail, note.failure),
            ("they do not test it", None, None)
        );
        assert_eq!(
            v.extra,
            "verify 1/1 passed · red run: the new tests pass without the change"
        );
        // A red run that failed as required (or could not judge) leaves the story done.
        let o = Observed {
            flips: &flips,
            ..observed(facts, Some(gate(None)))
        };
        let v = decide(&o);
        assert_eq!((v.outcome, v.retry), (Outcome::Done, None));
    }

    #[test]
    fn a_bare_claim_without_a_gate_does_not_count_and_says_why() {
        let facts = AgentFacts {
            exit_code: Some(0),
            signalled: true,
            ..AgentFacts::default()
        };
        let v = decide(&observed(facts, None));
        assert_eq!(v.outcome, Outcome::Incomplete);
        assert!(v.settle.is_empty());
        assert_eq!(v.retry.expect("a note").reason, BARE_CLAIM_NOTE);
        assert!(v.extra.contains("without marking prd.json"));
    }

    #[test]
    fn reverted_edits_come_first_in_the_note_and_an_interrupt_undoes_flips() {
        let facts = AgentFacts {
            exit_code: None,
            interrupted: true,
            ..AgentFacts::default()
        };
        let flips = [("S-1".to_string(), true)];
        let restored = ["removed story S-9".to_string()];
        let o = Observed {
            flips: &flips,
            restored: &restored,
            ..observed(facts, None)
        };
        let v = decide(&o);
        assert_eq!(v.outcome, Outcome::Interrupted);
        assert_eq!(v.settle, [("S-1".to_string(), false)]);
        let r = v.retry.expect("a note");
        assert!(
            r.reason
                .starts_with("Your edits to prd.json were reverted: removed story S-9.")
        );
    }

    #[test]
    fn failed_carries_the_reason_and_blocked_undoes_the_flip() {
        let facts = AgentFacts {
            exit_code: Some(0),
            said: Some(Signal::Failed("tests need a database".into())),
            ..AgentFacts::default()
        };
        let v = decide(&observed(facts, None));
        assert_eq!(v.outcome, Outcome::Failed);
        assert_eq!(v.extra, "tests need a database");
        let r = v.retry.expect("a note");
        assert_eq!(r.reason, "You reported FAILED: tests need a database");
        assert_eq!(r.output_tail.as_deref(), Some("last words\n"));

        let facts = AgentFacts {
            exit_code: Some(0),
            passes_after: true,
            signalled: true,
            said: Some(Signal::Blocked("needs an API key".into())),
            ..AgentFacts::default()
        };
        let flips = [("S-1".to_string(), true)];
        let o = Observed {
            flips: &flips,
            ..observed(facts, None)
        };
        let v = decide(&o);
        assert_eq!(v.outcome, Outcome::Blocked);
        assert_eq!(v.settle, [("S-1".to_string(), false)]);
        assert_eq!(v.retry, None);
        assert_eq!(v.extra, "needs an API key");
    }

    #[test]
    fn an_agent_killed_by_a_signal_says_which() {
        let facts = AgentFacts::default();
        let o = Observed {
            signal: Some(9),
            ..observed(facts, None)
        };
        let v = decide(&o);
        assert_eq!(v.outcome, Outcome::AgentFailed);
        let r = v.retry.expect("a note");
        assert!(r.reason.contains("signal 9"), "{}", r.reason);
        assert_eq!(r.output_tail.as_deref(), Some("last words\n"));
    }

    #[test]
    fn a_review_that_does_not_approve_sends_the_story_back_with_its_items() {
        use crate::review::Verdict as R;
        let facts = AgentFacts {
            exit_code: Some(0),
            passes_after: true,
            gated: true,
            ..AgentFacts::default()
        };
        let gate = GateSummary {
            total: 1,
            passed: 1,
            ..GateSummary::default()
        };
        let flips = [("S-1".to_string(), true), ("S-9".to_string(), true)];
        let o = Observed {
            flips: &flips,
            ..observed(facts, Some(gate))
        };
        let v = decide(&o);
        assert_eq!(v.outcome, Outcome::Done);
        let ok = after_review(&o, v.clone(), &R::Approve, 1, 2);
        assert_eq!(
            (ok.outcome, ok.extra.as_str()),
            (Outcome::Done, "verify 1/1 passed · review approved")
        );
        assert_eq!(ok.settle, v.settle);
        let back = after_review(&o, v.clone(), &R::Changes(vec!["add a test".into()]), 1, 2);
        assert_eq!(back.outcome, Outcome::ReviewChanges);
        assert_eq!(
            back.settle,
            [("S-1".to_string(), false), ("S-9".to_string(), false)]
        );
        let note = back.retry.expect("a note");
        assert!(note.reason.contains("round 1 of 2") && note.reason.ends_with("- add a test"));
        assert_eq!(back.extra, "review asked for 1 change");
        let none = after_review(&o, v, &R::Missing("timed out".into()), 2, 2);
        assert_eq!(none.outcome, Outcome::ReviewChanges);
        assert!(
            none.retry
                .expect("a note")
                .reason
                .contains("no verdict (timed out)")
        );
        // Only a done iteration is reviewed.
        let failed = decide(&observed(AgentFacts::default(), None));
        assert_eq!(after_review(&o, failed.clone(), &R::Approve, 1, 2), failed);
    }
}
