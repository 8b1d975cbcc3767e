//! The prompt for one iteration, behind one function: [`build`].
//!
//! The loop's side of the context builder: turns a failed attempt into the retry note and asks
//! [`crate::context`] for the prompt (instructions, story, blockers' output, Codebase Patterns,
//! Pin matches, recent progress) under the configured budget. The same builder serves
//! `ralph context` and `ralph run --dry-run`, so what they show is what the agent gets. The
//! prompt never reaches a shell.

use std::path::Path;

use crate::agent::AgentSpec;
use crate::context::{self, ContextError, Flavour};
use crate::prd::{Prd, Story};

/// Why the previous attempt at this story failed, for the next prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RetryNote {
    /// The attempt that failed (1-based; 0: the work an earlier run left).
    pub attempt: u32,
    /// One line: "verification failed: `cargo test` exited 101", "timed out after 60m", …
    pub reason: String,
    /// The relevant output tail (verify output, agent output), already trimmed.
    pub output_tail: Option<String>,
    /// The verify failure it ended with (command and output tail), when it did: chooses the
    /// error patterns the next prompt shows and, once a later attempt passes, is learned.
    pub failure: Option<crate::errors_seen::Failure>,
}

impl RetryNote {
    /// The note as the context builder shows it under the story.
    pub(crate) fn to_text(&self) -> String {
        // Attempt 0: what an earlier run left, not a failure of this run's.
        let mut s = match self.attempt {
            0 => {
                let mut c = self.reason.chars();
                c.next()
                    .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
            }
            n => format!("Attempt {n} failed: {}", self.reason),
        };
        if let Some(tail) = self.output_tail.as_deref().filter(|t| !t.trim().is_empty()) {
            s.push_str("\n\nOutput (last lines):\n");
            s.push_str(tail);
        }
        s
    }
}

/// Why a prompt could not be built.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PromptError {
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
    #[error(transparent)]
    Context(#[from] ContextError),
}

/// A prompt, and the learned error patterns it shows (their ids: a real run counts each use).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Built {
    pub text: String,
    pub patterns: Vec<String>,
}

/// Build the prompt for `story` with the context builder, for `agent`'s instruction flavour.
pub(crate) fn build(
    root: &Path,
    prd: &Prd,
    story: &Story,
    retry: Option<&RetryNote>,
    agent: &AgentSpec,
    opts: &context::Options,
) -> Result<String, PromptError> {
    build_for_run(root, prd, story, retry, agent, opts).map(|b| b.text)
}

/// [`build`], also naming the error patterns the prompt shows.
pub(crate) fn build_for_run(
    root: &Path,
    prd: &Prd,
    story: &Story,
    retry: Option<&RetryNote>,
    agent: &AgentSpec,
    opts: &context::Options,
) -> Result<Built, PromptError> {
    let note = retry.map(RetryNote::to_text);
    let failure = retry.and_then(|r| r.failure.as_ref());
    let flavour = Flavour::for_agent(agent.kind.name());
    let assembled =
        context::build_prompt(root, prd, story, note.as_deref(), failure, flavour, opts)?;
    let patterns = assembled
        .error_patterns
        .iter()
        .filter(|e| e.shown)
        .map(|e| e.id.clone())
        .collect();
    Ok(Built {
        text: assembled.prompt,
        patterns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{AgentKind, AgentSpec};

    #[test]
    fn prompt_has_story_retry_and_patterns_but_no_bare_signal_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("progress.txt"),
            "## Codebase Patterns\n- tests live in tests/\n---\n",
        )
        .unwrap();
        let src = r#"{"project":"demo","branchName":"b","userStories":[{"id":"S-1","title":"Add it","description":"desc","acceptanceCriteria":["works"],"priority":1,"passes":false}]}"#;
        let prd = Prd::from_bytes(&dir.path().join("prd.json"), src.as_bytes()).unwrap();
        let story = prd.stories[0].clone();
        let retry = RetryNote {
            attempt: 1,
            reason: "verification failed: `make test` exited 2".into(),
            output_tail: Some("FAIL: x".into()),
            failure: None,
        };
        for kind in [AgentKind::Claude, AgentKind::Codex, AgentKind::Copilot] {
            let agent = AgentSpec::preset(kind).unwrap();
            let opts = context::Options::default();
            let p = build(dir.path(), &prd, &story, Some(&retry), &agent, &opts).unwrap();
            assert!(p.contains("S-1") && p.contains("Add it"), "{p}");
            // The story's one criterion, listed under its heading (a bare "works" would also
            // match the Copilot instructions' "also works").
            assert!(
                p.contains("Acceptance criteria:\n- works\n"),
                "{kind:?}: the criterion is listed: {p}"
            );
            assert!(p.contains("`make test` exited 2") && p.contains("FAIL: x"));
            assert!(p.contains("- tests live in tests/"));
            assert!(p.contains("DISCOVERY PROTOCOL"));
            for line in p.lines() {
                assert_eq!(
                    crate::agent::detect::signal_line(line, "S-1"),
                    None,
                    "{kind:?}: the prompt must not hold a line that reads as a signal"
                );
            }
        }
    }

    #[test]
    fn retry_note_text_carries_reason_and_tail() {
        let r = RetryNote {
            attempt: 2,
            reason: "timed out after 60m".into(),
            output_tail: None,
            failure: None,
        };
        assert_eq!(r.to_text(), "Attempt 2 failed: timed out after 60m");
    }
}
