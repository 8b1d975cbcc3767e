//! The pass over a Pin's lines that turns them into a [`PinView`]: entries (headings with field
//! lines, at the Pin's entry level) with their fields, and the prose between them.
//!
//! Owns the line splitting, the state of one entry while its lines are read, and cutting a large
//! Pin into parts at line starts that are read on all cores and joined (with a fix-up when a cut
//! falls inside a code fence), so a parallel read gives exactly what one pass does. Does not own
//! what a single line is (headings, bullets, field labels: see `parse.rs`) or writing (see the
//! parent module).

use super::entry::Pin;
use super::parse::{
    Field, bullet_of, clean_path, clean_spec, field_line, heading_of, is_blank, is_fence, is_rule,
};
use super::view::{EntryView, ItemView, PinView};

/// One line: its text without the terminator, and where it starts and ends (after the
/// terminator) in the Pin.
#[derive(Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

/// The lines of `text[from..]` (`split_inclusive('\n')`, terminators `\n`, `\r\n`, `\r\r\n`
/// stripped), with positions in `text`.
fn lines_from(text: &str, from: usize) -> impl Iterator<Item = Line<'_>> {
    let b = text.as_bytes();
    let mut start = from;
    std::iter::from_fn(move || {
        if start >= b.len() {
            return None;
        }
        let (mut keep, end) = match memchr::memchr(b'\n', &b[start..]) {
            Some(i) => (start + i, start + i + 1),
            None => (b.len(), b.len()),
        };
        while keep > start && b[keep - 1] == b'\r' {
            keep -= 1;
        }
        let line = Line {
            text: text.get(start..keep)?,
            start,
            end,
        };
        start = end;
        Some(line)
    })
}

/// Bytes per part below which a Pin is read on one thread (thread start-up costs about as much
/// as reading a few tens of KiB).
const PAR_BYTES: usize = 256 * 1024;

/// An entry while its lines are read (the body of a heading at level 2-4, up to a `---` line or
/// the next heading).
struct Open<'a> {
    e: EntryView<'a>,
    level: usize,
    /// The heading's start in the text.
    start: usize,
    /// Where the entry's text ends so far (without a closing `---`, blank lines at the end
    /// belong to the prose after it).
    end: usize,
    field: Option<Field>,
    prev_blank: bool,
    in_fence: bool,
    /// Whether a field line was read: only then is the heading an entry.
    has_fields: bool,
}

impl<'a> Open<'a> {
    fn new(line: Line<'a>, number: usize, level: usize, title: &'a str) -> Open<'a> {
        Open {
            e: EntryView {
                name: title,
                keyword_lists: Vec::with_capacity(2),
                files: Vec::with_capacity(8),
                spec: None,
                stale: false,
                kind: None,
                notes: Vec::new(),
                line: number,
                file_lines: Vec::with_capacity(8),
                source: "",
            },
            level,
            start: line.start,
            end: line.end,
            field: None,
            prev_blank: false,
            in_fence: false,
            has_fields: false,
        }
    }

    /// Read one line of the body; false when it closes the entry (a `---` line).
    fn feed(&mut self, l: Line<'a>, number: usize) -> bool {
        let line = l.text;
        let blank = is_blank(line);
        if !blank {
            self.end = l.end;
        }
        if is_fence(line) {
            self.in_fence = !self.in_fence;
            self.e.notes.push(line);
            self.field = None;
            return true;
        }
        if self.in_fence {
            self.e.notes.push(line);
            return true;
        }
        if is_rule(line) {
            self.end = l.end;
            return false;
        }
        if blank {
            self.prev_blank = true;
            return true;
        }
        let blank_before = std::mem::replace(&mut self.prev_blank, false);
        if let Some((f, value)) = field_line(line) {
            self.set_field(f, value, number);
        } else if !self.continue_field(line, number, blank_before) {
            self.note(line, blank_before);
        }
        true
    }

    /// A field line (`**Keywords**: a, b`): its value, and the field later lines continue.
    fn set_field(&mut self, f: Field, value: &'a str, number: usize) {
        let e = &mut self.e;
        self.has_fields = true;
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
            Field::Kind => e.kind = Some(value).filter(|v| !v.is_empty()),
        }
        self.field = Some(f);
    }

    /// A line that continues the current field: a bullet of its list (a spec link only when
    /// none was given), or keywords continued on the next line. False when it does not.
    fn continue_field(&mut self, line: &'a str, number: usize, blank_before: bool) -> bool {
        let e = &mut self.e;
        if let Some(item) = bullet_of(line) {
            match self.field {
                Some(Field::Keywords) => e.keyword_lists.push(item),
                Some(Field::Files) => {
                    if let Some(p) = clean_path(item) {
                        e.files.push(p);
                        e.file_lines.push(number);
                    }
                }
                Some(Field::Spec) if e.spec.is_none() => e.spec = clean_spec(item),
                _ => return false,
            }
            return true;
        }
        if self.field == Some(Field::Keywords) && !blank_before {
            e.keyword_lists.push(line);
            return true;
        }
        false
    }

    /// A line of prose inside the entry (ends the current field; a blank line before it is
    /// kept as one empty note).
    fn note(&mut self, line: &'a str, blank_before: bool) {
        self.field = None;
        if blank_before && !self.e.notes.is_empty() {
            self.e.notes.push("");
        }
        self.e.notes.push(line);
    }

    /// The finished entry, if the heading had fields.
    fn close(mut self, text: &'a str) -> Option<Candidate<'a>> {
        self.has_fields.then(|| {
            self.e.source = &text[self.start..self.end];
            // Blank lines in a fence left open at the end are not part of the entry's text.
            while self.e.notes.last().is_some_and(|n| is_blank(n)) {
                self.e.notes.pop();
            }
            Candidate {
                level: self.level,
                start: self.start,
                entry: self.e,
            }
        })
    }
}

