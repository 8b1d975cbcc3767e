//! An agent CLI that cannot start (an argument it does not know, root refused, not logged in,
//! no session at all) stops the run at its first attempt with exit 6, the CLI's words and
//! what to do; no story is retried or skipped for it.

use crate::support::{FLIP, Project, WORK, events, output, prd, story};

fn two_stories() -> String {
    prd("ralph/f", &[story("A", 1, &[]), story("B", 2, &[])])
}

const ROOT_REFUSAL: &str =
    "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons";

#[test]
fn claude_refusing_root_stops_the_run_at_once_with_its_words_and_what_to_do() {
    let p = Project::new(&two_stories());
    p.agent("claude", &format!("echo '{ROOT_REFUSAL}' >&2; exit 1"));
    let (code, _, stderr) = output(p.run().args(["--agent", "claude", "--max-failures", "3"]));
    assert_eq!(code, 6, "{stderr}");
    assert_eq!(p.calls(), 1, "one attempt, not one per story");
    assert!(
        stderr.contains(&format!("ralph: claude could not start: {ROOT_REFUSAL}\n")),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "ralph: what to do: Claude Code refuses --dangerously-skip-permissions as root."
        ),
        "{stderr}"
    );
    assert!(stderr.contains("set IS_SANDBOX=1"), "{stderr}");
    assert!(stderr.contains("ralph never sets it for you"), "{stderr}");
    assert!(!stderr.contains("skipping"), "{stderr}");
    assert!(!stderr.contains("no ready story"), "{stderr}");
    assert!(
        stderr.contains("ralph: stopped: the agent could not start"),
        "{stderr}"
    );
    let h = p.history();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0]["outcome"], "start-failed");
    assert_eq!(h[0]["reason"], ROOT_REFUSAL);
    assert!(h[0].get("skipped").is_none());
    let manifest = std::fs::read_dir(p.root().join(".ralph/runs"))
        .unwrap()
        .map(|e| e.unwrap().path().join("manifest.json"))
        .next()
        .unwrap();
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
    assert_eq!(m["outcome"], "start-failed");
}

#[test]
fn a_flag_the_cli_does_not_know_names_the_verified_version_to_install() {
    let p = Project::new(&two_stories());
    p.agent(
        "codex",
        "echo \"error: unexpected argument '--sandbox' found\" >&2; echo >&2; echo 'Usage: codex exec [OPTIONS] [PROMPT]' >&2; exit 2",
    );
    let (code, _, stderr) = output(p.run().args(["--agent", "codex"]));
    assert_eq!(code, 6, "{stderr}");
    assert_eq!(p.calls(), 1);
    assert!(
        stderr.contains(
            "ralph: codex could not start: error: unexpected argument '--sandbox' found\n"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("npm install -g @openai/codex@"), "{stderr}");
    assert!(stderr.contains("--agent-cmd"), "{stderr}");
}

#[test]
fn a_structured_agent_that_exits_at_once_without_an_event_never_started() {
    let p = Project::new(&two_stories());
    p.agent(
        "gemini",
        "echo 'Error: config.yaml: bad indentation' >&2; exit 1",
    );
    let (code, _, stderr) = output(p.run().args(["--agent", "gemini"]));
    assert_eq!(code, 6, "{stderr}");
    assert_eq!(p.calls(), 1);
    assert!(
        stderr.contains("ralph: gemini could not start: exited 1 within 30s without starting a session: Error: config.yaml: bad indentation\n"),
        "{stderr}"
    );
    assert!(stderr.contains("run the command by hand"), "{stderr}");
}

#[test]
fn a_plain_agent_failing_fast_is_an_ordinary_attempt_and_work_is_never_a_start_failure() {
    // A custom command's failure says nothing about its start: the usual retries apply.
    let p = Project::new(&two_stories());
    p.agent("my-agent", "exit 1");
    let (code, _, stderr) =
        output(
            p.run()
                .args(["--agent-cmd", "my-agent", "--max-failures", "2"]),
        );
    assert_eq!(code, 4, "{stderr}");
    assert_eq!(p.calls(), 4);
    // A refusal-looking last line after real work is the agent's business, not a start failure.
    let p = Project::new(&two_stories());
    p.agent(
        "claude",
        &format!("{WORK}\n{FLIP}\necho 'Not logged in · Please run /login'; exit 1"),
    );
    let (code, _, stderr) = output(p.run().args(["--agent", "claude"]));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_missing_login_in_a_parallel_run_stops_it_without_holding_stories() {
    let p = Project::new(&prd(
        "ralph/f",
        &[story("A", 1, &[]), story("B", 2, &[]), story("C", 3, &[])],
    ));
    p.git(&["checkout", "-qb", "ralph/f"]);
    p.agent(
        "claude",
        r#"echo '{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login"}'; exit 1"#,
    );
    let (code, stdout, stderr) =
        output(
            p.run()
                .args(["--agent", "claude", "--parallel", "2", "--json"]),
        );
    assert_eq!(code, 6, "{stderr}");
    assert!(p.calls() <= 2, "only the first attempts ran: {}", p.calls());
    let ev = events(stdout.as_bytes());
    let not_started: Vec<_> = ev
        .iter()
        .filter(|e| e["event"] == "agent-not-started")
        .collect();
    assert_eq!(not_started.len(), 1, "{ev:?}");
    assert_eq!(
        not_started[0]["message"],
        "Not logged in · Please run /login"
    );
    assert!(
        not_started[0]["advice"]
            .as_str()
            .unwrap()
            .contains("ANTHROPIC_API_KEY")
    );
    assert!(!ev.iter().any(|e| e["event"] == "story-skipped"), "{ev:?}");
    assert_eq!(ev.last().unwrap()["event"], "run-ended");
    assert_eq!(ev.last().unwrap()["ending"], "start-failed");
}
