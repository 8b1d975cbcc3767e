//! The I/O of a clean: finding what ralph left (run folders, rejected copies, its own archives)
//! with each one's time, asking git which archives it tracks (only when there is an `archive/`),
//! measuring what is shown (the removals, the tracked archives) and removing what the policy
//! ([`super::plan`]) says goes.
//!
//! Never leaves the project: a kind's folder that resolves outside the root is skipped with a
//! warning, and a symlink found among the items is removed itself, never what it points at. An
//! `archive/` folder is ralph's only when its name starts with a date and it holds nothing but
//! prd.json and progress.txt: anything else there is the person's and is not touched. A failed
//! removal is reported; the others still go. An item listed but gone when its removal comes is
//! not counted as removed. Archives are kept whole when git cannot say which it tracks and the
//! project may be in a repository.

use std::collections::HashSet;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use super::{Category, Item, Keep, Limits, Plan};
use crate::state::{self, runs};

/// What a clean found, decided and did.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sweep {
    pub plan: Plan,
    /// Nothing was removed: `--dry-run`.
    pub dry_run: bool,
    /// Items the policy removed that could not be, with why.
    pub failed: Vec<(Item, String)>,
    /// Items listed, but not found when their removal came: not counted as removed.
    pub gone: Vec<Item>,
    /// Folders not looked at, with why (outside the project, unreadable).
    pub warnings: Vec<String>,
}

impl Sweep {
    /// What was removed (or would be, in a dry run).
    pub(crate) fn removed(&self) -> impl Iterator<Item = &Item> {
        self.plan.removals().filter(|i| {
            !self.failed.iter().any(|(f, _)| f.path == i.path)
                && !self.gone.iter().any(|g| g.path == i.path)
        })
    }

    /// Bytes freed (or that would be).
    pub(crate) fn freed(&self) -> u64 {
        self.removed().map(|i| i.bytes).sum()
    }
}

/// Find, decide and (unless `dry_run`) remove, in the project at `root`. A live run's folder
/// (see [`runs::RunFolder::is_live`]) always stays.
pub(crate) fn clean(root: &Path, limits: Limits, dry_run: bool) -> Sweep {
    let (items, mut warnings) = gather(root);
    let plan = decide(root, items, limits, Timestamp::now());
    let done = if dry_run {
        Removal::default()
    } else {
        remove(root, plan.removals())
    };
    warnings.extend(done.gone.iter().map(|i| {
        format!(
            "{}: not found when removing it; not counted as removed",
            i.path.display()
        )
    }));
    Sweep {
        plan,
        dry_run,
        failed: done.failed,
        gone: done.gone,
        warnings,
    }
}

/// Decide what goes, then measure what is shown: the items removed and the tracked archives
/// listed. The kept ones' bytes are never shown, so they are not walked (they stay 0).
fn decide(root: &Path, items: Vec<Item>, limits: Limits, now: Timestamp) -> Plan {
    let mut plan = super::plan(items, limits, now);
    for d in &mut plan.decisions {
        if matches!(d.keep, None | Some(Keep::Tracked)) {
            d.item.bytes = size(&root.join(&d.item.path));
        }
    }
    plan
}

/// The `git rm` that removes a tracked archive.
pub(crate) fn git_rm_hint(item: &Item) -> String {
    format!(
        "git rm -r -q {} && git commit -m \"Remove an old ralph archive\"",
        shell_words::quote(&item.path.display().to_string())
    )
}

