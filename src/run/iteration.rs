//! One iteration, steps 6-9: prompt, agent run, integrity guard, outcome and verify gate,
//! history record. The loop around it (lock, validation, archive, selection, sleeps, limits)
//! is in the parent module.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::history::{self, Record};
use super::outcome::{self, AgentFacts, Outcome, Progress};
use super::prompt::{self, RetryNote};
use super::{Options, RunError, git, guard, report, verify};
use crate::agent::process::{LogSink, Supervise, supervise};
use crate::agent::{self, detect};
use crate::prd::{Prd, Story};

/// Everything one iteration needs from the loop.
pub struct Input<'a> {
    pub opts: &'a Options,
    pub run_id: &'a str,
    pub run_dir: &'a Path,
    pub interrupt: &'a AtomicBool,
    pub prd: &'a Prd,
    pub prd_bytes: &'a [u8],
    pub story: &'a Story,
    /// The counted iteration number (1-based).
    pub n: u32,
    /// This story's attempt number in this run (1-based).
    pub attempt: u32,
    pub retry: Option<&'a RetryNote>,
    /// The work tree as the previous iteration left it, if known (saves a `git status`).
    pub before: Option<git::Snapshot>,
}

/// What happened.
pub struct Done {
    pub outcome: Outcome,
    /// `None` when it cannot be known (outside git, or `git status` failed) and no `passes`
    /// flip shows it: such an iteration never counts as a strike.
    pub progress: Option<Progress>,
    pub record: Record,
    /// What the next prompt for this story should say, when it failed.
    pub retry: Option<RetryNote>,
    /// prd.json after the iteration (guarded, passes settled), when it changed.
    pub changed: Option<(Prd, Vec<u8>)>,
    /// Every story passes now.
    pub all_done: bool,
    pub rate_line: Option<String>,
    pub extra: String,
    /// The work tree after the iteration (the next iteration's "before").
    pub after: Option<git::Snapshot>,
}

/// The last `max` bytes of `s`, starting on a char boundary and a line start when possible.
pub fn tail_of(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    let t = &s[start..];
    match t.find('\n') {
        Some(i) if i + 1 < t.len() => &t[i + 1..],
        _ => t,
    }
}

/// The last `n` non-empty lines of `s`.
pub fn last_lines(s: &str, n: usize) -> String {
    let mut lines: Vec<&str> = s
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .collect();
    lines.reverse();
    lines.join("\n")
}

const NOTE_TAIL: usize = 4096;

/// The retry note when the agent printed a completion signal but left prd.json unmarked and no
/// verify command could check the claim.
const BARE_CLAIM_NOTE: &str = "You printed the completion signal but did not set \"passes\": true for your story in prd.json. With no verify commands configured, a signal alone does not count: finish the story, then mark it passing in prd.json.";

/// The lines of `prompt` (trimmed) that would read as a completion signal for `story_id`: an
/// output line equal to one of them does not count.
pub fn prompt_signal_lines(prompt: &str, story_id: &str) -> HashSet<String> {
    prompt
        .lines()
        .filter(|l| detect::is_completion_line(l, story_id))
        .map(|l| l.trim().to_string())
        .collect()
}

fn log_sink(path: &Path) -> Option<Arc<Mutex<LogSink>>> {
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "ralph: warning: {}: cannot open the iteration log ({e}); output goes to the terminal only",
                path.display()
            );
            return None;
        }
    };
    Some(Arc::new(Mutex::new(LogSink {
        file,
        redact: super::redact_for_log,
    })))
}

fn log_line(log: &Option<Arc<Mutex<LogSink>>>, line: &str) {
    use std::io::Write;
    if let Some(l) = log
        && let Ok(mut sink) = l.lock()
    {
        let text = (sink.redact)(&format!("{line}\n"));
        let _ = sink.file.write_all(text.as_bytes());
    }
}

