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
use super::files::{PrepFile, file_plan, files_cut, prep_file};
use super::inputs::{DepOutput, Inputs, PinHit, RemainingStory};
use super::options::Options;
use super::redact::{Redactions, redact_into};
use super::render::{self, PinView};
use super::steering;
use crate::prd::Story;

mod fit;

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The inputs redacted and cut to their per-item caps, once, before any zone decision.
struct Prepared {
    instructions: String,
    story: Story,
    retry: Option<(String, bool)>,
    core_red: Redactions,
    steering: steering::Prepared,
    deps: Vec<(DepOutput, Option<String>, bool)>,
    deps_red: Redactions,
    patterns: Option<(String, bool)>,
    patterns_red: Redactions,
    /// The "Errors seen before" section (empty: none chosen) and whether it was cut.
    errors: (String, bool),
    errors_red: Redactions,
    pins: Vec<PrepPin>,
    pins_red: Redactions,
    recent: Vec<String>,
    recent_red: Redactions,
    remaining: Vec<RemainingStory>,
    remaining_shown: usize,
    /// The branch and the checks, under the story (redacted with the story).
    work: String,
    files: Vec<PrepFile>,
    files_red: Redactions,
    has_pin: bool,
}

struct PrepPin {
    hit: PinHit,
    files: String,
    full: Option<String>,
    short: Option<String>,
    /// The zone-shortened excerpt is shorter than the full one.
    shortens: bool,
}

impl Prepared {
    fn new(inp: &Inputs, opts: &Options, cap: usize) -> Prepared {
        let mut core_red = Redactions::default();
        let mut r = |s: &str| redact_into(s, &mut core_red);
        let instructions = r(&inp.instructions);
        let mut story = inp.story.clone();
        story.title = r(&story.title);
        story.description = r(&story.description);
        story.notes = r(&story.notes);
        story.acceptance_criteria = story.acceptance_criteria.iter().map(|c| r(c)).collect();
        let retry = inp.retry.as_deref().map(|t| {
            let t = r(t);
            let (kept, cut) = budget::tail(&t, cap);
            (kept.to_string(), cut)
        });

        let steering = steering::Prepared::new(&inp.steering, cap);

        let mut deps_red = Redactions::default();
        let deps = inp
            .deps
            .iter()
            .map(|d| {
                let mut r = |s: &str| redact_into(s, &mut deps_red);
                let red = DepOutput {
                    id: r(&d.id),
                    title: r(&d.title),
                    progress_entry: None,
                    files_changed: d.files_changed.iter().map(|f| r(f)).collect(),
                    commit: d.commit.as_deref().map(&mut r),
                };
                let (entry, cut) = match d.progress_entry.as_deref().map(&mut r) {
                    Some(e) => {
                        let (kept, cut) = budget::head(&e, cap);
                        (Some(kept.to_string()), cut)
                    }
                    None => (None, false),
                };
                (red, entry, cut)
            })
            .collect();

        let mut patterns_red = Redactions::default();
        let patterns = inp
            .patterns
            .as_deref()
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                let p = redact_into(p, &mut patterns_red);
                let (kept, cut) = budget::head(&p, cap * 2);
                (kept.to_string(), cut)
            });

        let mut errors_red = Redactions::default();
        let errors = {
            let id = &inp.story.id;
            let text = crate::errors_seen::render(&inp.errors, |l| {
                crate::agent::detect::signal_line(l, id).is_none()
            });
            let text = redact_into(&text, &mut errors_red);
            let (kept, cut) = budget::head(&text, cap);
            (kept.to_string(), cut)
        };

        let mut pins_red = Redactions::default();
        let pins = inp
            .pins
            .iter()
            .take(opts.top_k)
            .map(|h| prep_pin(h, opts, cap, &mut pins_red))
            .collect();

        let mut recent_red = Redactions::default();
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
        let recent = fresh[fresh.len().saturating_sub(opts.recent_entries)..]
            .iter()
            .map(|e| {
                let e = redact_into(e, &mut recent_red);
                budget::head(&e, cap).0.to_string()
            })
            .collect();

        let mut rest_red = Redactions::default();
        let remaining: Vec<RemainingStory> = inp
            .remaining
            .iter()
            .map(|s| RemainingStory {
                id: redact_into(&s.id, &mut rest_red),
                title: redact_into(&s.title, &mut rest_red),
            })
            .collect();
        let mut used = 0;
        let remaining_shown = remaining
            .iter()
            .take_while(|s| {
                used += chars(&s.id) + chars(&s.title) + 3;
                used <= cap
            })
            .count();
        core_red.merge(&rest_red); // ids and titles of other stories: counted with the story
        let work = redact_into(
            &render::work(
                inp.branch.as_deref(),
                &inp.story.gate_commands(&opts.verify),
                inp.story.red_green.unwrap_or(opts.red_green),
            ),
            &mut core_red,
        );
        let mut files_red = Redactions::default();
        let files = inp
            .files
            .iter()
            .map(|f| prep_file(f, &mut files_red))
            .collect();

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

