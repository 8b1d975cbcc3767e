//! `ralph doctor`: is this machine and project ready for `ralph run`? The same checks run as
//! the preflight at the start of a run (`crate::run::start::preflight`).
//!
//! Owns the judgement, as pure functions of what was found ([`Facts`], gathered by
//! [`gather`]): each check gives a [`Finding`] (ok, warning or problem, with what to do). Does
//! not run the loop, and reads nothing itself outside [`gather`].

pub(crate) mod gather;
pub(crate) mod trust;

use serde::Serialize;

use crate::agent::advice;
use crate::agent::detect::{self, Refusal};
use crate::agent::probe::Answer;
use crate::agent::version::{Fit, Range, Version};
use crate::agent::{AgentKind, AgentSpec};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Ok,
    Warning,
    Problem,
}

/// One check's result: what was found and, unless it is ok, what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Finding {
    /// The check's name: `agent`, `version`, `argv`, `credentials`, `trust` (Gemini CLI),
    /// `root`, `git`, `branch` (`ralph doctor` only), `verify`, `prd`, `state`, `disk`.
    pub check: &'static str,
    pub status: Status,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// The agent CLI cannot start (a run stops with exit 6 rather than 1).
    #[serde(skip)]
    pub blocks_agent: bool,
}

impl Finding {
    fn ok(check: &'static str, message: impl Into<String>) -> Finding {
        Finding {
            check,
            status: Status::Ok,
            message: message.into(),
            fix: None,
            blocks_agent: false,
        }
    }

    fn warn(check: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Finding {
        Finding {
            status: Status::Warning,
            fix: Some(fix.into()),
            ..Finding::ok(check, message)
        }
    }

    fn problem(check: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Finding {
        Finding {
            status: Status::Problem,
            fix: Some(fix.into()),
            ..Finding::ok(check, message)
        }
    }

    fn agent_problem(
        check: &'static str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Finding {
        Finding {
            blocks_agent: true,
            ..Finding::problem(check, message, fix)
        }
    }
}

/// What [`gather`] found about the agent CLI.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentFacts {
    /// The program's full path; `None`: not found on PATH.
    pub path: Option<std::path::PathBuf>,
    /// What `--version` printed, read.
    pub version: Option<Version>,
    /// The answer to the argv with `--help` (`None`: not asked, a custom command).
    pub argv_help: Option<Answer>,
    /// Where credentials were found (an environment variable's name, a file), if anywhere.
    pub credentials: Option<String>,
    /// The credential sources looked at, for the message when none is found.
    pub looked_at: Vec<String>,
    /// Gemini CLI: whether it trusts the project folder (`None`: another CLI).
    pub trust: Option<trust::Trust>,
}

/// Everything the checks judge.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    pub agent: AgentFacts,
    /// ralph runs as root (uid 0).
    pub root: bool,
    /// IS_SANDBOX is set in ralph's environment (Claude Code then runs as root).
    pub is_sandbox: bool,
    /// `git var GIT_AUTHOR_IDENT` answered (a name and email for commits); `None`: not a
    /// git repository.
    pub git_identity: Option<bool>,
    /// Verify commands whose program is not found: the command and the program.
    pub verify_missing: Vec<(String, String)>,
    pub verify_count: usize,
    /// prd.json's problem, if it does not load (the first diagnostic).
    pub prd_error: Option<String>,
    /// `.ralph/` cannot be written: why.
    pub state_error: Option<String>,
    /// Free bytes on the project's file system, when known.
    pub free_bytes: Option<u64>,
    /// Where the run would start on git (`ralph doctor` only: a run does its own branch start,
    /// with its own messages): what it would do, and whether it would refuse.
    pub branch: Option<Branch>,
}

/// What the run's branch start would do (lines as `ralph run --dry-run` says them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Branch {
    pub lines: Vec<String>,
    /// The run would refuse to start: why (a dirty tree, a missing baseBranch, a bad name).
    pub refuses: bool,
}

/// Below this, a run stops before it starts.
pub(crate) const DISK_PROBLEM: u64 = 100 * 1024 * 1024;
/// Below this, a warning.
pub(crate) const DISK_WARNING: u64 = 1024 * 1024 * 1024;

/// Every check, in the order a person reads them.
pub(crate) fn judge(spec: &AgentSpec, f: &Facts) -> Vec<Finding> {
    let mut out = vec![found(spec, &f.agent)];
    if f.agent.path.is_some() && spec.kind != AgentKind::Custom {
        out.push(version(spec, f.agent.version.as_ref()));
        out.extend(argv(spec, f.agent.argv_help.as_ref()));
        out.push(credentials(spec.kind, &f.agent));
        out.extend(f.agent.trust.as_ref().map(|t| trusted(spec, t)));
    }
    out.push(root(spec.kind, f.root, f.is_sandbox));
    out.push(git(f.git_identity));
    out.extend(f.branch.as_ref().map(branch));
    out.push(verify(f.verify_count, &f.verify_missing));
    out.push(match &f.prd_error {
        None => Finding::ok("prd", "prd.json is valid"),
        Some(e) => Finding::problem(
            "prd",
            e.clone(),
            "fix it; `ralph validate` lists every problem",
        ),
    });
    out.push(match &f.state_error {
        None => Finding::ok("state", ".ralph/ is writable"),
        Some(e) => Finding::problem(
            "state",
            e.clone(),
            "make the project folder writable for this user",
        ),
    });
    out.push(disk(f.free_bytes));
    out
}

