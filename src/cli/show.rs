//! `ralph show <story-id> [--json]`: what a story produced, or that it has not run yet. The
//! model and text are `crate::show`'s; this file reads prd.json, progress.txt and the history
//! (through [`crate::state::outputs::read`]) and prints.

use clap::Args;

use super::ctx::Ctx;
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

/// The refs keeping work of story `id` that prd.json's branch lacks, with why (none outside
/// git or without a branchName).
fn kept_work(ctx: &Ctx, prd: &Prd, id: &str) -> Vec<crate::show::KeptWork> {
    let Some(branch) = prd.value.get("branchName").and_then(|b| b.as_str()) else {
        return vec![];
    };
    let ids: Vec<&str> = prd.stories.iter().map(|s| s.id.as_str()).collect();
    let keys = crate::kept::story_keys(&ids)
        .into_iter()
        .zip(ids.iter().map(|s| s.to_string()))
        .collect();
    let items: Vec<crate::kept::Kept> = crate::kept::git::list(&ctx.root, branch, &keys)
        .into_iter()
        .filter(|k| k.story.as_deref() == Some(id))
        .collect();
    let passing = prd
        .stories
        .iter()
        .filter(|s| s.passes)
        .map(|s| s.id.clone())
        .collect();
    let fates = crate::kept::decide(&items, &passing, &[]);
    items
        .into_iter()
        .zip(fates)
        .filter_map(|(k, f)| match f {
            crate::kept::Fate::Keep(why) => Some(crate::show::KeptWork {
                why: why.text(&k, branch),
                kept: k,
            }),
            _ => None,
        })
        .collect()
}

pub(crate) fn show(ctx: &Ctx, args: ShowArgs) -> anyhow::Result<Code> {
    let prd = ctx.load_prd()?;
    let story = crate::context::find_story(&prd, &args.story_id)?;
    let states = crate::graph::states(&prd.stories);
    let (outputs, skipped) = crate::state::outputs::read(&ctx.root, &story.id)?;
    let mut show = crate::show::build(story, &states[story.index], &outputs);
    show.kept = kept_work(ctx, &prd, &story.id);
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
    super::stdout::emit(&crate::show::text(&show))?;
    Ok(Code::OK)
}
