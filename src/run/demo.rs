//! `ralph demo`: the example project (embedded from examples/demo/) and its scripted agent.
//!
//! Owns creating the project (a git repo with a 5-story prd.json with dependencies) and the
//! scripted agent the demo runs instead of a real one: `ralph demo --scripted-agent`, started by
//! the loop like any custom agent. For each story it writes that story's files, appends to
//! progress.txt, commits, and flips `passes` (DEMO-4 prints the completion signal instead, so the
//! loop writes `passes` itself). Its first try at DEMO-3 has a bug, so the verify gate
//! (`sh check.sh`) fails once and the retry prompt carries the failure. The loop is the real one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::options::Options;
use crate::agent::{AgentKind, AgentSpec, PromptMode};
use crate::config::Settings;
use crate::prd::Prd;

/// The project's files at creation: (path, content).
pub(crate) const PROJECT: &[(&str, &str)] = &[
    ("prd.json", include_str!("../../examples/demo/prd.json")),
    ("check.sh", include_str!("../../examples/demo/check.sh")),
    ("README.md", include_str!("../../examples/demo/README.md")),
    (
        "progress.txt",
        include_str!("../../examples/demo/progress.txt"),
    ),
    (".gitignore", include_str!("../../examples/demo/gitignore")),
];

/// What the scripted agent writes for each story: (story, path, content).
pub(crate) const STAGES: &[(&str, &str, &str)] = &[
    (
        "DEMO-1",
        "greet.sh",
        include_str!("../../examples/demo/stages/DEMO-1/greet.sh"),
    ),
    (
        "DEMO-1",
        "tests/hello.sh",
        include_str!("../../examples/demo/stages/DEMO-1/hello.sh"),
    ),
    (
        "DEMO-2",
        "greet.sh",
        include_str!("../../examples/demo/stages/DEMO-2/greet.sh"),
    ),
    (
        "DEMO-2",
        "tests/name.sh",
        include_str!("../../examples/demo/stages/DEMO-2/name.sh"),
    ),
    (
        "DEMO-3",
        "greet.sh",
        include_str!("../../examples/demo/stages/DEMO-3/greet.sh"),
    ),
    (
        "DEMO-3",
        "tests/shout.sh",
        include_str!("../../examples/demo/stages/DEMO-3/shout.sh"),
    ),
    (
        "DEMO-4",
        "USAGE.md",
        include_str!("../../examples/demo/stages/DEMO-4/USAGE.md"),
    ),
    (
        "DEMO-5",
        "CHANGELOG.md",
        include_str!("../../examples/demo/stages/DEMO-5/CHANGELOG.md"),
    ),
];

/// DEMO-3's first try: forgets to upper-case, so tests/shout.sh fails.
pub(crate) const DEMO3_FIRST_TRY: &str =
    include_str!("../../examples/demo/stages/DEMO-3/greet.first-try.sh");