fn found(spec: &AgentSpec, a: &AgentFacts) -> Finding {
    let name = spec.kind.name();
    match &a.path {
        Some(p) => Finding::ok("agent", format!("{name}: {}", p.display())),
        None => {
            let install = crate::agent::preset::of(spec.kind)
                .map(|p| format!("install it (`npm install -g {}`), or ", p.package))
                .unwrap_or_default();
            Finding::problem(
                "agent",
                format!("{} not found on PATH", spec.program()),
                format!("{install}choose another --agent"),
            )
        }
    }
}

/// The version check alone (a run with `--no-preflight` still warns about it): `None` for a
/// custom command.
pub(crate) fn judge_version(spec: &AgentSpec, v: Option<&Version>) -> Option<Finding> {
    (spec.kind != AgentKind::Custom).then(|| version(spec, v))
}

fn version(spec: &AgentSpec, v: Option<&Version>) -> Finding {
    let name = spec.kind.name();
    let Some(range) = crate::agent::preset::of(spec.kind).map(|p| p.verified) else {
        return Finding::ok("version", format!("{name}: a custom command, not checked"));
    };
    let Some(v) = v else {
        return Finding::warn(
            "version",
            format!("{name} --version printed no version"),
            format!("check the installation; ralph's preset was verified with {range}"),
        );
    };
    match range.fit(v) {
        Fit::Inside => Finding::ok("version", format!("{name} {v} (verified: {range})")),
        fit => Finding::warn(
            "version",
            outside(name, v, &range, fit),
            "if a run fails, install a verified version or report the change",
        ),
    }
}

/// "claude 2.2.0 is newer than the newest version ralph's preset was verified with (2.1.332)".
pub(crate) fn outside(name: &str, v: &Version, range: &Range, fit: Fit) -> String {
    match fit {
        Fit::Newer => format!(
            "{name} {v} is newer than the newest version ralph's preset was verified with ({})",
            range.newest
        ),
        _ => format!(
            "{name} {v} is older than the oldest version ralph's preset was verified with ({})",
            range.oldest
        ),
    }
}

/// The argv check: the CLI refuses the flags (exit status or its words), or its help does not
/// list one of them.
fn argv(spec: &AgentSpec, help: Option<&Answer>) -> Option<Finding> {
    let a = help?;
    let name = spec.kind.name();
    let preset = crate::agent::preset::of(spec.kind);
    let fix = advice::argv(
        spec.kind,
        preset.as_ref().map(|p| p.package),
        preset.as_ref().map(|p| &p.verified),
    );
    let text = a.text();
    if let Some((Refusal::UnknownArgument, line)) = detect::refusal(&text) {
        return Some(Finding::agent_problem(
            "argv",
            format!("{name} rejects ralph's flags: {line}"),
            fix,
        ));
    }
    if a.timed_out || a.exit_code != Some(0) {
        let how = if a.timed_out {
            "did not answer".to_string()
        } else {
            format!(
                "exited {}",
                a.exit_code.map_or("by a signal".into(), |c| c.to_string())
            )
        };
        let last = text
            .lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty())
            .unwrap_or("");
        return Some(Finding::agent_problem(
            "argv",
            format!("{name} with ralph's flags and --help {how}: {last}"),
            fix,
        ));
    }
    let hidden = preset.as_ref().map_or(&[][..], |p| p.hidden);
    let missing = unlisted(&spec.argv, &text, hidden);
    if !missing.is_empty() {
        return Some(Finding::agent_problem(
            "argv",
            format!("{name}'s help does not list {}", missing.join(", ")),
            fix,
        ));
    }
    Some(Finding::ok(
        "argv",
        format!("{name} accepts {}", shell_words::join(&spec.argv[1..])),
    ))
}

