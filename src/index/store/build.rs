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
pub(crate) fn prepare(mut f: Facts, words: &mut Lexicon) -> Prepared {
    let (terms, lens) = (std::mem::take(&mut f.terms), f.lens);
    Prepared {
        owner: words.owner(),
        fresh: words.take_fresh(),
        terms,
        details: encoded(&Details::of(f)),
        lens,
    }
}

/// A file's details as the index keeps them, in a buffer of their exact size: they wait for
/// [`Builder::finish`] beside every other file's (a buffer grown as postcard writes is up to
/// twice as large, and its growth copies and faults in fresh pages).
fn encoded(d: &Details) -> Vec<u8> {
    let mut bytes = postcard::to_extend(d, Vec::with_capacity(d.encoded_len())).unwrap_or_default();
    bytes.shrink_to_fit(); // a no-op unless the size was not worked out right
    bytes
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
    /// The dictionary: each term (held here only) and its id, ids counting up from 0.
    ids: FastMap<String, u32>,
    /// The id the next new term gets.
    next: u32,
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
            next: 0,
            seed: Seed::None,
            local: Vec::new(),
            files: Vec::new(),
            docs: Vec::new(),
        }
    }

    /// A builder whose dictionary starts as `seg`'s, so the files kept from it keep their ids.
    fn seeded(seg: &Segment, seed: Seed) -> Builder {
        let ids = (0..seg.n_terms())
            .map(|i| {
                let term = String::from_utf8_lossy(seg.term(i)).into_owned();
                (term, u32::try_from(i).unwrap_or(u32::MAX))
            })
            .collect();
        Builder {
            ids,
            next: u32::try_from(seg.n_terms()).unwrap_or(u32::MAX),
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
        let id = self.next;
        self.next = self.next.saturating_add(1);
        self.ids.insert(term, id);
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
    pub(crate) fn add_doc(&mut self, path: String, size: u64, mtime: (i64, u32), f: Facts) {
        let rec = FileRec {
            kind: Kind::Docs,
            path,
            size,
            mtime,
            lens: [0; NF],
            details: Span::default(),
        };
        self.docs.push((rec, encoded(&Details::of(f))));
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
        let mut files = Vec::with_capacity(self.files.len());
        let mut file_terms = Vec::with_capacity(self.files.len());
        let mut details = Vec::with_capacity(self.files.len());
        for (rec, terms, d) in self.files {
            files.push(rec);
            file_terms.push(terms);
            details.push(d);
        }
        let (mut docs, doc_details): (Vec<FileRec>, Vec<Vec<u8>>) = self.docs.into_iter().unzip();
        let sizes = list_sizes(&file_terms, &renum, n_terms);
        let all_details: Vec<&[u8]> = details.iter().chain(&doc_details).map(|d| &d[..]).collect();
        let (body, spans, (lists_at, list_ends)) =
            lay_out(&all_details, &file_terms, &renum, &sizes);
        for (rec, span) in files.iter_mut().chain(&mut docs).zip(spans) {
            rec.details = span;
        }
        Segment {
            head: Head {
                terms: terms.into_bytes(),
                ends,
                files,
                docs,
                lists_at,
                list_ends,
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
        let mut by_id = vec![""; self.next as usize];
        for (term, &id) in &self.ids {
            if let Some(t) = by_id.get_mut(id as usize) {
                *t = term;
            }
        }
        let mut used = vec![false; by_id.len()];
        for (_, terms, _) in &self.files {
            for (id, _) in terms {
                if let Some(u) = used.get_mut(*id as usize) {
                    *u = true;
                }
            }
        }
        // Sorted by their first eight bytes, held beside each id (no term is read through a
        // pointer until two share them), then by the rest: the order of `str` (no term holds
        // a NUL byte, so zero padding sorts a shorter term first).
        let mut keyed: Vec<(u64, usize)> = (0..by_id.len())
            .filter(|&i| used[i])
            .map(|i| (super::segment::key(by_id[i].as_bytes()), i))
            .collect();
        keyed.sort_unstable_by(|&(ka, a), &(kb, b)| {
            let rest = |i: usize| by_id[i].as_bytes().get(8..).unwrap_or_default();
            ka.cmp(&kb).then_with(|| rest(a).cmp(rest(b)))
        });
        let order: Vec<usize> = keyed.into_iter().map(|(_, i)| i).collect();
        let mut renum = vec![u32::MAX; by_id.len()];
        let mut terms = String::new();
        let mut ends = Vec::with_capacity(4 * order.len());
        for (new, &old) in order.iter().enumerate() {
            renum[old] = u32::try_from(new).unwrap_or(u32::MAX);
            terms.push_str(by_id[old]);
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

/// The body: every file's `details` (files, then docs), each sealed with its check, then one
/// posting list per term (of the `sizes` [`list_sizes`] gave), each with its check; where each
/// details is, and where the lists start and each ends (see [`Head::list_ends`]). Its size is
/// known first: one allocation, never grown, and its two parts are written at once, on two
/// cores.
fn lay_out(
    details: &[&[u8]],
    files: &[Terms],
    renum: &[u32],
    sizes: &[usize],
) -> (Vec<u8>, Vec<Span>, (u64, Vec<u8>)) {
    let sealed: usize = details.iter().map(|d| d.len() + CHECK).sum();
    let listed: usize = sizes.iter().map(|s| s + CHECK).sum();
    let mut body = vec![0u8; sealed + listed];
    let (front, back) = body.split_at_mut(sealed);
    let (list_ends, spans) = crate::par::beside(
        || write_lists(back, files, renum, sizes),
        || seal_all(front, details),
    );
    (body, spans, (sealed as u64, list_ends))
}

/// Each of `all` followed by its check, one after the other from the start of `out` (exactly
/// their size); where each is.
fn seal_all(out: &mut [u8], all: &[&[u8]]) -> Vec<Span> {
    let mut at = 0;
    all.iter()
        .map(|bytes| {
            let end = at + bytes.len();
            out[at..end].copy_from_slice(bytes);
            out[end..end + CHECK].copy_from_slice(&span_check(bytes));
            let span = Span {
                at: at as u64,
                len: u32::try_from(bytes.len() + CHECK).unwrap_or(u32::MAX),
            };
            at = end + CHECK;
            span
        })
        .collect()
}

/// The size of each term's posting list (`n_terms`, the dictionary's; `renum` maps the files'
/// term ids to it), worked out first so that the body is allocated once and the lists are
/// written in place ([`write_lists`]): no list of its own per term, grown entry by entry and
/// copied into the body after.
fn list_sizes(files: &[Terms], renum: &[u32], n_terms: usize) -> Vec<usize> {
    // Per term, its list's last file and its size, side by side: one cache line per entry.
    let mut lists = vec![(usize::MAX, 0usize); n_terms];
    each_entry(files, renum, &mut lists, |list, delta, tf| {
        list.1 += entry_len(delta, &tf);
    });
    lists.into_iter().map(|l| l.1).collect()
}

/// Write one posting list per term (of the `sizes` [`list_sizes`] gave), each followed by its
/// check, into `out` (exactly their size); where each ends in `out`, as
/// [`Head::list_ends`] holds them.
fn write_lists(out: &mut [u8], files: &[Terms], renum: &[u32], sizes: &[usize]) -> Vec<u8> {
    // Per term, its list's last file and where its next entry goes.
    let mut lists = Vec::with_capacity(sizes.len());
    let mut end = 0;
    for &s in sizes {
        lists.push((usize::MAX, end));
        end += s + CHECK;
    }
    each_entry(files, renum, &mut lists, |list, delta, tf| {
        list.1 += write_entry(&mut out[list.1..], delta, &tf);
    });
    let mut ends = Vec::with_capacity(8 * sizes.len());
    let mut pos = 0;
    for &s in sizes {
        let check = span_check(&out[pos..pos + s]);
        out[pos + s..pos + s + CHECK].copy_from_slice(&check);
        pos += s + CHECK;
        ends.extend_from_slice(&(pos as u64).to_le_bytes());
    }
    ends
}

/// Call `f(list, delta, counts)` for each entry of each posting list, in file order: the
/// term's entry of `lists` (the dictionary's ids; `renum` maps the files' ids to them), the
/// distance from the list's file before (from 0 for its first) and the counts. Each entry of
/// `lists` starts with its last file (`usize::MAX`: none yet): a term twice in one file's
/// terms is taken once.
fn each_entry(
    files: &[Terms],
    renum: &[u32],
    lists: &mut [(usize, usize)],
    mut f: impl FnMut(&mut (usize, usize), u32, [u8; NF]),
) {
    for (fi, terms) in files.iter().enumerate() {
        for &(id, tf) in terms {
            let Some(&t) = renum.get(id as usize) else {
                continue;
            };
            let Some(list) = lists.get_mut(t as usize) else {
                continue;
            };
            let delta = match list.0 {
                usize::MAX => fi,
                p if fi <= p => continue,
                p => fi - p,
            };
            list.0 = fi;
            f(list, u32::try_from(delta).unwrap_or(u32::MAX), tf);
        }
    }
}

/// The bytes of one entry of a posting list: the distance from the file before (LEB128), a
/// byte whose bit `f` says field `f` has the term, then those fields' counts, one byte each.
fn entry_len(delta: u32, tf: &[u8; NF]) -> usize {
    crate::varint::len(delta) + 1 + tf.iter().filter(|&&c| c > 0).count()
}

/// Write one entry (see [`entry_len`]) at the start of `out`; how many bytes it took.
fn write_entry(out: &mut [u8], delta: u32, tf: &[u8; NF]) -> usize {
    let mut n = crate::varint::write(out, delta);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::facts::facts;

    #[test]
    fn a_files_details_wait_in_a_buffer_of_their_size() {
        let text: String = (0..200)
            .map(|i| format!("/// Handles case {i}.\npub fn handler_{i}(x: u32) -> u32 {{ x }}\n"))
            .collect();
        let mut b = Builder::new();
        let mut words = b.lexicon();
        let p = prepare(facts("src/a.rs", text.as_bytes(), &mut words), &mut words);
        assert!(p.details.len() > 3000, "{}", p.details.len());
        assert_eq!(p.details.capacity(), p.details.len());
    }
}
