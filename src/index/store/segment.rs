//! One segment of the index, on disk and in memory: the base (every file) or the delta (the
//! files changed since, see [`super`]).
//!
//! Owns the format. A preamble (magic number, format version, the lengths of the head and the
//! body, a check of the head's bytes) comes first, then the *head*, encoded with `postcard`:
//! the sorted dictionary of the segment's terms (a term's id is its place in it; a lookup is a
//! binary search), each file's path, size, modification time, kind and field lengths, where in
//! the *body* each term's posting list and each file's details (definitions, summary, imports,
//! links, module doc) are, and the state the refresh keeps (git history, the walk's folders). A
//! query reads the head, then only the posting lists of its own terms and the details of the
//! files it shows.
//!
//! Nothing read is trusted: another version, a file of the wrong length (truncated or grown), a
//! head whose check fails or that does not decode or whose spans leave the body loads as
//! `None`; every span of the body ends in a check of its bytes, so a damaged list or details
//! read as [`Damaged`]. Does not decide what is stale nor rank. Building one: [`super::Builder`].

use std::fs::File;
use std::hash::BuildHasher;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::super::cochange::CoChange;
use super::super::facts::{FIELDS as NF, Facts, Symbol, def_refs, push_clean};
use super::super::kind::Kind;
use super::super::lang::Def;
use super::super::walk::WalkCache;
use super::place::CACHE_PATH;

const MAGIC: &[u8; 8] = b"RALPHCIX";
/// Bump when the encoding or what is extracted changes: an old cache is then rebuilt.
const VERSION: u32 = 12;
/// Magic, version, the head's length, the body's length, the head's check.
pub(super) const PREAMBLE: usize = 8 + 4 + 8 + 8 + 8;
/// A segment file larger than this is not read (it cannot be ours).
const MAX_FILE: u64 = 1 << 31;
/// Bytes of the check that ends every span of the body.
pub(super) const CHECK: usize = 4;

/// The cache turned out damaged while it was read (a span outside the body, a check that does
/// not match, bytes that do not decode): rebuild the index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{CACHE_PATH} is damaged ({0}); it is rebuilt")]
pub(crate) struct Damaged(pub &'static str);

/// A byte range of the body: the bytes, then a check of them ([`CHECK`] bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Span {
    pub(super) at: u64,
    pub(super) len: u32,
}

/// What the index knows of a file without reading its details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FileRec {
    pub path: String,
    pub size: u64,
    /// Modification time (seconds, nanoseconds since the epoch), to tell a changed file.
    pub mtime: (i64, u32),
    pub kind: Kind,
    /// Terms per field (what BM25 normalises by).
    pub lens: [u32; NF],
    pub(super) details: Span,
}

/// What a prompt shows of a file and what the Pin reads of it: its definitions, summary,
/// imports, links and module doc.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Details {
    /// One definition per line, as [`Facts::defs`] has them.
    pub symbols: String,
    pub summary: String,
    /// One imported module per line, as written.
    pub imports: String,
    /// One linked sibling module per line (see [`Facts::links`]).
    pub links: String,
    /// The module doc, one line each.
    pub module_doc: String,
}

impl Details {
    /// A file's details, taken from its facts.
    pub(super) fn of(f: Facts) -> Details {
        let lines = |items: &[String]| -> String {
            let mut out = String::new();
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                push_clean(&mut out, item);
            }
            out
        };
        let mut summary = String::new();
        push_clean(&mut summary, &f.summary);
        Details {
            summary,
            imports: lines(&f.imports),
            links: lines(&f.links),
            symbols: f.defs,
            module_doc: f.module_doc,
        }
    }

    /// How many bytes postcard encodes these in: each field's length as a varint, then its
    /// bytes.
    pub(super) fn encoded_len(&self) -> usize {
        let varint = |n: usize| ((usize::BITS - (n | 1).leading_zeros()) as usize).div_ceil(7);
        [
            &self.symbols,
            &self.summary,
            &self.imports,
            &self.links,
            &self.module_doc,
        ]
        .iter()
        .map(|s| varint(s.len()) + s.len())
        .sum()
    }

    /// The file's definitions, in line order (a malformed line is skipped), their signatures
    /// not read (see [`crate::index::sigs`]).
    pub(crate) fn symbols(&self) -> impl Iterator<Item = Symbol> + '_ {
        self.symbol_refs().map(Symbol::from)
    }

    /// [`Details::symbols`], borrowed from the details: what a reader that keeps few of them
    /// (or only their names) walks without a `String` per field.
    pub(crate) fn symbol_refs(&self) -> impl Iterator<Item = Def<'_>> + '_ {
        def_refs(&self.symbols)
    }
}

