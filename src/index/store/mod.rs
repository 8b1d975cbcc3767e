//! The index on disk and in memory: a *base* segment (`.ralph/code-index.bin`, every file as
//! of its build) and a *delta* (`.ralph/code-index.delta`: the files read again since, and
//! which of the base's files they replace or that went). A refresh after a few changed files
//! writes only the delta, not the whole index; when the delta grows past a share of the base
//! the two are merged into a new base ([`super::scan`] decides).
//!
//! A query sees one index: files are numbered base first, then delta; a base file the delta
//! replaced or dropped is dead and never listed, found or counted. A delta made for another
//! base (its overlay names the base's check) is not used: the files it held are read again.
//! The format of a segment is [`segment`]'s; building one, [`Builder`]'s. Does not decide what
//! is stale nor rank.

use std::path::Path;

use super::bm25::Bm25f;
use super::cochange::CoChange;
use super::facts::FIELDS as NF;

mod build;
mod place;
mod segment;
mod whole;

#[cfg(test)]
pub(crate) use build::from_texts;
pub(crate) use build::{Admitted, Builder, Kept, Prepared, prepare};
pub(crate) use place::{CACHE_PATH, DELTA_PATH};
use segment::Segment;
pub(crate) use segment::{Damaged, Details, FileRec, Postings, State};
pub(crate) use whole::Index;

impl Index {
    /// An index of `base` alone.
    fn of_base(base: Segment) -> Index {
        let n = base.head.files.len();
        Index {
            dead: vec![false; n],
            dead_docs: vec![false; base.head.docs.len()],
            live: n,
            lens: base.head.lens,
            base,
            delta: None,
        }
    }

    /// `base` with `delta` over it (the delta's dead files must be the base's: see [`fits`]).
    fn with_delta(base: Segment, delta: Segment) -> Index {
        let (dead, dead_docs) = match &delta.head.overlay {
            Some(o) => (o.dead.clone(), o.dead_docs.clone()),
            None => (Vec::new(), Vec::new()),
        };
        let mut ix = Index::of_base(base);
        for &i in &dead {
            let i = i as usize;
            if i < ix.dead.len() && !std::mem::replace(&mut ix.dead[i], true) {
                ix.live -= 1;
                let lens = ix.base.head.files[i].lens;
                for (total, l) in ix.lens.iter_mut().zip(lens) {
                    *total = total.saturating_sub(u64::from(l));
                }
            }
        }
        for &i in &dead_docs {
            if let Some(d) = ix.dead_docs.get_mut(i as usize) {
                *d = true;
            }
        }
        ix.live += delta.head.files.len();
        for (total, l) in ix.lens.iter_mut().zip(delta.head.lens) {
            *total += l;
        }
        ix.delta = Some(delta);
        ix
    }

    fn n_base(&self) -> usize {
        self.base.head.files.len()
    }

    /// The segment holding file slot `fi`, and the file's index in it.
    fn seg_of(&self, fi: usize) -> (&Segment, usize) {
        let nb = self.n_base();
        match (&self.delta, fi.checked_sub(nb)) {
            (Some(d), Some(j)) => (d, j),
            _ => (&self.base, fi),
        }
    }

    /// How many files the index has (live ones).
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// Whether it has no file.
    pub(crate) fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// File slots: every file index is below this (dead ones included).
    pub(crate) fn slots(&self) -> usize {
        self.n_base() + self.delta.as_ref().map_or(0, |d| d.head.files.len())
    }

    /// The record of file `fi` (a slot this index gave out).
    pub(crate) fn rec(&self, fi: usize) -> &FileRec {
        let (seg, i) = self.seg_of(fi);
        &seg.head.files[i]
    }

    /// The live files, sorted by path, each with its index.
    pub(crate) fn files(&self) -> impl Iterator<Item = (usize, &FileRec)> {
        let nb = self.n_base();
        let base = self.base.head.files.iter().enumerate();
        let base = base.filter(|(i, _)| !self.dead[*i]);
        let delta = self.delta.iter().flat_map(|d| d.head.files.iter());
        merged(base, delta.enumerate().map(move |(j, f)| (nb + j, f)))
    }

