//! `ralph run` compacts progress.txt before an iteration when it is over the threshold, and
//! `--no-compact` / ralph.toml `[compact]` control it.

use crate::support::{FLIP, Project, WORK, prd, story};
use predicates::prelude::*;

/// A progress.txt with `n` entries of 6 lines each, every one with a learning.
fn long_progress(n: usize) -> String {
    let mut s = String::from(
        "# Ralph Progress Log\nStarted: today\n---\n## Codebase Patterns\n- use the helpers in lib/\n---\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "## 2026-01-{:02} - OLD-{i}\n- Implemented thing {i}\n- **Learnings for future iterations:**\n  - gotcha number {i} about module {i}\n---\n",
            i % 28 + 1
        ));
    }
    s
}

fn project() -> Project {
    let p = Project::new(&prd("ralph/feat", &[story("A", 1, &[])]));
    p.agent("claude", &format!("{WORK}\n{FLIP}"));
    p
}

#[test]
fn run_compacts_before_the_iteration_and_says_so() {
    let p = project();
    let original = long_progress(120);
    std::fs::write(p.root().join("progress.txt"), &original).unwrap();
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("compacted progress.txt:"));
    let after = std::fs::read_to_string(p.root().join("progress.txt")).unwrap();
    assert!(after.lines().count() < original.lines().count());
    assert!(after.contains("## Compacted History"), "{after}");
    assert!(
        after.contains("gotcha number 0 about module 0"),
        "learnings are kept"
    );
    let archives: Vec<_> = std::fs::read_dir(p.root().join(".ralph/archive"))
        .unwrap()
        .collect();
    assert_eq!(archives.len(), 1);
    let archived = std::fs::read_to_string(archives[0].as_ref().unwrap().path()).unwrap();
    assert_eq!(archived, original, "the archive is the exact original");
}

#[test]
fn no_compact_flag_and_config_threshold() {
    let p = project();
    let original = long_progress(120);
    std::fs::write(p.root().join("progress.txt"), &original).unwrap();
    p.run()
        .arg("--no-compact")
        .assert()
        .code(0)
        .stderr(predicate::str::contains("compacted").not());
    assert_eq!(
        std::fs::read_to_string(p.root().join("progress.txt")).unwrap(),
        original
    );

    let p = project();
    std::fs::write(p.root().join("progress.txt"), &original).unwrap();
    std::fs::write(
        p.root().join("ralph.toml"),
        "[compact]\nthreshold = 100000\n",
    )
    .unwrap();
    p.commit("ralph.toml");
    p.run()
        .assert()
        .code(0)
        .stderr(predicate::str::contains("compacted").not());
    assert_eq!(
        std::fs::read_to_string(p.root().join("progress.txt")).unwrap(),
        original
    );
}

#[test]
fn compact_command_reads_the_threshold_from_ralph_toml() {
    let p = project();
    std::fs::write(p.root().join("progress.txt"), long_progress(120)).unwrap();
    std::fs::write(
        p.root().join("ralph.toml"),
        "[compact]\nthreshold = 100000\n",
    )
    .unwrap();
    p.ralph()
        .arg("compact")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("nothing to compact"));
    std::fs::write(p.root().join("ralph.toml"), "[compact]\nthreshhold = 10\n").unwrap();
    p.ralph()
        .arg("compact")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("threshold"));
}

#[test]
fn compaction_between_iterations_is_not_credited_to_the_next_agent() {
    let p = Project::new(&prd("ralph/feat", &[story("A", 1, &[])]));
    std::fs::write(p.fake.join("long.txt"), long_progress(120)).unwrap();
    // Iteration 1 grows progress.txt over the threshold (real progress); later ones do nothing.
    p.agent(
        "claude",
        "if [ $n = 1 ]; then cp \"$D/long.txt\" progress.txt; fi",
    );
    p.run()
        .args(["--max-failures", "1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("compacted progress.txt:"));
    // Iteration 2 changed nothing itself: skipped at once, no third attempt.
    assert_eq!(p.calls(), 2);
    assert_eq!(p.history()[1]["skipped"], true);
}
