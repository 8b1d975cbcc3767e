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

use super::canonical::{Dialect, Normalized, rename_keys};
use super::diagnostics::Diagnostic;
use super::priority;
use super::shape;

/// Keys that hold the story list, canonical first.
pub(crate) const STORY_KEYS: &[&str] = &["userStories", "stories", "tasks"];
/// Other spellings of top-level fields: (canonical, aliases).
const TOP_ALIASES: &[(&str, &[&str])] = &[
    ("project", &["name", "projectName", "feature"]),
    ("description", &["taskDescription"]),
];
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
