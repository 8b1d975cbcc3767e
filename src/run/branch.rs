//! The git side of a run's start: the work tree must be clean, and the run works on prd.json's
//! `branchName`.
//!
//! Before the first agent, inside a git work tree: uncommitted changes of the person's (tracked
//! edits, staged changes, untracked files that are not ignored) stop the run, since the agent's
//! first `git add -A` would sweep them into its commit, unless `--allow-dirty`; then `branchName`
//! is checked out, created when missing from `baseBranch` (a local branch, or `origin/<base>`) or
//! from HEAD. ralph's own files never count as uncommitted changes ([`Own`]). Outside git: a
//! warning, nothing else. Policy is pure ([`plan`], [`Own`], [`parse_status`]); [`inspect`] asks
//! git (read-only, also for `--dry-run`) and [`prepare`] acts. Does not own the archive on a
//! branch change (`super::archive`) or what the agent does on the branch.

use std::path::{Path, PathBuf};

use super::events::Event;
use super::git;
use crate::prd::Prd;

/// How many uncommitted paths an error or warning lists.
pub(crate) const SHOWN: usize = 10;

/// Why the run did not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BranchError {
    #[error(
        "{prd}: {pointer}: \"{name}\" is not a valid git branch name; nothing was checked out. Set branchName to a name git accepts, e.g. \"ralph/my-feature\" (no spaces, no `..`, `~`, `^`, `:`; see `git help check-ref-format`)",
        prd = prd.display()
    )]
    InvalidName {
        prd: PathBuf,
        pointer: String,
        name: String,
    },
    #[error(
        "{prd}: {pointer}: baseBranch \"{base}\" is neither a local branch nor origin/{base}, so branch {branch} cannot be created from it; nothing was checked out. Name an existing branch there (`git branch -a` lists them), fetch it (`git fetch origin {base}`), or remove baseBranch to start {branch} from HEAD",
        prd = prd.display()
    )]
    BaseMissing {
        prd: PathBuf,
        pointer: String,
        base: String,
        branch: String,
    },
    #[error(
        "{root}: the work tree has uncommitted changes, which the agent's first commit would sweep in:\n{list}\nNothing was checked out. Commit them, stash them (`git stash --include-untracked`), or run again with --allow-dirty to start anyway",
        root = root.display(),
        list = list(entries)
    )]
    Dirty { root: PathBuf, entries: Vec<Entry> },
    #[error(
        "{root}: the work tree has uncommitted changes, and a parallel run merges stories there:\n{list}\nNothing was checked out. Commit them or stash them (`git stash --include-untracked`), then run again (--allow-dirty does not apply to --parallel)",
        root = root.display(),
        list = list(entries)
    )]
    DirtyParallel { root: PathBuf, entries: Vec<Entry> },
    #[error(
        "{root}: `git {args}` refused, so the run did not start; nothing was changed, your files are as they were:\n{why}\nCommit or stash the files git names (or check out {branch} yourself), then run again",
        root = root.display()
    )]
    Checkout {
        root: PathBuf,
        args: String,
        branch: String,
        why: String,
    },
    #[error(
        "{root}: cannot run `git {args}`: {why}; check that git works in this repository (`git status`), then run again",
        root = root.display()
    )]
    Git {
        root: PathBuf,
        args: String,
        why: String,
    },
}

impl crate::problem::Coded for BranchError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        use crate::problem::Problem;
        Some(match self {
            BranchError::InvalidName { prd, pointer, .. } => {
                Problem::at("branch-name-invalid", prd).pointer(pointer)
            }
            BranchError::BaseMissing { prd, pointer, .. } => {
                Problem::at("base-branch-missing", prd).pointer(pointer)
            }
            BranchError::Dirty { root, .. } | BranchError::DirtyParallel { root, .. } => {
                Problem::at("dirty-tree", root)
            }
            BranchError::Checkout { root, .. } => Problem::at("checkout-refused", root),
            BranchError::Git { root, .. } => Problem::at("git", root),
        })
    }
}

pub(crate) use crate::kept::git::{Entry, parse_status};

/// At most [`SHOWN`] entries, one per line, and how many more there are.
pub(crate) fn list(entries: &[Entry]) -> String {
    let mut out: Vec<String> = entries
        .iter()
        .take(SHOWN)
        .map(|e| format!("  {} {}", e.code, e.path))
        .collect();
    if entries.len() > SHOWN {
        out.push(format!(
            "  … and {} more (`git status` lists them)",
            entries.len() - SHOWN
        ));
    }
    out.join("\n")
}

