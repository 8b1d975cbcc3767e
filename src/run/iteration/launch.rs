//! One agent process, run the loop's way: its prompt file when the invocation uses one, its
//! structured output translated into readable text (and what it reported using), heartbeats,
//! its process group recorded for a ralph killed outright, every output line watched and
//! logged, the text left at its very end flushed too. Shared by the developing agent
//! ([`super::iteration`]) and the reviewer ([`super::reviewer`]); what the output means (signals,
//! a verdict) is theirs, as is the environment they give it.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::attempt::Attempt;
use super::prompt;
use crate::agent::process::{Finished, LineWatch, LogSink, Supervise, Translate, supervise};
use crate::agent::telemetry::{Format, Telemetry, Usage};
use crate::agent::{self, AgentSpec, Invocation, detect};
use crate::run::error::RunError;
use crate::run::events::Event;
use crate::run::options::Options;

/// One agent run.
pub(crate) struct Launch<'a> {
    pub opts: &'a Options,
    pub spec: &'a AgentSpec,
    pub inv: &'a Invocation,
    pub env: &'a [(String, String)],
    /// The story it works on (heartbeats name it).
    pub story: &'a str,
    pub log: Option<Arc<Mutex<LogSink>>>,
    pub interrupt: &'a AtomicBool,
    /// Told every output line (after translation).
    pub watch: LineWatch,
    /// Where a structured agent's raw output is kept (`iter-N.events.jsonl`).
    pub events: Option<&'a Path>,
    /// Where the agent writes its usage when its argv asks for a file (`iter-N.usage.json`).
    pub usage_file: Option<&'a Path>,
}

/// Write the prompt to the file the invocation passes, when it passes one.
pub(crate) fn write_prompt_file(inv: &Invocation, prompt: &str) -> Result<(), RunError> {
    if let Some(p) = &inv.prompt_file {
        crate::fsutil::atomic_write(p, prompt.as_bytes()).map_err(|source| {
            agent::AgentError::PromptFile {
                path: p.clone(),
                source,
            }
        })?;
    }
    Ok(())
}

/// Step 6, the prompt: built for the attempt's story (see [`prompt::build_for_run`]), the
/// invocation that carries it, its file written when the invocation passes one (a note says
/// so when the prompt is too long for one argument).
pub(crate) struct Prompted {
    pub text: String,
    /// The learned error patterns the prompt shows (ids).
    pub patterns: Vec<String>,
    pub inv: Invocation,
}

/// Build the attempt's prompt and write its file (see [`Prompted`]).
pub(crate) fn prompt(at: &Attempt<'_>) -> Result<Prompted, RunError> {
    let opts = at.opts;
    let (prd, story, s) = (&at.prd.prd, at.story, &opts.settings);
    let built = prompt::build_for_run(&opts.root, prd, story, at.retry, &opts.agent, &s.context)?;
    let inv = agent::plan(&opts.agent, &built.text, &at.file("prompt", "md"));
    write_prompt_file(&inv, &built.text)?;
    if let Some(p) = inv.prompt_file.as_ref().filter(|_| inv.switched_to_file) {
        opts.reporter.report(Event::Note {
            text: format!(
                "the prompt ({} bytes) is too long for one argument; passing the file {} instead",
                built.text.len(),
                p.display()
            ),
        });
    }
    Ok(Prompted {
        text: built.text,
        patterns: built.patterns,
        inv,
    })
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

/// The developing agent's run: how it ended, and the signals it printed for its story.
pub(crate) struct Ran {
    pub run: Finished,
    pub usage: Option<Usage>,
    /// Structured events read from its output.
    pub events: u64,
    /// It printed a completion signal.
    pub signalled: bool,
    /// The last BLOCKED or FAILED signal it printed.
    pub said: Option<detect::Signal>,
}

/// Step 6, the agent: run with the attempt's environment, its output watched for the story's
/// signals (a line the prompt itself holds is an echo, not a signal).
pub(crate) fn agent(
    at: &Attempt<'_>,
    prompted: &Prompted,
    log: Option<Arc<Mutex<LogSink>>>,
) -> Result<Ran, RunError> {
    let opts = at.opts;
    let signalled = Arc::new(AtomicBool::new(false));
    let said: Arc<Mutex<Option<detect::Signal>>> = Arc::default();
    let watch = signal_watch(&prompted.text, &at.story.id, &signalled, &said);
    let Launched { run, usage, events } = run(Launch {
        opts,
        spec: &opts.agent,
        inv: &prompted.inv,
        env: &agent_env(at),
        story: &at.story.id,
        log,
        interrupt: at.interrupt,
        watch,
        events: Some(&at.file("iter", "events.jsonl")),
        usage_file: Some(&at.file("iter", "usage.json")),
    })?;
    let said = said.lock().ok().and_then(|mut l| l.take());
    Ok(Ran {
        run,
        usage,
        events,
        signalled: signalled.load(Ordering::SeqCst),
        said,
    })
}

/// Sets `signalled` on a completion signal for `id`, keeps the last BLOCKED or FAILED one in
/// `said`. A line the prompt itself contains is the agent echoing its input (or quoting notes
/// and progress.txt), not a signal.
fn signal_watch(
    prompt: &str,
    id: &str,
    signalled: &Arc<AtomicBool>,
    said: &Arc<Mutex<Option<detect::Signal>>>,
) -> LineWatch {
    let (flag, last) = (signalled.clone(), said.clone());
    let id = id.to_string();
    let echoed = prompt_signal_lines(prompt, &id);
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
}

/// `RALPH_*` for the developing agent, then `--env`/`[env]`.
fn agent_env(at: &Attempt<'_>) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = vec![
        ("RALPH_RUN_ID".into(), at.run_id.to_string()),
        ("RALPH_ITERATION".into(), at.n.to_string()),
        ("RALPH_STORY_ID".into(), at.story.id.clone()),
        ("RALPH_ATTEMPT".into(), at.attempt.to_string()),
        ("RALPH_PRD".into(), at.opts.prd_path.display().to_string()),
        // The sequential loop is worker 1; a parallel run's workers override these.
        ("RALPH_WORKER".into(), "1".into()),
        ("RALPH_PORT_OFFSET".into(), "0".into()),
    ];
    env.extend(at.opts.env.iter().cloned());
    env
}

