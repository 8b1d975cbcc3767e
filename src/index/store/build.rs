//! Building a segment: [`Builder`] takes files in path order, each either just read (its facts
//! digested into term ids and encoded details, [`Builder::prepare`] on any core) or kept
//! unchanged from the index being refreshed ([`Index::kept`]), and lays out the body: every
//! file's details, then one posting list per term, each span followed by its check. The
//! dictionary is sorted at the end, and terms no file has any more leave it.

use super::super::facts::{FIELDS as NF, Facts, Lexicon};
use super::super::kind::Kind;
use super::segment::{
    Body, CHECK, Damaged, Details, FileRec, Head, Overlay, Segment, Span, State, Terms, span_check,
};
use super::whole::Index;
use crate::index::text::FastMap;

/// A file just read, ready to admit (see [`prepare`]): its terms still in the ids of the
/// [`Lexicon`] that read it.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// Which lexicon read it ([`Lexicon::owner`]).
    owner: usize,
    /// The terms that lexicon met for the first time in this file, in id order.
    fresh: Vec<String>,
    terms: Terms,
    details: Vec<u8>,
    lens: [u32; NF],
}

/// A file admitted into a builder ([`Builder::admit`]): its terms in the builder's ids.
#[derive(Debug)]
pub(crate) struct Admitted {
    terms: Terms,
    details: Vec<u8>,
    lens: [u32; NF],
}

