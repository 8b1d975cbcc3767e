//! `ralph run` and `ralph demo` (owned by the loop work; placeholder until it lands).

use clap::Args;
use std::path::PathBuf;

use super::Ctx;
use crate::exit::Code;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Maximum number of iterations.
    pub iterations: Option<u32>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to create the demo project (default: a new temp dir).
    pub dir: Option<PathBuf>,
}

pub fn run(_ctx: &Ctx, _args: RunArgs) -> anyhow::Result<Code> {
    anyhow::bail!("ralph run is not built yet")
}

pub fn demo(_ctx: &Ctx, _args: DemoArgs) -> anyhow::Result<Code> {
    anyhow::bail!("ralph demo is not built yet")
}