/// ralph's own files, repository-relative: they never count as the person's uncommitted
/// changes. prd.json and progress.txt are written by ralph (a `passes` flip, an archive, a
/// compaction) and by the agent, and are committed with the agent's work; `.ralph/` is state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Own {
    /// The project root inside the repository: `""` or `"scripts/ralph/"`.
    pub root: String,
    /// prd.json, when it is inside the repository.
    pub prd: Option<String>,
}

impl Own {
    pub(crate) fn contains(&self, path: &str) -> bool {
        if self.prd.as_deref() == Some(path) {
            return true;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        if name.starts_with(".ralph-tmp-") {
            return true; // an interrupted atomic write, removed by the next run
        }
        let Some(rel) = path.strip_prefix(&self.root) else {
            return false;
        };
        rel == "progress.txt" || rel == ".ralph" || rel.starts_with(".ralph/") || archived(rel)
    }
}

/// `archive/<YYYY-MM-DD>-<feature>/prd.json` or `…/progress.txt`: what `super::archive` writes.
fn archived(rel: &str) -> bool {
    let mut parts = rel.split('/');
    let (Some("archive"), Some(dir), Some("prd.json" | "progress.txt"), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let b = dir.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    b.len() > 11
        && digits(0..4)
        && digits(5..7)
        && digits(8..10)
        && [b[4], b[7], b[10]] == [b'-'; 3]
}

/// What git says about the branches, for [`plan`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// The checked-out branch; `None` on a detached HEAD.
    pub current: Option<String>,
    /// `refs/heads/<branchName>` exists.
    pub exists: bool,
    /// The ref `baseBranch` resolves to (`refs/heads/main`, `refs/remotes/origin/main`), when
    /// it is named and found.
    pub base: Option<String>,
}

/// What to do about the branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Already on `branchName`.
    Stay,
    /// `branchName` exists: check it out.
    Switch,
    /// Create `branchName` from this start point (the full ref `baseBranch` resolved to, so a
    /// tag of the same name cannot win; `None`: HEAD).
    Create(Option<String>),
    /// `baseBranch` is needed (the branch is missing) but does not exist.
    BaseMissing,
}

/// The pure rule: stay, switch, create from the base or from HEAD. `base` is `baseBranch` as
/// prd.json names it; it matters only when the branch has to be created.
pub(crate) fn plan(branch: &str, base: Option<&str>, f: &Facts) -> Plan {
    if f.current.as_deref() == Some(branch) {
        Plan::Stay
    } else if f.exists {
        Plan::Switch
    } else {
        match (base, &f.base) {
            (_, Some(start)) => Plan::Create(Some(start.clone())),
            (Some(_), None) => Plan::BaseMissing,
            (None, None) => Plan::Create(None),
        }
    }
}

/// Everything [`prepare`] acts on, read from git without changing anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Inspection {
    /// Not a git work tree (or no git): why, in words.
    Outside(String),
    /// prd.json has no `branchName` (blank): the run stays where it is.
    NoBranch { dirty: Vec<Entry> },
    /// `branchName` is not a valid branch name.
    InvalidName(String),
    Inside {
        branch: String,
        base: Option<String>,
        current: Option<String>,
        /// HEAD has no commit yet (a new repository).
        unborn: bool,
        plan: Plan,
        dirty: Vec<Entry>,
    },
}

/// The root as messages name it: `/home/me/app`, not `.`.
fn absolute(root: &Path) -> PathBuf {
    std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim().to_string()
}

