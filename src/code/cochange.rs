//! Files changed together in the project's recent git history.
//!
//! Owns reading the history (`git log`, the last [`COMMITS`] commits without merges; commits
//! touching more than [`MAX_FILES`] files are sweeping changes that say nothing about coupling
//! and are skipped) and the pure question "which files change with these?". Outside a git
//! repository, or when git fails, there is simply no such evidence. Does not rank.

use std::path::Path;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::pin::text::FastMap;

/// How many recent commits are read.
pub const COMMITS: usize = 500;
/// Commits changing more files than this are skipped.
pub const MAX_FILES: usize = 20;

/// Recent commits as lists of the files they changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CoChange {
    /// The commit the history was read at (the cache is re-read when HEAD moves).
    pub head: String,
    pub paths: Vec<String>,
    /// Per commit, indexes into `paths`.
    pub commits: Vec<Vec<u32>>,
}

/// A file changed together with a seed file.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub seed: String,
    /// Commits that changed both, and commits that changed the seed.
    pub both: u32,
    pub seed_commits: u32,
}

impl Link {
    /// How strongly the file follows the seed: `both / (seed_commits + 1)` (a single shared
    /// commit is weak evidence).
    pub fn strength(&self) -> f64 {
        f64::from(self.both) / (f64::from(self.seed_commits) + 1.0)
    }
}

/// The commit HEAD points at, or `None` outside a git repository (or without git).
pub fn head(root: &Path) -> Option<String> {
    let out = git(root, &["rev-parse", "--verify", "-q", "HEAD"])?;
    let h = out.trim();
    (!h.is_empty()).then(|| h.to_string())
}

/// Read the recent history at `head` (paths relative to `root`).
pub fn read(root: &Path, head: &str) -> Option<CoChange> {
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
pub fn parse(head: &str, log: &str) -> CoChange {
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
    pub fn related(&self, seeds: &[&str]) -> FastMap<String, Link> {
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

    #[test]
    fn sweeping_commits_are_skipped() {
        let mut log = String::from("\x01\n");
        for i in 0..=MAX_FILES {
            log.push_str(&format!("f{i}.rs\n"));
        }
        assert!(parse("h", &log).commits.is_empty());
    }
}
