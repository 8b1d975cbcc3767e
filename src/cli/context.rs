//! `ralph context` (owned by the context-builder work; placeholder until it lands).

use clap::Args;

use super::Ctx;
use crate::exit::Code;

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The story to build the prompt for.
    pub story_id: String,
    /// Print a table of sections, token counts, zones and Pin scores.
    #[arg(long)]
    pub explain: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Token budget for the prompt.
    #[arg(long)]
    pub budget: Option<usize>,
}

pub fn context(_ctx: &Ctx, _args: ContextArgs) -> anyhow::Result<Code> {
    anyhow::bail!("ralph context is not built yet")
}
