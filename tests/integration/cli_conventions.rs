//! The command line's conventions, end to end: `--help` with examples on every command,
//! completions and the man page, `--color` with NO_COLOR, `-q`, `-v`/`RALPH_LOG`,
//! `ralph instructions`, `[agent] instructions` and `--tool`.

use crate::support::{FLIP, Project, output, prd, ralph, story};

fn project() -> Project {
    Project::new(&prd(
        "ralph/c",
        &[story("A", 1, &[]), story("B", 2, &["A"])],
    ))
}

fn help(args: &[&str]) -> String {
    let (code, stdout, stderr) = output(ralph().args(args).arg("--help").env("NO_COLOR", "1"));
    assert_eq!(code, 0, "{stderr}");
    stdout
}

#[test]
fn help_snapshots() {
    insta::assert_snapshot!("help_top", help(&[]));
    insta::assert_snapshot!("help_run", help(&["run"]));
    insta::assert_snapshot!("help_validate", help(&["validate"]));
    insta::assert_snapshot!("help_pin_search", help(&["pin", "search"]));
    insta::assert_snapshot!("help_instructions", help(&["instructions"]));
}

/// Every command and subcommand, from clap's own tree.
fn all_paths(cmd: &clap::Command, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(path.clone());
    for sub in cmd.get_subcommands() {
        path.push(sub.get_name().to_string());
        all_paths(sub, path, out);
        path.pop();
    }
}

#[test]
fn every_command_shows_examples_in_its_help() {
    let mut paths = vec![];
    all_paths(&ralph::api::command(), &mut vec![], &mut paths);
    assert!(paths.len() > 15, "{paths:?}");
    let mut all = String::new();
    for p in &paths {
        let args: Vec<&str> = p.iter().map(String::as_str).collect();
        let text = help(&args);
        assert!(
            text.contains("Examples:\n  ralph"),
            "ralph {p:?} --help:\n{text}"
        );
        all.push_str(&format!("== ralph {} --help\n{text}", p.join(" ")));
    }
    // The whole help, every command's, is what people read: compared whole.
    insta::assert_snapshot!("help_every_command", all);
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let (code, stdout, stderr) = output(ralph().args(["completions", shell]));
        assert_eq!(code, 0, "{shell}: {stderr}");
        for word in ["ralph", "validate", "instructions", "tool", "color"] {
            assert!(stdout.contains(word), "{shell} completions lack {word}");
        }
    }
    let (code, _, stderr) = output(ralph().args(["completions", "tcsh"]));
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn man_page_is_roff() {
    let (code, stdout, stderr) = output(ralph().arg("man"));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(".ie") || stdout.contains(".TH ralph"),
        "{stdout}"
    );
    assert!(stdout.contains(".TH ralph 1"), "{stdout}");
    assert!(stdout.contains("completions"), "{stdout}");
}

const ESC: &str = "\x1b[";

/// A prd.json with an error (a dangling blockedBy) and a warning (an unknown field).
fn broken() -> Project {
    let p = project();
    let text = prd(
        "ralph/c",
        &[
            story("A", 1, &["Z"]),
            story("B", 2, &[]).replace("\"notes\"", "\"nots\""),
        ],
    );
    std::fs::write(p.root().join("prd.json"), text).unwrap();
    p
}

fn validate(p: &Project, flags: &[&str], env: &[(&str, &str)]) -> String {
    let mut c = p.ralph();
    for k in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied()).args(flags).arg("validate");
    let (code, _, stderr) = output(&mut c);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[unknown-ref]"), "{stderr}");
    stderr
}

