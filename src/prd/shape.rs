//! What a JSON file that is not a runnable prd.json looks like, in words: a feature list, a
//! phased plan, a wrapped requirements document, an empty template, or a generic outline of its
//! keys. Used for the error that says what the file is and what ralph expects instead.
//!
//! Owns the descriptions only (pure); deciding that a file is foreign is `dialect`'s job.

use serde_json::Value;

/// What ralph expects, said once in every "not a prd.json" error.
pub(crate) const EXPECTED: &str = "ralph expects a JSON object with \"project\", \"branchName\" and \
\"userStories\": an array of stories, each with an \"id\", a \"title\", \"acceptanceCriteria\", \
a \"priority\" and \"passes\" (see examples/prd.json.example)";

/// How to get a prd.json from what the person has.
pub(crate) const HOW: &str = "write the stories into that shape by hand, or describe them in a markdown \
PRD and run `ralph prd import PRD.md`";

/// A short description of a foreign document, e.g. `a feature list: a top-level array of 12
/// {category, description, steps, passes} objects`.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Array(items) => describe_array(items),
        Value::Object(map) => {
            let has = |k: &str| map.contains_key(k);
            let family = if has("phases") {
                Some("a phased project plan")
            } else if map.len() == 1 && map.values().all(Value::is_object) {
                Some("a document wrapped in a single key")
            } else if has("units") {
                Some("a work-unit list from another tool")
            } else if has("features") || has("requirements") {
                Some("a requirements or feature document")
            } else {
                None
            };
            let outline = outline(v, 2);
            match family {
                Some(f) => format!("{f} ({outline}), with no story list"),
                None => format!("an object {outline} with no story list"),
            }
        }
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(_) => "a string".into(),
    }
}

fn describe_array(items: &[Value]) -> String {
    let Some(first) = items.iter().find(|v| v.is_object()) else {
        return format!(
            "a top-level array of {} value(s), not an object",
            items.len()
        );
    };
    let has = |k: &str| first.get(k).is_some();
    let family = if has("steps") && has("category") {
        "a feature list"
    } else if has("title") && !has("id") {
        "a task list without ids"
    } else {
        "a list"
    };
    format!(
        "{family}: a top-level array of {} {} object(s), not an object",
        items.len(),
        outline(first, 1)
    )
}

/// `{a, b[], c{…}}`: the keys of an object, `depth` levels deep, arrays shown by their first object.
pub(crate) fn outline(v: &Value, depth: usize) -> String {
    let Some(map) = v.as_object() else {
        return String::new();
    };
    let mut parts: Vec<String> = Vec::new();
    for (k, val) in map.iter().take(12) {
        let inner = match val {
            Value::Object(_) if depth > 1 => outline(val, depth - 1),
            Value::Object(_) => "{…}".into(),
            Value::Array(a) => match a.iter().find(|x| x.is_object()) {
                Some(o) if depth > 1 => format!("[{}]", outline(o, depth - 1)),
                _ => "[]".into(),
            },
            _ => String::new(),
        };
        parts.push(format!("{k}{inner}"));
    }
    if map.len() > 12 {
        parts.push("…".into());
    }
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_families_and_outlines_keys() {
        let list = json!([{"category": "c", "description": "d", "steps": [], "passes": false}]);
        assert_eq!(
            describe(&list),
            "a feature list: a top-level array of 1 {category, description, steps[], passes} object(s), not an object"
        );
        let plan = json!({"project": "p", "phases": [{"id": "1", "tasks": [{"id": "t"}]}]});
        assert_eq!(
            describe(&plan),
            "a phased project plan ({project, phases[{id, tasks[]}]}), with no story list"
        );
        assert!(describe(&json!({"prd": {"id": 1}})).starts_with("a document wrapped"));
        assert!(describe(&json!([{"title": "t"}])).starts_with("a task list without ids"));
        assert_eq!(describe(&json!(3)), "a number");
    }
}
