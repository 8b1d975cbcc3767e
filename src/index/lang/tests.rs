//! The extractor on each language's definition shapes, imports, links and docs.

use super::*;

fn defs<'a>(path: &str, text: &'a str) -> Vec<(&'a str, String, u32)> {
    extract(Lang::of(path), text)
        .defs
        .iter()
        .map(|d| (d.kind, d.name.to_string(), d.line))
        .collect()
}

fn names(path: &str, text: &str) -> Vec<String> {
    defs(path, text).into_iter().map(|d| d.1).collect()
}

#[test]
fn rust_definitions_modifiers_and_impls() {
    let src = "//! Tables: rendering rows.\nuse std::fmt;\nmod cell;\n\npub struct Table {\n}\n\nimpl fmt::Display for Table {\n    pub(crate) fn render_table(&self, width: usize) -> String {\n        todo!()\n    }\n}\nconst MAX: usize = 3;\npub(in crate::x) const unsafe fn f() {}\nextern \"C\" fn g() {}\nmacro_rules! make {}\nimpl<T: Into<Vec<u8>>> Tr<T> for Wrap<T> {}\nunsafe impl Send for Cell {}\nimpl Plain {}\nlet fnx = 1;\nstatic NAME: &str = \"\";\n";
    assert_eq!(
        defs("src/table.rs", src),
        [
            ("mod", "cell".into(), 3),
            ("struct", "Table".into(), 5),
            ("impl", "Table".into(), 8),
            ("fn", "render_table".into(), 9),
            ("const", "MAX".into(), 13),
            ("fn", "f".into(), 14),
            ("fn", "g".into(), 15),
            ("macro_rules", "make".into(), 16),
            ("impl", "Wrap".into(), 17),
            ("impl", "Cell".into(), 18),
            ("impl", "Plain".into(), 19),
            ("static", "NAME".into(), 21),
        ]
    );
    let x = extract(Lang::Rust, src);
    let line = src.lines().nth(x.defs[3].line as usize - 1).unwrap();
    assert_eq!(
        signature(line),
        "pub(crate) fn render_table(&self, width: usize) -> String"
    );
    assert!(x.defs.iter().all(|d| !d.exported));
    assert_eq!(x.module_doc, ["Tables: rendering rows."]);
    assert_eq!(x.imports, ["std::fmt"]);
    assert_eq!(x.links, ["cell"]);
}

#[test]
fn python_go_typescript_and_jvm_definitions() {
    let py = "\"\"\"Split cells.\"\"\"\nimport re\nfrom .cells import cell_len\n\nclass Segment:\n    async def split_cells(self, cut):\n        pass\nMAX_WIDTH = 3\nDEFAULT: int = 4\nX == 3\nLOWx = 1\n";
    assert_eq!(
        defs("rich/segment.py", py),
        [
            ("class", "Segment".into(), 5),
            ("def", "split_cells".into(), 6),
            ("const", "MAX_WIDTH".into(), 8),
            ("const", "DEFAULT".into(), 9),
        ]
    );
    let go = "package algo\nfunc (t *Terminal) printHeader(x int) {\n}\ntype Result struct {\n}\nfunc New() {}\nvar cache = 1\nfuncName()\n\tfunc inner() {}\n";
    assert_eq!(
        defs("src/algo/algo.go", go),
        [
            ("func", "printHeader".into(), 2),
            ("type", "Result".into(), 4),
            ("func", "New".into(), 6),
            ("var", "cache".into(), 7),
        ]
    );
    let ts = "import { Hono } from '../../hono'\nexport const cors = (o?: O) => {\n}\nexport default abstract class Router {\n  add(method: string): void {\n    if (x) {\n    }\n  }\n  static async #run<T>(a: T) {\n  set (v) {\n}\nexport function* gen() {}\ntype Id = string\nlet local = 1\n  const inner = 2\n}\n}\n";
    assert_eq!(
        defs("src/a.ts", ts),
        [
            ("const", "cors".into(), 2),
            ("class", "Router".into(), 4),
            ("method", "add".into(), 5),
            ("method", "#run".into(), 9),
            ("method", "set".into(), 10),
            ("function", "gen".into(), 12),
            ("type", "Id".into(), 13),
            ("let", "local".into(), 14),
        ]
    );
    let java = "public class App {\n    public static void runLoop(String a) {}\n    private Map<String, List<X>> build(int n) {\n    public App(int x) {\n    return foo(x);\n}\n}\n}\n";
    assert_eq!(names("A.java", java), ["App", "runLoop", "build"]);
    assert_eq!(
        names("a.kt", "data class User(val n: String)\nfun greetUser() {}"),
        ["User", "greetUser"]
    );
}

