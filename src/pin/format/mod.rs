//! The specs/INDEX.md format: a lenient parser and a canonical writer.
//!
//! Owns turning markdown text into a [`Pin`] (entries plus the prose around them) and back.
//! Parsing never fails: anything that is not an entry is kept as prose, byte for byte. An entry
//! that is not changed after parsing is written back exactly as it was read, so a hand-edited Pin
//! survives a rewrite unchanged. Does not own generation, validation or search.
//!
//! An entry is a heading (`##` to `####`) whose section holds a field line before any `---`:
//! `**Keywords**:` (comma list, inline, continued on following lines or as bullets),
//! `**File Paths**:` (bullets, `-`/`*`/`+`, or an inline comma list), `**Spec Link**:` (`N/A` or a
//! path), `**Status**:` (`stale` when its files all vanished) and `**Kind**:` (`tests`,
//! `examples`, `fixtures`, `benchmarks`, `docs`: not product code; such entries rank lower). Labels may be written
//! `**Keywords:**`, `Keywords:` or as a bullet (`- **Keywords**: …`). A `---` line closes an entry.

mod parse;
mod pass;
pub(crate) mod view;

pub(crate) use view::{EntryView, PinView};

use std::sync::LazyLock;

use regex::Regex;

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
    line: usize,
    /// 1-based line of each file path (parallel to `files` when parsed).
    file_lines: Vec<usize>,
    /// The exact text this entry was parsed from (written back as is while unchanged).
    source: Option<String>,
}

/// The user-visible fields, to compare entries in tests.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fields {
    name: String,
    keywords: Vec<String>,
    files: Vec<String>,
    spec: Option<String>,
    stale: bool,
    kind: Option<String>,
    notes: Vec<String>,
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

    /// 1-based line of the heading in the text this entry was parsed from (0 if none).
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based line where `files[i]` was written (falls back to the heading line).
    pub fn file_line(&self, i: usize) -> usize {
        self.file_lines.get(i).copied().unwrap_or(self.line)
    }

    /// The path the spec link points to: the target of a markdown link, text in backticks, or
    /// the last word that looks like a path (`See README.md` gives `README.md`).
    pub fn spec_path(&self) -> Option<String> {
        view::spec_path(self.spec.as_deref()?)
    }

    #[cfg(test)]
    fn fields(&self) -> Fields {
        Fields {
            name: self.name.clone(),
            keywords: self.keywords.clone(),
            files: self.files.clone(),
            spec: self.spec.clone(),
            stale: self.stale,
            kind: self.kind.clone(),
            notes: self.notes.clone(),
        }
    }

    /// The entry in the canonical format (a level-3 heading), ending with its `---` line.
    pub fn to_canonical(&self) -> String {
        self.to_canonical_at(DEFAULT_LEVEL)
    }

    /// [`Entry::to_canonical`] with a heading at `level` (2-4: the level of the Pin's entries).
    pub fn to_canonical_at(&self, level: usize) -> String {
        let mut s = format!("{} {}\n", "#".repeat(level.clamp(2, 4)), self.name.trim());
        if !self.notes.is_empty() {
            for n in &self.notes {
                s.push_str(n);
                s.push('\n');
            }
            // A code fence the notes leave open would swallow the fields written after them.
            if self.notes.iter().filter(|n| parse::is_fence(n)).count() % 2 == 1 {
                s.push_str("```\n");
            }
            s.push('\n');
        }
        if self.stale {
            s.push_str(STALE_TEXT);
            s.push_str("\n\n");
        }
        if let Some(k) = &self.kind {
            s.push_str("**Kind**: ");
            s.push_str(k);
            s.push_str("\n\n");
        }
        s.push_str("**Keywords**: ");
        s.push_str(&self.keywords.join(", "));
        s.push_str("\n\n**File Paths**:\n");
        for f in &self.files {
            // Backticks keep a path with spaces (or markdown syntax) in one piece.
            if f.contains(char::is_whitespace)
                || f.starts_with(['[', '`'])
                || f.ends_with([',', ';'])
            {
                s.push_str(&format!("- `{f}`\n"));
            } else {
                s.push_str(&format!("- {f}\n"));
            }
        }
        s.push_str("\n**Spec Link**: ");
        s.push_str(self.spec.as_deref().unwrap_or("N/A"));
        s.push_str("\n\n---\n");
        s
    }
}

