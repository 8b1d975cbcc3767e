//! One setting's value read from text, as the environment and the flags write it: durations,
//! ages, counts, sizes, booleans, agent names, prompt modes, verify lines, and the two values
//! with rules of their own ([`Dollars`], [`ConflictThreshold`]). Each error says what is wrong,
//! without a place (the reader adds it).
//!
//! A leaf: `layer.rs` (clap's `value_parser`s) and `value.rs` (ralph.toml's value types) share
//! it. Knows no setting.

use std::time::Duration;

use crate::agent::{AgentKind, PromptMode};

/// Verify commands. A name of its own so that clap reads `RALPH_VERIFY` as one value (its
/// lines), where it would read an `Option<Vec<_>>` field as a list of values.
pub(crate) type Commands = Vec<String>;

/// Parse a duration: plain seconds (`90`, `0.5`) or units (`500ms`, `2s`, `60m`, `1h30m`).
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return Duration::try_from_secs_f64(secs)
            .map_err(|_| format!("\"{s}\" is not a non-negative duration of sensible size"));
    }
    let d: jiff::SignedDuration = t
        .parse()
        .map_err(|_| format!("\"{s}\" is not a duration; use e.g. 90, 500ms, 2s, 60m, 1h30m"))?;
    Duration::try_from(d).map_err(|_| format!("\"{s}\" is negative"))
}

/// Parse an age (`[clean] older_than`, `ralph clean --older-than`): `14d`, `2w`, `36h`, `90m`,
/// `0`, or anything [`parse_duration`] reads.
pub(crate) fn parse_age(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let per_unit = match unit.trim() {
        "d" | "day" | "days" => Some(86_400u64),
        "w" | "week" | "weeks" => Some(7 * 86_400),
        _ => None,
    };
    if let (Ok(n), Some(per)) = (num.parse::<u64>(), per_unit) {
        return n
            .checked_mul(per)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("\"{s}\" is too long an age"));
    }
    parse_duration(t).map_err(|_| format!("\"{s}\" is not an age; use e.g. 14d, 2w, 36h, 90m or 0"))
}

/// The value of `field` in the first of `layers` that sets it.
/// `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off` (any case; the environment's booleans).
pub(super) fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(format!("\"{s}\" is not true/false (or 1/0)")),
    }
}

/// An amount of US dollars: finite and above zero (a cap of nothing would stop every run).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Dollars(f64);

// Only finite amounts are ever made (see `Dollars::new`), so equality is an equivalence.
impl Eq for Dollars {}

impl Dollars {
    pub fn new(usd: f64) -> Option<Dollars> {
        (usd.is_finite() && usd > 0.0).then_some(Dollars(usd))
    }

    pub fn usd(self) -> f64 {
        self.0
    }

    /// `5`, `2.50`, `$2.50`; the error says what is wrong, without a place.
    pub fn parse(s: &str) -> Result<Dollars, String> {
        let t = s.trim();
        let t = t.strip_prefix('$').unwrap_or(t);
        t.parse::<f64>().ok().and_then(Dollars::new).ok_or_else(|| {
            format!("\"{s}\" is not an amount of US dollars above 0; use e.g. 5 or 2.50")
        })
    }
}

/// How strongly the predicted files of two stories must overlap (0 to 1) before a parallel run
/// keeps them apart (`[run] conflict_threshold`, `--conflict-threshold`,
/// `RALPH_CONFLICT_THRESHOLD`), or `off`: stories run at once whatever they touch. Kept in
/// hundredths, so settings compare exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConflictThreshold(Option<u8>);

impl ConflictThreshold {
    /// 0.5: both stories predict the same file strongly (see `run::parallel::predict`).
    pub const DEFAULT: ConflictThreshold = ConflictThreshold(Some(50));
    pub const OFF: ConflictThreshold = ConflictThreshold(None);

    /// The threshold, `None` when off.
    pub fn value(self) -> Option<f64> {
        self.0.map(|h| f64::from(h) / 100.0)
    }

    /// `0.5`, `0`, `1`, `50%`, `off`; the error says what is wrong, without a place.
    pub fn parse(s: &str) -> Result<ConflictThreshold, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("off") || t.eq_ignore_ascii_case("false") {
            return Ok(ConflictThreshold::OFF);
        }
        let v = match t.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
            None => t.parse::<f64>(),
        };
        match v {
            // In range, so the rounded hundredths fit a u8.
            Ok(x) if (0.0..=1.0).contains(&x) => {
                Ok(ConflictThreshold(Some((x * 100.0).round() as u8)))
            }
            _ => Err(format!(
                "\"{s}\" is not an overlap between 0 and 1 (e.g. 0.5 or 50%) nor \"off\""
            )),
        }
    }
}

pub(super) fn parse_count(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("\"{s}\" is not a whole number of at least 1")),
    }
}

/// A count of things (lines, tokens, entries): at least 1.
pub(super) fn parse_size(s: &str) -> Result<usize, String> {
    parse_count(s).map(|n| n as usize)
}

/// How many to keep: 0 or more.
pub(super) fn parse_keep(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .map_err(|_| format!("\"{s}\" is not a whole number (0 or more)"))
}

/// `RALPH_NO_*`: true turns the setting off.
pub(super) fn parse_negated(s: &str) -> Result<bool, String> {
    parse_bool(s).map(|b| !b)
}

/// The time between two heartbeats: never zero.
pub(super) fn parse_interval(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err("0 is no interval; use e.g. 1s or 60s".to_string()),
        d => Ok(d),
    }
}

/// One command per non-blank line, trimmed.
pub(super) fn parse_lines(s: &str) -> Result<Commands, String> {
    Ok(s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

/// An agent preset's name, with the nearest one and the list when unknown.
pub(super) fn parse_agent(s: &str) -> Result<AgentKind, String> {
    AgentKind::from_name(s).ok_or_else(|| {
        format!(
            "unknown agent \"{s}\"{}; choose one of {}",
            AgentKind::did_you_mean(s),
            AgentKind::list()
        )
    })
}

pub(super) fn parse_mode(s: &str) -> Result<PromptMode, String> {
    PromptMode::from_name(s)
        .ok_or_else(|| format!("\"{s}\" is not a prompt mode; use stdin, arg or file"))
}
