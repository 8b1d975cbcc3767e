//! The code index on disk (`.ralph/code-index.bin`) and in memory.
//!
//! Owns the format. After a magic number and a format version comes the *head*, encoded with
//! `postcard` (bounds-checked: a corrupt head is rejected, never trusted): the dictionary of
//! all files' terms (one per line; a term's id is its line number), each file's path, size,
//! modification time, kind and field lengths, and where in the *body* each term's posting list
//! and each file's details (definitions, summary, imports) are. A query reads the head, then
//! only the posting lists of its own terms and the details of the files it shows — a warm
//! `ralph context` never reads the whole cache. A missing, stale (other version) or corrupt
//! cache loads as `None` and is rebuilt by [`super::scan`]; damage inside the body reads as an
//! empty list or empty details. Does not decide what is stale nor rank.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::cochange::CoChange;
use super::facts::{FIELDS as NF, Facts, Symbol};
use super::kind::Kind;
use crate::pin::text::FastMap;

/// Where the cache lives, relative to the project root.
pub const CACHE_PATH: &str = ".ralph/code-index.bin";
const MAGIC: &[u8; 8] = b"RALPHCIX";
/// Bump when the encoding or what is extracted changes: an old cache is then rebuilt.
const VERSION: u32 = 3;
/// Magic, version and the head's length.
const PREAMBLE: u64 = 8 + 4 + 8;
/// A cache file larger than this is not read (it cannot be ours).
const MAX_CACHE: u64 = 1 << 30;

/// A byte range of the body.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
struct Span {
    at: u64,
    len: u32,
}

/// What the index knows of a file without reading its details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRec {
    pub path: String,
    pub size: u64,
    /// Modification time (seconds, nanoseconds since the epoch), to tell a changed file.
    pub mtime: (i64, u32),
    pub kind: Kind,
    /// Terms per field (what BM25 normalises by).
    pub lens: [u32; NF],
    details: Span,
}

/// What a prompt shows of a file: its definitions, summary and imports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Details {
    /// One definition per line: `kind \t line \t name \t signature`.
    pub symbols: String,
    pub summary: String,
    /// One imported module per line, as written.
    pub imports: String,
}

impl Details {
    fn of(f: &Facts) -> Details {
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        let mut symbols = String::new();
        for s in &f.symbols {
            symbols.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                clean(&s.kind),
                s.line,
                clean(&s.name),
                clean(&s.sig)
            ));
        }
        let imports: Vec<String> = f.imports.iter().map(|i| clean(i)).collect();
        Details {
            symbols,
            summary: clean(&f.summary),
            imports: imports.join("\n"),
        }
    }

    /// The file's definitions, in line order (a malformed line is skipped).
    pub fn symbols(&self) -> impl Iterator<Item = Symbol> + '_ {
        self.symbols.lines().filter_map(|l| {
            let mut it = l.splitn(4, '\t');
            let kind = it.next()?.to_string();
            let line = it.next()?.parse().ok()?;
            let name = it.next()?.to_string();
            let sig = it.next()?.to_string();
            Some(Symbol {
                kind,
                name,
                line,
                sig,
            })
        })
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Head {
    dict: String,
    /// Sorted by path.
    files: Vec<FileRec>,
    /// Per term id, its posting list.
    lists: Vec<Span>,
    cochange: Option<CoChange>,
    built_at: i64,
}

/// Where the body is: in memory (just built) or in the cache file (read on demand).
#[derive(Debug)]
enum Body {
    Mem(Vec<u8>),
    File { file: File, at: u64, len: u64 },
}

/// The whole index: the head in memory, the body read a span at a time.
#[derive(Debug)]
pub struct Index {
    head: Head,
    body: Body,
}

impl Default for Index {
    fn default() -> Index {
        Index {
            head: Head::default(),
            body: Body::Mem(Vec::new()),
        }
    }
}

