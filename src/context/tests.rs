//! Tests of the assembler's policy: order, zones, the budget invariant, redaction, determinism.

use proptest::prelude::*;

use super::account::{PinStatus, Status};
use super::assemble::assemble;
use super::budget::Zone;
use super::inputs::{DepOutput, Inputs, PinHit, RemainingStory};
use super::*;
use crate::prd::Story;

fn story(id: &str) -> Story {
    Story {
        index: 1,
        id: id.into(),
        title: "Add dependency-aware selection".into(),
        description: "As Ralph, I want to pick only ready stories.".into(),
        acceptance_criteria: vec!["Blocked stories are skipped".into(), "Tests pass".into()],
        priority: 2,
        passes: false,
        notes: "Keep it small".into(),
        blocked_by: vec!["US-001".into()],
        removed: false,
        discovered_from: None,
        verify: vec![],
        red_green: None,
    }
}

fn spec(name: &str, lines: usize) -> String {
    (1..=lines)
        .map(|i| format!("{name} spec line {i}: details that matter\n"))
        .collect()
}

fn entry(id: &str, bullets: usize) -> String {
    let mut e = format!("## 2026-01-17 22:10 - {id}\n");
    for i in 0..bullets {
        e.push_str(&format!("- did thing {i} for {id}\n"));
    }
    e.push_str("---\n");
    e
}

fn inputs() -> Inputs {
    Inputs {
        instructions: Flavour::Claude.embedded().to_string(),
        story: story("US-002"),
        retry: None,
        steering: vec![],
        deps: vec![DepOutput {
            id: "US-001".into(),
            title: "Validate blockedBy".into(),
            progress_entry: Some(entry("US-001", 6)),
            files_changed: vec!["src/prd/validate.rs".into()],
            commit: Some("abc1234".into()),
        }],
        patterns: Some("- Use atomic writes for every file\n- Errors name the file\n".into()),
        errors: vec![],
        pins: (1..=5)
            .map(|i| PinHit {
                name: format!("Module {i}"),
                score: 10.0 / i as f64,
                matched: vec!["ready".into(), "story".into()],
                files: vec![format!("src/m{i}/mod.rs"), format!("src/m{i}/util.rs")],
                spec: Some(format!("specs/m{i}.md")),
                spec_excerpt: Some(spec(&format!("m{i}"), 150)),
            })
            .collect(),
        recent: vec![entry("US-000", 40), entry("US-001", 6), entry("US-009", 50)],
        keywords: vec!["ready".into(), "story".into()],
        remaining: vec![
            RemainingStory {
                id: "US-003".into(),
                title: "Pin format".into(),
            },
            RemainingStory {
                id: "US-004".into(),
                title: "Discovery protocol".into(),
            },
        ],
        files: (1..=3)
            .map(|i| ranked(&format!("src/m{i}/mod.rs"), "fn ready() -> bool"))
            .collect(),
        has_pin: true,
        branch: Some("ralph/deps".into()),
        notes: vec![],
    }
}

fn ranked(path: &str, sig: &str) -> crate::index::Ranked {
    crate::index::Ranked {
        path: path.into(),
        kind: crate::index::kind::Kind::of(path),
        score: 1.0,
        matched: vec![("ready".into(), 1.0)],
        evidence: vec![],
        symbols: vec![crate::index::facts::Symbol {
            kind: "fn".into(),
            name: "ready".into(),
            line: 3,
            sig: sig.into(),
        }],
        outline: vec![crate::index::facts::Symbol {
            kind: "struct".into(),
            name: "Queue".into(),
            line: 9,
            sig: "pub struct Queue".into(),
        }],
        summary: "A module.".into(),
    }
}

fn big() -> Options {
    Options {
        budget: 1_000_000,
        ..Options::default()
    }
}

