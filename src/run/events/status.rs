//! What the loop prints between agent runs, as pure functions: the one-line status, the list of
//! what remains, and why each unfinished story cannot run.

use std::collections::BTreeMap;
use std::time::Duration;

use super::durations::format_elapsed;
use crate::graph::State;
use crate::prd::Story;
use crate::state::history::Outcome;

/// The colour of an outcome in the status line: done green, waits yellow, failures red.
fn outcome_style(outcome: Outcome) -> anstyle::Style {
    match outcome {
        Outcome::Done => crate::ui::GOOD,
        Outcome::RateLimited | Outcome::Interrupted | Outcome::Blocked => crate::ui::WAITING,
        Outcome::VerifyFailed
        | Outcome::Incomplete
        | Outcome::AgentFailed
        | Outcome::TimedOut
        | Outcome::Failed
        | Outcome::ReviewChanges
        | Outcome::MergeConflict
        | Outcome::MergeVerifyFailed
        | Outcome::StartFailed => crate::ui::BAD,
    }
}

/// `ralph [2/10] US-002 Add login · 1m03s · done` (the outcome styled, for `anstream`).
pub(crate) fn status_line(
    i: u32,
    n: u32,
    id: &str,
    title: &str,
    elapsed: Duration,
    outcome: Outcome,
    extra: &str,
) -> String {
    let mut s = format!(
        "ralph [{i}/{n}] {id} {title} · {} · {}",
        format_elapsed(elapsed),
        crate::ui::paint(outcome_style(outcome), outcome.name())
    );
    if !extra.is_empty() {
        s.push_str(" · ");
        s.push_str(extra);
    }
    s
}

/// Unfinished stories, in file order: "US-003 Title".
pub(crate) fn remaining(stories: &[Story]) -> Vec<String> {
    stories
        .iter()
        .filter(|s| !s.passes && !s.removed)
        .map(|s| format!("{} {}", s.id, s.title))
        .collect()
}

/// Why each unfinished story cannot run now: blocked (by what) or skipped (why).
pub(crate) fn not_runnable(
    stories: &[Story],
    states: &[State],
    skipped: &BTreeMap<String, String>,
) -> Vec<String> {
    stories
        .iter()
        .zip(states)
        .filter_map(|(s, st)| match st {
            State::Done | State::Removed => None,
            _ if skipped.contains_key(&s.id) => Some(format!(
                "{}: skipped: {}",
                s.id,
                skipped.get(&s.id).map(String::as_str).unwrap_or("")
            )),
            State::Blocked { unmet } => {
                let names: Vec<String> = unmet.iter().map(ToString::to_string).collect();
                Some(format!("{}: blocked by {}", s.id, names.join(", ")))
            }
            State::Ready => Some(format!("{}: ready", s.id)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph;

    fn story(id: &str, deps: &[&str], passes: bool) -> Story {
        let v = serde_json::json!({"id": id, "title": format!("T{id}"), "passes": passes, "blockedBy": deps});
        Story::from_value(0, &v)
    }

    #[test]
    fn lines_read_well() {
        let s = story("A", &[], false);
        let line = status_line(
            2,
            10,
            &s.id,
            &s.title,
            Duration::from_secs(63),
            Outcome::Done,
            "verify 1/1",
        );
        assert_eq!(
            anstream::adapter::strip_str(&line).to_string(),
            "ralph [2/10] A TA · 1m03s · done · verify 1/1"
        );
        assert!(line.contains("\x1b["), "the outcome is styled: {line:?}");
        let v = vec![
            story("A", &[], true),
            story("B", &["C"], false),
            story("C", &[], false),
        ];
        assert_eq!(remaining(&v), ["B TB", "C TC"]);
        let st = graph::states(&v);
        let skipped = BTreeMap::from([("C".to_string(), "no progress in 3 attempts".to_string())]);
        assert_eq!(
            not_runnable(&v, &st, &skipped),
            ["B: blocked by C", "C: skipped: no progress in 3 attempts"]
        );
    }
}
