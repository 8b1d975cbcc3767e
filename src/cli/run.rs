//! `ralph run` and `ralph demo`: flags, settings precedence (CLI > RALPH_* env > ralph.toml >
//! defaults), `--dry-run` output, and exit codes. The loop itself is `crate::run`.

use anyhow::Context;
use clap::Args;
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use super::ctx::Ctx;
use crate::agent::{AgentKind, AgentSpec, PromptMode};
use crate::config::{self, Layer};
use crate::exit::Code;
use crate::run::wait::signals;
use crate::run::{self, Options, demo};

fn duration(s: &str) -> Result<Duration, String> {
    config::parse_duration(s)
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Maximum number of iterations (default 10; rate-limited attempts do not count).
    #[arg(value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: Option<u32>,
    /// The agent CLI to run (default claude); --tool is the same, as in the original Ralph.
    #[arg(long, value_enum, visible_alias = "tool")]
    pub agent: Option<AgentKind>,
    /// A custom agent command, split like a shell would but never run by one (implies --agent custom).
    #[arg(long, value_name = "CMD")]
    pub agent_cmd: Option<String>,
    /// How the prompt reaches the agent (default: the preset's; stdin for custom).
    #[arg(long, value_enum)]
    pub prompt_mode: Option<PromptMode>,
    /// Run this story (it must be ready) before any other.
    #[arg(long, value_name = "ID")]
    pub story: Option<String>,
    /// A command that must exit 0 before a story counts as done (repeatable; run with sh -c).
    #[arg(long, value_name = "CMD")]
    pub verify: Vec<String>,
    /// Once a story's gate passes, its test-file changes alone, on the story's base commit in
    /// a scratch worktree, must fail its verify commands ([verify] red_green; a story's
    /// "redGreen" overrides).
    #[arg(long)]
    pub red_green: bool,
    /// Per-iteration time limit, e.g. 45m, 1h30m, 600 (default 60m).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub timeout: Option<Duration>,
    /// Pause between iterations (default 2s).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub sleep: Option<Duration>,
    /// Skip a story after this many iterations in a row without progress (default 3).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_failures: Option<u32>,
    /// On a usage/rate limit, exit 1 instead of waiting for the reset.
    #[arg(long)]
    pub no_wait: bool,
    /// Print the chosen story, the exact prompt and argv; change nothing, run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Start even with uncommitted changes in the git work tree (the agent's first commit may
    /// include them).
    #[arg(long)]
    pub allow_dirty: bool,
    /// Skip `ralph doctor`'s checks before the first agent (the CLI's version is still read,
    /// to pick its flags); [run] preflight = false in ralph.toml.
    #[arg(long)]
    pub no_preflight: bool,
    /// Do not compact progress.txt before iterations.
    #[arg(long)]
    pub no_compact: bool,
    /// Report the run as JSON lines on stdout (one event per line, for tools); the agent's
    /// output then goes to its iteration log only.
    #[arg(long)]
    pub json: bool,
    /// Stop before the next iteration once the agents have reported this many US dollars spent
    /// in this run (exit 5); needs an agent that reports its cost (claude, opencode).
    #[arg(long, value_name = "USD", value_parser = dollars)]
    pub max_cost: Option<config::Dollars>,
    /// Token budget for each prompt (default 24000, or [context] budget in ralph.toml).
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// Run up to K ready stories at once, each in its own git worktree, merged one at a time
    /// (default 1: one story at a time in the main tree; [run] parallel in ralph.toml).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub parallel: Option<u32>,
    /// With --parallel: two stories whose predicted files overlap this much (0 to 1, default
    /// 0.5) run one after the other; `off` runs them at once ([run] conflict_threshold).
    #[arg(long, value_name = "X|off", value_parser = config::ConflictThreshold::parse)]
    pub conflict_threshold: Option<config::ConflictThreshold>,
    /// With --dry-run --parallel K: the files each story is predicted to touch.
    #[arg(long, requires = "dry_run")]
    pub explain: bool,
    /// After a story passes its verify gate, a fresh agent reviews its diff against the
    /// acceptance criteria; CHANGES sends it back ([review] in ralph.toml).
    #[arg(long)]
    pub review: bool,
    /// The reviewer's agent (default: the run's agent; implies --review).
    #[arg(long, value_enum, value_name = "NAME")]
    pub review_agent: Option<AgentKind>,
    /// The reviewer as a custom command (implies --review).
    #[arg(long, value_name = "CMD")]
    pub review_cmd: Option<String>,
    /// Reviews a story gets in a run before it is held for a person (default 2).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub review_rounds: Option<u32>,
    /// Time between SIGTERM and SIGKILL when stopping the agent (default 10s).
    #[arg(long, value_name = "DURATION", value_parser = duration, hide = true)]
    pub grace: Option<Duration>,
    /// Cap on one rate-limit wait (tests).
    #[arg(long, value_name = "DURATION", value_parser = duration, hide = true)]
    pub max_wait: Option<Duration>,
    /// Time between two heartbeat or countdown lines when stderr is not a terminal (default
    /// 60s; tests).
    #[arg(long, value_name = "DURATION", value_parser = nonzero, hide = true)]
    pub heartbeat: Option<Duration>,
}