/// Ask git (read-only) where the run stands.
pub(crate) fn inspect(root: &Path, prd: &Prd) -> Result<Inspection, BranchError> {
    let root = &absolute(root);
    let fail = |args: &[&str], why: String| BranchError::Git {
        root: root.to_path_buf(),
        args: args.join(" "),
        why,
    };
    let probe = ["rev-parse", "--is-inside-work-tree", "--show-prefix"];
    let out = match git::output(root, &probe) {
        Ok(o) => o,
        Err(e) => return Ok(Inspection::Outside(format!("git cannot be run ({e})"))),
    };
    let said = String::from_utf8_lossy(&out.stdout);
    let mut lines = said.lines();
    if !out.status.success() || lines.next() != Some("true") {
        return Ok(Inspection::Outside(format!(
            "{} is not in a git work tree",
            root.display()
        )));
    }
    let own = Own {
        root: lines.next().unwrap_or("").to_string(),
        prd: repo_path(root, &prd.path),
    };
    let status = [
        "--no-optional-locks",
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
    ];
    let out = git::output(root, &status).map_err(|e| fail(&status, e.to_string()))?;
    if !out.status.success() {
        return Err(fail(&status, text(&out.stderr)));
    }
    let dirty: Vec<Entry> = parse_status(&out.stdout)
        .into_iter()
        .filter(|e| !own.contains(&e.path))
        .collect();
    let str_field = |k: &str| {
        prd.value
            .get(k)
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let Some(branch) = str_field("branchName") else {
        return Ok(Inspection::NoBranch { dirty });
    };
    let verify = |r: &str| {
        git::output(root, &["rev-parse", "-q", "--verify", r]).is_ok_and(|o| o.status.success())
    };
    let valid = !branch.starts_with('-')
        && git::output(root, &["check-ref-format", &format!("refs/heads/{branch}")])
            .is_ok_and(|o| o.status.success());
    if !valid {
        return Ok(Inspection::InvalidName(branch.to_string()));
    }
    let current = git::output(root, &["symbolic-ref", "-q", "--short", "HEAD"])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout));
    let base = str_field("baseBranch");
    let facts = Facts {
        current: current.clone(),
        exists: verify(&format!("refs/heads/{branch}")),
        base: base.and_then(|b| {
            [
                format!("refs/heads/{b}"),
                format!("refs/remotes/origin/{b}"),
                format!("refs/remotes/{b}"),
            ]
            .into_iter()
            .find(|r| !b.starts_with('-') && verify(r))
        }),
    };
    Ok(Inspection::Inside {
        plan: plan(branch, base, &facts),
        branch: branch.to_string(),
        base: base.map(String::from),
        current,
        unborn: !verify("HEAD"),
        dirty,
    })
}

/// `path` relative to the repository's top, when it is inside it.
fn repo_path(root: &Path, path: &Path) -> Option<String> {
    let top = git::output(root, &["rev-parse", "--show-toplevel"]).ok()?;
    let top = std::fs::canonicalize(text(&top.stdout)).ok()?;
    let file = match (std::fs::canonicalize(path), path.parent(), path.file_name()) {
        (Ok(f), _, _) => f,
        // Not there (deleted meanwhile): its folder's real path and its name.
        (Err(_), Some(dir), Some(name)) => std::fs::canonicalize(dir).ok()?.join(name),
        _ => return None,
    };
    let rel = file.strip_prefix(&top).ok()?;
    Some(rel.to_string_lossy().replace('\\', "/"))
}

/// "from main", "from HEAD (master)", "from HEAD (detached)", "with no commits yet".
fn origin(start: Option<&str>, current: Option<&str>, unborn: bool) -> String {
    match (start, current) {
        (Some(s), _) => {
            let s = s.strip_prefix("refs/heads/").unwrap_or(s);
            format!("from {}", s.strip_prefix("refs/remotes/").unwrap_or(s))
        }
        (None, _) if unborn => "in a repository with no commits yet".into(),
        (None, Some(c)) => format!("from HEAD ({c})"),
        (None, None) => "from HEAD (detached)".into(),
    }
}

fn short(entries: &[Entry]) -> String {
    let names: Vec<&str> = entries
        .iter()
        .take(SHOWN)
        .map(|e| e.path.as_str())
        .collect();
    let more = entries.len().saturating_sub(SHOWN);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "{} uncommitted path(s): {}{more}",
        entries.len(),
        names.join(", ")
    )
}

/// What `--dry-run` says: the lines a real run would act on, nothing done.
pub(crate) fn describe(i: &Inspection, allow_dirty: bool) -> Vec<String> {
    let dirty_line = |dirty: &[Entry]| {
        (!dirty.is_empty()).then(|| {
            if allow_dirty {
                format!("work tree: {}; would start anyway (--allow-dirty)", short(dirty))
            } else {
                format!(
                    "work tree: {}; the run would refuse to start (commit or stash them, or --allow-dirty)",
                    short(dirty)
                )
            }
        })
    };
    match i {
        Inspection::Outside(why) => vec![format!(
            "git: {why}: no branch, no commits, nothing can be rolled back"
        )],
        Inspection::NoBranch { dirty } => std::iter::once(
            "branch: prd.json names no branchName; would stay on the current branch".to_string(),
        )
        .chain(dirty_line(dirty))
        .collect(),
        Inspection::InvalidName(name) => vec![format!(
            "branch: \"{name}\" is not a valid git branch name; the run would stop"
        )],
        Inspection::Inside {
            branch,
            base,
            current,
            unborn,
            plan,
            dirty,
        } => {
            let what = match plan {
                Plan::Stay => format!("branch: {branch} (checked out)"),
                Plan::Switch => format!("branch: would switch to {branch}"),
                Plan::Create(start) => format!(
                    "branch: would create {branch} {} and switch to it",
                    origin(start.as_deref(), current.as_deref(), *unborn)
                ),
                Plan::BaseMissing => format!(
                    "branch: {branch} is missing and baseBranch \"{}\" does not exist; the run would stop",
                    base.as_deref().unwrap_or("")
                ),
            };
            std::iter::once(what).chain(dirty_line(dirty)).collect()
        }
    }
}

