//! `ralph validate`, `ralph status`, `ralph next`, `ralph graph`: read-only views of prd.json
//! (`ralph status` adds what the live run publishes: paused, claims, held stories, notes).

use clap::{Args, ValueEnum};
use serde_json::json;
use std::collections::{BTreeMap, HashSet};

use super::ctx::Ctx;
use super::envelope::{self, Envelope, Problem};
use crate::exit::Code;
use crate::graph::{self, State};
use crate::prd::{Prd, Story, validate};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,
    /// Files to validate (default: --prd, or <root>/prd.json). Pre-commit passes them here.
    pub files: Vec<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct NextArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Say why each other unfinished story is not next.
    #[arg(long)]
    pub explain: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum GraphFormat {
    Dot,
    Mermaid,
}

#[derive(Debug, Args)]
pub struct GraphArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    pub format: GraphFormat,
    /// Print the nodes and edges as JSON instead.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

pub(crate) fn validate(ctx: &Ctx, args: ValidateArgs) -> anyhow::Result<Code> {
    let files = if args.files.is_empty() {
        vec![ctx.prd_path.clone()]
    } else {
        args.files
    };
    let mut failed = false;
    let mut env = Envelope::new("validate", json!({}));
    let mut checked = Vec::new();
    for file in &files {
        let report = match crate::fsutil::read(file) {
            Ok(bytes) => {
                let (report, value) = validate::validate_bytes(file, &bytes);
                // The document is not needed any more and the process is about to exit: freeing a
                // 10k-story Value node by node costs a tenth of validate's time, so skip it.
                std::mem::forget(value);
                report
            }
            Err(e) => crate::prd::Diagnostics {
                file: file.display().to_string(),
                errors: vec![crate::prd::Diagnostic::error(
                    "io",
                    "",
                    None,
                    format!("cannot read the file: {e}"),
                    "check the path (see --prd and --root), or create a prd.json (see examples/prd.json.example)",
                )],
                warnings: vec![],
            },
        };
        let bad = !report.errors.is_empty() || (args.strict && !report.warnings.is_empty());
        failed |= bad;
        if args.json {
            let problems = |ds: &[crate::prd::Diagnostic]| -> Vec<_> {
                ds.iter()
                    .map(|d| envelope::from_prd_diagnostic(&report.file, d))
                    .collect()
            };
            checked.push(json!({"file": report.file, "valid": !bad}));
            env.errors.extend(problems(&report.errors));
            // --strict treats warnings as errors: they are reported as what they are then.
            if args.strict {
                env.errors.extend(problems(&report.warnings));
            } else {
                env.warnings.extend(problems(&report.warnings));
            }
        } else if bad {
            anstream::eprint!("{}", report.render_styled());
        } else if !crate::ui::quiet() {
            anstream::print!("{}", report.render_styled());
        }
    }
    if args.json {
        env.data = Some(json!({"valid": !failed, "files": checked}));
        env.emit()?;
    }
    Ok(if failed { Code::ERROR } else { Code::OK })
}

/// The warnings found while loading prd.json (dialect, unknown fields, …), for the envelope.
fn load_warnings(prd: &Prd) -> Vec<Problem> {
    let file = prd.path.display().to_string();
    prd.warnings
        .iter()
        .map(|d| envelope::from_prd_diagnostic(&file, d))
        .collect()
}

fn story_json(s: &Story, st: &State) -> serde_json::Value {
    let mut v = json!({
        "id": s.id, "title": s.title, "priority": s.priority, "passes": s.passes, "state": st.name(),
    });
    if let State::Blocked { unmet } = st {
        v["blockedBy"] = serde_json::to_value(unmet).unwrap_or_default();
    }
    if !s.verify.is_empty() {
        v["verify"] = json!(s.verify);
    }
    if let Some(rg) = s.red_green {
        v["redGreen"] = json!(rg);
    }
    v
}

