//! How a run ended without an error ([`Exit`]: `all-done`, `limit`, …) and the exit code each
//! ending gives. A leaf: the loops return it, the reporter words it.

use crate::exit::Code;

use super::wait::signals;

/// How a run ended without an error (as `run-ended` reports it: `all-done`, `limit`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Exit {
    AllDone,
    Limit,
    NoReady,
    CostLimit,
    Interrupted,
    /// The agent CLI could not start (see [`outcome::start_failure`]).
    StartFailed,
}

impl Exit {
    pub(crate) fn code(self) -> Code {
        match self {
            Exit::AllDone => Code::OK,
            Exit::Limit => Code::LIMIT,
            Exit::NoReady => Code::NO_READY,
            Exit::CostLimit => Code::COST_LIMIT,
            Exit::StartFailed => Code::AGENT_START,
            Exit::Interrupted if signals::hung_up() => Code::HANGUP,
            Exit::Interrupted => Code::INTERRUPTED,
        }
    }
}
