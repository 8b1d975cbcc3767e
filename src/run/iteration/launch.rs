//! One agent process, run the loop's way: its prompt file when the invocation uses one, its
//! structured output translated into readable text (and what it reported using), heartbeats,
//! its process group recorded for a ralph killed outright, every output line watched and
//! logged, the text left at its very end flushed too. Shared by the developing agent
//! ([`super::iteration`]) and the reviewer ([`super::reviewer`]); what the output means (signals,
//! a verdict) is theirs, as is the environment they give it.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use crate::agent::process::{Finished, LineWatch, LogSink, Supervise, Translate, supervise};
use crate::agent::telemetry::{Format, Telemetry, Usage};
use crate::agent::{self, AgentSpec, Invocation};
use crate::run::error::RunError;
use crate::run::events::Event;
use crate::run::options::Options;

/// One agent run.
pub struct Launch<'a> {
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
pub fn write_prompt_file(inv: &Invocation, prompt: &str) -> Result<(), RunError> {
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

/// How one agent run went.
pub struct Launched {
    pub run: Finished,
    /// What it reported using, when its output says.
    pub usage: Option<Usage>,
    /// Structured events read from its output (0 for a plain-text agent).
    pub events: u64,
}

/// Run it to its end (exit, timeout, interrupt): how it ended and what it reported using.
pub fn run(l: Launch<'_>) -> Result<Launched, RunError> {
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
    let (usage, left, events) = telemetry
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
        .unwrap_or_default();
    // Text the agent left without a newline at its very end still counts, and is logged.
    for line in left.iter().flat_map(|t| t.lines()) {
        (l.watch)(line);
        crate::run::log::log_line(&l.log, line);
        if opts.echo {
            use std::io::Write;
            // A closed stdout is not the loop's failure (as with the agent's own echo).
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        }
    }
    if run.stopped_leftovers {
        rep.report(Event::Note {
            text: "stopped processes the agent left running".into(),
        });
    }
    Ok(Launched { run, usage, events })
}
