//! `ralph compact` (owned by the compaction work; placeholder until it lands).

use clap::Args;

use super::Ctx;
use crate::exit::Code;

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Compact only when progress.txt has more lines than this.
    #[arg(long)]
    pub threshold: Option<usize>,
    /// Lines of recent entries to keep verbatim (whole entries).
    #[arg(long)]
    pub keep_recent: Option<usize>,
    /// Print the diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Compact even under the threshold.
    #[arg(long)]
    pub force: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn compact(_ctx: &Ctx, _args: CompactArgs) -> anyhow::Result<Code> {
    anyhow::bail!("ralph compact is not built yet")
}