/// What the refresh keeps besides the files: the git history it read and the folders the walk
/// entered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    pub cochange: Option<CoChange>,
    /// When it was built (seconds since the epoch): a file modified in the same second or later
    /// may have changed after it was read, so it is read again next time.
    pub built_at: i64,
    pub walk: WalkCache,
}

/// What a delta changes of its base.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Overlay {
    /// The check of the base's head: a delta of another base is not used.
    pub(super) base: u64,
    /// The base's files (indexes, ascending) that changed or went: the delta's version counts.
    pub(super) dead: Vec<u32>,
    pub(super) dead_docs: Vec<u32>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Head {
    /// The terms, sorted, one after the other; `ends` holds, four bytes little-endian each,
    /// where each term ends.
    /// Bytes, not a `String`: they are only ever compared as bytes, and a `String` would be
    /// checked for UTF-8 on every load (the encoding is the same).
    #[serde(with = "serde_bytes")]
    pub(super) terms: Vec<u8>,
    #[serde(with = "serde_bytes")]
    pub(super) ends: Vec<u8>,
    /// Sorted by path.
    pub(super) files: Vec<FileRec>,
    /// Markdown files about the code (see [`super::super::walk::rules::describes_code`]), sorted by
    /// path: the Pin reads their headings; they are not searched (no terms).
    pub(super) docs: Vec<FileRec>,
    /// Where in the body the posting lists start: one per term id, one after the other.
    pub(super) lists_at: u64,
    /// Where each term's list ends, counted from `lists_at`, eight bytes little-endian each: a
    /// list's span is worked out when it is read, so loading the head decodes none of them (a
    /// million at 35k files) and holds them in one buffer of exactly their size.
    #[serde(with = "serde_bytes")]
    pub(super) list_ends: Vec<u8>,
    /// Field lengths summed over the files (what BM25's averages need).
    pub(super) lens: [u64; NF],
    pub(super) overlay: Option<Overlay>,
    pub(super) state: State,
}

/// Where the body is: in memory (just built) or in the segment's file (read on demand).
#[derive(Debug)]
pub(super) enum Body {
    Mem(Vec<u8>),
    File { file: File, at: u64, len: u64 },
}

/// One segment: the head in memory, the body read a span at a time.
#[derive(Debug)]
pub(super) struct Segment {
    pub(super) head: Head,
    pub(super) body: Body,
    /// The check of its encoded head, once encoded or loaded: what identifies a base.
    pub(super) check: u64,
}

impl Default for Segment {
    fn default() -> Segment {
        Segment {
            head: Head::default(),
            body: Body::Mem(Vec::new()),
            check: 0,
        }
    }
}

/// A file's terms: (term id, counts per field), ascending id.
pub(crate) type Terms = Vec<(u32, [u8; NF])>;

/// The files that have a term, ascending: (file index, counts per field).
pub(crate) type Postings = Vec<(usize, [u8; NF])>;

/// Where list `i` ends in a head's `list_ends` (`None` past the end).
fn list_end(ends: &[u8], i: usize) -> Option<u64> {
    let b = ends.get(8 * i..8 * i + 8)?;
    Some(u64::from_le_bytes(<[u8; 8]>::try_from(b).ok()?))
}

/// Where term `i` ends in a head's `terms` (0 past the end).
fn end_of(ends: &[u8], i: usize) -> usize {
    ends.get(4 * i..4 * i + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, |b| u32::from_le_bytes(b) as usize)
}

impl Segment {
    /// How many terms the dictionary holds.
    pub(super) fn n_terms(&self) -> usize {
        self.head.ends.len() / 4
    }

