//! What a person's request does to the live run, decided without I/O: the [`Board`] (paused or
//! not, the steering notes, the holds and releases the loop has yet to apply) and the [`View`]
//! the loop gives of itself (its claims, the stories it holds, its wait) in; the [`Answer`] (taken
//! or refused, what changed, in a person's words, and the history line) out. Also which notes
//! go into a story's prompt ([`notes_for`]) and the published [`RunState`] ([`state`]).

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

use crate::context::SteerNote;
use crate::state::control::{ClaimView, Held, Note, Request, RunState, SCHEMA_VERSION, Wait};
use crate::state::history::{ControlKind, ControlRecord};

/// The longest steering note (characters): longer guidance belongs in a file the note names.
pub(crate) const MAX_NOTE: usize = 10_000;

/// Why a story is held after `ralph skip`.
pub(crate) const SKIPPED: &str = "requested with `ralph skip`";

/// A hold or release the loop applies to its own map at its next check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    Hold(String),
    Release(String),
}

impl Change {
    pub(crate) fn story(&self) -> &str {
        match self {
            Change::Hold(id) | Change::Release(id) => id,
        }
    }
}

/// The changes that matter once applied in order: the last per story (a skip then a retry
/// before the loop looked is a release, not a hold reported and undone).
pub(crate) fn net(changes: Vec<Change>) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::with_capacity(changes.len());
    for c in changes {
        out.retain(|o| o.story() != c.story());
        out.push(c);
    }
    out
}

/// What the requests decided so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Board {
    pub paused_since: Option<Timestamp>,
    pub notes: Vec<Note>,
    /// Not yet applied by the loop, in order.
    pub changes: Vec<Change>,
    taken_notes: u32,
}

impl Board {
    pub(crate) fn paused(&self) -> bool {
        self.paused_since.is_some()
    }
}

/// A claimed story as the loop sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Claim {
    pub story: String,
    pub title: String,
    /// `running`, `waiting`, `queued`, `merging`.
    pub state: &'static str,
    pub attempt: u32,
    pub worker: Option<u32>,
    pub since: Timestamp,
}

/// What the loop says of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct View {
    pub claims: Vec<Claim>,
    /// The stories it holds for the rest of the run, and why.
    pub held: BTreeMap<String, String>,
    /// `sleep` or `rate-limit`, until when.
    pub wait: Option<(&'static str, Timestamp)>,
    /// Iterations (attempts) started.
    pub iteration: u32,
}

/// A story of prd.json, as far as a request cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Story {
    pub id: String,
    pub passes: bool,
    pub removed: bool,
}

/// What the run says to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    pub accepted: bool,
    pub changed: bool,
    pub message: String,
    /// The line history.jsonl keeps, when it changed something.
    pub record: Option<ControlRecord>,
}

fn refused(message: String) -> Answer {
    Answer {
        accepted: false,
        changed: false,
        message,
        record: None,
    }
}

fn unchanged(message: String) -> Answer {
    Answer {
        accepted: true,
        changed: false,
        message,
        record: None,
    }
}

/// The run the board belongs to, and the facts a request is checked against.
pub(crate) struct Facts<'a> {
    pub run_id: &'a str,
    /// Stories at once (1: the sequential loop).
    pub parallel: u32,
    /// prd.json's stories, or why it could not be read (only needed for a story's request).
    pub stories: Result<&'a [Story], String>,
    pub prd: &'a str,
    pub now: Timestamp,
}

/// Decide `req`: change the board and say what happened.
pub(crate) fn apply(board: &mut Board, view: &View, facts: &Facts<'_>, req: &Request) -> Answer {
    if req.run_id != facts.run_id {
        return refused(format!(
            "the request is for run {}, but the live run is {}; send it again",
            req.run_id, facts.run_id
        ));
    }
    let answer = match req.action {
        ControlKind::Pause => pause(board, view, facts),
        ControlKind::Resume => resume(board, facts.now),
        ControlKind::Steer => steer(board, view, facts, req),
        ControlKind::Skip => skip(board, view, facts, req.story.as_deref()),
        ControlKind::Retry => retry(board, view, facts, req.story.as_deref()),
    };
    if !answer.changed {
        return answer;
    }
    let text = (req.action == ControlKind::Steer)
        .then(|| board.notes.last().map(|n| n.text.clone()))
        .flatten();
    Answer {
        record: Some(ControlRecord {
            control: req.action,
            run_id: facts.run_id.to_string(),
            time: facts.now.to_string(),
            request: req.id.clone(),
            story: req.story.clone(),
            text,
        }),
        ..answer
    }
}

