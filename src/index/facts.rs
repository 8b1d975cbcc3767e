//! What one source file says, as the ranking reads it: the terms of each field (path, defined
//! names, comments, all text), its definitions with their one-line signatures, a one-line
//! summary from its leading doc comment, and its imports.
//!
//! Pure: a path and bytes in, [`Facts`] out; never fails (binary or non-UTF-8 bytes give what
//! can be read). Does not store or rank (see [`super::store`], [`super::rank`]).

use super::lang::{self, Lang};
use crate::index::text::{FastMap, for_each_term};

/// The fields of a file the ranking weighs separately.
pub const FIELDS: usize = 4;
/// Field indexes: the path's words, the names it defines, its comments, all of its text.
pub const PATH: usize = 0;
pub const NAMES: usize = 1;
pub const DOC: usize = 2;
pub const BODY: usize = 3;

/// The most definitions kept per file (a generated file can define thousands).
const MAX_SYMBOLS: usize = 500;
/// The longest signature kept, in characters.
const MAX_SIG: usize = 140;

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub kind: String,
    pub name: String,
    /// 1-based.
    pub line: u32,
    /// The line it is defined on, trimmed and cut to [`MAX_SIG`] characters.
    pub sig: String,
}

/// Everything the index keeps of a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// Distinct terms, each with its count per field (saturating at 255).
    pub terms: FastMap<String, [u8; FIELDS]>,
    /// Terms per field (the field lengths BM25 normalises by).
    pub lens: [u32; FIELDS],
    pub symbols: Vec<Symbol>,
    pub summary: String,
    pub imports: Vec<String>,
}

impl Facts {
    fn add(&mut self, field: usize, text: &str) {
        let (terms, lens) = (&mut self.terms, &mut self.lens);
        for_each_term(text, |t, _| {
            lens[field] += 1;
            let tf = match terms.get_mut(t) {
                Some(tf) => tf,
                None => terms.entry(t.to_string()).or_default(),
            };
            tf[field] = tf[field].saturating_add(1);
        });
    }
}

/// The facts of the file at `path` (relative, `/`-separated) with content `bytes`.
pub fn facts(path: &str, bytes: &[u8]) -> Facts {
    let mut f = Facts::default();
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    f.add(PATH, stem);
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return f; // binary: only its path says anything
    }
    let text = String::from_utf8_lossy(bytes);
    let lang = Lang::of(path);
    let symbols = symbols(&text, lang);
    for s in &symbols {
        f.add(NAMES, &s.name);
    }
    f.symbols = symbols;
    let comments = comments(&text, lang);
    f.add(DOC, &comments.join("\n"));
    f.summary = summary(&comments);
    f.add(BODY, &text);
    lang::for_each_import(&text, |m| {
        if f.imports.len() < 200 && !f.imports.iter().any(|x| x == m) {
            f.imports.push(m.to_string());
        }
    });
    f
}

/// The definitions in `text`, in line order.
fn symbols(text: &str, lang: Lang) -> Vec<Symbol> {
    // (start of the match, kind, name), numbered by line once sorted.
    let mut found: Vec<(usize, &str, &str)> = Vec::new();
    for p in lang::defs(lang) {
        for c in p.re.captures_iter(text) {
            let Some(n) = c.name("n") else { continue };
            if lang::NOT_NAMES.contains(&n.as_str()) {
                continue;
            }
            let kind = c.name("k").map_or(p.kind, |k| k.as_str());
            let start = c.get(0).map_or(n.start(), |m| m.start());
            found.push((start, kind, n.as_str()));
            if found.len() >= MAX_SYMBOLS * 2 {
                break;
            }
        }
    }
    found.sort_by_key(|&(at, _, _)| at);
    // Lines are counted once, front to back, however many definitions there are.
    let bytes = text.as_bytes();
    let (mut line, mut counted) = (1, 0);
    let mut out: Vec<Symbol> = Vec::with_capacity(found.len().min(MAX_SYMBOLS));
    for (at, kind, name) in found {
        let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        line += memchr::memchr_iter(b'\n', &bytes[counted.min(line_start)..line_start]).count();
        counted = counted.max(line_start);
        if out
            .last()
            .is_some_and(|s: &Symbol| s.line as usize == line && s.name == name)
        {
            continue;
        }
        out.push(symbol(text, at, line_start, line, kind, name));
        if out.len() >= MAX_SYMBOLS {
            break;
        }
    }
    out
}

/// The symbol defined at byte `at` of `text`, on the line that starts at `line_start`.
fn symbol(text: &str, at: usize, line_start: usize, line: usize, kind: &str, name: &str) -> Symbol {
    let line_end = memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i);
    let sig = text[line_start..line_end]
        .trim()
        .trim_end_matches(['{', ':'])
        .trim_end();
    Symbol {
        kind: kind.trim_end_matches('!').to_string(),
        name: name.to_string(),
        line: u32::try_from(line).unwrap_or(u32::MAX),
        sig: cut(sig, MAX_SIG),
    }
}

/// `s` cut to at most `max` characters, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The text of the comment lines and docstrings of `text`, one item per line, markers removed.
fn comments(text: &str, lang: Lang) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_doc: Option<&str> = None; // the closing quotes of an open Python docstring
    for line in text.lines() {
        let t = line.trim();
        if let Some(close) = in_doc {
            let (body, closed) = match t.find(close) {
                Some(i) => (&t[..i], true),
                None => (t, false),
            };
            out.push(body);
            if closed {
                in_doc = None;
            }
            continue;
        }
        if lang == Lang::Python
            && let Some(q) = ["\"\"\"", "'''"].into_iter().find(|q| t.starts_with(q))
        {
            let rest = &t[3..];
            match rest.find(q) {
                Some(i) => out.push(&rest[..i]),
                None => {
                    out.push(rest);
                    in_doc = Some(q);
                }
            }
            continue;
        }
        if let Some(c) = comment_text(t, lang) {
            out.push(c);
        }
    }
    out
}

/// The text of a comment line (markers removed), or `None` when `t` (trimmed) is not one.
fn comment_text(t: &str, lang: Lang) -> Option<&str> {
    for marker in ["///", "//!", "//", "/**", "/*", "-- "] {
        if let Some(rest) = t.strip_prefix(marker) {
            return Some(rest.trim_end_matches("*/").trim());
        }
    }
    if t.starts_with("* ") || t == "*" {
        return Some(t[1..].trim_end_matches("*/").trim());
    }
    if lang.hash_comments() && t.starts_with('#') && !t.starts_with("#!") {
        return Some(t.trim_start_matches('#').trim());
    }
    None
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
        assert_eq!(f.imports, ["github.com/x/y"]);
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
