//! The prd.json contract: load, validate and save a product requirements file.
//!
//! Owns the file format (original Ralph fields plus the optional `blockedBy`, `status`,
//! `discoveredFrom`, `baseBranch`), the dialects people write it in (`dialect`: read into one
//! canonical model), and byte-preserving writes: flipping `passes` or setting `notes` changes
//! only those bytes of the file, in the file's own keys and layout (`spans` + `edit`). Does not
//! own dependency policy (see [`crate::graph`]) or the loop.

pub(crate) mod canonical;
pub(crate) mod checks;
pub(crate) mod diagnostics;
pub(crate) mod dialect;
pub(crate) mod edit;
pub(crate) mod import;
pub(crate) mod parse;
pub(crate) mod priority;
mod refs;
pub(crate) mod schema;
pub(crate) mod shape;
pub(crate) mod spans;
mod stories;
mod story_ref;
pub(crate) mod validate;

use serde_json::Value;
use std::path::{Path, PathBuf};

pub(crate) use diagnostics::{Diagnostic, Diagnostics};
use story_ref::story_values;

/// A story as the loop sees it: a typed, lenient view of one `userStories` entry.
/// Missing or mistyped fields take defaults here; validation reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Story {
    /// Position in `userStories` (file order breaks priority ties).
    pub index: usize,
    pub id: String,
    pub title: String,
    pub description: String,
    pub acceptance_criteria: Vec<String>,
    pub priority: i64,
    pub passes: bool,
    pub notes: String,
    pub blocked_by: Vec<String>,
    /// `status: "removed"`: out of scope, never runs.
    pub removed: bool,
    pub discovered_from: Option<String>,
    /// The story's own verify commands (`verify`), run after the global ones.
    pub verify: Vec<String>,
    /// `redGreen`: this story's red-green gate on (`true`) or off (`false`) whatever the run
    /// says; `None` follows `--red-green` / `[verify] red_green`.
    pub red_green: Option<bool>,
}

impl Story {
    /// Extract the view from one story object (any JSON value is accepted).
    pub fn from_value(index: usize, v: &Value) -> Story {
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let strings = |k: &str| -> Vec<String> {
            v.get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default()
        };
        Story {
            index,
            id: s("id"),
            title: s("title"),
            description: s("description"),
            acceptance_criteria: strings("acceptanceCriteria"),
            priority: v
                .get("priority")
                .and_then(Value::as_i64)
                .unwrap_or(i64::MAX),
            passes: v.get("passes").and_then(Value::as_bool).unwrap_or(false),
            notes: s("notes"),
            blocked_by: strings("blockedBy"),
            removed: v.get("status").and_then(Value::as_str) == Some("removed"),
            discovered_from: v
                .get("discoveredFrom")
                .and_then(Value::as_str)
                .map(String::from),
            verify: checks::commands(v.get("verify")),
            red_green: v.get("redGreen").and_then(Value::as_bool),
        }
    }

    /// The commands the gate runs for this story: `global` first, then the story's own that
    /// are not already among them.
    pub fn gate_commands(&self, global: &[String]) -> Vec<String> {
        let mut out = global.to_vec();
        for c in &self.verify {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
        out
    }
}

/// The typed views of every story in a prd value (empty when `userStories` is not an array).
pub(crate) fn stories_of(value: &Value) -> Vec<Story> {
    story_values(value)
        .iter()
        .enumerate()
        .map(|(i, v)| Story::from_value(i, v))
        .collect()
}

/// Why a prd.json could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PrdError {
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
    #[error("{}", .0.render_errors())]
    Invalid(Box<Diagnostics>),
    #[error("{path}: no story with id \"{id}\"")]
    UnknownStory { path: PathBuf, id: String },
    #[error("{path}: cannot locate story {id} in the file's bytes to edit it")]
    Edit { path: PathBuf, id: String },
}

impl crate::problem::Coded for PrdError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        use crate::problem::Problem;
        Some(match self {
            PrdError::Io(f) => return f.problem(),
            // The envelope gives an invalid file's every diagnostic instead; here for completeness.
            PrdError::Invalid(r) => Problem::new("invalid", "").file(&r.file),
            PrdError::UnknownStory { path, id } => Problem::at("unknown-story", path).story(id),
            PrdError::Edit { path, id } => Problem::at("edit", path).story(id),
        })
    }
}

