//! Keeping the code index current: walk the project (gitignore-aware, on all cores), read again
//! only the files whose size or modification time changed, drop removed ones, re-read the git
//! history when HEAD moved, and save the cache when anything changed.
//!
//! Never fails: an unreadable file or folder is left out, a cache that cannot be read is
//! rebuilt, one that cannot be written is reported in [`Refresh::warning`] and the fresh index
//! is still used. A cache found damaged only while a query reads it is rebuilt too
//! ([`rank_or_rebuild`]). Does not score (see [`super::rank`]).

use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

use super::cochange;
use super::facts::facts;
use super::query::QueryTerm;
use super::rank::{Evidence, Ranked};
use super::store::{self, Builder, FileRec, Index, Prepared};
use super::walk::{Found, Walked, walk};
use crate::index::text::FastMap;

/// The most bytes of one file that are read (the rest of a huge generated file says little).
const MAX_READ: u64 = 1 << 20;
/// Files read and digested per batch.
const BATCH: usize = 512;

/// The refreshed index, what else the walk found, and why the index could not be saved if it
/// could not.
#[derive(Debug)]
pub struct Refresh {
    pub index: Index,
    /// Why the cache could not be saved, when it could not.
    pub warning: Option<String>,
    /// The manifests the walk found (see [`super::walk::MANIFESTS`]), by path.
    pub manifests: Vec<String>,
    /// The first folder or file the walk could not read (left out of the index), if any.
    pub walk_error: Option<ignore::Error>,
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
        .sources
        .iter()
        .map(|f| old.file(&f.path).filter(|&i| fresh(f, &old.files()[i])))
        .collect();
    let kept_docs: Vec<Option<usize>> = walked
        .docs
        .iter()
        .map(|f| old.doc(&f.path).filter(|&i| fresh(f, &old.docs()[i])))
        .collect();
    let all_kept = |kept: &[Option<usize>], old_len: usize| {
        kept.iter().all(Option::is_some) && kept.len() == old_len
    };
    let head = cochange::head(root);
    let same_history = head.is_some() && old.cochange().map(|c| &c.head) == head.as_ref();
    let unchanged = !rebuilt
        && all_kept(&kept, old.files().len())
        && all_kept(&kept_docs, old.docs().len())
        && (same_history || (head.is_none() && old.cochange().is_none()));
    let (index, warning) = if unchanged {
        (old, None)
    } else {
        let cochange = if same_history {
            old.cochange().cloned()
        } else {
            history(root, head)
        };
        let index = rebuild(root, &old, &walked, (&kept, &kept_docs), cochange);
        saved(root, index, save)
    };
    Refresh {
        index,
        warning,
        manifests: walked.manifests,
        walk_error: walked.error,
    }
}

/// The history at `head`. When git cannot read it, an empty history at that commit: no
/// evidence, and not asked again until HEAD moves.
fn history(root: &Path, head: Option<String>) -> Option<cochange::CoChange> {
    let head = head?;
    Some(
        cochange::read(root, &head).unwrap_or_else(|| cochange::CoChange {
            head,
            ..cochange::CoChange::default()
        }),
    )
}

/// `index`, saved as the cache when `save`, with why it could not be if it could not.
fn saved(root: &Path, index: Index, save: bool) -> (Index, Option<String>) {
    let warning = save.then(|| store::save(root, &index)).and_then(|r| {
        r.err().map(|e| {
            format!(
                "the code index could not be saved ({e}); it is rebuilt on every run until it can"
            )
        })
    });
    (index, warning)
}

