//! Agent presets, custom commands, prompt modes, ralph.toml and environment precedence,
//! and archiving on a branch change.

use crate::support::{FLIP, Project, WORK, prd, story};
use predicates::prelude::*;

fn one_story() -> String {
    prd("ralph/f", &[story("A", 1, &[])])
}

fn ok_body() -> String {
    format!("{WORK}\n{FLIP}")
}

#[test]
fn each_preset_gets_its_headless_flags_and_the_prompt_where_it_expects_it() {
    let cases: &[(&str, &[&str], bool)] = &[
        (
            "codex",
            &[
                "exec",
                "--json",
                "--sandbox",
                "workspace-write",
                "-c",
                "<git_dirs>",
                "-",
            ],
            true,
        ),
        (
            "amp",
            &["--execute", "--stream-json", "--dangerously-allow-all"],
            true,
        ),
        ("copilot", &["-p", "<prompt>", "--allow-all-tools"], false),
        (
            "gemini",
            &["--yolo", "--output-format", "stream-json", "-p", "<prompt>"],
            false,
        ),
        ("opencode", &["run", "--format", "json", "<prompt>"], false),
    ];
    for (name, flags, on_stdin) in cases {
        let p = Project::new(&one_story());
        p.agent(name, &ok_body());
        p.run().args(["--agent", name]).assert().code(0);
        let argv = p.argv(1);
        assert!(argv.len() >= flags.len(), "{name}: {argv:?}");
        let joined = argv.join("\n");
        for (i, f) in flags.iter().enumerate() {
            if *f == "<prompt>" {
                assert!(
                    argv[i].starts_with("# Ralph: instructions"),
                    "{name}: {argv:?}"
                );
            } else if *f == "<git_dirs>" {
                // codex's sandbox keeps .git read-only: the project's git dir is made writable.
                let git = std::fs::canonicalize(p.root()).unwrap().join(".git");
                assert_eq!(
                    argv[i],
                    format!(
                        "sandbox_workspace_write.writable_roots=[\"{}\"]",
                        git.display()
                    ),
                    "{name}"
                );
            } else {
                assert_eq!(argv[i], *f, "{name}");
            }
        }
        if *on_stdin {
            assert!(p.stdin(1).contains("# Your story: A - Title A"), "{name}");
        } else {
            assert!(joined.contains("# Your story: A - Title A"), "{name}");
            assert_eq!(p.stdin(1), "", "{name}");
        }
    }
}

#[test]
fn custom_command_is_split_never_shelled_and_story_text_stays_inert() {
    let evil = prd(
        "ralph/f",
        &[story("A", 1, &[]).replace("Do A", "Do A $(touch PWNED) `touch PWNED2`; rm -rf /tmp/x")],
    );
    let p = Project::new(&evil);
    p.agent("my-agent", &ok_body());
    p.run()
        .args([
            "--agent-cmd",
            "my-agent --model 'big model' {prompt}",
            "--prompt-mode",
            "arg",
        ])
        .assert()
        .code(0);
    let argv = p.argv(1);
    assert_eq!(argv[0], "--model");
    assert_eq!(argv[1], "big model");
    assert!(argv[2].contains("$(touch PWNED)"));
    assert!(!p.root().join("PWNED").exists() && !p.root().join("PWNED2").exists());
    assert_eq!(p.history()[0]["agent"], "custom");
}

#[test]
fn prompt_too_long_for_an_argument_goes_through_a_file() {
    let big = "x".repeat(140 * 1024);
    let p = Project::new(&prd("ralph/f", &[story("A", 1, &[]).replace("Do A", &big)]));
    p.agent("gemini", &ok_body());
    p.run()
        .args(["--agent", "gemini", "--budget", "100000"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("too long for one argument"));
    let argv = p.argv(1);
    assert_eq!(
        argv[..4],
        ["--yolo", "--output-format", "stream-json", "-p"]
    );
    assert!(
        argv[4].starts_with("Your full instructions are in the file "),
        "{}",
        argv[4]
    );
    assert!(argv[4].len() < 1000);
    let path = argv[4]
        .trim_start_matches("Your full instructions are in the file ")
        .split(". Read")
        .next()
        .unwrap()
        .to_string();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(&big));
}

#[test]
fn file_prompt_mode_passes_a_path() {
    let p = Project::new(&one_story());
    p.agent(
        "tool",
        &format!("grep -q 'Your story: A' \"$1\" || exit 9\n{}", ok_body()),
    );
    p.run()
        .args(["--agent-cmd", "tool", "--prompt-mode", "file"])
        .assert()
        .code(0);
    assert!(p.argv(1)[0].ends_with("prompt-1.md"));
}