/// Every item of every kind, relative to `root` (bytes not measured: see [`decide`]), and the
/// warnings.
pub(crate) fn gather(root: &Path) -> (Vec<Item>, Vec<String>) {
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    let state = state::state_dir(Path::new(""));
    let kinds = [
        (Category::Runs, runs::dir(&state)),
        (Category::Rejected, state::rejected::dir(&state)),
        (Category::Archives, PathBuf::from("archive")),
    ];
    // git is asked only when there is an `archive/` entry: most runs start without one.
    let tracked = if std::fs::symlink_metadata(root.join("archive")).is_ok() {
        tracked_archives(root)
    } else {
        Ok(HashSet::new())
    };
    for (category, rel) in kinds {
        if category == Category::Archives
            && let Err(why) = &tracked
        {
            if root.join(&rel).exists() {
                warnings.push(why.clone());
            }
            continue;
        }
        match inside(root, &rel) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(why) => {
                warnings.push(why);
                continue;
            }
        }
        let found = match category {
            Category::Runs => run_items(root, &state),
            Category::Rejected => entries(root, &rel, |_| true),
            Category::Archives => entries(root, &rel, ralphs_archive),
        };
        match found {
            Ok(mut v) => {
                for i in &mut v {
                    i.category = category;
                    i.tracked = category == Category::Archives
                        && tracked.as_ref().is_ok_and(|t| t.contains(&i.path));
                }
                items.extend(v);
            }
            Err(e) => warnings.push(format!("{}: cannot list: {e}", rel.display())),
        }
    }
    (items, warnings)
}

/// Whether `root/rel` exists and is inside the project (an error says why not).
fn inside(root: &Path, rel: &Path) -> Result<bool, String> {
    let dir = root.join(rel);
    if std::fs::symlink_metadata(&dir).is_err() {
        return Ok(false);
    }
    let (Ok(r), Ok(d)) = (root.canonicalize(), dir.canonicalize()) else {
        return Err(format!(
            "{}: cannot resolve the folder; not cleaned",
            dir.display()
        ));
    };
    if !d.starts_with(&r) || !d.is_dir() {
        return Err(format!(
            "{}: leads outside the project (to {}) or is not a folder; not cleaned",
            dir.display(),
            d.display()
        ));
    }
    Ok(true)
}

/// The run folders, dated by [`runs::list`]; the live run marked.
fn run_items(root: &Path, state: &Path) -> std::io::Result<Vec<Item>> {
    let list = runs::list(&root.join(state)).map_err(|e| e.source)?;
    let holder = state::lock::holder(root);
    Ok(list
        .into_iter()
        .filter_map(|f| {
            // The entry's own name: a lossy one would name another path (or none) to remove.
            let rel = runs::dir(state).join(f.path.file_name()?);
            Some(Item {
                category: Category::Runs,
                bytes: 0,
                time: f.time?,
                current: f.is_live(holder.as_deref()),
                tracked: false,
                path: rel,
            })
        })
        .collect())
}

/// The entries of `root/rel` that `accept` (given the full path), dated by the time in their
/// name, else their mtime.
fn entries(root: &Path, rel: &Path, accept: impl Fn(&Path) -> bool) -> std::io::Result<Vec<Item>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root.join(rel))?.flatten() {
        let path = e.path();
        if !accept(&path) {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(time) = name_time(&name).or_else(|| runs::mtime(&path)) else {
            continue;
        };
        out.push(Item {
            category: Category::Rejected,
            path: rel.join(e.file_name()),
            time,
            bytes: 0,
            current: false,
            tracked: false,
        });
    }
    Ok(out)
}

/// The time a rejected copy (`20261126T143000-iter3-prd.json`) or an archive
/// (`2026-11-26-login`, local midnight) carries in its name.
fn name_time(name: &str) -> Option<Timestamp> {
    runs::stamp_time(name).or_else(|| {
        let date = jiff::civil::Date::strptime("%Y-%m-%d", name.get(..10)?).ok()?;
        date.to_zoned(jiff::tz::TimeZone::system())
            .ok()
            .map(|z| z.timestamp())
    })
}

/// An `archive/` entry ralph made: a real folder named `YYYY-MM-DD-…` holding only prd.json and
/// progress.txt files.
fn ralphs_archive(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dated = name.get(..11).is_some_and(|p| p.ends_with('-')) && name_time(&name).is_some();
    let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    if !dated || !is_dir {
        return false;
    }
    let Ok(rd) = std::fs::read_dir(path) else {
        return false;
    };
    rd.into_iter().all(|e| {
        e.is_ok_and(|e| {
            matches!(e.file_name().to_str(), Some("prd.json" | "progress.txt"))
                && e.file_type().is_ok_and(|t| t.is_file())
        })
    })
}

