//! `ralph run` against misbehaving agents: every fault in the loop's spec has a test here.
//! Hang and interrupt tests check that no descendant process survives.

use crate::support::{FLIP, Project, STARTED, WORK, alive, prd, story, wait_for};
use predicates::prelude::*;
use std::time::{Duration, Instant};

fn one_story() -> String {
    prd("ralph/f", &[story("A", 1, &[])])
}

/// Agent body: record own pid, start a grandchild that ignores SIGTERM, then run `then`.
fn with_grandchild(then: &str) -> String {
    format!(
        "echo $$ > \"$D/pid\"\n(trap '' TERM; while :; do sleep 0.1; done) &\necho $! > \"$D/gpid\"\n{then}"
    )
}

#[test]
fn hanging_agent_times_out_and_its_whole_group_is_killed() {
    let p = Project::new(&one_story());
    p.agent("claude", &with_grandchild("sleep 30"));
    let t = Instant::now();
    p.run()
        .args(["1", "--timeout", "3"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("timed out"));
    // Far below the agent's own 30 s: the timeout, not the agent, ended it.
    assert!(t.elapsed() < Duration::from_secs(25));
    let (pid, gpid) = (p.read_pid("pid"), p.read_pid("gpid"));
    assert!(!alive(pid), "agent {pid} survived");
    assert!(!alive(gpid), "grandchild {gpid} survived");
    let h = p.history();
    assert_eq!(h[0]["outcome"], "timed-out");
    assert_eq!(h[0]["timed_out"], true);
}

#[test]
fn agent_ignoring_sigterm_is_killed_after_the_grace_period() {
    let p = Project::new(&one_story());
    p.agent(
        "claude",
        &with_grandchild("trap '' TERM\nwhile :; do sleep 0.1; done"),
    );
    // The timeout leaves the fake agent time to write its pid files even on a
    // loaded machine; the grace period (0.3 s, set by `p.run()`) is what this test is about.
    p.run().args(["1", "--timeout", "3"]).assert().code(3);
    assert!(!alive(p.read_pid("pid")));
    assert!(!alive(p.read_pid("gpid")));
    assert_eq!(p.history()[0]["term_signal"], 9);
}

#[test]
fn descendants_left_running_after_a_normal_exit_are_stopped() {
    let p = Project::new(&one_story());
    p.agent("claude", &with_grandchild(&format!("{WORK}\n{FLIP}")));
    p.run().assert().code(0);
    assert!(!alive(p.read_pid("gpid")));
}

#[test]
fn sigint_stops_the_agent_group_writes_history_releases_the_lock_and_exits_130() {
    let p = Project::new(&one_story());
    p.agent("claude", &with_grandchild("sleep 30"));
    let mut child = p
        .run_command()
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ralph_pid = child.id() as i32;
    wait_for(10, || p.fake.join("gpid").exists());
    // A second run in the same project fails at once, naming the holder.
    p.run()
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!("pid {ralph_pid}")));
    unsafe {
        libc::kill(ralph_pid, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!alive(p.read_pid("pid")));
    assert!(!alive(p.read_pid("gpid")));
    let h = p.history();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0]["outcome"], "interrupted");
    assert_eq!(
        std::fs::read_to_string(p.root().join(".ralph/lock")).unwrap(),
        ""
    );
    assert_eq!(p.calls(), 1, "the second run must not start an agent");
}

#[test]
fn stale_lock_from_a_dead_process_is_taken_over_with_a_warning() {
    let p = Project::new(&one_story());
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    std::fs::create_dir_all(p.root().join(".ralph")).unwrap();
    std::fs::write(p.root().join(".ralph/lock"), "99999999\n").unwrap();
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("took over"))
        .stderr(predicate::str::contains("99999999"));
}