#[test]
fn sections_come_in_priority_order_with_everything_under_a_large_budget() {
    let a = assemble(&inputs(), &big()).unwrap();
    let p = &a.prompt;
    let at = |needle: &str| {
        p.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} not in prompt"))
    };
    let order = [
        at("DISCOVERY PROTOCOL"),
        at("# Your story: US-002 - Add dependency-aware selection"),
        at("- Blocked stories are skipped"),
        at("# What the stories it depends on produced"),
        at("Commit: abc1234"),
        at("\n# Codebase Patterns (from progress.txt)"),
        at("# Relevant modules from the Pin"),
        at("## 1. Module 1 (score 10.00; matched: ready, story)"),
        at("## 5. Module 5"),
        at("# Recent progress"),
        at("# Remaining stories"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    // Spec excerpts stop at spec_lines (100) lines.
    assert!(p.contains("m1 spec line 100:"));
    assert!(!p.contains("m1 spec line 101:"));
    assert!(p.ends_with("US-003 Pin format; US-004 Discovery protocol\n"));
    assert_eq!(a.reduced_for, Zone::Green);
    // Every section but the errors seen before (none learned here) and the steering notes
    // (no live run) is there in full.
    assert!(a.sections.iter().all(|s| s.status == Status::Kept
        || matches!(s.name, "errors" | "steering") && s.status == Status::Empty));
    assert!(a.pins.iter().all(|p| p.status == PinStatus::Full && !p.cut));
}

#[test]
fn recent_entries_skip_blockers_entries_and_keep_the_last_n() {
    let mut inp = inputs();
    inp.recent = (0..6).map(|i| entry(&format!("US-10{i}"), 2)).collect();
    inp.recent.push(entry("US-001", 6)); // already shown as the blocker's output
    let a = assemble(&inp, &big()).unwrap();
    let recent = &a.prompt[a.prompt.find("# Recent progress").unwrap()..];
    assert!(!recent.contains("US-001"));
    assert!(!recent.contains("US-102"));
    for id in ["US-103", "US-104", "US-105"] {
        assert!(recent.contains(id), "{id}");
    }
}

#[test]
fn retry_note_shows_the_tail_of_why_the_last_attempt_failed() {
    let mut inp = inputs();
    let mut out = String::new();
    for i in 0..5000 {
        out.push_str(&format!("test line {i} ok\n"));
    }
    out.push_str("test tricky ... FAILED\n");
    inp.retry = Some(out);
    let opts = Options {
        budget: 8_000,
        ..Options::default()
    };
    let a = assemble(&inp, &opts).unwrap();
    assert!(a.prompt.contains("## Why the last attempt failed"));
    assert!(a.prompt.contains("test tricky ... FAILED"));
    assert!(!a.prompt.contains("test line 0 ok"));
    assert_eq!(a.sections[1].status, Status::Shortened);
    assert!(a.tokens <= 8_000);
}

#[test]
fn core_over_budget_is_a_clear_error() {
    let err = assemble(
        &inputs(),
        &Options {
            budget: 300,
            ..Options::default()
        },
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("story US-002"), "{msg}");
    assert!(msg.contains("over the budget of 300 tokens"), "{msg}");
    assert!(msg.contains("--budget"), "{msg}");
}

/// Shrinking the budget walks through every zone, and each zone's reductions hold.
#[test]
fn each_zone_applies_its_reductions() {
    let inp = inputs();
    let full = assemble(&inp, &big()).unwrap().tokens;
    let mut seen = std::collections::BTreeSet::new();
    for pct in (40..=300).rev().step_by(2) {
        let budget = full * 100 / pct;
        let Ok(a) = assemble(
            &inp,
            &Options {
                budget,
                ..Options::default()
            },
        ) else {
            continue;
        };
        assert!(a.tokens <= budget);
        seen.insert(a.reduced_for);
        let status = |name: &str| a.sections.iter().find(|s| s.name == name).unwrap().status;
        let level = a.reduced_for;
        if level < Zone::Critical {
            assert!(a.zone < Zone::Critical, "{a:?}");
        }
        if level >= Zone::Yellow && level < Zone::Critical {
            assert_ne!(a.pins[0].status, PinStatus::Full, "budget {budget}");
            assert!(!a.prompt.contains("m1 spec line 21:"));
        }
        if level >= Zone::Orange && level < Zone::Critical {
            assert_ne!(a.pins[1].status, PinStatus::NamesOnly);
            assert!(a.pins[2..].iter().all(|p| p.status == PinStatus::NamesOnly));
            assert!(a.prompt.contains("## 5. Module 5"));
            assert!(!a.prompt.contains("m5 spec line 1:"));
        }
        if level >= Zone::Red {
            assert_eq!(status("recent"), Status::Dropped);
            assert!(!a.prompt.contains("# Recent progress"));
        } else {
            assert_eq!(status("recent"), Status::Kept);
        }
        if level == Zone::Critical {
            for s in ["dependencies", "pin", "remaining"] {
                assert_eq!(status(s), Status::Dropped, "{s}");
            }
            assert!(a.pins.iter().all(|p| p.status == PinStatus::Dropped));
            assert_ne!(status("patterns"), Status::Empty);
            assert!(a.prompt.contains("# Your story: US-002"));
        }
    }
    // Also the tightest budgets: only the core and what is left of the patterns.
    let core_only = assemble(
        &inp,
        &Options {
            budget: full / 5,
            ..Options::default()
        },
    )
    .unwrap();
    seen.insert(core_only.reduced_for);
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), Zone::ALL.to_vec());
}

