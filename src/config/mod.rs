//! `ralph.toml` and the settings of `ralph run`, merged: CLI > `RALPH_*` env > file > defaults.
//!
//! Owns the settings (sections `[agent]`, `[run]`, `[verify]`, `[compact]`, `[context]`,
//! `[hooks]`, `[review]`, `[clean]`), their errors, the parsers of their values and the merge;
//! reading the file is [`file`], the environment variables [`env`]. Does not own what the
//! settings do (see `crate::run`, `crate::run::events::hooks`, `crate::clean`).
//!
//! ```toml
//! [agent]
//! name = "claude"          # claude|codex|amp|copilot|gemini|opencode|custom
//! cmd = "my-agent --fast"  # custom command (implies name = "custom")
//! prompt_mode = "stdin"    # stdin|arg|file
//! instructions = "prompt.md" # the project's own instructions, for every agent
//! [run]
//! iterations = 10
//! timeout = "60m"
//! sleep = "2s"
//! max_failures = 3
//! no_wait = false
//! compact = true
//! parallel = 1             # stories at once, each in its own git worktree (specs/parallel.md)
//! conflict_threshold = 0.5 # two stories whose predicted files overlap this much wait ("off")
//! allow_dirty = false      # start with uncommitted changes in the work tree
//! preflight = true         # `ralph doctor`'s checks before the first agent
//! [verify]
//! commands = ["cargo test"]
//! red_green = true         # or `ralph run --red-green`: new tests must fail without the change
//! test_patterns = ["tests/**", "**/*_test.go"] # what a test file is (default: per language)
//! red_green_setup = "npm ci --prefer-offline" # run in the scratch worktree before the red run
//! [compact]
//! threshold = 400          # compact progress.txt when it has more lines than this
//! keep_recent = 200        # lines of recent entries kept verbatim
//! [context]
//! budget = 24000           # prompt token budget (estimated as chars/4 + 15%)
//! top_k = 5                # Pin entries per prompt
//! files = 15               # files named under "Where to look"
//! spec_lines = 100         # lines of each Pin entry's spec
//! [context.codex]          # per agent: any of budget, top_k, spec_lines
//! top_k = 3
//! [hooks]                  # sh -c commands, the event as JSON on stdin
//! on_story_done = "notify-send done"
//! on_blocked = "./hooks/blocked.sh"
//! on_run_end = "curl -s -d @- https://example.com/hook"
//! timeout = "30s"          # a hook running longer is killed (its process group)
//! [review]                 # a fresh agent reviews each gated story (specs/loop.md)
//! enabled = true           # or `ralph run --review`
//! agent = "codex"          # the reviewer's preset (default: the run's agent)
//! cmd = "my-reviewer"      # or a custom command
//! max_rounds = 2           # CHANGES this many times: the story is held for a person
//! instructions = "review.md" # the project's reviewer instructions
//! [clean]                  # `ralph clean` and the start of `ralph run` (specs/loop.md)
//! older_than = "14d"       # remove run folders, rejected copies, archives older than this
//! keep = 20                # ... but always keep the newest 20 of each
//! auto = true              # false: `ralph run` does not clean at its start
//! ```

use std::path::PathBuf;
use std::time::Duration;

use crate::agent::{AgentKind, PromptMode};

/// The file name, at the project root.
pub const FILE: &str = "ralph.toml";

