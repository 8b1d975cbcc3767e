//! Usage/rate-limit waits as pure policy: when the stated reset is, and the backoff schedule.
//!
//! Owns turning a limit message into a wait ("resets 7pm (Asia/Tokyo)", "limit reached|<epoch>",
//! "try again in 5 minutes"), the fallback schedule 1, 5, 15, 30 minutes, and when to stop
//! waiting ([`next_wait`]). Does not detect the message (`crate::agent::detect`) nor sleep (the
//! loop does, with a countdown).

use jiff::{Timestamp, ToSpan, Zoned, civil, tz::TimeZone};
use regex::Regex;
use std::sync::OnceLock;
use std::time::Duration;

/// The fallback waits, in minutes; the last repeats.
pub(crate) const BACKOFF_MINUTES: [u64; 4] = [1, 5, 15, 30];

/// The n-th consecutive backoff (0-based).
pub(crate) fn backoff(n: usize) -> Duration {
    let i = n.min(BACKOFF_MINUTES.len() - 1);
    Duration::from_secs(BACKOFF_MINUTES[i] * 60)
}

/// How long to wait after a limit message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Until the reset stated in the message.
    Until(Zoned),
    /// No usable reset time: the n-th backoff step.
    Backoff(Duration),
}

impl Wait {
    /// The wait from `now`, never negative.
    pub(crate) fn duration_from(&self, now: &Zoned) -> Duration {
        match self {
            Wait::Backoff(d) => *d,
            Wait::Until(z) => {
                let secs = z.timestamp().as_second() - now.timestamp().as_second();
                Duration::from_secs(secs.max(0) as u64)
            }
        }
    }
}

fn re(cell: &'static OnceLock<Regex>, src: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(src).expect("a literal regex"))
}

/// The reset moment stated in `line`, if it states one that is in the next 24 hours.
/// A clock time without a zone is read in `now`'s zone; a time already past today means tomorrow.
pub(crate) fn parse_reset(line: &str, now: &Zoned) -> Option<Zoned> {
    static EPOCH: OnceLock<Regex> = OnceLock::new();
    static CLOCK: OnceLock<Regex> = OnceLock::new();
    static REL: OnceLock<Regex> = OnceLock::new();
    let within_a_day = |z: Zoned| {
        let d = z.timestamp().as_second() - now.timestamp().as_second();
        (0..=26 * 3600).contains(&d).then_some(z)
    };
    if let Some(c) = re(&EPOCH, r"\|(\d{9,11})\b").captures(line) {
        let secs: i64 = c[1].parse().ok()?;
        let ts = Timestamp::from_second(secs).ok()?;
        return within_a_day(ts.to_zoned(now.time_zone().clone()));
    }
    if let Some(c) = re(
        &REL,
        r"(?i)(?:try again|retry|resets?|available again)\s+(?:in|after)\s+(\d+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?)\b",
    )
    .captures(line)
    {
        let n: i64 = c[1].parse().ok()?;
        let unit = c[2].to_ascii_lowercase();
        let secs = match unit.chars().next() {
            Some('s') => n,
            Some('m') => n.checked_mul(60)?,
            _ => n.checked_mul(3600)?,
        };
        return within_a_day(now.checked_add(secs.seconds()).ok()?);
    }
    let c = re(
        &CLOCK,
        // The time must end where it seems to: "resets 2026-11-23" is a date, not 20:00.
        r"(?i)\bresets?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?(?:\s*([ap])\.?m?\.?)?(?:\s*\(([A-Za-z0-9_+\-/]+)\))?(?:$|[\s,;!?)∙·]|\.(?:\s|$))",
    )
    .captures(line)?;
    let mut hour: i8 = c[1].parse().ok()?;
    let minute: i8 = c.get(2).map_or(Ok(0), |m| m.as_str().parse()).ok()?;
    match c.get(3).map(|m| m.as_str().to_ascii_lowercase()) {
        Some(ap) if (1..=12).contains(&hour) => {
            hour %= 12;
            if ap == "p" {
                hour += 12;
            }
        }
        Some(_) => return None,
        None if hour > 23 => return None,
        None => {}
    }
    let tz = match c.get(4) {
        Some(name) => TimeZone::get(name.as_str()).ok()?,
        None => now.time_zone().clone(),
    };
    let here = now.with_time_zone(tz.clone());
    let time = civil::Time::new(hour, minute, 0, 0).ok()?;
    let mut at = here.date().to_datetime(time).to_zoned(tz.clone()).ok()?;
    if at.timestamp() <= now.timestamp() {
        let tomorrow = here.date().tomorrow().ok()?;
        at = tomorrow.to_datetime(time).to_zoned(tz).ok()?;
    }
    within_a_day(at)
}

/// The wait for a limit message: its stated reset, else the `n`-th backoff step.
pub(crate) fn plan(line: &str, now: &Zoned, n: usize) -> Wait {
    match parse_reset(line, now) {
        Some(z) => Wait::Until(z),
        None => Wait::Backoff(backoff(n)),
    }
}

