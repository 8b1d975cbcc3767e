//! The pure prompt assembler: plain inputs in, the prompt and an account of what was kept out.
//!
//! Owns the policy: the section order (instructions, story, steering notes, dependency outputs,
//! where to look, Codebase Patterns, errors seen before, Pin entries, recent progress, remaining
//! stories), the zones (at 60% of the budget spec excerpts shrink, at 75% lower-ranked Pin
//! entries keep only name and files, at 85% recent progress and the errors seen before go, at
//! 95% only instructions + story + steering + patterns remain; steering notes keep the newest
//! that fit an eighth of the budget, and give way after the patterns when even that is too
//! much), and the hard invariant:
//! the prompt's estimate never exceeds the budget. Every input text is redacted first.
//! Reads no files: gathering the inputs is [`super::gather`]'s job.

use super::account::{
    Assembled, ErrorPatternAccount, FileAccount, PinAccount, PinStatus, SectionAccount, Status,
};
use super::budget::{self, Zone};
use super::error::ContextError;
use super::files::file_plan;
use super::inputs::Inputs;
use super::options::Options;
use super::redact::Redactions;
use super::render;

mod build;
mod fit;
mod part;
mod prepared;

use build::{build, core_story};
use part::{Part, chars};
use prepared::Prepared;

/// Build the prompt for one story under `opts.budget` tokens.
///
/// Errors only when the instructions and the story alone (sections 1-2, never dropped) exceed
/// the budget. Deterministic: the same inputs always give the byte-identical prompt.
pub(crate) fn assemble(inputs: &Inputs, opts: &Options) -> Result<Assembled, ContextError> {
    let max = budget::max_chars(opts.budget);
    let p = Prepared::new(inputs, opts, max / 8);

    let over = |instructions: usize, story: usize| ContextError::OverBudget {
        story: inputs.story.id.clone(),
        instructions: budget::tokens_for_chars(instructions),
        story_tokens: budget::tokens_for_chars(story),
        budget: opts.budget,
    };
    let core_instr = chars(&render::instructions(&p.instructions));
    let core_story = chars(&core_story(&p).text);
    if core_instr + core_story > max {
        return Err(over(core_instr, core_story));
    }

    let (level, mut parts, pin_status) = reduce(&p, opts);
    fit::patterns(&mut parts, &p, max);
    fit::steering(&mut parts, &p, max);

    let prompt: String = parts.iter().map(|x| x.text.as_str()).collect();
    let tokens = budget::estimate(&prompt);
    if tokens > opts.budget {
        // Unreachable by construction (core fits, and fit_patterns trims the rest); kept so the
        // invariant holds even if a future change breaks the arithmetic.
        return Err(over(core_instr, core_story));
    }
    Ok(Assembled {
        story: inputs.story.id.clone(),
        budget: opts.budget,
        tokens,
        zone: Zone::of(tokens, opts.budget),
        reduced_for: Zone::ALL[level.min(4)],
        sections: section_accounts(&parts, opts.budget),
        keywords: inputs.keywords.clone(),
        files: file_accounts(inputs, &p, level),
        pins: pin_accounts(&p, &pin_status),
        error_patterns: error_pattern_accounts(inputs, &parts),
        warnings: inputs.notes.clone(),
        redactions: kept_redactions(&p, &parts),
        prompt,
    })
}

/// The lowest reduction level whose prompt stays in its zone (or the critical one), with its
/// sections and Pin fates.
fn reduce(p: &Prepared, opts: &Options) -> (usize, Vec<Part>, Vec<PinStatus>) {
    let mut level = 0;
    loop {
        let (parts, pins) = build(p, opts, level);
        let total: usize = parts.iter().map(|x| chars(&x.text)).sum();
        let zone = Zone::of(budget::tokens_for_chars(total), opts.budget);
        if zone.level() <= level || level >= Zone::Critical.level() {
            return (level, parts, pins);
        }
        level += 1;
    }
}

/// Each section's size, and the zone the prompt is in where it ends.
fn section_accounts(parts: &[Part], budget_tokens: usize) -> Vec<SectionAccount> {
    let mut so_far = 0;
    parts
        .iter()
        .map(|x| {
            so_far += chars(&x.text);
            SectionAccount {
                name: x.name,
                tokens: budget::estimate(&x.text),
                zone: Zone::of(budget::tokens_for_chars(so_far), budget_tokens),
                status: x.status,
            }
        })
        .collect()
}

fn shown(x: &Part) -> bool {
    matches!(x.status, Status::Kept | Status::Shortened)
}

/// The redactions of the story and of every section the prompt kept, in prompt order.
fn kept_redactions(p: &Prepared, parts: &[Part]) -> Redactions {
    let mut redactions = p.core_red.clone();
    for x in parts.iter().filter(|x| shown(x)) {
        let red = match x.name {
            "dependencies" => &p.deps_red,
            "steering" => &p.steering.red,
            "patterns" => &p.patterns_red,
            "errors" => &p.errors_red,
            "pin" => &p.pins_red,
            "files" => &p.files_red,
            "recent" => &p.recent_red,
            _ => continue,
        };
        redactions.merge(red);
    }
    redactions
}

fn pin_accounts(p: &Prepared, pin_status: &[PinStatus]) -> Vec<PinAccount> {
    p.pins
        .iter()
        .zip(pin_status)
        .enumerate()
        .map(|(i, (pp, st))| PinAccount {
            rank: i + 1,
            name: pp.hit.name.clone(),
            score: pp.hit.score,
            matched: pp.hit.matched.clone(),
            status: *st,
            cut: *st != PinStatus::Full,
        })
        .collect()
}

/// A pattern counts as shown only when its header line survived the section's cut.
fn error_pattern_accounts(inputs: &Inputs, parts: &[Part]) -> Vec<ErrorPatternAccount> {
    let errors_text = parts
        .iter()
        .find(|x| x.name == "errors" && shown(x))
        .map_or("", |x| x.text.as_str());
    inputs
        .errors
        .iter()
        .map(|c| ErrorPatternAccount {
            id: c.pattern.id.clone(),
            command: super::redact::redact(&c.pattern.command).0,
            why: c.why.text(),
            shown: header_shown(errors_text, &c.pattern.id),
        })
        .collect()
}

/// Whether the "Errors seen before" `text` still holds pattern `id`'s header line (the section
/// may have been cut after some of its patterns).
fn header_shown(text: &str, id: &str) -> bool {
    let tail = format!("(pattern {id})");
    text.lines()
        .any(|l| l.starts_with("## `") && l.ends_with(&tail))
}

/// Each ranked file, and how much of it the "where to look" section showed at `level`.
fn file_accounts(inputs: &Inputs, p: &Prepared, level: usize) -> Vec<FileAccount> {
    let plan = file_plan(level, p.files.len());
    inputs
        .files
        .iter()
        .zip(&p.files)
        .zip(&plan)
        .enumerate()
        .map(|(i, ((f, pf), k))| FileAccount {
            rank: i + 1,
            path: pf.path.clone(),
            kind: f.kind.name(),
            score: f.score,
            matched: pf.matched.clone(),
            evidence: f.evidence.clone(),
            signatures: k.map_or(0, |k| k.sigs.min(pf.sigs.len())),
            outline: k.map_or(0, |k| k.outline.min(pf.outline.len())),
            shown: k.is_some(),
        })
        .collect()
}