    /// Term `id`'s bytes.
    pub(super) fn term(&self, id: usize) -> &[u8] {
        let start = if id == 0 {
            0
        } else {
            end_of(&self.head.ends, id - 1)
        };
        let end = end_of(&self.head.ends, id);
        self.head.terms.get(start..end).unwrap_or_default()
    }

    /// The id of `term` (`None`: no file of the segment has it). A binary search.
    pub(super) fn term_id(&self, term: &str) -> Option<u32> {
        let (mut lo, mut hi) = (0, self.n_terms());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.term(mid).cmp(term.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return u32::try_from(mid).ok(),
            }
        }
        None
    }

    /// The files that have term `id` (none for an id outside the dictionary).
    pub(super) fn postings(&self, id: u32) -> Result<Postings, Damaged> {
        let Some(span) = self.list_span(id as usize) else {
            return Ok(Vec::new());
        };
        decode_list(&self.read(span)?, self.head.files.len())
    }

    /// Where term `id`'s posting list is in the body (`None` outside the dictionary).
    fn list_span(&self, id: usize) -> Option<Span> {
        let ends = &self.head.list_ends;
        let start = if id == 0 { 0 } else { list_end(ends, id - 1)? };
        let end = list_end(ends, id)?;
        Some(Span {
            at: self.head.lists_at.checked_add(start)?,
            len: u32::try_from(end.checked_sub(start)?).ok()?,
        })
    }

    /// The details at `span` (a file's or a doc's).
    pub(super) fn details(&self, span: Span) -> Result<Details, Damaged> {
        match postcard::take_from_bytes(&self.read(span)?) {
            Ok((details, [])) => Ok(details),
            _ => Err(Damaged("details that do not decode")),
        }
    }

    /// The bytes of `span`, when they are inside the body and match their check.
    pub(super) fn read(&self, span: Span) -> Result<Vec<u8>, Damaged> {
        let len = span.len as usize;
        let end = span.at.saturating_add(u64::from(span.len));
        let mut bytes = match &self.body {
            Body::Mem(b) => usize::try_from(span.at)
                .ok()
                .and_then(|a| b.get(a..a.checked_add(len)?))
                .ok_or(Damaged("a span outside the body"))?
                .to_vec(),
            Body::File {
                file,
                at,
                len: body,
            } => {
                if end > *body {
                    return Err(Damaged("a span outside the body"));
                }
                let mut buf = vec![0; len];
                file.read_exact_at(&mut buf, at + span.at)
                    .map_err(|_| Damaged("a span that cannot be read"))?;
                buf
            }
        };
        let Some(data) = len.checked_sub(CHECK) else {
            return Err(Damaged("a span shorter than its check"));
        };
        if bytes[data..] != span_check(&bytes[..data]) {
            return Err(Damaged("a span whose check does not match"));
        }
        bytes.truncate(data);
        Ok(bytes)
    }
}

/// The check of a span's bytes.
pub(super) fn span_check(bytes: &[u8]) -> [u8; CHECK] {
    let h = foldhash::fast::FixedState::with_seed(u64::from(VERSION)).hash_one(bytes);
    let mut out = [0; CHECK];
    out.copy_from_slice(&h.to_le_bytes()[..CHECK]);
    out
}

/// The check of the head's bytes.
fn head_check(bytes: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(u64::from(!VERSION)).hash_one(bytes)
}

/// The entries of an encoded posting list: per file, the distance from the previous file's
/// index (LEB128), a byte whose bit `f` says field `f` has the term, then those fields'
/// counts, one byte each. Files must ascend and be among the `n_files`.
pub(super) fn decode_list(b: &[u8], n_files: usize) -> Result<Postings, Damaged> {
    const BAD: Damaged = Damaged("a posting list that does not decode");
    let mut out = Vec::new();
    let mut file = 0usize;
    let mut at = 0;
    while at < b.len() {
        let (delta, next) = crate::varint::read(b, at).ok_or(BAD)?;
        if delta == 0 && !out.is_empty() {
            return Err(BAD);
        }
        file = file.checked_add(delta as usize).ok_or(BAD)?;
        let &mask = b.get(next).ok_or(BAD)?;
        if file >= n_files || mask >> NF != 0 {
            return Err(BAD);
        }
        at = next + 1;
        let mut tf = [0u8; NF];
        for (field, count) in tf.iter_mut().enumerate() {
            if mask & (1 << field) != 0 {
                *count = *b.get(at).ok_or(BAD)?;
                at += 1;
            }
        }
        out.push((file, tf));
    }
    Ok(out)
}

