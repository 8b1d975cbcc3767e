//! `--json` on every reading or reporting command: one envelope on stdout (schema_version,
//! command, data, errors, warnings), on success and on error, with the exit code the command has
//! without `--json`. Every output is validated against schemas/envelope.schema.json and
//! snapshotted (snapshots/integration__json_envelope__*.snap; temp paths never appear: the commands
//! run in the project with the default `--root .`).

use crate::support::prd_json::{prd, story, write_prd};
use crate::support::{hold_lock, ralph_in};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::OnceLock;

/// The schema every envelope is checked against (also by `run_steer`).
pub(crate) fn schema() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/envelope.schema.json");
        let text = std::fs::read_to_string(path).unwrap();
        jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
    })
}

/// Run `ralph args` in `dir`: the exit code, the one envelope on stdout (checked against the
/// schema) and stderr.
fn envelope(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let o = ralph_in(dir).args(args).output().unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(
        out.lines().count(),
        1,
        "ralph {args:?}: one line\n{out}\n{err}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let problems: Vec<String> = schema()
        .iter_errors(&v)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(problems.is_empty(), "ralph {args:?}: {problems:#?}\n{v:#}");
    (o.status.code().unwrap_or(-1), v, err)
}

/// The exit code without `--json`.
fn plain_code(dir: &Path, args: &[&str]) -> i32 {
    let args: Vec<&str> = args.iter().copied().filter(|a| *a != "--json").collect();
    let o = ralph_in(dir).args(&args).output().unwrap();
    o.status.code().unwrap_or(-1)
}

/// An error case: the envelope names the command, carries errors, stderr stays empty, and the
/// exit code is the one without `--json`.
fn failing(dir: &Path, args: &[&str], code: i32) -> Value {
    let (got, v, err) = envelope(dir, args);
    assert_eq!(got, code, "ralph {args:?}: {v:#}");
    assert_eq!(plain_code(dir, args), code, "ralph {args:?} without --json");
    assert!(err.is_empty(), "ralph {args:?}: stderr: {err}");
    assert!(!v["errors"].as_array().unwrap().is_empty(), "{v:#}");
    v
}

fn sample() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut v = prd(vec![
        story("US-001", 1, &[]),
        story("US-002", 2, &["US-001"]),
        story("US-003", 3, &["US-002"]),
    ]);
    v["userStories"][0]["passes"] = json!(true);
    write_prd(dir.path(), &v);
    dir
}

const PIN: &str = "# Pin\n\n\
### Progress log\n**Keywords**: progress, log, compaction, learnings\n\n**File Paths**:\n- src/progress.rs\n\n**Spec Link**: N/A\n\n---\n\n\
### Story view\n**Keywords**: story, status, view, render\n\n**File Paths**:\n- src/view.rs\n- src/gone.rs\n\n**Spec Link**: N/A\n\n---\n";

/// A project with a Pin (one entry names a missing file) and two source files.
fn with_pin() -> tempfile::TempDir {
    let dir = sample();
    let root = dir.path();
    std::fs::create_dir_all(root.join("specs")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("specs/INDEX.md"), PIN).unwrap();
    std::fs::write(root.join("src/progress.rs"), "pub fn compact_log() {}\n").unwrap();
    std::fs::write(
        root.join("src/view.rs"),
        "/// Render a story.\npub fn render_story_status() {}\n",
    )
    .unwrap();
    dir
}

fn snap(name: &str, v: &Value) {
    insta::assert_snapshot!(name, serde_json::to_string_pretty(v).unwrap());
}

