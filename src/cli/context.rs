//! `ralph context <story-id> [--explain] [--json] [--budget N] [--top-k K] [--spec-lines N]
//! [--agent NAME]`: print the exact prompt the loop would send for a story, or the account of
//! how it was built.

use anyhow::Context as _;
use clap::Args;

use super::ctx::Ctx;
use super::envelope::{Envelope, Problem};
use crate::config::Layer;
use crate::context::{self, Flavour};
use crate::exit::Code;
use crate::graph::{self, State};
use crate::prd::Prd;

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The story to build the prompt for.
    pub story_id: String,
    /// Print a table of sections, token counts, zones and Pin scores instead of the prompt.
    #[arg(long, conflicts_with = "json")]
    pub explain: bool,
    /// Print the prompt and its account as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Token budget for the prompt, estimated as chars/4 + 15% (default: [context] budget in
    /// ralph.toml, RALPH_CONTEXT_BUDGET, else 24000).
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// How many Pin entries to include, best first (default 5, or [context] top_k).
    #[arg(long, value_name = "K")]
    pub top_k: Option<usize>,
    /// How many lines of each Pin entry's spec to include (default 100, or [context] spec_lines).
    #[arg(long, value_name = "N")]
    pub spec_lines: Option<usize>,
    /// How many files "Where to look" names (default 15, or [context] files).
    #[arg(long, value_name = "N")]
    pub files: Option<usize>,
    /// The agent whose instructions to use: claude, codex, amp, copilot, gemini, opencode,
    /// custom (default: the agent `ralph run` would use). --tool is the same.
    #[arg(long, visible_alias = "tool", value_name = "NAME")]
    pub agent: Option<String>,
}

pub(crate) fn context(ctx: &Ctx, args: ContextArgs) -> anyhow::Result<Code> {
    let prd = ctx.load_prd()?;
    // Notes on the story's state: on stderr, and with --json as warnings too.
    let mut notes = Vec::new();
    if let Some(story) = prd.story(&args.story_id)
        && let Some((code, text)) = state_note(&prd, story)
    {
        crate::say!("note: {text}");
        notes.push(Problem::new(code, text).story(&story.id));
    }
    // The same settings `ralph run` resolves: flags > RALPH_* env > ralph.toml > defaults.
    let agent = match args.agent.as_deref() {
        Some(name) => Some(super::meta::parse_agent("--agent", name)?),
        None => None,
    };
    let flags = Layer {
        agent,
        context_budget: args.budget,
        context_top_k: args.top_k,
        context_spec_lines: args.spec_lines,
        context_files: args.files,
        ..Layer::default()
    };
    let mut settings = ctx.settings(&flags)?;
    let flavour = Flavour::for_agent(settings.agent.name());
    // While a run is live, its steering notes for the story are part of what the agent gets.
    if let Ok(run) = crate::state::control::live_run(&ctx.root) {
        settings.context.steering =
            crate::run::control::policy::notes_for(&run.steering, &args.story_id);
    }
    let opts = &settings.context;
    let built = context::find_story(&prd, &args.story_id)
        .and_then(|story| context::build_prompt(&ctx.root, &prd, story, None, None, flavour, opts))
        .with_context(|| format!("cannot build the prompt for {}", args.story_id))?;
    for w in &built.warnings {
        crate::say!("warning: {w}");
    }
    if args.json {
        let warnings = built
            .warnings
            .iter()
            .map(|w| Problem::new("context", w.as_str()).story(&args.story_id));
        Envelope::new("context", built.to_json())
            .warnings(notes)
            .warnings(warnings)
            .emit()?;
    } else if args.explain {
        print!("{}", built.explain());
    } else {
        print!("{}", built.prompt);
    }
    Ok(Code::OK)
}

/// What to note about a story that the loop would not run now: its code and text.
fn state_note(prd: &Prd, story: &crate::prd::Story) -> Option<(&'static str, String)> {
    let states = graph::states(&prd.stories);
    match &states[story.index] {
        State::Done => Some((
            "story-done",
            format!(
                "{} already passes; this is the prompt a retry would get",
                story.id
            ),
        )),
        State::Removed => Some((
            "story-removed",
            format!("{} is removed; the loop never runs it", story.id),
        )),
        State::Blocked { unmet } => {
            let names: Vec<String> = unmet.iter().map(ToString::to_string).collect();
            Some((
                "story-blocked",
                format!(
                    "{} is blocked by {}; the loop will not run it yet",
                    story.id,
                    names.join(", ")
                ),
            ))
        }
        State::Ready => None,
    }
}
