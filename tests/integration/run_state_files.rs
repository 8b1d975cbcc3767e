//! The project lock, ralph's own state files and the branch it commits to: an agent deleting
//! `.ralph/`, `ralph compact` during a run, junk in history.jsonl, temp files of killed writes,
//! and cheated prd.json commits.

use crate::support::{FLIP, Project, WORK, prd, story, wait_for};
use predicates::prelude::*;

fn two() -> String {
    prd("ralph/s", &[story("A", 1, &[]), story("B", 2, &[])])
}

/// Agent body: do `first`, say so, wait for the test's go-ahead, then do `then`.
fn pausing(first: &str, then: &str) -> String {
    format!("{first}\ntouch \"$D/ready-$n\"\nwhile [ ! -e \"$D/go\" ]; do sleep 0.02; done\n{then}")
}

fn spawn_run(p: &Project, args: &[&str]) -> std::process::Child {
    p.run_command().args(args).spawn().unwrap()
}

/// A progress.txt that `compact --force --keep-recent 5` does compact.
fn long_progress() -> String {
    format!(
        "# Ralph Progress Log\n\n## Codebase Patterns\n- p\n\n---\n{}",
        (0..60)
            .map(|i| format!("## 2026-11-2{} - S{i}\n- did {i}\n---\n", i % 10))
            .collect::<String>()
    )
}

#[test]
fn an_agent_deleting_the_state_dir_does_not_let_a_second_run_start() {
    let p = Project::new(&two());
    std::fs::write(p.root().join("progress.txt"), long_progress()).unwrap();
    p.agent(
        "claude",
        &pausing("rm -rf .ralph", &format!("{WORK}\n{FLIP}")),
    );
    let mut first = spawn_run(&p, &["1"]);
    wait_for(20, || p.fake.join("ready-1").exists());
    p.run()
        .args(["1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("holds the project lock"));
    p.ralph()
        .args(["compact", "--force", "--keep-recent", "5"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("holds the project lock"));
    std::fs::write(p.fake.join("go"), "").unwrap();
    assert_eq!(first.wait().unwrap().code(), Some(3));
    assert_eq!(p.calls(), 1, "the second run never started an agent");
    assert!(p.passes("A"));
    // Released: the next run may go.
    p.run().args(["1"]).assert().code(0);
    assert!(p.passes("B"));
}

#[test]
fn compact_waits_for_no_one_and_writes_nothing_while_a_run_holds_the_lock() {
    let p = Project::new(&two());
    let progress = long_progress();
    std::fs::write(p.root().join("progress.txt"), &progress).unwrap();
    p.agent("claude", &pausing("true", &format!("{WORK}\n{FLIP}")));
    let mut run = spawn_run(&p, &["1", "--no-compact"]);
    wait_for(20, || p.fake.join("ready-1").exists());
    p.ralph()
        .args(["compact", "--force", "--keep-recent", "5"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("holds the project lock"));
    let now = std::fs::read_to_string(p.root().join("progress.txt")).unwrap();
    assert_eq!(now, progress);
    // A dry run writes nothing, so it needs no lock.
    p.ralph()
        .args(["compact", "--force", "--dry-run"])
        .assert()
        .code(0);
    std::fs::write(p.fake.join("go"), "").unwrap();
    run.wait().unwrap();
}

#[test]
fn junk_in_history_is_skipped_with_one_warning_kept_and_appended_to() {
    let p = Project::new(&two());
    std::fs::create_dir_all(p.root().join(".ralph")).unwrap();
    let junk = "not json\n{\"half\": \n\u{1}\u{2}binary\n";
    std::fs::write(p.root().join(".ralph/history.jsonl"), junk).unwrap();
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    let out = p.run().assert().code(0).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("not history records").count(), 1, "{err}");
    let text = std::fs::read_to_string(p.root().join(".ralph/history.jsonl")).unwrap();
    assert!(text.starts_with(junk));
    let records: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v.get("run_id").is_some())
        .collect();
    assert_eq!(records.len(), 2);
    p.ralph().args(["context", "B"]).assert().code(0);
}

#[test]
fn temp_files_of_killed_writes_are_cleaned_up_and_never_committed() {
    let p = Project::new(&two());
    let big = vec![b'x'; 1 << 20];
    std::fs::write(p.root().join(".ralph-tmp-AbC123"), &big).unwrap();
    std::fs::create_dir_all(p.root().join(".ralph")).unwrap();
    std::fs::write(p.root().join(".ralph/.ralph-tmp-x"), &big).unwrap();
    // The agent commits everything it sees, as agents do.
    p.agent(
        "claude",
        &format!("{FLIP}\necho > \".ralph-tmp-agent$n\"\ngit add -A >/dev/null; git commit -qm work >/dev/null"),
    );
    p.run().assert().code(0);
    assert!(!p.root().join(".ralph-tmp-AbC123").exists());
    assert!(!p.root().join(".ralph/.ralph-tmp-x").exists());
    let tracked = p.git(&["ls-files"]);
    assert!(!tracked.contains(".ralph-tmp"), "{tracked}");
    let exclude = std::fs::read_to_string(p.root().join(".git/info/exclude")).unwrap();
    assert!(exclude.contains(".ralph-tmp-*"), "{exclude}");
}

#[test]
fn a_committed_cheat_is_corrected_by_a_commit_saying_what_and_why() {
    for (what, cheat) in [
        (
            "other passes",
            "sed -i -E '/\"id\": \"B\"/s/\"passes\": false/\"passes\": true/' prd.json",
        ),
        (
            "criteria",
            "sed -i 's/\"B works\"/\"B compiles\"/' prd.json",
        ),
    ] {
        let p = Project::new(&two());
        p.agent(
            "claude",
            &format!(
                "{WORK}\n{FLIP}\n{cheat}\ngit add -A >/dev/null; git commit -qm cheat >/dev/null"
            ),
        );
        p.run().args(["1"]).assert().code(3);
        let head = p.git(&["show", "HEAD:prd.json"]);
        let work = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
        // `Project::git` trims its output; the status check below compares the bytes.
        assert_eq!(head, work.trim(), "{what}: HEAD carries the corrected file");
        assert!(p.passes("A") && !p.passes("B"));
        assert!(work.contains("\"B works\""), "{what}");
        let msg = p.git(&["log", "-1", "--format=%B"]);
        assert!(
            msg.starts_with("ralph: revert rule-breaking edits to prd.json"),
            "{what}: {msg}"
        );
        assert!(msg.contains(".ralph/rejected/"), "{what}: {msg}");
        assert_eq!(p.git(&["status", "--porcelain", "--", "prd.json"]), "");
    }
}

#[test]
fn ralphs_own_passes_writes_are_committed() {
    let p = Project::new(&two());
    p.agent(
        "claude",
        &format!("{WORK}\necho \"STORY COMPLETE: $RALPH_STORY_ID\""),
    );
    p.run().args(["--verify", "true"]).assert().code(0);
    let head: serde_json::Value = serde_json::from_str(&p.git(&["show", "HEAD:prd.json"])).unwrap();
    assert!(
        head["userStories"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["passes"] == true)
    );
    let log = p.git(&["log", "--format=%s"]);
    assert!(
        log.contains("ralph: mark A passing (iteration 1, story A)"),
        "{log}"
    );
    // The agent's commit is still its own, and the history credits it.
    assert_eq!(log.lines().filter(|l| *l == "A").count(), 1, "{log}");
}
