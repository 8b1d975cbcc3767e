//! A run you can watch: when a heartbeat is due while the agent runs (pure: [`Cadence`] and
//! [`Beat`], tested with a fake clock), and the [`Watch`] that turns a supervised process's
//! activity into [`Event::Heartbeat`] and [`Event::Stopping`] reports.
//!
//! On a terminal (a reporter whose [`Reporter::live`] is true) the heartbeat is refreshed in
//! place every second once the agent has been silent for a few seconds; elsewhere (a log file,
//! `--json`) it is one line per interval (default a minute; hidden `--heartbeat`, `RALPH_HEARTBEAT`),
//! and only while the agent is silent: a chatty agent's output shows it is alive, and a
//! heartbeat written then could land inside one of its half-written lines (for the same
//! reason none is written while the echoed output ends in the middle of a line). The countdown of a
//! rate-limit wait uses the same cadence ([`super::sleep::countdown`]). Owns no wording (that
//! is [`crate::run::events`]) and no process handling (that is [`crate::agent::process`]).

use std::time::Duration;

use crate::agent::process::{Activity, Stop, Watcher};
use crate::run::events::{Event, Reporter};

/// How long the agent must be silent before a heartbeat shows.
pub(crate) const QUIET_AFTER: Duration = Duration::from_secs(5);
/// How often a live (in place) line is refreshed.
pub(crate) const REFRESH: Duration = Duration::from_secs(1);

/// When heartbeats are due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cadence {
    /// Refresh in place (a terminal) rather than write a line per interval.
    pub live: bool,
    /// Time between two lines when not live.
    pub every: Duration,
    /// Silence needed before a heartbeat (at most `every`, so a short test interval works).
    pub quiet_after: Duration,
}

impl Cadence {
    pub(crate) fn new(live: bool, every: Duration) -> Cadence {
        Cadence {
            live,
            every,
            quiet_after: QUIET_AFTER.min(every),
        }
    }

    /// Time between two reports.
    pub(crate) fn gap(&self) -> Duration {
        if self.live { REFRESH } else { self.every }
    }
}

/// The state of one ticker: when it last reported (times are offsets from its start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Beat {
    last: Option<Duration>,
}

impl Beat {
    /// A ticker whose first report may come at once.
    pub(crate) fn now() -> Beat {
        Beat { last: None }
    }

    /// A ticker whose first report comes one gap after its start.
    pub(crate) fn after_a_gap() -> Beat {
        Beat {
            last: Some(Duration::ZERO),
        }
    }

    /// Whether to report at `now`, the process having been silent for `silent`; a report
    /// counts as made when this says yes.
    pub(crate) fn due(&mut self, c: &Cadence, now: Duration, silent: Duration) -> bool {
        if silent < c.quiet_after {
            return false;
        }
        let due = match self.last {
            None => true,
            Some(last) => now.saturating_sub(last) >= c.gap(),
        };
        if due {
            self.last = Some(now);
        }
        due
    }
}

/// Reports what a supervised process does: heartbeats for the agent, and when ralph stops it.
pub(crate) struct Watch<'a> {
    rep: &'a dyn Reporter,
    /// "the agent", "verify command `cargo test`".
    what: String,
    /// The story, when heartbeats are wanted.
    story: Option<String>,
    cadence: Cadence,
    beat: Beat,
    /// The agent's output is echoed to the terminal (a line must not run into it).
    echo: bool,
}

impl<'a> Watch<'a> {
    /// Heartbeats for the agent working on `story`, every `every` unless `rep` is live;
    /// `echo`: its output is copied to the terminal.
    pub(crate) fn agent(
        rep: &'a dyn Reporter,
        story: &str,
        every: Duration,
        echo: bool,
    ) -> Watch<'a> {
        let cadence = Cadence::new(rep.live(), every);
        Watch {
            rep,
            what: "the agent".into(),
            story: Some(story.to_string()),
            cadence,
            beat: if cadence.live {
                Beat::now()
            } else {
                Beat::after_a_gap()
            },
            echo,
        }
    }

    /// Only the stop report, for a verify command.
    pub(crate) fn stops_only(rep: &'a dyn Reporter, what: String) -> Watch<'a> {
        Watch {
            rep,
            what,
            story: None,
            cadence: Cadence::new(false, Duration::MAX),
            beat: Beat::after_a_gap(),
            echo: false,
        }
    }
}

