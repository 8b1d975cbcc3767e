//! What to tell a person whose agent CLI cannot start: one sentence per cause and CLI, shared
//! by `ralph run` (an agent that refused to start) and `ralph doctor` (the same causes found
//! before any run). Pure text; does not detect anything (see [`super::detect::refusal`]).

use super::AgentKind;
use super::detect::{Refusal, StartFailure};
use super::version::Range;

/// How to give `kind` credentials.
pub(crate) fn login(kind: AgentKind) -> &'static str {
    match kind {
        AgentKind::Claude => {
            "log in once with `claude` (then /login), or set ANTHROPIC_API_KEY in ralph's environment"
        }
        AgentKind::Codex => {
            "log in once with `codex login`, or set OPENAI_API_KEY (or CODEX_API_KEY) in ralph's environment"
        }
        AgentKind::Gemini => {
            "set GEMINI_API_KEY in ralph's environment, or choose an auth type in ~/.gemini/settings.json (run `gemini` once)"
        }
        AgentKind::Copilot => {
            "set COPILOT_GITHUB_TOKEN (or GH_TOKEN) in ralph's environment, or log in once with `copilot` (then /login)"
        }
        AgentKind::Amp => "log in once with `amp login`, or set AMP_API_KEY in ralph's environment",
        AgentKind::Opencode => {
            "log in once with `opencode auth login`, or set the provider's API key in ralph's environment"
        }
        AgentKind::Custom => "give the agent its credentials the way its documentation says",
    }
}

/// What running as root means for `kind`, when it refuses: how to proceed.
pub(crate) fn root(kind: AgentKind) -> String {
    match kind {
        AgentKind::Claude => "Claude Code refuses --dangerously-skip-permissions as root. Run ralph as an \
             ordinary user (for example `useradd -m agent && su agent -c 'ralph run'`), or, only if \
             this is a throw-away container or VM that holds nothing you would miss and reaches no \
             credentials you care about, set IS_SANDBOX=1 in ralph's environment to tell Claude \
             Code it is sandboxed. ralph never sets it for you"
            .to_string(),
        _ => format!(
            "{} refuses to run as root with ralph's flags: run ralph as an ordinary user",
            kind.name()
        ),
    }
}

/// What to do when a CLI will not run headless in a folder it does not trust (Gemini CLI).
pub(crate) fn untrusted(kind: AgentKind) -> String {
    match kind {
        AgentKind::Gemini => {
            "Gemini CLI runs headless only in a folder it trusts. Trust this project \
             once (run `gemini` in it and choose to trust the folder), or, for unattended runs on \
             projects you trust, set GEMINI_CLI_TRUST_WORKSPACE=true in ralph's environment (the \
             folder's own .gemini settings then apply). ralph never trusts a folder for you"
                .to_string()
        }
        _ => format!(
            "{} does not trust this folder: trust it as its documentation says",
            kind.name()
        ),
    }
}

/// What to do when the CLI does not accept ralph's argv.
pub(crate) fn argv(kind: AgentKind, package: Option<&str>, verified: Option<&Range>) -> String {
    if kind == AgentKind::Custom {
        return "the agent command rejects one of its arguments: fix --agent-cmd ([agent] cmd in \
                ralph.toml)"
            .to_string();
    }
    let mut s = format!(
        "the installed {} does not accept the flags of ralph's preset",
        kind.name()
    );
    if let Some(r) = verified {
        s.push_str(&format!(" (verified with {r})"));
    }
    s.push_str("; ");
    if let (Some(pkg), Some(r)) = (package, verified) {
        s.push_str(&format!(
            "install a verified version (`npm install -g {pkg}@{}`), or ",
            r.newest
        ));
    }
    s.push_str("give your own command with --agent-cmd \"…\" ([agent] cmd in ralph.toml)");
    s
}

/// The advice for a refusal of `kind`.
pub(crate) fn for_refusal(
    refusal: Refusal,
    kind: AgentKind,
    package: Option<&str>,
    verified: Option<&Range>,
) -> String {
    match refusal {
        Refusal::UnknownArgument => argv(kind, package, verified),
        Refusal::Root => root(kind),
        Refusal::NotLoggedIn => login(kind).to_string(),
        Refusal::Untrusted => untrusted(kind),
    }
}

/// What to do about an agent that did not start, run with `argv`.
pub(crate) fn for_failure(failure: &StartFailure, kind: AgentKind, argv: &[String]) -> String {
    let preset = super::preset::of(kind);
    match failure {
        StartFailure::Refused(r, _) => for_refusal(
            *r,
            kind,
            preset.as_ref().map(|p| p.package),
            preset.as_ref().map(|p| &p.verified),
        ),
        StartFailure::NotRunnable(_) => format!(
            "check that the command exists and can be run: `{}`",
            shell_words::join(argv)
        ),
        StartFailure::NoSession(_) => format!(
            "run the command by hand in the project to see why it stops (`{}`; the prompt is in the run's prompt-N.md), and `ralph doctor` for the usual causes",
            shell_words::join(argv)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::version::Version;

    #[test]
    fn the_root_advice_names_is_sandbox_and_when_it_is_appropriate() {
        let a = for_refusal(Refusal::Root, AgentKind::Claude, None, None);
        assert!(a.contains("IS_SANDBOX=1"), "{a}");
        assert!(a.contains("throw-away container"), "{a}");
        assert!(a.contains("ralph never sets it for you"), "{a}");
    }

    #[test]
    fn the_argv_advice_names_the_verified_version_to_install() {
        let r = Range {
            oldest: Version::new(0, 128, 0),
            newest: Version::new(0, 171, 0),
        };
        assert_eq!(
            argv(AgentKind::Codex, Some("@openai/codex"), Some(&r)),
            "the installed codex does not accept the flags of ralph's preset (verified with \
             0.128.0 to 0.171.0); install a verified version (`npm install -g \
             @openai/codex@0.171.0`), or give your own command with --agent-cmd \"…\" ([agent] \
             cmd in ralph.toml)"
        );
        assert_eq!(
            argv(AgentKind::Custom, None, None),
            "the agent command rejects one of its arguments: fix --agent-cmd ([agent] cmd in \
             ralph.toml)"
        );
    }
}
