//! Reading an agent's output: completion signals and usage/rate-limit messages (pure functions).
//!
//! Owns what counts as "the agent said it is done" and "the agent hit a limit". Does not decide
//! what happens next (see `crate::run::outcome`) or parse reset times (`crate::run::ratelimit`).

use regex::Regex;
use std::sync::OnceLock;

/// What the agent said about its story on a line of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// `<promise>COMPLETE</promise>` or `STORY COMPLETE: <id>`.
    Complete,
    /// `<promise>BLOCKED: reason</promise>` or `STORY BLOCKED: <id>: reason`: it cannot be
    /// done in this run.
    Blocked(String),
    /// `<promise>FAILED: reason</promise>` or `STORY FAILED: <id>: reason`: this attempt failed.
    Failed(String),
}

/// The reason a BLOCKED or FAILED signal carries when the agent gave none.
pub const NO_REASON: &str = "no reason given";

fn reason(r: &str) -> String {
    let r = r.trim();
    if r.is_empty() { NO_REASON } else { r }.to_string()
}

/// The signal on one output line, if it is one for `story_id`. Only a line of its own counts
/// (surrounding whitespace allowed); a `STORY …:` form must name this story. A tag inside a
/// sentence (the agent quoting its instructions) does not count.
pub fn signal_line(line: &str, story_id: &str) -> Option<Signal> {
    let t = line.trim();
    if t == "<promise>COMPLETE</promise>" {
        return Some(Signal::Complete);
    }
    if let Some(inner) = t
        .strip_prefix("<promise>")
        .and_then(|r| r.strip_suffix("</promise>"))
    {
        let (kind, rest) = inner.split_once(':').unwrap_or((inner, ""));
        return match kind {
            "BLOCKED" => Some(Signal::Blocked(reason(rest))),
            "FAILED" => Some(Signal::Failed(reason(rest))),
            _ => None,
        };
    }
    let (kind, rest) = t.strip_prefix("STORY ")?.split_once(':')?;
    let rest = rest.trim_start().strip_prefix(story_id)?.trim();
    let why = match rest {
        "" => "",
        r => r.strip_prefix(':')?,
    };
    match kind {
        "COMPLETE" if why.is_empty() => Some(Signal::Complete),
        "BLOCKED" => Some(Signal::Blocked(reason(why))),
        "FAILED" => Some(Signal::Failed(reason(why))),
        _ => None,
    }
}

fn limit_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // Natural phrases only: identifiers (`rate_limit`, `test_rate-limit`) and a bare 429
        // (`retry_after_429`) show up in ordinary build and test output.
        Regex::new(
            r"(?ix)
            usage\x20limit\x20(reached|exceeded|hit)
            | rate\x20limit(ed\b|\x20(reached|exceeded|hit))
            | too\x20many\x20requests
            | quota\x20exceeded | exceeded\x20your\x20current\x20quota | \bresource_exhausted\b
            | \b(https?(/[0-9.]+)?|status(\x20code)?|api\x20error|error)[\x20:]+429\b
            | (hit|reached)\x20your\x20(usage\x20)?limit
            | limit\x20reached\|\d{9,}
            | \d+-hour\x20limit
            | limit\x20reached.*resets",
        )
        .expect("a literal regex")
    })
}

/// How many non-empty lines at the end of the output are searched for a limit message.
pub const LIMIT_LINES: usize = 5;

/// The first line that reads like a usage or rate-limit message ("usage limit reached … resets
/// 7pm (Asia/Tokyo)", "rate limit exceeded", "HTTP 429", "quota exceeded"), if any. Callers
/// pass only the last [`LIMIT_LINES`] lines of output: a limit ends the agent's run.
pub fn rate_limit_line(text: &str) -> Option<&str> {
    text.lines().find(|l| limit_re().is_match(l)).map(str::trim)
}