const SECTIONS: &[&str] = &[
    "agent", "run", "verify", "compact", "context", "hooks", "review", "clean",
];
const AGENT_KEYS: &[&str] = &["name", "cmd", "prompt_mode", "instructions"];
const RUN_KEYS: &[&str] = &[
    "iterations",
    "timeout",
    "sleep",
    "max_failures",
    "no_wait",
    "compact",
    "parallel",
    "conflict_threshold",
    "allow_dirty",
    "max_cost",
    "preflight",
];
const VERIFY_KEYS: &[&str] = &["commands", "red_green", "test_patterns", "red_green_setup"];
const HOOKS_KEYS: &[&str] = &["on_story_done", "on_blocked", "on_run_end", "timeout"];
const REVIEW_KEYS: &[&str] = &["enabled", "agent", "cmd", "max_rounds", "instructions"];
const COMPACT_KEYS: &[&str] = &["threshold", "keep_recent"];
const CLEAN_KEYS: &[&str] = &["older_than", "keep", "auto"];
const CONTEXT_KEYS: &[&str] = &[
    "budget",
    "top_k",
    "spec_lines", // and per agent: [context.codex] top_k = 3
    "files",
    "claude",
    "codex",
    "amp",
    "copilot",
    "gemini",
    "opencode",
    "custom",
];
const CONTEXT_AGENT_KEYS: &[&str] = &["budget", "top_k", "spec_lines"];

/// Context-builder settings for one agent (`[context.<agent>]`); `None` means "not set here".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextOverride {
    pub budget: Option<usize>,
    pub top_k: Option<usize>,
    pub spec_lines: Option<usize>,
}

/// `[hooks]`: commands run (with `/bin/sh -c`, in the project root) when a story is done, a
/// story is skipped for no progress, or the run ends; each gets the event as JSON on stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hooks {
    pub on_story_done: Option<String>,
    pub on_blocked: Option<String>,
    pub on_run_end: Option<String>,
    /// A hook running longer is killed (default 30 s).
    pub timeout: Duration,
}

impl Default for Hooks {
    fn default() -> Hooks {
        Hooks {
            on_story_done: None,
            on_blocked: None,
            on_run_end: None,
            timeout: Duration::from_secs(30),
        }
    }
}

/// `[review]`: after the verify gate passes, a fresh agent reviews the story's diff and
/// answers `REVIEW: APPROVE` or `REVIEW: CHANGES` (see `crate::review`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    pub enabled: bool,
    /// The reviewer's preset (default: the run's agent).
    pub agent: Option<AgentKind>,
    /// The reviewer as a custom command.
    pub cmd: Option<String>,
    /// CHANGES (or no verdict) this many times in a run: the story is held for a person.
    pub max_rounds: u32,
    /// The project's reviewer instructions, relative to the root.
    pub instructions: Option<PathBuf>,
}

impl Default for Review {
    fn default() -> Review {
        Review {
            enabled: false,
            agent: None,
            cmd: None,
            max_rounds: 2,
            instructions: None,
        }
    }
}

/// The red-green gate (`--red-green`, `[verify] red_green`, a story's `redGreen`): once a
/// story's gate passes, its test-file changes alone, on its base commit in a scratch worktree,
/// must fail its verify commands (see `crate::run::iteration::redgreen`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedGreen {
    pub enabled: bool,
    /// Globs (relative to the project root) naming test files; `None`: the built-in defaults
    /// for Rust, Go, Python, JS/TS, Java and more.
    pub test_patterns: Option<Vec<String>>,
    /// A command (`sh -c`) run in the scratch worktree before the red run, e.g. `npm ci`.
    pub setup: Option<String>,
}