#[test]
fn other_languages_definitions() {
    let c = "#include <stdio.h>\nstatic int *make_x(void) {\nunsigned count(int a)\ntypedef struct node {\nint decl(int);\n#define MAX 3\nelse if (x) {\n  int indented(void) {\n}\n}\n}\n}\n";
    assert_eq!(names("a.c", c), ["make_x", "count", "node", "MAX"]);
    assert_eq!(
        names(
            "a.sh",
            "setup_env() {\n}\nfunction run-tests {\n}\n# not() a def"
        ),
        ["setup_env", "run-tests"]
    );
    assert_eq!(
        names("a.rb", "class Widget\n  def self.render_all?\n  end\nend"),
        ["Widget", "render_all?"]
    );
    assert_eq!(
        names(
            "a.php",
            "abstract class Base {\n  public static function make() {}\n}"
        ),
        ["Base", "make"]
    );
    assert_eq!(
        names(
            "a.swift",
            "@objc public final class View {\n  override func draw() {}\n}"
        ),
        ["View", "draw"]
    );
    assert_eq!(
        names("a.lua", "local function M.setup(opts)\nfunction x:y() end"),
        ["M.setup", "x:y"]
    );
    assert_eq!(
        names("a.ex", "defmodule App.Web do\n  defp valid?(x), do: x\nend"),
        ["App.Web", "valid?"]
    );
    assert_eq!(names("a.zig", "pub fn main() void {}"), ["main"]);
}

#[test]
fn imports_and_links_per_language() {
    let rs = extract(
        Lang::Rust,
        "use serde_json::Value;\npub use crate::x;\nextern crate regex;\nmod render;\nmod tests {}\nuse crate::style::Color;\nuse super::{text, span::Span,\n  self};\nuse std::io;\nuse crate :: x;\npub(crate) use self::inner::y;",
    );
    assert_eq!(
        rs.imports,
        [
            "serde_json::Value",
            "crate::x",
            "regex",
            "crate::style::Color",
            "super::",
            "std::io",
            "crate",
            "self::inner::y"
        ]
    );
    assert_eq!(rs.links, ["x", "render", "style", "text", "span", "inner"]);
    let py = extract(
        Lang::Python,
        "from .console import Console\nfrom . import box, _loop as loop\nfrom ..x import y\nfrom .._z import w\n  from ._ratio import ratio\nimport os.path\nfrom flask import Flask\n",
    );
    assert_eq!(py.links, ["console", "box", "_loop", "_ratio"]);
    assert_eq!(
        py.imports,
        [
            ".console", ".", "..x", ".._z", "._ratio", "os.path", "flask"
        ]
    );
    let ts = extract(
        Lang::Js,
        "import { x } from './router';\nimport y from './utils/url.js';\nimport z from '../up';\nimport w from 'hono'; const r = require(\"@scope/pkg/sub\");\nimport 'side';\nArray.from('abc')\nconst v = await import('./lazy')",
    );
    assert_eq!(ts.links, ["router", "utils", "lazy"]);
    assert_eq!(
        ts.imports,
        [
            "./router",
            "./utils/url.js",
            "../up",
            "hono",
            "@scope/pkg/sub",
            "side",
            "./lazy"
        ]
    );
    let go = extract(
        Lang::Go,
        "import (\n\t\"fmt\"\n\tcobra \"github.com/spf13/cobra\"\n)\nimport \"os\"\nimport x \"a.b/c\"\n",
    );
    assert_eq!(go.imports, ["fmt", "github.com/spf13/cobra", "os", "a.b/c"]);
    let c = extract(Lang::C, "#include <sys/stat.h>\n# include \"local.h\"\n");
    assert_eq!(c.imports, ["sys/stat.h", "local.h"]);
    let java = extract(Lang::Jvm, "import java.util.List;\nimport a.b.*;\n");
    assert_eq!(java.imports, ["java.util.List", "a.b."]);
}

