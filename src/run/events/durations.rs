//! How the run's reports say a duration: "0.42s", "4m10s", "1h02m05s". Pure wording, shared by
//! the reporter, the status lines, the gate's and the review's notes and `ralph run --dry-run`;
//! and as the `--json` events carry one (whole milliseconds).

use std::time::Duration;

/// Elapsed time for status lines: "0.42s" under 10 s, else like [`format_remaining`].
pub(crate) fn format_elapsed(d: Duration) -> String {
    if d < Duration::from_secs(10) {
        format!("{:.2}s", d.as_secs_f64())
    } else {
        format_remaining(d)
    }
}

/// "1h02m05s" / "4m10s" / "9s".
pub(crate) fn format_remaining(d: Duration) -> String {
    let s = d.as_secs();
    let (h, m, s) = (s / 3600, (s % 3600) / 60, s % 60);
    if h > 0 {
        format!("{h}h{m:02}m{s:02}s")
    } else if m > 0 {
        format!("{m}m{s:02}s")
    } else {
        format!("{s}s")
    }
}

/// A duration in `--json` output: whole milliseconds.
/// An optional duration in `--json` output: whole milliseconds, or `null`.
pub(super) fn opt_millis<S: serde::Serializer>(
    d: &Option<Duration>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => millis(d, s),
        None => s.serialize_none(),
    }
}

pub(super) fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
