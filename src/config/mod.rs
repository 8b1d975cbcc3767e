//! `ralph.toml` and the settings of `ralph run`, merged: CLI > `RALPH_*` env > file > defaults.
//!
//! Owns the settings (sections `[agent]`, `[run]`, `[verify]`, `[compact]`, `[context]`,
//! `[hooks]`, `[review]`, `[clean]`) and the merge; one source's settings and their errors are
//! `layer.rs`, the parsers of their values `scalar.rs` (two leaves); reading the file is
//! [`file`] (its value types [`value`]), the environment variables [`env`].
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

/// `[hooks]`: commands run (with `/bin/sh -c`, in the project root) when a story is done, a
/// story is skipped for no progress, or the run ends; each gets the event as JSON on stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hooks {
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
pub(crate) struct Review {
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
pub(crate) struct RedGreen {
    pub enabled: bool,
    /// Globs (relative to the project root) naming test files; `None`: the built-in defaults
    /// for Rust, Go, Python, JS/TS, Java and more.
    pub test_patterns: Option<Vec<String>>,
    /// A command (`sh -c`) run in the scratch worktree before the red run, e.g. `npm ci`.
    pub setup: Option<String>,
}

impl Hooks {
    /// Whether any hook is set.
    pub(crate) fn any(&self) -> bool {
        self.on_story_done.is_some() || self.on_blocked.is_some() || self.on_run_end.is_some()
    }
}

/// The merged settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settings {
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
pub(crate) struct Clean {
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

mod env;
pub(crate) mod file;
mod layer;
mod scalar;
mod value;
#[cfg(test)]
pub(crate) use env::from_env;
pub(crate) use env::from_process_env;
pub(crate) use file::load_file;
pub(crate) use layer::{ConfigError, ContextOverride, FILE, Layer};
pub(crate) use scalar::{ConflictThreshold, Dollars, parse_age, parse_duration};

#[cfg(test)]
mod tests;
