//! Optional agent summaries of old entries: the [`Summarizer`] trait, the fixed prompt
//! template, the acceptance check, and [`CommandSummarizer`] (runs a command, prompt on stdin).
//!
//! Owns when an agent's answer may replace the deterministic summary ([`accept`]: non-empty,
//! shorter than what it replaces, every learning line kept). Does not own which agent is
//! configured (`ralph compact` takes `--summarizer-cmd` or the agent `ralph run` would use)
//! or what happens on rejection (compaction falls back to the deterministic summary).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::dedup::normalize;

/// Produces a summary for a prompt. Implementations: [`CommandSummarizer`]; tests use fakes.
pub trait Summarizer {
    fn summarize(&self, prompt: &str) -> Result<String, SummarizeError>;
}

/// Why a summarizer gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum SummarizeError {
    #[error(
        "the summarizer command is empty; give a program and its arguments, e.g. --summarizer-cmd \"claude -p\""
    )]
    EmptyCommand,
    #[error("cannot split the summarizer command {cmd:?}: {source}; quote it as in a shell")]
    BadCommand {
        cmd: String,
        source: shell_words::ParseError,
    },
    #[error("cannot start the summarizer `{program}`: {source}; check it is installed and on PATH")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error(
        "the summarizer `{program}` did not finish within {secs:.1}s and was killed; raise --summarizer-timeout"
    )]
    TimedOut { program: String, secs: f64 },
    #[error("the summarizer `{program}` failed ({status}): {stderr}")]
    Failed {
        program: String,
        status: String,
        stderr: String,
    },
    #[error("the summarizer `{program}` answered with bytes that are not UTF-8")]
    NotUtf8 { program: String },
    #[error("the summarizer `{program}`: {action}: {source}")]
    Io {
        program: String,
        action: &'static str,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

/// The fixed template the agent is asked to fill.
pub(crate) const TEMPLATE: &str = "\
You are compacting the progress log of an autonomous coding loop. Summarise the OLD ENTRIES \
below for the agents that will continue the work. Answer with exactly these three sections, in \
Markdown, and nothing else:

### Summary
What was built, story by story, in a few lines.

### Key Decisions
One bullet per decision. Then EVERY line listed under LEARNINGS below, each as its own bullet, \
copied word for word (merge only exact repeats).

### Resolution
Where the work stands: what is finished, what is left open, known problems.

Your answer must be shorter than the old entries. Do not use `##` headings.
";

/// The prompt for `old` (the text being replaced) and the learnings that must survive.
pub(crate) fn prompt(old: &str, learnings: &[String]) -> String {
    let mut p = String::with_capacity(TEMPLATE.len() + old.len() + 64);
    p.push_str(TEMPLATE);
    p.push_str("\nLEARNINGS (keep every one, word for word):\n");
    for l in learnings {
        p.push_str("- ");
        p.push_str(l);
        p.push('\n');
    }
    p.push_str("\nOLD ENTRIES:\n");
    p.push_str(old);
    p
}

/// Why an answer was not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Rejection {
    #[error("the answer is empty")]
    Empty,
    #[error(
        "the answer ({answer_lines} lines, {answer_bytes} bytes) is not shorter than the old entries ({old_lines} lines, {old_bytes} bytes)"
    )]
    NotShorter {
        answer_lines: usize,
        answer_bytes: usize,
        old_lines: usize,
        old_bytes: usize,
    },
    #[error("the answer drops the learning line {0:?}")]
    MissingLearning(String),
}

/// Clean an answer up: drop a code fence wrapped around all of it, demote `#`/`##` headings to
/// `###` (a `## ` line would end the Compacted History section), drop trailing blank lines.
pub(crate) fn sanitize(answer: &str) -> String {
    let mut lines: Vec<&str> = answer.lines().collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    if lines.len() >= 2
        && lines[0].trim_start().starts_with("```")
        && lines[lines.len() - 1].trim() == "```"
    {
        lines = lines[1..lines.len() - 1].to_vec();
    }
    let mut out = String::with_capacity(answer.len());
    for l in lines {
        let t = l.trim_start();
        let demoted = t
            .strip_prefix("## ")
            .or_else(|| t.strip_prefix("# "))
            .map(|rest| format!("### {rest}"));
        out.push_str(demoted.as_deref().unwrap_or(l));
        out.push('\n');
    }
    out
}

/// Accept an answer only if it is non-empty, shorter than `old` (lines and bytes), and keeps
/// every learning: each normalised learning must appear within one normalised answer line.
/// Returns the sanitised answer.
pub(crate) fn accept(
    answer: &str,
    old: &str,
    learning_norms: &[&str],
) -> Result<String, Rejection> {
    let answer = sanitize(answer);
    if answer.trim().is_empty() {
        return Err(Rejection::Empty);
    }
    let (answer_lines, old_lines) = (answer.lines().count(), old.lines().count());
    if answer_lines >= old_lines || answer.len() >= old.len() {
        return Err(Rejection::NotShorter {
            answer_lines,
            answer_bytes: answer.len(),
            old_lines,
            old_bytes: old.len(),
        });
    }
    let norms: Vec<String> = answer.lines().map(|l| normalize(l.as_bytes())).collect();
    for &want in learning_norms {
        if !norms.iter().any(|n| n.contains(want)) {
            return Err(Rejection::MissingLearning(want.to_string()));
        }
    }
    Ok(answer)
}