#[test]
fn ralph_toml_sets_defaults_env_overrides_it_and_cli_overrides_both() {
    let p = Project::new(&one_story());
    p.agent("codex", &ok_body());
    p.agent("gemini", &ok_body());
    p.agent("amp", &ok_body());
    std::fs::write(
        p.root().join("ralph.toml"),
        "[agent]\nname = \"codex\"\n[run]\niterations = 4\nsleep = \"0s\"\n[verify]\ncommands = [\"test -f A.txt\"]\n",
    )
    .unwrap();
    p.commit("ralph.toml");
    p.ralph()
        .args(["run", "--dry-run"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "argv: codex exec --json --sandbox workspace-write -c 'sandbox_workspace_write.writable_roots=[\"",
        ))
        .stdout(predicate::str::contains("limits: 4 iterations"))
        .stdout(predicate::str::contains("verify: test -f A.txt"));
    p.ralph()
        .args(["run", "--dry-run"])
        .env("RALPH_AGENT", "gemini")
        .env("RALPH_ITERATIONS", "6")
        .assert()
        .stdout(predicate::str::contains(
            "argv: gemini --yolo --output-format stream-json -p",
        ))
        .stdout(predicate::str::contains("limits: 6 iterations"));
    p.ralph()
        .args(["run", "--dry-run", "--agent", "amp", "2"])
        .env("RALPH_AGENT", "gemini")
        .assert()
        .stdout(predicate::str::contains(
            "argv: amp --execute --stream-json --dangerously-allow-all",
        ))
        .stdout(predicate::str::contains("limits: 2 iterations"));
    p.ralph().args(["run"]).assert().code(0);
    assert_eq!(
        p.argv(1)[..5],
        ["exec", "--json", "--sandbox", "workspace-write", "-c"]
    );
    assert_eq!(p.argv(1)[6], "-");
    assert_eq!(p.history()[0]["verify"][0]["passed"], true);
}

#[test]
fn unknown_config_key_names_the_nearest_valid_one() {
    let p = Project::new(&one_story());
    p.agent("claude", &ok_body());
    std::fs::write(p.root().join("ralph.toml"), "[run]\nmax_failure = 2\n").unwrap();
    p.run()
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "ralph.toml:2 [run]: unknown key \"max_failure\"",
        ))
        .stderr(predicate::str::contains("did you mean \"max_failures\"?"));
    assert_eq!(p.calls(), 0);
}

#[test]
fn branch_change_archives_the_previous_prd_and_progress_and_starts_fresh() {
    let p = Project::new(&one_story());
    p.agent("claude", &ok_body());
    std::fs::write(
        p.root().join("progress.txt"),
        "# old log\n- learned X\n## Codebase Patterns\n- tests live in tests/\n",
    )
    .unwrap();
    p.run().assert().code(0);
    let old_prd = std::fs::read_to_string(p.root().join("prd.json")).unwrap();
    let new = prd("ralph/next-thing", &[story("N", 1, &[])]);
    std::fs::write(p.root().join("prd.json"), &new).unwrap();
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("archived"));
    let archive = std::fs::read_dir(p.root().join("archive"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect::<Vec<_>>();
    assert_eq!(archive.len(), 1);
    let name = archive[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.ends_with("-f") && name.len() == "YYYY-MM-DD-f".len(),
        "{name}"
    );
    assert_eq!(
        std::fs::read_to_string(archive[0].join("prd.json")).unwrap(),
        old_prd,
        "the PREVIOUS prd is archived"
    );
    assert!(
        std::fs::read_to_string(archive[0].join("progress.txt"))
            .unwrap()
            .contains("learned X")
    );
    let fresh = std::fs::read_to_string(p.root().join("progress.txt")).unwrap();
    assert!(
        fresh.starts_with("# Ralph Progress Log\nStarted: "),
        "{fresh}"
    );
    assert!(!fresh.contains("learned X"));
    // The patterns describe the codebase, not the feature: they stay, and the log says where
    // the previous run went.
    assert!(
        fresh.contains(&format!(
            "\nPrevious run archived in archive/{name}/\n---\n"
        )),
        "{fresh}"
    );
    assert!(
        fresh.contains("\n---\n## Codebase Patterns\n- tests live in tests/\n"),
        "{fresh}"
    );
}
