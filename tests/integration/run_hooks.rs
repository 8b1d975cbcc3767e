//! `[hooks]` in ralph.toml: a command per story done, story skipped and run end, reading the
//! event as JSON on stdin; a failing or hanging hook is a warning and the run goes on.

use crate::support::{FLIP, Project, WORK, events, prd, story};

fn json_at(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

#[test]
fn each_hook_receives_its_event_as_json() {
    let p = Project::new(&prd("ralph/h", &[story("A", 1, &[]), story("B", 2, &[])]));
    // A is done; B makes no progress and is skipped after one attempt.
    p.agent(
        "claude",
        &format!("if [ \"$RALPH_STORY_ID\" = A ]; then {WORK}; {FLIP}; fi"),
    );
    let f = p.fake.display();
    std::fs::write(
        p.root().join("ralph.toml"),
        format!(
            "[hooks]\non_story_done = \"cat > {f}/done.json\"\non_blocked = \"cat > {f}/blocked.json; echo $RALPH_HOOK > {f}/name\"\non_run_end = \"cat > {f}/end.json; pwd > {f}/cwd\"\n"
        ),
    )
    .unwrap();
    p.commit("hooks");
    let out = p.run().args(["--max-failures", "1"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let done = json_at(&p.fake.join("done.json"));
    assert_eq!(done["event"], "story-done");
    assert_eq!(done["hook"], "on_story_done");
    assert_eq!(done["story"], "A");
    assert_eq!(done["title"], "Title A");
    assert_eq!(done["project"], "test");
    assert_eq!(done["branch"], "ralph/h");
    assert!(done["commit"].is_string(), "{done}");
    let blocked = json_at(&p.fake.join("blocked.json"));
    assert_eq!(blocked["event"], "story-skipped");
    assert_eq!(blocked["story"], "B");
    assert_eq!(blocked["title"], "Title B");
    assert_eq!(blocked["attempts"], 1);
    assert!(
        blocked["reason"]
            .as_str()
            .unwrap()
            .starts_with("no progress")
    );
    let end = json_at(&p.fake.join("end.json"));
    assert_eq!(end["event"], "run-ended");
    assert_eq!(end["ending"], "no-ready");
    assert_eq!(end["hook"], "on_run_end");
    let name = std::fs::read_to_string(p.fake.join("name")).unwrap();
    assert_eq!(name.trim(), "on_blocked");
    let cwd = std::fs::read_to_string(p.fake.join("cwd")).unwrap();
    assert_eq!(
        std::fs::canonicalize(cwd.trim()).unwrap(),
        std::fs::canonicalize(p.root()).unwrap()
    );
}

#[test]
fn a_failing_and_a_hanging_hook_are_warnings_and_the_run_goes_on() {
    let p = Project::new(&prd("ralph/h", &[story("A", 1, &[]), story("B", 2, &[])]));
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    std::fs::write(
        p.root().join("ralph.toml"),
        "[hooks]\non_story_done = \"echo 'webhook refused' >&2; exit 3\"\non_run_end = \"sleep 30\"\ntimeout = \"1s\"\n",
    )
    .unwrap();
    p.commit("hooks");
    let t = std::time::Instant::now();
    let out = p.run().output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
    assert!(p.passes("A") && p.passes("B"));
    assert_eq!(
        err.matches("ralph: warning: hook on_story_done (`echo 'webhook refused' >&2; exit 3`) exited 3: webhook refused; the run goes on (check [hooks] on_story_done in ").count(),
        2,
        "{err}"
    );
    assert!(
        err.contains("ralph: warning: hook on_run_end (`sleep 30`) ran longer than 1.00s and was killed (its process group); the run goes on"),
        "{err}"
    );
}

#[test]
fn with_json_a_hook_failure_is_a_warning_event_and_stdout_stays_json() {
    let p = Project::new(&prd("ralph/h", &[story("A", 1, &[])]));
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    std::fs::write(
        p.root().join("ralph.toml"),
        "[hooks]\non_story_done = \"echo 'not json'; exit 2\"\n",
    )
    .unwrap();
    p.commit("hooks");
    let out = p.run().arg("--json").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let events = events(&out.stdout);
    let names: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    let done = names.iter().position(|n| *n == "story-done").unwrap();
    assert_eq!(names[done + 1], "warning", "{names:?}");
    assert!(
        events[done + 1]["text"]
            .as_str()
            .unwrap()
            .starts_with("hook on_story_done (`echo 'not json'; exit 2`) exited 2;"),
        "{:?}",
        events[done + 1]
    );
}
