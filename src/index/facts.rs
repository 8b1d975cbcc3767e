//! What one file says, as the index keeps it: the terms of each field (path, defined names,
//! comments, all text), its definitions (kind, name, line: not the line's text, see
//! [`super::sigs`]), a one-line summary from its leading doc comment, its imports, the sibling
//! modules it links to and its module doc (what the Pin's keywords and module discovery read).
//!
//! Pure: a path and bytes in, [`Facts`] out; never fails (binary or non-UTF-8 bytes give what
//! can be read). What a line defines or imports is [`super::lang`]'s. Does not store or rank
//! (see [`super::store`], [`super::rank`]).

use std::borrow::Cow;
use std::fmt::Write as _;

use super::hashed::{HashedIds, prefetch_read};
use super::lang::{self, Def, Lang};
use super::text::{FastMap, for_each_written_hashed, stop_term, term_of};

/// The fields of a file the ranking weighs separately.
pub(crate) const FIELDS: usize = 4;
/// Field indexes: the path's words, the names it defines, its comments, all of its text.
pub(crate) const PATH: usize = 0;
pub(crate) const NAMES: usize = 1;
pub(crate) const DOC: usize = 2;
pub(crate) const BODY: usize = 3;

/// One definition, as a prompt shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Symbol {
    pub kind: String,
    pub name: String,
    /// 1-based.
    pub line: u32,
    /// The line it is defined on, trimmed and cut ([`super::sigs`]): read from the file when
    /// the file is shown; empty as the index gives it.
    pub sig: String,
}

impl From<Def<'_>> for Symbol {
    /// The definition, its signature not yet read (see [`super::sigs`]).
    fn from(d: Def<'_>) -> Symbol {
        Symbol {
            kind: d.kind.to_string(),
            name: d.name.to_string(),
            line: d.line,
            sig: String::new(),
        }
    }
}

/// The definitions of `defs` (a file's [`Facts::defs`]), in line order; a malformed line is
/// skipped.
pub(crate) fn def_refs(defs: &str) -> impl Iterator<Item = Def<'_>> + '_ {
    defs.split_terminator('\n').filter_map(def_ref)
}

/// One line of [`Facts::defs`], `None` when malformed. Its fields are short: a byte loop finds
/// their tabs sooner than a searcher set up per field (millions of lines on a large tree).
fn def_ref(l: &str) -> Option<Def<'_>> {
    let (kind, rest) = at_tab(l)?;
    let (line, rest) = at_tab(rest)?;
    let (name, flag) = at_tab(rest)?;
    Some(Def {
        kind,
        name,
        line: line.parse().ok()?,
        exported: flag == EXPORTED,
    })
}

/// `s` split at its first tab, the tab dropped.
fn at_tab(s: &str) -> Option<(&str, &str)> {
    let i = s.bytes().position(|b| b == b'\t')?;
    Some((&s[..i], &s[i + 1..]))
}

/// The last field of an exported definition's line in [`Facts::defs`].
const EXPORTED: &str = "e";

/// `def` appended to `out` as a line of [`Facts::defs`].
fn push_def(out: &mut String, d: &Def<'_>) {
    push_clean(out, d.kind);
    out.push('\t');
    let _ = write!(out, "{}", d.line);
    out.push('\t');
    push_clean(out, d.name);
    out.push('\t');
    if d.exported {
        out.push_str(EXPORTED);
    }
    out.push('\n');
}

/// `s` appended to `out` with its tabs and line breaks as spaces (they separate a detail's
/// fields and lines).
pub(crate) fn push_clean(out: &mut String, s: &str) {
    if !s.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\r')) {
        out.push_str(s);
        return;
    }
    out.extend(s.chars().map(|c| match c {
        '\t' | '\n' | '\r' => ' ',
        c => c,
    }));
}

/// Everything the index keeps of a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Facts {
    /// Distinct terms, by their id in the [`Lexicon`] that read the file, each with its count
    /// per field (saturating at 255).
    pub terms: Vec<(u32, [u8; FIELDS])>,
    /// Terms per field (the field lengths BM25 normalises by).
    pub lens: [u32; FIELDS],
    /// Its definitions, one per line: `kind \t line \t name \t e` (`e` when exported, see
    /// [`Def::exported`]), tabs and line breaks in a field as spaces; read with [`def_refs`].
    pub defs: String,
    pub summary: String,
    /// The modules it imports, as written.
    pub imports: Vec<String>,
    /// The sibling modules it links to (see [`lang::Extract::links`]).
    pub links: Vec<String>,
    /// Its module doc (see [`lang::Extract::module_doc`]), one line each.
    pub module_doc: String,
}

