//! The git workflow of `ralph run`: prd.json's `branchName` is checked out (created from
//! `baseBranch` or HEAD when missing) before the first agent, a dirty work tree is refused
//! unless `--allow-dirty`, and outside git the run warns that nothing can be rolled back.

use crate::support::{FLIP, Project, WORK, prd, story};
use predicates::prelude::*;

const BRANCH: &str = "ralph/feat";

fn one_story() -> String {
    prd(BRANCH, &[story("A", 1, &[])])
}

/// The same prd.json with `"baseBranch": base`.
fn with_base(base: &str) -> String {
    one_story().replacen(
        "\"branchName\"",
        &format!("\"baseBranch\": \"{base}\",\n\"branchName\""),
        1,
    )
}

fn current(p: &Project) -> String {
    p.git(&["symbolic-ref", "--short", "HEAD"])
}

fn has_branch(p: &Project, name: &str) -> bool {
    !p.git(&["branch", "--list", name]).is_empty()
}

/// Subjects of the last `n` commits of `rev`, newest first.
fn log(p: &Project, rev: &str, n: usize) -> Vec<String> {
    p.git(&["log", &format!("-{n}"), "--format=%s", rev])
        .lines()
        .map(String::from)
        .collect()
}

/// A branch `name` off the current HEAD with one commit of `file`, then back where we were.
fn branch_with_commit(p: &Project, name: &str, file: &str, content: &str) {
    let back = current(p);
    p.git(&["checkout", "-q", "-b", name]);
    std::fs::write(p.root().join(file), content).unwrap();
    p.commit(&format!("on {name}"));
    p.git(&["checkout", "-q", &back]);
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_missing_branch_is_created_from_head_and_the_agents_commit_lands_on_it() {
    let p = Project::new(&one_story());
    let start = current(&p);
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "ralph: switched to branch {BRANCH} (created from HEAD ({start}))"
        )));
    assert_eq!(current(&p), BRANCH);
    assert_eq!(log(&p, BRANCH, 2), ["A", "init"]);
    assert_eq!(log(&p, &start, 1), ["init"], "{start} did not move");
    // The prompt names the branch.
    assert!(
        p.stdin(1).contains(&format!("Branch: `{BRANCH}`")),
        "{}",
        p.stdin(1)
    );
    // Already on it: nothing to say.
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("switched").not());
}

#[test]
fn an_existing_branch_is_checked_out_and_work_goes_on_from_its_tip() {
    let p = Project::new(&one_story());
    let start = current(&p);
    branch_with_commit(&p, BRANCH, "earlier.txt", "from an earlier run\n");
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "ralph: switched to branch {BRANCH} (was {start})"
        )));
    assert_eq!(current(&p), BRANCH);
    assert_eq!(log(&p, BRANCH, 3), ["A", &format!("on {BRANCH}"), "init"]);
    assert_eq!(log(&p, &start, 1), ["init"]);
}

#[test]
fn a_missing_branch_is_created_from_base_branch_local_or_on_origin() {
    let p = Project::new(&with_base("dev"));
    branch_with_commit(&p, "dev", "dev.txt", "dev work\n");
    // A tag of the same name must not win over the branch.
    p.git(&["tag", "dev", "HEAD"]);
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "ralph: switched to branch {BRANCH} (created from dev)"
        )));
    assert_eq!(log(&p, BRANCH, 3), ["A", "on dev", "init"]);

    // Only a remote-tracking branch: origin/<base>, and the new branch does not track it.
    let q = Project::new(&with_base("release"));
    branch_with_commit(&q, "release", "rel.txt", "release work\n");
    let tip = q.git(&["rev-parse", "release"]);
    q.git(&["update-ref", "refs/remotes/origin/release", &tip]);
    q.git(&["branch", "-q", "-D", "release"]);
    q.agent("claude", &format!("{WORK}\n{FLIP}"));
    q.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "ralph: switched to branch {BRANCH} (created from origin/release)"
        )));
    assert_eq!(log(&q, BRANCH, 3), ["A", "on release", "init"]);
    let config = std::fs::read_to_string(q.root().join(".git/config")).unwrap();
    assert!(
        !config.contains(&format!("[branch \"{BRANCH}\"]")),
        "{BRANCH} must not track origin/release: {config}"
    );
}

