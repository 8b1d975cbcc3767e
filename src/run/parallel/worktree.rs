//! The git side of parallel runs outside the merge itself: the preconditions (HEAD on
//! `branchName`, prd.json committed, a clean tree, an identity), recovery of what a killed run
//! left (worktrees, their agent groups, a half-done merge, merged story branches), story
//! worktrees (add, commit leftovers, reset onto a new tip, remove) and attempt refs.
//! Decides nothing (that is `policy` and the scheduler) and never touches prd.json's content.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::run::git::worktrees_lock;

/// A git command that failed, or a precondition that does not hold.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git: {0}")]
    Spawn(#[from] std::io::Error),
    #[error("`git {args}` in {dir} failed: {stderr}")]
    Failed {
        args: String,
        dir: PathBuf,
        stderr: String,
    },
    #[error("--parallel: {what}; {fix}")]
    Precondition { what: String, fix: String },
}

/// Run git in `dir`; its stdout, trimmed, or the failure with git's stderr.
pub fn git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(GitError::Failed {
            args: args.join(" "),
            dir: dir.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

/// Whether a git command exits 0 (output dropped).
pub fn git_ok(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn pre(what: impl Into<String>, fix: impl Into<String>) -> GitError {
    GitError::Precondition {
        what: what.into(),
        fix: fix.into(),
    }
}

/// Paths `git status` reports in `dir` (ignored files, `.ralph/` included, are not), read as
/// the sequential start reads them ([`crate::run::branch::parse_status`]: `-z`, so a name with
/// spaces or quotes and a rename's new path come out as they are).
pub fn dirty_paths(dir: &Path) -> Result<Vec<String>, GitError> {
    let args = ["status", "--porcelain", "-z", "--untracked-files=normal"];
    let out = crate::run::git::output(dir, &args)?;
    if !out.status.success() {
        return Err(GitError::Failed {
            args: args.join(" "),
            dir: dir.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(crate::run::branch::parse_status(&out.stdout)
        .into_iter()
        .map(|e| e.path)
        .collect())
}

/// Check what a parallel run needs (specs/parallel.md, section 3); the tip of `branch`.
pub fn preconditions(root: &Path, branch: &str, prd_rel: &str) -> Result<String, GitError> {
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

/// Undo what a ralph killed outright left: stop the agent groups recorded in each worktree,
/// commit its leftovers to its branch, remove it, prune; end a half-done merge of a story
/// branch; delete story branches already merged. Returns lines to print.
pub fn recover(root: &Path, worktrees: &Path, branch: &str, grace: Duration) -> Vec<String> {
    let mut said = Vec::new();
    if let Ok(entries) = std::fs::read_dir(worktrees) {
        for e in entries.flatten() {
            let wt = e.path();
            let rec = crate::state::state_dir(&wt).join(crate::state::AGENT_GROUP);
            let n = crate::agent::group::stop_recorded(&rec, grace);
            if n > 0 {
                said.push(format!(
                    "stopped {n} process(es) left running in {}",
                    wt.display()
                ));
            }
            if wt.join(".git").exists() {
                let _ = git(&wt, &["merge", "--abort"]);
                let _ = commit_all(&wt, "ralph: work left by a killed run, not verified");
            }
            let p = wt.to_string_lossy().into_owned();
            if git(root, &["worktree", "remove", "--force", &p]).is_err() {
                let _ = std::fs::remove_dir_all(&wt);
            }
            said.push(format!("removed the stale worktree {}", wt.display()));
        }
    }
    let _ = git(root, &["worktree", "prune"]);
    // A merge of a story branch in the main tree: done when the branch has it, else aborted.
    if let Ok(mh) = git(root, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]) {
        let ours = story_branches(root, branch)
            .iter()
            .any(|b| git(root, &["rev-parse", b]).ok().as_deref() == Some(mh.as_str()));
        if ours {
            if is_ancestor(root, &mh, "HEAD") {
                let _ = git(root, &["merge", "--quit"]);
            } else {
                let _ = git(root, &["merge", "--abort"]);
            }
            said.push("ended the merge a killed run left in the main tree".into());
        }
    }
    for b in story_branches(root, branch) {
        if is_ancestor(root, &b, &format!("refs/heads/{branch}"))
            && git(root, &["branch", "-D", &b]).is_ok()
        {
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

/// Whether commit `a` is an ancestor of (or equal to) `b`.
pub fn is_ancestor(root: &Path, a: &str, b: &str) -> bool {
    git_ok(root, &["merge-base", "--is-ancestor", a, b])
}

/// Make the worktree `wt` on a fresh `story_branch` at `tip`. A branch of that name left by an
/// earlier run with unmerged work is kept as an attempt ref first (returned).
pub fn add(
    root: &Path,
    wt: &Path,
    story_branch: &str,
    tip: &str,
) -> Result<Option<String>, GitError> {
    let _turn = worktrees_lock();
    let mut kept = None;
    if let Ok(old) = git(
        root,
        &[
            "rev-parse",
            "-q",
            "--verify",
            &format!("refs/heads/{story_branch}"),
        ],
    ) && !is_ancestor(root, &old, tip)
    {
        kept = Some(save_attempt(root, story_branch, 0, &old)?);
    }
    if let Some(parent) = wt.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let p = wt.to_string_lossy().into_owned();
    git(
        root,
        &["worktree", "add", "-q", "-B", story_branch, &p, tip],
    )?;
    Ok(kept)
}

/// Commit everything in `dir` that is not ignored, when anything is; whether a commit was made.
pub fn commit_all(dir: &Path, message: &str) -> Result<bool, GitError> {
    if dirty_paths(dir)?.is_empty() {
        return Ok(false);
    }
    git(dir, &["add", "-A"])?;
    git(dir, &["commit", "-q", "--no-verify", "-m", message])?;
    Ok(true)
}

/// The commit HEAD points at in `dir`.
pub fn head(dir: &Path) -> Result<String, GitError> {
    git(dir, &["rev-parse", "HEAD"])
}

/// Keep `commit` as `refs/ralph/attempts/<story_branch>/<n>`; the ref's name.
pub fn save_attempt(
    root: &Path,
    story_branch: &str,
    n: u32,
    commit: &str,
) -> Result<String, GitError> {
    let r = format!("refs/ralph/attempts/{story_branch}/{n}");
    git(root, &["update-ref", &r, commit])?;
    Ok(r)
}

/// Delete the attempt refs of `story_branch` (once it is merged).
pub fn delete_attempts(root: &Path, story_branch: &str) {
    let prefix = format!("refs/ralph/attempts/{story_branch}/");
    if let Ok(out) = git(root, &["for-each-ref", "--format=%(refname)", &prefix]) {
        for r in out.lines() {
            let _ = git(root, &["update-ref", "-d", r]);
        }
    }
}

/// Reset the worktree onto `tip` (ignored build output stays warm).
pub fn reset_onto(wt: &Path, tip: &str) -> Result<(), GitError> {
    let _ = git(wt, &["merge", "--abort"]);
    git(wt, &["reset", "-q", "--hard", tip])?;
    git(wt, &["clean", "-fdq"])?;
    Ok(())
}

/// Remove the worktree; delete its branch when `delete_branch`.
pub fn remove(
    root: &Path,
    wt: &Path,
    story_branch: &str,
    delete_branch: bool,
) -> Result<(), GitError> {
    let _turn = worktrees_lock();
    let p = wt.to_string_lossy().into_owned();
    if let Err(e) = git(root, &["worktree", "remove", "--force", &p]) {
        if wt.exists() {
            let _ = std::fs::remove_dir_all(wt);
            let _ = git(root, &["worktree", "prune"]);
            if wt.exists() {
                return Err(e);
            }
        } else {
            let _ = git(root, &["worktree", "prune"]);
        }
    }
    if delete_branch {
        git(root, &["branch", "-q", "-D", story_branch])?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

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

    #[test]
    fn worktrees_are_added_reset_removed_and_recovered() {
        let (_d, root) = repo();
        let tip = head(&root).unwrap();
        let wts = root.join(".ralph/worktrees");
        let wt = wts.join("A");
        assert_eq!(add(&root, &wt, "main--A", &tip).unwrap(), None);
        std::fs::write(wt.join("a.txt"), "a").unwrap();
        assert!(commit_all(&wt, "left").unwrap());
        assert!(!commit_all(&wt, "nothing").unwrap());
        let a = head(&wt).unwrap();
        assert_ne!(a, tip);
        let r = save_attempt(&root, "main--A", 1, &a).unwrap();
        assert_eq!(git(&root, &["rev-parse", &r]).unwrap(), a);
        reset_onto(&wt, &tip).unwrap();
        assert_eq!(head(&wt).unwrap(), tip);
        assert!(!wt.join("a.txt").exists());
        delete_attempts(&root, "main--A");
        assert!(git(&root, &["rev-parse", "-q", "--verify", &r]).is_err());
        remove(&root, &wt, "main--A", true).unwrap();
        assert!(!wt.exists());
        assert!(!git_ok(
            &root,
            &["rev-parse", "--verify", "-q", "refs/heads/main--A"]
        ));
        // A killed run's worktree with uncommitted work: committed to its branch, then removed.
        add(&root, &wt, "main--A", &tip).unwrap();
        std::fs::write(wt.join("b.txt"), "b").unwrap();
        let said = recover(&root, &wts, "main", Duration::from_millis(10));
        assert!(
            said.iter().any(|l| l.contains("stale worktree")),
            "{said:?}"
        );
        assert!(!wt.exists());
        let kept = git(&root, &["show", "main--A:b.txt"]).unwrap();
        assert_eq!(kept, "b");
        // A kept branch with unmerged work becomes an attempt ref when its story is claimed again.
        let saved = add(&root, &wt, "main--A", &tip).unwrap();
        assert_eq!(saved.as_deref(), Some("refs/ralph/attempts/main--A/0"));
        assert_eq!(head(&wt).unwrap(), tip);
        remove(&root, &wt, "main--A", true).unwrap();
        assert_eq!(
            git(&root, &["worktree", "list", "--porcelain"])
                .unwrap()
                .matches("worktree ")
                .count(),
            1
        );
    }
}
