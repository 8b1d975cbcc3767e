//! The embedded JSON Schema (schemas/prd.schema.json) and the translation of its violations into
//! ralph diagnostics with a pointer, a story id and a fix hint.
//!
//! Owns the shape of prd.json; semantic checks (ids, references, cycles) live in `validate`.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;
use std::sync::OnceLock;

use super::diagnostics::Diagnostic;

/// The schema text, as shipped in schemas/prd.schema.json.
pub(crate) const SCHEMA: &str = include_str!("../../schemas/prd.schema.json");

/// The schema compiled once per process. The file says 2020-12 (for editors); it is compiled as
/// draft-07, which gives every keyword it uses the same meaning (a test holds it to those):
/// compiling a 2020-12 schema first builds jsonschema's validator of the 2020-12 meta-schema,
/// ~2.5 ms of every command that reads prd.json, against under 1 ms for draft-07's.
fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        // The schema is a compile-time constant covered by tests; failing here is a build defect.
        let mut schema: Value = serde_json::from_str(SCHEMA).expect("embedded schema is JSON");
        if let Some(o) = schema.as_object_mut() {
            o.remove("$schema");
        }
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft7)
            .build(&schema)
            .expect("embedded schema compiles")
    })
}

/// The story id at a pointer like `/userStories/3/...`, if that story has one.
pub(crate) fn story_at(value: &Value, pointer: &str) -> Option<String> {
    let rest = pointer.strip_prefix("/userStories/")?;
    let index: usize = rest.split('/').next()?.parse().ok()?;
    value
        .get("userStories")?
        .get(index)?
        .get("id")?
        .as_str()
        .map(String::from)
}

fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every schema violation in `value`, as diagnostics.
pub(crate) fn check(value: &Value) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for err in validator().iter_errors(value) {
        let pointer = err.instance_path().as_str().to_string();
        let field = pointer.rsplit('/').next().unwrap_or("");
        let what = describe(&pointer);
        let (message, hint) = match err.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or("?");
                (
                    format!("missing required field \"{name}\""),
                    format!("add \"{name}\" ({})", field_help(name)),
                )
            }
            ValidationErrorKind::Type { kind } => {
                let want = match kind {
                    TypeKind::Single(t) => t.to_string(),
                    TypeKind::Multiple(ts) => format!("{ts:?}"),
                };
                let got = json_type_name(err.instance());
                (
                    format!("{what} must be {} {want}, not {got}", article(&want)),
                    format!(
                        "change the value to {} {want} ({})",
                        article(&want),
                        field_help(field)
                    ),
                )
            }
            ValidationErrorKind::MinItems { .. } if pointer == "/userStories" => (
                "\"userStories\" is empty".to_string(),
                "add at least one story; a prd.json with nothing to do cannot run".to_string(),
            ),
            ValidationErrorKind::MinLength { .. } => (
                format!("\"{field}\" is an empty string"),
                "give it a non-empty story id, e.g. \"US-001\"".to_string(),
            ),
            ValidationErrorKind::UniqueItems => {
                let dups = duplicates(err.instance());
                (
                    format!("{what} lists {} more than once", dups.join(", ")),
                    "remove the repeated entries".to_string(),
                )
            }
            _ => (
                err.to_string(),
                "see schemas/prd.schema.json for the expected shape".to_string(),
            ),
        };
        out.push(Diagnostic::error(
            "schema",
            &pointer,
            story_at(value, &pointer),
            message,
            hint,
        ));
    }
    out
}

