//! Command-line interface: the clap types and one handler per command.
//!
//! This is the edge of the library: handlers use `anyhow` with `.context()`, print for humans or
//! as JSON, and return an exit [`Code`]. Policy lives in the domain modules, never here.
//! Each command group has its own file: `prd.rs` (validate, status, next, graph), `pin.rs`,
//! `compact.rs`, `clean.rs`, `run.rs` (run, demo), `context.rs`, `prd_file.rs` (prd convert, prd import),
//! `init.rs`, `report.rs`, `show.rs`, `patterns.rs`, `doctor.rs`, `steer.rs` (pause, resume, steer, skip,
//! retry: requests to a live run), `meta.rs` (completions, man, instructions); `help.rs` holds every command's
//! examples ([`command`] attaches them); `envelope/` is the JSON envelope every `--json`
//! output and error shares (a usage error with `--json` too: [`envelope::usage_error`]).
//! This file is the roof: the clap types ([`Cli`], [`Command`]), [`parse`], [`json_command`] and
//! [`dispatch`]; the handlers import only the leaves `ctx.rs` ([`Ctx`]) and `stdout.rs`, never it.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

use crate::exit::Code;

pub(crate) mod clean;
pub(crate) mod compact;
pub(crate) mod context;
mod ctx;
pub(crate) mod doctor;
pub mod envelope;
pub(crate) mod help;
pub(crate) mod init;
pub(crate) mod meta;
mod no_pin;
pub(crate) mod patterns;
pub(crate) mod pin;
pub(crate) mod prd;
pub(crate) mod prd_file;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod show;
mod stdout;
pub(crate) mod steer;

pub(crate) use ctx::Ctx;

/// Run an AI coding agent in a loop until prd.json is done.
#[derive(Debug, Parser)]
#[command(name = "ralph", version, about, long_about = None)]
pub struct Cli {
    /// Project root (where prd.json, progress.txt, specs/ and .ralph/ live).
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The prd.json to use (default: <root>/prd.json).
    #[arg(long, global = true, value_name = "FILE")]
    pub prd: Option<PathBuf>,
    /// When to colour the output (auto: on a terminal, unless NO_COLOR is set).
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = clap::ColorChoice::Auto)]
    pub color: clap::ColorChoice,
    /// Print only results and errors: no notes, warnings or progress lines.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print debug events on stderr (-vv: trace); RALPH_LOG=debug does the same.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check prd.json: schema, ids, dependencies, cycles (for pre-commit).
    Validate(prd::ValidateArgs),
    /// Show every story's state: done, ready, blocked, removed.
    Status(prd::StatusArgs),
    /// Show the story the loop would run next.
    Next(prd::NextArgs),
    /// Print the dependency graph (dot or mermaid).
    Graph(prd::GraphArgs),
    /// Run the agent loop for up to N iterations.
    Run(run::RunArgs),
    /// Create an example project and run the full loop on it with a scripted agent.
    Demo(run::DemoArgs),
    /// Pause the live run: no new iteration, claim or attempt starts; running agents finish.
    Pause(steer::PauseArgs),
    /// Resume a paused run.
    Resume(steer::PauseArgs),
    /// Add a note to the live run's next prompts (one story's, or every story's).
    Steer(steer::SteerArgs),
    /// Hold a story for the rest of the live run.
    Skip(steer::StoryArgs),
    /// Release a story the live run holds, so it can run again.
    Retry(steer::StoryArgs),
    /// Report a run story by story: iterations, time, outcome, verify, tokens, cost.
    Report(report::ReportArgs),
    /// Show what a story produced: attempts, commits, files, progress entry, verify, time.
    Show(show::ShowArgs),
    /// Print the exact prompt the loop would send for a story.
    Context(context::ContextArgs),
    /// List the error patterns learned from verify failures, or forget one.
    Patterns(patterns::PatternsArgs),
    /// Compact progress.txt without losing anything.
    Compact(compact::CompactArgs),
    /// Check that the agent CLI, git, the verify commands and the project are ready for a run.
    Doctor(doctor::DoctorArgs),
    /// Remove old run folders, rejected copies and archives (`ralph run` does it at its start).
    Clean(clean::CleanArgs),
    /// The Pin (specs/INDEX.md): generate, check, search.
    Pin(pin::PinArgs),
    /// Write prd.json: convert a dialect to the canonical form, import a markdown PRD.
    Prd(prd_file::PrdArgs),
    /// Set ralph up in an existing project: prd.json, ralph.toml, the Pin, .gitignore.
    Init(init::InitArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(meta::CompletionsArgs),
    /// Print the man page (roff) to stdout.
    Man(meta::ManArgs),
    /// Print the built-in agent instructions, to copy and customise.
    Instructions(meta::InstructionsArgs),
}

impl Command {
    /// Commands that supervise child processes (`run`, `demo`, `compact` with an agent
    /// summarizer): a closed pipe to a child must be a write error, never kill ralph before it
    /// has stopped the child and released the lock.
    pub fn supervises(&self) -> bool {
        match self {
            Command::Run(a) => !a.dry_run,
            Command::Demo(_) => true,
            Command::Compact(a) => a.summarizer == compact::SummarizerKind::Agent,
            _ => false,
        }
    }
}

