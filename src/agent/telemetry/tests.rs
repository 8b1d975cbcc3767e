//! Telemetry read from each documented transcript (tests/fixtures/telemetry), plain text,
//! malformed and odd input.

use super::*;

fn feed(format: Format, text: &str) -> (Vec<String>, Option<Usage>) {
    let mut t = Telemetry::new(format);
    let mut shown: Vec<String> = text.lines().filter_map(|l| t.line(l)).collect();
    shown.extend(t.finish());
    (shown, t.usage())
}

#[test]
fn plain_text_passes_through_with_no_usage() {
    let (shown, usage) = feed(Format::Plain, "{\"type\":\"result\"}\nhello\n");
    assert_eq!(shown, ["{\"type\":\"result\"}", "hello"]);
    assert_eq!(usage, None);
}

#[test]
fn malformed_json_in_a_structured_stream_is_plain_text() {
    for f in [
        Format::Claude,
        Format::Codex,
        Format::Gemini,
        Format::Opencode,
    ] {
        let (shown, usage) = feed(f, "{\"type\":\"assis\n[1,2]\n<promise>COMPLETE</promise>\n");
        assert_eq!(
            shown,
            ["{\"type\":\"assis", "[1,2]", "<promise>COMPLETE</promise>"]
        );
        assert_eq!(usage, None);
    }
}

#[test]
fn odd_values_never_panic() {
    let lines = [
        r#"{"type":"result","usage":{"input_tokens":-5,"output_tokens":1e300},"num_turns":99999999999,"total_cost_usd":"x"}"#,
        r#"{"type":"assistant","message":{"content":"not an array"}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use"},{"type":"text","text":7}]}}"#,
        r#"{"type":"item.completed","item":{"type":"file_change","changes":[{"path":3}]}}"#,
        r#"{"type":"message","role":"assistant","delta":true,"content":null}"#,
        r#"{"type":"step_finish","part":{"tokens":{"input":18446744073709551615,"cache":{"read":18446744073709551615}}}}"#,
    ];
    for f in [
        Format::Claude,
        Format::Codex,
        Format::Gemini,
        Format::Opencode,
    ] {
        let mut t = Telemetry::new(f);
        for l in lines {
            let _ = t.line(l);
        }
        let _ = t.finish();
    }
}

#[test]
fn gemini_pieces_are_shown_as_whole_lines() {
    let text = concat!(
        r#"{"type":"message","role":"assistant","content":"Done.\nSTORY COM","delta":true}"#,
        "\n",
        r#"{"type":"message","role":"assistant","content":"PLETE: US-1","delta":true}"#,
        "\n",
        r#"{"type":"result","status":"success","stats":{"input_tokens":10,"output_tokens":2}}"#,
    );
    let (shown, usage) = feed(Format::Gemini, text);
    let shown: Vec<&str> = shown.iter().flat_map(|s| s.lines()).collect();
    assert_eq!(shown[0], "Done.");
    assert_eq!(shown[1], "STORY COMPLETE: US-1");
    assert!(shown[2].starts_with("[result: success"));
    assert_eq!(usage.map(|u| u.input_tokens), Some(10));
}

