//! Error-pattern memory end to end: a story that fails verify and then passes teaches a pattern
//! (`.ralph/patterns.jsonl`, redacted); a later story failing the same way (other numbers,
//! other paths) gets it in its next prompt, which counts one use; `ralph patterns` lists it,
//! `ralph patterns forget` drops it, and a `branchName` archive keeps it.

use crate::support::{FLIP, Project, prd, story};
use predicates::prelude::*;

/// The verify command: every `S-*.cfg` must say `ok`; otherwise an error line with a path, a
/// number (the process id: never the same twice) and a fake AWS key.
const CHECK: &str = r#"for f in S-*.cfg; do
  [ -f "$f" ] || continue
  if [ "$(cat "$f")" != ok ]; then
    echo "running checks"
    echo "check: error: $PWD/tmp/run-$$/$f line $$: bad value near AKIAIOSFODNN7EXAMPLE"
    exit 1
  fi
done
"#;

/// The agent: a story's first attempt writes a bad config (verify fails), its second a good
/// one, with a progress entry and a learning.
fn agent(p: &Project) {
    p.agent(
        "claude",
        &format!(
            r#"if [ "$RALPH_ATTEMPT" = 1 ]; then echo bad > "$RALPH_STORY_ID.cfg"; else echo ok > "$RALPH_STORY_ID.cfg"; printf '\n## 2026-11-26 - %s\n- fixed the config\n- **Learnings for future iterations:**\n  - config values must read ok\n---\n' "$RALPH_STORY_ID" >> progress.txt; fi
git add -A >/dev/null; git commit -qm "$RALPH_STORY_ID attempt $RALPH_ATTEMPT" >/dev/null
{FLIP}"#
        ),
    );
}

fn patterns_file(p: &Project) -> String {
    std::fs::read_to_string(p.root().join(".ralph/patterns.jsonl")).unwrap_or_default()
}