/// A loaded, valid prd.json.
#[derive(Debug, Clone)]
pub struct Prd {
    pub path: PathBuf,
    /// The document in the canonical model (`userStories`, `blockedBy`, … whatever the file's
    /// dialect), key order kept. Read-only: edits go through `set_passes` / `set_notes`, which
    /// keep it, the typed views and the file's bytes in step.
    pub value: Value,
    /// Typed views, kept in step with `value`.
    pub stories: Vec<Story>,
    /// Warnings found while loading (dialect, unknown fields, suspicious dependencies).
    pub warnings: Vec<Diagnostic>,
    /// How the file spells the model.
    pub dialect: canonical::Dialect,
    /// The file's bytes with this value's edits: what `save` writes.
    bytes: Vec<u8>,
}

impl Prd {
    /// Read and validate a prd.json. Any validation error makes this fail with the full report.
    pub fn load(path: &Path) -> Result<Prd, PrdError> {
        let bytes = crate::fsutil::read(path)?;
        Prd::from_bytes(path, &bytes)
    }

    /// Validate already-read bytes (the loop uses this on its snapshots).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Prd, PrdError> {
        let (report, normalized) = validate::read_bytes(path, bytes);
        match normalized {
            Some(n) if report.errors.is_empty() => Ok(Prd {
                path: path.to_path_buf(),
                stories: stories_of(&n.value),
                value: n.value,
                warnings: report.warnings,
                dialect: n.dialect,
                bytes: bytes.to_vec(),
            }),
            _ => Err(PrdError::Invalid(Box::new(report))),
        }
    }

    pub fn story(&self, id: &str) -> Option<&Story> {
        self.stories.iter().find(|s| s.id == id)
    }

    fn index_of(&self, id: &str) -> Result<usize, PrdError> {
        self.story(id)
            .map(|s| s.index)
            .ok_or_else(|| PrdError::UnknownStory {
                path: self.path.clone(),
                id: id.to_string(),
            })
    }

    fn story_value_mut(&mut self, index: usize) -> Option<&mut serde_json::Map<String, Value>> {
        self.value
            .get_mut("userStories")
            .and_then(|a| a.get_mut(index))
            .and_then(Value::as_object_mut)
    }

    /// Set member `key` of story `index` in the file's bytes to the JSON text `json`.
    fn edit_bytes(
        &mut self,
        index: usize,
        id: &str,
        key: &str,
        json: &str,
    ) -> Result<(), PrdError> {
        let path = [
            edit::Step::Key(&self.dialect.stories_key),
            edit::Step::Index(index),
        ];
        self.bytes =
            edit::set_member(&self.bytes, &path, key, json).ok_or_else(|| PrdError::Edit {
                path: self.path.clone(),
                id: id.to_string(),
            })?;
        Ok(())
    }

    /// Set a story's `passes` in the document, the typed view and the file's bytes (only the
    /// value changes; a story that says done with `status` gets the file's own status word).
    /// Returns whether it changed.
    pub fn set_passes(&mut self, id: &str, passes: bool) -> Result<bool, PrdError> {
        let index = self.index_of(id)?;
        let path = self.path.clone();
        let obj = self
            .story_value_mut(index)
            .ok_or_else(|| PrdError::UnknownStory {
                path,
                id: id.to_string(),
            })?;
        let changed = obj.get("passes").and_then(Value::as_bool) != Some(passes);
        obj.insert("passes".into(), Value::Bool(passes));
        if let Some(s) = self.stories.iter_mut().find(|s| s.id == id) {
            s.passes = passes;
        }
        if changed {
            let (key, json) = self.passes_spelling(index, passes);
            self.edit_bytes(index, id, key, &json)?;
        }
        Ok(changed)
    }

    /// Which key says story `index` is done in the file, and the JSON text for `passes`.
    fn passes_spelling(&self, index: usize, passes: bool) -> (&'static str, String) {
        let raw = spans::scan(&self.bytes).and_then(|root| {
            let path = [
                edit::Step::Key(&self.dialect.stories_key),
                edit::Step::Index(index),
            ];
            let story = edit::find(&root, &path)?;
            let has = |k: &str| story.get(k).is_some();
            let status_text = story
                .get("status")
                .map(|m| &self.bytes[m.value.span.clone()]);
            Some((has("passes"), status_text.map(|t| t != b"\"removed\"")))
        });
        match (raw, &self.dialect.status_words) {
            (Some((false, Some(true))), Some((done, open))) => {
                let word = if passes { done } else { open };
                ("status", serde_json::Value::from(word.as_str()).to_string())
            }
            _ => ("passes", passes.to_string()),
        }
    }

    /// Set a story's `notes` in the document, the typed view and the file's bytes.
    pub fn set_notes(&mut self, id: &str, notes: &str) -> Result<(), PrdError> {
        let index = self.index_of(id)?;
        if let Some(obj) = self.story_value_mut(index) {
            obj.insert("notes".into(), Value::String(notes.to_string()));
        }
        if let Some(s) = self.stories.iter_mut().find(|s| s.id == id) {
            s.notes = notes.to_string();
        }
        let json = Value::from(notes).to_string();
        self.edit_bytes(index, id, "notes", &json)
    }

    /// Append `story` (a story object, e.g. one an agent discovered) to the stories, in the
    /// file's own layout; the result is validated again (an invalid one is an error and this
    /// value is left unchanged).
    pub fn append_story(&mut self, story: &Value) -> Result<(), PrdError> {
        let id = story.get("id").and_then(Value::as_str).unwrap_or("?");
        let path = [edit::Step::Key(&self.dialect.stories_key)];
        let bytes = edit::append_item(&self.bytes, &path, story).ok_or_else(|| PrdError::Edit {
            path: self.path.clone(),
            id: id.to_string(),
        })?;
        *self = Prd::from_bytes(&self.path, &bytes)?;
        Ok(())
    }

    /// The document as ralph writes it: the file's own bytes with this value's edits (a file
    /// that was not edited comes back byte for byte).
    pub fn to_pretty(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The canonical form (`ralph prd convert --to snarktank`): 2-space pretty JSON.
    pub fn to_canonical(&self) -> String {
        to_pretty(&self.value)
    }

    /// Write the document back to its path atomically.
    pub fn save(&self) -> Result<(), PrdError> {
        crate::fsutil::atomic_write(&self.path, &self.bytes)?;
        Ok(())
    }

    /// True when every story in scope passes.
    pub fn all_done(&self) -> bool {
        self.stories.iter().all(|s| s.removed || s.passes)
    }
}

