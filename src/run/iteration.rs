//! One iteration, steps 6-9: prompt, agent run, integrity guard, outcome and verify gate,
//! history record. The loop around it (lock, validation, archive, selection, sleeps, limits)
//! is in the parent module.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::events::Event;
use super::outcome::{AgentFacts, Outcome, Progress, StartFailure};
use super::prompt::{self, RetryNote};
use super::{Options, PrdSnapshot, RunError, gate, git, guard, launch, report, verdict};
use crate::agent::{self, detect};
use crate::prd::{Prd, Story};
use crate::state::history::{self, Record};

/// Everything one iteration needs from the loop.
pub(crate) struct Input<'a> {
    pub opts: &'a Options,
    pub run_id: &'a str,
    pub run_dir: &'a Path,
    pub interrupt: &'a AtomicBool,
    /// prd.json as the loop read it before this iteration.
    pub prd: &'a PrdSnapshot,
    pub story: &'a Story,
    /// The counted iteration number (1-based).
    pub n: u32,
    /// This story's attempt number in this run (1-based).
    pub attempt: u32,
    pub retry: Option<&'a RetryNote>,
    /// The work tree as the previous iteration left it, if known (saves a `git status`).
    pub before: Option<git::Snapshot>,
    /// The review round this attempt gets if it passes its gate (1-based; `--review`).
    pub review_round: u32,
    /// Where the story's work started (its first attempt's HEAD, a parallel story's base): the
    /// review reads the diff from here, so a second round sees the whole story, not the fix.
    /// `None`: this attempt's HEAD before.
    pub review_base: Option<&'a str>,
}

/// What happened.
pub(crate) struct Done {
    pub outcome: Outcome,
    /// `None` when it cannot be known (outside git, or `git status` failed) and no `passes`
    /// flip shows it: such an iteration never counts as a strike.
    pub progress: Option<Progress>,
    pub record: Record,
    /// What the next prompt for this story should say, when it failed.
    pub retry: Option<RetryNote>,
    /// prd.json after the iteration (guarded, passes settled), when it changed.
    pub changed: Option<PrdSnapshot>,
    /// Every story passes now.
    pub all_done: bool,
    pub rate_line: Option<String>,
    pub extra: String,
    /// The work tree after the iteration (the next iteration's "before").
    pub after: Option<git::Snapshot>,
    /// The learned error patterns the prompt showed (ids; the loop counts their uses).
    pub patterns_used: Vec<String>,
    /// The agent never got going: the run stops (outcome `StartFailed`).
    pub start_failure: Option<StartFailure>,
}

/// The lines of `prompt` (trimmed) that would read as a signal (complete, blocked, failed) for
/// `story_id`: an output line equal to one of them does not count.
pub(crate) fn prompt_signal_lines(prompt: &str, story_id: &str) -> HashSet<String> {
    prompt
        .lines()
        .filter(|l| detect::signal_line(l, story_id).is_some())
        .map(|l| l.trim().to_string())
        .collect()
}

