//! Before a run's first agent: the installed CLI's version read (its argv chosen by version, a
//! warning when it is outside the range the preset was verified with) and, unless skipped
//! (`--no-preflight`, `[run] preflight = false`), `ralph doctor`'s checks: a problem stops the
//! run before anything is written, with exit 6 when the agent itself cannot start.
//!
//! Owns what a run does with the checks; the checks are [`crate::doctor`]'s.

use crate::agent::AgentSpec;
use crate::doctor::{self, Finding, Status, gather};
use crate::run::events::Event;
use crate::run::options::Options;

/// Why a run does not start.
#[derive(Debug, thiserror::Error)]
#[error(
    "preflight: {}{}\n(`ralph doctor` shows every check; --no-preflight skips them)",
    if problems.len() > 1 { "\n  " } else { "" },
    problems.join("\n  ")
)]
pub(crate) struct PreflightError {
    /// Each problem with its fix.
    pub problems: Vec<String>,
    /// One of them means the agent CLI cannot start (exit 6).
    pub agent: bool,
}

/// The agents as installed (their argv by version) and what the checks found.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    pub agent: AgentSpec,
    pub reviewer: Option<AgentSpec>,
    pub findings: Vec<Finding>,
}

/// Read the versions and, when `full`, run every check.
pub(crate) fn check(opts: &Options, full: bool) -> Checked {
    let scope = gather::Scope {
        root: &opts.root,
        prd_path: &opts.prd_path,
        agent: &opts.agent,
        verify: &opts.settings.verify,
        env: &opts.env,
        probe_argv: full,
    };
    let (agent, findings) = if full {
        let facts = gather::facts(&scope);
        let agent = opts.agent.for_version(facts.agent.version.clone());
        let findings = doctor::judge(&agent, &facts);
        (agent, findings)
    } else {
        let facts = gather::agent_facts(&scope);
        let agent = opts.agent.for_version(facts.version.clone());
        let version = match facts.path {
            Some(_) => doctor::judge_version(&agent, facts.version.as_ref()),
            None => None,
        };
        (agent, version.into_iter().collect())
    };
    let reviewer = opts.reviewer.as_ref().map(|r| {
        let facts = gather::agent_facts(&gather::Scope {
            agent: r,
            probe_argv: false,
            ..scope
        });
        r.for_version(facts.version)
    });
    Checked {
        agent,
        reviewer,
        findings,
    }
}

/// Report the warnings (the banner already says when nothing verifies) and stop on problems.
pub(crate) fn enforce(opts: &Options, findings: &[Finding]) -> Result<(), PreflightError> {
    let rep = &*opts.reporter;
    for f in findings.iter().filter(|f| f.status == Status::Warning) {
        if f.check == "verify" && opts.settings.verify.is_empty() {
            continue;
        }
        rep.report(Event::Warning { text: with_fix(f) });
    }
    let problems: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.status == Status::Problem)
        .collect();
    if problems.is_empty() {
        return Ok(());
    }
    Err(PreflightError {
        problems: problems.iter().map(|f| with_fix(f)).collect(),
        agent: problems.iter().any(|f| f.blocks_agent),
    })
}

fn with_fix(f: &Finding) -> String {
    match &f.fix {
        Some(fix) => format!("{}: {}. Fix: {fix}", f.check, f.message),
        None => format!("{}: {}", f.check, f.message),
    }
}
