//! Files changed together in the project's recent git history.
//!
//! Owns reading the history (`git log`, the last [`COMMITS`] commits without merges; commits
//! touching more than [`MAX_FILES`] files are sweeping changes that say nothing about coupling
//! and are skipped) and the pure question "which files change with these?". When HEAD moved on
//! from the commit a history was read at, only the commits since are read and put before it
//! ([`advance`]): an iteration's commit costs one short `git log`, not the last 500 again.
//! Outside a git repository, or when git fails, there is simply no such evidence. Does not rank.

use std::path::Path;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::index::text::FastMap;

/// How many recent commits are read.
pub(crate) const COMMITS: usize = 500;
/// Commits changing more files than this are skipped.
pub(crate) const MAX_FILES: usize = 20;

/// Recent commits as lists of the files they changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct CoChange {
    /// The commit the history was read at (the cache is re-read when HEAD moves).
    pub head: String,
    pub paths: Vec<String>,
    /// Per commit read, newest first, indexes into `paths` (ascending); a commit skipped (no
    /// file, or more than [`MAX_FILES`]) has none, so the list says how many were read.
    pub commits: Vec<Vec<u32>>,
}

/// A file changed together with a seed file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Link {
    pub seed: String,
    /// Commits that changed both, and commits that changed the seed.
    pub both: u32,
    pub seed_commits: u32,
}

impl Link {
    /// How strongly the file follows the seed: `both / (seed_commits + 1)` (a single shared
    /// commit is weak evidence).
    pub(crate) fn strength(&self) -> f64 {
        f64::from(self.both) / (f64::from(self.seed_commits) + 1.0)
    }
}

/// The commit HEAD points at, or `None` outside a git repository (or without git).
///
/// Asked on every prompt, so read from the repository's files when they are the plain kind
/// ([`head_from_files`]); anything else is asked of `git rev-parse`.
pub(crate) fn head(root: &Path) -> Option<String> {
    if let Some(h) = head_from_files(root) {
        return Some(h);
    }
    let out = git(root, &["rev-parse", "--verify", "-q", "HEAD"])?;
    let h = out.trim();
    (!h.is_empty()).then(|| h.to_string())
}

/// HEAD's commit read from the files of the repository holding `root`: a `.git` folder (or a
/// `.git` file saying `gitdir: …`, as in a worktree) in `root` or a parent; `HEAD` holding a
/// commit or naming a ref, found as a loose ref (in the worktree's git folder, then the common
/// one) or in `packed-refs`. `None` for anything else — git's environment variables set, the
/// reftable format, an unborn branch — which [`head`] leaves to git itself.
fn head_from_files(root: &Path) -> Option<String> {
    const ENV: [&str; 4] = [
        "GIT_DIR",
        "GIT_COMMON_DIR",
        "GIT_WORK_TREE",
        "GIT_CEILING_DIRECTORIES",
    ];
    if ENV.iter().any(|v| std::env::var_os(v).is_some()) {
        return None;
    }
    let root = std::path::absolute(root).ok()?;
    let dir = root.ancestors().find_map(git_dir)?;
    let common = match small(&dir.join("commondir")) {
        Some(c) => dir.join(c.trim_end()),
        None => dir.clone(),
    };
    let mut text = small(&dir.join("HEAD"))?;
    // A symbolic ref may name another; git allows a few levels.
    for _ in 0..5 {
        let line = text.trim_end_matches(['\n', '\r']);
        let Some(name) = line.strip_prefix("ref: ") else {
            return is_commit(line).then(|| line.to_string());
        };
        let plain = name.starts_with("refs/")
            && name
                .split('/')
                .all(|part| !part.is_empty() && !part.starts_with('.'));
        if !plain {
            return None;
        }
        text = match small(&dir.join(name)).or_else(|| small(&common.join(name))) {
            Some(t) => t,
            None => packed(&common, name)?,
        };
    }
    None
}

