use super::*;
use serde_json::json;

fn norm(v: Value) -> Normalized {
    normalize(v, "dir").unwrap()
}

#[test]
fn canonical_files_are_untouched() {
    let v = json!({"project": "p", "branchName": "b", "userStories": [
        {"id": "A", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": false}
    ]});
    let n = norm(v.clone());
    assert_eq!(n.value, v);
    assert!(n.dialect.is_canonical());
    assert_eq!(n.dialect.name, "snarktank");
    assert!(n.warnings.is_empty() && n.errors.is_empty());
}

#[test]
fn ralph_tui_maps_name_and_depends_on_in_place() {
    let v = json!({"name": "X", "branchName": "b", "userStories": [
        {"id": "A", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": true, "dependsOn": []},
        {"id": "B", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": false, "dependsOn": ["A"], "labels": ["x"]}
    ], "metadata": {"updatedAt": "now"}});
    let n = norm(v);
    assert_eq!(n.dialect.name, "ralph-tui");
    let keys: Vec<&String> = n.value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["project", "branchName", "userStories", "metadata"]);
    assert_eq!(n.value["userStories"][1]["blockedBy"], json!(["A"]));
    let story_keys: Vec<&String> = n.value["userStories"][1]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(story_keys[6], "blockedBy");
    assert_eq!(
        n.dialect.raw_pointer("/userStories/1/blockedBy/0"),
        "/userStories/1/dependsOn/0"
    );
    assert_eq!(n.dialect.raw_pointer("/project"), "/name");
}

#[test]
fn stories_key_snake_case_numeric_ids_status_and_words() {
    let v = json!({"project": "p", "branchName": "b", "stories": [
        {"id": 1, "priority": 1, "title": "a", "acceptance": ["x"], "passes": true},
        {"id": "task-3", "title": "c", "status": "open", "priority": "high", "dependencies": [1]},
        {"id": "t4", "title": "d", "status": "done", "priority": 2}
    ]});
    let n = norm(v);
    assert_eq!(n.dialect.name, "ralph-gold");
    let s = &n.value["userStories"];
    assert_eq!(s[0]["id"], "1");
    assert_eq!(s[0]["acceptanceCriteria"], json!(["x"]));
    assert_eq!(s[1]["passes"], false);
    assert_eq!(s[1]["blockedBy"], json!(["1"]));
    assert!(s[1].get("status").is_none());
    assert_eq!(s[2]["passes"], true);
    assert_eq!(
        n.dialect.status_words,
        Some(("done".to_string(), "open".to_string()))
    );
    assert_eq!(
        n.dialect.raw_pointer("/userStories/0/acceptanceCriteria"),
        "/stories/0/acceptance"
    );
    let codes: Vec<&str> = n.warnings.iter().map(|w| w.code).collect();
    assert!(codes.contains(&"priority-word"), "{codes:?}");
    assert!(codes.contains(&"defaulted"), "{codes:?}");
}

#[test]
fn missing_project_and_branch_are_derived() {
    let n = norm(
        json!({"branchName": "ralph/answerer-mode", "userStories": [{"id": "A", "title": "t"}]}),
    );
    assert_eq!(n.value["project"], "answerer-mode");
    assert_eq!(n.dialect.name, "no-project");
    let n = norm(json!({"name": "Journ AI!", "stories": [{"id": "A", "title": "t"}]}));
    assert_eq!(n.value["branchName"], "ralph/journ-ai");
    assert_eq!(n.value["userStories"][0]["priority"], 1);
    assert_eq!(slug("  --  "), "project");
}

#[test]
fn unrunnable_shapes_say_what_they_are() {
    let e = normalize(json!({"branchName": "b", "userStories": []}), "d").unwrap_err();
    assert_eq!(e.code, "empty");
    assert!(e.message.contains("empty template"), "{}", e.message);
    let e = normalize(
        json!([{"category": "c", "steps": [], "passes": false}]),
        "d",
    )
    .unwrap_err();
    assert_eq!(e.code, "not-a-prd");
    assert!(e.message.contains("a feature list"), "{}", e.message);
    assert!(e.hint.contains("userStories"), "{}", e.hint);
    let e = normalize(json!({"source": "x", "units": [{"id": "1"}]}), "d").unwrap_err();
    assert!(e.message.contains("work-unit list"), "{}", e.message);
    let n = norm(json!({"project": "p", "branchName": "b", "userStories": [{"id": "A"}]}));
    assert_eq!(n.errors[0].code, "no-title");
}