/// The wait for the `streak`-th usage limit in a row (1-based): how long (capped by
/// `max_wait`) and the event that says so; or the run stops: `--no-wait`, or
/// [`crate::run::error::MAX_RATE_LIMIT_WAITS`] limits in a row. The one rule of the sequential loop and
/// the parallel scheduler.
pub(crate) fn next_wait(
    line: String,
    streak: usize,
    no_wait: bool,
    max_wait: Option<Duration>,
    now: &Zoned,
) -> Result<(Duration, crate::run::events::Event), crate::run::error::RunError> {
    if no_wait {
        return Err(crate::run::error::RunError::RateLimited { line });
    }
    if streak >= crate::run::error::MAX_RATE_LIMIT_WAITS {
        return Err(crate::run::error::RunError::RateLimitedTooOften { line });
    }
    let wait = plan(&line, now, streak.saturating_sub(1));
    let mut d = wait.duration_from(now);
    if let Some(cap) = max_wait {
        d = d.min(cap);
    }
    let until = match &wait {
        Wait::Until(z) => Some(z.strftime("%H:%M %Z").to_string()),
        Wait::Backoff(_) => None,
    };
    let event = crate::run::events::Event::RateLimited {
        line,
        until,
        wait: d,
    };
    Ok((d, event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::events::durations::{format_elapsed, format_remaining};

    fn at(s: &str) -> Zoned {
        s.parse().unwrap()
    }

    #[test]
    fn next_wait_stops_the_run_or_says_until_when_and_how_long() {
        use crate::run::{error::RunError, events::Event};
        let now = at("2026-11-26T10:00:00+00:00[UTC]");
        let line = || "usage limit reached; resets 11am".to_string();
        assert!(matches!(
            next_wait(line(), 1, true, None, &now),
            Err(RunError::RateLimited { .. })
        ));
        assert!(matches!(
            next_wait(
                line(),
                crate::run::error::MAX_RATE_LIMIT_WAITS,
                false,
                None,
                &now
            ),
            Err(RunError::RateLimitedTooOften { .. })
        ));
        let (d, e) = next_wait(line(), 1, false, None, &now).unwrap();
        assert_eq!(d, Duration::from_secs(3600));
        assert!(
            matches!(e, Event::RateLimited { until: Some(ref u), wait, .. } if u == "11:00 UTC" && wait == d)
        );
        let (d, e) = next_wait(
            "HTTP 429".into(),
            2,
            false,
            Some(Duration::from_secs(2)),
            &now,
        )
        .unwrap();
        assert_eq!(d, Duration::from_secs(2), "the second backoff (5m), capped");
        assert!(matches!(e, Event::RateLimited { until: None, .. }));
    }

    #[test]
    fn named_zone_reset_is_the_next_such_wall_clock_time() {
        // 09:30 UTC is 18:30 in Tokyo: 7pm Tokyo is 30 minutes away.
        let now = at("2026-11-22T09:30:00+00:00[UTC]");
        let z = parse_reset("usage limit reached … resets 7pm (Asia/Tokyo)", &now).unwrap();
        assert_eq!(z.timestamp().to_string(), "2026-11-22T10:00:00Z");
        assert_eq!(
            Wait::Until(z).duration_from(&now),
            Duration::from_secs(1800)
        );
        // 11:00 UTC is 20:00 in Tokyo: 7pm is tomorrow.
        let later = at("2026-11-22T11:00:00+00:00[UTC]");
        let z = parse_reset("resets 7pm (Asia/Tokyo)", &later).unwrap();
        assert_eq!(z.timestamp().to_string(), "2026-11-23T10:00:00Z");
    }

    #[test]
    fn clock_forms_without_zone_use_the_local_zone() {
        let now = at("2026-11-22T10:00:00+01:00[Europe/Paris]");
        let z = parse_reset("Your limit resets at 3:15am", &now).unwrap();
        assert_eq!(z.to_string(), "2026-11-23T03:15:00+01:00[Europe/Paris]");
        let z = parse_reset("limit reached, resets 14:00", &now).unwrap();
        assert_eq!(z.to_string(), "2026-11-22T14:00:00+01:00[Europe/Paris]");
        assert_eq!(parse_reset("resets 25:00", &now), None);
        assert_eq!(parse_reset("resets 13pm", &now), None);
        assert_eq!(parse_reset("resets 7pm (Mars/Olympus)", &now), None);
        // A date is not a clock time.
        assert_eq!(
            parse_reset("limit reached, resets 2026-11-23 at noon", &now),
            None
        );
        assert_eq!(parse_reset("resets 2026-11-23", &now), None);
        let z = parse_reset("resets 7pm. Upgrade for more", &now).unwrap();
        assert_eq!(z.to_string(), "2026-11-22T19:00:00+01:00[Europe/Paris]");
        let z = parse_reset("resets at 9 p.m. today", &now).unwrap();
        assert_eq!(z.to_string(), "2026-11-22T21:00:00+01:00[Europe/Paris]");
    }

    #[test]
    fn epoch_and_relative_forms() {
        let now = at("2026-11-22T10:00:00+00:00[UTC]");
        let epoch = now.timestamp().as_second() + 600;
        let z = parse_reset(&format!("Claude AI usage limit reached|{epoch}"), &now).unwrap();
        assert_eq!(Wait::Until(z).duration_from(&now), Duration::from_secs(600));
        let z = parse_reset("429: try again in 5 minutes", &now).unwrap();
        assert_eq!(Wait::Until(z).duration_from(&now), Duration::from_secs(300));
        // A stale epoch (in the past) falls back to the backoff.
        assert_eq!(
            plan("usage limit reached|1000000000", &now, 0),
            Wait::Backoff(Duration::from_secs(60))
        );
    }

    #[test]
    fn backoff_schedule_is_1_5_15_30_then_30() {
        let mins: Vec<u64> = (0..6).map(|n| backoff(n).as_secs() / 60).collect();
        assert_eq!(mins, [1, 5, 15, 30, 30, 30]);
        assert_eq!(format_remaining(Duration::from_secs(3725)), "1h02m05s");
        assert_eq!(format_remaining(Duration::from_secs(250)), "4m10s");
        assert_eq!(format_remaining(Duration::from_secs(9)), "9s");
        assert_eq!(format_elapsed(Duration::from_millis(420)), "0.42s");
        assert_eq!(format_elapsed(Duration::from_secs(75)), "1m15s");
    }
}
