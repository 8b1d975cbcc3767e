//! What each iteration cost: the presets' structured output replayed from documented
//! transcripts (tests/fixtures/telemetry), usage in history.jsonl, readable text on the
//! terminal and in the log, and `--max-cost` stopping the run before the next iteration.

use crate::support::{FLIP, Project, WORK, prd, story};
use predicates::prelude::*;

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/telemetry/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A claude that does its story and reports `usd` in its final result event.
fn paid_claude(usd: &str) -> String {
    format!(
        "{WORK}\n{FLIP}\necho '{{\"type\":\"assistant\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"did it\"}}]}}}}'\necho '{{\"type\":\"result\",\"subtype\":\"success\",\"num_turns\":2,\"total_cost_usd\":{usd},\"usage\":{{\"input_tokens\":100,\"output_tokens\":20,\"cache_read_input_tokens\":50}}}}'"
    )
}

fn stories(n: usize) -> String {
    let ids = ["A", "B", "C", "D", "E"];
    let s: Vec<String> = ids[..n]
        .iter()
        .enumerate()
        .map(|(i, id)| story(id, i as u32 + 1, &[]))
        .collect();
    prd("ralph/f", &s)
}

#[test]
fn each_preset_transcript_is_recorded_and_shown_as_text() {
    // What the real CLIs printed (tests/fixtures/telemetry/real), replayed by fake agents; the
    // tokens are what their model server sent (see agent::telemetry's tests), the raw events
    // are kept as printed.
    let cases = [
        (
            "claude",
            "real/claude-2.1.332",
            4422,
            66,
            1206,
            true,
            "→ Bash: echo alpha > a.txt",
        ),
        (
            "codex",
            "real/codex-0.171.0",
            4266,
            66,
            1206,
            false,
            "→ shell: /bin/bash -lc 'echo alpha > a.txt' (exit 0)",
        ),
        (
            "amp",
            "amp",
            52476,
            164,
            38966,
            false,
            "→ edit_file: /home/dev/shop/src/cart.rs",
        ),
        (
            "gemini",
            "real/gemini-0.61.0",
            5710,
            90,
            1610,
            false,
            "→ run_shell_command: echo alpha > a.txt",
        ),
        (
            "opencode",
            "real/opencode-1.18.33",
            4458,
            69,
            1209,
            true,
            "→ bash: echo alpha > a.txt",
        ),
    ];
    for (agent, file, input, output, cached, cost, tool_line) in cases {
        let p = Project::new(&stories(1));
        p.agent(agent, &format!("{WORK}\n{FLIP}\ncat '{}'", fixture(file)));
        let out = p.run().args(["--agent", agent]).assert().code(0);
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
        assert!(stdout.contains(tool_line), "{agent}: {stdout}");
        assert!(
            !stdout.contains("\"type\""),
            "{agent}: raw events shown: {stdout}"
        );
        let h = p.history();
        let u = &h[0]["usage"];
        assert_eq!(u["input_tokens"], input, "{agent}: {u}");
        assert_eq!(u["output_tokens"], output, "{agent}: {u}");
        assert_eq!(u["cached_tokens"], cached, "{agent}: {u}");
        assert_eq!(u["cost_usd"].is_number(), cost, "{agent}: {u}");
        assert!(u.get("partial").is_none(), "{agent}: {u}");
        assert!(u["session_id"].is_string(), "{agent}: {u}");
        let run_id = h[0]["run_id"].as_str().unwrap();
        let log =
            std::fs::read_to_string(p.root().join(format!(".ralph/runs/{run_id}/iter-1.log")))
                .unwrap();
        assert!(log.contains(tool_line), "{agent}: {log}");
        assert!(!log.contains("\"type\""), "{agent}: {log}");
        let events = format!(".ralph/runs/{run_id}/iter-1.events.jsonl");
        assert_eq!(h[0]["events"], events.as_str(), "{agent}");
        let raw = std::fs::read_to_string(p.root().join(&events)).unwrap();
        let printed = std::fs::read_to_string(fixture(file)).unwrap();
        assert_eq!(
            raw.trim_end(),
            printed.trim_end(),
            "{agent}: kept as printed"
        );
        let show = p.ralph().args(["show", "A"]).output().unwrap();
        let show = String::from_utf8_lossy(&show.stdout);
        assert!(
            show.contains(&format!(
                "    log: .ralph/runs/{run_id}/iter-1.log; raw events: {events}\n"
            )),
            "{agent}: {show}"
        );
    }
}

