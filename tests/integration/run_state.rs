//! `ralph run` and the state around the loop: git excludes, progress outside git, `--story`
//! fallthrough, branch names, compaction between iterations.

use crate::support::{FLIP, Project, WORK, prd, story};

#[test]
fn without_a_gitignore_ralph_state_is_never_committed() {
    let p = Project::new(&prd("ralph/s", &[story("A", 1, &[]), story("B", 2, &[])]));
    let root = p.root();
    std::fs::remove_file(root.join(".gitignore")).unwrap();
    p.git(&["commit", "-qam", "no gitignore"]);
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().assert().code(0);
    let tracked = p.git(&["ls-files"]);
    assert!(tracked.contains("A.txt"), "the agent did commit: {tracked}");
    assert!(
        !tracked.contains(".ralph/"),
        "ralph state committed: {tracked}"
    );
    let exclude = std::fs::read_to_string(root.join(".git/info/exclude")).unwrap();
    assert_eq!(exclude.lines().filter(|l| *l == ".ralph/").count(), 1);
    // A second run does not add it again.
    p.run().assert().code(0);
    let again = std::fs::read_to_string(root.join(".git/info/exclude")).unwrap();
    assert_eq!(again, exclude);
}

#[test]
fn outside_git_a_story_is_never_skipped_for_lack_of_progress() {
    let p = Project::new(&prd("ralph/s", &[story("A", 1, &[])]));
    std::fs::remove_dir_all(p.root().join(".git")).unwrap();
    // Works (changes a file) but never finishes; nothing can tell the loop it made progress.
    p.agent("claude", "echo \"work $n\" > work.txt");
    p.run().args(["3", "--max-failures", "1"]).assert().code(3);
    assert_eq!(p.calls(), 3);
    let h = p.history();
    assert!(h.iter().all(|r| r["skipped"] != true), "{h:?}");
}

#[test]
fn forced_story_that_gets_skipped_falls_through_to_the_other_ready_stories() {
    let p = Project::new(&prd("ralph/s", &[story("A", 1, &[]), story("B", 2, &[])]));
    // No progress on A; B is done properly.
    p.agent(
        "claude",
        &format!("if [ \"$RALPH_STORY_ID\" = B ]; then {WORK}; {FLIP}; fi"),
    );
    p.run()
        .args(["--story", "A", "--max-failures", "1"])
        .assert()
        .code(4);
    assert_eq!(p.calls(), 2);
    assert!(
        p.passes("B"),
        "B was ready and should have run after A was skipped"
    );
    assert!(!p.passes("A"));
    let h = p.history();
    assert_eq!(h[0]["story"], "A");
    assert_eq!(h[1]["story"], "B");
}

#[test]
fn branch_name_with_surrounding_whitespace_does_not_archive_on_every_run() {
    let text = prd("  ralph/spaced  ", &[story("A", 1, &[])])
        .replace("\"passes\": false", "\"passes\": true");
    let p = Project::new(&text);
    p.agent("claude", "exit 0");
    let progress = "# Ralph Progress Log\nStarted: x\n---\n## entry\n- learned a thing\n";
    std::fs::write(p.root().join("progress.txt"), progress).unwrap();
    for _ in 0..3 {
        p.run().assert().code(0);
    }
    assert!(
        !p.root().join("archive").exists(),
        "archived without a branch change"
    );
    assert_eq!(
        std::fs::read_to_string(p.root().join("progress.txt")).unwrap(),
        progress
    );
    assert_eq!(p.calls(), 0);
}
