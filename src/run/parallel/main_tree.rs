//! The main tree a parallel run merges into: its root, prd.json's path in it and the branch
//! (`branchName`) stories land on. One context for the scheduler and the merge queue's step
//! ([`super::queue::MergeInput`]); fixed for the run (the tip it points at is not: that moves
//! with every merge). Holds no state and runs nothing.

use std::path::PathBuf;

/// Where stories land (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MainTree {
    /// The repository's root (absolute).
    pub root: PathBuf,
    /// prd.json, relative to `root` (the same path in every worktree).
    pub prd_rel: String,
    /// `branchName`: the branch stories are merged into.
    pub branch: String,
}
