//! Reading an agent's output: completion signals, usage/rate-limit messages, and the CLI's
//! refusal to start (pure functions).
//!
//! Owns what counts as "the agent said it is done", "the agent hit a limit" and "the CLI
//! refused to start" (an argument it does not know, root refused, not logged in). Does not
//! decide what happens next (see `crate::run::iteration::outcome`) or parse reset times
//! (`crate::run::ratelimit`).

use regex::Regex;
use std::sync::OnceLock;

/// What the agent said about its story on a line of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Signal {
    /// `<promise>COMPLETE</promise>` or `STORY COMPLETE: <id>`.
    Complete,
    /// `<promise>BLOCKED: reason</promise>` or `STORY BLOCKED: <id>: reason`: it cannot be
    /// done in this run.
    Blocked(String),
    /// `<promise>FAILED: reason</promise>` or `STORY FAILED: <id>: reason`: this attempt failed.
    Failed(String),
}

/// The reason a BLOCKED or FAILED signal carries when the agent gave none.
pub(crate) const NO_REASON: &str = "no reason given";

fn reason(r: &str) -> String {
    let r = r.trim();
    if r.is_empty() { NO_REASON } else { r }.to_string()
}

/// The signal on one output line, if it is one for `story_id`. Only a line of its own counts
/// (surrounding whitespace allowed); a `STORY …:` form must name this story. A tag inside a
/// sentence (the agent quoting its instructions) does not count.
pub(crate) fn signal_line(line: &str, story_id: &str) -> Option<Signal> {
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
pub(crate) const LIMIT_LINES: usize = 5;

/// The first line that reads like a usage or rate-limit message ("usage limit reached … resets
/// 7pm (Asia/Tokyo)", "rate limit exceeded", "HTTP 429", "quota exceeded"), if any. Callers
/// pass only the last [`LIMIT_LINES`] lines of output: a limit ends the agent's run.
pub(crate) fn rate_limit_line(text: &str) -> Option<&str> {
    text.lines().find(|l| limit_re().is_match(l)).map(str::trim)
}

/// The limit message among the last [`LIMIT_LINES`] non-empty lines of a process's output
/// tail, unless it timed out (a timeout is a timeout): the one reading of the developing agent's
/// and the reviewer's output.
pub(crate) fn limit_at_end(tail: &str, timed_out: bool) -> Option<String> {
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

/// Why an agent CLI refused to start, as its own output says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Refusal {
    /// It does not know one of the arguments ralph passed.
    UnknownArgument,
    /// It refuses to skip permission prompts when run as root (Claude Code).
    Root,
    /// It has no credentials (not logged in, no API key).
    NotLoggedIn,
    /// It does not run headless in a folder it has not been told to trust (Gemini CLI).
    Untrusted,
}

/// How many non-empty lines at the end of the output are searched for a refusal: a CLI that
/// refuses says so last, and earlier output may quote such words in ordinary work.
pub(crate) const REFUSAL_LINES: usize = 12;

fn refusal_res() -> &'static [(Refusal, Regex)] {
    static RES: OnceLock<Vec<(Refusal, Regex)>> = OnceLock::new();
    RES.get_or_init(|| {
        let re = |r: &str| Regex::new(r).expect("a literal regex");
        vec![
            // clap (codex), commander (claude, amp, copilot), yargs (gemini, opencode).
            (
                Refusal::UnknownArgument,
                re(r"(?i)(error: unexpected argument '[^']*' found|unknown option '[^']*'|^\s*unknown arguments?: |error: unrecognized subcommand|error: invalid command format)"),
            ),
            (
                Refusal::Root,
                re(r"cannot be used with root/sudo privileges"),
            ),
            (
                Refusal::Untrusted,
                re(r"(?i)not running in a trusted directory"),
            ),
            (
                Refusal::NotLoggedIn,
                re(r"(?i)(not logged in\b.*(/login|log in)|invalid api key\b.*/login|please run /login|no api key found|please set an auth method|no authentication information found|\bnot authenticated\b|\bauthentication_failed\b)"),
            ),
        ]
    })
}

/// The refusal among the last [`REFUSAL_LINES`] non-empty lines of `output`, else among its
/// first (a CLI may print its usage error first and its whole help after it), with the line
/// that says it (trimmed), if any.
pub(crate) fn refusal(output: &str) -> Option<(Refusal, String)> {
    let lines = || output.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut last: Vec<&str> = lines().rev().take(REFUSAL_LINES).collect();
    last.reverse();
    let first = lines().take(REFUSAL_LINES);
    last.into_iter().chain(first).find_map(|l| {
        refusal_res()
            .iter()
            .find(|(_, re)| re.is_match(l))
            .map(|(kind, _)| (*kind, l.chars().take(300).collect()))
    })
}

