//! The code index on disk (`.ralph/code-index.bin`) and in memory.
//!
//! Owns the format. A preamble (magic number, format version, the lengths of the head and the
//! body, a check of the head's bytes) comes first, then the *head*, encoded with `postcard`:
//! the dictionary of all files' terms (one per line; a term's id is its line number), each
//! file's path, size, modification time, kind and field lengths, and where in the *body* each
//! term's posting list and each file's details (definitions, summary, imports) are. A query
//! reads the head, then only the posting lists of its own terms and the details of the files it
//! shows — a warm `ralph context` never reads the whole cache.
//!
//! Nothing read is trusted: a missing cache, another version, a file of the wrong length
//! (truncated or grown), a head whose check fails or that does not decode or whose spans leave
//! the body loads as `None`; every span of the body ends in a check of its bytes, so a damaged
//! list or details read as [`Damaged`]. Either way [`super::scan`] rebuilds the index. Does not
//! decide what is stale nor rank. Building an index: [`Builder`] (`build.rs`).

use std::fs::File;
use std::hash::BuildHasher;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::cochange::CoChange;
use super::facts::{FIELDS as NF, Facts, Symbol};
use super::kind::Kind;
use crate::index::text::FastMap;

mod build;
#[cfg(test)]
pub use build::from_texts;
pub use build::{Builder, Kept, Prepared};

/// Where the cache lives, relative to the project root.
pub const CACHE_PATH: &str = ".ralph/code-index.bin";
const MAGIC: &[u8; 8] = b"RALPHCIX";
/// Bump when the encoding or what is extracted changes: an old cache is then rebuilt.
const VERSION: u32 = 4;
/// Magic, version, the head's length, the body's length, the head's check.
const PREAMBLE: usize = 8 + 4 + 8 + 8 + 8;
/// A cache file larger than this is not read (it cannot be ours).
const MAX_CACHE: u64 = 1 << 30;
/// Bytes of the check that ends every span of the body.
const CHECK: usize = 4;