#[test]
fn a_base_branch_that_does_not_exist_stops_the_run_before_anything_changes() {
    let p = Project::new(&with_base("nope"));
    let start = current(&p);
    p.agent("claude", FLIP);
    let out = p.run().output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for part in [
        "prd.json: /baseBranch: baseBranch \"nope\"",
        "neither a local branch nor origin/nope",
        "nothing was checked out",
        "git fetch origin nope",
        "remove baseBranch",
    ] {
        assert!(err.contains(part), "{part}: {err}");
    }
    assert_eq!(p.calls(), 0);
    assert_eq!(current(&p), start);
    assert!(!has_branch(&p, BRANCH));
    assert!(!p.root().join(".ralph/runs").exists());
    // Once the branch exists, the base no longer matters.
    p.git(&["branch", BRANCH]);
    p.run().assert().code(0);
    assert_eq!(current(&p), BRANCH);
}

#[test]
fn a_dirty_work_tree_is_refused_with_its_paths_and_nothing_changes() {
    let p = Project::new(&one_story());
    std::fs::write(p.root().join("tracked.txt"), "v1\n").unwrap();
    std::fs::write(p.root().join("staged.txt"), "v1\n").unwrap();
    p.commit("files");
    let start = current(&p);
    std::fs::write(p.root().join("tracked.txt"), "edited\n").unwrap();
    std::fs::write(p.root().join("staged.txt"), "staged\n").unwrap();
    p.git(&["add", "staged.txt"]);
    std::fs::write(p.root().join("notes.md"), "mine\n").unwrap();
    // ralph's own files never count: prd.json and progress.txt are committed with the work.
    let prd = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
    std::fs::write(p.root().join("prd.json"), prd.replace("Do A", "Do A well")).unwrap();
    std::fs::write(p.root().join("progress.txt"), "# Ralph Progress Log\n").unwrap();
    p.agent("claude", FLIP);
    let out = p.run().output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for part in [
        "the work tree has uncommitted changes",
        "   M tracked.txt\n",
        "  M  staged.txt\n",
        "  ?? notes.md\n",
        "git stash --include-untracked",
        "--allow-dirty",
    ] {
        assert!(err.contains(part), "{part:?}: {err}");
    }
    assert!(
        !err.contains("prd.json\n") && !err.contains("progress.txt"),
        "{err}"
    );
    assert_eq!(p.calls(), 0);
    assert_eq!(current(&p), start);
    assert!(!has_branch(&p, BRANCH));
    assert!(!p.root().join(".ralph/runs").exists());
    let read = |f: &str| std::fs::read_to_string(p.root().join(f)).unwrap();
    assert_eq!(read("tracked.txt"), "edited\n");
    assert_eq!(read("notes.md"), "mine\n");
    assert_eq!(p.git(&["diff", "--cached", "--name-only"]), "staged.txt");

    // Many paths: ten are named, and how many more.
    for i in 0..12 {
        std::fs::write(p.root().join(format!("new-{i:02}.txt")), "x").unwrap();
    }
    let err = stderr(&p.run().output().unwrap());
    assert!(
        err.contains("… and 5 more (`git status` lists them)"),
        "{err}"
    );
}

#[test]
fn ralphs_own_uncommitted_files_do_not_stop_the_run() {
    let p = Project::new(&one_story());
    // What a previous iteration leaves when the agent did not commit: progress.txt, a
    // prd.json edit, ralph's state.
    std::fs::write(p.root().join("progress.txt"), "## entry\n").unwrap();
    let prd = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
    std::fs::write(p.root().join("prd.json"), prd.replace("Do A", "Do A now")).unwrap();
    p.agent("claude", FLIP);
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("uncommitted").not());
    assert_eq!(current(&p), BRANCH);
}

