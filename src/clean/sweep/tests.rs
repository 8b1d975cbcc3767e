//! Unit tests of the sweep: real folders, git repositories and names in a temp dir.
use super::*;

#[test]
fn a_tracked_archive_with_a_name_that_is_not_utf8_is_still_tracked() {
    let out = b"archive/2020-01-01-caf\xe9/prd.json\0archive/2020-01-02-ok/progress.txt\0";
    let set = archive_folders(out);
    assert!(set.contains(Path::new(std::ffi::OsStr::from_bytes(
        b"archive/2020-01-01-caf\xe9"
    ))));
    assert!(set.contains(Path::new("archive/2020-01-02-ok")));
}
use std::time::Duration;

fn all() -> Limits {
    Limits {
        older_than: Duration::ZERO,
        keep: 0,
    }
}

fn paths<'a>(items: impl Iterator<Item = &'a Item>) -> Vec<String> {
    let mut v: Vec<String> = items.map(|i| i.path.display().to_string()).collect();
    v.sort();
    v
}

#[test]
fn finds_every_kind_and_leaves_what_is_not_ralphs() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    std::fs::create_dir_all(r.join(".ralph/runs/20200101T000000-1")).unwrap();
    std::fs::write(r.join(".ralph/runs/20200101T000000-1/iter-1.log"), "12345").unwrap();
    std::fs::create_dir_all(r.join(".ralph/runs/20200101T000000-2")).unwrap();
    std::fs::create_dir_all(r.join(".ralph/rejected")).unwrap();
    std::fs::write(
        r.join(".ralph/rejected/20200101T000000-iter1-prd.json"),
        "{}",
    )
    .unwrap();
    std::fs::create_dir_all(r.join("archive/2020-01-01-old")).unwrap();
    std::fs::write(r.join("archive/2020-01-01-old/prd.json"), "{}").unwrap();
    std::fs::create_dir_all(r.join("archive/2020-01-02-mine")).unwrap();
    std::fs::write(r.join("archive/2020-01-02-mine/notes.md"), "mine").unwrap();
    std::fs::create_dir_all(r.join("archive/photos")).unwrap();
    std::fs::write(r.join("archive/2020-01-03-file"), "x").unwrap();
    // Run 2 is live: its manifest says running and the lock names this (alive) process.
    let live = runs::Manifest::begin("20200101T000000-2", "claude", 1, 1);
    runs::write(&r.join(".ralph/runs/20200101T000000-2"), &live).unwrap();
    std::fs::write(r.join(".ralph/lock"), std::process::id().to_string()).unwrap();
    let report = clean(r, all(), true);
    assert_eq!(
        paths(report.removed()),
        [
            ".ralph/rejected/20200101T000000-iter1-prd.json",
            ".ralph/runs/20200101T000000-1",
            "archive/2020-01-01-old",
        ]
    );
    assert_eq!(report.freed(), 5 + 2 + 2);
    assert_eq!(report.plan.kept(Keep::Current).count(), 1);
    assert!(
        report.plan.kept(Keep::Current).all(|i| i.bytes == 0),
        "a kept item's bytes are never shown, so never measured"
    );
    assert!(r.join(".ralph/runs/20200101T000000-1").exists(), "dry run");
    let report = clean(r, all(), false);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert!(!r.join(".ralph/runs/20200101T000000-1").exists());
    assert!(r.join(".ralph/runs/20200101T000000-2").exists());
    assert!(!r.join("archive/2020-01-01-old").exists());
    assert!(r.join("archive/2020-01-02-mine/notes.md").exists());
    assert!(r.join("archive/photos").exists());
    assert!(r.join("archive/2020-01-03-file").exists());
}

#[test]
fn symlinks_are_removed_themselves_and_folders_outside_are_not_cleaned() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("precious"), "keep me").unwrap();
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    std::fs::create_dir_all(r.join(".ralph/runs")).unwrap();
    std::os::unix::fs::symlink(outside.path(), r.join(".ralph/runs/20200101T000000-1")).unwrap();
    std::os::unix::fs::symlink(outside.path(), r.join("archive")).unwrap();
    let report = clean(r, all(), false);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(paths(report.removed()), [".ralph/runs/20200101T000000-1"]);
    assert!(
        std::fs::symlink_metadata(r.join(".ralph/runs/20200101T000000-1")).is_err(),
        "the link is gone"
    );
    assert!(
        outside.path().join("precious").exists(),
        "its target is not"
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("outside the project")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn a_failed_removal_is_reported_and_the_others_still_go() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let rej = r.join(".ralph/rejected");
    std::fs::create_dir_all(rej.join("20200101T000000-iter1-dir")).unwrap();
    std::fs::write(rej.join("20200101T000000-iter1-dir/inner"), "x").unwrap();
    std::fs::write(rej.join("20200101T000000-iter2-prd.json"), "{}").unwrap();
    let (items, _) = gather(r);
    let plan = decide(r, items, all(), Timestamp::now());
    let failed = remove_with(r, plan.removals(), |p, is_dir| {
        if is_dir {
            Err(std::io::Error::other("device busy"))
        } else {
            std::fs::remove_file(p)
        }
    })
    .failed;
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].0.path.ends_with("20200101T000000-iter1-dir"));
    assert_eq!(failed[0].1, "device busy");
    assert!(!rej.join("20200101T000000-iter2-prd.json").exists());
    assert!(rej.join("20200101T000000-iter1-dir/inner").exists());
}

