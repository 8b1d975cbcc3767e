//! Extraction: what one source file defines, imports and says about itself.
//!
//! Owns the per-language patterns (one ASCII regex per language, a single pass with a literal
//! prefilter; Rust, the common case, by a hand scanner that finds exactly the regex's matches):
//! definitions (fn/struct/enum/trait/type/class/def/function/interface/func/fun…),
//! imported libraries, links to sibling modules (Rust `mod x;`, `use crate::x`/`super::x`,
//! Python `from .x import`, JS/TS `from './x'`) and module docs (Rust `//!`, shell `#` lines,
//! markdown headings). Pure: bytes in, facts out; never fails. Does not own ranking (see [`super::keywords`]).

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Input, MatchKind};
use regex::bytes::Regex;

/// What one source file contributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// Names of the functions, types, classes… it defines.
    pub defs: Vec<String>,
    /// First segment of the modules it imports (`use serde_json::…` gives `serde_json`).
    pub imports: Vec<String>,
    /// Words of its module doc comments (Rust `//!`, shell `#` lines; the first 20) or, for
    /// markdown, its headings.
    pub doc: String,
    /// The modules of the same package it refers to by name (`x` for Rust `mod x;`,
    /// `use crate::x`, `use super::{x, y}`; Python `from .x import …`, `from . import x`; JS/TS
    /// `from './x'`): what ties the files of one folder together.
    pub links: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Rust,
    Python,
    Js,
    Go,
    Java,
    Shell,
    Markdown,
    Other,
}

fn lang_of(path: &str) -> Lang {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "rs" => Lang::Rust,
        "py" | "pyi" => Lang::Python,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "vue" | "svelte" => Lang::Js,
        "go" => Lang::Go,
        "java" | "kt" | "kts" | "scala" | "groovy" | "cs" => Lang::Java,
        "sh" | "bash" | "zsh" => Lang::Shell,
        "md" | "markdown" => Lang::Markdown,
        _ => Lang::Other,
    }
}

/// Compile a pattern in ASCII mode (`(?-u)`): Unicode word boundaries would force the slow
/// regex engines, and identifiers are matched as ASCII anyway.
fn re(pattern: &str) -> Regex {
    Regex::new(&format!("(?-u){pattern}")).expect("valid regex")
}

/// One regex per language: definitions, imports and module docs (Rust `//!`, shell `#` comments
/// at the start of a line) in a single pass. Every
/// alternative starts with a literal, so the regex engine skips ahead with a prefilter.
static PATTERNS: LazyLock<[Regex; 7]> = LazyLock::new(|| {
    [
        // Rust
        re(
            r"\b(?:fn|struct|enum|trait|type|union|mod|macro_rules!)[ \t]+[A-Za-z_][A-Za-z0-9_]*|\b(?:use|extern[ \t]+crate)[ \t]+:*[A-Za-z_][A-Za-z0-9_]*|//![^\n]*",
        ),
        // Python
        re(
            r"(?m)\b(?:def|class)[ \t]+[A-Za-z_][A-Za-z0-9_]*|^[ \t]*(?:import|from)[ \t]+[A-Za-z_][A-Za-z0-9_]*|^[ \t]*from[ \t]+\.[^\n]*",
        ),
        // JS / TS
        re(
            r#"\b(?:function\*?|class|interface|type|enum)[ \t]+[A-Za-z_$][A-Za-z0-9_$]*|\bexport[ \t]+(?:default[ \t]+)?(?:const|let|var)[ \t]+[A-Za-z_$][A-Za-z0-9_$]*|(?:\bfrom|\brequire\(|\bimport\()[ \t]*['"][@A-Za-z0-9_./-]+"#,
        ),
        // Go
        re(
            r#"(?m)^func[ \t]+(?:\([^)]*\)[ \t]*)?[A-Za-z_][A-Za-z0-9_]*|^type[ \t]+[A-Za-z_][A-Za-z0-9_]*|"[a-z0-9.-]+\.[a-z]+/[A-Za-z0-9_./-]+""#,
        ),
        // Java, Kotlin, Scala, C#
        re(
            r"(?m)\b(?:class|interface|enum|record|object|fun|trait)[ \t]+[A-Za-z_][A-Za-z0-9_]*|^[ \t]+(?:(?:public|private|protected|static|final|abstract|synchronized|override)[ \t]+)+[A-Za-z0-9_<>\[\],.? ]+?[ \t]+[a-z][A-Za-z0-9_]*[ \t]*\(",
        ),
        // Shell
        re(
            r"(?m)^[ \t]*(?:function[ \t]+[A-Za-z_][A-Za-z0-9_-]*|[A-Za-z_][A-Za-z0-9_-]*[ \t]*\(\))|^#[^!\n][^\n]*",
        ),
        // Anything else
        re(
            r"\b(?:def|class|struct|fn|func|function|interface|type|enum|trait|module|typedef)[ \t]+[A-Za-z_][A-Za-z0-9_]*",
        ),
    ]
});

