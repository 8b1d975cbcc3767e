//! Building a segment: [`Builder`] takes files in path order, each either just read (its facts
//! digested into term ids and encoded details, [`Builder::prepare`] on any core) or kept
//! unchanged from the index being refreshed ([`Index::kept`]), and lays out the body: every
//! file's details, then one posting list per term, each span followed by its check. The
//! dictionary is sorted at the end, and terms no file has any more leave it.

use super::super::facts::{FIELDS as NF, Facts};
use super::super::kind::Kind;
use super::segment::{Body, CHECK, Head, Overlay, Segment, Span, span_check};
use super::{Damaged, Details, FileRec, Index, State, Terms};
use crate::index::text::FastMap;

/// A file just read, ready to add (see [`Builder::prepare`]).
#[derive(Debug)]
pub(crate) struct Prepared {
    /// Terms the dictionary had: (id, counts per field).
    known: Terms,
    /// Terms it did not have yet.
    new: Vec<(String, [u8; NF])>,
    details: Vec<u8>,
    lens: [u32; NF],
}

/// A file of the index being refreshed, taken as it is: its record, terms (in the builder's
/// ids) and encoded details.
#[derive(Debug)]
pub(crate) struct Kept {
    rec: FileRec,
    terms: Terms,
    details: Vec<u8>,
}

/// Which segment's dictionary a builder started from: its files keep their term ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seed {
    None,
    Base,
    Delta,
}

/// Builds a segment file by file, in path order.
pub(crate) struct Builder {
    ids: FastMap<String, u32>,
    /// Per id, its term.
    terms: Vec<String>,
    seed: Seed,
    files: Vec<(FileRec, Terms, Vec<u8>)>,
    docs: Vec<(FileRec, Vec<u8>)>,
}

impl Builder {
    /// A builder of a new base (a cold build): an empty dictionary.
    pub(crate) fn new() -> Builder {
        Builder {
            ids: FastMap::default(),
            terms: Vec::new(),
            seed: Seed::None,
            files: Vec::new(),
            docs: Vec::new(),
        }
    }

