//! The file shapes issue 29 reports ralph misread (tests/fixtures/reported/, see its README:
//! minimal files written from the report, the originals are not in the fixtures): a
//! dependency-like field that names no story (`"blocked": null`), `deps` as a dependency list,
//! per-story `verification` / `checks`, and a progress.txt whose learnings heading has a note
//! in parentheses and wrapped bullets.

use crate::support::output_joined_in;
use ralph::api::{Prd, next_ready, states};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reported")
        .join(name)
}

fn project_with(name: &str, as_file: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(name), dir.path().join(as_file)).unwrap();
    dir
}

#[test]
fn blocked_null_is_not_a_dependency_error_and_the_file_runs() {
    let dir = project_with("prd-blocked-null.json", "prd.json");
    let (code, out) = output_joined_in(dir.path(), &["validate"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("dependency-field"), "{out}");
    assert!(
        out.contains("warning[unknown-field]") && out.contains("names no story"),
        "{out}"
    );
    let (code, out) = output_joined_in(dir.path(), &["next"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("US-002"), "{out}");
    // A list of ids under the same key would hold the story back: still an error.
    let src = std::fs::read_to_string(fixture("prd-blocked-null.json")).unwrap();
    let listed = src.replacen("\"blocked\": null", "\"blocked\": [\"US-003\"]", 2);
    std::fs::write(dir.path().join("prd.json"), listed).unwrap();
    let (code, out) = output_joined_in(dir.path(), &["validate"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[dependency-field]"), "{out}");
}

/// The order the loop would run every story in, from nothing done, one at a time.
fn run_order(mut prd: Prd) -> Vec<String> {
    let mut order = Vec::new();
    loop {
        let states = states(&prd.stories);
        let Some(i) = next_ready(&prd.stories, &states, &HashSet::new()) else {
            break;
        };
        let id = prd.stories[i].id.clone();
        prd.set_passes(&id, true).unwrap();
        order.push(id);
    }
    order
}

#[test]
fn deps_is_read_as_blocked_by_and_orders_stories_the_same() {
    let dir = project_with("prd-deps.json", "prd.json");
    let (code, out) = output_joined_in(dir.path(), &["validate"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches("warning[dialect]").count(), 1, "{out}");
    assert!(out.contains("\"deps\" → blockedBy"), "{out}");
    let (code, out) = output_joined_in(dir.path(), &["next"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("US-001"), "{out}");

    let src = std::fs::read_to_string(fixture("prd-deps.json")).unwrap();
    let deps = Prd::from_bytes(Path::new("prd.json"), src.as_bytes()).unwrap();
    let blocked = src.replace("\"deps\"", "\"blockedBy\"");
    let canonical = Prd::from_bytes(Path::new("prd.json"), blocked.as_bytes()).unwrap();
    let order = run_order(deps.clone());
    // US-003 has the lowest priority number but waits for US-002, which waits for US-001.
    assert_eq!(order, ["US-001", "US-002", "US-003", "US-004"]);
    assert_eq!(order, run_order(canonical));
    // A flip is written back in the file's own keys and bytes.
    let mut prd = deps;
    prd.set_passes("US-001", true).unwrap();
    let changed = src
        .lines()
        .zip(
            prd.to_pretty()
                .lines()
                .map(String::from)
                .collect::<Vec<_>>(),
        )
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(changed, 1);
}

#[test]
fn verification_and_checks_are_the_storys_commands_and_sentences_never_run() {
    let dir = project_with("prd-verification.json", "prd.json");
    let (code, out) = output_joined_in(dir.path(), &["validate"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\"verification\" → verify"), "{out}");
    assert!(out.contains("warning[not-a-command]"), "{out}");
    assert!(out.contains("/userStories/0/verification/2"), "{out}");
    let bytes = std::fs::read(fixture("prd-verification.json")).unwrap();
    let prd = Prd::from_bytes(Path::new("prd.json"), &bytes).unwrap();
    assert_eq!(
        prd.stories[0].verify,
        ["npm run typecheck", "npm test -- --filter priority"]
    );
    assert_eq!(prd.stories[1].verify, ["npm test -- --filter sort"]);
    // The file is written back as it was: the sentence stays where the person put it.
    assert_eq!(prd.to_pretty().as_bytes(), &bytes[..]);
}

#[test]
fn every_learning_under_a_parenthetical_heading_survives_compaction() {
    let src = std::fs::read_to_string(fixture("progress-learnings-parenthetical.txt")).unwrap();
    // Each learning's first line, as written (its wrapped lines are joined to it).
    let learnings: Vec<&str> = src.lines().filter_map(|l| l.strip_prefix("  - ")).collect();
    assert_eq!(learnings.len(), 18);
    for extra in [&[][..], &["--keep-recent", "0"][..]] {
        let dir = project_with("progress-learnings-parenthetical.txt", "progress.txt");
        let (code, out) =
            output_joined_in(dir.path(), &[&["compact", "--force"][..], extra].concat());
        assert_eq!(code, 0, "{out}");
        let text = std::fs::read_to_string(dir.path().join("progress.txt")).unwrap();
        let lost: Vec<&&str> = learnings.iter().filter(|l| !text.contains(**l)).collect();
        assert!(lost.is_empty(), "{extra:?}: {} lost: {lost:#?}", lost.len());
        assert!(
            text.contains("Parsers live in src/parse/, one file per format"),
            "{text}"
        );
    }
}