#[test]
fn libraries_as_the_pin_names_them() {
    for (lang, written, want) in [
        (Lang::Rust, "serde_json::Value", Some("serde_json")),
        (Lang::Python, "os.path", Some("os")),
        (Lang::Python, ".cells", None),
        (Lang::Js, "react", Some("react")),
        (Lang::Js, "@scope/pkg/sub", Some("@scope/pkg")),
        (Lang::Js, "./local", None),
        (Lang::Go, "github.com/spf13/cobra", Some("cobra")),
        (Lang::Go, "fmt", None),
        (Lang::C, "stdio.h", None),
    ] {
        assert_eq!(library(lang, written), want, "{written}");
    }
}

#[test]
fn comments_docstrings_and_module_docs() {
    let py = "\"\"\"Split cells\nof a segment.\"\"\"\n# a comment\nx = 1  # trailing is code\n";
    assert_eq!(
        extract(Lang::Python, py).comments,
        ["Split cells", "of a segment.", "a comment"]
    );
    let sh = "#!/bin/sh\n# Build the site.\n  # indented\necho hi\n";
    let x = extract(Lang::Shell, sh);
    assert_eq!(x.module_doc, ["Build the site."]);
    assert_eq!(x.comments, ["Build the site.", "indented"]);
    let md = "# Title\n```sh\n# not a heading\n```\n## Part two\n#nope\n";
    let x = extract(Lang::Markdown, md);
    assert_eq!(x.module_doc, ["# Title", "## Part two"]);
    assert!(x.defs.is_empty() && x.comments.is_empty());
}

#[test]
fn odd_input_never_fails_and_limits_hold() {
    for text in [
        "",
        "\n\r\n",
        "impl<",
        "impl<T {",
        "pub(",
        "extern \"C",
        "func (",
        "fn",
        "use crate::{a, {b",
        "from . import",
        "import (\n\"unterminated",
        "é fn ü\nclass 名前:\n    def 関数(self):",
    ] {
        for lang in [
            Lang::Rust,
            Lang::Python,
            Lang::Js,
            Lang::Go,
            Lang::Jvm,
            Lang::C,
        ] {
            let _ = extract(lang, text);
        }
    }
    let many: String = (0..MAX_DEFS + 50)
        .map(|i| format!("fn f{i}() {{}}\n"))
        .collect();
    assert_eq!(extract(Lang::Rust, &many).defs.len(), MAX_DEFS);
}

#[test]
fn a_python_script_says_what_it_is_in_its_docstring_and_comments() {
    let src = "#!/usr/bin/env python3\n\"\"\"Generate a large valid prd.json\nfor benchmarks.\"\"\"\n# Each story is blocked by earlier ones.\nimport json\nx = 1  # not a doc\ndef f():\n    \"\"\"Inner, not the module's.\"\"\"\n";
    let x = extract(Lang::Python, src);
    assert_eq!(
        x.module_doc,
        [
            "Generate a large valid prd.json",
            "for benchmarks.",
            "Each story is blocked by earlier ones."
        ]
    );
    assert_eq!(x.imports, ["json"]);
    let single = extract(
        Lang::Python,
        "'''One line.'''\n\"\"\"\nOpened alone.\n\"\"\"\n",
    );
    assert_eq!(single.module_doc, ["One line.", "Opened alone."]);
}

#[test]
fn comment_markers_and_closings_are_not_the_comment() {
    fn c(t: &str) -> Option<&str> {
        comment_text(t, Lang::C)
    }
    assert_eq!(c("/* a block */"), Some("a block"));
    assert_eq!(c("/** doc */*/"), Some("doc"));
    assert_eq!(c("* middle of a block"), Some("middle of a block"));
    assert_eq!(c("*"), Some(""));
    assert_eq!(c("// x\u{a0}"), Some("x"));
    assert_eq!(c("int x; /* after code */"), None);
    assert_eq!(
        comment_text("## heading-like", Lang::Python),
        Some("heading-like")
    );
    assert_eq!(comment_text("#!/bin/sh", Lang::Shell), None);
}
