//! Building a code index: [`Builder`] takes files in path order, each either just read (its
//! facts digested into term ids and encoded details) or kept unchanged from an older index
//! ([`Builder::kept`]), and lays out the body: every file's details, then one posting list per
//! term, each span followed by its check. Terms no file has any more leave the dictionary.

use super::super::cochange::CoChange;
use super::super::facts::{FIELDS as NF, Facts};
use super::super::kind::Kind;
use super::{
    Body, CHECK, Damaged, Details, FileRec, Head, Index, Span, Terms, dict_terms, span_check,
};
use crate::index::text::FastMap;

/// A file just read, ready to add (see [`Builder::prepare`]).
#[derive(Debug)]
pub struct Prepared {
    /// Terms the dictionary had: (id, counts per field).
    known: Terms,
    /// Terms it did not have yet.
    new: Vec<(String, [u8; NF])>,
    details: Vec<u8>,
    lens: [u32; NF],
}

/// A file of an older index, taken as it is: its record, terms and encoded details.
#[derive(Debug)]
pub struct Kept {
    rec: FileRec,
    terms: Terms,
    details: Vec<u8>,
}

/// Builds an index file by file, in path order, reusing what an older index already has.
pub struct Builder {
    ids: FastMap<String, u32>,
    dict: String,
    /// Lines in `dict`: the next new term's id.
    n_terms: u32,
    files: Vec<(FileRec, Terms, Vec<u8>)>,
    docs: Vec<(FileRec, Vec<u8>)>,
}

impl Builder {
    /// A builder whose dictionary starts as `old`'s (so kept files keep their term ids).
    pub fn new(old: &Index) -> Builder {
        let ids = dict_terms(&old.head.dict)
            .enumerate()
            .map(|(i, t)| {
                let t = String::from_utf8_lossy(t).into_owned();
                (t, u32::try_from(i).unwrap_or(u32::MAX))
            })
            .collect();
        Builder {
            ids,
            dict: old.head.dict.clone(),
            n_terms: u32::try_from(dict_terms(&old.head.dict).count()).unwrap_or(u32::MAX),
            files: Vec::new(),
            docs: Vec::new(),
        }
    }

