//! Helpers shared by the integration tests: temp projects and running the real binary.
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::Path;

/// The `ralph` binary under test, run in `dir`.
pub fn ralph(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("ralph").expect("binary builds");
    cmd.current_dir(dir);
    cmd
}

/// A minimal valid story.
pub fn story(id: &str, priority: i64, deps: &[&str]) -> Value {
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
pub fn prd(stories: Vec<Value>) -> Value {
    json!({"project": "Demo", "branchName": "ralph/demo", "description": "test", "userStories": stories})
}

pub fn write_prd(dir: &Path, v: &Value) {
    std::fs::write(
        dir.join("prd.json"),
        serde_json::to_string_pretty(v).unwrap() + "\n",
    )
    .unwrap();
}

/// The path of a compatibility fixture from the Ralph ecosystem.
pub fn compat(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/compat")
        .join(rel)
}