/// The git folder of a work tree whose top is `top`, if it is one.
fn git_dir(top: &Path) -> Option<std::path::PathBuf> {
    let dot = top.join(".git");
    let meta = std::fs::metadata(&dot).ok()?;
    let dir = if meta.is_dir() {
        dot
    } else {
        let text = small(&dot)?;
        top.join(text.strip_prefix("gitdir: ")?.trim_end())
    };
    dir.join("HEAD").is_file().then_some(dir)
}

/// The commit `name` has in `common/packed-refs`.
fn packed(common: &Path, name: &str) -> Option<String> {
    let text = small(&common.join("packed-refs"))?;
    text.lines().find_map(|l| {
        let (hash, n) = l.split_once(' ')?;
        (n == name && is_commit(hash)).then(|| hash.to_string())
    })
}

/// A commit id as git writes it (SHA-1 or SHA-256, lowercase hex).
fn is_commit(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A text file of the repository (`None` when unreadable or not text).
fn small(path: &Path) -> Option<String> {
    String::from_utf8(crate::fsutil::read(path).ok()?).ok()
}

/// Read the recent history at `head` (paths relative to `root`).
pub(crate) fn read(root: &Path, head: &str) -> Option<CoChange> {
    Some(parse(head, &log(root, head)?))
}

/// The history at `head` from `old`, read at an earlier commit: when `head` descends from it,
/// only the commits since are read and put before `old`'s (the oldest beyond [`COMMITS`] fall
/// off), else (or when `old` holds no commit: git could not read it) it is read whole.
pub(crate) fn advance(root: &Path, old: &CoChange, head: &str) -> Option<CoChange> {
    // No commit at all: git could not read it then; read it whole now.
    if old.commits.is_empty() || !is_commit(&old.head) || !descends(root, head, &old.head) {
        return read(root, head);
    }
    let since = parse(head, &log(root, &format!("{}..{head}", old.head))?);
    Some(since.followed_by(old, COMMITS))
}

/// `git log` of the commits `range` names (at most [`COMMITS`]): per commit, a `\x01` line,
/// then the files it changed, relative to `root`.
fn log(root: &Path, range: &str) -> Option<String> {
    let n = format!("-n{COMMITS}");
    git(
        root,
        &[
            "-c",
            "core.quotepath=off",
            "log",
            "--no-merges",
            "--no-renames",
            "--relative",
            "--name-only",
            "--format=%x01",
            &n,
            range,
            "--",
        ],
    )
}

/// Whether commit `head` is `ancestor` or descends from it.
fn descends(root: &Path, head: &str, ancestor: &str) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["merge-base", "--is-ancestor", ancestor, head])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The history from `git log --name-only --format=%x01` output.
pub(crate) fn parse(head: &str, log: &str) -> CoChange {
    let mut co = CoChange {
        head: head.to_string(),
        ..CoChange::default()
    };
    let mut ids: FastMap<&str, u32> = FastMap::default();
    // Before the first commit's mark there is nothing.
    for commit in log.split('\x01').skip(1) {
        let files: Vec<&str> = commit
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if files.len() > MAX_FILES {
            co.commits.push(Vec::new());
            continue;
        }
        let mut list: Vec<u32> = files
            .into_iter()
            .map(|f| {
                *ids.entry(f).or_insert_with(|| {
                    co.paths.push(f.to_string());
                    u32::try_from(co.paths.len() - 1).unwrap_or(u32::MAX)
                })
            })
            .collect();
        list.sort_unstable();
        list.dedup();
        co.commits.push(list);
    }
    co
}

