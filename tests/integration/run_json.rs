//! `ralph run --json`: the run reported as one JSON object per event on stdout, for tools; the
//! agent's own output stays out of it (it is in the iteration log).

use crate::support::{FLIP, Project, STARTED, WORK, events, prd, story};

#[test]
fn a_run_is_reported_as_json_lines_from_start_to_end() {
    let p = Project::new(&prd(
        "ralph/j",
        &[story("A", 1, &[]), story("B", 2, &["A"])],
    ));
    p.agent("claude", &format!("echo 'agent chatter'\n{WORK}\n{FLIP}"));
    let out = p
        .run()
        .args(["--json", "--verify", "true"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = events(&out.stdout);
    let names: Vec<&str> = ev.iter().filter_map(|e| e["event"].as_str()).collect();
    // Setup notes (the branch, .ralph/ kept out of git) come before the run starts.
    let start = names.iter().position(|n| *n == "run-started").unwrap();
    assert!(
        names[..start]
            .iter()
            .all(|n| *n == "note" || *n == "warning"),
        "{names:?}"
    );
    assert_eq!(names.last(), Some(&"run-ended"), "{names:?}");
    let finished: Vec<&serde_json::Value> = ev
        .iter()
        .filter(|e| e["event"] == "iteration-finished")
        .collect();
    assert_eq!(finished.len(), 2, "{names:?}");
    assert_eq!(finished[0]["story"], "A");
    assert_eq!(finished[0]["outcome"], "done");
    assert_eq!(finished[0]["detail"], "verify 1/1 passed");
    assert!(finished[0]["elapsed"].is_u64());
    let end = ev.last().unwrap();
    assert_eq!(end["ending"], "all-done");
    assert_eq!(end["iterations"], 2);
    assert_eq!(end["passing"], 2);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("agent chatter"), "{stdout}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("ralph ["),
        "no human status lines with --json"
    );
}

#[test]
fn a_run_with_nothing_ready_ends_with_why_each_story_cannot_run() {
    let p = Project::new(&prd(
        "ralph/j",
        &[story("A", 1, &["B"]), story("B", 2, &[])],
    ));
    p.agent("claude", &format!("{STARTED}\nexit 1"));
    let out = p
        .run()
        .args(["--json", "--max-failures", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let ev = events(&out.stdout);
    let end = ev.last().unwrap();
    assert_eq!(end["event"], "run-ended");
    assert_eq!(end["ending"], "no-ready");
    let why: Vec<&str> = end["unfinished"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(why.len(), 2, "{why:?}");
    assert!(why[0].starts_with("A: blocked by B"), "{why:?}");
    assert!(why[1].starts_with("B: skipped"), "{why:?}");
}

#[test]
fn a_run_refused_at_its_start_ends_with_the_error_envelope() {
    let p = Project::new(&prd("ralph/j", &[story("A", 1, &[])]));
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    std::fs::write(p.root().join("scratch.txt"), "mine\n").unwrap();
    let out = p.run().args(["--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(p.calls(), 0);
    let ev = events(&out.stdout);
    let last = ev.last().expect("an envelope");
    assert_eq!(last["command"], "run", "{last}");
    assert_eq!(last["schema_version"], 2);
    assert_eq!(last["data"], serde_json::Value::Null);
    assert_eq!(last["errors"][0]["code"], "dirty-tree", "{last}");
    assert!(
        last["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("scratch.txt"),
        "{last}"
    );
}
