//! The canonical model's vocabulary, shared by the dialect mapping (`dialect.rs`, `stories.rs`)
//! and validation: a document read into the model ([`Normalized`]), the record of how one file
//! spells it ([`Dialect`]), the story-field aliases and the `status` words that mean done.
//!
//! A leaf: imports nothing of [`crate::prd`] but [`super::diagnostics`]. Does not map anything
//! (see `dialect.rs`).

use serde_json::{Map, Value};

use super::diagnostics::Diagnostic;

/// Other spellings of story fields: (canonical, aliases). A list field (`blockedBy`,
/// `verify`) is read from an alias only when the alias holds a list: `"deps": null` says
/// nothing, and is left alone (an unknown field).
pub(crate) const STORY_ALIASES: &[(&str, &[&str])] = &[
    ("acceptanceCriteria", &["acceptance_criteria", "acceptance"]),
    (
        "blockedBy",
        &["dependsOn", "depends_on", "dependencies", "deps"],
    ),
    ("verify", &["verification", "checks"]),
];

/// Whether `alias`'s value can be read as canonical story field `canonical`.
pub(crate) fn alias_fits(canonical: &str, value: &Value) -> bool {
    match canonical {
        "blockedBy" | "verify" => value.is_array(),
        _ => true,
    }
}
/// `status` values that mean done, for stories without `passes`.
const DONE_WORDS: &[&str] = &[
    "done",
    "complete",
    "completed",
    "passed",
    "passing",
    "finished",
    "closed",
];

/// How one file spells the model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dialect {
    /// A short name: `snarktank` for the canonical shape, else e.g. `ralph-tui`, `stories-key`.
    pub name: &'static str,
    /// The key of the story list in the file.
    pub stories_key: String,
    /// (canonical, the file's key) for top-level fields the file spells differently.
    pub top: Vec<(&'static str, String)>,
    /// (canonical, the file's key) for story fields the file spells differently (first seen).
    pub story: Vec<(&'static str, String)>,
    /// Top-level fields ralph derived: (field, value).
    pub derived: Vec<(&'static str, String)>,
    /// The `status` words the file uses for done and not done, when stories carry `status`
    /// instead of `passes`.
    pub status_words: Option<(String, String)>,
    pub numeric_ids: bool,
    /// How non-integer priorities were ordered, when there were any.
    pub priorities: Option<String>,
}

impl Dialect {
    /// The file's own key for canonical top-level `key`.
    pub fn top_key<'a>(&'a self, key: &'a str) -> &'a str {
        if key == "userStories" {
            return &self.stories_key;
        }
        self.top
            .iter()
            .find(|(c, _)| *c == key)
            .map_or(key, |(_, raw)| raw)
    }

    /// The file's own key for canonical story field `key`.
    pub fn story_key<'a>(&'a self, key: &'a str) -> &'a str {
        self.story
            .iter()
            .find(|(c, _)| *c == key)
            .map_or(key, |(_, raw)| raw)
    }

    /// A canonical JSON pointer (`/userStories/3/blockedBy/0`) in the file's own keys.
    pub fn raw_pointer(&self, pointer: &str) -> String {
        let mut parts: Vec<&str> = pointer.split('/').collect();
        let stories = parts.get(1) == Some(&"userStories");
        if let Some(p) = parts.get_mut(1) {
            *p = self.top_key(p);
        }
        if stories && let Some(p) = parts.get_mut(3) {
            *p = self.story_key(p);
        }
        parts.join("/")
    }

    /// Every way the file differs from the canonical form, one phrase each.
    pub fn mappings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.stories_key != "userStories" {
            out.push(format!("\"{}\" → userStories", self.stories_key));
        }
        for (c, raw) in self.top.iter().chain(&self.story) {
            out.push(format!("\"{raw}\" → {c}"));
        }
        if let Some((done, open)) = &self.status_words {
            out.push(format!(
                "\"status\": \"{done}\"/\"{open}\" → passes true/false"
            ));
        }
        if self.numeric_ids {
            out.push("numeric ids → strings (kept as numbers in the file)".into());
        }
        if let Some(p) = &self.priorities {
            out.push(p.clone());
        }
        out
    }

    pub fn is_canonical(&self) -> bool {
        self.mappings().is_empty() && self.derived.is_empty()
    }
}

/// A document read into the canonical model.
#[derive(Debug, Clone)]
pub(crate) struct Normalized {
    pub value: Value,
    pub dialect: Dialect,
    /// What ralph assumed (dialect, derived fields, defaults); pointers are canonical.
    pub warnings: Vec<Diagnostic>,
    /// Stories that cannot run (no id, neither title nor description); pointers are canonical.
    pub errors: Vec<Diagnostic>,
}

/// Rename keys in place, keeping their order.
pub(crate) fn rename_keys(map: &mut Map<String, Value>, renames: &[(String, &'static str)]) {
    let old = std::mem::take(map);
    for (k, v) in old {
        match renames.iter().find(|(raw, _)| *raw == k) {
            Some((_, canonical)) => map.insert((*canonical).to_string(), v),
            None => map.insert(k, v),
        };
    }
}

/// Whether a `status` string means the story is done.
pub(crate) fn is_done_word(s: &str) -> bool {
    DONE_WORDS.contains(&s.trim().to_lowercase().as_str())
}
