//! What the extractor finds, and in which language: [`Lang`], [`Def`], [`Extract`] and their
//! limits. A leaf: the extractor ([`super`]) and its line matchers ([`super::defs`],
//! [`super::imports`]) all read these types; it imports none of them.

/// The languages told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Rust,
    Python,
    Js,
    Go,
    Jvm,
    C,
    Ruby,
    Php,
    Shell,
    Swift,
    Lua,
    Elixir,
    Markdown,
    Other,
}

impl Lang {
    /// The language of a file, from its extension.
    pub(crate) fn of(path: &str) -> Lang {
        let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
        match ext {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "vue" | "svelte" => {
                Lang::Js
            }
            "go" => Lang::Go,
            "java" | "kt" | "kts" | "scala" | "groovy" | "cs" | "dart" => Lang::Jvm,
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "m" | "mm" => Lang::C,
            "rb" => Lang::Ruby,
            "php" => Lang::Php,
            "sh" | "bash" | "zsh" => Lang::Shell,
            "swift" => Lang::Swift,
            "lua" => Lang::Lua,
            "ex" | "exs" => Lang::Elixir,
            "md" | "markdown" => Lang::Markdown,
            _ => Lang::Other,
        }
    }

    /// Whether `#` starts a comment in this language (not a preprocessor line or attribute).
    pub(super) fn hash_comments(self) -> bool {
        matches!(
            self,
            Lang::Python | Lang::Ruby | Lang::Shell | Lang::Elixir | Lang::Other
        )
    }

    /// Whether the Pin reads this language's imports (for the others, a module's libraries are
    /// all of its package's).
    pub(crate) fn imports_read(self) -> bool {
        matches!(self, Lang::Rust | Lang::Python | Lang::Js | Lang::Go)
    }
}

/// One definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Def<'a> {
    /// The keyword that introduced it (`fn`, `class`, `def`…) or what it is (`impl`, `method`).
    pub kind: &'a str,
    pub name: &'a str,
    /// 1-based.
    pub line: u32,
    /// Its line starts with `export` (a JS/TS module's API). Its signature is not kept: it is
    /// its line's ([`super::signature`]).
    pub exported: bool,
}

/// The most module doc lines kept (see [`Extract::module_doc`]).
pub(super) const MAX_MODULE_DOC: usize = 20;
/// The most definitions kept (a generated file can define thousands).
pub(crate) const MAX_DEFS: usize = 500;
/// The most distinct imports kept.
pub(super) const MAX_IMPORTS: usize = 200;

/// What a file says, borrowed from its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Extract<'a> {
    /// In line order.
    pub defs: Vec<Def<'a>>,
    /// The modules it imports, as written, each once.
    pub imports: Vec<&'a str>,
    /// The modules of the same package it refers to by name: `x` for Rust `mod x;`,
    /// `use crate::x`, `use super::{x, y}`; Python `from .x import …`, `from . import x`; JS/TS
    /// `from './x'`. What ties the files of one folder together.
    pub links: Vec<&'a str>,
    /// Its comment lines and docstrings, markers removed.
    pub comments: Vec<&'a str>,
    /// What describes the whole file: Rust `//!` lines, shell and Python `#` lines at the start
    /// of a line, the lines of a Python docstring opened at the start of a line (the first 20
    /// in all), a markdown file's headings.
    pub module_doc: Vec<&'a str>,
}
