//! The inputs redacted and cut to their per-item caps, once, before any zone decision: each
//! section's text with its own redaction count, so the account counts only what was kept.
//!
//! Pure. Decides no zone: [`super::build`] picks each section's fate from these.

use super::part::chars;
use crate::context::budget;
use crate::context::files::{PrepFile, prep_file};
use crate::context::inputs::{DepOutput, Inputs, PinHit, RemainingStory};
use crate::context::options::Options;
use crate::context::redact::{Redactions, redact_into};
use crate::context::render;
use crate::context::steering;
use crate::index::Ranked;
use crate::prd::Story;

/// A dependency's output redacted, with its progress entry cut to the cap (and whether it was).
pub(super) type PrepDep = (DepOutput, Option<String>, bool);

pub(super) struct Prepared {
    pub(super) instructions: String,
    pub(super) story: Story,
    pub(super) retry: Option<(String, bool)>,
    pub(super) core_red: Redactions,
    pub(super) steering: steering::Prepared,
    pub(super) deps: Vec<PrepDep>,
    pub(super) deps_red: Redactions,
    pub(super) patterns: Option<(String, bool)>,
    pub(super) patterns_red: Redactions,
    /// The "Errors seen before" section (empty: none chosen) and whether it was cut.
    pub(super) errors: (String, bool),
    pub(super) errors_red: Redactions,
    pub(super) pins: Vec<PrepPin>,
    pub(super) pins_red: Redactions,
    pub(super) recent: Vec<String>,
    pub(super) recent_red: Redactions,
    pub(super) remaining: Vec<RemainingStory>,
    pub(super) remaining_shown: usize,
    /// The branch and the checks, under the story (redacted with the story).
    pub(super) work: String,
    pub(super) files: Vec<PrepFile>,
    pub(super) files_red: Redactions,
    pub(super) has_pin: bool,
}

pub(super) struct PrepPin {
    pub(super) hit: PinHit,
    pub(super) files: String,
    pub(super) full: Option<String>,
    pub(super) short: Option<String>,
    /// The zone-shortened excerpt is shorter than the full one.
    pub(super) shortens: bool,
}

impl Prepared {
    /// Every input redacted and cut to `cap` characters (the patterns to twice that).
    pub(super) fn new(inp: &Inputs, opts: &Options, cap: usize) -> Prepared {
        let mut core_red = Redactions::default();
        let instructions = redact_into(&inp.instructions, &mut core_red);
        let story = redact_story(&inp.story, &mut core_red);
        let retry = inp
            .retry
            .as_deref()
            .map(|t| owned(budget::tail(&redact_into(t, &mut core_red), cap)));
        let steering = steering::Prepared::new(&inp.steering, cap);
        let (deps, deps_red) = prep_deps(&inp.deps, cap);
        let (patterns, patterns_red) = prep_patterns(inp.patterns.as_deref(), cap);
        let (errors, errors_red) = prep_errors(inp, cap);
        let (pins, pins_red) = prep_pins(&inp.pins, opts, cap);
        let (recent, recent_red) = prep_recent(inp, opts.recent_entries, cap);
        let (remaining, rest_red) = prep_remaining(&inp.remaining);
        let remaining_shown = shown_within(&remaining, cap);
        core_red.merge(&rest_red); // ids and titles of other stories: counted with the story
        let work = render::work(
            inp.branch.as_deref(),
            &inp.story.gate_commands(&opts.verify),
            inp.story.red_green.unwrap_or(opts.red_green),
        );
        let work = redact_into(&work, &mut core_red);
        let (files, files_red) = prep_files(&inp.files);
        Prepared {
            instructions,
            story,
            retry,
            core_red,
            steering,
            deps,
            deps_red,
            patterns,
            patterns_red,
            errors,
            errors_red,
            pins,
            pins_red,
            recent,
            recent_red,
            remaining,
            remaining_shown,
            work,
            files,
            files_red,
            has_pin: inp.has_pin,
        }
    }
}

/// A kept slice and whether it was cut, owned.
fn owned((kept, cut): (&str, bool)) -> (String, bool) {
    (kept.to_string(), cut)
}

/// The story with its title, description, notes and criteria redacted (in that order).
fn redact_story(s: &Story, red: &mut Redactions) -> Story {
    let mut story = s.clone();
    story.title = redact_into(&story.title, red);
    story.description = redact_into(&story.description, red);
    story.notes = redact_into(&story.notes, red);
    story.acceptance_criteria = s
        .acceptance_criteria
        .iter()
        .map(|c| redact_into(c, red))
        .collect();
    story
}

fn prep_deps(deps: &[DepOutput], cap: usize) -> (Vec<PrepDep>, Redactions) {
    let mut red = Redactions::default();
    let deps = deps.iter().map(|d| prep_dep(d, cap, &mut red)).collect();
    (deps, red)
}

