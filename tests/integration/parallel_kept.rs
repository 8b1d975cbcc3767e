//! No ralph operation makes a commit unreachable or deletes a file it did not create
//! (specs/parallel.md, section 5): a parallel run stopped by SIGKILL, SIGTERM or SIGHUP while
//! its agents hold committed and uncommitted work, then the next run, then `ralph clean`. Every
//! commit an agent made stays reachable, every file it wrote is recoverable (the next run
//! resumes the stories on their own work), and a person's own worktree is never touched.

use std::path::PathBuf;

use crate::support::parallel::{agent, finish, project, refs_containing, spawn, worktrees};
use crate::support::{FLIP, Project, alive, hold_lock, story, wait_for};

/// Round 1 of the agents: A commits, B leaves an uncommitted file, C does both; each records
/// its commit and pid, says it is ready, then ignores SIGTERM and never ends.
const ROUND1: &str = r#"case $id in
  A) echo a > A-c.txt; git add -A >/dev/null; git commit -qm "A committed" >/dev/null; git rev-parse HEAD > "$D/sha-A" ;;
  B) echo b > B-u.txt ;;
  C) echo c > C-c.txt; git add -A >/dev/null; git commit -qm "C committed" >/dev/null; git rev-parse HEAD > "$D/sha-C"; echo cu > C-u.txt ;;
esac
echo $$ > "$D/pid-$id"
touch "$D/ready-$id"
trap '' TERM
while :; do sleep 0.1; done"#;

/// Round 2: say what of round 1 the worktree holds, keep the prompt, then finish the story.
const ROUND2: &str = r#"cp "$D/stdin-$id-$a" "$D/prompt2-$id"
ls > "$D/saw-$id"
echo "$id done" > $id.txt
"#;

/// A person's own worktree beside the project, with uncommitted work of theirs.
fn own_worktree(p: &Project) -> PathBuf {
    let mine = p.dir.path().join("mine");
    p.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "mine",
        &mine.to_string_lossy(),
    ]);
    std::fs::write(mine.join("mine.txt"), "my work").unwrap();
    mine
}

fn assert_own_worktree_untouched(p: &Project, mine: &std::path::Path) {
    assert_eq!(
        std::fs::read_to_string(mine.join("mine.txt")).unwrap(),
        "my work"
    );
    let listed = p.git(&["worktree", "list", "--porcelain"]);
    assert!(
        listed.contains(&format!("worktree {}", mine.display())),
        "{listed}"
    );
    assert!(listed.contains("branch refs/heads/mine"), "{listed}");
}

/// The agents' commits, each reachable from some ref.
fn assert_reachable(p: &Project, shas: &[String], when: &str) {
    for sha in shas {
        assert!(
            !refs_containing(p, sha).is_empty(),
            "{when}: {sha} is unreachable"
        );
    }
}

/// Round 1 under `--parallel 3`, stopped by `signal` (SIGKILL: ralph killed outright); the
/// agents' commits.
fn round1(p: &Project, signal: i32) -> Vec<String> {
    agent(p, ROUND1);
    let mut child = spawn(p, &["--parallel", "3"]);
    wait_for(30, || {
        ["A", "B", "C"]
            .iter()
            .all(|id| p.fake.join(format!("ready-{id}")).exists())
    });
    let shas: Vec<String> = ["sha-A", "sha-C"]
        .iter()
        .map(|f| {
            std::fs::read_to_string(p.fake.join(f))
                .unwrap()
                .trim()
                .to_string()
        })
        .collect();
    if signal == libc::SIGKILL {
        child.kill().unwrap();
        child.wait().unwrap();
        // The agents go on; their worktrees are still there.
        assert_eq!(worktrees(p), 5);
        return shas;
    }
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let (code, err) = finish(child);
    assert_eq!(
        code,
        Some(if signal == libc::SIGHUP { 129 } else { 130 }),
        "{err}"
    );
    for id in ["A", "B", "C"] {
        wait_for(5, || !alive(p.read_pid(&format!("pid-{id}"))));
    }
    // Stopped cleanly: the worktrees are gone, their work is on the story branches.
    assert_eq!(worktrees(p), 2, "{err}");
    assert_eq!(p.git(&["show", "ralph/par--B:B-u.txt"]), "b");
    assert_eq!(p.git(&["show", "ralph/par--C:C-u.txt"]), "cu");
    // After a hang-up ralph writes nothing more (the terminal is gone).
    if signal != libc::SIGHUP {
        assert!(err.contains("interrupted, kept"), "{err}");
    }
    assert_reachable(p, &shas, "after the interrupt");
    shas
}

