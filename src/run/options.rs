//! What a run is given: [`Options`] (everything it needs, resolved from flags, ralph.toml and
//! the environment) and [`PrdSnapshot`] (prd.json as read once). A leaf: every phase of the run
//! takes these; this file imports none of them.

use std::path::PathBuf;
use std::sync::Arc;

use crate::agent::AgentSpec;
use crate::config::Settings;
use crate::prd::Prd;

use super::events::Reporter;

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub root: PathBuf,
    pub prd_path: PathBuf,
    pub settings: Settings,
    pub agent: AgentSpec,
    /// `--review`: the agent that reviews each gated story (see [`review`]).
    pub reviewer: Option<AgentSpec>,
    /// `--story ID`: run this story while it is unfinished.
    pub story: Option<String>,
    /// Copy the agent's output to the terminal.
    pub echo: bool,
    /// Extra environment for the agent.
    pub env: Vec<(String, String)>,
    /// Where the loop reports what happens (the terminal, or JSON lines).
    pub reporter: Arc<dyn Reporter>,
}

/// prd.json as read once: the validated value and the exact bytes it came from (cheap to clone,
/// shared with the threads of a parallel run).
#[derive(Debug, Clone)]
pub(crate) struct PrdSnapshot {
    pub prd: Arc<Prd>,
    pub bytes: Arc<Vec<u8>>,
}

impl PrdSnapshot {
    pub(crate) fn new(prd: Prd, bytes: Vec<u8>) -> PrdSnapshot {
        PrdSnapshot {
            prd: Arc::new(prd),
            bytes: Arc::new(bytes),
        }
    }
}
