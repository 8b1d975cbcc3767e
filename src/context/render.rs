//! Markdown rendering of each prompt section from already-redacted, already-cut inputs.
//!
//! Owns the prompt's layout: section headings, the order of fields inside a section, and fencing
//! of file content (progress entries, spec excerpts, verification output) so nothing inside it
//! can break the prompt's structure. Does not decide what is kept: [`super::assemble`] does.

use crate::prd::Story;

use super::files::{PrepFile, Shown};
use super::inputs::{DepOutput, PinHit, RemainingStory};

/// `content` in a code fence longer than any backtick run inside it (CommonMark rule), so the
/// content can never close the fence early.
pub(super) fn fence(content: &str) -> String {
    fence_as(content, "")
}

/// [`fence`] with an info string (`diff`, `rust`) after the opening backticks.
pub(crate) fn fence_as(content: &str, info: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let ticks = "`".repeat((longest + 1).max(3));
    let mut out = String::with_capacity(content.len() + 2 * ticks.len() + 2);
    out.push_str(&ticks);
    out.push_str(info);
    out.push('\n');
    out.push_str(content);
    if !content.is_empty() && !content.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&ticks);
    out.push('\n');
    out
}

/// The instructions as the prompt's opening, ending with exactly one newline.
pub(super) fn instructions(text: &str) -> String {
    let mut out = text.trim_end().to_string();
    out.push('\n');
    out
}