/// The limit message among the last [`LIMIT_LINES`] non-empty lines of a process's output
/// tail, unless it timed out (a timeout is a timeout): the one reading of the developing agent's
/// and the reviewer's output.
pub fn limit_at_end(tail: &str, timed_out: bool) -> Option<String> {
    if timed_out {
        return None;
    }
    let mut last: Vec<&str> = tail
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(LIMIT_LINES)
        .collect();
    last.reverse();
    rate_limit_line(&last.join("\n")).map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_counts_only_in_the_last_lines_and_not_after_a_timeout() {
        let tail = "rate limit exceeded\n1\n2\n\n3\n4\n5\n";
        assert_eq!(limit_at_end(tail, false), None, "six lines back");
        let tail = "work\nHTTP 429 Too Many Requests\n\n\nbye\n";
        assert_eq!(
            limit_at_end(tail, false).as_deref(),
            Some("HTTP 429 Too Many Requests")
        );
        assert_eq!(limit_at_end(tail, true), None);
    }

    fn has_completion(text: &str, story_id: &str) -> bool {
        text.lines()
            .any(|l| signal_line(l, story_id) == Some(Signal::Complete))
    }

    #[test]
    fn completion_needs_a_line_of_its_own_and_the_right_story() {
        assert!(has_completion("work\n<promise>COMPLETE</promise>\n", "A"));
        assert!(has_completion("  STORY COMPLETE: US-001  ", "US-001"));
        assert!(!has_completion("STORY COMPLETE: US-002", "US-001"));
        assert!(!has_completion(
            "print <promise>COMPLETE</promise> when done",
            "A"
        ));
        assert!(!has_completion("When done print: STORY COMPLETE: A", "A"));
        assert!(!has_completion("", "A"));
    }

    #[test]
    fn blocked_and_failed_follow_the_completion_rules() {
        let b = |r: &str| Some(Signal::Blocked(r.to_string()));
        let f = |r: &str| Some(Signal::Failed(r.to_string()));
        assert_eq!(
            signal_line("STORY BLOCKED: A: needs an API key", "A"),
            b("needs an API key")
        );
        assert_eq!(
            signal_line("  <promise>FAILED: db down</promise> ", "A"),
            f("db down")
        );
        // A reason may hold colons; only the first one after the id separates.
        assert_eq!(
            signal_line("STORY FAILED: A: error: E0425: x", "A"),
            f("error: E0425: x")
        );
        assert_eq!(
            signal_line("<promise>BLOCKED: see: docs</promise>", "A"),
            b("see: docs")
        );
        // An empty reason gets a clear default.
        assert_eq!(signal_line("STORY BLOCKED: A", "A"), b(NO_REASON));
        assert_eq!(signal_line("STORY BLOCKED: A:  ", "A"), b(NO_REASON));
        assert_eq!(signal_line("<promise>FAILED</promise>", "A"), f(NO_REASON));
        assert_eq!(signal_line("<promise>FAILED:</promise>", "A"), f(NO_REASON));
        // Another story's id (or a longer id starting with this one) does not count.
        assert_eq!(signal_line("STORY BLOCKED: B: no", "A"), None);
        assert_eq!(signal_line("STORY FAILED: AB: no", "A"), None);
        assert_eq!(signal_line("STORY COMPLETE: A: extra", "A"), None);
        // Inside a sentence, or an unknown word, it is not a signal.
        assert_eq!(signal_line("print STORY BLOCKED: A: why", "A"), None);
        assert_eq!(
            signal_line("say <promise>BLOCKED: x</promise> then", "A"),
            None
        );
        assert_eq!(signal_line("<promise>DONE</promise>", "A"), None);
        assert_eq!(signal_line("STORY PAUSED: A: x", "A"), None);
        assert_eq!(
            signal_line("STORY COMPLETE: A", "A"),
            Some(Signal::Complete)
        );
    }

    #[test]
    fn recognises_common_limit_messages() {
        for msg in [
            "Claude usage limit reached. Your limit will reset at 7pm (Asia/Tokyo).",
            "5-hour limit reached ∙ resets 7pm",
            "Error: rate limit exceeded",
            "API Error: 429 {\"type\":\"error\"}",
            "HTTP 429 Too Many Requests",
            "You exceeded your current quota, please check your plan",
            "Quota exceeded for quota metric",
            "RESOURCE_EXHAUSTED",
            "Claude AI usage limit reached|1750000000",
            "You've hit your limit · resets 3am",
            "Error: status 429 from the API",
            "error 429: slow down",
            "429 Too Many Requests",
            "You are being rate limited",
        ] {
            assert!(rate_limit_line(msg).is_some(), "{msg}");
        }
        for msg in [
            "all 4290 tests passed",
            "wrote src/limits.rs",
            "STORY COMPLETE: A",
            "test http::retry_after_429 ... ok",
            "test handles_error_429_body ... ok",
            "test rate_limit::backoff ... ok",
            "src/rate-limit.rs:12: error[E0425]",
            "fn usage_limit_reached() {}",
            "took 429 ms",
        ] {
            assert!(rate_limit_line(msg).is_none(), "{msg}");
        }
    }
}
