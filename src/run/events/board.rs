//! The wording of a parallel run's board: one status line per claimed story (state, time in
//! it, attempt, the age and text of its agent's last output line) and the summary table at the
//! end, with the data they are made of. Pure text; the scheduler reports them as events.

use std::time::Duration;

use serde::Serialize;

use super::durations::format_elapsed;

/// The most characters of an output line a status line quotes.
const QUOTE: usize = 60;

/// `US-003 Add login · running 4m12s · attempt 2 · 12s ago: "running cargo test"`.
pub(crate) fn status_line(
    id: &str,
    title: &str,
    state: &str,
    elapsed: Duration,
    attempt: u32,
    last: Option<&(Duration, String)>,
) -> String {
    let mut s = format!(
        "{id} {title} · {state} {} · attempt {attempt}",
        format_elapsed(elapsed)
    );
    if let Some((age, line)) = last {
        let mut q: String = line.chars().take(QUOTE).collect();
        if line.chars().count() > QUOTE {
            q.push('…');
        }
        s.push_str(&format!(" · {} ago: \"{q}\"", format_elapsed(*age)));
    }
    s
}

/// One story's line in the summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Row {
    pub id: String,
    /// merged, held, kept branch, interrupted.
    pub result: String,
    pub attempts: u32,
    /// Why attempts failed, e.g. "1 conflict, 1 verify".
    pub failures: String,
    #[serde(serialize_with = "super::durations::millis")]
    pub agent: Duration,
    /// From claim to merge (or to the end).
    #[serde(serialize_with = "super::durations::millis")]
    pub claim_to_end: Duration,
    /// The commit that landed it, or the branch that keeps its work.
    #[serde(rename = "where")]
    pub where_: String,
}

/// Run-wide totals under the table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Totals {
    #[serde(serialize_with = "super::durations::millis")]
    pub wall: Duration,
    #[serde(serialize_with = "super::durations::millis")]
    pub agent: Duration,
    #[serde(serialize_with = "super::durations::millis")]
    pub queue: Duration,
    pub merges: u32,
    pub send_backs: u32,
}

/// The summary table and its totals line.
pub(crate) fn summary(rows: &[Row], t: &Totals) -> Vec<String> {
    let w = rows.iter().map(|r| r.id.len()).max().unwrap_or(5).max(5);
    let mut out = vec![format!(
        "{:<w$}  {:<12}  {:<22}  {:>8}  {:>8}  commit / branch",
        "story", "result", "attempts", "agent", "claimed"
    )];
    for r in rows {
        let attempts = if r.failures.is_empty() {
            r.attempts.to_string()
        } else {
            format!("{} ({})", r.attempts, r.failures)
        };
        out.push(format!(
            "{:<w$}  {:<12}  {:<22}  {:>8}  {:>8}  {}",
            r.id,
            r.result,
            attempts,
            format_elapsed(r.agent),
            format_elapsed(r.claim_to_end),
            r.where_
        ));
    }
    let ratio = if t.wall.is_zero() {
        0.0
    } else {
        t.agent.as_secs_f64() / t.wall.as_secs_f64()
    };
    out.push(format!(
        "wall {} · agent time {} ({ratio:.1}× wall) · queue {} · {} merge(s), {} send-back(s)",
        format_elapsed(t.wall),
        format_elapsed(t.agent),
        format_elapsed(t.queue),
        t.merges,
        t.send_backs
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_quote_the_last_output_cut_to_size() {
        let long = "x".repeat(100);
        let l = status_line(
            "US-3",
            "Login",
            "running",
            Duration::from_secs(252),
            2,
            Some(&(Duration::from_secs(12), long)),
        );
        assert!(
            l.starts_with("US-3 Login · running 4m12s · attempt 2 · 12s ago: \"xxx"),
            "{l}"
        );
        assert!(l.ends_with("x…\""), "{l}");
        assert_eq!(
            status_line("A", "t", "queued", Duration::ZERO, 1, None),
            "A t · queued 0.00s · attempt 1"
        );
    }

    #[test]
    fn the_summary_has_a_row_per_story_and_the_totals() {
        let rows = vec![Row {
            id: "US-1".into(),
            result: "merged".into(),
            attempts: 2,
            failures: "1 conflict".into(),
            agent: Duration::from_secs(61),
            claim_to_end: Duration::from_secs(90),
            where_: "abc1234".into(),
        }];
        let t = Totals {
            wall: Duration::from_secs(100),
            agent: Duration::from_secs(200),
            merges: 1,
            send_backs: 1,
            ..Totals::default()
        };
        let s = summary(&rows, &t);
        assert_eq!(s.len(), 3);
        assert!(
            s[1].contains("2 (1 conflict)") && s[1].contains("abc1234"),
            "{}",
            s[1]
        );
        assert!(
            s[2].contains("(2.0× wall)") && s[2].contains("1 send-back(s)"),
            "{}",
            s[2]
        );
    }
}
