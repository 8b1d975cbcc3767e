//! The git side of kept work: run git; save everything a worktree holds before it is removed
//! ([`save`]: a commit on its story branch, or on an attempt ref when its HEAD is elsewhere or
//! a merge or rebase is half done); keep a commit under the next free attempt ref, never
//! overwriting one ([`keep_attempt`]); remove a worktree only once saved
//! ([`remove_worktree`]); list ralph's worktrees ([`ralph_worktrees`]: only those under
//! `.ralph/worktrees/`, never one a person made), retire one a killed run left
//! ([`retire_stale`]) and list the refs holding kept work ([`list`]).
//! Decides nothing: `super::decide`, `ralph clean` and the parallel scheduler do.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{ATTEMPTS, Kept, Kind};

/// Held while a worktree is added or removed (a parallel run's story worktrees, the red-green
/// gate's scratch worktrees): git reads every other worktree's admin files
/// (`.git/worktrees/*`) on the way and fails on one that another `git worktree add` has half
/// written ("failed to read .git/worktrees/A/commondir"), so threads making theirs at once
/// take turns.
static WORKTREES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Take the turn to add or remove a worktree.
pub(crate) fn worktrees_lock() -> std::sync::MutexGuard<'static, ()> {
    WORKTREES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A git command that failed, or a precondition that does not hold.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GitError {
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

fn run(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Result<Vec<u8>, GitError> {
    let mut c = Command::new("git");
    c.arg("-C").arg(dir).args(args).stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output()?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(GitError::Failed {
            args: args.join(" "),
            dir: dir.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

/// Run git in `dir`; its stdout, trimmed, or the failure with git's stderr.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    run(dir, args, &[]).map(|o| String::from_utf8_lossy(&o).trim().to_string())
}

/// Whether a git command exits 0 (output dropped).
pub(crate) fn git_ok(dir: &Path, args: &[&str]) -> bool {
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

/// One uncommitted path, as `git status --short` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The two status letters (`" M"`, `"A "`, `"??"`, `"UU"`).
    pub code: String,
    /// Repository-relative (the new path of a rename).
    pub path: String,
}

/// Parse `git status --porcelain -z` (format v1): renames and copies give the new path.
pub(crate) fn parse_status(out: &[u8]) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut parts = out.split(|&b| b == 0).filter(|p| !p.is_empty());
    while let Some(p) = parts.next() {
        let (Some(code), Some(path)) = (p.get(..2), p.get(3..)) else {
            continue;
        };
        if code.contains(&b'R') || code.contains(&b'C') {
            parts.next(); // the original path
        }
        entries.push(Entry {
            code: String::from_utf8_lossy(code).into_owned(),
            path: String::from_utf8_lossy(path).into_owned(),
        });
    }
    entries
}

/// Paths `git status` reports in `dir` (ignored files, `.ralph/` included, are not), names as
/// they are (`-z`: spaces, quotes, a rename's new path).
pub(crate) fn dirty_paths(dir: &Path) -> Result<Vec<String>, GitError> {
    let out = run(
        dir,
        &["status", "--porcelain", "-z", "--untracked-files=all"],
        &[],
    )?;
    Ok(parse_status(&out).into_iter().map(|e| e.path).collect())
}

/// Whether commit `a` is an ancestor of (or equal to) `b`.
pub(crate) fn is_ancestor(root: &Path, a: &str, b: &str) -> bool {
    git_ok(root, &["merge-base", "--is-ancestor", a, b])
}

/// The commit HEAD points at in `dir`.
#[cfg(test)]
pub(crate) fn head(dir: &Path) -> Result<String, GitError> {
    git(dir, &["rev-parse", "HEAD"])
}

/// The commit `name` points at, when it exists.
pub(crate) fn resolve(root: &Path, name: &str) -> Option<String> {
    git(
        root,
        &["rev-parse", "-q", "--verify", &format!("{name}^{{commit}}")],
    )
    .ok()
}

/// What [`save`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Saved {
    /// The commit that holds everything (the old HEAD when nothing needed saving).
    pub head: String,
    /// Paths that were not committed and now are (0: nothing to save).
    pub files: usize,
    /// The ref that keeps it: the story branch (`refs/heads/…`), or an attempt ref when HEAD
    /// was not on the story branch or a merge or rebase was half done.
    pub kept_at: String,
}

/// A merge, rebase, cherry-pick or revert left half done, from the files in the worktree's
/// git dir.
fn busy(git_dir: &Path) -> bool {
    [
        "MERGE_HEAD",
        "REBASE_HEAD",
        "CHERRY_PICK_HEAD",
        "REVERT_HEAD",
        "rebase-merge",
        "rebase-apply",
    ]
    .iter()
    .any(|f| git_dir.join(f).exists())
}

/// Every file of `wt` that is not ignored, as a commit on top of `head`, made with an index of
/// its own: neither the worktree's index (which may hold a conflicted merge) nor its files are
/// touched.
fn snapshot(wt: &Path, head: &str, message: &str) -> Result<String, GitError> {
    let tmp = tempfile::tempdir()?;
    let index = tmp.path().join("index");
    let env = [("GIT_INDEX_FILE", index.as_path())];
    run(wt, &["read-tree", head], &env)?;
    run(wt, &["add", "-A"], &env)?;
    let tree = String::from_utf8_lossy(&run(wt, &["write-tree"], &env)?)
        .trim()
        .to_string();
    git(wt, &["commit-tree", &tree, "-p", head, "-m", message])
}

/// Save everything `wt` holds that no ref keeps yet, before it is removed: its uncommitted
/// files (not ignored ones) as one commit (`message`), on `story_branch` when HEAD is on it
/// and nothing is half done (the branch moves by compare-and-swap, and the index follows);
/// otherwise HEAD, with those files on top, under the next attempt ref of `story_branch`. An
/// error means nothing was saved: the worktree must stay.
pub(crate) fn save(
    root: &Path,
    wt: &Path,
    story_branch: &str,
    message: &str,
) -> Result<Saved, GitError> {
    let (git_dir, head) = worktree_facts(wt)?;
    let sb_ref = format!("refs/heads/{story_branch}");
    let on_branch = git(wt, &["symbolic-ref", "-q", "HEAD"]).ok().as_deref() == Some(&sb_ref);
    let plain = on_branch && !busy(&git_dir);
    let dirty = dirty_paths(wt)?;
    if dirty.is_empty() && plain {
        return Ok(Saved {
            head,
            files: 0,
            kept_at: sb_ref,
        });
    }
    let commit = if dirty.is_empty() {
        head.clone()
    } else {
        snapshot(wt, &head, message)?
    };
    let kept_at = if plain {
        git(
            root,
            &["update-ref", "-m", message, &sb_ref, &commit, &head],
        )?;
        // The files already are the new commit's: only the index is behind.
        let _ = git(wt, &["reset", "-q"]);
        sb_ref
    } else {
        keep_attempt(root, story_branch, &commit)?
    };
    Ok(Saved {
        head: commit,
        files: dirty.len(),
        kept_at,
    })
}

/// The attempt refs of `story_branch`: (number, ref, commit), by number.
pub(crate) fn attempts(root: &Path, story_branch: &str) -> Vec<(u32, String, String)> {
    let prefix = super::attempt_prefix(story_branch);
    let out = git(
        root,
        &["for-each-ref", "--format=%(refname) %(objectname)", &prefix],
    )
    .unwrap_or_default();
    let mut v: Vec<(u32, String, String)> = out
        .lines()
        .filter_map(|l| {
            let (r, c) = l.split_once(' ')?;
            let n = r.strip_prefix(&prefix)?.parse().ok()?;
            Some((n, r.to_string(), c.to_string()))
        })
        .collect();
    v.sort();
    v
}

/// Keep `commit` under `refs/ralph/attempts/<story_branch>/<n>`, `n` the next free number (an
/// attempt ref that already points at it is reused); never overwrites a ref. Its name.
pub(crate) fn keep_attempt(
    root: &Path,
    story_branch: &str,
    commit: &str,
) -> Result<String, GitError> {
    let have = attempts(root, story_branch);
    if let Some((_, r, _)) = have.iter().find(|(_, _, c)| c == commit) {
        return Ok(r.clone());
    }
    let mut n = have.last().map_or(1, |(n, _, _)| n + 1);
    loop {
        let r = format!("{}{n}", super::attempt_prefix(story_branch));
        // The empty old value: create only, so a ref made meanwhile is never overwritten.
        match git(root, &["update-ref", &r, commit, ""]) {
            Ok(_) => return Ok(r),
            Err(e) if n > 10_000 => return Err(e),
            Err(_) => n += 1,
        }
    }
}

/// `wt`'s git dir and HEAD commit, once it is sure `wt` is the top of a work tree (not a
/// folder inside one, whose git commands would act on the tree around it).
fn worktree_facts(wt: &Path) -> Result<(PathBuf, String), GitError> {
    let out = git(wt, &["rev-parse", "--show-toplevel", "--git-dir", "HEAD"])?;
    let mut lines = out.lines();
    let (top, dir, head) = (lines.next(), lines.next(), lines.next());
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    match (top, dir, head) {
        (Some(top), Some(dir), Some(head)) if real(Path::new(top)) == real(wt) => {
            Ok((wt.join(dir), head.to_string()))
        }
        _ => Err(GitError::Failed {
            args: "rev-parse --show-toplevel --git-dir HEAD".into(),
            dir: wt.to_path_buf(),
            stderr: format!(
                "{} is not a worktree (it is inside {})",
                wt.display(),
                top.unwrap_or("?")
            ),
        }),
    }
}

/// Whether git lists `wt` among the repository's worktrees.
fn registered(root: &Path, wt: &Path) -> bool {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let want = real(wt);
    git(root, &["worktree", "list", "--porcelain"])
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .any(|p| real(Path::new(p)) == want)
}

/// Remove ralph's worktree `wt` (call [`save`] first: whatever is not ignored is lost here).
/// Git's admin files for it go too, and nothing of any other worktree. A folder git does not
/// list as a worktree is never removed.
pub(crate) fn remove_worktree(root: &Path, wt: &Path) -> Result<(), GitError> {
    let _turn = worktrees_lock();
    let p = wt.to_string_lossy().into_owned();
    if !registered(root, wt) {
        return Err(GitError::Failed {
            args: format!("worktree remove {p}"),
            dir: root.to_path_buf(),
            stderr: format!("{p} is not a worktree git knows; left as it is"),
        });
    }
    match git(root, &["worktree", "remove", "--force", &p]) {
        Ok(_) => Ok(()),
        Err(e) if wt.exists() => {
            std::fs::remove_dir_all(wt)?;
            // Its admin files, now that the folder is gone (a missing folder is accepted).
            let _ = git(root, &["worktree", "remove", "--force", &p]);
            if wt.exists() { Err(e) } else { Ok(()) }
        }
        Err(_) => {
            let _ = git(root, &["worktree", "remove", "--force", &p]);
            Ok(())
        }
    }
}

/// A worktree of ralph's (under `.ralph/worktrees/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    pub path: PathBuf,
    /// `git worktree list` names it (else: a folder git does not know).
    pub registered: bool,
    /// The branch checked out there (`refs/heads/…`), when one is.
    pub branch: Option<String>,
}

/// The worktrees under `dir` (ralph's `.ralph/worktrees/`): those git lists there, and the
/// folders there git does not know. Worktrees anywhere else are never listed.
pub(crate) fn ralph_worktrees(root: &Path, dir: &Path) -> Vec<Listed> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let base = real(dir);
    let porcelain = git(root, &["worktree", "list", "--porcelain"]).unwrap_or_default();
    let mut out: Vec<Listed> = Vec::new();
    for block in porcelain.split("\n\n") {
        let mut path = None;
        let mut branch = None;
        for l in block.lines() {
            if let Some(p) = l.strip_prefix("worktree ") {
                path = Some(PathBuf::from(p));
            } else if let Some(b) = l.strip_prefix("branch ") {
                branch = Some(b.to_string());
            }
        }
        if let Some(p) = path
            && p.parent().map(real).as_deref() == Some(base.as_path())
        {
            out.push(Listed {
                path: dir.join(p.file_name().unwrap_or_default()),
                registered: true,
                branch,
            });
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) && !out.iter().any(|l| l.path == p) {
                out.push(Listed {
                    path: p,
                    registered: false,
                    branch: None,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Retire a worktree of ralph's that no run owns (a killed run left it): stop the agent group
/// recorded in it, [`save`] what it holds (on its branch, or under an attempt ref of
/// `<branch>--<folder>` when its HEAD is on none), then remove it; a folder git does not know
/// is moved to `.ralph/rejected/`. An error leaves it as it is. Lines saying what happened.
pub(crate) fn retire_stale(
    root: &Path,
    w: &Listed,
    branch: &str,
    grace: std::time::Duration,
) -> Vec<String> {
    let mut said = Vec::new();
    let shown = w.path.display();
    let rec = crate::state::state_dir(&w.path).join(crate::state::AGENT_GROUP);
    let n = crate::agent::group::stop_recorded(&rec, grace);
    if n > 0 {
        said.push(format!("stopped {n} process(es) left running in {shown}"));
    }
    if !w.registered {
        let state = crate::state::state_dir(root);
        said.push(
            match crate::state::rejected::move_aside(&state, 0, &w.path) {
                Ok(to) => format!(
                    "{shown} is not a git worktree: moved it to {}",
                    to.display()
                ),
                Err(e) => format!("{shown} is not a git worktree and could not be moved: {e}"),
            },
        );
        return said;
    }
    let key = w.path.file_name().unwrap_or_default().to_string_lossy();
    let sb = w
        .branch
        .as_deref()
        .and_then(|b| b.strip_prefix("refs/heads/"))
        .map_or_else(|| super::story_branch(branch, &key), String::from);
    said.push(
        match save(
            root,
            &w.path,
            &sb,
            "ralph: work left by a killed run, not verified",
        ) {
            Ok(saved) => match remove_worktree(root, &w.path) {
                Ok(()) => format!("removed the stale worktree {shown}{}", kept_words(&saved)),
                Err(e) => format!("the stale worktree {shown} could not be removed: {e}"),
            },
            Err(e) => format!(
                "the stale worktree {shown} is left as it is: its work could not be saved ({e})"
            ),
        },
    );
    said
}

/// " (its work is on ralph/x--A)", " (3 uncommitted file(s) saved in abc1234 on …)".
pub(crate) fn kept_words(s: &Saved) -> String {
    let at = s.kept_at.strip_prefix("refs/heads/").unwrap_or(&s.kept_at);
    match s.files {
        0 => format!(" (its work is on {at})"),
        n => format!(" ({n} uncommitted file(s) saved in {:.7} on {at})", s.head),
    }
}

/// The refs holding kept work for `branch`: its story branches (`<branch>--*`) and every
/// attempt ref, each with its story (`keys`: key → id) and how many of its commits `branch`
/// lacks.
pub(crate) fn list(
    root: &Path,
    branch: &str,
    keys: &std::collections::HashMap<String, String>,
) -> Vec<Kept> {
    let heads = format!("refs/heads/{branch}--*");
    let out = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname)%00%(objectname)%00%(subject)",
            &heads,
            ATTEMPTS,
        ],
    )
    .unwrap_or_default();
    let target = format!("refs/heads/{branch}");
    let has_target = resolve(root, &target).is_some();
    out.lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, '\0');
            let (name, commit) = (f.next()?.to_string(), f.next()?.to_string());
            let subject = f.next().unwrap_or("").to_string();
            let range = if has_target {
                format!("{target}..{commit}")
            } else {
                commit.clone()
            };
            let ahead = git(root, &["rev-list", "--count", &range])
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(usize::MAX);
            let kind = if name.starts_with(ATTEMPTS) {
                Kind::Attempt
            } else {
                Kind::StoryBranch
            };
            Some(Kept {
                story: super::story_of(&name, branch, keys),
                name,
                kind,
                commit,
                subject,
                ahead,
            })
        })
        .collect()
}

/// Delete `k`'s ref, only if it still points at its commit; a story branch checked out in a
/// worktree is refused (by git), never left dangling.
pub(crate) fn delete(root: &Path, k: &Kept) -> Result<(), GitError> {
    if k.kind == Kind::StoryBranch {
        let out = git(root, &["worktree", "list", "--porcelain"])?;
        if out.lines().any(|l| l == format!("branch {}", k.name)) {
            return Err(GitError::Failed {
                args: format!("update-ref -d {}", k.name),
                dir: root.to_path_buf(),
                stderr: format!("{} is checked out in a worktree", k.short()),
            });
        }
    }
    git(root, &["update-ref", "-d", &k.name, &k.commit]).map(|_| ())
}

#[cfg(test)]
mod tests;