/// How many distinct words ahead of the one being looked up their lookups are asked for
/// ([`HashedIds::prefetch`]).
const AHEAD: usize = 8;

/// A term id for a word that gives no term (a stop word or a number).
const NO_TERM: u32 = u32::MAX;
/// Set in a term id for a stop word: it counts only in the fields of names, [`PATH`] and
/// [`NAMES`] (see [`super::text::name_term`]), and not in their lengths.
const NAME_ONLY: u32 = 1 << 31;

/// One reader's dictionary and scratch space, kept from file to file (one per thread reading
/// files): each term it meets gets a local id once, so a file's terms are ids, not a `String`
/// per term per file, and the counting table is reused, not allocated (and its fresh pages
/// zeroed) again for each file. Whoever collects the files maps the ids to its own, learning
/// each lexicon's new terms from [`Lexicon::take_fresh`] in the order they came.
#[derive(Default)]
pub(crate) struct Lexicon {
    /// Which lexicon of its collector this is (see [`Lexicon::new`]).
    owner: usize,
    ids: FastMap<String, u32>,
    /// The term id of each word as written met in an earlier file, by its hash (see
    /// [`Counter`]): most of a file's words were met before, and are not lowered, stemmed and
    /// looked up again.
    written: HashedIds,
    /// The terms given an id since the last [`Lexicon::take_fresh`], in id order.
    fresh: Vec<String>,
    /// Per id, its counts in the file being read (zero between files), and the ids counted.
    acc: Vec<[u32; FIELDS]>,
    touched: Vec<u32>,
    counter: Counter,
    buf: String,
}

impl Lexicon {
    /// An empty lexicon; `owner` tells it apart from the collector's other lexicons.
    pub(crate) fn new(owner: usize) -> Lexicon {
        Lexicon {
            owner,
            ..Lexicon::default()
        }
    }

    pub(crate) fn owner(&self) -> usize {
        self.owner
    }

    /// The terms given an id since the last call, in id order (the first has the id after the
    /// last one returned before).
    pub(crate) fn take_fresh(&mut self) -> Vec<String> {
        std::mem::take(&mut self.fresh)
    }

    /// The id of the term of `word` as written, given one when new; a stop word's with
    /// [`NAME_ONLY`] set; [`NO_TERM`] for a number.
    fn term_id(&mut self, word: &str) -> u32 {
        let (term, flag) = match term_of(word, &mut self.buf) {
            Some(_) => (self.buf.as_str(), 0),
            None => match stop_term(word, &mut self.buf) {
                Some(t) => (t, NAME_ONLY),
                None => return NO_TERM,
            },
        };
        if let Some(&id) = self.ids.get(term) {
            return id | flag;
        }
        let id = match u32::try_from(self.acc.len()) {
            Ok(id) if id < NAME_ONLY => id,
            _ => return NO_TERM,
        };
        self.ids.insert(term.to_string(), id);
        self.fresh.push(term.to_string());
        self.acc.push([0; FIELDS]);
        id | flag
    }

    /// Count the words of `text` in `field`.
    fn add(&mut self, field: usize, text: &str) {
        for_each_written_hashed(text, |w, hash, _| self.count(field, 0, w, hash));
    }

    /// Count the words of `text` (of its first [`WORDS_MAX`] bytes, see [`words_end`]) in
    /// [`BODY`], and those inside one of its `comments` in [`DOC`] too: a comment's words are
    /// found and looked up once, not twice. `comments` are slices of `text` in order (one that
    /// is not is counted on its own).
    fn add_body(&mut self, text: &str, comments: &[&str]) {
        let end = words_end(text);
        let spans = comment_spans(text, end, comments, |c| self.add(DOC, c));
        let mut k = 0;
        for_each_written_hashed(&text[..end], |w, hash, s| {
            let e = s + w.len();
            while spans.get(k).is_some_and(|&(_, end)| end < e) {
                k += 1;
            }
            let in_doc = spans.get(k).is_some_and(|&(start, _)| start <= s);
            self.count(BODY, u32::from(in_doc), w, hash);
        });
    }

