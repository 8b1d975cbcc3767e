//! A story's gate (specs/loop.md, "The gate"): the story's own verify commands after the run's
//! (in the gate, the prompt, `--dry-run`, `ralph show`, `status --json`), and the red-green
//! gate on shell projects: a story that changed no test or whose test passes without the
//! change goes back with the reason, a real test passes, an inconclusive red run leaves the
//! gate's verdict, a story can opt out, nothing of the scratch worktree is left and the
//! person's tree is untouched, sequential and `--parallel`. Language samples (Rust, Python)
//! are in `run_red_green.rs`.

use crate::support::{FLIP, Project, prd, story};

/// `story`'s line with more fields.
fn with(line: String, extra: &str) -> String {
    format!("{}, {extra}}}", line.strip_suffix('}').unwrap())
}

/// Runs every `tests/*.sh` (none: passes): the project's test runner.
const RUNNER: &str =
    "for t in tests/*.sh; do [ -e \"$t\" ] || continue; sh \"$t\" || exit 1; done\n";

/// Shell: the story's change by attempt. 1: the code only; 2: a test that passes without
/// it; 3 and later: a test of it.
const ATTEMPTS: &str = r#"id="$RALPH_STORY_ID"; lower=$(echo "$id" | tr 'A-Z' 'a-z')
echo "$id done" > "$lower.txt"
mkdir -p tests
case "$RALPH_ATTEMPT" in
  1) ;;
  2) echo 'true' > "tests/${lower}_test.sh" ;;
  *) echo "grep -q '$id done' $lower.txt" > "tests/${lower}_test.sh" ;;
esac
"#;

/// Shell: commit everything (after the flip, so the tree is clean when the agent ends).
const COMMIT: &str = r#"
git add -A >/dev/null; git commit -qm "$RALPH_STORY_ID attempt $RALPH_ATTEMPT" >/dev/null"#;

fn shell_project(stories: &[String]) -> Project {
    let p = Project::new(&prd("ralph/rg", stories));
    std::fs::write(p.root().join("run-tests.sh"), RUNNER).unwrap();
    std::fs::write(p.root().join(".gitignore"), ".ralph/\n*.local\n").unwrap();
    p.commit("test runner");
    p
}

fn records<'a>(h: &'a [serde_json::Value], id: &str) -> Vec<&'a serde_json::Value> {
    h.iter().filter(|r| r["story"] == id).collect()
}

/// The scratch worktrees left under `.ralph/red-green/` (Cargo's cache folder aside).
fn scratch_left(p: &Project) -> Vec<String> {
    std::fs::read_dir(p.root().join(".ralph/red-green"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != "target")
                .collect()
        })
        .unwrap_or_default()
}

fn worktrees(p: &Project) -> usize {
    p.git(&["worktree", "list", "--porcelain"])
        .lines()
        .filter(|l| l.starts_with("worktree "))
        .count()
}