/// Why an agent did not start (the rule is `crate::run::iteration::outcome::start_failure`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StartFailure {
    /// The CLI said why: the kind and its line.
    Refused(Refusal, String),
    /// The command could not be run (exit 126 or 127 from a wrapper or shell).
    NotRunnable(i32),
    /// A structured agent exited non-zero at once, without a single event.
    NoSession(i32),
}

impl StartFailure {
    /// The line that says why: the CLI's own words, or what ralph saw (with the last line of
    /// output, from `tail`, when there is one).
    pub(crate) fn line(&self, tail: &str, quick: std::time::Duration) -> String {
        let last = tail
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| l.chars().take(300).collect::<String>());
        let with_last = |s: String| match &last {
            Some(l) => format!("{s}: {l}"),
            None => s,
        };
        match self {
            StartFailure::Refused(_, line) => line.clone(),
            StartFailure::NotRunnable(c) => {
                with_last(format!("the command could not be run (exit {c})"))
            }
            StartFailure::NoSession(c) => with_last(format!(
                "exited {c} within {}s without starting a session",
                quick.as_secs()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_read_from_what_the_real_clis_print() {
        let cases = [
            (
                "WARNING: proceeding\nerror: unexpected argument '--full-auto' found\n\n  tip: to pass '--full-auto' as a value, use '-- --full-auto'\n\nUsage: codex exec [OPTIONS] [PROMPT]\n",
                Refusal::UnknownArgument,
                "error: unexpected argument '--full-auto' found",
            ),
            (
                "error: unknown option '--bogus'\n",
                Refusal::UnknownArgument,
                "error: unknown option '--bogus'",
            ),
            (
                "Unknown argument: bogus\nUsage: gemini [options] [command]\n",
                Refusal::UnknownArgument,
                "Unknown argument: bogus",
            ),
            (
                "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n",
                Refusal::Root,
                "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
            ),
            (
                "Not logged in · Please run /login\n[result: success · 1 turn(s)]\n",
                Refusal::NotLoggedIn,
                "Not logged in · Please run /login",
            ),
            (
                "Please set an Auth method in your /h/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY\n",
                Refusal::NotLoggedIn,
                "Please set an Auth method in your /h/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY",
            ),
            (
                "Error: No authentication information found.\n\nCopilot can be authenticated\n",
                Refusal::NotLoggedIn,
                "Error: No authentication information found.",
            ),
            (
                "\u{1b}[31mGemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`\u{1b}[0m\n",
                Refusal::Untrusted,
                "\u{1b}[31mGemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`\u{1b}[0m",
            ),
            (
                "No API key found. Starting login flow...\nLogin failed: x\n",
                Refusal::NotLoggedIn,
                "No API key found. Starting login flow...",
            ),
        ];
        for (tail, kind, line) in cases {
            assert_eq!(refusal(tail), Some((kind, line.to_string())), "{tail}");
        }
    }

    /// What the real CLIs printed when they refused (tests/fixtures/telemetry/real/errors,
    /// captured by scripts/agent-contract.sh): both streams, the capture's header left out.
    #[test]
    fn the_real_clis_refusals_are_read() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/telemetry/real/errors"
        );
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let body: String = text
                .lines()
                .filter(|l| !l.starts_with("# "))
                .map(|l| format!("{l}\n"))
                .collect();
            let hung = text.contains("# exit: 124") || text.contains("# exit: 137");
            let want = if name.contains("unknown-argument") || name.contains("preset-full-auto") {
                Some(Refusal::UnknownArgument)
            } else if name.contains("root-refusal") {
                Some(Refusal::Root)
            } else if name.contains("untrusted") {
                Some(Refusal::Untrusted)
            } else if name.contains("no-credentials") && !hung {
                Some(Refusal::NotLoggedIn)
            } else {
                None
            };
            let got = refusal(&body).map(|(k, _)| k);
            if name.starts_with("opencode") && name.contains("unknown-argument") {
                // It prints only its help: its exit without a session is what tells (see
                // crate::run::iteration::outcome::start_failure).
                assert_eq!(got, None, "{name}");
            } else if !hung || want.is_some() {
                assert_eq!(got, want, "{name}: {body}");
            }
            seen += 1;
        }
        assert!(seen >= 10, "{seen} captures");
    }

    #[test]
    fn ordinary_output_and_old_lines_are_not_refusals() {
        assert_eq!(
            refusal("wrote src/auth.rs: handles the not-logged-in case\nok\n"),
            None
        );
        assert_eq!(refusal("the test checks 'unknown option' parsing\n"), None);
        let old = format!(
            "ok\n{}error: unknown option '--x'\n{}",
            "line\n".repeat(REFUSAL_LINES),
            "line\n".repeat(REFUSAL_LINES)
        );
        assert_eq!(refusal(&old), None, "neither at the start nor at the end");
        assert_eq!(refusal(""), None);
    }

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
