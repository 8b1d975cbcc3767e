//! `ralph show <story-id>`: what a story produced — its attempts (outcome, time, verify,
//! usage, reason, merge, the ref keeping a sent-back attempt), commits, files changed, its
//! progress.txt entry, the total agent time and the refs keeping its unmerged work — or that
//! it has not run yet.
//!
//! [`build`] is pure: a story, its state and its [`StoryOutputs`] (read by
//! [`crate::state::outputs::read`], the same reader the context builder uses) in, a [`Show`]
//! out; [`text`] renders it for a terminal. `crate::cli::show` reads the files and prints.
//!
//! Also what people told live runs about the story: the `ralph steer` notes that reached it,
//! its `ralph skip` / `retry` ([`Steered`], [`HeldByPerson`]).

use serde::Serialize;
use std::fmt::Write as _;

use crate::agent::telemetry::Usage;
use crate::graph::State;
use crate::prd::Story;
use crate::report::{duration, when};
use crate::state::history::ControlKind;
use crate::state::outputs::StoryOutputs;

/// Everything `ralph show` says about one story.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Show {
    pub id: String,
    pub title: String,
    /// `done`, `ready`, `blocked` or `removed`.
    pub state: &'static str,
    /// The blockers that do not pass yet, when blocked.
    pub blocked_by: Vec<String>,
    /// The story's own verify commands (`verify` in prd.json), run after the run's.
    pub verify: Vec<String>,
    /// The story's `redGreen`: its red-green gate on or off whatever the run says.
    pub red_green: Option<bool>,
    /// Whether any iteration ran the story.
    pub ran: bool,
    pub attempts: Vec<Attempt>,
    /// `head_before..head_after` of each done attempt.
    pub commits: Vec<Commit>,
    /// Files changed by any attempt, sorted, each once.
    pub files_changed: Vec<String>,
    /// The steering notes that reached its prompts (`ralph steer`), oldest first.
    pub steering: Vec<Steered>,
    /// When people held it (`ralph skip`) or released it (`ralph retry`), oldest first.
    pub held: Vec<HeldByPerson>,
    /// The latest progress.txt entry for the story.
    pub progress_entry: Option<String>,
    /// The agent's time over every attempt.
    pub agent_ms: u64,
    /// Refs holding work of this story's that `branchName` lacks (parallel runs): its story
    /// branch, which the next run resumes, and attempt refs (filled in by the command, which
    /// asks git).
    pub kept: Vec<KeptWork>,
}

/// A ref that keeps some of the story's work, and why it is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct KeptWork {
    #[serde(flatten)]
    pub kept: crate::kept::Kept,
    pub why: String,
}

/// One iteration that ran the story.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Attempt {
    pub run_id: String,
    pub iteration: u32,
    /// The outcome's record name (`done`, `verify-failed`, …).
    pub outcome: String,
    pub duration_ms: u64,
    pub verify_passed: usize,
    pub verify_total: usize,
    /// The first verify command that failed.
    pub verify_failed: Option<String>,
    pub usage: Option<Usage>,
    pub reason: Option<String>,
    /// Parallel runs: the merge result (`merged`, `conflict`, `verify-failed`).
    pub merge: Option<String>,
    /// Parallel runs: the ref that keeps a sent-back attempt.
    pub attempt_ref: Option<String>,
    pub worker: Option<u32>,
    /// The review of a gated attempt (`ralph run --review`): verdict, items, round.
    pub review: Option<crate::state::history::ReviewRecord>,
    /// The iteration's log (what the agent said, readable), relative to the project root.
    pub log: String,
    /// The agent's raw output as printed (a structured agent's events), when kept.
    pub events: Option<String>,
    /// The agent CLI's version, when it was told.
    pub agent_version: Option<String>,
    /// What the red-green gate's red run gave (`ralph run --red-green`).
    pub red_green: Option<crate::state::history::RedGreenRecord>,
}

/// The commits of a done attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Commit {
    pub before: Option<String>,
    pub after: Option<String>,
}

/// A steering note that reached the story.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Steered {
    pub run_id: String,
    /// RFC 3339, when the run took it.
    pub time: String,
    /// Given for this story only; false: for every story.
    pub this_story: bool,
    pub text: String,
}

