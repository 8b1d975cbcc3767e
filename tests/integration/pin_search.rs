//! `ralph pin search`: BM25F ranking printed with scores and matched terms.

use crate::support::ralph_at;
use predicates::prelude::*;

const PIN: &str = "# Pin\n\n\
### Progress log\n**Keywords**: progress, log, compaction, learnings\n\n**File Paths**:\n- src/progress/mod.rs\n\n**Spec Link**: N/A\n\n---\n\n\
### Pin search\n**Keywords**: index, bm25, ranking, keywords, search\n\n**File Paths**:\n- src/pin/search.rs\n\n**Spec Link**: specs/pin.md\n\n---\n\n\
### Search box\n**Keywords**: widget, ui\n\n**File Paths**:\n- web/search_box.ts\n\n**Spec Link**: N/A\n\n---\n";

fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("specs")).unwrap();
    std::fs::write(tmp.path().join("specs/INDEX.md"), PIN).unwrap();
    tmp
}

#[test]
fn prints_ranked_hits_with_scores_and_matched_terms() {
    let tmp = project();
    let out = ralph_at(tmp.path())
        .args(["pin", "search", "ranking", "the", "search", "results"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("1. Pin search  (score "), "{out}");
    assert!(lines[0].ends_with("matched: ranking, search)"), "{out}");
    assert_eq!(lines[1], "   files: src/pin/search.rs");
    assert_eq!(lines[2], "   spec: specs/pin.md");
    assert!(lines[3].starts_with("2. Search box  (score "), "{out}");
    assert_eq!(lines.len(), 5);
}

#[test]
fn json_output_and_limit() {
    let tmp = project();
    let out = ralph_at(tmp.path())
        .args(["pin", "search", "search", "--json", "--limit", "1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["data"]["kind"], "entries");
    let hits = v["data"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["name"], "Pin search");
    assert_eq!(hits[0]["matched"], serde_json::json!(["search"]));
    assert_eq!(hits[0]["files"], serde_json::json!(["src/pin/search.rs"]));
    assert!(hits[0]["score"].as_f64().unwrap() > 0.0);
}

#[test]
fn no_match_and_no_pin_are_explained() {
    let tmp = project();
    ralph_at(tmp.path())
        .args(["pin", "search", "zebra"])
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("no entry matches: zebra"));
    let empty = tempfile::tempdir().unwrap();
    ralph_at(empty.path())
        .args(["pin", "search", "zebra"])
        .assert()
        .success()
        .stderr(predicate::str::contains("run `ralph pin generate` first"));
    ralph_at(empty.path())
        .args(["pin", "search"])
        .assert()
        .code(2);
}

#[test]
fn finds_modules_of_this_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    ralph_at(root)
        .args(["pin", "search", "validate", "prd.json", "schema"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("1. ralph: src/prd "));
    ralph_at(root)
        .args(["pin", "search", "dependency", "graph", "cycles"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("1. ralph: src/graph "));
}

/// What `pin search` prints for `words` in `dir`.
fn search_out(dir: &std::path::Path, words: &[&str]) -> String {
    let out = ralph_at(dir)
        .args(["pin", "search"])
        .args(words)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_kept_digest_is_used_only_for_its_own_pin_and_a_damaged_one_is_made_again() {
    let tmp = project();
    let digest = tmp.path().join(".ralph/pin-search.bin");
    let first = search_out(tmp.path(), &["ranking", "search"]);
    let kept = std::fs::read(&digest).expect("the first search keeps the digest");
    assert_eq!(search_out(tmp.path(), &["ranking", "search"]), first);
    assert_eq!(
        std::fs::read(&digest).unwrap(),
        kept,
        "a digest of this Pin is kept as it is"
    );
    // Damaged: cut short, then a byte changed. The same answer, and a sound digest again.
    for damage in [0, 1] {
        let mut bytes = kept.clone();
        match damage {
            0 => bytes.truncate(bytes.len() / 2),
            _ => *bytes.last_mut().unwrap() ^= 0x40,
        }
        std::fs::write(&digest, &bytes).unwrap();
        assert_eq!(search_out(tmp.path(), &["ranking", "search"]), first);
        assert_eq!(std::fs::read(&digest).unwrap(), kept);
    }
    // The Pin edited: the digest of the old text is not used.
    let edited = PIN.replace("widget, ui", "widget, ui, ranking, ranking");
    std::fs::write(tmp.path().join("specs/INDEX.md"), edited).unwrap();
    let out = search_out(tmp.path(), &["ranking"]);
    assert!(out.starts_with("1. Search box  (score "), "{out}");
    assert_ne!(std::fs::read(&digest).unwrap(), kept);
}