impl CoChange {
    /// This history (the newer commits) with `older`'s after it, `limit` commits in all; the
    /// paths are those the commits kept name, numbered in the order they first appear (as
    /// [`parse`] numbers them: the same as reading the whole log at once).
    fn followed_by(mut self, older: &CoChange, limit: usize) -> CoChange {
        let room = limit.saturating_sub(self.commits.len());
        let first = self.paths.len();
        let mut added: Vec<String> = Vec::new();
        let mut commits = Vec::new();
        {
            let known: FastMap<&str, u32> = self
                .paths
                .iter()
                .enumerate()
                .map(|(i, p)| (p.as_str(), u32::try_from(i).unwrap_or(u32::MAX)))
                .collect();
            let mut renum: Vec<Option<u32>> = vec![None; older.paths.len()];
            for c in older.commits.iter().take(room) {
                let mut list: Vec<u32> = c
                    .iter()
                    .filter_map(|&f| {
                        let path = older.paths.get(f as usize)?;
                        let slot = renum.get_mut(f as usize)?;
                        Some(*slot.get_or_insert_with(|| {
                            known.get(path.as_str()).copied().unwrap_or_else(|| {
                                added.push(path.clone());
                                u32::try_from(first + added.len() - 1).unwrap_or(u32::MAX)
                            })
                        }))
                    })
                    .collect();
                list.sort_unstable();
                list.dedup();
                commits.push(list);
            }
        }
        self.paths.extend(added);
        self.commits.extend(commits);
        self
    }