    /// The live files whose paths start with `prefix`, sorted by path, each with its index:
    /// found by binary search, not by walking every file.
    pub(crate) fn files_under<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (usize, &'a FileRec)> {
        let under = move |files: &'a [FileRec]| -> (usize, &'a [FileRec]) {
            let from = files.partition_point(|f| f.path.as_str() < prefix);
            let len = files[from..].partition_point(|f| f.path.starts_with(prefix));
            (from, &files[from..from + len])
        };
        let (b0, base) = under(&self.base.head.files);
        let base = (b0..).zip(base).filter(|(i, _)| !self.dead[*i]);
        let nb = self.n_base();
        let delta = self.delta.iter().flat_map(move |d| {
            let (d0, files) = under(&d.head.files);
            (nb + d0..).zip(files)
        });
        merged(base, delta)
    }

    /// The live markdown docs (not searched; read by the Pin), sorted by path, with indexes.
    pub(crate) fn docs(&self) -> impl Iterator<Item = (usize, &FileRec)> {
        let nb = self.base.head.docs.len();
        let base = self.base.head.docs.iter().enumerate();
        let base = base.filter(|(i, _)| !self.dead_docs[*i]);
        let delta = self.delta.iter().flat_map(|d| d.head.docs.iter());
        merged(base, delta.enumerate().map(move |(j, f)| (nb + j, f)))
    }

    /// The index of the live file at `path`.
    pub(crate) fn file(&self, path: &str) -> Option<usize> {
        let find = |files: &[FileRec]| files.binary_search_by(|f| f.path.as_str().cmp(path)).ok();
        if let Some(j) = self.delta.as_ref().and_then(|d| find(&d.head.files)) {
            return Some(self.n_base() + j);
        }
        find(&self.base.head.files).filter(|&i| !self.dead[i])
    }

    /// The live files that have `term`, ascending: (file index, counts per field).
    pub(crate) fn postings(&self, term: &str) -> Result<Postings, Damaged> {
        let mut out = match self.base.term_id(term) {
            Some(id) => self.base.postings(id)?,
            None => Vec::new(),
        };
        out.retain(|(fi, _)| !self.dead[*fi]);
        if let Some(d) = &self.delta
            && let Some(id) = d.term_id(term)
        {
            let nb = self.n_base();
            out.extend(d.postings(id)?.into_iter().map(|(j, tf)| (nb + j, tf)));
        }
        Ok(out)
    }

    /// The details of file `fi`.
    pub(crate) fn details(&self, fi: usize) -> Result<Details, Damaged> {
        let (seg, i) = self.seg_of(fi);
        seg.details(seg.head.files[i].details)
    }

    /// The details of doc `di`.
    pub(crate) fn doc_details(&self, di: usize) -> Result<Details, Damaged> {
        let nb = self.base.head.docs.len();
        let (seg, i) = match (&self.delta, di.checked_sub(nb)) {
            (Some(d), Some(j)) => (d, j),
            _ => (&self.base, di),
        };
        seg.details(seg.head.docs[i].details)
    }

    /// The average length of each field over the live files (for BM25).
    pub(crate) fn averages(&self) -> [f64; NF] {
        Bm25f::averages(self.live, self.lens.map(|l| l as f64))
    }

    /// What the last refresh kept: history, build time, the walk's folders.
    pub(crate) fn state(&self) -> &State {
        match &self.delta {
            Some(d) => &d.head.state,
            None => &self.base.head.state,
        }
    }

    /// Files changed together in recent git history, when the project is a git repository.
    pub(crate) fn cochange(&self) -> Option<&CoChange> {
        self.state().cochange.as_ref()
    }

    /// When the index was last brought up to date (see [`State::built_at`]).
    pub(crate) fn built_at(&self) -> i64 {
        self.state().built_at
    }

    /// How many file slots the base has (dead ones included): a slot below is the base's.
    pub(crate) fn base_files(&self) -> usize {
        self.n_base()
    }

    /// How many doc slots the base has.
    pub(crate) fn base_docs(&self) -> usize {
        self.base.head.docs.len()
    }

    /// How many files the delta holds.
    #[cfg(test)]
    pub(crate) fn delta_files(&self) -> usize {
        self.delta.as_ref().map_or(0, |d| d.head.files.len())
    }
}

