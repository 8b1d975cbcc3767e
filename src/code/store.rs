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
const POSTING: usize = 4 + NF;
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
    /// Per distinct term, ascending id: the id (`u32`, little endian), then its count per field.
    #[serde(with = "serde_bytes")]
    pub postings: Vec<u8>,
    /// One definition per line: `kind \t line \t name \t signature`.
    pub symbols: String,
    pub summary: String,
    /// One imported module per line, as written.
    pub imports: String,
}

impl FileRec {
    /// Call `f(term id, counts per field)` for each of the file's terms.
    pub fn for_each_posting(&self, mut f: impl FnMut(u32, [u8; NF])) {
        for p in self.postings.chunks_exact(POSTING) {
            let id = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
            let mut tf = [0u8; NF];
            tf.copy_from_slice(&p[4..]);
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
        let mut postings = Vec::with_capacity(ids.len() * POSTING);
        for (id, tf) in ids {
            postings.extend_from_slice(&id.to_le_bytes());
            postings.extend_from_slice(&tf);
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
    let index: Index = postcard::from_bytes(body).ok()?;
    let ok = index.files.iter().all(|f| f.postings.len() % POSTING == 0);
    ok.then_some(index)
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