    /// For each file changed with one of `seeds` (paths), its strongest link. Seeds themselves
    /// are included when they are linked to another seed.
    pub(crate) fn related(&self, seeds: &[&str]) -> FastMap<String, Link> {
        let mut out: FastMap<String, Link> = FastMap::default();
        for seed in seeds {
            let Some(sid) = self.paths.iter().position(|p| p == seed) else {
                continue;
            };
            let sid = u32::try_from(sid).unwrap_or(u32::MAX);
            let mut counts: FastMap<u32, u32> = FastMap::default();
            let mut n = 0u32;
            for c in self
                .commits
                .iter()
                .filter(|c| c.binary_search(&sid).is_ok())
            {
                n += 1;
                for &f in c.iter().filter(|&&f| f != sid) {
                    *counts.entry(f).or_default() += 1;
                }
            }
            for (f, both) in counts {
                let Some(path) = self.paths.get(f as usize) else {
                    continue;
                };
                let link = Link {
                    seed: (*seed).to_string(),
                    both,
                    seed_commits: n,
                };
                match out.get(path) {
                    Some(old) if old.strength() >= link.strength() => {}
                    _ => {
                        out.insert(path.clone(), link);
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn parses_log_and_links_files_changed_together() {
        let log = "\x01\n\nsrc/a.rs\nsrc/b.rs\n\x01\n\nsrc/a.rs\nsrc/b.rs\nsrc/c.rs\n\x01\n\nsrc/a.rs\n\x01\n\nREADME.md\n";
        let co = parse("abc", log);
        assert_eq!(co.commits.len(), 4);
        let rel = co.related(&["src/a.rs"]);
        assert_eq!(rel["src/b.rs"].both, 2);
        assert_eq!(rel["src/b.rs"].seed_commits, 3);
        assert!(rel["src/b.rs"].strength() > rel["src/c.rs"].strength());
        assert!(!rel.contains_key("README.md") && !rel.contains_key("src/a.rs"));
        assert!(co.related(&["nope.rs"]).is_empty());
    }

    /// `git args` in `dir` as a test user; its output, trimmed.
    pub(crate) fn git_in(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// `head_from_files` in `dir` gives `commit`, as git does (`case` names the layout).
    fn reads_head(dir: &Path, commit: &str, case: &str) {
        assert_eq!(head_from_files(dir).as_deref(), Some(commit), "{case}");
    }

    #[test]
    fn head_is_read_from_the_files_as_git_reads_it() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path().join("repo");
        std::fs::create_dir_all(r.join("sub")).unwrap();
        git_in(&r, &["init", "-q"]);
        assert_eq!(head_from_files(&r), None, "an unborn branch");
        assert_eq!(head(&r), None);
        std::fs::write(r.join("sub/a.rs"), "fn a() {}").unwrap();
        git_in(&r, &["add", "-A"]);
        git_in(&r, &["commit", "-qm", "one"]);
        let first = git_in(&r, &["rev-parse", "HEAD"]);
        reads_head(&r, &first, "a loose ref");
        reads_head(&r.join("sub"), &first, "from a subfolder");
        git_in(&r, &["pack-refs", "--all"]);
        reads_head(&r, &first, "a packed ref");
        git_in(&r, &["commit", "-q", "--allow-empty", "-m", "two"]);
        let second = git_in(&r, &["rev-parse", "HEAD"]);
        assert_ne!(first, second);
        reads_head(&r, &second, "loose over packed");
        git_in(&r, &["checkout", "-q", "--detach", &first]);
        reads_head(&r, &first, "detached");
        let wt = d.path().join("wt");
        let wt_arg = wt.to_str().unwrap();
        git_in(
            &r,
            &["worktree", "add", "-q", "-b", "side", wt_arg, &second],
        );
        reads_head(&wt, &second, "a worktree");
        assert_eq!(head(&wt), Some(second));
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(head_from_files(outside.path()), None);
    }

    #[test]
    fn sweeping_commits_are_skipped() {
        let mut log = String::from("\x01\n");
        for i in 0..=MAX_FILES {
            log.push_str(&format!("f{i}.rs\n"));
        }
        let co = parse("h", &log);
        assert_eq!(co.commits, [Vec::<u32>::new()], "counted, no files");
        assert!(co.paths.is_empty());
    }

    /// A `git log` output of commits, newest first, each a list of files.
    fn log_of(commits: &[&[&str]]) -> String {
        commits
            .iter()
            .map(|files| format!("\x01\n\n{}\n", files.join("\n")))
            .collect()
    }

    #[test]
    fn newer_commits_put_before_older_ones_are_the_whole_log_read_at_once() {
        let sweeping: Vec<String> = (0..=MAX_FILES).map(|i| format!("s{i}.rs")).collect();
        let sweeping: Vec<&str> = sweeping.iter().map(String::as_str).collect();
        let older: &[&[&str]] = &[&["b.rs", "c.rs"], &sweeping, &["a.rs", "b.rs"], &["d.rs"]];
        let newer: &[&[&str]] = &[&["e.rs", "a.rs"], &[], &["c.rs"]];
        let all: Vec<&[&str]> = newer.iter().chain(older).copied().collect();
        let joined = parse("new", &log_of(newer)).followed_by(&parse("old", &log_of(older)), 100);
        assert_eq!(joined, parse("new", &log_of(&all)));
        for limit in 0..all.len() {
            let cut =
                parse("new", &log_of(newer)).followed_by(&parse("old", &log_of(older)), limit);
            let want = parse("new", &log_of(&all[..limit.max(newer.len())]));
            assert_eq!(cut, want, "limit {limit}");
        }
    }

    #[test]
    fn a_history_advanced_to_a_later_head_is_the_history_read_there() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        git_in(r, &["init", "-q"]);
        let commit = |files: &[&str], msg: &str| {
            for f in files {
                std::fs::write(r.join(f), msg).unwrap();
            }
            git_in(r, &["add", "-A"]);
            git_in(r, &["commit", "-qm", msg]);
            git_in(r, &["rev-parse", "HEAD"])
        };
        commit(&["a.rs", "b.rs"], "one");
        let two = commit(&["b.rs", "c.rs"], "two");
        let old = read(r, &two).unwrap();
        commit(&["a.rs", "d.rs"], "three");
        let four = commit(&["d.rs"], "four");
        let advanced = advance(r, &old, &four).unwrap();
        assert_eq!(advanced, read(r, &four).unwrap());
        assert_eq!(advanced.commits.len(), 4);
        // HEAD no longer descends from the history's commit: read whole.
        git_in(r, &["checkout", "-q", "--orphan", "other"]);
        let other = commit(&["e.rs"], "other");
        assert_eq!(advance(r, &old, &other), read(r, &other));
        let gone = CoChange {
            head: "0".repeat(40),
            ..CoChange::default()
        };
        assert_eq!(advance(r, &gone, &four), read(r, &four));
    }
}
