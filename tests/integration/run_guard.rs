//! The guard against everything an agent (or a person editing by hand while it runs) can do to
//! prd.json and progress.txt: rule-breaking edits reverted and kept, progress.txt guarded,
//! foreign objects moved aside, full disks. Each test asserts what is on disk afterwards.

use crate::support::{FLIP, Project, WORK, prd, story};
use predicates::prelude::*;

fn two() -> String {
    prd("ralph/g", &[story("A", 1, &[]), story("B", 2, &[])])
}

fn rejected(p: &Project) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(p.root().join(".ralph/rejected"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn read(p: &Project, f: &str) -> String {
    std::fs::read_to_string(p.root().join(f)).unwrap()
}

const PROGRESS: &str = "# Ralph Progress Log\nStarted: 2026-11-20\n\n## Codebase Patterns\n- run tests with make test\n\n---\n## 2026-11-20 - A0\n- did the first thing\n---\n";

fn with_progress() -> Project {
    let p = Project::new(&two());
    std::fs::write(p.root().join("progress.txt"), PROGRESS).unwrap();
    p
}

#[test]
fn a_hand_edit_to_another_story_is_reverted_but_kept_with_how_to_reapply() {
    let p = Project::new(&two());
    // While the agent works, "the person" retitles B and adds a story of their own.
    p.agent(
        "claude",
        &format!(
            "{WORK}\n{FLIP}\nsed -i 's/\"Title B\"/\"Better title B\"/' prd.json\nsed -i 's/^\\]$/,{{\"id\": \"P\", \"title\": \"mine\", \"description\": \"\", \"acceptanceCriteria\": [], \"priority\": 9, \"passes\": false}}\\n]/' prd.json"
        ),
    );
    let out = p.run().args(["1"]).assert().code(3).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("field \"title\" of story B was changed"),
        "{err}"
    );
    assert!(
        err.contains("new story P has no \"discoveredFrom\""),
        "{err}"
    );
    let kept = rejected(&p);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let kept_text = std::fs::read_to_string(&kept[0]).unwrap();
    assert!(kept_text.contains("Better title B") && kept_text.contains("\"P\""));
    assert!(
        err.contains(&kept[0].file_name().unwrap().to_string_lossy().to_string()),
        "{err}"
    );
    assert!(err.contains("re-apply"), "{err}");
    // The legitimate flip survived the revert; nothing else changed.
    let v = p.prd_value();
    assert!(p.passes("A"));
    assert_eq!(v["userStories"][1]["title"], "Title B");
    assert_eq!(v["userStories"].as_array().unwrap().len(), 2);
}

#[test]
fn a_discovered_story_and_the_flip_survive_a_forbidden_edit_in_the_same_iteration() {
    let p = Project::new(&two());
    p.agent(
        "claude",
        &format!(
            "{WORK}\n{FLIP}\nsed -i 's/\"B works\"/\"B sort of works\"/' prd.json\nsed -i 's/^\\]$/,{{\"id\": \"A2\", \"title\": \"found\", \"description\": \"\", \"acceptanceCriteria\": [], \"priority\": 3, \"passes\": true, \"discoveredFrom\": \"A\"}}\\n]/' prd.json\nsed -i 's/\"notes\": \"\"/\"notes\": \"learned\"/' prd.json"
        ),
    );
    p.run().args(["1"]).assert().code(3);
    let v = p.prd_value();
    let s = v["userStories"].as_array().unwrap();
    assert_eq!(s.len(), 3);
    assert_eq!(s[1]["acceptanceCriteria"][0], "B works");
    assert_eq!(s[2]["id"], "A2");
    assert_eq!(s[2]["discoveredFrom"], "A");
    assert_eq!(
        s[2]["passes"], false,
        "a discovered story never arrives passing"
    );
    assert_eq!(s[0]["notes"], "learned");
    assert!(p.passes("A"));
    p.ralph().arg("validate").assert().code(0);
    assert_eq!(rejected(&p).len(), 1);
}

#[test]
fn another_storys_passes_is_set_back_and_the_agents_version_kept() {
    let p = Project::new(&two());
    p.agent(
        "claude",
        &format!("{WORK}\n{FLIP}\nsed -i -E '/\"id\": \"B\"/s/\"passes\": false/\"passes\": true/' prd.json"),
    );
    p.run()
        .args(["1"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("set passes back to false"));
    assert!(p.passes("A") && !p.passes("B"));
    let kept = rejected(&p);
    assert_eq!(kept.len(), 1);
    assert!(
        std::fs::read_to_string(&kept[0])
            .unwrap()
            .matches("\"passes\": true")
            .count()
            == 2
    );
}

#[test]
fn truncated_rewritten_or_deleted_progress_is_restored_keeping_new_text() {
    for (how, body) in [
        ("truncated", ": > progress.txt".to_string()),
        ("deleted", "rm progress.txt".to_string()),
        ("rewritten", "printf '# My log\\n- I did A\\n' > progress.txt".to_string()),
        (
            "patterns dropped",
            "sed -i '/Codebase Patterns/,/^---$/d' progress.txt; printf '## A\\n- did A\\n---\\n' >> progress.txt".to_string(),
        ),
    ] {
        let p = with_progress();
        p.agent("claude", &format!("{WORK}\n{FLIP}\n{body}"));
        p.run()
            .args(["1"])
            .assert()
            .code(3)
            .stderr(predicate::str::contains("restored progress.txt"));
        let now = read(&p, "progress.txt");
        assert!(now.starts_with(PROGRESS), "{how}: {now}");
        match how {
            "rewritten" => assert!(now.ends_with("# My log\n- I did A\n"), "{how}: {now}"),
            "patterns dropped" => assert!(now.ends_with("## A\n- did A\n---\n"), "{how}: {now}"),
            _ => assert_eq!(now, PROGRESS, "{how}"),
        }
        assert!(p.passes("A"), "{how}: the story's own work still counts");
    }
}

#[test]
fn appending_entries_and_patterns_to_progress_is_fine() {
    let p = with_progress();
    p.agent(
        "claude",
        &format!("{WORK}\n{FLIP}\nsed -i 's/^- run tests with make test$/&\\n- new pattern/' progress.txt\nprintf '## A\\n- did A\\n---\\n' >> progress.txt"),
    );
    p.run()
        .args(["1"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("restored progress.txt").not());
    assert!(read(&p, "progress.txt").contains("- new pattern"));
    assert!(rejected(&p).is_empty());
}

fn assert_restored_regular(p: &Project, original: &str) {
    let meta = std::fs::symlink_metadata(p.root().join("prd.json")).unwrap();
    assert!(
        meta.file_type().is_file(),
        "prd.json is a regular file again"
    );
    assert_eq!(read(p, "prd.json"), original);
}

#[test]
fn prd_replaced_by_a_directory_fifo_device_or_symlink_is_moved_aside_and_restored() {
    for (kind, body) in [
        (
            "directory",
            "rm prd.json; mkdir prd.json; echo x > prd.json/inside",
        ),
        ("fifo", "rm prd.json; mkfifo prd.json"),
        ("device", "rm prd.json; ln -s /dev/zero prd.json"),
        ("system file", "rm prd.json; ln -s /etc/passwd prd.json"),
    ] {
        let p = Project::new(&two());
        let original = read(&p, "prd.json");
        p.agent("claude", &format!("{WORK}\n{body}"));
        p.run()
            .args(["1"])
            .assert()
            .code(3)
            .stderr(predicate::str::contains("prd.json was replaced by"));
        assert_restored_regular(&p, &original);
        let kept = rejected(&p);
        assert_eq!(kept.len(), 1, "{kind}: {kept:?}");
        assert!(
            !std::fs::symlink_metadata(&kept[0]).unwrap().is_file(),
            "{kind}"
        );
    }
}

#[test]
fn a_symlink_to_a_copy_outside_the_project_is_never_written_through() {
    let p = Project::new(&two());
    let original = read(&p, "prd.json");
    let outside = p.dir.path().join("outside.json");
    // The agent moves prd.json out of the project, marks everything passing there, and links it.
    p.agent(
        "claude",
        &format!(
            "sed 's/\"passes\": false/\"passes\": true/g' prd.json > '{o}'; rm prd.json; ln -s '{o}' prd.json",
            o = outside.display()
        ),
    );
    p.run().args(["1"]).assert().code(3);
    assert_restored_regular(&p, &original);
    let out = std::fs::read_to_string(&outside).unwrap();
    assert_eq!(
        out.matches("\"passes\": true").count(),
        2,
        "the outside file is untouched"
    );
}

#[test]
fn progress_replaced_by_a_fifo_or_a_symlink_is_moved_aside_and_restored() {
    for body in [
        "rm progress.txt; mkfifo progress.txt",
        "rm progress.txt; ln -s /etc/passwd progress.txt",
    ] {
        let p = with_progress();
        p.agent("claude", &format!("{WORK}\n{FLIP}\n{body}"));
        p.run()
            .args(["1"])
            .assert()
            .code(3)
            .stderr(predicate::str::contains("progress.txt was replaced by"));
        let meta = std::fs::symlink_metadata(p.root().join("progress.txt")).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(read(&p, "progress.txt"), PROGRESS);
        assert_eq!(rejected(&p).len(), 1);
    }
}

#[test]
fn a_fifo_or_device_in_place_of_prd_json_is_an_error_not_a_hang() {
    let p = Project::new(&two());
    std::fs::remove_file(p.root().join("prd.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", p.root().join("prd.json")).unwrap();
    p.agent("claude", "true");
    for args in [
        vec!["run", "1"],
        vec!["status"],
        vec!["validate"],
        vec!["next"],
    ] {
        p.ralph()
            .args(&args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains("not a regular file"));
    }
    std::fs::remove_file(p.root().join("prd.json")).unwrap();
    let st = std::process::Command::new("mkfifo")
        .arg(p.root().join("prd.json"))
        .status()
        .unwrap();
    assert!(st.success());
    p.ralph()
        .args(["run", "1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("a FIFO"));
    assert_eq!(p.calls(), 0);
}

#[test]
fn disk_full_never_leaves_a_cheated_or_broken_prd_json() {
    let cases = [
        (
            "other story passes",
            format!(
                "{FLIP}\nsed -i -E '/\"id\": \"B\"/s/\"passes\": false/\"passes\": true/' prd.json"
            ),
        ),
        ("not json", "echo '{ broken' > prd.json".to_string()),
        (
            "title edit",
            format!("{FLIP}\nsed -i 's/\"Title B\"/\"Easy B\"/' prd.json"),
        ),
    ];
    for (what, body) in cases {
        let p = Project::new(&two());
        let original = read(&p, "prd.json");
        p.agent("claude", &format!("{WORK}\n{body}"));
        let out = p
            .run()
            .args(["1"])
            .env("RALPH_TEST_FAIL_WRITE", "prd.json")
            .assert()
            .code(1)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(".ralph/prd.good.json"), "{what}: {err}");
        assert!(err.contains("cp "), "{what}: {err}");
        assert_eq!(
            read(&p, "prd.json"),
            original,
            "{what}: the good copy is back"
        );
        assert_eq!(
            read(&p, ".ralph/prd.good.json"),
            original,
            "{what}: the good copy is still there"
        );
    }
}

#[test]
fn disk_full_when_a_failed_gate_undoes_the_flip_leaves_the_story_open() {
    let p = Project::new(&two());
    let original = read(&p, "prd.json");
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run()
        .args(["1", "--verify", "false"])
        .env("RALPH_TEST_FAIL_WRITE", "prd.json")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("prd.good.json"));
    assert_eq!(read(&p, "prd.json"), original);
    assert!(!p.passes("A"));
}