/// The status line written on an entry whose files all vanished.
pub(crate) const STALE_TEXT: &str =
    "**Status**: stale (none of its files exist any more: update the paths or remove this entry)";

/// The heading level of entries in a new Pin (and in one without entries).
const DEFAULT_LEVEL: usize = 3;

/// A parsed Pin: entries, and the prose around them in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    entries: Vec<Entry>,
    layout: Vec<Item>,
    /// The heading level of its entries (2-4): new and edited entries are written at it, so
    /// they stay entries when the Pin is read again.
    level: usize,
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
enum Item {
    Prose(String),
    Entry(usize),
}

static LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[[^\]]*\]\(([^)\s]+)[^)]*\)").expect("valid regex"));
static TICKS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`]+)`").expect("valid regex"));

/// The header written at the top of a new Pin.
pub(crate) const NEW_PIN_HEADER: &str = "# The Pin\n\n\
This index helps AI agents find existing code before writing new code: search it for your \
task's words, then read the files it names. Generated by `ralph pin generate`; edit freely \
(keywords, files and spec links you write are kept; entries you add are never removed).\n\n\
Each entry: `### Module`, `**Keywords**:` (10-20, comma-separated), `**File Paths**:` (one path \
or glob per bullet), `**Spec Link**:` (a path, or N/A).\n\n## Modules\n\n";

impl Pin {
    /// The entries in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entries, to edit in place (an edited entry is rewritten in the canonical format).
    pub fn entries_mut(&mut self) -> &mut [Entry] {
        &mut self.entries
    }

    /// Add an entry after the last one (before any closing prose), or at the end.
    pub fn push_entry(&mut self, entry: Entry) {
        let idx = self.entries.len();
        self.entries.push(entry);
        let at = self
            .layout
            .iter()
            .rposition(|it| matches!(it, Item::Entry(_)))
            .map(|p| p + 1);
        match at {
            Some(p) => self.layout.insert(p, Item::Entry(idx)),
            None => {
                if self.layout.is_empty() {
                    self.layout.push(Item::Prose(NEW_PIN_HEADER.to_string()));
                }
                self.layout.push(Item::Entry(idx));
            }
        }
    }

    /// Add an entry right after entry `after` (by index in [`Pin::entries`]), or after the last
    /// entry when there is no such entry. Returns the new entry's index.
    pub fn insert_entry_after(&mut self, after: usize, entry: Entry) -> usize {
        let idx = self.entries.len();
        let at = self
            .layout
            .iter()
            .position(|it| matches!(it, Item::Entry(i) if *i == after));
        match at {
            Some(p) => {
                self.entries.push(entry);
                self.layout.insert(p + 1, Item::Entry(idx));
            }
            None => self.push_entry(entry),
        }
        idx
    }

    /// The prose outside entries, in file order.
    pub fn prose(&self) -> Vec<&str> {
        self.layout
            .iter()
            .filter_map(|it| match it {
                Item::Prose(p) => Some(p.as_str()),
                Item::Entry(_) => None,
            })
            .collect()
    }