#[test]
fn a_run_folder_whose_name_is_not_utf8_is_really_removed() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let name = std::ffi::OsStr::from_bytes(b"20200101T000000-\xff");
    let dir = r.join(".ralph/runs").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("iter-1.log"), "12345").unwrap();
    let report = clean(r, all(), false);
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert!(!dir.exists(), "the folder itself is gone");
    assert_eq!(report.removed().count(), 1);
    assert_eq!(report.freed(), 5);
}

#[test]
fn an_item_gone_before_its_removal_is_not_counted_as_freed() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    std::fs::create_dir_all(r.join(".ralph/rejected")).unwrap();
    std::fs::write(
        r.join(".ralph/rejected/20200101T000000-iter1-prd.json"),
        "{}",
    )
    .unwrap();
    std::fs::write(
        r.join(".ralph/rejected/20200101T000000-iter2-prd.json"),
        "{}",
    )
    .unwrap();
    let (items, _) = gather(r);
    let plan = decide(r, items, all(), Timestamp::now());
    // Something else removes the first one between the listing and the removal.
    let done = remove_with(r, plan.removals(), |p, _| {
        if p.ends_with("20200101T000000-iter1-prd.json") {
            std::fs::remove_file(p)?;
        }
        std::fs::remove_file(p)
    });
    assert!(done.failed.is_empty(), "{:?}", done.failed);
    assert_eq!(done.gone.len(), 1);
    assert!(
        done.gone[0]
            .path
            .ends_with("20200101T000000-iter1-prd.json")
    );
    let report = Sweep {
        plan,
        gone: done.gone,
        ..Sweep::default()
    };
    assert_eq!(report.removed().count(), 1);
    assert_eq!(report.freed(), 2);
}

#[test]
fn archives_stay_when_git_cannot_say_and_the_project_may_be_in_a_repository() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    std::fs::create_dir_all(r.join("archive/2020-01-01-old")).unwrap();
    std::fs::write(r.join("archive/2020-01-01-old/prd.json"), "{}").unwrap();
    // A `.git` that git cannot read: `git ls-files` fails, but this may be a repository.
    std::fs::write(r.join(".git"), "gitdir: /nonexistent/ralph-test\n").unwrap();
    let report = clean(r, all(), false);
    assert!(r.join("archive/2020-01-01-old/prd.json").exists());
    assert_eq!(report.removed().count(), 0);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("every archive kept")),
        "{:?}",
        report.warnings
    );
    assert!(maybe_in_git(r, false));
    assert!(
        maybe_in_git(&r.join("archive"), false),
        "an ancestor's .git"
    );
    std::fs::remove_file(r.join(".git")).unwrap();
    assert!(maybe_in_git(r, true), "GIT_DIR set");
}

#[test]
fn a_tracked_archive_kept_is_measured_for_its_listing() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    std::fs::create_dir_all(r.join("archive/2020-01-01-old")).unwrap();
    std::fs::write(r.join("archive/2020-01-01-old/prd.json"), "{}").unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(r)
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "archive"]);
    let report = clean(r, all(), false);
    let tracked: Vec<&Item> = report.plan.kept(Keep::Tracked).collect();
    assert_eq!(tracked.len(), 1, "{:?}", report.plan);
    assert_eq!(tracked[0].bytes, 2);
    assert!(r.join("archive/2020-01-01-old/prd.json").exists());
}

#[test]
fn names_carry_times_and_sizes_do_not_follow_links() {
    assert!(name_time("2026-11-26-login").is_some());
    assert!(name_time("20261126T100000-iter1-prd.json").is_some());
    assert_eq!(name_time("photos"), None);
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a"), "123").unwrap();
    std::fs::create_dir(d.path().join("sub")).unwrap();
    std::fs::write(d.path().join("sub/b"), "4567").unwrap();
    std::os::unix::fs::symlink("/usr", d.path().join("link")).unwrap();
    let link = std::fs::symlink_metadata(d.path().join("link"))
        .unwrap()
        .len();
    assert_eq!(size(d.path()), 3 + 4 + link);
}
