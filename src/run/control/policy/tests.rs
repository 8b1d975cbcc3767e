//! The requests' policy, every action and its edge: refusals name the file and the fix, idempotent
//! requests change nothing, holds and releases queue in order, notes reach the right prompts.

use super::*;

fn req(action: ControlKind, story: Option<&str>, text: Option<&str>) -> Request {
    Request {
        schema_version: SCHEMA_VERSION,
        id: "0000000000001-7-0".into(),
        run_id: "r1".into(),
        action,
        story: story.map(String::from),
        text: text.map(String::from),
        time: "2026-11-26T10:00:00Z".into(),
        pid: 7,
    }
}

fn stories() -> Vec<Story> {
    let s = |id: &str, passes, removed| Story {
        id: id.into(),
        passes,
        removed,
    };
    vec![
        s("US-001", true, false),
        s("US-002", false, false),
        s("US-003", false, false),
        s("US-009", false, true),
    ]
}

fn at(secs: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + secs).unwrap()
}

fn run<'a>(stories: &'a [Story], parallel: u32, secs: i64) -> Facts<'a> {
    Facts {
        run_id: "r1",
        parallel,
        stories: Ok(stories),
        prd: "prd.json",
        now: at(secs),
    }
}

fn running(story: &str) -> Claim {
    Claim {
        story: story.into(),
        title: format!("Title {story}"),
        state: "running",
        attempt: 2,
        worker: None,
        since: at(0),
    }
}

#[test]
fn pause_and_resume_are_idempotent_and_say_what_finishes() {
    let st = stories();
    let mut b = Board::default();
    let view = View {
        claims: vec![running("US-002")],
        ..View::default()
    };
    let a = apply(
        &mut b,
        &view,
        &run(&st, 1, 0),
        &req(ControlKind::Pause, None, None),
    );
    assert!(a.accepted && a.changed);
    assert_eq!(
        a.message,
        "paused: US-002 (attempt 2) finishes, then no new iteration starts until `ralph resume`"
    );
    assert_eq!(a.record.as_ref().unwrap().control, ControlKind::Pause);
    assert!(b.paused());
    let again = apply(
        &mut b,
        &view,
        &run(&st, 1, 5),
        &req(ControlKind::Pause, None, None),
    );
    assert!(again.accepted && !again.changed && again.record.is_none());
    assert!(
        again.message.starts_with("already paused (since "),
        "{}",
        again.message
    );
    let r = apply(
        &mut b,
        &view,
        &run(&st, 1, 130),
        &req(ControlKind::Resume, None, None),
    );
    assert_eq!(r.message, "resumed after 2m10s");
    assert!(!b.paused());
    let r = apply(
        &mut b,
        &view,
        &run(&st, 1, 131),
        &req(ControlKind::Resume, None, None),
    );
    assert!(r.accepted && !r.changed);
    assert_eq!(r.message, "not paused; nothing to resume");
    let p = apply(
        &mut b,
        &View::default(),
        &run(&st, 3, 0),
        &req(ControlKind::Pause, None, None),
    );
    assert_eq!(
        p.message,
        "paused: no new claim or attempt starts until `ralph resume`; queued stories still merge"
    );
}

#[test]
fn a_request_for_another_run_is_refused() {
    let st = stories();
    let mut b = Board::default();
    let mut r = req(ControlKind::Pause, None, None);
    r.run_id = "old".into();
    let a = apply(&mut b, &View::default(), &run(&st, 1, 0), &r);
    assert!(!a.accepted);
    assert!(
        a.message.contains("for run old, but the live run is r1"),
        "{}",
        a.message
    );
    assert!(!b.paused());
}

#[test]
fn a_note_is_checked_redacted_recorded_and_reaches_the_right_prompts() {
    let st = stories();
    let mut b = Board::default();
    let v = View {
        claims: vec![running("US-002")],
        ..View::default()
    };
    let f = run(&st, 1, 0);
    notes_refused(&mut b, &v, &f);
    notes_kept(&mut b, &v, &f);
    let unreadable = Facts {
        stories: Err("expected value at line 1 column 1".into()),
        ..run(&st, 1, 0)
    };
    notes_without_prd(&mut b, &v, &unreadable);
}