fn running(view: &View) -> Vec<&Claim> {
    view.claims
        .iter()
        .filter(|c| c.state == "running")
        .collect()
}

fn pause(board: &mut Board, view: &View, facts: &Facts<'_>) -> Answer {
    if let Some(since) = board.paused_since {
        return unchanged(format!(
            "already paused (since {}); `ralph resume` goes on",
            clock(since)
        ));
    }
    board.paused_since = Some(facts.now);
    let busy = running(view);
    let ids: Vec<&str> = busy.iter().map(|c| c.story.as_str()).collect();
    let message = match (facts.parallel > 1, busy.first()) {
        (false, None) => "paused: no new iteration starts until `ralph resume`".to_string(),
        (false, Some(c)) => format!(
            "paused: {} (attempt {}) finishes, then no new iteration starts until `ralph resume`",
            c.story, c.attempt
        ),
        (true, None) => "paused: no new claim or attempt starts until `ralph resume`; queued stories still merge".to_string(),
        (true, Some(_)) => format!(
            "paused: no new claim or attempt starts until `ralph resume`; the running agents ({}) finish and queued stories still merge",
            ids.join(", ")
        ),
    };
    changed(message)
}

fn changed(message: String) -> Answer {
    Answer {
        accepted: true,
        changed: true,
        message,
        record: None,
    }
}

fn resume(board: &mut Board, now: Timestamp) -> Answer {
    match board.paused_since.take() {
        None => unchanged("not paused; nothing to resume".into()),
        Some(since) => changed(format!("resumed after {}", took(since, now))),
    }
}

/// The story `id` of prd.json, or why not (naming the file and the nearest id).
fn find<'a>(facts: &'a Facts<'_>, id: &str) -> Result<&'a Story, String> {
    let stories = facts.stories.as_ref().map_err(|e| {
        format!(
            "cannot read {}: {e}; nothing was changed, send the request again",
            facts.prd
        )
    })?;
    let Some(s) = stories.iter().find(|s| s.id == id) else {
        let hint = crate::suggest::nearest(id, stories.iter().map(|s| s.id.as_str()))
            .map(|n| format!(" (did you mean {n}?)"))
            .unwrap_or_default();
        return Err(format!(
            "no story {id} in {}{hint}; `ralph status` lists the ids",
            facts.prd
        ));
    };
    if s.removed {
        return Err(format!(
            "{id} is removed (status: \"removed\") in {}: no prompt of this run is for it",
            facts.prd
        ));
    }
    Ok(s)
}

/// Whether `id` is held once the pending changes are applied.
fn held(board: &Board, view: &View, id: &str) -> bool {
    board
        .changes
        .iter()
        .fold(view.held.contains_key(id), |h, c| match c {
            Change::Hold(x) if x == id => true,
            Change::Release(x) if x == id => false,
            _ => h,
        })
}

fn steer(board: &mut Board, view: &View, facts: &Facts<'_>, req: &Request) -> Answer {
    let text = req.text.as_deref().unwrap_or("").trim();
    if text.is_empty() {
        return refused(
            "a steering note needs text: ralph steer \"use the new API client\"".into(),
        );
    }
    let n = text.chars().count();
    if n > MAX_NOTE {
        return refused(format!(
            "the note has {n} characters, more than {MAX_NOTE}: put longer guidance in a file and steer the agents to it"
        ));
    }
    let story = match req.story.as_deref() {
        None => None,
        Some(id) => match find(facts, id) {
            Err(why) => return refused(why),
            Ok(s) if s.passes => {
                return refused(format!(
                    "{id} already passes in {}: no prompt of this run is for it",
                    facts.prd
                ));
            }
            Ok(s) => Some(s.id.clone()),
        },
    };
    board.taken_notes += 1;
    let id = format!("n{}", board.taken_notes);
    let busy: Vec<&Claim> = view
        .claims
        .iter()
        .filter(|c| c.state == "running" && story.as_ref().is_none_or(|s| *s == c.story))
        .collect();
    let message = match &story {
        Some(s) => format!(
            "steering note {id} for {s}: it goes into {s}'s next prompt and every later one in this run{}",
            if busy.is_empty() {
                String::new()
            } else {
                " (the agent running it now does not see it)".into()
            }
        ),
        None => format!(
            "steering note {id} for every story: it goes into every prompt from the next one until the run ends{}",
            if busy.is_empty() {
                String::new()
            } else {
                " (agents running now do not see it)".into()
            }
        ),
    };
    board.notes.push(Note {
        id,
        story,
        text: crate::context::redact::redact(text).0,
        time: facts.now.to_string(),
    });
    changed(message)
}

