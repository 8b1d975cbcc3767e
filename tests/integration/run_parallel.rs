//! `ralph run --parallel K` end to end with fake agents (specs/parallel.md, section 8): merge
//! order and readiness, conflicts and failed re-verifies sent back, `passes` written only after
//! the merge, and nothing left behind after Ctrl-C. No test depends on timing: agents wait for
//! marker files and write what they saw to files the test reads.

use std::process::{Child, Command};

use crate::support::parallel::{
    COMMIT, MERGED, agent, finish, passes_now, project, record, spawn, worktrees,
};
use crate::support::{FLIP, Project, alive, events, prd, story, wait_for};

#[test]
fn a_dependant_never_starts_before_its_blocker_is_merged() {
    // A waits for the test's go; C is independent and merges first; B is blocked by A.
    let p = project(&[
        story("A", 1, &[]),
        story("B", 2, &["A"]),
        story("C", 3, &[]),
    ]);
    agent(
        &p,
        &format!(
            "if [ $id = A ]; then while [ ! -f \"$D/go\" ]; do sleep 0.05; done; fi\n\
             if [ $id = B ]; then test -f A.txt && echo yes > \"$D/B-saw-A-code\"; grep -q '\"id\": \"A\"[^}}]*\"passes\": true' prd.json && echo yes > \"$D/B-saw-A-pass\"; fi\n\
             echo $id > $id.txt\n{FLIP}\n{COMMIT}"
        ),
    );
    let child = spawn(&p, &["--parallel", "3"]);
    wait_for(30, || passes_now(&p, "C"));
    wait_for(30, || p.fake.join("stdin-A-1").exists());
    // A is running, C merged: B must still wait for A's merge.
    assert!(!p.fake.join("stdin-B-1").exists());
    assert!(!p.passes("A"));
    std::fs::write(p.fake.join("go"), "").unwrap();
    let (code, err) = finish(child);
    assert_eq!(code, Some(0), "{err}");
    assert!(p.passes("A") && p.passes("B") && p.passes("C"));
    let h = p.history();
    let a = record(&h, "A", 0)["head_after"]
        .as_str()
        .unwrap()
        .to_string();
    let b_base = record(&h, "B", 0)["base"].as_str().unwrap().to_string();
    p.git(&["merge-base", "--is-ancestor", &a, &b_base]);
    assert!(p.fake.join("B-saw-A-code").exists());
    assert!(p.fake.join("B-saw-A-pass").exists());
    // Each agent ran in its own worktree, never in the main tree.
    for id in ["A", "B", "C"] {
        let pwd = std::fs::read_to_string(p.fake.join(format!("pwd-{id}-1"))).unwrap();
        assert!(
            pwd.trim().ends_with(&format!(".ralph/worktrees/{id}")),
            "{pwd}"
        );
    }
    assert_eq!(worktrees(&p), 1);
    assert!(p.git(&["branch", "--list", "ralph/par--*"]).is_empty());
    assert!(err.contains("merged"), "{err}");
}

