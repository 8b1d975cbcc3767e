//! Keywords: identifiers from definitions, and choosing each module's most distinctive terms.
//!
//! Owns [`extract`] (one pass of one regex per language over a file's bytes: the names it defines
//! and the libraries it imports) and [`rank`] (TF-IDF across modules over definition words, file
//! and folder names, library names and doc headings). Pure: no I/O. Does not own which files form
//! a module (see [`super::discover`]).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::bytes::Regex;

use super::text::{FastMap as HashMap, FastSet, is_stop, split_words, stem};

/// Keywords per generated entry.
pub const MAX_KEYWORDS: usize = 20;

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

/// Words too common in code to tell modules apart.
const NOISE: &[&str] = &[
    "always",
    "anything",
    "arc",
    "arg",
    "args",
    "bool",
    "box",
    "byte",
    "bytes",
    "char",
    "class",
    "clone",
    "const",
    "crate",
    "ctx",
    "data",
    "debug",
    "def",
    "default",
    "display",
    "doe",
    "done",
    "enum",
    "eq",
    "err",
    "error",
    "everything",
    "false",
    "fmt",
    "fn",
    "foo",
    "from",
    "func",
    "function",
    "get",
    "gets",
    "give",
    "given",
    "gives",
    "hash",
    "impl",
    "init",
    "inner",
    "int",
    "into",
    "item",
    "keep",
    "kept",
    "lands",
    "len",
    "less",
    "lib",
    "made",
    "main",
    "make",
    "many",
    "mean",
    "means",
    "mod",
    "much",
    "mut",
    "need",
    "needs",
    "never",
    "new",
    "none",
    "nothing",
    "obj",
    "ok",
    "opt",
    "option",
    "own",
    "owns",
    "per",
    "ptr",
    "pub",
    "put",
    "ref",
    "res",
    "result",
    "ret",
    "see",
    "self",
    "set",
    "some",
    "something",
    "src",
    "still",
    "str",
    "string",
    "struct",
    "super",
    "take",
    "takes",
    "test",
    "tests",
    "thing",
    "things",
    "tmp",
    "trait",
    "true",
    "type",
    "use",
    "used",
    "uses",
    "using",
    "val",
    "value",
    "var",
    "vec",
    "void",
    "way",
    "ways",
    "well",
    "whether",
    "work",
    "works",
];

static NOISE_SET: LazyLock<FastSet<&'static str>> =
    LazyLock::new(|| NOISE.iter().copied().collect());

fn is_noise(w: &str) -> bool {
    w.len() < 3
        || w.len() > 30
        || w.chars().all(|c| c.is_numeric())
        || is_stop(w)
        || NOISE_SET.contains(w)
}

/// The raw material of one module, before ranking.
#[derive(Debug, Clone, Default)]
pub struct ModuleText {
    /// Defined identifiers (each occurrence counts).
    pub defs: Vec<String>,
    /// File paths of the module (their file and folder names count).
    pub paths: Vec<String>,
    /// Libraries the module uses.
    pub deps: Vec<String>,
    /// Doc text: headings and module doc comments.
    pub doc: String,
}

#[derive(Default)]
struct Term {
    weight: f64,
    surface: BTreeMap<String, u32>,
}

/// Count `word` `n` times with `weight` each.
fn add(terms: &mut HashMap<String, Term>, word: &str, weight: f64, n: u32) {
    let key = if word.contains(['_', '-', '@', '/', '.']) {
        word.to_string()
    } else {
        stem(word)
    };
    let t = terms.entry(key).or_default();
    t.weight += weight * f64::from(n);
    *t.surface.entry(word.to_string()).or_default() += n;
}

/// Split each distinct text once and count its words `weight` times per occurrence.
fn add_split<'a>(
    terms: &mut HashMap<String, Term>,
    texts: impl Iterator<Item = &'a str>,
    weight: f64,
) {
    let mut counts: HashMap<&str, u32> = HashMap::default();
    for t in texts {
        *counts.entry(t).or_default() += 1;
    }
    let mut words: HashMap<String, u32> = HashMap::default();
    for (t, n) in counts {
        for w in split_words(t) {
            *words.entry(w).or_default() += n;
        }
    }
    for (w, n) in words {
        if !is_noise(&w) {
            add(terms, &w, weight, n);
        }
    }
}