pub fn run_one(inp: Input<'_>) -> Result<Done, RunError> {
    let opts = inp.opts;
    let s = &opts.settings;
    let story = inp.story;
    let start_time = jiff::Zoned::now();
    let prompt = prompt::build(
        &opts.root,
        inp.prd,
        story,
        inp.retry,
        &opts.agent,
        &s.context,
    )?;
    let prompt_file = inp.run_dir.join(format!("prompt-{}.md", inp.n));
    let inv = agent::plan(&opts.agent, &prompt, &prompt_file);
    if let Some(p) = &inv.prompt_file {
        crate::fsutil::atomic_write(p, prompt.as_bytes()).map_err(|source| {
            agent::AgentError::PromptFile {
                path: p.clone(),
                source,
            }
        })?;
        if inv.switched_to_file {
            crate::say!(
                "ralph: the prompt ({} bytes) is too long for one argument; passing the file {} instead",
                prompt.len(),
                p.display()
            );
        }
    }
    let prd_rel = opts
        .prd_path
        .strip_prefix(&opts.root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "prd.json".into());
    let before = inp.before.or_else(|| git::snapshot(&opts.root, &prd_rel));
    let log = log_sink(&inp.run_dir.join(format!("iter-{}.log", inp.n)));
    log_line(
        &log,
        &format!(
            "=== ralph iteration {} · story {} · attempt {} · {}\n$ {}",
            inp.n,
            story.id,
            inp.attempt,
            start_time.timestamp(),
            shell_words::join(&inv.argv)
        ),
    );
    let progress_path = opts.root.join("progress.txt");
    let progress_before = guard::progress_before(&progress_path);
    let signalled = Arc::new(AtomicBool::new(false));
    let watch: agent::process::LineWatch = {
        let flag = signalled.clone();
        let id = story.id.clone();
        // A line the prompt itself contains is the agent echoing its input (or quoting notes
        // and progress.txt), not a signal.
        let echoed = prompt_signal_lines(&prompt, &id);
        Arc::new(move |line: &str| {
            if detect::is_completion_line(line, &id) && !echoed.contains(line.trim()) {
                flag.store(true, Ordering::SeqCst);
            }
        })
    };
    let mut env: Vec<(String, String)> = vec![
        ("RALPH_RUN_ID".into(), inp.run_id.to_string()),
        ("RALPH_ITERATION".into(), inp.n.to_string()),
        ("RALPH_STORY_ID".into(), story.id.clone()),
        ("RALPH_ATTEMPT".into(), inp.attempt.to_string()),
        ("RALPH_PRD".into(), opts.prd_path.display().to_string()),
    ];
    env.extend(opts.env.iter().cloned());
    let run = supervise(Supervise {
        argv: &inv.argv,
        cwd: &opts.root,
        env: &env,
        stdin: inv.stdin.clone(),
        timeout: s.timeout,
        grace: s.grace,
        log: log.clone(),
        echo: opts.echo,
        interrupt: inp.interrupt,
        watch: Some(watch),
        sweep_orphans: true,
        record: Some(super::state_dir(&opts.root).join(super::AGENT_GROUP)),
    })?;
    if run.stopped_leftovers {
        eprintln!("ralph: stopped processes the agent left running");
    }

    // Step 7: the integrity guard.
    let gctx = guard::Ctx {
        state_dir: &super::state_dir(&opts.root),
        n: inp.n,
    };
    if let Some(p) = guard::progress_after(gctx, &progress_path, progress_before.as_deref())? {
        eprintln!("ralph: {}", report::progress_restored(&p));
    }
    let g = guard::after_agent(gctx, &opts.prd_path, inp.prd, inp.prd_bytes, &story.id)?;
    let (restored, flips): (Vec<String>, Vec<(String, bool)>) = match &g {
        Some(g) => (
            g.restored.iter().map(ToString::to_string).collect(),
            g.flips.clone(),
        ),
        None => (vec![], vec![]),
    };
    if let Some(g) = &g
        && let Some(line) = report::prd_restored(&opts.prd_path, g)
    {
        eprintln!("ralph: {line}");
    }
    let rejected = g.as_ref().and_then(|g| g.rejected.clone());
    let mut changed: Option<(Prd, Vec<u8>)> = g.map(|g| (g.prd, g.bytes));

    // Step 8: outcome and the verify gate.
    // A limit message ends the agent's run, so only its last lines count (earlier output may
    // well mention limits or 429 in ordinary work); a timeout is a timeout.
    let rate_line = if run.timed_out {
        None
    } else {
        detect::rate_limit_line(&last_lines(&run.tail, detect::LIMIT_LINES)).map(String::from)
    };
    let facts = AgentFacts {
        exit_code: run.exit_code,
        timed_out: run.timed_out,
        interrupted: run.interrupted,
        passes_after: changed
            .as_ref()
            .map_or(inp.prd, |(p, _)| p)
            .story(&story.id)
            .is_some_and(|x| x.passes),
        signalled: signalled.load(Ordering::SeqCst),
        rate_limited: rate_line.is_some(),
        gated: !s.verify.is_empty(),
    };
    let mut verify_results = vec![];
    let mut retry = None;
    let mut extra = String::new();
    let mut interrupted = run.interrupted;
    let verified = if facts.claimed() && !s.verify.is_empty() {
        let gate = verify::run_all(
            &s.verify,
            &verify::VerifyEnv {
                root: &opts.root,
                timeout: s.timeout,
                grace: s.grace,
                log: log.clone(),
                echo: opts.echo,
                interrupt: inp.interrupt,
            },
        )?;
        interrupted |= gate.interrupted;
        let ok = gate.passed();
        let passed_n = gate.results.iter().filter(|r| r.passed).count();
        extra = format!("verify {passed_n}/{} passed", s.verify.len());
        if let (Some(f), Some(r)) = (&gate.failed, gate.results.last()) {
            let how = if f.timed_out {
                "timed out".to_string()
            } else {
                match f.exit_code {
                    Some(c) => format!("exited {c}"),
                    None => "was killed".to_string(),
                }
            };
            extra = format!("{extra}: `{}` {how}", r.command);
            retry = Some(RetryNote {
                attempt: inp.attempt,
                reason: format!(
                    "Verification failed: `{}` {how}. The story was marked not passing again.",
                    r.command
                ),
                output_tail: Some(tail_of(&f.tail, NOTE_TAIL).to_string()),
            });
        }
        verify_results = gate.results;
        ok
    } else {
        true
    };
    let facts = AgentFacts {
        interrupted,
        ..facts
    };
    let outcome = outcome::decide(&facts, verified);
    // The loop settles `passes` itself: true when the agent only signalled; when the gate
    // failed or the run was interrupted before it could judge, every false→true flip of this
    // iteration is undone.
    let mut settle: Vec<(String, bool)> = match outcome {
        Outcome::Done if !facts.passes_after => vec![(story.id.clone(), true)],
        Outcome::VerifyFailed | Outcome::Interrupted => flips
            .iter()
            .filter(|(_, p)| *p)
            .map(|(id, _)| (id.clone(), false))
            .collect(),
        _ => vec![],
    };
    if outcome == Outcome::VerifyFailed && facts.passes_after {
        settle.push((story.id.clone(), false));
    }
    if !settle.is_empty() {
        let mut prd = match changed.take() {
            Some((p, _)) => p,
            None => inp.prd.clone(),
        };
        for (id, passes) in &settle {
            prd.set_passes(id, *passes)?;
        }
        let bytes = guard::save_settled(gctx, &prd)?;
        changed = Some((prd, bytes));
    }
    let all_done = changed.as_ref().map_or(inp.prd, |(p, _)| p).all_done();
    if facts.bare_claim() && outcome != Outcome::Interrupted {
        extra = "the agent claimed completion without marking prd.json".to_string();
    }
    if retry.is_none() {
        let reason = match outcome {
            Outcome::TimedOut => Some(format!(
                "The agent timed out after {} and was stopped.",
                super::ratelimit::format_remaining(s.timeout)
            )),
            Outcome::Incomplete | Outcome::AgentFailed if facts.bare_claim() => {
                Some(BARE_CLAIM_NOTE.to_string())
            }
            Outcome::AgentFailed => Some(format!(
                "The agent exited with {} before finishing the story.",
                match (run.exit_code, run.signal) {
                    (Some(c), _) => format!("code {c}"),
                    (None, Some(sig)) => format!("signal {sig}"),
                    _ => "an unknown status".into(),
                }
            )),
            Outcome::Incomplete => {
                Some("The agent ended without completing the story (prd.json not updated, no completion signal).".to_string())
            }
            _ => None,
        };
        retry = reason.map(|reason| RetryNote {
            attempt: inp.attempt,
            reason,
            output_tail: Some(tail_of(&run.tail, NOTE_TAIL).to_string())
                .filter(|t| !t.trim().is_empty()),
        });
    }
    if !restored.is_empty() && outcome != Outcome::Done {
        let note = format!(
            "Your edits to prd.json were reverted: {}. Only change \"passes\" and \"notes\".",
            restored.join("; ")
        );
        retry = Some(match retry {
            Some(mut r) => {
                r.reason = format!("{note}\n{}", r.reason);
                r
            }
            None => RetryNote {
                attempt: inp.attempt,
                reason: note,
                output_tail: None,
            },
        });
    }
    if outcome == Outcome::Done {
        retry = None;
    }

    let after = git::snapshot(&opts.root, &prd_rel);
    let passes_flipped = flips.iter().any(|(id, p)| id == &story.id && *p);
    let (progress, files) = match (&before, &after) {
        (Some(b), Some(a)) => {
            let (committed, tree_changed, files) = git::compare(&opts.root, b, a);
            let p = Progress {
                committed,
                tree_changed,
                passes_flipped,
            };
            (Some(p), files)
        }
        // No snapshot: the work tree is unknown, only a flip is evidence.
        _ => (
            passes_flipped.then_some(Progress {
                passes_flipped,
                ..Progress::default()
            }),
            vec![],
        ),
    };
    let record = Record {
        run_id: inp.run_id.to_string(),
        iteration: inp.n,
        story: story.id.clone(),
        agent: opts.agent.kind.name().to_string(),
        start: start_time.timestamp().to_string(),
        duration_ms: run.duration.as_millis() as u64,
        exit_code: run.exit_code,
        term_signal: run.signal,
        timed_out: run.timed_out,
        signal_seen: facts.signalled,
        verify: verify_results,
        outcome,
        head_before: before.and_then(|b| b.head),
        head_after: after.as_ref().and_then(|a| a.head.clone()),
        files_changed: files,
        restored,
        rate_limit: rate_line
            .clone()
            .filter(|_| outcome == Outcome::RateLimited),
        skipped: false,
    };
    let mut after = after;
    if !record.restored.is_empty() || !settle.is_empty() {
        let msg = report::correction_message(&report::Correction {
            n: inp.n,
            story: &story.id,
            restored: &record.restored,
            settled: &settle,
            outcome,
            rejected: rejected.as_deref(),
        });
        match git::commit_correction(&opts.root, &prd_rel, &msg) {
            Ok(Some(head)) => {
                eprintln!("ralph: committed its correction of {prd_rel} ({head:.12})");
                if let Some(a) = after.as_mut() {
                    a.head = Some(head);
                }
            }
            Ok(None) => {}
            Err(e) => eprintln!(
                "ralph: warning: {e}; {prd_rel} in the work tree is corrected, but HEAD may still hold the rejected version"
            ),
        }
    }
    Ok(Done {
        outcome,
        progress,
        record,
        retry,
        changed,
        all_done,
        rate_line,
        extra,
        after,
    })
}

/// Append the record (the loop may have marked it `skipped`).
pub fn record(root: &Path, rec: &Record) -> Result<(), RunError> {
    history::append(root, rec)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_of_cuts_at_a_line_start_and_char_boundary() {
        assert_eq!(tail_of("short", 10), "short");
        assert_eq!(tail_of("line one\nline two\nthree", 12), "three");
        let s = "é".repeat(10);
        assert!(tail_of(&s, 5).chars().all(|c| c == 'é'));
        assert_eq!(last_lines("a\nb\n\nc\n\n", 2), "b\nc");
    }

    #[test]
    fn completion_lines_found_in_the_prompt_are_collected_trimmed() {
        let p = "Do A.\n  <promise>COMPLETE</promise>  \nSTORY COMPLETE: B\nSTORY COMPLETE: A\n";
        let set = prompt_signal_lines(p, "A");
        assert!(set.contains("<promise>COMPLETE</promise>"));
        assert!(set.contains("STORY COMPLETE: A"));
        assert_eq!(set.len(), 2);
    }
}