/// What a file just read needs before it is admitted, worked out on any core without the
/// builder: its encoded details and its terms (ids of `words`, the lexicon that read it).
pub(crate) fn prepare(f: Facts, words: &mut Lexicon) -> Prepared {
    let details = postcard::to_stdvec(&Details::of(&f)).unwrap_or_default();
    Prepared {
        owner: words.owner(),
        fresh: words.take_fresh(),
        terms: f.terms,
        details,
        lens: f.lens,
    }
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
    /// Per lexicon handed out ([`Builder::lexicon`]), its ids in this builder's.
    local: Vec<Vec<u32>>,
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
            local: Vec::new(),
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

    /// A new lexicon for a thread reading files for this builder (see [`prepare`]).
    pub(crate) fn lexicon(&mut self) -> Lexicon {
        self.local.push(Vec::new());
        Lexicon::new(self.local.len() - 1)
    }

    /// A file prepared with one of this builder's lexicons, its terms put in the builder's
    /// ids. The files a lexicon read must be admitted in the order they were prepared (each
    /// brings the terms that lexicon met first in it); files may then be added in any order.
    pub(crate) fn admit(&mut self, p: Prepared) -> Admitted {
        let mut local = std::mem::take(&mut self.local[p.owner]);
        local.extend(p.fresh.into_iter().map(|t| match t.contains('\n') {
            true => u32::MAX,
            false => self.id_of(t),
        }));
        let mut terms = p.terms;
        terms.retain_mut(|(id, _)| {
            *id = local.get(*id as usize).copied().unwrap_or(u32::MAX);
            *id != u32::MAX
        });
        self.local[p.owner] = local;
        Admitted {
            terms,
            details: p.details,
            lens: p.lens,
        }
    }

    /// Add a file just read (see [`Builder::admit`]).
    pub(crate) fn add(&mut self, path: String, size: u64, mtime: (i64, u32), a: Admitted) {
        let rec = FileRec {
            kind: Kind::of(&path),
            path,
            size,
            mtime,
            lens: a.lens,
            details: Span::default(),
        };
        self.files.push((rec, a.terms, a.details));
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
        let (terms, ends, renum) = self.dictionary();
        let n_terms = ends.len() / 4;
        let mut lens = [0u64; NF];
        for (rec, _, _) in &self.files {
            for (total, l) in lens.iter_mut().zip(rec.lens) {
                *total += u64::from(l);
            }
        }
        // The body's size is known before it is laid out: one allocation, never grown (a
        // growing body of tens of megabytes is copied again at every doubling).
        let details = |d: &Vec<u8>| d.len() + CHECK;
        let size = self.files.iter().map(|(_, _, d)| details(d)).sum::<usize>()
            + self.docs.iter().map(|(_, d)| details(d)).sum::<usize>();
        let mut body = Vec::with_capacity(size);
        let mut files = Vec::with_capacity(self.files.len());
        let mut file_terms = Vec::with_capacity(self.files.len());
        for (mut rec, terms, details) in self.files {
            rec.details = seal(&mut body, &details);
            files.push(rec);
            file_terms.push(terms);
        }
        let docs: Vec<FileRec> = self
            .docs
            .into_iter()
            .map(|(mut rec, details)| {
                rec.details = seal(&mut body, &details);
                rec
            })
            .collect();
        let lists = lay_out_lists(&mut body, &file_terms, &renum, n_terms);
        Segment {
            head: Head {
                terms,
                ends,
                files,
                docs,
                lists,
                lens,
                overlay,
                state,
            },
            body: Body::Mem(body),
            check: 0,
        }
    }

    /// The dictionary of the terms some file has, sorted: the terms one after the other and
    /// where each ends (see [`Head`]), and per id of this builder, its id in it (`u32::MAX`:
    /// none).
    fn dictionary(&self) -> (String, Vec<u8>, Vec<u32>) {
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
        (terms, ends, renum)
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

/// Append to `body` one posting list per term of the dictionary (`n_terms`; `renum` maps the
/// files' term ids to it), each followed by its check; where each is. Every list's size is
/// worked out first, then the entries written in place: no list of its own per term, grown
/// entry by entry and copied into the body after.
fn lay_out_lists(body: &mut Vec<u8>, files: &[Terms], renum: &[u32], n_terms: usize) -> Vec<Span> {
    let mut last = vec![usize::MAX; n_terms];
    let mut size = vec![0usize; n_terms];
    each_entry(files, renum, &mut last, |t, delta, tf| {
        size[t] += entry_len(delta, &tf);
    });
    let start = body.len();
    let mut at = Vec::with_capacity(n_terms);
    let mut end = start;
    for &s in &size {
        at.push(end);
        end += s + CHECK;
    }
    body.resize(end, 0);
    last.fill(usize::MAX);
    each_entry(files, renum, &mut last, |t, delta, tf| {
        at[t] += write_entry(&mut body[at[t]..], delta, &tf);
    });
    let mut spans = Vec::with_capacity(n_terms);
    let mut pos = start;
    for &s in &size {
        let check = span_check(&body[pos..pos + s]);
        body[pos + s..pos + s + CHECK].copy_from_slice(&check);
        spans.push(Span {
            at: pos as u64,
            len: u32::try_from(s + CHECK).unwrap_or(u32::MAX),
        });
        pos += s + CHECK;
    }
    spans
}

/// Call `f(term, delta, counts)` for each entry of each posting list, in file order: the
/// term's id in the dictionary (`renum` maps the files' ids to it), the distance from the
/// list's file before (from 0 for its first) and the counts. `last` (per term, `usize::MAX`)
/// keeps each list's last file: a term twice in one file's terms is taken once.
fn each_entry(
    files: &[Terms],
    renum: &[u32],
    last: &mut [usize],
    mut f: impl FnMut(usize, u32, [u8; NF]),
) {
    for (fi, terms) in files.iter().enumerate() {
        for &(id, tf) in terms {
            let Some(&t) = renum.get(id as usize) else {
                continue;
            };
            let Some(prev) = last.get_mut(t as usize) else {
                continue;
            };
            let delta = match *prev {
                usize::MAX => fi,
                p if fi <= p => continue,
                p => fi - p,
            };
            *prev = fi;
            f(t as usize, u32::try_from(delta).unwrap_or(u32::MAX), tf);
        }
    }
}

/// The bytes of one entry of a posting list: the distance from the file before (LEB128), a
/// byte whose bit `f` says field `f` has the term, then those fields' counts, one byte each.
fn entry_len(delta: u32, tf: &[u8; NF]) -> usize {
    let leb = (32 - (delta | 1).leading_zeros()).div_ceil(7) as usize;
    leb + 1 + tf.iter().filter(|&&c| c > 0).count()
}

/// Write one entry (see [`entry_len`]) at the start of `out`; how many bytes it took.
fn write_entry(out: &mut [u8], mut delta: u32, tf: &[u8; NF]) -> usize {
    let mut n = 0;
    while delta >= 0x80 {
        out[n] = (delta & 0x7f) as u8 | 0x80;
        delta >>= 7;
        n += 1;
    }
    out[n] = delta as u8;
    n += 1;
    out[n] = tf
        .iter()
        .enumerate()
        .fold(0u8, |m, (field, &c)| if c > 0 { m | 1 << field } else { m });
    n += 1;
    for &c in tf.iter().filter(|&&c| c > 0) {
        out[n] = c;
        n += 1;
    }
    n
}

/// An index of `(path, text)` files built in memory (size = text length, one fixed mtime and
/// build time, no history), for the tests of the modules that read an index.
#[cfg(test)]
pub(crate) fn from_texts(files: &[(&str, &str)]) -> Index {
    let mut b = Builder::new();
    let mut words = b.lexicon();
    for (path, text) in files {
        let f = super::super::facts::facts(path, text.as_bytes(), &mut words);
        let p = b.admit(prepare(f, &mut words));
        b.add(path.to_string(), text.len() as u64, (1, 2), p);
    }
    b.finish_base(State {
        built_at: 7,
        ..State::default()
    })
}
