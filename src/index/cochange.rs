//! Files changed together in the project's recent git history.
//!
//! Owns reading the history (`git log`, the last [`COMMITS`] commits without merges; commits
//! touching more than [`MAX_FILES`] files are sweeping changes that say nothing about coupling
//! and are skipped) and the pure question "which files change with these?". Outside a git
//! repository, or when git fails, there is simply no such evidence. Does not rank.

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
    /// Per commit, indexes into `paths`.
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
    let n = format!("-n{COMMITS}");
    let out = git(
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
            head,
        ],
    )?;
    Some(parse(head, &out))
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
    for commit in log.split('\x01') {
        let files: Vec<&str> = commit
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if files.is_empty() || files.len() > MAX_FILES {
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
mod tests {
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

    fn git_in(dir: &Path, args: &[&str]) -> String {
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
        assert_eq!(
            head_from_files(&r).as_deref(),
            Some(first.as_str()),
            "a loose ref"
        );
        assert_eq!(
            head_from_files(&r.join("sub")).as_deref(),
            Some(first.as_str())
        );
        git_in(&r, &["pack-refs", "--all"]);
        assert_eq!(
            head_from_files(&r).as_deref(),
            Some(first.as_str()),
            "a packed ref"
        );
        git_in(&r, &["commit", "-q", "--allow-empty", "-m", "two"]);
        let second = git_in(&r, &["rev-parse", "HEAD"]);
        assert_ne!(first, second);
        assert_eq!(
            head_from_files(&r).as_deref(),
            Some(second.as_str()),
            "loose over packed"
        );
        git_in(&r, &["checkout", "-q", "--detach", &first]);
        assert_eq!(
            head_from_files(&r).as_deref(),
            Some(first.as_str()),
            "detached"
        );
        let wt = d.path().join("wt");
        git_in(
            &r,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "side",
                wt.to_str().unwrap(),
                &second,
            ],
        );
        assert_eq!(
            head_from_files(&wt).as_deref(),
            Some(second.as_str()),
            "a worktree"
        );
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
        assert!(parse("h", &log).commits.is_empty());
    }
}