fn skip(board: &mut Board, view: &View, facts: &Facts<'_>, id: Option<&str>) -> Answer {
    let Some(id) = id else {
        return refused("skip needs a story id: ralph skip US-003".into());
    };
    let s = match find(facts, id) {
        Err(why) => return refused(why),
        Ok(s) => s,
    };
    if s.passes {
        return refused(format!(
            "{id} already passes in {}: there is nothing left to hold",
            facts.prd
        ));
    }
    if held(board, view, id) {
        let why = view.held.get(id).map_or(SKIPPED, String::as_str);
        return unchanged(format!(
            "{id} is already held ({why}); `ralph retry {id}` releases it"
        ));
    }
    board.changes.push(Change::Hold(id.to_string()));
    let running = view
        .claims
        .iter()
        .any(|c| c.story == id && c.state == "running");
    changed(format!(
        "{id} is held for the rest of the run; `ralph retry {id}` releases it{}",
        if running {
            " (its running attempt finishes first, and lands if it passes its checks)"
        } else {
            ""
        }
    ))
}

fn retry(board: &mut Board, view: &View, facts: &Facts<'_>, id: Option<&str>) -> Answer {
    let Some(id) = id else {
        return refused("retry needs a story id: ralph retry US-003".into());
    };
    if let Err(why) = find(facts, id) {
        return refused(why);
    }
    if !held(board, view, id) {
        return unchanged(format!("{id} is not held in this run; nothing to release"));
    }
    board.changes.push(Change::Release(id.to_string()));
    changed(format!(
        "{id} is released: it can be picked again, its strikes and review rounds start over"
    ))
}

/// The notes for `story`'s next prompt, oldest first: its own and those for every story.
pub(crate) fn notes_for(notes: &[Note], story: &str) -> Vec<SteerNote> {
    notes
        .iter()
        .filter(|n| n.story.as_deref().is_none_or(|s| s == story))
        .map(|n| SteerNote {
            this_story: n.story.is_some(),
            when: n.time.parse::<Timestamp>().map(clock).unwrap_or_default(),
            text: n.text.clone(),
        })
        .collect()
}

/// A time as a person reads it beside the run: local `HH:MM:SS`.
pub(crate) fn clock(t: Timestamp) -> String {
    t.to_zoned(jiff::tz::TimeZone::system())
        .strftime("%H:%M:%S")
        .to_string()
}

/// `2m10s`, `1h02m`, `12s`.
fn took(since: Timestamp, now: Timestamp) -> String {
    let secs = now
        .duration_since(since)
        .max(SignedDuration::ZERO)
        .as_secs();
    match secs {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

/// What does not change during a run, for [`state`].
#[derive(Debug, Clone)]
pub(crate) struct Fixed {
    pub run_id: String,
    pub pid: u32,
    pub pid_start: Option<u64>,
    pub prd: String,
    pub started: Timestamp,
    pub parallel: u32,
    pub branch: Option<String>,
    pub limit: u32,
}

/// The published state: the board and the loop's view, holds not yet applied included.
pub(crate) fn state(board: &Board, view: &View, fixed: &Fixed, now: Timestamp) -> RunState {
    let mut held_map = view.held.clone();
    for c in &board.changes {
        match c {
            Change::Hold(id) => {
                held_map.entry(id.clone()).or_insert_with(|| SKIPPED.into());
            }
            Change::Release(id) => {
                held_map.remove(id);
            }
        }
    }
    RunState {
        schema_version: SCHEMA_VERSION,
        run_id: fixed.run_id.clone(),
        pid: fixed.pid,
        pid_start: fixed.pid_start,
        prd: fixed.prd.clone(),
        started: fixed.started.to_string(),
        updated: now.to_string(),
        parallel: fixed.parallel,
        branch: fixed.branch.clone(),
        paused: board.paused(),
        paused_since: board.paused_since.map(|t| t.to_string()),
        wait: view.wait.map(|(why, until)| Wait {
            why: why.into(),
            until: until.to_string(),
        }),
        iteration: view.iteration,
        limit: fixed.limit,
        claims: view
            .claims
            .iter()
            .map(|c| ClaimView {
                story: c.story.clone(),
                title: c.title.clone(),
                state: c.state.into(),
                attempt: c.attempt,
                worker: c.worker,
                since: c.since.to_string(),
            })
            .collect(),
        held: held_map
            .into_iter()
            .map(|(story, reason)| Held { story, reason })
            .collect(),
        steering: board.notes.clone(),
    }
}

#[cfg(test)]
mod tests;
