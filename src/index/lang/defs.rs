//! Definition lines, one matcher per language: the kind and the name a line defines, if it
//! defines one. Each matcher reads the line left to right the way its language writes a
//! definition: indentation, modifiers (`pub(crate)`, `export default`, `public static`…), the
//! keyword, the name; or the special shapes (a Go method's receiver, Rust's `impl<T> Trait for
//! Type`, a JS/TS class method, a Java method, a C function, a Python module constant).

use super::blank::Blanks;
use super::found::Lang;

/// The kind and name `line` (one line, no newline) defines in `lang`.
pub(super) fn find(lang: Lang, line: &str) -> Option<(&'static str, &str)> {
    let t = line.trim_blanks_start();
    let col0 = t.len() == line.len();
    match lang {
        Lang::Rust => rust(t),
        Lang::Python => keyed(t, &["async"], &["def", "class"], ident)
            .or_else(|| col0.then(|| python_const(t)).flatten()),
        Lang::Js => keyed(t, JS_MODS, JS_KINDS, js_ident)
            .or_else(|| col0.then(|| js_binding(t)).flatten())
            .or_else(|| (!col0).then(|| js_method(t)).flatten()),
        Lang::Go if col0 => go(t),
        Lang::Jvm => keyed(t, JVM_MODS, JVM_KINDS, ident)
            .or_else(|| (!col0).then(|| jvm_method(t)).flatten()),
        Lang::C if col0 => c(t),
        Lang::Ruby => keyed(t, &[], &["def", "class", "module"], ruby_name),
        Lang::Php => keyed(t, PHP_MODS, PHP_KINDS, ident),
        Lang::Shell => shell(t),
        Lang::Swift => keyed(swift_attributes(t)?, SWIFT_MODS, SWIFT_KINDS, ident),
        Lang::Lua => keyed(t, &["local"], &["function"], lua_name),
        Lang::Elixir => keyed(
            t,
            &[],
            &["defmodule", "defp", "defmacro", "def"],
            elixir_name,
        ),
        Lang::Other => keyed(t, &["pub", "export"], OTHER_KINDS, ident),
        Lang::Go | Lang::C | Lang::Markdown => None,
    }
}

const JS_MODS: &[&str] = &["export", "default", "declare", "abstract", "async"];
const JS_KINDS: &[&str] = &[
    "function",
    "class",
    "interface",
    "type",
    "enum",
    "namespace",
];
const JVM_MODS: &[&str] = &[
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "final",
    "abstract",
    "sealed",
    "data",
    "open",
    "override",
    "inline",
    "suspend",
    "partial",
    "case",
];
const JVM_KINDS: &[&str] = &[
    "class",
    "interface",
    "enum",
    "record",
    "object",
    "trait",
    "fun",
    "def",
    "struct",
];
const PHP_MODS: &[&str] = &[
    "public",
    "private",
    "protected",
    "static",
    "abstract",
    "final",
];
const PHP_KINDS: &[&str] = &["function", "class", "interface", "trait", "enum"];
const SWIFT_MODS: &[&str] = &[
    "public",
    "private",
    "internal",
    "open",
    "fileprivate",
    "static",
    "final",
    "override",
];
const SWIFT_KINDS: &[&str] = &["func", "class", "struct", "enum", "protocol", "extension"];
const OTHER_KINDS: &[&str] = &[
    "def",
    "class",
    "struct",
    "fn",
    "func",
    "function",
    "interface",
    "type",
    "enum",
    "trait",
    "module",
];

/// What opens a block (an impl's, a class's or a method's body).
const BLOCK: char = '{';

/// `s` after at least one blank, or `None` when it does not start with one.
fn blank1(s: &str) -> Option<&str> {
    let rest = s.trim_blanks_start();
    (rest.len() < s.len()).then_some(rest)
}

