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
//! branch change (`crate::state::archive`) or what the agent does on the branch.

use std::path::{Path, PathBuf};

use crate::prd::Prd;
use crate::run::events::Event;
use crate::run::git;

pub(crate) use crate::kept::git::{Entry, parse_status};
pub(crate) use error::{BranchError, SHOWN};

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

/// `archive/<YYYY-MM-DD>-<feature>/prd.json` or `…/progress.txt`: what `crate::state::archive`
/// writes.
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
    let prefix = match prefix(root) {
        Ok(p) => p,
        Err(outside) => return Ok(Inspection::Outside(outside)),
    };
    let own = Own {
        root: prefix,
        prd: repo_path(root, &prd.path),
    };
    let dirty = dirty(root, &own)?;
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
    let valid = !branch.starts_with('-')
        && git::output(root, &["check-ref-format", &format!("refs/heads/{branch}")])
            .is_ok_and(|o| o.status.success());
    if !valid {
        return Ok(Inspection::InvalidName(branch.to_string()));
    }
    let base = str_field("baseBranch");
    let facts = facts(root, branch, base);
    Ok(Inspection::Inside {
        plan: plan(branch, base, &facts),
        branch: branch.to_string(),
        base: base.map(String::from),
        current: facts.current,
        unborn: !verify(root, "HEAD"),
        dirty,
    })
}

/// The root's path inside its work tree (`sub/dir/`, or empty at the top); why it is outside
/// git otherwise.
fn prefix(root: &Path) -> Result<String, String> {
    let probe = ["rev-parse", "--is-inside-work-tree", "--show-prefix"];
    let out = git::output(root, &probe).map_err(|e| format!("git cannot be run ({e})"))?;
    let said = String::from_utf8_lossy(&out.stdout);
    let mut lines = said.lines();
    if !out.status.success() || lines.next() != Some("true") {
        return Err(format!("{} is not in a git work tree", root.display()));
    }
    Ok(lines.next().unwrap_or("").to_string())
}

/// The uncommitted paths that are not ralph's own.
fn dirty(root: &Path, own: &Own) -> Result<Vec<Entry>, BranchError> {
    let status = [
        "--no-optional-locks",
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
    ];
    let fail = |why: String| BranchError::Git {
        root: root.to_path_buf(),
        args: status.join(" "),
        why,
    };
    let out = git::output(root, &status).map_err(|e| fail(e.to_string()))?;
    if !out.status.success() {
        return Err(fail(text(&out.stderr)));
    }
    Ok(parse_status(&out.stdout)
        .into_iter()
        .filter(|e| !own.contains(&e.path))
        .collect())
}

/// Whether `r` names a commit.
fn verify(root: &Path, r: &str) -> bool {
    git::output(root, &["rev-parse", "-q", "--verify", r]).is_ok_and(|o| o.status.success())
}

/// What the plan reads from git: the branch checked out, whether `branch` exists, the ref
/// `base` resolves to (local, then origin's, then as given).
fn facts(root: &Path, branch: &str, base: Option<&str>) -> Facts {
    let current = git::output(root, &["symbolic-ref", "-q", "--short", "HEAD"])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout));
    Facts {
        current,
        exists: verify(root, &format!("refs/heads/{branch}")),
        base: base.and_then(|b| {
            [
                format!("refs/heads/{b}"),
                format!("refs/remotes/origin/{b}"),
                format!("refs/remotes/{b}"),
            ]
            .into_iter()
            .find(|r| !b.starts_with('-') && verify(root, r))
        }),
    }
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
    let mut dirty_ok =
        |dirty: &[Entry]| allowed_dirty(root, dirty, allow_dirty).map(|w| notes.extend(w));
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
    notes.extend(checkout(root, branch, current, unborn, plan)?);
    Ok(notes)
}

/// Uncommitted changes: refused, or (with `allow_dirty`) the warning that the agent's first
/// commit may include them.
fn allowed_dirty(
    root: &Path,
    dirty: &[Entry],
    allow_dirty: bool,
) -> Result<Option<Event>, BranchError> {
    if dirty.is_empty() {
        return Ok(None);
    }
    if !allow_dirty {
        return Err(BranchError::Dirty {
            root: root.to_path_buf(),
            entries: dirty.to_vec(),
        });
    }
    Ok(Some(Event::Warning {
        text: format!(
            "starting with {} (--allow-dirty); the agent's first commit may include them",
            short(dirty)
        ),
    }))
}

/// Carry out the plan: check `branch` out (or create it), and say so.
fn checkout(
    root: &Path,
    branch: String,
    current: Option<String>,
    unborn: bool,
    plan: Plan,
) -> Result<Option<Event>, BranchError> {
    let args: Vec<String> = match &plan {
        Plan::Stay | Plan::BaseMissing => return Ok(None),
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
    Ok(Some(Event::Note { text }))
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

mod error;
pub(crate) mod parallel;

#[cfg(test)]
mod tests;
