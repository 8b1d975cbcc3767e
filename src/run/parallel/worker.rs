//! One attempt of a claimed story on a worker thread: make the story's worktree (first
//! attempt: fresh, or resumed on the branch an earlier run left, which its prompt says), give
//! it a copy of the main history (the prompt shows what blockers produced), run
//! `iteration::run_one` with the worktree as its root, and commit what a gated agent left.
//! Owns no scheduling state and writes nothing in the main tree.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::worktree;
use crate::prd::{Prd, Story};
use crate::run::iteration;
use crate::run::iteration::outcome::{Outcome, Progress};
use crate::run::iteration::prompt::RetryNote;
use crate::run::options::{Options, PrdSnapshot};
use crate::state::history::Record;
use crate::state::state_dir;

/// One attempt for a worker thread (owned: it outlives no borrow of the scheduler).
pub(super) struct Job {
    pub(super) id: String,
    pub(super) opts: Options,
    pub(super) run_id: String,
    pub(super) run_dir: PathBuf,
    pub(super) n: u32,
    pub(super) attempt: u32,
    pub(super) retry: Option<RetryNote>,
    /// The first attempt makes the worktree (on the worker: K of them at once).
    pub(super) make: Option<MakeWorktree>,
    /// The main tree's history.jsonl, copied into the worktree for the prompt.
    pub(super) history: PathBuf,
    /// The review round a gated attempt gets (`--review`), and the story's base commit.
    pub(super) review_round: u32,
    pub(super) base: String,
}

/// A worktree to make before the first attempt.
pub(super) struct MakeWorktree {
    pub(super) root: PathBuf,
    pub(super) branch: String,
    pub(super) tip: String,
}

pub(super) struct AttemptDone {
    pub(super) outcome: Outcome,
    pub(super) progress: Option<Progress>,
    pub(super) record: Record,
    pub(super) retry: Option<RetryNote>,
    pub(super) rate_line: Option<String>,
    /// The learned error patterns its prompt showed (the scheduler counts their uses).
    pub(super) patterns_used: Vec<String>,
    /// The agent never got going (outcome `StartFailed`).
    pub(super) start_failure: Option<crate::agent::detect::StartFailure>,
    /// The worktree resumed a story branch an earlier run left: where that branch forked (the
    /// claim's base from now on).
    pub(super) resumed: Option<String>,
}

/// One attempt in a worktree: `iteration::run_one`, then (when gated) what the agent left is
/// committed, so what merges is what the gate verified.
pub(super) fn work(job: &Job, stop: &AtomicBool) -> Result<AttemptDone, String> {
    let wt = &job.opts.root;
    let (start, resumed) = match &job.make {
        Some(m) => make_worktree(m, wt, job.attempt)?,
        None => (None, None),
    };
    let retry = start.or_else(|| job.retry.clone());
    let base = resumed.clone().unwrap_or_else(|| job.base.clone());
    // A resumed branch forked from an older tip: its agent is told that base.
    let resumed_opts = resumed.as_ref().map(|b| with_base(&job.opts, b));
    let opts = resumed_opts.as_ref().unwrap_or(&job.opts);
    copy_memory(wt, &job.history);
    let (snapshot, story) = story_in(&opts.prd_path, &job.id)?;
    let done = iteration::run_one(iteration::Attempt {
        opts,
        run_id: &job.run_id,
        run_dir: &job.run_dir,
        interrupt: stop,
        prd: &snapshot,
        story: &story,
        n: job.n,
        attempt: job.attempt,
        retry: retry.as_ref(),
        before: None,
        review_round: job.review_round,
        review_base: Some(&base),
    })
    .map_err(|e| e.to_string())?;
    if done.outcome == Outcome::Done {
        let msg = format!("ralph: {}: commit what the agent left", job.id);
        worktree::commit_all(&job.opts.root, &msg).map_err(|e| e.to_string())?;
    }
    Ok(AttemptDone {
        outcome: done.outcome,
        progress: done.progress,
        record: done.record,
        retry: done.retry,
        rate_line: done.rate_line,
        patterns_used: done.patterns_used,
        start_failure: done.start_failure,
        resumed,
    })
}

/// Make the worktree `wt` (see [`worktree::add`]) for the first attempt (`attempt`): what its
/// prompt is told about the work an earlier run left, and where a resumed branch forked.
fn make_worktree(
    m: &MakeWorktree,
    wt: &Path,
    attempt: u32,
) -> Result<(Option<RetryNote>, Option<String>), String> {
    let start = worktree::add(&m.root, wt, &m.branch, &m.tip)
        .map_err(|e| format!("cannot make its worktree: {e}"))?;
    let note = start_note(&start, attempt, &m.tip);
    let resumed = match start {
        worktree::Start::Resumed { base, .. } => Some(base),
        _ => None,
    };
    Ok((note, resumed))
}

/// The prompt shows what blockers produced from history: give the worktree `wt` a copy of the
/// main tree's `history` (and of the learned error patterns beside it: ralph's own copy, gone
/// when the main tree's is).
fn copy_memory(wt: &Path, history: &Path) {
    let wt_state = state_dir(wt);
    if crate::fsutil::create_dir_all(&wt_state).is_ok() {
        let _ = std::fs::copy(history, wt_state.join("history.jsonl"));
        let patterns = history.with_file_name("patterns.jsonl");
        let copy = wt_state.join("patterns.jsonl");
        if std::fs::copy(&patterns, &copy).is_err() {
            let _ = std::fs::remove_file(&copy);
        }
    }
}

/// The worktree's prd.json (`prd_path`) as the attempt starts, and its story `id`.
fn story_in(prd_path: &Path, id: &str) -> Result<(PrdSnapshot, Story), String> {
    let bytes = crate::fsutil::read(prd_path).map_err(|e| e.to_string())?;
    let prd = Prd::from_bytes(prd_path, &bytes).map_err(|e| e.to_string())?;
    let story = prd
        .story(id)
        .cloned()
        .ok_or_else(|| format!("{id} is not in the worktree's prd.json"))?;
    Ok((PrdSnapshot::new(prd, bytes), story))
}

/// `opts` with `RALPH_BASE` = `base`.
fn with_base(opts: &Options, base: &str) -> Options {
    let mut o = opts.clone();
    o.env.retain(|(k, _)| k != "RALPH_BASE");
    o.env.push(("RALPH_BASE".into(), base.to_string()));
    o
}

/// What the first prompt of a claim says about the work an earlier run left: resumed (its
/// commits are in the worktree), or kept under an attempt ref when it could not be.
fn start_note(start: &worktree::Start, attempt: u32, tip: &str) -> Option<RetryNote> {
    let reason = match start {
        worktree::Start::Fresh => return None,
        worktree::Start::Resumed { base, commits } => format!(
            "an earlier run stopped before this story was merged (interrupted or killed). You are resuming its work: this worktree's branch already holds its commits on top of {base:.12}, newest first:\n{}\nA commit named \"ralph: work left ...\" holds files that were not committed when it stopped (not verified). Continue from there: check what is done against the acceptance criteria, finish the rest, and do not redo what is already there",
            commits
                .iter()
                .map(|c| format!("  {c}"))
                .collect::<Vec<_>>()
                .join("\n")
        ),
        worktree::Start::Kept { at, why } => format!(
            "an earlier run left unmerged work for this story that could not be resumed ({why}); it is kept at {at} (`git diff {tip:.12}..{at}` shows it against the current tip, `git cherry-pick` can replay it). Reuse what still applies"
        ),
    };
    Some(RetryNote {
        attempt: attempt.saturating_sub(1),
        reason,
        output_tail: None,
        failure: None,
    })
}