/// The best `limit` files for `query` ([`super::rank::rank`]) in `index`. When the cache
/// behind `index` turns out damaged while it is read, the index is built again from the
/// project's files alone (saved when `save`; why it could not be is the second value), put in
/// `index`, and the ranking done again.
pub fn rank_or_rebuild(
    root: &Path,
    index: &mut Index,
    save: bool,
    query: &[QueryTerm],
    ev: &Evidence,
    limit: usize,
) -> (Vec<Ranked>, Option<String>) {
    if let Ok(ranked) = super::rank::rank(index, query, ev, limit) {
        return (ranked, None);
    }
    let fresh = rebuilt(root, save);
    *index = fresh.index;
    let warning = fresh.warning;
    // An index just built holds its body in memory, as written: it reads back whole.
    let ranked = super::rank::rank(index, query, ev, limit).unwrap_or_default();
    (ranked, warning)
}

/// The index of `root` built from its files alone, whatever the cache holds (for a cache found
/// damaged while it was read), saved when `save`.
pub fn rebuilt(root: &Path, save: bool) -> Refresh {
    let walked = walk(root);
    let cochange = history(root, cochange::head(root));
    let none = vec![None; walked.sources.len()];
    let no_docs = vec![None; walked.docs.len()];
    let index = rebuild(
        root,
        &Index::default(),
        &walked,
        (&none, &no_docs),
        cochange,
    );
    let (index, warning) = saved(root, index, save);
    Refresh {
        index,
        warning,
        manifests: walked.manifests,
        walk_error: walked.error,
    }
}

/// A new index of the `walked` files: those `kept` (sources, docs) taken from `old`, the
/// others read again.
fn rebuild(
    root: &Path,
    old: &Index,
    walked: &Walked,
    kept: (&[Option<usize>], &[Option<usize>]),
    cochange: Option<cochange::CoChange>,
) -> Index {
    // The kept files come from the old cache's body; when it turns out damaged, nothing of it
    // is kept and every file is read again.
    let empty = Index::default();
    let kept_old =
        Builder::kept(old, kept.0).and_then(|k| Ok((k, Builder::kept_docs(old, kept.1)?)));
    let (base, (mut kept, mut kept_docs)) = match kept_old {
        Ok(k) => (old, k),
        Err(_) => (
            &empty,
            (
                walked.sources.iter().map(|_| None).collect(),
                walked.docs.iter().map(|_| None).collect(),
            ),
        ),
    };
    let mut b = Builder::new(base);
    let stale: Vec<&Found> = walked
        .sources
        .iter()
        .zip(&kept)
        .filter(|(_, k)| k.is_none())
        .map(|(f, _)| f)
        .collect();
    let mut read: FastMap<&str, Prepared> = FastMap::default();
    // In batches, so only one batch's facts are held at a time; each file's terms are looked up
    // in the dictionary on the core that read it, and only new ones added here.
    for batch in stale.chunks(BATCH) {
        let prepared = crate::par::map_balanced_by(
            batch,
            |f| usize::try_from(f.size).unwrap_or(usize::MAX),
            |f| b.prepare(&facts(&f.path, &read_head(&root.join(&f.path)))),
        );
        for (p, found) in prepared.into_iter().zip(batch) {
            read.insert(found.path.as_str(), p);
        }
    }
    for (f, k) in walked.sources.iter().zip(&mut kept) {
        match k.take() {
            Some(k) => b.keep(k),
            None => {
                if let Some(p) = read.remove(f.path.as_str()) {
                    b.add(f.path.clone(), f.size, f.mtime, p);
                }
            }
        }
    }
    let stale_docs: Vec<&Found> = walked
        .docs
        .iter()
        .zip(&kept_docs)
        .filter(|(_, k)| k.is_none())
        .map(|(f, _)| f)
        .collect();
    let mut doc_facts = crate::par::map_each(&stale_docs, |f| {
        super::facts::doc_facts(&read_head(&root.join(&f.path)))
    })
    .into_iter();
    for (f, k) in walked.docs.iter().zip(&mut kept_docs) {
        match k.take() {
            Some(k) => b.keep_doc(k),
            None => {
                if let Some(fx) = doc_facts.next() {
                    b.add_doc(f.path.clone(), f.size, f.mtime, &fx);
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
