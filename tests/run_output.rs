//! `ralph run` reading the agent's output: what is (and is not) a rate limit or a completion
//! signal. Ordinary failure output must count as a failure.

mod support;

use predicates::prelude::*;
use support::{Project, prd, story};

fn one_story() -> String {
    prd("ralph/o", &[story("A", 1, &[])])
}

#[test]
fn failing_build_that_mentions_429_earlier_is_a_failure_not_a_rate_limit() {
    let p = Project::new(&one_story());
    p.agent(
        "claude",
        "echo 'Error: rate limit exceeded (from a test fixture)'\nfor i in 1 2 3 4 5 6; do echo \"compiling crate $i\"; done\necho 'test http::retry_after_429 ... ok'\necho 'test rate_limit::backoff ... ok'\necho 'error: build failed'\nexit 1",
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
        .args(["1", "--timeout", "0.5", "--no-wait"])
        .assert()
        .code(3);
    assert_eq!(p.history()[0]["outcome"], "timed-out");
}
