//! Parsing specs/INDEX.md, one line at a time: a lenient reader that never fails.
//!
//! Owns what a single line is: a heading, a bullet, a `---` rule, a code fence, a field line
//! (`**Keywords**: a, b`, `- Files:`, …) and its value, a file path or spec link in a bullet.
//! Does not own how lines make entries and prose (see `pass.rs`) or writing (see the parent
//! module).

use std::sync::LazyLock;

use regex::Regex;

pub(super) static LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[[^\]]*\]\(([^)\s]+)[^)]*\)").expect("valid regex"));
pub(super) static TICKS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`([^`]+)`").expect("valid regex"));

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Keywords,
    Files,
    Spec,
    Status,
    Kind,
}

/// A visible ASCII character: never whitespace (a line starting with one is not blank).
fn visible(b: Option<&u8>) -> bool {
    b.is_some_and(|&b| b > b' ' && b < 0x7f)
}

/// Whether a line is empty or whitespace only.
pub(super) fn is_blank(line: &str) -> bool {
    line.trim_start().is_empty()
}

/// `# Title ##` → (level, "Title"); `None` unless 1-6 `#` are followed by a space.
pub(super) fn heading_of(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let rest = &line[level..];
    if !(1..=6).contains(&level) || !rest.starts_with([' ', '\t']) {
        return None;
    }
    let title = rest.trim();
    let stripped = title.trim_end_matches('#');
    // A closing run of `#` counts only after a space (`# C#` keeps its `#`).
    let title = if stripped.is_empty() || stripped.ends_with([' ', '\t']) {
        stripped.trim_end()
    } else {
        title
    };
    Some((level, title))
}

/// The text of a bullet (`-`, `*`, `+` or `1.`/`1)` then a space), if the line is one.
pub(super) fn bullet_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = match (digits, &t.as_bytes()[digits..]) {
        (0, [b'-' | b'*' | b'+', ..]) | (1.., [b'.' | b')', ..]) => &t[digits + 1..],
        _ => return None,
    };
    matches!(rest.as_bytes().first(), Some(b' ' | b'\t')).then(|| rest.trim())
}

/// A thematic break: three or more `-`, `*` or `_` alone on a line.
pub(super) fn is_rule(line: &str) -> bool {
    let b = line.as_bytes();
    // Starting with a visible character, a rule starts with two of the same (`- item` is not).
    if visible(b.first()) && (!matches!(b[0], b'-' | b'*' | b'_') || b.get(1) != Some(&b[0])) {
        return false;
    }
    let t = line.trim().as_bytes();
    t.len() >= 3 && matches!(t[0], b'-' | b'*' | b'_') && t.iter().all(|&b| b == t[0])
}

/// The labels of the canonical format (see the parent module), each with the space after it.
const CANONICAL: [(&str, Field); 5] = [
    ("**Keywords**: ", Field::Keywords),
    ("**File Paths**:", Field::Files),
    ("**Spec Link**: ", Field::Spec),
    ("**Status**: ", Field::Status),
    ("**Kind**: ", Field::Kind),
];

/// A field line (`**Keywords**: a, b`, `**Keywords:** a`, `- Files:`, …): its field and value.
pub(super) fn field_line(line: &str) -> Option<(Field, &str)> {
    // The canonical labels `ralph pin generate` writes, matched as they are (the common case).
    for (label, field) in CANONICAL {
        if let Some(rest) = line.strip_prefix(label) {
            return Some((field, rest.trim()));
        }
    }
    let mut t = line.trim_start();
    if let [b'-' | b'*' | b'+', b' ' | b'\t', ..] = t.as_bytes() {
        t = t[1..].trim_start();
    }
    let bold = |s: &str| matches!(s.as_bytes(), [b'*', b'*', ..] | [b'_', b'_', ..]);
    let emph = bold(t);
    if emph {
        t = t[2..].trim_start();
    }
    // Every field name starts with one of these letters: most lines are rejected here.
    if !matches!(
        t.as_bytes().first(),
        Some(b'k' | b't' | b'f' | b'p' | b's' | b'K' | b'T' | b'F' | b'P' | b'S')
    ) {
        return None;
    }
    let end = t
        .bytes()
        .position(|b| !(b.is_ascii_alphabetic() || b == b' '))?;
    // The shortest field name has 4 letters (`tags`, `spec`): `- src/…` stops here.
    if end < 4 {
        return None;
    }
    let field = field_named(&t.as_bytes()[..end])?;
    let mut rest = &t[end..];
    if let Some(r) = rest.strip_prefix(':') {
        rest = r.trim_start();
        if emph && bold(rest) {
            rest = &rest[2..];
        }
    } else if emph && bold(rest) {
        rest = rest[2..].trim_start().strip_prefix(':')?;
    } else {
        return None;
    }
    Some((field, rest.trim()))
}

