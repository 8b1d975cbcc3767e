//! progress.txt: the log the agent appends to after every iteration, and its compaction.
//!
//! Owns the file's model ([`Log`]: header, `## Codebase Patterns`, entries `## <date> - <id>`,
//! `## Compacted History`), creating a fresh log ([`new_log`]) and compaction ([`compact`]: the
//! pure policy, plus [`compact::auto`], the I/O wrapper the loop calls before each iteration).
//! Does not own where the loop reports compaction or how the agent is configured.
//!
//! The model is lossless: it keeps the original bytes, and every byte belongs to exactly one
//! [`Block`]. [`LogView`] is the same model borrowed from bytes the caller holds, copying
//! nothing (what the prompt builder reads every iteration); [`Log`] owns its bytes and texts. A hand-edited or damaged log never fails to parse; what is not an entry or a known
//! section is an [`BlockKind::Other`] block, kept as it is by compaction.

pub(crate) mod compact;
mod compacted;
pub(crate) mod compaction;
mod dedup;
pub(crate) mod lessons;
pub(crate) mod parse;
pub(crate) mod store;
pub(crate) mod summarizer;

use std::borrow::Cow;
use std::ops::Range;
use std::path::PathBuf;

pub(crate) use compaction::{Stats, SummaryMethod};
pub(crate) use parse::{Block, BlockKind, Kind};
pub(crate) use summarizer::CommandSummarizer;

/// The progress log's file name, under the project root.
pub(crate) const FILE_NAME: &str = "progress.txt";

/// One `## <date> - <story id>` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The date as written in the heading (`2026-01-17 22:06`).
    pub date: String,
    /// The story id from the heading (`US-003`).
    pub story_id: String,
    /// The whole entry, heading and closing `---` included (lossy UTF-8; the exact bytes are
    /// `Log::as_bytes()[span]`).
    pub text: String,
    /// Byte range of the entry in the file.
    pub span: Range<usize>,
    /// 1-based line number of the heading.
    pub line: usize,
}

/// A parsed progress.txt, owning its bytes and every entry's text. Built from a [`LogView`];
/// for reading a log once (the prompt), the view alone is cheaper.
#[derive(Debug, Clone)]
pub struct Log {
    bytes: Vec<u8>,
    blocks: Vec<Block>,
    entries: Vec<Entry>,
}

/// A block's text: valid UTF-8 is borrowed as is (the fast path: `from_utf8` is vectorised,
/// `from_utf8_lossy` walks chunk by chunk and was a quarter of `ralph context`'s instructions on a
/// 100,000-line log); invalid bytes become U+FFFD only in this view, never in the file.
fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The blocks in `spans`, joined in file order with a newline between them where one is missing
/// (lossy UTF-8). None when there is none.
fn joined<'r>(bytes: &[u8], spans: impl Iterator<Item = &'r Range<usize>>) -> Option<String> {
    let mut out: Option<String> = None;
    for span in spans {
        let text = text_of(&bytes[span.clone()]);
        let s = out.get_or_insert_with(String::new);
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(&text);
    }
    out
}

impl Log {
    /// Parse a progress log. Never fails: anything that is not an entry or a known section is
    /// kept as an [`BlockKind::Other`] block.
    pub fn parse(bytes: &[u8]) -> Log {
        let view = LogView::parse(bytes);
        let entries = view
            .entries()
            .map(|e| Entry {
                date: e.date.to_owned(),
                story_id: e.story_id.to_owned(),
                text: e.text().into_owned(),
                span: e.span,
                line: e.line,
            })
            .collect();
        Log {
            bytes: bytes.to_vec(),
            blocks: view.blocks.into_iter().map(Block::into_owned).collect(),
            entries,
        }
    }

    /// The exact bytes the log was parsed from.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Every block in file order; their spans cover the file exactly.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The number of lines in the file.
    pub fn line_count(&self) -> usize {
        self.blocks.iter().map(|b| b.lines).sum()
    }

    /// The whole `## Codebase Patterns` section, heading included, wherever it is in the file.
    /// When there are several, all of them, in file order. None when there is none.
    pub fn codebase_patterns(&self) -> Option<String> {
        self.joined(|k| *k == BlockKind::Patterns)
    }

