//! `ralph doctor [--agent NAME] [--json]`: the preflight checks of `ralph run`, on their own,
//! each with what to do; exit 1 when any is a problem. The checks are `crate::doctor`'s.

use clap::Args;
use serde_json::json;

use super::ctx::Ctx;
use super::envelope::{Envelope, Problem};
use crate::agent::{AgentKind, AgentSpec};
use crate::config::Layer;
use crate::doctor::{self, Finding, Status, gather};
use crate::exit::Code;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The agent to check (default: the one `ralph run` would use); --tool is the same.
    #[arg(long, value_enum, visible_alias = "tool")]
    pub agent: Option<AgentKind>,
    /// A custom agent command to check (implies --agent custom).
    #[arg(long, value_name = "CMD")]
    pub agent_cmd: Option<String>,
    /// Print the checks as the JSON envelope.
    #[arg(long)]
    pub json: bool,
}

/// The checks for the agent and project `ralph run` would use, with the CLI's version read.
pub(crate) fn check(
    ctx: &Ctx,
    spec: &AgentSpec,
    verify: &[String],
    allow_dirty: bool,
) -> (AgentSpec, Vec<Finding>) {
    let facts = gather::facts(&gather::Scope {
        root: &ctx.root,
        prd_path: &ctx.prd_path,
        agent: spec,
        verify,
        env: &[],
        probe_argv: true,
    });
    let mut facts = facts;
    facts.branch = branch(ctx, allow_dirty);
    let spec = spec.for_version(facts.agent.version.clone());
    let findings = doctor::judge(&spec, &facts);
    (spec, findings)
}

/// What the run's branch start would do (`None` when prd.json does not load, which its own
/// check says, or outside git, which the `git` check says).
fn branch(ctx: &Ctx, allow_dirty: bool) -> Option<doctor::Branch> {
    use crate::run::start::branch::{Inspection, Plan, describe, inspect};
    let prd = crate::prd::Prd::load(&ctx.prd_path).ok()?;
    let b = match inspect(&ctx.root, &prd) {
        Ok(Inspection::Outside(_)) => return None,
        Ok(i) => {
            let dirty = match &i {
                Inspection::NoBranch { dirty } | Inspection::Inside { dirty, .. } => {
                    !dirty.is_empty()
                }
                _ => false,
            };
            let refuses = matches!(i, Inspection::InvalidName(_))
                || matches!(
                    i,
                    Inspection::Inside {
                        plan: Plan::BaseMissing,
                        ..
                    }
                )
                || (dirty && !allow_dirty);
            doctor::Branch {
                lines: describe(&i, allow_dirty),
                refuses,
            }
        }
        Err(e) => doctor::Branch {
            lines: vec![e.to_string()],
            refuses: true,
        },
    };
    Some(b)
}

pub(crate) fn doctor(ctx: &Ctx, args: DoctorArgs) -> anyhow::Result<Code> {
    let settings = ctx.settings(&Layer {
        agent: args.agent,
        agent_cmd: args.agent_cmd.clone(),
        ..Layer::default()
    })?;
    let spec = AgentSpec::resolve(settings.agent, settings.agent_cmd.as_deref(), None)?;
    let (spec, findings) = check(ctx, &spec, &settings.verify, settings.allow_dirty);
    let code = if doctor::has_problems(&findings) {
        Code::ERROR
    } else {
        Code::OK
    };
    if args.json {
        envelope(&spec, &findings).emit()?;
        return Ok(code);
    }
    print(&doctor::lines(&findings))?;
    let problems = findings
        .iter()
        .filter(|f| f.status == Status::Problem)
        .count();
    if problems > 0 {
        crate::say!(
            "ralph doctor: {problems} problem(s); `ralph run` would stop before its first agent"
        );
    }
    Ok(code)
}

/// The lines on stdout, styled when it is a terminal; a closed pipe is not an error.
fn print(lines: &[String]) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
    let mut out = anstream::stdout().lock();
    for l in lines {
        match writeln!(out, "{l}") {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            r => r.context("cannot write to stdout")?,
        }
    }
    Ok(())
}

/// `ralph doctor --json`: the agent, its version, every check; problems are the envelope's
/// errors and warnings its warnings, with the check's name as their code.
fn envelope(spec: &AgentSpec, findings: &[Finding]) -> Envelope {
    let problem = |f: &Finding| {
        let mut message = f.message.clone();
        if let Some(fix) = &f.fix {
            message.push_str("; fix: ");
            message.push_str(fix);
        }
        Problem::new(format!("doctor-{}", f.check), message)
    };
    let of = |s: Status| findings.iter().filter(move |f| f.status == s);
    Envelope::new(
        "doctor",
        json!({
            "agent": spec.kind.name(),
            "program": spec.program(),
            "version": spec.version.as_ref().map(ToString::to_string),
            "argv": spec.argv,
            "checks": findings,
            "ok": !doctor::has_problems(findings),
        }),
    )
    .errors(of(Status::Problem).map(problem))
    .warnings(of(Status::Warning).map(problem))
}
