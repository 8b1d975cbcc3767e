//! The per-agent system instructions that open every prompt.
//!
//! Owns the three embedded defaults (Claude-style, Codex-style, Copilot-style; each with the
//! DISCOVERY PROTOCOL near the top, one story per run, the completion signal, never ask
//! questions), which agent uses which flavour, and the project override:
//! `<root>/system_instructions/<file>` replaces the default when present (the file names of the
//! widely used bash fork, so its projects keep their instructions). Does not assemble prompts.

use serde::Serialize;
use std::path::{Path, PathBuf};

use super::ContextError;

/// Which default instructions an agent gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Flavour {
    /// Claude Code and agents built like it (Amp; custom commands by default).
    Claude,
    /// OpenAI Codex CLI and similar exec-style agents (OpenCode).
    Codex,
    /// GitHub Copilot CLI and prompt-as-argument agents (Gemini CLI).
    Copilot,
}

impl Flavour {
    /// The flavour for an agent preset name (`claude`, `codex`, `amp`, `copilot`, `gemini`,
    /// `opencode`, `custom`); unknown names get the Claude flavour.
    pub fn for_agent(agent: &str) -> Flavour {
        match agent.to_ascii_lowercase().as_str() {
            "codex" | "opencode" => Flavour::Codex,
            "copilot" | "gemini" => Flavour::Copilot,
            _ => Flavour::Claude,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Flavour::Claude => "claude",
            Flavour::Codex => "codex",
            Flavour::Copilot => "copilot",
        }
    }

    /// The override's file name inside `<root>/system_instructions/`.
    pub fn file_name(self) -> &'static str {
        match self {
            Flavour::Claude => "system_instructions.md",
            Flavour::Codex => "system_instructions_codex.md",
            Flavour::Copilot => "system_instructions_copilot.md",
        }
    }

    /// The built-in instructions.
    pub fn embedded(self) -> &'static str {
        match self {
            Flavour::Claude => include_str!("instructions/claude.md"),
            Flavour::Codex => include_str!("instructions/codex.md"),
            Flavour::Copilot => include_str!("instructions/copilot.md"),
        }
    }
}

/// The instructions text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instructions {
    pub text: String,
    /// `None`: the embedded default; `Some(path)`: the project's override file.
    pub source: Option<PathBuf>,
}

/// The override path for `flavour` under `root`.
pub fn override_path(root: &Path, flavour: Flavour) -> PathBuf {
    root.join("system_instructions").join(flavour.file_name())
}

/// The instructions for `flavour`: the project's override file when it exists, else the
/// embedded default. An override that cannot be read, is not UTF-8 or is blank is an error
/// (silently falling back would hide the user's instructions).
pub fn load(root: &Path, flavour: Flavour) -> Result<Instructions, ContextError> {
    let path = override_path(root, flavour);
    if !path.exists() {
        return Ok(Instructions {
            text: flavour.embedded().to_string(),
            source: None,
        });
    }
    let bytes = crate::fsutil::read(&path)?;
    let text = String::from_utf8(bytes).map_err(|e| ContextError::BadInstructions {
        path: path.clone(),
        problem: format!(
            "not valid UTF-8 (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })?;
    if text.trim().is_empty() {
        return Err(ContextError::BadInstructions {
            path,
            problem: "the file is empty".into(),
        });
    }
    Ok(Instructions {
        text,
        source: Some(path),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Flavour; 3] = [Flavour::Claude, Flavour::Codex, Flavour::Copilot];

    #[test]
    fn every_default_has_the_protocol_near_the_top_and_the_rules() {
        for f in ALL {
            let text = f.embedded();
            let at = text.find("DISCOVERY PROTOCOL").unwrap_or(usize::MAX);
            assert!(at < 1000, "{}: protocol at byte {at}", f.name());
            assert!(text.contains("specs/INDEX.md"), "{}", f.name());
            assert!(text.contains("ONE story per run"), "{}", f.name());
            assert!(
                text.lines().any(|l| l == "STORY COMPLETE: <story id>"),
                "{}",
                f.name()
            );
            assert!(text.contains("<promise>COMPLETE</promise>"), "{}", f.name());
            assert!(text.to_lowercase().contains("question"), "{}", f.name());
        }
        assert_ne!(Flavour::Claude.embedded(), Flavour::Codex.embedded());
        assert_ne!(Flavour::Codex.embedded(), Flavour::Copilot.embedded());
    }

    #[test]
    fn agents_map_to_flavours() {
        assert_eq!(Flavour::for_agent("claude"), Flavour::Claude);
        assert_eq!(Flavour::for_agent("amp"), Flavour::Claude);
        assert_eq!(Flavour::for_agent("custom"), Flavour::Claude);
        assert_eq!(Flavour::for_agent("Codex"), Flavour::Codex);
        assert_eq!(Flavour::for_agent("opencode"), Flavour::Codex);
        assert_eq!(Flavour::for_agent("copilot"), Flavour::Copilot);
        assert_eq!(Flavour::for_agent("gemini"), Flavour::Copilot);
    }

    #[test]
    fn project_file_overrides_the_default_for_its_flavour_only() {
        let dir = tempfile::tempdir().unwrap();
        let got = load(dir.path(), Flavour::Codex).unwrap();
        assert_eq!(got.text, Flavour::Codex.embedded());
        assert_eq!(got.source, None);

        std::fs::create_dir(dir.path().join("system_instructions")).unwrap();
        let path = override_path(dir.path(), Flavour::Codex);
        std::fs::write(&path, "Custom codex rules\n").unwrap();
        let got = load(dir.path(), Flavour::Codex).unwrap();
        assert_eq!(got.text, "Custom codex rules\n");
        assert_eq!(got.source, Some(path));
        assert_eq!(
            load(dir.path(), Flavour::Claude).unwrap().text,
            Flavour::Claude.embedded()
        );
    }

    #[test]
    fn empty_or_binary_override_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("system_instructions")).unwrap();
        let path = override_path(dir.path(), Flavour::Claude);
        std::fs::write(&path, "  \n").unwrap();
        let err = load(dir.path(), Flavour::Claude).unwrap_err().to_string();
        assert!(err.contains("system_instructions.md"), "{err}");
        assert!(err.contains("empty"), "{err}");
        std::fs::write(&path, b"ok\xff").unwrap();
        let err = load(dir.path(), Flavour::Claude).unwrap_err().to_string();
        assert!(err.contains("UTF-8"), "{err}");
    }
}