fn module_terms(m: &ModuleText) -> HashMap<String, Term> {
    let mut terms = HashMap::default();
    add_split(&mut terms, m.defs.iter().map(String::as_str), 1.0);
    let mut folders = std::collections::BTreeSet::new();
    for p in &m.paths {
        let (dir, file) = p.rsplit_once('/').unwrap_or(("", p));
        let stem_part = file.split('.').next().unwrap_or(file);
        for w in split_words(stem_part) {
            if !is_noise(&w) {
                add(&mut terms, &w, 3.0, 1);
            }
        }
        folders.insert(dir.to_string());
    }
    let mut folder_words = std::collections::BTreeSet::new();
    for d in folders {
        for w in split_words(&d) {
            folder_words.insert(w);
        }
    }
    for w in folder_words {
        if !is_noise(&w) {
            add(&mut terms, &w, 3.0, 1);
        }
    }
    for d in &m.deps {
        add(&mut terms, &d.to_lowercase(), 4.0, 1);
    }
    add_split(&mut terms, m.doc.split_whitespace(), 0.5);
    terms
}

/// [`module_terms`] of every module, spread over the available cores.
fn terms_in_parallel(modules: &[ModuleText]) -> Vec<HashMap<String, Term>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let chunk = modules.len().div_ceil(workers).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = modules
            .chunks(chunk)
            .map(|c| {
                (
                    c.len(),
                    s.spawn(|| c.iter().map(module_terms).collect::<Vec<_>>()),
                )
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(len, h)| match h.join() {
                Ok(v) => v,
                // module_terms does not panic; were it to, its modules just get no keywords.
                Err(_) => (0..len).map(|_| HashMap::default()).collect(),
            })
            .collect()
    })
}

/// The keywords of each module: its terms ranked by TF-IDF across all modules (`(1 + ln tf) ·
/// (1 + ln((N + 1) / (df + 1)))`), at most [`MAX_KEYWORDS`], best first, ties by term.
pub fn rank(modules: &[ModuleText]) -> Vec<Vec<String>> {
    let per = terms_in_parallel(modules);
    let mut df: HashMap<&str, usize> = HashMap::default();
    for m in &per {
        for k in m.keys() {
            *df.entry(k.as_str()).or_default() += 1;
        }
    }
    let n = per.len() as f64;
    per.iter()
        .map(|terms| {
            let mut scored: Vec<(f64, String)> = terms
                .iter()
                .map(|(k, t)| {
                    let idf = 1.0 + ((n + 1.0) / (df[k.as_str()] as f64 + 1.0)).ln();
                    let score = (1.0 + t.weight.ln()) * idf;
                    // The most frequent way it was written (ties: shortest, then alphabetical).
                    let surface = t
                        .surface
                        .iter()
                        .max_by(|a, b| {
                            a.1.cmp(b.1)
                                .then(b.0.len().cmp(&a.0.len()))
                                .then(b.0.cmp(a.0))
                        })
                        .map(|(s, _)| s.clone())
                        .unwrap_or_else(|| k.clone());
                    (score, surface)
                })
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut out: Vec<String> = Vec::new();
            for (_, s) in scored {
                if !out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
                    out.push(s);
                }
                if out.len() == MAX_KEYWORDS {
                    break;
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_list_is_sorted() {
        let mut s = NOISE.to_vec();
        s.sort_unstable();
        assert_eq!(s, NOISE);
    }

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

    #[test]
    fn ranks_distinctive_terms_first() {
        let m = |defs: &[&str], paths: &[&str], deps: &[&str]| ModuleText {
            defs: defs.iter().map(|s| s.to_string()).collect(),
            paths: paths.iter().map(|s| s.to_string()).collect(),
            deps: deps.iter().map(|s| s.to_string()).collect(),
            doc: String::new(),
        };
        let ranked = rank(&[
            m(
                &["parse_config", "ConfigError", "load_config", "shared_util"],
                &["src/config/load.rs"],
                &["toml"],
            ),
            m(
                &["render_graph", "GraphNode", "shared_util"],
                &["src/graph/render.rs"],
                &[],
            ),
        ]);
        assert_eq!(ranked[0][0], "config");
        assert!(ranked[0].contains(&"toml".to_string()));
        assert!(!ranked[0].contains(&"self".to_string()));
        let share = ranked[0].iter().position(|k| k == "shared").unwrap();
        let load = ranked[0].iter().position(|k| k == "load").unwrap();
        assert!(load < share, "{:?}", ranked[0]);
        assert_eq!(ranked[1][0], "graph");
    }
}