/// The long flags of `argv` that a help text listing options does not name (none when the
/// help lists no `--` option at all: nothing to compare with), `hidden` ones aside.
pub(crate) fn unlisted(argv: &[String], help: &str, hidden: &[&str]) -> Vec<String> {
    let listed = |flag: &str| {
        help.match_indices(flag).any(|(i, _)| {
            let next = help[i + flag.len()..].chars().next();
            !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    };
    if !help.contains("--") {
        return vec![];
    }
    argv.iter()
        .filter(|a| a.starts_with("--") && a.len() > 2)
        .map(|a| a.split('=').next().unwrap_or(a).to_string())
        .filter(|f| !hidden.contains(&f.as_str()) && !listed(f))
        .collect()
}

fn credentials(kind: AgentKind, a: &AgentFacts) -> Finding {
    let name = kind.name();
    match &a.credentials {
        Some(src) => Finding::ok("credentials", format!("{name}: {src}")),
        None => Finding::warn(
            "credentials",
            format!(
                "{name}: no credentials found (looked at {})",
                a.looked_at.join(", ")
            ),
            advice::login(kind),
        ),
    }
}

/// Gemini CLI in a folder it does not trust: 0.61 and later refuse to run headless there.
fn trusted(spec: &AgentSpec, t: &trust::Trust) -> Finding {
    let name = spec.kind.name();
    match t {
        trust::Trust::Trusted(why) => {
            Finding::ok("trust", format!("{name} trusts this folder ({why})"))
        }
        trust::Trust::NotTrusted(why) => {
            let message =
                format!("{name} does not trust this folder ({why}) and would refuse to start");
            let fix = advice::untrusted(spec.kind);
            let refuses = spec
                .version
                .as_ref()
                .is_some_and(|v| v >= &Version::new(0, 61, 0));
            if refuses {
                Finding::agent_problem("trust", message, fix)
            } else {
                Finding::warn(
                    "trust",
                    message.replace(
                        "would refuse to start",
                        "may refuse to start or ignore --yolo",
                    ),
                    fix,
                )
            }
        }
    }
}

fn root(kind: AgentKind, root: bool, sandbox: bool) -> Finding {
    match (root, kind, sandbox) {
        (false, _, _) => Finding::ok("root", "not running as root"),
        (true, AgentKind::Claude, false) => Finding::agent_problem(
            "root",
            "running as root, and IS_SANDBOX is not set: claude would refuse to start",
            advice::root(kind),
        ),
        (true, AgentKind::Claude, true) => Finding::ok(
            "root",
            "running as root with IS_SANDBOX set: Claude Code takes this machine for a sandbox",
        ),
        (true, _, _) => Finding::ok("root", "running as root"),
    }
}

fn git(identity: Option<bool>) -> Finding {
    match identity {
        Some(true) => Finding::ok("git", "git knows who commits"),
        Some(false) => Finding::problem(
            "git",
            "git has no identity for commits (the agent's commits and ralph's corrections would fail)",
            "git config --global user.name \"Your Name\" && git config --global user.email you@example.com",
        ),
        None => Finding::warn(
            "git",
            "not a git repository: progress can only be seen from prd.json, and nothing is committed",
            "git init && git add -A && git commit -m start",
        ),
    }
}

fn branch(b: &Branch) -> Finding {
    let message = b.lines.join("; ");
    if b.refuses {
        Finding::problem(
            "branch",
            message,
            "commit or stash your changes (or pass --allow-dirty), and make prd.json's branchName / baseBranch name branches git has",
        )
    } else {
        Finding::ok("branch", message)
    }
}

fn verify(count: usize, missing: &[(String, String)]) -> Finding {
    if let Some((cmd, program)) = missing.first() {
        return Finding::problem(
            "verify",
            format!("verify command `{cmd}`: {program} not found on PATH"),
            "install it, or fix the command (--verify, [verify] commands in ralph.toml)",
        );
    }
    match count {
        0 => Finding::warn(
            "verify",
            "no verify commands: nothing checks the agent's claims",
            "add one: --verify \"cargo test\" or [verify] commands in ralph.toml",
        ),
        n => Finding::ok(
            "verify",
            format!("{n} verify command(s), each program found"),
        ),
    }
}

fn disk(free: Option<u64>) -> Finding {
    let mib = |b: u64| b / (1024 * 1024);
    match free {
        None => Finding::ok("disk", "free space unknown"),
        Some(b) if b < DISK_PROBLEM => Finding::problem(
            "disk",
            format!("{} MiB free", mib(b)),
            "free some space: the agent, builds and logs need it",
        ),
        Some(b) if b < DISK_WARNING => Finding::warn(
            "disk",
            format!("{} MiB free", mib(b)),
            "free some space before a long run",
        ),
        Some(b) => Finding::ok("disk", format!("{} MiB free", mib(b))),
    }
}

/// Whether any finding is a problem.
pub(crate) fn has_problems(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.status == Status::Problem)
}

/// The lines a person reads: `ok      agent: claude: /usr/bin/claude`, a problem's fix below it.
pub(crate) fn lines(findings: &[Finding]) -> Vec<String> {
    let mut out = vec![];
    for f in findings {
        let (tag, style) = match f.status {
            Status::Ok => ("ok", crate::ui::GOOD),
            Status::Warning => ("warning", crate::ui::WAITING),
            Status::Problem => ("problem", crate::ui::BAD),
        };
        let tag = crate::ui::paint(style, &format!("{tag:<7}"));
        out.push(format!("{tag} {}: {}", f.check, f.message));
        if let Some(fix) = &f.fix {
            out.push(format!("        fix: {fix}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
