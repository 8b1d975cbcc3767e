//! What the agent changed in the git work tree: HEAD, dirty files, files changed.
//!
//! Used for progress detection and the history record. Everything here is best effort: outside
//! a git repository (or without git) the loop still runs, with no commit information.
//! ralph's own `.ralph/` directory and prd.json are left out (prd.json changes are judged by the
//! integrity guard and the `passes` flip).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::process::Command;

/// The state of the work tree at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Snapshot {
    pub head: Option<String>,
    /// Dirty or untracked paths with a hash of their content (0 when unreadable or deleted).
    pub dirty: BTreeMap<String, u64>,
}

fn git(root: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = output(root, args).ok()?;
    out.status.success().then_some(out.stdout)
}

/// Run `git -C root args…` and keep all it said: its status, stdout and stderr (for commands
/// whose refusal the person must read, such as a checkout). `Err` only when git cannot start.
pub(crate) fn output(root: &Path, args: &[&str]) -> std::io::Result<std::process::Output> {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
}

fn content_hash(path: &Path) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    // Regular files only, bounded: a FIFO the agent left in the tree must not hang the loop.
    match crate::fsutil::read(path) {
        Ok(b) => b.hash(&mut h),
        Err(_) => return 0,
    }
    h.finish()
}

/// Parse `git status --porcelain=v2 --branch -z` output: (HEAD, paths). Renames give the new path.
pub(crate) fn parse_porcelain_v2(out: &[u8]) -> (Option<String>, Vec<String>) {
    let mut head = None;
    let mut paths = Vec::new();
    let mut parts = out.split(|&b| b == 0).filter(|p| !p.is_empty());
    while let Some(entry) = parts.next() {
        let text = String::from_utf8_lossy(entry);
        let fields = |n: usize| text.splitn(n, ' ').nth(n - 1).map(String::from);
        match entry.first() {
            Some(b'#') => {
                if let Some(oid) = text.strip_prefix("# branch.oid ")
                    && oid != "(initial)"
                {
                    head = Some(oid.trim().to_string());
                }
            }
            Some(b'1') => paths.extend(fields(9)),
            Some(b'2') => {
                paths.extend(fields(10));
                parts.next(); // the original path
            }
            Some(b'u') => paths.extend(fields(11)),
            Some(b'?') => paths.extend(text.strip_prefix("? ").map(String::from)),
            _ => {}
        }
    }
    (head, paths)
}

/// The ignore pattern of `fsutil::atomic_write`'s temp files, at any depth.
const TEMP_PATTERN: &str = ".ralph-tmp-*";

/// Whether `line` of an ignore file already covers a top-level-or-any-depth `.ralph/` dir.
fn covers_state_dir(line: &str) -> bool {
    matches!(
        line.trim(),
        ".ralph" | ".ralph/" | "/.ralph" | "/.ralph/" | ".ralph/*" | "/.ralph/*"
    )
}

/// Keep ralph's own state out of the agent's commits: inside a git work tree, add `.ralph/` to
/// the repository's `info/exclude` (creating it if missing) unless it already has such a line.
/// Done even when a .gitignore covers it: info/exclude is local, never committed, and stays
/// when someone edits the .gitignore; and it costs one `git` call per run. `Ok(Some(path))`
/// when the file was changed, `Ok(None)` when nothing was needed (or outside git).
pub(crate) fn exclude_state_dir(
    root: &Path,
) -> Result<Option<std::path::PathBuf>, crate::fsutil::FsError> {
    let Some(out) = git(
        root,
        &[
            "rev-parse",
            "--is-inside-work-tree",
            "--git-path",
            "info/exclude",
        ],
    ) else {
        return Ok(None);
    };
    let out = String::from_utf8_lossy(&out);
    let mut lines = out.lines();
    if lines.next().map(str::trim) != Some("true") {
        return Ok(None);
    }
    let rel = lines.next().unwrap_or("").trim().to_string();
    if rel.is_empty() {
        return Ok(None);
    }
    let path = root.join(rel);
    let mut text = match std::fs::read(&path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(crate::fsutil::FsError {
                path,
                action: "read",
                source,
            });
        }
    };
    let has_state = text.lines().any(covers_state_dir);
    let has_temp = text.lines().any(|l| l.trim() == TEMP_PATTERN);
    if has_state && has_temp {
        return Ok(None);
    }
    if let Some(dir) = path.parent() {
        crate::fsutil::create_dir_all(dir)?;
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if !has_state {
        text.push_str("# ralph's own state (lock, logs, history)\n.ralph/\n");
    }
    if !has_temp {
        text.push_str("# ralph's temp files of interrupted writes (removed by the next run)\n");
        text.push_str(TEMP_PATTERN);
        text.push('\n');
    }
    crate::fsutil::atomic_write(&path, text.as_bytes())?;
    Ok(Some(path))
}