#[test]
fn colour_follows_the_flag_no_color_and_the_terminal() {
    let p = broken();
    // Piped output: no colour unless asked.
    assert!(!validate(&p, &[], &[]).contains(ESC));
    assert!(!validate(&p, &["--color", "never"], &[("CLICOLOR_FORCE", "1")]).contains(ESC));
    assert!(!validate(&p, &[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).contains(ESC));
    let forced = validate(&p, &[], &[("CLICOLOR_FORCE", "1")]);
    assert!(forced.contains(ESC), "{forced}");
    let always = validate(&p, &["--color", "always"], &[("NO_COLOR", "1")]);
    assert!(always.contains(ESC), "{always}");
    assert!(always.contains("warning"), "{always}");

    let q = project();
    let (_, plain, _) = output(q.ralph().args(["status", "--color", "never"]));
    assert!(!plain.contains(ESC) && plain.contains("ready"), "{plain}");
    let (_, coloured, _) = output(q.ralph().args(["status", "--color", "always"]));
    assert!(coloured.contains(ESC), "{coloured}");
    assert_eq!(
        anstream::adapter::strip_str(&coloured).to_string(),
        plain,
        "colour adds escape codes and nothing else"
    );
}

#[test]
fn quiet_drops_chatter_and_keeps_results_and_errors() {
    let p = project();
    // A valid file with a warning: silent under -q.
    let text = prd(
        "ralph/c",
        &[story("A", 1, &[]).replace("\"notes\"", "\"nots\"")],
    );
    std::fs::write(p.root().join("prd.json"), text).unwrap();
    let (code, stdout, stderr) = output(p.ralph().arg("validate"));
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!("validate_warning", stdout);
    let (code, stdout, stderr) = output(p.ralph().args(["-q", "validate"]));
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
    // Errors still show.
    let b = broken();
    let (code, _, stderr) = output(b.ralph().args(["validate", "--quiet"]));
    assert_eq!(code, 1);
    assert!(stderr.contains("error[unknown-ref]"), "{stderr}");

    // The result stays, the notes go.
    let p = project();
    let (_, stdout, stderr) = output(p.ralph().args(["context", "B"]));
    assert!(stderr.contains("note: B is blocked"), "{stderr}");
    let (code, quiet_out, stderr) = output(p.ralph().args(["-q", "context", "B"]));
    assert_eq!(code, 0);
    assert_eq!(stderr, "");
    assert_eq!(quiet_out, stdout);

    // The loop: no banner, no progress lines; the agent's own output still streams.
    let p = project();
    p.agent("claude", &format!("echo agent-says-hi\n{}", FLIP));
    let (code, stdout, stderr) = output(p.run().args(["-q", "--verify", "true"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("agent-says-hi"), "{stdout}");
    assert_eq!(stderr, "", "-q run said: {stderr}");
    let (_, _, stderr) = output(project().run().args(["--dry-run"]));
    assert!(!stderr.contains("panicked"));
}

#[test]
fn verbose_and_ralph_log_print_debug_events() {
    let p = project();
    let (_, _, normal) = output(p.ralph().args(["context", "A"]));
    assert!(!normal.contains("DEBUG"), "{normal}");
    let (_, _, verbose) = output(p.ralph().args(["-v", "context", "A"]));
    assert!(
        verbose.contains("DEBUG") && verbose.contains("settings file"),
        "{verbose}"
    );
    let (_, _, logged) = output(p.ralph().env("RALPH_LOG", "debug").args(["context", "A"]));
    assert!(logged.contains("DEBUG"), "{logged}");
    let (_, _, quiet) = output(
        p.ralph()
            .env("RALPH_LOG", "debug")
            .args(["-q", "context", "A"]),
    );
    assert!(!quiet.contains("DEBUG"), "{quiet}");
    let (code, _, stderr) = output(p.ralph().args(["-q", "-v", "status"]));
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn instructions_prints_the_built_in_file() {
    let p = project();
    let (code, stdout, _) = output(p.ralph().arg("instructions"));
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        include_str!("../../src/context/instructions/claude.md")
    );
    let (_, stdout, _) = output(p.ralph().args(["instructions", "--agent", "codex"]));
    assert_eq!(
        stdout,
        include_str!("../../src/context/instructions/codex.md")
    );
    let (_, stdout, _) = output(p.ralph().args(["instructions", "--tool", "gemini"]));
    assert_eq!(
        stdout,
        include_str!("../../src/context/instructions/copilot.md")
    );
    let (code, _, stderr) = output(p.ralph().args(["instructions", "--agent", "cluade"]));
    assert_eq!(code, 1);
    insta::assert_snapshot!("instructions_unknown_agent", stderr);
}

#[test]
fn a_projects_instructions_file_opens_the_prompt() {
    let p = project();
    std::fs::write(
        p.root().join("ralph.toml"),
        "[agent]\ninstructions = \"prompt.md\"\n",
    )
    .unwrap();
    // Missing: a clear error naming the key and the path, before any agent runs.
    for args in [vec!["context", "A"], vec!["run", "--dry-run"]] {
        let (code, _, stderr) = output(p.ralph().args(&args));
        assert_eq!(code, 1, "{args:?}: {stderr}");
        insta::assert_snapshot!(format!("instructions_file_missing_{}", args[0]), stderr);
    }
    p.agent("claude", FLIP);
    let (code, _, _) = output(p.run().args(["--verify", "true"]));
    assert_eq!(code, 1);
    assert_eq!(p.calls(), 0, "no agent runs without its instructions");

    let own = "# Our own prompt\n\nWork on one story; run the tests.\n";
    std::fs::write(p.root().join("prompt.md"), own).unwrap();
    p.commit("our own prompt");
    let (code, stdout, stderr) = output(p.ralph().args(["context", "A"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with(own.trim_end()), "{stdout}");
    assert!(!stdout.contains("DISCOVERY PROTOCOL"), "{stdout}");
    // For every agent, and what the loop actually sends.
    let (_, codex, _) = output(p.ralph().args(["context", "A", "--agent", "codex"]));
    assert!(codex.starts_with(own.trim_end()), "{codex}");
    let (code, _, stderr) = output(p.run().args(["--verify", "true"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(p.stdin(1).starts_with(own.trim_end()), "{}", p.stdin(1));
    // `ralph instructions` still prints the built-in text, and says what the project uses.
    let (_, stdout, stderr) = output(p.ralph().arg("instructions"));
    assert_eq!(
        stdout,
        include_str!("../../src/context/instructions/claude.md")
    );
    assert!(stderr.contains("prompt.md"), "{stderr}");
}

#[test]
fn tool_is_agent() {
    let p = project();
    p.agent("amp", "true");
    let (code, by_agent, stderr) = output(p.ralph().args(["run", "--dry-run", "--agent", "amp"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(by_agent.contains("agent: amp"), "{by_agent}");
    let (_, by_tool, _) = output(p.ralph().args(["run", "--dry-run", "--tool", "amp"]));
    assert_eq!(by_tool, by_agent);
    let (_, ctx_agent, _) = output(p.ralph().args(["context", "A", "--agent", "codex"]));
    let (_, ctx_tool, _) = output(p.ralph().args(["context", "A", "--tool", "codex"]));
    assert_eq!(ctx_tool, ctx_agent);
    let (code, _, stderr) = output(p.ralph().args(["run", "--dry-run", "--tool", "nope"]));
    assert_eq!(code, 2, "{stderr}");
}