/// Runs a command: the prompt on its stdin, its stdout is the answer. Killed (with its process
/// group) when it runs longer than the timeout. Never goes through a shell.
#[derive(Debug, Clone)]
pub(crate) struct CommandSummarizer {
    argv: Vec<String>,
    timeout: Duration,
}

impl CommandSummarizer {
    pub(crate) fn new(argv: Vec<String>, timeout: Duration) -> Result<Self, SummarizeError> {
        if argv.first().is_none_or(|p| p.is_empty()) {
            return Err(SummarizeError::EmptyCommand);
        }
        Ok(CommandSummarizer { argv, timeout })
    }

    /// Split a command line the way a POSIX shell would (quotes, escapes), without running one.
    pub(crate) fn from_command_line(cmd: &str, timeout: Duration) -> Result<Self, SummarizeError> {
        let argv = shell_words::split(cmd).map_err(|source| SummarizeError::BadCommand {
            cmd: cmd.to_string(),
            source,
        })?;
        CommandSummarizer::new(argv, timeout)
    }

    #[cfg(test)]
    pub(crate) fn argv(&self) -> &[String] {
        &self.argv
    }
}

fn kill(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: killpg only sends a signal; the child was spawned as the leader of its own
        // process group (process_group(0)), so this reaches it and its descendants only.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The last `max` characters of stderr, for an error message.
fn tail(bytes: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(bytes);
    let s = s.trim();
    let start = s.char_indices().rev().nth(max).map_or(0, |(i, _)| i);
    s[start..].to_string()
}

/// One stream's bytes: `true` for stdout.
type Chunk = (bool, std::io::Result<Vec<u8>>);

/// What one stream's reader sent, if it finished.
type Stream = Option<std::io::Result<Vec<u8>>>;

/// Feed stdin and drain stdout/stderr on threads so a full pipe never blocks anyone; each
/// output stream arrives whole on the channel.
fn pipe_threads(child: &mut std::process::Child, prompt: &str) -> mpsc::Receiver<Chunk> {
    if let Some(mut stdin) = child.stdin.take() {
        let bytes = prompt.as_bytes().to_vec();
        // A command that exits without reading its input is not an error here.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let (tx, rx) = mpsc::channel::<Chunk>();
    let readers: [(bool, Option<Box<dyn Read + Send>>); 2] = [
        (true, child.stdout.take().map(|s| Box::new(s) as _)),
        (false, child.stderr.take().map(|s| Box::new(s) as _)),
    ];
    for (is_out, pipe) in readers {
        if let Some(mut pipe) = pipe {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let r = pipe.read_to_end(&mut buf).map(|_| buf);
                let _ = tx.send((is_out, r));
            });
        }
    }
    rx
}

/// The child's exit status; `None` when it was still running at `deadline` (then killed). An
/// error from waiting kills it too.
fn wait_until(
    child: &mut std::process::Child,
    deadline: Instant,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(Some(status)),
            Ok(None) if Instant::now() >= deadline => {
                kill(child);
                return Ok(None);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(source) => {
                kill(child);
                return Err(source);
            }
        }
    }
}

/// Stdout and stderr as the reader threads send them. A grandchild may still hold a pipe
/// open: they are waited for only until `deadline` (`None`: the group killed).
fn outputs(
    rx: &mpsc::Receiver<Chunk>,
    child: &mut std::process::Child,
    deadline: Instant,
) -> Option<(Stream, Stream)> {
    let (mut out, mut err) = (None, None);
    while out.is_none() || err.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((true, r)) => out = Some(r),
            Ok((false, r)) => err = Some(r),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                kill(child);
                return None;
            }
        }
    }
    Some((out, err))
}