pub(crate) fn run_one(mut inp: Input<'_>) -> Result<Done, RunError> {
    let opts = inp.opts;
    let prd0: &Prd = &inp.prd.prd;
    let rep = &*opts.reporter;
    let s = &opts.settings;
    let story = inp.story;
    let start_time = jiff::Zoned::now();
    let built = prompt::build_for_run(&opts.root, prd0, story, inp.retry, &opts.agent, &s.context)?;
    let (prompt, patterns_used) = (built.text, built.patterns);
    let prompt_file = inp.run_dir.join(format!("prompt-{}.md", inp.n));
    let inv = agent::plan(&opts.agent, &prompt, &prompt_file);
    launch::write_prompt_file(&inv, &prompt)?;
    if let Some(p) = inv.prompt_file.as_ref().filter(|_| inv.switched_to_file) {
        rep.report(Event::Note {
            text: format!(
                "the prompt ({} bytes) is too long for one argument; passing the file {} instead",
                prompt.len(),
                p.display()
            ),
        });
    }
    let prd_rel = opts
        .prd_path
        .strip_prefix(&opts.root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "prd.json".into());
    let before = inp
        .before
        .take()
        .or_else(|| git::snapshot(&opts.root, &prd_rel));
    let log = launch::log_sink(&inp.run_dir.join(format!("iter-{}.log", inp.n)), rep);
    let events_path = inp.run_dir.join(format!("iter-{}.events.jsonl", inp.n));
    launch::log_line(
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
    // The last BLOCKED or FAILED signal seen.
    let said: Arc<Mutex<Option<detect::Signal>>> = Arc::default();
    let watch: agent::process::LineWatch = {
        let (flag, last) = (signalled.clone(), said.clone());
        let id = story.id.clone();
        // A line the prompt itself contains is the agent echoing its input (or quoting notes
        // and progress.txt), not a signal.
        let echoed = prompt_signal_lines(&prompt, &id);
        Arc::new(move |line: &str| match detect::signal_line(line, &id) {
            _ if echoed.contains(line.trim()) => {}
            Some(detect::Signal::Complete) => flag.store(true, Ordering::SeqCst),
            Some(sig) => {
                if let Ok(mut l) = last.lock() {
                    *l = Some(sig);
                }
            }
            None => {}
        })
    };
    let mut env: Vec<(String, String)> = vec![
        ("RALPH_RUN_ID".into(), inp.run_id.to_string()),
        ("RALPH_ITERATION".into(), inp.n.to_string()),
        ("RALPH_STORY_ID".into(), story.id.clone()),
        ("RALPH_ATTEMPT".into(), inp.attempt.to_string()),
        ("RALPH_PRD".into(), opts.prd_path.display().to_string()),
        // The sequential loop is worker 1; a parallel run's workers override these.
        ("RALPH_WORKER".into(), "1".into()),
        ("RALPH_PORT_OFFSET".into(), "0".into()),
    ];
    env.extend(opts.env.iter().cloned());
    let launch::Launched { run, usage, events } = launch::run(launch::Launch {
        opts,
        spec: &opts.agent,
        inv: &inv,
        env: &env,
        story: &story.id,
        log: log.clone(),
        interrupt: inp.interrupt,
        watch,
        events: Some(&events_path),
        usage_file: Some(&inp.run_dir.join(format!("iter-{}.usage.json", inp.n))),
    })?;

    // Step 7: the integrity guard.
    let gctx = guard::Ctx {
        state_dir: &crate::state::state_dir(&opts.root),
        n: inp.n,
    };
    if let Some(p) = guard::progress_after(gctx, &progress_path, progress_before.as_deref())? {
        rep.report(Event::Note {
            text: report::progress_restored(&p),
        });
    }
    let g = guard::after_agent(gctx, &opts.prd_path, prd0, &inp.prd.bytes, &story.id)?;
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
        rep.report(Event::Note { text: line });
    }
    let rejected = g.as_ref().and_then(|g| g.rejected.clone());
    let mut changed: Option<(Prd, Vec<u8>)> = g.map(|g| (g.prd, g.bytes));

    // Step 8: outcome and the verify gate.
    // A limit message ends the agent's run, so only its last lines count (earlier output may
    // well mention limits or 429 in ordinary work); a timeout is a timeout.
    let rate_line = detect::limit_at_end(&run.tail, run.timed_out);
    let facts = AgentFacts {
        exit_code: run.exit_code,
        timed_out: run.timed_out,
        interrupted: run.interrupted,
        passes_after: changed
            .as_ref()
            .map_or(prd0, |(p, _)| p)
            .story(&story.id)
            .is_some_and(|x| x.passes),
        signalled: signalled.load(Ordering::SeqCst),
        said: said.lock().ok().and_then(|mut l| l.take()),
        rate_limited: rate_line.is_some(),
        gated: !gate::commands(opts, story).is_empty(),
    };
    let head = inp
        .review_base
        .or_else(|| before.as_ref().and_then(|b| b.head.as_deref()));
    let (gate, verify_results, red_green) = match facts.claimed() && facts.gated {
        true => {
            let g = gate::run(&gate::Input {
                opts,
                story,
                base: head,
                n: inp.n,
                log: log.clone(),
                interrupt: inp.interrupt,
                prd_rel: &prd_rel,
            })?;
            (Some(g.summary), g.results, g.red_green)
        }
        false => (None, vec![], None),
    };
    let observed = verdict::Observed {
        story: &story.id,
        attempt: inp.attempt,
        facts: facts.clone(),
        gate,
        flips: &flips,
        restored: &restored,
        signal: run.signal,
        tail: &run.tail,
        timeout: s.timeout,
    };
    let (v, review, review_limit) = reviewed(
        &inp,
        &observed,
        verdict::decide(&observed),
        head,
        &verify_results,
        &prd_rel,
    )?;
    let (mut outcome, settle) = (v.outcome, v.settle);
    // A reviewer's usage limit is the run's to wait for, like the agent's.
    let rate_line = review_limit.or(rate_line);
    if !settle.is_empty() {
        let mut prd = match changed.take() {
            Some((p, _)) => p,
            None => prd0.clone(),
        };
        for (id, passes) in &settle {
            prd.set_passes(id, *passes)?;
        }
        let bytes = guard::save_settled(gctx, &prd)?;
        changed = Some((prd, bytes));
    }
    let all_done = changed.as_ref().map_or(prd0, |(p, _)| p).all_done();

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
    let start_failure = start_failure(&run, events, opts.agent.format(), &facts, progress);
    if start_failure.is_some() {
        outcome = Outcome::StartFailed;
    }
    let record = Record {
        run_id: inp.run_id.to_string(),
        iteration: inp.n,
        story: story.id.clone(),
        agent: opts.agent.kind.name().to_string(),
        agent_version: opts.agent.version.as_ref().map(ToString::to_string),
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
        worker: None,
        base: None,
        merge: None,
        attempt_ref: None,
        usage,
        reason: match &facts.said {
            Some(detect::Signal::Blocked(r) | detect::Signal::Failed(r)) => Some(r.clone()),
            _ => None,
        }
        .filter(|_| matches!(outcome, Outcome::Blocked | Outcome::Failed))
        .or_else(|| (outcome == Outcome::ReviewChanges).then(|| v.extra.clone()))
        .or_else(|| {
            start_failure
                .as_ref()
                .map(|f| f.line(&run.tail, super::outcome::QUICK_EXIT))
        }),
        review,
        events: inp
            .run_dir
            .join(format!("iter-{}.events.jsonl", inp.n))
            .is_file()
            .then(|| format!(".ralph/runs/{}/iter-{}.events.jsonl", inp.run_id, inp.n)),
        red_green,
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
                rep.report(Event::Note {
                    text: format!("committed its correction of {prd_rel} ({head:.12})"),
                });
                if let Some(a) = after.as_mut() {
                    a.head = Some(head);
                }
            }
            Ok(None) => {}
            Err(e) => rep.report(Event::Warning {
                text: format!(
                    "{e}; {prd_rel} in the work tree is corrected, but HEAD may still hold the rejected version"
                ),
            }),
        }
    }
    Ok(Done {
        outcome,
        progress,
        record,
        retry: v.retry,
        changed: changed.map(|(p, b)| PrdSnapshot::new(p, b)),
        all_done,
        rate_line,
        extra: v.extra,
        after,
        patterns_used,
        start_failure,
    })
}

