//! `ralph run` end to end with fake agents: the happy paths, selection, limits, dry run.

use crate::support::{FLIP, Project, WORK, prd, story};
use predicates::prelude::*;

fn two_stories() -> String {
    prd("ralph/feat", &[story("A", 1, &[]), story("B", 2, &["A"])])
}

#[test]
fn claude_preset_runs_every_story_in_dependency_order_and_records_history() {
    let p = Project::new(&two_stories());
    p.agent(
        "claude",
        &format!(
            "{WORK}\n{FLIP}\necho did $RALPH_STORY_ID worker $RALPH_WORKER ports +$RALPH_PORT_OFFSET"
        ),
    );
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("all 2 stories pass"))
        .stdout(predicate::str::contains("did A worker 1 ports +0"));
    assert_eq!(p.calls(), 2);
    assert_eq!(
        p.argv(1),
        [
            "--print",
            "--output-format",
            "stream-json",
            "--verbose",
            "--dangerously-skip-permissions"
        ],
        "prompt goes on stdin, not argv"
    );
    assert!(p.stdin(1).contains("# Your story: A - Title A"));
    assert!(p.stdin(2).contains("# Your story: B - Title B"));
    assert!(p.passes("A") && p.passes("B"));
    let h = p.history();
    assert_eq!(h.len(), 2);
    assert_eq!(h[0]["story"], "A");
    assert_eq!(h[0]["outcome"], "done");
    assert_eq!(h[0]["agent"], "claude");
    assert_eq!(h[0]["iteration"], 1);
    assert_eq!(h[1]["iteration"], 2);
    assert_ne!(h[0]["head_before"], h[0]["head_after"]);
    assert_eq!(h[0]["files_changed"], serde_json::json!(["A.txt"]));
    let run_id = h[0]["run_id"].as_str().unwrap();
    let log =
        std::fs::read_to_string(p.root().join(format!(".ralph/runs/{run_id}/iter-1.log"))).unwrap();
    assert!(log.contains("did A"), "{log}");
}

#[test]
fn completion_signal_without_an_edit_counts_behind_a_verify_gate() {
    let p = Project::new(&two_stories());
    p.agent(
        "claude",
        &format!("{WORK}\necho\necho \"STORY COMPLETE: $RALPH_STORY_ID\""),
    );
    p.run()
        .args(["--verify", "true"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("nothing verifies").not());
    assert!(p.passes("A") && p.passes("B"));
    let h = p.history();
    assert_eq!(h[0]["signal_seen"], true);
    assert_eq!(h[0]["outcome"], "done");
    // Written by ralph in the file's own bytes (specs/prd.md): only the two flipped values
    // changed; no re-serialisation into another layout.
    let text = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
    assert_eq!(
        text,
        two_stories().replace("\"passes\": false", "\"passes\": true")
    );
}

#[test]
fn a_bare_completion_signal_without_a_gate_leaves_the_story_open() {
    for signal in [
        "echo \"STORY COMPLETE: $RALPH_STORY_ID\"",
        "echo '<promise>COMPLETE</promise>'",
    ] {
        let p = Project::new(&two_stories());
        let before = std::fs::read(p.root().join("prd.json")).unwrap();
        // Work is done and committed, but prd.json is never marked: a claim without evidence.
        p.agent("claude", &format!("{WORK}\n{signal}"));
        let out = p.run().args(["2"]).assert().code(3).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.matches("nothing verifies the agent's claims").count(),
            1,
            "{err}"
        );
        assert!(
            err.contains("claimed completion without marking prd.json"),
            "{err}"
        );
        assert_eq!(std::fs::read(p.root().join("prd.json")).unwrap(), before);
        let h = p.history();
        assert_eq!(h.len(), 2);
        // (The retry prompt quotes the first attempt's output, so the second signal reads as an
        // echo of the prompt; either way it does not count.)
        assert_eq!(h[0]["signal_seen"], true);
        for r in &h {
            assert_eq!(r["story"], "A");
            assert_eq!(r["outcome"], "incomplete");
        }
        // The retry prompt says why it did not count.
        assert!(
            p.stdin(2).contains("did not set \"passes\": true"),
            "{}",
            p.stdin(2)
        );
    }
}

