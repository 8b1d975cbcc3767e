//! The one extractor: what a file's text defines, imports, links to and says about itself,
//! per language, in one pass over its lines. Both the ranking (definitions and their
//! signatures, comments, imports) and the Pin (definition names as keywords, libraries, links
//! between files of a folder, module docs) read a file through it.
//!
//! Definitions are found by hand-written line matchers ([`defs`]), one per language, each the
//! exact shape of a definition line in that language (modifiers, a keyword, a name; a Go
//! receiver, a Rust `impl … for`, a JS method, a C function…): no regex engine on the hot path.
//! tree-sitter grammars were measured against line patterns and lost (specs/context.md).
//! Imports and links are [`imports`]'s. Pure: text in, borrowed [`Extract`] out; never fails.
//! Does not count terms nor decide what a file is for (see [`super::facts`], [`super::kind`]).

mod blank;
mod defs;
mod found;
mod imports;

pub(crate) use found::{Def, Extract, Lang, MAX_DEFS};
use found::{MAX_IMPORTS, MAX_MODULE_DOC};
pub(crate) use imports::library;

/// What `text`, in language `lang`, defines, imports, links to and says.
pub(crate) fn extract(lang: Lang, text: &str) -> Extract<'_> {
    let mut x = Extract::default();
    if lang == Lang::Markdown {
        headings(text, &mut x.module_doc);
        return x;
    }
    // The closing quotes of an open Python docstring, and whether it is a module doc.
    let mut docstring: Option<(&'static str, bool)> = None;
    let mut block = imports::Block::default();
    for (i, (line, from_line)) in lines(text).enumerate() {
        let t = blank::trimmed(line);
        if let Some((close, whole)) = docstring {
            docstring = docstring_line(&mut x, t, close, whole);
            continue;
        }
        if lang == Lang::Python
            && let Some(q) = DOCSTRING_QUOTES.into_iter().find(|q| t.starts_with(q))
        {
            // Opened at the start of a line, it is the module's docstring or a top-level one:
            // what the file is about, as a script's `#` header is.
            docstring = docstring_line(&mut x, &t[3..], q, line.starts_with(q));
            continue;
        }
        if let Some(c) = comment_text(t, lang) {
            comment(&mut x, lang, line, c);
            continue;
        }
        definition(&mut x, lang, i, line, t);
        let before = x.imports.len();
        imports::find(lang, line, from_line, &mut block, &mut x);
        dedup_new(&mut x.imports, before);
    }
    x
}

/// What a defining line ends with that its signature leaves out: a block's opening brace, a
/// Python colon.
const SIG_END: [char; 2] = ['{', ':'];

/// The quotes that open (and close) a Python docstring.
const DOCSTRING_QUOTES: [&str; 2] = ["\"\"\"", "'''"];

/// Each line of `text` (split at `\n`, a `\r` before it dropped; a last empty line after a
/// final `\n`), with the text from the line's start to the end of `text`.
fn lines(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start > text.len() {
            return None;
        }
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |e| start + e);
        let raw = &text[start..end];
        let from_line = &text[start..];
        start = end + 1;
        Some((raw.strip_suffix('\r').unwrap_or(raw), from_line))
    })
}

/// The signature a definition on `line` shows: the line trimmed, without a trailing `{` or `:`.
pub(crate) fn signature(line: &str) -> &str {
    blank::trimmed(line).trim_end_matches(SIG_END).trim_end()
}

/// Whether `line` (of a file in `lang`) defines `name`, as the extractor reads it.
pub(crate) fn defines(lang: Lang, line: &str, name: &str) -> bool {
    defs::find(lang, line).is_some_and(|(_, n)| n == name)
}

/// The lines of `text` as the extractor numbers them (see [`lines`]), the first one 1.
pub(crate) fn text_lines(text: &str) -> impl Iterator<Item = &str> {
    lines(text).map(|(line, _)| line)
}

