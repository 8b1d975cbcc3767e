//! The verification gate's commands: each `--verify` command (and a story's own `verify`)
//! runs through `sh -c` in the project root, or in the red-green gate's scratch worktree
//! (they are the user's own command lines, never story text the agent wrote), supervised like
//! the agent (own process group, timeout, interrupt), output streamed and logged.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::agent::AgentError;
use crate::agent::process::{Finished, LogSink, Supervise, supervise};
use crate::state::history::VerifyResult;

/// Every command's result, stopping at the first failure, and that failure's run.
pub(crate) struct Gate {
    pub results: Vec<VerifyResult>,
    pub failed: Option<Finished>,
    pub interrupted: bool,
}

impl Gate {
    pub(crate) fn passed(&self) -> bool {
        self.failed.is_none() && !self.interrupted
    }
}

pub(crate) struct VerifyEnv<'a> {
    /// The project root: the commands run here, and its `.ralph/` records their group.
    pub root: &'a Path,
    /// Run the commands here instead of `root` (the red run's scratch worktree).
    pub dir: Option<&'a Path>,
    /// Extra environment for the commands.
    pub env: &'a [(String, String)],
    /// What the reports call the commands: `verify`, `red run`, `red run setup`.
    pub label: &'a str,
    pub timeout: Duration,
    pub grace: Duration,
    pub log: Option<Arc<Mutex<LogSink>>>,
    pub echo: bool,
    pub interrupt: &'a AtomicBool,
    /// Stop this process's other children afterwards (only when nothing else runs).
    pub sweep_orphans: bool,
    pub reporter: &'a dyn crate::run::events::Reporter,
}

pub(crate) fn run_all(commands: &[String], env: &VerifyEnv<'_>) -> Result<Gate, AgentError> {
    let mut results = Vec::new();
    for cmd in commands {
        let f = run_command(cmd, env)?;
        results.push(VerifyResult {
            command: cmd.clone(),
            exit_code: f.exit_code,
            passed: f.success(),
            timed_out: f.timed_out,
            duration_ms: f.duration.as_millis() as u64,
        });
        if f.interrupted {
            return Ok(Gate {
                results,
                failed: None,
                interrupted: true,
            });
        }
        if !f.success() {
            return Ok(Gate {
                results,
                failed: Some(f),
                interrupted: false,
            });
        }
    }
    Ok(Gate {
        results,
        failed: None,
        interrupted: false,
    })
}

/// One command: announced, headed in the log, run with `/bin/sh -c` under supervision.
fn run_command(cmd: &str, env: &VerifyEnv<'_>) -> Result<Finished, AgentError> {
    let label = env.label;
    env.reporter.report(crate::run::events::Event::Note {
        text: format!("{label}: {cmd}"),
    });
    if let Some(log) = &env.log
        && let Ok(mut sink) = log.lock()
    {
        use std::io::Write;
        let line = (sink.redact)(&format!("=== {label}: {cmd}\n"));
        let _ = sink.file.write_all(line.as_bytes());
    }
    let argv = vec!["/bin/sh".to_string(), "-c".into(), cmd.to_string()];
    let mut watcher = crate::run::wait::watch::Watch::stops_only(
        env.reporter,
        format!("{label} command `{cmd}`"),
    );
    supervise(Supervise {
        argv: &argv,
        cwd: env.dir.unwrap_or(env.root),
        env: env.env,
        stdin: None,
        timeout: env.timeout,
        grace: env.grace,
        log: env.log.clone(),
        echo: env.echo,
        interrupt: env.interrupt,
        watch: None,
        sweep_orphans: env.sweep_orphans,
        record: Some(crate::state::state_dir(env.root).join(crate::state::AGENT_GROUP)),
        watcher: Some(&mut watcher),
        translate: None,
        raw: None,
    })
}
