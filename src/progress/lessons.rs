//! What a learning is, in the shapes real logs write them (pure): lists under a learnings label
//! (`- **Learnings for future iterations:**`, `**Learnings:**`, `### Learnings`, `Key
//! learnings:`, `**Gotchas:**`, `**Patterns discovered:**`, `- Lessons learned:`), inline
//! lessons (`- Lesson: …`, `- Gotchas encountered: …`), numbered and nested lists, wrapped
//! bullets, and lines with a `[PATTERN]` / `[GOTCHA]` / `[INTEGRATION]` marker.
//!
//! Owns the extraction from one entry's body; not how entries are found (`parse`), merged
//! (`dedup`) or written (`compacted`). The rule when in doubt: keep the line. A lesson that
//! disappears from the compacted section is lost; an extra line costs one line.

use std::borrow::Cow;

use super::parse::{content, is_separator, lines};

/// Markers that make any line of an entry a learning.
pub(crate) const MARKERS: [&str; 3] = ["[PATTERN]", "[GOTCHA]", "[INTEGRATION]"];

/// Words that make a label a learnings label (matched in its lowercase text).
const LESSON_WORDS: &[&str] = &[
    "learning",
    "lesson",
    "gotcha",
    "pattern",
    "insight",
    "takeaway",
    "discover",
    "pitfall",
    "caveat",
    "key decision",
    "remember",
    "tip",
];

/// `- `, `* `, `+ `, `1. ` or `1) ` at the start of trimmed text: returns the text after it.
pub(crate) fn strip_bullet(t: &[u8]) -> Option<&[u8]> {
    for m in [&b"- "[..], b"* ", b"+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some(rest.trim_ascii());
        }
    }
    if t == b"-" || t == b"*" {
        return Some(&[]);
    }
    let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0
        && let Some(rest) = t[digits..]
            .strip_prefix(b". ")
            .or_else(|| t[digits..].strip_prefix(b") "))
    {
        return Some(rest.trim_ascii());
    }
    None
}

fn indent_of(c: &[u8]) -> usize {
    c.iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .map(|&b| if b == b'\t' { 4 } else { 1 })
        .sum()
}

fn has_marker(t: &[u8]) -> bool {
    memchr::memchr(b'[', t).is_some()
        && MARKERS
            .iter()
            .any(|m| t.windows(m.len()).any(|w| w == m.as_bytes()))
}

/// What a line (bullet marker removed) is as a label.
#[derive(Debug, PartialEq, Eq)]
enum Label<'a> {
    /// A learnings label; when text follows its colon, the line is a lesson itself.
    Lessons(&'a [u8]),
    /// Another label or a heading (`**Files changed:**`, `### Files`): ends a learnings list.
    Other,
    None,
}

/// Classify `text`: a heading, a bold label (`**X:**`, `**X**:`), or a short plain `X:` label.
fn label(text: &[u8]) -> Label<'_> {
    let hashes = text.iter().take_while(|&&b| b == b'#').count();
    let heading = hashes > 0 && text.get(hashes) == Some(&b' ');
    let body = if heading {
        text[hashes..].trim_ascii()
    } else {
        text
    };
    let stars = body.iter().take_while(|&&b| b == b'*' || b == b'_').count();
    let inner = &body[stars..];
    // The label's name and what follows its colon (a colon inside parentheses is part of a
    // note: "Learnings (dates):").
    let (name, rest) = match colon_outside_parens(inner) {
        Some(i) => {
            let rest = inner[i + 1..].trim_ascii();
            let rest = rest
                .strip_prefix(b"**")
                .or_else(|| rest.strip_prefix(b"__"))
                .unwrap_or(rest);
            (&inner[..i], rest.trim_ascii())
        }
        None if heading || (stars >= 2 && inner.ends_with(b"**")) => (inner, &b""[..]),
        None => return Label::None,
    };
    let name = name.trim_ascii_end();
    let name = name.strip_suffix(b"**").unwrap_or(name);
    // A note in parentheses is not part of the label's length: "Learnings for future
    // iterations (carry into X-003/004):" is a label of four words.
    let words = without_parens(name)
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .count();
    // A plain `Word words: text` is a label only when short; prose with a colon is not.
    if !heading && stars < 2 && (words > 4 || name.is_empty()) {
        return Label::None;
    }
    let lower = name.to_ascii_lowercase();
    if LESSON_WORDS
        .iter()
        .any(|w| lower.windows(w.len()).any(|x| x == w.as_bytes()))
    {
        Label::Lessons(rest)
    } else if heading || (stars >= 2 && rest.is_empty()) {
        Label::Other
    } else {
        Label::None
    }
}

/// The first `:` outside parentheses (the first `:` at all when they do not balance).
fn colon_outside_parens(t: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in t.iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b':' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    memchr::memchr(b':', t)
}

/// `t` without its parenthesised parts.
fn without_parens(t: &[u8]) -> Vec<u8> {
    let mut depth = 0usize;
    let mut out = Vec::with_capacity(t.len());
    for &b in t {
        match b {
            b'(' => depth += 1,
            b')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(b),
            _ => {}
        }
    }
    out
}

/// The state of a learnings list being read.
struct List {
    /// Indentation of the label.
    label: usize,
    /// Indentation of the list's first bullet, once seen.
    first: Option<usize>,
    /// A blank line was seen since the last bullet.
    gap: bool,
}

