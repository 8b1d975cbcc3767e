//! Run hygiene: the manifest every run writes in `.ralph/runs/<run-id>/`, `ralph clean` (dry
//! run, limits, the lock, tracked archives, symlinks) and the clean at the start of `ralph run`.

use crate::support::{FLIP, Project, WORK, hold_lock, output, prd, story};
use predicates::prelude::*;
use serde_json::Value;
use std::path::Path;

fn two_stories() -> Project {
    Project::new(&prd(
        "ralph/feat",
        &[story("A", 1, &[]), story("B", 2, &["A"])],
    ))
}

fn manifest(p: &Project, run_id: &str) -> Value {
    let path = p.root().join(format!(".ralph/runs/{run_id}/manifest.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// An old run folder: its id says `day` (2020-01-DD), and so does its manifest.
fn old_run(root: &Path, day: u32, with_manifest: bool) -> String {
    let id = format!("202001{day:02}T100000-{day}");
    let dir = root.join(".ralph/runs").join(&id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("iter-1.log"), "x".repeat(100)).unwrap();
    if with_manifest {
        let m = serde_json::json!({
            "schema_version": 1, "run_id": id, "start": format!("2020-01-{day:02}T10:00:00Z"),
            "end": format!("2020-01-{day:02}T11:00:00Z"), "agent": "claude", "parallel": 1,
            "branch": "ralph/old", "iterations": 10, "stories_attempted": ["A"],
            "outcome": "all-done", "pid": 1
        });
        std::fs::write(dir.join("manifest.json"), m.to_string()).unwrap();
    }
    id
}

/// A run folder made just now.
fn new_run(root: &Path, pid: u32) -> String {
    let id = format!("{}-{pid}", jiff::Zoned::now().strftime("%Y%m%dT%H%M%S"));
    std::fs::create_dir_all(root.join(".ralph/runs").join(&id)).unwrap();
    id
}

fn rejected(root: &Path, name: &str) {
    std::fs::create_dir_all(root.join(".ralph/rejected")).unwrap();
    std::fs::write(root.join(".ralph/rejected").join(name), "{}").unwrap();
}

fn archive(root: &Path, name: &str) {
    let dir = root.join("archive").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("prd.json"), "{}").unwrap();
    std::fs::write(dir.join("progress.txt"), "# log\n").unwrap();
}

/// Every path under `root` (symlinks not followed) with its kind and size, sorted.
fn listing(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            let rel = e.path().strip_prefix(root).unwrap().display().to_string();
            if m.is_dir() {
                out.push(format!("{rel}/"));
                stack.push(e.path());
            } else {
                out.push(format!("{rel} {}", m.len()));
            }
        }
    }
    out.sort();
    out
}

