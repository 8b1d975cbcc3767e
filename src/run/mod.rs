//! The loop: `ralph run [N]` and `ralph demo`, one folder per phase.
//!
//! Once per run, before the first agent: [`start`] (the lock, what a killed ralph left, the git
//! start: a dirty work tree refused unless `--allow-dirty`, `branchName` checked out or created).
//! Then, per iteration: (1) the project lock, (2) load and validate prd.json, (3) archive on a
//! branch change, (4) stop when all pass or nothing is ready, (5) pick the next story with
//! [`crate::graph::next_ready`] (the same rule as `ralph next`), (6) build the prompt and run the
//! agent, (7) the integrity guard ([`guard`]), (8) outcome and verify gate, (9) history, (10)
//! sleep or stop ([`wait`]). Steps 6-9 are [`iteration`], one attempt; steps 1-5 and 10 are the
//! [`sequential`] loop's, or the [`parallel`] scheduler's. What a person steers in a live run is
//! [`control`]'s; every report is an [`events::Event`]. The shared types are leaves
//! ([`options`], [`error`], [`ending`]). The files under `.ralph/` (history, lock, archive,
//! rejected copies) are [`crate::state`]'s.

mod choose;
pub(crate) mod control;
pub(crate) mod demo;
pub(crate) mod dry_run;
pub(crate) mod ending;
pub(crate) mod error;
pub(crate) mod errors_seen;
pub(crate) mod events;
pub(crate) mod git;
pub(crate) mod guard;
pub(crate) mod iteration;
pub(crate) mod log;
pub(crate) mod options;
pub(crate) mod parallel;
mod sequential;
pub(crate) mod start;
pub(crate) mod wait;

pub(crate) use dry_run::{Plan, dry_run};
pub(crate) use ending::Exit;
pub(crate) use error::RunError;
pub(crate) use options::Options;

/// Run the loop until every story passes, nothing is ready, the limit, or an interrupt (see
/// [`sequential`]).
pub(crate) fn run(
    opts: &Options,
    interrupt: &std::sync::atomic::AtomicBool,
) -> Result<Exit, RunError> {
    sequential::run(opts, interrupt)
}