#[test]
fn a_storys_own_commands_run_after_the_runs_and_gate_it() {
    let a = with(story("A", 1, &[]), r#""verify": ["test -f a.ok", "true"]"#);
    let p = Project::new(&prd("ralph/own", &[a, story("B", 2, &[])]));
    p.agent(
        "claude",
        &format!(
            r#"if [ "$RALPH_STORY_ID" = A ] && [ "$RALPH_ATTEMPT" -ge 2 ]; then touch a.ok; fi
echo "$n" > "$RALPH_STORY_ID.txt"; git add -A >/dev/null; git commit -qm "$RALPH_STORY_ID" >/dev/null; {FLIP}"#
        ),
    );
    let dry = p
        .ralph()
        .args(["run", "--dry-run", "--verify", "true"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&dry.stdout);
    assert!(out.contains("verify: true && test -f a.ok\n"), "{out}");
    assert!(!out.contains("red-green"), "{out}");
    let o = p.run().args(["5", "--verify", "true"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let h = p.history();
    let a = records(&h, "A");
    let cmds = |r: &serde_json::Value| -> Vec<String> {
        r["verify"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["command"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(a[0]["outcome"], "verify-failed");
    assert_eq!(cmds(a[0]), ["true", "test -f a.ok"]);
    assert_eq!(a[1]["outcome"], "done");
    // The story's "true" is the run's already: it runs once.
    assert_eq!(cmds(a[1]), ["true", "test -f a.ok"]);
    let b = records(&h, "B");
    assert_eq!((b.len(), cmds(b[0])), (1, vec!["true".to_string()]));
    assert!(err.contains("`test -f a.ok` exited 1"), "{err}");
    // The prompt names the story's own checks after the run's; the retry names the failure.
    let first = p.stdin(1);
    let at = |s: &str| first.find(s).unwrap_or_else(|| panic!("no {s} in {first}"));
    assert!(at("- `true`") < at("- `test -f a.ok`"));
    assert!(p.stdin(2).contains("`test -f a.ok` exited 1"));
    let show = p.ralph().args(["show", "A"]).output().unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(
        text.contains("verify (this story, after the run's): `test -f a.ok`, `true`\n"),
        "{text}"
    );
    let status = p.ralph().args(["status", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(
        v["data"]["stories"][0]["verify"],
        serde_json::json!(["test -f a.ok", "true"])
    );
    assert!(v["data"]["stories"][1].get("verify").is_none());
}

#[test]
fn red_green_sends_back_no_test_and_a_test_that_passes_without_the_change() {
    let p = shell_project(&[story("A", 1, &[])]);
    std::fs::write(p.root().join("notes.local"), "mine, untracked\n").unwrap();
    p.agent("claude", &format!("{ATTEMPTS}{FLIP}{COMMIT}"));
    let o = p
        .run()
        .args(["5", "--verify", "sh run-tests.sh", "--red-green"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let h = p.history();
    let a = records(&h, "A");
    let got: Vec<(&str, &str)> = a
        .iter()
        .map(|r| {
            (
                r["outcome"].as_str().unwrap(),
                r["red_green"]["result"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("verify-failed", "no-tests"),
            ("verify-failed", "green"),
            ("done", "red")
        ]
    );
    // The tests went onto the story's base: the commit before its first attempt.
    let base = a[0]["head_before"].as_str().unwrap();
    for r in &a {
        assert_eq!(r["red_green"]["base"], base);
    }
    assert_eq!(
        a[1]["red_green"]["test_files"],
        serde_json::json!(["tests/a_test.sh"])
    );
    assert_eq!(a[1]["red_green"]["verify"][0]["passed"], true);
    assert_eq!(a[2]["red_green"]["verify"][0]["passed"], false);
    assert!(a[2]["red_green"]["duration_ms"].is_u64());
    // Each retry prompt says why; the first prompt says what the gate will check.
    assert!(
        p.stdin(1)
            .contains("ralph checks that your tests test your change")
    );
    assert!(p.stdin(2).contains("your change touched no test file"));
    let third = p.stdin(3);
    assert!(third.contains("(tests/a_test.sh)"), "{third}");
    assert!(third.contains("they do not test it"), "{third}");
    assert!(
        err.contains("the tests do not test the change; the story goes back (red run "),
        "{err}"
    );
    assert!(
        err.contains("fail the checks, as required (red run "),
        "{err}"
    );
    // Nothing of the scratch worktree is left, and the person's files are as they were.
    assert_eq!(worktrees(&p), 1);
    assert!(scratch_left(&p).is_empty(), "{:?}", scratch_left(&p));
    assert_eq!(
        std::fs::read_to_string(p.root().join("notes.local")).unwrap(),
        "mine, untracked\n"
    );
    assert_eq!(p.git(&["status", "--porcelain"]), "");
    let show = p.ralph().args(["show", "A"]).output().unwrap();
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.contains("red run ("), "{text}");
    assert!(text.contains("no test file changed (sent back)"), "{text}");
    assert!(
        text.contains("passed without the change: the tests do not test it (sent back)"),
        "{text}"
    );
    assert!(
        text.contains("failed without the change, as required"),
        "{text}"
    );
    assert!(text.contains("`sh run-tests.sh` exited 1"), "{text}");
    let json = p.ralph().args(["show", "A", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["data"]["attempts"][2]["red_green"]["result"], "red");
}

#[test]
fn an_inconclusive_red_run_leaves_the_gates_verdict_and_a_story_can_opt_out() {
    let b = with(story("B", 2, &[]), r#""redGreen": false"#);
    let p = shell_project(&[story("A", 1, &[]), b]);
    std::fs::write(
        p.root().join("ralph.toml"),
        "[verify]\ncommands = [\"sh run-tests.sh\"]\nred_green = true\nred_green_setup = \"exit 3\"\n",
    )
    .unwrap();
    p.commit("settings");
    // Every attempt writes a real test for A; B changes no test.
    p.agent(
        "claude",
        &format!(
            r#"id="$RALPH_STORY_ID"; echo "$id done" > "$id.txt"; mkdir -p tests
[ "$id" = A ] && echo "grep -q 'A done' A.txt" > tests/a_test.sh
git add -A >/dev/null; git commit -qm "$id" >/dev/null; {FLIP}"#
        ),
    );
    let dry = p.ralph().args(["run", "--dry-run"]).output().unwrap();
    let out = String::from_utf8_lossy(&dry.stdout);
    assert!(out.contains("red-green: on: once the gate passes"), "{out}");
    let o = p.run().args(["4"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let h = p.history();
    let a = records(&h, "A");
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["outcome"], "done");
    assert_eq!(a[0]["red_green"]["result"], "inconclusive");
    assert_eq!(a[0]["red_green"]["why"], "the setup `exit 3` exited 3");
    assert!(
        err.contains(
            "red-green: inconclusive (the setup `exit 3` exited 3); the gate's verdict stands"
        ),
        "{err}"
    );
    let b = records(&h, "B");
    assert_eq!((b.len(), &b[0]["outcome"]), (1, &serde_json::json!("done")));
    assert!(b[0].get("red_green").is_none(), "{:?}", b[0]);
    assert!(scratch_left(&p).is_empty());
    assert_eq!(worktrees(&p), 1);
}

#[test]
fn red_green_in_parallel_runs_in_each_storys_worktree_and_sends_a_tautology_back() {
    // A writes a real test at once (attempt 3 in ATTEMPTS terms); B starts with a tautology.
    let p = shell_project(&[story("A", 1, &[]), story("B", 1, &[])]);
    p.git(&["checkout", "-qb", "ralph/rg"]);
    p.agent(
        "claude",
        &format!(
            r#"[ "$RALPH_STORY_ID" = A ] && RALPH_ATTEMPT=3
[ "$RALPH_STORY_ID" = B ] && RALPH_ATTEMPT=$((RALPH_ATTEMPT + 1))
{ATTEMPTS}{FLIP}{COMMIT}"#
        ),
    );
    let o = p
        .run()
        .args([
            "6",
            "--parallel",
            "2",
            "--verify",
            "sh run-tests.sh",
            "--red-green",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let h = p.history();
    let a = records(&h, "A");
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0]["red_green"]["result"], "red");
    assert_eq!(a[0]["merge"]["result"], "merged");
    let b = records(&h, "B");
    assert_eq!(b.len(), 2, "{b:?}");
    assert_eq!(b[0]["outcome"], "verify-failed");
    assert_eq!(b[0]["red_green"]["result"], "green");
    assert_eq!(b[1]["red_green"]["result"], "red");
    assert_eq!(b[1]["merge"]["result"], "merged");
    // The red run's base is the story's base in its worktree.
    assert_eq!(b[0]["red_green"]["base"], b[0]["base"]);
    assert!(p.passes("A") && p.passes("B"));
    assert_eq!(worktrees(&p), 1);
    assert!(scratch_left(&p).is_empty(), "{:?}", scratch_left(&p));
}

#[test]
fn a_parallel_merge_re_verifies_with_the_storys_own_commands() {
    let a = with(story("A", 1, &[]), r#""verify": ["test -f A.txt"]"#);
    let b = with(story("B", 1, &[]), r#""verify": ["test -f B.txt"]"#);
    let p = shell_project(&[a, b]);
    p.git(&["checkout", "-qb", "ralph/rg"]);
    p.agent(
        "claude",
        &format!(r#"echo done > "$RALPH_STORY_ID.txt"; {FLIP}{COMMIT}"#),
    );
    let o = p
        .run()
        .args(["4", "--parallel", "2", "--verify", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let h = p.history();
    // The first merge is a fast-forward (nothing to re-verify); the second is re-verified
    // with the run's commands and its story's own.
    let merged: Vec<&serde_json::Value> = h.iter().filter(|r| r["merge"].is_object()).collect();
    assert_eq!(merged.len(), 2, "{h:?}");
    let second = merged
        .iter()
        .find(|r| r["merge"]["fast_forward"] == false)
        .unwrap_or_else(|| panic!("no merge commit: {h:?}"));
    let id = second["story"].as_str().unwrap();
    let cmds: Vec<&str> = second["merge"]["verify"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["command"].as_str().unwrap())
        .collect();
    assert_eq!(cmds, ["true".to_string(), format!("test -f {id}.txt")]);
}