/// An empty, a too long note, an unknown, a done or a removed story: refused, nothing kept.
fn notes_refused(b: &mut Board, v: &View, f: &Facts<'_>) {
    let empty = apply(b, v, f, &req(ControlKind::Steer, None, Some("  \n")));
    assert!(!empty.accepted);
    assert!(empty.message.contains("needs text"));
    let long = "x".repeat(MAX_NOTE + 1);
    assert!(!apply(b, v, f, &req(ControlKind::Steer, None, Some(&long))).accepted);
    let unknown = apply(b, v, f, &req(ControlKind::Steer, Some("US-02"), Some("x")));
    assert_eq!(
        unknown.message,
        "no story US-02 in prd.json (did you mean US-002?); `ralph status` lists the ids"
    );
    let done = apply(b, v, f, &req(ControlKind::Steer, Some("US-001"), Some("x")));
    assert!(done.message.contains("US-001 already passes in prd.json"));
    let removed = apply(b, v, f, &req(ControlKind::Steer, Some("US-009"), Some("x")));
    assert!(removed.message.contains("is removed"));
    assert!(b.notes.is_empty(), "nothing refused is kept");
}

/// A note for every story (redacted in history) and one for one story: each reaches its prompts.
fn notes_kept(b: &mut Board, v: &View, f: &Facts<'_>) {
    let all = apply(
        b,
        v,
        f,
        &req(
            ControlKind::Steer,
            None,
            Some("use the client; key sk-ant-api03-abcdefghijklmnopqrstuvwx"),
        ),
    );
    assert_eq!(
        all.message,
        "steering note n1 for every story: it goes into every prompt from the next one until the run ends (agents running now do not see it)"
    );
    let rec = all.record.unwrap();
    assert_eq!(rec.story, None);
    assert!(
        rec.text
            .as_deref()
            .unwrap()
            .starts_with("use the client; key ")
    );
    assert!(
        !rec.text.unwrap().contains("sk-ant-"),
        "history keeps the redacted text"
    );
    let one = apply(
        b,
        v,
        f,
        &req(ControlKind::Steer, Some("US-003"), Some("only here")),
    );
    assert_eq!(
        one.message,
        "steering note n2 for US-003: it goes into US-003's next prompt and every later one in this run"
    );
    assert_eq!(one.record.unwrap().story.as_deref(), Some("US-003"));
    let for_2 = notes_for(&b.notes, "US-002");
    assert_eq!(for_2.len(), 1);
    assert!(!for_2[0].this_story);
    let for_3 = notes_for(&b.notes, "US-003");
    assert_eq!(for_3.len(), 2);
    assert_eq!(for_3[1].text, "only here");
    assert!(for_3[1].this_story);
    assert_eq!(for_3[1].when.len(), 8, "HH:MM:SS");
}

/// An unreadable prd.json refuses a note for one story, not one for every story.
fn notes_without_prd(b: &mut Board, v: &View, unreadable: &Facts<'_>) {
    let a = apply(
        b,
        v,
        unreadable,
        &req(ControlKind::Steer, Some("US-003"), Some("x")),
    );
    assert!(
        a.message
            .starts_with("cannot read prd.json: expected value"),
        "{}",
        a.message
    );
    // A note for every story needs no prd.json.
    assert!(apply(b, v, unreadable, &req(ControlKind::Steer, None, Some("x"))).accepted);
}

#[test]
fn skip_and_retry_queue_in_order_and_say_when_nothing_changes() {
    let st = stories();
    let mut b = Board::default();
    let mut v = View {
        claims: vec![running("US-002")],
        ..View::default()
    };
    let f = run(&st, 1, 0);
    skip_then_retry(&mut b, &v, &f);
    b.changes.clear();
    v.held
        .insert("US-003".into(), "blocked: needs a key".into());
    held_by_the_loop(&mut b, &v, &f);
    refused_holds(&mut b, &v, &f);
}

