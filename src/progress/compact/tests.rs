//! Unit tests of the compaction policy (pure: bytes in, bytes out).

use super::*;
use crate::progress::Log;
use crate::progress::dedup::normalize;
use crate::progress::summarizer::SummarizeError;
use std::sync::Arc;

const FIXTURE: &[u8] = include_bytes!("../../../tests/fixtures/compat/newralph/progress.txt");

fn opts(threshold: usize, keep_recent: usize) -> Options {
    Options {
        threshold,
        keep_recent,
        ..Options::default()
    }
}

fn text(c: &Compacted) -> String {
    String::from_utf8(c.bytes.clone()).unwrap()
}

fn entry(date: &str, id: &str, learning: &str) -> String {
    format!(
        "## {date} - {id}\n- Implemented {id}\n- Files changed: src/{id}.rs\n- **Learnings for future iterations:**\n  - {learning}\n---\n"
    )
}

/// The normalised learnings of every entry in `bytes`.
fn learnings_of(bytes: &[u8]) -> Vec<String> {
    Log::parse(bytes)
        .entries()
        .iter()
        .flat_map(|e| {
            let body = e.text.split_once('\n').map_or("", |(_, b)| b);
            crate::progress::lessons::extract(body.as_bytes())
                .1
                .iter()
                .map(|l| normalize(l))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn under_threshold_is_refused_unless_forced() {
    assert_eq!(
        compact(FIXTURE, &opts(400, 40)).unwrap_err(),
        CompactError::UnderThreshold {
            lines: 169,
            threshold: 400
        }
    );
    let forced = Options {
        force: true,
        ..opts(400, 40)
    };
    assert!(compact(FIXTURE, &forced).is_ok());
    assert!(compact(FIXTURE, &opts(168, 40)).is_ok());
}

#[test]
fn real_fixture_compacts_to_snapshot() {
    let c = compact(FIXTURE, &opts(100, 40)).unwrap();
    assert_eq!(c.stats.lines_before, 169);
    assert_eq!(c.stats.entries_compacted, 9);
    assert_eq!(c.stats.entries_kept, 2);
    assert_eq!(c.stats.lines_after, parse::count_lines(&c.bytes));
    assert!(c.stats.lines_after < 169);
    insta::assert_snapshot!(text(&c));
}

#[test]
fn recent_entries_are_kept_whole_and_verbatim() {
    let log = Log::parse(FIXTURE);
    let c = compact(FIXTURE, &opts(100, 40)).unwrap();
    let out = text(&c);
    let kept: Vec<_> = log.entries().iter().rev().take(2).collect();
    for e in &kept {
        assert!(out.contains(&e.text), "entry {} kept verbatim", e.story_id);
    }
    assert!(kept.iter().map(|e| e.text.lines().count()).sum::<usize>() <= 40);
    assert!(out.starts_with("# Ralph Progress Log\nStarted: Sat Jan 17 14:06:48 PST 2026\n---\n"));
    let after = Log::parse(&c.bytes);
    assert_eq!(after.entries().len(), 2);
    assert!(after.compacted_history().is_some());
}

#[test]
fn every_learning_of_old_entries_survives() {
    let c = compact(FIXTURE, &opts(100, 40)).unwrap();
    let section = Log::parse(&c.bytes).compacted_history().unwrap();
    let section_norms: Vec<String> = section.lines().map(|l| normalize(l.as_bytes())).collect();
    let old_end = Log::parse(FIXTURE).entries()[9].span.start;
    let old = learnings_of(&FIXTURE[..old_end]);
    assert!(old.len() > 40);
    for l in &old {
        assert!(
            section_norms.iter().any(|n| n.contains(l.as_str())),
            "learning lost: {l}"
        );
    }
    for id in 1..=9 {
        assert!(section.contains(&format!("- US-{id:03} (2026-01-17): ")));
    }
}

#[test]
fn newest_entry_is_kept_even_when_longer_than_keep_recent() {
    let c = compact(FIXTURE, &opts(100, 1)).unwrap();
    assert_eq!(c.stats.entries_kept, 1);
    let none = compact(FIXTURE, &opts(100, 0)).unwrap();
    assert_eq!(none.stats.entries_kept, 0);
    assert_eq!(none.stats.entries_compacted, 11);
}

#[test]
fn second_compaction_folds_the_first_without_nesting() {
    let first = compact(FIXTURE, &opts(100, 40)).unwrap();
    let mut grown = first.bytes.clone();
    for i in 12..30 {
        grown.extend_from_slice(
            entry(
                "2026-01-18 10:00",
                &format!("US-{i:03}"),
                &format!("learning number {i}"),
            )
            .as_bytes(),
        );
    }
    let second = compact(&grown, &opts(100, 40)).unwrap();
    let out = text(&second);
    assert_eq!(out.matches("## Compacted History").count(), 1);
    assert_eq!(out.matches("### Stories").count(), 1);
    assert_eq!(out.matches("### Learnings").count(), 1);
    for id in 1..=23 {
        assert!(
            out.contains(&format!("- US-{id:03} (")),
            "US-{id:03} missing"
        );
    }
    let kept: Vec<String> = Log::parse(&second.bytes)
        .entries()
        .iter()
        .map(|e| e.story_id.clone())
        .collect();
    assert_eq!(
        kept,
        (24..30).map(|i| format!("US-{i:03}")).collect::<Vec<_>>()
    );
    for l in learnings_of(FIXTURE) {
        assert!(
            out.lines().any(|x| normalize(x.as_bytes()).contains(&l)),
            "{l}"
        );
    }
    assert!(out.contains("- learning number 12\n"));
    // A third run with nothing new to fold in changes nothing it does not have to.
    let third = compact(&second.bytes, &opts(10, 40));
    assert!(
        matches!(third, Err(CompactError::NothingOld { .. })),
        "{third:?}"
    );
}

#[test]
fn patterns_sections_anywhere_are_kept_verbatim() {
    let top = "## Codebase Patterns\n- Use fsutil::atomic_write for every write\n---\n";
    let bottom = "## Codebase Patterns\n- [PATTERN] errors name the file\n";
    let mut log = String::from("# Ralph Progress Log\nStarted: x\n---\n");
    log.push_str(top);
    for i in 0..20 {
        log.push_str(&entry(
            "2026-01-17",
            &format!("US-{i}"),
            &format!("fact {i}"),
        ));
    }
    log.push_str(bottom);
    let c = compact(log.as_bytes(), &opts(50, 20)).unwrap();
    let out = text(&c);
    assert!(out.contains(top) && out.ends_with(bottom), "{out}");
    assert_eq!(
        Log::parse(&c.bytes).codebase_patterns(),
        Log::parse(log.as_bytes()).codebase_patterns()
    );
    // The section goes where the first old entry was: after the top patterns section.
    assert!(out.find(top).unwrap() < out.find("## Compacted History").unwrap());
}

#[test]
fn other_blocks_stay_and_blank_gaps_between_old_entries_go() {
    let mut log = String::new();
    for i in 0..10 {
        log.push_str(&entry(
            "2026-01-17",
            &format!("US-{i}"),
            &format!("fact {i}"),
        ));
        log.push_str("\n\n");
        if i == 3 {
            log.push_str("## Notes from the human\nremember the demo\n");
        }
    }
    let c = compact(log.as_bytes(), &opts(10, 8)).unwrap();
    let out = text(&c);
    assert!(out.contains("## Notes from the human\nremember the demo\n"));
    // Gaps between old entries went with them; the gap after the last old entry stays.
    assert!(
        out.contains("---\n## Notes from the human\nremember the demo\n\n\n## 2026-01-17 - US-9\n"),
        "{out}"
    );
    assert_eq!(out.matches("\n\n\n").count(), 2, "{out}");
}

#[test]
fn entries_without_separator_are_compacted_whole() {
    let mut log = String::new();
    for i in 0..10 {
        log.push_str(&format!(
            "## 2026-01-17 - US-{i}\n- did {i}\n- **Learnings:**\n  - lesson {i}\n"
        ));
    }
    let c = compact(log.as_bytes(), &opts(10, 8)).unwrap();
    let out = text(&c);
    assert_eq!(c.stats.entries_compacted, 8);
    assert!(out.contains("- US-0 (2026-01-17): did 0\n"));
    assert!(out.contains("- lesson 7\n"));
    assert!(out.ends_with("## 2026-01-17 - US-9\n- did 9\n- **Learnings:**\n  - lesson 9\n"));
}

#[test]
fn empty_file_and_file_without_entries_are_left_alone() {
    assert!(matches!(
        compact(b"", &opts(400, 200)),
        Err(CompactError::UnderThreshold { lines: 0, .. })
    ));
    let forced = Options {
        force: true,
        ..opts(0, 0)
    };
    assert!(matches!(
        compact(b"", &forced),
        Err(CompactError::NothingOld { entries: 0, .. })
    ));
    let notes = "# Notes\n".repeat(50);
    assert!(matches!(
        compact(notes.as_bytes(), &opts(10, 0)),
        Err(CompactError::NothingOld { entries: 0, .. })
    ));
}

#[test]
fn a_result_that_is_not_shorter_is_refused() {
    let log = "## 2026-01-17 - US-1\n---\n## 2026-01-18 - US-2\n---\n";
    assert_eq!(
        compact(log.as_bytes(), &opts(1, 2)).unwrap_err(),
        CompactError::NotShorter {
            before: 4,
            after: 8
        }
    );
}

#[test]
fn crlf_log_stays_crlf() {
    let lf = String::from_utf8(FIXTURE.to_vec()).unwrap();
    let crlf = lf.replace('\n', "\r\n");
    let c = compact(crlf.as_bytes(), &opts(100, 40)).unwrap();
    let out = text(&c);
    assert!(!out.replace("\r\n", "").contains('\n'), "no bare LF");
    assert_eq!(
        out.replace("\r\n", "\n"),
        text(&compact(FIXTURE, &opts(100, 40)).unwrap())
    );
}

#[test]
fn non_utf8_bytes_are_kept_as_they_are() {
    let mut log = Vec::new();
    for i in 0..10 {
        log.extend_from_slice(format!("## 2026-01-17 - US-{i}\n- caf").as_bytes());
        log.extend_from_slice(b"\xe9 \xff\n- **Learnings:**\n  - bytes \xfe\xfd ");
        log.extend_from_slice(format!("{i}\n---\n").as_bytes());
    }
    let c = compact(&log, &opts(10, 8)).unwrap();
    assert!(
        c.bytes.windows(8).any(|w| w == b"caf\xe9 \xff\n-"),
        "kept entry verbatim"
    );
    assert!(
        c.bytes.windows(11).any(|w| w == b"- bytes \xfe\xfd "),
        "learning bytes kept"
    );
    assert!(c.bytes.windows(15).any(|w| w == b"(2026-01-17): c"));
}

struct Fake(Result<&'static str, &'static str>);

impl Summarizer for Fake {
    fn summarize(&self, prompt: &str) -> Result<String, SummarizeError> {
        assert!(prompt.contains("### Key Decisions") && prompt.contains("OLD ENTRIES:"));
        self.0
            .map(str::to_string)
            .map_err(|e| SummarizeError::Other(e.to_string()))
    }
}

fn small_log() -> String {
    (0..6)
        .map(|i| {
            entry(
                "2026-01-17",
                &format!("US-{i}"),
                if i % 2 == 0 {
                    "Use fsutil for writes"
                } else {
                    "Errors name the file"
                },
            )
        })
        .collect()
}

fn with(s: Fake) -> Options {
    Options {
        summarizer: Some(Arc::new(s)),
        ..opts(10, 8)
    }
}

#[test]
fn agent_answer_is_used_when_it_passes_the_check() {
    let answer = "## Summary\nSix stories built.\n### Key Decisions\n- Use fsutil for writes\n- Errors name the file\n### Resolution\nDone.\n";
    let c = compact(small_log().as_bytes(), &with(Fake(Ok(answer)))).unwrap();
    assert_eq!(c.stats.method, SummaryMethod::Agent);
    let out = text(&c);
    assert!(out.contains("### Summary\nSix stories built.\n"), "{out}");
    assert!(out.contains("- US-0 (2026-01-17): Implemented US-0\n"));
    assert!(!out.contains("### Learnings"));
    let sections: Vec<&str> = out.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        sections,
        ["## Compacted History", "## 2026-01-17 - US-5"],
        "{out}"
    );
}

#[test]
fn rejected_or_failed_agent_falls_back_to_the_deterministic_summary() {
    let plain = compact(small_log().as_bytes(), &opts(10, 8)).unwrap();
    for (fake, why) in [
        (Fake(Ok("")), "empty"),
        (
            Fake(Ok("### Summary\n- Use fsutil for writes\n")),
            "drops the learning",
        ),
        (
            Fake(Ok(Box::leak(small_log().repeat(2).into_boxed_str()))),
            "not shorter",
        ),
        (Fake(Err("agent crashed")), "agent crashed"),
    ] {
        let c = compact(small_log().as_bytes(), &with(fake)).unwrap();
        assert_eq!(c.bytes, plain.bytes);
        match &c.stats.method {
            SummaryMethod::Fallback(reason) => assert!(reason.contains(why), "{reason}"),
            m => panic!("expected a fallback, got {m:?}"),
        }
    }
}

proptest::proptest! {
    #[test]
    fn never_panics_and_keeps_every_block_it_does_not_summarise(parts in proptest::collection::vec(
        proptest::prop_oneof![
            proptest::strategy::Just("## 2026-01-01 - US-1\n- did\n- **Learnings:**\n  - a fact\n---\n".as_bytes().to_vec()),
            proptest::strategy::Just(b"## Codebase Patterns\n- p\n".to_vec()),
            proptest::strategy::Just(b"## Compacted History\n### Stories\n- US-0 (d): x\n".to_vec()),
            proptest::strategy::Just(b"## Other\ntext\r\n".to_vec()),
            proptest::strategy::Just(b"---\n".to_vec()),
            proptest::strategy::Just(b"- [GOTCHA] g\n".to_vec()),
            proptest::collection::vec(proptest::num::u8::ANY, 0..10),
        ], 0..30), keep in 0usize..20) {
        let input: Vec<u8> = parts.concat();
        let Ok(c) = compact(&input, &opts(0, keep)) else { return Ok(()); };
        proptest::prop_assert!(c.stats.lines_after < c.stats.lines_before);
        let out = Log::parse(&c.bytes);
        proptest::prop_assert_eq!(
            out.blocks().iter().filter(|b| b.kind == BlockKind::CompactedHistory).count(), 1);
        for b in parse::scan(&input) {
            let bytes = &input[b.span.clone()];
            let kept = matches!(b.kind, BlockKind::Header | BlockKind::Patterns)
                || (b.kind == BlockKind::Other && !bytes.trim_ascii().is_empty());
            if kept {
                proptest::prop_assert!(c.bytes.windows(bytes.len()).any(|w| w == bytes));
            }
        }
    }
}

#[test]
fn auto_compacts_only_when_over_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(auto(dir.path(), &opts(100, 40)).unwrap(), None, "no file");
    let path = dir.path().join("progress.txt");
    std::fs::write(&path, FIXTURE).unwrap();
    assert_eq!(auto(dir.path(), &Options::default()).unwrap(), None);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        FIXTURE,
        "untouched under the threshold"
    );
    let summary = auto(dir.path(), &opts(100, 40)).unwrap().unwrap();
    assert_eq!(
        (
            summary.lines_before,
            summary.lines_after,
            summary.entries_compacted
        ),
        (169, 91, 9)
    );
    assert_eq!(summary.method, SummaryMethod::Deterministic);
    assert_eq!(
        std::fs::read(dir.path().join(&summary.archive)).unwrap(),
        FIXTURE
    );
    let expected = compact(FIXTURE, &opts(100, 40)).unwrap().bytes;
    assert_eq!(std::fs::read(&path).unwrap(), expected);
    assert!(
        summary
            .to_string()
            .starts_with("compacted progress.txt: 169 -> 91 lines, 9 entries")
    );
    assert_eq!(
        auto(dir.path(), &opts(10, 40)).unwrap(),
        None,
        "nothing old left"
    );
}
