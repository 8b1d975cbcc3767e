//! The preset table: for each agent CLI ralph knows, the headless argv by version, how the
//! prompt reaches it, the output format it turns on, and the versions the argv was verified
//! with against the real program (`scripts/agent-contract.sh`).
//!
//! Owns the table and the choice of a row by version. Pure. Reading the installed version is
//! [`super::probe`]'s; the argv's use is [`super::AgentSpec`]'s and [`super::plan`]'s.

use super::kind::{AgentKind, PromptMode};
use super::slots::USAGE_FILE;
use super::telemetry::Format;
use super::version::{Range, Version};

/// One argv of a CLI, used from version `since` until the next row's.
#[derive(Debug)]
pub(crate) struct Flags {
    pub since: Version,
    /// After the program name; `{prompt}` where an argument-mode prompt goes.
    pub args: &'static [&'static str],
    pub format: Format,
}

/// One CLI.
#[derive(Debug)]
pub(crate) struct Preset {
    pub kind: AgentKind,
    pub program: &'static str,
    pub prompt_mode: PromptMode,
    /// Oldest first; the first row also serves versions older than its `since`.
    pub flags: &'static [Flags],
    /// The versions the newest argv was run against, end to end, by the contract script.
    pub verified: Range,
    /// The npm package the CLI is installed from (what `ralph doctor` tells to install).
    pub package: &'static str,
    /// Flags the CLI accepts but its help (asked with the preset's flags) does not list, so
    /// `ralph doctor` does not take them for unknown.
    pub hidden: &'static [&'static str],
}

const fn v(major: u64, minor: u64, patch: u64) -> Version {
    Version::new(major, minor, patch)
}

const CLAUDE: &[Flags] = &[Flags {
    since: v(0, 0, 0),
    args: &[
        "--print",
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
    ],
    format: Format::Claude,
}];

/// codex deprecated `--full-auto` in 0.128 and removed it later; `--sandbox workspace-write`
/// is what it stood for in `exec` (which never asks for approval). That sandbox keeps `.git`
/// read-only, so the agent's commits fail: the git dirs of its work tree are made writable
/// (checked with codex 0.171 in a clone and in a linked worktree).
const CODEX: &[Flags] = &[
    Flags {
        since: v(0, 0, 0),
        args: &["exec", "--json", "--full-auto", "-"],
        format: Format::Codex,
    },
    Flags {
        since: v(0, 128, 0),
        args: &[
            "exec",
            "--json",
            "--sandbox",
            "workspace-write",
            "-c",
            "sandbox_workspace_write.writable_roots={git_dirs}",
            "-",
        ],
        format: Format::Codex,
    },
];

const AMP: &[Flags] = &[Flags {
    since: v(0, 0, 0),
    args: &["--execute", "--stream-json", "--dangerously-allow-all"],
    format: Format::Amp,
}];

/// Copilot CLI prints its session as JSON events and writes its token counts to a file from
/// 1.0.92 on (seen in its help); before, plain text.
const COPILOT: &[Flags] = &[
    Flags {
        since: v(0, 0, 0),
        args: &["-p", "{prompt}", "--allow-all-tools"],
        format: Format::Plain,
    },
    Flags {
        since: v(1, 0, 92),
        args: &[
            "-p",
            "{prompt}",
            "--allow-all-tools",
            "--output-format",
            "json",
            "--usage-output-file",
            USAGE_FILE,
        ],
        format: Format::Copilot,
    },
];

const GEMINI: &[Flags] = &[Flags {
    since: v(0, 0, 0),
    args: &["--yolo", "--output-format", "stream-json", "-p", "{prompt}"],
    format: Format::Gemini,
}];

const OPENCODE: &[Flags] = &[Flags {
    since: v(0, 0, 0),
    args: &["run", "--format", "json", "{prompt}"],
    format: Format::Opencode,
}];

