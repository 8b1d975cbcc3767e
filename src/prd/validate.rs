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

use serde_json::Value;
use std::path::Path;

use super::canonical::{Dialect, Normalized};
use super::diagnostics::{Diagnostic, Diagnostics};
use super::dialect;
use super::story_ref::story_refs;
use super::{parse, refs, schema};

/// Top-level fields ralph knows.
pub(crate) const TOP_FIELDS: &[&str] = &[
    "$schema",
    "project",
    "branchName",
    "baseBranch",
    "description",
    "userStories",
];
/// Story fields ralph knows.
pub(crate) const STORY_FIELDS: &[&str] = &[
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
    "verify",
    "redGreen",
];

/// Validate raw bytes. Returns the diagnostics and, when the file is a runnable prd.json in any
/// dialect, the document read into the canonical model.
pub(crate) fn read_bytes(path: &Path, bytes: &[u8]) -> (Diagnostics, Option<Normalized>) {
    let mut report = Diagnostics {
        file: path.display().to_string(),
        ..Diagnostics::default()
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
    let fallback = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or("project");
    match dialect::normalize(value, fallback) {
        Err(d) => {
            report.errors.push(*d);
            (report, None)
        }
        Ok(mut n) => {
            let (errors, warnings) = check_normalized(&mut n);
            report.errors = errors;
            report.warnings = warnings;
            (report, Some(n))
        }
    }
}

/// Validate raw bytes. Returns the diagnostics and, when the bytes were a runnable prd.json, the
/// canonical value.
pub fn validate_bytes(path: &Path, bytes: &[u8]) -> (Diagnostics, Option<Value>) {
    let (report, n) = read_bytes(path, bytes);
    (report, n.map(|n| n.value))
}

/// Validate a parsed document in any dialect: (errors, warnings), pointers in the file's keys.
#[cfg(test)]
pub(crate) fn validate_value(value: &Value) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    match dialect::normalize(value.clone(), "project") {
        Err(d) => (vec![*d], vec![]),
        Ok(mut n) => check_normalized(&mut n),
    }
}

/// The schema and semantic checks on a normalized document, plus what the reading assumed.
/// Takes the reader's findings out of `n`; pointers come back in the file's own keys.
fn check_normalized(n: &mut Normalized) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    let d = &n.dialect;
    let mut errors = std::mem::take(&mut n.errors);
    errors.extend(schema::check(&n.value));
    let mut warnings = dialect_notes(d);
    warnings.append(&mut n.warnings);
    unknown_fields(&n.value, &mut errors, &mut warnings);
    super::checks::check(&n.value, &mut errors, &mut warnings);
    let stories = story_refs(&n.value);
    let field = d.story_key("blockedBy");
    refs::check_ids(&stories, &mut errors);
    refs::check_refs(&stories, field, &mut errors, &mut warnings);
    refs::check_cycles(&stories, field, &mut errors);
    if !d.is_canonical() {
        for diag in errors.iter_mut().chain(warnings.iter_mut()) {
            diag.pointer = d.raw_pointer(&diag.pointer);
        }
    }
    (errors, warnings)
}

/// The `dialect` warning (once) and one `derived` warning per derived field.
fn dialect_notes(d: &Dialect) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let maps = d.mappings();
    if !maps.is_empty() {
        out.push(Diagnostic::error(
            "dialect",
            "",
            None,
            format!("read as the {} dialect: {}", d.name, maps.join(", ")),
            "ralph runs it as it is and writes `passes` back in the file's own keys; \
             `ralph prd convert --to snarktank` rewrites it in the canonical form",
        ));
    }
    for (field, value) in &d.derived {
        out.push(Diagnostic::error(
            "derived",
            &format!("/{field}"),
            None,
            format!("no \"{field}\": ralph uses \"{value}\""),
            format!("add \"{field}\" to the file to choose it yourself"),
        ));
    }
    out
}