    /// A builder whose dictionary starts as `seg`'s, so the files kept from it keep their ids.
    fn seeded(seg: &Segment, seed: Seed) -> Builder {
        let terms: Vec<String> = (0..seg.n_terms())
            .map(|i| String::from_utf8_lossy(seg.term(i)).into_owned())
            .collect();
        let ids = terms
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), u32::try_from(i).unwrap_or(u32::MAX)))
            .collect();
        Builder {
            ids,
            terms,
            seed,
            ..Builder::new()
        }
    }

    /// A builder of a new base from `old` (its base and delta merged): it starts from the
    /// base's dictionary.
    pub(crate) fn for_base(old: &Index) -> Builder {
        Builder::seeded(&old.base, Seed::Base)
    }

    /// A builder of a new delta over `old`'s base: it starts from the old delta's dictionary.
    pub(crate) fn for_delta(old: &Index) -> Builder {
        match &old.delta {
            Some(d) => Builder::seeded(d, Seed::Delta),
            None => Builder::new(),
        }
    }

    fn id(&mut self, term: &str) -> u32 {
        match self.ids.get(term) {
            Some(&id) => id,
            None => self.id_of(term.to_string()),
        }
    }

    /// [`Builder::id`] of a term already owned: kept, not copied, when it is new.
    fn id_of(&mut self, term: String) -> u32 {
        if let Some(&id) = self.ids.get(term.as_str()) {
            return id;
        }
        let id = u32::try_from(self.terms.len()).unwrap_or(u32::MAX);
        self.ids.insert(term.clone(), id);
        self.terms.push(term);
        id
    }

    /// Per id of `seg`'s dictionary, its id in this builder's (added when missing).
    fn map_terms(&mut self, seg: &Segment) -> Vec<u32> {
        (0..seg.n_terms())
            .map(|i| self.id(&String::from_utf8_lossy(seg.term(i))))
            .collect()
    }

    /// What a file just read needs before it is added, worked out without changing the builder
    /// (so on any core, for many files at once): its terms by id where the dictionary has them,
    /// the others by name (moved, not copied), and its encoded details.
    pub(crate) fn prepare(&self, mut f: Facts) -> Prepared {
        let details = postcard::to_stdvec(&Details::of(&f)).unwrap_or_default();
        let mut known: Terms = Vec::with_capacity(f.terms.len());
        let mut new = Vec::new();
        for (t, tf) in std::mem::take(&mut f.terms) {
            if t.contains('\n') {
                continue;
            }
            match self.ids.get(t.as_str()) {
                Some(&id) => known.push((id, tf)),
                None => new.push((t, tf)),
            }
        }
        Prepared {
            known,
            new,
            details,
            lens: f.lens,
        }
    }

    /// Add a file just read (see [`Builder::prepare`]).
    pub(crate) fn add(&mut self, path: String, size: u64, mtime: (i64, u32), p: Prepared) {
        let mut terms = p.known;
        for (t, tf) in p.new {
            let id = self.id_of(t);
            terms.push((id, tf));
        }
        terms.sort_unstable_by_key(|(id, _)| *id);
        let rec = FileRec {
            kind: Kind::of(&path),
            path,
            size,
            mtime,
            lens: p.lens,
            details: Span::default(),
        };
        self.files.push((rec, terms, p.details));
    }

    /// Add a file of the index being refreshed (see [`Index::kept`]).
    pub(crate) fn keep(&mut self, kept: Kept) {
        self.files.push((kept.rec, kept.terms, kept.details));
    }

    /// Add a markdown doc just read (its facts: see [`super::super::facts::doc_facts`]).
    pub(crate) fn add_doc(&mut self, path: String, size: u64, mtime: (i64, u32), f: &Facts) {
        let rec = FileRec {
            kind: Kind::Docs,
            path,
            size,
            mtime,
            lens: [0; NF],
            details: Span::default(),
        };
        let details = postcard::to_stdvec(&Details::of(f)).unwrap_or_default();
        self.docs.push((rec, details));
    }

    /// Add a doc of the index being refreshed (see [`Index::kept_docs`]).
    pub(crate) fn keep_doc(&mut self, kept: Kept) {
        self.docs.push((kept.rec, kept.details));
    }

    /// The segment: its dictionary sorted, the terms no file has left out, its body in memory.
    fn finish(self, overlay: Option<Overlay>, state: State) -> Segment {
        let mut used = vec![false; self.terms.len()];
        for (_, terms, _) in &self.files {
            for (id, _) in terms {
                if let Some(u) = used.get_mut(*id as usize) {
                    *u = true;
                }
            }
        }
        let mut order: Vec<usize> = (0..self.terms.len()).filter(|&i| used[i]).collect();
        order.sort_unstable_by(|&a, &b| self.terms[a].cmp(&self.terms[b]));
        let mut renum = vec![u32::MAX; self.terms.len()];
        let mut terms = String::new();
        let mut ends = Vec::with_capacity(4 * order.len());
        for (new, &old) in order.iter().enumerate() {
            renum[old] = u32::try_from(new).unwrap_or(u32::MAX);
            terms.push_str(&self.terms[old]);
            ends.extend_from_slice(&u32::try_from(terms.len()).unwrap_or(u32::MAX).to_le_bytes());
        }
        let n_terms = order.len();
        let mut files = Vec::with_capacity(self.files.len());
        let mut lists: Vec<Vec<u8>> = vec![Vec::new(); n_terms];
        let mut last: Vec<usize> = vec![0; n_terms];
        let mut lens = [0u64; NF];
        for (fi, (rec, terms, details)) in self.files.into_iter().enumerate() {
            for (total, l) in lens.iter_mut().zip(rec.lens) {
                *total += u64::from(l);
            }
            for (id, tf) in terms {
                let Some(&new) = renum.get(id as usize) else {
                    continue;
                };
                let (Some(list), Some(prev)) =
                    (lists.get_mut(new as usize), last.get_mut(new as usize))
                else {
                    continue;
                };
                if !list.is_empty() && fi <= *prev {
                    continue; // a term twice in one file's list: once is what it has
                }
                let delta = fi - *prev;
                *prev = fi;
                encode_entry(list, u32::try_from(delta).unwrap_or(u32::MAX), tf);
            }
            files.push((rec, details));
        }
        // The body's size is known before it is laid out: one allocation, never grown (a
        // growing body of tens of megabytes is copied again at every doubling).
        let size = files
            .iter()
            .chain(&self.docs)
            .map(|(_, d)| d.len())
            .sum::<usize>()
            + lists.iter().map(Vec::len).sum::<usize>()
            + CHECK * (files.len() + self.docs.len() + n_terms);
        let mut body = Vec::with_capacity(size);
        let mut sealed = |(mut rec, details): (FileRec, Vec<u8>)| {
            rec.details = seal(&mut body, &details);
            rec
        };
        let files: Vec<FileRec> = files.into_iter().map(&mut sealed).collect();
        let docs: Vec<FileRec> = self.docs.into_iter().map(&mut sealed).collect();
        let spans = lists.iter().map(|list| seal(&mut body, list)).collect();
        Segment {
            head: Head {
                terms,
                ends,
                files,
                docs,
                lists: spans,
                lens,
                overlay,
                state,
            },
            body: Body::Mem(body),
            check: 0,
        }
    }

    /// The new base: an index of the files added alone.
    pub(crate) fn finish_base(self, state: State) -> Index {
        Index::of_base(self.finish(None, state))
    }

    /// A new delta over `old`'s base: the files added, replacing the base's `dead` files and
    /// docs (indexes, ascending).
    pub(crate) fn finish_delta(
        self,
        old: Index,
        dead: Vec<u32>,
        dead_docs: Vec<u32>,
        state: State,
    ) -> Index {
        let overlay = Overlay {
            base: old.base.check,
            dead,
            dead_docs,
        };
        let delta = self.finish(Some(overlay), state);
        Index::with_delta(old.base, delta)
    }
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Index {
    /// Per entry of `wanted` (a file slot of this index, or none), that file as it is, its
    /// terms in `b`'s ids: gathered from all the posting lists of its segment. An error when
    /// the segment's body turns out damaged: then nothing of it can be kept.
    pub(crate) fn kept(
        &self,
        wanted: &[Option<usize>],
        b: &mut Builder,
    ) -> Result<Vec<Option<Kept>>, Damaged> {
        let nb = self.n_base();
        let want_base = wanted.iter().flatten().any(|&fi| fi < nb);
        let want_delta = wanted.iter().flatten().any(|&fi| fi >= nb);
        let mut base_terms = match want_base {
            true => inverted(
                &self.base,
                (b.seed != Seed::Base).then(|| b.map_terms(&self.base)),
            )?,
            false => Vec::new(),
        };
        let mut delta_terms = match (&self.delta, want_delta) {
            (Some(d), true) => inverted(d, (b.seed != Seed::Delta).then(|| b.map_terms(d)))?,
            _ => Vec::new(),
        };
        wanted
            .iter()
            .map(|w| {
                let Some(fi) = *w else { return Ok(None) };
                let (seg, i) = self.seg_of(fi);
                let rec = seg.head.files.get(i).ok_or(Damaged("no such file"))?;
                let terms = match fi < nb {
                    true => base_terms.get_mut(i),
                    false => delta_terms.get_mut(i),
                };
                Ok(Some(Kept {
                    rec: rec.clone(),
                    terms: terms.map(std::mem::take).unwrap_or_default(),
                    details: seg.read(rec.details)?,
                }))
            })
            .collect()
    }

    /// Per entry of `wanted` (a doc of this index, or none), that doc as it is.
    pub(crate) fn kept_docs(&self, wanted: &[Option<usize>]) -> Result<Vec<Option<Kept>>, Damaged> {
        let nb = self.base.head.docs.len();
        wanted
            .iter()
            .map(|w| {
                let Some(di) = *w else { return Ok(None) };
                let (seg, i) = match (&self.delta, di.checked_sub(nb)) {
                    (Some(d), Some(j)) => (d, j),
                    _ => (&self.base, di),
                };
                let rec = seg.head.docs.get(i).ok_or(Damaged("no such doc"))?;
                Ok(Some(Kept {
                    rec: rec.clone(),
                    terms: Vec::new(),
                    details: seg.read(rec.details)?,
                }))
            })
            .collect()
    }
}

