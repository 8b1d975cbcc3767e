//! Parsing specs/INDEX.md: a line-based, lenient reader that never fails.
//!
//! Owns recognising entries (headings with field lines, at the Pin's entry level), their fields
//! (keywords inline, continued or as bullets; file bullets; spec link; status) and keeping the
//! exact text of each entry and of the prose between them. Produces a borrowed [`PinView`] (no
//! allocation per field); [`Pin::parse`] converts it. Does not own writing (see the parent module).
//!
//! Trimming is Unicode-aware like `str::trim`, with a fast path for lines that start (and end)
//! with a visible ASCII character, which is nearly every line of a Pin.

use super::view::{EntryView, ItemView, PinView};
use super::{LINK, Pin, TICKS};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Keywords,
    Files,
    Spec,
    Status,
}

/// A visible ASCII character: never whitespace, so no trimming is needed next to it.
fn visible(b: Option<&u8>) -> bool {
    b.is_some_and(|&b| b > b' ' && b < 0x7f)
}

/// `str::trim_start`, with a fast path for spaces and tabs followed by visible ASCII.
fn trim_start(s: &str) -> &str {
    let n = s.bytes().take_while(|&b| b == b' ' || b == b'\t').count();
    let rest = &s[n..];
    if visible(rest.as_bytes().first()) {
        rest
    } else {
        rest.trim_start()
    }
}

/// `str::trim_end`, with a fast path for visible ASCII after spaces and tabs.
fn trim_end(s: &str) -> &str {
    let n = s
        .bytes()
        .rev()
        .take_while(|&b| b == b' ' || b == b'\t')
        .count();
    let rest = &s[..s.len() - n];
    if visible(rest.as_bytes().last()) {
        rest
    } else {
        rest.trim_end()
    }
}

/// Whether a line is empty or whitespace only.
fn is_blank(line: &str) -> bool {
    !visible(line.as_bytes().first()) && trim(line).is_empty()
}

/// `str::trim` (see [`trim_start`]).
fn trim(s: &str) -> &str {
    trim_end(trim_start(s))
}

/// `# Title ##` → (level, "Title"); `None` unless 1-6 `#` are followed by a space.
fn heading_of(line: &str) -> Option<(usize, &str)> {
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
fn bullet_of(line: &str) -> Option<&str> {
    let t = trim_start(line);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = match (digits, &t.as_bytes()[digits..]) {
        (0, [b'-' | b'*' | b'+', ..]) | (1.., [b'.' | b')', ..]) => &t[digits + 1..],
        _ => return None,
    };
    matches!(rest.as_bytes().first(), Some(b' ' | b'\t')).then(|| trim(rest))
}

/// A thematic break: three or more `-`, `*` or `_` alone on a line.
fn is_rule(line: &str) -> bool {
    let b = line.as_bytes();
    // Starting with a visible character, a rule starts with two of the same (`- item` is not).
    if visible(b.first()) && (!matches!(b[0], b'-' | b'*' | b'_') || b.get(1) != Some(&b[0])) {
        return false;
    }
    let t = trim(line).as_bytes();
    t.len() >= 3 && matches!(t[0], b'-' | b'*' | b'_') && t.iter().all(|&b| b == t[0])
}

/// The labels of the canonical format (see the parent module), each with the space after it.
const CANONICAL: [(&str, Field); 4] = [
    ("**Keywords**: ", Field::Keywords),
    ("**File Paths**:", Field::Files),
    ("**Spec Link**: ", Field::Spec),
    ("**Status**: ", Field::Status),
];

/// A field line (`**Keywords**: a, b`, `**Keywords:** a`, `- Files:`, …): its field and value.
fn field_line(line: &str) -> Option<(Field, &str)> {
    // The canonical labels `ralph pin generate` writes, matched as they are (the common case).
    for (label, field) in CANONICAL {
        if let Some(rest) = line.strip_prefix(label) {
            return Some((field, trim(rest)));
        }
    }
    let mut t = trim_start(line);
    if let [b'-' | b'*' | b'+', b' ' | b'\t', ..] = t.as_bytes() {
        t = trim_start(&t[1..]);
    }
    let bold = |s: &str| matches!(s.as_bytes(), [b'*', b'*', ..] | [b'_', b'_', ..]);
    let emph = bold(t);
    if emph {
        t = trim_start(&t[2..]);
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
        rest = trim_start(r);
        if emph && bold(rest) {
            rest = &rest[2..];
        }
    } else if emph && bold(rest) {
        rest = trim_start(&rest[2..]).strip_prefix(':')?;
    } else {
        return None;
    }
    Some((field, trim(rest)))
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
        _ => None,
    }
}

