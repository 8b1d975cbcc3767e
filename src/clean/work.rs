//! The git side of `ralph clean`: the work ralph keeps in git ([`crate::kept`]). Worktrees a
//! killed run left under `.ralph/worktrees/` are saved, then removed (never a worktree
//! anywhere else); the refs keeping work (story branches of prd.json's `branchName`, attempt
//! refs) that `branchName` already contains are deleted, since nothing becomes unreachable;
//! every other one is kept and listed with why, unless the person names it with `--drop`.
//! The policy is [`crate::kept::decide`]; this file does the I/O and says what happened.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::kept::git as kgit;
use crate::kept::{Fate, Kept};
use crate::prd::Prd;

/// `--drop` named something that is not kept work.
#[derive(Debug, thiserror::Error)]
#[error(
    "--drop {names}: no such kept work (a story id, a story branch or an attempt ref); nothing was cleaned. `ralph clean --dry-run` lists what is kept"
)]
pub(crate) struct UnknownDrop {
    pub names: String,
}

impl crate::problem::Coded for UnknownDrop {
    fn problem(&self) -> Option<crate::problem::Problem> {
        Some(crate::problem::Problem::new("unknown-kept", ""))
    }
}

/// What the git side of a clean found and did (or would, in a dry run).
#[derive(Debug, Clone, Default)]
pub(crate) struct Work {
    /// prd.json's `branchName` (none: no refs were looked at).
    pub branch: Option<String>,
    /// Stale worktrees of ralph's: what became of each (or would).
    pub worktrees: Vec<(PathBuf, String)>,
    /// Refs `branchName` contains: deleted (nothing lost).
    pub deleted: Vec<Kept>,
    /// Refs with work `branchName` lacks, kept, with why.
    pub kept: Vec<(Kept, String)>,
    /// Refs with unmerged work deleted because `--drop` named them.
    pub dropped: Vec<Kept>,
    /// Refs that could not be deleted, with why.
    pub failed: Vec<(Kept, String)>,
}

/// The story keys of `prd` (key → id), as a parallel run names its branches.
fn keys(prd: &Prd) -> HashMap<String, String> {
    let ids: Vec<&str> = prd.stories.iter().map(|s| s.id.as_str()).collect();
    crate::kept::story_keys(&ids)
        .into_iter()
        .zip(ids.iter().map(|s| s.to_string()))
        .collect()
}

/// Clean ralph's kept work in the project at `root` (see the module doc). `prd`: prd.json,
/// when it could be read (without it no ref is looked at, and `--drop` cannot be honoured).
/// A `--drop` name that matches nothing stops the clean before anything is done.
pub(crate) fn clean(
    root: &Path,
    prd: Option<&Prd>,
    drop: &[String],
    dry_run: bool,
) -> Result<Work, UnknownDrop> {
    let mut work = Work::default();
    let branch = prd
        .and_then(|p| p.value.get("branchName"))
        .and_then(|b| b.as_str())
        .filter(|b| !b.trim().is_empty());
    let Some((prd, branch)) = prd.zip(branch) else {
        if !drop.is_empty() {
            return Err(UnknownDrop {
                names: drop.join(", "),
            });
        }
        return Ok(work);
    };
    let items = kgit::list(root, branch, &keys(prd));
    let unknown = crate::kept::unmatched(&items, drop);
    if !unknown.is_empty() {
        return Err(UnknownDrop {
            names: unknown.join(", "),
        });
    }
    work.branch = Some(branch.to_string());
    let busy = retire_all(root, branch, dry_run, &mut work);
    // Saving a worktree may have moved a story branch: look again.
    let items = match dry_run || work.worktrees.is_empty() {
        true => items,
        false => kgit::list(root, branch, &keys(prd)),
    };
    let passing: HashSet<String> = prd
        .stories
        .iter()
        .filter(|s| s.passes)
        .map(|s| s.id.clone())
        .collect();
    let fates = crate::kept::decide(&items, &passing, drop);
    for (k, fate) in items.into_iter().zip(fates) {
        // A dry run has not saved the stale worktrees: their branches are not judged yet.
        if dry_run && busy.contains(&k.name) {
            let text =
                "checked out in a stale worktree: what it holds is saved on it first, then judged";
            work.kept.push((k, text.to_string()));
        } else {
            judge(root, branch, k, fate, dry_run, &mut work);
        }
    }
    Ok(work)
}

