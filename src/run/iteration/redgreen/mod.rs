//! The red-green gate (`--red-green`, `[verify] red_green`, a story's `redGreen`): once a
//! story's verify gate has passed, its test-file changes alone go onto the story's base commit
//! in a scratch worktree, and the red run's commands run there: they must fail. A passing red
//! run (the tests pass without the change) or a story that changed no test file goes back.
//!
//! Owns the I/O: the story's changed paths (`git diff` against the base and the untracked
//! files of the tree the gate ran in, which is only read), the scratch worktree (made with
//! `git worktree add --detach` under the main tree's `.ralph/red-green/`, hooks off, removed
//! after the run), the copies, the optional `[verify] red_green_setup`, the run. Cargo builds
//! into `.ralph/red-green/target` (kept between red runs), never the project's own target.
//! Only folders ralph made are removed: `.ralph/red-green/<pid>-…` of a ralph no longer
//! running. The policy (test files, verdict, words) is [`policy`]; the gate that calls this
//! is [`super::gate`].

pub(crate) mod policy;

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::attempt::ToVerify;
use super::verify;
use crate::agent::AgentError;
use crate::config::Settings;
use crate::prd::Story;
use crate::run::git;
use crate::state::history::RedGreenRecord;
use policy::{Red, TestFiles};

/// Whether the red-green gate is on for `story` (its `redGreen` first, then the run's).
pub(crate) fn enabled(settings: &Settings, story: &Story) -> bool {
    story.red_green.unwrap_or(settings.red_green.enabled)
}

/// `ralph run --dry-run`'s line about the gate, when it is on for `story`.
pub(crate) fn plan_line(settings: &Settings, story: &Story) -> Option<String> {
    if !enabled(settings, story) {
        return None;
    }
    let cmds = policy::red_commands(&settings.verify, &story.verify);
    Some(if cmds.is_empty() {
        "red-green: on, but no verify command can run the tests: it will be inconclusive".into()
    } else {
        format!(
            "red-green: on: once the gate passes, the story's test-file changes alone, on its base commit in a scratch worktree under .ralph/red-green/, must fail: {}",
            cmds.join(" && ")
        )
    })
}

/// What the red run gave.
pub(crate) struct RedRun {
    pub red: Red,
    pub record: RedGreenRecord,
    pub interrupted: bool,
    /// The commands it ran (or would have).
    pub commands: Vec<String>,
    /// Something to tell the person besides the verdict (a leftover scratch worktree).
    pub warnings: Vec<String>,
}

/// Run the red run (see the module doc). `Err` only when a command cannot be supervised.
pub(crate) fn run(inp: &ToVerify<'_>) -> Result<RedRun, AgentError> {
    let t0 = Instant::now();
    let s = &inp.at.opts.settings;
    let commands = policy::red_commands(&s.verify, &inp.at.story.verify);
    let mut out = RedRun {
        red: Red::Inconclusive(String::new()),
        record: RedGreenRecord {
            result: String::new(),
            base: inp.base.map(String::from),
            test_files: vec![],
            verify: vec![],
            duration_ms: 0,
            why: None,
        },
        interrupted: false,
        commands,
        warnings: vec![],
    };
    out.red = judged(inp, &mut out)?;
    out.record.result = out.red.name().to_string();
    if let Red::Inconclusive(why) = &out.red {
        out.record.why = Some(why.clone());
    }
    out.record.duration_ms = t0.elapsed().as_millis() as u64;
    Ok(out)
}

/// The verdict, filling in `out`'s test files and results on the way.
fn judged(inp: &ToVerify<'_>, out: &mut RedRun) -> Result<Red, AgentError> {
    let Some(base) = inp.base else {
        return Ok(Red::Inconclusive(
            "no base commit to put the tests on (not a git repository, or no commit yet)".into(),
        ));
    };
    let tests = match TestFiles::new(inp.at.opts.settings.red_green.test_patterns.as_deref()) {
        Ok(t) => t,
        Err(e) => return Ok(Red::Inconclusive(format!("[verify] test_patterns: {e}"))),
    };
    let changed = match changed_paths(inp.at.opts.root.as_path(), base, inp.prd_rel) {
        Ok(c) => c,
        Err(why) => return Ok(Red::Inconclusive(why)),
    };
    out.record.test_files = changed.into_iter().filter(|p| tests.matches(p)).collect();
    if out.record.test_files.is_empty() {
        return Ok(Red::NoTests);
    }
    if out.commands.is_empty() {
        return Ok(policy::judge(&[]));
    }
    let prefix = project_prefix(inp.at.opts.root.as_path());
    let area = scratch_area(inp.at.opts.root.as_path(), &prefix);
    out.warnings.extend(sweep_leftovers(&area));
    let scratch = area.join(format!(
        "{}-{}-{}",
        std::process::id(),
        slug(&inp.at.story.id),
        inp.at.n
    ));
    if let Err(why) = make_scratch(inp.at.opts.root.as_path(), &scratch, base) {
        return Ok(Red::Inconclusive(why));
    }
    // The project's folder in the scratch worktree (the root, unless the project is a
    // subfolder of its repository).
    let project = scratch.join(&prefix);
    let red = in_scratch(inp, out, &area, &project);
    if let Some(w) = remove_scratch(inp.at.opts.root.as_path(), &scratch) {
        out.warnings.push(w);
    }
    red
}

