//! The block scanner: splits progress.txt bytes into header, sections and entries.
//!
//! Owns how a line is classified (heading, `---` separator, code fence) and where each block
//! starts and ends. Works on raw bytes and never fails: every byte of the input belongs to exactly
//! one block, so concatenating the blocks gives the input back (CRLF and non-UTF-8 included).
//! Does not own what blocks mean for compaction (see `compact.rs`) or the public model (`mod.rs`).

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

/// One block of the file: a byte span and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    /// Byte range in the input, terminators included.
    pub span: Range<usize>,
    /// 1-based line number of the block's first line.
    pub line: usize,
    /// Number of lines in the block.
    pub lines: usize,
}

/// The lines of `bytes`, each with its terminator (`\n` or `\r\n`) still attached.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
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
pub fn content(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Number of lines, counting a last line without a terminator.
pub fn count_lines(bytes: &[u8]) -> usize {
    let unterminated = !bytes.is_empty() && !bytes.ends_with(b"\n");
    memchr::memchr_iter(b'\n', bytes).count() + usize::from(unterminated)
}

/// The title of a `## ` heading line (`## Foo` gives `Foo`), or None for any other line.
/// `### ` and deeper headings are not section headings.
pub fn heading_title(line: &[u8]) -> Option<&[u8]> {
    content(line).strip_prefix(b"## ").map(|t| t.trim_ascii())
}

/// A separator line: three or more dashes and nothing else (surrounding spaces allowed).
pub fn is_separator(line: &[u8]) -> bool {
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

/// Parse an entry heading title `<date> - <story id>[ anything]`. The date must contain a digit
/// and the id must be non-empty; otherwise the heading is not an entry.
pub fn parse_entry_title(title: &[u8]) -> Option<(String, String)> {
    let title = String::from_utf8_lossy(title);
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
    if id.is_empty() || !date.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((date.to_string(), id.to_string()))
}

fn classify(title: &[u8]) -> BlockKind {
    if starts_with_ignore_case(title, b"codebase patterns") {
        BlockKind::Patterns
    } else if starts_with_ignore_case(title, b"compacted history") {
        BlockKind::CompactedHistory
    } else if let Some((date, story_id)) = parse_entry_title(title) {
        BlockKind::Entry { date, story_id }
    } else {
        BlockKind::Other
    }
}

/// Split `bytes` into blocks. Never fails; the blocks' spans are contiguous and cover the input.
pub fn scan(bytes: &[u8]) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    // The block being built: kind, start byte, first line, line count, and (for entries) whether
    // we are inside a code fence.
    let mut cur = Block {
        kind: BlockKind::Header,
        span: 0..0,
        line: 1,
        lines: 0,
    };
    let mut in_fence = false;
    let mut pos = 0usize;
    let mut line_no = 0usize;
    for line in lines(bytes) {
        line_no += 1;
        let start = pos;
        pos += line.len();
        if let Some(title) = heading_title(line) {
            // A `## ` heading always starts a new block, fence or not: an unclosed fence can
            // never swallow the rest of the file.
            push(&mut blocks, &mut cur, start, classify(title), line_no);
            in_fence = false;
            cur.lines = 1;
            continue;
        }
        cur.lines += 1;
        if !matches!(cur.kind, BlockKind::Entry { .. }) {
            continue;
        }
        if is_fence(line) {
            in_fence = !in_fence;
        } else if !in_fence && is_separator(line) {
            // The entry ends with this line; what follows until the next heading is Other.
            push(&mut blocks, &mut cur, pos, BlockKind::Other, line_no + 1);
            cur.lines = 0;
        }
    }
    cur.span.end = pos;
    if cur.lines > 0 || blocks.is_empty() {
        blocks.push(cur);
    }
    blocks
}

/// Close the current block at byte `at` (if it has any line) and start a new one there.
fn push(blocks: &mut Vec<Block>, cur: &mut Block, at: usize, kind: BlockKind, line: usize) {
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
mod tests {
    use super::*;

    fn kinds(bytes: &[u8]) -> Vec<String> {
        scan(bytes)
            .iter()
            .map(|b| match &b.kind {
                BlockKind::Entry { story_id, .. } => format!("E:{story_id}"),
                k => format!("{k:?}"),
            })
            .collect()
    }

    fn assert_covers(bytes: &[u8]) {
        let blocks = scan(bytes);
        let mut joined = Vec::new();
        let mut next = 0;
        let mut lines = 0;
        for b in &blocks {
            assert_eq!(b.span.start, next, "blocks must be contiguous");
            next = b.span.end;
            joined.extend_from_slice(&bytes[b.span.clone()]);
            assert_eq!(b.lines, count_lines(&bytes[b.span.clone()]));
            assert_eq!(b.line, lines + 1);
            lines += b.lines;
        }
        assert_eq!(joined, bytes);
    }

    #[test]
    fn entry_title_forms() {
        let p = |s: &str| parse_entry_title(s.as_bytes());
        assert_eq!(
            p("2026-01-17 22:06 - US-001"),
            Some(("2026-01-17 22:06".into(), "US-001".into()))
        );
        assert_eq!(
            p("[2026-01-17] - US-7: login form"),
            Some(("2026-01-17".into(), "US-7".into()))
        );
        assert_eq!(p("Notes - misc"), None);
        assert_eq!(p("2026-01-17"), None);
        assert_eq!(p("2026-01-17 - "), None);
    }

    #[test]
    fn scans_header_patterns_entries_and_other() {
        let text = "# Ralph Progress Log\nStarted: x\n---\n## Codebase Patterns\n- p\n---\n\
                    ## 2026-01-17 - US-001\n- a\n---\n\n## Notes\nfree text\n## 2026-01-18 - US-002\n- b\n---\n";
        assert_eq!(
            kinds(text.as_bytes()),
            [
                "Header", "Patterns", "E:US-001", "Other", "Other", "E:US-002"
            ]
        );
        assert_covers(text.as_bytes());
    }

    #[test]
    fn entry_without_separator_ends_at_next_heading_or_eof() {
        let text = b"## 2026-01-17 - US-001\n- a\n## 2026-01-18 - US-002\n- b";
        assert_eq!(kinds(text), ["E:US-001", "E:US-002"]);
        assert_covers(text);
    }

    #[test]
    fn separator_inside_fence_does_not_end_entry_but_heading_does() {
        let text = b"## 2026-01-17 - US-001\n```\n---\n```\n- a\n---\n## 2026-01-18 - US-002\n```\n## 2026-01-19 - US-003\n---\n";
        let blocks = scan(text);
        assert_eq!(kinds(text), ["E:US-001", "E:US-002", "E:US-003"]);
        assert_eq!(blocks[0].lines, 6);
        assert_covers(text);
    }

    #[test]
    fn empty_and_headerless_inputs() {
        assert_eq!(kinds(b""), ["Header"]);
        assert_eq!(scan(b"")[0].lines, 0);
        assert_eq!(kinds(b"just text\nno newline"), ["Header"]);
        assert_covers(b"just text\nno newline");
    }

    #[test]
    fn crlf_and_non_utf8_are_covered() {
        let text = b"# Log\r\n---\r\n## 2026-01-17 - US-001\r\n- caf\xe9 \xff\r\n---\r\n";
        assert_eq!(kinds(text), ["Header", "E:US-001"]);
        assert_covers(text);
    }

    #[test]
    fn deeper_headings_stay_inside_their_section() {
        let text =
            b"## Codebase Patterns\n### Testing\n- p\n## 2026-01-17 - US-001\n### sub\n---\n";
        assert_eq!(kinds(text), ["Patterns", "E:US-001"]);
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_covered_losslessly(bytes in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::strategy::Just(b"## 2026-01-01 - US-1\n".to_vec()),
                proptest::strategy::Just(b"## Codebase Patterns\n".to_vec()),
                proptest::strategy::Just(b"## Compacted History\n".to_vec()),
                proptest::strategy::Just(b"---\r\n".to_vec()),
                proptest::strategy::Just(b"```\n".to_vec()),
                proptest::collection::vec(proptest::num::u8::ANY, 0..12),
            ], 0..40)) {
            let bytes: Vec<u8> = bytes.concat();
            assert_covers(&bytes);
        }
    }
}