fn stop_then_resume_then_clean(signal: i32) {
    let p = project(&[story("A", 1, &[]), story("B", 2, &[]), story("C", 3, &[])]);
    let mine = own_worktree(&p);
    let shas = round1(&p, signal);
    let pids: Vec<i32> = ["A", "B", "C"]
        .iter()
        .map(|id| p.read_pid(&format!("pid-{id}")))
        .collect();
    // The next run resumes each story on its own work.
    agent(
        &p,
        &format!("{ROUND2}{FLIP}\ngit add -A >/dev/null; git commit -qm \"$id done\" >/dev/null"),
    );
    let (code, err) = finish(spawn(&p, &["--parallel", "3"]));
    assert_eq!(code, Some(0), "{err}");
    for pid in pids {
        wait_for(5, || !alive(pid));
    }
    assert!(p.passes("A") && p.passes("B") && p.passes("C"));
    for (id, files) in [
        ("A", &["A-c.txt"][..]),
        ("B", &["B-u.txt"]),
        ("C", &["C-c.txt", "C-u.txt"]),
    ] {
        let saw = std::fs::read_to_string(p.fake.join(format!("saw-{id}"))).unwrap();
        let prompt = std::fs::read_to_string(p.fake.join(format!("prompt2-{id}"))).unwrap();
        assert!(prompt.contains("You are resuming its work"), "{prompt}");
        for f in files {
            assert!(saw.lines().any(|l| l == *f), "{id} did not see {f}: {saw}");
            // And it landed: the branch holds it.
            p.git(&["cat-file", "-e", &format!("ralph/par:{f}")]);
        }
    }
    assert_eq!(p.git(&["show", "ralph/par:C-u.txt"]), "cu");
    for sha in &shas {
        p.git(&["merge-base", "--is-ancestor", sha, "ralph/par"]);
    }
    // `ralph clean` leaves every commit reachable and the person's worktree as it was.
    let out = p.ralph().args(["clean"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_reachable(&p, &shas, "after ralph clean");
    assert_own_worktree_untouched(&p, &mine);
    assert!(p.git(&["branch", "--list", "ralph/par--*"]).is_empty());
}

#[test]
fn after_sigkill_the_next_run_resumes_every_story_on_its_own_work() {
    stop_then_resume_then_clean(libc::SIGKILL);
}

#[test]
fn after_sigterm_the_next_run_resumes_every_story_on_its_own_work() {
    stop_then_resume_then_clean(libc::SIGTERM);
}

#[test]
fn after_sighup_the_next_run_resumes_every_story_on_its_own_work() {
    stop_then_resume_then_clean(libc::SIGHUP);
}

/// Commit `file` on a new branch `name` from the tip, without leaving the main tree's branch.
fn branch_with(p: &Project, name: &str, file: &str) -> String {
    p.git(&["checkout", "-q", "-b", name]);
    std::fs::write(p.root().join(file), file).unwrap();
    p.commit(file);
    let sha = p.git(&["rev-parse", "HEAD"]);
    p.git(&["checkout", "-q", "ralph/par"]);
    sha
}

#[test]
fn clean_keeps_unmerged_work_says_why_and_drops_only_what_is_named() {
    let p = project(&[story("A", 1, &[]), story("B", 2, &[]), story("C", 3, &[])]);
    let mine = own_worktree(&p);
    // A: unmerged work on its story branch. B: a story branch the tip already has. C: an
    // attempt ref with unmerged work, and the worktree a killed run left, with a file it never
    // committed.
    let a = branch_with(&p, "ralph/par--A", "a.txt");
    p.git(&["branch", "ralph/par--B"]);
    let c1 = branch_with(&p, "scratch", "c1.txt");
    p.git(&["update-ref", "refs/ralph/attempts/ralph/par--C/1", &c1]);
    p.git(&["branch", "-q", "-D", "scratch"]);
    let wt = p.root().join(".ralph/worktrees/C");
    p.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "ralph/par--C",
        &wt.to_string_lossy(),
    ]);
    std::fs::write(wt.join("c2.txt"), "never committed").unwrap();

    let out = p.ralph().args(["clean", "--dry-run"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        text.contains(".ralph/worktrees/C: would be saved, then removed"),
        "{text}"
    );
    assert!(
        text.contains("would delete 1 ref(s) ralph/par already contains:\n  ralph/par--B\n"),
        "{text}"
    );
    assert!(wt.join("c2.txt").exists());
    p.git(&["rev-parse", "--verify", "ralph/par--B"]);
    // While a run holds the project, a dry run says its worktrees are in use.
    {
        let _held = hold_lock(&p.root(), &std::process::id().to_string());
        let out = p.ralph().args(["clean", "--dry-run"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("C: in use by the running ralph (pid"),
            "{text}"
        );
    }

    let out = p.ralph().args(["clean"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!wt.exists());
    assert_eq!(p.git(&["show", "ralph/par--C:c2.txt"]), "never committed");
    assert!(p.git(&["branch", "--list", "ralph/par--B"]).is_empty());
    assert!(
        text.contains("kept 3 ref(s) with work ralph/par lacks"),
        "{text}"
    );
    assert!(
        text.contains("ralph/par--A at ")
            && text.contains(
                "1 commit(s) of A not on ralph/par; the next `ralph run` resumes the story"
            ),
        "{text}"
    );
    assert!(text.contains("an earlier attempt of C"), "{text}");
    // Not named, not dropped: an unknown name stops the clean before anything goes.
    let out = p
        .ralph()
        .args(["clean", "--drop", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--drop nope: no such kept work"));
    // Named by story id: every ref of A's goes, and the line says how to put it back.
    let out = p.ralph().args(["clean", "--drop", "A"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("dropped ralph/par--A at {}", &a[..10]))
            && text.contains(&format!("git update-ref refs/heads/ralph/par--A {a}")),
        "{text}"
    );
    assert!(p.git(&["branch", "--list", "ralph/par--A"]).is_empty());
    assert_eq!(
        p.git(&["rev-parse", "refs/ralph/attempts/ralph/par--C/1"]),
        c1
    );
    assert_own_worktree_untouched(&p, &mine);
}

#[test]
fn work_that_cannot_be_resumed_stays_under_an_attempt_ref_that_show_names() {
    let p = project(&[story("A", 1, &[]), story("B", 2, &[])]);
    // A story branch left from a branchName made again from scratch: no history in common.
    p.git(&["checkout", "-q", "--orphan", "ralph/par--A"]);
    std::fs::write(p.root().join("old.txt"), "old work").unwrap();
    p.git(&["add", "old.txt"]);
    p.git(&["commit", "-qm", "old work of A"]);
    let old = p.git(&["rev-parse", "HEAD"]);
    p.git(&["checkout", "-q", "-f", "ralph/par"]);
    p.git(&["clean", "-qfd"]);
    agent(
        &p,
        &format!(
            "echo $id > $id.txt\n{FLIP}\ngit add -A >/dev/null; git commit -qm $id >/dev/null"
        ),
    );
    let (code, err) = finish(spawn(&p, &["--parallel", "2"]));
    assert_eq!(code, Some(0), "{err}");
    let at = "refs/ralph/attempts/ralph/par--A/1";
    assert_eq!(p.git(&["rev-parse", at]), old);
    let prompt = std::fs::read_to_string(p.fake.join("stdin-A-1")).unwrap();
    assert!(
        prompt.contains("could not be resumed") && prompt.contains(at),
        "{prompt}"
    );
    // A merged; its old work is on no branch, so the ref stays, and show names it with why.
    assert!(p.passes("A"));
    let out = p.ralph().args(["show", "A"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "  {at} at {} \"old work of A\": an earlier attempt of A",
            &old[..10]
        )),
        "{text}"
    );
    let out = p.ralph().args(["show", "A", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["kept"][0]["ref"], at);
    assert_eq!(v["data"]["kept"][0]["kind"], "attempt");
}