impl Hooks {
    /// Whether any hook is set.
    pub fn any(&self) -> bool {
        self.on_story_done.is_some() || self.on_blocked.is_some() || self.on_run_end.is_some()
    }
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

/// One source of settings; `None` means "not set here".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layer {
    pub agent: Option<AgentKind>,
    pub agent_cmd: Option<String>,
    pub prompt_mode: Option<PromptMode>,
    /// `[agent] instructions`: the project's instructions file, relative to the root.
    pub instructions: Option<PathBuf>,
    pub iterations: Option<u32>,
    pub timeout: Option<Duration>,
    pub sleep: Option<Duration>,
    pub max_failures: Option<u32>,
    pub no_wait: Option<bool>,
    pub compact: Option<bool>,
    /// `--parallel K`: stories run at once (1: the sequential loop).
    pub parallel: Option<u32>,
    /// `--conflict-threshold`: predicted overlap from which two stories do not run at once.
    pub conflict_threshold: Option<ConflictThreshold>,
    /// Start with uncommitted changes in the work tree (`--allow-dirty`).
    pub allow_dirty: Option<bool>,
    pub preflight: Option<bool>,
    pub verify: Option<Vec<String>>,
    /// `--red-green` / `[verify] red_green`, `test_patterns`, `red_green_setup`.
    pub red_green: Option<bool>,
    pub test_patterns: Option<Vec<String>>,
    pub red_green_setup: Option<String>,
    /// progress.txt compaction: line threshold and recent lines kept verbatim.
    pub compact_threshold: Option<usize>,
    pub compact_keep_recent: Option<usize>,
    /// The context builder: token budget, Pin entries, spec lines per entry.
    pub context_budget: Option<usize>,
    pub context_top_k: Option<usize>,
    pub context_spec_lines: Option<usize>,
    /// `[context] files`: how many files "where to look" names.
    pub context_files: Option<usize>,
    /// `[context.<agent>]`: per-agent overrides of the three above.
    pub context_agents: std::collections::BTreeMap<String, ContextOverride>,
    /// `--max-cost`: stop before the next iteration once this much is spent.
    pub max_cost: Option<Dollars>,
    /// Hidden: SIGTERM→SIGKILL grace (default 10 s).
    pub grace: Option<Duration>,
    /// Hidden: cap on one rate-limit wait.
    pub max_wait: Option<Duration>,
    /// Hidden: time between two heartbeat lines when stderr is not a terminal (default 60 s).
    pub heartbeat: Option<Duration>,
    /// `[hooks]` commands (only the file sets them).
    pub hook_story_done: Option<String>,
    pub hook_blocked: Option<String>,
    pub hook_run_end: Option<String>,
    pub hook_timeout: Option<Duration>,
    /// `[review]` / `--review`.
    pub review: Option<bool>,
    pub review_agent: Option<AgentKind>,
    pub review_cmd: Option<String>,
    pub review_max_rounds: Option<u32>,
    pub review_instructions: Option<PathBuf>,
    /// `[clean]`: the age past which old runs, rejected copies and archives go, how many of
    /// each always stay, and whether `ralph run` cleans at its start.
    pub clean_older_than: Option<Duration>,
    pub clean_keep: Option<usize>,
    pub clean_auto: Option<bool>,
}

/// The merged settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub agent: AgentKind,
    pub agent_cmd: Option<String>,
    pub prompt_mode: Option<PromptMode>,
    pub iterations: u32,
    pub timeout: Duration,
    pub sleep: Duration,
    pub max_failures: u32,
    pub no_wait: bool,
    pub compact: bool,
    /// Stories run at once, each in its own worktree (1: the sequential loop).
    pub parallel: u32,
    /// Parallel runs: two stories whose predicted files overlap this much do not run at once.
    pub conflict_threshold: ConflictThreshold,
    pub allow_dirty: bool,
    /// Run `ralph doctor`'s checks before the first agent (`--no-preflight`).
    pub preflight: bool,
    pub verify: Vec<String>,
    pub red_green: RedGreen,
    pub compact_threshold: usize,
    pub compact_keep_recent: usize,
    pub context: crate::context::Options,
    pub grace: Duration,
    pub max_wait: Option<Duration>,
    /// `--max-cost USD`: no new iteration once the run has spent this much (unset: no cap).
    pub max_cost: Option<Dollars>,
    /// Time between two heartbeat (and countdown) lines when stderr is not a terminal.
    pub heartbeat: Duration,
    pub hooks: Hooks,
    pub review: Review,
    pub clean: Clean,
}