fn runs(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root.join(".ralph/runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_finished_run_writes_its_manifest() {
    let p = two_stories();
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().assert().code(0);
    let h = p.history();
    let run_id = h[0]["run_id"].as_str().unwrap();
    let m = manifest(&p, run_id);
    assert_eq!(m["schema_version"], 1);
    assert_eq!(m["run_id"], run_id);
    assert_eq!(m["agent"], "claude");
    assert_eq!(m["parallel"], 1);
    assert_eq!(m["branch"], "ralph/feat");
    assert_eq!(m["iterations"], 10);
    assert_eq!(m["stories_attempted"], serde_json::json!(["A", "B"]));
    assert_eq!(m["outcome"], "all-done");
    assert!(m.get("error").is_none(), "{m:#}");
    assert!(m["pid"].as_u64().unwrap() > 0);
    let start: jiff::Timestamp = m["start"].as_str().unwrap().parse().unwrap();
    let end: jiff::Timestamp = m["end"].as_str().unwrap().parse().unwrap();
    assert!(start <= end, "{m:#}");
}

#[test]
fn a_run_that_stops_at_its_limit_or_on_an_error_says_so_in_its_manifest() {
    let p = two_stories();
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().arg("1").assert().code(3);
    let m = manifest(&p, p.history()[0]["run_id"].as_str().unwrap());
    assert_eq!(m["outcome"], "limit");
    assert_eq!(m["stories_attempted"], serde_json::json!(["A"]));

    let q = two_stories();
    q.agent("claude", "echo 'Error: 429 Too Many Requests'; exit 1");
    q.run().arg("--no-wait").assert().code(1);
    let m = manifest(&q, q.history()[0]["run_id"].as_str().unwrap());
    assert_eq!(m["outcome"], "error");
    assert!(m["error"].as_str().unwrap().contains("--no-wait"), "{m:#}");
    assert_eq!(m["stories_attempted"], serde_json::json!(["A"]));
    assert!(m["end"].is_string());
}

#[test]
fn a_dry_run_changes_nothing_and_lists_what_would_go() {
    let p = two_stories();
    let root = p.root();
    for day in 1..=4 {
        old_run(&root, day, day % 2 == 0);
    }
    rejected(&root, "20200101T100000-iter1-prd.json");
    rejected(&root, "20200102T100000-iter1-prd.json");
    archive(&root, "2020-01-01-old");
    archive(&root, "2020-01-02-old");
    std::fs::create_dir_all(root.join(".ralph/runs/junk-folder")).unwrap();
    std::fs::write(
        root.join(".ralph/runs/20200101T100000-1/manifest.json"),
        "{oops",
    )
    .unwrap();
    let before = listing(&root);
    // Times are shown in local time: UTC here, whatever the machine's zone.
    let (code, out, err) =
        output(
            p.ralph()
                .env("TZ", "UTC")
                .args(["clean", "--dry-run", "--keep", "1"]),
        );
    assert_eq!(code, 0, "{err}");
    // What would go, item by item, and the summary: compared whole.
    insta::assert_snapshot!("dry_run", out);
    p.ralph()
        .args([
            "clean",
            "--dry-run",
            "--keep",
            "0",
            "--older-than",
            "0",
            "--json",
        ])
        .assert()
        .code(0);
    assert_eq!(listing(&root), before, "not a byte, not a lock file");
}

#[test]
fn a_clean_removes_exactly_the_old_ones_beyond_keep() {
    let p = two_stories();
    let root = p.root();
    let old: Vec<String> = (1..=5).map(|d| old_run(&root, d, d != 3)).collect();
    let young = [new_run(&root, 11), new_run(&root, 12)];
    // An old run id whose manifest says it ended just now: the manifest's time counts.
    let revived = old_run(&root, 20, false);
    let m = serde_json::json!({
        "schema_version": 1, "run_id": revived, "start": "2020-01-20T10:00:00Z",
        "end": jiff::Timestamp::now().to_string(), "agent": "claude", "parallel": 1,
        "branch": null, "iterations": 1, "stories_attempted": [], "outcome": "limit", "pid": 1
    });
    std::fs::write(
        root.join(".ralph/runs")
            .join(&revived)
            .join("manifest.json"),
        m.to_string(),
    )
    .unwrap();
    rejected(&root, "20200101T100000-iter1-prd.json");
    rejected(&root, "20200102T100000-iter1-progress.txt");
    p.ralph()
        .args(["clean", "--keep", "4", "--older-than", "14d"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("removed 4 run folders"))
        .stdout(predicate::str::contains("freed"));
    // Newest first: the two young, the revived, then day 5: the newest 4 stay.
    let mut left = vec![old[4].clone(), revived.clone()];
    left.extend(young.iter().cloned());
    left.sort();
    assert_eq!(runs(&root), left);
    // Rejected copies are their own kind: both within the newest 4.
    assert_eq!(
        std::fs::read_dir(root.join(".ralph/rejected"))
            .unwrap()
            .count(),
        2
    );
    // The flags beat ralph.toml, which beats the defaults.
    std::fs::write(
        root.join("ralph.toml"),
        "[clean]\nkeep = 0\nolder_than = \"1d\"\n",
    )
    .unwrap();
    p.ralph().args(["clean"]).assert().code(0);
    let mut left = vec![revived];
    left.extend(young.iter().cloned());
    left.sort();
    assert_eq!(runs(&root), left);
    assert_eq!(
        std::fs::read_dir(root.join(".ralph/rejected"))
            .unwrap()
            .count(),
        0
    );
    p.ralph()
        .args(["clean", "--older-than", "0", "--keep", "1"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("removed 2 run folders"));
    p.ralph()
        .args(["clean", "--older-than", "0", "--keep", "1"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("nothing to remove (1 kept"));
}

#[test]
fn a_clean_never_removes_under_a_running_ralph() {
    let p = two_stories();
    let root = p.root();
    old_run(&root, 1, true);
    let held = hold_lock(&root, "4242");
    p.ralph()
        .args(["clean", "--keep", "0"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("pid 4242"))
        .stderr(predicate::str::contains("holds the project lock"));
    let out = p
        .ralph()
        .args(["clean", "--keep", "0", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["errors"][0]["code"], "locked", "{v:#}");
    assert_eq!(runs(&root).len(), 1, "nothing removed");
    drop(held);
    p.ralph().args(["clean", "--keep", "0"]).assert().code(0);
    assert!(runs(&root).is_empty());
}

#[test]
fn archives_git_tracks_are_kept_with_the_git_rm_to_use() {
    let p = two_stories();
    let root = p.root();
    archive(&root, "2020-01-01-tracked");
    p.commit("an archive kept in git");
    archive(&root, "2020-01-02-untracked");
    // Not ralph's: another name, or more than ralph puts in an archive.
    std::fs::create_dir_all(root.join("archive/photos")).unwrap();
    archive(&root, "2020-01-03-mine");
    std::fs::write(root.join("archive/2020-01-03-mine/notes.md"), "mine").unwrap();
    p.ralph()
        .args(["clean", "--keep", "0"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("removed 1 archive"))
        .stdout(predicate::str::contains("kept, tracked by git"))
        .stdout(predicate::str::contains(
            "git rm -r -q archive/2020-01-01-tracked",
        ));
    assert!(root.join("archive/2020-01-01-tracked/prd.json").exists());
    assert!(!root.join("archive/2020-01-02-untracked").exists());
    assert!(root.join("archive/photos").exists());
    assert!(root.join("archive/2020-01-03-mine/notes.md").exists());
    assert_eq!(
        p.git(&["status", "--porcelain", "--", "archive/2020-01-01-tracked"]),
        ""
    );
}

#[test]
fn a_symlink_is_removed_itself_never_what_it_points_at() {
    let p = two_stories();
    let root = p.root();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("precious"), "keep").unwrap();
    std::fs::create_dir_all(root.join(".ralph/runs")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join(".ralph/runs/20200101T100000-1")).unwrap();
    std::fs::create_dir_all(root.join(".ralph")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join(".ralph/rejected")).unwrap();
    p.ralph()
        .args(["clean", "--keep", "0"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("removed 1 run folder"))
        .stderr(predicate::str::contains("outside the project"));
    assert!(runs(&root).is_empty());
    assert!(outside.path().join("precious").exists());
}

#[test]
fn ralph_run_cleans_at_its_start_and_says_so_once() {
    let p = two_stories();
    let root = p.root();
    for day in 1..=3 {
        old_run(&root, day, true);
    }
    rejected(&root, "20200101T100000-iter1-prd.json");
    std::fs::write(root.join("ralph.toml"), "[clean]\nkeep = 0\n").unwrap();
    p.commit("ralph.toml");
    p.ralph()
        .args(["run", "--dry-run"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "the run would first remove 3 old run folders and 1 rejected copy",
        ));
    assert_eq!(runs(&root).len(), 3, "a dry run removes nothing");
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "removed 3 old run folders and 1 rejected copy (",
        ))
        .stderr(predicate::str::contains(
            "`ralph clean --dry-run` shows what is kept",
        ));
    let left = runs(&root);
    assert_eq!(left.len(), 1, "only this run's folder: {left:?}");
    assert_eq!(left[0], p.history()[0]["run_id"].as_str().unwrap());
    // Nothing to remove: nothing said.
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("removed").not());
}

#[test]
fn auto_false_turns_the_start_of_run_clean_off() {
    let p = two_stories();
    let root = p.root();
    old_run(&root, 1, true);
    std::fs::write(root.join("ralph.toml"), "[clean]\nkeep = 0\nauto = false\n").unwrap();
    p.commit("ralph.toml");
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("removed").not());
    assert_eq!(runs(&root).len(), 2, "the old run and this one");
}

#[test]
fn a_parallel_run_writes_its_manifest_too() {
    let p = Project::new(&prd("ralph/par", &[story("A", 1, &[]), story("B", 2, &[])]));
    p.git(&["checkout", "-qb", "ralph/par"]);
    p.agent("claude", &format!("{FLIP}\n{WORK}"));
    p.run().args(["--parallel", "2"]).assert().code(0);
    let h = p.history();
    let m = manifest(&p, h[0]["run_id"].as_str().unwrap());
    assert_eq!(m["parallel"], 2);
    assert_eq!(m["branch"], "ralph/par");
    assert_eq!(m["outcome"], "all-done");
    let mut attempted: Vec<&str> = m["stories_attempted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    attempted.sort();
    assert_eq!(attempted, ["A", "B"]);
    assert!(m["end"].is_string());
}

#[test]
fn archives_stay_when_git_cannot_say_which_it_tracks() {
    let p = two_stories();
    let root = p.root();
    archive(&root, "2020-01-01-old");
    p.commit("an archive kept in git");
    p.ralph()
        .args(["clean", "--keep", "0"])
        .env("GIT_DIR", "/nonexistent")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("nothing to remove"))
        .stderr(predicate::str::contains("`git ls-files` failed"))
        .stderr(predicate::str::contains("every archive kept"));
    assert!(root.join("archive/2020-01-01-old/prd.json").exists());
    // Plainly not a repository: nothing is tracked, the archive goes.
    std::fs::remove_dir_all(root.join(".git")).unwrap();
    p.ralph()
        .args(["clean", "--keep", "0"])
        .env_remove("GIT_DIR")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("removed 1 archive"));
    assert!(!root.join("archive/2020-01-01-old").exists());
}

/// A run folder whose manifest still says `running` with `pid`, as a SIGKILLed ralph leaves it.
fn killed_run(root: &Path, day: u32, pid: u32) -> String {
    let id = old_run(root, day, false);
    let m = serde_json::json!({
        "schema_version": 1, "run_id": id, "start": format!("2020-01-{day:02}T10:00:00Z"),
        "end": null, "agent": "claude", "parallel": 1, "branch": null, "iterations": 10,
        "stories_attempted": [], "outcome": "running", "pid": pid
    });
    std::fs::write(
        root.join(".ralph/runs").join(&id).join("manifest.json"),
        m.to_string(),
    )
    .unwrap();
    id
}

#[test]
fn a_killed_run_whose_pid_was_reused_is_cleaned_and_a_live_one_is_not() {
    let p = two_stories();
    let root = p.root();
    // Its pid now belongs to a live process (this test), but no ralph holds the lock.
    let me = std::process::id();
    let dead = killed_run(&root, 1, me);
    std::fs::write(root.join(".ralph/lock"), format!("{me}\n")).unwrap();
    p.ralph()
        .args(["clean", "--keep", "0"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("removed 1 run folder"))
        .stdout(predicate::str::contains(&dead));
    assert!(runs(&root).is_empty());

    // A live run: `running`, its pid holds the lock (named in the lock file) and is alive.
    // Beside it a killed run whose pid (1) is alive but is not the lock's holder: dead.
    let live = killed_run(&root, 2, me);
    let dead = killed_run(&root, 3, 1);
    let held = hold_lock(&root, &me.to_string());
    p.ralph()
        .args(["clean", "--keep", "0", "--dry-run"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("would remove 1 run folder"))
        .stdout(predicate::str::contains(&dead))
        .stdout(predicate::str::contains(&live).not())
        .stdout(predicate::str::contains("(1 kept"));
    assert_eq!(
        runs(&root),
        [live.clone(), dead.clone()],
        "a dry run removes nothing"
    );
    // A real clean takes the lock itself (its pid in the lock file): once the run's pid no
    // longer holds it, that run is a killed one too, and both go.
    drop(held);
    p.ralph()
        .args(["clean", "--keep", "0"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("removed 2 run folders"))
        .stdout(predicate::str::contains(&live))
        .stdout(predicate::str::contains(&dead));
    assert!(runs(&root).is_empty());
}
