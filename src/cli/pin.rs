//! `ralph pin generate | check | search` (owned by the Pin work; placeholder until it lands).

use clap::{Args, Subcommand};

use super::Ctx;
use crate::exit::Code;

#[derive(Debug, Args)]
pub struct PinArgs {
    #[command(subcommand)]
    pub command: PinCommand,
}

#[derive(Debug, Subcommand)]
pub enum PinCommand {
    /// Generate or update specs/INDEX.md from the source tree.
    Generate {
        /// Write nothing; exit 1 and print a diff when the file would change.
        #[arg(long)]
        check: bool,
        /// Print the result instead of writing it.
        #[arg(long)]
        stdout: bool,
    },
    /// Validate specs/INDEX.md: paths, spec links, names, keyword counts.
    Check,
    /// Rank Pin entries for free text.
    Search {
        /// The words to search for.
        #[arg(required = true)]
        words: Vec<String>,
        /// How many hits to print.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn pin(_ctx: &Ctx, _args: PinArgs) -> anyhow::Result<Code> {
    anyhow::bail!("ralph pin is not built yet")
}
