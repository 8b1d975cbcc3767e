//! Commands about ralph itself: `ralph completions <shell>` (clap_complete), `ralph man`
//! (clap_mangen) and `ralph instructions` (the built-in instructions, to copy and customise).
//! Each prints to stdout; a closed pipe ends it quietly. Does not own the command line (see
//! `help.rs`) nor the instructions (see `crate::context::instructions`).

use anyhow::Context;
use clap::Args;

use super::ctx::Ctx;
use crate::agent::AgentKind;
use crate::config::{self, Layer};
use crate::context::Flavour;
use crate::exit::Code;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {}

#[derive(Debug, Args)]
pub struct InstructionsArgs {
    /// The agent whose built-in instructions to print: claude, codex, amp, copilot, gemini,
    /// opencode, custom (default: the agent `ralph run` would use).
    #[arg(long, visible_alias = "tool", value_name = "NAME")]
    pub agent: Option<String>,
    /// Print the reviewer's instructions (`ralph run --review`) instead.
    #[arg(long, conflicts_with = "agent")]
    pub reviewer: bool,
}

/// Write to stdout; a closed pipe (`ralph man | head`) is not an error.
fn emit(bytes: &[u8]) -> anyhow::Result<Code> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write to stdout")
        }
        _ => Ok(Code::OK),
    }
}

pub(crate) fn completions(args: CompletionsArgs, mut cmd: clap::Command) -> anyhow::Result<Code> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "ralph", &mut out);
    emit(&out)
}

pub(crate) fn man(_args: ManArgs, cmd: clap::Command) -> anyhow::Result<Code> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .context("cannot render the man page")?;
    emit(&out)
}

/// `--agent NAME` (or `--tool NAME`) as an agent preset, with the list of names when unknown.
pub(crate) fn parse_agent(flag: &str, name: &str) -> anyhow::Result<AgentKind> {
    AgentKind::from_name(name).ok_or_else(|| {
        anyhow::anyhow!(
            "{flag} {name}: unknown agent{}; use one of {}",
            AgentKind::did_you_mean(name),
            AgentKind::list()
        )
    })
}

pub(crate) fn instructions(ctx: &Ctx, args: InstructionsArgs) -> anyhow::Result<Code> {
    let flags = Layer {
        agent: args
            .agent
            .as_deref()
            .map(|n| parse_agent("--agent", n))
            .transpose()?,
        ..Layer::default()
    };
    let settings = ctx.settings(&flags)?;
    if args.reviewer {
        return reviewer_instructions(ctx, &settings);
    }
    let flavour = Flavour::for_agent(settings.agent.name());
    let fork = crate::context::instructions::override_path(&ctx.root, flavour);
    if let Some(own) = &settings.context.instructions {
        crate::say!(
            "note: this project's prompts use {} ([agent] instructions in ralph.toml), not these",
            own.display()
        );
    } else if fork.exists() {
        crate::say!(
            "note: this project's prompts use {}, not these",
            fork.display()
        );
    }
    emit(flavour.embedded().as_bytes())
}

/// `ralph instructions --reviewer`: the built-in reviewer instructions, and a note when the
/// project's reviews use its own.
fn reviewer_instructions(ctx: &Ctx, settings: &config::Settings) -> anyhow::Result<Code> {
    use crate::context::instructions::{REVIEWER, reviewer_override_path};
    let fork = reviewer_override_path(&ctx.root);
    if let Some(own) = &settings.review.instructions {
        crate::say!(
            "note: this project's reviews use {} ([review] instructions in ralph.toml), not these",
            own.display()
        );
    } else if fork.exists() {
        crate::say!(
            "note: this project's reviews use {}, not these",
            fork.display()
        );
    }
    emit(REVIEWER.as_bytes())
}
