//! The block scanner: splits progress.txt bytes into header, sections and entries.
//!
//! Owns how a line is classified (heading, `---` separator, code fence) and where each block
//! starts and ends. Works on raw bytes and never fails: every byte of the input belongs to exactly
//! one block, so concatenating the blocks gives the input back (CRLF and non-UTF-8 included).
//! Does not own what blocks mean for compaction (see `compact.rs`) or the public model (`mod.rs`).

use std::borrow::Cow;
use std::ops::Range;

/// What a block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockKind {
    /// Everything before the first `## ` heading (`# Ralph Progress Log`, `Started: …`, `---`).
    Header,
    /// A `## Codebase Patterns` section, up to the next `## ` heading.
    Patterns,
    /// A `## Compacted History` section written by an earlier compaction, up to the next `## `.
    CompactedHistory,
    /// A `## <date> - <story id>` entry, up to and including its first `---` line (or up to the
    /// next `## ` heading when the `---` is missing).
    Entry { date: String, story_id: String },
    /// Anything else, kept as it is: another `## ` section, or text between an entry's `---` and
    /// the next heading.
    Other,
}

/// [`BlockKind`] borrowing from the scanned bytes (what [`scan_borrowed`] gives): an entry's
/// date and id are slices of its heading, copied only when the heading is not valid UTF-8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind<'a> {
    Header,
    Patterns,
    CompactedHistory,
    Entry {
        date: Cow<'a, str>,
        story_id: Cow<'a, str>,
    },
    Other,
}

impl Kind<'_> {
    /// The owned [`BlockKind`].
    pub fn into_owned(self) -> BlockKind {
        match self {
            Kind::Header => BlockKind::Header,
            Kind::Patterns => BlockKind::Patterns,
            Kind::CompactedHistory => BlockKind::CompactedHistory,
            Kind::Entry { date, story_id } => BlockKind::Entry {
                date: date.into_owned(),
                story_id: story_id.into_owned(),
            },
            Kind::Other => BlockKind::Other,
        }
    }
}

/// One block of the file: a byte span and where it starts. `K` is [`BlockKind`] (owned, what
/// [`scan`] gives) or [`Kind`] (borrowed, what [`scan_borrowed`] gives).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<K = BlockKind> {
    pub kind: K,
    /// Byte range in the input, terminators included.
    pub span: Range<usize>,
    /// 1-based line number of the block's first line.
    pub line: usize,
    /// Number of lines in the block.
    pub lines: usize,
}

/// The lines of `bytes`, each with its terminator (`\n` or `\r\n`) still attached.
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

