//! The git side of parallel runs outside the merge itself: the preconditions (HEAD on
//! `branchName`, prd.json committed, a clean tree, an identity), recovery of what a killed run
//! left (worktrees saved then removed, their agent groups, a half-done merge, merged story
//! branches), story worktrees (made fresh or resumed on the branch an earlier run left, commit
//! leftovers, reset onto a new tip, saved then removed) and attempt refs. Built on
//! [`crate::kept::git`], which saves what a worktree holds before anything removes it.
//! Decides nothing (that is `policy` and the scheduler) and never touches prd.json's content.

use std::path::Path;
use std::time::Duration;

pub(crate) use crate::kept::git::{GitError, Saved, dirty_paths, git, git_ok, is_ancestor, save};
use crate::kept::git::{keep_attempt, remove_worktree, resolve, worktrees_lock};

fn pre(what: impl Into<String>, fix: impl Into<String>) -> GitError {
    GitError::Precondition {
        what: what.into(),
        fix: fix.into(),
    }
}

/// Check what a parallel run needs (specs/parallel.md, section 3); the tip of `branch`.
pub(crate) fn preconditions(root: &Path, branch: &str, prd_rel: &str) -> Result<String, GitError> {
    if git(root, &["rev-parse", "--is-inside-work-tree"])
        .ok()
        .as_deref()
        != Some("true")
    {
        return Err(pre(
            format!("{} is not a git work tree", root.display()),
            "run `git init` and commit prd.json first",
        ));
    }
    if branch.is_empty() {
        return Err(pre(
            "prd.json has no branchName",
            "set \"branchName\" in prd.json (the branch the stories are merged into)",
        ));
    }
    head_on(root, branch)?;
    if git_ok(root, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]) {
        return Err(pre(
            "a merge is in progress in the main tree",
            "finish it (`git commit`) or abort it (`git merge --abort`)",
        ));
    }
    if !git_ok(root, &["ls-files", "--error-unmatch", "--", prd_rel]) {
        return Err(pre(
            format!("{prd_rel} is not committed (worktrees hold only tracked files)"),
            format!("run `git add {prd_rel} && git commit`"),
        ));
    }
    let dirty = dirty_paths(root)?;
    if !dirty.is_empty() {
        return Err(pre(
            format!(
                "the main tree has uncommitted changes ({})",
                dirty.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
            ),
            "commit or stash them (`git stash -u`); ralph merges stories there",
        ));
    }
    if !git_ok(root, &["var", "GIT_COMMITTER_IDENT"]) {
        return Err(pre(
            "git has no committer identity",
            "set one: `git config user.name …` and `git config user.email …`",
        ));
    }
    git(root, &["rev-parse", &format!("refs/heads/{branch}")])
}

/// HEAD is on `branch` (else: how to get there, switching to it or creating it).
fn head_on(root: &Path, branch: &str) -> Result<(), GitError> {
    let head = git(root, &["symbolic-ref", "-q", "HEAD"]).unwrap_or_default();
    if head != format!("refs/heads/{branch}") {
        let exists = git_ok(
            root,
            &[
                "rev-parse",
                "--verify",
                "-q",
                &format!("refs/heads/{branch}"),
            ],
        );
        let fix = if exists {
            format!("run `git switch {branch}` first")
        } else {
            format!("run `git switch -c {branch}` first")
        };
        return Err(pre(
            format!(
                "HEAD is {}, not prd.json's branchName {branch}",
                if head.is_empty() { "detached" } else { &head }
            ),
            fix,
        ));
    }
    Ok(())
}

/// Undo what a ralph killed outright left, losing nothing: each of ralph's worktrees retired
/// ([`crate::kept::git::retire_stale`]: its agent group stopped, what it holds saved, then
/// removed); a half-done merge of a story branch in the main tree ended; the story branches
/// `branch` already contains deleted. Worktrees elsewhere are never touched. Returns lines to
/// print.
pub(crate) fn recover(root: &Path, worktrees: &Path, branch: &str, grace: Duration) -> Vec<String> {
    let mut said = Vec::new();
    for w in crate::kept::git::ralph_worktrees(root, worktrees) {
        said.extend(crate::kept::git::retire_stale(root, &w, branch, grace));
    }
    // A merge of a story branch in the main tree: done when the branch has it, else aborted.
    if let Ok(mh) = git(root, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]) {
        let ours = story_branches(root, branch)
            .iter()
            .any(|b| resolve(root, b).as_deref() == Some(mh.as_str()));
        if ours {
            if is_ancestor(root, &mh, "HEAD") {
                let _ = git(root, &["merge", "--quit"]);
            } else {
                let _ = git(root, &["merge", "--abort"]);
            }
            said.push("ended the merge a killed run left in the main tree".into());
        }
    }
    let tip = format!("refs/heads/{branch}");
    for b in story_branches(root, branch) {
        if is_ancestor(root, &b, &tip) && git(root, &["branch", "-q", "-D", &b]).is_ok() {
            said.push(format!("deleted the merged story branch {b}"));
        }
    }
    said
}