/// Save, then remove, the worktrees a killed run left (a dry run only lists them); the
/// branches they have checked out.
fn retire_all(root: &Path, branch: &str, dry_run: bool, work: &mut Work) -> HashSet<String> {
    let dir = crate::state::worktrees_dir(root);
    let stale = kgit::ralph_worktrees(root, &dir);
    let busy: HashSet<String> = stale.iter().filter_map(|w| w.branch.clone()).collect();
    // A dry run takes no lock: a running `ralph run` may own these worktrees.
    let running = crate::state::lock::holder(root).filter(|p| crate::state::lock::pid_alive(p));
    for w in stale {
        let said = if let (true, Some(pid)) = (dry_run, &running) {
            format!("in use by the running ralph (pid {pid}): left alone")
        } else if dry_run {
            "would be saved, then removed".to_string()
        } else {
            let grace = std::time::Duration::from_secs(2);
            kgit::retire_stale(root, &w, branch, grace).join("; ")
        };
        work.worktrees.push((w.path, said));
    }
    busy
}

/// Delete, keep or drop ref `k` as `fate` says (a dry run only says).
fn judge(root: &Path, branch: &str, k: Kept, fate: Fate, dry_run: bool, work: &mut Work) {
    if let Fate::Keep(why) = fate {
        let text = why.text(&k, branch);
        work.kept.push((k, text));
        return;
    }
    let done = if dry_run {
        Ok(())
    } else {
        kgit::delete(root, &k)
    };
    match done {
        Err(e) => work.failed.push((k, e.to_string())),
        Ok(()) if fate == Fate::Drop => work.dropped.push(k),
        Ok(()) => work.deleted.push(k),
    }
}

/// The text of the git side: the worktrees retired, the refs deleted, kept (with why) and
/// dropped; nothing when there was nothing.
pub(crate) fn text(w: &Work, dry_run: bool) -> String {
    let mut out = String::new();
    let branch = w.branch.as_deref().unwrap_or("the branch");
    if !w.worktrees.is_empty() {
        out.push_str("stale worktrees of ralph's (their work saved first):\n");
        for (p, said) in &w.worktrees {
            out.push_str(&format!("  {}: {said}\n", p.display()));
        }
    }
    let verb = if dry_run { "would delete" } else { "deleted" };
    if !w.deleted.is_empty() {
        out.push_str(&format!(
            "{verb} {} ref(s) {branch} already contains:\n",
            w.deleted.len()
        ));
        for k in &w.deleted {
            out.push_str(&format!("  {}\n", k.short()));
        }
    }
    if !w.kept.is_empty() {
        out.push_str(&format!(
            "kept {} ref(s) with work {branch} lacks (`ralph clean --drop NAME` deletes one: the ref, or a story id for all of its refs):\n",
            w.kept.len()
        ));
        for (k, why) in &w.kept {
            out.push_str(&format!(
                "  {} at {:.10} \"{}\": {why}\n",
                k.short(),
                k.commit,
                k.subject
            ));
        }
    }
    let verb = if dry_run { "would drop" } else { "dropped" };
    for k in &w.dropped {
        out.push_str(&format!(
            "{verb} {} at {:.10} ({} commit(s) {branch} lacks; `git update-ref {} {}` puts it back while git still has the commit)\n",
            k.short(),
            k.commit,
            k.ahead,
            k.name,
            k.commit
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_says_what_was_kept_and_why() {
        let k = |name: &str, ahead| Kept {
            name: name.into(),
            kind: crate::kept::Kind::StoryBranch,
            commit: "0123456789abcdef".into(),
            subject: "work".into(),
            story: Some("A".into()),
            ahead,
        };
        let w = Work {
            branch: Some("ralph/x".into()),
            worktrees: vec![(PathBuf::from(".ralph/worktrees/A"), "removed".into())],
            deleted: vec![k("refs/heads/ralph/x--B", 0)],
            kept: vec![(k("refs/heads/ralph/x--A", 2), "resumed next".into())],
            dropped: vec![k("refs/heads/ralph/x--C", 1)],
            failed: vec![],
        };
        let t = text(&w, false);
        assert!(t.contains("  .ralph/worktrees/A: removed\n"), "{t}");
        assert!(
            t.contains("deleted 1 ref(s) ralph/x already contains:\n  ralph/x--B\n"),
            "{t}"
        );
        assert!(
            t.contains("  ralph/x--A at 0123456789 \"work\": resumed next\n"),
            "{t}"
        );
        assert!(
            t.contains("dropped ralph/x--C at 0123456789 (1 commit(s) ralph/x lacks; `git update-ref refs/heads/ralph/x--C 0123456789abcdef`"),
            "{t}"
        );
        assert!(text(&Work::default(), false).is_empty());
    }
}
