//! A story's own verify commands (pure): story `verify`, also read from the dialect keys
//! `verification` and `checks`. Owns which items are commands ralph runs (a string, or an
//! object's `command`), which read as prose and are kept but never run, and their diagnostics.
//!
//! Part of `prd`: the dialect reader calls [`screen_dialect_items`], `validate` calls
//! [`check`], `Story::from_value` calls [`commands`]. Does not run anything (the gate is
//! `crate::run::iteration::gate`).

use serde_json::{Map, Value};

use super::diagnostics::Diagnostic;

/// Object keys that hold a command, in the order they are looked at.
const COMMAND_KEYS: &[&str] = &["command", "cmd", "run"];

/// The command of one `verify` item: the string itself, or an object's `command` (`cmd`,
/// `run`) string; `None` for anything else (prose kept as `{"check": …}`, an observation).
pub(crate) fn command_of(item: &Value) -> Option<&str> {
    let s = match item {
        Value::String(s) => s.as_str(),
        Value::Object(o) => COMMAND_KEYS
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))?,
        _ => return None,
    };
    Some(s.trim()).filter(|s| !s.is_empty())
}

/// Every command of a story's `verify` value, in order (empty when it is not an array).
pub(crate) fn commands(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(command_of).map(String::from).collect())
        .unwrap_or_default()
}

/// Whether a check written under a dialect key (`checks`, `verification`) reads as a sentence
/// for a person rather than a command line: a capitalised first word (`Typecheck passes`,
/// `Run npm test`, `Verify the button is blue`), no ASCII letter at all, or a sentence ending
/// in a full stop. ralph never hands such text to `sh -c`. Under the canonical `verify` every
/// string is a command as written.
pub(crate) fn reads_as_prose(s: &str) -> bool {
    let t = s.trim();
    let Some(first) = t.split_whitespace().next() else {
        return true;
    };
    let mut chars = first.chars();
    let capitalised = chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && first.len() >= 2
        && chars.all(|c| c.is_ascii_lowercase());
    let words = t.split_whitespace().count();
    let shellish = t.contains(['|', '&', ';', '$', '`', '>', '<', '=', '/']) || t.contains(" -");
    // "…in the console." ends a sentence; "go test ./..." does not.
    let full_stop = t
        .strip_suffix('.')
        .is_some_and(|r| r.ends_with(|c: char| c.is_alphabetic()));
    capitalised
        || !t.chars().any(|c| c.is_ascii_alphabetic())
        || (full_stop && words >= 3 && !shellish)
}

/// Under a dialect key, items that read as prose become `{"check": text}`: kept (and written
/// back by `prd convert`) but never run. Returns how many were.
pub(crate) fn screen_dialect_items(map: &mut Map<String, Value>) -> usize {
    let Some(Value::Array(items)) = map.get_mut("verify") else {
        return 0;
    };
    let mut n = 0;
    for item in items.iter_mut() {
        if let Value::String(s) = item
            && reads_as_prose(s)
        {
            let mut o = Map::new();
            o.insert("check".into(), Value::String(std::mem::take(s)));
            *item = Value::Object(o);
            n += 1;
        }
    }
    n
}