    fn id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = self.n_terms;
        self.n_terms = self.n_terms.saturating_add(1);
        self.dict.push_str(term);
        self.dict.push('\n');
        self.ids.insert(term.to_string(), id);
        id
    }

    /// What a file just read needs before it is added, worked out without changing the builder
    /// (so on any core, for many files at once): its terms by id where the dictionary has them,
    /// the others by name, and its encoded details.
    pub fn prepare(&self, f: &Facts) -> Prepared {
        let mut known: Terms = Vec::with_capacity(f.terms.len());
        let mut new = Vec::new();
        for (t, tf) in &f.terms {
            if t.contains('\n') {
                continue;
            }
            match self.ids.get(t.as_str()) {
                Some(&id) => known.push((id, *tf)),
                None => new.push((t.clone(), *tf)),
            }
        }
        Prepared {
            known,
            new,
            details: postcard::to_stdvec(&Details::of(f)).unwrap_or_default(),
            lens: f.lens,
        }
    }

    /// Add a file just read (see [`Builder::prepare`]).
    pub fn add(&mut self, path: String, size: u64, mtime: (i64, u32), p: Prepared) {
        let mut terms = p.known;
        for (t, tf) in p.new {
            let id = self.id(&t);
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

    /// Add a file of the index this builder started from (see [`Builder::kept`]).
    pub fn keep(&mut self, kept: Kept) {
        self.files.push((kept.rec, kept.terms, kept.details));
    }

    /// Add a markdown doc just read (its facts: see [`super::super::facts::doc_facts`]).
    pub fn add_doc(&mut self, path: String, size: u64, mtime: (i64, u32), f: &Facts) {
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

    /// Add a doc of the index this builder started from (see [`Builder::kept_docs`]).
    pub fn keep_doc(&mut self, kept: Kept) {
        self.docs.push((kept.rec, kept.details));
    }

    /// Per entry of `wanted` (a doc of `old`, or none), that doc as it is.
    pub fn kept_docs(old: &Index, wanted: &[Option<usize>]) -> Result<Vec<Option<Kept>>, Damaged> {
        wanted
            .iter()
            .map(|w| {
                let Some(i) = *w else { return Ok(None) };
                let rec = old.head.docs.get(i).ok_or(Damaged("no such doc"))?;
                Ok(Some(Kept {
                    rec: rec.clone(),
                    terms: Vec::new(),
                    details: old.read(rec.details)?,
                }))
            })
            .collect()
    }

    /// Per entry of `wanted` (a file of `old`, or none), that file as it is: its terms,
    /// gathered from all of `old`'s posting lists, and its details. An error when `old`'s body
    /// turns out damaged: then nothing of it can be kept.
    pub fn kept(old: &Index, wanted: &[Option<usize>]) -> Result<Vec<Option<Kept>>, Damaged> {
        if wanted.iter().all(Option::is_none) {
            return Ok(wanted.iter().map(|_| None).collect());
        }
        let mut terms = vec![Vec::new(); old.head.files.len()];
        for id in 0..old.head.lists.len() {
            let id = u32::try_from(id).map_err(|_| Damaged("too many terms"))?;
            for (file, tf) in old.postings(id)? {
                if let Some(t) = terms.get_mut(file) {
                    t.push((id, tf));
                }
            }
        }
        wanted
            .iter()
            .map(|w| {
                let Some(i) = *w else { return Ok(None) };
                let rec = old.head.files.get(i).ok_or(Damaged("no such file"))?;
                Ok(Some(Kept {
                    rec: rec.clone(),
                    terms: std::mem::take(&mut terms[i]),
                    details: old.read(rec.details)?,
                }))
            })
            .collect()
    }

    /// The index, with its body in memory.
    pub fn finish(self, cochange: Option<CoChange>, built_at: i64) -> Index {
        // Only the terms some file still has stay, in their order (so term lists stay sorted).
        let mut used = vec![false; self.n_terms as usize];
        for (_, terms, _) in &self.files {
            for (id, _) in terms {
                if let Some(u) = used.get_mut(*id as usize) {
                    *u = true;
                }
            }
        }
        let mut dict = String::new();
        let mut renum = vec![u32::MAX; used.len()];
        let mut n_terms = 0u32;
        for (id, term) in dict_terms(&self.dict).enumerate() {
            if used.get(id).copied().unwrap_or(false) {
                renum[id] = n_terms;
                n_terms += 1;
                dict.push_str(&String::from_utf8_lossy(term));
                dict.push('\n');
            }
        }
        let mut body = Vec::new();
        let mut files = Vec::with_capacity(self.files.len());
        let mut lists: Vec<Vec<u8>> = vec![Vec::new(); n_terms as usize];
        let mut last: Vec<usize> = vec![0; n_terms as usize];
        for (fi, (mut rec, terms, details)) in self.files.into_iter().enumerate() {
            rec.details = seal(&mut body, &details);
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
            files.push(rec);
        }
        let docs = self
            .docs
            .into_iter()
            .map(|(mut rec, details)| {
                rec.details = seal(&mut body, &details);
                rec
            })
            .collect();
        let spans = lists.iter().map(|list| seal(&mut body, list)).collect();
        Index {
            head: Head {
                dict,
                files,
                docs,
                lists: spans,
                cochange,
                built_at,
            },
            body: Body::Mem(body),
        }
    }
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
pub fn from_texts(files: &[(&str, &str)]) -> Index {
    let mut b = Builder::new(&Index::default());
    for (path, text) in files {
        let f = super::super::facts::facts(path, text.as_bytes());
        let p = b.prepare(&f);
        b.add(path.to_string(), text.len() as u64, (1, 2), p);
    }
    b.finish(None, 7)
}
