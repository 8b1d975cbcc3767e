//! `ralph`: runs an AI coding agent in a loop until a prd.json is done.
//!
//! The binary (`src/main.rs`) only parses arguments and maps errors to exit codes; every behaviour
//! lives in this library, in modules named after the domain:
//!
//! - [`prd`]: the prd.json contract (load, validate, save without losing anything a user wrote).
//! - [`graph`]: the `blockedBy` dependency policy: readiness, next-story selection, rendering.
//! - [`pin`]: the Pin (specs/INDEX.md): parse, generate, check, search.
//! - [`progress`]: progress.txt: parse and compact.
//! - [`context`]: the prompt for one story, assembled under a token budget.
//! - [`errors_seen`]: errors seen before (pure): failure signatures, similarity, selection.
//! - [`agent`]: agent presets and spawning agent processes.
//! - [`state`]: what ralph keeps under `.ralph/` (history records, the run lock, archives,
//!   rejected copies, run folders and their manifests), below both `context` and `run`.
//! - [`run`]: the loop (`ralph run`, `ralph demo`).
//! - [`doctor`]: `ralph doctor` and the run's preflight: is this machine and project ready.
//! - [`review`]: the isolated review of a gated story (prompt, verdict, when it is held).
//! - [`kept`]: the work ralph keeps in git (story branches, attempt refs, worktrees): saved
//!   before a worktree goes, listed, deleted only once merged or when named.
//! - [`clean`]: run hygiene: which old run folders, rejected copies and archives go
//!   (`ralph clean`, and `ralph run` at its start).
//! - [`report`]: `ralph report`: a run story by story from its history (text, markdown, HTML).
//! - [`init`]: `ralph init`'s policy (verify commands from manifests, starter files).
//! - [`cli`]: clap argument types and one handler per command (the edge: `anyhow` lives here).
//!
//! Shared plumbing: [`dag`] (dependency graphs and their cycles, for prd.json's validation),
//! [`exit`] (exit codes), [`problem`] (each error's code and place for `--json`),
//! [`fsutil`] (atomic writes), [`suggest`] (did-you-mean),
//! [`par`] (pure work spread over the cores), [`ui`] (colour, `-q`/`-v`, the `tracing` filter),
//! [`varint`] (the LEB128 numbers of posting lists).

pub(crate) mod agent;
pub(crate) mod clean;
pub mod cli;
pub(crate) mod config;
pub(crate) mod context;
pub(crate) mod dag;
pub(crate) mod doctor;
pub(crate) mod errors_seen;
pub mod exit;
pub(crate) mod fsutil;
pub(crate) mod graph;
pub(crate) mod index;
pub(crate) mod init;
pub(crate) mod kept;
pub(crate) mod par;
pub(crate) mod pin;
pub(crate) mod prd;
pub(crate) mod problem;
pub(crate) mod progress;
pub(crate) mod report;
pub(crate) mod review;
pub(crate) mod run;
pub(crate) mod show;
pub(crate) mod state;
pub(crate) mod suggest;
pub mod ui;
pub(crate) mod varint;

/// The one library surface outside `main.rs`'s (`cli`, `exit`, `ui` and `say!`): what the
/// integration tests in `tests/integration/` call directly, and nothing else. The fuzz test
/// (`fuzz_parsers.rs`) feeds mutated input to every parser that reads a user's file; the corpus
/// tests (`reported.rs`, `wild_prd.rs`, `compact_*.rs`) read prd.json and progress.txt into these
/// types to compare what a run would do; `cli_conventions.rs` walks the command tree. Everything
/// else is `pub(crate)`, and `unreachable_pub` (Cargo.toml `[lints]`) keeps it so.
pub mod api {
    pub use crate::cli::command;
    pub use crate::config::file::parse_file as parse_config;
    pub use crate::context::redact::redact;
    pub use crate::graph::render::{dot, mermaid};
    pub use crate::graph::select::{next_ready, states};
    pub use crate::pin::format::entry::Pin;
    pub use crate::pin::format::view::PinView;
    pub use crate::prd::Prd;
    pub use crate::prd::validate::validate_bytes;
    pub use crate::progress::Log;
    pub use crate::progress::compact::compact;
    pub use crate::progress::compaction::Options as CompactOptions;
    pub use crate::progress::parse::BlockKind;
    pub use crate::progress::parse::scan as scan_progress;
    pub use crate::run::guard::policy::progress_added;
}
