//! `ralph run` and the agent's BLOCKED / FAILED signals: a blocked story is held for the run
//! with its reason in history and `ralph status`; a failed attempt's reason reaches the next
//! prompt; a line echoed from the prompt is not a signal.

use crate::support::{FLIP, Project, WORK, prd, story};
use predicates::prelude::*;

#[test]
fn a_blocked_story_is_held_for_the_run_with_its_reason_in_history_and_status() {
    let p = Project::new(&prd("ralph/s", &[story("A", 1, &[]), story("B", 2, &[])]));
    // A also marks itself passing: BLOCKED says it is not done, so the flip is undone.
    p.agent(
        "claude",
        &format!(
            "if [ \"$RALPH_STORY_ID\" = A ]; then {FLIP}; echo; echo 'STORY BLOCKED: A: needs an API key: ask ops'; exit 0; fi\n{WORK}\n{FLIP}"
        ),
    );
    let f = p.fake.display();
    std::fs::write(
        p.root().join("ralph.toml"),
        format!("[hooks]\non_blocked = \"cat > {f}/blocked.json\"\n"),
    )
    .unwrap();
    p.commit("hooks");
    p.run()
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "skipping A for the rest of this run: blocked: needs an API key: ask ops",
        ))
        .stderr(predicate::str::contains(
            "A: skipped: blocked: needs an API key: ask ops",
        ));
    assert_eq!(p.calls(), 2, "A once, then B");
    assert!(p.passes("B") && !p.passes("A"));
    let h = p.history();
    assert_eq!(h[0]["story"], "A");
    assert_eq!(h[0]["outcome"], "blocked");
    assert_eq!(h[0]["reason"], "needs an API key: ask ops");
    assert_eq!(h[0]["skipped"], true);
    assert_eq!(h[1]["outcome"], "done");
    assert!(h[1].get("reason").is_none());
    let hook: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.fake.join("blocked.json")).unwrap())
            .unwrap();
    assert_eq!(hook["hook"], "on_blocked");
    assert_eq!(hook["story"], "A");
    assert_eq!(hook["reason"], "blocked: needs an API key: ask ops");
    let out = p.ralph().arg("status").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(the agent reported it blocked: needs an API key: ask ops)"),
        "{text}"
    );
}

#[test]
fn a_failed_attempt_counts_and_its_reason_reaches_the_next_prompt() {
    let p = Project::new(&prd("ralph/s", &[story("A", 1, &[])]));
    p.agent(
        "claude",
        &format!(
            "if [ $n = 1 ]; then echo '  <promise>FAILED: tests need a database</promise>'; exit 0; fi\n{WORK}\n{FLIP}"
        ),
    );
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("failed · tests need a database"));
    assert_eq!(p.calls(), 2);
    let second = p.stdin(2);
    assert!(
        second.contains("You reported FAILED: tests need a database"),
        "{second}"
    );
    let h = p.history();
    assert_eq!(h[0]["outcome"], "failed");
    assert_eq!(h[0]["reason"], "tests need a database");
    assert_eq!(h[1]["outcome"], "done");
    assert!(p.passes("A"));
}

#[test]
fn a_signal_line_echoed_from_the_prompt_does_not_count() {
    // The story's description holds a BLOCKED line of its own; the agent echoes its whole
    // prompt (instructions included), then does the work.
    let text = prd("ralph/s", &[story("A", 1, &[])]).replace(
        "\"Do A\"",
        "\"Do A. If stuck the old way said:\\nSTORY BLOCKED: A: quoted from the description\"",
    );
    let p = Project::new(&text);
    p.agent("claude", &format!("cat \"$D/stdin-$n\"\n{WORK}\n{FLIP}"));
    p.run().assert().code(0);
    assert!(
        p.stdin(1)
            .lines()
            .any(|l| l.trim() == "STORY BLOCKED: A: quoted from the description"),
        "the prompt should hold the line: {}",
        p.stdin(1)
    );
    let h = p.history();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0]["outcome"], "done");
    assert!(p.passes("A"));
}

#[test]
fn parallel_runs_hold_a_blocked_story_too() {
    let p = Project::new(&prd("ralph/par", &[story("A", 1, &[]), story("B", 2, &[])]));
    p.git(&["checkout", "-qb", "ralph/par"]);
    p.agent(
        "claude",
        &format!(
            "if [ \"$RALPH_STORY_ID\" = A ]; then echo '<promise>BLOCKED: no staging server</promise>'; exit 0; fi\n{WORK}\n{FLIP}"
        ),
    );
    p.run()
        .args(["--parallel", "2"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "skipping A for the rest of this run: blocked: no staging server",
        ));
    assert!(p.passes("B") && !p.passes("A"));
    let h = p.history();
    let a: Vec<_> = h.iter().filter(|r| r["story"] == "A").collect();
    assert_eq!(a.len(), 1, "{h:?}");
    assert_eq!(a[0]["outcome"], "blocked");
    assert_eq!(a[0]["reason"], "no staging server");
}