/// Every preset, in [`AgentKind`]'s order (custom has none). `hidden`: amp accepts
/// `--dangerously-allow-all` without listing it; gemini leaves `--output-format` out of the
/// help it prints when that flag is given (both seen with the versions verified).
pub(crate) fn all() -> [Preset; 6] {
    [
        Preset {
            kind: AgentKind::Claude,
            program: "claude",
            prompt_mode: PromptMode::Stdin,
            flags: CLAUDE,
            verified: range(v(2, 1, 332), v(2, 1, 332)),
            package: "@anthropic-ai/claude-code",
            hidden: &[],
        },
        Preset {
            kind: AgentKind::Codex,
            program: "codex",
            prompt_mode: PromptMode::Stdin,
            flags: CODEX,
            verified: range(v(0, 171, 0), v(0, 171, 0)),
            package: "@openai/codex",
            hidden: &[],
        },
        Preset {
            kind: AgentKind::Amp,
            program: "amp",
            prompt_mode: PromptMode::Stdin,
            flags: AMP,
            verified: range(v(0, 0, 1_790_142_911), v(0, 0, 1_790_142_911)),
            package: "@sourcegraph/amp",
            hidden: &["--dangerously-allow-all"],
        },
        Preset {
            kind: AgentKind::Copilot,
            program: "copilot",
            prompt_mode: PromptMode::Arg,
            flags: COPILOT,
            verified: range(v(1, 0, 102), v(1, 0, 102)),
            package: "@github/copilot",
            hidden: &[],
        },
        Preset {
            kind: AgentKind::Gemini,
            program: "gemini",
            prompt_mode: PromptMode::Arg,
            flags: GEMINI,
            verified: range(v(0, 61, 0), v(0, 61, 0)),
            package: "@google/gemini-cli",
            hidden: &["--output-format"],
        },
        Preset {
            kind: AgentKind::Opencode,
            program: "opencode",
            prompt_mode: PromptMode::Arg,
            flags: OPENCODE,
            verified: range(v(1, 18, 33), v(1, 18, 33)),
            package: "opencode-ai",
            hidden: &[],
        },
    ]
}

const fn range(oldest: Version, newest: Version) -> Range {
    Range { oldest, newest }
}

/// The preset of `kind`; `None` for custom.
pub(crate) fn of(kind: AgentKind) -> Option<Preset> {
    all().into_iter().find(|p| p.kind == kind)
}

impl Preset {
    /// The argv for `version`: the newest row whose `since` it reaches; the newest row when the
    /// version is unknown (what a fresh install gets).
    pub(crate) fn flags_for(&self, version: Option<&Version>) -> &'static Flags {
        let rows = self.flags;
        let newest = &rows[rows.len() - 1];
        match version {
            None => newest,
            Some(ver) => rows
                .iter()
                .rev()
                .find(|r| &r.since <= ver)
                .unwrap_or(&rows[0]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_but_custom_has_one_preset_with_rows_in_order() {
        let all = all();
        let kinds = <AgentKind as clap::ValueEnum>::value_variants();
        for &kind in kinds.iter().filter(|k| **k != AgentKind::Custom) {
            let p = of(kind).unwrap();
            assert_eq!(p.program, kind.name());
            assert!(!p.flags.is_empty());
            assert!(p.flags.windows(2).all(|w| w[0].since < w[1].since));
            assert!(p.verified.oldest <= p.verified.newest);
            assert_eq!(all.iter().filter(|x| x.kind == kind).count(), 1);
        }
        assert!(of(AgentKind::Custom).is_none());
    }

    #[test]
    fn codex_gets_full_auto_before_0_128_and_the_sandbox_flag_from_then_on() {
        let codex = of(AgentKind::Codex).unwrap();
        let at = |s: &str| codex.flags_for(Version::find(s).as_ref()).args;
        assert!(at("codex-cli 0.127.3").contains(&"--full-auto"));
        assert!(at("codex-cli 0.128.0").contains(&"workspace-write"));
        assert!(at("codex-cli 0.171.0").contains(&"workspace-write"));
        assert!(!codex.flags_for(None).args.contains(&"--full-auto"));
    }
}
