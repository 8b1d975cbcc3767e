//! The loop uses the context builder: the agent gets the same prompt `ralph context` prints,
//! secrets are redacted from prompts and iteration logs, and ralph.toml's [context] applies.

use crate::support::{FLIP, Project, WORK, prd, story};

const KEY: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx_yz-0123456789";

#[test]
fn agent_gets_the_prompt_ralph_context_prints() {
    let p = Project::new(&prd("ralph/f", &[story("A", 1, &[])]));
    std::fs::write(
        p.root().join("progress.txt"),
        "# Ralph Progress Log\n## Codebase Patterns\n- helpers live in lib/\n---\n",
    )
    .unwrap();
    let expected = p.ralph().args(["context", "A"]).output().unwrap();
    assert!(expected.status.success());
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.run().assert().code(0);
    assert_eq!(p.stdin(1), String::from_utf8(expected.stdout).unwrap());
    assert!(p.stdin(1).contains("- helpers live in lib/"));
    assert!(p.stdin(1).contains("DISCOVERY PROTOCOL"));
}

#[test]
fn secrets_never_reach_the_prompt_or_the_iteration_log() {
    let p = Project::new(&prd("ralph/f", &[story("A", 1, &[])]));
    std::fs::write(
        p.root().join("progress.txt"),
        format!("## Codebase Patterns\n- the API key is {KEY}\n---\n"),
    )
    .unwrap();
    p.agent("claude", &format!("echo \"leaking {KEY}\"\n{WORK}\n{FLIP}"));
    p.run().assert().code(0);
    assert!(!p.stdin(1).contains(KEY), "prompt holds the key");
    let run_id = p.history()[0]["run_id"].as_str().unwrap().to_string();
    let log =
        std::fs::read_to_string(p.root().join(format!(".ralph/runs/{run_id}/iter-1.log"))).unwrap();
    assert!(log.contains("leaking "), "{log}");
    assert!(!log.contains(KEY), "log holds the key: {log}");
}

#[test]
fn context_budget_from_ralph_toml_applies_to_the_loop() {
    let p = Project::new(&prd("ralph/f", &[story("A", 1, &[])]));
    std::fs::write(p.root().join("ralph.toml"), "[context]\nbudget = 50\n").unwrap();
    p.commit("ralph.toml");
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    let out = p.run().output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("over the budget of 50 tokens"), "{err}");
    assert_eq!(p.calls(), 0, "no agent runs with a prompt that cannot fit");
    std::fs::write(p.root().join("ralph.toml"), "[context]\nbudgett = 50\n").unwrap();
    let out = p.run().output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("budget"));
}