    /// Count `word` (its hash `hash`) once in `field`, and `doc` times in [`DOC`]. A word new
    /// to this file is kept in the counter; its term is found when the file is finished
    /// ([`Lexicon::resolve`]).
    #[inline]
    fn count(&mut self, field: usize, doc: u32, word: &str, hash: u64) {
        let c = &mut self.counter;
        let mask = c.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let slot = &mut c.slots[i];
            if slot.hash == hash && slot.len == word.len() {
                slot.counts[field] += 1;
                slot.counts[DOC] += doc;
                return;
            }
            if slot.hash == 0 {
                break;
            }
            i = (i + 1) & mask;
        }
        let at = u32::try_from(c.words.len()).unwrap_or(u32::MAX);
        c.words.push_str(word);
        let slot = &mut c.slots[i];
        *slot = Slot {
            hash,
            len: word.len(),
            at,
            term: NO_TERM,
            counts: [0; FIELDS],
        };
        slot.counts[field] = 1;
        slot.counts[DOC] += doc;
        c.filled.push(i as u32);
        if c.filled.len() * 2 > c.slots.len() {
            c.grow();
        }
    }

    /// The term of each word counted in this file, looked up once per distinct word, all
    /// together: the lookups in the memory of words met before (megabytes, so most miss the
    /// cache) do not depend on one another, so each word's slot is asked for [`AHEAD`] words
    /// early and the misses overlap, which they cannot while counting, where each would wait
    /// in the middle of the text's words.
    fn resolve(&mut self) {
        let words = std::mem::take(&mut self.counter.words);
        for k in 0..self.counter.filled.len() {
            if let Some(&ahead) = self.counter.filled.get(k + AHEAD) {
                self.written
                    .prefetch(self.counter.slots[ahead as usize].hash);
            }
            let i = self.counter.filled[k] as usize;
            let Slot { hash, len, at, .. } = self.counter.slots[i];
            let term = match self.written.get(hash) {
                Some(term) => term,
                None => {
                    let at = at as usize;
                    // Always a word the counter kept (a text is at most a few megabytes).
                    let word = words.get(at..at + len).unwrap_or_default();
                    let term = self.term_id(word);
                    self.written.insert(hash, term);
                    term
                }
            };
            self.counter.slots[i].term = term;
        }
        self.counter.words = words;
    }

    /// The terms and field lengths of everything counted since the counter was reset.
    fn finish(&mut self, f: &mut Facts) {
        self.resolve();
        for (k, &i) in self.counter.filled.iter().enumerate() {
            self.prefetch_counts(k + AHEAD);
            let slot = &self.counter.slots[i as usize];
            let name_only = slot.term != NO_TERM && slot.term & NAME_ONLY != 0;
            let mut counts = slot.counts;
            if name_only {
                (counts[DOC], counts[BODY]) = (0, 0);
                if counts == [0; FIELDS] {
                    continue; // a stop word in the text only
                }
            }
            let term = slot.term & !NAME_ONLY;
            let Some(acc) = self.acc.get_mut(term as usize) else {
                continue; // no term
            };
            if *acc == [0; FIELDS] {
                self.touched.push(term);
            }
            for ((a, len), &n) in acc.iter_mut().zip(&mut f.lens).zip(&counts) {
                *a += n;
                if !name_only {
                    *len += n;
                }
            }
        }
        f.terms.reserve(self.touched.len());
        for id in self.touched.drain(..) {
            let acc = std::mem::take(&mut self.acc[id as usize]);
            f.terms
                .push((id, acc.map(|n| u8::try_from(n).unwrap_or(u8::MAX))));
        }
    }

    /// Ask for the counts of the term of the `k`-th word filled in the counter, if there is
    /// one, ahead of [`Lexicon::finish`] adding to them: they lie anywhere in megabytes.
    #[inline]
    fn prefetch_counts(&self, k: usize) {
        if let Some(&i) = self.counter.filled.get(k) {
            let term = self.counter.slots[i as usize].term & !NAME_ONLY;
            if let Some(acc) = self.acc.get(term as usize) {
                prefetch_read(acc);
            }
        }
    }
}

