//! Unit tests of the report's model and its pure renderings.

use super::*;
use serde_json::json;

const FIXTURE: &str = include_str!("../../tests/fixtures/history/history.jsonl");

fn fixture(choice: &RunChoice) -> Result<Report, ReportError> {
    let (records, skipped) = parse_lines(FIXTURE);
    build(Path::new("h.jsonl"), &records, skipped, choice)
}

#[test]
fn the_latest_run_is_the_default_and_rows_follow_first_iterations() {
    let r = fixture(&RunChoice::Latest).unwrap();
    assert_eq!(r.runs, ["20261126T100000-5151"]);
    assert_eq!(r.skipped_lines, 1);
    let ids: Vec<&str> = r.stories.iter().map(|s| s.story.as_str()).collect();
    assert_eq!(ids.len(), 4);
    assert_eq!(ids[0], "US-001");
    let us2 = &r.stories[1];
    assert_eq!((us2.iterations, us2.duration_ms), (2, 260_000));
    assert_eq!(us2.outcome, "done");
    assert_eq!((us2.verify_passed, us2.verify_total), (2, 2));
    assert_eq!(us2.tokens, Some(150_000 + 5_100 + 90_000 + 2_900));
    assert_eq!(us2.workers, [2]);
    assert_eq!(
        (r.totals.done, r.totals.stories, r.totals.iterations),
        (3, 4, 6)
    );
    assert!(r.columns.workers && r.columns.cost && r.columns.merge && !r.columns.review);
    // 10:00:00 to 10:04:40 + 45 s.
    assert_eq!(r.totals.wall_ms, 325_000);
    let failed = &r.iterations[1];
    assert_eq!(failed.verify_failed.len(), 1);
    assert!(failed.verify_failed[0].contains("<ok>"));
}

#[test]
fn all_runs_and_an_unknown_run_with_did_you_mean() {
    let all = fixture(&RunChoice::All).unwrap();
    assert_eq!(all.runs.len(), 2);
    assert_eq!(all.totals.iterations, 8);
    let one = fixture(&RunChoice::Id("20261120T090000-4242".into())).unwrap();
    assert_eq!(one.totals.iterations, 2);
    assert!(!one.columns.tokens && !one.columns.workers);
    let err = fixture(&RunChoice::Id("20261120T090000-4243".into()))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("h.jsonl: no run \"20261120T090000-4243\""),
        "{err}"
    );
    assert!(
        err.contains("did you mean \"20261120T090000-4242\"?"),
        "{err}"
    );
    assert!(err.contains("--run all"), "{err}");
}

#[test]
fn an_empty_history_is_an_error_naming_the_file() {
    let err = build(Path::new("h.jsonl"), &[], 0, &RunChoice::Latest).unwrap_err();
    assert!(matches!(err, ReportError::Empty { .. }));
    assert!(err.to_string().starts_with("h.jsonl: no iterations"));
}

#[test]
fn odd_and_missing_fields_never_fail() {
    let records = vec![
        json!({"run_id": "r"}),
        json!({"run_id": "r", "story": 3, "start": "yesterday", "duration_ms": -1,
               "verify": "x", "usage": {"input_tokens": "many", "cost_usd": "free"},
               "worker": 0, "merge": 7, "review": {"verdict": "approve"}}),
        json!({"run_id": "r", "story": "B", "duration_ms": 2000, "usage": {"output_tokens": 5}}),
    ];
    let r = build(Path::new("h"), &records, 0, &RunChoice::Latest).unwrap();
    assert_eq!(r.iterations.len(), 3);
    assert_eq!(r.iterations[1].worker, 1);
    assert_eq!(r.iterations[1].usage, None);
    assert_eq!(r.iterations[1].review.as_deref(), Some("approve"));
    assert_eq!(r.iterations[2].offset_ms, 0);
    assert_eq!(r.totals.tokens, Some(5));
    // A negative cost is junk, dropped as `--max-cost` and `ralph status` drop it.
    let records: Vec<Value> = [0.1, 0.2, -5.0]
        .iter()
        .map(|c| json!({"run_id": "r", "story": "A", "usage": {"cost_usd": c}}))
        .collect();
    let r = build(Path::new("h"), &records, 0, &RunChoice::Latest).unwrap();
    assert_eq!(r.totals.cost_usd, Some(0.3));
    for page in [text::text(&r), text::markdown(&r), html::html(&r)] {
        assert!(!page.is_empty());
    }
}