/// The leading run of bytes satisfying `f`, and the rest.
fn run(s: &str, f: impl Fn(u8) -> bool) -> (&str, &str) {
    let n = s.bytes().position(|b| !f(b)).unwrap_or(s.len());
    s.split_at(n)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// An identifier `[A-Za-z_][A-Za-z0-9_]*` at the start of `s`, and the rest.
fn ident(s: &str) -> Option<(&str, &str)> {
    let first = *s.as_bytes().first()?;
    (first.is_ascii_alphabetic() || first == b'_').then(|| run(s, is_word))
}

/// A JS identifier (`$` allowed).
fn js_ident(s: &str) -> Option<(&str, &str)> {
    let first = *s.as_bytes().first()?;
    (first.is_ascii_alphabetic() || first == b'_' || first == b'$')
        .then(|| run(s, |b| is_word(b) || b == b'$'))
}

/// A name with extra allowed characters and an optional final `?` or `!`.
fn name_with<'a>(s: &'a str, extra: &[u8], suffix: bool) -> Option<(&'a str, &'a str)> {
    ident(s)?;
    let (mut name, _) = run(s, |b| is_word(b) || extra.contains(&b));
    if suffix && matches!(s.as_bytes().get(name.len()), Some(b'?' | b'!')) {
        name = &s[..name.len() + 1];
    }
    Some((name, &s[name.len()..]))
}

fn ruby_name(s: &str) -> Option<(&str, &str)> {
    name_with(s.strip_prefix("self.").unwrap_or(s), b":", true)
}

fn lua_name(s: &str) -> Option<(&str, &str)> {
    name_with(s, b".:", false)
}

fn elixir_name(s: &str) -> Option<(&str, &str)> {
    name_with(s, b".", true)
}

/// A word (`[A-Za-z0-9_]` run, with a `!` after it for `macro_rules!`) at the start of `s`.
fn word(s: &str) -> (&str, &str) {
    let (w, rest) = run(s, is_word);
    match rest.strip_prefix('!') {
        Some(r) if w == "macro_rules" => (&s[..w.len() + 1], r),
        _ => (w, rest),
    }
}