fn git_ok(root: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Commit ralph's own correction of prd.json (a restore, or its `passes` writes) so the branch
/// never keeps a state ralph rejected (an agent may have committed a cheated prd.json before
/// ralph repaired the work tree). Only prd.json is committed (`--only`: whatever else is
/// staged stays staged), without hooks (the file is one ralph validated; a hook must not keep a
/// cheated HEAD). Nothing happens outside git, when prd.json is not tracked, or when HEAD
/// already has this content. `Ok(Some(head))`: the new HEAD.
pub(crate) fn commit_correction(
    root: &Path,
    prd_rel: &str,
    message: &str,
) -> Result<Option<String>, String> {
    if !git_ok(root, &["ls-files", "--error-unmatch", "--", prd_rel])
        || git_ok(root, &["diff", "--quiet", "HEAD", "--", prd_rel])
    {
        return Ok(None);
    }
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "commit",
            "--quiet",
            "--no-verify",
            "--only",
            "-m",
            message,
            "--",
            prd_rel,
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("git commit failed: {}", err.trim()));
    }
    Ok(git(root, &["rev-parse", "HEAD"]).map(|h| String::from_utf8_lossy(&h).trim().to_string()))
}

/// Take a snapshot (one `git status` call); `None` outside a git repository.
pub(crate) fn snapshot(root: &Path, prd_rel: &str) -> Option<Snapshot> {
    let status = git(
        root,
        &[
            "status",
            "--porcelain=v2",
            "--branch",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
            ":(exclude).ralph",
        ],
    )?;
    let (head, paths) = parse_porcelain_v2(&status);
    let dirty = paths
        .into_iter()
        .filter(|p| p != prd_rel)
        .map(|p| {
            let h = content_hash(&root.join(&p));
            (p, h)
        })
        .collect();
    Some(Snapshot { head, dirty })
}

