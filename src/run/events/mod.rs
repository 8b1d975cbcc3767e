//! The one channel through which the loop tells what happens: every note, warning, start,
//! outcome and end of a run is an [`Event`] handed to a [`Reporter`]. [`Terminal`] prints the
//! lines a person reads on stderr (dropped by `-q` except an unfinished run's end; a live
//! heartbeat refreshed in place on a terminal, see [`crate::ui::transient`]); [`JsonLines`] writes one
//! JSON object per event on stdout for tools (`ralph run --json`; the shape is in specs/json.md).
//! Hooks wrap a reporter ([`super::hooks`]).
//!
//! Owns the wording and the JSON shape of the loop's reports; decides nothing about the run and
//! never prints the agent's own output (that is `agent::process`'s echo and log).

pub(crate) mod board;
mod terminal;

pub(crate) use terminal::Terminal;

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

use super::outcome::Outcome;

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
    /// The agent has been silent for a while (see [`super::watch`]): how long it has run, how
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
        ending: super::Exit,
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

fn opt_millis<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => millis(d, s),
        None => s.serialize_none(),
    }
}

pub(super) fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
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

/// One JSON object per line, for tools. A closed or failing output is given up on quietly:
/// the run itself goes on (its history and logs are on disk).
#[derive(Debug)]
pub(crate) struct JsonLines<W: Write + Send + std::fmt::Debug> {
    out: Mutex<Option<W>>,
}

impl<W: Write + Send + std::fmt::Debug> JsonLines<W> {
    pub(crate) fn new(out: W) -> JsonLines<W> {
        JsonLines {
            out: Mutex::new(Some(out)),
        }
    }

    /// The writer back (for tests).
    #[cfg(test)]
    pub(crate) fn into_inner(self) -> Option<W> {
        self.out.into_inner().ok().flatten()
    }
}

impl<W: Write + Send + std::fmt::Debug> Reporter for JsonLines<W> {
    fn report(&self, event: Event) {
        let Ok(mut guard) = self.out.lock() else {
            return;
        };
        let Some(w) = guard.as_mut() else { return };
        let Ok(mut line) = serde_json::to_vec(&event) else {
            return;
        };
        line.push(b'\n');
        if w.write_all(&line).and_then(|()| w.flush()).is_err() {
            *guard = None;
        }
    }
}

/// Events kept in memory (for tests of code that reports).
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct Recorded(pub Mutex<Vec<Event>>);

#[cfg(test)]
impl Reporter for Recorded {
    fn report(&self, event: Event) {
        if let Ok(mut v) = self.0.lock() {
            v.push(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::terminal::lines;
    use super::*;

    #[test]
    fn watching_events_in_json() {
        let r = JsonLines::new(Vec::new());
        r.report(Event::Heartbeat {
            story: "A".into(),
            elapsed: Duration::from_millis(1500),
            bytes: 3,
            silent: Duration::from_millis(700),
            last_line: String::new(),
            live: false,
        });
        r.report(Event::Stopping {
            what: "the agent".into(),
            reason: crate::agent::process::Stop::Interrupt,
            elapsed: Duration::from_millis(20),
            grace: Duration::from_millis(300),
        });
        let out = String::from_utf8(r.into_inner().unwrap()).unwrap();
        let v: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            v[0],
            serde_json::json!({"event": "heartbeat", "story": "A", "elapsed": 1500, "bytes": 3,
                "silent": 700, "last_line": ""})
        );
        assert_eq!(
            v[1],
            serde_json::json!({"event": "stopping", "what": "the agent", "reason": "interrupt",
                "elapsed": 20, "grace": 300})
        );
    }

    #[test]
    fn json_lines_are_one_object_per_event_with_its_name() {
        let r = JsonLines::new(Vec::new());
        r.report(Event::Note { text: "hi".into() });
        r.report(Event::IterationFinished {
            iteration: 1,
            limit: 2,
            story: "S".into(),
            title: "T".into(),
            elapsed: Duration::from_millis(1500),
            outcome: Outcome::VerifyFailed,
            detail: "verify 0/1 passed".into(),
            cost_usd: Some(0.25),
        });
        let out = String::from_utf8(r.into_inner().unwrap()).unwrap();
        let v: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(v[0], serde_json::json!({"event": "note", "text": "hi"}));
        assert_eq!(v[1]["event"], "iteration-finished");
        assert_eq!(v[1]["elapsed"], 1500);
        assert_eq!(v[1]["outcome"], "verify-failed");
        assert_eq!(v[1]["cost_usd"], 0.25);
    }

    #[test]
    fn the_live_board_is_for_a_terminal_only() {
        let r = JsonLines::new(Vec::new());
        r.report(Event::Board {
            lines: vec!["A Title · running 1s · attempt 1".into()],
        });
        r.report(Event::Note { text: "n".into() });
        let out = String::from_utf8(r.into_inner().unwrap()).unwrap();
        assert_eq!(out, "{\"event\":\"note\",\"text\":\"n\"}\n");
        let board = Event::Board {
            lines: vec!["A · running".into(), "B · queued".into()],
        };
        assert_eq!(lines(&board), ["ralph: A · running", "ralph: B · queued"]);
    }

    #[test]
    fn a_closed_output_is_given_up_without_a_panic() {
        #[derive(Debug)]
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let r = JsonLines::new(Closed);
        r.report(Event::Note { text: "a".into() });
        r.report(Event::Note { text: "b".into() });
        assert!(r.into_inner().is_none());
    }
}
