//! The loop: `ralph run [N]` and `ralph demo`.
//!
//! Once per run, after the lock and the first load of prd.json and before the first agent: the
//! git start in [`branch`] (a dirty work tree refused unless `--allow-dirty`, `branchName`
//! checked out or created from `baseBranch`/HEAD, a warning outside git).
//! One iteration, in order: (1) the project lock, (2) load and validate prd.json, (3) archive
//! on a branch change, (4) stop when all pass or nothing is ready, (5) pick the next story with
//! [`crate::graph::next_ready`] (the same rule as `ralph next`), (6) build the prompt and run the
//! agent, (7) the integrity guard, (8) outcome and verify gate, (9) history, (10) sleep or stop.
//! Steps 6-9 are in [`iteration`]; pure policy lives in [`outcome`], [`guard::policy`],
//! [`crate::state::archive`] (naming), [`wait::ratelimit`] and [`status`]. The files under `.ralph/`
//! (history, lock, archive, rejected copies) are [`crate::state`]'s. Printing is for humans, on
//! stderr; the agent's own output goes to stdout/stderr as it arrives.

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
