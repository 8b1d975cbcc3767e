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
//! - [`gather`]: reading the project's files into [`Inputs`]; [`build_prompt`] is what the loop
//!   and `ralph context` call.
//! - [`account`]: the account of a built prompt ([`Assembled`]), the `--explain` table and
//!   the `--json` document.

pub(crate) mod account;
pub(crate) mod assemble;
pub(crate) mod budget;
mod files;
pub(crate) mod gather;
pub(crate) mod instructions;
pub(crate) mod redact;

mod render;
pub(crate) mod steering;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub(crate) use account::Assembled;
pub(crate) use assemble::assemble;
pub(crate) use gather::{build_prompt, find_story};
pub(crate) use instructions::Flavour;
pub(crate) use render::fence_as;
pub(crate) use steering::SteerNote;

/// Knobs of the context builder. `Default` gives the documented defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Options {
    /// The most tokens the prompt may take (estimated). Default 24,000.
    pub budget: usize,
    /// How many Pin entries to include, best first. Default 5.
    pub top_k: usize,
    /// Lines of each Pin entry's spec to include. Default 100.
    pub spec_lines: usize,
    /// Lines of each spec kept once the prompt passes 60% of the budget. Default 20.
    pub short_spec_lines: usize,
    /// Pin entries that keep their spec excerpt past 75% of the budget; the lower-ranked ones
    /// keep only name and files. Default 2.
    pub full_pin_entries: usize,
    /// How many recent progress entries to include. Default 3.
    pub recent_entries: usize,
    /// How many files the "where to look" section names, best first. Default 15.
    pub files: usize,
    /// The verify commands the gate runs (named in the prompt so the agent runs them first);
    /// the story's own (`verify` in prd.json) are added after them.
    pub verify: Vec<String>,
    /// The red-green gate is on for the run (a story's `redGreen` overrides it): the prompt
    /// says the story's new tests must fail without its change.
    pub red_green: bool,
    /// Save the refreshed code index under `.ralph/` (false for `ralph run --dry-run`, which
    /// writes nothing). Default true.
    pub save_index: bool,
    /// The project's own instructions file (`[agent] instructions`, relative to the root),
    /// used instead of the built-in instructions for every agent. Default none.
    pub instructions: Option<PathBuf>,
    /// The steering notes for this prompt (`ralph steer` during a run), oldest first. Not a
    /// setting: the loop sets them for each prompt it builds. Default none.
    pub steering: Vec<SteerNote>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budget: 24_000,
            top_k: 5,
            spec_lines: 100,
            short_spec_lines: 20,
            full_pin_entries: 2,
            recent_entries: 3,
            files: 15,
            verify: Vec::new(),
            red_green: false,
            save_index: true,
            instructions: None,
            steering: Vec::new(),
        }
    }
}

/// Why a prompt could not be built.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ContextError {
    #[error(
        "story {story}: the instructions ({instructions} tokens) and the story itself \
         ({story_tokens} tokens) need {} tokens, over the budget of {budget} tokens; they are \
         never cut, so raise the budget (--budget) or shorten the story's description, notes \
         or the instructions file",
        instructions + story_tokens
    )]
    OverBudget {
        story: String,
        instructions: usize,
        story_tokens: usize,
        budget: usize,
    },
    #[error("{path}: {problem}; fix it, or delete it to use the built-in instructions")]
    BadInstructions { path: PathBuf, problem: String },
    #[error(
        "{path}: {problem}; it is named by [agent] instructions in ralph.toml: fix the path \
         (relative to the project root), or remove the key to use the built-in instructions \
         (`ralph instructions` prints them)"
    )]
    ConfiguredInstructions { path: PathBuf, problem: String },
    #[error(
        "{path}: {problem}; it is named by [review] instructions in ralph.toml: fix the path \
         (relative to the project root), or remove the key to use the built-in reviewer \
         instructions (`ralph instructions --reviewer` prints them)"
    )]
    ConfiguredReviewerInstructions { path: PathBuf, problem: String },
    #[error("{path}: no story with id \"{id}\"{hint}; `ralph status` lists the ids")]
    UnknownStory {
        path: PathBuf,
        id: String,
        hint: String,
    },
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
    #[error(transparent)]
    Pin(#[from] crate::pin::PinError),
    #[error(transparent)]
    History(#[from] crate::state::history::HistoryError),
}