/// A learned error pattern whose signature is `text`'s lines, chosen as alike.
fn chosen(text: &str) -> crate::errors_seen::Chosen {
    crate::errors_seen::Chosen {
        pattern: crate::state::errors_seen::Pattern {
            id: "0123456789".into(),
            command: "sh check.sh".into(),
            signature: text.lines().map(str::to_string).collect(),
            fix: crate::state::errors_seen::Fix {
                files: vec!["src/m1/mod.rs".into()],
                diff: "src/m1/mod.rs +2 -1".into(),
                learning: Some("quote the value".into()),
                ..Default::default()
            },
            story: "US-000".into(),
            ..Default::default()
        },
        why: crate::errors_seen::select::Why::Similar(1.0),
    }
}

#[test]
fn errors_seen_before_follow_the_codebase_patterns_and_go_in_the_red_zone() {
    let mut inp = inputs();
    inp.errors = vec![chosen(
        "error: bad value N in cfg.toml\n<promise>COMPLETE</promise>\nkey AKIAIOSFODNN7EXAMPLE",
    )];
    let a = assemble(&inp, &big()).unwrap();
    let p = &a.prompt;
    let at = |needle: &str| p.find(needle).unwrap_or_else(|| panic!("{needle}: {p}"));
    // Where to look, then the Codebase Patterns, then the errors seen before, then the Pin.
    assert!(at("# Where to look") < at("- Errors name the file"));
    assert!(at("- Errors name the file") < at("# Errors seen before"));
    assert!(at("# Errors seen before") < at("Module 1"));
    assert!(p.contains("    error: bad value N in cfg.toml\n"));
    assert!(p.contains("Fixed in US-000 by changing: src/m1/mod.rs +2 -1"));
    assert!(
        !p.contains("    <promise>COMPLETE</promise>"),
        "a signal line never goes in"
    );
    assert!(!p.contains("AKIAIOSFODNN7EXAMPLE"));
    assert_eq!(a.error_patterns.len(), 1);
    assert!(a.error_patterns[0].shown);
    assert!(a.explain().contains("error pattern 0123456789 (shown)"));
    let errors = a.sections.iter().find(|s| s.name == "errors").unwrap();
    assert_eq!(errors.status, Status::Kept);

    // No patterns: the prompt is the same as before the section existed.
    let none = assemble(&inputs(), &big()).unwrap();
    assert!(!none.prompt.contains("Errors seen before"));
    assert!(none.error_patterns.is_empty());

    // Squeezed: the section goes once recent progress goes, before the files and the story.
    let mut tight = big();
    for budget in (1_000..30_000).rev().step_by(500) {
        tight.budget = budget;
        let Ok(a) = assemble(&inp, &tight) else { break };
        let st = |n: &str| a.sections.iter().find(|s| s.name == n).unwrap().status;
        if st("errors") == Status::Dropped {
            assert_eq!(st("recent"), Status::Dropped);
            assert!(!a.error_patterns[0].shown);
            return;
        }
        assert_ne!(st("files"), Status::Dropped, "budget {budget}");
    }
    panic!("the section was never dropped");
}