/// A file's terms: (term id, counts per field), ascending id.
pub type Terms = Vec<(u32, [u8; NF])>;

impl Index {
    /// The indexed files, sorted by path.
    pub fn files(&self) -> &[FileRec] {
        &self.head.files
    }

    /// Files changed together in recent git history, when the project is a git repository.
    pub fn cochange(&self) -> Option<&CoChange> {
        self.head.cochange.as_ref()
    }

    /// When the index was built (seconds since the epoch): a file modified in the same second
    /// or later may have changed after it was read, so it is read again next time.
    pub fn built_at(&self) -> i64 {
        self.head.built_at
    }

    /// The index of the file at `path`.
    pub fn file(&self, path: &str) -> Option<usize> {
        self.head
            .files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
    }

    /// The id of each of `terms` (`None`: no file has it). One pass over the dictionary.
    pub fn term_ids(&self, terms: &[&str]) -> Vec<Option<u32>> {
        let wanted: FastMap<&str, usize> = terms.iter().enumerate().map(|(i, t)| (*t, i)).collect();
        let mut out = vec![None; terms.len()];
        for (id, t) in self.head.dict.lines().enumerate() {
            if let Some(&i) = wanted.get(t) {
                out[i] = u32::try_from(id).ok();
            }
        }
        out
    }

    /// The files that have term `id`, ascending: (file index, counts per field). A damaged
    /// list ends early.
    pub fn postings(&self, id: u32) -> Vec<(usize, [u8; NF])> {
        let Some(span) = self.head.lists.get(id as usize) else {
            return Vec::new();
        };
        let bytes = self.read(*span);
        let mut out = Vec::new();
        let mut file = 0usize;
        decode_list(&bytes, |delta, tf| {
            file = file.saturating_add(delta as usize);
            if file < self.head.files.len() {
                out.push((file, tf));
            }
        });
        out
    }

    /// The details of file `file` (empty when damaged or unreadable).
    pub fn details(&self, file: usize) -> Details {
        self.head
            .files
            .get(file)
            .and_then(|f| postcard::from_bytes(&self.read(f.details)).ok())
            .unwrap_or_default()
    }

    fn read(&self, span: Span) -> Vec<u8> {
        let end = span.at.saturating_add(u64::from(span.len));
        match &self.body {
            Body::Mem(b) => usize::try_from(span.at)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(a, e)| b.get(a..e))
                .map(<[u8]>::to_vec)
                .unwrap_or_default(),
            Body::File { file, at, len } => {
                if end > *len {
                    return Vec::new();
                }
                let mut buf = vec![0; span.len as usize];
                match file.read_exact_at(&mut buf, at + span.at) {
                    Ok(()) => buf,
                    Err(_) => Vec::new(),
                }
            }
        }
    }

    /// Every file's terms, read from the posting lists (for a rebuild that keeps most files).
    fn forward(&self) -> Vec<Terms> {
        let mut out = vec![Vec::new(); self.head.files.len()];
        for id in 0..self.head.lists.len() {
            let id = u32::try_from(id).unwrap_or(u32::MAX);
            for (file, tf) in self.postings(id) {
                out[file].push((id, tf));
            }
        }
        out
    }
}