impl Cli {
    /// The verbosity `-q` and `-v` ask for.
    pub fn verbosity(&self) -> crate::ui::Verbosity {
        crate::ui::Verbosity::from_flags(self.quiet, self.verbose)
    }
}

/// Where the command works, from the global options.
fn ctx_of(cli: &Cli) -> Ctx {
    let prd_path = cli.prd.clone().unwrap_or_else(|| cli.root.join("prd.json"));
    Ctx {
        root: cli.root.clone(),
        prd_path,
    }
}

/// The whole command line: the derived [`Cli`] with every command's examples ([`help`]).
pub fn command() -> clap::Command {
    help::with_examples(<Cli as clap::CommandFactory>::command())
}

/// Parse the command line. A usage error when `--json` is among the arguments is an envelope on
/// stdout (code `usage`, exit 2; [`envelope::usage_error`]); everything else (help, version,
/// usage errors without `--json`) is clap's own.
pub fn parse() -> Cli {
    use clap::FromArgMatches;
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = command()
        .try_get_matches_from(&args)
        .and_then(|m| Cli::from_arg_matches(&m));
    match parsed {
        Ok(cli) => cli,
        Err(e) => envelope::usage_error(&args, e),
    }
}

/// The command name for the envelope when `--json` was asked for, else `None`.
pub fn json_command(cmd: &Command) -> Option<&'static str> {
    match cmd {
        Command::Validate(a) if a.json => Some("validate"),
        Command::Status(a) if a.json => Some("status"),
        Command::Next(a) if a.json => Some("next"),
        Command::Graph(a) if a.json => Some("graph"),
        Command::Context(a) if a.json => Some("context"),
        Command::Report(a) if a.json => Some("report"),
        Command::Show(a) if a.json => Some("show"),
        Command::Patterns(a) => match &a.command {
            Some(patterns::PatternsCommand::Forget { json: true, .. }) => Some("patterns forget"),
            None if a.json => Some("patterns"),
            _ => None,
        },
        Command::Compact(a) if a.json => Some("compact"),
        Command::Clean(a) if a.json => Some("clean"),
        Command::Doctor(a) if a.json => Some("doctor"),
        Command::Pause(a) if a.json => Some("pause"),
        Command::Resume(a) if a.json => Some("resume"),
        Command::Steer(a) if a.json => Some("steer"),
        Command::Skip(a) if a.json => Some("skip"),
        Command::Retry(a) if a.json => Some("retry"),
        // A run streams events; an error that stops it is the envelope, on the last line.
        Command::Run(a) if a.json => Some("run"),
        Command::Pin(p) => match &p.command {
            pin::PinCommand::Search { json: true, .. } => Some("pin search"),
            pin::PinCommand::Check { json: true } => Some("pin check"),
            _ => None,
        },
        _ => None,
    }
}

/// Run the parsed command.
pub fn dispatch(cli: Cli) -> anyhow::Result<Code> {
    let ctx = ctx_of(&cli);
    match cli.command {
        Command::Validate(a) => prd::validate(&ctx, a),
        Command::Status(a) => prd::status(&ctx, a),
        Command::Next(a) => prd::next(&ctx, a),
        Command::Graph(a) => prd::graph(&ctx, a),
        Command::Run(a) => run::run(&ctx, a),
        Command::Demo(a) => run::demo(&ctx, a),
        Command::Pause(a) => steer::pause(&ctx, a),
        Command::Resume(a) => steer::resume(&ctx, a),
        Command::Steer(a) => steer::steer(&ctx, a),
        Command::Skip(a) => steer::skip(&ctx, a),
        Command::Retry(a) => steer::retry(&ctx, a),
        Command::Report(a) => report::report(&ctx, a),
        Command::Show(a) => show::show(&ctx, a),
        Command::Context(a) => context::context(&ctx, a),
        Command::Patterns(a) => patterns::patterns(&ctx, a),
        Command::Compact(a) => compact::compact(&ctx, a),
        Command::Clean(a) => clean::clean(&ctx, a),
        Command::Doctor(a) => doctor::doctor(&ctx, a),
        Command::Pin(a) => pin::pin(&ctx, a),
        Command::Prd(a) => prd_file::prd(&ctx, a),
        Command::Init(a) => init::init(&ctx, a),
        Command::Completions(a) => meta::completions(a, command()),
        Command::Man(a) => meta::man(a, command()),
        Command::Instructions(a) => meta::instructions(&ctx, a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use help::EXAMPLES;

    fn walk<'a>(cmd: &'a clap::Command, path: &mut Vec<&'a str>, out: &mut Vec<String>) {
        if cmd.get_after_help().is_none() {
            out.push(format!("ralph {}", path.join(" ")));
        }
        for sub in cmd.get_subcommands() {
            path.push(sub.get_name());
            walk(sub, path, out);
            path.pop();
        }
    }

    #[test]
    fn every_command_has_examples() {
        let cmd = command();
        cmd.clone().debug_assert();
        let mut missing = vec![];
        walk(&cmd, &mut vec![], &mut missing);
        assert!(missing.is_empty(), "no examples: {missing:?}");
        assert_eq!(
            EXAMPLES.len(),
            1 + cmd
                .get_subcommands()
                .map(|s| 1 + s.get_subcommands().count())
                .sum::<usize>(),
            "one entry per command, no stale ones"
        );
    }
}
