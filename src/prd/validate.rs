//! `ralph validate`'s checks: every problem in a prd.json in one pass, as diagnostics with a
//! stable code, a JSON pointer, the story id and a fix hint.
//!
//! Order: syntax (nothing else is attempted when the file is not JSON), then the schema, then the
//! semantic checks that a schema cannot express (unique ids, references, cycles). Semantic checks
//! run even when the schema fails, on a lenient view, so one run reports everything.
//!
//! Decision: a dependency cycle is an error, never a warning. No story in a cycle can ever become
//! ready, so the loop would stop with "no ready story" after doing everything else; failing at
//! validate time (in pre-commit) is cheaper than discovering it hours into a run.

use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

use super::{StoryRef, parse, schema, story_refs};
use crate::graph::DepGraph;

/// One finding. `code` is a stable string documented in README.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    /// JSON pointer to the offending value ("" for the whole document).
    pub pointer: String,
    /// The story the finding is about, when there is one.
    pub story: Option<String>,
    pub message: String,
    /// How to fix it.
    pub hint: String,
    /// 1-based line:column, for syntax errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Diagnostic {
    pub fn error(
        code: &'static str,
        pointer: &str,
        story: Option<String>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code,
            pointer: pointer.to_string(),
            story,
            message: message.into(),
            hint: hint.into(),
            line: None,
            column: None,
        }
    }
}

/// The outcome of validating one file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub file: String,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
}

impl Report {
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Top-level fields ralph knows.
pub const TOP_FIELDS: &[&str] = &[
    "$schema",
    "project",
    "branchName",
    "baseBranch",
    "description",
    "userStories",
];
/// Story fields ralph knows.
pub const STORY_FIELDS: &[&str] = &[
    "id",
    "title",
    "description",
    "acceptanceCriteria",
    "priority",
    "passes",
    "notes",
    "blockedBy",
    "status",
    "discoveredFrom",
];

/// Validate raw bytes. Returns the report and, when the bytes were JSON, the parsed value.
pub fn validate_bytes(path: &Path, bytes: &[u8]) -> (Report, Option<Value>) {
    let mut report = Report {
        file: path.display().to_string(),
        ..Report::default()
    };
    let value = match parse::parse(bytes) {
        Ok(v) => v,
        Err(e) => {
            report.errors.push(Diagnostic {
                line: Some(e.line),
                column: Some(e.column),
                ..Diagnostic::error("parse", "", None, e.message, e.hint)
            });
            return (report, None);
        }
    };
    let (errors, warnings) = validate_value(&value);
    report.errors = errors;
    report.warnings = warnings;
    (report, Some(value))
}

/// Validate a parsed document: schema plus semantic checks. Returns (errors, warnings).
pub fn validate_value(value: &Value) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    let mut errors = schema::check(value);
    let mut warnings = Vec::new();
    if !value.is_object() {
        // The schema already said "must be an object"; nothing else applies.
        return (errors, warnings);
    }
    unknown_fields(value, &mut warnings);
    let stories = story_refs(value);
    check_ids(&stories, &mut errors);
    check_refs(&stories, &mut errors, &mut warnings);
    for cycle in DepGraph::new(&stories).cycles() {
        let first = &stories[cycle[0]];
        let path: Vec<&str> = cycle
            .iter()
            .chain(std::iter::once(&cycle[0]))
            .map(|&i| stories[i].id_str())
            .collect();
        errors.push(Diagnostic::error(
            "cycle",
            &format!("/userStories/{}/blockedBy", first.index),
            Some(first.id_str().to_string()),
            format!("cycle: {}", path.join(" → ")),
            "a cycle deadlocks the loop (no story in it can ever start): remove one blockedBy link in it",
        ));
    }
    (errors, warnings)
}

fn unknown_fields(value: &Value, warnings: &mut Vec<Diagnostic>) {
    // `base` is a closure so the happy path (no unknown field) formats no pointer strings.
    let mut check = |obj: &serde_json::Map<String, Value>,
                     known: &[&str],
                     base: &dyn Fn() -> String| {
        for key in obj.keys().filter(|k| !known.contains(&k.as_str())) {
            let hint = match crate::suggest::nearest(key, known.iter().copied()) {
                Some(s) => format!("did you mean \"{s}\"?"),
                None => {
                    "ralph keeps unknown fields but ignores them; remove it if it is a typo".into()
                }
            };
            warnings.push(Diagnostic::error(
                "unknown-field",
                &format!("{}/{}", base(), escape_pointer(key)),
                obj.get("id").and_then(Value::as_str).map(String::from),
                format!("unknown field \"{key}\""),
                hint,
            ));
        }
    };
    if let Some(obj) = value.as_object() {
        check(obj, TOP_FIELDS, &String::new);
    }
    for (i, s) in value
        .get("userStories")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(obj) = s.as_object() {
            check(obj, STORY_FIELDS, &|| format!("/userStories/{i}"));
        }
    }
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn check_ids(stories: &[StoryRef], errors: &mut Vec<Diagnostic>) {
    let mut seen: FxHashMap<String, &StoryRef> = FxHashMap::default();
    for s in stories {
        let Some(id) = s.id.filter(|id| !id.is_empty()) else {
            continue; // the schema reported it
        };
        let pointer = || format!("/userStories/{}/id", s.index);
        if id.trim() != id {
            errors.push(Diagnostic::error(
                "id-whitespace",
                &pointer(),
                Some(id.to_string()),
                format!("story id \"{id}\" has leading or trailing whitespace"),
                format!("use \"{}\"", id.trim()),
            ));
        }
        let key = id.trim().to_lowercase();
        match seen.get(&key) {
            Some(first) if first.id == Some(id) => errors.push(Diagnostic::error(
                "duplicate-id",
                &pointer(),
                Some(id.to_string()),
                format!("story id \"{id}\" is used again (first at /userStories/{})", first.index),
                "give every story a unique id",
            )),
            Some(first) => errors.push(Diagnostic::error(
                "duplicate-id",
                &pointer(),
                Some(id.to_string()),
                format!(
                    "story id \"{id}\" differs from \"{}\" (/userStories/{}) only in case or whitespace",
                    first.id_str(),
                    first.index
                ),
                "ids that look alike get confused by agents and people: make them clearly different",
            )),
            None => {
                seen.insert(key, s);
            }
        }
    }
}

