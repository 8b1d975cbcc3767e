//! Why a run did not start at git ([`BranchError`]): a bad branchName, a missing baseBranch,
//! uncommitted changes, a refused checkout. A leaf: the run's error carries it, and a parallel
//! run's start returns the run's error.

use std::path::PathBuf;

use crate::kept::git::Entry;

/// How many uncommitted paths an error or warning lists.
pub(crate) const SHOWN: usize = 10;

/// Why the run did not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BranchError {
    #[error(
        "{prd}: {pointer}: \"{name}\" is not a valid git branch name; nothing was checked out. Set branchName to a name git accepts, e.g. \"ralph/my-feature\" (no spaces, no `..`, `~`, `^`, `:`; see `git help check-ref-format`)",
        prd = prd.display()
    )]
    InvalidName {
        prd: PathBuf,
        pointer: String,
        name: String,
    },
    #[error(
        "{prd}: {pointer}: baseBranch \"{base}\" is neither a local branch nor origin/{base}, so branch {branch} cannot be created from it; nothing was checked out. Name an existing branch there (`git branch -a` lists them), fetch it (`git fetch origin {base}`), or remove baseBranch to start {branch} from HEAD",
        prd = prd.display()
    )]
    BaseMissing {
        prd: PathBuf,
        pointer: String,
        base: String,
        branch: String,
    },
    #[error(
        "{root}: the work tree has uncommitted changes, which the agent's first commit would sweep in:\n{list}\nNothing was checked out. Commit them, stash them (`git stash --include-untracked`), or run again with --allow-dirty to start anyway",
        root = root.display(),
        list = list(entries)
    )]
    Dirty { root: PathBuf, entries: Vec<Entry> },
    #[error(
        "{root}: the work tree has uncommitted changes, and a parallel run merges stories there:\n{list}\nNothing was checked out. Commit them or stash them (`git stash --include-untracked`), then run again (--allow-dirty does not apply to --parallel)",
        root = root.display(),
        list = list(entries)
    )]
    DirtyParallel { root: PathBuf, entries: Vec<Entry> },
    #[error(
        "{root}: `git {args}` refused, so the run did not start; nothing was changed, your files are as they were:\n{why}\nCommit or stash the files git names (or check out {branch} yourself), then run again",
        root = root.display()
    )]
    Checkout {
        root: PathBuf,
        args: String,
        branch: String,
        why: String,
    },
    #[error(
        "{root}: cannot run `git {args}`: {why}; check that git works in this repository (`git status`), then run again",
        root = root.display()
    )]
    Git {
        root: PathBuf,
        args: String,
        why: String,
    },
}

/// At most [`SHOWN`] entries, one per line, and how many more there are.
pub(crate) fn list(entries: &[Entry]) -> String {
    let mut out: Vec<String> = entries
        .iter()
        .take(SHOWN)
        .map(|e| format!("  {} {}", e.code, e.path))
        .collect();
    if entries.len() > SHOWN {
        out.push(format!(
            "  … and {} more (`git status` lists them)",
            entries.len() - SHOWN
        ));
    }
    out.join("\n")
}

impl crate::problem::Coded for BranchError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        use crate::problem::Problem;
        Some(match self {
            BranchError::InvalidName { prd, pointer, .. } => {
                Problem::at("branch-name-invalid", prd).pointer(pointer)
            }
            BranchError::BaseMissing { prd, pointer, .. } => {
                Problem::at("base-branch-missing", prd).pointer(pointer)
            }
            BranchError::Dirty { root, .. } | BranchError::DirtyParallel { root, .. } => {
                Problem::at("dirty-tree", root)
            }
            BranchError::Checkout { root, .. } => Problem::at("checkout-refused", root),
            BranchError::Git { root, .. } => Problem::at("git", root),
        })
    }
}
