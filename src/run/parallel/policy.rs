//! The parallel scheduler's pure decisions: which ready stories to claim ([`select`]), the
//! file- and ref-safe key and branch of a story ([`story_keys`], [`story_branch`]), and what a
//! merge attempt amounts to ([`merge_verdict`]). Runs nothing, reads no file, writes nothing:
//! the scheduler (`super`) and the git steps (`super::worktree`, `super::queue`) act on these.

use std::collections::HashSet;

use crate::graph::{self, State};
use crate::prd::Story;

/// The ready stories to claim now, in `ralph next` order (`--story ID` first when it is ready),
/// at most `free` of them, none of them in `busy` (claimed or held). Readiness is the main
/// tree's: a blocker counts only once it passes there, i.e. once it is merged.
pub fn select(
    stories: &[Story],
    states: &[State],
    busy: &HashSet<String>,
    free: usize,
    forced: Option<&str>,
) -> Vec<usize> {
    let mut skip = busy.clone();
    let mut out = Vec::new();
    if let Some(id) = forced
        && out.len() < free
        && !skip.contains(id)
        && let Some(s) = stories.iter().find(|s| s.id == id)
        && states.get(s.index) == Some(&State::Ready)
    {
        out.push(s.index);
        skip.insert(id.to_string());
    }
    while out.len() < free {
        let Some(i) = graph::next_ready(stories, states, &skip) else {
            break;
        };
        skip.insert(stories[i].id.clone());
        out.push(i);
    }
    out
}

pub use crate::kept::{story_branch, story_keys};

/// What the merge queue observed about one merge, step by step (`None`: not reached).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeFacts {
    /// `branchName` still points at the tip ralph last set, and HEAD is on it.
    pub branch_at_tip: bool,
    /// Paths the main tree has changed that ralph did not change.
    pub dirty: Vec<String>,
    /// Conflicted paths other than prd.json and progress.txt (ralph resolves those itself).
    pub conflicts: Option<Vec<String>>,
    /// The tip is an ancestor of the story branch: nothing was merged since its base.
    pub fast_forward: bool,
    /// The verify commands on the merged result (`None`: not run, e.g. a fast-forward).
    pub verify_passed: Option<bool>,
    /// Ctrl-C / SIGTERM / SIGHUP arrived during the merge.
    pub interrupted: bool,
    /// The compare-and-swap that advances the branch (`None`: not tried yet).
    pub advanced: Option<bool>,
}

/// Why a story goes back to its agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendBack {
    Conflict(Vec<String>),
    VerifyFailed,
}

/// Why the queue stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pause {
    BranchMoved,
    TreeDirty(Vec<String>),
}

/// The decision on a merge so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeVerdict {
    /// Nothing stops it yet: do the next step.
    Proceed,
    Merged {
        fast_forward: bool,
    },
    SentBack(SendBack),
    Pause(Pause),
    /// Interrupted: abort the merge, leave the tip as it was.
    Abort,
}

