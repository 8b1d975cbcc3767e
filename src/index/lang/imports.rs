//! Imports and links, one reader per language: the modules a line imports, as written (Rust
//! `use a::b`, `extern crate a`; Python `import a.b`, `from a import b`; JS/TS `from 'a'`,
//! `require('a')`, `import('a')`; Go `import "a/b"` and import blocks; Java, Kotlin, Swift
//! `import a.b`; C `#include <a.h>`), the sibling modules it links to, and the library a
//! written import names ([`library`]).

use super::blank::Blanks;
use super::found::{Extract, Lang};

/// What a reader carries from one line to the next: inside a Go `import ( … )` block.
#[derive(Debug, Default)]
pub(super) struct Block {
    go_imports: bool,
}

/// The bytes after a Rust `use crate::`/`super::`/`self::` looked at for its list of names.
const LINK_TAIL: usize = 1024;

/// Add the imports and links of `line` (no newline) to `x`. `from_line` is the text from the
/// start of the line to the end of the file (a Rust `use` list may span lines).
pub(super) fn find<'a>(
    lang: Lang,
    line: &'a str,
    from_line: &'a str,
    block: &mut Block,
    x: &mut Extract<'a>,
) {
    let t = line.trim_blanks_start();
    match lang {
        Lang::Rust => rust(t, &from_line[line.len() - t.len()..], x),
        Lang::Python => python(t, x),
        Lang::Js => js(line, x),
        Lang::Go => go(t, block, x),
        Lang::Jvm | Lang::Swift => x.imports.extend(keyword_module(t, "import")),
        Lang::C => x.imports.extend(include(t)),
        _ => {}
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The leading run of bytes satisfying `f`, and the rest.
fn run(s: &str, f: impl Fn(u8) -> bool) -> (&str, &str) {
    let n = s.bytes().position(|b| !f(b)).unwrap_or(s.len());
    s.split_at(n)
}

/// `s` after at least one blank.
fn blank1(s: &str) -> Option<&str> {
    let rest = s.trim_blanks_start();
    (rest.len() < s.len()).then_some(rest)
}

/// An identifier at the start of `s`.
fn ident(s: &str) -> Option<&str> {
    let first = *s.as_bytes().first()?;
    (first.is_ascii_alphabetic() || first == b'_').then(|| run(s, is_word).0)
}

/// `keyword module.path`: the module (`[A-Za-z_][A-Za-z0-9_.]*`).
fn keyword_module<'a>(t: &'a str, keyword: &str) -> Option<&'a str> {
    let r = blank1(t.strip_prefix(keyword)?)?;
    ident(r)?;
    Some(run(r, |b| is_word(b) || b == b'.').0)
}

/// Rust: `use a::b` (imports `a::b`; `use crate::x`, `super::{x, y}` link `x`, `y`),
/// `extern crate a`, `mod x;` (links `x`). `rest` runs from `t` to the end of the file.
fn rust<'a>(t: &'a str, rest: &'a str, x: &mut Extract<'a>) {
    let mut s = t;
    if let Some(r) = s.strip_prefix("pub") {
        let r = match r.strip_prefix('(') {
            Some(v) => v.find(')').map_or(r, |i| &v[i + 1..]),
            None => r,
        };
        if let Some(r) = blank1(r) {
            s = r;
        }
    }
    let (w, after) = run(s, is_word);
    let Some(r) = blank1(after) else { return };
    match w {
        "use" => {
            let path = run(r, |b| is_word(b) || b == b':').0;
            if ident(path).is_some() {
                x.imports.push(path);
            }
            let first = run(r.trim_start_matches(':'), is_word).0;
            if matches!(first, "crate" | "super" | "self") {
                // `r` ends where `t` does; `rest` starts where `t` does.
                let at = t.len() - r.trim_start_matches(':').len() + first.len();
                let tail = &rest[at..];
                rust_links(&tail[..floor_char(tail, LINK_TAIL)], &mut x.links);
            }
        }
        "mod" => {
            if let Some(name) = ident(r)
                && r[name.len()..].trim_blanks_start().starts_with(';')
            {
                x.links.push(name);
            }
        }
        "extern" => {
            if let Some(name) = r.strip_prefix("crate").and_then(blank1).and_then(ident) {
                x.imports.push(name);
            }
        }
        _ => {}
    }
}

/// The largest char boundary of `s` at most `max`.
fn floor_char(s: &str, max: usize) -> usize {
    let mut i = max.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The sibling modules after `use crate`/`super`/`self`: `::x…` gives `x`, `::{x, y::z}` gives
/// `x` and `y` (the first name of each item at the top level of the braces).
fn rust_links<'a>(after: &'a str, out: &mut Vec<&'a str>) {
    let mut push = |id: &'a str| {
        if !matches!(id, "self" | "super" | "crate") {
            out.push(id);
        }
    };
    let Some(tail) = after.strip_prefix("::") else {
        return;
    };
    let Some(list) = tail.strip_prefix('{') else {
        if let Some(id) = ident(tail.trim_start()) {
            push(id);
        }
        return;
    };
    let mut depth = 0usize;
    let mut item_start = true;
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if item_start && !c.is_whitespace() => {
                item_start = false;
                if let Some(id) = ident(&list[i..]) {
                    push(id);
                }
            }
            _ => {}
        }
    }
}