/// Whether `b` is a word byte for `\b` in an ASCII regex.
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end of `[ \t]*` from `i`.
fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| c == b' ' || c == b'\t') {
        i += 1;
    }
    i
}

/// The end of `:*[A-Za-z_][A-Za-z0-9_]*` at `i`, if that is there (`colons`: whether the
/// leading colons are allowed).
fn ident_end(b: &[u8], mut i: usize, colons: bool) -> Option<usize> {
    if colons {
        while b.get(i) == Some(&b':') {
            i += 1;
        }
    }
    let first = *b.get(i)?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    i += 1;
    while b.get(i).copied().is_some_and(is_word) {
        i += 1;
    }
    Some(i)
}

/// The end of the Rust pattern's match at the word `b[at..word_end]` (a whole word: `\b`
/// holds on both sides), or `None` when it does not match there.
fn rust_match_end(b: &[u8], at: usize, word_end: usize) -> Option<usize> {
    let word = &b[at..word_end];
    let keyword_end = match word {
        b"macro_rules" if b.get(word_end) == Some(&b'!') => word_end + 1,
        b"fn" | b"struct" | b"enum" | b"trait" | b"type" | b"union" | b"mod" | b"use"
        | b"extern" => word_end,
        _ => return None,
    };
    let after = skip_blanks(b, keyword_end);
    if after == keyword_end {
        return None; // `[ \t]+`
    }
    match word {
        b"use" => ident_end(b, after, true),
        b"extern" => {
            let crate_end = after + 5;
            if b.get(after..crate_end)? != b"crate" {
                return None;
            }
            let name = skip_blanks(b, crate_end);
            if name == crate_end {
                return None;
            }
            ident_end(b, name, true)
        }
        _ => ident_end(b, after, false),
    }
}

/// The Rust keywords a match can start with (each followed by a blank in a match).
const RUST_KEYWORDS: [&str; 10] = [
    "fn",
    "struct",
    "enum",
    "trait",
    "type",
    "union",
    "mod",
    "macro_rules!",
    "use",
    "extern",
];

/// A searcher for where a Rust match can start: a keyword and one of `blanks` after it, or
/// `//!`.
fn rust_starts(blanks: &[char]) -> Option<AhoCorasick> {
    let mut pats: Vec<String> = RUST_KEYWORDS
        .iter()
        .flat_map(|w| blanks.iter().map(move |b| format!("{w}{b}")))
        .collect();
    pats.push("//!".to_string());
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(pats)
        .ok()
}

/// Where a Rust match can start: a keyword and the blank the pattern needs after it (space or
/// tab), or `//!`.
static RUST_STARTS: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| rust_starts(&[' ', '\t']));

/// [`RUST_STARTS`] for a file without a tab, where the keyword-and-tab patterns cannot match
/// (the same matches): half the patterns make the prefilter's fingerprints sharper, so it
/// stops on far fewer false candidates (a third fewer instructions over a large tree).
static RUST_STARTS_NO_TAB: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| rust_starts(&[' ']));