#[test]
fn an_error_pattern_counts_as_shown_only_when_its_header_survived_the_cut() {
    let mut inp = inputs();
    let long: String = (0..40)
        .map(|i| format!("error: line {i} of a long failure in src/m1/mod.rs near the value\n"))
        .collect();
    inp.errors = ["aaaa000001", "bbbb000002", "cccc000003"]
        .iter()
        .map(|id| {
            let mut c = chosen(&long);
            c.pattern.id = id.to_string();
            c
        })
        .collect();
    let mut opts = big();
    let mut mixed = false;
    for budget in (2_000..60_000).step_by(250) {
        opts.budget = budget;
        let Ok(a) = assemble(&inp, &opts) else {
            continue;
        };
        for e in &a.error_patterns {
            let header = format!("(pattern {})\n", e.id);
            assert_eq!(
                e.shown,
                a.prompt.contains(&header),
                "budget {budget}: {}",
                e.id
            );
        }
        mixed |=
            a.error_patterns.iter().any(|e| e.shown) && a.error_patterns.iter().any(|e| !e.shown);
    }
    assert!(mixed, "some budget cuts the section between two patterns");
}

#[test]
fn patterns_are_cut_then_dropped_when_only_the_core_fits() {
    let mut inp = inputs();
    inp.patterns = Some((0..400).map(|i| format!("- pattern {i}\n")).collect());
    let core = assemble(
        &Inputs {
            patterns: None,
            deps: vec![],
            pins: vec![],
            recent: vec![],
            remaining: vec![],
            ..inp.clone()
        },
        &big(),
    )
    .unwrap()
    .prompt;
    // Instructions and story only: "Where to look" goes at 95% like the rest.
    let files = &core[core.find("\n# Where to look").unwrap()..];
    let core = budget::tokens_for_chars(core.chars().count() - files.chars().count());
    let a = assemble(
        &inp,
        &Options {
            budget: core + 100,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(a.sections[5].name, "patterns");
    assert_eq!(a.sections[5].status, Status::Shortened);
    assert!(a.prompt.contains("- pattern 0\n"));
    assert!(!a.prompt.contains("- pattern 399"));
    assert!(a.tokens <= core + 100);
    let a = assemble(
        &inp,
        &Options {
            budget: core + 5,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(a.sections[5].status, Status::Dropped);
    assert!(!a.prompt.contains("# Codebase Patterns (from"));
}

fn note(this_story: bool, text: &str) -> SteerNote {
    SteerNote {
        this_story,
        when: "14:20".into(),
        text: text.into(),
    }
}

#[test]
fn steering_notes_follow_the_story_quoted_and_redacted() {
    let mut inp = inputs();
    inp.steering = vec![
        note(false, "Use the new API client\nSTORY COMPLETE: US-002"),
        note(
            true,
            "Leave the schema alone; key sk-ant-api03-abcdefghijklmnopqrstuvwx",
        ),
    ];
    let a = assemble(&inp, &big()).unwrap();
    let p = &a.prompt;
    let story = p.find("# Your story: US-002").unwrap();
    let steer = p
        .find("\n# Steering from the person running ralph")
        .unwrap();
    let deps = p.find("# What the stories it depends on produced").unwrap();
    assert!(story < steer && steer < deps, "{p}");
    assert!(p.contains("- For every story (14:20):\n  > Use the new API client\n"));
    assert!(p.contains("- For this story (14:20):\n  > Leave the schema alone"));
    assert!(!p.contains("sk-ant-"));
    assert_eq!(a.redactions.get("anthropic-key"), 1);
    // A note's line never reads as the agent's signal (the echo check would then ignore the
    // agent's own).
    for line in p.lines() {
        assert_eq!(
            crate::agent::detect::signal_line(line, "US-002"),
            None,
            "{line}"
        );
    }
    let s = a.sections.iter().find(|s| s.name == "steering").unwrap();
    assert_eq!(s.status, Status::Kept);
}

#[test]
fn steering_keeps_the_newest_notes_in_its_share_and_gives_way_last() {
    let mut inp = inputs();
    // Far over an eighth of the budget together: the oldest go first.
    inp.steering = (0..40)
        .map(|i| note(false, &format!("note {i}: {}", "word ".repeat(100))))
        .collect();
    let opts = Options {
        budget: 12_000,
        ..Options::default()
    };
    let a = assemble(&inp, &opts).unwrap();
    assert!(a.prompt.contains("note 39:"));
    assert!(!a.prompt.contains("note 0:"));
    assert!(
        a.prompt
            .contains("earlier note(s) left out for the prompt's size")
    );
    let s = a.sections.iter().find(|s| s.name == "steering").unwrap();
    assert_eq!(s.status, Status::Shortened);
    // The critical zone leaves instructions, story, steering and patterns: the note stays.
    let core = assemble(
        &Inputs {
            deps: vec![],
            pins: vec![],
            recent: vec![],
            remaining: vec![],
            patterns: None,
            steering: vec![],
            ..inp.clone()
        },
        &big(),
    )
    .unwrap()
    .prompt;
    let files = &core[core.find("\n# Where to look").unwrap()..];
    let core = budget::tokens_for_chars(core.chars().count() - files.chars().count());
    inp.steering = vec![note(true, "short and important")];
    let tight = Options {
        budget: core + 120,
        ..Options::default()
    };
    let a = assemble(&inp, &tight).unwrap();
    assert!(a.prompt.contains("short and important"), "{}", a.explain());
    assert!(!a.prompt.contains("# Recent progress"));
    assert!(a.tokens <= core + 120);
    // Below what even the newest note needs: the section goes, the budget holds.
    let a = assemble(
        &inp,
        &Options {
            budget: core + 5,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(!a.prompt.contains("short and important"));
    let s = a.sections.iter().find(|s| s.name == "steering").unwrap();
    assert_eq!(s.status, Status::Dropped);
}

#[test]
fn secrets_never_reach_the_prompt_and_are_counted() {
    let mut inp = inputs();
    inp.story.notes = "token sk-ant-api03-abcdefghijklmnopqrstuvwx".into();
    inp.patterns = Some("- DB at postgres://app:hunter22@db/app\n".into());
    inp.pins[0].spec_excerpt = Some("AWS key AKIAIOSFODNN7EXAMPLE\n".into());
    let a = assemble(&inp, &big()).unwrap();
    assert!(!a.prompt.contains("sk-ant-"));
    assert!(!a.prompt.contains("hunter22"));
    assert!(!a.prompt.contains("AKIAIOSFODNN7EXAMPLE"));
    assert_eq!(a.redactions.get("anthropic-key"), 1);
    assert_eq!(a.redactions.get("connection-string"), 1);
    assert_eq!(a.redactions.get("aws-access-key"), 1);
    assert_eq!(a.redactions.total(), 3);
}

#[test]
fn a_long_remaining_list_is_one_line_with_a_count() {
    let mut inp = inputs();
    inp.remaining = (0..5000)
        .map(|i| RemainingStory {
            id: format!("US-{i:04}"),
            title: "A story with a reasonably long title".into(),
        })
        .collect();
    let a = assemble(&inp, &Options::default()).unwrap();
    let last = a.prompt.lines().last().unwrap();
    assert!(last.starts_with("US-0000 A story"), "{last}");
    assert!(last.ends_with(" more)"), "{last}");
    let remaining = a.sections.iter().find(|s| s.name == "remaining").unwrap();
    assert_eq!(remaining.status, Status::Shortened);
}

#[test]
fn explain_table_lists_sections_pins_and_redactions() {
    let mut inp = inputs();
    inp.patterns = Some("- api_key = abcdef123\n".into());
    let a = assemble(
        &inp,
        &Options {
            budget: 6_000,
            ..Options::default()
        },
    )
    .unwrap();
    insta::assert_snapshot!(a.explain());
    let v = a.to_json();
    assert!(v.get("schema_version").is_none(), "the envelope carries it");
    assert_eq!(v["story"], "US-002");
    assert_eq!(v["sections"].as_array().unwrap().len(), 10);
    assert_eq!(v["error_patterns"], serde_json::json!([]));
    assert_eq!(v["pins"][0]["name"], "Module 1");
    assert_eq!(v["redactions"]["password-assignment"], 1);
    assert_eq!(v["prompt"], a.prompt.as_str());
}

/// Lines drawn from fragments that stress the assembler: multi-byte characters, fences,
/// headings, secrets, empty and long lines.
const FRAGMENTS: &[&str] = &[
    "",
    "plain words here",
    "- a bullet",
    "## 2026-01-17 - US-001",
    "€é漢字 multi-byte",
    "```",
    "````rust",
    "---",
    "sk-ant-abcdefghijklmnopqrstuvwx",
    "password=hunter22",
    "a much longer line of text that goes on and on to take up room in the budget quickly",
];

fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..max)
        .prop_map(|parts| parts.join("\n"))
}

fn arb_deps() -> impl Strategy<Value = Vec<DepOutput>> {
    proptest::collection::vec(
        (text(3), proptest::option::of(text(40)), text(4)).prop_map(|(t, e, f)| DepOutput {
            id: "US-001".into(),
            title: t,
            progress_entry: e,
            files_changed: f.lines().map(String::from).collect(),
            commit: Some("abc".into()),
        }),
        0..3,
    )
}

fn arb_pins() -> impl Strategy<Value = Vec<PinHit>> {
    proptest::collection::vec(
        (text(2), 0.0f64..50.0, text(120)).prop_map(|(n, s, e)| PinHit {
            name: n,
            score: s,
            matched: vec!["x".into()],
            files: vec!["src/a.rs".into()],
            spec: None,
            spec_excerpt: Some(e),
        }),
        0..8,
    )
}

fn arb_files() -> impl Strategy<Value = Vec<crate::index::Ranked>> {
    proptest::collection::vec(
        (text(2), text(3)).prop_map(|(p, sig)| ranked(&p, &sig)),
        0..20,
    )
}

fn arb_remaining() -> impl Strategy<Value = Vec<RemainingStory>> {
    proptest::collection::vec(text(1), 0..40).prop_map(|rest| {
        rest.into_iter()
            .enumerate()
            .map(|(i, t)| RemainingStory {
                id: format!("US-{i}"),
                title: t,
            })
            .collect()
    })
}

fn arb_steering() -> impl Strategy<Value = Vec<SteerNote>> {
    proptest::collection::vec((any::<bool>(), text(40)), 0..4).prop_map(|steer| {
        steer
            .into_iter()
            .map(|(this_story, text)| SteerNote {
                this_story,
                when: "14:20".into(),
                text,
            })
            .collect()
    })
}

/// Inputs of every shape: each part drawn by its own generator, in a fixed order.
fn arb_inputs() -> impl Strategy<Value = Inputs> {
    (
        text(60),
        text(20),
        proptest::option::of(text(80)),
        arb_deps(),
        proptest::option::of(text(60)),
        arb_pins(),
        proptest::collection::vec(text(30), 0..6),
        arb_remaining(),
        arb_files(),
        proptest::collection::vec(text(2), 0..4),
        arb_steering(),
    )
        .prop_map(
            |(
                instr,
                desc,
                retry,
                deps,
                patterns,
                pins,
                recent,
                remaining,
                files,
                verify,
                steering,
            )| {
                let mut s = story("US-002");
                s.description = desc;
                Inputs {
                    instructions: instr,
                    story: s,
                    retry,
                    steering,
                    deps,
                    patterns,
                    errors: recent.iter().take(3).map(|t| chosen(t)).collect(),
                    pins,
                    recent,
                    keywords: vec![],
                    remaining,
                    files,
                    has_pin: verify.len() % 2 == 0,
                    branch: verify.first().cloned(),
                    notes: verify,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn prompt_never_exceeds_the_budget_and_is_deterministic(
        inp in arb_inputs(),
        budget in 0usize..12_000,
        knobs in (0usize..8, 0usize..120, 0usize..30, 0usize..4, 0usize..5),
    ) {
        let (top_k, spec_lines, short_spec_lines, full_pin_entries, recent_entries) = knobs;
        let opts = Options {
            budget,
            top_k,
            spec_lines,
            short_spec_lines,
            full_pin_entries,
            recent_entries,
            files: 15,
            verify: inp.notes.clone(),
            red_green: budget % 2 == 0,
            save_index: false,
            instructions: None,
            steering: vec![],
        };
        match assemble(&inp, &opts) {
            Ok(a) => {
                prop_assert!(budget::estimate(&a.prompt) <= budget);
                prop_assert_eq!(a.tokens, budget::estimate(&a.prompt));
                prop_assert!(a.prompt.contains("# Your story: US-002"));
                prop_assert!(a.pins.len() <= top_k);
                let again = assemble(&inp, &opts);
                prop_assert_eq!(again.ok(), Some(a));
            }
            Err(ContextError::OverBudget { instructions, story_tokens, .. }) => {
                prop_assert!(instructions + story_tokens > budget);
                prop_assert!(assemble(&inp, &big()).is_ok());
            }
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }
}