/// A heading at level 2-4 with fields: an entry if its level is the Pin's entry level.
struct Candidate<'a> {
    level: usize,
    /// Where its text starts in the Pin.
    start: usize,
    entry: EntryView<'a>,
}

/// What reading one part of a Pin finds.
struct Part<'a> {
    /// The candidates whose heading starts in the part (line numbers counted from the part's
    /// first line).
    entries: Vec<Candidate<'a>>,
    /// Lines starting in the part.
    lines: usize,
    /// Code fence lines starting in the part.
    fences: usize,
}

/// Read the lines starting in `text[from..to]` (`from` a line start), `in_fence` telling
/// whether `from` is inside a code fence. The last entry is read past `to`, up to its end.
fn read_part<'a>(text: &'a str, from: usize, to: usize, mut in_fence: bool) -> Part<'a> {
    let close = |o: Open<'a>| o.close(text);
    let mut part = Part {
        // Entries are rarely shorter than this many bytes: room for all of them up front, so the
        // (large) candidates are not moved as the list grows.
        entries: Vec::with_capacity((to - from) / 192),
        lines: 0,
        fences: 0,
    };
    let mut open: Option<Open> = None;
    for (i, line) in lines_from(text, from).enumerate() {
        let number = i + 1;
        let inside = line.start < to;
        if !inside && open.is_none() {
            break;
        }
        part.lines += usize::from(inside);
        let fence = is_fence(line.text);
        if fence {
            in_fence = !in_fence;
            part.fences += usize::from(inside);
        }
        if !fence
            && !in_fence
            && line.text.starts_with('#')
            && let Some((level, title)) = heading_of(line.text)
        {
            part.entries.extend(open.take().and_then(close));
            if !inside {
                break;
            }
            // Only headings at levels 2-4 can be entries (see `PinView::parse`).
            if (2..=4).contains(&level) {
                open = Some(Open::new(line, number, level, title));
            }
            continue;
        }
        if let Some(o) = &mut open
            && !o.feed(line, number)
        {
            part.entries.extend(open.take().and_then(close));
        }
    }
    part.entries.extend(open.and_then(close));
    part
}

/// Where to cut `text` into `n` parts: line starts, ascending, the first 0.
fn cuts(text: &str, n: usize) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = vec![0];
    for k in 1..n {
        let at = text.len() * k / n;
        if let Some(nl) = memchr::memchr(b'\n', &b[at..]) {
            let start = at + nl + 1;
            if start < text.len() && start > *out.last().unwrap_or(&0) {
                out.push(start);
            }
        }
    }
    out
}

