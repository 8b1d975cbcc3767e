//! Why a parallel run could not start or go on ([`ParallelError`]). A leaf: the run's error
//! carries it, and it names only the git and merge-queue errors it wraps.

use std::path::PathBuf;

use super::{queue, worktree};

/// Why a parallel run could not start or go on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ParallelError {
    #[error(transparent)]
    Git(#[from] worktree::GitError),
    #[error("merging {story}: {source}")]
    Queue {
        story: String,
        #[source]
        source: queue::QueueError,
    },
    #[error("the merge queue stopped: {0}")]
    Paused(String),
    #[error("{0} is outside the project root; --parallel needs prd.json in the repository")]
    PrdOutside(PathBuf),
}
