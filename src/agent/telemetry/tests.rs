//! Telemetry read from what the real CLIs printed (tests/fixtures/telemetry/real: captured by
//! scripts/agent-contract.sh, each with the usage its model server sent), Amp's documented
//! transcript (its model sits behind Amp's own server), plain text, malformed and odd input.

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

fn read(rel: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/telemetry/{rel}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fixture(format: Format, rel: &str) -> (Vec<String>, Usage) {
    let (shown, usage) = feed(format, &read(rel));
    (shown, usage.unwrap())
}

/// What the contract's model server sent for the calls of `kinds` (`main`, `aux`), added up
/// the way ralph counts: every prompt token is input, the cache reads are the cached ones.
fn sent(rel: &str, kinds: &[&str]) -> (u64, u64, u64) {
    let (mut input, mut cached, mut output) = (0, 0, 0);
    for line in read(rel).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if !kinds.contains(&v["kind"].as_str().unwrap_or("")) {
            continue;
        }
        let u = &v["usage_sent"];
        let n = |k: &str| u.pointer(k).and_then(Value::as_u64).unwrap_or(0);
        if u.get("promptTokenCount").is_some() {
            // Gemini: the prompt count includes the cached part.
            input += n("/promptTokenCount");
            cached += n("/cachedContentTokenCount");
            output += n("/candidatesTokenCount");
        } else if u.get("input_tokens_details").is_some() {
            // OpenAI Responses: input_tokens includes the cached part.
            input += n("/input_tokens");
            cached += n("/input_tokens_details/cached_tokens");
            output += n("/output_tokens");
        } else {
            // Anthropic Messages: three disjoint parts.
            input += n("/input_tokens")
                + n("/cache_creation_input_tokens")
                + n("/cache_read_input_tokens");
            cached += n("/cache_read_input_tokens");
            output += n("/output_tokens");
        }
    }
    (input, cached, output)
}

fn tokens(u: &Usage) -> (u64, u64, u64) {
    (u.input_tokens, u.cached_tokens, u.output_tokens)
}

const REAL: [(Format, &str); 4] = [
    (Format::Claude, "real/claude-2.1.332"),
    (Format::Codex, "real/codex-0.171.0"),
    (Format::Gemini, "real/gemini-0.61.0"),
    (Format::Opencode, "real/opencode-1.18.33"),
];