/// The semantic checks of every story's `verify` (the schema checks the types): an empty
/// command is an error; items that are not commands are one warning for the file.
pub(crate) fn check(value: &Value, errors: &mut Vec<Diagnostic>, warnings: &mut Vec<Diagnostic>) {
    let stories = value
        .get("userStories")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut not_run: Vec<(String, String)> = Vec::new();
    for (i, s) in stories.iter().enumerate() {
        let Some(items) = s.get("verify").and_then(Value::as_array) else {
            continue;
        };
        let id = s.get("id").and_then(Value::as_str).map(String::from);
        for (j, item) in items.iter().enumerate() {
            let pointer = format!("/userStories/{i}/verify/{j}");
            match item {
                Value::String(c) if c.trim().is_empty() => errors.push(Diagnostic::error(
                    "verify-command",
                    &pointer,
                    id.clone(),
                    "an empty verify command",
                    "write the shell command that checks the story, e.g. \"npm test -- --filter priority\", or remove the item",
                )),
                Value::Object(o) if command_of(item).is_none() => {
                    if let Some(k) = COMMAND_KEYS.iter().find(|k| o.contains_key(**k)) {
                        errors.push(Diagnostic::error(
                            "verify-command",
                            &format!("{pointer}/{k}"),
                            id.clone(),
                            format!("\"{k}\" is not a command: it must be a non-empty string"),
                            "write the shell command as a string, e.g. \"npm test\"",
                        ));
                    } else {
                        not_run.push((id.clone().unwrap_or_default(), pointer));
                    }
                }
                _ => {}
            }
        }
    }
    if let Some((_, first)) = not_run.first() {
        let mut ids: Vec<&str> = not_run.iter().map(|(id, _)| id.as_str()).collect();
        ids.dedup();
        warnings.push(Diagnostic::error(
            "not-a-command",
            first,
            None,
            format!(
                "{} verify item(s) are not commands (a sentence, or an object without \"command\"): kept, never run; stories: {}",
                not_run.len(),
                ids.join(", ")
            ),
            "ralph runs only shell commands after a story's agent; put what a person checks in \
             \"acceptanceCriteria\", and write a command as a string (\"npm test\") or as \
             {\"command\": \"npm test\"}",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_are_strings_and_objects_with_a_command() {
        let v = json!(["npm run typecheck", {"kind": "command", "command": " npm test "},
            {"kind": "observation", "description": "blue"}, {"check": "Typecheck passes"}, 3, ""]);
        assert_eq!(commands(Some(&v)), ["npm run typecheck", "npm test"]);
        assert!(commands(Some(&json!("npm test"))).is_empty());
        assert!(commands(None).is_empty());
    }

    #[test]
    fn prose_is_told_from_command_lines() {
        for prose in [
            "Typecheck passes",
            "Run npm test",
            "Verify the button is blue in the browser",
            "the page loads without errors in the console.",
            "✓",
            "",
        ] {
            assert!(reads_as_prose(prose), "{prose:?}");
        }
        for cmd in [
            "npm test -- --filter priority",
            "cargo test --lib",
            "./check.sh",
            "pytest -k priority",
            "go test ./...",
            "make test",
            "CI=1 npm test",
            "sh -c 'echo done.'",
        ] {
            assert!(!reads_as_prose(cmd), "{cmd:?}");
        }
    }

    #[test]
    fn dialect_prose_is_kept_as_a_check_and_named_once() {
        let mut m = json!({"verify": ["npm test", "Typecheck passes"]})
            .as_object()
            .cloned()
            .unwrap();
        assert_eq!(screen_dialect_items(&mut m), 1);
        assert_eq!(
            Value::Object(m.clone()),
            json!({"verify": ["npm test", {"check": "Typecheck passes"}]})
        );
        let doc = json!({"userStories": [
            {"id": "A", "verify": m["verify"].clone()},
            {"id": "B", "verify": ["  ", {"command": 3}, {"description": "looks right"}]}
        ]});
        let (mut e, mut w) = (vec![], vec![]);
        check(&doc, &mut e, &mut w);
        let codes: Vec<_> = e.iter().map(|d| (d.code, d.pointer.as_str())).collect();
        assert_eq!(
            codes,
            [
                ("verify-command", "/userStories/1/verify/0"),
                ("verify-command", "/userStories/1/verify/1/command")
            ]
        );
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].pointer, "/userStories/0/verify/1");
        assert!(
            w[0].message.starts_with("2 verify item(s)"),
            "{}",
            w[0].message
        );
        assert!(w[0].message.ends_with("stories: A, B"), "{}", w[0].message);
    }
}
