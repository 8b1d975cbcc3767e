//! `ralph.toml` and the settings of `ralph run`, merged: CLI > `RALPH_*` env > file > defaults.
//!
//! Owns the settings (sections `[agent]`, `[run]`, `[verify]`, `[compact]`, `[context]`,
//! `[hooks]`, `[review]`, `[clean]`), their errors, the parsers of their values and the merge;
//! reading the file is [`file`] (its value types [`value`]), the environment variables [`env`].
//! Does not own what the settings do (see `crate::run`, `crate::run::events::hooks`, `crate::clean`).
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
pub(crate) const FILE: &str = "ralph.toml";

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
/// ([`env`]); the other fields (`skip`) only ralph.toml or a flag sets.
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

/// Verify commands. A name of its own so that clap reads `RALPH_VERIFY` as one value (its
/// lines), where it would read an `Option<Vec<_>>` field as a list of values.
pub(crate) type Commands = Vec<String>;

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
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
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
pub(crate) fn parse_age(s: &str) -> Result<Duration, String> {
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

/// The value of `field` in the first of `layers` that sets it.
macro_rules! first {
    ($layers:expr, $f:ident) => {
        $layers.iter().find_map(|l| l.$f.clone())
    };
}

/// The merge: the first layer (highest precedence first) that sets a value wins. The agent and
/// its command go together: a layer naming a preset agent overrides a lower layer's command.
pub(crate) fn resolve(layers: &[&Layer]) -> Settings {
    let d = Settings::default();
    let (agent, agent_cmd) = agent(layers);
    Settings {
        agent,
        agent_cmd,
        prompt_mode: first!(layers, prompt_mode),
        iterations: first!(layers, iterations).unwrap_or(d.iterations),
        timeout: first!(layers, timeout).unwrap_or(d.timeout),
        sleep: first!(layers, sleep).unwrap_or(d.sleep),
        max_failures: first!(layers, max_failures).unwrap_or(d.max_failures),
        no_wait: first!(layers, no_wait).unwrap_or(d.no_wait),
        compact: first!(layers, compact).unwrap_or(d.compact),
        parallel: first!(layers, parallel).unwrap_or(d.parallel),
        conflict_threshold: first!(layers, conflict_threshold).unwrap_or(d.conflict_threshold),
        allow_dirty: first!(layers, allow_dirty).unwrap_or(d.allow_dirty),
        preflight: first!(layers, preflight).unwrap_or(d.preflight),
        verify: first!(layers, verify).unwrap_or(d.verify),
        red_green: RedGreen {
            enabled: first!(layers, red_green).unwrap_or(d.red_green.enabled),
            test_patterns: first!(layers, test_patterns),
            setup: first!(layers, red_green_setup),
        },
        compact_threshold: first!(layers, compact_threshold).unwrap_or(d.compact_threshold),
        compact_keep_recent: first!(layers, compact_keep_recent).unwrap_or(d.compact_keep_recent),
        context: context(layers, agent),
        grace: first!(layers, grace).unwrap_or(d.grace),
        max_wait: first!(layers, max_wait),
        max_cost: first!(layers, max_cost),
        heartbeat: first!(layers, heartbeat).unwrap_or(d.heartbeat),
        hooks: Hooks {
            on_story_done: first!(layers, hook_story_done),
            on_blocked: first!(layers, hook_blocked),
            on_run_end: first!(layers, hook_run_end),
            timeout: first!(layers, hook_timeout).unwrap_or(d.hooks.timeout),
        },
        clean: Clean {
            older_than: first!(layers, clean_older_than).unwrap_or(d.clean.older_than),
            keep: first!(layers, clean_keep).unwrap_or(d.clean.keep),
            auto: first!(layers, clean_auto).unwrap_or(d.clean.auto),
        },
        review: review(layers),
    }
}

/// The agent and its custom command: the first layer naming either decides; a custom agent
/// without a command there takes the next lower layer's command.
fn agent(layers: &[&Layer]) -> (AgentKind, Option<String>) {
    for (i, l) in layers.iter().enumerate() {
        if let Some(cmd) = &l.agent_cmd {
            return (AgentKind::Custom, Some(cmd.clone()));
        }
        if let Some(a) = l.agent {
            let cmd = (a == AgentKind::Custom)
                .then(|| first!(layers[i + 1..], agent_cmd))
                .flatten();
            return (a, cmd);
        }
    }
    (Settings::default().agent, None)
}

/// The context builder's settings for `agent`. Per layer, `[context.<agent>]` beats
/// `[context]`; a higher layer beats both.
fn context(layers: &[&Layer], agent: AgentKind) -> crate::context::Options {
    let d = crate::context::Options::default();
    let pick = |general: fn(&Layer) -> Option<usize>,
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
    let settings = Settings::default();
    crate::context::Options {
        budget: pick(|l| l.context_budget, |o| o.budget, d.budget),
        top_k: pick(|l| l.context_top_k, |o| o.top_k, d.top_k),
        spec_lines: pick(|l| l.context_spec_lines, |o| o.spec_lines, d.spec_lines),
        files: first!(layers, context_files).unwrap_or(d.files),
        // The prompt names the checks the gate will run.
        verify: first!(layers, verify).unwrap_or(settings.verify),
        red_green: first!(layers, red_green).unwrap_or(settings.red_green.enabled),
        instructions: first!(layers, instructions),
        ..d
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

/// `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off` (any case; the environment's booleans).
fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(format!("\"{s}\" is not true/false (or 1/0)")),
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

fn parse_count(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("\"{s}\" is not a whole number of at least 1")),
    }
}

/// A count of things (lines, tokens, entries): at least 1.
fn parse_size(s: &str) -> Result<usize, String> {
    parse_count(s).map(|n| n as usize)
}

/// How many to keep: 0 or more.
fn parse_keep(s: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .map_err(|_| format!("\"{s}\" is not a whole number (0 or more)"))
}

/// `RALPH_NO_*`: true turns the setting off.
fn parse_negated(s: &str) -> Result<bool, String> {
    parse_bool(s).map(|b| !b)
}

/// The time between two heartbeats: never zero.
fn parse_interval(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err("0 is no interval; use e.g. 1s or 60s".to_string()),
        d => Ok(d),
    }
}

/// One command per non-blank line, trimmed.
fn parse_lines(s: &str) -> Result<Commands, String> {
    Ok(s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

/// An agent preset's name, with the nearest one and the list when unknown.
fn parse_agent(s: &str) -> Result<AgentKind, String> {
    AgentKind::from_name(s).ok_or_else(|| {
        format!(
            "unknown agent \"{s}\"{}; choose one of {}",
            AgentKind::did_you_mean(s),
            AgentKind::list()
        )
    })
}

fn parse_mode(s: &str) -> Result<PromptMode, String> {
    PromptMode::from_name(s)
        .ok_or_else(|| format!("\"{s}\" is not a prompt mode; use stdin, arg or file"))
}

mod env;
pub(crate) mod file;
mod value;
#[cfg(test)]
pub(crate) use env::from_env;
pub(crate) use env::from_process_env;
pub(crate) use file::load_file;

#[cfg(test)]
mod tests;
