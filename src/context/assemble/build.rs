//! The sections at a reduction level (0 = none … 4 = critical): which are kept, shortened or
//! dropped, and each Pin entry's fate. Pure; the level is chosen by [`super::assemble`].

use super::part::{Part, dropped, empty, part, shortened_if};
use super::prepared::{PrepPin, Prepared};
use crate::context::account::{PinStatus, Status};
use crate::context::files::{file_plan, files_cut};
use crate::context::options::Options;
use crate::context::render::{self, PinView};

/// The sections in prompt order at `level`, and each Pin entry's fate.
pub(super) fn build(p: &Prepared, opts: &Options, level: usize) -> (Vec<Part>, Vec<PinStatus>) {
    let (pin, pin_status) = pin_part(p, opts, level);
    let parts = vec![
        part(
            "instructions",
            render::instructions(&p.instructions),
            Status::Kept,
        ),
        core_story(p),
        steering_part(p),
        deps_part(p, level),
        files_part(p, level),
        patterns_part(p),
        // Learned error patterns go with recent progress, before the files and the story.
        errors_part(p, level),
        pin,
        recent_part(p, level),
        remaining_part(p, level),
    ];
    (parts, pin_status)
}

/// The story with its branch, checks and the last attempt's failure: kept at every level.
pub(super) fn core_story(p: &Prepared) -> Part {
    let (retry, cut) = match &p.retry {
        Some((t, cut)) => (Some(t.as_str()), *cut),
        None => (None, false),
    };
    part(
        "story",
        render::story(&p.story, &p.work, retry, cut),
        shortened_if(cut),
    )
}

/// The steering notes: kept at every level (a person's word outranks the reductions); cut to
/// fit by [`super::fit::steering`] when the prompt is still over.
fn steering_part(p: &Prepared) -> Part {
    match p.steering.section() {
        None => empty("steering"),
        Some((text, cut)) => part("steering", text, shortened_if(cut)),
    }
}

fn deps_part(p: &Prepared, level: usize) -> Part {
    if p.deps.is_empty() {
        return empty("dependencies");
    }
    if level >= 4 {
        return dropped("dependencies");
    }
    let mut text = render::deps_header().to_string();
    for (d, entry, cut) in &p.deps {
        text.push_str(&render::dep(d, entry.as_deref(), *cut));
    }
    let cut = p.deps.iter().any(|(_, _, c)| *c);
    part("dependencies", text, shortened_if(cut))
}

fn files_part(p: &Prepared, level: usize) -> Part {
    if level >= 4 {
        return dropped("files");
    }
    let plan = file_plan(level, p.files.len());
    let text = render::where_to_look(&p.files, &plan, p.has_pin);
    part("files", text, shortened_if(files_cut(&plan, &p.files)))
}

fn patterns_part(p: &Prepared) -> Part {
    match &p.patterns {
        None => empty("patterns"),
        Some((text, cut)) => part("patterns", render::patterns(text, *cut), shortened_if(*cut)),
    }
}

fn errors_part(p: &Prepared, level: usize) -> Part {
    let (text, cut) = &p.errors;
    if text.is_empty() {
        empty("errors")
    } else if level >= 3 {
        dropped("errors")
    } else {
        part("errors", text.clone(), shortened_if(*cut))
    }
}

fn pin_part(p: &Prepared, opts: &Options, level: usize) -> (Part, Vec<PinStatus>) {
    if p.pins.is_empty() {
        return (empty("pin"), Vec::new());
    }
    if level >= 4 {
        return (dropped("pin"), vec![PinStatus::Dropped; p.pins.len()]);
    }
    let mut text = render::pin_header().to_string();
    let mut status = Vec::with_capacity(p.pins.len());
    for (i, pp) in p.pins.iter().enumerate() {
        let (view, st) = pin_view(pp, i, opts, level);
        text.push_str(&render::pin(i + 1, &pp.hit, &pp.files, view));
        status.push(st);
    }
    let cut = status.iter().any(|s| *s != PinStatus::Full);
    (part("pin", text, shortened_if(cut)), status)
}

/// How the Pin entry at rank `i` (from 0) shows at `level`: past 75% only the first
/// `full_pin_entries` keep a spec excerpt, past 60% the excerpts shrink.
fn pin_view<'a>(
    pp: &'a PrepPin,
    i: usize,
    opts: &Options,
    level: usize,
) -> (PinView<'a>, PinStatus) {
    if level >= 2 && i >= opts.full_pin_entries {
        (PinView::NamesOnly, PinStatus::NamesOnly)
    } else if level >= 1 && pp.shortens {
        let view = PinView::Full {
            excerpt: pp.short.as_deref(),
            shortened: true,
        };
        (view, PinStatus::SpecShortened)
    } else {
        let view = PinView::Full {
            excerpt: pp.full.as_deref(),
            shortened: false,
        };
        (view, PinStatus::Full)
    }
}

fn recent_part(p: &Prepared, level: usize) -> Part {
    if p.recent.is_empty() {
        empty("recent")
    } else if level >= 3 {
        dropped("recent")
    } else {
        part("recent", render::recent(&p.recent), Status::Kept)
    }
}

fn remaining_part(p: &Prepared, level: usize) -> Part {
    if p.remaining.is_empty() {
        return empty("remaining");
    }
    if level >= 4 || p.remaining_shown == 0 {
        return dropped("remaining");
    }
    let text = render::remaining(&p.remaining, p.remaining_shown);
    let cut = p.remaining_shown < p.remaining.len();
    part("remaining", text, shortened_if(cut))
}