/// `ralph skip` holds a running story (once), `ralph retry` releases it; a story not held is
/// not released.
fn skip_then_retry(b: &mut Board, v: &View, f: &Facts<'_>) {
    let s = apply(b, v, f, &req(ControlKind::Skip, Some("US-002"), None));
    assert_eq!(
        s.message,
        "US-002 is held for the rest of the run; `ralph retry US-002` releases it (its running attempt finishes first, and lands if it passes its checks)"
    );
    let twice = apply(b, v, f, &req(ControlKind::Skip, Some("US-002"), None));
    assert!(twice.accepted && !twice.changed);
    assert_eq!(
        twice.message,
        "US-002 is already held (requested with `ralph skip`); `ralph retry US-002` releases it"
    );
    assert_eq!(state(b, v, &fixed(), at(1)).held[0].reason, SKIPPED);
    let r = apply(b, v, f, &req(ControlKind::Retry, Some("US-002"), None));
    assert!(r.changed);
    assert_eq!(
        b.changes,
        vec![
            Change::Hold("US-002".into()),
            Change::Release("US-002".into())
        ]
    );
    assert!(state(b, v, &fixed(), at(1)).held.is_empty());
    let not_held = apply(b, v, f, &req(ControlKind::Retry, Some("US-003"), None));
    assert_eq!(
        not_held.message,
        "US-003 is not held in this run; nothing to release"
    );
    assert!(!not_held.changed);
}

/// Held by the loop itself (no progress, BLOCKED): skip says so, retry releases it too.
fn held_by_the_loop(b: &mut Board, v: &View, f: &Facts<'_>) {
    let again = apply(b, v, f, &req(ControlKind::Skip, Some("US-003"), None));
    assert!(
        again
            .message
            .contains("already held (blocked: needs a key)")
    );
    assert!(apply(b, v, f, &req(ControlKind::Retry, Some("US-003"), None)).changed);
}

/// A passing story, no story, an unknown one: refused.
fn refused_holds(b: &mut Board, v: &View, f: &Facts<'_>) {
    let passing = apply(b, v, f, &req(ControlKind::Skip, Some("US-001"), None));
    assert!(!passing.accepted);
    assert!(!apply(b, v, f, &req(ControlKind::Skip, None, None)).accepted);
    assert!(!apply(b, v, f, &req(ControlKind::Retry, Some("nope"), None)).accepted);
}

fn fixed() -> Fixed {
    Fixed {
        run_id: "r1".into(),
        pid: 7,
        pid_start: Some(99),
        prd: "prd.json".into(),
        started: at(0),
        parallel: 2,
        branch: Some("ralph/x".into()),
        limit: 10,
    }
}

#[test]
fn the_published_state_carries_claims_holds_notes_and_the_wait() {
    let st = stories();
    let mut b = Board::default();
    let mut v = View {
        claims: vec![
            running("US-002"),
            Claim {
                state: "merging",
                worker: Some(2),
                ..running("US-003")
            },
        ],
        wait: Some(("rate-limit", at(300))),
        iteration: 4,
        ..View::default()
    };
    v.held.insert("US-005".into(), "no progress".into());
    apply(
        &mut b,
        &v,
        &run(&st, 2, 0),
        &req(ControlKind::Pause, None, None),
    );
    apply(
        &mut b,
        &v,
        &run(&st, 2, 0),
        &req(ControlKind::Steer, None, Some("go")),
    );
    let s = state(&b, &v, &fixed(), at(9));
    assert!(s.paused);
    assert_eq!(s.paused_since.as_deref(), Some(at(0).to_string().as_str()));
    assert_eq!(s.claims[1].state, "merging");
    assert_eq!(s.claims[1].worker, Some(2));
    assert_eq!(s.held[0].story, "US-005");
    assert_eq!(s.steering[0].text, "go");
    assert_eq!(s.wait.unwrap().why, "rate-limit");
    assert_eq!((s.iteration, s.limit, s.parallel), (4, 10, 2));
}

#[test]
fn only_the_last_change_per_story_is_applied() {
    let (h, r) = (
        |s: &str| Change::Hold(s.into()),
        |s: &str| Change::Release(s.into()),
    );
    assert_eq!(
        net(vec![h("A"), h("B"), r("A"), h("C"), r("B"), h("B")]),
        vec![r("A"), h("C"), h("B")]
    );
    assert!(net(vec![]).is_empty());
}