#[test]
fn validate_reports_every_diagnostic_with_its_place() {
    let dir = sample();
    let (code, v, _) = envelope(dir.path(), &["validate", "--json"]);
    assert_eq!(code, 0);
    snap("validate_ok", &v);

    std::fs::write(dir.path().join("prd.json"), "{\n  \"project\": \"x\",\n}\n").unwrap();
    let v = failing(dir.path(), &["validate", "--json"], 1);
    assert_eq!(v["errors"][0]["code"], "parse");
    assert_eq!(v["errors"][0]["line"], 3);
    snap("validate_parse_error", &v);

    let mut p = prd(vec![story("A", 1, &["B"]), story("A", 2, &[])]);
    p["userStories"][1]["colour"] = json!("red");
    write_prd(dir.path(), &p);
    let v = failing(dir.path(), &["validate", "--json"], 1);
    snap("validate_errors_and_warnings", &v);
    // --strict: the warnings fail the run, and are reported as errors.
    let (_, strict, _) = envelope(dir.path(), &["validate", "--json", "--strict"]);
    assert_eq!(strict["warnings"], json!([]));
    assert!(
        strict["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["code"] == "unknown-field")
    );
}

#[test]
fn status_totals_what_history_says_the_agents_used() {
    let dir = sample();
    std::fs::create_dir_all(dir.path().join(".ralph")).unwrap();
    let rec = |i: u32, usage: Value| {
        let mut r = json!({"run_id": "r", "iteration": i, "story": "US-001", "agent": "claude",
            "start": "2026-11-22T10:00:00Z", "duration_ms": 5, "exit_code": 0, "timed_out": false,
            "signal_seen": false, "outcome": "done", "head_before": null, "head_after": null});
        if !usage.is_null() {
            r["usage"] = usage;
        }
        r.to_string()
    };
    let lines = [
        rec(
            1,
            json!({"input_tokens": 50018, "output_tokens": 267, "cached_tokens": 44150,
            "cost_usd": 0.0731, "model": "claude-sonnet-4-5-20250929", "turns": 5}),
        ),
        rec(2, Value::Null),
        rec(
            3,
            json!({"input_tokens": 1000, "output_tokens": 33, "cached_tokens": 0,
            "cost_usd": 0.02}),
        ),
    ];
    std::fs::write(
        dir.path().join(".ralph/history.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let (code, v, _) = envelope(dir.path(), &["status", "--json"]);
    assert_eq!(code, 0);
    snap("status_usage", &v["data"]["usage"]);
    let out = ralph_in(dir.path()).arg("status").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "usage (history): 51,018 in (44,150 cached) / 300 out · cost: $0.09 (2 iteration(s) reporting)"
        ),
        "{text}"
    );
}

#[test]
fn status_shows_the_reason_an_agent_reported_a_story_blocked() {
    let dir = sample();
    std::fs::create_dir_all(dir.path().join(".ralph")).unwrap();
    let rec = |i: u32, story: &str, outcome: &str| {
        json!({"run_id": "r", "iteration": i, "story": story, "agent": "claude",
            "start": "2026-11-22T10:00:00Z", "duration_ms": 5, "exit_code": 0, "timed_out": false,
            "signal_seen": false, "outcome": outcome, "head_before": null, "head_after": null,
            "reason": "needs an API key: set FOO"})
        .to_string()
    };
    // US-001 passes by now; US-002's blocked record is followed by a later attempt (only the
    // latest counts); US-003 is still blocked.
    let lines = [
        rec(1, "US-001", "blocked"),
        rec(2, "US-002", "blocked"),
        rec(3, "US-002", "failed"),
        rec(4, "US-003", "blocked"),
    ];
    std::fs::write(
        dir.path().join(".ralph/history.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let (code, v, _) = envelope(dir.path(), &["status", "--json"]);
    assert_eq!(code, 0);
    let stories = v["data"]["stories"].as_array().unwrap();
    assert_eq!(stories[2]["agentBlocked"], "needs an API key: set FOO");
    assert!(
        stories
            .iter()
            .take(2)
            .all(|s| s.get("agentBlocked").is_none()),
        "{v:#}"
    );
    let out = ralph_in(dir.path()).arg("status").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("US-003")
            && text.contains("(the agent reported it blocked: needs an API key: set FOO)"),
        "{text}"
    );
}

#[test]
fn status_next_graph_on_success_and_on_a_missing_or_invalid_prd() {
    let dir = sample();
    for (name, args) in [
        ("status", &["status", "--json"][..]),
        ("next", &["next", "--json", "--explain"]),
        ("graph", &["graph", "--json"]),
    ] {
        let (code, v, _) = envelope(dir.path(), args);
        assert_eq!(code, 0, "{v:#}");
        assert_eq!(v["errors"], json!([]));
        snap(&format!("{name}_ok"), &v);
    }
    let (_, v, _) = envelope(dir.path(), &["graph", "--json"]);
    assert_eq!(
        v["data"]["edges"][0],
        json!({"from": "US-001", "to": "US-002"})
    );

    let empty = tempfile::tempdir().unwrap();
    for cmd in ["status", "next", "graph"] {
        let v = failing(empty.path(), &[cmd, "--json"], 1);
        assert_eq!(v["command"], cmd);
        assert_eq!(v["data"], Value::Null);
        assert_eq!(v["errors"][0]["code"], "io");
        assert_eq!(v["errors"][0]["file"], "./prd.json");
    }
    snap(
        "status_missing_prd",
        &failing(empty.path(), &["status", "--json"], 1),
    );

    let bad = tempfile::tempdir().unwrap();
    write_prd(
        bad.path(),
        &prd(vec![story("A", 1, &["B"]), story("B", 1, &["A"])]),
    );
    let v = failing(bad.path(), &["next", "--json"], 1);
    assert!(
        v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["code"] == "cycle")
    );
    snap("next_invalid_prd", &v);
}

#[test]
fn context_on_success_an_unknown_story_and_a_bad_ralph_toml() {
    let dir = with_pin();
    let (code, mut v, err) = envelope(dir.path(), &["context", "US-003", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(v["warnings"][0]["code"], "story-blocked");
    assert!(err.contains("note: US-003 is blocked by US-002"), "{err}");
    assert!(v["data"]["prompt"].as_str().unwrap().contains("US-003"));
    v["data"]["prompt"] = json!("[prompt]");
    snap("context_ok", &v);

    let v = failing(dir.path(), &["context", "US-9", "--json"], 1);
    assert_eq!(v["errors"][0]["code"], "unknown-story");
    assert_eq!(v["errors"][0]["story"], "US-9");
    snap("context_unknown_story", &v);

    std::fs::write(dir.path().join("ralph.toml"), "[context]\nbudget = = 3\n").unwrap();
    let v = failing(dir.path(), &["context", "US-002", "--json"], 1);
    assert_eq!(v["errors"][0]["code"], "config-syntax");
    assert_eq!(v["errors"][0]["line"], 2);
    snap("context_bad_config", &v);
}

/// A real progress.txt of 169 lines (compacts to 91 with --keep-recent 40).
const PROGRESS: &str = include_str!("../fixtures/compat/newralph/progress.txt");

#[test]
fn compact_on_nothing_a_dry_run_a_missing_file_and_a_usage_error() {
    let dir = sample();
    let v = failing(dir.path(), &["compact", "--json"], 1);
    assert_eq!(v["errors"][0]["code"], "missing");
    assert_eq!(v["errors"][0]["file"], "./progress.txt");
    snap("compact_missing", &v);

    std::fs::write(dir.path().join("progress.txt"), PROGRESS).unwrap();
    let (code, v, _) = envelope(dir.path(), &["compact", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["status"], "nothing");
    snap("compact_nothing", &v);

    let args = [
        "compact",
        "--json",
        "--dry-run",
        "--force",
        "--keep-recent",
        "40",
    ];
    let (code, mut v, _) = envelope(dir.path(), &args);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["status"], "dry-run");
    assert!(
        v["data"]["diff"]
            .as_str()
            .unwrap()
            .contains("+## Compacted History")
    );
    v["data"]["diff"] = json!("[diff]");
    snap("compact_dry_run", &v);

    let v = failing(
        dir.path(),
        &["compact", "--json", "--summarizer-cmd", "cat"],
        2,
    );
    assert_eq!(v["errors"][0]["code"], "usage");
    snap("compact_usage", &v);
}

#[test]
fn pin_search_and_check_on_success_and_on_errors() {
    let dir = with_pin();
    let (code, v, _) = envelope(dir.path(), &["pin", "search", "--json", "story", "status"]);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["hits"][0]["name"], "Story view");
    snap("pin_search_entries", &v);
    let (code, v, _) = envelope(
        dir.path(),
        &["pin", "search", "--files", "--json", "render", "story"],
    );
    assert_eq!(code, 0);
    assert_eq!(v["data"]["kind"], "files");
    assert_eq!(v["data"]["hits"][0]["path"], "src/view.rs");

    // src/gone.rs is missing: an error at its line, naming the entry.
    let v = failing(dir.path(), &["pin", "check", "--json"], 1);
    assert_eq!(v["data"]["valid"], false);
    let e = &v["errors"][0];
    assert_eq!(
        (&e["code"], &e["entry"]),
        (&json!("bad-path"), &json!("Story view"))
    );
    snap("pin_check_errors", &v);
    std::fs::write(dir.path().join("src/gone.rs"), "").unwrap();
    let (code, v, _) = envelope(dir.path(), &["pin", "check", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(v["errors"], json!([]));
    snap("pin_check_ok", &v);

    std::fs::write(dir.path().join("specs/INDEX.md"), b"# Pin\n\n\xff\n").unwrap();
    let v = failing(dir.path(), &["pin", "search", "--json", "story"], 1);
    assert_eq!(v["errors"][0]["code"], "not-utf8");
    assert_eq!(v["errors"][0]["line"], 3);
    snap("pin_search_not_utf8", &v);

    let empty = tempfile::tempdir().unwrap();
    let v = failing(empty.path(), &["pin", "check", "--json"], 1);
    assert_eq!(v["errors"][0]["code"], "no-pin");
    snap("pin_check_no_pin", &v);
}

#[test]
fn report_on_a_history_an_unknown_run_and_no_history() {
    let dir = tempfile::tempdir().unwrap();
    let (code, v, _) = envelope(dir.path(), &["report", "--json"]);
    assert_eq!(
        (code, plain_code(dir.path(), &["report", "--json"])),
        (1, 1)
    );
    assert_eq!(v["errors"][0]["code"], "no-history");
    std::fs::create_dir_all(dir.path().join(".ralph")).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history/history.jsonl");
    std::fs::copy(fixture, dir.path().join(".ralph/history.jsonl")).unwrap();
    let (code, v, _) = envelope(dir.path(), &["report", "--json"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["warnings"][0]["code"], "history-skipped");
    snap("report", &v);
    let v = failing(
        dir.path(),
        &["report", "--json", "--run", "20261126T100000-5152"],
        1,
    );
    assert_eq!(v["errors"][0]["code"], "unknown-run");
    assert_eq!(v["errors"][0]["file"], "./.ralph/history.jsonl");
    snap("report_unknown_run", &v);
    let (code, v, _) = envelope(dir.path(), &["report", "--json", "--format", "md"]);
    assert_eq!((code, v["command"].as_str()), (2, Some("report")));
    assert_eq!(v["errors"][0]["code"], "usage");
}

#[test]
fn a_usage_error_with_json_is_an_envelope_too() {
    let dir = sample();
    let v = failing(dir.path(), &["status", "--json", "--bogus"], 2);
    assert_eq!(v["command"], "status");
    assert_eq!(v["errors"][0]["code"], "usage");
    snap("usage_error", &v);
    let v = failing(
        dir.path(),
        &["pin", "search", "--json", "--limit", "x", "a"],
        2,
    );
    assert_eq!(v["command"], "pin search");
    // Help is still help.
    ralph_in(dir.path())
        .args(["status", "--json", "--help"])
        .assert()
        .success()
        .stdout(predicates::str::contains("Usage:"));
}

#[test]
fn a_closed_stdout_ends_a_json_command_quietly() {
    let dir = with_pin();
    std::fs::write(dir.path().join("progress.txt"), PROGRESS).unwrap();
    for args in [
        &["status", "--json"][..],
        &["graph", "--json"],
        &["pin", "check", "--json"],
        &["pin", "search", "--json", "story"],
        &["compact", "--json", "--dry-run", "--force"],
        &["context", "US-002", "--json"],
        &["report", "--json"],
        &["patterns", "--json"],
        &["status", "--json", "--bogus"],
    ] {
        let out = crate::support::command()
            .args(args)
            .current_dir(dir.path())
            .stdout(crate::support::closed_pipe())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "ralph {args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "ralph {args:?}");
    }
}

#[test]
fn show_before_and_after_a_story_runs_and_an_unknown_id() {
    let dir = sample();
    let (code, v, _) = envelope(dir.path(), &["show", "US-002", "--json"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["data"]["ran"], false);
    assert_eq!(v["data"]["blocked_by"], json!([]));
    std::fs::create_dir_all(dir.path().join(".ralph")).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history/history.jsonl");
    std::fs::copy(fixture, dir.path().join(".ralph/history.jsonl")).unwrap();
    std::fs::write(
        dir.path().join("progress.txt"),
        "# Ralph Progress Log\n---\n\n## 2026-11-26 - US-001\n- added the thing\n---\n",
    )
    .unwrap();
    let (code, v, _) = envelope(dir.path(), &["show", "US-001", "--json"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["warnings"][0]["code"], "history-skipped");
    snap("show", &v);
    let v = failing(dir.path(), &["show", "US-01", "--json"], 1);
    assert_eq!(v["errors"][0]["code"], "unknown-story");
}

#[test]
fn patterns_list_forget_an_unknown_id_and_a_junk_line() {
    let dir = sample();
    let (code, v, _) = envelope(dir.path(), &["patterns", "--json"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["command"], "patterns");
    assert_eq!(v["data"]["patterns"], json!([]));
    std::fs::create_dir_all(dir.path().join(".ralph")).unwrap();
    let pattern = json!({
        "id": "3fa2c1b9e0", "command": "cargo test",
        "signature": ["error[EN]: mismatched types at lib.rs:N:N"],
        "fix": {"files": ["src/lib.rs"], "diff": "src/lib.rs +2 -1", "learning": "types first"},
        "story": "US-001", "first_seen": "2026-11-26T10:00:00Z",
        "last_seen": "2026-11-26T10:00:00Z", "seen": 1, "uses": 3,
        "last_used": "2026-11-26T11:00:00Z", "from_a_newer_ralph": {"x": 1}
    });
    std::fs::write(
        dir.path().join(".ralph/patterns.jsonl"),
        format!("{pattern}\nnot a pattern\n"),
    )
    .unwrap();
    let (code, v, _) = envelope(dir.path(), &["patterns", "--json"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["warnings"][0]["code"], "patterns-skipped");
    // A field ralph does not know stays in the file but not in the envelope (its schema).
    assert_eq!(v["data"]["patterns"][0]["id"], "3fa2c1b9e0");
    assert!(v["data"]["patterns"][0].get("from_a_newer_ralph").is_none());
    snap("patterns", &v);
    let v = failing(dir.path(), &["patterns", "forget", "zz", "--json"], 1);
    assert_eq!(v["command"], "patterns forget");
    assert_eq!(v["errors"][0]["code"], "unknown-pattern");
    {
        // A running loop holds the project lock: forget waits for it rather than race its
        // rewrite of the file.
        let _held = hold_lock(dir.path(), "4242");
        let v = failing(dir.path(), &["patterns", "forget", "3fa", "--json"], 1);
        assert_eq!(v["errors"][0]["code"], "locked");
        assert!(
            v["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("patterns forget take it")
        );
        let kept = std::fs::read_to_string(dir.path().join(".ralph/patterns.jsonl")).unwrap();
        assert!(kept.contains("3fa2c1b9e0"));
    }
    let (code, v, _) = envelope(dir.path(), &["patterns", "forget", "3fa", "--json"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["data"]["forgotten"]["id"], "3fa2c1b9e0");
    let left = std::fs::read_to_string(dir.path().join(".ralph/patterns.jsonl")).unwrap();
    assert_eq!(
        left, "not a pattern\n",
        "the line it could not read is kept"
    );
    let (_, v, _) = envelope(dir.path(), &["patterns", "--json"]);
    assert_eq!(v["data"]["patterns"], json!([]));
}

#[test]
fn clean_on_a_dry_run_a_clean_a_held_lock_and_a_usage_error() {
    let dir = sample();
    let root = dir.path();
    for (id, day) in [("20200101T100000-1", "01"), ("20200102T100000-2", "02")] {
        let run = root.join(".ralph/runs").join(id);
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("iter-1.log"), "log line\n").unwrap();
        let m = json!({
            "schema_version": 1, "run_id": id, "start": format!("2020-01-{day}T10:00:00Z"),
            "end": format!("2020-01-{day}T11:00:00Z"), "agent": "claude", "parallel": 1,
            "branch": null, "iterations": 10, "stories_attempted": [], "outcome": "all-done",
            "pid": 1
        });
        std::fs::write(run.join("manifest.json"), m.to_string()).unwrap();
    }
    let args = ["clean", "--json", "--dry-run", "--keep", "1"];
    let (code, v, _) = envelope(root, &args);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["dry_run"], true);
    assert_eq!(
        v["data"]["removed"][0]["path"],
        ".ralph/runs/20200101T100000-1"
    );
    assert_eq!(v["data"]["kept"]["runs"], 1);
    assert!(root.join(".ralph/runs/20200101T100000-1").exists());
    snap("clean_dry_run", &v);

    let (code, v, _) = envelope(root, &["clean", "--json", "--keep", "1"]);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["dry_run"], false);
    assert_eq!(v["data"]["freed"], v["data"]["removed"][0]["bytes"]);
    assert!(!root.join(".ralph/runs/20200101T100000-1").exists());
    snap("clean", &v);

    let held = hold_lock(root, "4242");
    let v = failing(root, &["clean", "--json", "--keep", "0"], 1);
    assert_eq!(v["errors"][0]["code"], "locked");
    assert!(root.join(".ralph/runs/20200102T100000-2").exists());
    snap("clean_locked", &v);
    drop(held);

    let v = failing(root, &["clean", "--json", "--older-than", "soon"], 2);
    assert_eq!(v["errors"][0]["code"], "usage");
    snap("clean_usage", &v);
}

#[test]
fn doctor_lists_every_check_with_problems_as_errors() {
    let dir = sample();
    let root = dir.path();
    // A custom agent that does not exist and a verify command whose program is missing: two
    // problems, each an error coded by its check.
    std::fs::write(
        root.join("ralph.toml"),
        "[agent]\ncmd = \"no-such-agent-xyz\"\n[verify]\ncommands = [\"no-such-checker-xyz --all\"]\n",
    )
    .unwrap();
    let (code, v, _) = envelope(root, &["doctor", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(plain_code(root, &["doctor", "--json"]), 1);
    assert_eq!(v["data"]["agent"], "custom");
    assert_eq!(v["data"]["ok"], false);
    let codes: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["doctor-agent", "doctor-verify"]);
    assert_eq!(
        v["errors"][1]["message"],
        "verify command `no-such-checker-xyz --all`: no-such-checker-xyz not found on PATH; fix: install it, or fix the command (--verify, [verify] commands in ralph.toml)"
    );
}