/// `[clean]`: what `ralph clean` (and `ralph run` at its start) removes: per kind, whatever is
/// older than `older_than` and not among the newest `keep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clean {
    pub older_than: Duration,
    pub keep: usize,
    /// `ralph run` cleans at its start.
    pub auto: bool,
}

impl Default for Clean {
    fn default() -> Clean {
        Clean {
            older_than: Duration::from_secs(14 * 86_400),
            keep: 20,
            auto: true,
        }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            agent: AgentKind::Claude,
            agent_cmd: None,
            prompt_mode: None,
            iterations: 10,
            timeout: Duration::from_secs(60 * 60),
            sleep: Duration::from_secs(2),
            max_failures: 3,
            no_wait: false,
            compact: true,
            parallel: 1,
            conflict_threshold: ConflictThreshold::DEFAULT,
            allow_dirty: false,
            preflight: true,
            verify: vec![],
            red_green: RedGreen::default(),
            compact_threshold: crate::progress::compact::DEFAULT_THRESHOLD,
            compact_keep_recent: crate::progress::compact::DEFAULT_KEEP_RECENT,
            context: crate::context::Options::default(),
            grace: Duration::from_secs(10),
            max_wait: None,
            max_cost: None,
            heartbeat: Duration::from_secs(60),
            hooks: Hooks::default(),
            review: Review::default(),
            clean: Clean::default(),
        }
    }
}

/// Parse a duration: plain seconds (`90`, `0.5`) or units (`500ms`, `2s`, `60m`, `1h30m`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return Duration::try_from_secs_f64(secs)
            .map_err(|_| format!("\"{s}\" is not a non-negative duration of sensible size"));
    }
    let d: jiff::SignedDuration = t
        .parse()
        .map_err(|_| format!("\"{s}\" is not a duration; use e.g. 90, 500ms, 2s, 60m, 1h30m"))?;
    Duration::try_from(d).map_err(|_| format!("\"{s}\" is negative"))
}

/// Parse an age (`[clean] older_than`, `ralph clean --older-than`): `14d`, `2w`, `36h`, `90m`,
/// `0`, or anything [`parse_duration`] reads.
pub fn parse_age(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let per_unit = match unit.trim() {
        "d" | "day" | "days" => Some(86_400u64),
        "w" | "week" | "weeks" => Some(7 * 86_400),
        _ => None,
    };
    if let (Ok(n), Some(per)) = (num.parse::<u64>(), per_unit) {
        return n
            .checked_mul(per)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("\"{s}\" is too long an age"));
    }
    parse_duration(t).map_err(|_| format!("\"{s}\" is not an age; use e.g. 14d, 2w, 36h, 90m or 0"))
}