/// Call `f` with each match of the Rust pattern (`PATTERNS[0]`) in `bytes`: the same matches,
/// in the same order, as its `find_iter`, without the general regex engine. Every match starts
/// where [`RUST_STARTS`] finds a keyword (after `\b`) or `//!`, and [`rust_match_end`] checks
/// the rest by hand.
fn rust_matches(b: &[u8], mut f: impl FnMut(usize, usize)) {
    let starts = if memchr::memchr(b'\t', b).is_some() {
        &RUST_STARTS
    } else {
        &RUST_STARTS_NO_TAB
    };
    let Some(starts) = starts.as_ref() else {
        PATTERNS[0].find_iter(b).for_each(|m| f(m.start(), m.end()));
        return;
    };
    let mut pos = 0;
    while let Some(hit) = starts.find(Input::new(b).span(pos..b.len())) {
        let at = hit.start();
        let end = if b[at] == b'/' {
            Some(memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |e| at + e))
        } else if at > 0 && is_word(b[at - 1]) {
            None // no `\b`: the keyword ends a longer word
        } else {
            let word_end = at
                + b[at..]
                    .iter()
                    .position(|&c| !is_word(c))
                    .unwrap_or(b.len() - at);
            rust_match_end(b, at, word_end)
        };
        match end {
            Some(end) => {
                f(at, end);
                pos = end;
            }
            None => pos = at + 1,
        }
    }
}

/// The headings of a markdown text, outside code fences (a `# comment` in a fenced shell or
/// Python block is code, not a heading).
fn headings(bytes: &[u8], mut f: impl FnMut(&[u8])) {
    let mut fence: Option<u8> = None;
    for line in bytes.split(|&c| c == b'\n') {
        let t = line.trim_ascii_start();
        let tick = t.first().copied().filter(|&c| c == b'`' || c == b'~');
        if let Some(c) = tick
            && t.len() >= 3
            && t[..3].iter().all(|&x| x == c)
        {
            fence = match fence {
                Some(open) if open == c => None,
                None => Some(c),
                other => other,
            };
            continue;
        }
        if fence.is_some() {
            continue;
        }
        let hashes = line.iter().take_while(|&&c| c == b'#').count();
        if (1..=6).contains(&hashes) && matches!(line.get(hashes), Some(b' ' | b'\t')) {
            f(line.trim_ascii_end());
        }
    }
}

/// Markdown files that never describe the code around them: change logs and release notes
/// (`CHANGELOG*`, `HISTORY*`, `NEWS*`, `RELEASES*`), licences, codes of conduct, author lists,
/// and translations (`README.zh.md`, `README_ja-JP.md`, `docs/zh-cn/…`): their words would
/// become keywords of whatever module sits beside them.
pub fn describes_code(path: &str) -> bool {
    const NOT: &[&str] = &[
        "changelog",
        "changes",
        "history",
        "news",
        "release",
        "releases",
        "release_notes",
        "license",
        "licence",
        "copying",
        "notice",
        "code_of_conduct",
        "authors",
        "contributors",
        "maintainers",
        "security",
        "funding",
        "citation",
    ];
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name
        .split_once('.')
        .map_or(name, |(s, _)| s)
        .to_ascii_lowercase();
    let stem_words = stem.replace('-', "_");
    if NOT
        .iter()
        .any(|n| stem_words == *n || stem_words.starts_with(&format!("{n}_")))
    {
        return false;
    }
    // A language tag in the name (`README.zh-CN.md`, `README_ja.md`) or a folder named like one.
    let tagged = |s: &str| is_language_tag(s);
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() >= 3 && parts[1..parts.len() - 1].iter().any(|p| tagged(p)) {
        return false;
    }
    if let Some((_, tag)) = stem.split_once(['_', '-'])
        && stem.starts_with("readme")
        && tagged(tag)
    {
        return false;
    }
    !path.split('/').rev().skip(1).any(tagged)
}

/// Whether `s` is a language tag other than English: two letters from the common ISO 639-1
/// codes of documentation translations, optionally with a region (`zh-CN`, `pt_BR`).
fn is_language_tag(s: &str) -> bool {
    const LANGS: &[&str] = &[
        "ar", "bg", "bn", "cn", "cs", "da", "de", "el", "es", "fa", "fi", "fr", "he", "hi", "hu",
        "id", "it", "ja", "jp", "ko", "kr", "nl", "no", "pl", "pt", "ro", "ru", "sk", "sv", "th",
        "tr", "tw", "uk", "ur", "vi", "zh",
    ];
    let lower = s.to_ascii_lowercase();
    let (lang, region) = match lower.split_once(['-', '_']) {
        Some((l, r)) => (l, Some(r)),
        None => (lower.as_str(), None),
    };
    LANGS.contains(&lang)
        && region.is_none_or(|r| {
            (2..=4).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_alphabetic())
        })
}

