//! The knobs of the context builder ([`Options`]) and their documented defaults.
//!
//! A leaf: read by the assembler, the gatherer and the config layer; imports no sibling but the
//! steering note type.

use std::path::PathBuf;

use super::inputs::SteerNote;

/// Knobs of the context builder. `Default` gives the documented defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Options {
    /// The most tokens the prompt may take (estimated). Default 24,000.
    pub budget: usize,
    /// How many Pin entries to include, best first. Default 5.
    pub top_k: usize,
    /// Lines of each Pin entry's spec to include. Default 100.
    pub spec_lines: usize,
    /// Lines of each spec kept once the prompt passes 60% of the budget. Default 20.
    pub short_spec_lines: usize,
    /// Pin entries that keep their spec excerpt past 75% of the budget; the lower-ranked ones
    /// keep only name and files. Default 2.
    pub full_pin_entries: usize,
    /// How many recent progress entries to include. Default 3.
    pub recent_entries: usize,
    /// How many files the "where to look" section names, best first. Default 15.
    pub files: usize,
    /// The verify commands the gate runs (named in the prompt so the agent runs them first);
    /// the story's own (`verify` in prd.json) are added after them.
    pub verify: Vec<String>,
    /// The red-green gate is on for the run (a story's `redGreen` overrides it): the prompt
    /// says the story's new tests must fail without its change.
    pub red_green: bool,
    /// Save the refreshed code index under `.ralph/` (false for `ralph run --dry-run`, which
    /// writes nothing). Default true.
    pub save_index: bool,
    /// The project's own instructions file (`[agent] instructions`, relative to the root),
    /// used instead of the built-in instructions for every agent. Default none.
    pub instructions: Option<PathBuf>,
    /// The steering notes for this prompt (`ralph steer` during a run), oldest first. Not a
    /// setting: the loop sets them for each prompt it builds. Default none.
    pub steering: Vec<SteerNote>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budget: 24_000,
            top_k: 5,
            spec_lines: 100,
            short_spec_lines: 20,
            full_pin_entries: 2,
            recent_entries: 3,
            files: 15,
            verify: Vec::new(),
            red_green: false,
            save_index: true,
            instructions: None,
            steering: Vec::new(),
        }
    }
}