/// `text` as inline code, with enough backticks that none inside can close it.
fn code(text: &str) -> String {
    let ticks = if text.contains('`') { "``" } else { "`" };
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// The red-green gate, as the agent needs to know it.
const RED_GREEN: &str = "\nThen ralph checks that your tests test your change: it takes only your changes to \
test files onto the commit the story started from, in a scratch copy, and runs the checks \
there. They must fail without the rest of your change; if they pass, or you changed no test \
file, the story goes back to you. Write the tests in test files (a test inside a source file \
cannot be taken alone) and make them fail on the old code.\n";

/// Under the story: the branch its work belongs on, the checks the gate will run (the run's,
/// then the story's own), and the red-green gate when it is on for the story.
pub(super) fn work(branch: Option<&str>, verify: &[String], red_green: bool) -> String {
    let mut out = String::new();
    if let Some(b) = branch {
        out.push_str(&format!(
            "\nBranch: {} (commit your work there).\n",
            code(b)
        ));
    }
    if verify.is_empty() {
        out.push_str(
            "\nNo verify commands are configured: run the project's own checks (build, lint, \
             tests) before you finish.\n",
        );
    } else {
        out.push_str(
            "\nBefore the story counts as done, ralph runs these checks (run them yourself first):\n",
        );
        for v in verify {
            out.push_str(&format!("- {}\n", code(v)));
        }
        if red_green {
            out.push_str(RED_GREEN);
        }
    }
    out
}

/// Section 2: the story (with `work`, see [`work`]), and on a retry why the last attempt failed.
pub(super) fn story(s: &Story, work: &str, retry: Option<&str>, retry_cut: bool) -> String {
    let mut out = format!("\n# Your story: {} - {}\n\n", s.id, s.title);
    if !s.description.trim().is_empty() {
        out.push_str(s.description.trim_end());
        out.push_str("\n\n");
    }
    out.push_str("Acceptance criteria:\n");
    if s.acceptance_criteria.is_empty() {
        out.push_str("- (none listed: infer them from the description)\n");
    }
    for c in &s.acceptance_criteria {
        out.push_str(&format!("- {}\n", c.trim_end()));
    }
    if !s.blocked_by.is_empty() {
        out.push_str(&format!(
            "\nBuilds on (done): {}\n",
            s.blocked_by.join(", ")
        ));
    }
    if !s.notes.trim().is_empty() {
        out.push_str(&format!("\nNotes: {}\n", s.notes.trim_end()));
    }
    out.push_str(work);
    if let Some(r) = retry {
        out.push_str("\n## Why the last attempt failed\n\n");
        if retry_cut {
            out.push_str("(only the end is shown)\n");
        }
        out.push_str(&fence(r));
        out.push_str("Fix this first; the checks must pass before the story counts as done.\n");
    }
    out
}

/// The steering section: the person's notes to the live run (`items` already redacted, cut and
/// rendered by [`steer_item`], oldest first), and how many older ones the budget left out.
pub(super) fn steering(items: &[String], left_out: usize) -> String {
    let mut out = String::from(
        "\n# Steering from the person running ralph\n\n\
         Written with `ralph steer` while this run goes on, after the story above was: where \
         they differ from it, follow them. Oldest first.\n\n",
    );
    if left_out > 0 {
        out.push_str(&format!(
            "({left_out} earlier note(s) left out for the prompt's size)\n"
        ));
    }
    for item in items {
        out.push_str(item);
    }
    out
}

/// One steering note: who it is for and when, then its lines quoted (a quoted line never reads
/// as a completion signal, nor as a heading of the prompt).
pub(super) fn steer_item(this_story: bool, when: &str, text: &str) -> String {
    let whom = if this_story {
        "For this story"
    } else {
        "For every story"
    };
    let when = if when.is_empty() {
        String::new()
    } else {
        format!(" ({when})")
    };
    let mut out = format!("- {whom}{when}:\n");
    for line in text.trim_end().lines() {
        out.push_str("  > ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Section 3 header.
pub(super) fn deps_header() -> &'static str {
    "\n# What the stories it depends on produced\n"
}

/// One blocker's output: commit, files changed, progress entry (`entry` already capped).
pub(super) fn dep(d: &DepOutput, entry: Option<&str>, cut: bool) -> String {
    let mut out = format!("\n## {} - {}\n", d.id, d.title);
    if let Some(c) = &d.commit {
        out.push_str(&format!("Commit: {c}\n"));
    }
    if !d.files_changed.is_empty() {
        out.push_str(&format!("Files changed: {}\n", d.files_changed.join(", ")));
    }
    match entry {
        Some(e) => {
            out.push_str(if cut {
                "Progress entry (shortened):\n"
            } else {
                "Progress entry:\n"
            });
            out.push_str(&fence(e));
        }
        None => out.push_str("(no progress.txt entry found for it)\n"),
    }
    out
}

/// Section 3b: the files ranked for the story, each with the definitions shown for it
/// (`plan[i]`: how many; `None`: the file is left out).
pub(super) fn where_to_look(files: &[PrepFile], plan: &[Option<Shown>], has_pin: bool) -> String {
    let mut out = String::from("\n# Where to look\n\n");
    if files.is_empty() {
        out.push_str("No source file of this project matches the words of your story.\n");
    } else {
        out.push_str(
            "The files of this project that best match your story, best first (by the names \
             they define, their paths, their comments, the Pin and git history). Read them \
             before writing code and extend what is there.\n\n",
        );
    }
    for (i, (f, k)) in files.iter().zip(plan).enumerate() {
        let Some(k) = k else { break };
        out.push_str(&format!("{}. {}", i + 1, f.path));
        if !f.summary.is_empty() {
            out.push_str(&format!(" — {}", f.summary));
        }
        if !f.matched.is_empty() {
            out.push_str(&format!(" (matched: {})", f.matched.join(", ")));
        }
        out.push('\n');
        for (line, sig) in f.sigs.iter().take(k.sigs) {
            out.push_str(&format!("   - {line}: {}\n", code(sig)));
        }
        let outline = &f.outline[..k.outline.min(f.outline.len())];
        if !outline.is_empty() {
            out.push_str("   Also defined here:\n");
            for (line, sig) in outline {
                out.push_str(&format!("   - {line}: {}\n", code(sig)));
            }
        }
    }
    if !has_pin {
        out.push_str(
            "\nThis project has no Pin (specs/INDEX.md) yet: also search the code for the words of \
             your story before writing anything new.\n",
        );
    }
    out
}

/// Section 4: the Codebase Patterns text.
pub(super) fn patterns(text: &str, cut: bool) -> String {
    let mut out = String::from("\n# Codebase Patterns (from progress.txt)\n\n");
    if cut {
        out.push_str("(shortened to fit the budget)\n");
    }
    out.push_str(&fence(text));
    out
}

/// Section 5 header.
pub(super) fn pin_header() -> &'static str {
    "\n# Relevant modules from the Pin (specs/INDEX.md)\n"
}

/// How a Pin entry is shown.
pub(super) enum PinView<'a> {
    /// With the spec excerpt (possibly shortened to `lines` lines).
    Full {
        excerpt: Option<&'a str>,
        shortened: bool,
    },
    /// Only the name and files.
    NamesOnly,
}

/// One Pin entry; `files` is the already-capped file list.
pub(super) fn pin(rank: usize, h: &PinHit, files: &str, view: PinView<'_>) -> String {
    let mut out = format!("\n## {rank}. {} (score {:.2}", h.name, h.score);
    if !h.matched.is_empty() {
        out.push_str(&format!("; matched: {}", h.matched.join(", ")));
    }
    out.push_str(")\n");
    if !files.is_empty() {
        out.push_str(&format!("Files: {files}\n"));
    }
    match view {
        PinView::NamesOnly => {
            if let Some(spec) = &h.spec {
                out.push_str(&format!("Spec: {spec} (read it yourself)\n"));
            }
        }
        PinView::Full { excerpt, shortened } => {
            if let Some(spec) = &h.spec {
                out.push_str(&format!("Spec: {spec}\n"));
            }
            if let Some(e) = excerpt.filter(|e| !e.trim().is_empty()) {
                out.push_str(if shortened {
                    "Spec excerpt (shortened; read the file for the rest):\n"
                } else {
                    "Spec excerpt:\n"
                });
                out.push_str(&fence(e));
            }
        }
    }
    out
}

/// Section 6a: recent progress entries (oldest first).
pub(super) fn recent(entries: &[String]) -> String {
    let mut out = String::from("\n# Recent progress\n");
    for e in entries {
        out.push('\n');
        out.push_str(&fence(e));
    }
    out
}

/// Section 6b: the remaining stories on one line (`shown` of them, then a count of the rest).
pub(super) fn remaining(rest: &[RemainingStory], shown: usize) -> String {
    let names: Vec<String> = rest
        .iter()
        .take(shown)
        .map(|r| format!("{} {}", r.id, r.title))
        .collect();
    let mut line = names.join("; ");
    if shown < rest.len() {
        line.push_str(&format!(" (+{} more)", rest.len() - shown));
    }
    format!("\n# Remaining stories (not yours this run)\n\n{line}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_is_longer_than_any_backtick_run_inside() {
        assert_eq!(fence("a\n"), "```\na\n```\n");
        assert_eq!(fence("a"), "```\na\n```\n");
        assert_eq!(fence("```rust\nx\n```"), "````\n```rust\nx\n```\n````\n");
        assert_eq!(fence(""), "```\n```\n");
    }

    #[test]
    fn remaining_counts_what_it_does_not_show() {
        let rest: Vec<RemainingStory> = (1..=4)
            .map(|i| RemainingStory {
                id: format!("US-{i}"),
                title: format!("T{i}"),
            })
            .collect();
        assert!(remaining(&rest, 2).ends_with("\nUS-1 T1; US-2 T2 (+2 more)\n"));
        assert!(remaining(&rest, 4).ends_with("\nUS-1 T1; US-2 T2; US-3 T3; US-4 T4\n"));
    }
}
