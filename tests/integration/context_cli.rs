//! `ralph context` end to end: the real binary on temp projects.

use crate::support::ralph_at;
use std::path::Path;

const PRD: &str = include_str!("../../examples/prd.json.example");

const PROGRESS: &str = "# Ralph Progress Log
Started: Sat Jan 17 14:06:48 PST 2026
---
## Codebase Patterns
- Bookmarks are stored in data/bookmarks.json; always write it atomically
- Tests use a temp HOME
---
## 2026-01-17 22:06 - US-001
- Added a tags list to Bookmark, defaulting to empty
- Files changed: src/store.rs, src/model.rs
- **Learnings for future iterations:**
  - serde(default) keeps old files loading
---
## 2026-01-17 22:30 - US-000
- Set up the project skeleton
---
";

const INDEX: &str = "# The Pin

### Bookmark store
**Keywords**: bookmark, store, tags, save, load, json, persistence, model

**File Paths**:
- src/store.rs
- src/model.rs

**Spec Link**: specs/store.md

---

### Bookmark list view
**Keywords**: list, render, row, title, display, show, view, tags

**File Paths**:
- src/list.rs

**Spec Link**: ../outside.md

---

### Network sync
**Keywords**: http, sync, remote, upload

**File Paths**:
- src/sync.rs

**Spec Link**: N/A
";

const HISTORY: &str = r#"{"run_id":"r1","iteration":1,"story":"US-001","agent":"claude","start":"2026-01-17T22:00:00Z","duration_ms":1000,"exit_code":0,"timed_out":false,"signal_seen":true,"verify":[],"outcome":"done","head_before":"aaaa","head_after":"bbbb111","files_changed":["src/store.rs","src/model.rs"]}
"#;

/// A project where US-001 is done and US-002 (blocked by it) is next.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let prd = PRD.replacen("\"passes\": false", "\"passes\": true", 1);
    std::fs::write(root.join("prd.json"), prd).unwrap();
    std::fs::write(root.join("progress.txt"), PROGRESS).unwrap();
    std::fs::create_dir_all(root.join("specs")).unwrap();
    std::fs::write(root.join("specs/INDEX.md"), INDEX).unwrap();
    let spec: String = (1..=150)
        .map(|i| format!("Store spec line {i}\n"))
        .collect();
    std::fs::write(root.join("specs/store.md"), spec).unwrap();
    std::fs::create_dir_all(root.join(".ralph")).unwrap();
    std::fs::write(root.join(".ralph/history.jsonl"), HISTORY).unwrap();
    dir
}