/// A line without its `\n` / `\r\n` terminator.
pub(crate) fn content(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Number of lines, counting a last line without a terminator.
pub(crate) fn count_lines(bytes: &[u8]) -> usize {
    let unterminated = !bytes.is_empty() && !bytes.ends_with(b"\n");
    memchr::memchr_iter(b'\n', bytes).count() + usize::from(unterminated)
}

/// The title of a `## ` heading line (`## Foo` gives `Foo`), or None for any other line.
/// `### ` and deeper headings are not section headings.
pub(crate) fn heading_title(line: &[u8]) -> Option<&[u8]> {
    content(line).strip_prefix(b"## ").map(|t| t.trim_ascii())
}

/// A separator line: three or more dashes and nothing else (surrounding spaces allowed).
pub(crate) fn is_separator(line: &[u8]) -> bool {
    let t = content(line).trim_ascii();
    t.len() >= 3 && t.iter().all(|&b| b == b'-')
}

/// A code fence line (```` ``` ```` or `~~~`): `---` inside a fence does not end an entry.
fn is_fence(line: &[u8]) -> bool {
    let t = content(line).trim_ascii_start();
    t.starts_with(b"```") || t.starts_with(b"~~~")
}

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Whitespace as `char::is_whitespace` sees it, for ASCII bytes (it includes `\x0B`, which
/// `u8::is_ascii_whitespace` does not).
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r')
}

/// Parse an entry heading title `<date> - <story id>[ anything]`. The date must contain a digit
/// and the id must be non-empty; otherwise the heading is not an entry.
#[cfg(test)]
pub(crate) fn parse_entry_title(title: &[u8]) -> Option<(String, String)> {
    entry_title(title).map(|(date, id)| (date.into_owned(), id.into_owned()))
}

/// [`parse_entry_title`] without copies: both parts borrow from `title` unless it is not valid
/// UTF-8 (then they are lossy copies).
pub(crate) fn entry_title(title: &[u8]) -> Option<(Cow<'_, str>, Cow<'_, str>)> {
    match std::str::from_utf8(title) {
        Ok(s) => {
            let (date, id) = split_title(s)?;
            Some((Cow::Borrowed(date), Cow::Borrowed(id)))
        }
        Err(_) => {
            let s = String::from_utf8_lossy(title);
            let (date, id) = split_title(&s)?;
            Some((Cow::Owned(date.to_owned()), Cow::Owned(id.to_owned())))
        }
    }
}

/// The date and id of an entry title; see [`entry_title`].
fn split_title(title: &str) -> Option<(&str, &str)> {
    let (date, id) = if title.is_ascii() {
        let (date, id) = split_ascii_title(title.as_bytes())?;
        (title.get(date)?, title.get(id)?)
    } else {
        split_unicode_title(title)?
    };
    if id.is_empty() || !date.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((date, id))
}

/// The fast path for ASCII titles (almost all of them): index scans, no char decoding and no
/// searcher to build, same result as [`split_unicode_title`]. The byte ranges of date and id.
fn split_ascii_title(t: &[u8]) -> Option<(Range<usize>, Range<usize>)> {
    let dash = (1..t.len().saturating_sub(1))
        .find(|&i| t[i] == b'-' && t[i - 1] == b' ' && t[i + 1] == b' ')?;
    // The date: trimmed, then `[`s and `]`s stripped, then trimmed again.
    let mut date = trim_ws(t, 0..dash - 1);
    while date.start < date.end && t[date.start] == b'[' {
        date.start += 1;
    }
    while date.end > date.start && t[date.end - 1] == b']' {
        date.end -= 1;
    }
    let date = trim_ws(t, date);
    // The id: the first whitespace-separated word after ` - `, without trailing `:,;`.
    let mut c = dash + 2;
    while c < t.len() && is_ws(t[c]) {
        c += 1;
    }
    if c == t.len() {
        return None;
    }
    let mut d = c;
    while d < t.len() && !is_ws(t[d]) {
        d += 1;
    }
    while d > c && matches!(t[d - 1], b':' | b',' | b';') {
        d -= 1;
    }
    Some((date, c..d))
}

/// `r` narrowed past whitespace at both ends of `t[r]`.
fn trim_ws(t: &[u8], mut r: Range<usize>) -> Range<usize> {
    while r.start < r.end && is_ws(t[r.start]) {
        r.start += 1;
    }
    while r.end > r.start && is_ws(t[r.end - 1]) {
        r.end -= 1;
    }
    r
}

/// The general path: `str` methods, Unicode whitespace included.
fn split_unicode_title(title: &str) -> Option<(&str, &str)> {
    let (date, rest) = title.split_once(" - ")?;
    let date = date
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    let id = rest
        .split_whitespace()
        .next()?
        .trim_end_matches([':', ',', ';']);
    Some((date, id))
}

fn classify(title: &[u8]) -> Kind<'_> {
    // Entry titles start with a digit or `[`: skip the section-name compares for them.
    let first = title.first().map_or(0, |b| b.to_ascii_lowercase());
    if first == b'c' && starts_with_ignore_case(title, b"codebase patterns") {
        Kind::Patterns
    } else if first == b'c' && starts_with_ignore_case(title, b"compacted history") {
        Kind::CompactedHistory
    } else if let Some((date, story_id)) = entry_title(title) {
        Kind::Entry { date, story_id }
    } else {
        Kind::Other
    }
}

