//! The `## Compacted History` section: what is taken from old entries, how an earlier section
//! is folded in, and how the section is written.
//!
//! Owns the section format:
//!
//! ```text
//! ## Compacted History
//! Older entries, summarised by `ralph compact`; their exact text is in .ralph/archive/.
//! <lines from earlier sections that ralph does not recognise, kept as they are>
//!
//! ### Stories
//! - US-003 (2026-01-17): <first bullet of the entry>
//!
//! ### Learnings
//! - <every learning / [PATTERN] / [GOTCHA] / [INTEGRATION] line, duplicates merged>
//! ---
//! ```
//!
//! Does not own which entries are old (`compact.rs`) or duplicate detection (`dedup.rs`).

use std::borrow::Cow;
use std::collections::HashMap;

use super::dedup::Learnings;
use super::lessons::{extract, strip_bullet};
use super::parse::{content, is_separator, lines};

/// The heading of the section.
pub(super) const HEADING: &str = "## Compacted History";
/// The line under the heading.
pub(super) const INTRO: &str =
    "Older entries, summarised by `ralph compact`; their exact text is in .ralph/archive/.";

/// One date and summary line of a story (a story has one per entry, or per earlier line).
struct Part<'a> {
    story: u32,
    date: &'a str,
    text: Cow<'a, [u8]>,
}

/// Everything the new section will hold, gathered from old entries and earlier sections.
/// Borrows from the input wherever it can: a million-line log costs little beyond itself.
#[derive(Default)]
pub(super) struct History<'a> {
    /// Story ids in order of first appearance.
    ids: Vec<&'a str>,
    index: HashMap<&'a str, u32>,
    parts: Vec<Part<'a>>,
    pub learnings: Learnings<'a>,
    /// Lines of earlier sections that are neither story lines nor learnings (hand-written notes,
    /// an earlier agent summary): kept verbatim.
    pub extras: Vec<&'a [u8]>,
    /// Entries taken in (old entries, not story lines of earlier sections).
    pub entries: usize,
}

/// Shorten an ISO date-time to its date (`2026-01-17 22:06` gives `2026-01-17`); other date
/// formats are kept as written.
fn short_date(date: &str) -> &str {
    let b = date.as_bytes();
    let iso = b.len() >= 10
        && b[..10].iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        });
    if iso { &date[..10] } else { date }
}

/// `- <id> (<dates>): <text>` as written by [`History::render`].
fn parse_story_line(t: &[u8]) -> Option<(&str, &str, &[u8])> {
    let rest = t.strip_prefix(b"- ")?;
    let open = memchr::memmem::find(rest, b" (")?;
    let close = memchr::memmem::find(rest, b"): ")?;
    if close < open {
        return None;
    }
    let id = std::str::from_utf8(&rest[..open]).ok()?;
    let dates = std::str::from_utf8(&rest[open + 2..close]).ok()?;
    if id.is_empty() || id.contains(' ') {
        return None;
    }
    Some((id, dates, &rest[close + 3..]))
}

impl<'a> History<'a> {
    fn story(&mut self, id: &'a str, date: &'a str, text: Cow<'a, [u8]>) {
        let story = match self.index.get(id) {
            Some(&i) => i,
            None => {
                let i = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
                self.index.insert(id, i);
                self.ids.push(id);
                i
            }
        };
        self.parts.push(Part {
            story,
            date: short_date(date),
            text,
        });
    }

    /// Take in one old entry (`bytes` is the whole entry, heading included).
    pub(super) fn add_entry(&mut self, bytes: &'a [u8], date: &'a str, story_id: &'a str) {
        let body = match bytes.iter().position(|&b| b == b'\n') {
            Some(i) => &bytes[i + 1..],
            None => &[],
        };
        let (first, learnings) = extract(body);
        self.story(
            story_id,
            date,
            Cow::Borrowed(first.unwrap_or(b"(no details)")),
        );
        for l in learnings {
            self.learnings.add(l);
        }
        self.entries += 1;
    }