/// Where in `text` each of `comments` is (start, end), in order; a comment that is not a slice
/// of `text` after the previous one is given to `apart` instead; one that ends past `words`
/// (where the words counted end) is left out.
fn comment_spans(
    text: &str,
    words: usize,
    comments: &[&str],
    mut apart: impl FnMut(&str),
) -> Vec<(usize, usize)> {
    let base = text.as_ptr() as usize;
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(comments.len());
    for c in comments {
        let start = (c.as_ptr() as usize).wrapping_sub(base);
        let after_last = spans.last().is_none_or(|&(_, end)| end <= start);
        if start <= text.len() && c.len() <= text.len() - start && after_last {
            if start + c.len() <= words {
                spans.push((start, start + c.len()));
            }
        } else {
            apart(c);
        }
    }
    spans
}

/// Counts of the words of a file as written, per field: each distinct word is kept once and
/// turned into its term when the file is finished ([`Lexicon::resolve`]), not once per
/// occurrence. An open-addressing table keyed by a 64-bit hash of the word and its length: one
/// hash per occurrence and no byte comparison, the hot loop of building the index. Two distinct
/// words sharing a hash would be counted as one term, here and in [`Lexicon`]'s memory of the
/// words met before; among the million distinct words of a large project that is about one
/// chance in ten million.
#[derive(Default)]
struct Counter {
    slots: Vec<Slot>,
    /// The slots holding a word, in the order they were filled: what is read and emptied
    /// between files, instead of the whole table (1.25 bytes of it per byte of text).
    filled: Vec<u32>,
    /// The words of the filled slots, one after the other, in the order they were filled.
    words: String,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    /// 0: empty.
    hash: u64,
    len: usize,
    /// Where the word is in [`Counter::words`].
    at: u32,
    /// The word's term id in the lexicon ([`NO_TERM`]: none, or not yet looked up).
    term: u32,
    counts: [u32; FIELDS],
}

impl Counter {
    /// Emptied and sized for a text of `bytes` bytes (it grows when it must), its memory kept.
    fn reset(&mut self, bytes: usize) {
        let n = (bytes / 32).clamp(256, 1 << 16).next_power_of_two();
        if n == self.slots.len() {
            for &i in &self.filled {
                self.slots[i as usize] = Slot::default();
            }
        } else {
            self.slots.clear();
            self.slots.resize(n, Slot::default());
        }
        self.filled.clear();
        self.words.clear();
    }

