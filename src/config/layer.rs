//! What one source of settings says ([`Layer`]: ralph.toml, the `RALPH_*` environment or the
//! flags; `None` means "not set here"), and the error a bad setting is ([`ConfigError`]).
//!
//! A leaf the readers (`env.rs`, `file.rs`) and the merge (the parent module) share; its
//! value parsers are [`super::scalar`]'s. Does not read any source nor merge layers.

use std::path::PathBuf;
use std::time::Duration;

use super::scalar::{
    Commands, ConflictThreshold, Dollars, parse_age, parse_agent, parse_bool, parse_count,
    parse_duration, parse_interval, parse_keep, parse_lines, parse_mode, parse_negated, parse_size,
};
use crate::agent::{AgentKind, PromptMode};

/// The file name, at the project root.
pub(crate) const FILE: &str = "ralph.toml";

/// Context-builder settings for one agent (`[context.<agent>]`); `None` means "not set here".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextOverride {
    pub budget: Option<usize>,
    pub top_k: Option<usize>,
    pub spec_lines: Option<usize>,
}

/// A bad setting, with where it came from.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
    #[error("{path}:{line}:{column}: {message}; fix the TOML syntax")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{place}: unknown key \"{key}\"{}; valid keys: {}", .suggestion.as_ref().map(|s| format!(" (did you mean \"{s}\"?)")).unwrap_or_default(), .valid.join(", "))]
    UnknownKey {
        place: String,
        key: String,
        suggestion: Option<String>,
        valid: Vec<String>,
    },
    #[error("{place}: {message}")]
    BadValue { place: String, message: String },
}

impl crate::problem::Coded for ConfigError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        use crate::problem::Problem;
        Some(match self {
            ConfigError::Io(f) => return f.problem(),
            ConfigError::Syntax {
                path, line, column, ..
            } => Problem {
                column: Some(*column),
                ..Problem::at("config-syntax", path).line(*line)
            },
            ConfigError::UnknownKey { .. } => Problem::new("config-unknown-key", ""),
            ConfigError::BadValue { .. } => Problem::new("config-bad-value", ""),
        })
    }
}