struct Part {
    name: &'static str,
    text: String,
    status: Status,
}

fn part(name: &'static str, text: String, status: Status) -> Part {
    Part { name, text, status }
}

fn empty(name: &'static str) -> Part {
    part(name, String::new(), Status::Empty)
}

/// The sections at a reduction level (0 = none … 4 = critical), and each Pin entry's fate.
fn build(p: &Prepared, opts: &Options, level: usize) -> (Vec<Part>, Vec<PinStatus>) {
    let mut parts = vec![
        part(
            "instructions",
            render::instructions(&p.instructions),
            Status::Kept,
        ),
        core_story(p),
        steering_part(p),
    ];

    parts.push(if p.deps.is_empty() {
        empty("dependencies")
    } else if level >= 4 {
        part("dependencies", String::new(), Status::Dropped)
    } else {
        let mut text = render::deps_header().to_string();
        for (d, entry, cut) in &p.deps {
            text.push_str(&render::dep(d, entry.as_deref(), *cut));
        }
        let cut = p.deps.iter().any(|(_, _, c)| *c);
        part("dependencies", text, shortened_if(cut))
    });

    let plan = file_plan(level, p.files.len());
    parts.push(if level >= 4 {
        part("files", String::new(), Status::Dropped)
    } else {
        let text = render::where_to_look(&p.files, &plan, p.has_pin);
        part("files", text, shortened_if(files_cut(&plan, &p.files)))
    });

    parts.push(match &p.patterns {
        None => empty("patterns"),
        Some((text, cut)) => part("patterns", render::patterns(text, *cut), shortened_if(*cut)),
    });

    // Learned error patterns go with recent progress, before the files and the story.
    parts.push(if p.errors.0.is_empty() {
        empty("errors")
    } else if level >= 3 {
        part("errors", String::new(), Status::Dropped)
    } else {
        part("errors", p.errors.0.clone(), shortened_if(p.errors.1))
    });

    let mut pin_status = Vec::with_capacity(p.pins.len());
    parts.push(if p.pins.is_empty() {
        empty("pin")
    } else if level >= 4 {
        pin_status.resize(p.pins.len(), PinStatus::Dropped);
        part("pin", String::new(), Status::Dropped)
    } else {
        let mut text = render::pin_header().to_string();
        for (i, pp) in p.pins.iter().enumerate() {
            let (view, st) = if level >= 2 && i >= opts.full_pin_entries {
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
            };
            text.push_str(&render::pin(i + 1, &pp.hit, &pp.files, view));
            pin_status.push(st);
        }
        let cut = pin_status.iter().any(|s| *s != PinStatus::Full);
        part("pin", text, shortened_if(cut))
    });

    parts.push(if p.recent.is_empty() {
        empty("recent")
    } else if level >= 3 {
        part("recent", String::new(), Status::Dropped)
    } else {
        part("recent", render::recent(&p.recent), Status::Kept)
    });

    parts.push(if p.remaining.is_empty() {
        empty("remaining")
    } else if level >= 4 || p.remaining_shown == 0 {
        part("remaining", String::new(), Status::Dropped)
    } else {
        let text = render::remaining(&p.remaining, p.remaining_shown);
        part(
            "remaining",
            text,
            shortened_if(p.remaining_shown < p.remaining.len()),
        )
    });
    (parts, pin_status)
}

