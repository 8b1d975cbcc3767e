//! The integrity guard: after each agent, prd.json and progress.txt are checked against the
//! copies taken before it, and only what breaks a rule is put back. [`policy`] is the rules
//! (pure: what an agent may change), [`repair`] the I/O (re-read, repair, keep every rejected
//! version, the fallback when a write fails), [`messages`] what the person is told and ralph's
//! correction commit message.

pub(crate) mod messages;
pub(crate) mod policy;
pub(crate) mod repair;

use std::path::{Path, PathBuf};

use crate::prd::Prd;
use crate::run::error::RunError;
use crate::run::events::{Event, Reporter};

/// What the guard left after an agent: prd.json's repairs and flips, in words and values.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// The agent's edits to prd.json that were put back, in words.
    pub restored: Vec<String>,
    /// `passes` changes the agent made to existing stories (kept, or re-applied).
    pub flips: Vec<(String, bool)>,
    /// Where the agent's rejected version was kept.
    pub rejected: Option<PathBuf>,
    /// prd.json after the guard (parsed, bytes), when the agent changed it.
    pub changed: Option<(Prd, Vec<u8>)>,
}

/// The files the guard checks after the agent that worked on `story`: progress.txt (as it was
/// before: `progress_before`) and prd.json (as the loop read it: `prd`, `bytes`).
pub(crate) struct Watched<'a> {
    pub progress: &'a Path,
    pub progress_before: Option<&'a [u8]>,
    pub prd_path: &'a Path,
    pub prd: &'a Prd,
    pub bytes: &'a [u8],
    pub story: &'a str,
}

/// Step 7: progress.txt, then prd.json, each repaired if the agent broke a rule, the person
/// told what was put back.
pub(crate) fn after_attempt(
    ctx: repair::Ctx<'_>,
    w: &Watched<'_>,
    rep: &dyn Reporter,
) -> Result<Checked, RunError> {
    if let Some(p) = repair::progress_after(ctx, w.progress, w.progress_before)? {
        rep.report(Event::Note {
            text: messages::progress_restored(&p),
        });
    }
    let Some(g) = repair::after_agent(ctx, w.prd_path, w.prd, w.bytes, w.story)? else {
        return Ok(Checked::default());
    };
    if let Some(line) = messages::prd_restored(w.prd_path, &g) {
        rep.report(Event::Note { text: line });
    }
    Ok(Checked {
        restored: g.restored.iter().map(ToString::to_string).collect(),
        flips: g.flips.clone(),
        rejected: g.rejected.clone(),
        changed: Some((g.prd, g.bytes)),
    })
}

/// ralph's own `passes` values (`settle`) written into prd.json as the agent left it
/// (`changed`, else `before`); unchanged when there are none.
pub(crate) fn settle(
    ctx: repair::Ctx<'_>,
    changed: Option<(Prd, Vec<u8>)>,
    before: &Prd,
    settle: &[(String, bool)],
) -> Result<Option<(Prd, Vec<u8>)>, RunError> {
    if settle.is_empty() {
        return Ok(changed);
    }
    let mut prd = match changed {
        Some((p, _)) => p,
        None => before.clone(),
    };
    for (id, passes) in settle {
        prd.set_passes(id, *passes)?;
    }
    let bytes = repair::save_settled(ctx, &prd)?;
    Ok(Some((prd, bytes)))
}