#[test]
fn allow_dirty_starts_anyway_warns_once_and_keeps_the_changes() {
    let p = Project::new(&one_story());
    std::fs::write(p.root().join("notes.md"), "mine\n").unwrap();
    p.agent("claude", FLIP);
    let out = p.run().arg("--allow-dirty").output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("warning: starting with 1 uncommitted path(s): notes.md (--allow-dirty)")
            .count(),
        1,
        "{err}"
    );
    assert_eq!(current(&p), BRANCH);
    assert_eq!(
        std::fs::read_to_string(p.root().join("notes.md")).unwrap(),
        "mine\n"
    );

    // The same from ralph.toml ([run] allow_dirty) and from the environment.
    let q = Project::new(&one_story());
    std::fs::write(q.root().join("ralph.toml"), "[run]\nallow_dirty = true\n").unwrap();
    q.agent("claude", FLIP);
    q.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("ralph.toml (--allow-dirty)"));
    let r = Project::new(&one_story());
    std::fs::write(r.root().join("notes.md"), "mine\n").unwrap();
    r.agent("claude", FLIP);
    r.run().env("RALPH_ALLOW_DIRTY", "1").assert().code(0);
}

#[test]
fn a_checkout_git_refuses_is_reported_and_loses_nothing() {
    let p = Project::new(&one_story());
    std::fs::write(p.root().join("file.txt"), "base\n").unwrap();
    p.commit("file");
    let start = current(&p);
    branch_with_commit(&p, BRANCH, "file.txt", "on the branch\n");
    std::fs::write(p.root().join("file.txt"), "my edit\n").unwrap();
    p.agent("claude", FLIP);
    let out = p.run().arg("--allow-dirty").output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("`git checkout -q {BRANCH} --` refused")),
        "{err}"
    );
    assert!(err.contains("file.txt"), "{err}");
    assert!(err.contains("your files are as they were"), "{err}");
    assert_eq!(p.calls(), 0);
    assert_eq!(current(&p), start);
    assert_eq!(
        std::fs::read_to_string(p.root().join("file.txt")).unwrap(),
        "my edit\n"
    );
}

#[test]
fn an_invalid_branch_name_names_the_field() {
    let p = Project::new(&prd("my feature", &[story("A", 1, &[])]));
    p.agent("claude", FLIP);
    let out = p.run().output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("prd.json: /branchName: \"my feature\" is not a valid git branch name"),
        "{err}"
    );
    assert_eq!(p.calls(), 0);
}

#[test]
fn outside_git_the_run_warns_that_nothing_can_be_rolled_back() {
    let p = Project::new(&one_story());
    std::fs::remove_dir_all(p.root().join(".git")).unwrap();
    p.agent("claude", FLIP);
    let out = p
        .run()
        .env("GIT_CEILING_DIRECTORIES", p.dir.path())
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches(
            "is not in a git work tree: no branch, no commits, so nothing the agent does can be rolled back"
        )
        .count(),
        1,
        "{err}"
    );
    assert!(p.passes("A"));
}

#[test]
fn dry_run_says_what_it_would_do_and_changes_nothing() {
    let p = Project::new(&one_story());
    let start = current(&p);
    std::fs::write(p.root().join("notes.md"), "mine\n").unwrap();
    p.agent("claude", FLIP);
    p.run()
        .arg("--dry-run")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!(
            "branch: would create {BRANCH} from HEAD ({start}) and switch to it"
        )))
        .stdout(predicate::str::contains(
            "work tree: 1 uncommitted path(s): notes.md; the run would refuse to start",
        ));
    p.run()
        .args(["--dry-run", "--allow-dirty"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "would start anyway (--allow-dirty)",
        ));
    assert_eq!(current(&p), start);
    assert!(!has_branch(&p, BRANCH));
    assert_eq!(p.calls(), 0);
    let q = Project::new(&with_base("nope"));
    q.run()
        .arg("--dry-run")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "baseBranch \"nope\" does not exist; the run would stop",
        ));
}

#[test]
fn a_new_branch_name_archives_the_last_run_and_starts_the_branch_from_the_old_one() {
    let p = Project::new(&one_story());
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().assert().code(0);
    // The next feature: a new prd.json (not committed: it is ralph's own file).
    let next = prd("ralph/next", &[story("B", 1, &[])]);
    std::fs::write(p.root().join("prd.json"), next).unwrap();
    // This agent does not commit: the archive and progress.txt stay uncommitted.
    p.agent("claude", FLIP);
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "ralph: switched to branch ralph/next (created from HEAD ({BRANCH}))"
        )))
        .stderr(predicate::str::contains(
            "branch changed to ralph/next: archived the previous run",
        ));
    assert_eq!(current(&p), "ralph/next");
    // ralph's archive, progress.txt and prd.json, uncommitted, do not stop the next run.
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("all 1 stories pass"));
}