/// `ralph skip` or `ralph retry` of the story.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct HeldByPerson {
    pub run_id: String,
    pub time: String,
    /// `skip` or `retry`.
    pub action: &'static str,
}

/// Build the account of `story` in `state` from its outputs.
pub(crate) fn build(story: &Story, state: &State, out: &StoryOutputs) -> Show {
    let blocked_by = match state {
        State::Blocked { unmet } => unmet.iter().map(ToString::to_string).collect(),
        _ => Vec::new(),
    };
    let attempts = out.records.iter().map(attempt).collect();
    let commits = out
        .records
        .iter()
        .filter(|r| r.outcome == crate::state::history::Outcome::Done)
        .map(|r| Commit {
            before: r.head_before.clone(),
            after: r.head_after.clone(),
        })
        .collect();
    let files: std::collections::BTreeSet<&String> = out
        .records
        .iter()
        .flat_map(|r| r.files_changed.iter())
        .collect();
    let (steering, held) = people(out);
    Show {
        id: story.id.clone(),
        title: story.title.clone(),
        state: state.name(),
        blocked_by,
        verify: story.verify.clone(),
        red_green: story.red_green,
        ran: !out.records.is_empty(),
        attempts,
        commits,
        files_changed: files.into_iter().cloned().collect(),
        steering,
        held,
        progress_entry: out.progress_entry.clone(),
        agent_ms: out.records.iter().map(|r| r.duration_ms).sum(),
        kept: Vec::new(),
    }
}