/// Two sequences sorted by path, merged.
fn merged<'a>(
    a: impl Iterator<Item = (usize, &'a FileRec)>,
    b: impl Iterator<Item = (usize, &'a FileRec)>,
) -> impl Iterator<Item = (usize, &'a FileRec)> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y.1.path < x.1.path => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// The cached index of the project at `root`: its base and, when it was made over that base,
/// its delta. `None` when there is no usable base (see [`segment`]).
pub(crate) fn load(root: &Path) -> Option<Index> {
    let base = segment::load(&root.join(CACHE_PATH))?;
    if base.head.overlay.is_some() {
        return None;
    }
    match segment::load(&root.join(DELTA_PATH)) {
        Some(d) if fits(&base, &d) => Some(Index::with_delta(base, d)),
        _ => Some(Index::of_base(base)),
    }
}

/// Whether `delta` was made over `base` and names only its files.
fn fits(base: &Segment, delta: &Segment) -> bool {
    delta.head.overlay.as_ref().is_some_and(|o| {
        o.base == base.check
            && o.dead.iter().all(|&i| (i as usize) < base.head.files.len())
            && o.dead_docs
                .iter()
                .all(|&i| (i as usize) < base.head.docs.len())
    })
}

/// Write what `index` holds in memory: a new base (and the delta is removed: it was over the
/// old one), or a new delta over the base already on disk. Nothing when neither was just
/// built. Written without sync (see [`crate::fsutil::replace_cache`]): every byte is checked
/// when read, so a file torn by a crash is rebuilt.
pub(crate) fn save(root: &Path, index: &mut Index) -> Result<(), crate::fsutil::FsError> {
    let check = write(root, index)?;
    index.saved(check);
    Ok(())
}

impl Index {
    /// Take note that [`write`] wrote this index (`check`: what it returned): a base written
    /// is identified by the check of its head from now on (a delta over it names it).
    pub(crate) fn saved(&mut self, check: Option<u64>) {
        if let Some(check) = check {
            self.base.check = check;
        }
    }
}

/// [`save`] without changing `index` (so while others read it): the check of the base's head
/// when a base was written, for [`Index::saved`].
pub(crate) fn write(root: &Path, index: &Index) -> Result<Option<u64>, crate::fsutil::FsError> {
    let mut written = None;
    let dir = root.join(CACHE_PATH);
    if let Some(parent) = dir.parent() {
        crate::fsutil::create_dir_all(parent)?;
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| crate::fsutil::FsError {
            path,
            action: "read the index's body again",
            source,
        }
    };
    if matches!(index.base.body, segment::Body::Mem(_)) {
        let path = root.join(CACHE_PATH);
        let (head, body, check) = segment::encode_parts(&index.base).map_err(io(&path))?;
        crate::fsutil::replace_cache(&path, &[&head, &body])?;
        written = Some(check);
        let delta = root.join(DELTA_PATH);
        if delta.exists() {
            std::fs::remove_file(&delta).map_err(|source| crate::fsutil::FsError {
                path: delta.clone(),
                action: "remove the delta of the old index",
                source,
            })?;
        }
    }
    if let Some(d) = &index.delta
        && matches!(d.body, segment::Body::Mem(_))
    {
        let path = root.join(DELTA_PATH);
        let (head, body, _) = segment::encode_parts(d).map_err(io(&path))?;
        crate::fsutil::replace_cache(&path, &[&head, &body])?;
    }
    Ok(written)
}

#[cfg(test)]
mod tests;