fn prep_dep(d: &DepOutput, cap: usize, red: &mut Redactions) -> PrepDep {
    let mut r = |s: &str| redact_into(s, red);
    let out = DepOutput {
        id: r(&d.id),
        title: r(&d.title),
        progress_entry: None,
        files_changed: d.files_changed.iter().map(|f| r(f)).collect(),
        commit: d.commit.as_deref().map(&mut r),
    };
    match d.progress_entry.as_deref().map(&mut r) {
        Some(e) => {
            let (kept, cut) = owned(budget::head(&e, cap));
            (out, Some(kept), cut)
        }
        None => (out, None, false),
    }
}

/// The Codebase Patterns (blank: none), cut to twice the cap.
fn prep_patterns(patterns: Option<&str>, cap: usize) -> (Option<(String, bool)>, Redactions) {
    let mut red = Redactions::default();
    let kept = patterns.filter(|p| !p.trim().is_empty()).map(|p| {
        let p = redact_into(p, &mut red);
        owned(budget::head(&p, cap * 2))
    });
    (kept, red)
}

/// The "Errors seen before" section, without lines that would read as the agent's signals.
fn prep_errors(inp: &Inputs, cap: usize) -> ((String, bool), Redactions) {
    let mut red = Redactions::default();
    let id = &inp.story.id;
    let text = crate::errors_seen::render(&inp.errors, |l| {
        crate::agent::detect::signal_line(l, id).is_none()
    });
    let text = redact_into(&text, &mut red);
    (owned(budget::head(&text, cap)), red)
}

fn prep_pins(pins: &[PinHit], opts: &Options, cap: usize) -> (Vec<PrepPin>, Redactions) {
    let mut red = Redactions::default();
    let pins = pins
        .iter()
        .take(opts.top_k)
        .map(|h| prep_pin(h, opts, cap, &mut red))
        .collect();
    (pins, red)
}

fn prep_pin(h: &PinHit, opts: &Options, cap: usize, red: &mut Redactions) -> PrepPin {
    let mut r = |s: &str| redact_into(s, red);
    let hit = PinHit {
        name: r(&h.name),
        score: h.score,
        matched: h.matched.iter().map(|m| r(m)).collect(),
        files: Vec::new(),
        spec: h.spec.as_deref().map(&mut r),
        spec_excerpt: None,
    };
    let files = r(&h.files.join(", "));
    let files = match budget::head(&files, cap / 2) {
        (kept, true) => format!("{kept} …"),
        (kept, false) => kept.to_string(),
    };
    let full = h.spec_excerpt.as_deref().map(|e| {
        let (lines, _) = budget::first_lines(e, opts.spec_lines);
        let e = r(lines);
        budget::head(&e, cap).0.to_string()
    });
    let (short, shortens) = match &full {
        Some(f) => {
            let (s, cut) = budget::first_lines(f, opts.short_spec_lines);
            (Some(s.to_string()), cut)
        }
        None => (None, false),
    };
    PrepPin {
        hit,
        files,
        full,
        short,
        shortens,
    }
}

/// The last `keep` non-blank progress entries that are not a dependency's entry (shown there).
fn prep_recent(inp: &Inputs, keep: usize, cap: usize) -> (Vec<String>, Redactions) {
    let dep_entries: Vec<&str> = inp
        .deps
        .iter()
        .filter_map(|d| d.progress_entry.as_deref().map(str::trim))
        .collect();
    let fresh: Vec<&String> = inp
        .recent
        .iter()
        .filter(|e| !e.trim().is_empty() && !dep_entries.contains(&e.trim()))
        .collect();
    let mut red = Redactions::default();
    let recent = fresh[fresh.len().saturating_sub(keep)..]
        .iter()
        .map(|e| {
            let e = redact_into(e, &mut red);
            budget::head(&e, cap).0.to_string()
        })
        .collect();
    (recent, red)
}

fn prep_remaining(rest: &[RemainingStory]) -> (Vec<RemainingStory>, Redactions) {
    let mut red = Redactions::default();
    let remaining = rest
        .iter()
        .map(|s| RemainingStory {
            id: redact_into(&s.id, &mut red),
            title: redact_into(&s.title, &mut red),
        })
        .collect();
    (remaining, red)
}

/// How many of the remaining stories' one-line entries fit in `cap` characters together.
fn shown_within(remaining: &[RemainingStory], cap: usize) -> usize {
    let mut used = 0;
    remaining
        .iter()
        .take_while(|s| {
            used += chars(&s.id) + chars(&s.title) + 3;
            used <= cap
        })
        .count()
}

fn prep_files(files: &[Ranked]) -> (Vec<PrepFile>, Redactions) {
    let mut red = Redactions::default();
    let files = files.iter().map(|f| prep_file(f, &mut red)).collect();
    (files, red)
}
