//! Which story runs next: `--story ID` while it is unfinished, else THE selection rule
//! ([`crate::graph::next_ready`], the same as `ralph next`). Shared by the sequential loop, the
//! parallel run's start (a `--story` that cannot run stops it) and the dry run.

use std::collections::HashSet;

use crate::graph::{self, State};
use crate::prd::Prd;

use super::error::RunError;

/// The story to run: `--story` when given, unfinished and not skipped, else the `ralph next`
/// rule.
pub(crate) fn choose(
    prd: &Prd,
    states: &[State],
    forced: Option<&str>,
    skipped: &HashSet<String>,
) -> Result<Option<usize>, RunError> {
    if let Some(id) = forced {
        let Some(s) = prd.story(id) else {
            let why = match crate::suggest::nearest(id, prd.stories.iter().map(|s| s.id.as_str())) {
                Some(n) => format!(
                    "no such story in {} (did you mean {n}?)",
                    prd.path.display()
                ),
                None => format!("no such story in {}", prd.path.display()),
            };
            return Err(RunError::Story { id: id.into(), why });
        };
        match &states[s.index] {
            State::Ready if !skipped.contains(id) => return Ok(Some(s.index)),
            // Done, or skipped for making no progress: carry on with the usual order.
            State::Ready | State::Done => {}
            State::Removed => {
                return Err(RunError::Story {
                    id: id.into(),
                    why: "is removed (status: \"removed\")".into(),
                });
            }
            State::Blocked { unmet } => {
                let names: Vec<String> = unmet.iter().map(ToString::to_string).collect();
                return Err(RunError::Story {
                    id: id.into(),
                    why: format!("is not ready: blocked by {}", names.join(", ")),
                });
            }
        }
    }
    Ok(graph::next_ready(&prd.stories, states, skipped))
}
