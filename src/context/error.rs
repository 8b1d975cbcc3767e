//! Why a prompt could not be built ([`ContextError`]). A leaf: every file of the context builder
//! may return it; it imports none of them.

use std::path::PathBuf;

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
