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
//! [`par`] (pure work spread over the cores), [`ui`] (colour, `-q`/`-v`, the `tracing` filter).

pub mod agent;
pub mod clean;
pub mod cli;
pub mod config;
pub mod context;
pub mod dag;
pub mod doctor;
pub mod errors_seen;
pub mod exit;
pub mod fsutil;
pub mod graph;
pub mod index;
pub mod init;
pub mod kept;
pub mod par;
pub mod pin;
pub mod prd;
pub mod problem;
pub mod progress;
pub mod report;
pub mod review;
pub mod run;
pub mod show;
pub mod state;
pub mod suggest;
pub mod ui;
