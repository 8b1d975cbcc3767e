//! Why a run stopped with an error (exit 1): [`RunError`], one variant per kind of failure the
//! steps of a run can meet, most of them another module's error carried whole. A leaf: the
//! steps import it, it imports no step (the errors it carries live in leaf files too).

use std::path::PathBuf;

use crate::prd::PrdError;

/// Consecutive rate-limited attempts before the loop gives up (exit 1).
pub(crate) const MAX_RATE_LIMIT_WAITS: usize = 12;

/// Why the loop stopped with an error (exit 1).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    #[error(transparent)]
    Fs(#[from] crate::fsutil::FsError),
    #[error(transparent)]
    Prd(#[from] PrdError),
    #[error(transparent)]
    Agent(#[from] crate::agent::AgentError),
    #[error(transparent)]
    Lock(#[from] crate::state::lock::LockError),
    #[error(transparent)]
    History(#[from] crate::state::history::HistoryError),
    #[error(transparent)]
    Prompt(#[from] super::iteration::prompt::PromptError),
    #[error(transparent)]
    Branch(#[from] super::start::branch::BranchError),
    #[error(
        "{path}: cannot write ({source}); {state}. The good copy from before the iteration is {good}: once the disk has room, put it back with `cp {good} {path}` and run again",
        path = path.display(),
        good = good.display()
    )]
    WriteFailed {
        path: PathBuf,
        #[source]
        source: crate::fsutil::FsError,
        state: String,
        good: PathBuf,
    },
    #[error(transparent)]
    Parallel(#[from] super::parallel::error::ParallelError),
    #[error("--story {id}: {why}")]
    Story { id: String, why: String },
    #[error(
        "the agent hit a usage/rate limit ({line}); not waiting because of --no-wait; run again later"
    )]
    RateLimited { line: String },
    #[error(
        "the agent hit a usage/rate limit {MAX_RATE_LIMIT_WAITS} times in a row (last: {line}); stopping; run again later"
    )]
    RateLimitedTooOften { line: String },
}

/// A transparent wrapper hides the error it wraps from the chain: `Branch` passes its code on.
/// The other wrapped errors have always been code `error` in the envelope, and stay so here.
impl crate::problem::Coded for RunError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        match self {
            RunError::Branch(b) => b.problem(),
            _ => None,
        }
    }
}
