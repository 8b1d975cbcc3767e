//! The Pin's data: a parsed Pin, its entries, and where each sits among the prose.
//!
//! Owns the types the format's files share ([`Entry`], [`Pin`], the layout [`Item`]), with their
//! fields visible to the format module. A leaf: it imports none of its siblings, so the parser
//! ([`super::view`], [`super::pass`]) and the writer ([`super`]) use it without an import
//! circle. Does not own parsing or writing (their `impl`s live in those files).

/// One module of the Pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The heading text (`### <name>`).
    pub name: String,
    /// Keywords in file order (synonyms, library names, related terms).
    pub keywords: Vec<String>,
    /// File paths or globs, relative to the project root.
    pub files: Vec<String>,
    /// The spec link as written (`None` for `N/A`, `none`, `-` or empty).
    pub spec: Option<String>,
    /// Flagged by `ralph pin generate` when none of its files exist any more.
    pub stale: bool,
    /// What the entry holds when it is not product code: `tests`, `examples`, `fixtures`,
    /// `benchmarks`, `docs` (the `**Kind**:` line; `None` for product code).
    pub kind: Option<String>,
    /// Lines of prose inside the entry (between the heading and the `---`), kept as written.
    pub notes: Vec<String>,
    /// 1-based line of the heading in the parsed text (0 for entries not read from text).
    pub(super) line: usize,
    /// 1-based line of each file path (parallel to `files` when parsed).
    pub(super) file_lines: Vec<usize>,
    /// The exact text this entry was parsed from (written back as is while unchanged).
    pub(super) source: Option<String>,
}

impl Entry {
    /// A new, empty entry.
    pub fn new(name: impl Into<String>) -> Entry {
        Entry {
            name: name.into(),
            keywords: Vec::new(),
            files: Vec::new(),
            spec: None,
            stale: false,
            kind: None,
            notes: Vec::new(),
            line: 0,
            file_lines: Vec::new(),
            source: None,
        }
    }
}

/// The heading level of entries in a new Pin (and in one without entries).
pub(super) const DEFAULT_LEVEL: usize = 3;

/// A parsed Pin: entries, and the prose around them in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub(super) entries: Vec<Entry>,
    pub(super) layout: Vec<Item>,
    /// The heading level of its entries (2-4): new and edited entries are written at it, so
    /// they stay entries when the Pin is read again.
    pub(super) level: usize,
}

impl Default for Pin {
    fn default() -> Pin {
        Pin {
            entries: Vec::new(),
            layout: Vec::new(),
            level: DEFAULT_LEVEL,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Item {
    Prose(String),
    Entry(usize),
}
