//! What a run does about what runs leave behind: its manifest (`.ralph/runs/<run-id>/
//! manifest.json`, written at the start and rewritten at the end, whatever the end: done, a
//! limit, an interrupt, an error) and the clean at its start (`[clean]` limits, see
//! [`crate::clean`]), said in one note.
//!
//! Shared by the sequential loop ([`crate::run::sequential`]) and `--parallel` ([`crate::run::parallel`]).
//! Owns the mapping from a run's end to the manifest's outcome; the manifest's shape is
//! [`crate::state::runs`]'s, the clean policy [`crate::clean`]'s. Never stops a run: a manifest
//! or a removal that fails is a warning.

use std::path::Path;

use crate::clean::{self, Limits, sweep};
use crate::run::ending::Exit;
use crate::run::error::RunError;
use crate::run::events::{Event, Reporter};
use crate::run::options::Options;
use crate::state::history;
use crate::state::runs::{self, Manifest, RunOutcome};

/// Clean at the start of a run (after the lock, before the first iteration) unless `[clean]
/// auto = false`; one note says what went, nothing is said when nothing did.
pub(crate) fn clean_at_start(opts: &Options, rep: &dyn Reporter) {
    let c = &opts.settings.clean;
    if !c.auto {
        return;
    }
    let report = sweep::clean(&opts.root, Limits::from(c), false);
    for text in report.warnings.iter().cloned() {
        rep.report(Event::Warning { text });
    }
    for (item, why) in &report.failed {
        rep.report(Event::Warning {
            text: format!(
                "cannot remove {}: {why}",
                opts.root.join(&item.path).display()
            ),
        });
    }
    if let Some(what) = clean::summary(report.removed(), "old ") {
        rep.report(Event::Note {
            text: format!("removed {what}; `ralph clean --dry-run` shows what is kept"),
        });
    }
}

/// `ralph run --dry-run`: what the start of the run would remove, if anything.
pub(crate) fn clean_preview(opts: &Options) -> Option<String> {
    let c = &opts.settings.clean;
    if !c.auto {
        return None;
    }
    let report = sweep::clean(&opts.root, Limits::from(c), true);
    clean::summary(report.removed(), "old ").map(|what| {
        format!("clean: the run would first remove {what}; `ralph clean --dry-run` lists them")
    })
}

/// Write the manifest of a run starting now; returned for [`finish`].
pub(crate) fn begin(
    opts: &Options,
    run_id: &str,
    run_dir: &Path,
    branch: Option<String>,
    rep: &dyn Reporter,
) -> Manifest {
    let s = &opts.settings;
    let mut m = Manifest::begin(
        run_id,
        opts.agent.kind.name(),
        s.parallel.max(1),
        s.iterations,
    );
    m.branch = branch.filter(|b| !b.is_empty());
    m.agent_version = opts.agent.version.as_ref().map(ToString::to_string);
    write(run_dir, &m, rep);
    m
}

/// Rewrite the manifest at the run's end: the outcome (an error's message), the end time, the
/// stories attempted (from the history records of this run).
pub(crate) fn finish(
    root: &Path,
    run_dir: &Path,
    m: &mut Manifest,
    result: &Result<Exit, RunError>,
    rep: &dyn Reporter,
) {
    let (outcome, error) = match result {
        Ok(exit) => (outcome_of(*exit), None),
        Err(e) => (RunOutcome::Error, Some(e.to_string())),
    };
    let records = history::read_counted(root)
        .map(|(r, _)| r)
        .unwrap_or_default();
    m.finish(outcome, error, &records);
    // The agent may have deleted `.ralph/`: the manifest is written anyway.
    if let Err(e) = crate::fsutil::create_dir_all(run_dir) {
        rep.report(Event::Warning {
            text: format!("cannot write the run manifest: {e}"),
        });
        return;
    }
    write(run_dir, m, rep);
}

fn write(run_dir: &Path, m: &Manifest, rep: &dyn Reporter) {
    if let Err(e) = runs::write(run_dir, m) {
        rep.report(Event::Warning {
            text: format!("cannot write the run manifest: {e}"),
        });
    }
}

/// The manifest's word for how a run ended.
pub(crate) fn outcome_of(exit: Exit) -> RunOutcome {
    match exit {
        Exit::AllDone => RunOutcome::AllDone,
        Exit::Limit => RunOutcome::Limit,
        Exit::NoReady => RunOutcome::NoReady,
        Exit::CostLimit => RunOutcome::CostLimit,
        Exit::Interrupted => RunOutcome::Interrupted,
        Exit::StartFailed => RunOutcome::StartFailed,
    }
}

/// A new run's id: its start time and ralph's pid (`20250101T120000-4242`), the name of its
/// folder under `.ralph/runs/`.
pub(crate) fn new_run_id() -> String {
    format!(
        "{}-{}",
        jiff::Zoned::now().strftime("%Y%m%dT%H%M%S"),
        std::process::id()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_end_has_its_own_outcome() {
        let all = [
            Exit::AllDone,
            Exit::Limit,
            Exit::NoReady,
            Exit::CostLimit,
            Exit::Interrupted,
        ];
        let seen: Vec<RunOutcome> = all.iter().map(|e| outcome_of(*e)).collect();
        for (i, a) in seen.iter().enumerate() {
            assert!(!seen[i + 1..].contains(a), "{a:?} twice: {seen:?}");
        }
        assert!(!seen.contains(&RunOutcome::Running) && !seen.contains(&RunOutcome::Error));
    }
}
