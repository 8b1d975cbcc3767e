//! Errors seen before (the memory of verify failures and their fixes), the pure side: what a
//! verify failure's signature is, how alike two failures are, which learned patterns a story's
//! prompt shows and how its "Errors seen before" section reads.
//!
//! Named after that section, which is what users see; the CLI (`ralph patterns`) and the file
//! (`.ralph/patterns.jsonl`) keep their names. Not progress.txt's "Codebase Patterns"
//! ([`crate::progress`]).
//!
//! A pattern is learned when a story's attempt fails verify and a later attempt passes: the
//! failure's signature and what fixed it are stored in `.ralph/patterns.jsonl`
//! ([`crate::state::errors_seen`], which owns the record and the file). The loop records
//! ([`crate::run`], which also redacts what is stored); the context builder selects and shows
//! ([`crate::context`]). This module reads and writes nothing.
//!
//! - [`signature`]: the failure's first error lines, normalised; the pattern's id.
//! - [`select`]: similarity, selection, the prompt section.

pub(crate) mod select;
pub(crate) mod signature;

pub(crate) use select::{Chosen, render, select};
pub(crate) use signature::{Failure, id, signature};