    /// Fold an earlier `## Compacted History` section in (heading included in `bytes`).
    pub(super) fn fold_section(&mut self, bytes: &'a [u8]) {
        #[derive(PartialEq)]
        enum Mode {
            Free,
            Stories,
            Learnings,
        }
        let mut mode = Mode::Free;
        for line in lines(bytes).skip(1) {
            let c = content(line);
            let t = c.trim_ascii();
            if t.is_empty() || is_separator(line) || t == INTRO.as_bytes() {
                continue;
            }
            if let Some(title) = t.strip_prefix(b"### ") {
                let title = title.trim_ascii().to_ascii_lowercase();
                mode = match title.as_slice() {
                    b"stories" => Mode::Stories,
                    b"learnings" | b"key decisions" => Mode::Learnings,
                    _ => {
                        self.extras.push(c);
                        Mode::Free
                    }
                };
                continue;
            }
            match mode {
                Mode::Stories => match parse_story_line(t) {
                    Some((id, dates, text)) => {
                        for d in dates.split(", ") {
                            self.story(id, d, Cow::Borrowed(text));
                        }
                    }
                    None => self.extras.push(c),
                },
                Mode::Learnings => match strip_bullet(t) {
                    Some(b) => {
                        self.learnings.add(Cow::Borrowed(b));
                    }
                    None => self.extras.push(c),
                },
                Mode::Free => self.extras.push(c),
            }
        }
    }

    /// Number of story lines.
    pub(super) fn story_count(&self) -> usize {
        self.ids.len()
    }

    /// The section. `answer` (an accepted agent summary) replaces the extras and the learnings
    /// list; the story lines are always written.
    #[cfg(test)]
    pub(super) fn render(&self, eol: &[u8], answer: Option<&str>) -> Vec<u8> {
        let mut out = Vec::new();
        self.render_into(&mut out, eol, answer);
        out
    }

    /// An upper bound of the rendered size, so the output is allocated once.
    pub(super) fn size_hint(&self, eol: usize, answer: Option<&str>) -> usize {
        let fixed = HEADING.len() + INTRO.len() + 64 + 8 * eol;
        let extras: usize = self.extras.iter().map(|e| e.len() + eol).sum();
        let stories: usize = self
            .parts
            .iter()
            .map(|p| p.date.len() + p.text.len() + 4)
            .sum::<usize>()
            + self.ids.iter().map(|id| id.len() + 8 + eol).sum::<usize>();
        let tail = match answer {
            Some(a) => a.len() + a.lines().count() * eol,
            None => self.learnings.texts().map(|t| t.len() + 2 + eol).sum(),
        };
        fixed + extras + stories + tail
    }

    /// [`History::render`], appended to `out`.
    pub(super) fn render_into(&self, out: &mut Vec<u8>, eol: &[u8], answer: Option<&str>) {
        let mut line = |parts: &[&[u8]]| {
            for p in parts {
                out.extend_from_slice(p);
            }
            out.extend_from_slice(eol);
        };
        line(&[HEADING.as_bytes()]);
        line(&[INTRO.as_bytes()]);
        if answer.is_none() {
            for e in &self.extras {
                line(&[e]);
            }
        }
        if !self.ids.is_empty() {
            line(&[]);
            line(&[b"### Stories"]);
            self.story_lines(&mut line);
        }
        match answer {
            Some(a) => {
                line(&[]);
                for l in a.lines() {
                    line(&[l.as_bytes()]);
                }
            }
            None if self.learnings.len() > 0 => {
                line(&[]);
                line(&[b"### Learnings"]);
                for l in self.learnings.texts() {
                    line(&[b"- ", l]);
                }
            }
            None => {}
        }
        line(&[b"---"]);
    }