/// One history record as an attempt of the story.
fn attempt(r: &crate::state::history::Record) -> Attempt {
    Attempt {
        run_id: r.run_id.clone(),
        iteration: r.iteration,
        outcome: serde_json::to_value(r.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        duration_ms: r.duration_ms,
        verify_passed: r.verify.iter().filter(|v| v.passed).count(),
        verify_total: r.verify.len(),
        verify_failed: r
            .verify
            .iter()
            .find(|v| !v.passed)
            .map(|v| v.command.clone()),
        usage: r.usage.clone(),
        reason: r.reason.clone(),
        merge: r.merge.as_ref().map(|m| m.result.clone()),
        attempt_ref: r.attempt_ref.clone(),
        worker: r.worker,
        review: r.review.clone(),
        log: format!(".ralph/runs/{}/iter-{}.log", r.run_id, r.iteration),
        events: r.events.clone(),
        agent_version: r.agent_version.clone(),
        red_green: r.red_green.clone(),
    }
}

/// "kept work (not on the branch):" and a line per ref, or nothing.
fn kept_text(o: &mut String, s: &Show) {
    if s.kept.is_empty() {
        return;
    }
    o.push_str("kept work, not on the branch:\n");
    for k in &s.kept {
        let _ = writeln!(
            o,
            "  {} at {} \"{}\": {}",
            k.kept.short(),
            short(Some(&k.kept.commit)),
            k.kept.subject,
            k.why
        );
    }
}

/// An attempt's review: `review (round 1, codex): changes` and the items.
fn review_text(o: &mut String, r: &crate::state::history::ReviewRecord) {
    let verdict = match r.verdict.as_str() {
        "approve" => "approved",
        "changes" => "changes requested",
        _ => "no verdict",
    };
    let _ = write!(
        o,
        "\n    review (round {}, {}): {verdict}",
        r.round, r.reviewer
    );
    if let Some(why) = &r.why {
        let _ = write!(o, " ({why})");
    }
    for i in &r.items {
        let _ = write!(o, "\n      - {i}");
    }
}

/// An attempt's red run: `red run (1.2s): red: tests/a.rs on abc1234; `cargo test` exited 101`.
fn red_green_text(o: &mut String, r: &crate::state::history::RedGreenRecord) {
    let what = match r.result.as_str() {
        "red" => "failed without the change, as required",
        "green" => "passed without the change: the tests do not test it (sent back)",
        "no-tests" => "no test file changed (sent back)",
        _ => "inconclusive",
    };
    let _ = write!(o, "\n    red run ({}): {what}", duration(r.duration_ms));
    if let Some(why) = &r.why {
        let _ = write!(o, " ({why})");
    }
    if !r.test_files.is_empty() {
        let _ = write!(
            o,
            "\n      tests: {} on {}",
            r.test_files.join(", "),
            short(r.base.as_deref())
        );
    }
    for v in &r.verify {
        let how = match (v.passed, v.timed_out, v.exit_code) {
            (true, _, _) => "passed".to_string(),
            (false, true, _) => "timed out".to_string(),
            (false, false, Some(c)) => format!("exited {c}"),
            (false, false, None) => "was killed".to_string(),
        };
        let _ = write!(o, "\n      `{}` {how}", v.command);
    }
}

/// The story's own checks and its red-green setting, when it has them.
fn verify_lines(o: &mut String, s: &Show) {
    if !s.verify.is_empty() {
        let cmds: Vec<String> = s.verify.iter().map(|c| format!("`{c}`")).collect();
        let _ = writeln!(
            o,
            "verify (this story, after the run's): {}",
            cmds.join(", ")
        );
    }
    match s.red_green {
        Some(true) => o.push_str("red-green: on for this story\n"),
        Some(false) => o.push_str("red-green: off for this story\n"),
        None => {}
    }
}

/// The state as a person reads it: `done`, `ready`, `blocked by US-001, US-002`, `removed`.
pub(crate) fn state_text(s: &Show) -> String {
    if s.blocked_by.is_empty() {
        s.state.to_string()
    } else {
        format!("blocked by {}", s.blocked_by.join(", "))
    }
}

/// What people told live runs about the story: the notes that reached it, its holds and
/// releases.
fn people(out: &StoryOutputs) -> (Vec<Steered>, Vec<HeldByPerson>) {
    let steering = out
        .control
        .iter()
        .filter(|c| c.control == ControlKind::Steer)
        .map(|c| Steered {
            run_id: c.run_id.clone(),
            time: c.time.clone(),
            this_story: c.story.is_some(),
            text: c.text.clone().unwrap_or_default(),
        })
        .collect();
    let held = out
        .control
        .iter()
        .filter(|c| matches!(c.control, ControlKind::Skip | ControlKind::Retry))
        .map(|c| HeldByPerson {
            run_id: c.run_id.clone(),
            time: c.time.clone(),
            action: c.control.name(),
        })
        .collect();
    (steering, held)
}

/// The steering notes and holds, as lines (empty when there are none).
fn control_text(o: &mut String, s: &Show) {
    if !s.steering.is_empty() {
        o.push_str("steering notes (ralph steer):\n");
        for n in &s.steering {
            let whom = if n.this_story { "" } else { ", every story" };
            let _ = writeln!(o, "  {} (run {}{whom}):", when(&n.time), n.run_id);
            for line in n.text.lines() {
                let _ = writeln!(o, "    > {line}");
            }
        }
    }
    for h in &s.held {
        let what = if h.action == "skip" {
            "held (ralph skip)"
        } else {
            "released (ralph retry)"
        };
        let _ = writeln!(o, "{what}: {} (run {})", when(&h.time), h.run_id);
    }
}

/// The first 10 characters of a commit id (whatever history.jsonl holds in its place).
fn short(sha: Option<&str>) -> &str {
    sha.map_or("?", |s| {
        s.char_indices().nth(10).map_or(s, |(at, _)| &s[..at])
    })
}

/// The account for a terminal: every string from history.jsonl, progress.txt or an agent made
/// [`crate::ui::printable`] (newlines kept).
pub(crate) fn text(s: &Show) -> String {
    crate::ui::printable_lines(&raw_text(s))
}

fn raw_text(s: &Show) -> String {
    if !s.ran {
        return not_run_text(s);
    }
    let mut o = String::new();
    let _ = writeln!(o, "{}: {}", s.id, s.title);
    let _ = writeln!(o, "state: {}", state_text(s));
    verify_lines(&mut o, s);
    let _ = writeln!(
        o,
        "attempts: {} (agent time {})",
        s.attempts.len(),
        duration(s.agent_ms)
    );
    for a in &s.attempts {
        attempt_text(&mut o, a);
    }
    if !s.commits.is_empty() {
        o.push_str("commits:\n");
        for c in &s.commits {
            let _ = writeln!(
                o,
                "  {}..{}",
                short(c.before.as_deref()),
                short(c.after.as_deref())
            );
        }
    }
    if !s.files_changed.is_empty() {
        let _ = writeln!(o, "files changed ({}):", s.files_changed.len());
        for f in &s.files_changed {
            let _ = writeln!(o, "  {f}");
        }
    }
    control_text(&mut o, s);
    match &s.progress_entry {
        Some(e) => {
            let _ = write!(o, "progress.txt entry:\n{}\n", e.trim_end());
        }
        None => o.push_str("progress.txt entry: none\n"),
    }
    kept_text(&mut o, s);
    o
}

/// A story that has no history record yet: its state, checks, progress entry, what people
/// told live runs about it and its kept work.
fn not_run_text(s: &Show) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} has not run yet ({})", s.id, state_text(s));
    verify_lines(&mut o, s);
    o.pop();
    if let Some(e) = &s.progress_entry {
        let _ = write!(o, "\n\nprogress.txt entry:\n{}", e.trim_end());
    }
    let mut people = String::new();
    control_text(&mut people, s);
    if !people.is_empty() {
        o.push('\n');
        o.push_str(people.trim_end_matches('\n'));
    }
    o.push('\n');
    kept_text(&mut o, s);
    o
}

