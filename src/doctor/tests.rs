//! The checks judged on made-up facts.
use super::*;

fn healthy() -> Facts {
    Facts {
        agent: AgentFacts {
            path: Some("/usr/bin/claude".into()),
            version: Version::find("2.1.332 (Claude Code)"),
            argv_help: Some(Answer {
                exit_code: Some(0),
                stdout: "Usage: claude [options]\n  -p, --print\n  --output-format <format>\n  --verbose\n  --dangerously-skip-permissions\n".into(),
                ..Answer::default()
            }),
            credentials: Some("$ANTHROPIC_API_KEY is set".into()),
            looked_at: vec![],
            trust: None,
        },
        git_identity: Some(true),
        verify_count: 1,
        free_bytes: Some(50 * DISK_WARNING),
        ..Facts::default()
    }
}

fn claude() -> AgentSpec {
    AgentSpec::preset(AgentKind::Claude).unwrap()
}

fn status_of(findings: &[Finding], check: &str) -> Status {
    findings.iter().find(|f| f.check == check).unwrap().status
}

#[test]
fn a_healthy_setup_is_all_ok() {
    let f = judge(&claude(), &healthy());
    assert!(f.iter().all(|x| x.status == Status::Ok), "{f:#?}");
    let checks: Vec<&str> = f.iter().map(|x| x.check).collect();
    assert_eq!(
        checks,
        [
            "agent",
            "version",
            "argv",
            "credentials",
            "root",
            "git",
            "verify",
            "prd",
            "state",
            "disk"
        ]
    );
}

#[test]
fn root_with_claude_is_a_problem_that_blocks_the_agent_unless_sandboxed() {
    let mut facts = healthy();
    facts.root = true;
    let f = judge(&claude(), &facts);
    let root = f.iter().find(|x| x.check == "root").unwrap();
    assert_eq!(root.status, Status::Problem);
    assert!(root.blocks_agent);
    assert!(root.fix.as_deref().unwrap().contains("IS_SANDBOX=1"));
    facts.is_sandbox = true;
    assert_eq!(status_of(&judge(&claude(), &facts), "root"), Status::Ok);
    let codex = AgentSpec::preset(AgentKind::Codex).unwrap();
    let mut facts = healthy();
    facts.root = true;
    assert_eq!(status_of(&judge(&codex, &facts), "root"), Status::Ok);
}

#[test]
fn a_missing_agent_names_its_package_and_skips_the_cli_checks() {
    let mut facts = healthy();
    facts.agent = AgentFacts::default();
    let f = judge(&claude(), &facts);
    assert_eq!(f[0].status, Status::Problem);
    assert_eq!(f[0].message, "claude not found on PATH");
    assert_eq!(
        f[0].fix.as_deref(),
        Some("install it (`npm install -g @anthropic-ai/claude-code`), or choose another --agent")
    );
    assert!(!f.iter().any(|x| x.check == "version" || x.check == "argv"));
}

#[test]
fn rejected_or_unlisted_flags_are_an_argv_problem() {
    let mut facts = healthy();
    facts.agent.argv_help = Some(Answer {
        exit_code: Some(2),
        stderr: "error: unexpected argument '--full-auto' found\n\nUsage: codex exec\n".into(),
        ..Answer::default()
    });
    let f = judge(&claude(), &facts);
    let a = f.iter().find(|x| x.check == "argv").unwrap();
    assert_eq!(a.status, Status::Problem);
    assert_eq!(
        a.message,
        "claude rejects ralph's flags: error: unexpected argument '--full-auto' found"
    );
    facts.agent.argv_help = Some(Answer {
        exit_code: Some(0),
        stdout: "Options:\n  -p, --print\n  --verbose\n".into(),
        ..Answer::default()
    });
    let f = judge(&claude(), &facts);
    let a = f.iter().find(|x| x.check == "argv").unwrap();
    assert_eq!(
        a.message,
        "claude's help does not list --output-format, --dangerously-skip-permissions"
    );
    // A help that lists no option at all cannot be compared with.
    assert!(unlisted(&claude().argv, "usage: claude", &[]).is_empty());
    // `--verbose` is not listed by `--verbose-mode`.
    assert_eq!(
        unlisted(&["x".into(), "--verbose".into()], "--verbose-mode\n", &[]),
        ["--verbose"]
    );
}

