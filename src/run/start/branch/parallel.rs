//! A parallel run's start (`ralph run --parallel K`): the sequential loop's start (the parent
//! module's [`super::prepare`]), except that a person's uncommitted changes are refused whatever
//! `--allow-dirty` says (the merges happen in the main tree), and that prd.json and
//! progress.txt, when they are the only uncommitted files, are committed on the branch: a
//! worktree holds only committed files.

use std::path::{Path, PathBuf};

use super::{
    BranchError, Event, Inspection, Own, absolute, changed_notes, git, inspect, parse_status,
    prepare, repo_path, text,
};
use crate::prd::Prd;
use crate::run::error::RunError;

/// A parallel run's start: the sequential loop's ([`prepare`]: `branchName` checked out or
/// created), except that uncommitted changes of the person's are refused whatever
/// `--allow-dirty` says (the merges happen in this tree); then prd.json and progress.txt, when
/// uncommitted, committed on the branch (a worktree holds only what is committed, and the
/// sequential loop's agent would have committed them with its work). Returns what to report
/// and prd.json as the branch has it.
pub(crate) fn prepare_parallel(root: &Path, prd: &Prd) -> Result<(Vec<Event>, Prd), RunError> {
    if let Ok(Inspection::Inside { dirty, .. } | Inspection::NoBranch { dirty }) =
        inspect(root, prd)
        && !dirty.is_empty()
    {
        return Err(BranchError::DirtyParallel {
            root: absolute(root),
            entries: dirty,
        }
        .into());
    }
    let mut events = prepare(root, prd, false)?;
    let mut after = Prd::load(&prd.path)?;
    if after.to_pretty() != prd.to_pretty() {
        events.extend(changed_notes(&prd.path, prd, &after));
    }
    if let Some(note) = commit_own(&absolute(root), prd)? {
        events.push(note);
        after = Prd::load(&prd.path)?;
    }
    Ok((events, after))
}

/// Commit prd.json and progress.txt on the checked-out branch when they are uncommitted
/// (nothing else); what to say when it did.
fn commit_own(root: &Path, prd: &Prd) -> Result<Option<Event>, BranchError> {
    let Ok(out) = git::output(root, &["rev-parse", "--show-prefix"]) else {
        return Ok(None);
    };
    let own = Own {
        root: text(&out.stdout),
        prd: repo_path(root, &prd.path),
    };
    let status = ["status", "--porcelain", "-z", "--untracked-files=all"];
    let dirty = git::output(root, &status).map(|o| parse_status(&o.stdout));
    let progress = format!("{}progress.txt", own.root);
    let mine: Vec<String> = dirty
        .unwrap_or_default()
        .into_iter()
        .filter(|e| own.prd.as_deref() == Some(e.path.as_str()) || e.path == progress)
        .map(|e| e.path)
        .collect();
    if mine.is_empty() {
        return Ok(None);
    }
    let top = git::output(root, &["rev-parse", "--show-toplevel"])
        .map(|o| PathBuf::from(text(&o.stdout)))
        .unwrap_or_else(|_| root.to_path_buf());
    let message = "ralph: prd.json and progress.txt as the parallel run starts";
    let mut add = vec!["add", "-A", "--"];
    add.extend(mine.iter().map(String::as_str));
    let mut commit = vec!["commit", "-q", "--no-verify", "-m", message, "--"];
    commit.extend(mine.iter().map(String::as_str));
    for args in [add, commit] {
        let fail = |why: String| BranchError::Git {
            root: top.clone(),
            args: args.join(" "),
            why,
        };
        let out = git::output(&top, &args).map_err(|e| fail(e.to_string()))?;
        if !out.status.success() {
            return Err(fail(text(&out.stderr)));
        }
    }
    Ok(Some(Event::Note {
        text: format!(
            "committed {} on the branch: a parallel run's worktrees hold only committed files",
            mine.join(", ")
        ),
    }))
}
