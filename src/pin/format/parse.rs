//! Parsing specs/INDEX.md: a line-based, lenient reader that never fails.
//!
//! Owns recognising entries (headings with field lines, at the Pin's entry level), their fields
//! (keywords inline, continued or as bullets; file bullets; spec link; status) and keeping the
//! exact text of each entry and of the prose between them. Does not own writing (see the parent
//! module).

use std::sync::LazyLock;

use regex::Regex;

use super::{Entry, Item, LINK, Pin, TICKS};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Keywords,
    Files,
    Spec,
    Status,
}

static HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(#{1,6})\s+(.*?)\s*#*\s*$").expect("valid regex"));
static FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:[-*+]\s+)?(?:\*\*|__)?\s*(keywords?|key ?words|tags|file ?paths?|files|paths|spec ?links?|specs?|specification|status)\s*(?::\s*(?:\*\*|__)|(?:\*\*|__)\s*:|:)\s*(.*)$",
    )
    .expect("valid regex")
});
static BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$").expect("valid regex"));
static RULE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$").expect("valid regex"));
fn field_of(label: &str) -> Field {
    let l = label.to_ascii_lowercase();
    if l.starts_with("key") || l == "tags" {
        Field::Keywords
    } else if l.starts_with("file") || l == "paths" {
        Field::Files
    } else if l.starts_with("status") {
        Field::Status
    } else {
        Field::Spec
    }
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Split a keyword list on commas; blanks dropped.
fn split_keywords(text: &str, out: &mut Vec<String>) {
    for k in text.split(',') {
        let k = k.trim().trim_matches('`').trim();
        if !k.is_empty() {
            out.push(k.to_string());
        }
    }
}

/// The path in one file bullet: a link target, text in backticks, or the first word.
fn clean_path(text: &str) -> Option<String> {
    let t = text.trim();
    let p = if let Some(c) = LINK.captures(t) {
        c[1].to_string()
    } else if let Some(c) = TICKS.captures(t) {
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
            } else if !in_fence && let Some(c) = HEADING.captures(l.text) {
                heading[i] = Some((c[1].len(), c[2].to_string()));
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
                } else if !fence && FIELD.is_match(l.text) {
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
        if RULE.is_match(text) {
            closed = true;
            break;
        }
        if text.trim().is_empty() {
            prev_blank = true;
            continue;
        }
        let blank_before = std::mem::replace(&mut prev_blank, false);
        if let Some(c) = FIELD.captures(text) {
            let f = field_of(&c[1]);
            let value = c[2].trim();
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
        if let Some(c) = BULLET.captures(text) {
            match field {
                Some(Field::Keywords) => {
                    split_keywords(&c[1], &mut e.keywords);
                    continue;
                }
                Some(Field::Files) => {
                    if let Some(p) = clean_path(&c[1]) {
                        e.files.push(p);
                        e.file_lines.push(i);
                    }
                    continue;
                }
                Some(Field::Spec) if e.spec.is_none() => {
                    e.spec = clean_spec(&c[1]);
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
    let text: String = lines[start..end].iter().map(|l| l.raw).collect();
    e.source = Some(Box::new((text, e.fields())));
    (e, end)
}
