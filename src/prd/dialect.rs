//! The prd.json dialects found in the wild, mapped onto ralph's canonical model.
//!
//! Owns recognition and mapping (pure): `normalize` turns a parsed document in any known
//! dialect into the canonical value (`project`, `branchName`, `userStories`, `blockedBy`,
//! `acceptanceCriteria`, integer priorities, string ids, boolean `passes`) and records in a
//! [`Dialect`] how the file spells each thing, so that writes go back in the file's own words
//! (see `Prd::set_passes`) and diagnostics point at the file's own keys. Files that are not
//! runnable (a foreign shape, an empty template) come back as one error saying what they are.
//! Every mapping is documented in specs/prd.md. Does not own the schema or semantic checks.

use serde_json::{Map, Value};

use super::priority;
use super::shape;
use super::validate::Diagnostic;

/// Keys that hold the story list, canonical first.
pub(crate) const STORY_KEYS: &[&str] = &["userStories", "stories", "tasks"];
/// Other spellings of top-level fields: (canonical, aliases).
const TOP_ALIASES: &[(&str, &[&str])] = &[
    ("project", &["name", "projectName", "feature"]),
    ("description", &["taskDescription"]),
];
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

/// Map a parsed document onto the canonical model. `Err` when the file is not runnable at all
/// (not a story file, or no stories), as one diagnostic that says what the file looks like.
/// `fallback_name` names the project when neither a project nor a branch is given.
pub(crate) fn normalize(
    mut value: Value,
    fallback_name: &str,
) -> Result<Normalized, Box<Diagnostic>> {
    let Some(map) = value.as_object_mut() else {
        return Err(foreign(&value));
    };
    let Some(stories_key) = STORY_KEYS
        .iter()
        .find(|k| match map.get(**k) {
            Some(v) => **k == "userStories" || v.is_array(),
            None => false,
        })
        .map(|k| k.to_string())
    else {
        return Err(foreign(&value));
    };
    if map
        .get(&stories_key)
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        return Err(Box::new(empty_template(&stories_key)));
    }
    let mut d = Dialect {
        stories_key: stories_key.clone(),
        ..Dialect::default()
    };
    let mut out = Normalized {
        value: Value::Null,
        dialect: Dialect::default(),
        warnings: Vec::new(),
        errors: Vec::new(),
    };
    let renames = top_renames(map, &stories_key, &mut d);
    if !renames.is_empty() {
        rename_keys(map, &renames);
    }
    derive_top(map, &mut d, fallback_name);
    if let Some(Value::Array(stories)) = map.get_mut("userStories") {
        super::stories::normalize_all(stories, &mut d, &mut out);
        d.priorities = priority::normalize(stories, &mut out.warnings);
    }
    d.name = name_of(&d);
    out.value = value;
    out.dialect = d;
    Ok(out)
}

fn foreign(v: &Value) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(
        "not-a-prd",
        "",
        None,
        format!(
            "this is not a prd.json: it looks like {}",
            shape::describe(v)
        ),
        format!("{}; {}", shape::EXPECTED, shape::HOW),
    ))
}

fn empty_template(key: &str) -> Diagnostic {
    Diagnostic::error(
        "empty",
        &format!("/{key}"),
        None,
        format!("an empty template: \"{key}\" has no stories, so there is nothing to run"),
        "fill in \"project\" and at least one story (\"id\", \"title\", \"acceptanceCriteria\", \
         \"priority\", \"passes\": false), or generate the stories from a markdown PRD with \
         `ralph prd import PRD.md`",
    )
}

/// (raw key, canonical key) renames at the top level, recorded in `d`.
fn top_renames(
    map: &Map<String, Value>,
    stories_key: &str,
    d: &mut Dialect,
) -> Vec<(String, &'static str)> {
    let mut renames = Vec::new();
    if stories_key != "userStories" {
        renames.push((stories_key.to_string(), "userStories"));
    }
    for (canonical, aliases) in TOP_ALIASES {
        if map.contains_key(*canonical) {
            continue;
        }
        if let Some(alias) = aliases
            .iter()
            .find(|a| map.get(**a).is_some_and(Value::is_string))
        {
            renames.push((alias.to_string(), *canonical));
            d.top.push((canonical, alias.to_string()));
        }
    }
    renames
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

/// Derive a missing project name and branch, and say so.
fn derive_top(map: &mut Map<String, Value>, d: &mut Dialect, fallback_name: &str) {
    if !map.contains_key("project") {
        let name = match map.get("branchName").and_then(Value::as_str) {
            Some(b) if !b.trim().is_empty() => b.rsplit('/').next().unwrap_or(b).to_string(),
            _ => fallback_name.to_string(),
        };
        map.insert("project".into(), Value::String(name.clone()));
        d.derived.push(("project", name));
    }
    if !map.contains_key("branchName") {
        let project = map.get("project").and_then(Value::as_str).unwrap_or("");
        let branch = format!("ralph/{}", slug(project));
        map.insert("branchName".into(), Value::String(branch.clone()));
        d.derived.push(("branchName", branch));
    }
}

/// `My Feature: v2!` → `my-feature-v2`; `project` when nothing is left.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "project".into()
    } else {
        out.into()
    }
}

/// Whether a `status` string means the story is done.
pub(crate) fn is_done_word(s: &str) -> bool {
    DONE_WORDS.contains(&s.trim().to_lowercase().as_str())
}

/// The dialect's short name, from what it maps.
fn name_of(d: &Dialect) -> &'static str {
    let top = |k: &str| d.top.iter().any(|(_, raw)| raw == k);
    let story = |k: &str| d.story.iter().any(|(_, raw)| raw == k);
    if d.is_canonical() {
        "snarktank"
    } else if top("name") && story("dependsOn") {
        "ralph-tui"
    } else if d.stories_key == "stories" && (d.numeric_ids || story("acceptance")) {
        "ralph-gold"
    } else if d.stories_key == "stories" {
        "stories-key"
    } else if d.stories_key == "tasks" {
        "tasks-key"
    } else if top("projectName") {
        "projectName"
    } else if top("feature") {
        "feature-key"
    } else if top("name") {
        "name-key"
    } else if d.derived.iter().any(|(f, _)| *f == "project") {
        "no-project"
    } else if d.priorities.is_some() {
        "priority-variant"
    } else if d.status_words.is_some() {
        "status-marker"
    } else if d.derived.iter().any(|(f, _)| *f == "branchName") {
        "no-branch"
    } else {
        "field-aliases"
    }
}

#[cfg(test)]
mod tests;