/// The merge: the first layer (highest precedence first) that sets a value wins. The agent and
/// its command go together: a layer naming a preset agent overrides a lower layer's command.
pub fn resolve(layers: &[&Layer]) -> Settings {
    let d = Settings::default();
    macro_rules! pick {
        ($f:ident, $default:expr) => {
            layers.iter().find_map(|l| l.$f.clone()).unwrap_or($default)
        };
    }
    let mut agent = d.agent;
    let mut agent_cmd = None;
    for (i, l) in layers.iter().enumerate() {
        if let Some(cmd) = &l.agent_cmd {
            agent = AgentKind::Custom;
            agent_cmd = Some(cmd.clone());
            break;
        }
        if let Some(a) = l.agent {
            agent = a;
            if a == AgentKind::Custom {
                agent_cmd = layers[i + 1..].iter().find_map(|l| l.agent_cmd.clone());
            }
            break;
        }
    }
    Settings {
        agent,
        agent_cmd,
        prompt_mode: layers.iter().find_map(|l| l.prompt_mode),
        iterations: pick!(iterations, d.iterations),
        timeout: pick!(timeout, d.timeout),
        sleep: pick!(sleep, d.sleep),
        max_failures: pick!(max_failures, d.max_failures),
        no_wait: pick!(no_wait, d.no_wait),
        compact: pick!(compact, d.compact),
        parallel: pick!(parallel, d.parallel),
        conflict_threshold: pick!(conflict_threshold, d.conflict_threshold),
        allow_dirty: pick!(allow_dirty, d.allow_dirty),
        preflight: pick!(preflight, d.preflight),
        verify: pick!(verify, d.verify.clone()),
        red_green: RedGreen {
            enabled: pick!(red_green, d.red_green.enabled),
            test_patterns: layers.iter().find_map(|l| l.test_patterns.clone()),
            setup: layers.iter().find_map(|l| l.red_green_setup.clone()),
        },
        compact_threshold: pick!(compact_threshold, d.compact_threshold),
        compact_keep_recent: pick!(compact_keep_recent, d.compact_keep_recent),
        context: {
            // Per layer, `[context.<agent>]` beats `[context]`; a higher layer beats both.
            let pick_ctx = |general: fn(&Layer) -> Option<usize>,
                            per: fn(&ContextOverride) -> Option<usize>,
                            default: usize| {
                layers
                    .iter()
                    .find_map(|l| {
                        l.context_agents
                            .get(agent.name())
                            .and_then(per)
                            .or(general(l))
                    })
                    .unwrap_or(default)
            };
            crate::context::Options {
                budget: pick_ctx(|l| l.context_budget, |o| o.budget, d.context.budget),
                top_k: pick_ctx(|l| l.context_top_k, |o| o.top_k, d.context.top_k),
                spec_lines: pick_ctx(
                    |l| l.context_spec_lines,
                    |o| o.spec_lines,
                    d.context.spec_lines,
                ),
                files: layers
                    .iter()
                    .find_map(|l| l.context_files)
                    .unwrap_or(d.context.files),
                // The prompt names the checks the gate will run.
                verify: pick!(verify, d.verify.clone()),
                red_green: pick!(red_green, d.red_green.enabled),
                instructions: layers.iter().find_map(|l| l.instructions.clone()),
                ..d.context
            }
        },
        grace: pick!(grace, d.grace),
        max_wait: layers.iter().find_map(|l| l.max_wait),
        max_cost: layers.iter().find_map(|l| l.max_cost),
        heartbeat: pick!(heartbeat, d.heartbeat),
        hooks: Hooks {
            on_story_done: layers.iter().find_map(|l| l.hook_story_done.clone()),
            on_blocked: layers.iter().find_map(|l| l.hook_blocked.clone()),
            on_run_end: layers.iter().find_map(|l| l.hook_run_end.clone()),
            timeout: pick!(hook_timeout, d.hooks.timeout),
        },
        clean: Clean {
            older_than: pick!(clean_older_than, d.clean.older_than),
            keep: pick!(clean_keep, d.clean.keep),
            auto: pick!(clean_auto, d.clean.auto),
        },
        review: review(layers),
    }
}

/// `[review]`: like the agent, a layer naming a preset overrides a lower layer's command.
fn review(layers: &[&Layer]) -> Review {
    let d = Review::default();
    let mut agent = None;
    let mut cmd = None;
    for l in layers {
        if let Some(c) = &l.review_cmd {
            cmd = Some(c.clone());
            agent = Some(AgentKind::Custom);
            break;
        }
        if let Some(a) = l.review_agent {
            agent = Some(a);
            break;
        }
    }
    Review {
        enabled: layers.iter().find_map(|l| l.review).unwrap_or(d.enabled),
        agent,
        cmd,
        max_rounds: layers
            .iter()
            .find_map(|l| l.review_max_rounds)
            .unwrap_or(d.max_rounds),
        instructions: layers.iter().find_map(|l| l.review_instructions.clone()),
    }
}

fn bad(place: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::BadValue {
        place: place.to_string(),
        message: message.into(),
    }
}

fn parse_bool(place: &str, s: &str) -> Result<bool, ConfigError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(bad(place, format!("\"{s}\" is not true/false (or 1/0)"))),
    }
}