fn is_fence(line: &str) -> bool {
    let first = line.as_bytes().first();
    if visible(first) && !matches!(first, Some(b'`' | b'~')) {
        return false;
    }
    let t = trim_start(line);
    t.starts_with("```") || t.starts_with("~~~")
}

/// Split a keyword list on commas; blanks dropped.
pub(super) fn split_keywords<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    let mut push = |k: &'a str, ticks: bool| {
        let mut k = trim(k);
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

/// The path in one file bullet: a link target, text in backticks, or the first word.
fn clean_path(text: &str) -> Option<&str> {
    let t = trim(text);
    let b = t.as_bytes();
    // Links and backticks are rare: one search for either before looking for each.
    let special = memchr::memchr2(b'[', b'`', b).is_some();
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
        first_word(t)?
    };
    let keep = p
        .bytes()
        .rposition(|c| c != b',' && c != b';')
        .map_or(0, |i| i + 1);
    let p = &p[..keep];
    (!p.is_empty()).then_some(p)
}

/// The first whitespace-separated word of trimmed text (`str::split_whitespace`, on bytes while
/// the text is ASCII).
fn first_word(t: &str) -> Option<&str> {
    match t
        .bytes()
        .position(|b| b.is_ascii_whitespace() || b == 0x0b || b >= 0x80)
    {
        None => (!t.is_empty()).then_some(t),
        Some(i) if t.as_bytes()[i] < 0x80 => Some(&t[..i]),
        Some(_) => t.split_whitespace().next(),
    }
}

fn clean_spec(text: &str) -> Option<&str> {
    let t = trim(text);
    let none = t.is_empty()
        || (t.len() <= 5
            && matches!(
                t.to_ascii_lowercase().as_str(),
                "n/a" | "na" | "none" | "-" | "—" | "_n/a_" | "*n/a*"
            ));
    (!none).then_some(t)
}

/// One line: its text without the terminator, and where it starts and ends (after the
/// terminator) in the Pin.
#[derive(Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

/// The lines of `text[from..to]` (`split_inclusive('\n')`, one memchr pass), with positions in
/// `text`.
fn lines_in(text: &str, from: usize, to: usize) -> impl Iterator<Item = Line<'_>> {
    let mut start = from;
    let mut newlines = memchr::memchr_iter(b'\n', &text.as_bytes()[from..to]);
    std::iter::from_fn(move || {
        if start >= to {
            return None;
        }
        let end = newlines.next().map_or(to, |i| from + i + 1);
        let raw = &text[start..end];
        let keep = raw
            .bytes()
            .rposition(|b| b != b'\n' && b != b'\r')
            .map_or(0, |i| i + 1);
        let line = Line {
            text: &raw[..keep],
            start,
            end,
        };
        start = end;
        Some(line)
    })
}

/// Entries per thread below which parsing stays on one thread (thread start-up is about the
/// cost of parsing a few hundred entries).
const PAR_ENTRIES: usize = 1000;

/// A real heading (outside code fences) and what follows it up to the next one.
struct Heading<'a> {
    line: Line<'a>,
    /// 1-based line number.
    number: usize,
    level: usize,
    title: &'a str,
    /// Whether a field line follows before the next heading (outside code fences).
    has_fields: bool,
    /// Where the next heading starts (or the end of the text).
    section_end: usize,
}

/// Find the real headings and whether each has fields, in one pass over the lines.
fn headings(text: &str) -> Vec<Heading<'_>> {
    let mut out: Vec<Heading> = Vec::new();
    let mut in_fence = false;
    // Whether the current section may still turn out to have fields.
    let mut looking = false;
    for (i, line) in lines_in(text, 0, text.len()).enumerate() {
        if is_fence(line.text) {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.text.starts_with('#')
            && let Some((level, title)) = heading_of(line.text)
        {
            if let Some(prev) = out.last_mut() {
                prev.section_end = line.start;
            }
            looking = (2..=4).contains(&level);
            out.push(Heading {
                line,
                number: i + 1,
                level,
                title,
                has_fields: false,
                section_end: text.len(),
            });
            continue;
        }
        // Only the first field line of a section matters, only at entry levels, and only
        // before a `---`: an entry ends there, so fields after it would not be its own (and the
        // entry could not be written back as it was read).
        if looking && let Some(h) = out.last_mut() {
            if field_line(line.text).is_some() {
                h.has_fields = true;
                looking = false;
            } else if is_rule(line.text) {
                looking = false;
            }
        }
    }
    out
}

