//! The parallel scheduler's pure decisions: which ready stories to claim ([`select`]), which of
//! them wait for a predicted conflict ([`schedule`]; the dry run's [`waves`]), the file- and
//! ref-safe key and branch of a story ([`story_keys`], [`story_branch`]), and what a merge
//! attempt amounts to ([`merge_verdict`]). Runs nothing, reads no file, writes nothing: the
//! scheduler (`super`) and the git steps (`super::worktree`, `super::queue`) act on these.

use std::collections::HashSet;

use serde::Serialize;

use super::predict::{Overlap, Prediction, overlap};
use crate::graph::{self, State};
use crate::prd::Story;

/// The ready stories to claim now, in `ralph next` order (`--story ID` first when it is ready),
/// at most `free` of them, none of them in `busy` (claimed or held). Readiness is the main
/// tree's: a blocker counts only once it passes there, i.e. once it is merged.
pub(crate) fn select(
    stories: &[Story],
    states: &[State],
    busy: &HashSet<String>,
    free: usize,
    forced: Option<&str>,
) -> Vec<usize> {
    let mut ready = graph::ready_in_order(stories, states, busy);
    let forced = forced
        .and_then(|id| stories.iter().find(|s| s.id == id))
        .map(|s| s.index);
    if let Some(pos) = ready.iter().position(|&i| Some(i) == forced) {
        let first = ready.remove(pos);
        ready.insert(0, first);
    }
    ready.truncate(free);
    ready
}

/// A ready story kept back because it would likely conflict with a claim (or with a story
/// picked before it): with whom, and on which file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Wait {
    pub story: String,
    pub with: String,
    #[serde(flatten)]
    pub overlap: Overlap,
}

/// Of `ready` (story ids in [`select`] order), the ones to claim now: at most `free`, none
/// whose prediction overlaps by `threshold` or more (`None`: off) that of a live claim
/// (`live`) or of a story picked before it; and the waits, in order. `predict` is asked only
/// about the stories looked at (the live claims, and the ready ones until the slots are full).
pub(crate) fn schedule(
    ready: &[String],
    live: &[String],
    free: usize,
    threshold: Option<f64>,
    mut predict: impl FnMut(&str) -> Prediction,
) -> (Vec<String>, Vec<Wait>) {
    let Some(t) = threshold else {
        return (ready.iter().take(free).cloned().collect(), vec![]);
    };
    let mut held: Vec<(String, Prediction)> =
        live.iter().map(|id| (id.clone(), predict(id))).collect();
    let (mut picked, mut waits) = (vec![], vec![]);
    for id in ready {
        if picked.len() >= free {
            break;
        }
        let p = predict(id);
        let clash = held
            .iter()
            .filter_map(|(other, q)| Some((other, overlap(&p, q).filter(|o| o.score >= t)?)))
            .max_by(|a, b| a.1.score.total_cmp(&b.1.score));
        match clash {
            Some((with, overlap)) => waits.push(Wait {
                story: id.clone(),
                with: with.clone(),
                overlap,
            }),
            None => {
                picked.push(id.clone());
                held.push((id.clone(), p));
            }
        }
    }
    (picked, waits)
}

/// One wave of a dry run: the stories it would run at once, and those kept for a later wave
/// by a predicted conflict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Wave {
    pub stories: Vec<String>,
    pub waits: Vec<Wait>,
}

/// What `--dry-run --parallel K` shows: the run as waves, each wave the stories that would run
/// at once ([`select`] then [`schedule`]) supposing the wave before has merged.
pub(crate) fn waves(
    stories: &[Story],
    k: usize,
    threshold: Option<f64>,
    forced: Option<&str>,
    mut predict: impl FnMut(&str) -> Prediction,
) -> Vec<Wave> {
    let mut stories = stories.to_vec();
    let mut out = Vec::new();
    loop {
        let states = graph::states(&stories);
        let ready: Vec<String> = select(&stories, &states, &HashSet::new(), usize::MAX, forced)
            .into_iter()
            .map(|i| stories[i].id.clone())
            .collect();
        let (picked, waits) = schedule(&ready, &[], k, threshold, &mut predict);
        if picked.is_empty() {
            return out;
        }
        for s in stories.iter_mut().filter(|s| picked.contains(&s.id)) {
            s.passes = true;
        }
        out.push(Wave {
            stories: picked,
            waits,
        });
    }
}

pub(crate) use crate::kept::{story_branch, story_keys};

/// What the merge queue observed about one merge, step by step (`None`: not reached).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MergeFacts {
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
pub(crate) enum SendBack {
    Conflict(Vec<String>),
    VerifyFailed,
}

