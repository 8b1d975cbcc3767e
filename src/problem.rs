//! What an error says of itself to a tool: a [`Problem`] (a stable code and the place its
//! message names: file, line:column, JSON pointer, story, Pin entry), and [`Coded`], which each
//! error type with a code implements beside its own definition.
//!
//! The `--json` envelope (`cli::envelope`) carries problems, asks each error in a chain for its
//! own, and writes the message (the whole chain, as `error: …` prints it). Does not own any
//! code's meaning (each error's module does) nor the envelope. Imports nothing of the crate, so
//! every module can use it.

use serde::Serialize;
use std::path::Path;

/// One error or warning, with the place the human message names when there is one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Stable, kebab-case (`parse`, `unknown-ref`, `io`, `usage`, …).
    pub code: String,
    /// What is wrong, as the human message says it.
    pub message: String,
    /// How to fix it, when the message does not already say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The file concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line (and column) in `file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// JSON pointer into `file` ("" is the whole document).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// The story concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub story: Option<String>,
    /// The Pin entry concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
}

impl Problem {
    /// A problem with a code and a message and no place.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            code: code.into(),
            message: message.into(),
            ..Problem::default()
        }
    }

    /// A problem with a code, about a file (the message is the reporter's).
    pub fn at(code: &str, path: &Path) -> Problem {
        Problem::new(code, "").file(path.display())
    }

    pub fn file(mut self, file: impl std::fmt::Display) -> Problem {
        self.file = Some(file.to_string());
        self
    }

    pub fn story(mut self, story: impl Into<String>) -> Problem {
        self.story = Some(story.into());
        self
    }

    pub fn line(mut self, line: usize) -> Problem {
        self.line = Some(line);
        self
    }

    pub fn pointer(mut self, pointer: impl Into<String>) -> Problem {
        self.pointer = Some(pointer.into());
        self
    }
}

/// An error that names its own code, and the place its message names, for tools.
pub(crate) trait Coded {
    /// The code and place, with an empty message (whoever reports the error writes the whole
    /// chain). `None`: nothing of its own to say; the next error down the chain may.
    fn problem(&self) -> Option<Problem>;
}
