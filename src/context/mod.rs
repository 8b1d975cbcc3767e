//! The prompt for one story, assembled under a token budget.
//!
//! Each agent starts fresh: the prompt is all it knows. This module owns what goes into it and in
//! which order (instructions with the DISCOVERY PROTOCOL, the story and why its last attempt
//! failed, the steering notes of a live run (`ralph steer`), what its blockers produced, the
//! Codebase Patterns, the error patterns learned from earlier verify failures, the top Pin
//! entries with spec excerpts, recent progress, the remaining stories), the token budget and its
//! zones, and secret redaction. It does not run agents (see [`crate::run`]) nor own the Pin or
//! progress.txt formats (see [`crate::pin`], [`crate::progress`]).
//!
//! - [`budget`]: token estimate (chars/4 + 15%), zones, cutting text to size.
//! - [`redact`]: secret patterns and counts.
//! - [`instructions`]: embedded per-agent instructions and the project override.
//! - [`assemble`]: the pure function from [`Inputs`] to the [`Assembled`] prompt.
//! - `inputs`, `options`, `error`: the plain inputs ([`Inputs`]), the knobs ([`Options`]) and
//!   [`ContextError`], in leaf files every other file may import.
//! - [`gather`]: reading the project's files into [`Inputs`]; [`build_prompt`] is what the loop
//!   and `ralph context` call.
//! - [`account`]: the account of a built prompt ([`Assembled`]), the `--explain` table and
//!   the `--json` document.

pub(crate) mod account;
pub(crate) mod assemble;
pub(crate) mod budget;
mod error;
mod files;
pub(crate) mod gather;
mod inputs;
pub(crate) mod instructions;
mod options;
pub(crate) mod redact;

mod render;
pub(crate) mod steering;
#[cfg(test)]
mod tests;

pub(crate) use error::ContextError;
pub(crate) use gather::{build_prompt, find_story};
pub(crate) use inputs::SteerNote;
pub(crate) use instructions::Flavour;
pub(crate) use options::Options;
pub(crate) use render::fence_as;