    /// The `## Compacted History` section written by earlier compactions (all of them, in file
    /// order, if a hand edit left several). None when the log was never compacted.
    pub fn compacted_history(&self) -> Option<String> {
        self.joined(|k| *k == BlockKind::CompactedHistory)
    }

    /// Every entry, in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entries for one story (retries give several), in file order.
    pub fn entries_for(&self, story_id: &str) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|e| e.story_id == story_id)
            .collect()
    }

    fn joined(&self, want: impl Fn(&BlockKind) -> bool) -> Option<String> {
        let spans = self
            .blocks
            .iter()
            .filter(|b| want(&b.kind))
            .map(|b| &b.span);
        joined(&self.bytes, spans)
    }
}

/// A progress.txt read in place: one scan of borrowed bytes, nothing copied. An entry's text is
/// made only when asked for ([`EntryRef::text`]), so reading a 100,000-line log for the few
/// entries a prompt shows costs the scan alone. What `ralph context` and the loop use.
#[derive(Debug, Clone)]
pub(crate) struct LogView<'a> {
    bytes: &'a [u8],
    blocks: Vec<Block<Kind<'a>>>,
}

/// One entry of a [`LogView`], borrowed from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryRef<'v> {
    /// The date as written in the heading (`2026-01-17 22:06`).
    pub date: &'v str,
    /// The story id from the heading (`US-003`).
    pub story_id: &'v str,
    /// The entry's exact bytes, heading and closing `---` included.
    pub bytes: &'v [u8],
    /// Byte range of the entry in the file.
    pub span: Range<usize>,
    /// 1-based line number of the heading.
    pub line: usize,
}

impl<'v> EntryRef<'v> {
    /// The entry's text (lossy UTF-8: borrowed when the bytes are valid UTF-8).
    pub(crate) fn text(&self) -> Cow<'v, str> {
        text_of(self.bytes)
    }
}

impl<'a> LogView<'a> {
    /// Scan a progress log. Never fails, like [`Log::parse`], and finds the same blocks.
    pub(crate) fn parse(bytes: &'a [u8]) -> LogView<'a> {
        LogView {
            bytes,
            blocks: parse::scan_borrowed(bytes),
        }
    }

    /// The bytes the view was made from.
    #[cfg(test)]
    pub(crate) fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Every block in file order; their spans cover the file exactly.
    pub(crate) fn blocks(&self) -> &[Block<Kind<'a>>] {
        &self.blocks
    }

    /// Every entry, in file order (from the end with `.rev()`).
    pub(crate) fn entries(&self) -> impl DoubleEndedIterator<Item = EntryRef<'_>> {
        self.blocks.iter().filter_map(|b| match &b.kind {
            Kind::Entry { date, story_id } => Some(EntryRef {
                date,
                story_id,
                bytes: &self.bytes[b.span.clone()],
                span: b.span.clone(),
                line: b.line,
            }),
            _ => None,
        })
    }

    /// The latest entry for one story (the last retry), found from the end of the file.
    pub(crate) fn last_entry_for(&self, story_id: &str) -> Option<EntryRef<'_>> {
        self.entries().rev().find(|e| e.story_id == story_id)
    }

    /// The last `n` entries, in file order.
    pub(crate) fn recent_entries(&self, n: usize) -> Vec<EntryRef<'_>> {
        let mut out: Vec<EntryRef<'_>> = self.entries().rev().take(n).collect();
        out.reverse();
        out
    }

    /// Every `## Codebase Patterns` section joined, as [`Log::codebase_patterns`].
    pub(crate) fn codebase_patterns(&self) -> Option<String> {
        let spans = self.blocks.iter().filter(|b| b.kind == Kind::Patterns);
        joined(self.bytes, spans.map(|b| &b.span))
    }
}

/// A fresh progress.txt, as the bash Ralph writes it.
#[cfg(test)]
pub(crate) fn new_log(date: &str) -> String {
    format!("# Ralph Progress Log\nStarted: {date}\n---\n")
}

