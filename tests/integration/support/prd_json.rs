//! prd.json documents built as `serde_json` values (pretty-printed by `write_prd`), for the
//! tests of the reading commands. The loop's tests write one story per line instead
//! (`support::prd`), so fake agents can edit them with sed.

use serde_json::{Value, json};
use std::path::Path;

/// A minimal valid story.
pub(crate) fn story(id: &str, priority: i64, deps: &[&str]) -> Value {
    let mut s = json!({
        "id": id, "title": format!("Story {id}"), "description": "d",
        "acceptanceCriteria": ["works"], "priority": priority, "passes": false, "notes": ""
    });
    if !deps.is_empty() {
        s["blockedBy"] = json!(deps);
    }
    s
}

/// A prd document with the given stories.
pub(crate) fn prd(stories: Vec<Value>) -> Value {
    json!({"project": "Demo", "branchName": "ralph/demo", "description": "test", "userStories": stories})
}

pub(crate) fn write_prd(dir: &Path, v: &Value) {
    std::fs::write(
        dir.join("prd.json"),
        serde_json::to_string_pretty(v).unwrap() + "\n",
    )
    .unwrap();
}