/// An amount of US dollars: finite and above zero (a cap of nothing would stop every run).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Dollars(f64);

// Only finite amounts are ever made (see `Dollars::new`), so equality is an equivalence.
impl Eq for Dollars {}

impl Dollars {
    pub fn new(usd: f64) -> Option<Dollars> {
        (usd.is_finite() && usd > 0.0).then_some(Dollars(usd))
    }

    pub fn usd(self) -> f64 {
        self.0
    }

    /// `5`, `2.50`, `$2.50`; the error says what is wrong, without a place.
    pub fn parse(s: &str) -> Result<Dollars, String> {
        let t = s.trim();
        let t = t.strip_prefix('$').unwrap_or(t);
        t.parse::<f64>().ok().and_then(Dollars::new).ok_or_else(|| {
            format!("\"{s}\" is not an amount of US dollars above 0; use e.g. 5 or 2.50")
        })
    }
}

/// How strongly the predicted files of two stories must overlap (0 to 1) before a parallel run
/// keeps them apart (`[run] conflict_threshold`, `--conflict-threshold`,
/// `RALPH_CONFLICT_THRESHOLD`), or `off`: stories run at once whatever they touch. Kept in
/// hundredths, so settings compare exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConflictThreshold(Option<u8>);

impl ConflictThreshold {
    /// 0.5: both stories predict the same file strongly (see `run::parallel::predict`).
    pub const DEFAULT: ConflictThreshold = ConflictThreshold(Some(50));
    pub const OFF: ConflictThreshold = ConflictThreshold(None);

    /// The threshold, `None` when off.
    pub fn value(self) -> Option<f64> {
        self.0.map(|h| f64::from(h) / 100.0)
    }

    /// `0.5`, `0`, `1`, `50%`, `off`; the error says what is wrong, without a place.
    pub fn parse(s: &str) -> Result<ConflictThreshold, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("off") || t.eq_ignore_ascii_case("false") {
            return Ok(ConflictThreshold::OFF);
        }
        let v = match t.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
            None => t.parse::<f64>(),
        };
        match v {
            // In range, so the rounded hundredths fit a u8.
            Ok(x) if (0.0..=1.0).contains(&x) => {
                Ok(ConflictThreshold(Some((x * 100.0).round() as u8)))
            }
            _ => Err(format!(
                "\"{s}\" is not an overlap between 0 and 1 (e.g. 0.5 or 50%) nor \"off\""
            )),
        }
    }
}

/// `5`, `2.50`, `$2.50`: a cost cap in US dollars.
pub fn parse_dollars(place: &str, s: &str) -> Result<Dollars, ConfigError> {
    Dollars::parse(s).map_err(|m| bad(place, m))
}

fn parse_count(place: &str, s: &str) -> Result<u32, ConfigError> {
    match s.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(bad(
            place,
            format!("\"{s}\" is not a whole number of at least 1"),
        )),
    }
}

fn parse_agent(place: &str, s: &str) -> Result<AgentKind, ConfigError> {
    AgentKind::parse(s).ok_or_else(|| {
        let hint = crate::suggest::nearest(s, AgentKind::NAMES.iter().copied())
            .map(|n| format!(" (did you mean \"{n}\"?)"))
            .unwrap_or_default();
        bad(
            place,
            format!(
                "unknown agent \"{s}\"{hint}; choose one of {}",
                AgentKind::NAMES.join(", ")
            ),
        )
    })
}

fn parse_mode(place: &str, s: &str) -> Result<PromptMode, ConfigError> {
    PromptMode::parse(s).ok_or_else(|| {
        bad(
            place,
            format!("\"{s}\" is not a prompt mode; use stdin, arg or file"),
        )
    })
}

mod env;
mod file;
pub use env::from_env;
pub use file::{load_file, parse_file};

#[cfg(test)]
mod tests;
