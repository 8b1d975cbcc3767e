//! The Pin's digest: what ranking its entries needs for any query, worked out once per Pin text.
//! Per entry: where its heading starts, its line, its fields' lengths in terms and whether it
//! holds tests, examples… ([`EntryView::is_aside`]); per term, the entries holding it with its
//! count in each field. A search reads the lists of its own terms and parses only the entries it
//! shows, instead of parsing and tokenizing the whole Pin on every prompt.
//!
//! Owns building a digest from a Pin's text ([`Digest::build`]) and its bytes (what
//! `.ralph/pin-search.bin` holds; reading and writing that file is [`super::searchable`]).
//! Nothing read is trusted: bytes of another version or of another Pin text, a wrong length or
//! check, or terms and spans out of order decode as `None`; a list that does not decode is
//! [`Damaged`]. Pure: no I/O. Does not own scoring (see [`super::search`]) or parsing (see
//! [`super::format`]).
//!
//! Bytes: magic `RALPHPIN`, version (u32), the Pin text's length and hash, the numbers of
//! entries and terms, the lengths of the terms' and lists' bytes, the totals of the field
//! lengths, a check of all that follows; then per entry its start, line, field lengths and
//! aside flag; the ends of the terms (sorted) and their bytes; the ends of the lists and their
//! bytes. Numbers are little-endian. A list holds, per entry, its distance from the entry after
//! the one before, then the term's count in each field (all LEB128, see [`crate::varint`]).

use std::collections::HashMap;
use std::hash::BuildHasher;

use super::format::{EntryView, PinView};
use crate::index::text::for_each_term;

mod bytes;

const MAGIC: &[u8; 8] = b"RALPHPIN";
/// Bump when the bytes or what is counted change: an old digest is then worked out again.
const VERSION: u32 = 1;
/// The searched fields: keywords, name, file paths (and the spec link).
pub(crate) const FIELDS: usize = 3;
/// Magic, version, text length and hash, four counts, the totals, the check.
const HEADER: usize = 8 + 4 + 8 + 8 + 4 * 8 + FIELDS * 8 + 8;
/// Bytes per entry: start, line, field lengths, aside flag.
const ENTRY: usize = 8 + 8 + FIELDS * 4 + 4;

/// A list of the digest does not decode: its bytes are not what was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Damaged;

/// What ranking needs of one entry, and where to read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryStat {
    /// Where its heading starts in the Pin's text.
    pub start: usize,
    /// Its heading's line (1-based).
    pub line: usize,
    /// Each field's length in terms.
    pub len: [u32; FIELDS],
    /// Tests, examples, fixtures…: scored lower unless the query is about them.
    pub aside: bool,
}

/// A Pin's digest (see the module doc). The default is an empty Pin's. Two digests are equal
/// when they hold the same entries, terms and lists, wherever their bytes are kept.
#[derive(Debug, Clone, Default)]
pub(crate) struct Digest {
    entries: Vec<EntryStat>,
    totals: [u64; FIELDS],
    /// Where each term ends in `bytes` (from `words_at`); terms ascend.
    word_ends: Vec<u32>,
    /// Where each term's list ends in `bytes` (from `lists_at`).
    list_ends: Vec<u32>,
    bytes: Vec<u8>,
    words_at: usize,
    lists_at: usize,
}

/// Call `f(field, text)` for each searched text of an entry: 0 keywords, 1 name, 2 file paths
/// and the spec link. A keyword list as written has the terms of its keywords: the commas,
/// spaces and backticks that split and trim them are word separators for the tokenizer too.
fn for_each_field(e: &EntryView<'_>, mut f: impl FnMut(usize, &str)) {
    for k in &e.keyword_lists {
        f(0, k);
    }
    f(1, e.name);
    for p in e.files.iter().chain(&e.spec) {
        f(2, p);
    }
}

/// Entries per thread below which counting stays on one thread.
const MIN_CHUNK: usize = 512;

/// One entry's field lengths and its terms (ids in its chunk's words) with their counts.
struct Counted {
    len: [u32; FIELDS],
    terms: Vec<(u32, [u32; FIELDS])>,
}

