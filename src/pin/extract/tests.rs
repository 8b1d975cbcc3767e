//! Tests of fact extraction: definitions, imports, links, headings, which docs describe code.

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
    let ts = extract(
        "a.ts",
        b"import x from 'react';\nconst y = require(\"@scope/pkg/sub\");\nimport z from './local';",
    );
    assert_eq!(ts.imports, ["react", "@scope/pkg"]);
    let go = extract(
        "a.go",
        b"import (\n\t\"fmt\"\n\t\"github.com/spf13/cobra\"\n)",
    );
    assert_eq!(go.imports, ["cobra"]);
}

#[test]
fn extracts_links_to_sibling_modules() {
    let rs = extract(
            "src/a.rs",
            b"mod render;\nmod tests {}\nuse crate::style::Color;\nuse super::{text, span::Span,\n  self};\nuse std::io;\nuse crate :: x;",
        );
    assert_eq!(rs.links, ["render", "style", "text", "span"]);
    assert!(!rs.defs.contains(&"render".to_string()), "{:?}", rs.defs);
    let py = extract(
            "rich/a.py",
            b"from .console import Console\nfrom . import box, _loop as loop\nfrom ..x import y\nfrom .._z import w\n  from ._ratio import ratio\nimport os\n",
        );
    assert_eq!(py.links, ["console", "box", "_loop", "_ratio"]);
    assert_eq!(py.imports, ["os"]);
    let ts = extract(
            "src/a.ts",
            b"import { x } from './router';\nimport y from './utils/url.js';\nimport z from '../up';\nimport w from 'hono';",
        );
    assert_eq!(ts.links, ["router", "utils"]);
    assert_eq!(ts.imports, ["hono"]);
}

/// The hand scanner finds exactly the regex's matches.
fn same_as_regex(text: &[u8]) {
    let want: Vec<&[u8]> = PATTERNS[0].find_iter(text).map(|m| m.as_bytes()).collect();
    let mut got: Vec<Vec<u8>> = Vec::new();
    rust_matches(text, |s, e| got.push(text[s..e].to_vec()));
    assert_eq!(got, want, "{:?}", String::from_utf8_lossy(text));
}

#[test]
fn rust_scanner_matches_the_regex_on_edge_cases() {
    for text in [
        "fn fn x",
        "unsafe_fn x; fn\ty; fn(x); fn  _z9",
        "use ::std::io; use self::a; pub use crate::b; reuse x; use\t::\n",
        "extern crate foo; extern  crate\t::bar; extern \"C\" fn f(); extern cratex y",
        "macro_rules! m {} macro_rules!x macro_rules ! y; xmacro_rules! z",
        "//! doc\r\nfn a//! tail\n///! not\n//!",
        "type T = u8; typex y; struct S; enum E; trait Tr; union U; é fn ü",
        "mod a; pub mod b {} modx y; mod\tz; mod",
        "fn",
        "",
    ] {
        same_as_regex(text.as_bytes());
    }
    same_as_regex(&[
        0xff, b'f', b'n', b' ', b'a', 0xfe, b'u', b's', b'e', b' ', b'b',
    ]);
}

#[test]
fn tab_free_searcher_finds_the_same_starts() {
    let (Some(all), Some(no_tab)) = (RUST_STARTS.as_ref(), RUST_STARTS_NO_TAB.as_ref()) else {
        panic!("searchers build");
    };
    let text = "//! doc\nuse a; fn b() {} struct C; enum D {} trait E {} type F = u8;\n\
                    union G {} macro_rules! h {} extern crate i; fnx usey";
    let starts = |ac: &AhoCorasick| -> Vec<(usize, usize)> {
        ac.find_iter(text).map(|m| (m.start(), m.end())).collect()
    };
    assert_eq!(starts(no_tab), starts(all));
    assert_eq!(starts(all).len(), 10);
    assert_eq!(
        last_ident(b"fn parse_entry"),
        Some("parse_entry".to_string())
    );
    assert_eq!(last_ident(b" \xff "), None);
}

proptest::proptest! {
    #[test]
    fn rust_scanner_matches_the_regex(
        text in "((fn|use|mod|extern|crate|macro_rules|type|//!|[ \t:!/_]|[a-z0-9]{1,3}|\n|é){0,12})"
    ) {
        same_as_regex(text.as_bytes());
    }
}

#[test]
fn only_docs_about_the_code_give_keywords() {
    for yes in [
        "README.md",
        "docs/usage.md",
        "src/pin/README.md",
        "docs/introduction.md",
        "news_feed/design.md",
        "docs/id_tokens.md",
    ] {
        assert!(describes_code(yes), "{yes}");
    }
    for no in [
        "CHANGELOG.md",
        "changes.md",
        "HISTORY.md",
        "NEWS.md",
        "docs/RELEASES.md",
        "RELEASE_NOTES.md",
        "LICENSE.md",
        "CODE_OF_CONDUCT.md",
        "README.zh-CN.md",
        "README.ja.md",
        "README_zh.md",
        "README-pt_BR.md",
        "docs/zh-cn/index.md",
        "docs/ja/intro.md",
    ] {
        assert!(!describes_code(no), "{no}");
    }
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
            extract(
                "README.md",
                b"# Title\n```sh\n# install it\n```\n~~~\n# not\n```\n# still not\n~~~\n#nope\n## End  \n"
            )
            .doc,
            "# Title\n## End\n"
        );
    assert_eq!(
        extract("a.rs", &[0xff, 0xfe, b'f', b'n']),
        FileFacts::default()
    );
}

#[test]
fn a_python_script_says_what_it_is_in_its_docstring_and_comments() {
    let src = b"#!/usr/bin/env python3\n\"\"\"Generate a large valid prd.json\nfor benchmarks.\"\"\"\n# Each story is blocked by earlier ones.\nimport json\nx = 1  # not a doc\n";
    let f = extract("scripts/gen.py", src);
    assert!(
        f.doc.contains("Generate a large valid prd.json"),
        "{:?}",
        f.doc
    );
    assert!(f.doc.contains("for benchmarks."), "{:?}", f.doc);
    assert!(f.doc.contains("# Each story is blocked"), "{:?}", f.doc);
    assert!(
        !f.doc.contains("not a doc") && !f.doc.contains("python3"),
        "{:?}",
        f.doc
    );
    assert_eq!(f.imports, ["json"]);
}
