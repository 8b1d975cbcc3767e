//! The loop: `ralph run [N]` and `ralph demo`.
//!
//! Once per run, after the lock and the first load of prd.json and before the first agent: the
//! git start in [`branch`] (a dirty work tree refused unless `--allow-dirty`, `branchName`
//! checked out or created from `baseBranch`/HEAD, a warning outside git).
//! One iteration, in order: (1) the project lock, (2) load and validate prd.json, (3) archive
//! on a branch change, (4) stop when all pass or nothing is ready, (5) pick the next story with
//! [`crate::graph::next_ready`] (the same rule as `ralph next`), (6) build the prompt and run the
//! agent, (7) the integrity guard, (8) outcome and verify gate, (9) history, (10) sleep or stop.
//! Steps 6-9 are in [`iteration`]; pure policy lives in [`outcome`], [`integrity`],
//! [`crate::state::archive`] (naming), [`ratelimit`] and [`status`]. The files under `.ralph/`
//! (history, lock, archive, rejected copies) are [`crate::state`]'s. Printing is for humans, on
//! stderr; the agent's own output goes to stdout/stderr as it arrives.

pub(crate) mod branch;
pub(crate) mod control;
pub(crate) mod cost;
pub(crate) mod demo;
mod driver;
pub(crate) mod events;
pub(crate) mod gate;
pub(crate) mod git;
pub(crate) mod guard;
pub(crate) mod hooks;
pub(crate) mod integrity;
pub(crate) mod iteration;
pub(crate) mod launch;
pub(crate) mod outcome;
pub(crate) mod parallel;
pub(crate) mod patterns;
pub(crate) mod preflight;
pub(crate) mod prompt;
pub(crate) mod ratelimit;
pub(crate) mod redgreen;
pub(crate) mod report;
pub(crate) mod review;
pub(crate) mod signals;
pub(crate) mod status;
pub(crate) mod upkeep;
pub(crate) mod verdict;
pub(crate) mod verify;
pub(crate) mod watch;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::agent::{self, AgentSpec};
use crate::config::Settings;
use crate::exit::Code;
use crate::graph::{self, State};
use crate::prd::{Prd, PrdError};
use events::Reporter;

/// Consecutive rate-limited attempts before the loop gives up (exit 1).
pub(crate) const MAX_RATE_LIMIT_WAITS: usize = 12;

/// Why the loop stopped with an error (exit 1).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    #[error(transparent)]
    Fs(#[from] crate::fsutil::FsError),
    #[error(transparent)]
    Prd(#[from] PrdError),
    #[error(transparent)]
    Agent(#[from] crate::agent::AgentError),
    #[error(transparent)]
    Lock(#[from] crate::state::lock::LockError),
    #[error(transparent)]
    History(#[from] crate::state::history::HistoryError),
    #[error(transparent)]
    Prompt(#[from] prompt::PromptError),
    #[error(transparent)]
    Branch(#[from] branch::BranchError),
    #[error(
        "{path}: cannot write ({source}); {state}. The good copy from before the iteration is {good}: once the disk has room, put it back with `cp {good} {path}` and run again",
        path = path.display(),
        good = good.display()
    )]
    WriteFailed {
        path: PathBuf,
        #[source]
        source: crate::fsutil::FsError,
        state: String,
        good: PathBuf,
    },
    #[error(transparent)]
    Parallel(#[from] parallel::ParallelError),
    #[error("--story {id}: {why}")]
    Story { id: String, why: String },
    #[error(
        "the agent hit a usage/rate limit ({line}); not waiting because of --no-wait; run again later"
    )]
    RateLimited { line: String },
    #[error(
        "the agent hit a usage/rate limit {MAX_RATE_LIMIT_WAITS} times in a row (last: {line}); stopping; run again later"
    )]
    RateLimitedTooOften { line: String },
}

/// A transparent wrapper hides the error it wraps from the chain: `Branch` passes its code on.
/// The other wrapped errors have always been code `error` in the envelope, and stay so here.
impl crate::problem::Coded for RunError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        match self {
            RunError::Branch(b) => b.problem(),
            _ => None,
        }
    }
}

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub root: PathBuf,
    pub prd_path: PathBuf,
    pub settings: Settings,
    pub agent: AgentSpec,
    /// `--review`: the agent that reviews each gated story (see [`review`]).
    pub reviewer: Option<AgentSpec>,
    /// `--story ID`: run this story while it is unfinished.
    pub story: Option<String>,
    /// Copy the agent's output to the terminal.
    pub echo: bool,
    /// Extra environment for the agent.
    pub env: Vec<(String, String)>,
    /// Where the loop reports what happens (the terminal, or JSON lines).
    pub reporter: Arc<dyn Reporter>,
}

/// How a run ended without an error (as `run-ended` reports it: `all-done`, `limit`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Exit {
    AllDone,
    Limit,
    NoReady,
    CostLimit,
    Interrupted,
    /// The agent CLI could not start (see [`outcome::start_failure`]).
    StartFailed,
}

impl Exit {
    pub(crate) fn code(self) -> Code {
        match self {
            Exit::AllDone => Code::OK,
            Exit::Limit => Code::LIMIT,
            Exit::NoReady => Code::NO_READY,
            Exit::CostLimit => Code::COST_LIMIT,
            Exit::StartFailed => Code::AGENT_START,
            Exit::Interrupted if signals::hung_up() => Code::HANGUP,
            Exit::Interrupted => Code::INTERRUPTED,
        }
    }
}