    fn grow(&mut self) {
        let bigger = vec![Slot::default(); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for at in &mut self.filled {
            let s = old[*at as usize];
            let mut i = s.hash as usize & mask;
            while self.slots[i].hash != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
            *at = i as u32;
        }
    }
}

/// The facts of the source file at `path` (relative, `/`-separated) with content `bytes`.
/// Its terms are ids in `words`.
pub(crate) fn facts(path: &str, bytes: &[u8], words: &mut Lexicon) -> Facts {
    let mut f = Facts::default();
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    // Sized for the words counted (see [`words_end`]); a large file's names grow it if need be.
    words.counter.reset(bytes.len().min(WORDS_MAX));
    words.add(PATH, stem);
    if is_binary(bytes) {
        words.finish(&mut f);
        return f; // binary: only its path says anything
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    let x = lang::extract(Lang::of(path), &text);
    for d in &x.defs {
        words.add(NAMES, d.name);
    }
    words.add_body(&text, &x.comments);
    words.finish(&mut f);
    f.summary = summary(&x.comments);
    for d in &x.defs {
        push_def(&mut f.defs, d);
    }
    finish(&mut f, &x);
    f
}

/// How much of a file's text gives its words; its definitions are read from all of it. What
/// lies further in a larger file is mostly generated or data (bindings, tables, test vectors):
/// counting it was a sixth of a cold build's time on 35,000 crates' files, and leaving it out
/// moved no case of the tuning or context-bench sets at R@10 (64 KiB did; specs/context.md).
const WORDS_MAX: usize = 128 << 10;

/// Where the words counted of `text` end: its end, up to [`WORDS_MAX`] bytes; else just after
/// the last byte within that which no word holds (a blank, a line break, punctuation), so that
/// no word is cut in two, or at a char boundary when there is none.
fn words_end(text: &str) -> usize {
    if text.len() <= WORDS_MAX {
        return text.len();
    }
    let mut cut = WORDS_MAX;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let apart = |b: &u8| b.is_ascii() && !b.is_ascii_alphanumeric() && *b != b'_';
    text.as_bytes()[..cut]
        .iter()
        .rposition(apart)
        .map_or(cut, |i| i + 1)
}

/// The facts of a markdown file the Pin reads: its headings, as its module doc. It is not
/// searched: no terms.
pub(crate) fn doc_facts(bytes: &[u8]) -> Facts {
    let mut f = Facts::default();
    if !is_binary(bytes) {
        let text = String::from_utf8_lossy(bytes);
        finish(&mut f, &lang::extract(Lang::Markdown, &text));
    }
    f
}

/// Whether `bytes` hold a NUL byte in their first 8 KiB: a binary file, not text.
fn is_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some()
}

/// Imports, links and module doc, owned.
fn finish(f: &mut Facts, x: &lang::Extract<'_>) {
    f.imports = x.imports.iter().map(|s| s.to_string()).collect();
    f.links = x.links.iter().map(|s| s.to_string()).collect();
    f.module_doc = x.module_doc.join("\n");
}

/// `s` cut to at most `max` characters, with `…` when cut.
pub(crate) fn cut(s: &str, max: usize) -> String {
    // No more bytes than `max` is no more characters: most signatures end here.
    if s.len() <= max {
        return s.to_string();
    }
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A one-line summary: the first comment line near the top that reads like prose (three words
/// or more; not a licence, a tool directive or a shebang), cut to 100 characters.
fn summary(comments: &[&str]) -> String {
    const NOT_PROSE: &[&str] = &[
        "copyright",
        "licen",
        "spdx",
        "eslint",
        "prettier",
        "@ts-",
        "noqa",
        "type:",
        "pylint",
        "nolint",
        "go:build",
        "+build",
        "coding",
        "-*-",
        "@flow",
        "jshint",
        "istanbul",
    ];
    comments
        .iter()
        .take(40)
        .map(|c| c.trim_start_matches(['!', '*', '/', '#', ' ']).trim())
        .find(|c| {
            let lower = c.to_ascii_lowercase();
            c.split_whitespace().count() >= 3
                && c.chars().next().is_some_and(char::is_alphabetic)
                && !NOT_PROSE.iter().any(|n| lower.contains(n))
        })
        .map(|c| cut(c, 100))
        .unwrap_or_default()
}

/// The facts of one file read with a lexicon of its own, and its terms by name: for tests.
#[cfg(test)]
pub(crate) fn facts_alone(path: &str, bytes: &[u8]) -> (Facts, FastMap<String, [u8; FIELDS]>) {
    let mut words = Lexicon::default();
    let f = facts(path, bytes, &mut words);
    let names = words.take_fresh();
    let terms = f
        .terms
        .iter()
        .map(|&(id, tf)| (names[id as usize].clone(), tf))
        .collect();
    (f, terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::text::{FastSet, for_each_name_term, for_each_term};

    /// The terms and field lengths of a file by their definition: every term
    /// [`for_each_term`] gives of each field's text, counted; in the path and the defined
    /// names, those of [`for_each_name_term`], a stop word not counted in the field's length.
    fn reference(path: &str, text: &str) -> (FastMap<String, [u8; FIELDS]>, [u32; FIELDS]) {
        let x = lang::extract(Lang::of(path), text);
        let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
        let mut fields: Vec<(usize, &str)> = vec![(PATH, stem)];
        fields.extend(x.defs.iter().map(|d| (NAMES, d.name)));
        fields.extend(x.comments.iter().map(|c| (DOC, *c)));
        fields.push((BODY, text));
        let mut counts: FastMap<String, [u32; FIELDS]> = FastMap::default();
        let mut lens = [0; FIELDS];
        let mut buf = String::new();
        for (field, t) in fields {
            let mut count = |term: &str, word: &str| {
                counts.entry(term.to_string()).or_default()[field] += 1;
                lens[field] += u32::from(term_of(word, &mut buf).is_some());
            };
            match field {
                PATH | NAMES => for_each_name_term(t, &mut count),
                _ => for_each_term(t, &mut count),
            }
        }
        let terms = counts
            .into_iter()
            .map(|(t, c)| (t, c.map(|n| u8::try_from(n).unwrap_or(u8::MAX))))
            .collect();
        (terms, lens)
    }

    #[test]
    fn terms_are_the_tokenizers_whatever_the_files_read_before() {
        let texts = [
            ("src/http_server.rs", "//! Serving HTTP.\n/// Parses a header.\npub fn parse_header(line: &str) -> Option<Header> {\n    let the_value = line.trim(); // parsing 42 values\n    HTTPServerError::new(the_value)\n}\n".to_string()),
            ("lib/naïve_Über.py", "\"\"\"Über naïve parsing of ÉTÉ entries.\"\"\"\ndef parse_entries(x):\n    return [e for e in x if e]  # the entries\nclass EntryParser:\n    pass\n".to_string()),
            ("web/app.ts", format!("export class Router {{\n{}}}\n", "  route(path: string): void {}\n".repeat(300))),
            ("many.go", "x ".repeat(400) + &"word ".repeat(300) + "func Word() {}\n"),
            // Stop words in the path and the names: terms there, not in the text.
            ("tpl/where.go", "// Where filters where the value is.\nfunc Where(x int) {}\nfunc (n *Ns) AfterFunc() {}\nvar isOn = 1\n".to_string()),
        ];
        // One lexicon across files, as a reading thread keeps it: ids met in earlier files
        // must not change a later file's terms.
        let mut words = Lexicon::default();
        let mut names: Vec<String> = Vec::new();
        for round in 0..2 {
            for (path, text) in &texts {
                let f = facts(path, text.as_bytes(), &mut words);
                names.extend(words.take_fresh());
                let got: FastMap<String, [u8; FIELDS]> = f
                    .terms
                    .iter()
                    .map(|&(id, tf)| (names[id as usize].clone(), tf))
                    .collect();
                assert_eq!(f.terms.len(), got.len(), "{path}: a term twice");
                let (want, lens) = reference(path, text);
                assert_eq!(got, want, "{path}, round {round}");
                assert_eq!(f.lens, lens, "{path}");
            }
        }
        assert!(
            words.take_fresh().is_empty(),
            "the second round met no new term"
        );
    }

    proptest::proptest! {
        /// Comments counted in the same pass as the whole text ([`Lexicon::add_body`]) count
        /// as each comment counted on its own would, whatever the comment markers around.
        #[test]
        fn one_pass_counts_comments_as_counting_them_apart(
            lines in proptest::collection::vec(
                "( |//|///|//!|/\\*|\\*/|#|\"\"\"|'''|fn x\\(\\) \\{|def y\\(\\):|[a-zA-Z_]{1,8}|Über|ÉTÉ|42|\t){0,8}",
                0..12,
            ),
            path in "(a\\.rs|b\\.py|c\\.js|d\\.sh|e\\.go)",
        ) {
            let text = lines.join("\n");
            let (f, got) = facts_alone(&path, text.as_bytes());
            let (want, lens) = reference(&path, &text);
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(f.lens, lens);
        }
    }

    fn names(f: &Facts) -> Vec<(&str, &str, u32)> {
        def_refs(&f.defs)
            .map(|s| (s.kind, s.name, s.line))
            .collect()
    }

    #[test]
    fn a_stop_word_is_a_term_of_a_name_or_path_and_not_of_the_text() {
        let src = "// Where the rows are.\nfunc Where() {}\nfunc Render() { if once { return } }\n";
        let (f, terms) = facts_alone("pkg/once/where.go", src.as_bytes());
        assert_eq!(
            terms["where"],
            [1, 1, 0, 0],
            "path and name, not comment or text"
        );
        assert_eq!(
            terms["once"],
            [1, 0, 0, 0],
            "the folder's name, not the text's word"
        );
        assert!(!terms.contains_key("the") && !terms.contains_key("if"));
        // A stop word lengthens no field: the path counts `pkg`, the names `Render`.
        assert_eq!(f.lens[PATH], 1);
        assert_eq!(f.lens[NAMES], 1);
    }

    #[test]
    fn cut_counts_characters_not_bytes() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "abc…");
        assert_eq!(cut("ééé", 3), "ééé");
        assert_eq!(cut("éééé", 3), "ééé…");
        assert_eq!(cut("", 0), "");
    }

    #[test]
    fn rust_definitions_with_signatures() {
        let src = "//! Tables: rendering rows into columns.\nuse std::fmt;\nmod cell;\n\npub struct Table {\n}\n\nimpl fmt::Display for Table {\n    pub(crate) fn render_table(&self, width: usize) -> String {\n        todo!()\n    }\n}\nconst MAX: usize = 3;\n";
        let (f, terms) = facts_alone("src/table.rs", src.as_bytes());
        assert_eq!(
            names(&f),
            [
                ("mod", "cell", 3),
                ("struct", "Table", 5),
                ("impl", "Table", 8),
                ("fn", "render_table", 9),
                ("const", "MAX", 13)
            ]
        );
        assert!(def_refs(&f.defs).all(|d| !d.exported));
        assert_eq!(f.summary, "Tables: rendering rows into columns.");
        assert!(f.imports.contains(&"std::fmt".to_string()));
        assert!(terms["render"][NAMES] >= 1 && terms["tabl"][PATH] == 1);
    }

    #[test]
    fn python_go_and_typescript_definitions() {
        let py = "\"\"\"Split cells of a segment.\"\"\"\nimport re\nfrom .cells import cell_len\n\nclass Segment:\n    def split_cells(self, cut):\n        pass\nMAX_WIDTH = 3\n";
        let f = facts_alone("rich/segment.py", py.as_bytes()).0;
        assert_eq!(
            names(&f),
            [
                ("class", "Segment", 5),
                ("def", "split_cells", 6),
                ("const", "MAX_WIDTH", 8)
            ]
        );
        assert_eq!(f.summary, "Split cells of a segment.");
        assert_eq!(f.imports, ["re", ".cells"]);

        let go = "// Package algo matches patterns.\npackage algo\nimport (\n\t\"fmt\"\n\t\"github.com/x/y\"\n)\nfunc (t *Terminal) printHeader(x int) {\n}\ntype Result struct {\n}\n";
        let f = facts_alone("src/algo/algo.go", go.as_bytes()).0;
        assert_eq!(
            names(&f),
            [("func", "printHeader", 7), ("type", "Result", 9)]
        );
        assert_eq!(f.imports, ["fmt", "github.com/x/y"]);
        assert_eq!(f.summary, "Package algo matches patterns.");

        let ts = "import { Hono } from '../../hono'\nexport const cors = (options?: CORSOptions) => {\n}\nexport class Router {\n  add(method: string, path: string): void {\n    if (x) {\n    }\n  }\n}\n";
        let f = facts_alone("src/middleware/cors/index.ts", ts.as_bytes()).0;
        assert_eq!(
            names(&f),
            [
                ("const", "cors", 2),
                ("class", "Router", 4),
                ("method", "add", 5)
            ]
        );
        let exported: Vec<bool> = def_refs(&f.defs).map(|d| d.exported).collect();
        assert_eq!(exported, [true, true, false]);
        assert_eq!(f.imports, ["../../hono"]);
    }

    #[test]
    fn binary_and_odd_input_never_fail() {
        let (f, terms) = facts_alone("src/blob.rs", b"\0\x01\x02fn x");
        assert!(f.defs.is_empty() && terms.contains_key("blob"));
        let f = facts_alone("a.py", b"\"\"\"unclosed\n\xff\xfe def \n").0;
        assert!(f.defs.is_empty());
    }

    #[test]
    fn a_file_is_binary_when_its_first_8_kib_hold_a_nul() {
        for (at, binary) in [(0, true), (8191, true), (8192, false)] {
            let mut bytes = b"fn word() {}\n".repeat(1000);
            bytes[at] = 0;
            let (f, terms) = facts_alone("src/a.rs", &bytes);
            assert_eq!(terms.contains_key("word"), !binary, "NUL at {at}");
            assert_eq!(f.defs.is_empty(), binary, "NUL at {at}");
        }
        assert!(!is_binary(b""));
    }

    #[test]
    fn words_past_the_cap_are_not_counted_but_definitions_are() {
        let mut src = String::from("/// The quokka parser.\nfn early_parse() {}\n");
        while src.len() < WORDS_MAX - 100 {
            src.push_str("let filler = alpha;\n");
        }
        // One long line crossing the cap, with the cap inside a word: the words before it
        // count, the word it cuts does not (not even its first half), nor anything after.
        src.push_str("let ");
        while src.len() < WORDS_MAX - 15 {
            src.push(' ');
        }
        src.push_str("kangaroo wombatstraddle narwhal;\n");
        src.push_str("/// The platypus helper.\nfn late_helper() { echidna }\n");
        let (f, terms) = facts_alone("src/big.rs", src.as_bytes());
        let tf = |t: &str| terms.get(t).copied().unwrap_or_default();
        assert_eq!(tf("quokka")[DOC], 1);
        assert_eq!(tf("quokka")[BODY], 1);
        assert_eq!(tf("kangaroo")[BODY], 1);
        for beyond in ["wombat", "wombatstraddl", "narwhal", "platypus", "echidna"] {
            assert_eq!(tf(beyond), [0; FIELDS], "{beyond}");
        }
        // Its name is still a name: definitions come from the whole file.
        assert_eq!(tf("helper")[NAMES], 1);
        assert_eq!(tf("helper")[BODY], 0);
        assert!(f.defs.contains("late_helper"));
    }

    #[test]
    fn a_large_files_counter_is_sized_for_the_words_counted_and_grows_past_that() {
        // A megabyte of text: the counter is sized for the first WORDS_MAX bytes whose words
        // count, not for the whole file (a table eight times larger, its misses and its pages).
        let mut src = String::new();
        while src.len() < 1 << 20 {
            src.push_str("let filler = alpha;\n");
        }
        let mut words = Lexicon::new(0);
        facts("src/big.rs", src.as_bytes(), &mut words);
        let sized = (WORDS_MAX / 32).next_power_of_two();
        assert_eq!(words.counter.slots.len(), sized);
        // As many distinct words as that text holds: the table grows and every one counts.
        let mut src = String::new();
        let (mut n, mut want, mut buf) = (0, FastSet::default(), String::new());
        while src.len() < WORDS_MAX - 16 {
            let word = format!("zq{}", spelled(n));
            src.push_str(&word);
            src.push(' ');
            want.extend(term_of(&word, &mut buf).map(str::to_string));
            n += 1;
        }
        while src.len() < 1 << 20 {
            src.push_str("let filler = alpha;\n");
        }
        let mut words = Lexicon::new(0);
        let f = facts("src/big.rs", src.as_bytes(), &mut words);
        assert!(words.counter.slots.len() > sized && want.len() > sized);
        let fresh = words.take_fresh();
        let got: FastSet<&str> = f
            .terms
            .iter()
            .map(|&(id, _)| &fresh[id as usize][..])
            .collect();
        assert!(
            want.iter().all(|t| got.contains(t.as_str())),
            "{} of {}",
            got.len(),
            want.len()
        );
    }

    /// `i` in letters (`a`, `b`, … `ba`, …): a name part the tokenizer keeps whole.
    fn spelled(mut i: usize) -> String {
        let mut out = Vec::new();
        loop {
            out.push(b'a' + (i % 26) as u8);
            i /= 26;
            if i == 0 {
                break;
            }
        }
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn a_text_without_ascii_between_its_words_is_cut_at_a_char_boundary() {
        // Words apart by an ideographic space only: no byte to cut after, so the cut is the
        // char boundary at or before the cap, wherever in a character the cap falls.
        for pad in 0..10 {
            let src = "x".repeat(pad) + &"ñandú\u{3000}".repeat(WORDS_MAX / 10 + 1);
            let end = words_end(&src);
            assert!(end <= WORDS_MAX && end > WORDS_MAX - 4, "pad {pad}: {end}");
            assert!(src.is_char_boundary(end), "pad {pad}");
            let (f, terms) = facts_alone("notes.txt", src.as_bytes());
            let body = terms.values().map(|tf| u32::from(tf[BODY])).sum::<u32>();
            assert!(
                body > 0 && f.lens[BODY] > WORDS_MAX as u32 / 12,
                "pad {pad}"
            );
        }
    }

    #[test]
    fn a_field_with_a_tab_or_line_break_keeps_its_line() {
        let mut defs = String::new();
        let d = Def {
            kind: "fn",
            name: "odd\tname\r",
            line: 7,
            exported: true,
        };
        push_def(&mut defs, &d);
        let back: Vec<Def> = def_refs(&defs).collect();
        assert_eq!(
            back,
            [Def {
                kind: "fn",
                name: "odd name ",
                line: 7,
                exported: true
            }]
        );
    }
}
