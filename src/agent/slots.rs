//! The run-time values a preset's argv asks for, filled in just before the agent starts: the
//! file a CLI writes its usage to (Copilot CLI), and the git directories it must be allowed to
//! write (Codex's `workspace-write` sandbox keeps `.git` read-only, so its commits fail).
//!
//! Owns the placeholders, filling them ([`fill`], pure: a slot with no value drops its flag
//! too), and reading the git directories of a folder ([`git_dirs`], the one I/O here). Does
//! not choose the argv ([`super::preset`]).

use std::path::{Path, PathBuf};

/// Where an argv wants the file the CLI writes its usage to.
pub(crate) const USAGE_FILE: &str = "{usage_file}";
/// Where an argv wants the git directories, as a TOML array of strings.
pub(crate) const GIT_DIRS: &str = "{git_dirs}";

/// The values of one run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Slots {
    pub usage_file: Option<PathBuf>,
    /// The work tree's git dir and the repository's common dir (the same for a plain clone).
    pub git_dirs: Vec<PathBuf>,
}

/// `argv` with every slot filled; an argument holding a slot that has no value is dropped with
/// the flag before it (`-c x={git_dirs}` outside git, `--usage-output-file {usage_file}`
/// when no file is given).
pub(crate) fn fill(argv: &[String], s: &Slots) -> Vec<String> {
    let usage = s.usage_file.as_ref().map(|p| p.display().to_string());
    let dirs = (!s.git_dirs.is_empty()).then(|| toml_array(&s.git_dirs));
    let mut out: Vec<String> = Vec::with_capacity(argv.len());
    for a in argv {
        let mut v = a.clone();
        for (slot, value) in [(USAGE_FILE, &usage), (GIT_DIRS, &dirs)] {
            if !v.contains(slot) {
                continue;
            }
            match value {
                Some(x) => v = v.replace(slot, x),
                None => {
                    out.pop();
                    v.clear();
                    break;
                }
            }
        }
        if !v.is_empty() || a.is_empty() {
            out.push(v);
        }
    }
    out
}

/// `["/p/.git","/q"]`, each path a TOML basic string.
fn toml_array(paths: &[PathBuf]) -> String {
    let items: Vec<String> = paths
        .iter()
        .map(|p| {
            let s = p.display().to_string();
            format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
        })
        .collect();
    format!("[{}]", items.join(","))
}

/// The git dir of the work tree at `cwd` and the repository's common dir (absolute, each once);
/// empty outside git.
pub(crate) fn git_dirs(cwd: &Path) -> Vec<PathBuf> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["rev-parse", "--absolute-git-dir", "--git-common-dir"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        return vec![];
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut dirs: Vec<PathBuf> = vec![];
    for line in text.lines().filter(|l| !l.is_empty()) {
        let p = Path::new(line);
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        };
        let p = std::fs::canonicalize(&p).unwrap_or(p);
        if !dirs.contains(&p) {
            dirs.push(p);
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn slots_are_filled_or_dropped_with_their_flag() {
        let a = argv(&[
            "codex",
            "-c",
            "sandbox_workspace_write.writable_roots={git_dirs}",
            "--usage-output-file",
            "{usage_file}",
            "-",
        ]);
        let full = Slots {
            usage_file: Some("/r/iter-1.usage.json".into()),
            git_dirs: vec!["/p/.git".into(), "/p/.git/worktrees/a \"b\"".into()],
        };
        assert_eq!(
            fill(&a, &full),
            argv(&[
                "codex",
                "-c",
                r#"sandbox_workspace_write.writable_roots=["/p/.git","/p/.git/worktrees/a \"b\""]"#,
                "--usage-output-file",
                "/r/iter-1.usage.json",
                "-",
            ])
        );
        assert_eq!(fill(&a, &Slots::default()), argv(&["codex", "-"]));
        assert_eq!(fill(&argv(&["x", ""]), &Slots::default()), argv(&["x", ""]));
    }

    #[test]
    fn the_git_dirs_of_a_clone_and_of_a_worktree() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        let git = |dir: &Path, args: &[&str]| {
            let ok = std::process::Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(args)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&root, &["init", "-q"]);
        git(
            &root,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "i",
            ],
        );
        let canon = std::fs::canonicalize(&root).unwrap();
        assert_eq!(git_dirs(&root), [canon.join(".git")]);
        git(&root, &["worktree", "add", "-q", "../wt", "-b", "side"]);
        let wt = d.path().join("wt");
        assert_eq!(
            git_dirs(&wt),
            [canon.join(".git/worktrees/wt"), canon.join(".git")]
        );
    }
}