impl Watcher for Watch<'_> {
    fn tick(&mut self, a: &Activity, elapsed: Duration) {
        let Some(story) = &self.story else { return };
        if self.echo && a.mid_line {
            return;
        }
        let silent = match a.last_output {
            Some(t) => t.elapsed(),
            None => elapsed,
        };
        if !self.beat.due(&self.cadence, elapsed, silent) {
            return;
        }
        self.rep.report(Event::Heartbeat {
            story: story.clone(),
            elapsed,
            bytes: a.bytes,
            silent,
            last_line: crate::run::log::redact_for_log(&a.last_line),
            live: self.cadence.live,
        });
    }

    fn stopping(&mut self, why: Stop, elapsed: Duration, grace: Duration) {
        crate::ui::clear_transient();
        self.rep.report(Event::Stopping {
            what: self.what.clone(),
            reason: why,
            elapsed,
            grace,
        });
    }
}

impl Drop for Watch<'_> {
    /// The process is over: its live line goes.
    fn drop(&mut self) {
        if self.cadence.live {
            crate::ui::clear_transient();
        }
    }
}

/// What a countdown shows at `left` (pure): "ralph: waiting: 4m59s left (Ctrl-C to stop)".
pub(crate) fn countdown_line(label: &str, left: Duration) -> String {
    format!(
        "{label}: {} left (Ctrl-C to stop)",
        crate::run::events::durations::format_remaining(left + Duration::from_millis(999))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    /// Ticks every 20 ms of fake time from 0 to `until`, with output at the given seconds;
    /// returns the seconds at which a report was due.
    fn run(c: Cadence, mut beat: Beat, until: u64, output_at: &[u64]) -> Vec<f64> {
        let mut out = vec![];
        let mut last_output = None;
        let mut t = Duration::ZERO;
        while t <= s(until) {
            if output_at
                .iter()
                .any(|&o| s(o) <= t && t < s(o) + Duration::from_millis(20))
            {
                last_output = Some(t);
            }
            let silent = t - last_output.unwrap_or(Duration::ZERO);
            if beat.due(&c, t, silent) {
                out.push((t.as_secs_f64() * 100.0).round() / 100.0);
            }
            t += Duration::from_millis(20);
        }
        out
    }

    #[test]
    fn not_live_one_report_per_interval_while_silent() {
        let c = Cadence::new(false, s(60));
        assert_eq!(run(c, Beat::after_a_gap(), 200, &[]), [60.0, 120.0, 180.0]);
        // Output at 119 s: the next report waits for 5 s of silence.
        assert_eq!(
            run(c, Beat::after_a_gap(), 200, &[119]),
            [60.0, 124.0, 184.0]
        );
    }

    #[test]
    fn a_chatty_agent_gets_no_heartbeat() {
        let c = Cadence::new(false, s(60));
        let chatter: Vec<u64> = (0..=200).step_by(3).collect();
        assert!(run(c, Beat::after_a_gap(), 200, &chatter).is_empty());
        let live = Cadence::new(true, s(60));
        assert!(run(live, Beat::now(), 200, &chatter).is_empty());
    }

    #[test]
    fn live_refreshes_every_second_after_five_silent_seconds() {
        let c = Cadence::new(true, s(60));
        assert_eq!(
            run(c, Beat::now(), 8, &[0]),
            [5.0, 6.0, 7.0, 8.0],
            "silent from 0 s"
        );
        assert_eq!(run(c, Beat::now(), 12, &[0, 7]), [5.0, 6.0, 12.0]);
    }

    #[test]
    fn a_short_interval_shortens_the_silence_needed() {
        let c = Cadence::new(false, Duration::from_millis(500));
        assert_eq!(c.quiet_after, Duration::from_millis(500));
        assert_eq!(run(c, Beat::after_a_gap(), 2, &[]), [0.5, 1.0, 1.5, 2.0]);
    }

    #[test]
    fn countdown_lines_round_up_the_seconds_left() {
        assert_eq!(
            countdown_line("ralph: waiting", Duration::from_millis(299_500)),
            "ralph: waiting: 5m00s left (Ctrl-C to stop)"
        );
        assert_eq!(
            countdown_line("w", Duration::ZERO),
            "w: 0s left (Ctrl-C to stop)"
        );
    }
}