/// How one agent run went.
pub(crate) struct Launched {
    pub run: Finished,
    /// What it reported using, when its output says.
    pub usage: Option<Usage>,
    /// Structured events read from its output (0 for a plain-text agent).
    pub events: u64,
}

/// Run it to its end (exit, timeout, interrupt): how it ended and what it reported using.
pub(crate) fn run(l: Launch<'_>) -> Result<Launched, RunError> {
    let opts = l.opts;
    let s = &opts.settings;
    let rep = &*opts.reporter;
    let telemetry = Arc::new(Mutex::new(Telemetry::new(l.spec.format())));
    let translate: Option<Translate> = (l.spec.format() != Format::Plain).then(|| {
        let t = telemetry.clone();
        Arc::new(move |line: &str| t.lock().ok().and_then(|mut t| t.line(line))) as Translate
    });
    let raw = l
        .events
        .filter(|_| l.spec.format() != Format::Plain)
        .and_then(|p| crate::run::log::raw_log(p, rep));
    let mut watcher = crate::run::wait::watch::Watch::agent(rep, l.story, s.heartbeat, opts.echo);
    let argv = crate::agent::slots::fill(
        &l.inv.argv,
        &crate::agent::slots::Slots {
            usage_file: l.usage_file.map(Path::to_path_buf),
            git_dirs: crate::agent::slots::git_dirs(&opts.root),
        },
    );
    let run = supervise(Supervise {
        argv: &argv,
        cwd: &opts.root,
        env: l.env,
        stdin: l.inv.stdin.clone(),
        timeout: s.timeout,
        grace: s.grace,
        log: l.log.clone(),
        echo: opts.echo,
        interrupt: l.interrupt,
        watch: Some(l.watch.clone()),
        // Orphans are ralph's children: with other agents running (--parallel) they cannot be
        // told apart, so the parallel scheduler sweeps once nothing runs.
        sweep_orphans: s.parallel <= 1,
        record: Some(crate::state::state_dir(&opts.root).join(crate::state::AGENT_GROUP)),
        watcher: Some(&mut watcher),
        translate,
        raw: raw.clone(),
    })?;
    if let Some(r) = &raw
        && let Ok(mut r) = r.lock()
    {
        r.finish();
    }
    drop(watcher);
    let (usage, left, events) = read_telemetry(&telemetry, &l, &argv);
    flush_left(&l, left.as_deref(), opts.echo);
    if run.stopped_leftovers {
        rep.report(Event::Note {
            text: "stopped processes the agent left running".into(),
        });
    }
    Ok(Launched { run, usage, events })
}

/// What the agent reported using (a Copilot usage file too, when its argv asked for one), the
/// text left unfinished at its end, the structured events read.
fn read_telemetry(
    telemetry: &Mutex<Telemetry>,
    l: &Launch<'_>,
    argv: &[String],
) -> (Option<Usage>, Option<String>, u64) {
    telemetry
        .lock()
        .map(|mut t| {
            if let Some(text) = l
                .usage_file
                .filter(|_| argv != l.inv.argv)
                .and_then(|p| std::fs::read_to_string(p).ok())
            {
                t.copilot_usage_file(&text);
            }
            (t.usage(), t.finish(), t.events())
        })
        .unwrap_or_default()
}

/// Text the agent left without a newline at its very end still counts, and is logged.
fn flush_left(l: &Launch<'_>, left: Option<&str>, echo: bool) {
    for line in left.iter().flat_map(|t| t.lines()) {
        (l.watch)(line);
        crate::run::log::log_line(&l.log, line);
        if echo {
            use std::io::Write;
            // A closed stdout is not the loop's failure (as with the agent's own echo).
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        }
    }
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
