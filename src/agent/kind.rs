//! The agents ralph knows ([`AgentKind`], plus `custom`) and how a prompt reaches one
//! ([`PromptMode`]): their names as `--agent`, ralph.toml and history write them.
//!
//! A leaf the presets (`preset.rs`) and the spec (the parent module, which re-exports both)
//! share. Does not know what any agent runs.

/// The agent CLIs ralph knows, plus `custom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    Claude,
    Codex,
    Amp,
    Copilot,
    Gemini,
    Opencode,
    Custom,
}

impl AgentKind {
    /// The name `--agent` takes, ralph.toml's `[agent] name`, history's `agent` (the same as
    /// clap's `ValueEnum` derives: a unit test holds them together).
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
            AgentKind::Amp => "amp",
            AgentKind::Copilot => "copilot",
            AgentKind::Gemini => "gemini",
            AgentKind::Opencode => "opencode",
            AgentKind::Custom => "custom",
        }
    }

    /// Every agent's name, in the order `--agent`'s help lists them (clap's `ValueEnum`).
    pub fn names() -> impl Iterator<Item = &'static str> {
        <AgentKind as clap::ValueEnum>::value_variants()
            .iter()
            .map(|k| k.name())
    }

    /// The agent of this name (exactly as `--agent` takes it).
    pub fn from_name(s: &str) -> Option<AgentKind> {
        <AgentKind as clap::ValueEnum>::from_str(s, false).ok()
    }

    /// The names, comma-separated, for messages that list them.
    pub fn list() -> String {
        AgentKind::names().collect::<Vec<_>>().join(", ")
    }

    /// ` (did you mean "x"?)` when a name is near the unknown `name`, else nothing.
    pub fn did_you_mean(name: &str) -> String {
        crate::suggest::nearest(name, AgentKind::names())
            .map(|n| format!(" (did you mean \"{n}\"?)"))
            .unwrap_or_default()
    }
}

/// How the prompt reaches the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptMode {
    /// Written to the agent's standard input.
    Stdin,
    /// Passed as one argument (at `{prompt}` in a custom command, else last).
    Arg,
    /// Written to a file whose path is passed as an argument (at `{prompt_file}`, else last).
    File,
}

impl PromptMode {
    /// The mode of this name (`stdin`, `arg`, `file`: clap's `ValueEnum`).
    pub fn from_name(s: &str) -> Option<PromptMode> {
        <PromptMode as clap::ValueEnum>::from_str(s, false).ok()
    }
}
