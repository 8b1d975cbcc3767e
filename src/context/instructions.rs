//! The per-agent system instructions that open every prompt.
//!
//! Owns the three embedded defaults (Claude-style, Codex-style, Copilot-style; each with the
//! DISCOVERY PROTOCOL near the top, one story per run, the completion signal, never ask
//! questions), which agent uses which flavour, and the project's own instructions, first found
//! wins: the file named by `[agent] instructions` in ralph.toml (the original Ralph's
//! `prompt.md`, for every agent), then `<root>/system_instructions/<file>` (the file names of the
//! widely used bash fork, so its projects keep their instructions), then the embedded default.
//! The reviewer's instructions ([`REVIEWER`]) are found the same way: `[review] instructions`,
//! then `system_instructions/reviewer.md`, then the embedded default.
//! Does not assemble prompts.

use serde::Serialize;
use std::path::{Path, PathBuf};

use super::error::ContextError;

/// Which default instructions an agent gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Flavour {
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
    pub(crate) fn for_agent(agent: &str) -> Flavour {
        match agent.to_ascii_lowercase().as_str() {
            "codex" | "opencode" => Flavour::Codex,
            "copilot" | "gemini" => Flavour::Copilot,
            _ => Flavour::Claude,
        }
    }

    #[cfg(test)]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Flavour::Claude => "claude",
            Flavour::Codex => "codex",
            Flavour::Copilot => "copilot",
        }
    }

    /// The override's file name inside `<root>/system_instructions/`.
    pub(crate) fn file_name(self) -> &'static str {
        match self {
            Flavour::Claude => "system_instructions.md",
            Flavour::Codex => "system_instructions_codex.md",
            Flavour::Copilot => "system_instructions_copilot.md",
        }
    }

    /// The built-in instructions.
    pub(crate) fn embedded(self) -> &'static str {
        match self {
            Flavour::Claude => include_str!("instructions/claude.md"),
            Flavour::Codex => include_str!("instructions/codex.md"),
            Flavour::Copilot => include_str!("instructions/copilot.md"),
        }
    }
}

/// The built-in instructions of the reviewer (`ralph run --review`, see `crate::review`).
pub(crate) const REVIEWER: &str = include_str!("instructions/reviewer.md");

/// The reviewer's override file under `root`.
pub(crate) fn reviewer_override_path(root: &Path) -> PathBuf {
    root.join("system_instructions").join("reviewer.md")
}

/// The instructions text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Instructions {
    pub text: String,
    /// `None`: the embedded default; `Some(path)`: the project's override file.
    pub source: Option<PathBuf>,
}

/// The override path for `flavour` under `root`.
pub(crate) fn override_path(root: &Path, flavour: Flavour) -> PathBuf {
    root.join("system_instructions").join(flavour.file_name())
}

/// The instructions for `flavour`: the file `configured` names (`[agent] instructions`, relative
/// to `root`) when set, else the project's `system_instructions/` override when it exists, else
/// the embedded default. A chosen file that is missing, cannot be read, is not UTF-8 or is blank
/// is an error (silently falling back would hide the user's instructions).
pub(crate) fn load(
    root: &Path,
    flavour: Flavour,
    configured: Option<&Path>,
) -> Result<Instructions, ContextError> {
    let fallback = (override_path(root, flavour), flavour.embedded());
    first_found(root, configured, fallback)
}

/// The reviewer's instructions: the file `configured` names (`[review] instructions`), else
/// `system_instructions/reviewer.md`, else [`REVIEWER`]; a chosen file that is missing or
/// blank is an error, as for [`load`].
pub(crate) fn load_reviewer(
    root: &Path,
    configured: Option<&Path>,
) -> Result<Instructions, ContextError> {
    let fallback = (reviewer_override_path(root), REVIEWER);
    first_found(root, configured, fallback).map_err(|e| match e {
        ContextError::ConfiguredInstructions { path, problem } => {
            ContextError::ConfiguredReviewerInstructions { path, problem }
        }
        e => e,
    })
}