fn listed(p: &Project) -> serde_json::Value {
    let out = p.ralph().args(["patterns", "--json"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["data"]["patterns"].clone()
}

#[test]
fn a_pattern_learned_after_fail_then_pass_is_injected_when_a_later_story_fails_the_same_way() {
    let p = Project::new(&prd(
        "ralph/p",
        &[story("S-1", 1, &[]), story("S-2", 2, &[])],
    ));
    std::fs::write(p.root().join("check.sh"), CHECK).unwrap();
    std::fs::write(p.root().join("progress.txt"), "# Ralph Progress Log\n---\n").unwrap();
    p.commit("check");
    agent(&p);
    p.ralph()
        .args(["patterns"])
        .assert()
        .success()
        .stdout(predicate::str::contains("no error patterns learned yet"));

    // S-1: fails verify, then passes: one pattern, redacted.
    p.run()
        .args(["2", "--verify", "sh check.sh"])
        .assert()
        .stderr(predicate::str::contains("learned error pattern"));
    let h = p.history();
    assert_eq!(h[0]["outcome"], "verify-failed");
    assert_eq!(h[1]["outcome"], "done");
    let text = patterns_file(&p);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(!text.contains("AKIAIOSFODNN7EXAMPLE"), "{text}");
    assert!(text.contains("REDACTED"), "{text}");
    let list = listed(&p);
    let pat = &list[0];
    let id = pat["id"].as_str().unwrap().to_string();
    assert_eq!(pat["command"], "sh check.sh");
    assert_eq!(pat["story"], "S-1");
    assert_eq!(pat["uses"], 0);
    let sig = pat["signature"][0].as_str().unwrap();
    assert!(
        sig.starts_with("check: error: S-N.cfg line N: bad value near"),
        "{sig}"
    );
    assert!(
        pat["fix"]["files"]
            .as_array()
            .unwrap()
            .contains(&"S-1.cfg".into())
    );
    assert!(
        pat["fix"]["diff"]
            .as_str()
            .unwrap()
            .contains("S-1.cfg +1 -1"),
        "{pat}"
    );
    assert_eq!(pat["fix"]["learning"], "config values must read ok");
    // S-2's first prompt: its failure is not known yet, and the pattern's files are not its.
    // `ralph context` shows no pattern and counts nothing.
    p.ralph().args(["context", "S-2"]).assert().success();
    assert_eq!(listed(&p)[0]["uses"], 0);

    // S-2 fails the same way (another number, another path): its next prompt has the pattern.
    p.run().args(["--verify", "sh check.sh"]).assert().code(0);
    assert_eq!(p.calls(), 4);
    let first = p.stdin(3);
    assert!(!first.contains("Errors seen before"), "{first}");
    let second = p.stdin(4);
    assert!(second.contains("# Errors seen before"), "{second}");
    assert!(second.contains(&format!("(pattern {id})")), "{second}");
    assert!(second.contains("Fixed in S-1 by changing: "), "{second}");
    assert!(
        second.contains("Learning: config values must read ok"),
        "{second}"
    );
    assert!(!second.contains("AKIAIOSFODNN7EXAMPLE"));
    let list = listed(&p);
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "the same failure again is one pattern"
    );
    assert_eq!(list[0]["uses"], 1);
    assert_eq!(list[0]["seen"], 2);
    // Seen again: the newest fix, and the story that made it.
    assert_eq!(list[0]["story"], "S-2");
    assert!(
        list[0]["fix"]["files"]
            .as_array()
            .unwrap()
            .contains(&"S-2.cfg".into()),
        "{}",
        list[0]
    );
    p.ralph()
        .args(["patterns"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{id}  uses 1  seen 2  `sh check.sh`"
        )))
        .stdout(predicate::str::contains(
            "learning: config values must read ok",
        ));

    // A new branchName archives the run; the patterns stay.
    let prd_text = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
    std::fs::write(
        p.root().join("prd.json"),
        prd_text.replace("ralph/p", "ralph/q"),
    )
    .unwrap();
    p.commit("next feature");
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("archived the previous run"));
    assert!(patterns_file(&p).contains(&id));

    // Forget: an unknown id is an error naming the file; a unique prefix drops it.
    p.ralph()
        .args(["patterns", "forget", "zzzz"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(".ralph/patterns.jsonl"))
        .stderr(predicate::str::contains("`ralph patterns` lists the ids"));
    p.ralph()
        .args(["patterns", "forget", &id[..6]])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "forgot error pattern {id}"
        )));
    assert!(!patterns_file(&p).contains(&id));
    assert_eq!(listed(&p), serde_json::json!([]));
}

#[test]
fn a_parallel_run_learns_in_the_main_tree_and_a_worker_prompt_counts_a_use() {
    // S-2 builds on S-1, so it starts once S-1 is merged (and its pattern learned).
    let p = Project::new(&prd(
        "ralph/par",
        &[story("S-1", 1, &[]), story("S-2", 2, &["S-1"])],
    ));
    std::fs::write(p.root().join("check.sh"), CHECK).unwrap();
    std::fs::write(p.root().join("progress.txt"), "# Ralph Progress Log\n---\n").unwrap();
    p.commit("check");
    p.git(&["checkout", "-qb", "ralph/par"]);
    agent(&p);
    p.run()
        .args(["--parallel", "2", "--verify", "sh check.sh"])
        .assert()
        .code(0);
    assert_eq!(p.calls(), 4);
    assert!(p.passes("S-1") && p.passes("S-2"));
    assert!(!p.stdin(1).contains("Errors seen before"));
    let second = p.stdin(4);
    assert!(second.contains("# Errors seen before"), "{second}");
    let list = listed(&p);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(
        list[0]["story"], "S-2",
        "the story that made the newest fix"
    );
    assert!(
        list[0]["fix"]["files"]
            .as_array()
            .unwrap()
            .contains(&"S-2.cfg".into()),
        "{}",
        list[0]
    );
    assert_eq!(
        list[0]["uses"], 1,
        "counted by the scheduler in the main tree"
    );
    assert_eq!(list[0]["seen"], 2);
    assert!(!patterns_file(&p).contains("AKIAIOSFODNN7EXAMPLE"));
}