    /// Write the Pin as markdown. Unchanged parsed entries and all prose come out exactly as
    /// they were read; new or edited entries use the canonical format.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        for (pos, it) in self.layout.iter().enumerate() {
            match it {
                Item::Prose(p) => out.push_str(p),
                Item::Entry(i) => {
                    let Some(e) = self.entries.get(*i) else {
                        continue;
                    };
                    match &e.source {
                        Some(src) if unchanged(e, src) => out.push_str(src),
                        _ => {
                            if !out.is_empty() && !out.ends_with('\n') {
                                out.push('\n');
                            }
                            if !out.is_empty() && !out.ends_with("\n\n") {
                                out.push('\n');
                            }
                            out.push_str(&e.to_canonical_at(self.level));
                            let blank_next = match self.layout.get(pos + 1) {
                                None => true,
                                Some(Item::Prose(p)) => {
                                    p.starts_with('\n') || p.starts_with("\r\n")
                                }
                                Some(Item::Entry(_)) => false,
                            };
                            if !blank_next {
                                out.push('\n');
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// Whether `e` still has the fields its source text gives (parsed again only when writing, so
/// parsing stays cheap).
fn unchanged(e: &Entry, src: &str) -> bool {
    let p = PinView::parse(src);
    p.entries().len() == 1 && p.entries()[0].same_fields(e)
}

/// Drop the remembered source of every entry, so the whole Pin is written canonically.
#[cfg(test)]
pub(crate) fn canonicalize(pin: &mut Pin) {
    for e in &mut pin.entries {
        e.source = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORK: &str = include_str!("../../../tests/fixtures/compat/newralph/INDEX.md");

    fn names(p: &Pin) -> Vec<&str> {
        p.entries().iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn parses_the_fork_pin_as_is() {
        let p = Pin::parse(FORK);
        assert_eq!(
            names(&p),
            [
                "Common Libraries",
                "Agent System Instructions",
                "Skills",
                "Scripts",
                "Ralph Core",
                "Specifications"
            ]
        );
        let lib = &p.entries()[0];
        assert_eq!(lib.keywords.len(), 17);
        assert_eq!(lib.keywords[0], "builder");
        assert_eq!(lib.keywords[16], "reusable functions");
        assert_eq!(lib.files.len(), 10);
        assert_eq!(lib.files[0], "lib/checkpointing.sh");
        assert_eq!(lib.spec, None);
        // The leading empty keyword (",brownfield") is dropped.
        assert_eq!(p.entries()[2].keywords[0], "brownfield");
        assert_eq!(p.entries()[4].spec.as_deref(), Some("See README.md"));
        assert_eq!(p.entries()[4].spec_path().as_deref(), Some("README.md"));
        assert!(p.entries()[5].files.is_empty());
        assert_eq!(p.entries()[0].line(), 15);
        assert_eq!(p.entries()[0].file_line(0), 19);
    }

    #[test]
    fn fork_pin_round_trips_byte_for_byte_and_canonically() {
        let p = Pin::parse(FORK);
        assert_eq!(p.to_markdown(), FORK);
        let mut c = p.clone();
        canonicalize(&mut c);
        let text = c.to_markdown();
        let again = Pin::parse(&text);
        assert_eq!(fields(&again), fields(&p));
        assert!(text.contains("## Usage Guidelines"));
        assert!(text.starts_with("# The Pin - Ralph Discovery Index"));
        assert_eq!(again.prose().last(), p.prose().last());
    }

    fn fields(p: &Pin) -> Vec<Fields> {
        p.entries().iter().map(Entry::fields).collect()
    }

    #[test]
    fn reads_hand_written_variations() {
        let text = "# My index\n\nSome intro.\n\n## Parser\n\nParses things, see below.\n\n\
* **Keywords:** lexer, tokens,\n  grammar, ast\n* **Files**:\n  * `src/parse.rs` - the parser\n  \
* [src/lex.rs](src/lex.rs)\n* **Spec Link**: [spec](specs/parse.md)\n\n#### Not an entry\n\ntext\n\n\
## Store\nKeywords: db, sql\n\nFile Paths:\n\n+ src/store/**\n";
        let p = Pin::parse(text);
        assert_eq!(names(&p), ["Parser", "Store"]);
        let e = &p.entries()[0];
        assert_eq!(e.keywords, ["lexer", "tokens", "grammar", "ast"]);
        assert_eq!(e.files, ["src/parse.rs", "src/lex.rs"]);
        assert_eq!(e.spec_path().as_deref(), Some("specs/parse.md"));
        assert_eq!(e.notes, ["Parses things, see below."]);
        assert_eq!(p.entries()[1].files, ["src/store/**"]);
        assert_eq!(p.to_markdown(), text);
        assert!(p.prose().iter().any(|s| s.contains("#### Not an entry")));
    }

    #[test]
    fn headings_in_code_fences_are_prose() {
        let text = "```\n### Fake\n**Keywords**: a\n```\n";
        let p = Pin::parse(text);
        assert!(p.entries().is_empty());
        assert_eq!(p.to_markdown(), text);
    }

    #[test]
    fn edited_entry_is_rewritten_others_kept() {
        let mut p = Pin::parse(FORK);
        p.entries_mut()[3].keywords.push("bash".into());
        let text = p.to_markdown();
        assert!(text.contains("**Keywords**: generate, pin, automation scripts"));
        assert!(text.contains("- lib/checkpointing.sh\n"));
        let again = Pin::parse(&text);
        assert_eq!(fields(&again), fields(&p));
        assert_eq!(again.to_markdown(), text);
    }

    #[test]
    fn new_pin_gets_header_and_round_trips() {
        let mut p = Pin::parse("");
        let mut e = Entry::new("ralph: src/pin");
        e.keywords = vec!["pin".into(), "index".into()];
        e.files = vec![
            "src/pin/mod.rs".into(),
            "docs/my notes.rs".into(),
            "[x].rs".into(),
        ];
        e.stale = true;
        p.push_entry(e);
        let text = p.to_markdown();
        assert!(text.starts_with("# The Pin\n"));
        let again = Pin::parse(&text);
        assert_eq!(fields(&again), fields(&p));
        assert_eq!(again.to_markdown(), text);
    }

    #[test]
    fn fields_after_a_rule_do_not_make_an_entry() {
        // The `---` ends the section's entry: `### Store` has no fields of its own, so it is prose
        // (and the text round-trips byte for byte instead of being rewritten canonically).
        let text = "### Real\n**Keywords**: a\n\n---\n\n### Store\r\nnote\n---\nSpec Link: x.md\n\
                    Keywords: db\n";
        let p = Pin::parse(text);
        assert_eq!(names(&p), ["Real"]);
        assert_eq!(p.to_markdown(), text);
    }

    #[test]
    fn never_panics_on_odd_input() {
        for t in [
            "###\n**Keywords**:\n",
            "## a\n- **files**: ,,,\n---\n---",
            "\r\n### x\r\n**Keywords**: a\r\n",
            "### é\n**Spec Link**: `",
        ] {
            let p = Pin::parse(t);
            assert_eq!(p.to_markdown(), t);
        }
    }

    #[test]
    fn a_code_fence_left_open_round_trips_and_survives_an_edit() {
        let t = "### A\n**Keywords**: a, b\n### B\n**Keywords**: c\n```\n# not a heading\n\n\n";
        let mut p = Pin::parse(t);
        assert_eq!(p.entries()[1].notes, ["```", "# not a heading"]);
        assert_eq!(p.to_markdown(), t);
        // Rewritten canonically, the open fence is closed so the fields stay fields.
        p.entries_mut()[1].keywords.push("d".into());
        let again = Pin::parse(&p.to_markdown());
        assert_eq!(again.entries()[1].keywords, ["c", "d"]);
    }

    #[test]
    fn new_and_edited_entries_are_written_at_the_pins_entry_level() {
        let t = "## A\n**Keywords**: a\n\n## B\n**Keywords**: b\n";
        let mut p = Pin::parse(t);
        p.entries_mut()[1].keywords.push("c".into());
        p.push_entry(Entry::new("C"));
        let md = p.to_markdown();
        assert!(md.contains("\n## B\n") && md.contains("\n## C\n"), "{md}");
        assert_eq!(names(&Pin::parse(&md)), ["A", "B", "C"]);
    }

    #[test]
    fn a_large_pin_parsed_on_several_threads_keeps_order_and_text() {
        let mut text = String::from("# Big\n\nintro\n\n");
        for i in 0..3000 {
            text += &format!("### m{i}\n**Keywords**: k{i}\n**File Paths**:\n- src/{i}.rs\n\n");
            if i % 100 == 0 {
                text += "Some prose between entries.\n\n---\n\n";
            }
        }
        let p = Pin::parse(&text);
        assert_eq!(p.entries().len(), 3000);
        for (i, e) in p.entries().iter().enumerate() {
            assert_eq!(e.name, format!("m{i}"));
            assert_eq!(e.files, [format!("src/{i}.rs")]);
        }
        assert_eq!(p.entries()[2999].file_line(0), text.lines().count() - 1);
        assert_eq!(p.to_markdown(), text);
    }
}
