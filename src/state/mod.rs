//! What ralph keeps under `.ralph/`: the paths, the history records, the errors seen before (the
//! learned error patterns), the run lock, archives on a branch change, rejected copies, the run
//! folders and their manifests, the control channel of a live run (`control/`).
//!
//! Below both [`crate::context`] (which reads the history) and [`crate::run`] (which writes
//! it): imports neither. Owns where each file lives and its shape on disk; does not decide
//! when to write it (the loop does), nor anything about git worktrees beyond their folder
//! (`crate::run::parallel::worktree`).

pub(crate) mod archive;
pub(crate) mod control;
pub(crate) mod errors_seen;
pub(crate) mod history;
pub(crate) mod lock;
pub(crate) mod outputs;
pub(crate) mod rejected;
pub(crate) mod runs;

use std::path::{Path, PathBuf};

/// The file under `.ralph/` that records the running agent's (or verify command's) process
/// group, for the next run to stop if ralph is killed outright ([`crate::agent::group`]).
pub(crate) const AGENT_GROUP: &str = "agent-group";

/// The state dir `.ralph/` under the root.
pub(crate) fn state_dir(root: &Path) -> PathBuf {
    root.join(".ralph")
}

/// Where a parallel run's worktrees live: `.ralph/worktrees/` (one `<key>` folder each).
pub(crate) fn worktrees_dir(root: &Path) -> PathBuf {
    state_dir(root).join("worktrees")
}
