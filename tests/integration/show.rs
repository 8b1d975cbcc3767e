//! `ralph show <story-id>`: a clear message before the story runs; after a fake agent
//! completes it, its commits, files, progress entry and verify results; an unknown id; a
//! closed stdout.

use crate::support::{FLIP, Project, WORK, output_in, prd, story};

/// Writes a progress entry, commits a file, flips the story.
fn agent_body() -> String {
    format!(
        "printf '\\n## 2026-11-26 - %s\\n- made the thing\\n---\\n' \"$RALPH_STORY_ID\" >> progress.txt\n{WORK}\n{FLIP}"
    )
}

fn project() -> Project {
    let p = Project::new(&prd(
        "ralph/show",
        &[story("A", 1, &[]), story("B", 2, &["A"])],
    ));
    std::fs::write(
        p.root().join("ralph.toml"),
        "[verify]\ncommands = [\"test -f A.txt\"]\n",
    )
    .unwrap();
    p.commit("ralph.toml");
    p
}

#[test]
fn before_and_after_a_story_runs() {
    let p = project();
    let (code, out, err) = output_in(&p.root(), &["show", "A"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "A has not run yet (ready)\n");
    let (code, out, _) = output_in(&p.root(), &["show", "B"]);
    assert_eq!(code, 0);
    assert_eq!(out, "B has not run yet (blocked by A)\n");

    p.agent("claude", &agent_body());
    p.run().arg("1").assert().code(3); // B is left
    let (code, out, err) = output_in(&p.root(), &["show", "A"]);
    assert_eq!(code, 0, "{err}");
    let head = p.git(&["rev-parse", "HEAD"]);
    assert!(out.contains("state: done"), "{out}");
    assert!(out.contains("attempts: 1"), "{out}");
    assert!(out.contains("done"), "{out}");
    assert!(out.contains("verify 1/1"), "{out}");
    assert!(out.contains(&format!("..{}", &head[..10])), "{out}");
    assert!(out.contains("  A.txt"), "{out}");
    assert!(out.contains("- made the thing"), "{out}");

    let (code, out, _) = output_in(&p.root(), &["show", "A", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["command"], "show");
    assert_eq!(v["data"]["state"], "done");
    assert_eq!(v["data"]["commits"][0]["after"], head.as_str());
    assert_eq!(v["data"]["attempts"][0]["verify_passed"], 1);
    let (_, out, _) = output_in(&p.root(), &["show", "B"]);
    assert_eq!(out, "B has not run yet (ready)\n");
}

#[test]
fn an_unknown_id_names_prd_json_and_the_nearest_id() {
    let p = project();
    let (code, out, err) = output_in(&p.root(), &["show", "a"]);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("prd.json: no story with id \"a\""), "{err}");
    assert!(err.contains("did you mean A?"), "{err}");
    let (code, out, _) = output_in(&p.root(), &["show", "a", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["data"].is_null(), "{v}");
    assert_eq!(v["errors"][0]["code"], "unknown-story");
}