impl Pin {
    /// Parse a Pin. Never fails: text that is not an entry is kept as prose.
    pub fn parse(text: &str) -> Pin {
        PinView::parse(text).to_pin()
    }
}

impl<'a> PinView<'a> {
    /// Parse a Pin without copying its text. Never fails: text that is not an entry is prose.
    pub fn parse(text: &'a str) -> PinView<'a> {
        let heads = headings(text);
        // Entries are the headings with fields at the most common such level (ties: level 3),
        // so a section describing the format (`## Format` with field examples) stays prose.
        let mut per_level = [0usize; 5];
        for h in heads.iter().filter(|h| h.has_fields) {
            per_level[h.level] += 1;
        }
        let entry_level = [3, 2, 4]
            .into_iter()
            .max_by_key(|&l| (per_level[l], usize::from(l == 3)))
            .unwrap_or(3);

        let starts: Vec<&Heading> = heads
            .iter()
            .filter(|h| h.has_fields && h.level == entry_level)
            .collect();
        // Each entry depends only on its own section: a large Pin is parsed on all cores.
        let entries = crate::par::map_chunks(&starts, PAR_ENTRIES, |_, hs| {
            hs.iter().map(|h| parse_entry(text, h)).collect::<Vec<_>>()
        });
        let mut pin = PinView::default();
        // Where the prose not yet pushed starts (prose is the text between entries).
        let mut prose_start = 0;
        for (h, entry) in starts.iter().zip(entries.into_iter().flatten()) {
            if h.line.start > prose_start {
                pin.layout
                    .push(ItemView::Prose(&text[prose_start..h.line.start]));
            }
            prose_start = h.line.start + entry.source.len();
            pin.layout.push(ItemView::Entry(pin.entries.len()));
            pin.entries.push(entry);
        }
        if prose_start < text.len() {
            pin.layout.push(ItemView::Prose(&text[prose_start..]));
        }
        pin
    }
}

/// Parse the entry under heading `h`: its fields, up to a `---` line or the next heading.
fn parse_entry<'a>(text: &'a str, h: &Heading<'a>) -> EntryView<'a> {
    let mut e = EntryView {
        name: h.title,
        keyword_lists: Vec::with_capacity(2),
        files: Vec::with_capacity(8),
        spec: None,
        stale: false,
        notes: Vec::new(),
        line: h.number,
        file_lines: Vec::with_capacity(8),
        source: "",
    };
    let mut field: Option<Field> = None;
    let mut prev_blank = false;
    let mut in_fence = false;
    // Without a closing `---`, blank lines at the end belong to the prose after the entry.
    let mut end = h.line.end;
    for (k, l) in lines_in(text, h.line.end, h.section_end).enumerate() {
        let number = h.number + 1 + k;
        let line = l.text;
        let blank = is_blank(line);
        if !blank {
            end = l.end;
        }
        if is_fence(line) {
            in_fence = !in_fence;
            e.notes.push(line);
            field = None;
            continue;
        }
        if in_fence {
            e.notes.push(line);
            continue;
        }
        if is_rule(line) {
            end = l.end;
            break;
        }
        if blank {
            prev_blank = true;
            continue;
        }
        let blank_before = std::mem::replace(&mut prev_blank, false);
        if let Some((f, value)) = field_line(line) {
            match f {
                Field::Keywords => e.keyword_lists.push(value),
                Field::Files => {
                    for p in value.split(',').filter_map(clean_path) {
                        e.files.push(p);
                        e.file_lines.push(number);
                    }
                }
                Field::Spec => e.spec = clean_spec(value),
                Field::Status => e.stale = value.to_ascii_lowercase().contains("stale"),
            }
            field = Some(f);
            continue;
        }
        if let Some(item) = bullet_of(line) {
            match field {
                Some(Field::Keywords) => {
                    e.keyword_lists.push(item);
                    continue;
                }
                Some(Field::Files) => {
                    if let Some(p) = clean_path(item) {
                        e.files.push(p);
                        e.file_lines.push(number);
                    }
                    continue;
                }
                Some(Field::Spec) if e.spec.is_none() => {
                    e.spec = clean_spec(item);
                    continue;
                }
                _ => {}
            }
        } else if field == Some(Field::Keywords) && !blank_before {
            // Keywords continued on the next line.
            e.keyword_lists.push(line);
            continue;
        }
        field = None;
        if blank_before && !e.notes.is_empty() {
            e.notes.push("");
        }
        e.notes.push(line);
    }
    e.source = &text[h.line.start..end];
    e
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