#[test]
fn the_completion_signal_inside_an_event_still_counts() {
    // The story is only signalled (no passes flip): behind a gate, the signal is the claim.
    let p = Project::new(&stories(1));
    let body = r#"printf '%s\n' '{"type":"assistant","message":{"content":[{"type":"text","text":"Done.\nSTORY COMPLETE: A"}]}}'"#;
    p.agent("claude", &format!("{WORK}\n{body}"));
    p.run().args(["--verify", "true"]).assert().code(0);
    assert_eq!(p.history()[0]["signal_seen"], true);
    assert!(p.passes("A"));
}

#[test]
fn a_custom_agent_keeps_its_plain_text_and_records_no_usage() {
    let p = Project::new(&stories(1));
    let line = r#"{"type":"result","total_cost_usd":9}"#;
    p.agent(
        "my-agent",
        &format!("{WORK}\n{FLIP}\necho '{line}'\necho plain words"),
    );
    p.run()
        .args(["--agent-cmd", "my-agent"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(line))
        .stdout(predicate::str::contains("plain words"));
    assert!(p.history()[0].get("usage").is_none());
}

#[test]
fn max_cost_stops_before_the_iteration_after_the_cap_is_reached() {
    let p = Project::new(&stories(4));
    p.agent("claude", &paid_claude("0.10"));
    p.run()
        .args(["--max-cost", "0.25"])
        .assert()
        .code(5)
        .stderr(predicate::str::contains(
            "reached the cost limit: spent $0.30 of $0.25 (--max-cost) in 3 iteration(s); 1 story remain",
        ))
        .stderr(predicate::str::contains("  D Title D"))
        .stderr(predicate::str::contains("ralph [3/10] C Title C · "))
        .stderr(predicate::str::contains(" · done · $0.10"));
    assert_eq!(p.calls(), 3);
    assert_eq!(p.history().len(), 3);
    assert!(p.passes("C") && !p.passes("D"));
}

#[test]
fn max_cost_from_the_environment_and_ralph_toml_and_in_json() {
    let p = Project::new(&stories(4));
    p.agent("claude", &paid_claude("0.10"));
    std::fs::write(p.root().join("ralph.toml"), "[run]\nmax_cost = 0.35\n").unwrap();
    p.commit("ralph.toml");
    let out = p
        .run()
        .arg("--json")
        .env("RALPH_MAX_COST", "$0.15")
        .assert()
        .code(5);
    assert_eq!(p.calls(), 2, "the environment beats ralph.toml");
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let end: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(end["event"], "run-ended");
    assert_eq!(end["ending"], "cost-limit");
    assert!(
        (end["cost_usd"].as_f64().unwrap() - 0.2).abs() < 1e-9,
        "{end}"
    );
    assert_eq!(end["max_cost"], 0.15);
    let p2 = Project::new(&stories(5));
    p2.agent("claude", &paid_claude("0.10"));
    std::fs::write(p2.root().join("ralph.toml"), "[run]\nmax_cost = 0.35\n").unwrap();
    p2.commit("ralph.toml");
    p2.ralph()
        .args(["run", "--dry-run"])
        .assert()
        .stdout(predicate::str::contains("stop at $0.35 reported cost"));
    p2.run().assert().code(5);
    assert_eq!(p2.calls(), 4, "0.40 >= 0.35 only after the fourth");
}

#[test]
fn max_cost_with_an_agent_that_reports_no_cost_is_warned_about_once() {
    let p = Project::new(&stories(2));
    p.agent("claude", &format!("{WORK}\n{FLIP}\necho plain"));
    let out = p.run().args(["--max-cost", "1"]).assert().code(0);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(
        stderr.matches("--max-cost cannot be enforced").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_bad_max_cost_is_refused_with_the_place() {
    let p = Project::new(&stories(1));
    p.run()
        .args(["--max-cost", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("US dollars above 0"));
    p.run()
        .env("RALPH_MAX_COST", "lots")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("RALPH_MAX_COST"));
}

#[test]
fn text_left_unfinished_at_the_end_of_a_stream_is_shown_and_still_signals() {
    // Gemini's text comes in pieces; one that never got its newline (no result event
    // followed) is flushed when the agent's output ends.
    let p = Project::new(&stories(1));
    let body = r#"printf '%s\n' '{"type":"message","role":"assistant","content":"STORY COMPLETE: A","delta":true}'"#;
    p.agent("gemini", &format!("{WORK}\n{body}"));
    p.run()
        .args(["--agent", "gemini", "--verify", "true"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("STORY COMPLETE: A"));
    let h = p.history();
    assert_eq!(h[0]["signal_seen"], true);
    // Its session started but never said what it used: partial, not nothing.
    assert_eq!(h[0]["usage"]["partial"], true, "{}", h[0]);
    assert_eq!(h[0]["usage"]["input_tokens"], 0, "{}", h[0]);
}
