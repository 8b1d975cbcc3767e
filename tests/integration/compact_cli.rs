//! `ralph compact` end to end: the real binary on a temp project.

use crate::support::{ralph_at, script};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

const FIXTURE: &[u8] = include_bytes!("../fixtures/compat/newralph/progress.txt");

fn project(bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("progress.txt"), bytes).unwrap();
    dir
}

fn archives(root: &Path) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(root.join(".ralph/archive")) else {
        return vec![];
    };
    let mut v: Vec<PathBuf> = dir.map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

fn progress(root: &Path) -> Vec<u8> {
    std::fs::read(root.join("progress.txt")).unwrap()
}

#[test]
fn under_the_threshold_nothing_is_compacted_or_written() {
    let dir = project(FIXTURE);
    ralph_at(dir.path())
        .arg("compact")
        .assert()
        .success()
        .stdout(predicate::str::contains("nothing to compact: 169 lines"));
    assert_eq!(progress(dir.path()), FIXTURE);
    assert!(!dir.path().join(".ralph").exists());
}

#[test]
fn compacts_archives_the_exact_original_and_logs() {
    let dir = project(FIXTURE);
    ralph_at(dir.path())
        .args(["compact", "--threshold", "100", "--keep-recent", "40"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "169 -> 91 lines; 9 entries summarised (9 stories, 41 learnings, 0 duplicates merged), 2 kept verbatim",
        ))
        .stdout(predicate::str::contains("original saved to "));
    let archived = archives(dir.path());
    assert_eq!(archived.len(), 1);
    assert_eq!(
        std::fs::read(&archived[0]).unwrap(),
        FIXTURE,
        "byte-identical archive"
    );
    let after = progress(dir.path());
    let log = ralph::api::Log::parse(&after);
    assert_eq!(log.line_count(), 91);
    assert_eq!(log.entries().len(), 2);
    assert!(
        log.compacted_history()
            .unwrap()
            .contains("- US-001 (2026-01-17): ")
    );
    let clog = std::fs::read_to_string(dir.path().join(".ralph/compaction.log")).unwrap();
    let name = archived[0].file_name().unwrap().to_str().unwrap();
    assert!(
        clog.contains(&format!(
            "\tlines 169 -> 91\tentries 9\tarchive .ralph/archive/{name}\t"
        )),
        "{clog}"
    );

    // Nothing left to fold: the second run changes nothing.
    ralph_at(dir.path())
        .args(["compact", "--threshold", "10", "--keep-recent", "40"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "nothing to compact: no entry is older",
        ));
    assert_eq!(progress(dir.path()), after);
    assert_eq!(archives(dir.path()).len(), 1);
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let dir = project(FIXTURE);
    ralph_at(dir.path())
        .args(["compact", "--force", "--keep-recent", "40", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "--- progress.txt\n+++ progress.txt (compacted)\n",
        ))
        .stdout(predicate::str::contains(
            "\n-## 2026-01-17 22:06 - US-001\n",
        ))
        .stdout(predicate::str::contains("\n+## Compacted History\n"))
        .stderr(predicate::str::contains("dry run: would compact"));
    assert_eq!(progress(dir.path()), FIXTURE);
    assert!(!dir.path().join(".ralph").exists());
}

#[test]
fn json_output_reports_what_was_done() {
    let dir = project(FIXTURE);
    let out = ralph_at(dir.path())
        .args(["compact", "--force", "--keep-recent", "40", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &v["data"];
    assert_eq!(v["status"], "compacted");
    assert_eq!(v["lines_before"], 169);
    assert_eq!(v["lines_after"], 91);
    assert_eq!(v["entries_compacted"], 9);
    assert_eq!(v["summary"], "deterministic");
    assert!(
        v["archive"]
            .as_str()
            .unwrap()
            .starts_with(".ralph/archive/progress-")
    );

    let out = ralph_at(dir.path())
        .args(["compact", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &v["data"];
    assert_eq!(v["status"], "nothing");
    assert!(v["reason"].as_str().unwrap().contains("threshold of 400"));
}

#[test]
fn missing_progress_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    ralph_at(dir.path())
        .arg("compact")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("progress.txt: no such file"));
}

/// A fake agent: answers with the template, copying the learnings it was asked to keep.
fn write_agent(dir: &Path, body: &str) -> String {
    format!("sh {}", script(dir, "agent.sh", body).display())
}

const GOOD_AGENT: &str = "echo '## Summary'\necho 'Nine stories of context tooling.'\necho '### Key Decisions'\nsed -n '/^LEARNINGS/,/^OLD ENTRIES:/p' | grep '^- '\necho '### Resolution'\necho 'All done.'\n";

#[test]
fn agent_summary_is_used_when_it_keeps_every_learning() {
    let dir = project(FIXTURE);
    let agent_dir = tempfile::tempdir().unwrap();
    let cmd = write_agent(agent_dir.path(), GOOD_AGENT);
    ralph_at(dir.path())
        .args([
            "compact",
            "--force",
            "--keep-recent",
            "40",
            "--summarizer",
            "agent",
            "--json",
        ])
        .env("RALPH_AGENT_CMD", &cmd)
        .assert()
        .success()
        .stdout(predicate::str::contains("\"summary\":\"agent\""));
    let after = String::from_utf8(progress(dir.path())).unwrap();
    assert!(
        after.contains("### Summary\nNine stories of context tooling.\n"),
        "{after}"
    );
    assert!(after.contains("- Nested while loops work in bash 3.2 for dependency checking\n"));
    assert!(
        !after.contains("\n## Summary"),
        "agent headings are demoted"
    );
    assert_eq!(std::fs::read(&archives(dir.path())[0]).unwrap(), FIXTURE);
}

#[test]
fn a_failing_or_slow_agent_falls_back_to_the_deterministic_summary() {
    let agent_dir = tempfile::tempdir().unwrap();
    let failing = write_agent(agent_dir.path(), "echo 'out of credits' >&2\nexit 7\n");
    let plain = project(FIXTURE);
    ralph_at(plain.path())
        .args(["compact", "--force", "--keep-recent", "40"])
        .assert()
        .success();
    for (cmd, timeout, why) in [
        (failing.as_str(), "30", "out of credits"),
        ("sleep 5", "0", "did not finish within"),
    ] {
        let dir = project(FIXTURE);
        ralph_at(dir.path())
            .args([
                "compact",
                "--force",
                "--keep-recent",
                "40",
                "--summarizer",
                "agent",
            ])
            .args(["--summarizer-cmd", cmd, "--summarizer-timeout", timeout])
            .assert()
            .success()
            .stderr(
                predicate::str::contains("agent summary not used")
                    .and(predicate::str::contains(why)),
            );
        assert_eq!(progress(dir.path()), progress(plain.path()));
    }
}

#[test]
fn summarizer_usage_errors_exit_2() {
    let dir = project(FIXTURE);
    // Without --summarizer-cmd the agent configured for `ralph run` is used, if it reads stdin.
    std::fs::write(
        dir.path().join("ralph.toml"),
        "[agent]\nname = \"copilot\"\n",
    )
    .unwrap();
    for (args, msg) in [
        (
            vec!["--summarizer", "agent"],
            "takes its prompt as an argument",
        ),
        (
            vec!["--summarizer-cmd", "claude -p"],
            "only used with --summarizer agent",
        ),
        (
            vec![
                "--summarizer",
                "agent",
                "--summarizer-cmd",
                "claude 'unclosed",
            ],
            "cannot split",
        ),
    ] {
        ralph_at(dir.path())
            .arg("compact")
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    }
    assert_eq!(progress(dir.path()), FIXTURE);
}