/// Decide a merge from what is known so far (see [`MergeFacts`]); the queue asks after each
/// step and stops at the first verdict that is not [`MergeVerdict::Proceed`].
pub fn merge_verdict(f: &MergeFacts) -> MergeVerdict {
    if f.interrupted {
        return MergeVerdict::Abort;
    }
    if !f.branch_at_tip || f.advanced == Some(false) {
        return MergeVerdict::Pause(Pause::BranchMoved);
    }
    if !f.dirty.is_empty() {
        return MergeVerdict::Pause(Pause::TreeDirty(f.dirty.clone()));
    }
    if let Some(c) = &f.conflicts
        && !c.is_empty()
    {
        return MergeVerdict::SentBack(SendBack::Conflict(c.clone()));
    }
    if f.verify_passed == Some(false) {
        return MergeVerdict::SentBack(SendBack::VerifyFailed);
    }
    if f.advanced == Some(true) {
        return MergeVerdict::Merged {
            fast_forward: f.fast_forward,
        };
    }
    MergeVerdict::Proceed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stories(spec: &[(&str, u32, &[&str], bool)]) -> Vec<Story> {
        let v: Vec<serde_json::Value> = spec
            .iter()
            .map(|(id, p, deps, passes)| {
                serde_json::json!({"id": id, "title": id, "priority": p, "passes": passes,
                    "blockedBy": deps})
            })
            .collect();
        v.iter()
            .enumerate()
            .map(|(i, x)| Story::from_value(i, x))
            .collect()
    }

    fn ids(s: &[Story], picked: &[usize]) -> Vec<String> {
        picked.iter().map(|&i| s[i].id.clone()).collect()
    }

    #[test]
    fn select_takes_ready_stories_in_next_order_up_to_the_free_slots() {
        let s = stories(&[
            ("A", 2, &[], false),
            ("B", 1, &[], false),
            ("C", 3, &["A"], false),
            ("D", 3, &[], true),
            ("E", 4, &[], false),
        ]);
        let st = graph::states(&s);
        let none = HashSet::new();
        assert_eq!(ids(&s, &select(&s, &st, &none, 2, None)), ["B", "A"]);
        assert_eq!(ids(&s, &select(&s, &st, &none, 9, None)), ["B", "A", "E"]);
        assert!(select(&s, &st, &none, 0, None).is_empty());
        // A claimed (or held) story is not picked again.
        let busy: HashSet<String> = ["B".to_string()].into();
        assert_eq!(ids(&s, &select(&s, &st, &busy, 2, None)), ["A", "E"]);
        // --story first, when ready.
        assert_eq!(ids(&s, &select(&s, &st, &none, 2, Some("E"))), ["E", "B"]);
        assert_eq!(ids(&s, &select(&s, &st, &none, 1, Some("C"))), ["B"]);
    }

    #[test]
    fn select_never_picks_a_story_whose_blocker_is_not_merged() {
        // A passes only in its worktree: the main tree still says false, so C waits.
        let s = stories(&[("A", 1, &[], false), ("C", 1, &["A"], false)]);
        let st = graph::states(&s);
        let busy: HashSet<String> = ["A".to_string()].into();
        assert!(select(&s, &st, &busy, 4, None).is_empty());
        let merged = stories(&[("A", 1, &[], true), ("C", 1, &["A"], false)]);
        let st = graph::states(&merged);
        assert_eq!(ids(&merged, &select(&merged, &st, &busy, 4, None)), ["C"]);
    }

    #[test]
    fn merge_verdicts_follow_the_steps() {
        let ok = MergeFacts {
            branch_at_tip: true,
            ..MergeFacts::default()
        };
        assert_eq!(merge_verdict(&ok), MergeVerdict::Proceed);
        let moved = MergeFacts::default();
        assert_eq!(
            merge_verdict(&moved),
            MergeVerdict::Pause(Pause::BranchMoved)
        );
        let dirty = MergeFacts {
            dirty: vec!["x".into()],
            ..ok.clone()
        };
        assert_eq!(
            merge_verdict(&dirty),
            MergeVerdict::Pause(Pause::TreeDirty(vec!["x".into()]))
        );
        let conflict = MergeFacts {
            conflicts: Some(vec!["f.txt".into()]),
            ..ok.clone()
        };
        assert_eq!(
            merge_verdict(&conflict),
            MergeVerdict::SentBack(SendBack::Conflict(vec!["f.txt".into()]))
        );
        let failed = MergeFacts {
            conflicts: Some(vec![]),
            verify_passed: Some(false),
            ..ok.clone()
        };
        assert_eq!(
            merge_verdict(&failed),
            MergeVerdict::SentBack(SendBack::VerifyFailed)
        );
        let lost_race = MergeFacts {
            conflicts: Some(vec![]),
            verify_passed: Some(true),
            advanced: Some(false),
            ..ok.clone()
        };
        assert_eq!(
            merge_verdict(&lost_race),
            MergeVerdict::Pause(Pause::BranchMoved)
        );
        let merged = MergeFacts {
            conflicts: Some(vec![]),
            fast_forward: true,
            advanced: Some(true),
            ..ok.clone()
        };
        assert_eq!(
            merge_verdict(&merged),
            MergeVerdict::Merged { fast_forward: true }
        );
        let stopped = MergeFacts {
            interrupted: true,
            ..merged
        };
        assert_eq!(merge_verdict(&stopped), MergeVerdict::Abort);
    }
}