/// "7/11 done, 2 ready, 2 blocked" (+ removed when there are any).
pub(crate) fn summary_line(states: &[State]) -> String {
    let count = |n: &str| states.iter().filter(|s| s.name() == n).count();
    let removed = count("removed");
    let mut line = format!(
        "{}/{} done, {} ready, {} blocked",
        count("done"),
        states.len() - removed,
        count("ready"),
        count("blocked")
    );
    if removed > 0 {
        line.push_str(&format!(", {removed} removed"));
    }
    line
}

/// What history.jsonl says for `status`: the usage totals, and the stories (not passing) the
/// agent reported blocked, with the reason (an unreadable history shows nothing here: status
/// is about prd.json).
fn from_history(
    ctx: &Ctx,
    prd: &Prd,
) -> (
    Option<crate::run::iteration::cost::Totals>,
    BTreeMap<String, String>,
) {
    let records = crate::state::history::read(&ctx.root).unwrap_or_default();
    let t = crate::run::iteration::cost::Totals::of(&records);
    let mut blocked = crate::state::history::agent_blocked(&records);
    blocked.retain(|id, _| prd.story(id).is_some_and(|s| !s.passes && !s.removed));
    ((t.iterations > 0).then_some(t), blocked)
}

/// The live run, if there is one; a state left by a run that is gone is a note, not an error.
fn live_run(ctx: &Ctx) -> Option<crate::state::control::RunState> {
    use crate::state::control::{NoRun, live_run};
    match live_run(&ctx.root) {
        Ok(run) => Some(run),
        Err(NoRun::None { .. }) => None,
        Err(e) => {
            crate::say!("note: {e}");
            None
        }
    }
}

pub(crate) fn status(ctx: &Ctx, args: StatusArgs) -> anyhow::Result<Code> {
    let prd = ctx.load_prd()?;
    let states = graph::states(&prd.stories);
    let (usage, agent_blocked) = from_history(ctx, &prd);
    let run = live_run(ctx);
    if args.json {
        let stories: Vec<_> = prd
            .stories
            .iter()
            .zip(&states)
            .map(|(s, st)| {
                let mut v = story_json(s, st);
                if let Some(why) = agent_blocked.get(&s.id) {
                    v["agentBlocked"] = json!(why);
                }
                v
            })
            .collect();
        let mut data = json!({"file": ctx.prd_path.display().to_string(), "stories": stories,
                   "summary": summary_line(&states), "run": run});
        if let (Some(u), Some(obj)) = (&usage, data.as_object_mut()) {
            obj.insert("usage".into(), json!(u));
        }
        Envelope::new("status", data)
            .warnings(load_warnings(&prd))
            .emit()?;
        return Ok(Code::OK);
    }
    let width = prd
        .stories
        .iter()
        .map(|s| s.id.chars().count())
        .max()
        .unwrap_or(0)
        // A format width must fit in u16 (a longer one panics); past 64 columns padding helps
        // nobody anyway.
        .min(64);
    for (s, st) in prd.stories.iter().zip(&states) {
        let extra = story_extra(s, st, agent_blocked.get(&s.id), run.as_ref());
        let style = crate::ui::state_style(st.name());
        anstream::println!(
            "{style}{:<8}{style:#} {:<width$}  {}{extra}",
            st.name(),
            s.id,
            s.title
        );
    }
    println!("{}", summary_line(&states));
    if let Some(u) = usage {
        println!("usage (history): {}", u.line());
    }
    for line in run.iter().flat_map(super::steer::run_lines) {
        println!("{}", crate::ui::printable(&line));
    }
    Ok(Code::OK)
}

/// What `ralph status` adds after a story's title: the unmet blockers, the reason the agent gave
/// for BLOCKED, what the live run does with it (a hold only while the story does not pass).
fn story_extra(
    s: &Story,
    st: &State,
    agent_blocked: Option<&String>,
    run: Option<&crate::state::control::RunState>,
) -> String {
    let mut extra = match st {
        State::Blocked { unmet } => {
            let names: Vec<String> = unmet.iter().map(ToString::to_string).collect();
            format!("  (waiting for {})", names.join(", "))
        }
        _ => String::new(),
    };
    if let Some(why) = agent_blocked {
        extra.push_str(&format!("  (the agent reported it blocked: {why})"));
    }
    match run.and_then(|r| super::steer::story_note(r, &s.id)) {
        Some(note) if !s.passes || !note.starts_with("[held") => format!("{extra}  {note}"),
        _ => extra,
    }
}