#[test]
fn a_parallel_run_takes_over_a_stale_lock_with_the_same_warning() {
    let p = Project::new(&one_story());
    p.git(&["checkout", "-qb", "ralph/f"]);
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    std::fs::create_dir_all(p.root().join(".ralph")).unwrap();
    std::fs::write(p.root().join(".ralph/lock"), "99999999\n").unwrap();
    p.run()
        .args(["--parallel", "2"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("took over"))
        .stderr(predicate::str::contains("99999999"));
}

#[test]
fn corrupted_prd_is_restored() {
    let p = Project::new(&one_story());
    let before = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
    p.agent("claude", "echo '{ broken' > prd.json");
    p.run()
        .args(["1"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("restored"))
        .stderr(predicate::str::contains("became invalid"));
    assert_eq!(
        std::fs::read_to_string(p.root().join("prd.json")).unwrap(),
        before
    );
    let h = p.history();
    assert!(h[0]["restored"][0].as_str().unwrap().contains("invalid"));
}

#[test]
fn deleted_prd_is_restored() {
    let p = Project::new(&one_story());
    let before = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
    p.agent("claude", "rm prd.json");
    p.run()
        .args(["1"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("prd.json was deleted"));
    assert_eq!(
        std::fs::read_to_string(p.root().join("prd.json")).unwrap(),
        before
    );
}

#[test]
fn illegal_edits_are_reverted_and_the_passes_flip_reapplied() {
    let p = Project::new(&prd(
        "ralph/f",
        &[story("A", 1, &[]), story("B", 2, &["A"])],
    ));
    // Flip A (allowed) and also drop B's dependency and rename A (not allowed).
    p.agent(
        "claude",
        &format!(
            "{WORK}\n{FLIP}\nsed -i -e 's/\"blockedBy\": \\[\"A\"\\]/\"blockedBy\": []/' -e 's/Title A/Easy A/' prd.json"
        ),
    );
    p.run()
        .args(["1"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("re-applied A passes=true"));
    let v = p.prd_value();
    assert_eq!(v["userStories"][0]["title"], "Title A");
    assert_eq!(v["userStories"][1]["blockedBy"], serde_json::json!(["A"]));
    assert!(p.passes("A"));
    assert_eq!(p.history()[0]["outcome"], "done");
}

#[test]
fn discovered_stories_may_be_added() {
    let p = Project::new(&one_story());
    let add = r#"sed -i 's/^\]$/,{"id": "A2", "title": "found", "description": "d", "acceptanceCriteria": [], "priority": 9, "passes": false, "discoveredFrom": "A"}\n]/' prd.json"#;
    p.agent("claude", &format!("{WORK}\n{FLIP}\n{add}"));
    p.run().arg("1").assert().code(3);
    let v = p.prd_value();
    assert_eq!(v["userStories"][1]["id"], "A2");
    assert!(p.history()[0]["restored"].as_array().unwrap().is_empty());
}

#[test]
fn failing_agent_gets_a_retry_note_and_is_skipped_after_max_failures() {
    let p = Project::new(&prd("ralph/f", &[story("A", 1, &[]), story("B", 2, &[])]));
    p.agent(
        "claude",
        &format!(
            "if [ \"$RALPH_STORY_ID\" = A ]; then {STARTED}; echo 'crash XYZ' >&2; exit 2; fi\n{WORK}\n{FLIP}"
        ),
    );
    p.run()
        .args(["--max-failures", "2"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "skipping A for the rest of this run",
        ))
        .stderr(predicate::str::contains(
            "A: skipped: no progress in 2 attempts",
        ));
    assert_eq!(p.calls(), 3);
    let second = p.stdin(2);
    assert!(second.contains("exited with code 2"), "{second}");
    assert!(second.contains("crash XYZ"), "{second}");
    assert!(p.passes("B") && !p.passes("A"));
    let h = p.history();
    assert_eq!(h[0]["outcome"], "agent-failed");
    assert_eq!(h[1]["skipped"], true);
}

#[test]
fn rate_limit_waits_for_the_reset_without_counting_the_iteration() {
    let p = Project::new(&one_story());
    p.agent(
        "claude",
        &format!(
            "if [ $n = 1 ]; then echo 'Claude usage limit reached. Your limit resets 7pm (Asia/Tokyo)'; exit 1; fi\n{WORK}\n{FLIP}"
        ),
    );
    // One iteration allowed: the rate-limited attempt must not use it up.
    p.run()
        .args(["1", "--max-wait", "0"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("rate limited"))
        .stderr(predicate::str::contains("waiting until 19:00 JST"))
        .stderr(predicate::str::contains("does not count"));
    assert_eq!(p.calls(), 2);
    let h = p.history();
    assert_eq!(h[0]["outcome"], "rate-limited");
    assert!(h[0]["rate_limit"].as_str().unwrap().contains("usage limit"));
    assert_eq!(h[1]["outcome"], "done");
}

#[test]
fn rate_limit_without_a_reset_backs_off_and_no_wait_exits_1() {
    let p = Project::new(&one_story());
    p.agent("claude", "echo 'Error: 429 Too Many Requests'; exit 1");
    p.run()
        .args(["--no-wait"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--no-wait"))
        .stderr(predicate::str::contains("429"));
    assert_eq!(p.calls(), 1);
    let q = Project::new(&one_story());
    q.agent(
        "claude",
        &format!("if [ $n = 1 ]; then echo 'rate limit exceeded'; exit 1; fi\n{WORK}\n{FLIP}"),
    );
    q.run()
        .args(["--max-wait", "0"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("backing off"));
}

#[test]
fn missing_agent_binary_is_a_clear_error_before_the_first_iteration() {
    let p = Project::new(&one_story());
    p.run().assert().code(1).stderr(predicate::str::contains(
        "agent: claude not found on PATH. Fix: install it (`npm install -g @anthropic-ai/claude-code`), or choose another --agent",
    ));
    assert!(!p.root().join(".ralph").exists());
}

#[test]
fn no_progress_on_a_story_skips_it_and_exits_4() {
    let p = Project::new(&one_story());
    p.agent("claude", "echo thinking");
    p.run()
        .assert()
        .code(4)
        .stderr(predicate::str::contains("A: skipped"));
    assert_eq!(p.calls(), 3);
    assert_eq!(p.history()[2]["outcome"], "incomplete");
}

#[test]
fn interrupt_during_verification_leaves_the_story_not_passing() {
    let p = Project::new(&one_story());
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    let marker = p.fake.join("verifying");
    let mut child = p
        .run_command()
        .arg("--verify")
        .arg(format!("touch '{}'; sleep 30", marker.display()))
        .spawn()
        .unwrap();
    wait_for(10, || marker.exists());
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert!(!p.passes("A"), "an unverified flip must not survive");
    assert_eq!(p.history()[0]["outcome"], "interrupted");
}

#[test]
fn sigkill_at_any_moment_leaves_a_whole_prd_json() {
    // The agent only signals, so every prd.json write in these runs is ralph's own.
    let stories: Vec<String> = (0..30).map(|i| story(&format!("S{i}"), i, &[])).collect();
    let p = Project::new(&prd("ralph/f", &stories));
    p.agent("claude", "echo \"STORY COMPLETE: $RALPH_STORY_ID\"");
    let done = |p: &Project| (0..30).filter(|i| p.passes(&format!("S{i}"))).count();
    // Fixed early kills, then longer ones until ralph has written at least once (a loaded CI
    // machine may need more than 160 ms for the first iteration, and a shared 2-core machine
    // under several builds more than 4 s); bounded at about 40 s in all.
    let mut delays: Vec<u64> = vec![5, 20, 40, 60, 80, 100, 130, 160];
    let mut extra = 250u64;
    let mut i = 0;
    while i < delays.len() {
        let delay_ms = delays[i];
        i += 1;
        let mut child = p
            .run_command()
            .args(["30", "--verify", "true"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        p.ralph().arg("validate").assert().code(0);
        if i == delays.len() && done(&p) == 0 && extra <= 16000 {
            delays.push(extra);
            extra *= 2;
        }
    }
    assert!(
        done(&p) > 0,
        "the runs were killed before ralph wrote anything"
    );
}

#[test]
fn agent_does_not_outlive_a_sigkilled_ralph() {
    let p = Project::new(&one_story());
    p.agent("claude", "echo $$ > \"$D/pid\"\nsleep 30");
    let mut child = p
        .command()
        .args(["run", "--sleep", "0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(10, || p.fake.join("pid").exists());
    let pid = p.read_pid("pid");
    child.kill().unwrap();
    child.wait().unwrap();
    wait_for(5, || !alive(pid));
}

#[test]
fn descendant_that_left_the_process_group_does_not_outlive_the_run() {
    let p = Project::new(&one_story());
    p.agent(
        "claude",
        &format!(
            "setsid sh -c 'trap \"\" TERM; sleep 300' >/dev/null 2>&1 &\necho $! > \"$D/spid\"\n{WORK}\n{FLIP}"
        ),
    );
    let t = Instant::now();
    p.run().assert().code(0);
    assert!(t.elapsed() < Duration::from_secs(10));
    let spid = p.read_pid("spid");
    let gone = std::process::Command::new("kill")
        .args(["-0", &spid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!gone.success(), "setsid descendant {spid} survived the run");
    assert!(!alive(spid));
}
