//! A run you can watch: the heartbeat of a silent agent and the rate-limit countdown write one
//! plain line per interval to a file (never a `\r` spinner), `--json` gets the heartbeat as an
//! event, and stopping an agent says when SIGKILL follows. The interval is shortened with the
//! hidden `--heartbeat`.

use crate::support::{FLIP, Project, WORK, events, prd, story};

fn one_story() -> String {
    prd("ralph/w", &[story("A", 1, &[])])
}

fn count(text: &str, needle: &str) -> usize {
    text.lines().filter(|l| l.contains(needle)).count()
}

#[test]
fn the_heartbeat_writes_one_line_per_interval_to_a_file() {
    let p = Project::new(&one_story());
    p.agent(
        "claude",
        &format!("echo started\nsleep 2.3\n{WORK}\n{FLIP}"),
    );
    let out = p.run().args(["--heartbeat", "0.5"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let beats = count(&err, "ralph: A running ");
    // Due at 0.5, 1.0, 1.5, 2.0 s (a loaded machine may start the agent late).
    assert!((3..=5).contains(&beats), "{beats} heartbeats:\n{err}");
    assert!(err.contains("of output · silent "), "{err}");
    assert!(err.contains("· last: started"), "{err}");
    assert!(
        !err.contains('\r'),
        "no in-place refresh in a file:\n{err:?}"
    );
}

#[test]
fn json_gets_the_heartbeat_as_an_event() {
    let p = Project::new(&one_story());
    p.agent("claude", &format!("sleep 1.3\n{WORK}\n{FLIP}"));
    let out = p
        .run()
        .args(["--json", "--heartbeat", "0.4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let beats: Vec<serde_json::Value> = events(&out.stdout)
        .into_iter()
        .filter(|e| e["event"] == "heartbeat")
        .collect();
    assert!((2..=4).contains(&beats.len()), "{beats:?}");
    assert_eq!(beats[0]["story"], "A");
    assert!(beats[0]["elapsed"].as_u64().unwrap() >= 400);
    assert_eq!(beats[0]["bytes"], 0);
    assert!(beats[0].get("live").is_none());
}

#[test]
fn the_countdown_writes_one_line_per_interval_to_a_file() {
    let p = Project::new(&one_story());
    p.agent(
        "claude",
        &format!("if [ $n = 1 ]; then echo 'rate limit exceeded'; exit 1; fi\n{WORK}\n{FLIP}"),
    );
    let out = p
        .run()
        .args(["--max-wait", "1.2", "--heartbeat", "0.5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let lines = count(&err, "ralph: waiting: ");
    // At 0, 0.5 and 1.0 s of a 1.2 s wait.
    assert!((2..=4).contains(&lines), "{lines} countdown lines:\n{err}");
    assert!(
        err.contains("ralph: waiting: 2s left (Ctrl-C to stop)\n"),
        "{err}"
    );
    assert!(
        !err.contains('\r'),
        "no in-place refresh in a file:\n{err:?}"
    );
}

#[test]
fn stopping_an_agent_says_when_sigkill_follows() {
    let p = Project::new(&one_story());
    p.agent("claude", "trap '' TERM\nsleep 30");
    let out = p
        .run()
        .args(["1", "--timeout", "1", "--no-wait"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(
            "ralph: stopping the agent (timed out after 1s): SIGTERM now, SIGKILL in 0.30s if it is still running"
        ),
        "{err}"
    );
}

#[test]
fn ctrl_c_says_it_stops_the_agent_and_when_sigkill_follows() {
    let p = Project::new(&one_story());
    p.agent(
        "claude",
        "echo $$ > \"$D/pid\"\ntrap '' TERM\nwhile :; do sleep 0.1; done",
    );
    let err_path = p.fake.join("stderr");
    let mut child = p
        .run_command()
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    crate::support::wait_for(20, || p.fake.join("pid").exists());
    // SAFETY: SIGINT to the ralph child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let err = std::fs::read_to_string(&err_path).unwrap();
    assert!(
        err.contains("ralph: stopping the agent (interrupted after ")
            && err.contains("): SIGTERM now, SIGKILL in 0.30s if it is still running"),
        "{err}"
    );
}