/// The entries of a run of entries counted: their own words, and each entry's terms by id.
struct Chunk {
    words: Vec<String>,
    entries: Vec<Counted>,
}

impl Chunk {
    /// Count the terms of `entries` (a run of a Pin's entries, in order).
    fn count(entries: &[EntryView<'_>]) -> Chunk {
        let mut ids: HashMap<String, u32, foldhash::fast::RandomState> = HashMap::default();
        let mut seen: Vec<(u32, usize)> = Vec::new();
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            let mut len = [0u32; FIELDS];
            seen.clear();
            for_each_field(e, |f, text| {
                for_each_term(text, |t, _| {
                    len[f] += 1;
                    let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                    let id = match ids.get(t) {
                        Some(&id) => id,
                        None => *ids.entry(t.to_string()).or_insert(next),
                    };
                    seen.push((id, f));
                });
            });
            out.push(Counted {
                len,
                terms: grouped(&mut seen),
            });
        }
        let mut words = vec![String::new(); ids.len()];
        for (w, id) in ids {
            words[id as usize] = w;
        }
        Chunk {
            words,
            entries: out,
        }
    }
}

/// `(term, field)` pairs as each term's count per field, by term.
fn grouped(seen: &mut [(u32, usize)]) -> Vec<(u32, [u32; FIELDS])> {
    seen.sort_unstable();
    let mut terms: Vec<(u32, [u32; FIELDS])> = Vec::new();
    for &(t, f) in seen.iter() {
        match terms.last_mut() {
            Some((last, tf)) if *last == t => tf[f] += 1,
            _ => {
                let mut tf = [0; FIELDS];
                tf[f] = 1;
                terms.push((t, tf));
            }
        }
    }
    terms
}

/// A term's list while it is built: its bytes, and the entry after the last one in it.
#[derive(Default)]
struct ListBuf {
    bytes: Vec<u8>,
    next: u32,
}

impl ListBuf {
    fn push(&mut self, entry: u32, tf: [u32; FIELDS]) {
        crate::varint::push(&mut self.bytes, entry - self.next);
        for c in tf {
            crate::varint::push(&mut self.bytes, c);
        }
        self.next = entry + 1;
    }
}

/// Every term of the chunks (in order) with its list, unsorted.
fn lists(chunks: &[Chunk]) -> Vec<(&str, ListBuf)> {
    let mut at: HashMap<&str, usize, foldhash::fast::RandomState> = HashMap::default();
    let mut lists: Vec<(&str, ListBuf)> = Vec::new();
    let mut entry = 0u32;
    for c in chunks {
        let global: Vec<usize> = (c.words.iter())
            .map(|w| {
                *at.entry(w.as_str()).or_insert_with(|| {
                    lists.push((w.as_str(), ListBuf::default()));
                    lists.len() - 1
                })
            })
            .collect();
        for e in &c.entries {
            for &(id, tf) in &e.terms {
                lists[global[id as usize]].1.push(entry, tf);
            }
            entry += 1;
        }
    }
    lists
}

impl Digest {
    /// The digest of the Pin `text` (parsed and counted on all cores).
    pub(crate) fn build(text: &str) -> Digest {
        let view = PinView::parse(text);
        let chunks = crate::par::map_chunks(view.entries(), MIN_CHUNK, |_, es| Chunk::count(es));
        let counted = chunks.iter().flat_map(|c| &c.entries);
        let mut entries = Vec::with_capacity(view.entries().len());
        let mut totals = [0u64; FIELDS];
        for (e, c) in view.entries().iter().zip(counted) {
            entries.push(EntryStat {
                start: offset_in(text, e.source),
                line: e.line,
                len: c.len,
                aside: e.is_aside(),
            });
            for (t, l) in totals.iter_mut().zip(c.len) {
                *t += u64::from(l);
            }
        }
        let mut terms = lists(&chunks);
        terms.sort_unstable_by(|a, b| a.0.cmp(b.0));
        Digest::of_parts(entries, totals, &terms)
    }

