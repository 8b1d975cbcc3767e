//! Once per run, before the first agent, both loops: [`begin`] (the agent and the reviewer
//! exist, ralph reaps its orphans, the project lock, what a killed ralph left), the git start in
//! [`branch`] (a dirty tree refused, `branchName` checked out or created), the run's manifest
//! and the clean at its start in [`upkeep`], and the CLI's version and `ralph doctor`'s checks
//! in [`preflight`] (called by the CLI before the run).

pub(crate) mod branch;
pub(crate) mod preflight;
pub(crate) mod upkeep;

use std::path::Path;

use crate::run::error::RunError;
use crate::run::events::{Event, Reporter};
use crate::run::git;
use crate::run::options::Options;
use crate::state::{AGENT_GROUP, history, lock, state_dir};

/// The start every run shares, sequential or parallel: the agent (and the reviewer) exist,
/// ralph reaps its orphans, the project lock is held, and what a killed ralph left is dealt
/// with ([`leftovers`]).
pub(crate) fn begin(opts: &Options) -> Result<lock::Lock, RunError> {
    opts.agent.locate()?;
    crate::run::iteration::reviewer::check(opts)?;
    crate::agent::process::become_subreaper();
    let lock = lock::Lock::acquire(&opts.root)?;
    lock.sweep_beside(&opts.prd_path);
    leftovers(opts, &lock, &state_dir(&opts.root), &*opts.reporter);
    Ok(lock)
}

/// What a ralph that was killed outright left: its agent's processes (stopped by identity, so
/// a reused pid is never killed), a stale lock; then `.ralph/` kept out of the agent's `git add
/// -A`, and a history file with lines that are not records.
fn leftovers(opts: &Options, lock: &lock::Lock, state: &Path, rep: &dyn Reporter) {
    let note = |text: String| rep.report(Event::Note { text });
    let warn = |text: String| rep.report(Event::Warning { text });
    let left = crate::agent::group::stop_recorded(&state.join(AGENT_GROUP), opts.settings.grace);
    if left > 0 {
        note(format!(
            "stopped {left} process(es) of an agent left running by a ralph that was killed"
        ));
    }
    if let Some(pid) = &lock.took_over_from {
        warn(format!(
            "took over {} left by pid {pid}, which is no longer running",
            lock.path.display()
        ));
    }
    match git::exclude_state_dir(&opts.root) {
        Ok(Some(path)) => note(format!("added .ralph/ to {}", path.display())),
        Ok(None) => {}
        Err(e) => warn(format!("cannot keep .ralph/ out of git: {e}")),
    }
    match history::read_counted(&opts.root) {
        Ok((_, 0)) => {}
        Ok((_, k)) => warn(format!(
            "{}: skipped {k} line(s) that are not history records; the file is kept and new records are appended",
            history::path(&opts.root).display()
        )),
        Err(e) => warn(e.to_string()),
    }
}