/// One attempt: `  iteration 1 (run): done, 1.2s, verify 1/1, …` and its details below.
fn attempt_text(o: &mut String, a: &Attempt) {
    let _ = write!(
        o,
        "  iteration {} ({}): {}, {}",
        a.iteration,
        a.run_id,
        a.outcome,
        duration(a.duration_ms)
    );
    if a.verify_total > 0 {
        let _ = write!(o, ", verify {}/{}", a.verify_passed, a.verify_total);
        if let Some(f) = &a.verify_failed {
            let _ = write!(o, " (failed: {f})");
        }
    }
    if let Some(u) = &a.usage {
        let _ = write!(
            o,
            ", {} in / {} out tokens",
            u.input_tokens, u.output_tokens
        );
        if let Some(c) = u.cost_usd {
            let _ = write!(o, ", ${c:.2}");
        }
    }
    if let Some(w) = a.worker {
        let _ = write!(o, ", worker {w}");
    }
    if let Some(m) = &a.merge {
        let _ = write!(o, ", merge: {m}");
    }
    if let Some(r) = &a.attempt_ref {
        let _ = write!(o, "\n    kept at: {r}");
    }
    if let Some(r) = &a.reason {
        let _ = write!(o, "\n    reason: {r}");
    }
    if let Some(r) = &a.review {
        review_text(o, r);
    }
    if let Some(r) = &a.red_green {
        red_green_text(o, r);
    }
    let _ = write!(o, "\n    log: {}", a.log);
    if let Some(e) = &a.events {
        let _ = write!(o, "; raw events: {e}");
    }
    o.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::history::{Outcome, Record, VerifyResult};

    fn story() -> Story {
        let prd = crate::prd::Prd::from_bytes(
            std::path::Path::new("prd.json"),
            br#"{"userStories":[{"id":"US-001","title":"Add login","passes":false}]}"#,
        )
        .unwrap();
        prd.stories[0].clone()
    }

    fn record(outcome: Outcome, files: &[&str], verify_ok: bool) -> Record {
        serde_json::from_value(serde_json::json!({
            "run_id": "r1", "iteration": 1, "story": "US-001", "agent": "claude",
            "start": "2026-11-26T10:00:00Z", "duration_ms": 65000, "exit_code": 0,
            "timed_out": false, "signal_seen": true, "outcome": "done",
            "head_before": "aaaaaaaaaaaaaaaa", "head_after": "bbbbbbbbbbbbbbbb",
            "files_changed": files,
        }))
        .map(|mut r: Record| {
            r.outcome = outcome;
            r.verify = vec![VerifyResult {
                command: "cargo test".into(),
                exit_code: Some(i32::from(!verify_ok)),
                passed: verify_ok,
                timed_out: false,
                duration_ms: 10,
            }];
            r
        })
        .unwrap()
    }

    #[test]
    fn a_story_with_no_record_has_not_run() {
        let s = build(&story(), &State::Ready, &StoryOutputs::default());
        assert!(!s.ran);
        assert_eq!(text(&s), "US-001 has not run yet (ready)\n");
    }

    #[test]
    fn attempts_commits_files_and_entry() {
        let out = StoryOutputs {
            progress_entry: Some("## 2026-11-26 - US-001\n- did it\n".into()),
            records: vec![
                record(Outcome::VerifyFailed, &["src/a.rs"], false),
                record(Outcome::Done, &["src/b.rs", "src/a.rs"], true),
            ],
            control: vec![],
        };
        let s = build(&story(), &State::Done, &out);
        assert_eq!(s.attempts.len(), 2);
        assert_eq!(s.attempts[0].outcome, "verify-failed");
        assert_eq!(s.attempts[0].verify_failed.as_deref(), Some("cargo test"));
        assert_eq!(s.commits.len(), 1);
        assert_eq!(s.files_changed, ["src/a.rs", "src/b.rs"]);
        assert_eq!(s.agent_ms, 130_000);
        let t = text(&s);
        assert!(t.contains("verify 0/1 (failed: cargo test)"), "{t}");
        assert!(t.contains("aaaaaaaaaa..bbbbbbbbbb"), "{t}");
        assert!(t.contains("- did it"), "{t}");
        assert!(t.contains("agent time 2m 10s"), "{t}");
    }

    #[test]
    fn kept_work_is_named_with_why() {
        let mut s = build(&story(), &State::Ready, &StoryOutputs::default());
        s.kept.push(KeptWork {
            kept: crate::kept::Kept {
                name: "refs/heads/ralph/x--US-001".into(),
                kind: crate::kept::Kind::StoryBranch,
                commit: "0123456789abcdef".into(),
                subject: "half done".into(),
                story: Some("US-001".into()),
                ahead: 2,
            },
            why: "the next run resumes it".into(),
        });
        let t = text(&s);
        assert!(
            t.ends_with("kept work, not on the branch:\n  ralph/x--US-001 at 0123456789 \"half done\": the next run resumes it\n"),
            "{t}"
        );
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["kept"][0]["ref"], "refs/heads/ralph/x--US-001");
        assert_eq!(v["kept"][0]["kind"], "story-branch");
        assert_eq!(v["kept"][0]["ahead"], 2);
    }

    #[test]
    fn odd_commit_ids_and_control_characters_from_the_files_never_break_the_text() {
        let mut r = record(Outcome::Done, &["src/a.rs"], true);
        r.head_before = Some("aéééééééééééé".into());
        r.head_after = Some("b".into());
        r.reason = Some("stuck \x1b[31mred\x1b[0m".into());
        let out = StoryOutputs {
            progress_entry: Some("## entry\n- bell \x07 here\n".into()),
            records: vec![r],
            control: vec![],
        };
        let t = text(&build(&story(), &State::Done, &out));
        assert!(t.contains("aééééééééé..b"), "{t}");
        assert!(!t.chars().any(|c| c.is_control() && c != '\n'), "{t:?}");
        assert!(t.contains("- bell \u{fffd} here\n"), "{t}");
    }

    #[test]
    fn steering_notes_and_holds_are_shown_even_before_a_run() {
        use crate::state::history::ControlRecord;
        let ctl = |control, story: Option<&str>, text: Option<&str>| ControlRecord {
            control,
            run_id: "r1".into(),
            time: "2026-11-26T10:00:05Z".into(),
            request: "q".into(),
            story: story.map(String::from),
            text: text.map(String::from),
        };
        let out = StoryOutputs {
            control: vec![
                ctl(
                    ControlKind::Steer,
                    None,
                    Some("use the client\nnot the raw API"),
                ),
                ctl(ControlKind::Steer, Some("US-001"), Some("keep the schema")),
                ctl(ControlKind::Skip, Some("US-001"), None),
                ctl(ControlKind::Retry, Some("US-001"), None),
            ],
            ..StoryOutputs::default()
        };
        let s = build(&story(), &State::Ready, &out);
        assert_eq!(s.steering.len(), 2);
        assert!(!s.steering[0].this_story && s.steering[1].this_story);
        assert_eq!(
            s.held.iter().map(|h| h.action).collect::<Vec<_>>(),
            ["skip", "retry"]
        );
        assert_eq!(
            text(&s),
            "US-001 has not run yet (ready)\n\
             steering notes (ralph steer):\n\
             \x20 2026-11-26 10:00:05 UTC (run r1, every story):\n\
             \x20   > use the client\n\
             \x20   > not the raw API\n\
             \x20 2026-11-26 10:00:05 UTC (run r1):\n\
             \x20   > keep the schema\n\
             held (ralph skip): 2026-11-26 10:00:05 UTC (run r1)\n\
             released (ralph retry): 2026-11-26 10:00:05 UTC (run r1)\n"
        );
    }
}