/// The story branches of `branch` (`<branch>--*`).
fn story_branches(root: &Path, branch: &str) -> Vec<String> {
    let pattern = format!("refs/heads/{branch}--*");
    git(
        root,
        &["for-each-ref", "--format=%(refname:short)", &pattern],
    )
    .map(|o| o.lines().map(String::from).collect())
    .unwrap_or_default()
}

/// How a story's worktree was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Start {
    /// On a new story branch at the tip.
    Fresh,
    /// On the story branch an earlier run left with unmerged work: the agent continues it.
    /// `base`: where it forked from the branch; `commits`: its commits, newest first
    /// (`<short hash> <subject>`).
    Resumed { base: String, commits: Vec<String> },
    /// The earlier work could not be resumed (`why`): it is kept at `at`, and the story
    /// branch starts afresh at the tip.
    Kept { at: String, why: String },
}

/// Make the worktree `wt` for `story_branch`: resumed on the branch an earlier run left with
/// work `tip` does not contain, else fresh at `tip`. When the old branch cannot be resumed
/// (its history shares nothing with `tip`, or git refuses the checkout), its head is kept
/// under an attempt ref first, so the new branch loses nothing.
pub(crate) fn add(
    root: &Path,
    wt: &Path,
    story_branch: &str,
    tip: &str,
) -> Result<Start, GitError> {
    let _turn = worktrees_lock();
    if let Some(parent) = wt.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let p = wt.to_string_lossy().into_owned();
    let old = resolve(root, &format!("refs/heads/{story_branch}"));
    let Some(old) = old.filter(|o| !is_ancestor(root, o, tip)) else {
        git(
            root,
            &["worktree", "add", "-q", "-B", story_branch, &p, tip],
        )?;
        return Ok(Start::Fresh);
    };
    let why = match git(root, &["merge-base", &old, tip]) {
        Ok(base) => match git(root, &["worktree", "add", "-q", &p, story_branch]) {
            Ok(_) => {
                let range = format!("{base}..{old}");
                let log =
                    git(root, &["log", "-n", "20", "--format=%h %s", &range]).unwrap_or_default();
                let commits = log.lines().map(String::from).collect();
                return Ok(Start::Resumed { base, commits });
            }
            Err(e) => format!("git refused to check it out ({e})"),
        },
        Err(_) => format!("it shares no history with {tip:.12}"),
    };
    let at = keep_attempt(root, story_branch, &old)?;
    git(
        root,
        &["worktree", "add", "-q", "-B", story_branch, &p, tip],
    )?;
    Ok(Start::Kept { at, why })
}

/// Commit everything in `dir` that is not ignored, when anything is; whether a commit was made.
pub(crate) fn commit_all(dir: &Path, message: &str) -> Result<bool, GitError> {
    if dirty_paths(dir)?.is_empty() {
        return Ok(false);
    }
    git(dir, &["add", "-A"])?;
    git(dir, &["commit", "-q", "--no-verify", "-m", message])?;
    Ok(true)
}

/// Keep `commit` as the next attempt ref of `story_branch` (never overwriting one); its name.
pub(crate) fn save_attempt(
    root: &Path,
    story_branch: &str,
    commit: &str,
) -> Result<String, GitError> {
    keep_attempt(root, story_branch, commit)
}

/// Delete the attempt refs of `story_branch` that `tip` contains (once the story is merged);
/// the others hold work nowhere else and stay (`ralph clean` lists them).
pub(crate) fn delete_merged_attempts(root: &Path, story_branch: &str, tip: &str) {
    for (_, r, c) in crate::kept::git::attempts(root, story_branch) {
        if is_ancestor(root, &c, tip) {
            let _ = git(root, &["update-ref", "-d", &r, &c]);
        }
    }
}

/// Reset the worktree onto `tip` (ignored build output stays warm). Only for a worktree whose
/// work is kept elsewhere (an attempt ref): what it holds is dropped.
pub(crate) fn reset_onto(wt: &Path, tip: &str) -> Result<(), GitError> {
    let _ = git(wt, &["merge", "--abort"]);
    git(wt, &["reset", "-q", "--hard", tip])?;
    git(wt, &["clean", "-fdq"])?;
    Ok(())
}