/// Where the project's root is inside its repository (`sub/dir/`, or empty at the top).
fn project_prefix(root: &Path) -> PathBuf {
    git::output(root, &["rev-parse", "--show-prefix"])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .unwrap_or_default()
}

/// Copy the tests in, run the setup and the commands in the scratch worktree.
fn in_scratch(
    inp: &ToVerify<'_>,
    out: &mut RedRun,
    area: &Path,
    scratch: &Path,
) -> Result<Red, AgentError> {
    if let Err(why) = copy_tests(inp.at.opts.root.as_path(), scratch, &out.record.test_files) {
        return Ok(Red::Inconclusive(why));
    }
    let s = &inp.at.opts.settings;
    let env = vec![
        ("RALPH_RED_RUN".to_string(), "1".to_string()),
        (
            "RALPH_MAIN_TREE".to_string(),
            inp.at.opts.root.as_path().display().to_string(),
        ),
        ("RALPH_STORY_ID".to_string(), inp.at.story.id.clone()),
        (
            "CARGO_TARGET_DIR".to_string(),
            area.join("target").display().to_string(),
        ),
    ];
    let venv = |label| verify::VerifyEnv {
        root: inp.at.opts.root.as_path(),
        dir: Some(scratch),
        env: &env,
        label,
        timeout: s.timeout,
        grace: s.grace,
        log: inp.log.clone(),
        echo: inp.at.opts.echo,
        interrupt: inp.at.interrupt,
        sweep_orphans: s.parallel <= 1,
        reporter: &*inp.at.opts.reporter,
    };
    if let Some(setup) = &s.red_green.setup {
        let g = verify::run_all(std::slice::from_ref(setup), &venv("red run setup"))?;
        if g.interrupted {
            out.interrupted = true;
            return Ok(Red::Inconclusive("interrupted".into()));
        }
        if let Some(r) = g.results.iter().find(|r| !r.passed) {
            return Ok(Red::Inconclusive(format!(
                "the setup `{setup}` {}",
                ended(r.exit_code, r.timed_out)
            )));
        }
    } else if let Some(dir) = missing_dependencies(inp.at.opts.root.as_path()) {
        out.warnings.push(format!(
            "the scratch worktree holds only tracked files: {dir} is not there; if the verify commands need it, set [verify] red_green_setup (e.g. \"npm ci\")"
        ));
    }
    let g = verify::run_all(&out.commands, &venv("red run"))?;
    out.record.verify = g.results;
    if g.interrupted {
        out.interrupted = true;
        return Ok(Red::Inconclusive("interrupted".into()));
    }
    Ok(policy::judge(&out.record.verify))
}

/// "exited 1", "timed out", "was killed".
fn ended(code: Option<i32>, timed_out: bool) -> String {
    match (timed_out, code) {
        (true, _) => "timed out".into(),
        (false, Some(c)) => format!("exited {c}"),
        (false, None) => "was killed".into(),
    }
}

