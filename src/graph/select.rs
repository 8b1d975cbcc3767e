//! Story states and the next-story rule, as pure functions.
//!
//! A story is `Ready` when it does not pass, is not removed, and every blocker passes. The next
//! story is the ready one with the lowest `priority`; ties go to the earlier one in the file.

use serde::Serialize;
use std::collections::{HashMap, HashSet};

use crate::prd::Story;

/// Why a blocker holds a story back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Blocker {
    /// The blocker exists and does not pass yet.
    NotDone { id: String },
    /// The blocker is removed: it will never pass.
    Removed { id: String },
    /// No story has that id (validation reports it).
    Unknown { id: String },
    /// The story names itself.
    SelfRef { id: String },
}

impl std::fmt::Display for Blocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Blocker::NotDone { id } => write!(f, "{id}"),
            Blocker::Removed { id } => write!(f, "{id} (removed)"),
            Blocker::Unknown { id } => write!(f, "{id} (unknown id)"),
            Blocker::SelfRef { id } => write!(f, "{id} (itself)"),
        }
    }
}

/// The state of one story.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum State {
    Done,
    Ready,
    Blocked { unmet: Vec<Blocker> },
    Removed,
}

impl State {
    pub fn name(&self) -> &'static str {
        match self {
            State::Done => "done",
            State::Ready => "ready",
            State::Blocked { .. } => "blocked",
            State::Removed => "removed",
        }
    }
}

/// The state of every story, in file order.
pub fn states(stories: &[Story]) -> Vec<State> {
    let by_id: HashMap<&str, &Story> = stories.iter().rev().map(|s| (s.id.as_str(), s)).collect();
    stories
        .iter()
        .map(|s| {
            if s.removed {
                return State::Removed;
            }
            if s.passes {
                return State::Done;
            }
            let unmet: Vec<Blocker> = s
                .blocked_by
                .iter()
                .filter_map(|dep| {
                    let id = dep.clone();
                    if *dep == s.id {
                        return Some(Blocker::SelfRef { id });
                    }
                    match by_id.get(dep.as_str()) {
                        None => Some(Blocker::Unknown { id }),
                        Some(b) if b.removed => Some(Blocker::Removed { id }),
                        Some(b) if !b.passes => Some(Blocker::NotDone { id }),
                        Some(_) => None,
                    }
                })
                .collect();
            if unmet.is_empty() {
                State::Ready
            } else {
                State::Blocked { unmet }
            }
        })
        .collect()
}

/// THE selection rule: the ready stories not in `skip`, in the order they run (lowest priority
/// first, ties by file order). [`next_ready`] takes its first; a parallel run claims from its
/// front. Changing how the next story is picked means changing this function, and only it.
pub(crate) fn ready_in_order(
    stories: &[Story],
    states: &[State],
    skip: &HashSet<String>,
) -> Vec<usize> {
    let mut ready: Vec<&Story> = stories
        .iter()
        .zip(states)
        .filter(|(s, st)| **st == State::Ready && !skip.contains(&s.id))
        .map(|(s, _)| s)
        .collect();
    ready.sort_by_key(|s| (s.priority, s.index));
    ready.into_iter().map(|s| s.index).collect()
}

/// The index of the story to run next: the first of [`ready_in_order`].
pub fn next_ready(stories: &[Story], states: &[State], skip: &HashSet<String>) -> Option<usize> {
    ready_in_order(stories, states, skip).first().copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fixtures::{indexed, s};

    #[test]
    fn lowest_priority_ready_story_wins_ties_by_file_order() {
        let mut v = indexed(vec![s("A", &[]), s("B", &[]), s("C", &[])]);
        v[0].priority = 3;
        v[1].priority = 2;
        v[2].priority = 2;
        let st = states(&v);
        assert_eq!(next_ready(&v, &st, &HashSet::new()), Some(1));
        let skip = HashSet::from(["B".to_string()]);
        assert_eq!(next_ready(&v, &st, &skip), Some(2));
    }

    #[test]
    fn blockers_must_pass() {
        let mut v = indexed(vec![s("A", &[]), s("B", &["A"]), s("C", &["B", "Z"])]);
        v[0].priority = 9;
        let st = states(&v);
        assert_eq!(st[0], State::Ready);
        assert_eq!(
            st[1],
            State::Blocked {
                unmet: vec![Blocker::NotDone { id: "A".into() }]
            }
        );
        assert_eq!(
            st[2],
            State::Blocked {
                unmet: vec![
                    Blocker::NotDone { id: "B".into() },
                    Blocker::Unknown { id: "Z".into() }
                ]
            }
        );
        assert_eq!(next_ready(&v, &st, &HashSet::new()), Some(0));
        v[0].passes = true;
        let st = states(&v);
        assert_eq!(st[0], State::Done);
        assert_eq!(next_ready(&v, &st, &HashSet::new()), Some(1));
    }

    #[test]
    fn removed_blockers_never_satisfy_and_removed_stories_never_run() {
        let mut v = indexed(vec![s("A", &[]), s("B", &["A"])]);
        v[0].removed = true;
        let st = states(&v);
        assert_eq!(st[0], State::Removed);
        assert_eq!(
            st[1],
            State::Blocked {
                unmet: vec![Blocker::Removed { id: "A".into() }]
            }
        );
        assert_eq!(next_ready(&v, &st, &HashSet::new()), None);
    }
}