/// Why `s` is not the next story, given the chosen one.
fn why_not(s: &Story, st: &State, chosen: Option<&Story>) -> Option<String> {
    match st {
        State::Done | State::Removed => None,
        State::Blocked { unmet } => {
            let names: Vec<String> = unmet.iter().map(ToString::to_string).collect();
            Some(format!("blocked by {}", names.join(", ")))
        }
        State::Ready => match chosen {
            Some(c) if c.priority < s.priority => Some(format!(
                "ready, but priority {} comes after {} (priority {})",
                s.priority, c.id, c.priority
            )),
            Some(c) => Some(format!(
                "ready, same priority as {} which comes first in the file",
                c.id
            )),
            None => None,
        },
    }
}

pub(crate) fn next(ctx: &Ctx, args: NextArgs) -> anyhow::Result<Code> {
    let prd = ctx.load_prd()?;
    let states = graph::states(&prd.stories);
    let chosen = graph::next_ready(&prd.stories, &states, &HashSet::new()).map(|i| &prd.stories[i]);
    let explain: Vec<(&Story, String)> = prd
        .stories
        .iter()
        .zip(&states)
        .filter(|(s, _)| Some(s.index) != chosen.map(|c| c.index))
        .filter_map(|(s, st)| why_not(s, st, chosen).map(|w| (s, w)))
        .collect();
    let done = prd.all_done();
    let code = match (chosen, done) {
        (Some(_), _) | (None, true) => Code::OK,
        (None, false) => Code::NO_READY,
    };
    if args.json {
        let next = chosen.map(|c| story_json(c, &states[c.index]));
        let mut out = json!({"next": next, "all_done": done});
        if args.explain {
            out["explain"] = explain
                .iter()
                .map(|(s, w)| json!({"id": s.id, "reason": w}))
                .collect();
        }
        let mut env = Envelope::new("next", out).warnings(load_warnings(&prd));
        if code == Code::NO_READY {
            env.warnings.push(Problem::new(
                "no-ready",
                "no ready story: every unfinished story is blocked",
            ));
        }
        env.emit()?;
        return Ok(code);
    }
    match chosen {
        Some(c) => println!("{}  {} (priority {})", c.id, c.title, c.priority),
        None if done => println!("all stories pass"),
        None => eprintln!("no ready story: every unfinished story is blocked"),
    }
    if args.explain || (chosen.is_none() && !done) {
        for (s, w) in &explain {
            println!("  {}: {w}", s.id);
        }
    }
    Ok(code)
}

pub(crate) fn graph(ctx: &Ctx, args: GraphArgs) -> anyhow::Result<Code> {
    let prd = ctx.load_prd()?;
    let states = graph::states(&prd.stories);
    if args.json {
        let nodes: Vec<_> = prd
            .stories
            .iter()
            .zip(&states)
            .map(|(s, st)| story_json(s, st))
            .collect();
        // Blocker to dependant, as the dot and mermaid edges point.
        let edges: Vec<_> = prd
            .stories
            .iter()
            .flat_map(|s| s.blocked_by.iter().map(|d| json!({"from": d, "to": s.id})))
            .collect();
        Envelope::new("graph", json!({"nodes": nodes, "edges": edges}))
            .warnings(load_warnings(&prd))
            .emit()?;
        return Ok(Code::OK);
    }
    let text = match args.format {
        GraphFormat::Dot => graph::render::dot(&prd.stories, &states),
        GraphFormat::Mermaid => graph::render::mermaid(&prd.stories, &states),
    };
    print!("{text}");
    Ok(Code::OK)
}