fn stdout(root: &Path, args: &[&str]) -> String {
    let out = ralph_at(root).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn prints_the_prompt_with_blockers_output_patterns_and_pin() {
    let dir = project();
    let p = stdout(dir.path(), &["context", "US-002"]);
    assert!(p.contains("DISCOVERY PROTOCOL"));
    assert!(p.contains("# Your story: US-002 - Show tags in the bookmark list"));
    assert!(p.contains("- Rows without tags look as before"));
    // What the blocker produced: its progress entry and its history record.
    assert!(p.contains("## US-001 - Store tags on bookmarks"));
    assert!(p.contains("Commit: bbbb111"));
    assert!(p.contains("Files changed: src/store.rs, src/model.rs"));
    assert!(p.contains("- Added a tags list to Bookmark, defaulting to empty"));
    assert!(p.contains("- Tests use a temp HOME"));
    // Pin: ranked entries with files and the first 100 lines of the spec.
    let store = p.find("Bookmark store").unwrap();
    assert!(p.contains("Files: src/store.rs, src/model.rs"));
    assert!(p.contains("Store spec line 100\n"));
    assert!(!p.contains("Store spec line 101\n"));
    assert!(p.contains("Bookmark list view"));
    assert!(!p.contains("Network sync"));
    assert!(p.find("# Recent progress").unwrap() > store);
    assert!(p.contains("- Set up the project skeleton"));
    assert!(p.ends_with("US-003 Add and remove tags; US-004 Filter the list by tag\n"));
    // The prompt never carries a completion signal line for the story itself.
    assert!(!p.lines().any(|l| l.trim() == "STORY COMPLETE: US-002"));
    assert!(!p.lines().any(|l| l.trim() == "<promise>COMPLETE</promise>"));
    assert!(!p.lines().any(|l| {
        let t = l.trim();
        t.starts_with("STORY BLOCKED: US-002")
            || t.starts_with("STORY FAILED: US-002")
            || (t.starts_with("<promise>") && t.ends_with("</promise>"))
    }));
}

#[test]
fn same_files_give_a_byte_identical_prompt() {
    let dir = project();
    let a = ralph_at(dir.path())
        .args(["context", "US-004"])
        .output()
        .unwrap();
    let b = ralph_at(dir.path())
        .args(["context", "US-004"])
        .output()
        .unwrap();
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    // A copy of the project elsewhere gives the same prompt too (no paths, no clock).
    let other = project();
    let c = ralph_at(other.path())
        .args(["context", "US-004"])
        .output()
        .unwrap();
    assert_eq!(a.stdout, c.stdout);
}

#[test]
fn explain_shows_sections_zones_and_pin_scores() {
    let dir = project();
    let text = stdout(
        dir.path(),
        &["context", "US-002", "--explain", "--budget", "2200"],
    );
    insta::assert_snapshot!(text);
}

#[test]
fn json_has_the_same_account_and_the_prompt() {
    let dir = project();
    let prompt = stdout(dir.path(), &["context", "US-002", "--budget", "4000"]);
    let text = stdout(
        dir.path(),
        &["context", "US-002", "--json", "--budget", "4000"],
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema_version"], 2);
    assert_eq!(v["command"], "context");
    let v = &v["data"];
    assert_eq!(v["story"], "US-002");
    assert_eq!(v["budget"], 4000);
    assert!(v["tokens"].as_u64().unwrap() <= 4000);
    assert_eq!(v["prompt"], prompt.as_str());
    let names: Vec<&str> = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "instructions",
            "story",
            "steering",
            "dependencies",
            "files",
            "patterns",
            "errors",
            "pin",
            "recent",
            "remaining"
        ]
    );
    assert_eq!(v["pins"][0]["name"], "Bookmark list view");
    assert_eq!(v["pins"][1]["name"], "Bookmark store");
    assert!(v["pins"][0]["matched"].as_array().unwrap().len() >= 2);
}

