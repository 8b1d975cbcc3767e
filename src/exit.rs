//! Exit codes shared by every command, and the mapping from an error to its code.
//!
//! Owns the numbers only; commands decide which one applies. Documented in README.md.

/// A process exit code with a meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code(u8);

impl Code {
    /// Success.
    pub const OK: Code = Code(0);
    /// An error: invalid input, a failed operation, a check that found problems.
    pub const ERROR: Code = Code(1);
    /// Bad command-line usage (clap uses 2 as well).
    pub const USAGE: Code = Code(2);
    /// `ralph run` reached its iteration limit with stories remaining.
    pub const LIMIT: Code = Code(3);
    /// Unfinished stories remain but none is ready (all blocked, or skipped).
    pub const NO_READY: Code = Code(4);
    /// `ralph run` stopped before the next iteration: the agents' reported cost reached
    /// `--max-cost`.
    pub const COST_LIMIT: Code = Code(5);
    /// The agent CLI could not start (an argument it does not know, root refused, not logged
    /// in, no session at all), found by the preflight or on the first agent run: no story is
    /// retried or skipped for it.
    pub const AGENT_START: Code = Code(6);
    /// Interrupted by Ctrl-C or SIGTERM.
    pub const INTERRUPTED: Code = Code(130);
    /// The terminal hung up (SIGHUP: terminal closed, ssh dropped); handled like SIGTERM.
    pub const HANGUP: Code = Code(129);

    pub fn as_u8(self) -> u8 {
        self.0
    }

    /// The code for an error that reached the top: [`Interrupted`] anywhere in the chain maps to
    /// 130, [`Usage`] to 2, everything else to 1.
    pub fn from_error(err: &anyhow::Error) -> Code {
        if err.chain().any(|e| e.is::<Interrupted>()) {
            Code::INTERRUPTED
        } else if err.downcast_ref::<AgentStart>().is_some()
            || err.chain().any(|e| e.is::<AgentStart>())
        {
            Code::AGENT_START
        } else if err.chain().any(|e| e.is::<Usage>()) {
            Code::USAGE
        } else {
            Code::ERROR
        }
    }
}

/// Marker error: the user interrupted the command (Ctrl-C / SIGTERM).
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// Marker error: the agent CLI cannot start (found before the first agent ran), exit 6.
#[derive(Debug, thiserror::Error)]
#[error("the agent cannot start")]
pub struct AgentStart;

/// Marker error: options that parse but cannot be used together (exit 2, like clap's own
/// usage errors). The message says what to change.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupted_anywhere_in_chain_maps_to_130() {
        let err = anyhow::Error::new(Interrupted).context("while running the agent");
        assert_eq!(Code::from_error(&err), Code::INTERRUPTED);
        let other = anyhow::anyhow!("boom");
        assert_eq!(Code::from_error(&other), Code::ERROR);
        let usage = anyhow::Error::new(Usage("--a needs --b".into()));
        assert_eq!(Code::from_error(&usage), Code::USAGE);
        let start = anyhow::anyhow!("preflight: root").context(AgentStart);
        assert_eq!(Code::from_error(&start), Code::AGENT_START);
    }
}