impl Summarizer for CommandSummarizer {
    fn summarize(&self, prompt: &str) -> Result<String, SummarizeError> {
        let program = self.argv[0].clone();
        let mut cmd = Command::new(&program);
        cmd.args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let started = Instant::now();
        let mut child = cmd.spawn().map_err(|source| SummarizeError::Spawn {
            program: program.clone(),
            source,
        })?;
        let timed_out = || SummarizeError::TimedOut {
            program: program.clone(),
            secs: self.timeout.as_secs_f64(),
        };
        let rx = pipe_threads(&mut child, prompt);
        let deadline = started + self.timeout;
        let status = match wait_until(&mut child, deadline) {
            Ok(Some(status)) => status,
            Ok(None) => return Err(timed_out()),
            Err(source) => {
                return Err(SummarizeError::Io {
                    program,
                    action: "wait for the process",
                    source,
                });
            }
        };
        let Some((out, err)) = outputs(&rx, &mut child, deadline) else {
            return Err(timed_out());
        };
        let io = |source| SummarizeError::Io {
            program: program.clone(),
            action: "read its output",
            source,
        };
        let out = out.transpose().map_err(io)?.unwrap_or_default();
        let err = err.transpose().map_err(io)?.unwrap_or_default();
        if !status.success() {
            return Err(SummarizeError::Failed {
                program,
                status: status.to_string(),
                stderr: tail(&err, 400),
            });
        }
        String::from_utf8(out).map_err(|_| SummarizeError::NotUtf8 { program })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "## 2026-01-01 - US-1\n- built the parser\n- **Learnings:**\n  - Use fsutil for writes\n  - Bash 3.2 lacks maps\n---\n## 2026-01-02 - US-2\n- built the printer\n- more detail\n- even more detail\n---\n";
    const NORMS: [&str; 2] = ["use fsutil for writes", "bash 3 2 lacks maps"];

    #[test]
    fn good_answer_is_accepted_and_sanitised() {
        let answer = "```markdown\n## Summary\nParser and printer.\n### Key Decisions\n- Use fsutil for writes.\n- bash 3.2 lacks maps\n```\n\n";
        let got = accept(answer, OLD, &NORMS).unwrap();
        assert_eq!(
            got,
            "### Summary\nParser and printer.\n### Key Decisions\n- Use fsutil for writes.\n- bash 3.2 lacks maps\n"
        );
    }

    #[test]
    fn empty_longer_or_lossy_answers_are_rejected() {
        assert_eq!(accept(" \n\n", OLD, &NORMS), Err(Rejection::Empty));
        let long = OLD.repeat(2);
        assert!(matches!(
            accept(&long, OLD, &NORMS),
            Err(Rejection::NotShorter { .. })
        ));
        let one_long_line = "x".repeat(OLD.len());
        assert!(matches!(
            accept(&one_long_line, OLD, &NORMS),
            Err(Rejection::NotShorter { .. })
        ));
        assert_eq!(
            accept("### Summary\n- Use fsutil for writes\n", OLD, &NORMS),
            Err(Rejection::MissingLearning("bash 3 2 lacks maps".into()))
        );
    }

    #[test]
    fn prompt_holds_template_learnings_and_old_text() {
        let p = prompt(OLD, &["Use fsutil for writes".into()]);
        assert!(p.starts_with(TEMPLATE));
        assert!(p.contains("### Key Decisions"));
        assert!(p.contains("\n- Use fsutil for writes\n"));
        assert!(p.ends_with(OLD));
    }

    #[test]
    fn command_line_is_split_without_a_shell() {
        let s =
            CommandSummarizer::from_command_line("agent -p 'two words' \"$HOME\"", Duration::ZERO)
                .unwrap();
        assert_eq!(s.argv(), ["agent", "-p", "two words", "$HOME"]);
        assert!(matches!(
            CommandSummarizer::from_command_line("agent 'unclosed", Duration::ZERO),
            Err(SummarizeError::BadCommand { .. })
        ));
        assert!(matches!(
            CommandSummarizer::from_command_line("   ", Duration::ZERO),
            Err(SummarizeError::EmptyCommand)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn command_gets_prompt_on_stdin_and_answers_on_stdout() {
        let s = CommandSummarizer::new(vec!["cat".into()], Duration::from_secs(10)).unwrap();
        assert_eq!(s.summarize("hello\nworld").unwrap(), "hello\nworld");
    }

    #[cfg(unix)]
    #[test]
    fn overrunning_command_is_killed_at_the_timeout() {
        let s = CommandSummarizer::new(
            vec!["sh".into(), "-c".into(), "sleep 30 & sleep 30".into()],
            Duration::from_millis(150),
        )
        .unwrap();
        let started = Instant::now();
        let err = s.summarize("x").unwrap_err();
        assert!(matches!(err, SummarizeError::TimedOut { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[cfg(unix)]
    #[test]
    fn failing_or_missing_command_is_an_error_with_its_stderr() {
        let s = CommandSummarizer::new(
            vec![
                "sh".into(),
                "-c".into(),
                "echo quota exceeded >&2; exit 3".into(),
            ],
            Duration::from_secs(10),
        )
        .unwrap();
        let err = s.summarize("x").unwrap_err().to_string();
        assert!(err.contains("quota exceeded") && err.contains('3'), "{err}");
        let missing =
            CommandSummarizer::new(vec!["/nonexistent/agent".into()], Duration::from_secs(1))
                .unwrap();
        assert!(matches!(
            missing.summarize("x"),
            Err(SummarizeError::Spawn { .. })
        ));
    }
}