/// Call `f(delta, counts per field)` for each entry of an encoded list: the distance from the
/// previous id (LEB128), a byte whose bit `f` says field `f` has the term, then those fields'
/// counts, one byte each.
fn decode_list(b: &[u8], mut f: impl FnMut(u32, [u8; NF])) {
    let mut at = 0;
    while at < b.len() {
        let Some((delta, next)) = leb128(b, at) else {
            return;
        };
        let Some(&mask) = b.get(next) else { return };
        at = next + 1;
        let mut tf = [0u8; NF];
        for (field, count) in tf.iter_mut().enumerate() {
            if mask & (1 << field) != 0 {
                let Some(&c) = b.get(at) else { return };
                *count = c;
                at += 1;
            }
        }
        f(delta, tf);
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

/// Builds an index file by file, in path order, reusing what an older index already has.
pub struct Builder {
    ids: FastMap<String, u32>,
    dict: String,
    files: Vec<(FileRec, Terms, Vec<u8>)>,
}

impl Builder {
    /// A builder whose dictionary starts as `old`'s (so kept files keep their term ids).
    pub fn new(old: &Index) -> Builder {
        let ids = old
            .head
            .dict
            .lines()
            .enumerate()
            .map(|(i, t)| (t.to_string(), u32::try_from(i).unwrap_or(u32::MAX)))
            .collect();
        Builder {
            ids,
            dict: old.head.dict.clone(),
            files: Vec::new(),
        }
    }

    fn id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        if !self.dict.is_empty() && !self.dict.ends_with('\n') {
            self.dict.push('\n');
        }
        self.dict.push_str(term);
        self.dict.push('\n');
        self.ids.insert(term.to_string(), id);
        id
    }

    /// The compact form of a file just read: its terms by id, its encoded details.
    pub fn digest(&mut self, f: &Facts) -> (Terms, Vec<u8>) {
        let mut terms: Terms = f
            .terms
            .iter()
            .filter(|(t, _)| !t.contains('\n'))
            .map(|(t, tf)| (self.id(t), *tf))
            .collect();
        terms.sort_unstable_by_key(|(id, _)| *id);
        let details = postcard::to_stdvec(&Details::of(f)).unwrap_or_default();
        (terms, details)
    }

    /// Add a file just read (see [`Builder::digest`]).
    pub fn add(
        &mut self,
        path: String,
        size: u64,
        mtime: (i64, u32),
        lens: [u32; NF],
        digest: (Terms, Vec<u8>),
    ) {
        let rec = FileRec {
            kind: Kind::of(&path),
            path,
            size,
            mtime,
            lens,
            details: Span::default(),
        };
        self.files.push((rec, digest.0, digest.1));
    }

    /// Add file `file` of `old` unchanged (`terms` from [`Builder::kept_terms`]).
    pub fn keep(&mut self, old: &Index, file: usize, terms: Terms) {
        let Some(rec) = old.head.files.get(file) else {
            return;
        };
        self.files.push((rec.clone(), terms, old.read(rec.details)));
    }

    /// The terms of every file of `old`, for [`Builder::keep`].
    pub fn kept_terms(old: &Index) -> Vec<Terms> {
        old.forward()
    }

    /// The index, with its body in memory.
    pub fn finish(self, cochange: Option<CoChange>, built_at: i64) -> Index {
        let n_terms = self.dict.lines().count();
        let mut body = Vec::new();
        let mut files = Vec::with_capacity(self.files.len());
        let mut lists: Vec<Vec<u8>> = vec![Vec::new(); n_terms];
        let mut last: Vec<usize> = vec![0; n_terms];
        for (fi, (mut rec, terms, details)) in self.files.into_iter().enumerate() {
            rec.details = span(body.len(), details.len());
            body.extend_from_slice(&details);
            for (id, tf) in terms {
                let Some(list) = lists.get_mut(id as usize) else {
                    continue;
                };
                let delta = fi - last[id as usize];
                last[id as usize] = fi;
                encode_entry(list, u32::try_from(delta).unwrap_or(u32::MAX), tf);
            }
            files.push(rec);
        }
        let mut spans = Vec::with_capacity(n_terms);
        for list in lists {
            spans.push(span(body.len(), list.len()));
            body.extend_from_slice(&list);
        }
        Index {
            head: Head {
                dict: self.dict,
                files,
                lists: spans,
                cochange,
                built_at,
            },
            body: Body::Mem(body),
        }
    }
}

fn span(at: usize, len: usize) -> Span {
    Span {
        at: at as u64,
        len: u32::try_from(len).unwrap_or(u32::MAX),
    }
}

/// Append `v` as LEB128 (seven bits a byte, low bits first).
fn push_leb128(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The LEB128 number at `b[at..]` and where it ends; `None` when truncated or too long.
fn leb128(b: &[u8], mut at: usize) -> Option<(u32, usize)> {
    let mut v = 0u32;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(at)?;
        at += 1;
        v |= u32::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some((v, at));
        }
    }
    None
}

