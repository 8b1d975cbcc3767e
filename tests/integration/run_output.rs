//! `ralph run` reading the agent's output: what is (and is not) a rate limit or a completion
//! signal. Ordinary failure output must count as a failure.

use crate::support::{Project, prd, story};
use predicates::prelude::*;

fn one_story() -> String {
    prd("ralph/o", &[story("A", 1, &[])])
}

#[test]
fn failing_build_that_mentions_429_earlier_is_a_failure_not_a_rate_limit() {
    let p = Project::new(&one_story());
    p.agent(
        "claude",
        "echo '{\"type\":\"system\",\"subtype\":\"init\"}'\necho 'Error: rate limit exceeded (from a test fixture)'\nfor i in 1 2 3 4 5 6; do echo \"compiling crate $i\"; done\necho 'test http::retry_after_429 ... ok'\necho 'test rate_limit::backoff ... ok'\necho 'error: build failed'\nexit 1",
    );
    p.run()
        .args(["--max-failures", "2", "--no-wait"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("rate limited").not());
    assert_eq!(p.calls(), 2);
    let h = p.history();
    assert_eq!(h[0]["outcome"], "agent-failed");
    assert_eq!(h[1]["outcome"], "agent-failed");
    assert_eq!(h[1]["skipped"], true);
}

#[test]
fn timeout_after_a_limit_message_is_a_timeout() {
    let p = Project::new(&one_story());
    p.agent("claude", "echo 'usage limit reached'\nsleep 30");
    p.run()
        .args(["1", "--timeout", "3", "--no-wait"])
        .assert()
        .code(3);
    assert_eq!(p.history()[0]["outcome"], "timed-out");
}

#[test]
fn failing_agent_echoing_a_completion_line_from_its_prompt_is_not_done() {
    let p = Project::new(&one_story());
    std::fs::write(
        p.root().join("progress.txt"),
        "# Ralph Progress Log\n\n## Codebase Patterns\n- agents end with\n<promise>COMPLETE</promise>\n\n---\n",
    )
    .unwrap();
    // Echo the prompt, whether it came on stdin or as an argument, then fail.
    p.agent(
        "claude",
        "echo '{\"type\":\"system\",\"subtype\":\"init\"}'; cat \"$D/stdin-$n\"; printf '%s\\n' \"$@\"; exit 1",
    );
    p.run().arg("1").assert().code(3);
    let echoed = format!("{}{}", p.stdin(1), p.argv(1).join("\n"));
    assert!(
        echoed.contains("<promise>COMPLETE</promise>"),
        "the prompt must carry the line for this test to mean anything"
    );
    assert!(!p.passes("A"));
    let h = p.history();
    assert_eq!(h[0]["outcome"], "agent-failed");
    assert_eq!(h[0]["signal_seen"], false);
}
