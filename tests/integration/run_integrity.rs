//! `ralph run` and the integrity guard's `passes` rules: only the story being worked on may
//! start passing, and a discovered story never arrives passing.

use crate::support::{Project, WORK, prd, story};
use predicates::prelude::*;

/// Shell snippet: mark every story in prd.json as passing.
const FLIP_ALL: &str = r#"sed -i 's/"passes": false/"passes": true/g' prd.json"#;

#[test]
fn agent_flipping_every_story_gets_only_the_current_one() {
    let p = Project::new(&prd(
        "ralph/i",
        &[story("A", 1, &[]), story("B", 2, &[]), story("C", 3, &[])],
    ));
    p.agent("claude", &format!("{WORK}\n{FLIP_ALL}"));
    p.run()
        .arg("1")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("only the current story"));
    assert!(p.passes("A"));
    assert!(!p.passes("B"), "B was marked passing by A's agent");
    assert!(!p.passes("C"), "C was marked passing by A's agent");
    assert_eq!(p.history()[0]["outcome"], "done");
}

#[test]
fn agent_flipping_every_story_under_a_failing_gate_leaves_none_passing() {
    let p = Project::new(&prd("ralph/i", &[story("A", 1, &[]), story("B", 2, &[])]));
    p.agent("claude", &format!("{WORK}\n{FLIP_ALL}"));
    p.run().args(["1", "--verify", "false"]).assert().code(3);
    assert!(!p.passes("A"));
    assert!(!p.passes("B"));
    assert_eq!(p.history()[0]["outcome"], "verify-failed");
}

#[test]
fn discovered_story_added_already_passing_is_set_back_to_false() {
    let p = Project::new(&prd("ralph/i", &[story("A", 1, &[])]));
    let add = r#"sed -i 's/^\]$/,{"id": "A2", "title": "found", "description": "d", "acceptanceCriteria": [], "priority": 9, "passes": true, "discoveredFrom": "A"}\n]/' prd.json"#;
    p.agent("claude", &format!("{WORK}\n{add}"));
    p.run()
        .arg("1")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("already passing"));
    let v = p.prd_value();
    assert_eq!(
        v["userStories"][1]["id"], "A2",
        "the discovered story is kept"
    );
    assert!(!p.passes("A2"));
    assert!(!p.passes("A"));
}