#[test]
fn every_truncation_of_every_transcript_line_is_read_without_a_panic() {
    let mut all: Vec<(Format, String)> = REAL
        .iter()
        .flat_map(|(f, n)| {
            [
                (*f, format!("{n}.jsonl")),
                (*f, format!("{n}.interrupted.jsonl")),
            ]
        })
        .collect();
    all.push((Format::Copilot, "real/copilot-1.0.102.jsonl".into()));
    all.push((Format::Amp, "amp.jsonl".into()));
    for (f, name) in all {
        let text = read(&name);
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
fn claude_totals_come_from_the_result_not_the_message_snapshots() {
    let (shown, u) = fixture(Format::Claude, "real/claude-2.1.332.jsonl");
    // Every assistant event says output_tokens: 1 (its start); the result has the totals.
    assert_eq!(
        tokens(&u),
        sent("real/claude-2.1.332.server.jsonl", &["main"])
    );
    assert!(!u.partial);
    assert_eq!(u.turns, Some(3));
    assert_eq!(u.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert!(u.cost_usd.is_some());
    insta::assert_snapshot!(shown.join("\n"), @r#"
    → Bash: echo alpha > a.txt
    → Bash: sed -i '/"id": "US-001"/s/"passes": false/"passes": true/' prd.json && git add -A && git commit -qm 'US-001: a.txt' && echo committed
    Created a.txt and marked US-001 done.
    STORY COMPLETE: US-001
    [result: success · 3 turn(s) · 4422 tokens in (1206 cached) / 66 out · $0.0111]
    "#);
}

#[test]
fn claude_without_its_result_records_partial_usage_not_an_undercount() {
    let (_, u) = fixture(Format::Claude, "real/claude-2.1.332.interrupted.jsonl");
    assert!(u.partial, "{u:?}");
    let (input, cached, _) = sent("real/claude-2.1.332.interrupted.server.jsonl", &["main"]);
    // The prompt is known when a message starts; its output is not.
    assert_eq!((u.input_tokens, u.cached_tokens), (input, cached));
    assert_eq!(u.turns, Some(1));
    assert_eq!(u.cost_usd, None);
}

#[test]
fn amp_messages_are_final_and_add_up() {
    let (shown, u) = fixture(Format::Amp, "amp.jsonl");
    assert_eq!(
        u.input_tokens,
        (12783 + 367 + 12416) + (210 + 13150) + (150 + 13400)
    );
    assert_eq!(u.cached_tokens, 12416 + 13150 + 13400);
    assert_eq!(u.output_tokens, 48 + 96 + 20);
    assert!(!u.partial);
    assert_eq!((u.cost_usd, u.model.as_deref()), (None, None));
    assert_eq!(u.turns, Some(3));
    assert_eq!(
        u.session_id.as_deref(),
        Some("T-2775dc92-90ed-4f85-8b73-8f9766029e83")
    );
    insta::assert_snapshot!(shown.join("\n"), @r#"
    Let me run the failing test.
    → Bash: cargo test cart::total
    → edit_file: /home/dev/shop/src/cart.rs
    The total now includes tax.
    <promise>COMPLETE</promise>
    [result: success · 3 turn(s) · 52476 tokens in (38966 cached) / 164 out]
    "#);
    // Cut before its result, the messages so far are what it used: partial.
    let text = read("amp.jsonl");
    let cut: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains(r#""type":"result""#))
        .collect();
    let (_, u) = feed(Format::Amp, &cut.join("\n"));
    let u = u.unwrap();
    assert!(u.partial);
    assert_eq!(u.output_tokens, 48 + 96 + 20);
}

#[test]
fn claude_counts_a_message_repeated_per_content_block_once() {
    let line = r#"{"type":"assistant","message":{"id":"m1","content":[],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":7}}}"#;
    let (_, u) = feed(Format::Claude, &format!("{line}\n{line}\n"));
    let u = u.unwrap();
    assert_eq!((u.input_tokens, u.output_tokens), (5, 7));
}

#[test]
fn codex_warnings_are_warnings_and_its_one_turn_is_not_a_model_call_count() {
    let (shown, u) = fixture(Format::Codex, "real/codex-0.171.0.jsonl");
    assert_eq!(
        tokens(&u),
        sent("real/codex-0.171.0.server.jsonl", &["main"])
    );
    assert_eq!(u.turns, None);
    assert!(!u.partial);
    assert!(u.session_id.is_some());
    insta::assert_snapshot!(shown.join("\n"), @r#"
    warning: Model metadata for `gpt-5.1-codex` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.
    → shell: /bin/bash -lc 'echo alpha > a.txt' (exit 0)
    → shell: /bin/bash -lc "sed -i '/\"id\": \"US-001\"/s/\"passes\": false/\"passes\": true/' prd.json && git add -A && git commit -qm 'US-001: a.txt' && echo committed" (exit 0)
    Created a.txt and marked US-001 done.
    STORY COMPLETE: US-001
    "#);
    let (_, u) = feed(Format::Codex, &read("real/codex-0.171.0.interrupted.jsonl"));
    let u = u.expect("a session that started records partial usage");
    assert!(u.partial);
    assert_eq!(tokens(&u), (0, 0, 0));
}

#[test]
fn gemini_records_the_models_it_used_not_auto() {
    let (shown, u) = fixture(Format::Gemini, "real/gemini-0.61.0.jsonl");
    // The router's call is billed too: every call counts.
    assert_eq!(
        tokens(&u),
        sent("real/gemini-0.61.0.server.jsonl", &["main", "aux"])
    );
    assert_eq!(u.model.as_deref(), Some("gemini-3.8-flash"));
    assert!(!u.partial);
    insta::assert_snapshot!(shown.join("\n"), @r#"
    → run_shell_command: echo alpha > a.txt
    → run_shell_command: sed -i '/"id": "US-001"/s/"passes": false/"passes": true/' prd.json && git add -A && git commit -qm 'US-001: a.txt' && echo committed
    Created a.txt and marked US-001 done.
    STORY COMPLETE: US-001
    [result: success · 5710 tokens in (1610 cached) / 90 out]
    "#);
    let (_, u) = feed(
        Format::Gemini,
        &read("real/gemini-0.61.0.interrupted.jsonl"),
    );
    assert!(u.unwrap().partial);
}

#[test]
fn opencode_adds_up_its_steps_and_an_open_step_is_partial() {
    let (shown, u) = fixture(Format::Opencode, "real/opencode-1.18.33.jsonl");
    // Its title call (`aux`) is in no event: the steps are what it reports.
    assert_eq!(
        tokens(&u),
        sent("real/opencode-1.18.33.server.jsonl", &["main"])
    );
    assert_eq!(u.turns, Some(3));
    assert!(u.cost_usd.is_some());
    assert!(!u.partial);
    insta::assert_snapshot!(shown.join("\n"), @r#"
    → bash: echo alpha > a.txt
    → bash: sed -i '/"id": "US-001"/s/"passes": false/"passes": true/' prd.json && git add -A && git commit -qm 'US-001: a.txt' && echo committed
    Created a.txt and marked US-001 done.
    STORY COMPLETE: US-001
    "#);
    let (_, u) = feed(
        Format::Opencode,
        &read("real/opencode-1.18.33.interrupted.jsonl"),
    );
    assert!(u.unwrap().partial);
}

#[test]
fn copilot_json_mode_shows_its_messages_and_takes_the_tokens_from_its_usage_file() {
    let mut t = Telemetry::new(Format::Copilot);
    let text = read("real/copilot-1.0.102.jsonl");
    let mut shown: Vec<String> = text.lines().filter_map(|l| t.line(l)).collect();
    shown.extend(t.finish());
    assert_eq!(t.usage(), None, "no tokens before the usage file");
    t.copilot_usage_file(&read("real/copilot-1.0.102.usage.json"));
    let u = t.usage().unwrap();
    assert_eq!(
        tokens(&u),
        sent("real/copilot-1.0.102.json-mode.server.jsonl", &["main"])
    );
    assert_eq!(u.turns, Some(3));
    assert_eq!(u.model.as_deref(), Some("claude-sonnet-4.5"));
    assert!(!u.partial);
    insta::assert_snapshot!(shown.join("\n"), @r#"
    → bash: echo alpha > a.txt
    → bash: sed -i '/"id": "US-001"/s/"passes": false/"passes": true/' prd.json && git add -A && git commit -qm 'US-001: a.txt' && echo committed
    Created a.txt and marked US-001 done.
    STORY COMPLETE: US-001
    [result: success]
    "#);
}