#[test]
fn early_completion_tag_never_ends_the_run_by_itself() {
    // The agent claims completion at once but does nothing; the gate catches it.
    let p = Project::new(&two_stories());
    p.agent("claude", "echo '<promise>COMPLETE</promise>'");
    p.run()
        .args(["2", "--verify", "test -f A.txt"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("reached the iteration limit (2)"))
        .stderr(predicate::str::contains("A Title A"));
    assert!(!p.passes("A"));
    let h = p.history();
    assert_eq!(h[0]["outcome"], "verify-failed");
    assert_eq!(h[0]["signal_seen"], true);
    assert_eq!(h[0]["verify"][0]["passed"], false);
    // Behind a gate that passes, the tag counts for the current story only: the run goes on to B.
    let q = Project::new(&two_stories());
    q.agent(
        "claude",
        &format!("{WORK}\necho '<promise>COMPLETE</promise>'"),
    );
    q.run().args(["--verify", "test -f A.txt"]).assert().code(0);
    assert_eq!(q.calls(), 2);
}

#[test]
fn failed_verification_resets_passes_and_feeds_the_output_to_the_retry() {
    let p = Project::new(&two_stories());
    std::fs::write(
        p.root().join("check.sh"),
        "if [ -f .checked ]; then exit 0; fi; touch .checked; echo 'BOOM-1234 expected 2 got 3'; exit 7\n",
    )
    .unwrap();
    p.commit("check.sh");
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().args(["--verify", "sh check.sh"]).assert().code(0);
    assert_eq!(p.calls(), 3);
    let retry = p.stdin(2);
    assert!(retry.contains("# Your story: A"), "{retry}");
    assert!(retry.contains("`sh check.sh` exited 7"), "{retry}");
    assert!(retry.contains("BOOM-1234 expected 2 got 3"), "{retry}");
    let h = p.history();
    assert_eq!(h[0]["outcome"], "verify-failed");
    assert_eq!(h[0]["verify"][0]["exit_code"], 7);
    assert_eq!(h[1]["outcome"], "done");
}

#[test]
fn failed_verification_sets_passes_back_to_false() {
    let p = Project::new(&two_stories());
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().args(["1", "--verify", "false"]).assert().code(3);
    assert!(!p.passes("A"));
}

#[test]
fn all_done_exits_0_and_a_removed_blocker_exits_1_without_running_an_agent() {
    let done = prd(
        "b",
        &[story("A", 1, &[]).replace("\"passes\": false", "\"passes\": true")],
    );
    let p = Project::new(&done);
    p.agent("claude", "exit 0");
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("all 1 stories pass"));
    assert_eq!(p.calls(), 0);

    let stuck = prd(
        "b",
        &[
            story("A", 1, &[]).replace(
                "\"passes\": false",
                "\"passes\": false, \"status\": \"removed\"",
            ),
            story("B", 2, &["A"]),
        ],
    );
    // B can never run: a dependency on a removed story is a validation error (specs/prd.md),
    // caught before any agent starts. (Exit 4, nothing ready, comes from skipped stories:
    // run_faults.rs.)
    let q = Project::new(&stuck);
    q.agent("claude", "exit 0");
    q.run().assert().code(1).stderr(predicate::str::contains(
        "error[removed-dep] (B): B depends on A, which is removed",
    ));
    assert_eq!(q.calls(), 0);
}

#[test]
fn invalid_prd_prints_diagnostics_and_runs_no_agent() {
    let p = Project::new("{\"project\": \"x\", \"userStories\": [ {\"id\": 5} ]}\n");
    p.agent("claude", "exit 0");
    p.run()
        .assert()
        .code(1)
        .stderr(predicate::str::contains("prd.json"))
        .stderr(predicate::str::contains("error["));
    assert_eq!(p.calls(), 0);
}

#[test]
fn story_flag_forces_a_ready_story_and_rejects_a_blocked_one() {
    let p = Project::new(&prd("b", &[story("A", 1, &[]), story("C", 2, &[])]));
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().args(["1", "--story", "C"]).assert().code(3);
    assert!(p.passes("C") && !p.passes("A"));
    let q = Project::new(&two_stories());
    q.agent("claude", "exit 0");
    q.run()
        .args(["--story", "B"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "--story B: is not ready: blocked by A",
        ));
    q.run()
        .args(["--story", "a"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("did you mean A?"));
    assert_eq!(q.calls(), 0);
}

#[test]
fn dry_run_prints_story_prompt_and_argv_and_changes_nothing() {
    let p = Project::new(&two_stories());
    std::fs::write(
        p.root().join("progress.txt"),
        "# Ralph Progress Log\n## Codebase Patterns\n- PATTERN-XYZ\n---\n",
    )
    .unwrap();
    p.agent("gemini", "exit 0");
    p.ralph()
        .args(["run", "--dry-run", "--agent", "gemini"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("story: A Title A"))
        .stdout(predicate::str::contains(
            "argv: gemini --yolo --output-format stream-json -p '# Ralph: instructions",
        ))
        .stdout(predicate::str::contains("- PATTERN-XYZ"));
    assert_eq!(p.calls(), 0);
    assert!(!p.root().join(".ralph").exists());
}

#[test]
fn iteration_limit_exits_3_listing_what_remains() {
    let p = Project::new(&two_stories());
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run()
        .arg("1")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("1 story remain"))
        .stderr(predicate::str::contains("B Title B"));
    assert_eq!(p.calls(), 1);
}

#[test]
fn status_line_shows_iteration_story_elapsed_and_outcome() {
    let p = Project::new(&two_stories());
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::is_match(r"ralph \[1/10\] A Title A · \d+\.\d\ds · done").unwrap());
}
