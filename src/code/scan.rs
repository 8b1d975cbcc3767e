//! Keeping the code index current: walk the project (gitignore-aware, on all cores), read again
//! only the files whose size or modification time changed, drop removed ones, re-read the git
//! history when HEAD moved, and save the cache when anything changed.
//!
//! Never fails: an unreadable file or folder is left out, a cache that cannot be read is
//! rebuilt, one that cannot be written is reported in [`Refresh::warning`] and the fresh index
//! is still used. Does not rank (see [`super::rank`]).

use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

use super::cochange;
use super::facts::FIELDS;
use super::facts::facts;
use super::store::{self, Builder, FileRec, Index, Terms};
use crate::pin::extract::SOURCE_EXTS;
use crate::pin::generate::SKIP_DIRS;
use crate::pin::text::FastMap;

/// The most bytes of one file that are read (the rest of a huge generated file says little).
const MAX_READ: u64 = 1 << 20;
/// Files read and digested per batch.
const BATCH: usize = 512;

/// The refreshed index, and why it could not be saved if it could not.
#[derive(Debug)]
pub struct Refresh {
    pub index: Index,
    /// Why the cache could not be saved, when it could not.
    pub warning: Option<String>,
}

/// A source file found by the walk.
struct Found {
    path: String,
    size: u64,
    mtime: (i64, u32),
}

/// Bring the cached index of `root` up to date (see the module doc), save it, and return it.
pub fn refresh(root: &Path) -> Refresh {
    refresh_with(root, true)
}

/// [`refresh`], saving the cache only when `save` (a dry run writes nothing).
pub fn refresh_with(root: &Path, save: bool) -> Refresh {
    let cached = store::load(root);
    let rebuilt = cached.is_none();
    let old = cached.unwrap_or_default();
    let walked = walk(root);
    let fresh = |f: &Found, r: &FileRec| {
        r.size == f.size && r.mtime == f.mtime && f.mtime.0 < old.built_at()
    };
    // Per walked file, its index in the old index when it is unchanged there.
    let kept: Vec<Option<usize>> = walked
        .iter()
        .map(|f| old.file(&f.path).filter(|&i| fresh(f, &old.files()[i])))
        .collect();
    let n_kept = kept.iter().flatten().count();
    let head = cochange::head(root);
    let same_history = head.is_some() && old.cochange().map(|c| &c.head) == head.as_ref();
    let unchanged = !rebuilt
        && n_kept == walked.len()
        && n_kept == old.files().len()
        && (same_history || (head.is_none() && old.cochange().is_none()));
    if unchanged {
        return Refresh {
            index: old,
            warning: None,
        };
    }
    let cochange = match head {
        Some(h) if same_history => old.cochange().cloned().filter(|c| c.head == h),
        Some(h) => cochange::read(root, &h),
        None => None,
    };
    let index = rebuild(root, &old, &walked, &kept, cochange);
    let warning = save.then(|| store::save(root, &index)).and_then(|r| {
        r.err().map(|e| {
            format!(
                "the code index could not be saved ({e}); it is rebuilt on every run until it can"
            )
        })
    });
    Refresh { warning, index }
}

/// A new index of the `walked` files: those `kept` taken from `old`, the others read again.
fn rebuild(
    root: &Path,
    old: &Index,
    walked: &[Found],
    kept: &[Option<usize>],
    cochange: Option<cochange::CoChange>,
) -> Index {
    let mut b = Builder::new(old);
    let stale: Vec<&Found> = walked
        .iter()
        .zip(kept)
        .filter(|(_, k)| k.is_none())
        .map(|(f, _)| f)
        .collect();
    let mut read: FastMap<&str, (Terms, Vec<u8>, [u32; FIELDS])> = FastMap::default();
    // In batches, so only one batch's facts are held at a time.
    for batch in stale.chunks(BATCH) {
        let facts = crate::par::map_balanced_by(
            batch,
            |f| usize::try_from(f.size).unwrap_or(usize::MAX),
            |f| facts(&f.path, &read_head(&root.join(&f.path))),
        );
        for (fx, found) in facts.iter().zip(batch) {
            let (terms, details) = b.digest(fx);
            read.insert(found.path.as_str(), (terms, details, fx.lens));
        }
    }
    let mut old_terms = if kept.iter().any(Option::is_some) {
        Builder::kept_terms(old)
    } else {
        Vec::new()
    };
    for (f, k) in walked.iter().zip(kept) {
        match k {
            Some(i) => {
                let terms = old_terms
                    .get_mut(*i)
                    .map(std::mem::take)
                    .unwrap_or_default();
                b.keep(old, *i, terms);
            }
            None => {
                if let Some((terms, details, lens)) = read.remove(f.path.as_str()) {
                    b.add(f.path.clone(), f.size, f.mtime, lens, (terms, details));
                }
            }
        }
    }
    b.finish(cochange, now())
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The first [`MAX_READ`] bytes of a file (empty when it cannot be read).
fn read_head(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(MAX_READ).read_to_end(&mut out);
    }
    out
}

/// The source files under `root`, sorted by path (symlinks are not followed: nothing outside
/// the project is indexed).
fn walk(root: &Path) -> Vec<Found> {
    let (tx, rx) = std::sync::mpsc::channel();
    ignore::WalkBuilder::new(root)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && e.depth() > 0
                && SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
        })
        .build_parallel()
        .run(|| {
            let tx = tx.clone();
            Box::new(move |entry| {
                if let Some(f) = entry.ok().and_then(|e| found(root, &e))
                    && tx.send(f).is_err()
                {
                    return ignore::WalkState::Quit;
                }
                ignore::WalkState::Continue
            })
        });
    drop(tx);
    let mut out: Vec<Found> = rx.into_iter().collect();
    out.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    out
}

fn found(root: &Path, e: &ignore::DirEntry) -> Option<Found> {
    if !e.file_type().is_some_and(|t| t.is_file()) {
        return None;
    }
    let name = e.file_name().to_str()?;
    let ext = name.rsplit_once('.')?.1;
    if !SOURCE_EXTS.contains(&ext) {
        return None;
    }
    let rel = e
        .path()
        .strip_prefix(root)
        .ok()?
        .to_str()?
        .replace('\\', "/");
    let meta = e.metadata().ok()?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or((0, 0), |d| {
            (
                i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                d.subsec_nanos(),
            )
        });
    Some(Found {
        path: rel,
        size: meta.len(),
        mtime,
    })
}