/// The progress.txt that follows an archived run: [`new_log`]'s header with one more line,
/// `Previous run archived in <archive_rel>`, before its `---`, then every `## Codebase Patterns`
/// section of `old` byte for byte, in file order (they describe the codebase, not the feature).
/// The archive line is in the header so that it is not read as part of a patterns section and
/// carried into the next archive. Never fails; a last section without a trailing newline gets
/// one, so the agent's next entry starts on its own line. Nothing else of `old` is kept.
pub(crate) fn fresh_after_archive(old: &[u8], archive_rel: &str, date: &str) -> Vec<u8> {
    let mut out = format!(
        "# Ralph Progress Log\nStarted: {date}\nPrevious run archived in {archive_rel}\n---\n"
    )
    .into_bytes();
    let view = LogView::parse(old);
    for b in view.blocks().iter().filter(|b| b.kind == Kind::Patterns) {
        out.extend_from_slice(&old[b.span.clone()]);
    }
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    out
}

/// The progress log path under a project root.
pub(crate) fn path_in(root: &std::path::Path) -> PathBuf {
    root.join(FILE_NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &[u8] = include_bytes!("../../tests/fixtures/compat/newralph/progress.txt");

    const FRESH: &str =
        "# Ralph Progress Log\nStarted: D\nPrevious run archived in archive/x/\n---\n";

    #[test]
    fn fresh_after_archive_without_patterns_is_the_header_and_the_archive_line() {
        assert_eq!(
            fresh_after_archive(FIXTURE, "archive/x/", "D"),
            FRESH.as_bytes()
        );
        assert_eq!(
            fresh_after_archive(b"", "archive/x/", "D"),
            FRESH.as_bytes()
        );
    }

    #[test]
    fn fresh_after_archive_keeps_every_patterns_section_verbatim() {
        // The real log, with a patterns section after its header and another at the end.
        let header_end = b"---\n".len() + FIXTURE.windows(4).position(|w| w == b"---\n").unwrap();
        let mut old = FIXTURE[..header_end].to_vec();
        old.extend_from_slice(b"## Codebase Patterns\n- use cargo nextest\n---\n");
        old.extend_from_slice(&FIXTURE[header_end..]);
        old.extend_from_slice(b"## Codebase Patterns\n- late\n");
        let want = format!(
            "{FRESH}## Codebase Patterns\n- use cargo nextest\n---\n## Codebase Patterns\n- late\n"
        );
        assert_eq!(
            String::from_utf8(fresh_after_archive(&old, "archive/x/", "D")).unwrap(),
            want
        );
    }

    #[test]
    fn fresh_after_archive_keeps_crlf_and_non_utf8_bytes_and_ends_with_a_newline() {
        let old = b"# L\r\n---\r\n## Codebase Patterns\r\n- caf\xe9\r\n## 2026-01-01 - US-1\r\n- x\r\n---\r\n## Codebase Patterns\r\n- \xff no newline";
        let mut want = FRESH.as_bytes().to_vec();
        want.extend_from_slice(
            b"## Codebase Patterns\r\n- caf\xe9\r\n## Codebase Patterns\r\n- \xff no newline\n",
        );
        assert_eq!(fresh_after_archive(old, "archive/x/", "D"), want);
        // Whatever the bytes, never a panic, and the header is always first.
        for cut in 0..old.len() {
            assert!(
                fresh_after_archive(&old[..cut], "a/", "D").starts_with(b"# Ralph Progress Log\n")
            );
        }
    }

    #[test]
    fn real_fixture_parses_into_eleven_entries() {
        let log = Log::parse(FIXTURE);
        let ids: Vec<&str> = log.entries().iter().map(|e| e.story_id.as_str()).collect();
        let want: Vec<String> = (1..=11).map(|i| format!("US-{i:03}")).collect();
        assert_eq!(ids, want);
        assert_eq!(log.entries()[0].date, "2026-01-17 22:06");
        assert!(
            log.entries()[0]
                .text
                .starts_with("## 2026-01-17 22:06 - US-001\n")
        );
        assert!(log.entries()[0].text.ends_with("---\n"));
        assert_eq!(log.entries()[0].line, 4);
        assert_eq!(log.codebase_patterns(), None);
        assert_eq!(log.compacted_history(), None);
        assert_eq!(log.line_count(), 169);
        assert_eq!(log.as_bytes(), FIXTURE);
    }

    #[test]
    fn entries_for_returns_retries_in_order() {
        let log = Log::parse(
            b"## 2026-01-01 - US-1\n- first try\n---\n## 2026-01-02 - US-2\n- x\n---\n## 2026-01-03 - US-1\n- second try\n---\n",
        );
        let got: Vec<&str> = log
            .entries_for("US-1")
            .iter()
            .map(|e| e.date.as_str())
            .collect();
        assert_eq!(got, ["2026-01-01", "2026-01-03"]);
        assert!(log.entries_for("US-9").is_empty());
    }

    #[test]
    fn two_patterns_sections_are_both_returned() {
        let log = Log::parse(
            b"## Codebase Patterns\n- top\n## 2026-01-01 - US-1\n- x\n---\n## Codebase Patterns\n- bottom",
        );
        assert_eq!(
            log.codebase_patterns().as_deref(),
            Some("## Codebase Patterns\n- top\n## Codebase Patterns\n- bottom")
        );
    }

    #[test]
    fn new_log_has_the_bash_header() {
        let text = new_log("2026-01-17");
        assert_eq!(text, "# Ralph Progress Log\nStarted: 2026-01-17\n---\n");
        let log = Log::parse(text.as_bytes());
        assert!(log.entries().is_empty());
        assert_eq!(log.blocks()[0].kind, BlockKind::Header);
    }

    #[test]
    fn view_finds_what_the_owned_log_finds() {
        let view = LogView::parse(FIXTURE);
        let log = Log::parse(FIXTURE);
        let owned: Vec<Block> = view
            .blocks()
            .iter()
            .cloned()
            .map(Block::into_owned)
            .collect();
        assert_eq!(owned, log.blocks());
        assert_eq!(view.entries().count(), 11);
        for (v, e) in view.entries().zip(log.entries()) {
            assert_eq!(
                (v.date, v.story_id, v.line),
                (e.date.as_str(), e.story_id.as_str(), e.line)
            );
            assert_eq!(
                (v.text(), &v.span),
                (Cow::Borrowed(e.text.as_str()), &e.span)
            );
        }
        assert_eq!(view.codebase_patterns(), log.codebase_patterns());
        assert_eq!(view.as_bytes(), FIXTURE);
    }

    #[test]
    fn view_last_entry_and_recent_entries() {
        let text =
            b"# Log\n---\n## Codebase Patterns\n- p\n## 2026-01-01 - US-1\n- first try\n---\n\
                     ## 2026-01-02 - US-2\n- x\n---\n## 2026-01-03 - US-1\n- second try\n---\n";
        let view = LogView::parse(text);
        let last = view.last_entry_for("US-1").unwrap();
        assert_eq!((last.date, last.line), ("2026-01-03", 11));
        assert_eq!(last.text(), "## 2026-01-03 - US-1\n- second try\n---\n");
        assert!(view.last_entry_for("US-9").is_none());
        let ids = |n| -> Vec<String> {
            view.recent_entries(n)
                .iter()
                .map(|e| e.date.to_string())
                .collect()
        };
        assert_eq!(ids(2), ["2026-01-02", "2026-01-03"]);
        assert_eq!(ids(9), ["2026-01-01", "2026-01-02", "2026-01-03"]);
        assert!(ids(0).is_empty());
        assert_eq!(
            view.codebase_patterns().as_deref(),
            Some("## Codebase Patterns\n- p\n")
        );
    }

    #[test]
    fn view_text_is_borrowed_when_utf8_and_lossy_otherwise() {
        let text =
            b"## 2026-01-01 - US-1\r\n- caf\xc3\xa9\r\n---\r\n## 2026-01-02 - US-2\n- caf\xe9";
        let view = LogView::parse(text);
        let entries: Vec<EntryRef<'_>> = view.entries().collect();
        assert!(matches!(
            entries[0].text(),
            Cow::Borrowed("## 2026-01-01 - US-1\r\n- café\r\n---\r\n")
        ));
        assert_eq!(entries[1].text(), "## 2026-01-02 - US-2\n- caf\u{fffd}");
        assert_eq!(entries[1].bytes, &text[entries[1].span.clone()]);
        assert_eq!(view.entries().next_back().map(|e| e.story_id), Some("US-2"));
    }
}
