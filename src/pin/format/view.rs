//! Borrowed views of a parsed Pin: every field is a slice of the text it was parsed from.
//!
//! Owns [`PinView`] and [`EntryView`], what the parser produces, and their conversion to the
//! owned [`Pin`] and [`Entry`] that generation edits. Readers that only look (search, the context
//! builder) use a view and allocate nothing per keyword or path. Does not own the parsing rules
//! (see `parse.rs`) or writing (see the parent module).

use super::entry::{Entry, Item, Pin};
use super::parse::{LINK, TICKS};

/// One Pin entry, borrowed from the Pin's text (see [`Entry`] for the meaning of each field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryView<'a> {
    pub name: &'a str,
    /// The keyword lists as written (comma-separated; split by [`EntryView::keywords`]).
    pub keyword_lists: Vec<&'a str>,
    pub files: Vec<&'a str>,
    pub spec: Option<&'a str>,
    pub stale: bool,
    /// What the entry holds when it is not product code (`tests`, `examples`, …; see
    /// [`Entry::kind`]).
    pub kind: Option<&'a str>,
    pub notes: Vec<&'a str>,
    /// 1-based line of the heading.
    pub line: usize,
    /// 1-based line of each file path (parallel to `files`).
    pub file_lines: Vec<usize>,
    /// The exact text of the entry.
    pub source: &'a str,
}

/// A parsed Pin borrowed from its text: the entries, and the prose around them in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinView<'a> {
    pub(super) entries: Vec<EntryView<'a>>,
    pub(super) layout: Vec<ItemView<'a>>,
    /// The heading level of the entries (see [`Pin`]).
    pub(super) level: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ItemView<'a> {
    Prose(&'a str),
    Entry(usize),
}

impl<'a> PinView<'a> {
    /// The entries in file order.
    pub fn entries(&self) -> &[EntryView<'a>] {
        &self.entries
    }

    /// The owned Pin (for editing and writing back).
    pub fn to_pin(&self) -> Pin {
        Pin {
            entries: self.entries.iter().map(EntryView::to_entry).collect(),
            layout: self
                .layout
                .iter()
                .map(|it| match it {
                    ItemView::Prose(p) => Item::Prose((*p).to_string()),
                    ItemView::Entry(i) => Item::Entry(*i),
                })
                .collect(),
            level: self.level,
        }
    }
}

fn owned(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_string()).collect()
}

impl<'a> EntryView<'a> {
    /// The keywords in file order (the lists split on commas, blanks dropped).
    pub fn keywords(&self) -> Vec<&'a str> {
        let mut out = Vec::new();
        for list in &self.keyword_lists {
            super::parse::split_keywords(list, &mut out);
        }
        out
    }

    /// The owned entry, remembering its source text.
    pub fn to_entry(&self) -> Entry {
        Entry {
            name: self.name.to_string(),
            keywords: owned(&self.keywords()),
            files: owned(&self.files),
            spec: self.spec.map(str::to_string),
            stale: self.stale,
            kind: self.kind.map(str::to_string),
            notes: owned(&self.notes),
            line: self.line,
            file_lines: self.file_lines.clone(),
            source: Some(self.source.to_string()),
        }
    }

    /// Whether `e` has exactly the user-visible fields of this view.
    pub(super) fn same_fields(&self, e: &Entry) -> bool {
        self.name == e.name
            && self.keywords() == e.keywords
            && self.files == e.files
            && self.spec == e.spec.as_deref()
            && self.stale == e.stale
            && self.kind == e.kind.as_deref()
            && self.notes == e.notes
    }

    /// The path the spec link points to (see [`Entry::spec_path`]).
    pub fn spec_path(&self) -> Option<String> {
        spec_path(self.spec?)
    }

    /// Whether the entry holds tests, examples, fixtures, benchmarks or docs rather than
    /// product code (see [`is_aside`]).
    pub fn is_aside(&self) -> bool {
        self.kind.is_some_and(is_aside)
    }
}

/// Whether a `**Kind**:` value marks something other than product code: any value but
/// `source`, `sources`, `code` or `src` (case-insensitive) does.
pub(crate) fn is_aside(kind: &str) -> bool {
    let k = kind.trim().to_ascii_lowercase();
    !k.is_empty() && !matches!(k.as_str(), "source" | "sources" | "code" | "src")
}

/// The path a spec link points to: the target of a markdown link, text in backticks, or the last
/// word that looks like a path (`See README.md` gives `README.md`).
pub(super) fn spec_path(spec: &str) -> Option<String> {
    if let Some(c) = LINK.captures(spec) {
        return Some(c[1].trim().to_string());
    }
    if let Some(c) = TICKS.captures(spec) {
        return Some(c[1].trim().to_string());
    }
    spec.split_whitespace()
        .rev()
        .map(|w| w.trim_matches(|c: char| c == ',' || c == ';' || c == '(' || c == ')'))
        .find(|w| w.contains('/') || w.contains('.'))
        .map(|w| w.trim_end_matches('.').to_string())
        .filter(|w| !w.is_empty())
}
