//! The one channel through which the loop tells what happens: every note, warning, start,
//! outcome and end of a run is an [`Event`] handed to a [`Reporter`]. [`Terminal`] prints the
//! lines a person reads on stderr (dropped by `-q` except an unfinished run's end; a live
//! heartbeat refreshed in place on a terminal, see [`crate::ui::transient`]); [`JsonLines`] writes one
//! JSON object per event on stdout for tools (`ralph run --json`; the shape is in specs/json.md).
//! Hooks wrap a reporter ([`super::hooks`]).
//!
//! Owns the wording and the JSON shape of the loop's reports; decides nothing about the run and
//! never prints the agent's own output (that is `agent::process`'s echo and log).

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

use super::outcome::Outcome;
use super::ratelimit::format_elapsed;

/// How a run ended without an error, as reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    AllDone,
    Limit,
    NoReady,
    /// The agents' reported cost reached `--max-cost`.
    CostLimit,
    Interrupted,
}

/// Something the loop reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// The run has the lock and is about to pick its first story.
    RunStarted {
        run_id: String,
        agent: String,
        iterations: u32,
        verify: Vec<String>,
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
        reason: StopReason,
        #[serde(serialize_with = "millis")]
        elapsed: Duration,
        /// SIGTERM now; SIGKILL after this if the process group is still running.
        #[serde(serialize_with = "millis")]
        grace: Duration,
    },
    /// A story made no progress `attempts` times in a row: the run skips it from now on.
    StorySkipped {
        story: String,
        title: String,
        attempts: u32,
        reason: String,
    },
    /// The agent hit a usage limit: the run waits (`until` "14:05 UTC", or a backoff).
    RateLimited {
        line: String,
        until: Option<String>,
        #[serde(serialize_with = "millis")]
        wait: Duration,
    },
    /// The run is over.
    RunEnded {
        ending: Ending,
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

/// Why ralph stops a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    Timeout,
    Interrupt,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Where events go.
pub trait Reporter: Send + Sync + std::fmt::Debug {
    fn report(&self, event: Event);

    /// Whether this reporter shows a heartbeat refreshed in place (a terminal): then the loop
    /// sends live heartbeats every second while the agent is silent, else one per interval.
    fn live(&self) -> bool {
        false
    }
}

/// Lines for a person, on stderr, through `anstream` (colour as `--color` says).
#[derive(Debug, Default)]
pub struct Terminal;

impl Reporter for Terminal {
    fn report(&self, event: Event) {
        // `-q` keeps only how a run ended without finishing (a limit, nothing ready, an
        // interrupt): the exit code alone does not say which stories are left.
        let unfinished = matches!(
            event,
            Event::RunEnded { ending, .. } if ending != Ending::AllDone
        );
        if crate::ui::quiet() && !unfinished {
            return;
        }
        if let Event::Heartbeat { live: true, .. } = &event {
            crate::ui::transient(&heartbeat_line(&event));
            return;
        }
        crate::ui::clear_transient();
        for line in lines(&event) {
            crate::ui::anstream::eprintln!("{line}");
        }
    }

    fn live(&self) -> bool {
        use std::io::IsTerminal;
        !crate::ui::quiet() && std::io::stderr().is_terminal()
    }
}

/// The heartbeat as one plain line: "ralph: US-1 running 4m10s · 12.3 KB of output · silent
/// 1m02s · last: Compiling foo".
pub fn heartbeat_line(event: &Event) -> String {
    let Event::Heartbeat {
        story,
        elapsed,
        bytes,
        silent,
        last_line,
        ..
    } = event
    else {
        return String::new();
    };
    let mut line = format!(
        "ralph: {story} running {} · {} of output · silent {}",
        super::ratelimit::format_remaining(*elapsed),
        human_bytes(*bytes),
        super::ratelimit::format_remaining(*silent)
    );
    if !last_line.is_empty() {
        line.push_str(" · last: ");
        line.push_str(last_line);
    }
    line
}

/// "0 bytes", "512 bytes", "12.3 KB", "4.0 MB".
fn human_bytes(n: u64) -> String {
    match n {
        0..1000 => format!("{n} bytes"),
        1000..1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// The lines [`Terminal`] prints for an event (styled for `anstream`).
pub fn lines(event: &Event) -> Vec<String> {
    match event {
        Event::RunStarted {
            run_id,
            agent,
            iterations,
            verify,
        } => {
            let mut out = vec![format!(
                "ralph: run {run_id}: agent {agent}, up to {iterations} iterations{}",
                if verify.is_empty() {
                    String::new()
                } else {
                    format!(", verify: {}", verify.join(" && "))
                }
            )];
            if verify.is_empty() {
                out.push("ralph: warning: no verify commands (--verify, [verify] in ralph.toml): nothing verifies the agent's claims; a story counts as done only when the agent marks it passing in prd.json".into());
            }
            out
        }
        Event::Note { text } => vec![format!("ralph: {text}")],
        Event::Warning { text } => vec![format!("ralph: warning: {text}")],
        Event::IterationStarted {
            iteration,
            limit,
            story,
            title,
            attempt,
            agent,
        } => vec![format!(
            "ralph [{iteration}/{limit}] {story} {title} (attempt {attempt}): starting {agent}"
        )],
        Event::IterationFinished {
            iteration,
            limit,
            story,
            title,
            elapsed,
            outcome,
            detail,
            cost_usd,
        } => {
            let detail = match cost_usd {
                Some(c) if detail.is_empty() => format!("${c:.2}"),
                Some(c) => format!("{detail} · ${c:.2}"),
                None => detail.clone(),
            };
            vec![super::status::status_line(
                *iteration, *limit, story, title, *elapsed, *outcome, &detail,
            )]
        }
        Event::Heartbeat { .. } => vec![heartbeat_line(event)],
        Event::Stopping {
            what,
            reason,
            elapsed,
            grace,
        } => vec![format!(
            "ralph: stopping {what} ({} after {}): SIGTERM now, SIGKILL in {} if it is still running",
            match reason {
                StopReason::Timeout => "timed out",
                StopReason::Interrupt => "interrupted",
            },
            super::ratelimit::format_remaining(*elapsed),
            format_elapsed(*grace)
        )],
        Event::StorySkipped { story, reason, .. } => vec![format!(
            "ralph: skipping {story} for the rest of this run: {reason}"
        )],
        Event::RateLimited { line, until, .. } => vec![match until {
            Some(at) => format!(
                "ralph: rate limited ({line}); waiting until {at}; this iteration does not count"
            ),
            None => {
                format!("ralph: rate limited ({line}); backing off; this iteration does not count")
            }
        }],
        Event::RunEnded { .. } => ended(event),
    }
}

fn ended(event: &Event) -> Vec<String> {
    let Event::RunEnded {
        ending,
        iterations,
        limit,
        elapsed,
        passing,
        unfinished,
        history_written,
        cost_usd,
        max_cost,
    } = event
    else {
        return vec![];
    };
    let spent = cost_usd.map(|c| format!(", ${c:.2}")).unwrap_or_default();
    let indented = unfinished.iter().map(|l| format!("  {l}"));
    match ending {
        Ending::AllDone => vec![format!(
            "ralph: {} ({iterations} iteration(s) in {}{spent})",
            crate::ui::paint(crate::ui::GOOD, &format!("all {passing} stories pass")),
            format_elapsed(*elapsed)
        )],
        Ending::CostLimit => std::iter::once(format!(
            "ralph: reached the cost limit: spent ${:.2} of ${:.2} (--max-cost) in {iterations} iteration(s); {} stor{} remain:",
            cost_usd.unwrap_or(0.0),
            max_cost.unwrap_or(0.0),
            unfinished.len(),
            if unfinished.len() == 1 { "y" } else { "ies" }
        ))
        .chain(indented)
        .collect(),
        Ending::NoReady => std::iter::once("ralph: no ready story; unfinished stories:".into())
            .chain(indented)
            .collect(),
        Ending::Limit => std::iter::once(format!(
            "ralph: reached the iteration limit ({limit}); {} stor{} remain:",
            unfinished.len(),
            if unfinished.len() == 1 { "y" } else { "ies" }
        ))
        .chain(indented)
        .collect(),
        Ending::Interrupted if *history_written => {
            vec!["ralph: interrupted; history written, lock released".into()]
        }
        Ending::Interrupted => vec!["ralph: interrupted".into()],
    }
}

/// One JSON object per line, for tools. A closed or failing output is given up on quietly:
/// the run itself goes on (its history and logs are on disk).
#[derive(Debug)]
pub struct JsonLines<W: Write + Send + std::fmt::Debug> {
    out: Mutex<Option<W>>,
}

impl<W: Write + Send + std::fmt::Debug> JsonLines<W> {
    pub fn new(out: W) -> JsonLines<W> {
        JsonLines {
            out: Mutex::new(Some(out)),
        }
    }

    /// The writer back (for tests).
    pub fn into_inner(self) -> Option<W> {
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
#[derive(Debug, Default)]
pub struct Recorded(pub Mutex<Vec<Event>>);

impl Reporter for Recorded {
    fn report(&self, event: Event) {
        if let Ok(mut v) = self.0.lock() {
            v.push(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(e: &Event) -> Vec<String> {
        lines(e)
            .iter()
            .map(|l| anstream::adapter::strip_str(l).to_string())
            .collect()
    }

    #[test]
    fn terminal_lines_read_as_before() {
        let e = Event::IterationStarted {
            iteration: 2,
            limit: 10,
            story: "US-2".into(),
            title: "Add login".into(),
            attempt: 1,
            agent: "claude".into(),
        };
        assert_eq!(
            plain(&e),
            ["ralph [2/10] US-2 Add login (attempt 1): starting claude"]
        );
        let e = Event::RunEnded {
            ending: Ending::Limit,
            iterations: 3,
            limit: 3,
            elapsed: Duration::from_secs(5),
            passing: 1,
            unfinished: vec!["US-3 Later".into()],
            history_written: false,
            cost_usd: None,
            max_cost: None,
        };
        assert_eq!(
            plain(&e),
            [
                "ralph: reached the iteration limit (3); 1 story remain:",
                "  US-3 Later"
            ]
        );
        let e = Event::RunStarted {
            run_id: "r".into(),
            agent: "amp".into(),
            iterations: 4,
            verify: vec![],
        };
        assert_eq!(plain(&e).len(), 2, "no verify commands is warned about");
    }

    #[test]
    fn watching_lines_read_well() {
        let beat = Event::Heartbeat {
            story: "US-2".into(),
            elapsed: Duration::from_secs(250),
            bytes: 12_345,
            silent: Duration::from_secs(62),
            last_line: "Compiling foo v0.1.0".into(),
            live: false,
        };
        let stop = Event::Stopping {
            what: "the agent".into(),
            reason: StopReason::Timeout,
            elapsed: Duration::from_secs(3600),
            grace: Duration::from_secs(10),
        };
        let skipped = Event::StorySkipped {
            story: "US-3".into(),
            title: "T".into(),
            attempts: 3,
            reason: "no progress in 3 attempts in a row".into(),
        };
        let text: Vec<String> = [beat, stop, skipped].iter().flat_map(plain).collect();
        insta::assert_snapshot!(text.join("\n"), @r"
        ralph: US-2 running 4m10s · 12.3 KB of output · silent 1m02s · last: Compiling foo v0.1.0
        ralph: stopping the agent (timed out after 1h00m00s): SIGTERM now, SIGKILL in 10s if it is still running
        ralph: skipping US-3 for the rest of this run: no progress in 3 attempts in a row
        ");
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(4_000_000), "4.0 MB");
    }

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
            reason: StopReason::Interrupt,
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