/// Whether the agent never got going (see [`outcome::start_failure`]).
fn start_failure(
    run: &agent::process::Finished,
    events: u64,
    format: agent::telemetry::Format,
    facts: &AgentFacts,
    progress: Option<Progress>,
) -> Option<StartFailure> {
    super::outcome::start_failure(&super::outcome::StartFacts {
        exit_code: run.exit_code,
        timed_out: run.timed_out,
        interrupted: run.interrupted,
        duration: run.duration,
        structured: format != agent::telemetry::Format::Plain,
        events_seen: events > 0,
        refusal: detect::refusal(&run.tail),
        worked: facts.claimed() || progress.is_some_and(Progress::any),
        rate_limited: facts.rate_limited,
    })
}

/// `--review`: a done iteration goes to the reviewer (see [`super::review`]); a verdict that
/// does not approve sends the story back ([`verdict::after_review`]). Other verdicts, and runs
/// without a reviewer, pass through.
fn reviewed(
    inp: &Input<'_>,
    observed: &verdict::Observed<'_>,
    v: verdict::Verdict,
    base: Option<&str>,
    verify: &[history::VerifyResult],
    prd_rel: &str,
) -> Result<Reviewed, RunError> {
    let opts = inp.opts;
    let (Outcome::Done, Some(reviewer)) = (v.outcome, &opts.reviewer) else {
        return Ok((v, None, None));
    };
    let r = super::review::run(&super::review::Input {
        opts,
        reviewer,
        run_id: inp.run_id,
        run_dir: inp.run_dir,
        interrupt: inp.interrupt,
        story: inp.story,
        n: inp.n,
        round: inp.review_round,
        head_before: base,
        verify,
        prd_rel,
    })?;
    let max = opts.settings.review.max_rounds;
    let mut v = verdict::after_review(observed, v, &r.verdict, inp.review_round, max);
    if r.interrupted {
        v.outcome = Outcome::Interrupted;
    } else if r.rate_line.is_some() {
        // Not a round: the story goes back (its work kept) and runs again after the wait.
        v.outcome = Outcome::RateLimited;
    }
    opts.reporter.report(Event::Reviewed {
        story: inp.story.id.clone(),
        round: inp.review_round,
        max_rounds: max,
        reviewer: r.record.reviewer.clone(),
        verdict: r.record.verdict.clone(),
        items: r.record.items.clone(),
        why: r.record.why.clone(),
    });
    Ok((v, Some(r.record), r.rate_line))
}

/// The verdict after the review, the review's record, a reviewer's usage-limit message.
type Reviewed = (
    verdict::Verdict,
    Option<history::ReviewRecord>,
    Option<String>,
);

/// Append the record (the loop may have marked it `skipped`).
pub(crate) fn record(root: &Path, rec: &Record) -> Result<(), RunError> {
    history::append(root, rec)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_lines_found_in_the_prompt_are_collected_trimmed() {
        let p = "Do A.\n  <promise>COMPLETE</promise>  \nSTORY COMPLETE: B\nSTORY COMPLETE: A\n";
        let set = prompt_signal_lines(p, "A");
        assert!(set.contains("<promise>COMPLETE</promise>"));
        assert!(set.contains("STORY COMPLETE: A"));
        assert_eq!(set.len(), 2);
        // Blocked and failed lines are echoes too, when the prompt holds them.
        let p =
            "STORY BLOCKED: A: needs a key\n<promise>FAILED: x</promise>\nSTORY BLOCKED: B: y\n";
        let set = prompt_signal_lines(p, "A");
        assert!(set.contains("STORY BLOCKED: A: needs a key"));
        assert!(set.contains("<promise>FAILED: x</promise>"));
        assert_eq!(set.len(), 2);
    }
}