/// Before the first agent: refuse a dirty tree (unless `allow_dirty`), then check out the
/// branch. Returns what to report ("switched to …", warnings).
pub(crate) fn prepare(
    root: &Path,
    prd: &Prd,
    allow_dirty: bool,
) -> Result<Vec<Event>, BranchError> {
    let root = &absolute(root);
    let inspection = inspect(root, prd)?;
    let mut notes = Vec::new();
    let pointer = |k: &str| prd.dialect.raw_pointer(k);
    let mut dirty_ok = |dirty: &[Entry]| -> Result<(), BranchError> {
        if dirty.is_empty() {
            return Ok(());
        }
        if !allow_dirty {
            return Err(BranchError::Dirty {
                root: root.to_path_buf(),
                entries: dirty.to_vec(),
            });
        }
        notes.push(Event::Warning {
            text: format!(
                "starting with {} (--allow-dirty); the agent's first commit may include them",
                short(dirty)
            ),
        });
        Ok(())
    };
    let (branch, current, unborn, plan) = match inspection {
        Inspection::Outside(why) => {
            return Ok(vec![Event::Warning {
                text: format!(
                    "{why}: no branch, no commits, so nothing the agent does can be rolled back (`git init` and a first commit give you both)"
                ),
            }]);
        }
        Inspection::NoBranch { dirty } => {
            dirty_ok(&dirty)?;
            notes.push(Event::Warning {
                text: format!(
                    "{} names no branchName; the run stays on the current branch",
                    prd.path.display()
                ),
            });
            return Ok(notes);
        }
        Inspection::InvalidName(name) => {
            return Err(BranchError::InvalidName {
                prd: prd.path.clone(),
                pointer: pointer("/branchName"),
                name,
            });
        }
        Inspection::Inside {
            branch,
            base,
            current,
            unborn,
            plan,
            dirty,
        } => {
            if plan == Plan::BaseMissing {
                return Err(BranchError::BaseMissing {
                    prd: prd.path.clone(),
                    pointer: pointer("/baseBranch"),
                    base: base.unwrap_or_default(),
                    branch,
                });
            }
            dirty_ok(&dirty)?;
            (branch, current, unborn, plan)
        }
    };
    let args: Vec<String> = match &plan {
        Plan::Stay | Plan::BaseMissing => return Ok(notes),
        Plan::Switch => vec!["checkout".into(), "-q".into(), branch.clone(), "--".into()],
        Plan::Create(start) => {
            let mut a = vec!["checkout", "-q", "--no-track", "-b", &branch]
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>();
            a.extend(start.clone());
            a.push("--".into());
            a
        }
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = git::output(root, &args).map_err(|e| BranchError::Git {
        root: root.to_path_buf(),
        args: args.join(" "),
        why: e.to_string(),
    })?;
    if !out.status.success() {
        return Err(BranchError::Checkout {
            root: root.to_path_buf(),
            args: args.join(" "),
            branch,
            why: text(&out.stderr),
        });
    }
    let text = match plan {
        Plan::Create(start) => format!(
            "switched to branch {branch} (created {})",
            origin(start.as_deref(), current.as_deref(), unborn)
        ),
        _ => format!(
            "switched to branch {branch} (was {})",
            current.as_deref().unwrap_or("a detached HEAD")
        ),
    };
    notes.push(Event::Note { text });
    Ok(notes)
}

/// What the run says when the checkout changed prd.json: it goes on with the branch's
/// version, and warns when that names another branchName.
pub(crate) fn changed_notes(path: &Path, before: &Prd, after: &Prd) -> Vec<Event> {
    let mut out = vec![Event::Note {
        text: format!(
            "{} changed with the checkout: the run uses the branch's version",
            path.display()
        ),
    }];
    let name = |p: &Prd| p.value.get("branchName").cloned();
    if name(after) != name(before) {
        out.push(Event::Warning {
            text: format!(
                "the branch's {} names another branchName ({}); the run goes on with it",
                path.display(),
                name(after).unwrap_or_default()
            ),
        });
    }
    out
}

mod parallel;
pub(crate) use parallel::prepare_parallel;

#[cfg(test)]
mod tests;