/// The steering notes: kept at every level (a person's word outranks the reductions); cut to
/// fit by [`fit_steering`] when the prompt is still over.
fn steering_part(p: &Prepared) -> Part {
    match p.steering.section() {
        None => empty("steering"),
        Some((text, cut)) => part("steering", text, shortened_if(cut)),
    }
}

fn shortened_if(cut: bool) -> Status {
    if cut { Status::Shortened } else { Status::Kept }
}

fn core_story(p: &Prepared) -> Part {
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

/// Whether the "Errors seen before" `text` still holds pattern `id`'s header line (the section
/// may have been cut after some of its patterns).
fn header_shown(text: &str, id: &str) -> bool {
    let tail = format!("(pattern {id})");
    text.lines()
        .any(|l| l.starts_with("## `") && l.ends_with(&tail))
}

/// Build the prompt for one story under `opts.budget` tokens.
///
/// Errors only when the instructions and the story alone (sections 1-2, never dropped) exceed
/// the budget. Deterministic: the same inputs always give the byte-identical prompt.
pub fn assemble(inputs: &Inputs, opts: &Options) -> Result<Assembled, ContextError> {
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

    let mut level = 0;
    let (mut parts, pin_status) = loop {
        let (parts, pins) = build(&p, opts, level);
        let total: usize = parts.iter().map(|x| chars(&x.text)).sum();
        let zone = Zone::of(budget::tokens_for_chars(total), opts.budget);
        if zone.level() <= level || level >= Zone::Critical.level() {
            break (parts, pins);
        }
        level += 1;
    };
    fit::patterns(&mut parts, &p, max);
    fit::steering(&mut parts, &p, max);

    let prompt: String = parts.iter().map(|x| x.text.as_str()).collect();
    let tokens = budget::estimate(&prompt);
    if tokens > opts.budget {
        // Unreachable by construction (core fits, and fit_patterns trims the rest); kept so the
        // invariant holds even if a future change breaks the arithmetic.
        return Err(over(core_instr, core_story));
    }

    let mut sections = Vec::with_capacity(parts.len());
    let mut redactions = p.core_red.clone();
    let mut so_far = 0;
    for x in &parts {
        so_far += chars(&x.text);
        sections.push(SectionAccount {
            name: x.name,
            tokens: budget::estimate(&x.text),
            zone: Zone::of(budget::tokens_for_chars(so_far), opts.budget),
            status: x.status,
        });
        let red = match x.name {
            "dependencies" => Some(&p.deps_red),
            "steering" => Some(&p.steering.red),
            "patterns" => Some(&p.patterns_red),
            "errors" => Some(&p.errors_red),
            "pin" => Some(&p.pins_red),
            "files" => Some(&p.files_red),
            "recent" => Some(&p.recent_red),
            _ => None,
        };
        if let Some(red) = red.filter(|_| matches!(x.status, Status::Kept | Status::Shortened)) {
            redactions.merge(red);
        }
    }
    let pins = p
        .pins
        .iter()
        .zip(&pin_status)
        .enumerate()
        .map(|(i, (pp, st))| PinAccount {
            rank: i + 1,
            name: pp.hit.name.clone(),
            score: pp.hit.score,
            matched: pp.hit.matched.clone(),
            status: *st,
            cut: *st != PinStatus::Full,
        })
        .collect();
    // A pattern counts as shown only when its header line survived the section's cut.
    let errors_text = parts
        .iter()
        .find(|x| x.name == "errors" && matches!(x.status, Status::Kept | Status::Shortened))
        .map_or("", |x| x.text.as_str());
    let error_patterns = inputs
        .errors
        .iter()
        .map(|c| ErrorPatternAccount {
            id: c.pattern.id.clone(),
            command: super::redact::redact(&c.pattern.command).0,
            why: c.why.text(),
            shown: header_shown(errors_text, &c.pattern.id),
        })
        .collect();
    let plan = file_plan(level, p.files.len());
    let files = inputs
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
        .collect();
    Ok(Assembled {
        story: inputs.story.id.clone(),
        budget: opts.budget,
        tokens,
        zone: Zone::of(tokens, opts.budget),
        reduced_for: Zone::ALL[level.min(4)],
        sections,
        keywords: inputs.keywords.clone(),
        files,
        pins,
        error_patterns,
        warnings: inputs.notes.clone(),
        redactions,
        prompt,
    })
}