impl List {
    /// The least indentation a bullet needs to belong to the list: the label's, or after a
    /// blank line, deeper than the label (or the first bullet's, when shallower).
    fn min(&self) -> usize {
        match (self.gap, self.first) {
            (true, Some(f)) => f.min(self.label + 1),
            _ => self.label,
        }
    }
}

/// The summary line and the learnings of one entry's lines (heading excluded).
///
/// The summary line is the first non-blank line that is not a label or a marked line (bullet
/// marker removed). A learnings list is every bullet after a learnings label (continuation lines
/// joined), nested or not, and the paragraph lines right under it, up to another label, a
/// heading, or a non-bullet line after a blank one. Bullets at the label's own indentation that
/// follow the list without a blank line stay in it: they read as more notes, and are kept.
pub(crate) fn extract<'a>(body: &'a [u8]) -> (Option<&'a [u8]>, Vec<Cow<'a, [u8]>>) {
    let mut x = Extract::default();
    for line in lines(body) {
        if !is_separator(line) {
            x.line(content(line));
        }
    }
    x.found.extend(x.cur.take());
    (x.first, x.found)
}

/// [`extract`]'s state while it reads an entry's lines.
#[derive(Default)]
struct Extract<'a> {
    first: Option<&'a [u8]>,
    found: Vec<Cow<'a, [u8]>>,
    list: Option<List>,
    /// The learning being read (a wrapped bullet's lines are joined into it).
    cur: Option<Cow<'a, [u8]>>,
    /// Indentation of the last bullet, while the lines after it can still be its wrapped text.
    wrap_of: Option<usize>,
}

impl<'a> Extract<'a> {
    /// One line's content (its end of line removed).
    fn line(&mut self, c: &'a [u8]) {
        let t = c.trim_ascii();
        let indent = indent_of(c);
        let bullet = strip_bullet(t);
        let text = bullet.unwrap_or(t);
        // A wrapped line of a bullet (more indented, no blank line between) is part of it,
        // even when it reads like a label ("    the end. Pattern: `serve()` returning {url}",
        // "  14 interactive patterns: a, b"): it neither starts nor ends a list.
        let wrapped = bullet.is_none()
            && !t.is_empty()
            && (self.wrap_of.is_some_and(|b| indent > b)
                || self.cur.is_some()
                    && self
                        .list
                        .as_ref()
                        .is_some_and(|l| !l.gap && indent > l.label));
        if bullet.is_some() {
            self.wrap_of = Some(indent);
        } else if !wrapped {
            self.wrap_of = None;
        }
        let label = if wrapped { Label::None } else { label(text) };
        if self.on_label(label, text, indent, bullet.is_some())
            || self.in_list(t, text, indent, bullet.is_some())
            || t.is_empty()
        {
            return;
        }
        if has_marker(t) {
            self.found.push(Cow::Borrowed(text));
        } else if self.first.is_none() && !text.is_empty() {
            self.first = Some(text);
        }
    }

    /// A learnings label opens (or, as a bullet of the list, continues) a list; another label
    /// ends one. True when the line is taken.
    fn on_label(&mut self, label: Label<'_>, text: &'a [u8], indent: usize, bullet: bool) -> bool {
        match label {
            Label::Lessons(rest) => {
                self.found.extend(self.cur.take());
                if !rest.is_empty() {
                    // The label stays with its text: "Fallback pattern: try new, then old".
                    self.cur = Some(Cow::Borrowed(text));
                }
                self.list = Some(match self.list.take() {
                    // A bullet of the list that reads like a label ("  - Y.js merging
                    // pattern: …") is one more item: the list keeps its own indentation, so
                    // bullets back at the label's level after it stay lessons.
                    Some(l) if bullet && indent >= l.min() => List {
                        first: l.first.or(Some(indent)),
                        gap: false,
                        ..l
                    },
                    _ => List {
                        label: indent,
                        first: None,
                        gap: false,
                    },
                });
                true
            }
            Label::Other
                if self.list.is_some()
                    && (!bullet || text.ends_with(b":**") || text.ends_with(b"**:")) =>
            {
                self.found.extend(self.cur.take());
                self.list = None;
                false
            }
            _ => false,
        }
    }

    /// A line while a learnings list is open: a blank, an item, a wrapped item or a
    /// paragraph under the label is taken (true); anything else ends the list.
    fn in_list(&mut self, t: &'a [u8], text: &'a [u8], indent: usize, bullet: bool) -> bool {
        let Some(l) = self.list.as_mut() else {
            return false;
        };
        if t.is_empty() {
            l.gap = true;
            return true;
        }
        if bullet && indent >= l.min() {
            self.found.extend(self.cur.take());
            self.cur = Some(Cow::Borrowed(text));
            l.first.get_or_insert(indent);
            l.gap = false;
            return true;
        }
        if !bullet && !l.gap {
            // A wrapped bullet, or a paragraph right under the label: part of the lessons.
            match self.cur.as_mut() {
                Some(prev) if indent > l.label => {
                    let owned = prev.to_mut();
                    owned.push(b' ');
                    owned.extend_from_slice(t);
                    return true;
                }
                _ if l.first.is_none() => {
                    self.found.extend(self.cur.take());
                    self.cur = Some(Cow::Borrowed(t));
                    return true;
                }
                _ => {}
            }
        }
        self.found.extend(self.cur.take());
        self.list = None;
        false
    }
}

#[cfg(test)]
mod tests;
