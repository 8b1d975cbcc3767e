//! Archiving the previous run when `branchName` changes.
//!
//! ralph remembers the last branch (`.ralph/last-branch`) and the last prd.json it saw
//! (`.ralph/last-prd.json`). When a new prd.json names another branch, the PREVIOUS prd.json
//! and progress.txt go to `archive/YYYY-MM-DD-<feature>/` and progress.txt starts fresh, keeping
//! its `## Codebase Patterns` and naming the archive ([`crate::progress::fresh_after_archive`]).
//! (The original bash Ralph copied the new prd by mistake.) Nothing else under `.ralph/` is
//! removed. Folder naming is pure; the rest is I/O.
//! Does not decide when to archive (the loop calls [`on_branch`]).

use jiff::{Zoned, civil::Date};
use std::path::{Path, PathBuf};

use crate::fsutil::{self, FsError};
use crate::progress;

/// `ralph/login-flow` → `login-flow`; `feature/a/b` → `feature-a-b`; unsafe characters → `-`.
pub(crate) fn feature_name(branch: &str) -> String {
    let b = branch.trim();
    let b = b.strip_prefix("ralph/").unwrap_or(b);
    let name: String = b
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches(['-', '.']).to_string();
    if name.is_empty() {
        "unnamed".into()
    } else {
        name
    }
}

/// `2026-11-22-login-flow`, or with `-2`, `-3`, … when `taken` says the name exists.
pub(crate) fn folder_name(date: Date, branch: &str, taken: impl Fn(&str) -> bool) -> String {
    let base = format!("{}-{}", date, feature_name(branch));
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken(c))
        .unwrap_or(base)
}

/// The `Started:` date, as the original Ralph writes it (`Sun Nov 22 10:00:00 UTC 2026`).
fn started(now: &Zoned) -> String {
    now.strftime("%a %b %e %H:%M:%S %Z %Y").to_string()
}

fn copy_if_exists(from: &Path, to: &Path) -> Result<bool, FsError> {
    match fsutil::read_if_exists(from)? {
        Some(bytes) => {
            fsutil::atomic_write(to, &bytes)?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Where things live for archiving.
pub(crate) struct Paths<'a> {
    pub root: &'a Path,
    pub state_dir: &'a Path,
    pub progress: &'a Path,
}

/// Archive the previous run if `branch` differs from the recorded one; then record `branch`
/// and `prd_bytes` as the last seen. Returns the archive folder when one was made.
pub(crate) fn on_branch(
    p: &Paths<'_>,
    branch: &str,
    prd_bytes: &[u8],
    now: &Zoned,
) -> Result<Option<PathBuf>, FsError> {
    // Stored trimmed, so compared trimmed: " ralph/x " must not look new on every run.
    let branch = branch.trim();
    let last_file = p.state_dir.join("last-branch");
    let last = String::from_utf8_lossy(&fsutil::read_if_exists(&last_file)?.unwrap_or_default())
        .trim()
        .to_string();
    let mut archived = None;
    if !last.is_empty() && !branch.is_empty() && last != branch {
        let base = p.root.join("archive");
        let name = folder_name(now.date(), &last, |n| base.join(n).exists());
        let dir = base.join(&name);
        fsutil::create_dir_all(&dir)?;
        copy_if_exists(&p.state_dir.join("last-prd.json"), &dir.join("prd.json"))?;
        // The archived copy is the whole file; the fresh one keeps the Codebase Patterns.
        let old = fsutil::read_if_exists(p.progress)?;
        if let Some(bytes) = &old {
            fsutil::atomic_write(&dir.join("progress.txt"), bytes)?;
        }
        let old = old.unwrap_or_default();
        let fresh = progress::fresh_after_archive(&old, &format!("archive/{name}/"), &started(now));
        fsutil::atomic_write(p.progress, &fresh)?;
        archived = Some(dir);
    }
    if last != branch {
        fsutil::atomic_write(&last_file, format!("{branch}\n").as_bytes())?;
    }
    remember_prd(p.state_dir, prd_bytes)?;
    Ok(archived)
}

/// Keep a copy of the prd.json last seen (what gets archived on the next branch change).
pub(crate) fn remember_prd(state_dir: &Path, prd_bytes: &[u8]) -> Result<(), FsError> {
    let path = state_dir.join("last-prd.json");
    if fsutil::read(&path).ok().as_deref() != Some(prd_bytes) {
        fsutil::atomic_write(&path, prd_bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_names_strip_the_prefix_and_flatten_slashes() {
        assert_eq!(feature_name("ralph/login-flow"), "login-flow");
        assert_eq!(feature_name("feature/a/b"), "feature-a-b");
        assert_eq!(feature_name("ralph/"), "unnamed");
        assert_eq!(feature_name("x y:z"), "x-y-z");
        assert_eq!(feature_name("../../etc"), "etc");
    }

    #[test]
    fn folder_names_get_a_numeric_suffix_instead_of_overwriting() {
        let d = Date::new(2026, 11, 22).unwrap();
        assert_eq!(folder_name(d, "ralph/a", |_| false), "2026-11-22-a");
        let taken = ["2026-11-22-a", "2026-11-22-a-2"];
        assert_eq!(
            folder_name(d, "ralph/a", |n| taken.contains(&n)),
            "2026-11-22-a-3"
        );
    }

    #[test]
    fn archives_the_previous_prd_not_the_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join(".ralph");
        std::fs::create_dir_all(&state).unwrap();
        let progress = dir.path().join("progress.txt");
        let p = Paths {
            root: dir.path(),
            state_dir: &state,
            progress: &progress,
        };
        let now: Zoned = "2026-11-22T10:00:00+00:00[UTC]".parse().unwrap();
        assert_eq!(on_branch(&p, "ralph/old", b"OLD", &now).unwrap(), None);
        std::fs::write(
            &progress,
            "# Ralph Progress Log\n---\n## Codebase Patterns\n- p\n## 2026-01-01 - US-1\n- old\n---\n",
        )
        .unwrap();
        let made = on_branch(&p, "ralph/new", b"NEW", &now).unwrap().unwrap();
        assert!(made.ends_with("archive/2026-11-22-old"));
        assert_eq!(std::fs::read(made.join("prd.json")).unwrap(), b"OLD");
        assert_eq!(
            std::fs::read_to_string(made.join("progress.txt")).unwrap(),
            "# Ralph Progress Log\n---\n## Codebase Patterns\n- p\n## 2026-01-01 - US-1\n- old\n---\n",
            "the archived copy is complete"
        );
        assert_eq!(
            std::fs::read_to_string(&progress).unwrap(),
            "# Ralph Progress Log\nStarted: Sun Nov 22 10:00:00 UTC 2026\n\
             Previous run archived in archive/2026-11-22-old/\n---\n## Codebase Patterns\n- p\n"
        );
        assert_eq!(std::fs::read(state.join("last-prd.json")).unwrap(), b"NEW");
        assert_eq!(on_branch(&p, "ralph/new", b"NEW", &now).unwrap(), None);
        // No progress.txt: nothing archived for it, a fresh one naming the archive.
        std::fs::remove_file(&progress).unwrap();
        let made = on_branch(&p, "ralph/third", b"3", &now).unwrap().unwrap();
        assert!(!made.join("progress.txt").exists());
        assert_eq!(
            std::fs::read_to_string(&progress).unwrap(),
            "# Ralph Progress Log\nStarted: Sun Nov 22 10:00:00 UTC 2026\n\
             Previous run archived in archive/2026-11-22-new/\n---\n"
        );
    }
}
