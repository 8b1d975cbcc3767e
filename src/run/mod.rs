//! The loop: `ralph run [N]` and `ralph demo`.
//!
//! One iteration, in order: (1) the project lock, (2) load and validate prd.json, (3) archive
//! on a branch change, (4) stop when all pass or nothing is ready, (5) pick the next story with
//! [`crate::graph::next_ready`] (the same rule as `ralph next`), (6) build the prompt and run the
//! agent, (7) the integrity guard, (8) outcome and verify gate, (9) history, (10) sleep or stop.
//! Steps 6-9 are in [`iteration`]; pure policy lives in [`outcome`], [`integrity`],
//! [`archive`] (naming), [`ratelimit`] and [`status`]. Printing is for humans, on stderr; the
//! agent's own output goes to stdout/stderr as it arrives.

pub mod archive;
pub mod demo;
pub mod git;
pub mod guard;
pub mod history;
pub mod integrity;
pub mod iteration;
pub mod lock;
pub mod outcome;
pub mod parallel;
pub mod prompt;
pub mod ratelimit;
pub mod rejected;
pub mod report;
pub mod signals;
pub mod status;
pub mod verdict;
pub mod verify;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::agent::{self, AgentSpec};
use crate::config::Settings;
use crate::exit::Code;
use crate::graph::{self, State};
use crate::prd::{Prd, PrdError};
use outcome::{Outcome, Strikes};
use prompt::RetryNote;

/// The file under `.ralph/` that records the running agent's (or verify command's) process
/// group, for the next run to stop if ralph is killed outright ([`crate::agent::group`]).
pub const AGENT_GROUP: &str = "agent-group";

/// Consecutive rate-limited attempts before the loop gives up (exit 1).
pub const MAX_RATE_LIMIT_WAITS: usize = 12;