/// Read `text` in `n` parts (each on its own thread when `threads`) and join them: line numbers
/// made absolute, and a part that started inside a code fence (odd fence lines before it) read
/// again knowing so.
fn read_parts(text: &str, n: usize, threads: bool) -> Vec<Candidate<'_>> {
    let cuts = cuts(text, n);
    let ranges: Vec<(usize, usize)> = cuts
        .iter()
        .zip(cuts.iter().skip(1).chain([&text.len()]))
        .map(|(&a, &b)| (a, b))
        .collect();
    let read = |&(a, b): &(usize, usize)| read_part(text, a, b, false);
    let parts = if threads {
        crate::par::map_each(&ranges, read)
    } else {
        ranges.iter().map(read).collect()
    };
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.entries.len()).sum());
    let (mut lines, mut fences) = (0, 0);
    for (part, &(a, b)) in parts.into_iter().zip(&ranges) {
        let part = if fences % 2 == 1 {
            read_part(text, a, b, true)
        } else {
            part
        };
        out.extend(part.entries.into_iter().map(|mut c| {
            c.entry.line += lines;
            for l in &mut c.entry.file_lines {
                *l += lines;
            }
            c
        }));
        lines += part.lines;
        fences += part.fences;
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
    /// A large Pin is read on all cores.
    pub fn parse(text: &'a str) -> PinView<'a> {
        let n = (text.len() / PAR_BYTES).clamp(1, crate::par::cores());
        PinView::from_candidates(text, read_parts(text, n, n > 1))
    }

    /// The entry whose heading is line `line` of `text` and starts at byte `start`, read alone:
    /// exactly what [`PinView::parse`] gives for it when an entry of the Pin starts there (a
    /// search keeps where its entries start and reads only those it shows). `None` when no
    /// heading with fields starts there.
    pub(crate) fn entry_at(text: &'a str, start: usize, line: usize) -> Option<EntryView<'a>> {
        let line_start = start == 0 || text.as_bytes().get(start - 1) == Some(&b'\n');
        if start >= text.len() || !line_start || line == 0 {
            return None;
        }
        let c = read_part(text, start, start + 1, false)
            .entries
            .into_iter()
            .next()?;
        let mut e = (c.start == start).then_some(c.entry)?;
        let shift = line - 1;
        e.line = e.line.checked_add(shift)?;
        for l in &mut e.file_lines {
            *l = l.checked_add(shift)?;
        }
        Some(e)
    }

    /// [`PinView::parse`] reading the text in `parts` parts one after the other: the same result
    /// for any number of parts (for tests of the parallel read).
    #[cfg(test)]
    fn parse_in_parts(text: &'a str, parts: usize) -> PinView<'a> {
        PinView::from_candidates(text, read_parts(text, parts.max(1), false))
    }

    /// The Pin from the headings with fields at levels 2-4: entries are those at the most common
    /// such level (ties: level 3), so a section describing the format (`## Format` with field
    /// examples) stays prose.
    fn from_candidates(text: &'a str, candidates: Vec<Candidate<'a>>) -> PinView<'a> {
        let mut per_level = [0usize; 5];
        for c in &candidates {
            per_level[c.level] += 1;
        }
        let entry_level = [3, 2, 4]
            .into_iter()
            .max_by_key(|&l| (per_level[l], usize::from(l == 3)))
            .unwrap_or(3);
        let mut pin = PinView {
            entries: Vec::with_capacity(per_level[entry_level]),
            layout: Vec::new(),
            level: entry_level,
        };
        // Where the prose not yet pushed starts (prose is the text between entries).
        let mut prose_start = 0;
        for c in candidates {
            if c.level != entry_level {
                continue;
            }
            if c.start > prose_start {
                pin.layout
                    .push(ItemView::Prose(&text[prose_start..c.start]));
            }
            prose_start = c.start + c.entry.source.len();
            pin.layout.push(ItemView::Entry(pin.entries.len()));
            pin.entries.push(c.entry);
        }
        if prose_start < text.len() {
            pin.layout.push(ItemView::Prose(&text[prose_start..]));
        }
        pin
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines that matter to the pass: headings, fields, bullets, rules, fences, prose, blanks.
    const FRAGS: &[&str] = &[
        "# The Pin",
        "## Modules",
        "### Parser",
        "#### Sub",
        "##### five",
        "**Keywords**: a, b",
        "  grammar, ast",
        "**File Paths**:",
        "- src/a.rs",
        "* `src/b c.rs` - desc",
        "**Spec Link**: N/A",
        "**Status**: stale",
        "---",
        "```",
        "   ~~~",
        "",
        "Some prose.",
        "- **Keywords**: x",
    ];

    #[test]
    fn a_cut_inside_a_code_fence_is_read_again() {
        let mut text = String::new();
        for i in 0..40 {
            text += &format!("### real {i}\n**Keywords**: k{i}\n**File Paths**:\n- a{i}.rs\n\n");
            text += "```\n### fenced\n**Keywords**: no\n```\n\n";
        }
        let one = PinView::parse_in_parts(&text, 1);
        assert_eq!(one.entries().len(), 40);
        for parts in 2..=24 {
            let many = PinView::parse_in_parts(&text, parts);
            assert_eq!(many, one, "{parts} parts");
        }
    }

    proptest! {
        #[test]
        fn any_number_of_parts_reads_like_one_pass(
            picks in proptest::collection::vec((0..FRAGS.len(), 0..3u8), 0..60),
            parts in 2..9usize,
        ) {
            let mut text = String::new();
            for (f, end) in picks {
                text += FRAGS[f];
                text += ["\n", "\r\n", "\n\n"][usize::from(end)];
            }
            let one = PinView::parse_in_parts(&text, 1);
            prop_assert_eq!(&PinView::parse_in_parts(&text, parts), &one);

        }
    }
}