fn field_named(label: &[u8]) -> Option<Field> {
    // The longest name is 13 letters; `label` is ASCII letters and spaces (see `field_line`).
    let mut buf = [0u8; 16];
    let mut n = 0;
    for &b in label {
        if b != b' ' {
            *buf.get_mut(n)? = b.to_ascii_lowercase();
            n += 1;
        }
    }
    match buf.get(..n)? {
        b"keywords" | b"keyword" | b"tags" => Some(Field::Keywords),
        b"filepaths" | b"filepath" | b"files" | b"paths" => Some(Field::Files),
        b"speclink" | b"speclinks" | b"spec" | b"specs" | b"specification" => Some(Field::Spec),
        b"status" => Some(Field::Status),
        b"kind" => Some(Field::Kind),
        _ => None,
    }
}

pub(super) fn is_fence(line: &str) -> bool {
    let first = line.as_bytes().first();
    if visible(first) && !matches!(first, Some(b'`' | b'~')) {
        return false;
    }
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Split a keyword list on commas; blanks dropped.
pub(super) fn split_keywords<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    let mut push = |k: &'a str, ticks: bool| {
        let mut k = k.trim();
        if ticks {
            k = k.trim_matches('`').trim();
        }
        if !k.is_empty() {
            out.push(k);
        }
    };
    let (mut start, mut ticks) = (0, false);
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if b == b',' {
            push(&text[start..i], ticks);
            (start, ticks) = (i + 1, false);
        } else {
            ticks |= b == b'`';
        }
    }
    push(&text[start..], ticks);
}

/// Per byte of a file bullet: [`WORD_END`] for ASCII whitespace (and any non-ASCII byte, which
/// may be Unicode whitespace: checked the slow way), [`SPECIAL`] for `[` and a backtick.
static PATH_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if b.is_ascii_whitespace() || b == 0x0b || b >= 0x80 {
            WORD_END
        } else if b == b'[' || b == b'`' {
            SPECIAL
        } else {
            0
        };
        c += 1;
    }
    t
};
const WORD_END: u8 = 1;
const SPECIAL: u8 = 2;

/// The path in one file bullet: a link target, text in backticks, or the first word.
pub(super) fn clean_path(text: &str) -> Option<&str> {
    let t = text.trim();
    let b = t.as_bytes();
    // One pass finds where the first word ends and whether a link or backtick (rare) follows.
    let mut end = None;
    let mut special = false;
    for (i, &c) in b.iter().enumerate() {
        match PATH_BYTES[usize::from(c)] {
            0 => {}
            WORD_END => {
                end.get_or_insert(i);
            }
            _ => {
                special = true;
                break;
            }
        }
    }
    let p = if special
        && b.contains(&b'[')
        && let Some(c) = LINK.captures(t)
    {
        c.get(1)?.as_str()
    } else if special
        && b.contains(&b'`')
        && let Some(c) = TICKS.captures(t)
    {
        c.get(1)?.as_str().trim()
    } else {
        first_word(t, end)?
    };
    let keep = p
        .bytes()
        .rposition(|c| c != b',' && c != b';')
        .map_or(0, |i| i + 1);
    let p = &p[..keep];
    (!p.is_empty()).then_some(p)
}

/// The first whitespace-separated word of trimmed text (`str::split_whitespace`), given where
/// the first ASCII whitespace or non-ASCII byte is (`end`; `None` when there is none).
fn first_word(t: &str, end: Option<usize>) -> Option<&str> {
    match end {
        None => (!t.is_empty()).then_some(t),
        Some(i) if t.as_bytes()[i] < 0x80 => Some(&t[..i]),
        Some(_) => t.split_whitespace().next(),
    }
}

pub(super) fn clean_spec(text: &str) -> Option<&str> {
    let t = text.trim();
    let none = t.is_empty()
        || (t.len() <= 5
            && matches!(
                t.to_ascii_lowercase().as_str(),
                "n/a" | "na" | "none" | "-" | "—" | "_n/a_" | "*n/a*"
            ));
    (!none).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_bullets_and_rules() {
        assert_eq!(heading_of("### Name ##"), Some((3, "Name")));
        assert_eq!(heading_of("## C#"), Some((2, "C#")));
        assert_eq!(heading_of("#hashtag"), None);
        assert_eq!(heading_of("####### seven"), None);
        assert_eq!(bullet_of("  - `a.rs`"), Some("`a.rs`"));
        assert_eq!(bullet_of("12. x"), Some("x"));
        assert_eq!(bullet_of("-x"), None);
        assert_eq!(bullet_of("**Keywords**: a"), None);
        assert!(is_rule("---") && is_rule(" *** ") && is_rule("____"));
        assert!(!is_rule("--") && !is_rule("-*-"));
        assert_eq!(
            field_line("**Keywords**: a, b"),
            Some((Field::Keywords, "a, b"))
        );
        assert_eq!(
            field_line("* **Keywords:** a"),
            Some((Field::Keywords, "a"))
        );
        assert_eq!(field_line("- __File Paths__ :"), Some((Field::Files, "")));
        assert_eq!(field_line("Spec Link: N/A"), Some((Field::Spec, "N/A")));
        assert_eq!(field_line("- **Spec Link** (optional): Link"), None);
        assert_eq!(field_line("Keywords are good: yes"), None);
        assert_eq!(
            field_line("**Status**: stale"),
            Some((Field::Status, "stale"))
        );
    }
}
