//! `ralph compact` on every bad input the issue lists: none panics, none loses a byte that is
//! not summarised, and the archive is always byte-identical to the input.

use crate::support::ralph_at;
use predicates::prelude::*;
use ralph::api::{BlockKind, Log};
use std::path::Path;

fn run(bytes: &[u8], args: &[&str]) -> (tempfile::TempDir, std::process::Output) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("progress.txt"), bytes).unwrap();
    let out = ralph_at(dir.path())
        .arg("compact")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, out)
}

fn progress(root: &Path) -> Vec<u8> {
    std::fs::read(root.join("progress.txt")).unwrap()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// The archive equals the input, and every block that compaction does not summarise (header,
/// patterns, other sections, kept entries) is in the output byte for byte.
fn assert_nothing_lost(root: &Path, input: &[u8]) {
    let archive_dir = root.join(".ralph/archive");
    let archives: Vec<_> = std::fs::read_dir(&archive_dir).unwrap().collect();
    assert_eq!(archives.len(), 1);
    let archived = std::fs::read(archives[0].as_ref().unwrap().path()).unwrap();
    assert!(archived == input, "archive is byte-identical to the input");
    let output = progress(root);
    let before = Log::parse(input);
    let after = Log::parse(&output);
    let kept_ids: Vec<&str> = after
        .entries()
        .iter()
        .map(|e| e.story_id.as_str())
        .collect();
    for b in before.blocks() {
        let bytes = &input[b.span.clone()];
        let must_keep = match &b.kind {
            BlockKind::Header | BlockKind::Patterns => true,
            BlockKind::Other => !bytes.trim_ascii().is_empty(),
            BlockKind::Entry { story_id, .. } => kept_ids.contains(&story_id.as_str()),
            BlockKind::CompactedHistory => false,
        };
        if must_keep {
            assert!(
                contains(&output, bytes),
                "block at line {} kept verbatim",
                b.line
            );
        }
    }
    let history = after
        .compacted_history()
        .expect("a Compacted History section");
    let summarised: std::collections::HashSet<&str> = history
        .lines()
        .filter_map(|l| l.strip_prefix("- ")?.split_once(" (").map(|(id, _)| id))
        .collect();
    for e in before.entries() {
        if !kept_ids.contains(&e.story_id.as_str()) {
            assert!(
                summarised.contains(e.story_id.as_str()),
                "{} summarised",
                e.story_id
            );
        }
    }
    assert!(after.line_count() < before.line_count());
}

fn entry(i: usize) -> String {
    format!(
        "## 2026-01-{:02} 10:00 - US-{i:03}\n- Implemented story {i}\n- Files changed: src/s{i}.rs\n- **Learnings for future iterations:**\n  - Lesson {i}: keep modules small\n  - Always run cargo fmt\n---\n",
        i % 28 + 1
    )
}

#[test]
fn empty_file_is_left_alone() {
    let (dir, out) = run(b"", &["--force"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to compact"));
    assert_eq!(progress(dir.path()), b"");
    assert!(!dir.path().join(".ralph").exists());
}

#[test]
fn file_with_no_entries_is_left_alone() {
    let text =
        "# Ralph Progress Log\nStarted: today\n---\nfree text written by a human\n".repeat(150);
    let (dir, out) = run(text.as_bytes(), &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to compact: no entry"));
    assert_eq!(progress(dir.path()), text.as_bytes());
}

#[test]
fn entries_without_separators_are_compacted_whole() {
    let text: String = (0..80).map(|i| entry(i).replace("---\n", "")).collect();
    let (dir, _) = run(text.as_bytes(), &[]);
    assert_nothing_lost(dir.path(), text.as_bytes());
    let history = Log::parse(&progress(dir.path()))
        .compacted_history()
        .unwrap();
    assert!(history.contains("\n- Lesson 3: keep modules small\n"));
    assert_eq!(
        history.matches("\n- Always run cargo fmt\n").count(),
        1,
        "duplicates merged"
    );
}

#[test]
fn crlf_line_endings_are_kept() {
    let text: String = (0..80).map(entry).collect::<String>().replace('\n', "\r\n");
    let (dir, _) = run(text.as_bytes(), &[]);
    assert_nothing_lost(dir.path(), text.as_bytes());
    let after = String::from_utf8(progress(dir.path())).unwrap();
    assert!(
        !after.replace("\r\n", "").contains('\n'),
        "no bare LF in a CRLF file"
    );
}

#[test]
fn non_utf8_bytes_are_kept_as_they_are() {
    let mut bytes = b"# Ralph Progress Log\nStarted: \xff\xfe\n---\n".to_vec();
    for i in 0..80 {
        bytes.extend_from_slice(entry(i).as_bytes());
        bytes.extend_from_slice(b"stray latin-1 caf\xe9 line\n");
    }
    let (dir, _) = run(&bytes, &[]);
    assert_nothing_lost(dir.path(), &bytes);
    assert!(progress(dir.path()).starts_with(b"# Ralph Progress Log\nStarted: \xff\xfe\n---\n"));
}

#[test]
fn a_patterns_section_at_the_bottom_stays_at_the_bottom() {
    let patterns = "## Codebase Patterns\n- [PATTERN] errors name the file and the line\n- Use fsutil for writes\n";
    let text = format!(
        "# Ralph Progress Log\n---\n{}{patterns}",
        (0..80).map(entry).collect::<String>()
    );
    let (dir, _) = run(text.as_bytes(), &[]);
    assert_nothing_lost(dir.path(), text.as_bytes());
    assert!(
        String::from_utf8(progress(dir.path()))
            .unwrap()
            .ends_with(patterns)
    );
}

#[test]
fn two_patterns_sections_are_both_kept() {
    let top = "## Codebase Patterns\n- top pattern\n---\n";
    let middle = "## Codebase Patterns\n- second pattern, added later by another agent\n";
    let text = format!(
        "{top}{}{middle}{}",
        (0..40).map(entry).collect::<String>(),
        (40..80).map(entry).collect::<String>()
    );
    let (dir, _) = run(text.as_bytes(), &[]);
    assert_nothing_lost(dir.path(), text.as_bytes());
    let after = Log::parse(&progress(dir.path()));
    assert_eq!(after.codebase_patterns().unwrap(), format!("{top}{middle}"));
}

/// The 1,000,000-line case at a tenth of the size (debug builds are slow); the full size
/// runs in scripts/bench-compact.sh.
#[test]
fn a_large_generated_file_compacts() {
    let mut text = String::from("# Ralph Progress Log\nStarted: today\n---\n");
    let mut i = 0;
    while text.len() < 4_000_000 {
        text.push_str(&entry(i));
        i += 1;
    }
    let lines = text.lines().count();
    assert!(lines >= 100_000, "{lines}");
    let (dir, out) = run(text.as_bytes(), &["--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &v["data"];
    assert_eq!(v["lines_before"], lines);
    assert_eq!(
        v["entries_compacted"].as_u64().unwrap() as usize
            + v["entries_kept"].as_u64().unwrap() as usize,
        i
    );
    assert_eq!(
        v["duplicates_merged"].as_u64().unwrap() as usize,
        v["entries_compacted"].as_u64().unwrap() as usize - 1
    );
    assert_nothing_lost(dir.path(), text.as_bytes());
}

#[test]
fn compacting_twice_folds_the_history_instead_of_nesting_it() {
    let first: String = (0..80).map(entry).collect();
    let (dir, _) = run(first.as_bytes(), &[]);
    let mut grown = progress(dir.path());
    grown.extend((80..160).flat_map(|i| entry(i).into_bytes()));
    std::fs::write(dir.path().join("progress.txt"), &grown).unwrap();
    ralph_at(dir.path())
        .arg("compact")
        .assert()
        .success()
        .stdout(predicate::str::contains("compacted"));
    let after = String::from_utf8(progress(dir.path())).unwrap();
    assert_eq!(after.matches("## Compacted History").count(), 1);
    for i in 0..150 {
        assert!(
            after.contains(&format!("- US-{i:03} ("))
                || after.contains(&format!("## 2026-01-{:02} 10:00 - US-{i:03}\n", i % 28 + 1))
        );
    }
    assert_eq!(
        std::fs::read_dir(dir.path().join(".ralph/archive"))
            .unwrap()
            .count(),
        2
    );
}