/// Per file of `seg`, its terms (ids mapped through `map` when given), from all its lists.
fn inverted(seg: &Segment, map: Option<Vec<u32>>) -> Result<Vec<Terms>, Damaged> {
    let mut terms = vec![Vec::new(); seg.head.files.len()];
    for id in 0..seg.n_terms() {
        let id = u32::try_from(id).map_err(|_| Damaged("too many terms"))?;
        let to = match &map {
            Some(m) => *m.get(id as usize).ok_or(Damaged("no such term"))?,
            None => id,
        };
        for (file, tf) in seg.postings(id)? {
            if let Some(t) = terms.get_mut(file) {
                t.push((to, tf));
            }
        }
    }
    for t in &mut terms {
        t.sort_unstable_by_key(|(id, _)| *id);
    }
    Ok(terms)
}

/// Append `bytes` and their check to `body`; where they are.
fn seal(body: &mut Vec<u8>, bytes: &[u8]) -> Span {
    let at = body.len() as u64;
    body.extend_from_slice(bytes);
    body.extend_from_slice(&span_check(bytes));
    Span {
        at,
        len: u32::try_from(bytes.len() + CHECK).unwrap_or(u32::MAX),
    }
}

fn encode_entry(out: &mut Vec<u8>, delta: u32, tf: [u8; NF]) {
    push_leb128(out, delta);
    let mask = tf
        .iter()
        .enumerate()
        .fold(0u8, |m, (field, &c)| if c > 0 { m | 1 << field } else { m });
    out.push(mask);
    out.extend(tf.iter().filter(|&&c| c > 0));
}

/// Append `v` as LEB128 (seven bits a byte, low bits first).
fn push_leb128(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// An index of `(path, text)` files built in memory (size = text length, one fixed mtime and
/// build time, no history), for the tests of the modules that read an index.
#[cfg(test)]
pub(crate) fn from_texts(files: &[(&str, &str)]) -> Index {
    let mut b = Builder::new();
    for (path, text) in files {
        let f = super::super::facts::facts(path, text.as_bytes());
        let p = b.prepare(f);
        b.add(path.to_string(), text.len() as u64, (1, 2), p);
    }
    b.finish_base(State {
        built_at: 7,
        ..State::default()
    })
}