/// One source of settings; `None` means "not set here". A field a `RALPH_*` variable sets
/// names it (`env`) and the parser of its value: clap reads the environment into a layer
/// ([`super::env`]); the other fields (`skip`) only ralph.toml or a flag sets.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct Layer {
    #[arg(long, env = "RALPH_AGENT", value_parser = parse_agent)]
    pub agent: Option<AgentKind>,
    #[arg(long, env = "RALPH_AGENT_CMD")]
    pub agent_cmd: Option<String>,
    #[arg(long, env = "RALPH_PROMPT_MODE", value_parser = parse_mode)]
    pub prompt_mode: Option<PromptMode>,
    /// `[agent] instructions`: the project's instructions file, relative to the root.
    #[arg(skip)]
    pub instructions: Option<PathBuf>,
    #[arg(long, env = "RALPH_ITERATIONS", value_parser = parse_count)]
    pub iterations: Option<u32>,
    #[arg(long, env = "RALPH_TIMEOUT", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    #[arg(long, env = "RALPH_SLEEP", value_parser = parse_duration)]
    pub sleep: Option<Duration>,
    #[arg(long, env = "RALPH_MAX_FAILURES", value_parser = parse_count)]
    pub max_failures: Option<u32>,
    #[arg(long, env = "RALPH_NO_WAIT", value_parser = parse_bool)]
    pub no_wait: Option<bool>,
    /// `RALPH_NO_COMPACT=1`: no compaction.
    #[arg(long = "no-compact", env = "RALPH_NO_COMPACT", value_parser = parse_negated)]
    pub compact: Option<bool>,
    /// `--parallel K`: stories run at once (1: the sequential loop).
    #[arg(long, env = "RALPH_PARALLEL", value_parser = parse_count)]
    pub parallel: Option<u32>,
    /// `--conflict-threshold`: predicted overlap from which two stories do not run at once.
    #[arg(long, env = "RALPH_CONFLICT_THRESHOLD", value_parser = ConflictThreshold::parse)]
    pub conflict_threshold: Option<ConflictThreshold>,
    /// Start with uncommitted changes in the work tree (`--allow-dirty`).
    #[arg(long, env = "RALPH_ALLOW_DIRTY", value_parser = parse_bool)]
    pub allow_dirty: Option<bool>,
    #[arg(long, env = "RALPH_PREFLIGHT", value_parser = parse_bool)]
    pub preflight: Option<bool>,
    /// `RALPH_VERIFY`: one command per line.
    #[arg(long, env = "RALPH_VERIFY", value_parser = parse_lines)]
    pub verify: Option<Commands>,
    /// `--red-green` / `[verify] red_green`, `test_patterns`, `red_green_setup`.
    #[arg(long, env = "RALPH_RED_GREEN", value_parser = parse_bool)]
    pub red_green: Option<bool>,
    #[arg(skip)]
    pub test_patterns: Option<Vec<String>>,
    #[arg(skip)]
    pub red_green_setup: Option<String>,
    /// progress.txt compaction: line threshold and recent lines kept verbatim.
    #[arg(long, env = "RALPH_COMPACT_THRESHOLD", value_parser = parse_size)]
    pub compact_threshold: Option<usize>,
    #[arg(long, env = "RALPH_COMPACT_KEEP_RECENT", value_parser = parse_size)]
    pub compact_keep_recent: Option<usize>,
    /// The context builder: token budget, Pin entries, spec lines per entry.
    #[arg(long, env = "RALPH_CONTEXT_BUDGET", value_parser = parse_size)]
    pub context_budget: Option<usize>,
    #[arg(long, env = "RALPH_CONTEXT_TOP_K", value_parser = parse_size)]
    pub context_top_k: Option<usize>,
    #[arg(long, env = "RALPH_CONTEXT_SPEC_LINES", value_parser = parse_size)]
    pub context_spec_lines: Option<usize>,
    /// `[context] files`: how many files "where to look" names.
    #[arg(long, env = "RALPH_CONTEXT_FILES", value_parser = parse_size)]
    pub context_files: Option<usize>,
    /// `[context.<agent>]`: per-agent overrides of the three above.
    #[arg(skip)]
    pub context_agents: std::collections::BTreeMap<String, ContextOverride>,
    /// `--max-cost`: stop before the next iteration once this much is spent.
    #[arg(long, env = "RALPH_MAX_COST", value_parser = Dollars::parse)]
    pub max_cost: Option<Dollars>,
    /// Hidden: SIGTERM→SIGKILL grace (default 10 s).
    #[arg(long, env = "RALPH_GRACE", value_parser = parse_duration)]
    pub grace: Option<Duration>,
    /// Hidden: cap on one rate-limit wait.
    #[arg(long, env = "RALPH_MAX_WAIT", value_parser = parse_duration)]
    pub max_wait: Option<Duration>,
    /// Hidden: time between two heartbeat lines when stderr is not a terminal (default 60 s).
    #[arg(long, env = "RALPH_HEARTBEAT", value_parser = parse_interval)]
    pub heartbeat: Option<Duration>,
    /// `[hooks]` commands (only the file sets them).
    #[arg(skip)]
    pub hook_story_done: Option<String>,
    #[arg(skip)]
    pub hook_blocked: Option<String>,
    #[arg(skip)]
    pub hook_run_end: Option<String>,
    #[arg(skip)]
    pub hook_timeout: Option<Duration>,
    /// `[review]` / `--review`.
    #[arg(long, env = "RALPH_REVIEW", value_parser = parse_bool)]
    pub review: Option<bool>,
    #[arg(long, env = "RALPH_REVIEW_AGENT", value_parser = parse_agent)]
    pub review_agent: Option<AgentKind>,
    #[arg(long, env = "RALPH_REVIEW_CMD")]
    pub review_cmd: Option<String>,
    #[arg(skip)]
    pub review_max_rounds: Option<u32>,
    #[arg(skip)]
    pub review_instructions: Option<PathBuf>,
    /// `[clean]`: the age past which old runs, rejected copies and archives go, how many of
    /// each always stay, and whether `ralph run` cleans at its start.
    #[arg(long, env = "RALPH_CLEAN_OLDER_THAN", value_parser = parse_age)]
    pub clean_older_than: Option<Duration>,
    #[arg(long, env = "RALPH_CLEAN_KEEP", value_parser = parse_keep)]
    pub clean_keep: Option<usize>,
    #[arg(long, env = "RALPH_CLEAN_AUTO", value_parser = parse_bool)]
    pub clean_auto: Option<bool>,
}

pub(super) fn bad(place: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::BadValue {
        place: place.to_string(),
        message: message.into(),
    }
}
