//! What one file says, as the index keeps it: the terms of each field (path, defined names,
//! comments, all text), its definitions with their one-line signatures, a one-line summary from
//! its leading doc comment, its imports, the sibling modules it links to and its module doc
//! (what the Pin's keywords and module discovery read).
//!
//! Pure: a path and bytes in, [`Facts`] out; never fails (binary or non-UTF-8 bytes give what
//! can be read). What a line defines or imports is [`super::lang`]'s. Does not store or rank
//! (see [`super::store`], [`super::rank`]).

use super::lang::{self, Lang};
use super::text::{FastMap, for_each_written_hashed, term_of};

/// The fields of a file the ranking weighs separately.
pub(crate) const FIELDS: usize = 4;
/// Field indexes: the path's words, the names it defines, its comments, all of its text.
pub(crate) const PATH: usize = 0;
pub(crate) const NAMES: usize = 1;
pub(crate) const DOC: usize = 2;
pub(crate) const BODY: usize = 3;

/// The longest signature kept, in characters.
const MAX_SIG: usize = 140;

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Symbol {
    pub kind: String,
    pub name: String,
    /// 1-based.
    pub line: u32,
    /// The line it is defined on, trimmed and cut to [`MAX_SIG`] characters.
    pub sig: String,
}

/// Everything the index keeps of a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Facts {
    /// Distinct terms, each with its count per field (saturating at 255).
    pub terms: FastMap<String, [u8; FIELDS]>,
    /// Terms per field (the field lengths BM25 normalises by).
    pub lens: [u32; FIELDS],
    pub symbols: Vec<Symbol>,
    pub summary: String,
    /// The modules it imports, as written.
    pub imports: Vec<String>,
    /// The sibling modules it links to (see [`lang::Extract::links`]).
    pub links: Vec<String>,
    /// Its module doc (see [`lang::Extract::module_doc`]), one line each.
    pub module_doc: String,
}

/// Counts of the words of a file as written, per field: each distinct word is turned into its
/// term once ([`Counter::finish`]), not once per occurrence. An open-addressing table keyed by
/// a 64-bit hash of the word and its length (the words of one file are counted here, so two
/// distinct words sharing both is vanishingly unlikely, and would only merge their counts):
/// one hash per occurrence and no byte comparison, the hot loop of building the index.
struct Counter<'a> {
    slots: Vec<Slot<'a>>,
    used: usize,
}

#[derive(Clone, Copy, Default)]
struct Slot<'a> {
    /// 0: empty.
    hash: u64,
    word: &'a str,
    counts: [u32; FIELDS],
}