fn dollars(s: &str) -> Result<config::Dollars, String> {
    config::Dollars::parse(s)
}

fn nonzero(s: &str) -> Result<Duration, String> {
    match config::parse_duration(s)? {
        d if d.is_zero() => Err(format!("\"{s}\" is zero; use e.g. 1s")),
        d => Ok(d),
    }
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to create the demo project (default: a new temp dir).
    pub dir: Option<PathBuf>,
    /// Act as the demo's scripted agent (started by the demo itself).
    #[arg(long, hide = true)]
    pub scripted_agent: bool,
}

impl RunArgs {
    fn layer(&self) -> Layer {
        Layer {
            agent: self.agent,
            agent_cmd: self.agent_cmd.clone(),
            prompt_mode: self.prompt_mode,
            iterations: self.iterations,
            timeout: self.timeout,
            sleep: self.sleep,
            max_failures: self.max_failures,
            no_wait: self.no_wait.then_some(true),
            compact: self.no_compact.then_some(false),
            parallel: self.parallel,
            conflict_threshold: self.conflict_threshold,
            allow_dirty: self.allow_dirty.then_some(true),
            preflight: self.no_preflight.then_some(false),
            verify: (!self.verify.is_empty()).then(|| self.verify.clone()),
            red_green: self.red_green.then_some(true),
            grace: self.grace,
            max_wait: self.max_wait,
            max_cost: self.max_cost,
            heartbeat: self.heartbeat,
            context_budget: self.budget,
            review: (self.review || self.review_agent.is_some() || self.review_cmd.is_some())
                .then_some(true),
            review_agent: self.review_agent,
            review_cmd: self.review_cmd.clone(),
            review_max_rounds: self.review_rounds,
            ..Layer::default()
        }
    }
}

fn options(ctx: &Ctx, args: &RunArgs) -> anyhow::Result<Options> {
    let settings = ctx.settings(&args.layer())?;
    let agent = AgentSpec::resolve(
        settings.agent,
        settings.agent_cmd.as_deref(),
        settings.prompt_mode,
    )?;
    let reviewer = reviewer(&settings)?;
    Ok(Options {
        root: ctx.root.clone(),
        prd_path: ctx.prd_path.clone(),
        agent,
        reviewer,
        story: args.story.clone(),
        echo: !args.json,
        env: vec![],
        reporter: run::events::hooks::Hooked::wrap(
            if args.json {
                std::sync::Arc::new(run::events::JsonLines::new(std::io::stdout()))
            } else {
                std::sync::Arc::new(run::events::Terminal)
            },
            &settings.hooks,
            &ctx.root,
            &ctx.prd_path,
        ),
        settings,
    })
}

/// The reviewer, when `--review` / `[review] enabled`: its own preset or command, else the
/// run's agent (with the run's command, when that is custom).
fn reviewer(settings: &config::Settings) -> anyhow::Result<Option<AgentSpec>> {
    let r = &settings.review;
    if !r.enabled {
        return Ok(None);
    }
    let spec = match (r.agent, &r.cmd) {
        (_, Some(cmd)) => AgentSpec::resolve(AgentKind::Custom, Some(cmd), None),
        (Some(kind), None) => AgentSpec::resolve(kind, None, None),
        (None, None) => AgentSpec::resolve(
            settings.agent,
            settings.agent_cmd.as_deref(),
            settings.prompt_mode,
        ),
    };
    Ok(Some(spec.context(
        "the reviewer ([review] in ralph.toml, --review-agent)",
    )?))
}