/// The story that signals completion instead of editing prd.json.
pub(crate) const SIGNALLING_STORY: &str = "DEMO-4";

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DemoError {
    #[error(transparent)]
    Fs(#[from] crate::fsutil::FsError),
    #[error(transparent)]
    Prd(#[from] crate::prd::PrdError),
    #[error(transparent)]
    Pin(#[from] crate::pin::PinError),
    #[error("{0} exists and is not empty; give a new or empty directory (or none for a temp dir)")]
    NotEmpty(PathBuf),
    #[error("git {args}: {why}; the demo needs git installed (https://git-scm.com)")]
    Git { args: String, why: String },
    #[error("the scripted agent needs RALPH_STORY_ID (it is started by `ralph demo`, not by hand)")]
    NoStory,
    #[error("the scripted agent has nothing to do for story {0}")]
    UnknownStory(String),
}

fn git(dir: &Path, args: &[&str]) -> Result<(), DemoError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| DemoError::Git {
            args: args.join(" "),
            why: e.to_string(),
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(DemoError::Git {
            args: args.join(" "),
            why: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

fn write(dir: &Path, rel: &str, content: &str) -> Result<(), DemoError> {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        crate::fsutil::create_dir_all(parent)?;
    }
    crate::fsutil::atomic_write(&path, content.as_bytes())?;
    Ok(())
}

/// Create the example project in `dir` (new or empty): files, git repo, first commit.
pub(crate) fn create(dir: &Path) -> Result<(), DemoError> {
    if let Ok(mut entries) = std::fs::read_dir(dir)
        && entries.next().is_some()
    {
        return Err(DemoError::NotEmpty(dir.to_path_buf()));
    }
    crate::fsutil::create_dir_all(dir)?;
    for (rel, content) in PROJECT {
        write(dir, rel, content)?;
    }
    // The Pin, as `ralph pin generate` makes it, so the first prompt already has one.
    let pin = crate::pin::generate::generate(dir, false)?;
    write(dir, crate::pin::INDEX_PATH, &pin.text)?;
    git(dir, &["init", "-q"])?;
    git(dir, &["config", "user.name", "Ralph Demo"])?;
    git(dir, &["config", "user.email", "demo@ralph.invalid"])?;
    git(dir, &["config", "commit.gpgsign", "false"])?;
    git(dir, &["add", "-A"])?;
    git(
        dir,
        &[
            "commit",
            "-q",
            "-m",
            "greet: empty project and its prd.json",
        ],
    )?;
    Ok(())
}

/// The loop settings the demo runs with: the scripted agent, `sh check.sh` as the gate.
pub(crate) fn options(dir: &Path, ralph_exe: &Path) -> Options {
    let settings = Settings {
        iterations: 10,
        sleep: Duration::from_millis(300),
        timeout: Duration::from_secs(120),
        grace: Duration::from_secs(2),
        verify: vec!["sh check.sh".into()],
        compact: false,
        ..Settings::default()
    };
    Options {
        root: dir.to_path_buf(),
        prd_path: dir.join("prd.json"),
        settings,
        agent: AgentSpec {
            kind: AgentKind::Custom,
            argv: vec![
                ralph_exe.display().to_string(),
                "demo".into(),
                "--scripted-agent".into(),
            ],
            prompt_mode: PromptMode::Stdin,
            format: crate::agent::telemetry::Format::Plain,
            version: None,
        },
        story: None,
        echo: true,
        env: vec![],
        reporter: std::sync::Arc::new(super::events::Terminal),
        reviewer: None,
    }
}

/// The scripted agent: implement `story` in the project at `dir` (its working directory).
pub(crate) fn scripted_agent(
    dir: &Path,
    story: &str,
    attempt: u32,
    prompt: &str,
) -> Result<(), DemoError> {
    let prd_path = dir.join("prd.json");
    let mut prd = Prd::load(&prd_path)?;
    let title = prd
        .story(story)
        .map(|s| s.title.clone())
        .ok_or_else(|| DemoError::UnknownStory(story.into()))?;
    read_prompt(story, &title, attempt, prompt);
    let files: Vec<&(&str, &str, &str)> = STAGES.iter().filter(|(s, _, _)| *s == story).collect();
    if files.is_empty() {
        return Err(DemoError::UnknownStory(story.into()));
    }
    let buggy = story == "DEMO-3" && attempt == 1;
    for (_, rel, content) in files {
        let content = if buggy && *rel == "greet.sh" {
            DEMO3_FIRST_TRY
        } else {
            content
        };
        println!("demo agent: writing {rel}");
        write(dir, rel, content)?;
    }
    let mut progress = std::fs::read_to_string(dir.join("progress.txt")).unwrap_or_default();
    progress.push_str(&format!(
        "## {} - {story}\n- {title} (attempt {attempt})\n- **Learnings for future iterations:**\n  - keep every feature covered by a tests/*.sh\n---\n",
        jiff::Zoned::now().strftime("%Y-%m-%d %H:%M")
    ));
    write(dir, "progress.txt", &progress)?;
    if story == SIGNALLING_STORY {
        println!("demo agent: leaving prd.json to ralph and signalling instead");
    } else {
        prd.set_passes(story, true)?;
        prd.save()?;
        println!("demo agent: set passes: true for {story} in prd.json");
    }
    git(dir, &["add", "-A"])?;
    git(
        dir,
        &["commit", "-q", "-m", &format!("feat: {story} - {title}")],
    )?;
    println!("demo agent: committed \"feat: {story} - {title}\"");
    if story == SIGNALLING_STORY {
        println!("STORY COMPLETE: {story}");
    }
    Ok(())
}

/// What the demo agent says it read: the story, the prompt's size, a failed verification, the
/// "Where to look" files.
fn read_prompt(story: &str, title: &str, attempt: u32, prompt: &str) {
    println!(
        "demo agent: {story} \"{title}\" (attempt {attempt}), prompt of {} bytes",
        prompt.len()
    );
    if prompt.contains("Verification failed") {
        println!("demo agent: the last attempt failed verification; fixing that first");
    }
    if let Some(section) = where_to_look(prompt) {
        println!("demo agent: ralph told me where to look:");
        for line in section.lines().take(8) {
            println!("demo agent: | {line}");
        }
    }
}

/// The files of the prompt's "Where to look" section (its numbered lines and the
/// definitions under them), or `None` when it names none.
pub(crate) fn where_to_look(prompt: &str) -> Option<String> {
    let start = prompt.find("\n# Where to look\n")? + 1;
    let rest = &prompt[start..];
    let end = rest[1..].find("\n# ").map_or(rest.len(), |i| i + 1);
    let listed: Vec<&str> = rest[..end]
        .lines()
        .filter(|l| {
            l.split_once(". ")
                .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
                || l.starts_with("   - ")
        })
        .collect();
    (!listed.is_empty()).then(|| listed.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_to_look_takes_the_numbered_files_of_that_section_only() {
        let p = "# Your story: X\n1. not this\n\n# Where to look\n\nIntro.\n\n1. greet.sh — Greets.\n   - 3: `greet()`\n2. check.sh\n\n# Remaining stories\n\n1. no\n";
        assert_eq!(
            where_to_look(p).as_deref(),
            Some("1. greet.sh — Greets.\n   - 3: `greet()`\n2. check.sh")
        );
        assert_eq!(where_to_look("# Where to look\n\nNo source file.\n"), None);
    }

    #[test]
    fn embedded_prd_is_valid_with_dependencies_and_every_story_has_files() {
        let prd = Prd::from_bytes(Path::new("prd.json"), PROJECT[0].1.as_bytes()).unwrap();
        assert_eq!(prd.stories.len(), 5);
        assert!(
            prd.stories
                .iter()
                .filter(|s| !s.blocked_by.is_empty())
                .count()
                >= 3
        );
        for s in &prd.stories {
            assert!(STAGES.iter().any(|(id, _, _)| *id == s.id), "{}", s.id);
        }
    }
}