/// Why the loop stopped with an error (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Fs(#[from] crate::fsutil::FsError),
    #[error(transparent)]
    Prd(#[from] PrdError),
    #[error(transparent)]
    Agent(#[from] crate::agent::AgentError),
    #[error(transparent)]
    Lock(#[from] lock::LockError),
    #[error(transparent)]
    History(#[from] history::HistoryError),
    #[error(transparent)]
    Prompt(#[from] prompt::PromptError),
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
    #[error("cannot install the Ctrl-C handler: {0}")]
    Signals(std::io::Error),
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

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub struct Options {
    pub root: PathBuf,
    pub prd_path: PathBuf,
    pub settings: Settings,
    pub agent: AgentSpec,
    /// `--story ID`: run this story while it is unfinished.
    pub story: Option<String>,
    /// Copy the agent's output to the terminal.
    pub echo: bool,
    /// Extra environment for the agent.
    pub env: Vec<(String, String)>,
}

/// How a run ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    AllDone,
    Limit,
    NoReady,
    Interrupted,
}

impl Exit {
    pub fn code(self) -> Code {
        match self {
            Exit::AllDone => Code::OK,
            Exit::Limit => Code::LIMIT,
            Exit::NoReady => Code::NO_READY,
            Exit::Interrupted if signals::hung_up() => Code::HANGUP,
            Exit::Interrupted => Code::INTERRUPTED,
        }
    }
}

/// Every iteration log line passes through here before it reaches disk: secrets (API keys,
/// tokens, private keys, passwords) are redacted, as they are in prompts.
pub fn redact_for_log(s: &str) -> String {
    crate::context::redact::redact(s).0
}

/// Pre-iteration housekeeping: compact progress.txt when it is over the threshold. Returns a
/// line for the status output ("compacted progress.txt: 512 -> 190 lines, ..."). Honours
/// `--no-compact`. A failed compaction never stops the loop: it is reported and skipped (the
/// original is untouched, see `progress::store`).
fn before_iteration(root: &Path, settings: &Settings) -> Option<String> {
    if !settings.compact {
        return None;
    }
    let opts = crate::progress::compact::Options {
        threshold: settings.compact_threshold,
        keep_recent: settings.compact_keep_recent,
        ..crate::progress::compact::Options::default()
    };
    match crate::progress::compact::auto(root, &opts) {
        Ok(summary) => summary.map(|s| s.to_string()),
        Err(e) => Some(format!("progress.txt not compacted: {e}")),
    }
}

/// The state dir `.ralph/` under the root.
pub fn state_dir(root: &Path) -> PathBuf {
    root.join(".ralph")
}

/// A loaded prd.json: the value, its bytes, and whether they changed since the last load.
type Loaded = (Rc<Prd>, Rc<Vec<u8>>, bool);

/// Load prd.json, reusing the last validated value when the bytes did not change (a
/// 2,000-story file is validated once, not every iteration, and never copied).
struct PrdCache {
    bytes: Rc<Vec<u8>>,
    prd: Option<Rc<Prd>>,
}

impl PrdCache {
    /// The current prd.json, and whether it differs from the last one seen.
    fn load(&mut self, path: &Path) -> Result<Loaded, RunError> {
        let bytes = crate::fsutil::read(path)?;
        if let Some(p) = &self.prd
            && bytes == *self.bytes
        {
            return Ok((p.clone(), self.bytes.clone(), false));
        }
        let prd = Rc::new(Prd::from_bytes(path, &bytes)?);
        self.prd = Some(prd.clone());
        self.bytes = Rc::new(bytes);
        Ok((prd, self.bytes.clone(), true))
    }

    fn set(&mut self, prd: Prd, bytes: Vec<u8>) {
        self.bytes = Rc::new(bytes);
        self.prd = Some(Rc::new(prd));
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
pub struct Plan {
    pub story: Option<(String, String)>,
    pub prompt: String,
    pub invocation: agent::Invocation,
    pub located: Result<PathBuf, String>,
    pub all_done: bool,
    pub not_runnable: Vec<String>,
}

pub fn dry_run(opts: &Options) -> Result<Plan, RunError> {
    let prd = Prd::load(&opts.prd_path)?;
    let states = graph::states(&prd.stories);
    let chosen = choose(&prd, &states, opts.story.as_deref(), &HashSet::new())?;
    let located = opts.agent.locate().map_err(|e| e.to_string());
    let prompt_file = state_dir(&opts.root).join("runs/<run-id>/prompt-1.md");
    let Some(i) = chosen else {
        return Ok(Plan {
            story: None,
            prompt: String::new(),
            invocation: agent::plan(&opts.agent, "", &prompt_file),
            located,
            all_done: prd.all_done(),
            not_runnable: status::not_runnable(&prd.stories, &states, &BTreeMap::new()),
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
    Ok(Plan {
        story: Some((story.id.clone(), story.title.clone())),
        invocation: agent::plan(&opts.agent, &prompt, &prompt_file),
        prompt,
        located,
        all_done: false,
        not_runnable: vec![],
    })
}

pub(crate) fn new_run_id() -> String {
    format!(
        "{}-{}",
        jiff::Zoned::now().strftime("%Y%m%dT%H%M%S"),
        std::process::id()
    )
}

/// Run the loop until every story passes, nothing is ready, the limit, or an interrupt.
pub fn run(opts: &Options, interrupt: &AtomicBool) -> Result<Exit, RunError> {
    // The agent must exist before anything else happens.
    opts.agent.locate()?;
    crate::agent::process::become_subreaper();
    let state = state_dir(&opts.root);
    let lock = lock::Lock::acquire(&opts.root)?;
    lock.sweep_beside(&opts.prd_path);
    // A ralph killed outright (SIGKILL, OOM) could not stop its agent's children: do it now,
    // checking each one's identity (start time) so a reused pid is never killed.
    let left = crate::agent::group::stop_recorded(&state.join(AGENT_GROUP), opts.settings.grace);
    if left > 0 {
        crate::say!(
            "ralph: stopped {left} process(es) of an agent left running by a ralph that was killed"
        );
    }
    if let Some(pid) = &lock.took_over_from {
        crate::say!(
            "ralph: warning: took over {} left by pid {pid}, which is no longer running",
            lock.path.display()
        );
    }
    // Keep .ralph/ (lock, logs, history) out of the agent's `git add -A`.
    match git::exclude_state_dir(&opts.root) {
        Ok(Some(path)) => crate::say!("ralph: added .ralph/ to {}", path.display()),
        Ok(None) => {}
        Err(e) => crate::say!("ralph: warning: cannot keep .ralph/ out of git: {e}"),
    }
    match history::read_counted(&opts.root) {
        Ok((_, 0)) => {}
        Ok((_, k)) => crate::say!(
            "ralph: warning: {}: skipped {k} line(s) that are not history records; the file is kept and new records are appended",
            history::path(&opts.root).display()
        ),
        Err(e) => crate::say!("ralph: warning: {e}"),
    }
    let run_id = new_run_id();
    // Absolute, so the agent can be told where its prompt file is whatever its cwd.
    let run_dir = state.join("runs").join(&run_id);
    let run_dir = std::path::absolute(&run_dir).unwrap_or(run_dir);
    crate::fsutil::create_dir_all(&run_dir)?;
    let s = &opts.settings;
    let started = Instant::now();
    let mut cache = PrdCache {
        bytes: Rc::new(vec![]),
        prd: None,
    };
    let mut n: u32 = 0;
    let mut attempts: HashMap<String, u32> = HashMap::new();
    let mut retries: HashMap<String, RetryNote> = HashMap::new();
    let mut strikes = Strikes::new(s.max_failures);
    let mut skipped: BTreeMap<String, String> = BTreeMap::new();
    let mut limit_streak = 0usize;
    // The work tree as the last iteration left it, reused as the next "before" (one `git status`
    // per iteration, not two); forgotten when ralph changes the tree (archive) or waits long
    // (rate limit). Edits made by hand during `--sleep` would be credited to the next agent.
    let mut tree: Option<git::Snapshot> = None;
    // What `.ralph/prd.good.json` holds.
    let mut good: Option<Rc<Vec<u8>>> = None;
    let progress_path = opts.root.join("progress.txt");
    crate::say!(
        "ralph: run {run_id}: agent {}, up to {} iterations{}",
        opts.agent.kind.name(),
        s.iterations,
        if s.verify.is_empty() {
            String::new()
        } else {
            format!(", verify: {}", s.verify.join(" && "))
        }
    );
    if s.verify.is_empty() {
        crate::say!(
            "ralph: warning: no verify commands (--verify, [verify] in ralph.toml): nothing verifies the agent's claims; a story counts as done only when the agent marks it passing in prd.json"
        );
    }
    loop {
        if interrupt.load(Ordering::SeqCst) {
            eprintln!("ralph: interrupted");
            return Ok(Exit::Interrupted);
        }
        crate::fsutil::create_dir_all(&run_dir)?;
        // Step 2: load and validate (errors carry the full diagnostics).
        let (prd, bytes, fresh) = cache.load(&opts.prd_path)?;
        if good.as_deref() != Some(&*bytes) || !guard::good_copy(&state).exists() {
            // The copy a failed write falls back to (see `guard`); written while there is room.
            crate::fsutil::atomic_write(&guard::good_copy(&state), &bytes)?;
            good = Some(bytes.clone());
        }
        // Step 3: archive on a branch change (the branch only changes with the file).
        let branch = prd
            .value
            .get("branchName")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        let paths = archive::Paths {
            root: &opts.root,
            state_dir: &state,
            progress: &progress_path,
        };
        if fresh && let Some(dir) = archive::on_branch(&paths, branch, &bytes, &jiff::Zoned::now())?
        {
            tree = None;
            crate::say!(
                "ralph: branch changed to {branch}: archived the previous run to {} and started a fresh progress.txt",
                dir.display()
            );
        }
        if let Some(line) = before_iteration(&opts.root, s) {
            // progress.txt may have been rewritten: that is ralph's change, not the next
            // agent's, so take a fresh "before".
            tree = None;
            crate::say!("ralph: {line}");
        }
        // Step 4: finished, or stuck?
        let states = graph::states(&prd.stories);
        if prd.all_done() {
            let total = prd.stories.iter().filter(|s| !s.removed).count();
            crate::say!(
                "ralph: {} ({n} iteration(s) in {})",
                crate::ui::paint(crate::ui::GOOD, &format!("all {total} stories pass")),
                ratelimit::format_elapsed(started.elapsed())
            );
            return Ok(Exit::AllDone);
        }
        let skip: HashSet<String> = skipped.keys().cloned().collect();
        // Step 5: the next story.
        let Some(i) = choose(&prd, &states, opts.story.as_deref(), &skip)? else {
            eprintln!("ralph: no ready story; unfinished stories:");
            for line in status::not_runnable(&prd.stories, &states, &skipped) {
                eprintln!("  {line}");
            }
            return Ok(Exit::NoReady);
        };
        if n >= s.iterations {
            let left = status::remaining(&prd.stories);
            eprintln!(
                "ralph: reached the iteration limit ({}); {} stor{} remain:",
                s.iterations,
                left.len(),
                if left.len() == 1 { "y" } else { "ies" }
            );
            for l in left {
                eprintln!("  {l}");
            }
            return Ok(Exit::Limit);
        }
        let story = prd.stories[i].clone();
        let attempt = attempts.get(&story.id).copied().unwrap_or(0) + 1;
        tracing::debug!(story = %story.id, attempt, skipped = skip.len(), "next story");
        crate::say!(
            "ralph [{}/{}] {} {} (attempt {attempt}): starting {}",
            n + 1,
            s.iterations,
            story.id,
            story.title,
            opts.agent.kind.name()
        );
        let t0 = Instant::now();
        let done = iteration::run_one(iteration::Input {
            opts,
            run_id: &run_id,
            run_dir: &run_dir,
            interrupt,
            prd: &prd,
            prd_bytes: &bytes,
            story: &story,
            n: n + 1,
            attempt,
            retry: retries.get(&story.id),
            before: tree.take(),
        })?;
        tree = done.after.clone();
        // The agent may have deleted `.ralph/` (the lock does not live there): ralph's own
        // state goes on being written.
        crate::fsutil::create_dir_all(&run_dir)?;
        if let Some((p, b)) = done.changed {
            archive::remember_prd(&state, &b)?;
            cache.set(p, b);
        }
        let mut record = done.record;
        if done.outcome == Outcome::RateLimited {
            iteration::record(&opts.root, &record)?;
            let line = done.rate_line.unwrap_or_default();
            limit_streak += 1;
            if s.no_wait {
                return Err(RunError::RateLimited { line });
            }
            if limit_streak >= MAX_RATE_LIMIT_WAITS {
                return Err(RunError::RateLimitedTooOften { line });
            }
            let now = jiff::Zoned::now();
            let wait = ratelimit::plan(&line, &now, limit_streak - 1);
            let mut d = wait.duration_from(&now);
            if let Some(cap) = s.max_wait {
                d = d.min(cap);
            }
            let label = match &wait {
                ratelimit::Wait::Until(z) => format!(
                    "ralph: rate limited ({line}); waiting until {}",
                    z.strftime("%H:%M %Z")
                ),
                ratelimit::Wait::Backoff(_) => {
                    format!("ralph: rate limited ({line}); backing off")
                }
            };
            crate::say!("{label}; this iteration does not count");
            tree = None;
            if signals::countdown(d, interrupt, "ralph: waiting") {
                eprintln!("ralph: interrupted");
                return Ok(Exit::Interrupted);
            }
            continue;
        }
        limit_streak = 0;
        n += 1;
        attempts.insert(story.id.clone(), attempt);
        match done.retry {
            Some(r) => retries.insert(story.id.clone(), r),
            None => retries.remove(&story.id),
        };
        if let Some(k) = strikes.record(&story.id, done.outcome, done.progress) {
            record.skipped = true;
            skipped.insert(
                story.id.clone(),
                format!("no progress in {k} attempts in a row (no commit, no file change, no passes flip)"),
            );
            crate::say!(
                "ralph: skipping {} for the rest of this run: no progress in {k} attempts in a row",
                story.id
            );
        }
        iteration::record(&opts.root, &record)?;
        crate::say!(
            "{}",
            status::status_line(
                n,
                s.iterations,
                &story,
                t0.elapsed(),
                done.outcome,
                &done.extra
            )
        );
        if done.outcome == Outcome::Interrupted {
            eprintln!("ralph: interrupted; history written, lock released");
            return Ok(Exit::Interrupted);
        }
        // Step 10: sleep unless the next check will stop anyway.
        if n < s.iterations && !done.all_done && signals::sleep(s.sleep, interrupt) {
            eprintln!("ralph: interrupted");
            return Ok(Exit::Interrupted);
        }
    }
}