/// Serialise a prd value the way ralph writes it.
pub(crate) fn to_pretty(value: &Value) -> String {
    // Serialising a Value cannot fail: keys are strings and numbers are finite.
    let mut s = serde_json::to_string_pretty(value).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNARKTANK: &str = include_str!("../../tests/fixtures/compat/snarktank/prd.json.example");

    #[test]
    fn round_trip_keeps_everything_byte_for_byte() {
        let path = Path::new("prd.json");
        let prd = Prd::from_bytes(path, SNARKTANK.as_bytes()).unwrap();
        assert_eq!(prd.to_pretty(), SNARKTANK);
    }

    #[test]
    fn set_passes_changes_only_that_line() {
        let mut prd = Prd::from_bytes(Path::new("prd.json"), SNARKTANK.as_bytes()).unwrap();
        assert!(prd.set_passes("US-002", true).unwrap());
        let out = prd.to_pretty();
        let changed: Vec<_> = SNARKTANK
            .lines()
            .zip(out.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(
            changed,
            [("      \"passes\": false,", "      \"passes\": true,")]
        );
        assert!(prd.story("US-002").unwrap().passes);
        assert!(prd.set_passes("US-404", true).is_err());
    }

    #[test]
    fn unknown_fields_survive_a_save() {
        let src = r#"{"zeta": {"keep": [1, 2]}, "project": "p", "branchName": "b",
            "userStories": [{"id": "A", "title": "t", "description": "d", "acceptanceCriteria": [],
            "priority": 1, "passes": false, "custom": true}]}"#;
        let mut prd = Prd::from_bytes(Path::new("prd.json"), src.as_bytes()).unwrap();
        prd.set_notes("A", "hello").unwrap();
        let v: Value = serde_json::from_str(&prd.to_pretty()).unwrap();
        assert_eq!(v["zeta"]["keep"][1], 2);
        assert_eq!(v["userStories"][0]["custom"], true);
        assert_eq!(v["userStories"][0]["notes"], "hello");
        assert_eq!(v.as_object().unwrap().keys().next().unwrap(), "zeta");
    }
}