impl<'a> Counter<'a> {
    /// A counter sized for a text of `bytes` bytes (it grows when it must: fresh memory costs
    /// more than growing).
    fn with_capacity(bytes: usize) -> Counter<'a> {
        let n = (bytes / 128).clamp(128, 1 << 16).next_power_of_two();
        Counter {
            slots: vec![Slot::default(); n],
            used: 0,
        }
    }

    fn add(&mut self, field: usize, text: &'a str) {
        for_each_written_hashed(text, |w, hash| self.count(field, w, hash));
    }

    #[inline]
    fn count(&mut self, field: usize, word: &'a str, hash: u64) {
        let mask = self.slots.len() - 1;
        let mut i = (hash as usize) & mask;
        loop {
            let slot = &mut self.slots[i];
            if slot.hash == hash && slot.word.len() == word.len() {
                slot.counts[field] += 1;
                return;
            }
            if slot.hash == 0 {
                *slot = Slot {
                    hash,
                    word,
                    counts: [0; FIELDS],
                };
                slot.counts[field] = 1;
                self.used += 1;
                if self.used * 2 > self.slots.len() {
                    self.grow();
                }
                return;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let bigger = vec![Slot::default(); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.hash != 0) {
            let mut i = (s.hash as usize) & mask;
            while self.slots[i].hash != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// The terms and field lengths of everything added.
    fn finish(self, f: &mut Facts) {
        let mut buf = String::new();
        f.terms.reserve(self.used);
        for slot in self.slots.into_iter().filter(|s| s.hash != 0) {
            let Some(term) = term_of(slot.word, &mut buf) else {
                continue;
            };
            let tf = match f.terms.get_mut(term) {
                Some(tf) => tf,
                None => f.terms.entry(term.to_string()).or_default(),
            };
            for ((t, len), &n) in tf.iter_mut().zip(&mut f.lens).zip(&slot.counts) {
                *len += n;
                *t = t.saturating_add(u8::try_from(n).unwrap_or(u8::MAX));
            }
        }
    }
}

/// The facts of the source file at `path` (relative, `/`-separated) with content `bytes`.
pub(crate) fn facts(path: &str, bytes: &[u8]) -> Facts {
    let mut f = Facts::default();
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    let mut words = Counter::with_capacity(bytes.len().min(1 << 20));
    words.add(PATH, stem);
    if is_binary(bytes) {
        words.finish(&mut f);
        return f; // binary: only its path says anything
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    let x = lang::extract(Lang::of(path), &text);
    for d in &x.defs {
        words.add(NAMES, d.name);
    }
    for c in &x.comments {
        words.add(DOC, c);
    }
    words.add(BODY, &text);
    words.finish(&mut f);
    f.summary = summary(&x.comments);
    f.symbols = x
        .defs
        .iter()
        .map(|d| Symbol {
            kind: d.kind.to_string(),
            name: d.name.to_string(),
            line: d.line,
            sig: cut(d.sig, MAX_SIG),
        })
        .collect();
    finish(&mut f, &x);
    f
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

fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|&b| b == 0)
}

/// Imports, links and module doc, owned.
fn finish(f: &mut Facts, x: &lang::Extract<'_>) {
    f.imports = x.imports.iter().map(|s| s.to_string()).collect();
    f.links = x.links.iter().map(|s| s.to_string()).collect();
    f.module_doc = x.module_doc.join("\n");
}

/// `s` cut to at most `max` characters, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(f: &Facts) -> Vec<(&str, &str, u32)> {
        f.symbols
            .iter()
            .map(|s| (s.kind.as_str(), s.name.as_str(), s.line))
            .collect()
    }

    #[test]
    fn rust_definitions_with_signatures() {
        let src = "//! Tables: rendering rows into columns.\nuse std::fmt;\nmod cell;\n\npub struct Table {\n}\n\nimpl fmt::Display for Table {\n    pub(crate) fn render_table(&self, width: usize) -> String {\n        todo!()\n    }\n}\nconst MAX: usize = 3;\n";
        let f = facts("src/table.rs", src.as_bytes());
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
        assert_eq!(
            f.symbols[3].sig,
            "pub(crate) fn render_table(&self, width: usize) -> String"
        );
        assert_eq!(f.summary, "Tables: rendering rows into columns.");
        assert!(f.imports.contains(&"std::fmt".to_string()));
        assert!(f.terms["render"][NAMES] >= 1 && f.terms["tabl"][PATH] == 1);
    }

    #[test]
    fn python_go_and_typescript_definitions() {
        let py = "\"\"\"Split cells of a segment.\"\"\"\nimport re\nfrom .cells import cell_len\n\nclass Segment:\n    def split_cells(self, cut):\n        pass\nMAX_WIDTH = 3\n";
        let f = facts("rich/segment.py", py.as_bytes());
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
        let f = facts("src/algo/algo.go", go.as_bytes());
        assert_eq!(
            names(&f),
            [("func", "printHeader", 7), ("type", "Result", 9)]
        );
        assert_eq!(f.imports, ["fmt", "github.com/x/y"]);
        assert_eq!(f.summary, "Package algo matches patterns.");

        let ts = "import { Hono } from '../../hono'\nexport const cors = (options?: CORSOptions) => {\n}\nexport class Router {\n  add(method: string, path: string): void {\n    if (x) {\n    }\n  }\n}\n";
        let f = facts("src/middleware/cors/index.ts", ts.as_bytes());
        assert_eq!(
            names(&f),
            [
                ("const", "cors", 2),
                ("class", "Router", 4),
                ("method", "add", 5)
            ]
        );
        assert_eq!(f.imports, ["../../hono"]);
    }

    #[test]
    fn binary_and_odd_input_never_fail() {
        let f = facts("src/blob.rs", b"\0\x01\x02fn x");
        assert!(f.symbols.is_empty() && f.terms.contains_key("blob"));
        let f = facts("a.py", b"\"\"\"unclosed\n\xff\xfe def \n");
        assert!(f.symbols.is_empty());
        let long = format!("fn {}() {{}}", "a".repeat(400));
        assert!(
            facts("a.rs", long.as_bytes()).symbols[0]
                .sig
                .chars()
                .count()
                <= MAX_SIG + 1
        );
    }
}