/// Save what `wt` holds on `story_branch` (see [`save`]), then remove it; delete the branch
/// when `tip` contains it (nothing is lost). An error: the worktree is kept as it is.
pub(crate) fn retire_worktree(
    root: &Path,
    wt: &Path,
    story_branch: &str,
    message: &str,
    tip: &str,
) -> Result<Retired, GitError> {
    let saved = save(root, wt, story_branch, message)?;
    remove_worktree(root, wt)?;
    let merged = is_ancestor(root, &saved.head, tip)
        && resolve(root, &format!("refs/heads/{story_branch}"))
            .is_none_or(|b| is_ancestor(root, &b, tip));
    if merged {
        let _ = git(root, &["branch", "-q", "-D", story_branch]);
    }
    Ok(Retired { saved, merged })
}

/// What [`retire_worktree`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Retired {
    pub saved: Saved,
    /// The tip contains its work: the branch was deleted.
    pub merged: bool,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kept::git::head;
    use std::path::PathBuf;

    /// A repo on branch `main` with prd.json and f.txt committed.
    pub(crate) fn repo() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("p");
        std::fs::create_dir_all(&root).unwrap();
        for args in [
            &["init", "-q", "-b", "main"][..],
            &["config", "user.email", "t@example.com"],
            &["config", "user.name", "t"],
            &["config", "commit.gpgsign", "false"],
        ] {
            git(&root, args).unwrap();
        }
        std::fs::write(root.join("prd.json"), "{}\n").unwrap();
        std::fs::write(root.join("f.txt"), "1\n").unwrap();
        std::fs::write(root.join(".gitignore"), ".ralph/\n").unwrap();
        git(&root, &["add", "-A"]).unwrap();
        git(&root, &["commit", "-qm", "init"]).unwrap();
        (d, root)
    }

    #[test]
    fn dirty_paths_are_the_names_as_they_are() {
        let (_d, root) = repo();
        assert!(dirty_paths(&root).unwrap().is_empty());
        // A modification first (its status line starts with a space), a name with a space, a
        // rename.
        std::fs::write(root.join("f.txt"), "2\n").unwrap();
        std::fs::write(root.join("new file.txt"), "x\n").unwrap();
        git(&root, &["mv", "prd.json", "moved.json"]).unwrap();
        let mut got = dirty_paths(&root).unwrap();
        got.sort();
        assert_eq!(got, ["f.txt", "moved.json", "new file.txt"]);
    }

    #[test]
    fn preconditions_name_the_fix() {
        let (_d, root) = repo();
        let tip = preconditions(&root, "main", "prd.json").unwrap();
        assert_eq!(tip, head(&root).unwrap());
        let e = preconditions(&root, "feat", "prd.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("git switch -c feat"), "{e}");
        std::fs::write(root.join("x.txt"), "dirty").unwrap();
        let e = preconditions(&root, "main", "prd.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("uncommitted changes (x.txt)") && e.contains("git stash"),
            "{e}"
        );
        std::fs::remove_file(root.join("x.txt")).unwrap();
        let e = preconditions(&root, "main", "other.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("other.json is not committed"), "{e}");
    }

    fn commit_in(wt: &Path, file: &str, text: &str) -> String {
        std::fs::write(wt.join(file), text).unwrap();
        assert!(commit_all(wt, file).unwrap());
        head(wt).unwrap()
    }

    #[test]
    fn a_story_branch_with_unmerged_work_is_resumed_else_made_fresh() {
        let (_d, root) = repo();
        let tip = head(&root).unwrap();
        let wt = root.join(".ralph/worktrees/A");
        assert_eq!(add(&root, &wt, "main--A", &tip).unwrap(), Start::Fresh);
        assert!(!commit_all(&wt, "nothing").unwrap());
        let a = commit_in(&wt, "a.txt", "a");
        std::fs::write(wt.join("b.txt"), "uncommitted").unwrap();
        // Retired (as after an interrupt): the uncommitted file is committed on the branch.
        let r = retire_worktree(&root, &wt, "main--A", "left", &tip).unwrap();
        assert!(!wt.exists() && !r.merged);
        assert_eq!(r.saved.files, 1);
        assert_eq!(
            git(&root, &["show", "main--A:b.txt"]).unwrap(),
            "uncommitted"
        );
        // The branch moved on meanwhile: the story resumes on its own commits.
        std::fs::write(root.join("f.txt"), "2\n").unwrap();
        assert!(commit_all(&root, "moved").unwrap());
        let tip2 = head(&root).unwrap();
        let Start::Resumed { base, commits } = add(&root, &wt, "main--A", &tip2).unwrap() else {
            panic!("not resumed")
        };
        assert_eq!(base, tip);
        assert_eq!(commits.len(), 2, "{commits:?}");
        assert!(commits[1].starts_with(&a[..7]), "{commits:?}");
        assert_eq!(
            std::fs::read_to_string(wt.join("b.txt")).unwrap(),
            "uncommitted"
        );
        // Merged (the tip holds it): retiring deletes the branch, nothing is lost.
        let h = head(&wt).unwrap();
        git(&root, &["merge", "-q", "--no-edit", "main--A"]).unwrap();
        let tip3 = head(&root).unwrap();
        let r = retire_worktree(&root, &wt, "main--A", "left", &tip3).unwrap();
        assert!(r.merged);
        assert!(resolve(&root, "refs/heads/main--A").is_none());
        assert!(is_ancestor(&root, &h, &tip3));
        // Next claim: fresh at the tip.
        assert_eq!(add(&root, &wt, "main--A", &tip3).unwrap(), Start::Fresh);
        remove_worktree(&root, &wt).unwrap();
    }

    #[test]
    fn work_that_cannot_be_resumed_is_kept_under_an_attempt_ref() {
        let (_d, root) = repo();
        let tip = head(&root).unwrap();
        // A story branch with no history in common with the tip (say, branchName was made
        // again from scratch).
        git(&root, &["checkout", "-q", "--orphan", "main--A"]).unwrap();
        std::fs::write(root.join("o.txt"), "o").unwrap();
        git(&root, &["add", "-A"]).unwrap();
        git(&root, &["commit", "-qm", "orphan"]).unwrap();
        let orphan = head(&root).unwrap();
        git(&root, &["checkout", "-q", "-f", "main"]).unwrap();
        let wt = root.join(".ralph/worktrees/A");
        let Start::Kept { at, why } = add(&root, &wt, "main--A", &tip).unwrap() else {
            panic!("not kept")
        };
        assert_eq!(at, "refs/ralph/attempts/main--A/1");
        assert!(why.contains("no history"), "{why}");
        assert_eq!(resolve(&root, &at).unwrap(), orphan);
        assert_eq!(head(&wt).unwrap(), tip);
        // Merged attempts go with the story; unmerged ones stay.
        delete_merged_attempts(&root, "main--A", &tip);
        assert!(resolve(&root, &at).is_some());
        save_attempt(&root, "main--A", &tip).unwrap();
        delete_merged_attempts(&root, "main--A", &tip);
        assert_eq!(crate::kept::git::attempts(&root, "main--A").len(), 1);
    }

    #[test]
    fn recovery_saves_and_removes_only_ralphs_worktrees() {
        let (d, root) = repo();
        let tip = head(&root).unwrap();
        let wts = root.join(".ralph/worktrees");
        let wt = wts.join("A");
        add(&root, &wt, "main--A", &tip).unwrap();
        std::fs::write(wt.join("b.txt"), "b").unwrap();
        // A person's own worktree, with work of theirs.
        let mine = d.path().join("mine");
        git(
            &root,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "mine",
                &mine.to_string_lossy(),
            ],
        )
        .unwrap();
        std::fs::write(mine.join("wip.txt"), "mine").unwrap();
        // A folder git does not know.
        std::fs::create_dir_all(wts.join("stray")).unwrap();
        std::fs::write(wts.join("stray/x"), "x").unwrap();
        let said = recover(&root, &wts, "main", Duration::from_millis(10));
        assert!(
            said.iter()
                .any(|l| l.contains("stale worktree") && l.contains("main--A")),
            "{said:?}"
        );
        assert!(!wt.exists());
        assert_eq!(git(&root, &["show", "main--A:b.txt"]).unwrap(), "b");
        assert!(!wts.join("stray").exists());
        let rejected = std::fs::read_dir(root.join(".ralph/rejected"))
            .unwrap()
            .count();
        assert_eq!(rejected, 1);
        assert_eq!(
            std::fs::read_to_string(mine.join("wip.txt")).unwrap(),
            "mine"
        );
        let list = git(&root, &["worktree", "list", "--porcelain"]).unwrap();
        assert!(
            list.contains("mine") && !list.contains("worktrees/A"),
            "{list}"
        );
    }
}
