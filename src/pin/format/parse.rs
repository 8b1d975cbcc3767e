//! Parsing specs/INDEX.md: a line-based, lenient reader that never fails.
//!
//! Owns recognising entries (headings with field lines, at the Pin's entry level), their fields
//! (keywords inline, continued or as bullets; file bullets; spec link; status) and keeping the
//! exact text of each entry and of the prose between them. Does not own writing (see the parent
//! module).

use super::{Entry, Item, LINK, Pin, TICKS};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Keywords,
    Files,
    Spec,
    Status,
}

/// `# Title ##` → (level, "Title"); `None` unless 1-6 `#` are followed by a space.
fn heading_of(line: &str) -> Option<(usize, String)> {
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
    Some((level, title.to_string()))
}

/// The text of a bullet (`-`, `*`, `+` or `1.`/`1)` then a space), if the line is one.
fn bullet_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = if digits > 0 {
        t[digits..].strip_prefix(['.', ')'])?
    } else {
        t.strip_prefix(['-', '*', '+'])?
    };
    rest.starts_with([' ', '\t']).then(|| rest.trim())
}

/// A thematic break: three or more `-`, `*` or `_` alone on a line.
fn is_rule(line: &str) -> bool {
    let t = line.trim().as_bytes();
    t.len() >= 3 && matches!(t[0], b'-' | b'*' | b'_') && t.iter().all(|&b| b == t[0])
}

