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
pub mod control;
pub mod demo;
pub mod dry_run;
pub mod ending;
pub mod error;
pub mod events;
pub mod git;
pub mod guard;
pub mod iteration;
pub mod log;
pub mod options;
pub mod parallel;
pub mod patterns;
mod sequential;
pub mod start;
pub mod wait;

pub use dry_run::{Plan, dry_run};
pub use ending::Exit;
pub use error::{MAX_RATE_LIMIT_WAITS, RunError};
pub use options::{Options, PrdSnapshot};

/// Run the loop until every story passes, nothing is ready, the limit, or an interrupt (see
/// [`sequential`]).
pub fn run(opts: &Options, interrupt: &std::sync::atomic::AtomicBool) -> Result<Exit, RunError> {
    sequential::run(opts, interrupt)
}
