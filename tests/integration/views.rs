//! `ralph status`, `ralph next`, `ralph graph` on real and generated prd.json files.

use crate::support::prd_json::{prd, story, write_prd};
use crate::support::{compat, output_in};
use serde_json::{Value, json};

fn project(v: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_prd(dir.path(), v);
    dir
}

fn sample() -> Value {
    let mut v = prd(vec![
        story("US-001", 1, &[]),
        story("US-002", 2, &["US-001"]),
        story("US-003", 2, &["US-001"]),
        story("US-004", 1, &["US-002"]),
        story("US-005", 9, &[]),
    ]);
    v["userStories"][0]["passes"] = json!(true);
    v["userStories"][4]["status"] = json!("removed");
    v
}

#[test]
fn status_lists_states_and_summary() {
    let dir = project(&sample());
    let (code, out, _) = output_in(dir.path(), &["status"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out, @r"
    done     US-001  Story US-001
    ready    US-002  Story US-002
    ready    US-003  Story US-003
    blocked  US-004  Story US-004  (waiting for US-002)
    removed  US-005  Story US-005
    1/4 done, 2 ready, 1 blocked, 1 removed
    ");
    let (_, out, _) = output_in(dir.path(), &["status", "--json"]);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["data"]["stories"][3]["state"], "blocked");
    assert_eq!(
        j["data"]["stories"][3]["blockedBy"][0],
        json!({"reason": "not-done", "id": "US-002"})
    );
}

#[test]
fn status_of_the_real_finished_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(compat("newralph/prd.json"), dir.path().join("prd.json")).unwrap();
    let (code, out, _) = output_in(dir.path(), &["status"]);
    assert_eq!(code, 0);
    assert!(out.ends_with("11/11 done, 0 ready, 0 blocked\n"), "{out}");
    let (code, out, _) = output_in(dir.path(), &["next"]);
    assert_eq!((code, out.as_str()), (0, "all stories pass\n"));
}

#[test]
fn next_picks_lowest_priority_ready_story_and_explains() {
    let dir = project(&sample());
    let (code, out, _) = output_in(dir.path(), &["next", "--explain"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out, @r"
    US-002  Story US-002 (priority 2)
      US-003: ready, same priority as US-002 which comes first in the file
      US-004: blocked by US-002
    ");
    let (_, out, _) = output_in(dir.path(), &["next", "--json"]);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["data"]["next"]["id"], "US-002");
    assert_eq!(j["data"]["all_done"], false);
}

#[test]
fn next_says_all_pass_when_only_removed_stories_remain() {
    let mut v = prd(vec![
        story("A", 1, &[]),
        story("B", 1, &["A"]),
        story("C", 2, &[]),
    ]);
    v["userStories"][2]["status"] = json!("removed");
    v["userStories"][0]["passes"] = json!(true);
    v["userStories"][1]["passes"] = json!(true);
    let dir = project(&v);
    let (code, out, _) = output_in(dir.path(), &["next"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "all stories pass\n");
}

#[test]
fn a_story_waiting_for_a_removed_one_is_refused_as_it_could_never_run() {
    let mut v = prd(vec![story("A", 1, &[]), story("B", 1, &["A"])]);
    v["userStories"][0]["status"] = json!("removed");
    let dir = project(&v);
    let (code, _, err) = output_in(dir.path(), &["next"]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("next_removed_dep", err);
}

#[test]
fn views_refuse_an_invalid_prd_with_the_diagnostics() {
    let dir = project(&prd(vec![story("A", 1, &["B"]), story("B", 1, &["A"])]));
    let mut all = String::new();
    for cmd in ["status", "next", "graph"] {
        let (code, out, err) = output_in(dir.path(), &[cmd]);
        assert_eq!(code, 1, "{cmd}");
        assert_eq!(out, "", "{cmd}");
        all.push_str(&format!("== ralph {cmd}\n{err}"));
    }
    insta::assert_snapshot!("invalid_prd", all);
}

#[test]
fn graph_dot_and_mermaid() {
    let dir = project(&sample());
    let (code, dot, _) = output_in(dir.path(), &["graph"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("graph_dot", dot);
    let (code, mm, _) = output_in(dir.path(), &["graph", "--format", "mermaid"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("graph_mermaid", mm);
}

#[test]
fn prd_and_root_options_choose_the_file() {
    let dir = project(&sample());
    let other = tempfile::tempdir().unwrap();
    let (code, out, _) = output_in(
        other.path(),
        &["--root", dir.path().to_str().unwrap(), "next"],
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("US-002"));
    let path = dir.path().join("prd.json");
    let (code, _, _) = output_in(other.path(), &["next", "--prd", path.to_str().unwrap()]);
    assert_eq!(code, 0);
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, bad_value) = output_in(dir.path(), &["graph", "--format", "svg"]);
    assert_eq!((code, out.as_str()), (2, ""));
    let (code, out, unknown) = output_in(dir.path(), &["frobnicate"]);
    assert_eq!((code, out.as_str()), (2, ""));
    insta::assert_snapshot!(
        "usage_errors",
        format!("== graph --format svg\n{bad_value}== frobnicate\n{unknown}")
    );
}