#[test]
fn the_reviewers_usage_counts_with_the_agents_and_huge_counts_saturate() {
    let records = vec![
        json!({"run_id": "r", "story": "A",
               "usage": {"input_tokens": 100, "output_tokens": 10, "cost_usd": 0.5, "model": "m"},
               "review": {"verdict": "approve", "usage": {"input_tokens": 50, "cost_usd": 0.25}}}),
        json!({"run_id": "r", "story": "B", "review": {"verdict": "changes",
               "usage": {"output_tokens": 7}}}),
        json!({"run_id": "r", "story": "C", "usage": {"input_tokens": u64::MAX},
               "review": {"usage": {"input_tokens": u64::MAX, "output_tokens": u64::MAX}}}),
    ];
    let r = build(Path::new("h"), &records, 0, &RunChoice::Latest).unwrap();
    let a = r.iterations[0].usage.as_ref().unwrap();
    assert_eq!((a.input_tokens, a.output_tokens), (Some(150), Some(10)));
    assert_eq!(a.cost_usd, Some(0.75));
    assert_eq!(a.model.as_deref(), Some("m"));
    assert_eq!(
        r.iterations[1].usage.as_ref().unwrap().output_tokens,
        Some(7)
    );
    assert_eq!(
        r.iterations[2].usage.as_ref().unwrap().tokens(),
        Some(u64::MAX)
    );
    assert_eq!(r.totals.cost_usd, Some(0.75));
}

#[test]
fn lines_that_are_not_records_are_counted() {
    let (v, skipped) = parse_lines("{\"run_id\":\"a\"}\n\nnot json\n[1]\n{\"x\":1}\n");
    assert_eq!((v.len(), skipped), (1, 3));
}

#[test]
fn a_live_runs_control_lines_are_neither_iterations_nor_junk() {
    let text = "{\"run_id\":\"a\"}\n{\"control\":\"steer\",\"run_id\":\"a\",\"text\":\"x\"}\n";
    let (v, skipped) = parse_lines(text);
    assert_eq!((v.len(), skipped), (1, 0));
}

#[test]
fn html_escapes_every_string_from_the_file_and_loads_nothing() {
    let page = html::html(&fixture(&RunChoice::Latest).unwrap());
    assert!(!page.contains("<Tags"), "unescaped story id");
    assert!(page.contains("US-003 &lt;Tags &amp; &quot;labels&quot;&gt;"));
    assert!(page.contains("echo &quot;&lt;ok&gt;&quot;"));
    for external in ["http://", "https://", "<script", "<link", "src="] {
        assert!(!page.contains(external), "{external}");
    }
    assert_eq!(page.matches("class=\"bar ").count(), 6);
    assert_eq!(page.matches("<div class=\"lane\">").count(), 2);
}

#[test]
fn the_html_story_table_renders_the_text_tables_cells() {
    let records = vec![
        json!({"run_id": "r", "story": "A", "worker": 1, "outcome": "verify-failed"}),
        json!({"run_id": "r", "story": "A", "worker": 2, "outcome": "done"}),
    ];
    let r = build(Path::new("h"), &records, 0, &RunChoice::Latest).unwrap();
    assert!(text::text(&r).contains("1,2"), "{}", text::text(&r));
    let page = html::html(&r);
    let row = "<tr><td><code>A</code></td><td class=\"n\">2</td><td class=\"n\">0s</td>\
               <td><span class=\"pill o-done\">done</span></td><td>1,2</td></tr>";
    assert!(page.contains(row), "{page}");
    assert!(page.contains("<tr class=\"total\"><td>total (1 done of 1)</td>"));
}

#[test]
fn text_never_prints_a_control_character_from_the_file() {
    let records =
        vec![json!({"run_id": "r\u{1b}]0;x\u{7}", "story": "A\u{1b}[31mB", "outcome": "done\r"})];
    let r = build(Path::new("h"), &records, 0, &RunChoice::Latest).unwrap();
    for out in [text::text(&r), text::markdown(&r)] {
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
        assert!(out.contains("A\u{fffd}[31mB"), "{out}");
    }
}

#[test]
fn markdown_escapes_cell_breakers() {
    let records = vec![json!({"run_id": "r", "story": "A|B\nC", "outcome": "done"})];
    let r = build(Path::new("h"), &records, 0, &RunChoice::Latest).unwrap();
    assert!(text::markdown(&r).contains("| A\\|B\u{fffd}C |"));
}

#[test]
fn numbers_read_as_a_person_writes_them() {
    assert_eq!(duration(800), "0.8s");
    assert_eq!(duration(42_000), "42s");
    assert_eq!(duration(185_000), "3m 05s");
    assert_eq!(duration(3_720_000), "1h 02m");
    assert_eq!(thousands(1_234_567), "1,234,567");
    assert_eq!(thousands(12), "12");
    assert_eq!(cost(0.214), "$0.21");
    assert_eq!(cost(0.0031), "$0.0031");
    assert_eq!(
        when("2026-11-26T13:03:20.549463991Z"),
        "2026-11-26 13:03:20 UTC"
    );
    assert_eq!(when("2026-11-26T14:03:20+01:00"), "2026-11-26 13:03:20 UTC");
    assert_eq!(when("yesterday"), "yesterday");
}