/// The definition on line `i` (0-based) of the file, if it has one and fewer than
/// [`MAX_DEFS`] are kept; `trimmed` is the line trimmed.
fn definition<'a>(x: &mut Extract<'a>, lang: Lang, i: usize, line: &'a str, trimmed: &'a str) {
    if x.defs.len() < MAX_DEFS
        && let Some((kind, name)) = defs::find(lang, line)
        && !NOT_NAMES.contains(&name)
    {
        x.defs.push(Def {
            kind,
            name,
            line: u32::try_from(i + 1).unwrap_or(u32::MAX),
            exported: trimmed.starts_with("export"),
        });
    }
}

/// A line of a Python docstring closed by `close` (`rest`: the trimmed line, past the opening
/// quotes on the line that opens it), kept as a comment and, when the docstring is `whole`
/// (the module's or a top-level one), as module doc; the docstring still open after it.
fn docstring_line<'a>(
    x: &mut Extract<'a>,
    rest: &'a str,
    close: &'static str,
    whole: bool,
) -> Option<(&'static str, bool)> {
    let (body, closed) = rest
        .find(close)
        .map_or((rest, false), |i| (&rest[..i], true));
    x.comments.push(body);
    if whole && !body.is_empty() {
        module_doc(x, body);
    }
    (!closed).then_some((close, whole))
}

/// A comment line (`c`, its text) kept, and as module doc when it is one (Rust `//!`, a
/// shell or Python `#` line at the start of a line, not a shebang).
fn comment<'a>(x: &mut Extract<'a>, lang: Lang, line: &str, c: &'a str) {
    x.comments.push(c);
    let is_module_doc = match lang {
        Lang::Rust => line.trim_start().starts_with("//!"),
        Lang::Shell | Lang::Python => {
            line.starts_with('#') && !line.starts_with("#!") && line.len() > 1
        }
        _ => false,
    };
    if is_module_doc {
        module_doc(x, c);
    }
}

/// Keep `line` as a line of the module doc, unless [`MAX_MODULE_DOC`] are kept.
fn module_doc<'a>(x: &mut Extract<'a>, line: &'a str) {
    if x.module_doc.len() < MAX_MODULE_DOC {
        x.module_doc.push(line);
    }
}

/// Drop the imports from `before` on that were already there, and any beyond [`MAX_IMPORTS`].
fn dedup_new(imports: &mut Vec<&str>, before: usize) {
    let mut i = before;
    while i < imports.len() {
        if i >= MAX_IMPORTS || imports[..i].contains(&imports[i]) {
            imports.remove(i);
        } else {
            i += 1;
        }
    }
}

/// Names a pattern may catch that are control flow, not definitions.
const NOT_NAMES: &[&str] = &[
    "if", "for", "while", "switch", "catch", "return", "function", "else", "do", "try", "with",
    "new", "await", "typeof", "sizeof", "elif", "foreach", "using", "lock", "fixed",
];

/// The text of a comment line (markers removed), or `None` when `t` (trimmed) is not one.
fn comment_text(t: &str, lang: Lang) -> Option<&str> {
    for marker in ["///", "//!", "//", "/**", "/*", "-- "] {
        if let Some(rest) = t.strip_prefix(marker) {
            return Some(comment_body(rest));
        }
    }
    if t.starts_with("* ") || t == "*" {
        return Some(comment_body(&t[1..]));
    }
    if lang.hash_comments() && t.starts_with('#') && !t.starts_with("#!") {
        return Some(blank::trimmed(t.trim_start_matches('#')));
    }
    None
}

/// A comment's text after its marker: closing `*/`s and whitespace trimmed (`str::trim_end_matches`
/// with a `&str` pattern builds a substring searcher for every comment line).
fn comment_body(rest: &str) -> &str {
    let mut r = rest;
    while let Some(before) = r.strip_suffix("*/") {
        r = before;
    }
    blank::trimmed(r)
}

/// The headings of a markdown text, outside code fences (a `# comment` in a fenced shell or
/// Python block is code, not a heading).
fn headings<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    let mut fence: Option<u8> = None;
    for line in text.split('\n') {
        let t = line.trim_start().as_bytes();
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
        let hashes = line.bytes().take_while(|&c| c == b'#').count();
        if (1..=6).contains(&hashes) && matches!(line.as_bytes().get(hashes), Some(b' ' | b'\t')) {
            out.push(line.trim_end());
        }
    }
}

#[cfg(test)]
mod tests;
