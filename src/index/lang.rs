//! Per-language patterns for definitions (kind, name, the line they are on) and imports.
//!
//! Owns the regexes, compiled once per language on first use. Line-anchored and ASCII, one
//! pass per pattern over the file text. Does not count terms nor decide what a file is for
//! (see [`super::facts`], [`super::kind`]).

use std::sync::LazyLock;

use regex::Regex;

/// The languages told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
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
    Other,
}

impl Lang {
    /// The language of a file, from its extension.
    pub fn of(path: &str) -> Lang {
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
            _ => Lang::Other,
        }
    }

    /// Whether `#` starts a comment in this language (not a preprocessor line or attribute).
    pub fn hash_comments(self) -> bool {
        matches!(
            self,
            Lang::Python | Lang::Ruby | Lang::Shell | Lang::Elixir | Lang::Other
        )
    }
}

/// A definition pattern: the regex (groups `n` = name, optional `k` = kind keyword) and the kind
/// to report when the regex has no `k` group.
pub struct DefPattern {
    pub re: Regex,
    pub kind: &'static str,
}

fn def(pattern: &str, kind: &'static str) -> DefPattern {
    DefPattern {
        re: Regex::new(&format!("(?mR){pattern}")).expect("valid definition regex"),
        kind,
    }
}

static RUST: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![
        def(
            r#"^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?(?:(?:default|async|const|unsafe|extern(?:[ \t]+"[^"\n]*")?)[ \t]+)*(?P<k>fn|struct|enum|trait|type|union|mod|const|static|macro_rules!)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)"#,
            "",
        ),
        def(
            r"^[ \t]*(?:unsafe[ \t]+)?impl(?:[ \t]*<[^\n{]*?>)?[ \t]+(?:[^\n{]*?[ \t]+for[ \t]+)?(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
            "impl",
        ),
    ]
});

static PYTHON: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![
        def(
            r"^[ \t]*(?:async[ \t]+)?(?P<k>def|class)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
            "",
        ),
        def(r"^(?P<n>[A-Z][A-Z0-9_]{2,})[ \t]*(?::[^=\n]*)?=", "const"),
    ]
});

static JS: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![
        def(
            r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?(?P<k>function|class|interface|type|enum|namespace)\*?[ \t]+(?P<n>[A-Za-z_$][A-Za-z0-9_$]*)",
            "",
        ),
        def(
            r"^(?:export[ \t]+)?(?:declare[ \t]+)?(?P<k>const|let|var)[ \t]+(?P<n>[A-Za-z_$][A-Za-z0-9_$]*)",
            "",
        ),
        def(
            r"^[ \t]+(?:(?:public|private|protected|static|readonly|async|override|get|set)[ \t]+)*(?P<n>[A-Za-z_$#][A-Za-z0-9_$]*)[ \t]*(?:<[^>\n]*>)?\([^)\n]*\)[ \t]*(?::[^{\n]*)?\{[ \t]*$",
            "method",
        ),
    ]
});

static GO: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![
        def(
            r"^func[ \t]*(?:\([^)\n]*\)[ \t]*)?(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
            "func",
        ),
        def(r"^type[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)", "type"),
        def(r"^(?P<k>var|const)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)", ""),
    ]
});

static JVM: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![
        def(
            r"^[ \t]*(?:(?:public|private|protected|internal|static|final|abstract|sealed|data|open|override|inline|suspend|partial|case)[ \t]+)*(?P<k>class|interface|enum|record|object|trait|fun|def|struct)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
            "",
        ),
        def(
            r"^[ \t]+(?:(?:public|private|protected|static|final|abstract|synchronized|override|virtual|async|internal)[ \t]+)+[A-Za-z0-9_<>\[\],.? ]+?[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)[ \t]*\(",
            "method",
        ),
    ]
});

static C: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![
        def(
            r"^(?:typedef[ \t]+)?(?P<k>struct|enum|union|class|namespace)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
            "",
        ),
        def(
            r"^(?:(?:static|inline|extern|const|unsigned|signed)[ \t]+)*[A-Za-z_][A-Za-z0-9_:<>]*[ \t\*&]+\**(?P<n>[A-Za-z_][A-Za-z0-9_:~]*)[ \t]*\([^;\n]*$",
            "function",
        ),
        def(
            r"^#[ \t]*define[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
            "macro",
        ),
    ]
});