    /// The digest of entries, totals and sorted terms with their lists.
    fn of_parts(
        entries: Vec<EntryStat>,
        totals: [u64; FIELDS],
        terms: &[(&str, ListBuf)],
    ) -> Digest {
        let mut bytes = Vec::new();
        let mut word_ends = Vec::with_capacity(terms.len());
        for (word, _) in terms {
            bytes.extend_from_slice(word.as_bytes());
            word_ends.push(u32::try_from(bytes.len()).unwrap_or(u32::MAX));
        }
        let lists_at = bytes.len();
        let mut list_ends = Vec::with_capacity(terms.len());
        for (_, list) in terms {
            bytes.extend_from_slice(&list.bytes);
            list_ends.push(u32::try_from(bytes.len() - lists_at).unwrap_or(u32::MAX));
        }
        Digest {
            entries,
            totals,
            word_ends,
            list_ends,
            bytes,
            words_at: 0,
            lists_at,
        }
    }

    /// The terms' bytes and the lists' bytes.
    fn kept(&self) -> (&[u8], &[u8]) {
        self.bytes[self.words_at..].split_at(self.lists_at - self.words_at)
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry `i` (in Pin order).
    pub(crate) fn entry(&self, i: usize) -> Option<&EntryStat> {
        self.entries.get(i)
    }

    /// The sums of the entries' field lengths.
    pub(crate) fn totals(&self) -> [u64; FIELDS] {
        self.totals
    }

    /// The `i`th term's bytes.
    fn word(&self, i: usize) -> &[u8] {
        let from = i.checked_sub(1).map_or(0, |p| self.word_ends[p] as usize);
        &self.bytes[self.words_at + from..self.words_at + self.word_ends[i] as usize]
    }

    /// The entries holding `term` (ascending) with its count in each field; none when no entry
    /// holds it.
    pub(crate) fn postings(&self, term: &str) -> Result<Vec<(usize, [u32; FIELDS])>, Damaged> {
        let found = self.binary_search(term.as_bytes());
        let Some(i) = found else {
            return Ok(Vec::new());
        };
        let from = i.checked_sub(1).map_or(0, |p| self.list_ends[p] as usize);
        let list = &self.bytes[self.lists_at + from..self.lists_at + self.list_ends[i] as usize];
        decode_list(list, self.entries.len())
    }

    fn binary_search(&self, term: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.word_ends.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.word(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

impl PartialEq for Digest {
    fn eq(&self, o: &Digest) -> bool {
        (&self.entries, self.totals, &self.word_ends, &self.list_ends)
            == (&o.entries, o.totals, &o.word_ends, &o.list_ends)
            && self.kept() == o.kept()
    }
}

/// Where `part` (a slice of `text`) starts in `text`.
fn offset_in(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// A list's entries (see the module doc): ascending, each below `n`, each with a count.
fn decode_list(b: &[u8], n: usize) -> Result<Vec<(usize, [u32; FIELDS])>, Damaged> {
    let mut out = Vec::new();
    let (mut at, mut next) = (0, 0usize);
    while at < b.len() {
        let (delta, after) = crate::varint::read(b, at).ok_or(Damaged)?;
        let entry = next.checked_add(delta as usize).ok_or(Damaged)?;
        at = after;
        let mut tf = [0u32; FIELDS];
        for c in &mut tf {
            (*c, at) = crate::varint::read(b, at).ok_or(Damaged)?;
        }
        if entry >= n || tf == [0; FIELDS] {
            return Err(Damaged);
        }
        out.push((entry, tf));
        next = entry + 1;
    }
    Ok(out)
}

/// The hash that ties a digest to the Pin text it was worked out from.
fn text_hash(text: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(u64::from(VERSION)).hash_one(text.as_bytes())
}

/// The check of the bytes after the header.
fn check(bytes: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(u64::from(!VERSION)).hash_one(bytes)
}

#[cfg(test)]
#[path = "digest/tests.rs"]
mod tests;
