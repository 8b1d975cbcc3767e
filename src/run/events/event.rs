//! What the loop reports, as data: every note, warning, start, outcome and end of a run is an
//! [`Event`] handed to a [`Reporter`]. The shape of each event is the `--json` contract
//! (specs/json.md); its wording is [`super::terminal`]'s.

use std::time::Duration;

use serde::Serialize;

use super::board;
use super::durations::{millis, opt_millis};
use crate::run::ending::Exit;
use crate::state::history::Outcome;

/// Something the loop reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub(crate) enum Event {
    /// The run has the lock and is about to pick its first story.
    RunStarted {
        run_id: String,
        agent: String,
        iterations: u32,
        verify: Vec<String>,
        /// Parallel runs: how many stories at once, and the branch merges land on.
        #[serde(skip_serializing_if = "Option::is_none")]
        parallel: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        branch: Option<String>,
    },
    /// Something a person should know that changes nothing ("added .ralph/ to …").
    Note { text: String },
    /// Something that may need a person's attention; the run goes on.
    Warning { text: String },
    /// An agent starts on a story.
    IterationStarted {
        iteration: u32,
        limit: u32,
        story: String,
        title: String,
        attempt: u32,
        agent: String,
        /// Parallel runs: the worker (1..K) and the attempt's log (its output is not echoed).
        #[serde(skip_serializing_if = "Option::is_none")]
        worker: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        log: Option<String>,
    },
    /// An iteration's outcome.
    IterationFinished {
        iteration: u32,
        limit: u32,
        story: String,
        title: String,
        #[serde(serialize_with = "millis")]
        elapsed: Duration,
        outcome: Outcome,
        /// "verify 2/3 passed: `cargo test` exited 101", or empty.
        detail: String,
        /// US dollars the agent reported for this iteration (absent when it reported none).
        #[serde(skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    /// The agent has been silent for a while (see [`crate::run::wait::watch`]): how long it has run, how
    /// much it has written, its last line.
    Heartbeat {
        story: String,
        #[serde(serialize_with = "millis")]
        elapsed: Duration,
        /// Bytes of output so far (stdout and stderr).
        bytes: u64,
        /// Time since the last output (or the start).
        #[serde(serialize_with = "millis")]
        silent: Duration,
        /// The last non-blank output line (redacted, cut short), or empty.
        last_line: String,
        /// Refreshed in place on a terminal (one per second) rather than a line per interval;
        /// only a reporter whose [`Reporter::live`] is true gets these.
        #[serde(skip)]
        live: bool,
    },
    /// ralph stops a process (the agent, a verify command) that has not ended by itself.
    Stopping {
        /// "the agent", or "verify command `cargo test`".
        what: String,
        reason: crate::agent::process::Stop,
        #[serde(serialize_with = "millis")]
        elapsed: Duration,
        /// SIGTERM now; SIGKILL after this if the process group is still running.
        #[serde(serialize_with = "millis")]
        grace: Duration,
    },
    /// A story's work landed: after a `done` iteration in the sequential loop; in a parallel
    /// run once its merge advanced the branch (`how`: "fast-forward", "re-verified in 3.2s").
    StoryDone {
        story: String,
        title: String,
        commit: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        how: Option<String>,
    },
    /// Parallel runs: a gated attempt could not land (a conflict, or the verify commands
    /// failing on the merged result); the story runs again on the new tip with the reason.
    SentBack {
        story: String,
        outcome: Outcome,
        why: String,
    },
    /// Parallel runs: where a claimed story is (every few seconds, one per story).
    Claim {
        story: String,
        title: String,
        /// waiting, running, queued.
        state: String,
        #[serde(serialize_with = "millis")]
        elapsed: Duration,
        attempt: u32,
        /// The last line its agent wrote and how long ago.
        #[serde(skip_serializing_if = "Option::is_none")]
        last_line: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", serialize_with = "opt_millis")]
        last_age: Option<Duration>,
    },
    /// Parallel runs on a terminal: every claim's status line at once, redrawn in place each
    /// second ([`crate::ui::transient_block`]); only a reporter whose [`Reporter::live`] is
    /// true gets these (the others get a `claim` per story every few seconds).
    #[serde(skip)]
    Board { lines: Vec<String> },
    /// Parallel runs: the summary at the end, a row per story claimed.
    Summary {
        rows: Vec<board::Row>,
        totals: board::Totals,
    },
    /// The review of a gated story (`--review`): `approve`, `changes` (with the items) or
    /// `none` (no verdict, with why: not approved).
    Reviewed {
        story: String,
        round: u32,
        max_rounds: u32,
        reviewer: String,
        verdict: String,
        items: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
    /// A story made no progress `attempts` times in a row: the run skips it from now on.
    StorySkipped {
        story: String,
        title: String,
        attempts: u32,
        reason: String,
    },
    /// The agent CLI could not start: its words (or what ralph saw) and what to do. The run
    /// stops; no story is retried or skipped for it.
    AgentNotStarted {
        story: String,
        agent: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        version: Option<String>,
        message: String,
        advice: String,
    },
    /// The agent hit a usage limit: the run waits (`until` "14:05 UTC", or a backoff).
    RateLimited {
        line: String,
        until: Option<String>,
        #[serde(serialize_with = "millis")]
        wait: Duration,
    },
    /// The run took a person's request (`ralph pause`, `resume`, `steer`, `skip`, `retry`) and it
    /// changed something: what, in the run's words. A hold takes effect at the loop's next
    /// check (`story-skipped` then), a note in the next prompt.
    Control {
        action: crate::state::history::ControlKind,
        /// The story it is about (`null`: every story, or none).
        story: Option<String>,
        /// A steering note's text (redacted).
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        message: String,
    },
    /// The run is over.
    RunEnded {
        ending: Exit,
        /// Counted iterations.
        iterations: u32,
        limit: u32,
        #[serde(serialize_with = "millis")]
        elapsed: Duration,
        /// Stories that pass, when all do.
        passing: usize,
        /// Why each unfinished story could not run ("US-3: blocked by US-2"), or what remains.
        unfinished: Vec<String>,
        /// After an interrupt: whether this iteration's history was written.
        history_written: bool,
        /// US dollars the agents reported spending in this run (absent when none did).
        #[serde(skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        /// `--max-cost`, when set.
        #[serde(skip_serializing_if = "Option::is_none")]
        max_cost: Option<f64>,
    },
}

/// Where events go.
pub(crate) trait Reporter: Send + Sync + std::fmt::Debug {
    fn report(&self, event: Event);

    /// Whether this reporter shows a heartbeat refreshed in place (a terminal): then the loop
    /// sends live heartbeats every second while the agent is silent, else one per interval.
    fn live(&self) -> bool {
        false
    }
}

/// Events kept in memory (for tests of code that reports).
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct Recorded(pub std::sync::Mutex<Vec<Event>>);

#[cfg(test)]
impl Reporter for Recorded {
    fn report(&self, event: Event) {
        if let Ok(mut v) = self.0.lock() {
            v.push(event);
        }
    }
}