#[derive(PartialEq, Eq)]
enum Kind {
    Def,
    Import,
    Doc,
    /// A reference to a module of the same package (see [`FileFacts::links`]).
    Link,
}

fn kind(li: usize, m: &[u8]) -> Kind {
    let starts = |p: &[&str]| p.iter().any(|p| m.starts_with(p.as_bytes()));
    let link = match li {
        0 => starts(&["mod"]),
        1 => m
            .trim_ascii_start()
            .strip_prefix(b"from")
            .is_some_and(|r| r.trim_ascii_start().starts_with(b".")),
        2 => m
            .iter()
            .position(|&c| c == b'\'' || c == b'"')
            .is_some_and(|q| m[q + 1..].starts_with(b"./")),
        _ => false,
    };
    if link {
        return Kind::Link;
    }
    let import = match li {
        0 => starts(&["use", "extern"]),
        1 => {
            m.trim_ascii_start().starts_with(b"import") || m.trim_ascii_start().starts_with(b"from")
        }
        2 => starts(&["from", "require", "import"]),
        3 => starts(&["\""]),
        _ => false,
    };
    if import {
        Kind::Import
    } else if (li == 0 && m.starts_with(b"//!")) || (li == 5 && m.starts_with(b"#")) {
        Kind::Doc
    } else {
        Kind::Def
    }
}

fn lang_index(l: Lang) -> usize {
    match l {
        Lang::Rust => 0,
        Lang::Python => 1,
        Lang::Js => 2,
        Lang::Go => 3,
        Lang::Java => 4,
        Lang::Shell => 5,
        Lang::Markdown | Lang::Other => 6,
    }
}

/// The identifier at the end of a definition match (`fn parse_entry` → `parse_entry`).
fn last_ident(m: &[u8]) -> Option<String> {
    let is_id = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-');
    let end = m.iter().rposition(is_id)? + 1;
    let start = m[..end]
        .iter()
        .rposition(|c| !is_id(c))
        .map_or(0, |p| p + 1);
    let id = std::str::from_utf8(&m[start..end]).ok()?;
    (!id.is_empty()).then(|| id.to_string())
}

/// The library named by an import match.
fn import_name(m: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(m).ok()?;
    let spec = match s.find(['\'', '"']) {
        Some(q) => s[q + 1..].trim_end_matches('"'),
        None => return last_ident(m),
    };
    if spec.starts_with('.') || spec.starts_with('/') {
        return None;
    }
    if spec.contains('.') && !spec.starts_with('@') {
        // A Go import path: its last segment.
        return spec.rsplit('/').next().map(String::from);
    }
    let mut parts = spec.split('/');
    let first = parts.next()?;
    if first.starts_with('@') {
        return parts.next().map(|p| format!("{first}/{p}"));
    }
    Some(first.to_string())
}

/// The identifier at the start of `b` (after blanks), if any.
fn leading_ident(b: &[u8]) -> Option<&[u8]> {
    let b = b.trim_ascii_start();
    let end = ident_end(b, 0, false)?;
    Some(&b[..end])
}

/// Bytes after a match looked at for a link's names (a `use` list is rarely longer).
const LINK_TAIL: usize = 1024;