#[test]
fn two_stories_editing_the_same_lines_one_is_retried_on_the_new_tip() {
    let p = project(&[story("A", 1, &[]), story("B", 2, &[])]);
    std::fs::write(p.root().join("f.txt"), "0\n").unwrap();
    p.commit("setup");
    // First attempts start together and both rewrite line 1; a retry builds on what is there.
    agent(
        &p,
        &format!(
            "touch \"$D/started-$id\"\nwhile [ ! -f \"$D/started-A\" ] || [ ! -f \"$D/started-B\" ]; do sleep 0.05; done\n\
             echo \"$(head -1 f.txt) $id\" > f.txt\n{FLIP}\n{COMMIT}"
        ),
    );
    let (code, err) = finish(spawn(&p, &["--parallel", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(p.passes("A") && p.passes("B"));
    let h = p.history();
    let conflicted: Vec<&serde_json::Value> = h
        .iter()
        .filter(|r| r["outcome"] == "merge-conflict")
        .collect();
    assert_eq!(conflicted.len(), 1, "{h:?}");
    let loser = conflicted[0]["story"].as_str().unwrap();
    let winner = if loser == "A" { "B" } else { "A" };
    assert_eq!(
        conflicted[0]["merge"]["conflicts"],
        serde_json::json!(["f.txt"])
    );
    let attempt_ref = conflicted[0]["attempt_ref"].as_str().unwrap();
    assert!(attempt_ref.starts_with(&format!("refs/ralph/attempts/ralph/par--{loser}/")));
    let retry = std::fs::read_to_string(p.fake.join(format!("stdin-{loser}-2"))).unwrap();
    assert!(
        retry.contains("f.txt") && retry.contains(attempt_ref),
        "{retry}"
    );
    assert!(
        retry.contains(&format!("conflicts with {winner}")),
        "{retry}"
    );
    // The branch holds both edits: the retry started from the winner's line.
    let f = p.git(&["show", "ralph/par:f.txt"]);
    assert_eq!(f, format!("0 {winner} {loser}"));
    assert_eq!(record(&h, loser, 1)["outcome"], "done");
    assert!(err.contains("sent back"), "{err}");
    assert_eq!(worktrees(&p), 1);
    // Merged: the story branches go. The sent-back attempt holds an edit the branch does not
    // have (the loser's first line), so its ref stays, and `ralph show` names it.
    assert!(p.git(&["branch", "--list", "ralph/par--*"]).is_empty());
    assert_eq!(
        p.git(&["for-each-ref", "--format=%(refname)", "refs/ralph/"]),
        attempt_ref
    );
    let first = p.git(&["show", &format!("{attempt_ref}:f.txt")]);
    assert_eq!(first, format!("0 {loser}"));
    let out = p.ralph().args(["show", loser]).output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains(attempt_ref), "{shown}");
}

#[test]
fn a_failed_verify_after_merging_sends_the_story_back() {
    let p = project(&[story("A", 1, &[]), story("B", 2, &[])]);
    // Alone each passes; together they fail until b.txt is adapted.
    let check = "if [ -f a.txt ] && [ -f b.txt ] && ! grep -q adapted b.txt; then echo 'a and b clash'; exit 1; fi\n";
    std::fs::write(p.root().join("check.sh"), check).unwrap();
    p.commit("setup");
    // B's first attempt finishes only once A is merged, so its merge is not a fast-forward.
    agent(
        &p,
        &format!(
            "{MERGED}\nif [ $id = A ]; then echo a > a.txt; fi\n\
             if [ $id = B ]; then if [ $a = 1 ]; then merged A; echo plain > b.txt; else echo adapted > b.txt; fi; fi\n\
             {FLIP}\n{COMMIT}"
        ),
    );
    let (code, err) = finish(spawn(&p, &["--parallel", "2", "--verify", "sh check.sh"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(p.passes("A") && p.passes("B"));
    let h = p.history();
    let a = record(&h, "A", 0);
    let b1 = record(&h, "B", 0);
    assert_eq!(b1["outcome"], "merge-verify-failed");
    assert_eq!(b1["merge"]["tip_before"], a["head_after"]);
    assert!(b1["merge"]["tip_after"].is_null());
    assert_eq!(b1["merge"]["verify"][0]["passed"], false);
    assert_eq!(record(&h, "B", 1)["outcome"], "done");
    let retry = std::fs::read_to_string(p.fake.join("stdin-B-2")).unwrap();
    assert!(retry.contains("failed once merged with A"), "{retry}");
    assert!(retry.contains("a and b clash"), "{retry}");
    // Passing after a failed re-verify teaches an error pattern, in the main tree.
    let patterns = std::fs::read_to_string(p.root().join(".ralph/patterns.jsonl")).unwrap();
    assert!(
        patterns.contains("\"signature\":[\"a and b clash\"]"),
        "{patterns}"
    );
    assert!(patterns.contains("\"story\":\"B\""), "{patterns}");
    // No commit on the branch's first-parent history fails the check.
    for c in p.git(&["rev-list", "--first-parent", "ralph/par"]).lines() {
        let files = p.git(&["ls-tree", "--name-only", c]);
        if files.lines().any(|f| f == "a.txt") && files.lines().any(|f| f == "b.txt") {
            assert_eq!(p.git(&["show", &format!("{c}:b.txt")]), "adapted");
        }
    }
}

#[test]
fn passes_flips_in_the_main_tree_only_with_the_merge() {
    let p = project(&[story("A", 1, &[]), story("C", 2, &[])]);
    // The re-verify in the main tree waits for the test's go (the gate in a worktree does not).
    let check = format!(
        "if [ \"$(pwd -P)\" = \"$(cd '{}' && pwd -P)\" ]; then touch '{}/merging'; while [ ! -f '{}/go' ]; do sleep 0.05; done; fi\n",
        p.root().display(),
        p.fake.display(),
        p.fake.display()
    );
    std::fs::write(p.root().join("check.sh"), &check).unwrap();
    p.commit("setup");
    // A finishes after C is merged: its merge is re-verified.
    agent(
        &p,
        &format!(
            "{MERGED}\nif [ $id = A ]; then merged C; fi\necho $id > $id.txt\n{FLIP}\n{COMMIT}"
        ),
    );
    let child = spawn(&p, &["--parallel", "2", "--verify", "sh check.sh"]);
    wait_for(30, || p.fake.join("merging").exists());
    // A passes in its worktree and its code is being merged, but the main tree says false.
    assert!(!p.passes("A"));
    assert!(p.passes("C"));
    let wt_prd = std::fs::read_to_string(p.root().join(".ralph/worktrees/A/prd.json")).unwrap();
    assert!(wt_prd.contains("\"id\": \"A\", \"title\": \"Title A\", \"description\": \"Do A\", \"acceptanceCriteria\": [\"A works\"], \"priority\": 1, \"passes\": true"));
    std::fs::write(p.fake.join("go"), "").unwrap();
    let (code, err) = finish(child);
    assert_eq!(code, Some(0), "{err}");
    assert!(p.passes("A"));
    // The commit that brought A's code is the one that set its passes.
    let m = record(&p.history(), "A", 0)["head_after"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(p.git(&["show", &format!("{m}:A.txt")]), "A");
    let prd_at_m = p.git(&["show", &format!("{m}:prd.json")]);
    assert!(
        prd_at_m.contains("\"priority\": 1, \"passes\": true"),
        "{prd_at_m}"
    );
    let prd_before = p.git(&["show", &format!("{m}^1:prd.json")]);
    assert!(
        prd_before.contains("\"priority\": 1, \"passes\": false"),
        "{prd_before}"
    );
}

/// Agent body: uncommitted work, its pid recorded, SIGTERM ignored; A also starts a grandchild
/// in a session of its own (out of its process group).
const HANGING: &str = "echo wip > $id-wip.txt\necho $$ > \"$D/pid-$id\"\n\
     if [ $id = A ]; then setsid sh -c 'trap \"\" TERM; while :; do sleep 0.1; done' & echo $! > \"$D/gpid\"; fi\n\
     trap '' TERM\nwhile :; do sleep 0.1; done";

fn three_hanging() -> (Project, Child) {
    let p = project(&[story("A", 1, &[]), story("B", 2, &[]), story("C", 3, &[])]);
    agent(&p, HANGING);
    let child = spawn(&p, &["--parallel", "3"]);
    wait_for(30, || {
        ["A", "B", "C"]
            .iter()
            .all(|id| p.fake.join(format!("pid-{id}")).exists())
            && p.fake.join("gpid").exists()
    });
    (p, child)
}

#[test]
fn ctrl_c_leaves_no_agent_no_worktree_and_no_lock() {
    for (signal, exit) in [
        (libc::SIGINT, 130),
        (libc::SIGTERM, 130),
        (libc::SIGHUP, 129),
    ] {
        let (p, child) = three_hanging();
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let (code, err) = finish(child);
        assert_eq!(code, Some(exit), "{err}");
        for f in ["pid-A", "pid-B", "pid-C", "gpid"] {
            let pid = p.read_pid(f);
            wait_for(5, || !alive(pid));
        }
        assert_eq!(worktrees(&p), 1, "{err}");
        assert!(!p.root().join(".ralph/worktrees").exists());
        assert!(!p.root().join(".git/MERGE_HEAD").exists());
        let locks = Command::new("find")
            .args([".git", "-name", "*.lock"])
            .current_dir(p.root())
            .output()
            .unwrap();
        assert!(locks.stdout.is_empty(), "{locks:?}");
        for id in ["A", "B", "C"] {
            assert!(!p.passes(id));
            // The interrupted work is kept on its story branch.
            let kept = p.git(&["show", &format!("ralph/par--{id}:{id}-wip.txt")]);
            assert_eq!(kept, "wip");
        }
        assert!(p.history().iter().all(|r| r["outcome"] == "interrupted"));
        // The lock is free: the next run takes it at once and finishes the stories.
        agent(&p, &format!("echo $id > $id.txt\n{FLIP}\n{COMMIT}"));
        let (code, err) = finish(spawn(&p, &["--parallel", "3"]));
        assert_eq!(code, Some(0), "{err}");
        assert!(p.passes("A") && p.passes("B") && p.passes("C"));
    }
}

#[test]
fn the_parallel_start_checks_out_or_creates_the_branch_as_the_sequential_one_does() {
    // Started on the default branch, with prd.json and progress.txt not committed yet (as
    // after `ralph init`): the branch is created from HEAD and ralph's own files committed on it.
    let p = Project::new(&prd("ralph/par", &[story("A", 1, &[]), story("B", 2, &[])]));
    let start = p.git(&["symbolic-ref", "--short", "HEAD"]);
    std::fs::write(
        p.root().join("prd.json"),
        prd(
            "ralph/par",
            &[story("A", 1, &[]), story("B", 2, &[]), story("C", 3, &[])],
        ),
    )
    .unwrap();
    std::fs::write(p.root().join("progress.txt"), "# log\n").unwrap();
    agent(&p, &format!("echo $id > $id.txt\n{FLIP}\n{COMMIT}"));
    let (code, err) = finish(spawn(&p, &["--parallel", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("switched to branch ralph/par (created from HEAD"),
        "{err}"
    );
    assert!(
        err.contains("committed prd.json, progress.txt on the branch"),
        "{err}"
    );
    assert_eq!(p.git(&["symbolic-ref", "--short", "HEAD"]), "ralph/par");
    assert!(p.passes("A") && p.passes("B") && p.passes("C"));
    // The branch it started from is as it was.
    assert!(
        !p.git(&["show", &format!("{start}:prd.json")])
            .contains("\"C\"")
    );
    // Existing: checked out. A person's uncommitted change: refused before anything, whatever
    // --allow-dirty says; nothing checked out.
    p.git(&["checkout", "-q", &start]);
    std::fs::write(p.root().join("dirty.txt"), "x").unwrap();
    let (code, err) = finish(spawn(&p, &["--parallel", "2", "--allow-dirty"]));
    assert_eq!(code, Some(1));
    assert!(
        err.contains("?? dirty.txt") && err.contains("git stash"),
        "{err}"
    );
    assert_eq!(p.git(&["symbolic-ref", "--short", "HEAD"]), start);
    std::fs::remove_file(p.root().join("dirty.txt")).unwrap();
    let (code, err) = finish(spawn(&p, &["--parallel", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("switched to branch ralph/par (was"), "{err}");
}

#[test]
fn with_json_a_parallel_run_is_a_stream_of_events_ending_with_the_summary_and_the_end() {
    let p = project(&[
        story("A", 1, &[]),
        story("B", 2, &["A"]),
        story("C", 3, &[]),
    ]);
    agent(&p, &format!("echo $id > $id.txt\n{FLIP}\n{COMMIT}"));
    let out = p
        .run()
        .args(["--parallel", "2", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events(&out.stdout);
    let named = |name: &str| -> Vec<&serde_json::Value> {
        events.iter().filter(|e| e["event"] == name).collect()
    };
    let start = named("run-started");
    assert_eq!(start.len(), 1);
    assert_eq!(start[0]["parallel"], 2);
    assert_eq!(start[0]["branch"], "ralph/par");
    let started = named("iteration-started");
    assert_eq!(started.len(), 3);
    assert!(
        started
            .iter()
            .all(|e| e["worker"].is_u64() && e["log"].is_string())
    );
    // Each agent knows its worker, and the ports it may use are 100 apart per worker.
    for e in &started {
        let (id, w) = (e["story"].as_str().unwrap(), e["worker"].as_u64().unwrap());
        let env = std::fs::read_to_string(p.fake.join(format!("env-{id}-1"))).unwrap();
        assert!(env.contains(&format!("RALPH_WORKER={w}\n")), "{env}");
        let offset = 100 * (w - 1);
        assert!(
            env.contains(&format!("RALPH_PORT_OFFSET={offset}\n")),
            "{env}"
        );
    }
    // Each story lands once, with its merge commit; B only after A.
    let done: Vec<&str> = named("story-done")
        .iter()
        .filter_map(|e| e["story"].as_str())
        .collect();
    assert_eq!(done.len(), 3, "{done:?}");
    let at = |id: &str| done.iter().position(|d| *d == id).unwrap();
    assert!(at("A") < at("B"), "{done:?}");
    assert!(
        named("story-done")
            .iter()
            .all(|e| e["commit"].is_string() && e["how"].is_string())
    );
    let summary = named("summary");
    assert_eq!(summary.len(), 1);
    assert_eq!(summary[0]["rows"].as_array().unwrap().len(), 3);
    assert_eq!(summary[0]["totals"]["merges"], 3);
    let end = events.last().unwrap();
    assert_eq!(end["event"], "run-ended");
    assert_eq!(end["ending"], "all-done");
    assert_eq!(end["passing"], 3);
    // Nothing but JSON on stdout, and no human lines on stderr.
    assert!(!String::from_utf8_lossy(&out.stderr).contains("ralph ["));
}

#[test]
fn notes_and_discovered_stories_are_carried_over_at_the_merge() {
    let p = project(&[story("A", 1, &[]), story("B", 2, &[])]);
    // A notes what it learned and files a story it discovered (one line, like the others).
    let discover = r#"if [ $id = A ]; then
  sed -i -E 's/("id": "A".*"notes": )""/\1"A learned X"/' prd.json
  sed -i '/"id": "A"/a {"id": "A2", "title": "Found by A", "description": "d", "acceptanceCriteria": ["ok"], "priority": 9, "passes": false, "notes": "", "discoveredFrom": "A"},' prd.json
fi"#;
    agent(
        &p,
        &format!("{discover}\necho $id > $id.txt\n{FLIP}\n{COMMIT}"),
    );
    let (code, err) = finish(spawn(&p, &["--parallel", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("A: carried over from its worktree's prd.json: the notes of A, the discovered story A2 (from A)"),
        "{err}"
    );
    let v = p.prd_value();
    let stories = v["userStories"].as_array().unwrap();
    assert_eq!(stories[0]["notes"], "A learned X");
    // The discovered story landed on the branch, after the others, and ran in the same run.
    assert_eq!(stories.len(), 3);
    assert_eq!(stories[2]["id"], "A2");
    assert_eq!(stories[2]["discoveredFrom"], "A");
    assert!(p.passes("A2"));
    let text = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
    assert!(
        text.contains("\n{\"id\": \"A2\", \"title\": \"Found by A\""),
        "{text}"
    );
}

#[test]
fn a_signal_during_a_merge_aborts_it_and_the_next_run_lands_the_story() {
    let p = project(&[story("A", 1, &[]), story("C", 2, &[])]);
    // The re-verify in the main tree waits for the test's go (the gate in a worktree does not).
    let check = format!(
        "if [ \"$(pwd -P)\" = \"$(cd '{}' && pwd -P)\" ]; then touch '{}/merging'; while [ ! -f '{}/go' ]; do sleep 0.05; done; fi\n",
        p.root().display(),
        p.fake.display(),
        p.fake.display()
    );
    std::fs::write(p.root().join("check.sh"), &check).unwrap();
    p.commit("setup");
    agent(
        &p,
        &format!(
            "{MERGED}\nif [ $id = A ]; then merged C; fi\necho $id > $id.txt\n{FLIP}\n{COMMIT}"
        ),
    );
    let child = spawn(&p, &["--parallel", "2", "--verify", "sh check.sh"]);
    wait_for(30, || p.fake.join("merging").exists());
    let tip = p.git(&["rev-parse", "ralph/par"]);
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let (code, err) = finish(child);
    assert_eq!(code, Some(130), "{err}");
    // The merge is undone: the branch where it was, no merge in progress, a clean tree.
    assert_eq!(p.git(&["rev-parse", "ralph/par"]), tip);
    assert!(!p.root().join(".git/MERGE_HEAD").exists());
    assert!(p.git(&["status", "--porcelain"]).is_empty());
    assert!(!p.passes("A") && p.passes("C"));
    assert_eq!(p.git(&["show", "ralph/par--A:A.txt"]), "A");
    assert_eq!(worktrees(&p), 1);
    // The next run resumes A on its gated work and lands it.
    std::fs::write(p.fake.join("go"), "").unwrap();
    let (code, err) = finish(spawn(&p, &["--parallel", "2", "--verify", "sh check.sh"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(p.passes("A"));
    assert_eq!(p.git(&["show", "ralph/par:A.txt"]), "A");
    assert!(p.git(&["branch", "--list", "ralph/par--*"]).is_empty());
}

/// A pseudo-terminal: (the side ralph writes to, the side the test reads).
fn pty() -> (std::os::fd::OwnedFd, std::fs::File) {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty fills two descriptors this function then owns.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty");
    unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(slave),
            std::fs::File::from_raw_fd(master),
        )
    }
}

#[test]
fn on_a_terminal_the_status_lines_are_redrawn_in_place() {
    let p = project(&[story("A", 1, &[]), story("B", 2, &[])]);
    // The agents finish once the test has seen the board redrawn.
    agent(
        &p,
        &format!(
            "echo \"working on $id\"\nwhile [ ! -f \"$D/go\" ]; do sleep 0.05; done\necho $id > $id.txt\n{FLIP}\n{COMMIT}"
        ),
    );
    let (slave, mut master) = pty();
    let mut child = p
        .run_command()
        .args(["--parallel", "2"])
        .stderr(std::process::Stdio::from(slave))
        .spawn()
        .unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let reader = {
        let seen = seen.clone();
        std::thread::spawn(move || {
            use std::io::Read;
            let mut buf = [0u8; 4096];
            // EIO once ralph, the last holder of the terminal's other side, is gone.
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    // A two-line block erased and drawn again: up two rows, clear below.
    let redrawn = || String::from_utf8_lossy(&seen.lock().unwrap()).contains("\x1b[2F\x1b[J");
    wait_for(30, redrawn);
    std::fs::write(p.fake.join("go"), "").unwrap();
    wait_for(60, || child.try_wait().unwrap().is_some());
    let _ = reader.join();
    let out = String::from_utf8_lossy(&seen.lock().unwrap()).into_owned();
    assert!(
        out.contains("ralph: A Title A · running") && out.contains("ralph: B Title B · running"),
        "{out:?}"
    );
    assert!(out.contains("\"working on A\""), "{out:?}");
    // Every status line is part of a block (each row ends erasing the rest of the row), and
    // what follows the last block is written where it was erased: no status line is left.
    for l in out.lines().filter(|l| l.contains("· running")) {
        assert!(l.ends_with("\x1b[K"), "{l:?}");
    }
    let after = out.rsplit("\x1b[2F\x1b[J").next().unwrap();
    assert!(
        !after.contains("· running") && after.contains("2 merge(s), 0 send-back(s)"),
        "{after:?}"
    );
}