/// `--dry-run --parallel K`: the waves the run would go in, why a story waits for another,
/// the first wave's worktrees and branches, the kept work it would resume; with `explain`,
/// each story's predicted files.
fn print_parallel_plan(opts: &Options, explain: bool) -> anyhow::Result<()> {
    let prd = crate::prd::Prd::load(&opts.prd_path)
        .with_context(|| format!("cannot use {}", opts.prd_path.display()))?;
    let s = &opts.settings;
    let threshold = s.conflict_threshold.value();
    let plan = run::parallel::conflicts::plan(
        &opts.root,
        &prd,
        s.parallel as usize,
        threshold,
        opts.story.as_deref(),
    );
    let rule = threshold.map_or_else(
        || "conflict-awareness off: stories run at once whatever files they touch".to_string(),
        |t| format!("a story waits while a claim's predicted files overlap its own by {t:.2} or more (--conflict-threshold)"),
    );
    println!("parallel: up to {} stories at once; {rule}", s.parallel);
    for (n, w) in plan.waves.iter().enumerate() {
        println!("wave {}: {}", n + 1, w.stories.join(", "));
        for wait in &w.waits {
            println!(
                "  {} waits for {}: both would touch {} (overlap {:.2})",
                wait.story, wait.with, wait.overlap.file, wait.overlap.score
            );
        }
    }
    let branch = prd
        .value
        .get("branchName")
        .and_then(|b| b.as_str())
        .unwrap_or("");
    let ids: Vec<&str> = prd.stories.iter().map(|s| s.id.as_str()).collect();
    let keys: std::collections::HashMap<String, String> = ids
        .iter()
        .map(|s| s.to_string())
        .zip(crate::kept::story_keys(&ids))
        .collect();
    if let Some(first) = plan.waves.first() {
        println!("wave 1's worktrees:");
        for id in &first.stories {
            let key = keys.get(id).cloned().unwrap_or_default();
            println!(
                "  {id}: {} on {}",
                crate::state::worktrees_dir(std::path::Path::new(""))
                    .join(&key)
                    .display(),
                crate::kept::story_branch(branch, &key)
            );
        }
    }
    print_resumable(opts, branch, keys);
    if explain {
        println!("predicted files (named in the story, or ranked for it, with their weight):");
        for (id, p) in &plan.predictions {
            println!("  {id}: {}", p.describe());
        }
    }
    Ok(())
}

/// The story branches an earlier run left with work the branch lacks: the run resumes them.
fn print_resumable(opts: &Options, branch: &str, keys: std::collections::HashMap<String, String>) {
    let by_key = keys.into_iter().map(|(id, k)| (k, id)).collect();
    for k in crate::kept::git::list(&opts.root, branch, &by_key) {
        if k.kind == crate::kept::Kind::StoryBranch && k.ahead > 0 {
            println!(
                "resumes: {} on {} ({} commit(s) of an earlier run)",
                k.story.as_deref().unwrap_or("?"),
                k.short(),
                k.ahead
            );
        }
    }
}

fn print_dry_run(
    opts: &Options,
    findings: &[crate::doctor::Finding],
    explain: bool,
) -> anyhow::Result<Code> {
    // A dry run writes nothing, not even the code index cache.
    let mut opts = opts.clone();
    opts.settings.context.save_index = false;
    let opts = &opts;
    let plan =
        run::dry_run(opts).with_context(|| format!("cannot use {}", opts.prd_path.display()))?;
    let Some((id, title)) = &plan.story else {
        return Ok(print_nothing_to_run(&plan));
    };
    println!("story: {id} {title}");
    print_agent(opts, &plan);
    let s = &opts.settings;
    for l in &plan.git {
        println!("{l}");
    }
    if let Some(l) = &plan.clean {
        println!("{l}");
    }
    if !plan.verify.is_empty() {
        println!("verify: {}", plan.verify.join(" && "));
    }
    if let Some(rg) = &plan.red_green {
        println!("{rg}");
    }
    if s.parallel >= 2 {
        print_parallel_plan(opts, explain)?;
    }
    if let Some(r) = &opts.reviewer {
        println!(
            "review: by {} after the gate, up to {} round(s) before a story is held",
            r.kind.name(),
            s.review.max_rounds
        );
    }
    print_preflight(findings);
    println!("--- prompt ---");
    print!("{}", plan.prompt);
    Ok(Code::OK)
}

/// A dry run with no story to run: the git and clean lines, and why nothing runs.
fn print_nothing_to_run(plan: &run::Plan) -> Code {
    for l in plan.git.iter().chain(&plan.clean) {
        println!("{l}");
    }
    if plan.all_done {
        println!("nothing to run: every story passes");
        return Code::OK;
    }
    println!("nothing to run: no ready story");
    for l in &plan.not_runnable {
        println!("  {l}");
    }
    Code::NO_READY
}