#[test]
fn versions_outside_the_verified_range_warn_and_say_which_end() {
    let mut facts = healthy();
    facts.agent.version = Version::find("9.0.0");
    let f = judge(&claude(), &facts);
    let v = f.iter().find(|x| x.check == "version").unwrap();
    assert_eq!(v.status, Status::Warning);
    assert_eq!(
        v.message,
        "claude 9.0.0 is newer than the newest version ralph's preset was verified with (2.1.332)"
    );
    facts.agent.version = None;
    assert_eq!(
        status_of(&judge(&claude(), &facts), "version"),
        Status::Warning
    );
}

#[test]
fn gemini_in_a_folder_it_does_not_trust_cannot_start_from_0_61_on() {
    let gemini = AgentSpec::preset_at(AgentKind::Gemini, Version::find("0.61.0").as_ref()).unwrap();
    let mut facts = healthy();
    facts.agent.version = Version::find("0.61.0");
    facts.agent.trust = Some(trust::Trust::NotTrusted("no rule".into()));
    let f = judge(&gemini, &facts);
    let t = f.iter().find(|x| x.check == "trust").unwrap();
    assert_eq!(t.status, Status::Problem);
    assert!(t.blocks_agent);
    assert!(
        t.fix
            .as_deref()
            .unwrap()
            .contains("GEMINI_CLI_TRUST_WORKSPACE=true")
    );
    assert!(
        t.fix
            .as_deref()
            .unwrap()
            .contains("ralph never trusts a folder for you")
    );
    let older = AgentSpec::preset_at(AgentKind::Gemini, Version::find("0.40.0").as_ref()).unwrap();
    assert_eq!(status_of(&judge(&older, &facts), "trust"), Status::Warning);
    facts.agent.trust = Some(trust::Trust::Trusted(
        "GEMINI_CLI_TRUST_WORKSPACE=true".into(),
    ));
    assert_eq!(status_of(&judge(&gemini, &facts), "trust"), Status::Ok);
    assert!(
        !judge(&claude(), &healthy())
            .iter()
            .any(|x| x.check == "trust")
    );
}

#[test]
fn the_project_checks_say_what_to_do() {
    let mut facts = healthy();
    facts.git_identity = Some(false);
    facts.verify_missing = vec![("cargo nextest run".into(), "cargo".into())];
    facts.prd_error = Some("prd.json:3:5: expected `,`".into());
    facts.state_error = Some("/p/.ralph: cannot write".into());
    facts.free_bytes = Some(DISK_PROBLEM - 1);
    let f = judge(&claude(), &facts);
    for check in ["git", "verify", "prd", "state", "disk"] {
        let x = f.iter().find(|x| x.check == check).unwrap();
        assert_eq!(x.status, Status::Problem, "{check}");
        assert!(x.fix.is_some(), "{check}");
        assert!(!x.blocks_agent, "{check}");
    }
    assert!(has_problems(&f));
    let text: Vec<String> = lines(&f)
        .iter()
        .map(|l| anstream::adapter::strip_str(l).to_string())
        .collect();
    assert!(
        text.contains(
            &"problem verify: verify command `cargo nextest run`: cargo not found on PATH"
                .to_string()
        ),
        "{text:#?}"
    );
    facts = healthy();
    facts.verify_count = 0;
    facts.git_identity = None;
    let f = judge(&claude(), &facts);
    assert_eq!(status_of(&f, "verify"), Status::Warning);
    assert_eq!(status_of(&f, "git"), Status::Warning);
    assert!(!has_problems(&f));
}