/// A readable name for the value at `pointer`: `"priority"`, `item 2 of "blockedBy"`, `the top level`.
fn describe(pointer: &str) -> String {
    let mut parts = pointer.rsplit('/');
    match (parts.next(), parts.next()) {
        (None | Some(""), _) => "the top level".to_string(),
        (Some(last), parent) if last.bytes().all(|b| b.is_ascii_digit()) => match parent {
            Some(p) => format!("item {last} of \"{p}\""),
            None => format!("item {last}"),
        },
        (Some(last), _) => format!("\"{last}\""),
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn duplicates(v: &Value) -> Vec<String> {
    let mut seen = Vec::new();
    let mut dups = Vec::new();
    for item in v.as_array().into_iter().flatten() {
        let s = item.to_string();
        if seen.contains(&s) {
            if !dups.contains(&s) {
                dups.push(s);
            }
        } else {
            seen.push(s);
        }
    }
    dups
}

/// A one-line reminder of what a known field holds.
fn field_help(name: &str) -> &'static str {
    match name {
        "project" => "the project's name, a string",
        "branchName" => "the git branch to work on, e.g. \"ralph/my-feature\"",
        "userStories" => "an array of story objects",
        "id" => "a unique story id such as \"US-001\"",
        "title" => "a short string",
        "description" => "a string",
        "acceptanceCriteria" => "an array of strings",
        "priority" => "an integer; lower runs first",
        "passes" => "true or false; new stories start false",
        "notes" => "a string",
        "blockedBy" => "an array of story ids",
        "status" => "\"removed\" to take a story out of scope",
        "discoveredFrom" => "the id of the story this one was found during",
        "verify" => "a list of shell commands, e.g. [\"npm test -- --filter priority\"]",
        "redGreen" => "true or false: the story's red-green gate on or off",
        _ => "see schemas/prd.schema.json",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn embedded_schema_is_2020_12_with_id() {
        let v: Value = serde_json::from_str(SCHEMA).unwrap();
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert!(v["$id"].is_string());
    }

    /// The keywords the schema uses, all meaning the same in draft-07 as in 2020-12 (the test
    /// `the_schema_uses_only_keywords_both_drafts_share` keeps it so).
    const SHARED_KEYWORDS: &[&str] = &[
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "title",
        "description",
        "type",
        "properties",
        "required",
        "items",
        "minItems",
        "minLength",
        "anyOf",
        "uniqueItems",
    ];

    #[test]
    fn the_schema_uses_only_keywords_both_drafts_share() {
        /// Every keyword of `schema` (a subschema), the names under `properties` and `$defs`
        /// being names, not keywords.
        fn keywords(schema: &Value, out: &mut Vec<String>) {
            let Some(o) = schema.as_object() else { return };
            for (k, v) in o {
                out.push(k.clone());
                match (k.as_str(), v) {
                    ("properties" | "$defs", Value::Object(named)) => {
                        named.values().for_each(|s| keywords(s, out))
                    }
                    (_, Value::Array(list)) => list.iter().for_each(|s| keywords(s, out)),
                    (_, s) => keywords(s, out),
                }
            }
        }
        let mut found = Vec::new();
        keywords(&serde_json::from_str(SCHEMA).unwrap(), &mut found);
        let odd: Vec<&String> = found
            .iter()
            .filter(|k| !SHARED_KEYWORDS.contains(&k.as_str()))
            .collect();
        assert!(
            odd.is_empty(),
            "keywords the draft-07 compile may read otherwise: {odd:?}"
        );
        assert!(found.iter().any(|k| k == "anyOf") && found.iter().any(|k| k == "$ref"));
    }

    /// prd.json files broken in each field, at the top and in a story, in each way a value can
    /// be wrong (and one whole).
    fn broken_prds() -> Vec<Value> {
        let story = json!({"id": "A", "title": "t", "description": "d",
            "acceptanceCriteria": ["c"], "priority": 1, "passes": false});
        let mut cases = vec![json!({"project": "p", "branchName": "b", "userStories": [story]})];
        let bad = [
            json!(1),
            json!(""),
            json!([]),
            json!(["A", "A"]),
            json!({}),
            json!(null),
            json!([1]),
        ];
        let optional = [
            "blockedBy",
            "status",
            "discoveredFrom",
            "verify",
            "redGreen",
            "notes",
        ];
        let required = story.as_object().unwrap().keys().map(String::as_str);
        for field in required.chain(optional) {
            for v in &bad {
                let mut s = story.clone();
                s[field] = v.clone();
                cases.push(json!({"project": "p", "userStories": [s]}));
            }
            let mut s = story.clone();
            s.as_object_mut().unwrap().remove(field);
            cases.push(json!({"project": "p", "userStories": [s, 3]}));
        }
        for top in [
            "project",
            "branchName",
            "userStories",
            "description",
            "baseBranch",
        ] {
            for v in &bad {
                cases.push(json!({"project": "p", "userStories": [], top: v}));
            }
        }
        cases
    }

    #[test]
    fn draft_07_finds_what_2020_12_finds() {
        let as_written = jsonschema::validator_for(&serde_json::from_str(SCHEMA).unwrap()).unwrap();
        let cases = broken_prds();
        let errors = |v: &jsonschema::Validator, case: &Value| -> Vec<String> {
            let mut e: Vec<String> = v
                .iter_errors(case)
                .map(|e| format!("{} {}", e.instance_path(), e))
                .collect();
            e.sort();
            e
        };
        for case in &cases {
            assert_eq!(
                errors(validator(), case),
                errors(&as_written, case),
                "{case}"
            );
        }
        assert!(cases.iter().any(|c| !errors(validator(), c).is_empty()));
    }

    #[test]
    fn wrong_type_names_pointer_story_and_fix() {
        let v = json!({"project": "p", "branchName": "b", "userStories": [
            {"id": "US-1", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": "high", "passes": false}
        ]});
        let d = check(&v);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].pointer, "/userStories/0/priority");
        assert_eq!(d[0].story.as_deref(), Some("US-1"));
        assert!(
            d[0].message.contains("must be an integer, not string"),
            "{}",
            d[0].message
        );
    }

    #[test]
    fn missing_field_and_duplicate_blockers() {
        let v = json!({"project": "p", "userStories": [
            {"id": "A", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": false, "blockedBy": ["B", "B"]},
            {"id": "B", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": false}
        ]});
        let d = check(&v);
        assert!(
            d.iter()
                .any(|d| d.message == "missing required field \"branchName\"")
        );
        assert!(d.iter().any(|d| d.pointer == "/userStories/0/blockedBy"
            && d.message.contains("\"B\" more than once")));
    }
}