/// The cached index of the project at `root`, or `None` when there is none or it cannot be
/// used (unreadable, another format version, corrupt head). Reads the head only.
pub fn load(root: &Path) -> Option<Index> {
    let path = root.join(CACHE_PATH);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_CACHE {
        return None;
    }
    let mut file = File::open(&path).ok()?;
    let total = file.metadata().ok()?.len();
    let mut pre = [0u8; PREAMBLE as usize];
    file.read_exact(&mut pre).ok()?;
    let head_len = preamble(&pre)?;
    let body_at = PREAMBLE.checked_add(head_len)?;
    if body_at > total {
        return None;
    }
    let mut head = vec![0; usize::try_from(head_len).ok()?];
    file.read_exact(&mut head).ok()?;
    let head = checked(postcard::from_bytes(&head).ok()?, total - body_at)?;
    Some(Index {
        head,
        body: Body::File {
            file,
            at: body_at,
            len: total - body_at,
        },
    })
}

/// The head's length, when `pre` starts a cache of this version.
fn preamble(pre: &[u8; PREAMBLE as usize]) -> Option<u64> {
    let rest = pre.strip_prefix(MAGIC.as_slice())?;
    let (version, len) = rest.split_first_chunk::<4>()?;
    if u32::from_le_bytes(*version) != VERSION {
        return None;
    }
    Some(u64::from_le_bytes(len.try_into().ok()?))
}

/// `head`, when it is consistent with a body of `body_len` bytes.
fn checked(head: Head, body_len: u64) -> Option<Head> {
    let inside = |s: &Span| s.at.saturating_add(u64::from(s.len)) <= body_len;
    let ok = head.lists.len() == head.dict.lines().count()
        && head.lists.iter().all(inside)
        && head.files.iter().all(|f| inside(&f.details))
        && head.files.windows(2).all(|w| w[0].path < w[1].path);
    ok.then_some(head)
}

/// Decode a whole cache file's bytes (`None` when they are not a cache of this version).
pub fn decode(bytes: &[u8]) -> Option<Index> {
    let pre: &[u8; PREAMBLE as usize] = bytes.first_chunk()?;
    let head_len = usize::try_from(preamble(pre)?).ok()?;
    let body_at = (PREAMBLE as usize).checked_add(head_len)?;
    let head = postcard::from_bytes(bytes.get(PREAMBLE as usize..body_at)?).ok()?;
    let body = bytes.get(body_at..)?.to_vec();
    let head = checked(head, body.len() as u64)?;
    Some(Index {
        head,
        body: Body::Mem(body),
    })
}

/// The bytes of a cache file.
pub fn encode(index: &Index) -> Vec<u8> {
    // Serialising plain data into a Vec cannot fail.
    let head = postcard::to_stdvec(&index.head).unwrap_or_default();
    let body = match &index.body {
        Body::Mem(b) => b.clone(),
        Body::File { file, at, len } => {
            let mut b = vec![0; usize::try_from(*len).unwrap_or(0)];
            if file.read_exact_at(&mut b, *at).is_err() {
                b.clear();
            }
            b
        }
    };
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(head.len() as u64).to_le_bytes());
    out.extend(head);
    out.extend(body);
    out
}

/// Write the cache atomically under `root/.ralph/`.
pub fn save(root: &Path, index: &Index) -> Result<(), crate::fsutil::FsError> {
    let path = root.join(CACHE_PATH);
    if let Some(dir) = path.parent() {
        crate::fsutil::create_dir_all(dir)?;
    }
    crate::fsutil::atomic_write(&path, &encode(index))
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