/// The lengths of the head and the body and the head's check, when `pre` starts a cache of
/// this version.
pub(super) fn preamble(pre: &[u8; PREAMBLE]) -> Option<(u64, u64, u64)> {
    let rest = pre.strip_prefix(MAGIC.as_slice())?;
    let (version, rest) = rest.split_first_chunk::<4>()?;
    if u32::from_le_bytes(*version) != VERSION {
        return None;
    }
    let (head, rest) = rest.split_first_chunk::<8>()?;
    let (body, rest) = rest.split_first_chunk::<8>()?;
    let check = rest.first_chunk::<8>()?;
    Some((
        u64::from_le_bytes(*head),
        u64::from_le_bytes(*body),
        u64::from_le_bytes(*check),
    ))
}

/// Whether a head's posting lists are well formed: one per term, each at least a check long
/// and one after the other from `lists_at`, the last inside a body of `body_len` bytes.
fn lists_ok(head: &Head, body_len: u64) -> bool {
    let ends = &head.list_ends;
    if ends.len() != 2 * head.ends.len() {
        return false;
    }
    let mut start = 0u64;
    for i in 0..ends.len() / 8 {
        let Some(end) = list_end(ends, i) else {
            return false;
        };
        if end.saturating_sub(start) < CHECK as u64 || end - start > u64::from(u32::MAX) {
            return false;
        }
        start = end;
    }
    head.lists_at
        .checked_add(start)
        .is_some_and(|e| e <= body_len)
}

/// Whether a head's dictionary is well formed: `ends` a whole number of ascending ends inside
/// `terms`, the last one its end; the terms non-empty, sorted and distinct.
fn dictionary_ok(terms: &[u8], ends: &[u8]) -> bool {
    if !ends.len().is_multiple_of(4) {
        return false;
    }
    let mut start = 0;
    let mut prev: (&[u8], u64) = (&[], 0);
    for i in 0..ends.len() / 4 {
        let end = end_of(ends, i);
        if end <= start || end > terms.len() {
            return false;
        }
        let term = &terms[start..end];
        let keyed = (term, key(term));
        if i > 0 && !before(prev, keyed) {
            return false;
        }
        prev = keyed;
        start = end;
    }
    start == terms.len()
}

/// A word's first eight bytes as one number (zeros past its end): in byte order, as the words
/// (the builder sorts the dictionary by it, the load checks that order with it).
pub(super) fn key(s: &[u8]) -> u64 {
    match s.first_chunk::<8>() {
        Some(k) => u64::from_be_bytes(*k),
        None => s
            .iter()
            .enumerate()
            .fold(0, |k, (i, &b)| k | u64::from(b) << (56 - 8 * i)),
    }
}

/// Whether `a` sorts before `b` (bytes, as `<`), each with its [`key`]: most neighbours in a
/// sorted dictionary differ in their first eight bytes, so those are compared as one number
/// first (a million terms are checked on every load), each word's key worked out once.
fn before((a, ka): (&[u8], u64), (b, kb): (&[u8], u64)) -> bool {
    match ka.cmp(&kb) {
        std::cmp::Ordering::Equal => a < b,
        other => other.is_lt(),
    }
}