static RUBY: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![def(
        r"^[ \t]*(?P<k>def|class|module)[ \t]+(?:self\.)?(?P<n>[A-Za-z_][A-Za-z0-9_:]*[?!]?)",
        "",
    )]
});

static PHP: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![def(
        r"^[ \t]*(?:(?:public|private|protected|static|abstract|final)[ \t]+)*(?P<k>function|class|interface|trait|enum)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
        "",
    )]
});

static SHELL: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![
        def(
            r"^[ \t]*function[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_-]*)",
            "function",
        ),
        def(
            r"^[ \t]*(?P<n>[A-Za-z_][A-Za-z0-9_-]*)[ \t]*\(\)",
            "function",
        ),
    ]
});

static SWIFT: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![def(
        r"^[ \t]*(?:(?:public|private|internal|open|fileprivate|static|final|override|@[A-Za-z]+)[ \t]+)*(?P<k>func|class|struct|enum|protocol|extension)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
        "",
    )]
});

static LUA: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![def(
        r"^[ \t]*(?:local[ \t]+)?function[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_.:]*)",
        "function",
    )]
});

static ELIXIR: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![def(
        r"^[ \t]*(?P<k>defmodule|defp|defmacro|def)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_.]*[?!]?)",
        "",
    )]
});

static OTHER: LazyLock<Vec<DefPattern>> = LazyLock::new(|| {
    vec![def(
        r"^[ \t]*(?:pub[ \t]+|export[ \t]+)?(?P<k>def|class|struct|fn|func|function|interface|type|enum|trait|module)[ \t]+(?P<n>[A-Za-z_][A-Za-z0-9_]*)",
        "",
    )]
});

/// The definition patterns of a language.
pub fn defs(lang: Lang) -> &'static [DefPattern] {
    match lang {
        Lang::Rust => &RUST,
        Lang::Python => &PYTHON,
        Lang::Js => &JS,
        Lang::Go => &GO,
        Lang::Jvm => &JVM,
        Lang::C => &C,
        Lang::Ruby => &RUBY,
        Lang::Php => &PHP,
        Lang::Shell => &SHELL,
        Lang::Swift => &SWIFT,
        Lang::Lua => &LUA,
        Lang::Elixir => &ELIXIR,
        Lang::Other => &OTHER,
    }
}

/// Names a method pattern may catch that are control flow, not definitions.
pub const NOT_NAMES: &[&str] = &[
    "if", "for", "while", "switch", "catch", "return", "function", "else", "do", "try", "with",
    "new", "await", "typeof", "sizeof", "elif", "foreach", "using", "lock", "fixed",
];

/// Imports: group `m` is the module as written.
static IMPORTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?mR)^[ \t]*(?:pub[ \t]+)?(?:use|mod)[ \t]+(?P<m>[A-Za-z_][A-Za-z0-9_:]*)|^[ \t]*(?:from[ \t]+(?P<p>[A-Za-z_.][A-Za-z0-9_.]*)[ \t]+import|import[ \t]+(?P<q>[A-Za-z_][A-Za-z0-9_.]*))|(?:(?-u:\b)from|(?-u:\b)require\(|(?-u:\b)import\(?)[ \t]*['"](?P<j>[@A-Za-z0-9_./-]+)['"]|^[ \t]*(?:import[ \t]+)?(?:[A-Za-z_]+[ \t]+)?"(?P<g>[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+)"[ \t]*$|^#[ \t]*include[ \t]*["<](?P<c>[A-Za-z0-9_./-]+)[">]"#,
    )
    .expect("valid import regex")
});

/// Call `f` with each module `text` imports, as written.
pub fn for_each_import(text: &str, mut f: impl FnMut(&str)) {
    for c in IMPORTS.captures_iter(text) {
        if let Some(m) = ["m", "p", "q", "j", "g", "c"]
            .iter()
            .find_map(|g| c.name(g))
        {
            f(m.as_str());
        }
    }
}
