//! The prompt for one iteration, behind one function: [`build`].
//!
//! Interim content until the context builder (`crate::context`) replaces the body: the loop's
//! instructions, the story, why the last attempt failed (if it did) and the `## Codebase
//! Patterns` section of progress.txt. The prompt never reaches a shell.

use std::fmt::Write as _;
use std::path::Path;

use crate::agent::AgentSpec;
use crate::prd::{Prd, Story};

/// Why the previous attempt at this story failed, for the next prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNote {
    /// The attempt that failed (1-based).
    pub attempt: u32,
    /// One line: "verification failed: `cargo test` exited 101", "timed out after 60m", …
    pub reason: String,
    /// The relevant output tail (verify output, agent output), already trimmed.
    pub output_tail: Option<String>,
}

/// Why a prompt could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
}

/// The `## Codebase Patterns` section of a progress.txt (heading excluded), up to the next
/// `## ` heading or `---` separator; `None` when absent or empty.
pub fn codebase_patterns(progress: &str) -> Option<&str> {
    let start = progress
        .match_indices("## Codebase Patterns")
        .find(|(i, _)| *i == 0 || progress.as_bytes()[i - 1] == b'\n')
        .map(|(i, _)| i)?;
    let after = &progress[start..];
    let body_start = after.find('\n').map(|n| n + 1).unwrap_or(after.len());
    let body = &after[body_start..];
    let mut end = body.len();
    let mut pos = 0;
    for line in body.split_inclusive('\n') {
        let t = line.trim_end();
        if t.starts_with("## ") || t == "---" {
            end = pos;
            break;
        }
        pos += line.len();
    }
    let section = body[..end].trim();
    (!section.is_empty()).then_some(section)
}

/// Read progress.txt only as far as the end of its Codebase Patterns section (it sits at the
/// top in Ralph's format, so a 100,000-line log costs a few lines). `None` when absent.
fn read_patterns(path: &Path) -> Result<Option<String>, PromptError> {
    use std::io::BufRead;
    let io = |source| crate::fsutil::FsError {
        path: path.to_path_buf(),
        action: "read",
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e).into()),
    };
    let mut reader = std::io::BufReader::new(file);
    let mut out = String::new();
    let mut inside = false;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(io)? == 0 {
            break;
        }
        let line = String::from_utf8_lossy(&buf);
        let t = line.trim_end();
        if !inside {
            if t.starts_with("## Codebase Patterns") {
                inside = true;
                out.push_str(&line);
            }
            continue;
        }
        if t.starts_with("## ") || t == "---" {
            break;
        }
        out.push_str(&line);
    }
    Ok(inside.then_some(out))
}

fn story_block(out: &mut String, s: &Story) {
    let _ = writeln!(out, "## Your story: {} — {}\n", s.id, s.title);
    if !s.description.is_empty() {
        let _ = writeln!(out, "{}\n", s.description);
    }
    if !s.acceptance_criteria.is_empty() {
        out.push_str("Acceptance criteria:\n");
        for c in &s.acceptance_criteria {
            let _ = writeln!(out, "- {c}");
        }
        out.push('\n');
    }
    if !s.notes.is_empty() {
        let _ = writeln!(out, "Notes: {}\n", s.notes);
    }
    if !s.blocked_by.is_empty() {
        let _ = writeln!(
            out,
            "Builds on (already done): {}\n",
            s.blocked_by.join(", ")
        );
    }
}

/// Build the prompt for `story`.
pub fn build(
    root: &Path,
    prd: &Prd,
    story: &Story,
    retry: Option<&RetryNote>,
    _agent: &AgentSpec,
) -> Result<String, PromptError> {
    let progress_path = root.join("progress.txt");
    let patterns = read_patterns(&progress_path)?;
    let project = prd
        .value
        .get("project")
        .and_then(|v| v.as_str())
        .unwrap_or("this project");
    let prd_name = prd
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "prd.json".into());
    let mut out = String::with_capacity(4096);
    let _ = writeln!(
        out,
        "# Ralph iteration\n\nYou are an autonomous coding agent working on {project}. Implement exactly ONE user story, the one below, then stop.\n"
    );
    story_block(&mut out, story);
    if let Some(r) = retry {
        let _ = writeln!(
            out,
            "## The previous attempt failed (attempt {})\n\n{}\n",
            r.attempt, r.reason
        );
        if let Some(t) = &r.output_tail {
            let _ = writeln!(out, "Output tail:\n```\n{}\n```\n", t.trim_end());
        }
        out.push_str("Fix that first.\n\n");
    }
    let id = &story.id;
    let _ = writeln!(
        out,
        "## Instructions\n\n\
1. Read progress.txt: its Codebase Patterns (quoted below when there are any) and the recent entries.\n\
2. Implement the story; keep changes focused and follow existing patterns.\n\
3. Run the project's quality checks (typecheck, lint, tests). The loop runs its verify commands after you; the story only counts if they pass.\n\
4. Commit all changes with the message \"feat: {id} - {title}\".\n\
5. In {prd_name}, set \"passes\": true for {id}. Change nothing else there, except \"notes\"; you may add a newly discovered story with \"discoveredFrom\": \"{id}\". Any other edit is reverted.\n\
6. Append to progress.txt: what you did, files changed, and learnings for future iterations (add reusable patterns to its Codebase Patterns section).\n\
7. When the story is complete, print the line STORY COMPLETE: {id} on a line by itself.\n",
        title = story.title
    );
    if let Some(p) = patterns.as_deref().and_then(codebase_patterns) {
        let _ = writeln!(out, "## Codebase Patterns (from progress.txt)\n\n{p}\n");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{AgentKind, AgentSpec};

    #[test]
    fn patterns_section_ends_at_the_next_heading_or_separator() {
        let p = "# Ralph Progress Log\n## Codebase Patterns\n- use X\n- never Y\n---\n## 2026 - A\n- did";
        assert_eq!(codebase_patterns(p), Some("- use X\n- never Y"));
        let q = "## Codebase Patterns\n- a\n## Next\n";
        assert_eq!(codebase_patterns(q), Some("- a"));
        assert_eq!(codebase_patterns("# log\nno patterns"), None);
        assert_eq!(codebase_patterns("## Codebase Patterns\n---\n"), None);
        assert_eq!(
            codebase_patterns("see ## Codebase Patterns inline\n- x"),
            None
        );
    }

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
        };
        let agent = AgentSpec::preset(AgentKind::Claude).unwrap();
        let p = build(dir.path(), &prd, &story, Some(&retry), &agent).unwrap();
        assert!(p.contains("## Your story: S-1 — Add it"));
        assert!(p.contains("- works"));
        assert!(p.contains("`make test` exited 2") && p.contains("FAIL: x"));
        assert!(p.contains("- tests live in tests/"));
        assert!(!crate::agent::detect::has_completion(&p, "S-1"));
    }
}