/// The sibling modules a Rust match links to: `mod x;` (a declaration, not an inline module)
/// gives `x`; `use crate::x…`, `use super::x…` and `use self::{x, y::z}` give `x` (and `y`).
fn rust_links(m: &[u8], after: &[u8], out: &mut Vec<String>) {
    let after = &after[..after.len().min(LINK_TAIL)];
    let push = |id: &[u8], out: &mut Vec<String>| {
        if !matches!(id, b"self" | b"super" | b"crate")
            && let Ok(s) = std::str::from_utf8(id)
        {
            out.push(s.to_string());
        }
    };
    if m.starts_with(b"mod") {
        if after.trim_ascii_start().starts_with(b";")
            && let Some(id) = last_ident(m)
        {
            out.push(id);
        }
        return;
    }
    if !(m.ends_with(b"crate") || m.ends_with(b"super") || m.ends_with(b"self")) {
        return; // another crate
    }
    let Some(tail) = after.strip_prefix(b"::") else {
        return;
    };
    if let Some(list) = tail.strip_prefix(b"{") {
        // The first name of each item at the top level of the braces.
        let mut depth = 0usize;
        let mut item_start = true;
        for (i, &c) in list.iter().enumerate() {
            match c {
                b'{' => depth += 1,
                b'}' if depth == 0 => break,
                b'}' => depth -= 1,
                b',' if depth == 0 => item_start = true,
                c if item_start && !c.is_ascii_whitespace() => {
                    item_start = false;
                    if let Some(id) = leading_ident(&list[i..]) {
                        push(id, out);
                    }
                }
                _ => {}
            }
        }
    } else if let Some(id) = leading_ident(tail) {
        push(id, out);
    }
}

/// The sibling modules a Python relative import links to: `from .x.y import a` gives `x`,
/// `from . import a, b as c` gives `a` and `b`; `from ..x` (a parent package) gives nothing.
fn python_links(m: &[u8], out: &mut Vec<String>) {
    let Some(rest) = m.trim_ascii_start().strip_prefix(b"from") else {
        return;
    };
    let rest = rest.trim_ascii_start();
    let dots = rest.iter().take_while(|&&c| c == b'.').count();
    if dots != 1 {
        return;
    }
    let rest = &rest[1..];
    fn ident(b: &[u8]) -> Option<&str> {
        leading_ident(b).and_then(|id| std::str::from_utf8(id).ok())
    }
    if rest
        .first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
    {
        out.extend(ident(rest).map(str::to_string));
        return;
    }
    let Some(names) = rest.trim_ascii_start().strip_prefix(b"import") else {
        return;
    };
    for item in names.split(|&c| c == b',') {
        let item = item.trim_ascii_start();
        let item = item.strip_prefix(b"(").unwrap_or(item);
        out.extend(ident(item).map(str::to_string));
    }
}

/// The sibling module a JS/TS relative import links to: `from './x'`, `'./x.js'` and
/// `'./x/index'` give `x`.
fn js_link(m: &[u8]) -> Option<String> {
    let q = m.iter().position(|&c| c == b'\'' || c == b'"')?;
    let spec = std::str::from_utf8(&m[q + 1..]).ok()?.strip_prefix("./")?;
    let first = spec.split('/').next()?;
    let name = first.split('.').next()?;
    (!name.is_empty()).then(|| name.to_string())
}

/// What one file defines, imports and says about itself. Never fails; unknown bytes are skipped.
pub fn extract(path: &str, bytes: &[u8]) -> FileFacts {
    let lang = lang_of(path);
    let mut facts = FileFacts::default();
    if lang == Lang::Markdown {
        headings(bytes, |h| {
            facts.doc.push_str(&String::from_utf8_lossy(h));
            facts.doc.push('\n');
        });
        return facts;
    }
    let li = lang_index(lang);
    let mut doc_lines = 0;
    let mut each = |start: usize, end: usize| {
        let m = &bytes[start..end];
        match kind(li, m) {
            Kind::Def => facts.defs.extend(last_ident(m)),
            Kind::Import => {
                facts.imports.extend(import_name(m));
                if li == 0 {
                    rust_links(m, &bytes[end..], &mut facts.links);
                }
            }
            Kind::Link if li == 0 => rust_links(m, &bytes[end..], &mut facts.links),
            Kind::Link if li == 1 => python_links(m, &mut facts.links),
            Kind::Link => facts.links.extend(js_link(m)),
            Kind::Doc if doc_lines < 20 => {
                doc_lines += 1;
                facts.doc.push_str(&String::from_utf8_lossy(m));
                facts.doc.push('\n');
            }
            Kind::Doc => {}
        }
    };
    if lang == Lang::Rust {
        rust_matches(bytes, each);
    } else {
        PATTERNS[li]
            .find_iter(bytes)
            .for_each(|m| each(m.start(), m.end()));
    }
    facts
}

#[cfg(test)]
mod tests;
