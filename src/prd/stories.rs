//! Story-level dialect mapping (pure): field aliases, numeric ids, `status` as the done-marker,
//! and the defaults for fields a story may leave out (description, criteria, passes).
//!
//! Part of `dialect` (which owns the top level and the [`Dialect`] record); priorities are in
//! `priority`. Errors here are only for stories that cannot run: neither title nor description.

use serde_json::{Map, Value};

use super::canonical::{Dialect, Normalized, STORY_ALIASES, alias_fits, is_done_word, rename_keys};
use super::diagnostics::Diagnostic;

/// Stories that needed a default, by kind, for one aggregated warning each.
#[derive(Default)]
struct Defaults {
    title: Vec<String>,
    description: Vec<String>,
    criteria: Vec<String>,
    passes: Vec<String>,
    /// The file's own `status` words for done and not done (first seen wins).
    done_word: Option<String>,
    open_word: Option<String>,
    status_used: bool,
}

/// Normalize every story in place, recording the dialect and the findings.
pub(super) fn normalize_all(stories: &mut [Value], d: &mut Dialect, out: &mut Normalized) {
    let mut defaults = Defaults::default();
    for (i, s) in stories.iter_mut().enumerate() {
        if let Some(map) = s.as_object_mut() {
            normalize_one(i, map, d, &mut defaults, out);
        }
    }
    if defaults.status_used {
        d.status_words = Some((
            defaults.done_word.take().unwrap_or_else(|| "done".into()),
            defaults.open_word.take().unwrap_or_else(|| "open".into()),
        ));
    }
    let mut say = |ids: &[String], what: &str| {
        if !ids.is_empty() {
            out.warnings.push(Diagnostic::error(
                "defaulted",
                "",
                None,
                format!("{} {what}: {}", ids.len(), list(ids)),
                "nothing to do if that is intended; `ralph validate --strict` wants every field",
            ));
        }
    };
    say(
        &defaults.title,
        "story(ies) have no title: the description's first line is used",
    );
    say(
        &defaults.description,
        "story(ies) have no description: the title is what the agent works from",
    );
    say(
        &defaults.criteria,
        "story(ies) have no acceptance criteria: nothing but the title says when they are done",
    );
    say(
        &defaults.passes,
        "story(ies) have neither \"passes\" nor a \"status\": read as not done",
    );
}

/// Up to ten ids, then a count.
fn list(ids: &[String]) -> String {
    let mut s = ids.iter().take(10).cloned().collect::<Vec<_>>().join(", ");
    if ids.len() > 10 {
        s.push_str(&format!(" and {} more", ids.len() - 10));
    }
    s
}

fn normalize_one(
    i: usize,
    map: &mut Map<String, Value>,
    d: &mut Dialect,
    defaults: &mut Defaults,
    out: &mut Normalized,
) {
    if let Some(Value::Number(n)) = map.get("id") {
        let id = n.to_string();
        map.insert("id".into(), Value::String(id));
        d.numeric_ids = true;
    }
    let id = map
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    rename_aliases(map, d);
    if let Some(Value::Array(deps)) = map.get_mut("blockedBy") {
        for dep in deps.iter_mut() {
            if let Value::Number(n) = dep {
                *dep = Value::String(n.to_string());
            }
        }
    }
    title_from_description(i, map, &id, defaults, out);
    if !map.contains_key("description") {
        map.insert("description".into(), Value::String(String::new()));
        defaults.description.push(id.clone());
    }
    if !map.contains_key("acceptanceCriteria") {
        map.insert("acceptanceCriteria".into(), Value::Array(Vec::new()));
        defaults.criteria.push(id.clone());
    }
    if !map.contains_key("passes") {
        status_as_passes(map, defaults, id);
    }
}

/// The story's keys written in another dialect (`name` for `title`, …) renamed to the
/// canonical ones, each rename recorded in `d`.
fn rename_aliases(map: &mut Map<String, Value>, d: &mut Dialect) {
    let mut renames = Vec::new();
    for (canonical, aliases) in STORY_ALIASES {
        if map.contains_key(*canonical) {
            continue;
        }
        if let Some(alias) = aliases
            .iter()
            .find(|a| map.get(**a).is_some_and(|v| alias_fits(canonical, v)))
        {
            renames.push((alias.to_string(), *canonical));
            if !d.story.iter().any(|(c, _)| c == canonical) {
                d.story.push((canonical, alias.to_string()));
            }
        }
    }
    if !renames.is_empty() {
        rename_keys(map, &renames);
        if renames.iter().any(|(_, c)| *c == "verify") {
            super::checks::screen_dialect_items(map);
        }
    }
}

/// A story without a title takes its description's first line (cut at 80 characters); one
/// with neither is an error.
fn title_from_description(
    i: usize,
    map: &mut Map<String, Value>,
    id: &str,
    defaults: &mut Defaults,
    out: &mut Normalized,
) {
    let text = |k: &str| {
        map.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    match (text("title").is_some(), text("description")) {
        (true, _) => {}
        (false, Some(desc)) if !map.contains_key("title") => {
            let title: String = desc.lines().next().unwrap_or("").chars().take(80).collect();
            map.insert("title".into(), Value::String(title));
            defaults.title.push(id.to_string());
        }
        (false, Some(_)) => {}
        (false, None) => out.errors.push(Diagnostic::error(
            "no-title",
            &format!("/userStories/{i}"),
            Some(id.to_string()).filter(|s| !s.is_empty()),
            "the story has neither a title nor a description: an agent cannot know what to build",
            "add a \"title\" (and a \"description\") saying what the story delivers",
        )),
    }
}

/// A story without `passes`: its `status` says whether it is done (and leaves the canonical
/// value, unless it is "removed"); without either it is not done.
fn status_as_passes(map: &mut Map<String, Value>, defaults: &mut Defaults, id: String) {
    let status = map
        .get("status")
        .and_then(Value::as_str)
        .map(str::to_string);
    let done = match status.as_deref() {
        Some("removed") | None => {
            defaults.passes.push(id);
            false
        }
        Some(word) => {
            let done = is_done_word(word);
            let slot = if done {
                &mut defaults.done_word
            } else {
                &mut defaults.open_word
            };
            slot.get_or_insert_with(|| word.to_string());
            defaults.status_used = true;
            map.shift_remove("status");
            done
        }
    };
    map.insert("passes".into(), Value::Bool(done));
}