/// `modifier* kind name`: words of `mods`, each followed by blanks, then a word of `kinds`
/// (a JS `function*` too), blanks, and the name `name` reads. A word that is both a modifier
/// and a kind (Rust's `const`) is a modifier when another modifier or kind follows it.
fn keyed<'a>(
    t: &'a str,
    mods: &[&str],
    kinds: &[&'static str],
    name: fn(&'a str) -> Option<(&'a str, &'a str)>,
) -> Option<(&'static str, &'a str)> {
    let mut s = t;
    loop {
        let (w, rest) = word(s);
        let is_mod = mods.contains(&w);
        if let Some(kind) = kinds.iter().find(|k| **k == w) {
            let next = blank1(rest).map(|r| word(r).0);
            let modifier = is_mod && next.is_some_and(|n| mods.contains(&n) || kinds.contains(&n));
            if !modifier {
                let rest = rest.strip_prefix('*').unwrap_or(rest);
                return name(blank1(rest)?).map(|(n, _)| (*kind, n));
            }
        } else if !is_mod {
            return None;
        }
        s = blank1(rest)?;
    }
}

/// Rust: `pub(crate) const unsafe fn x`, `pub struct S`, `extern "C" fn f`, `macro_rules! m`,
/// `impl<T> Tr for S`.
fn rust(t: &str) -> Option<(&'static str, &str)> {
    const MODS: &[&str] = &["default", "async", "const", "unsafe", "extern"];
    const KINDS: &[&str] = &[
        "fn",
        "struct",
        "enum",
        "trait",
        "type",
        "union",
        "mod",
        "const",
        "static",
        "macro_rules!",
    ];
    if let Some(name) = rust_impl(t) {
        return Some(("impl", name));
    }
    let mut s = t;
    if let Some(rest) = s.strip_prefix("pub") {
        let rest = match rest.strip_prefix('(') {
            Some(r) => &r[r.find(')')? + 1..],
            None => rest,
        };
        if let Some(r) = blank1(rest) {
            s = r;
        }
    }
    loop {
        let (w, rest) = word(s);
        let is_mod = MODS.contains(&w);
        if let Some(kind) = KINDS.iter().find(|k| **k == w) {
            let next = blank1(rest).map(|r| word(r).0);
            if !(is_mod && next.is_some_and(|n| MODS.contains(&n) || KINDS.contains(&n))) {
                let (name, _) = ident(blank1(rest)?)?;
                return Some((kind.trim_end_matches('!'), name));
            }
        } else if !is_mod {
            return None;
        }
        s = blank1(rest)?;
        if w == "extern"
            && let Some(abi) = s.strip_prefix('"')
        {
            s = blank1(&abi[abi.find('"')? + 1..])?;
        }
    }
}

/// The type a Rust `impl` line is for: `impl<T: Into<U>> Trait<T> for Type` gives `Type`,
/// `impl Type` gives `Type`.
fn rust_impl(t: &str) -> Option<&str> {
    let s = t.strip_prefix("unsafe").and_then(blank1).unwrap_or(t);
    let s = s.strip_prefix("impl")?;
    let s = match s.trim_blanks_start().strip_prefix('<') {
        // The generics end at the first `>` followed by a blank, before the block opens.
        Some(g) => {
            let b = g.as_bytes();
            let end = (0..b.len())
                .find(|&i| b[i] == b'>' && matches!(b.get(i + 1), Some(b' ' | b'\t')))?;
            if g[..end].contains(BLOCK) {
                return None;
            }
            &g[end + 1..]
        }
        None => s,
    };
    let s = blank1(s)?;
    let head = &s[..s.find(BLOCK).unwrap_or(s.len())];
    // The earliest ` for ` (blanks around it) followed by a name.
    let mut from = 0;
    while let Some(i) = head[from..].find("for") {
        let at = from + i;
        if head[..at].ends_with([' ', '\t'])
            && let Some((name, _)) = blank1(&head[at + 3..]).and_then(ident)
        {
            return Some(name);
        }
        from = at + 3;
    }
    ident(s).map(|(name, _)| name)
}

/// A Python module constant: `MAX_WIDTH = 3`, `DEFAULT: int = 3` (three or more capitals,
/// digits or underscores, starting with a capital).
fn python_const(t: &str) -> Option<(&'static str, &str)> {
    let (name, rest) = run(t, |b| {
        b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'
    });
    if name.len() < 3
        || !name.as_bytes()[0].is_ascii_uppercase()
        || rest.bytes().next().is_some_and(is_word)
    {
        return None;
    }
    let rest = rest.trim_blanks_start();
    let rest = match rest.strip_prefix(':') {
        Some(annotation) => &annotation[annotation.find('=')?..],
        None => rest,
    };
    let value = rest.strip_prefix('=')?;
    (!value.starts_with('=')).then_some(("const", name))
}

/// A top-level JS/TS binding: `export const x`, `declare let y`, `var z`.
fn js_binding(t: &str) -> Option<(&'static str, &str)> {
    keyed(
        t,
        &["export", "declare"],
        &["const", "let", "var"],
        js_ident,
    )
}

/// A JS/TS class method on one line: `  async render(x: T): Promise<void> {`.
fn js_method(t: &str) -> Option<(&'static str, &str)> {
    const MODS: &[&str] = &[
        "public",
        "private",
        "protected",
        "static",
        "readonly",
        "async",
        "override",
        "get",
        "set",
    ];
    let mut s = t;
    let mut last_mod: Option<&str> = None;
    loop {
        let (w, rest) = word(s);
        match blank1(rest) {
            Some(r) if MODS.contains(&w) => {
                last_mod = Some(s);
                s = r;
            }
            _ => break,
        }
    }
    method_rest(s).or_else(|| method_rest(last_mod?))
}

/// `name<T>(args): Type {` up to the end of the line, where `name` may start with `#`.
fn method_rest(s: &str) -> Option<(&'static str, &str)> {
    let (name, rest) = match s.strip_prefix('#') {
        Some(r) => {
            let (n, rest) = js_ident(r).unwrap_or(("", r));
            (&s[..n.len() + 1], rest)
        }
        None => js_ident(s)?,
    };
    let mut rest = rest.trim_blanks_start();
    if let Some(g) = rest.strip_prefix('<') {
        rest = &g[g.find('>')? + 1..];
    }
    let args = rest.strip_prefix('(')?;
    let mut rest = args[args.find(')')? + 1..].trim_blanks_start();
    if let Some(ty) = rest.strip_prefix(':') {
        rest = &ty[ty.find(BLOCK)?..];
    }
    let open = rest.strip_prefix(BLOCK)?;
    open.trim_blanks().is_empty().then_some(("method", name))
}

/// Go, at the start of a line: `func (r *R) Name`, `func Name`, `type T`, `var v`, `const c`.
fn go(t: &str) -> Option<(&'static str, &str)> {
    if let Some(rest) = t.strip_prefix("func") {
        let s = rest.trim_blanks_start();
        let s = match s.strip_prefix('(') {
            // A method: the name follows its receiver.
            Some(recv) => recv[recv.find(')')? + 1..].trim_blanks_start(),
            None if s.len() == rest.len() => return None, // `funcName`: not the keyword
            None => s,
        };
        return ident(s).map(|(name, _)| ("func", name));
    }
    keyed(t, &[], &["type", "var", "const"], ident)
}

/// A Java/Kotlin/C# method: indented, at least one modifier, a type, the name, `(`.
fn jvm_method(t: &str) -> Option<(&'static str, &str)> {
    const MODS: &[&str] = &[
        "public",
        "private",
        "protected",
        "static",
        "final",
        "abstract",
        "synchronized",
        "override",
        "virtual",
        "async",
        "internal",
    ];
    let mut s = t;
    let mut mods = 0;
    while let (w, rest) = word(s)
        && MODS.contains(&w)
        && let Some(r) = blank1(rest)
    {
        s = r;
        mods += 1;
    }
    let head = s[..s.find('(')?].trim_blanks_end();
    let start = head
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let (name, _) = ident(&head[start..])?;
    let before = &head[..start];
    let ty = before.trim_blanks_end();
    let typed = ty.len() < before.len()
        && !ty.is_empty()
        && ty.bytes().all(|b| is_word(b) || b"<>[],.? ".contains(&b));
    (mods > 0 && typed).then_some(("method", name))
}

/// C and C++ at the start of a line: `struct s`, `typedef enum e`, a function
/// (`static int *make_x(void) {`), `#define M`.
fn c(t: &str) -> Option<(&'static str, &str)> {
    if let Some(d) = t.strip_prefix('#') {
        let d = d.trim_blanks_start().strip_prefix("define")?;
        return ident(blank1(d)?).map(|(n, _)| ("macro", n));
    }
    let s = match t.strip_prefix("typedef").and_then(blank1) {
        Some(r) => r,
        None => t,
    };
    if let Some(found) = keyed(
        s,
        &[],
        &["struct", "enum", "union", "class", "namespace"],
        ident,
    ) {
        return Some(found);
    }
    const MODS: &[&str] = &["static", "inline", "extern", "const", "unsigned", "signed"];
    let mut s = t;
    let mut last_mod = None;
    while let (w, rest) = word(s)
        && MODS.contains(&w)
        && let Some(r) = blank1(rest)
    {
        last_mod = Some(s);
        s = r;
    }
    c_function(s).or_else(|| c_function(last_mod?))
}

/// `Type *name(…` with no `;` after the `(`: a function definition or a declaration split
/// over lines.
fn c_function(s: &str) -> Option<(&'static str, &str)> {
    let (_, rest) = ident(s)?;
    let (_, rest) = run(rest, |b| is_word(b) || matches!(b, b':' | b'<' | b'>'));
    let (sep, rest) = run(rest, |b| matches!(b, b' ' | b'\t' | b'*' | b'&'));
    if sep.is_empty() {
        return None;
    }
    let rest = rest.trim_start_matches('*');
    ident(rest)?;
    let (name, after) = run(rest, |b| is_word(b) || matches!(b, b':' | b'~'));
    let args = after.trim_blanks_start().strip_prefix('(')?;
    (!args.contains(';')).then_some(("function", name))
}

/// Swift attributes before a definition (`@objc @MainActor func`), skipped.
fn swift_attributes(t: &str) -> Option<&str> {
    let mut s = t;
    while let Some(a) = s.strip_prefix('@') {
        let (name, rest) = run(a, |b| b.is_ascii_alphabetic());
        if name.is_empty() {
            return None;
        }
        s = blank1(rest)?;
    }
    Some(s)
}

/// Shell: `function name`, `name()`.
fn shell(t: &str) -> Option<(&'static str, &str)> {
    fn name(s: &str) -> Option<(&str, &str)> {
        let first = *s.as_bytes().first()?;
        (first.is_ascii_alphabetic() || first == b'_').then(|| run(s, |b| is_word(b) || b == b'-'))
    }
    if let Some(rest) = t.strip_prefix("function").and_then(blank1) {
        return name(rest).map(|(n, _)| ("function", n));
    }
    let (n, rest) = name(t)?;
    rest.trim_blanks_start()
        .starts_with("()")
        .then_some(("function", n))
}