/// The `archive/<name>` folders git tracks any file in (none when the project is plainly not
/// in a git repository). An error (the warning to give) when git cannot say and the project may
/// be in one: then every archive stays.
fn tracked_archives(root: &Path) -> Result<HashSet<PathBuf>, String> {
    let dir = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["ls-files", "-z", "--", "archive"])
        .stderr(std::process::Stdio::null())
        .output();
    let why = match out {
        Ok(o) if o.status.success() => return Ok(archive_folders(&o.stdout)),
        Ok(o) => format!("`git ls-files` failed ({})", o.status),
        Err(e) => format!("cannot run `git ls-files`: {e}"),
    };
    if !maybe_in_git(dir, std::env::var_os("GIT_DIR").is_some()) {
        return Ok(HashSet::new());
    }
    Err(format!(
        "archive: {why}, so which archives git tracks is unknown; every archive kept (removing a tracked one would dirty the tree)"
    ))
}

/// `git ls-files -z` output as the `archive/<name>` folders it names.
fn archive_folders(stdout: &[u8]) -> HashSet<PathBuf> {
    stdout
        .split(|b| *b == 0)
        .filter_map(|p| {
            // The name as git wrote it, UTF-8 or not (a lossy name would not match the folder).
            let p = Path::new(std::ffi::OsStr::from_bytes(p));
            let mut parts = p.components();
            let (first, second) = (parts.next()?, parts.next()?);
            Some(Path::new(first.as_os_str()).join(second.as_os_str()))
        })
        .collect()
}

/// Whether `dir` may be in a git repository: `GIT_DIR` is set, or `dir` or an ancestor has a
/// `.git` entry (a folder, or the file of a worktree or submodule).
fn maybe_in_git(dir: &Path, git_dir_set: bool) -> bool {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    git_dir_set
        || dir
            .ancestors()
            .any(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
}

/// Bytes under `path`, symlinks not followed (unreadable parts count as nothing).
pub(crate) fn size(path: &Path) -> u64 {
    let Ok(m) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !m.is_dir() {
        return m.len();
    }
    std::fs::read_dir(path)
        .map(|rd| rd.flatten().map(|e| size(&e.path())).sum())
        .unwrap_or(0)
}

/// What a removal did not do.
#[derive(Debug, Default)]
struct Removal {
    /// Could not be removed, with why.
    failed: Vec<(Item, String)>,
    /// Not there any more (or never under that name): nothing removed, nothing freed.
    gone: Vec<Item>,
}

/// Remove `items` (relative to `root`): a folder with what is in it, a file or a symlink itself.
/// Returns the failures and the items not found; the others are gone.
fn remove<'a>(root: &Path, items: impl Iterator<Item = &'a Item>) -> Removal {
    remove_with(root, items, |p, is_dir| {
        if is_dir {
            std::fs::remove_dir_all(p)
        } else {
            std::fs::remove_file(p)
        }
    })
}

/// [`remove`] with the removal itself handed in (`rm(path, is_dir)`).
fn remove_with<'a>(
    root: &Path,
    items: impl Iterator<Item = &'a Item>,
    rm: impl Fn(&Path, bool) -> std::io::Result<()>,
) -> Removal {
    let mut out = Removal::default();
    for item in items {
        let p = root.join(&item.path);
        // `symlink_metadata`: a symlink is never a dir here, so it is unlinked itself.
        let r = std::fs::symlink_metadata(&p).and_then(|m| rm(&p, m.is_dir()));
        match r {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.gone.push(item.clone()),
            Err(e) => out.failed.push((item.clone(), e.to_string())),
        }
    }
    out
}

#[cfg(test)]
mod tests;
