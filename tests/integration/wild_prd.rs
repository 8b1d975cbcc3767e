//! Every prd.json in tests/fixtures/wild/prd/ (real files from public repositories, see
//! SOURCES.tsv) is a case: accepted with its dialect named, or rejected with a message that says
//! what the file looks like; unchanged files round-trip byte for byte; a `passes` flip changes
//! one value in the file's own keys; `dependsOn` / `dependencies` order stories exactly as
//! `blockedBy` would.

use crate::support::output_joined_in;
use ralph::api::{Prd, next_ready, states};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

struct Case {
    file: PathBuf,
    dialect: String,
    accept: bool,
}

fn wild() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wild")
}

fn cases() -> Vec<Case> {
    let tsv = std::fs::read_to_string(wild().join("SOURCES.tsv")).unwrap();
    tsv.lines()
        .skip(1)
        .filter(|l| l.starts_with("prd/"))
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            Case {
                file: wild().join(cols[0]),
                dialect: cols[4].to_string(),
                accept: cols[5] == "accept",
            }
        })
        .collect()
}

fn run_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let (code, out) = output_joined_in(dir, args);
    assert!(!out.contains("panicked"), "{args:?}: {out}");
    (code, out)
}

#[test]
fn every_accept_file_validates_with_its_dialect_named_and_runs_status_and_next() {
    let mut accepted = 0;
    for c in cases().iter().filter(|c| c.accept) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(&c.file, dir.path().join("prd.json")).unwrap();
        let (code, out) = run_in(dir.path(), &["validate"]);
        assert_eq!(code, 0, "{}: {out}", c.file.display());
        let named = out.contains("warning[dialect]") || out.contains("warning[derived]");
        if c.dialect == "snarktank" {
            assert!(
                !named,
                "{}: snarktank file read as a dialect: {out}",
                c.file.display()
            );
        } else {
            assert!(
                named,
                "{}: dialect {} not named: {out}",
                c.file.display(),
                c.dialect
            );
        }
        let (code, out) = run_in(dir.path(), &["status"]);
        assert_eq!(code, 0, "{}: {out}", c.file.display());
        let (code, out) = run_in(dir.path(), &["next"]);
        assert_eq!(code, 0, "{}: {out}", c.file.display());
        accepted += 1;
    }
    assert_eq!(accepted, 46);
}

/// What a reject message must say about the file's shape, by its dialect in SOURCES.tsv.
fn expected_phrase(dialect: &str) -> &'static str {
    match dialect {
        "empty-template" => "empty template",
        "project-plan" => "phased project plan",
        "prd-document" => "wrapped in a single key",
        "feature-list-array" => "a feature list",
        "units-list" => "work-unit list",
        "task-array" => "task list without ids",
        "invalid-json" => "prd.json:1:1: error[parse]",
        other => panic!("no expectation for reject dialect {other}"),
    }
}

#[test]
fn every_reject_file_is_refused_with_what_it_looks_like() {
    let mut rejected = 0;
    for c in cases().iter().filter(|c| !c.accept) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(&c.file, dir.path().join("prd.json")).unwrap();
        let (code, out) = run_in(dir.path(), &["validate"]);
        assert_eq!(code, 1, "{}: {out}", c.file.display());
        assert!(out.contains("prd.json"), "{}: {out}", c.file.display());
        let phrase = expected_phrase(&c.dialect);
        assert!(
            out.contains(phrase),
            "{}: no {phrase:?} in {out}",
            c.file.display()
        );
        assert!(out.contains("hint: "), "{}: {out}", c.file.display());
        let (code, _) = run_in(dir.path(), &["status"]);
        assert_ne!(code, 0, "{}", c.file.display());
        rejected += 1;
    }
    assert_eq!(rejected, 7);
}

#[test]
fn accepted_files_round_trip_and_a_flip_changes_one_value_in_the_files_own_keys() {
    for c in cases().iter().filter(|c| c.accept) {
        let bytes = std::fs::read(&c.file).unwrap();
        let src = String::from_utf8(bytes.clone()).unwrap();
        let mut prd = Prd::from_bytes(Path::new("prd.json"), &bytes).unwrap();
        assert_eq!(prd.to_pretty(), src, "{}", c.file.display());
        let target = prd.stories.iter().find(|s| !s.passes && !s.removed);
        let (id, to) = match target {
            Some(s) => (s.id.clone(), true),
            None => (prd.stories[0].id.clone(), false),
        };
        assert!(prd.set_passes(&id, to).unwrap(), "{}", c.file.display());
        let out = prd.to_pretty();
        let changed: Vec<(&str, &str)> = src
            .lines()
            .zip(out.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(
            src.lines().count(),
            out.lines().count(),
            "{}",
            c.file.display()
        );
        assert_eq!(changed.len(), 1, "{}: {changed:?}", c.file.display());
        let (before, after) = changed[0];
        assert!(
            (before.contains("\"passes\"") && after.contains(&format!("\"passes\": {to}")))
                || (before.contains("\"status\"") && after.contains("\"status\"")),
            "{}: {changed:?}",
            c.file.display()
        );
        let again = Prd::from_bytes(Path::new("prd.json"), out.as_bytes()).unwrap();
        assert_eq!(again.story(&id).unwrap().passes, to, "{}", c.file.display());
        assert_eq!(again.dialect, prd.dialect, "{}", c.file.display());
    }
}

/// The order the loop would run every story in, from nothing done, one at a time.
fn run_order(mut prd: Prd) -> Vec<String> {
    let ids: Vec<String> = prd.stories.iter().map(|s| s.id.clone()).collect();
    for id in &ids {
        prd.set_passes(id, false).unwrap();
    }
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
fn dependency_dialects_order_stories_exactly_as_blocked_by_would() {
    let mut checked = 0;
    for c in cases().iter().filter(|c| c.accept) {
        let src = std::fs::read_to_string(&c.file).unwrap();
        let field = ["\"dependsOn\"", "\"dependencies\"", "\"depends_on\""]
            .into_iter()
            .find(|f| src.contains(f));
        let Some(field) = field else { continue };
        let as_blocked = src.replace(field, "\"blockedBy\"");
        let dialect = Prd::from_bytes(Path::new("prd.json"), src.as_bytes()).unwrap();
        let canonical = Prd::from_bytes(Path::new("prd.json"), as_blocked.as_bytes()).unwrap();
        assert!(
            dialect.stories.iter().any(|s| !s.blocked_by.is_empty()),
            "{}: {field} read as no dependency at all",
            c.file.display()
        );
        let (a, b) = (run_order(dialect), run_order(canonical));
        assert_eq!(a, b, "{}", c.file.display());
        assert_eq!(a.len(), b.len());
        checked += 1;
    }
    assert!(checked >= 6, "{checked}");
}