/// The paths the story changed, relative to the root: tracked ones against `base` (the tree
/// as it is, committed or not, deletions included) and untracked ones, without ralph's own
/// files.
fn changed_paths(root: &Path, base: &str, prd_rel: &str) -> Result<Vec<String>, String> {
    let run = |args: &[&str]| -> Result<Vec<String>, String> {
        let o = git::output(root, args).map_err(|e| format!("cannot run git: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "`git {}` failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        Ok(o.stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    };
    // `--relative`: paths from the project root, only under it (as `ls-files` gives them).
    let mut paths = run(&[
        "diff",
        "--name-only",
        "--relative",
        "-z",
        "--no-renames",
        base,
        "--",
    ])?;
    paths.extend(run(&["ls-files", "-z", "--others", "--exclude-standard"])?);
    paths.sort();
    paths.dedup();
    paths.retain(|p| p != prd_rel && p != "progress.txt" && !p.starts_with(".ralph/"));
    Ok(paths)
}

/// `.ralph/red-green/` of the project in the main work tree (a parallel story's worktree
/// shares its main tree's, so Cargo's cache there is warm for every story).
fn scratch_area(root: &Path, prefix: &Path) -> PathBuf {
    let common = git::output(
        root,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .ok()
    .filter(|o| o.status.success())
    .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let main = match common {
        Some(c) if c.file_name().is_some_and(|n| n == ".git") => c
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| root.to_path_buf()),
        _ => root.to_path_buf(),
    };
    let project = if main == root {
        main
    } else {
        main.join(prefix)
    };
    crate::state::state_dir(&project).join("red-green")
}

/// A story id as a folder name part.
fn slug(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if s.is_empty() { "story".into() } else { s }
}

/// The pid a scratch folder's name starts with (`<pid>-<story>-<n>`).
fn owner_pid(name: &str) -> Option<u32> {
    let (pid, rest) = name.split_once('-')?;
    (!rest.is_empty()).then_some(())?;
    pid.parse().ok()
}

/// Remove the scratch worktrees a ralph that is no longer running left (killed mid red run).
fn sweep_leftovers(area: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(area) else {
        return vec![];
    };
    let me = std::process::id();
    let mut warnings = vec![];
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = owner_pid(&name) else {
            continue;
        };
        if pid == me || crate::state::lock::pid_alive(&pid.to_string()) {
            continue;
        }
        warnings.extend(remove_scratch(area, &e.path()));
    }
    warnings
}

/// `git worktree add --detach` at `base`, hooks off (a post-checkout hook is the person's,
/// not the red run's).
fn make_scratch(root: &Path, scratch: &Path, base: &str) -> Result<(), String> {
    if let Some(parent) = scratch.parent() {
        crate::fsutil::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    let p = scratch.to_string_lossy().into_owned();
    let _turn = crate::kept::git::worktrees_lock();
    let o = git::output(
        root,
        &[
            "-c",
            "core.hooksPath=/dev/null",
            "worktree",
            "add",
            "--detach",
            "-q",
            &p,
            base,
        ],
    )
    .map_err(|e| format!("cannot run git: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "cannot make the scratch worktree {p}: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

/// Remove a scratch worktree ralph made; a warning when something is left.
fn remove_scratch(root: &Path, scratch: &Path) -> Option<String> {
    let p = scratch.to_string_lossy().into_owned();
    let _turn = crate::kept::git::worktrees_lock();
    let removed =
        git::output(root, &["worktree", "remove", "--force", &p]).is_ok_and(|o| o.status.success());
    if !removed {
        let _ = std::fs::remove_dir_all(scratch);
        let _ = git::output(root, &["worktree", "prune"]);
    }
    scratch.exists().then(|| {
        format!("could not remove the scratch worktree {p}; `git worktree remove --force {p}` does")
    })
}

/// Put each test file of the tree into the scratch worktree as the tree has it (a file the
/// story deleted is deleted there too).
fn copy_tests(root: &Path, scratch: &Path, paths: &[String]) -> Result<(), String> {
    for rel in paths {
        let safe = Path::new(rel)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !safe {
            return Err(format!("refusing to copy the path {rel:?}"));
        }
        let (from, to) = (root.join(rel), scratch.join(rel));
        let fail = |e: std::io::Error| format!("cannot copy {rel} into the scratch worktree: {e}");
        match std::fs::symlink_metadata(&from) {
            Ok(m) if m.is_dir() => continue, // a submodule or nested repository
            Ok(m) => {
                if let Some(parent) = to.parent() {
                    std::fs::create_dir_all(parent).map_err(fail)?;
                }
                if std::fs::symlink_metadata(&to).is_ok() {
                    std::fs::remove_file(&to).map_err(fail)?;
                }
                if m.file_type().is_symlink() {
                    let target = std::fs::read_link(&from).map_err(fail)?;
                    std::os::unix::fs::symlink(target, &to).map_err(fail)?;
                } else {
                    std::fs::copy(&from, &to).map_err(fail)?;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if std::fs::symlink_metadata(&to).is_ok() {
                    std::fs::remove_file(&to).map_err(fail)?;
                }
            }
            Err(e) => return Err(fail(e)),
        }
    }
    Ok(())
}

/// An untracked dependency folder of the tree that a scratch worktree will not have.
fn missing_dependencies(root: &Path) -> Option<&'static str> {
    ["node_modules", ".venv", "venv"]
        .into_iter()
        .find(|d| root.join(d).is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_names_carry_the_pid_and_a_safe_story_id() {
        assert_eq!(slug("US-001"), "US-001");
        assert_eq!(slug("a/b c"), "a_b_c");
        assert_eq!(slug(""), "story");
        assert_eq!(owner_pid("4242-US-001-3"), Some(4242));
        assert_eq!(owner_pid("target"), None);
        assert_eq!(owner_pid("12-"), None);
        assert_eq!(ended(Some(1), false), "exited 1");
        assert_eq!(ended(None, true), "timed out");
    }

    #[test]
    fn copies_test_files_and_deletes_the_deleted_ones_only() {
        let (root, scratch) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::create_dir_all(root.path().join("tests")).unwrap();
        std::fs::write(root.path().join("tests/new.rs"), "new").unwrap();
        std::fs::create_dir_all(scratch.path().join("tests")).unwrap();
        std::fs::write(scratch.path().join("tests/gone.rs"), "old").unwrap();
        std::fs::write(scratch.path().join("tests/kept.rs"), "kept").unwrap();
        let paths = ["tests/new.rs".to_string(), "tests/gone.rs".to_string()];
        copy_tests(root.path(), scratch.path(), &paths).unwrap();
        let read = |p: &str| std::fs::read_to_string(scratch.path().join(p)).ok();
        assert_eq!(read("tests/new.rs").as_deref(), Some("new"));
        assert_eq!(read("tests/gone.rs"), None);
        assert_eq!(read("tests/kept.rs").as_deref(), Some("kept"));
        assert!(copy_tests(root.path(), scratch.path(), &["../x".into()]).is_err());
    }
}