fn check_refs(stories: &[StoryRef], errors: &mut Vec<Diagnostic>, warnings: &mut Vec<Diagnostic>) {
    let by_id: FxHashMap<&str, &StoryRef> = stories
        .iter()
        .rev()
        .filter_map(|s| Some((s.id?, s)))
        .collect();
    let ids = || stories.iter().filter_map(|s| s.id);
    for s in stories {
        let id = s.id_str();
        let story = || Some(id.to_string());
        for (j, &dep) in s.blocked_by.iter().enumerate() {
            let pointer = || format!("/userStories/{}/blockedBy/{j}", s.index);
            if dep == id {
                errors.push(Diagnostic::error(
                    "self-ref",
                    &pointer(),
                    story(),
                    format!("story {id} is blocked by itself"),
                    "remove its own id from blockedBy",
                ));
                continue;
            }
            let Some(blocker) = by_id.get(dep) else {
                let hint = match crate::suggest::nearest(dep.trim(), ids()) {
                    Some(near) => format!("did you mean \"{near}\"?"),
                    None => "name an existing story id, or remove the entry".into(),
                };
                errors.push(Diagnostic::error(
                    "unknown-ref",
                    &pointer(),
                    story(),
                    format!("blockedBy names \"{dep}\", which is not a story id"),
                    hint,
                ));
                continue;
            };
            if blocker.removed {
                warnings.push(Diagnostic::error(
                    "removed-dep",
                    &pointer(),
                    story(),
                    format!("{id} depends on {dep}, which is removed: it can never be satisfied"),
                    format!("drop {dep} from blockedBy, or restore it"),
                ));
            } else if s.passes && !blocker.passes {
                warnings.push(Diagnostic::error(
                    "passes-before-blocker",
                    &format!("/userStories/{}/passes", s.index),
                    story(),
                    format!("{id} passes but its blocker {dep} does not"),
                    format!("check {id}: set passes to false, or finish {dep}"),
                ));
            }
        }
        if let Some(from) = s.discovered_from
            && !by_id.contains_key(from)
        {
            warnings.push(Diagnostic::error(
                "unknown-discovered-from",
                &format!("/userStories/{}/discoveredFrom", s.index),
                story(),
                format!("discoveredFrom names \"{from}\", which is not a story id"),
                "name the story it was discovered during, or remove the field",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn story(id: &str, deps: &[&str]) -> Value {
        json!({"id": id, "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1,
               "passes": false, "blockedBy": deps})
    }

    fn prd(stories: Vec<Value>) -> Value {
        json!({"project": "p", "branchName": "b", "userStories": stories})
    }

    fn codes(d: &[Diagnostic]) -> Vec<&str> {
        d.iter().map(|d| d.code).collect()
    }

    #[test]
    fn three_cycle_reported_once_with_full_path() {
        let v = prd(vec![
            story("US-002", &["US-005"]),
            story("US-003", &["US-002"]),
            story("US-005", &["US-003"]),
        ]);
        let (errors, _) = validate_value(&v);
        assert_eq!(codes(&errors), ["cycle"]);
        assert_eq!(
            errors[0].message,
            "cycle: US-002 → US-005 → US-003 → US-002"
        );
        assert_eq!(errors[0].story.as_deref(), Some("US-002"));
    }

    #[test]
    fn two_disjoint_cycles_and_self_ref() {
        let v = prd(vec![
            story("A", &["B"]),
            story("B", &["A"]),
            story("C", &["D"]),
            story("D", &["C"]),
            story("E", &["E"]),
        ]);
        let (errors, _) = validate_value(&v);
        assert_eq!(codes(&errors), ["self-ref", "cycle", "cycle"]);
    }

    #[test]
    fn unknown_ref_suggests_near_id() {
        let v = prd(vec![story("US-001", &[]), story("US-002", &["US-01"])]);
        let (errors, _) = validate_value(&v);
        assert_eq!(codes(&errors), ["unknown-ref"]);
        assert_eq!(errors[0].pointer, "/userStories/1/blockedBy/0");
        assert_eq!(errors[0].hint, "did you mean \"US-001\"?");
    }

    #[test]
    fn ids_differing_in_case_or_whitespace_are_errors() {
        let v = prd(vec![
            story("US-001", &[]),
            story("us-001", &[]),
            story(" US-001", &[]),
        ]);
        let (errors, _) = validate_value(&v);
        assert_eq!(
            codes(&errors),
            ["duplicate-id", "id-whitespace", "duplicate-id"]
        );
    }

    #[test]
    fn warnings_for_unknown_fields_removed_deps_and_early_passes() {
        let mut a = story("A", &[]);
        a["status"] = json!("removed");
        let mut b = story("B", &["A"]);
        b["blockedby"] = json!([]);
        let mut c = story("C", &["B"]);
        c["passes"] = json!(true);
        let (errors, warnings) = validate_value(&prd(vec![a, b, c]));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            codes(&warnings),
            ["unknown-field", "removed-dep", "passes-before-blocker"]
        );
        assert_eq!(warnings[0].hint, "did you mean \"blockedBy\"?");
    }
}