/// The head encoded in `bytes`, when they match `check` and decode to a head consistent with
/// a body of `body_len` bytes.
fn open_head(bytes: &[u8], check: u64, body_len: u64) -> Option<Head> {
    if head_check(bytes) != check {
        return None;
    }
    let (head, rest): (Head, &[u8]) = postcard::take_from_bytes(bytes).ok()?;
    let inside =
        |s: &Span| s.len as usize >= CHECK && s.at.saturating_add(u64::from(s.len)) <= body_len;
    let ok = rest.is_empty()
        && dictionary_ok(&head.terms, &head.ends)
        && lists_ok(&head, body_len)
        && head
            .files
            .iter()
            .chain(&head.docs)
            .all(|f| inside(&f.details))
        && head.files.windows(2).all(|w| w[0].path < w[1].path)
        && head.docs.windows(2).all(|w| w[0].path < w[1].path);
    ok.then_some(head)
}

/// The segment in the file at `path`, or `None` when there is none or it cannot be used (see
/// the module doc). Reads the preamble and the head only.
pub(super) fn load(path: &Path) -> Option<Segment> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE {
        return None;
    }
    let mut file = File::open(path).ok()?;
    let total = file.metadata().ok()?.len();
    let mut pre = [0u8; PREAMBLE];
    file.read_exact(&mut pre).ok()?;
    let (head_len, body_len, check) = preamble(&pre)?;
    let body_at = (PREAMBLE as u64).checked_add(head_len)?;
    if body_at.checked_add(body_len)? != total {
        return None;
    }
    let mut head = vec![0; usize::try_from(head_len).ok()?];
    file.read_exact(&mut head).ok()?;
    Some(Segment {
        head: open_head(&head, check, body_len)?,
        body: Body::File {
            file,
            at: body_at,
            len: body_len,
        },
        check,
    })
}

#[cfg(test)]
/// Decode a whole segment file's bytes (`None` when they are not a usable segment of this
/// version).
#[cfg(test)]
pub(super) fn decode(bytes: &[u8]) -> Option<Segment> {
    let (head_len, body_len, check) = preamble(bytes.first_chunk()?)?;
    let body_at = PREAMBLE.checked_add(usize::try_from(head_len).ok()?)?;
    let body = bytes.get(body_at..)?;
    if body.len() as u64 != body_len {
        return None;
    }
    Some(Segment {
        head: open_head(bytes.get(PREAMBLE..body_at)?, check, body_len)?,
        body: Body::Mem(body.to_vec()),
        check,
    })
}

/// The bytes of a segment file, and the check of its head (the segment's identity once
/// written). An error only when a body still in its file cannot be read.
#[cfg(test)]
pub(super) fn encode(seg: &Segment) -> std::io::Result<(Vec<u8>, u64)> {
    let (mut out, body, check) = encode_parts(seg)?;
    out.extend_from_slice(&body);
    Ok((out, check))
}

/// [`encode`] in two parts, the preamble with the head, and the body (borrowed when it is in
/// memory: tens of megabytes are written from where they are, not copied first).
pub(super) fn encode_parts(
    seg: &Segment,
) -> std::io::Result<(Vec<u8>, std::borrow::Cow<'_, [u8]>, u64)> {
    // Serialising plain data into a Vec cannot fail.
    let head = postcard::to_stdvec(&seg.head).unwrap_or_default();
    let body = match &seg.body {
        Body::Mem(b) => std::borrow::Cow::Borrowed(b.as_slice()),
        Body::File { file, at, len } => {
            let mut b = vec![0; usize::try_from(*len).map_err(std::io::Error::other)?];
            file.read_exact_at(&mut b, *at)?;
            std::borrow::Cow::Owned(b)
        }
    };
    let check = head_check(&head);
    let mut out = Vec::with_capacity(PREAMBLE + head.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(head.len() as u64).to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&check.to_le_bytes());
    out.extend(head);
    Ok((out, body, check))
}

#[cfg(test)]
mod tests {
    use super::{before, key};

    #[test]
    fn before_is_byte_order() {
        let words: [&[u8]; 14] = [
            b"",
            b"a",
            b"a\0",
            b"a\0\0",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghi",
            b"abcdefgi",
            b"abcdefh",
            b"b",
            b"\xff",
            b"\xc3\xa9t\xc3\xa9",
            b"zzzzzzzzzz",
        ];
        for a in words {
            for b in words {
                assert_eq!(before((a, key(a)), (b, key(b))), a < b, "{a:?} {b:?}");
            }
        }
    }
}
