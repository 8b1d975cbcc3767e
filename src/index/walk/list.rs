//! Listing a folder of the project, gitignore-aware, on all cores: the files the index keeps
//! (see [`super::rules`]) with their size and modification time, and the folders entered.
//! Does not sort, cache nor read files.

use std::path::Path;

use super::found::{Found, Walked, mtime_of};
use super::rules::{MANIFESTS, SKIP_DIRS, SOURCE_EXTS, describes_code};

/// What a walked entry is to the index.
enum Role {
    Source,
    Doc,
    Manifest,
    Dir,
}

/// A walker over `dir` (the project root or a folder in it) as the index walks: gitignore-aware
/// (`.gitignore`, `.ignore`, global git excludes, the ignore files of the folders above, also
/// outside a git repository), hidden files and [`SKIP_DIRS`] skipped, symlinks not followed
/// (nothing outside the project is indexed).
fn walker(dir: &Path, max_depth: Option<usize>) -> ignore::WalkParallel {
    ignore::WalkBuilder::new(dir)
        .require_git(false)
        .follow_links(false)
        .max_depth(max_depth)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && e.depth() > 0
                && SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
        })
        .build_parallel()
}

/// What a walk of `dir` (under `root`, at most `max_depth` deep) found, unsorted, with the
/// folders it entered.
pub(super) fn collect(root: &Path, dir: &Path, max_depth: Option<usize>) -> (Walked, Vec<Found>) {
    let (tx, rx) = std::sync::mpsc::channel();
    walker(dir, max_depth).run(|| {
        let tx = tx.clone();
        Box::new(move |entry| {
            let item = match entry {
                Ok(e) => found(root, &e).map(Ok),
                Err(e) => Some(Err(e)),
            };
            if let Some(item) = item
                && tx.send(item).is_err()
            {
                return ignore::WalkState::Quit;
            }
            ignore::WalkState::Continue
        })
    });
    drop(tx);
    let mut w = Walked::default();
    let mut dirs = Vec::new();
    for item in rx {
        match item {
            Ok((Role::Source, f)) => w.sources.push(f),
            Ok((Role::Doc, f)) => w.docs.push(f),
            Ok((Role::Manifest, f)) => w.manifests.push(f.path),
            Ok((Role::Dir, f)) => dirs.push(f),
            Err(e) => {
                w.error.get_or_insert(e);
            }
        }
    }
    (w, dirs)
}

fn found(root: &Path, e: &ignore::DirEntry) -> Option<(Role, Found)> {
    let t = e.file_type()?;
    let rel = || -> Option<String> {
        Some(
            e.path()
                .strip_prefix(root)
                .ok()?
                .to_str()?
                .replace('\\', "/"),
        )
    };
    let role = if t.is_dir() {
        Role::Dir
    } else if !t.is_file() {
        return None;
    } else {
        let name = e.file_name().to_str()?;
        let ext = name.rsplit_once('.').map_or("", |(_, x)| x);
        if SOURCE_EXTS.contains(&ext) {
            Role::Source
        } else if MANIFESTS.contains(&name) {
            Role::Manifest
        } else if ext == "md" || ext == "markdown" {
            Role::Doc
        } else {
            return None;
        }
    };
    let path = rel()?; // not UTF-8: cannot be named in a prompt or the Pin
    if matches!(role, Role::Doc) && !describes_code(&path) {
        return None;
    }
    let meta = e.metadata().ok();
    Some((
        role,
        Found {
            path,
            size: meta.as_ref().map_or(0, |m| m.len()),
            mtime: meta.as_ref().map_or((0, 0), mtime_of),
        },
    ))
}
