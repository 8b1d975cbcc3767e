//! The code index on disk (`.ralph/code-index.bin`) and in memory.
//!
//! Owns the format: a magic number and a format version, then the index encoded with `postcard`
//! (compact, bounds-checked decoding: a corrupt file is rejected, never trusted). The terms of
//! all files share one dictionary (one term per line, its id is its line number); each file
//! keeps its term ids with per-field counts as packed bytes, its definitions as one text blob
//! parsed only for the files a prompt shows. A missing, stale (other version) or corrupt cache
//! loads as `None` and is rebuilt by [`super::scan`]. Does not decide what is stale nor rank.

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
const VERSION: u32 = 2;
/// Bytes per posting: a `u32` term id and one count per field.
/// A cache file larger than this is not read (it cannot be ours).
const MAX_CACHE: u64 = 1 << 30;

/// The whole index.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Index {
    /// One term per line; a term's id is its line number (0-based).
    pub dict: String,
    /// Sorted by path.
    pub files: Vec<FileRec>,
    /// Files changed together in recent git history, when the project is a git repository.
    pub cochange: Option<CoChange>,
    /// When the index was built (seconds since the epoch): a file modified in the same second
    /// or later may have changed after it was read, so it is read again next time.
    pub built_at: i64,
}

/// One file of the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRec {
    pub path: String,
    pub size: u64,
    /// Modification time (seconds, nanoseconds since the epoch), to tell a changed file.
    pub mtime: (i64, u32),
    pub kind: Kind,
    pub lens: [u32; NF],
    /// Per distinct term, ascending id: the id's distance from the previous one (LEB128), a
    /// byte whose bit `f` says field `f` has the term, then those fields' counts (one byte each).
    #[serde(with = "serde_bytes")]
    pub postings: Vec<u8>,
    /// One definition per line: `kind \t line \t name \t signature`.
    pub symbols: String,
    pub summary: String,
    /// One imported module per line, as written.
    pub imports: String,
}

impl FileRec {
    /// Call `f(term id, counts per field)` for each of the file's terms (a truncated posting
    /// list ends early).
    pub fn for_each_posting(&self, mut f: impl FnMut(u32, [u8; NF])) {
        let b = &self.postings;
        let (mut at, mut id) = (0, 0u32);
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
            id = id.wrapping_add(delta);
            f(id, tf);
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

/// Term ids for new entries: the dictionary as a map, growing as files are added.
pub struct DictBuilder {
    ids: FastMap<String, u32>,
    text: String,
}

impl DictBuilder {
    pub fn new(dict: String) -> DictBuilder {
        let ids = dict
            .lines()
            .enumerate()
            .map(|(i, t)| (t.to_string(), u32::try_from(i).unwrap_or(u32::MAX)))
            .collect();
        DictBuilder { ids, text: dict }
    }

    fn id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.text.push_str(term);
        self.text.push('\n');
        self.ids.insert(term.to_string(), id);
        id
    }

    pub fn finish(self) -> String {
        self.text
    }

    /// The record of a file from its facts.
    pub fn record(&mut self, path: String, size: u64, mtime: (i64, u32), f: &Facts) -> FileRec {
        let mut ids: Vec<(u32, [u8; NF])> = f
            .terms
            .iter()
            .filter(|(t, _)| !t.contains('\n'))
            .map(|(t, tf)| (self.id(t), *tf))
            .collect();
        ids.sort_unstable_by_key(|(id, _)| *id);
        let mut postings = Vec::with_capacity(ids.len() * 3);
        let mut prev = 0;
        for (id, tf) in ids {
            push_leb128(&mut postings, id - prev);
            prev = id;
            let mask = tf
                .iter()
                .enumerate()
                .fold(0u8, |m, (field, &c)| if c > 0 { m | 1 << field } else { m });
            postings.push(mask);
            postings.extend(tf.iter().filter(|&&c| c > 0));
        }
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
        FileRec {
            kind: Kind::of(&path),
            path,
            size,
            mtime,
            lens: f.lens,
            postings,
            symbols,
            summary: clean(&f.summary),
            imports: imports.join("\n"),
        }
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
/// used (unreadable, another format version, corrupt).
pub fn load(root: &Path) -> Option<Index> {
    let path = root.join(CACHE_PATH);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_CACHE {
        return None;
    }
    decode(&std::fs::read(&path).ok()?)
}

/// Decode a cache file's bytes (`None` when they are not a cache of this version).
pub fn decode(bytes: &[u8]) -> Option<Index> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (version, body) = rest.split_first_chunk::<4>()?;
    if u32::from_le_bytes(*version) != VERSION {
        return None;
    }
    // Damaged postings cannot mislead: a truncated list ends early, and an id past the
    // dictionary matches no query term.
    postcard::from_bytes(body).ok()
}

/// The bytes of a cache file.
pub fn encode(index: &Index) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&VERSION.to_le_bytes());
    // Serialising plain data into a Vec cannot fail.
    out.extend(postcard::to_stdvec(index).unwrap_or_default());
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
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption_is_none() {
        let f = super::super::facts::facts("src/a.rs", b"fn render_table() {}\n");
        let mut d = DictBuilder::new(String::new());
        let rec = d.record("src/a.rs".into(), 20, (1, 2), &f);
        let index = Index {
            dict: d.finish(),
            files: vec![rec.clone()],
            cochange: None,
            built_at: 0,
        };
        let bytes = encode(&index);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.files, vec![rec]);
        assert_eq!(back.dict, index.dict);
        let sym: Vec<Symbol> = back.files[0].symbols().collect();
        assert_eq!(sym[0].name, "render_table");
        let mut n = 0;
        back.files[0].for_each_posting(|id, _| {
            assert!((id as usize) < back.dict.lines().count());
            n += 1;
        });
        assert_eq!(n, f.terms.len());

        let big = Facts {
            terms: [
                ("a".to_string(), [0, 0, 0, 255]),
                ("b".to_string(), [1, 2, 3, 4]),
            ]
            .into_iter()
            .collect(),
            ..Facts::default()
        };
        let mut d2 = DictBuilder::new((0..200).map(|i| format!("t{i}\n")).collect());
        let rec2 = d2.record("b.rs".into(), 1, (1, 1), &big);
        let mut seen = Vec::new();
        rec2.for_each_posting(|id, tf| seen.push((id, tf)));
        seen.sort_by_key(|&(_, tf)| tf);
        assert_eq!(seen.len(), 2);
        assert_eq!((seen[0].1, seen[1].1), ([0, 0, 0, 255], [1, 2, 3, 4]));
        assert!(seen.iter().all(|&(id, _)| id == 200 || id == 201));
        let mut cut = rec2.clone();
        cut.postings.truncate(cut.postings.len() - 1);
        let mut n = 0;
        cut.for_each_posting(|_, _| n += 1);
        assert_eq!(n, 1);

        assert!(decode(b"").is_none());
        assert!(decode(&bytes[..bytes.len() / 2]).is_none());
        let mut other = bytes.clone();
        other[8] ^= 1; // another version
        assert!(decode(&other).is_none());
        let mut junk = bytes.clone();
        for b in junk.iter_mut().skip(12) {
            *b = 0xff;
        }
        assert!(decode(&junk).is_none());
    }
}
