//! Processes: SIGHUP handled like SIGTERM (exit 129), and an agent group left behind by a
//! ralph killed outright is stopped by the next run, by identity (a reused pid never is).

use crate::support::{FLIP, Project, WORK, alive, prd, story, wait_for};
use predicates::prelude::*;
use std::process::{Command, Stdio};

fn one() -> String {
    prd("ralph/p", &[story("A", 1, &[])])
}

/// Agent body: record pids, start a grandchild that ignores SIGTERM, wait.
const HANGING: &str = "echo $$ > \"$D/pid\"\n(trap '' TERM; while :; do sleep 0.1; done) &\necho $! > \"$D/gpid\"\ntrap '' TERM\nwhile :; do sleep 0.1; done";

fn spawn_run(p: &Project) -> std::process::Child {
    p.run_command().stderr(Stdio::piped()).spawn().unwrap()
}

fn lock_free(p: &Project) -> bool {
    std::fs::read_to_string(p.root().join(".ralph/lock"))
        .unwrap_or_default()
        .is_empty()
}

#[test]
fn sighup_stops_the_agent_group_writes_history_releases_the_lock_and_exits_129() {
    let p = Project::new(&one());
    p.agent("claude", HANGING);
    let mut child = spawn_run(&p);
    wait_for(20, || p.fake.join("gpid").exists());
    unsafe {
        libc::kill(child.id() as i32, libc::SIGHUP);
    }
    assert_eq!(child.wait().unwrap().code(), Some(129));
    assert!(!alive(p.read_pid("pid")));
    assert!(!alive(p.read_pid("gpid")));
    assert_eq!(p.history()[0]["outcome"], "interrupted");
    assert!(lock_free(&p));
    assert!(!p.root().join(".ralph/agent-group").exists());
    // The next run starts normally.
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().assert().code(0);
}

#[test]
fn after_ralph_is_sigkilled_the_next_run_stops_the_agents_group() {
    let p = Project::new(&one());
    p.agent("claude", HANGING);
    let mut child = spawn_run(&p);
    wait_for(20, || p.fake.join("gpid").exists());
    wait_for(20, || p.root().join(".ralph/agent-group").exists());
    child.kill().unwrap();
    child.wait().unwrap();
    let gpid = p.read_pid("gpid");
    // Nothing supervises the group now (the parent-death signal reaches only the leader, and
    // both ignore SIGTERM).
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(alive(gpid), "precondition: the grandchild outlived ralph");
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().assert().code(0).stderr(predicate::str::contains(
        "left running by a ralph that was killed",
    ));
    wait_for(10, || !alive(gpid));
    assert!(!alive(p.read_pid("pid")));
    assert!(!p.root().join(".ralph/agent-group").exists());
}

#[test]
fn a_recorded_pid_reused_by_another_process_is_never_killed() {
    let p = Project::new(&one());
    // An unrelated process, leader of its own group, alive now.
    let mut other = Command::new("sleep")
        .arg("30")
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = other.id() as i32;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let f: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let (session, start): (i32, u64) = (f[3].parse().unwrap(), f[19].parse().unwrap());
    std::fs::create_dir_all(p.root().join(".ralph")).unwrap();
    // A record of "the same pid" from before it was reused: another start time.
    std::fs::write(
        p.root().join(".ralph/agent-group"),
        format!("{pid} {} {session}\n", start.saturating_sub(5)),
    )
    .unwrap();
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().assert().code(0);
    assert!(alive(pid), "a process with another start time is not ours");
    // Junk in the record is ignored too.
    std::fs::write(p.root().join(".ralph/agent-group"), "not a record\n").unwrap();
    p.run().assert().code(0);
    assert!(alive(pid));
    other.kill().unwrap();
    other.wait().unwrap();
}

use std::os::unix::process::CommandExt;
