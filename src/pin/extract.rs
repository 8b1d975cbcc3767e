//! Extraction: what one source file defines, imports and says about itself.
//!
//! Owns the per-language patterns (one ASCII regex per language, a single pass with a literal
//! prefilter): definitions (fn/struct/enum/trait/type/class/def/function/interface/func/fun…),
//! imported libraries and module docs (Rust `//!`, shell `#` lines, markdown headings). Pure:
//! bytes in, facts out; never fails. Does not own ranking (see [`super::keywords`]).

use std::sync::LazyLock;

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

/// File extensions that count as source code.
pub const SOURCE_EXTS: &[&str] = &[
    "rs", "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte", "go",
    "java", "kt", "kts", "scala", "groovy", "cs", "sh", "bash", "zsh", "rb", "php", "c", "h", "cc",
    "cpp", "cxx", "hpp", "hh", "m", "mm", "swift", "lua", "ex", "exs", "erl", "hs", "ml", "clj",
    "dart", "r", "jl", "zig", "nim", "pl", "pm", "sql",
];

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
            r"\b(?:fn|struct|enum|trait|type|union|macro_rules!)[ \t]+[A-Za-z_][A-Za-z0-9_]*|\b(?:use|extern[ \t]+crate)[ \t]+:*[A-Za-z_][A-Za-z0-9_]*|//![^\n]*",
        ),
        // Python
        re(
            r"(?m)\b(?:def|class)[ \t]+[A-Za-z_][A-Za-z0-9_]*|^[ \t]*(?:import|from)[ \t]+[A-Za-z_][A-Za-z0-9_]*",
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

static HEADINGS: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^#{1,6}[ \t]+[^\n]*"));

#[derive(PartialEq, Eq)]
enum Kind {
    Def,
    Import,
    Doc,
}

fn kind(li: usize, m: &[u8]) -> Kind {
    let starts = |p: &[&str]| p.iter().any(|p| m.starts_with(p.as_bytes()));
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

/// What one file defines, imports and says about itself. Never fails; unknown bytes are skipped.
pub fn extract(path: &str, bytes: &[u8]) -> FileFacts {
    let lang = lang_of(path);
    let mut facts = FileFacts::default();
    if lang == Lang::Markdown {
        for m in HEADINGS.find_iter(bytes) {
            facts.doc.push_str(&String::from_utf8_lossy(m.as_bytes()));
            facts.doc.push('\n');
        }
        return facts;
    }
    let li = lang_index(lang);
    let mut doc_lines = 0;
    for m in PATTERNS[li].find_iter(bytes) {
        let m = m.as_bytes();
        match kind(li, m) {
            Kind::Def => facts.defs.extend(last_ident(m)),
            Kind::Import => facts.imports.extend(import_name(m)),
            Kind::Doc if doc_lines < 20 => {
                doc_lines += 1;
                facts.doc.push_str(&String::from_utf8_lossy(m));
                facts.doc.push('\n');
            }
            Kind::Doc => {}
        }
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_definitions_across_languages() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "a.rs",
                "pub fn parse_entry() {}\nstruct Pin;\nenum Item {}\ntrait Walk {}\nmacro_rules! m {}",
                &["parse_entry", "Pin", "Item", "Walk", "m"],
            ),
            (
                "a.py",
                "class Loader:\n    async def fetch_all(self):\n        pass\ndef main(): pass",
                &["Loader", "fetch_all", "main"],
            ),
            (
                "a.ts",
                "export function buildIndex() {}\nclass Store {}\ninterface Props {}\ntype Id = string\nexport const apiClient = 1",
                &["buildIndex", "Store", "Props", "Id", "apiClient"],
            ),
            (
                "a.go",
                "func (s *Server) ServeHTTP(w W) {}\nfunc NewServer() {}\ntype Config struct{}",
                &["ServeHTTP", "NewServer", "Config"],
            ),
            (
                "A.java",
                "public class App {\n    public static void runLoop(String a) {}\n}",
                &["App", "runLoop"],
            ),
            (
                "a.kt",
                "data class User(val n: String)\nfun greetUser() {}",
                &["User", "greetUser"],
            ),
            (
                "a.sh",
                "setup_env() {\n}\nfunction run-tests {\n}",
                &["setup_env", "run-tests"],
            ),
            (
                "a.rb",
                "class Widget\n  def render_all\n  end\nend",
                &["Widget", "render_all"],
            ),
        ];
        for (path, src, want) in cases {
            assert_eq!(extract(path, src.as_bytes()).defs, *want, "{path}");
        }
    }

    #[test]
    fn extracts_imports() {
        let rs = extract(
            "a.rs",
            b"use serde_json::Value;\npub use crate::x;\nextern crate regex;",
        );
        assert_eq!(rs.imports, ["serde_json", "crate", "regex"]);
        let py = extract("a.py", b"import requests\nfrom flask import Flask\n");
        assert_eq!(py.imports, ["requests", "flask"]);
        let ts = extract("a.ts", b"import x from 'react';\nconst y = require(\"@scope/pkg/sub\");\nimport z from './local';");
        assert_eq!(ts.imports, ["react", "@scope/pkg"]);
        let go = extract(
            "a.go",
            b"import (\n\t\"fmt\"\n\t\"github.com/spf13/cobra\"\n)",
        );
        assert_eq!(go.imports, ["cobra"]);
    }

    #[test]
    fn docs_and_headings() {
        assert_eq!(
            extract("a.rs", b"//! The Pin index.\nfn x() {}").doc,
            "//! The Pin index.\n"
        );
        assert_eq!(
            extract("README.md", b"# Title\ntext\n## Usage\n").doc,
            "# Title\n## Usage\n"
        );
        assert_eq!(
            extract("a.rs", &[0xff, 0xfe, b'f', b'n']),
            FileFacts::default()
        );
    }
}