/// Unknown fields are warnings, except a near miss of the dependency field: ignoring it would
/// run the story before the stories it names, so it is an error.
fn unknown_fields(value: &Value, errors: &mut Vec<Diagnostic>, warnings: &mut Vec<Diagnostic>) {
    // `base` is a closure so the happy path (no unknown field) formats no pointer strings.
    let mut check = |obj: &serde_json::Map<String, Value>,
                     known: &[&str],
                     base: &dyn Fn() -> String| {
        for key in obj.keys().filter(|k| !known.contains(&k.as_str())) {
            let id = obj.get("id").and_then(Value::as_str).map(String::from);
            let pointer = format!("{}/{}", base(), escape_pointer(key));
            let value = obj.get(key).unwrap_or(&Value::Null);
            let near_miss = known == STORY_FIELDS && is_dependency_near_miss(key);
            if near_miss && names_stories(value) {
                errors.push(dependency_field(key, &pointer, id));
                continue;
            }
            let hint = match crate::suggest::nearest(key, known.iter().copied()) {
                _ if near_miss => format!(
                    "ralph reads dependencies from a list of story ids (\"blockedBy\": [\"US-001\"]); \
                     this {} names no story, so nothing waits for it",
                    kind_of(value)
                ),
                Some(s) => format!("did you mean \"{s}\"?"),
                None => {
                    "ralph keeps unknown fields but ignores them; remove it if it is a typo".into()
                }
            };
            warnings.push(Diagnostic::error(
                "unknown-field",
                &pointer,
                id,
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

/// Whether a dependency-like field's value names stories (a non-empty list or string): only
/// then would ignoring it run a story too early. `"blocked": null`, `false`, `[]` name none.
fn names_stories(v: &Value) -> bool {
    match v {
        Value::Array(a) => !a.is_empty(),
        Value::String(s) => !s.trim().is_empty(),
        _ => false,
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "empty string",
        Value::Array(_) => "empty list",
        Value::Object(_) => "object",
    }
}

/// The error for a dependency field ralph does not read: a near miss of `blockedBy`, or one
/// of the read spellings holding a string instead of a list.
fn dependency_field(key: &str, pointer: &str, id: Option<String>) -> Diagnostic {
    let alias = super::canonical::STORY_ALIASES
        .iter()
        .any(|(c, a)| *c == "blockedBy" && a.contains(&key));
    let (what, hint) = if alias {
        (
            format!("\"{key}\" is not a list"),
            format!("write the ids as a list: \"{key}\": [\"US-001\", \"US-002\"]"),
        )
    } else {
        (
            format!(
                "unknown field \"{key}\" looks like a dependency list, but ralph does not read it"
            ),
            format!(
                "rename \"{key}\" to \"blockedBy\" (ralph also reads \"dependsOn\", \
                 \"depends_on\", \"dependencies\" and \"deps\")"
            ),
        )
    };
    Diagnostic::error(
        "dependency-field",
        pointer,
        id,
        format!(
            "{what}: the stories it names would not hold this one back, so it would run too early"
        ),
        hint,
    )
}

/// `blockedby`, `blocked_by`, `Blocked-By`, `dependson`, `depends`…: a spelling of a dependency
/// field that ralph does not read (the recognised ones were mapped before this runs).
pub(crate) fn is_dependency_near_miss(key: &str) -> bool {
    let folded: String = key
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    const STEMS: &[&str] = &[
        "blockedby",
        "dependson",
        "dependencies",
        "dependency",
        "blockers",
        "depends",
        "dependon",
        "deps",
        "prerequisites",
    ];
    STEMS.contains(&folded.as_str())
        || ["blockedby", "dependson", "dependencies"].iter().any(|s| {
            s.len() > 6
                && folded.len().abs_diff(s.len()) <= 2
                && strsim::jaro_winkler(&folded, s) >= 0.93
        })
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
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
    fn warnings_for_unknown_fields_removed_deps_of_done_stories_and_early_passes() {
        let mut a = story("A", &[]);
        a["status"] = json!("removed");
        let mut b = story("B", &["A"]);
        b["passes"] = json!(true);
        b["custom"] = json!(1);
        let mut c = story("C", &["D"]);
        c["passes"] = json!(true);
        let d = story("D", &[]);
        let (errors, warnings) = validate_value(&prd(vec![a, b, c, d]));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            codes(&warnings),
            ["unknown-field", "removed-dep", "passes-before-blocker"]
        );
    }

    #[test]
    fn removed_dependency_of_an_open_story_and_blocked_by_near_misses_are_errors() {
        let mut a = story("A", &[]);
        a["status"] = json!("removed");
        let b = story("B", &["A"]);
        let mut c = story("C", &[]);
        c["blocked_by"] = json!(["B"]);
        let mut d = story("D", &[]);
        d["Blocked-By"] = json!(["B"]);
        let (errors, _) = validate_value(&prd(vec![a, b, c, d]));
        assert_eq!(
            codes(&errors),
            ["dependency-field", "dependency-field", "removed-dep"]
        );
        assert!(
            errors[0].message.contains("run too early"),
            "{}",
            errors[0].message
        );
        assert_eq!(errors[0].pointer, "/userStories/2/blocked_by");
        assert!(
            errors[2].message.contains("it can never run"),
            "{}",
            errors[2].message
        );
        for key in [
            "blockedby",
            "blocked_by",
            "BlockedBy ",
            "depends",
            "prerequisites",
            "blockedBy_",
        ] {
            assert!(is_dependency_near_miss(key), "{key}");
        }
        for key in ["blocks", "priority", "labels", "owner"] {
            assert!(!is_dependency_near_miss(key), "{key}");
        }
    }

    #[test]
    fn a_dependency_like_field_that_names_no_story_is_a_warning_not_an_error() {
        let mut a = story("A", &[]);
        a["blocked"] = json!(null);
        let mut b = story("B", &[]);
        b["blocked"] = json!(false);
        let mut c = story("C", &[]);
        c["depends"] = json!([]);
        let (errors, warnings) = validate_value(&prd(vec![a, b, c]));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            codes(&warnings),
            ["unknown-field", "unknown-field", "unknown-field"]
        );
        assert!(
            warnings[0].hint.contains("this null names no story"),
            "{}",
            warnings[0].hint
        );
        // A list of ids, or a string, still names stories that would not hold it back.
        let mut d = story("D", &[]);
        d["blocked"] = json!(["A"]);
        let mut e = story("E", &[]);
        e["dependsOn"] = json!("A");
        let (errors, _) = validate_value(&prd(vec![story("A", &[]), d, e]));
        assert_eq!(codes(&errors), ["dependency-field", "dependency-field"]);
        assert_eq!(errors[1].pointer, "/userStories/2/dependsOn");
        assert!(
            errors[1].message.starts_with("\"dependsOn\" is not a list"),
            "{}",
            errors[1].message
        );
    }

    #[test]
    fn deps_is_a_dependency_list_like_depends_on() {
        let v = json!({"project": "p", "branchName": "b", "userStories": [
            {"id": "A", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": false, "deps": []},
            {"id": "B", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": false, "deps": ["A", "Z"]}
        ]});
        let (errors, warnings) = validate_value(&v);
        assert_eq!(codes(&errors), ["unknown-ref"]);
        assert_eq!(errors[0].pointer, "/userStories/1/deps/1");
        assert!(
            warnings[0].message.contains("\"deps\" → blockedBy"),
            "{}",
            warnings[0].message
        );
        // `deps` that names nothing is not read, and says so.
        let v = json!({"project": "p", "branchName": "b", "userStories": [
            {"id": "A", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": false, "deps": null}
        ]});
        let (errors, warnings) = validate_value(&v);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(codes(&warnings), ["unknown-field"]);
    }

    #[test]
    fn story_verify_commands_and_their_dialect_keys() {
        let mut a = story("A", &[]);
        a["verify"] = json!(["npm test -- --filter a"]);
        a["redGreen"] = json!(true);
        let (errors, warnings) = validate_value(&prd(vec![a]));
        assert!(
            errors.is_empty() && warnings.is_empty(),
            "{errors:?} {warnings:?}"
        );
        let mut b = story("B", &[]);
        b["verify"] = json!("npm test");
        b["redGreen"] = json!("yes");
        let (errors, _) = validate_value(&prd(vec![b]));
        assert_eq!(codes(&errors), ["schema", "schema"]);
        let v = json!({"project": "p", "branchName": "b", "userStories": [
            {"id": "A", "title": "t", "verification": ["npm run typecheck", "Tests pass"]},
            {"id": "B", "title": "t", "checks": ["go test ./..."]},
            {"id": "C", "title": "t", "checks": "Looks right"}
        ]});
        let (errors, warnings) = validate_value(&v);
        assert!(errors.is_empty(), "{errors:?}");
        let dialect = &warnings[0];
        assert!(
            dialect.message.contains("\"verification\" → verify"),
            "{}",
            dialect.message
        );
        let not_run = warnings.iter().find(|w| w.code == "not-a-command").unwrap();
        assert_eq!(not_run.pointer, "/userStories/0/verification/1");
        assert!(
            warnings
                .iter()
                .any(|w| w.code == "unknown-field" && w.pointer == "/userStories/2/checks")
        );
    }

    #[test]
    fn dialect_files_are_checked_in_their_own_keys() {
        let v = json!({"name": "p", "stories": [
            {"id": "A", "title": "t", "dependsOn": ["B"]},
            {"id": "B", "title": "t", "dependsOn": ["A", "Z"]}
        ]});
        let (errors, warnings) = validate_value(&v);
        assert_eq!(codes(&errors), ["unknown-ref", "cycle"]);
        assert_eq!(errors[0].pointer, "/stories/1/dependsOn/1");
        assert!(
            errors[0].message.starts_with("dependsOn names \"Z\""),
            "{}",
            errors[0].message
        );
        assert_eq!(errors[1].pointer, "/stories/0/dependsOn");
        assert_eq!(codes(&warnings)[..2], ["dialect", "derived"]);
        assert!(
            warnings[0].message.contains("\"dependsOn\" → blockedBy"),
            "{}",
            warnings[0].message
        );
    }
}