/// The cache turned out damaged while it was read (a span outside the body, a check that does
/// not match, bytes that do not decode): rebuild the index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{CACHE_PATH} is damaged ({0}); it is rebuilt")]
pub struct Damaged(pub &'static str);

/// A byte range of the body: the bytes, then a check of them ([`CHECK`] bytes).
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

/// What a prompt shows of a file and what the Pin reads of it: its definitions, summary,
/// imports, links and module doc.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Details {
    /// One definition per line: `kind \t line \t name \t signature`.
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
    fn of(f: &Facts) -> Details {
        let clean = |s: &str| match s.contains(['\t', '\n', '\r']) {
            true => s.replace(['\t', '\n', '\r'], " "),
            false => s.to_string(),
        };
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
        let lines = |items: &[String]| -> String {
            let clean: Vec<String> = items.iter().map(|i| clean(i)).collect();
            clean.join("\n")
        };
        Details {
            symbols,
            summary: clean(&f.summary),
            imports: lines(&f.imports),
            links: lines(&f.links),
            module_doc: f.module_doc.clone(),
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
    /// Markdown files about the code (see [`super::walk::describes_code`]), sorted by path:
    /// the Pin reads their headings; they are not searched (no terms).
    docs: Vec<FileRec>,
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

/// The files that have a term, ascending: (file index, counts per field).
pub type Postings = Vec<(usize, [u8; NF])>;

impl Index {
    /// The indexed files, sorted by path.
    pub fn files(&self) -> &[FileRec] {
        &self.head.files
    }

    /// The markdown files about the code, sorted by path (not searched; see [`Head`]).
    pub fn docs(&self) -> &[FileRec] {
        &self.head.docs
    }

    /// The details of doc `doc` (empty for one outside the index).
    pub fn doc_details(&self, doc: usize) -> Result<Details, Damaged> {
        match self.head.docs.get(doc) {
            Some(f) => self.decode_details(f.details),
            None => Ok(Details::default()),
        }
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

    /// The index of the doc at `path`.
    pub fn doc(&self, path: &str) -> Option<usize> {
        self.head
            .docs
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
    }

    /// The id of each of `terms` (`None`: no file has it). One pass over the dictionary.
    pub fn term_ids(&self, terms: &[&str]) -> Vec<Option<u32>> {
        let wanted: FastMap<&[u8], usize> = terms
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_bytes(), i))
            .collect();
        let mut out = vec![None; terms.len()];
        for (id, t) in dict_terms(&self.head.dict).enumerate() {
            if let Some(&i) = wanted.get(t) {
                out[i] = u32::try_from(id).ok();
            }
        }
        out
    }

    /// The files that have term `id` (none for an id outside the dictionary).
    pub fn postings(&self, id: u32) -> Result<Postings, Damaged> {
        let Some(span) = self.head.lists.get(id as usize) else {
            return Ok(Vec::new());
        };
        decode_list(&self.read(*span)?, self.head.files.len())
    }

    /// The details of file `file` (empty for a file outside the index).
    pub fn details(&self, file: usize) -> Result<Details, Damaged> {
        match self.head.files.get(file) {
            Some(f) => self.decode_details(f.details),
            None => Ok(Details::default()),
        }
    }

    fn decode_details(&self, span: Span) -> Result<Details, Damaged> {
        match postcard::take_from_bytes(&self.read(span)?) {
            Ok((details, [])) => Ok(details),
            _ => Err(Damaged("details that do not decode")),
        }
    }

    /// The bytes of `span`, when they are inside the body and match their check.
    fn read(&self, span: Span) -> Result<Vec<u8>, Damaged> {
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

/// The terms of a dictionary, in id order: one per line, each line ended by `\n`.
fn dict_terms(dict: &str) -> impl Iterator<Item = &[u8]> {
    let bytes = dict.as_bytes();
    let mut start = 0;
    memchr::memchr_iter(b'\n', bytes).map(move |end| {
        let term = &bytes[start..end];
        start = end + 1;
        term
    })
}

/// The check of a span's bytes.
fn span_check(bytes: &[u8]) -> [u8; CHECK] {
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
fn decode_list(b: &[u8], n_files: usize) -> Result<Postings, Damaged> {
    const BAD: Damaged = Damaged("a posting list that does not decode");
    let mut out = Vec::new();
    let mut file = 0usize;
    let mut at = 0;
    while at < b.len() {
        let (delta, next) = leb128(b, at).ok_or(BAD)?;
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

/// The lengths of the head and the body and the head's check, when `pre` starts a cache of
/// this version.
fn preamble(pre: &[u8; PREAMBLE]) -> Option<(u64, u64, u64)> {
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
        && (head.dict.is_empty() || head.dict.ends_with('\n'))
        && head.lists.len() == memchr::memchr_iter(b'\n', head.dict.as_bytes()).count()
        && head.lists.iter().all(inside)
        && head
            .files
            .iter()
            .chain(&head.docs)
            .all(|f| inside(&f.details))
        && head.files.windows(2).all(|w| w[0].path < w[1].path)
        && head.docs.windows(2).all(|w| w[0].path < w[1].path);
    ok.then_some(head)
}

/// The cached index of the project at `root`, or `None` when there is none or it cannot be
/// used (see the module doc). Reads the preamble and the head only.
pub fn load(root: &Path) -> Option<Index> {
    let path = root.join(CACHE_PATH);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_CACHE {
        return None;
    }
    let mut file = File::open(&path).ok()?;
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
    Some(Index {
        head: open_head(&head, check, body_len)?,
        body: Body::File {
            file,
            at: body_at,
            len: body_len,
        },
    })
}

/// Decode a whole cache file's bytes (`None` when they are not a usable cache of this version).
pub fn decode(bytes: &[u8]) -> Option<Index> {
    let (head_len, body_len, check) = preamble(bytes.first_chunk()?)?;
    let body_at = PREAMBLE.checked_add(usize::try_from(head_len).ok()?)?;
    let body = bytes.get(body_at..)?;
    if body.len() as u64 != body_len {
        return None;
    }
    Some(Index {
        head: open_head(bytes.get(PREAMBLE..body_at)?, check, body_len)?,
        body: Body::Mem(body.to_vec()),
    })
}

/// The bytes of a cache file (an error only when a body still in the cache file cannot be
/// read).
pub fn encode(index: &Index) -> std::io::Result<Vec<u8>> {
    // Serialising plain data into a Vec cannot fail.
    let head = postcard::to_stdvec(&index.head).unwrap_or_default();
    let read;
    let body = match &index.body {
        Body::Mem(b) => b.as_slice(),
        Body::File { file, at, len } => {
            let mut b = vec![0; usize::try_from(*len).map_err(std::io::Error::other)?];
            file.read_exact_at(&mut b, *at)?;
            read = b;
            read.as_slice()
        }
    };
    let mut out = Vec::with_capacity(PREAMBLE + head.len() + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(head.len() as u64).to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&head_check(&head).to_le_bytes());
    out.extend(head);
    out.extend_from_slice(body);
    Ok(out)
}

/// Write the cache atomically under `root/.ralph/`.
pub fn save(root: &Path, index: &Index) -> Result<(), crate::fsutil::FsError> {
    let path = root.join(CACHE_PATH);
    if let Some(dir) = path.parent() {
        crate::fsutil::create_dir_all(dir)?;
    }
    let bytes = encode(index).map_err(|source| crate::fsutil::FsError {
        path: path.clone(),
        action: "read the cache's body again",
        source,
    })?;
    // Every byte is checked when read (see the module doc): a cache torn by a crash is rebuilt.
    crate::fsutil::replace_cache(&path, &bytes)
}

#[cfg(test)]
mod tests;
