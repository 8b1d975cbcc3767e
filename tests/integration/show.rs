//! `ralph show <story-id>`: a clear message before the story runs; after a fake agent
//! completes it, its commits, files, progress entry and verify results; an unknown id; a
//! closed stdout.

use crate::support::normalize::normalize;
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
    // The commits line ends at the new HEAD; the rest of the account is compared whole.
    assert!(out.contains(&format!("..{}\n", &head[..10])), "{out}");
    insta::assert_snapshot!("after_a_run", normalize(&out, &p.root()));

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
    insta::assert_snapshot!("unknown_id", err);
    let (code, out, _) = output_in(&p.root(), &["show", "a", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["data"].is_null(), "{v}");
    assert_eq!(v["errors"][0]["code"], "unknown-story");
}