/// Why the queue stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pause {
    BranchMoved,
    TreeDirty(Vec<String>),
}

/// The decision on a merge so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MergeVerdict {
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
pub(crate) fn merge_verdict(f: &MergeFacts) -> MergeVerdict {
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

    /// Predictions: A and B both name f.rs; C names g.rs; D predicts nothing.
    fn pred(id: &str) -> Prediction {
        let named: &[&str] = match id {
            "A" | "B" => &["f.rs"],
            "C" => &["g.rs"],
            _ => &[],
        };
        let named: Vec<String> = named.iter().map(|s| s.to_string()).collect();
        Prediction::new(&named, &[])
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_story_predicted_to_touch_a_claims_file_waits() {
        let ready = strings(&["A", "B", "C", "D"]);
        let (picked, waits) = schedule(&ready, &[], 3, Some(0.5), pred);
        assert_eq!(picked, ["A", "C", "D"]);
        assert_eq!(waits.len(), 1);
        assert_eq!(
            (waits[0].story.as_str(), waits[0].with.as_str()),
            ("B", "A")
        );
        assert_eq!(waits[0].overlap.file, "f.rs");
        // A live claim holds its file too; off, nothing waits.
        let (picked, waits) = schedule(&strings(&["B", "D"]), &strings(&["A"]), 2, Some(0.5), pred);
        assert_eq!((picked, waits[0].with.as_str()), (strings(&["D"]), "A"));
        let (picked, waits) = schedule(&ready, &[], 2, None, pred);
        assert_eq!((picked, waits.len()), (strings(&["A", "B"]), 0));
        // Above the overlap: nothing waits; no free slot: nobody is looked at.
        assert!(schedule(&ready, &[], 4, Some(1.01), pred).1.is_empty());
        assert!(
            schedule(&ready, &[], 0, Some(0.5), |_| unreachable!())
                .0
                .is_empty()
        );
    }

    #[test]
    fn the_dry_run_plans_waves_that_keep_predicted_conflicts_apart() {
        let s = stories(&[
            ("A", 1, &[], false),
            ("B", 2, &[], false),
            ("C", 3, &[], false),
            ("D", 4, &["C"], false),
        ]);
        let w = waves(&s, 4, Some(0.5), None, pred);
        let ids: Vec<Vec<String>> = w.iter().map(|w| w.stories.clone()).collect();
        assert_eq!(ids, [strings(&["A", "C"]), strings(&["B", "D"])]);
        assert_eq!(w[0].waits[0].story, "B");
        assert!(w[1].waits.is_empty());
        let w = waves(&s, 4, None, None, pred);
        assert_eq!(w[0].stories, strings(&["A", "B", "C"]));
        assert_eq!(waves(&s, 1, None, Some("C"), pred)[0].stories, ["C"]);
    }

    /// The verdict on `f` is `v`.
    fn check(f: &MergeFacts, v: MergeVerdict) {
        assert_eq!(merge_verdict(f), v);
    }

    #[test]
    fn merge_verdicts_follow_the_steps() {
        let ok = MergeFacts {
            branch_at_tip: true,
            ..MergeFacts::default()
        };
        check(&ok, MergeVerdict::Proceed);
        let moved = MergeFacts::default();
        check(&moved, MergeVerdict::Pause(Pause::BranchMoved));
        let dirty = MergeFacts {
            dirty: vec!["x".into()],
            ..ok.clone()
        };
        check(
            &dirty,
            MergeVerdict::Pause(Pause::TreeDirty(vec!["x".into()])),
        );
        let conflict = MergeFacts {
            conflicts: Some(vec!["f.txt".into()]),
            ..ok.clone()
        };
        let sent_back = SendBack::Conflict(vec!["f.txt".into()]);
        check(&conflict, MergeVerdict::SentBack(sent_back));
        let failed = MergeFacts {
            conflicts: Some(vec![]),
            verify_passed: Some(false),
            ..ok.clone()
        };
        check(&failed, MergeVerdict::SentBack(SendBack::VerifyFailed));
        let lost_race = MergeFacts {
            conflicts: Some(vec![]),
            verify_passed: Some(true),
            advanced: Some(false),
            ..ok.clone()
        };
        check(&lost_race, MergeVerdict::Pause(Pause::BranchMoved));
        let merged = MergeFacts {
            conflicts: Some(vec![]),
            fast_forward: true,
            advanced: Some(true),
            ..ok.clone()
        };
        check(&merged, MergeVerdict::Merged { fast_forward: true });
        let stopped = MergeFacts {
            interrupted: true,
            ..merged
        };
        check(&stopped, MergeVerdict::Abort);
    }
}