#[test]
fn a_budget_too_small_for_the_story_is_a_clear_error() {
    let dir = project();
    ralph_at(dir.path())
        .args(["context", "US-002", "--budget", "200"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("story US-002"))
        .stderr(predicates::str::contains("over the budget of 200 tokens"))
        .stderr(predicates::str::contains("--budget"));
}

#[test]
fn unknown_story_suggests_the_nearest_id() {
    let dir = project();
    ralph_at(dir.path())
        .args(["context", "us-002"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no story with id \"us-002\""))
        .stderr(predicates::str::contains("did you mean US-002?"));
}

#[test]
fn invalid_prd_is_reported_and_nothing_printed() {
    let dir = project();
    std::fs::write(dir.path().join("prd.json"), "{\"userStories\": [").unwrap();
    ralph_at(dir.path())
        .args(["context", "US-002"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains("prd.json"));
}

#[test]
fn blocked_story_gets_a_note_and_still_a_prompt() {
    let dir = project();
    ralph_at(dir.path())
        .args(["context", "US-004"])
        .assert()
        .success()
        .stderr(predicates::str::contains("US-004 is blocked by US-002"));
}

#[test]
fn project_instructions_override_the_default_for_that_agent() {
    let dir = project();
    std::fs::create_dir(dir.path().join("system_instructions")).unwrap();
    std::fs::write(
        dir.path()
            .join("system_instructions/system_instructions_codex.md"),
        "# House rules for codex\nAlways run make check.\n",
    )
    .unwrap();
    let codex = stdout(dir.path(), &["context", "US-002", "--agent", "codex"]);
    assert!(codex.starts_with("# House rules for codex\nAlways run make check.\n"));
    let claude = stdout(dir.path(), &["context", "US-002"]);
    assert!(claude.contains("DISCOVERY PROTOCOL"));
    assert!(!claude.contains("House rules"));
}

#[test]
fn secrets_in_progress_are_redacted_and_counted() {
    let dir = project();
    let progress = PROGRESS.replace(
        "- Tests use a temp HOME",
        "- Tests use DATABASE_URL=postgres://app:hunter22@localhost/db and key sk-ant-api03-abcdefghijklmnopqrstu",
    );
    std::fs::write(dir.path().join("progress.txt"), progress).unwrap();
    let text = stdout(dir.path(), &["context", "US-002", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let v = &v["data"];
    let prompt = v["prompt"].as_str().unwrap();
    assert!(!prompt.contains("hunter22"));
    assert!(!prompt.contains("sk-ant-api03"));
    assert!(prompt.contains("postgres://app:[REDACTED:connection-string]@localhost/db"));
    assert_eq!(v["redactions"]["connection-string"], 1);
    assert_eq!(v["redactions"]["anthropic-key"], 1);
}

#[test]
fn spec_links_outside_the_project_are_never_read() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("proj");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(parent.path().join("outside.md"), "TOP SECRET OUTSIDE\n").unwrap();
    let dir = project();
    for f in ["prd.json", "progress.txt"] {
        std::fs::copy(dir.path().join(f), root.join(f)).unwrap();
    }
    std::fs::create_dir(root.join("specs")).unwrap();
    std::fs::write(root.join("specs/INDEX.md"), INDEX).unwrap();
    let p = stdout(&root, &["context", "US-002"]);
    assert!(p.contains("Bookmark list view"));
    assert!(p.contains("Spec: ../outside.md"));
    assert!(!p.contains("TOP SECRET OUTSIDE"));
}

#[test]
fn works_without_progress_pin_or_history() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prd.json"), PRD).unwrap();
    let p = stdout(dir.path(), &["context", "US-001"]);
    assert!(p.contains("# Your story: US-001 - Store tags on bookmarks"));
    assert!(!p.contains("# Relevant modules from the Pin"));
    assert!(!p.contains("# What the stories it depends on produced"));
}

#[test]
fn real_files_from_the_bash_fork_work_as_they_are() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compat/newralph");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixtures.join("prd.json"), dir.path().join("prd.json")).unwrap();
    std::fs::copy(
        fixtures.join("progress.txt"),
        dir.path().join("progress.txt"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("specs")).unwrap();
    std::fs::copy(fixtures.join("INDEX.md"), dir.path().join("specs/INDEX.md")).unwrap();
    let text = stdout(dir.path(), &["context", "US-004", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let v = &v["data"];
    let prompt = v["prompt"].as_str().unwrap();
    assert!(prompt.contains("# Your story: US-004"));
    // US-004 is blocked by US-003 in that PRD: its real progress entry is carried over.
    assert!(prompt.contains("Created specs/INDEX.md as The Pin"));
    assert!(!v["pins"].as_array().unwrap().is_empty());
    assert!(v["tokens"].as_u64().unwrap() <= 24_000);
}

#[test]
fn top_k_and_spec_lines_limit_the_pin_section() {
    let dir = project();
    let p = stdout(
        dir.path(),
        &["context", "US-001", "--top-k", "1", "--spec-lines", "10"],
    );
    assert!(p.contains("## 1. Bookmark store"));
    assert!(!p.contains("## 2. "));
    assert!(p.contains("Store spec line 10\n"));
    assert!(!p.contains("Store spec line 11\n"));
}
