//! A closed stdout (`ralph status | head -1`, `ralph run … | head`) ends a command quietly:
//! no panic, no error message; the loop goes on to the end and leaves everything in order.

use crate::support::{FLIP, Project, WORK, closed_pipe, prd, story};
use std::process::Stdio;

fn project() -> Project {
    let p = Project::new(&prd(
        "ralph/o",
        &(0..200)
            .map(|i| story(&format!("S{i:03}"), i, &[]))
            .collect::<Vec<_>>(),
    ));
    std::fs::write(
        p.root().join("progress.txt"),
        "# Ralph Progress Log\n\n## Codebase Patterns\n- p\n\n---\n",
    )
    .unwrap();
    p
}

#[test]
fn read_commands_end_quietly_when_stdout_is_closed() {
    let p = project();
    for args in [
        vec!["status"],
        vec!["status", "--json"],
        vec!["next", "--explain"],
        vec!["graph"],
        vec!["validate", "--json"],
        vec!["context", "S000", "--explain"],
        vec!["show", "S000"],
        vec!["show", "S000", "--json"],
        vec!["patterns"],
        vec!["patterns", "--json"],
        vec!["compact", "--dry-run", "--force"],
        vec!["clean", "--dry-run"],
        vec!["clean", "--dry-run", "--json"],
        vec!["run", "--dry-run"],
        vec!["pin", "search", "story"],
        vec!["completions", "bash"],
        vec!["completions", "zsh"],
        vec!["completions", "fish"],
        vec!["man"],
        vec!["instructions"],
        vec!["--color", "always", "status"],
    ] {
        let out = p
            .command()
            .args(&args)
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "ralph {args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "ralph {args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "ralph {args:?}");
    }
}

#[test]
fn the_loop_survives_a_closed_stdout_and_finishes_in_order() {
    let p = Project::new(&prd("ralph/o", &[story("A", 1, &[]), story("B", 2, &[])]));
    // Plenty of output, to hit the closed pipe many times.
    p.agent("claude", &format!("seq 1 20000\n{WORK}\n{FLIP}"));
    let out = p
        .run_command()
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(p.passes("A") && p.passes("B"));
    assert_eq!(p.history().len(), 2);
    assert_eq!(
        std::fs::read_to_string(p.root().join(".ralph/lock")).unwrap(),
        ""
    );
}

#[test]
fn a_story_id_longer_than_a_format_width_does_not_panic_status() {
    let long = "S".repeat(70_000);
    let p = Project::new(&prd("ralph/o", &[story(&long, 1, &[]), story("B", 2, &[])]));
    let out = p.ralph().arg("status").output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&long));
    for args in [vec!["next"], vec!["graph"], vec!["validate"]] {
        let out = p.ralph().args(&args).output().unwrap();
        assert_ne!(out.status.code(), Some(101), "{args:?}");
    }
}
