//! `ralph doctor` and the same checks as `ralph run`'s preflight: the agent CLI (found, its
//! version against the preset's verified range, its answer to the preset's flags), root with
//! Claude Code, git, the verify commands, prd.json.

use crate::support::{FLIP, Project, WORK, output, prd, story};

fn project() -> Project {
    let p = Project::new(&prd("ralph/d", &[story("A", 1, &[]), story("B", 2, &[])]));
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p.fake_version("2.1.332 (Claude Code)\n");
    p
}

/// Whether this test process runs as root (the root check depends on it).
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn line<'a>(stdout: &'a str, start: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start:?} in:\n{stdout}"))
}

#[test]
fn a_healthy_project_passes_every_check() {
    let p = project();
    let (code, stdout, stderr) = output(
        p.ralph()
            .args(["doctor", "--agent-cmd", "claude"])
            .env("ANTHROPIC_API_KEY", "sk-test"),
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(line(&stdout, "ok      agent: custom: ").ends_with("/bin/claude"));
    assert!(
        !stdout.contains("version:"),
        "a custom command's version is not asked: {stdout}"
    );
    let (code, stdout, _) = output(
        p.ralph()
            .args(["doctor", "--json"])
            .env("ANTHROPIC_API_KEY", "sk-test")
            .env("IS_SANDBOX", "1"),
    );
    assert_eq!(code, 0, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["command"], "doctor");
    assert_eq!(v["data"]["ok"], true);
    assert_eq!(v["data"]["version"], "2.1.332");
    assert_eq!(v["errors"], serde_json::json!([]));
    let checks: Vec<&str> = v["data"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        [
            "agent",
            "version",
            "argv",
            "credentials",
            "root",
            "git",
            "branch",
            "verify",
            "prd",
            "state",
            "disk"
        ]
    );
    let status = |name: &str| {
        v["data"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(status("version"), "ok");
    assert_eq!(status("credentials"), "ok");
    assert_eq!(status("verify"), "warning", "no verify command configured");
    // The probes answered --version and --help; the agent itself never ran.
    assert_eq!(p.calls(), 0);
}

#[test]
fn the_branch_check_says_what_the_run_would_do_and_when_it_would_refuse() {
    let p = project();
    let args = ["doctor", "--agent-cmd", "claude"];
    let (_, stdout, _) = output(p.ralph().args(args));
    assert!(
        stdout.contains("ok      branch: branch: would create ralph/d from HEAD"),
        "{stdout}"
    );
    std::fs::write(p.root().join("notes.txt"), "mine").unwrap();
    let (code, stdout, _) = output(p.ralph().args(args));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("problem branch: branch: would create ralph/d from HEAD"),
        "{stdout}"
    );
    assert!(stdout.contains("notes.txt"), "{stdout}");
    let (code, _, _) = output(
        p.ralph()
            .args(["doctor", "--agent-cmd", "claude"])
            .env("RALPH_ALLOW_DIRTY", "1"),
    );
    assert_eq!(code, 0);
}

#[test]
fn a_missing_agent_says_which_package_to_install() {
    let p = Project::new(&prd("ralph/d", &[story("A", 1, &[])]));
    let (code, stdout, stderr) = output(p.ralph().args(["doctor", "--agent", "codex"]));
    assert_eq!(code, 1);
    assert!(stdout.contains(
        "problem agent: codex not found on PATH\n        fix: install it (`npm install -g @openai/codex`), or choose another --agent\n"
    ), "{stdout}");
    assert!(stderr.contains("ralph doctor: 1 problem(s)"), "{stderr}");
}

#[test]
fn root_with_claude_is_a_problem_and_a_run_stops_before_its_first_agent() {
    let p = project();
    let (code, stdout, _) = output(p.ralph().args(["doctor"]).env_remove("IS_SANDBOX"));
    let run = p.run().env_remove("IS_SANDBOX").output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    if is_root() {
        assert_eq!(code, 1);
        assert!(stdout.contains("problem root: running as root, and IS_SANDBOX is not set: claude would refuse to start\n"), "{stdout}");
        assert!(
            stdout.contains("set IS_SANDBOX=1 in ralph's environment"),
            "{stdout}"
        );
        assert_eq!(run.status.code(), Some(6), "{stderr}");
        assert!(
            stderr.contains("error: the agent cannot start: preflight: root: running as root"),
            "{stderr}"
        );
        assert_eq!(p.calls(), 0, "no agent ran");
        assert!(!p.root().join(".ralph/history.jsonl").exists());
        // Told it is a sandbox, the same run goes ahead.
        let ok = p.run().env("IS_SANDBOX", "1").output().unwrap();
        assert_eq!(
            ok.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
    } else {
        assert!(
            stdout.contains("ok      root: not running as root\n"),
            "{stdout}"
        );
        assert_eq!(run.status.code(), Some(0), "{stderr}");
    }
}

#[test]
fn a_verify_command_whose_program_is_missing_stops_the_run_with_exit_1() {
    let p = project();
    let (code, stdout, _) = output(
        p.ralph()
            .args(["doctor"])
            .env("IS_SANDBOX", "1")
            .env("RALPH_VERIFY", "no-such-checker --all"),
    );
    assert_eq!(code, 1);
    assert!(stdout.contains(
        "problem verify: verify command `no-such-checker --all`: no-such-checker not found on PATH\n"
    ), "{stdout}");
    let (code, _, stderr) = output(
        p.run()
            .args(["--verify", "no-such-checker --all"])
            .env("IS_SANDBOX", "1"),
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("preflight: verify: verify command `no-such-checker --all`: no-such-checker not found on PATH. Fix: install it"), "{stderr}");
    assert_eq!(p.calls(), 0);
    // --no-preflight skips the checks: the agent runs, and the gate fails instead.
    let (code, _, _) = output(
        p.run()
            .args(["1", "--verify", "no-such-checker --all", "--no-preflight"])
            .env("IS_SANDBOX", "1"),
    );
    assert_eq!(code, 3);
    assert_eq!(p.calls(), 1);
    assert_eq!(p.history()[0]["outcome"], "verify-failed");
}

#[test]
fn the_version_picks_the_flags_warns_once_outside_the_range_and_is_recorded() {
    let p = Project::new(&prd("ralph/d", &[story("A", 1, &[])]));
    p.agent("codex", &format!("{WORK}\n{FLIP}"));
    p.fake_version("codex-cli 0.127.0\n");
    let (code, _, stderr) = output(
        p.run()
            .args(["--agent", "codex"])
            .env("OPENAI_API_KEY", "k"),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(p.argv(1), ["exec", "--json", "--full-auto", "-"]);
    let warning = "ralph: warning: version: codex 0.127.0 is older than the oldest version ralph's preset was verified with";
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
    let h = p.history();
    assert_eq!(h[0]["agent_version"], "0.127.0");
    let run_id = h[0]["run_id"].as_str().unwrap();
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(p.root().join(format!(".ralph/runs/{run_id}/manifest.json")))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(m["agent_version"], "0.127.0");
}

#[test]
fn flags_the_installed_cli_rejects_stop_the_run_with_exit_6() {
    let p = Project::new(&prd("ralph/d", &[story("A", 1, &[])]));
    // A codex that rejects `--sandbox` even when asked for --help, like clap does.
    p.script(
        "codex",
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'codex-cli 0.171.0'; exit 0; }\nfor a in \"$@\"; do [ \"$a\" = --sandbox ] && { echo \"error: unexpected argument '--sandbox' found\" >&2; exit 2; }; done\nexit 0\n",
    );
    let (code, _, stderr) = output(p.run().args(["--agent", "codex"]));
    assert_eq!(code, 6, "{stderr}");
    assert!(stderr.contains("preflight: argv: codex rejects ralph's flags: error: unexpected argument '--sandbox' found. Fix: the installed codex does not accept the flags of ralph's preset"), "{stderr}");
    let (code, stdout, _) = output(p.run().args(["--agent", "codex", "--dry-run"]));
    assert_eq!(code, 0);
    assert!(stdout.contains("preflight: 1 problem(s),"), "{stdout}");
    assert!(
        stdout.contains("  problem argv: codex rejects ralph's flags"),
        "{stdout}"
    );
}