/// Every iteration log line passes through here before it reaches disk: secrets (API keys,
/// tokens, private keys, passwords) are redacted, as they are in prompts.
pub(crate) fn redact_for_log(s: &str) -> String {
    crate::context::redact::redact(s).0
}

/// prd.json as read once: the validated value and the exact bytes it came from (cheap to clone,
/// shared with the threads of a parallel run).
#[derive(Debug, Clone)]
pub(crate) struct PrdSnapshot {
    pub prd: Arc<Prd>,
    pub bytes: Arc<Vec<u8>>,
}

impl PrdSnapshot {
    pub(crate) fn new(prd: Prd, bytes: Vec<u8>) -> PrdSnapshot {
        PrdSnapshot {
            prd: Arc::new(prd),
            bytes: Arc::new(bytes),
        }
    }
}

/// The story to run: `--story` when given, unfinished and not skipped, else the `ralph next`
/// rule.
pub(crate) fn choose(
    prd: &Prd,
    states: &[State],
    forced: Option<&str>,
    skipped: &HashSet<String>,
) -> Result<Option<usize>, RunError> {
    if let Some(id) = forced {
        let Some(s) = prd.story(id) else {
            let why = match crate::suggest::nearest(id, prd.stories.iter().map(|s| s.id.as_str())) {
                Some(n) => format!(
                    "no such story in {} (did you mean {n}?)",
                    prd.path.display()
                ),
                None => format!("no such story in {}", prd.path.display()),
            };
            return Err(RunError::Story { id: id.into(), why });
        };
        match &states[s.index] {
            State::Ready if !skipped.contains(id) => return Ok(Some(s.index)),
            // Done, or skipped for making no progress: carry on with the usual order.
            State::Ready | State::Done => {}
            State::Removed => {
                return Err(RunError::Story {
                    id: id.into(),
                    why: "is removed (status: \"removed\")".into(),
                });
            }
            State::Blocked { unmet } => {
                let names: Vec<String> = unmet.iter().map(ToString::to_string).collect();
                return Err(RunError::Story {
                    id: id.into(),
                    why: format!("is not ready: blocked by {}", names.join(", ")),
                });
            }
        }
    }
    Ok(graph::next_ready(&prd.stories, states, skipped))
}

/// `--dry-run`: the story, the exact prompt and argv; nothing written, nothing run.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub story: Option<(String, String)>,
    pub prompt: String,
    pub invocation: agent::Invocation,
    pub located: Result<PathBuf, String>,
    pub all_done: bool,
    pub not_runnable: Vec<String>,
    /// What the run would do about git: the branch, uncommitted changes (see `branch`).
    pub git: Vec<String>,
    /// What the run would remove at its start (see [`upkeep::clean_preview`]).
    pub clean: Option<String>,
    /// The commands the story's gate runs: the run's, then the story's own.
    pub verify: Vec<String>,
    /// The red-green gate's line, when it is on for the story.
    pub red_green: Option<String>,
}

pub(crate) fn dry_run(opts: &Options) -> Result<Plan, RunError> {
    let prd = Prd::load(&opts.prd_path)?;
    let git = match branch::inspect(&opts.root, &prd) {
        Ok(i) => branch::describe(&i, opts.settings.allow_dirty),
        Err(e) => vec![format!("git: {e}")],
    };
    let states = graph::states(&prd.stories);
    let chosen = choose(&prd, &states, opts.story.as_deref(), &HashSet::new())?;
    let located = opts.agent.locate().map_err(|e| e.to_string());
    let prompt_file = crate::state::state_dir(&opts.root).join("runs/<run-id>/prompt-1.md");
    let Some(i) = chosen else {
        return Ok(Plan {
            story: None,
            prompt: String::new(),
            invocation: agent::plan(&opts.agent, "", &prompt_file),
            located,
            all_done: prd.all_done(),
            not_runnable: status::not_runnable(&prd.stories, &states, &BTreeMap::new()),
            git,
            clean: upkeep::clean_preview(opts),
            verify: opts.settings.verify.clone(),
            red_green: None,
        });
    };
    let story = &prd.stories[i];
    let prompt = prompt::build(
        &opts.root,
        &prd,
        story,
        None,
        &opts.agent,
        &opts.settings.context,
    )?;
    let mut invocation = agent::plan(&opts.agent, &prompt, &prompt_file);
    invocation.argv = agent::slots::fill(
        &invocation.argv,
        &agent::slots::Slots {
            usage_file: Some(
                crate::state::state_dir(&opts.root).join("runs/<run-id>/iter-1.usage.json"),
            ),
            git_dirs: agent::slots::git_dirs(&opts.root),
        },
    );
    Ok(Plan {
        story: Some((story.id.clone(), story.title.clone())),
        invocation,
        prompt,
        located,
        all_done: false,
        not_runnable: vec![],
        git,
        clean: upkeep::clean_preview(opts),
        verify: story.gate_commands(&opts.settings.verify),
        red_green: redgreen::plan_line(&opts.settings, story),
    })
}

pub(crate) fn new_run_id() -> String {
    format!(
        "{}-{}",
        jiff::Zoned::now().strftime("%Y%m%dT%H%M%S"),
        std::process::id()
    )
}

/// Run the loop until every story passes, nothing is ready, the limit, or an interrupt (see
/// [`driver`]).
pub(crate) fn run(opts: &Options, interrupt: &AtomicBool) -> Result<Exit, RunError> {
    driver::run(opts, interrupt)
}
