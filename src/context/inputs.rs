//! The plain data a prompt is made of: the story, what its blockers produced, the ranked Pin
//! entries and files, progress, steering notes and the stories still to do.
//!
//! Owns these types only, shared by [`super::gather`] (which fills them), [`super::assemble`]
//! (which decides what fits) and [`super::render`] (which lays them out); imports none of them.

use crate::index::Ranked;
use crate::prd::Story;

/// What a `blockedBy` story produced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct DepOutput {
    pub id: String,
    pub title: String,
    /// Its progress.txt entry (the latest one for that id), whole.
    pub progress_entry: Option<String>,
    /// From the loop's history record, when there is one.
    pub files_changed: Vec<String>,
    pub commit: Option<String>,
}

/// A ranked Pin entry, as `ralph pin search` scores it for this story.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PinHit {
    pub name: String,
    pub score: f64,
    /// The query terms that matched, in the ranking's order.
    pub matched: Vec<String>,
    pub files: Vec<String>,
    /// The spec link (a path), when the entry has one.
    pub spec: Option<String>,
    /// The start of the spec (the assembler keeps at most [`super::Options::spec_lines`] lines).
    pub spec_excerpt: Option<String>,
}

/// A story still to do, for the one-line list at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RemainingStory {
    pub id: String,
    pub title: String,
}

/// Everything the prompt is made of, as plain data.
#[derive(Debug, Clone)]
pub(crate) struct Inputs {
    pub instructions: String,
    pub story: Story,
    /// Why the previous attempt at this story failed (verification output tail, timeout, …).
    pub retry: Option<String>,
    /// What the person running ralph told the live run (`ralph steer`), oldest first.
    pub steering: Vec<SteerNote>,
    pub deps: Vec<DepOutput>,
    /// The body of progress.txt's `## Codebase Patterns` section.
    pub patterns: Option<String>,
    /// The learned error patterns chosen for the story (`.ralph/patterns.jsonl`), best first.
    pub errors: Vec<crate::errors_seen::Chosen>,
    /// Ranked best first; only the first [`super::Options::top_k`] are used.
    pub pins: Vec<PinHit>,
    /// Progress entries, oldest first; only the last [`super::Options::recent_entries`] are used.
    pub recent: Vec<String>,
    /// The keywords the Pin was searched with (reported, not printed in the prompt).
    pub keywords: Vec<String>,
    pub remaining: Vec<RemainingStory>,
    /// The project's files ranked for the story, best first ("where to look").
    pub files: Vec<Ranked>,
    /// Whether the project has a Pin (specs/INDEX.md): without one the prompt says to search
    /// the code instead.
    pub has_pin: bool,
    /// The branch the work belongs on (prd.json's `branchName`).
    pub branch: Option<String>,
    /// Warnings for the person running ralph (not part of the prompt).
    pub notes: Vec<String>,
}

/// One steering note for this prompt.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SteerNote {
    /// Given for this story only (`ralph steer --story`); false: for every story.
    pub this_story: bool,
    /// When the run took it, as the prompt shows it ("14:20").
    pub when: String,
    /// The note as the person wrote it (redacted again when the prompt is assembled).
    pub text: String,
}
