//! `ralph run --dry-run`: the story the run would pick, the exact prompt and argv, what it
//! would do about git, what its start would remove, the gate's commands. Nothing written,
//! nothing run.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use crate::agent;
use crate::graph;
use crate::prd::Prd;

use super::choose::choose;
use super::error::RunError;
use super::events::status;
use super::iteration::{prompt, redgreen};
use super::options::Options;
use super::start::{branch, upkeep};

/// `--dry-run`: the story, the exact prompt and argv; nothing written, nothing run.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub story: Option<(String, String)>,
    pub prompt: String,
    pub invocation: agent::Invocation,
    pub located: Result<PathBuf, String>,
    pub all_done: bool,
    pub not_runnable: Vec<String>,
    /// What the run would do about git: the branch, uncommitted changes (see `branch`).
    pub git: Vec<String>,
    /// What the run would remove at its start (see [`upkeep::clean_preview`]).
    pub clean: Option<String>,
    /// The commands the story's gate runs: the run's, then the story's own.
    pub verify: Vec<String>,
    /// The red-green gate's line, when it is on for the story.
    pub red_green: Option<String>,
}

pub(crate) fn dry_run(opts: &Options) -> Result<Plan, RunError> {
    let prd = Prd::load(&opts.prd_path)?;
    let git = match branch::inspect(&opts.root, &prd) {
        Ok(i) => branch::describe(&i, opts.settings.allow_dirty),
        Err(e) => vec![format!("git: {e}")],
    };
    let states = graph::states(&prd.stories);
    let chosen = choose(&prd, &states, opts.story.as_deref(), &HashSet::new())?;
    let located = opts.agent.locate().map_err(|e| e.to_string());
    let prompt_file = crate::state::state_dir(&opts.root).join("runs/<run-id>/prompt-1.md");
    let Some(i) = chosen else {
        return Ok(Plan {
            story: None,
            prompt: String::new(),
            invocation: agent::plan(&opts.agent, "", &prompt_file),
            located,
            all_done: prd.all_done(),
            not_runnable: status::not_runnable(&prd.stories, &states, &BTreeMap::new()),
            git,
            clean: upkeep::clean_preview(opts),
            verify: opts.settings.verify.clone(),
            red_green: None,
        });
    };
    let story = &prd.stories[i];
    let prompt = prompt::build(
        &opts.root,
        &prd,
        story,
        None,
        &opts.agent,
        &opts.settings.context,
    )?;
    let mut invocation = agent::plan(&opts.agent, &prompt, &prompt_file);
    invocation.argv = agent::slots::fill(
        &invocation.argv,
        &agent::slots::Slots {
            usage_file: Some(
                crate::state::state_dir(&opts.root).join("runs/<run-id>/iter-1.usage.json"),
            ),
            git_dirs: agent::slots::git_dirs(&opts.root),
        },
    );
    Ok(Plan {
        story: Some((story.id.clone(), story.title.clone())),
        invocation,
        prompt,
        located,
        all_done: false,
        not_runnable: vec![],
        git,
        clean: upkeep::clean_preview(opts),
        verify: story.gate_commands(&opts.settings.verify),
        red_green: redgreen::plan_line(&opts.settings, story),
    })
}