/// The dry run's agent, its command line, how the prompt reaches it, and the run's limits.
fn print_agent(opts: &Options, plan: &run::Plan) {
    match &plan.located {
        Ok(p) => println!("agent: {} ({})", opts.agent.kind.name(), p.display()),
        Err(e) => println!("agent: {} (warning: {e})", opts.agent.kind.name()),
    }
    println!("argv: {}", shell_words::join(&plan.invocation.argv));
    match (&plan.invocation.stdin, &plan.invocation.prompt_file) {
        (Some(_), _) => println!("prompt: on stdin, {} bytes", plan.prompt.len()),
        (None, Some(f)) => println!(
            "prompt: in the file {} ({} bytes)",
            f.display(),
            plan.prompt.len()
        ),
        (None, None) => println!("prompt: as an argument, {} bytes", plan.prompt.len()),
    }
    let s = &opts.settings;
    println!(
        "limits: {} iterations, timeout {}, sleep {}, skip after {} without progress{}",
        s.iterations,
        run::events::durations::format_remaining(s.timeout),
        run::events::durations::format_remaining(s.sleep),
        s.max_failures,
        s.max_cost
            .map(|c| format!(", stop at ${:.2} reported cost", c.usd()))
            .unwrap_or_default()
    );
}

/// The preflight in a dry run: what is not ok (the whole list is `ralph doctor`'s).
fn print_preflight(findings: &[crate::doctor::Finding]) {
    use crate::doctor::Status;
    if findings.is_empty() {
        return;
    }
    let not_ok: Vec<crate::doctor::Finding> = findings
        .iter()
        .filter(|f| f.status != Status::Ok)
        .cloned()
        .collect();
    let count = |s: Status| not_ok.iter().filter(|f| f.status == s).count();
    println!(
        "preflight: {} problem(s), {} warning(s) (`ralph doctor` shows every check)",
        count(Status::Problem),
        count(Status::Warning)
    );
    for l in crate::doctor::lines(&not_ok) {
        println!("  {}", anstream::adapter::strip_str(&l));
    }
}

pub(crate) fn run(ctx: &Ctx, args: RunArgs) -> anyhow::Result<Code> {
    let mut opts = options(ctx, &args)?;
    let checked = run::start::preflight::check(&opts, opts.settings.preflight);
    opts.agent = checked.agent;
    opts.reviewer = checked.reviewer;
    if args.dry_run {
        return print_dry_run(&opts, &checked.findings, args.explain);
    }
    if let Err(e) = run::start::preflight::enforce(&opts, &checked.findings) {
        let agent = e.agent;
        let err = anyhow::Error::new(e);
        return Err(if agent {
            err.context(crate::exit::AgentStart)
        } else {
            err
        });
    }
    let flag = signals::install().context("cannot install the Ctrl-C handler")?;
    let exit = if opts.settings.parallel >= 2 {
        run::parallel::run(&opts, &flag).context("ralph run --parallel stopped")?
    } else {
        run::run(&opts, &flag).context("ralph run stopped")?
    };
    Ok(exit.code())
}

pub(crate) fn demo(_ctx: &Ctx, args: DemoArgs) -> anyhow::Result<Code> {
    if args.scripted_agent {
        let mut prompt = String::new();
        // The prompt arrives on stdin; the scripted agent only reports its size.
        let _ = std::io::stdin().read_to_string(&mut prompt);
        let story = std::env::var("RALPH_STORY_ID").map_err(|_| demo::DemoError::NoStory)?;
        let attempt = std::env::var("RALPH_ATTEMPT")
            .ok()
            .and_then(|a| a.parse().ok())
            .unwrap_or(1);
        let dir = std::env::current_dir().context("cannot read the current directory")?;
        demo::scripted_agent(&dir, &story, attempt, &prompt)?;
        return Ok(Code::OK);
    }
    let dir = match args.dir {
        Some(d) => d,
        None => tempfile::Builder::new()
            .prefix("ralph-demo-")
            .tempdir()
            .context("cannot create a temp dir for the demo")?
            .keep(),
    };
    demo::create(&dir)?;
    let pin = std::fs::read_to_string(dir.join(crate::pin::INDEX_PATH)).unwrap_or_default();
    crate::say!(
        "ralph demo: created {} (git repo, prd.json with 5 stories and dependencies)\n\
         ralph demo: its Pin ({}), the module map every prompt draws on:\n",
        dir.display(),
        crate::pin::INDEX_PATH
    );
    for line in pin.lines().filter(|l| !l.trim().is_empty()).take(24) {
        crate::say!("  | {line}");
    }
    crate::say!(
        "\nralph demo: running the loop with a scripted agent; verify gate: sh check.sh\n\
         ralph demo: each prompt's \"Where to look\" section names the files ranked for its story\n"
    );
    let exe = std::env::current_exe().context("cannot find the ralph executable")?;
    let opts = demo::options(&dir, &exe);
    let flag = signals::install().context("cannot install the Ctrl-C handler")?;
    let exit = run::run(&opts, &flag).context("ralph demo stopped")?;
    if exit == run::Exit::AllDone {
        crate::say!(
            "\nralph demo: done. Look around: cd {} && ralph status && git log --oneline",
            dir.display()
        );
    }
    Ok(exit.code())
}
