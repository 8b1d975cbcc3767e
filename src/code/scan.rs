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
use super::facts::facts;
use super::store::{self, DictBuilder, FileRec, Index};
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
    let mut old = cached.unwrap_or_default();
    let walked = walk(root);
    let mut by_path: FastMap<String, FileRec> = std::mem::take(&mut old.files)
        .into_iter()
        .map(|f| (f.path.clone(), f))
        .collect();
    let fresh =
        |f: &Found, r: &FileRec| r.size == f.size && r.mtime == f.mtime && f.mtime.0 < old.built_at;
    let stale: Vec<&Found> = walked
        .iter()
        .filter(|f| by_path.get(&f.path).is_none_or(|r| !fresh(f, r)))
        .collect();
    let mut changed = !stale.is_empty() || rebuilt;
    let mut dict = None;
    let mut new_recs: FastMap<String, FileRec> = FastMap::default();
    if !stale.is_empty() {
        let mut d = DictBuilder::new(std::mem::take(&mut old.dict));
        // In batches, so only one batch's facts are held at a time.
        for batch in stale.chunks(BATCH) {
            let read = crate::par::map_balanced_by(
                batch,
                |f| usize::try_from(f.size).unwrap_or(usize::MAX),
                |f| facts(&f.path, &read_head(&root.join(&f.path))),
            );
            for (f, found) in read.iter().zip(batch) {
                let rec = d.record(found.path.clone(), found.size, found.mtime, f);
                new_recs.insert(found.path.clone(), rec);
            }
        }
        dict = Some(d.finish());
    }
    let files: Vec<FileRec> = walked
        .iter()
        .filter_map(|f| {
            let cached = by_path.remove(&f.path);
            new_recs.remove(&f.path).or(cached)
        })
        .collect();
    changed |= !by_path.is_empty(); // files removed since the cache was built
    let head = cochange::head(root);
    let cochange = match (head, old.cochange.take()) {
        (Some(h), Some(c)) if c.head == h => Some(c),
        (Some(h), _) => {
            changed = true;
            cochange::read(root, &h)
        }
        (None, had) => {
            changed |= had.is_some();
            None
        }
    };
    let index = Index {
        dict: dict.unwrap_or(old.dict),
        files,
        cochange,
        built_at: if changed { now() } else { old.built_at },
    };
    let warning = if changed && save {
        store::save(root, &index).err().map(|e| {
            format!(
                "the code index could not be saved ({e}); it is rebuilt on every run until it can"
            )
        })
    } else {
        None
    };
    Refresh { warning, index }
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