/// Python: `from a.b import c` (imports `a.b`), `import a.b`; `from .x import y` links `x`,
/// `from . import a, b as c` links `a` and `b`.
fn python<'a>(t: &'a str, x: &mut Extract<'a>) {
    if let Some(r) = t.strip_prefix("from").and_then(blank1) {
        let first = r.as_bytes().first().copied();
        if !first.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'.') {
            return;
        }
        let (module, rest) = run(r, |b| is_word(b) || b == b'.');
        let Some(names) = blank1(rest).and_then(|r| r.strip_prefix("import")) else {
            return;
        };
        x.imports.push(module);
        let dots = module.bytes().take_while(|&b| b == b'.').count();
        if dots != 1 {
            return;
        }
        if let Some(id) = ident(&module[1..]) {
            x.links.push(id);
            return;
        }
        for item in names.split(',') {
            let item = item.trim_start();
            let item = item.strip_prefix('(').unwrap_or(item).trim_start();
            x.links.extend(ident(item));
        }
        return;
    }
    x.imports.extend(keyword_module(t, "import"));
}

/// JS/TS: every `from 'a'`, `require('a')`, `import('a')`, `import 'a'` of the line; a
/// specifier starting with `./` links its first part (`./utils/url.js` links `utils`).
fn js<'a>(line: &'a str, x: &mut Extract<'a>) {
    let b = line.as_bytes();
    let mut from = 0;
    while let Some(i) = line[from..].find(['f', 'r', 'i']) {
        let at = from + i;
        from = at + 1;
        if at > 0 && is_word(b[at - 1]) {
            continue;
        }
        let rest = &line[at..];
        let after = if let Some(r) = rest.strip_prefix("from") {
            r
        } else if let Some(r) = rest.strip_prefix("require(") {
            r
        } else if let Some(r) = rest.strip_prefix("import") {
            r.strip_prefix('(').unwrap_or(r)
        } else {
            continue;
        };
        let after = after.trim_blanks_start();
        let Some(q) = after.strip_prefix(['\'', '"']) else {
            continue;
        };
        let (spec, end) = run(q, |c| c.is_ascii_alphanumeric() || b"@_./-".contains(&c));
        if spec.is_empty() || !end.starts_with(['\'', '"']) {
            continue;
        }
        x.imports.push(spec);
        if let Some(local) = spec.strip_prefix("./") {
            let first = local.split('/').next().unwrap_or("");
            let name = first.split('.').next().unwrap_or("");
            if !name.is_empty() {
                x.links.push(name);
            }
        }
    }
}

/// Go: `import "a/b"`, `import alias "a/b"` and each line of an `import ( … )` block.
fn go<'a>(t: &'a str, block: &mut Block, x: &mut Extract<'a>) {
    if block.go_imports {
        if t.starts_with(')') {
            block.go_imports = false;
        } else {
            x.imports.extend(quoted(t));
        }
        return;
    }
    let Some(r) = t.strip_prefix("import") else {
        return;
    };
    let r = r.trim_blanks_start();
    if let Some(list) = r.strip_prefix('(') {
        block.go_imports = !list.contains(')');
        x.imports.extend(quoted(list));
    } else if r.len() < t.len() - "import".len() || r.starts_with('"') {
        x.imports.extend(quoted(r));
    }
}

/// The string of `alias? "a/b"` (or a raw `` `a/b` ``).
fn quoted(s: &str) -> Option<&str> {
    let open = s.find(['"', '`'])?;
    let q = s.as_bytes()[open] as char;
    let rest = &s[open + 1..];
    let close = rest.find(q)?;
    let path = &rest[..close];
    (!path.is_empty()).then_some(path)
}

/// C/C++: `#include "a.h"` or `<a/b.h>`.
fn include(t: &str) -> Option<&str> {
    let r = t.strip_prefix('#')?.trim_blanks_start();
    let r = r.strip_prefix("include")?.trim_blanks_start();
    let close = match r.as_bytes().first()? {
        b'"' => '"',
        b'<' => '>',
        _ => return None,
    };
    let path = &r[1..];
    let end = path.find(close)?;
    (end > 0).then(|| &path[..end])
}

/// The library a written import names, as the Pin lists libraries (matched against the
/// package manifest's dependencies): Rust's first path segment, Python's first dotted part
/// (relative imports name none), a JS package (`@scope/pkg` or `pkg` of `pkg/sub`; relative
/// paths none), a Go module path's last part (standard-library paths, with no dot in their
/// first part, none).
pub(crate) fn library(lang: Lang, written: &str) -> Option<&str> {
    let first = |sep: char| written.split(sep).next().filter(|s| !s.is_empty());
    match lang {
        Lang::Rust => first(':'),
        Lang::Python if written.starts_with('.') => None,
        Lang::Python => first('.'),
        Lang::Js => {
            if written.starts_with(['.', '/']) {
                return None;
            }
            if written.contains('.') && !written.starts_with('@') {
                return written.rsplit('/').next();
            }
            let mut parts = written.splitn(3, '/');
            let head = parts.next()?;
            match head.starts_with('@') {
                true => parts.next().map(|p| &written[..head.len() + 1 + p.len()]),
                false => Some(head),
            }
        }
        Lang::Go if first('/')?.contains('.') => written.rsplit('/').next(),
        _ => None,
    }
}