/// What changed between two snapshots: (a commit was made, the work tree changed, files).
pub(crate) fn compare(
    root: &Path,
    before: &Snapshot,
    after: &Snapshot,
) -> (bool, bool, Vec<String>) {
    let committed = before.head != after.head && after.head.is_some();
    let mut files: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    if committed {
        let range = match &before.head {
            Some(b) => format!("{b}..{}", after.head.as_deref().unwrap_or("HEAD")),
            None => after.head.clone().unwrap_or_default(),
        };
        let args: Vec<&str> = if before.head.is_some() {
            vec!["diff", "--name-only", "-z", &range]
        } else {
            vec!["show", "--name-only", "-z", "--format=", &range]
        };
        if let Some(out) = git(root, &args) {
            files.extend(
                out.split(|&b| b == 0)
                    .filter(|p| !p.is_empty())
                    .map(|p| String::from_utf8_lossy(p).into_owned()),
            );
        }
    }
    let mut tree_changed = false;
    for (p, h) in &after.dirty {
        if before.dirty.get(p) != Some(h) {
            tree_changed = true;
            files.insert(p.clone());
        }
    }
    for p in before.dirty.keys() {
        if !after.dirty.contains_key(p) && !committed {
            // Reverted or deleted without a commit: still a change to the tree.
            tree_changed = true;
            files.insert(p.clone());
        }
    }
    (committed, tree_changed, files.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_dir_lines_are_recognised_in_an_exclude_file() {
        for l in [".ralph/", "/.ralph", " .ralph ", ".ralph/*"] {
            assert!(covers_state_dir(l), "{l}");
        }
        for l in ["# .ralph/", ".ralphrc", "!.ralph/", "foo/.ralph/"] {
            assert!(!covers_state_dir(l), "{l}");
        }
    }

    #[test]
    fn porcelain_v2_gives_head_and_new_paths_for_renames() {
        let out = b"# branch.oid abc123\0# branch.head main\x001 .M N... 100644 100644 100644 1 2 src/a b.rs\x002 R. N... 100644 100644 100644 1 2 R100 new.rs\0old.rs\0? notes.md\0";
        let (head, paths) = parse_porcelain_v2(out);
        assert_eq!(head.as_deref(), Some("abc123"));
        assert_eq!(paths, ["src/a b.rs", "new.rs", "notes.md"]);
        assert_eq!(
            parse_porcelain_v2(b"# branch.oid (initial)\0"),
            (None, vec![])
        );
    }

    #[test]
    fn detects_commits_and_edits_in_a_real_repo() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let run = |args: &[&str]| {
            assert!(
                Command::new("git")
                    .arg("-C")
                    .arg(root)
                    .args(args)
                    .output()
                    .unwrap()
                    .status
                    .success()
            )
        };
        run(&["init", "-q"]);
        run(&["config", "user.email", "t@example.com"]);
        run(&["config", "user.name", "t"]);
        std::fs::write(root.join("a.txt"), "1").unwrap();
        let s0 = snapshot(root, "prd.json").unwrap();
        assert_eq!(s0.head, None);
        std::fs::write(root.join("a.txt"), "2").unwrap();
        std::fs::create_dir_all(root.join(".ralph")).unwrap();
        std::fs::write(root.join(".ralph/log"), "x").unwrap();
        std::fs::write(root.join("prd.json"), "{}").unwrap();
        let s1 = snapshot(root, "prd.json").unwrap();
        let (c, t, files) = compare(root, &s0, &s1);
        assert!(!c && t);
        assert_eq!(files, ["a.txt"]);
        run(&["add", "a.txt"]);
        run(&["commit", "-qm", "x"]);
        let s2 = snapshot(root, "prd.json").unwrap();
        let (c, _, files) = compare(root, &s1, &s2);
        assert!(c);
        assert_eq!(files, ["a.txt"]);
        let (c, t, files) = compare(root, &s2, &s2.clone());
        assert!(!c && !t && files.is_empty());
        assert!(snapshot(&root.join("nonexistent"), "prd.json").is_none());
        // Corrections: only prd.json, only when tracked and different from HEAD.
        assert_eq!(commit_correction(root, "prd.json", "m"), Ok(None));
        run(&["add", "prd.json"]);
        run(&["commit", "-qm", "prd"]);
        assert_eq!(commit_correction(root, "prd.json", "m"), Ok(None));
        std::fs::write(root.join("prd.json"), "{\"fixed\": 1}").unwrap();
        std::fs::write(root.join("a.txt"), "staged").unwrap();
        run(&["add", "a.txt"]);
        let head = commit_correction(root, "prd.json", "ralph: fix")
            .unwrap()
            .unwrap();
        assert_eq!(head.len(), 40);
        let staged = git(root, &["diff", "--cached", "--name-only"]).unwrap();
        assert_eq!(String::from_utf8_lossy(&staged).trim(), "a.txt");
        let msg = git(root, &["log", "-1", "--format=%s"]).unwrap();
        assert_eq!(String::from_utf8_lossy(&msg).trim(), "ralph: fix");
    }
}