    /// A line per story of the compacted entries: `- US-001 (dates): texts`.
    fn story_lines(&self, line: &mut impl FnMut(&[&[u8]])) {
        // Group the parts by story, keeping file order within each (stable sort).
        let mut order: Vec<u32> =
            (0..u32::try_from(self.parts.len()).unwrap_or(u32::MAX)).collect();
        order.sort_by_key(|&i| self.parts[i as usize].story);
        let mut dates: Vec<&str> = Vec::new();
        let mut texts: Vec<&[u8]> = Vec::new();
        for group in
            order.chunk_by(|&a, &b| self.parts[a as usize].story == self.parts[b as usize].story)
        {
            dates.clear();
            texts.clear();
            for &i in group {
                let p = &self.parts[i as usize];
                if !p.date.is_empty() && !dates.contains(&p.date) {
                    dates.push(p.date);
                }
                if !p.text.is_empty() && !texts.contains(&p.text.as_ref()) {
                    texts.push(&p.text);
                }
            }
            let id = &self.ids[self.parts[group[0] as usize].story as usize];
            let dates = dates.join(", ");
            let texts = texts.join(&b"; "[..]);
            line(&[
                b"- ",
                id.as_bytes(),
                b" (",
                dates.as_bytes(),
                b"): ",
                &texts,
            ]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_with_nothing_gets_placeholder() {
        let mut h = History::default();
        h.add_entry(
            b"## 2026-01-17 22:00 - US-1\n---\n",
            "2026-01-17 22:00",
            "US-1",
        );
        let out = String::from_utf8(h.render(b"\n", None)).unwrap();
        assert!(out.contains("- US-1 (2026-01-17): (no details)\n"), "{out}");
    }

    #[test]
    fn story_lines_merge_retries_and_round_trip_through_fold() {
        let mut h = History::default();
        h.add_entry(
            b"## 2026-01-17 - US-1\n- tried\n---\n",
            "2026-01-17",
            "US-1",
        );
        h.add_entry(
            b"## 2026-01-18 - US-1\n- done\n---\n",
            "2026-01-18 10:00",
            "US-1",
        );
        h.add_entry(
            b"## Mon Jan 19 2026 - US-2\n- other\n---\n",
            "Mon Jan 19 2026",
            "US-2",
        );
        let first = h.render(b"\n", None);
        let text = String::from_utf8(first.clone()).unwrap();
        assert!(
            text.contains("- US-1 (2026-01-17, 2026-01-18): tried; done\n"),
            "{text}"
        );
        assert!(text.contains("- US-2 (Mon Jan 19 2026): other\n"), "{text}");
        let mut again = History::default();
        again.fold_section(&first);
        assert_eq!(again.render(b"\n", None), first);
    }

    #[test]
    fn fold_keeps_unknown_lines_and_reads_key_decisions_as_learnings() {
        let section = b"## Compacted History\nhand note\n### Summary\nWe built it.\n### Key Decisions\n- keep ids stable\n### Stories\n- US-1 (2026-01-01): a\nnot a story line\n---\n";
        let mut h = History::default();
        h.fold_section(section);
        let out = String::from_utf8(h.render(b"\n", None)).unwrap();
        assert_eq!(
            out,
            format!(
                "{HEADING}\n{INTRO}\nhand note\n### Summary\nWe built it.\nnot a story line\n\n### Stories\n- US-1 (2026-01-01): a\n\n### Learnings\n- keep ids stable\n---\n"
            )
        );
    }

    #[test]
    fn crlf_section_uses_crlf() {
        let mut h = History::default();
        h.add_entry(
            b"## 2026-01-17 - US-1\r\n- a\r\n---\r\n",
            "2026-01-17",
            "US-1",
        );
        let out = h.render(b"\r\n", None);
        assert!(out.windows(2).filter(|w| w == b"\r\n").count() >= 4);
        assert!(!out.windows(2).any(|w| w[1] == b'\n' && w[0] != b'\r'));
    }
}
