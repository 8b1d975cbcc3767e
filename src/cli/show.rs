//! `ralph show <story-id> [--json]`: what a story produced, or that it has not run yet. The
//! model and text are `crate::show`'s; this file reads prd.json, progress.txt and the history
//! (through [`crate::state::outputs::read`]) and prints.

use anyhow::Context as _;
use clap::Args;

use super::Ctx;
use super::envelope::{Envelope, Problem};
use crate::exit::Code;
use crate::prd::Prd;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The story to show.
    pub story_id: String,
    /// Print the account as the JSON envelope.
    #[arg(long)]
    pub json: bool,
}

pub fn show(ctx: &Ctx, args: ShowArgs) -> anyhow::Result<Code> {
    let prd = Prd::load(&ctx.prd_path)
        .with_context(|| format!("cannot use {}", ctx.prd_path.display()))?;
    let story = crate::context::find_story(&prd, &args.story_id)?;
    let states = crate::graph::states(&prd.stories);
    let (outputs, skipped) = crate::state::outputs::read(&ctx.root, &story.id)?;
    let show = crate::show::build(story, &states[story.index], &outputs);
    if args.json {
        let warning = (skipped > 0).then(|| {
            Problem::new(
                "history-skipped",
                format!("{skipped} line(s) are not history records and were skipped"),
            )
            .file(crate::state::history::path(&ctx.root).display())
        });
        Envelope::new("show", &show).warnings(warning).emit()?;
        return Ok(Code::OK);
    }
    if skipped > 0 {
        crate::say!("warning: {skipped} line(s) of the history are not records and were skipped");
    }
    super::pin::emit(&crate::show::text(&show))?;
    Ok(Code::OK)
}