fn fixture(format: Format, name: &str) -> (Vec<String>, Usage) {
    let path = format!(
        "{}/tests/fixtures/telemetry/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (shown, usage) = feed(format, &text);
    (shown, usage.unwrap())
}

#[test]
fn every_truncation_of_every_transcript_line_is_read_without_a_panic() {
    for (f, name) in [
        (Format::Claude, "claude.jsonl"),
        (Format::Codex, "codex.jsonl"),
        (Format::Gemini, "gemini.jsonl"),
        (Format::Opencode, "opencode.jsonl"),
    ] {
        let path = format!(
            "{}/tests/fixtures/telemetry/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        let mut t = Telemetry::new(f);
        for line in text.lines() {
            for (i, _) in line.char_indices() {
                let _ = t.line(&line[..i]);
            }
        }
        let _ = t.finish();
    }
}

#[test]
fn claude_stream_json_transcript() {
    let (shown, u) = fixture(Format::Claude, "claude.jsonl");
    assert_eq!(u.input_tokens, 18 + 5850 + 44150);
    assert_eq!(u.output_tokens, 267);
    assert_eq!(u.cached_tokens, 44150);
    assert_eq!(u.cost_usd, Some(0.0731));
    assert_eq!(u.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(u.turns, Some(5));
    assert_eq!(
        u.session_id.as_deref(),
        Some("4f0c6a1e-2b7d-4c55-9d1e-8a3b2f6c9e01")
    );
    insta::assert_snapshot!(shown.join("\n"), @r"
    I'll read the story and the failing test first.
    → Bash: cargo test cart::total
    → Edit: /home/dev/shop/src/cart.rs
    The total now includes tax and the tests pass.
    <promise>COMPLETE</promise>
    [result: success · 5 turn(s) · 50018 tokens in (44150 cached) / 267 out · $0.0731]
    ");
}

#[test]
fn amp_stream_json_transcript() {
    let (shown, u) = fixture(Format::Amp, "amp.jsonl");
    assert_eq!(
        u.input_tokens,
        (12783 + 367 + 12416) + (210 + 13150) + (150 + 13400)
    );
    assert_eq!(u.cached_tokens, 12416 + 13150 + 13400);
    assert_eq!(u.output_tokens, 48 + 96 + 20);
    assert_eq!((u.cost_usd, u.model.as_deref()), (None, None));
    assert_eq!(u.turns, Some(3));
    assert_eq!(
        u.session_id.as_deref(),
        Some("T-2775dc92-90ed-4f85-8b73-8f9766029e83")
    );
    insta::assert_snapshot!(shown.join("\n"), @r"
    Let me run the failing test.
    → Bash: cargo test cart::total
    → edit_file: /home/dev/shop/src/cart.rs
    The total now includes tax.
    <promise>COMPLETE</promise>
    [result: success · 3 turn(s) · 52476 tokens in (38966 cached) / 164 out]
    ");
}

#[test]
fn claude_counts_a_message_repeated_per_content_block_once() {
    let line = r#"{"type":"assistant","message":{"id":"m1","content":[],"usage":{"input_tokens":5,"output_tokens":7}}}"#;
    let (_, u) = feed(Format::Claude, &format!("{line}\n{line}\n"));
    let u = u.unwrap();
    assert_eq!((u.input_tokens, u.output_tokens), (5, 7));
}

#[test]
fn codex_exec_json_transcript() {
    let (shown, u) = fixture(Format::Codex, "codex.jsonl");
    assert_eq!(u.input_tokens, 24763 + 26549);
    assert_eq!(u.cached_tokens, 24448 + 22272);
    assert_eq!(u.output_tokens, 122 + 1590);
    assert_eq!((u.cost_usd, u.model.as_deref()), (None, None));
    assert_eq!(u.turns, Some(2));
    assert_eq!(
        u.session_id.as_deref(),
        Some("0199a213-81c0-7800-8aa1-bbab2a035a53")
    );
    insta::assert_snapshot!(shown.join("\n"), @r"
    → shell: bash -lc 'cargo test cart::total' (exit 101)
    → edit: src/cart.rs
    Fixed the total: it now adds tax.
    → shell: bash -lc 'cargo test' (exit 0)
    All tests pass.
    STORY COMPLETE: US-1
    ");
}

#[test]
fn gemini_stream_json_transcript() {
    let (shown, u) = fixture(Format::Gemini, "gemini.jsonl");
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cached_tokens),
        (24939, 174, 21263)
    );
    assert_eq!(u.cost_usd, None);
    assert_eq!(u.model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(
        u.session_id.as_deref(),
        Some("c25acda3-b6f0-4b1e-9a41-3d2e5f6a7b8c")
    );
    insta::assert_snapshot!(shown.join("\n"), @r"
    → run_shell_command: cargo test cart::total
    → replace: /home/dev/shop/src/cart.rs
    The total now includes tax.
    STORY COMPLETE: US-1
    [result: success · 24939 tokens in (21263 cached) / 174 out]
    ");
}

#[test]
fn opencode_run_json_transcript() {
    let (shown, u) = fixture(Format::Opencode, "opencode.jsonl");
    assert_eq!(u.input_tokens, 1200 + 9800 + 640 + 11000 + 300);
    assert_eq!(u.cached_tokens, 9800 + 11000);
    assert_eq!(u.output_tokens, 85 + 15 + 52);
    assert!((u.cost_usd.unwrap() - 0.0211).abs() < 1e-9);
    assert_eq!(u.turns, Some(2));
    assert_eq!(u.session_id.as_deref(), Some("ses_5f3a9c2e1ffeAbCdEf"));
    insta::assert_snapshot!(shown.join("\n"), @r"
    → bash: cargo test cart::total
    → edit: /home/dev/shop/src/cart.rs
    The total now includes tax.
    <promise>COMPLETE</promise>
    ");
}