/// `configured`, else the override file when it exists, else the embedded text.
fn first_found(
    root: &Path,
    configured: Option<&Path>,
    (path, embedded): (PathBuf, &'static str),
) -> Result<Instructions, ContextError> {
    if let Some(file) = configured {
        let path = root.join(file);
        tracing::debug!(path = %path.display(), "instructions from [agent] instructions");
        return read_text(&path)
            .map_err(|problem| ContextError::ConfiguredInstructions { path, problem });
    }
    if !path.exists() {
        tracing::debug!(file = %path.display(), "built-in instructions");
        return Ok(Instructions {
            text: embedded.to_string(),
            source: None,
        });
    }
    tracing::debug!(path = %path.display(), "instructions from the project's override");
    read_text(&path).map_err(|problem| ContextError::BadInstructions { path, problem })
}

/// A non-blank UTF-8 file, or what is wrong with it.
fn read_text(path: &Path) -> Result<Instructions, String> {
    let bytes = crate::fsutil::read(path).map_err(|e| match e.source.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => format!("cannot read it: {}", e.source),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "not valid UTF-8 (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    if text.trim().is_empty() {
        return Err("the file is empty".into());
    }
    Ok(Instructions {
        text,
        source: Some(path.to_path_buf()),
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
            for line in [
                "STORY BLOCKED: <story id>: <reason>",
                "STORY FAILED: <story id>: <reason>",
            ] {
                assert!(text.lines().any(|l| l == line), "{}: {line}", f.name());
            }
            assert!(text.contains("<promise>BLOCKED:"), "{}", f.name());
            assert!(text.contains("<promise>FAILED:"), "{}", f.name());
            assert!(text.to_lowercase().contains("question"), "{}", f.name());
        }
        assert_ne!(Flavour::Claude.embedded(), Flavour::Codex.embedded());
        assert_ne!(Flavour::Codex.embedded(), Flavour::Copilot.embedded());
    }

    #[test]
    fn the_reviewer_has_its_own_default_and_override() {
        let dir = tempfile::tempdir().unwrap();
        let got = load_reviewer(dir.path(), None).unwrap();
        assert_eq!((got.text.as_str(), got.source), (REVIEWER, None));
        assert!(REVIEWER.contains("Do NOT edit") && REVIEWER.contains("APPROVE"));
        std::fs::create_dir(dir.path().join("system_instructions")).unwrap();
        std::fs::write(reviewer_override_path(dir.path()), "Be strict.\n").unwrap();
        assert_eq!(
            load_reviewer(dir.path(), None).unwrap().text,
            "Be strict.\n"
        );
        std::fs::write(dir.path().join("r.md"), "Mine.\n").unwrap();
        let got = load_reviewer(dir.path(), Some(Path::new("r.md"))).unwrap();
        assert_eq!(got.text, "Mine.\n");
        let err = load_reviewer(dir.path(), Some(Path::new("gone.md")))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("gone.md") && err.contains("[review] instructions"),
            "{err}"
        );
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
        let got = load(dir.path(), Flavour::Codex, None).unwrap();
        assert_eq!(got.text, Flavour::Codex.embedded());
        assert_eq!(got.source, None);

        std::fs::create_dir(dir.path().join("system_instructions")).unwrap();
        let path = override_path(dir.path(), Flavour::Codex);
        std::fs::write(&path, "Custom codex rules\n").unwrap();
        let got = load(dir.path(), Flavour::Codex, None).unwrap();
        assert_eq!(got.text, "Custom codex rules\n");
        assert_eq!(got.source, Some(path));
        assert_eq!(
            load(dir.path(), Flavour::Claude, None).unwrap().text,
            Flavour::Claude.embedded()
        );
    }

    #[test]
    fn empty_or_binary_override_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("system_instructions")).unwrap();
        let path = override_path(dir.path(), Flavour::Claude);
        std::fs::write(&path, "  \n").unwrap();
        let err = load(dir.path(), Flavour::Claude, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("system_instructions.md"), "{err}");
        assert!(err.contains("empty"), "{err}");
        std::fs::write(&path, b"ok\xff").unwrap();
        let err = load(dir.path(), Flavour::Claude, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("UTF-8"), "{err}");
    }

    #[test]
    fn the_configured_file_wins_for_every_flavour_and_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("system_instructions")).unwrap();
        std::fs::write(override_path(dir.path(), Flavour::Claude), "fork rules\n").unwrap();
        std::fs::write(dir.path().join("prompt.md"), "my prompt\n").unwrap();
        for f in ALL {
            let got = load(dir.path(), f, Some(Path::new("prompt.md"))).unwrap();
            assert_eq!(got.text, "my prompt\n");
            assert_eq!(got.source, Some(dir.path().join("prompt.md")));
        }
        let err = load(dir.path(), Flavour::Claude, Some(Path::new("nope.md")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("nope.md"), "{err}");
        assert!(err.contains("[agent] instructions"), "{err}");
        assert!(err.contains("no such file"), "{err}");
        std::fs::write(dir.path().join("blank.md"), "\n").unwrap();
        let err = load(dir.path(), Flavour::Claude, Some(Path::new("blank.md")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("empty"), "{err}");
    }
}