impl Block<Kind<'_>> {
    /// The same block with an owned [`BlockKind`].
    pub fn into_owned(self) -> Block {
        Block {
            kind: self.kind.into_owned(),
            span: self.span,
            line: self.line,
            lines: self.lines,
        }
    }
}

/// Split `bytes` into blocks. Never fails; the blocks' spans are contiguous and cover the input.
pub fn scan(bytes: &[u8]) -> Vec<Block> {
    scan_borrowed(bytes)
        .into_iter()
        .map(Block::into_owned)
        .collect()
}

/// What a line inside an entry is, for the scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Fence,
    Separator,
    Text,
}

/// Classify a non-empty line inside an entry, from its first byte where that is enough: most
/// lines (`- did x`, prose) cost one or two compares, only indented lines get both full checks.
fn entry_mark(line: &[u8], first: u8) -> Mark {
    let (fence, separator) = match first {
        // `--` at least: `- item` is decided by its second byte.
        b'-' => (false, line.get(1) == Some(&b'-')),
        b'`' | b'~' => (true, false),
        b' ' | b'\t' | b'\r' | b'\x0C' => (true, true),
        _ => (false, false),
    };
    if fence && is_fence(line) {
        Mark::Fence
    } else if separator && is_separator(line) {
        Mark::Separator
    } else {
        Mark::Text
    }
}

/// [`scan`] without copying anything: entry dates and ids borrow from `bytes`.
///
/// One pass of `memchr_iter` over the whole input finds the line ends; a line costs a
/// first-byte check unless it can be a heading, a fence or a separator.
pub(crate) fn scan_borrowed(bytes: &[u8]) -> Vec<Block<Kind<'_>>> {
    let mut blocks: Vec<Block<Kind<'_>>> = Vec::new();
    let mut cur = Block {
        kind: Kind::Header,
        span: 0..0,
        line: 1,
        lines: 0,
    };
    let mut in_entry = false;
    let mut in_fence = false;
    let mut ends = memchr::memchr_iter(b'\n', bytes);
    let mut start = 0usize;
    let mut line_no = 0usize;
    while start < bytes.len() {
        let end = ends.next().map_or(bytes.len(), |i| i + 1);
        let line = &bytes[start..end];
        line_no += 1;
        let first = line[0];
        if first == b'#'
            && let Some(title) = heading_title(line)
        {
            // A `## ` heading always starts a new block, fence or not: an unclosed fence can
            // never swallow the rest of the file.
            let kind = classify(title);
            in_entry = matches!(kind, Kind::Entry { .. });
            push(&mut blocks, &mut cur, start, kind, line_no);
            in_fence = false;
            cur.lines = 1;
        } else {
            cur.lines += 1;
            if in_entry {
                match entry_mark(line, first) {
                    Mark::Fence => in_fence = !in_fence,
                    Mark::Separator if !in_fence => {
                        // The entry ends with this line; what follows until the next heading
                        // is Other.
                        push(&mut blocks, &mut cur, end, Kind::Other, line_no + 1);
                        in_entry = false;
                        cur.lines = 0;
                    }
                    _ => {}
                }
            }
        }
        start = end;
    }
    cur.span.end = start;
    if cur.lines > 0 || blocks.is_empty() {
        blocks.push(cur);
    }
    blocks
}

/// Close the current block at byte `at` (if it has any line) and start a new one there.
fn push<K>(blocks: &mut Vec<Block<K>>, cur: &mut Block<K>, at: usize, kind: K, line: usize) {
    let next = Block {
        kind,
        span: at..at,
        line,
        lines: 0,
    };
    let mut done = std::mem::replace(cur, next);
    done.span.end = at;
    if done.lines > 0 {
        blocks.push(done);
    }
}

#[cfg(test)]
mod tests;
