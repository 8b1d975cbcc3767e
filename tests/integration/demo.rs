//! `ralph demo`: the README's first command runs the whole loop to a green finish.

use crate::support::ralph;
use predicates::prelude::*;

#[test]
fn demo_builds_every_story_shows_the_gate_and_exits_0() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("greet");
    ralph()
        .args(["demo"])
        .arg(&dir)
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(0)
        .stderr(predicate::str::contains("verify failed"))
        .stderr(predicate::str::contains("all 5 stories pass"))
        .stdout(predicate::str::contains("STORY COMPLETE: DEMO-4"));
    let prd: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("prd.json")).unwrap()).unwrap();
    for s in prd["userStories"].as_array().unwrap() {
        assert_eq!(s["passes"], true, "{}", s["id"]);
    }
    let out = std::process::Command::new("sh")
        .arg("greet.sh")
        .args(["--shout", "Ada"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "HELLO, ADA!\n");
    let history = std::fs::read_to_string(dir.join(".ralph/history.jsonl")).unwrap();
    let outcomes: Vec<String> = history
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["outcome"].to_string())
        .collect();
    assert_eq!(
        outcomes,
        [
            "\"done\"",
            "\"done\"",
            "\"verify-failed\"",
            "\"done\"",
            "\"done\"",
            "\"done\""
        ]
    );
}

#[test]
fn demo_refuses_a_non_empty_directory() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("keep.txt"), "mine").unwrap();
    ralph()
        .arg("demo")
        .arg(tmp.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is not empty"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("keep.txt")).unwrap(),
        "mine"
    );
}
