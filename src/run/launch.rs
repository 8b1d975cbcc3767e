//! One agent process, run the loop's way: its prompt file when the invocation uses one, its
//! structured output translated into readable text (and what it reported using), heartbeats,
//! its process group recorded for a ralph killed outright, every output line watched and
//! logged, the text left at its very end flushed too. Shared by the developing agent
//! ([`super::iteration`]) and the reviewer ([`super::review`]); what the output means (signals,
//! a verdict) is theirs, as is the environment they give it.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::events::{Event, Reporter};
use super::{Options, RunError};
use crate::agent::process::{
    Finished, LineWatch, LogSink, RawLog, Supervise, Translate, supervise,
};
use crate::agent::telemetry::{Format, Telemetry, Usage};
use crate::agent::{self, AgentSpec, Invocation};

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

/// The most bytes of raw events kept per agent run (the translated log has everything the
/// agent said; this is for looking at the format itself).
pub(crate) const EVENTS_CAP: u64 = 32 * 1024 * 1024;

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
        .and_then(|p| raw_log(p, rep));
    let mut watcher = super::watch::Watch::agent(rep, l.story, s.heartbeat, opts.echo);
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
        log_line(&l.log, line);
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

/// The log an agent's output goes to (redacted), appended; `None` (and a warning) when it
/// cannot be opened: the output then goes to the terminal only.
pub(crate) fn log_sink(path: &Path, rep: &dyn Reporter) -> Option<Arc<Mutex<LogSink>>> {
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) => {
            rep.report(Event::Warning {
                text: format!(
                    "{}: cannot open the iteration log ({e}); output goes to the terminal only",
                    path.display()
                ),
            });
            return None;
        }
    };
    Some(Arc::new(Mutex::new(LogSink {
        file,
        redact: super::redact_for_log,
    })))
}

/// The raw events file, created fresh; `None` (and a warning) when it cannot be.
fn raw_log(path: &Path, rep: &dyn Reporter) -> Option<Arc<Mutex<RawLog>>> {
    match std::fs::File::create(path) {
        Ok(f) => Some(Arc::new(Mutex::new(RawLog::new(
            f,
            super::redact_for_log,
            EVENTS_CAP,
        )))),
        Err(e) => {
            rep.report(Event::Warning {
                text: format!(
                    "{}: cannot keep the agent's raw events ({e})",
                    path.display()
                ),
            });
            None
        }
    }
}

/// One line of ralph's own into the log (redacted like the agent's).
pub(crate) fn log_line(log: &Option<Arc<Mutex<LogSink>>>, line: &str) {
    use std::io::Write;
    if let Some(l) = log
        && let Ok(mut sink) = l.lock()
    {
        let text = (sink.redact)(&format!("{line}\n"));
        let _ = sink.file.write_all(text.as_bytes());
    }
}