/// A field line (`**Keywords**: a, b`, `**Keywords:** a`, `- Files:`, …): its field and value.
fn field_line(line: &str) -> Option<(Field, &str)> {
    let mut t = line.trim_start();
    if let Some(r) = t.strip_prefix(['-', '*', '+'])
        && r.starts_with([' ', '\t'])
    {
        t = r.trim_start();
    }
    let bold = |s: &str| s.starts_with("**") || s.starts_with("__");
    let emph = bold(t);
    if emph {
        t = t[2..].trim_start();
    }
    let end = t.find(|c: char| !(c.is_ascii_alphabetic() || c == ' '))?;
    let field = field_named(t[..end].trim_end())?;
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

fn field_named(label: &str) -> Option<Field> {
    // The longest name is 13 letters; `label` is ASCII letters and spaces (see `field_line`).
    let mut buf = [0u8; 16];
    let mut n = 0;
    for b in label.bytes().filter(|&b| b != b' ') {
        *buf.get_mut(n)? = b.to_ascii_lowercase();
        n += 1;
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
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Split a keyword list on commas; blanks dropped.
fn split_keywords(text: &str, out: &mut Vec<String>) {
    for k in text.split(',') {
        let mut k = k.trim();
        if k.contains('`') {
            k = k.trim_matches('`').trim();
        }
        if !k.is_empty() {
            out.push(k.to_string());
        }
    }
}

/// The path in one file bullet: a link target, text in backticks, or the first word.
fn clean_path(text: &str) -> Option<String> {
    let t = text.trim();
    let p = if let Some(c) = t.contains('[').then(|| LINK.captures(t)).flatten() {
        c[1].to_string()
    } else if let Some(c) = t.contains('`').then(|| TICKS.captures(t)).flatten() {
        c[1].trim().to_string()
    } else {
        t.split_whitespace().next()?.to_string()
    };
    let p = p.trim_end_matches([',', ';']).to_string();
    (!p.is_empty()).then_some(p)
}

fn clean_spec(text: &str) -> Option<String> {
    let t = text.trim();
    let l = t.to_ascii_lowercase();
    if t.is_empty()
        || matches!(
            l.as_str(),
            "n/a" | "na" | "none" | "-" | "—" | "_n/a_" | "*n/a*"
        )
    {
        None
    } else {
        Some(t.to_string())
    }
}

struct Line<'a> {
    raw: &'a str,
    text: &'a str,
}

impl Pin {
    /// Parse a Pin. Never fails: text that is not an entry is kept as prose.
    pub fn parse(text: &str) -> Pin {
        let lines: Vec<Line> = text
            .split_inclusive('\n')
            .map(|raw| Line {
                raw,
                text: raw.trim_end_matches(['\n', '\r']),
            })
            .collect();
        // Which lines are real headings (outside code fences), and which headings start entries.
        let mut in_fence = false;
        let mut heading = vec![None; lines.len()];
        for (i, l) in lines.iter().enumerate() {
            if is_fence(l.text) {
                in_fence = !in_fence;
            } else if !in_fence
                && l.text.starts_with('#')
                && let Some(h) = heading_of(l.text)
            {
                heading[i] = Some(h);
            }
        }
        let has_fields = |i: usize| -> bool {
            let Some((level, _)) = &heading[i] else {
                return false;
            };
            if !(2..=4).contains(level) {
                return false;
            }
            let mut fence = false;
            for (j, l) in lines.iter().enumerate().skip(i + 1) {
                if heading[j].is_some() {
                    return false;
                }
                if is_fence(l.text) {
                    fence = !fence;
                } else if !fence && field_line(l.text).is_some() {
                    return true;
                }
            }
            false
        };
        // Entries are the headings with fields at the most common such level (ties: level 3),
        // so a section describing the format (`## Format` with field examples) stays prose.
        let candidates: Vec<bool> = (0..lines.len()).map(has_fields).collect();
        let mut per_level = [0usize; 5];
        for (i, c) in candidates.iter().enumerate() {
            if let (true, Some((level, _))) = (c, &heading[i]) {
                per_level[*level] += 1;
            }
        }
        let entry_level = [3, 2, 4]
            .into_iter()
            .max_by_key(|&l| (per_level[l], usize::from(l == 3)))
            .unwrap_or(3);
        let starts_entry = |i: usize| -> bool {
            candidates[i] && heading[i].as_ref().is_some_and(|h| h.0 == entry_level)
        };

        let mut pin = Pin::default();
        let mut prose = String::new();
        let mut i = 0;
        while i < lines.len() {
            if !starts_entry(i) {
                prose.push_str(lines[i].raw);
                i += 1;
                continue;
            }
            if !prose.is_empty() {
                pin.layout.push(Item::Prose(std::mem::take(&mut prose)));
            }
            let (entry, next) = parse_entry(&lines, &heading, i);
            pin.layout.push(Item::Entry(pin.entries.len()));
            pin.entries.push(entry);
            i = next;
        }
        if !prose.is_empty() {
            pin.layout.push(Item::Prose(prose));
        }
        pin
    }
}

/// Parse the entry whose heading is line `start`; returns it and the first line after it.
fn parse_entry(
    lines: &[Line],
    heading: &[Option<(usize, String)>],
    start: usize,
) -> (Entry, usize) {
    let name = heading[start]
        .as_ref()
        .map(|h| h.1.clone())
        .unwrap_or_default();
    let mut e = Entry::new(name);
    e.line = start + 1;
    let mut field: Option<Field> = None;
    let mut prev_blank = false;
    let mut in_fence = false;
    let mut i = start + 1;
    let mut closed = false;
    while i < lines.len() {
        let text = lines[i].text;
        if heading[i].is_some() {
            break;
        }
        i += 1;
        if is_fence(text) {
            in_fence = !in_fence;
            e.notes.push(text.to_string());
            field = None;
            continue;
        }
        if in_fence {
            e.notes.push(text.to_string());
            continue;
        }
        if is_rule(text) {
            closed = true;
            break;
        }
        if text.trim().is_empty() {
            prev_blank = true;
            continue;
        }
        let blank_before = std::mem::replace(&mut prev_blank, false);
        if let Some((f, value)) = field_line(text) {
            match f {
                Field::Keywords => split_keywords(value, &mut e.keywords),
                Field::Files => {
                    for p in value.split(',').filter_map(clean_path) {
                        e.files.push(p);
                        e.file_lines.push(i);
                    }
                }
                Field::Spec => e.spec = clean_spec(value),
                Field::Status => e.stale = value.to_ascii_lowercase().contains("stale"),
            }
            field = Some(f);
            continue;
        }
        if let Some(item) = bullet_of(text) {
            match field {
                Some(Field::Keywords) => {
                    split_keywords(item, &mut e.keywords);
                    continue;
                }
                Some(Field::Files) => {
                    if let Some(p) = clean_path(item) {
                        e.files.push(p);
                        e.file_lines.push(i);
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
            split_keywords(text, &mut e.keywords);
            continue;
        }
        field = None;
        if blank_before && !e.notes.is_empty() {
            e.notes.push(String::new());
        }
        e.notes.push(text.to_string());
    }
    // Blank lines at the end of an unclosed entry belong to the prose after it.
    let mut end = i;
    if !closed {
        while end > start + 1 && lines[end - 1].text.trim().is_empty() {
            end -= 1;
        }
    }
    let text: String = lines[start..end]
        .iter()
        .map(|l| l.raw)
        .collect::<Vec<&str>>()
        .concat();
    e.source = Some(text);
    (e, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_bullets_and_rules() {
        assert_eq!(heading_of("### Name ##"), Some((3, "Name".into())));
        assert_eq!(heading_of("## C#"), Some((2, "C#".into())));
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
