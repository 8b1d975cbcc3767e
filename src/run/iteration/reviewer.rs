//! The review phase of one gated iteration (`ralph run --review`), the I/O around
//! [`crate::review`]: the diff of the story's work, the reviewer's prompt file, the reviewer
//! run as a supervised process (the run's timeout, its own log `review-N.log`), its verdict,
//! and what the reviewer changed although told not to (prd.json is put back; other files are
//! kept and reported). The reviewer gets the story, its criteria, the diff and the verify
//! results only, never the developing agent's transcript.
//!
//! Does not decide what a verdict does to the story ([`super::verdict::after_review`]) nor how
//! many rounds a story gets (the loop and the parallel scheduler count them).

use std::path::Path;
use std::sync::{Arc, Mutex};

use super::attempt::Attempt;
use super::launch;
use super::outcome::Outcome;
use super::verdict;
use crate::agent::process::Finished;
use crate::agent::telemetry::Usage;
use crate::agent::{self, AgentSpec, detect};
use crate::review::{self, Verdict};
use crate::run::error::RunError;
use crate::run::events::Event;
use crate::run::options::Options;
use crate::run::{git, log};
use crate::state::history::{ReviewRecord, VerifyResult};

/// The most lines of the reviewer's output kept for reading its verdict.
const MAX_LINES: usize = 5_000;
/// The most untracked files shown as new files in the diff, and the most bytes of one.
const MAX_UNTRACKED: usize = 50;
const MAX_UNTRACKED_BYTES: u64 = 256 * 1024;
/// git's empty tree: the base of a diff when the story started before the first commit.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// One review to run: the attempt's, after its gate passed.
pub(crate) struct Input<'a> {
    pub at: &'a Attempt<'a>,
    pub reviewer: &'a AgentSpec,
    /// HEAD before the developing agent started (`None`: no commit yet, or not git).
    pub head_before: Option<&'a str>,
    pub verify: &'a [VerifyResult],
    /// prd.json relative to the root: left out of the diff, put back if the reviewer edits it.
    pub prd_rel: &'a str,
}

/// What the review came to.
pub(crate) struct Reviewed {
    pub verdict: Verdict,
    pub record: ReviewRecord,
    /// Ctrl-C / SIGTERM stopped the reviewer.
    pub interrupted: bool,
    /// The reviewer hit a usage limit (its message): the review did not happen, the loop waits
    /// as for an agent's limit and the story runs again; the round does not count.
    pub rate_line: Option<String>,
}

/// Before the first agent runs: the reviewer's program exists and its instructions can be
/// read (found after a gate, either would stop the run with the story already marked).
pub(crate) fn check(opts: &Options) -> Result<(), RunError> {
    let Some(reviewer) = &opts.reviewer else {
        return Ok(());
    };
    reviewer.locate()?;
    instructions(opts)?;
    Ok(())
}

fn instructions(opts: &Options) -> Result<crate::context::instructions::Instructions, RunError> {
    crate::context::instructions::load_reviewer(
        &opts.root,
        opts.settings.review.instructions.as_deref(),
    )
    .map_err(|e| RunError::Prompt(e.into()))
}

/// What a verdict came to after the review: the verdict, the review's record, a reviewer's
/// usage-limit message.
pub(crate) struct AfterReview {
    pub verdict: verdict::Verdict,
    pub record: Option<ReviewRecord>,
    pub rate_line: Option<String>,
}

/// Step 8, `--review`: a done iteration goes to the reviewer; a verdict that does not approve
/// sends the story back ([`verdict::after_review`]). Other verdicts, and runs without a
/// reviewer, pass through. `base`: where the story's work started.
pub(crate) fn after_gate(
    at: &Attempt<'_>,
    observed: &verdict::Observed<'_>,
    v: verdict::Verdict,
    base: Option<&str>,
    verify: &[VerifyResult],
    prd_rel: &str,
) -> Result<AfterReview, RunError> {
    let opts = at.opts;
    let (Outcome::Done, Some(reviewer)) = (v.outcome, &opts.reviewer) else {
        return Ok(AfterReview {
            verdict: v,
            record: None,
            rate_line: None,
        });
    };
    let r = run(&Input {
        at,
        reviewer,
        head_before: base,
        verify,
        prd_rel,
    })?;
    let (round, max) = (at.review_round, opts.settings.review.max_rounds);
    let mut v = verdict::after_review(observed, v, &r.verdict, round, max);
    if r.interrupted {
        v.outcome = Outcome::Interrupted;
    } else if r.rate_line.is_some() {
        // Not a round: the story goes back (its work kept) and runs again after the wait.
        v.outcome = Outcome::RateLimited;
    }
    opts.reporter.report(Event::Reviewed {
        story: at.story.id.clone(),
        round,
        max_rounds: max,
        reviewer: r.record.reviewer.clone(),
        verdict: r.record.verdict.clone(),
        items: r.record.items.clone(),
        why: r.record.why.clone(),
    });
    Ok(AfterReview {
        verdict: v,
        record: Some(r.record),
        rate_line: r.rate_line,
    })
}

/// Run the review (see the module doc).
pub(crate) fn run(inp: &Input<'_>) -> Result<Reviewed, RunError> {
    let opts = inp.at.opts;
    let s = &opts.settings;
    let prompt = prompt(inp)?;
    opts.reporter.report(Event::Note {
        text: format!(
            "reviewing {} (round {} of {}) with {}",
            inp.at.story.id,
            inp.at.review_round,
            s.review.max_rounds,
            inp.reviewer.kind.name()
        ),
    });
    let prd_path = &opts.prd_path;
    let prd_before = crate::fsutil::read(prd_path).ok();
    let tree_before = git::snapshot(&opts.root, inp.prd_rel);
    let (run, output, usage) = run_reviewer(inp, &prompt)?;
    let (moved, changed) = match (&tree_before, git::snapshot(&opts.root, inp.prd_rel)) {
        (Some(b), Some(a)) => {
            let (committed, _, files) = git::compare(&opts.root, b, &a);
            (committed, files)
        }
        _ => (false, vec![]),
    };
    put_back_prd(inp, prd_before.as_deref(), moved)?;
    let (verdict, rate_line) = if moved || !changed.is_empty() {
        (only_read(inp, moved, &changed), None)
    } else {
        limited(read_verdict(&output, &prompt, &run, s.timeout), &run)
    };
    let record = record(inp, &verdict, &run, changed, usage);
    Ok(Reviewed {
        verdict,
        record,
        interrupted: run.interrupted,
        rate_line,
    })
}

/// The reviewer's prompt: the story, the diff from where its work started, the verify results
/// (redacted).
fn prompt(inp: &Input<'_>) -> Result<String, RunError> {
    let (opts, story) = (inp.at.opts, inp.at.story);
    let s = &opts.settings;
    let instructions = instructions(opts)?;
    let (diff, diff_how) = diff(&opts.root, inp.head_before, inp.prd_rel);
    let checks: Vec<review::Check> = inp
        .verify
        .iter()
        .map(|v| review::Check {
            command: v.command.clone(),
            passed: v.passed,
        })
        .collect();
    let (prompt, _) = crate::context::redact::redact(&review::prompt(&review::Input {
        instructions: &instructions.text,
        id: &story.id,
        title: &story.title,
        description: &story.description,
        criteria: &story.acceptance_criteria,
        diff: &diff,
        diff_how: &diff_how,
        checks: &checks,
        round: inp.at.review_round,
        max_rounds: s.review.max_rounds,
        // Most of the budget (tokens as ~4 bytes) goes to the diff.
        max_diff: s.context.budget.saturating_mul(3),
    }));
    Ok(prompt)
}

/// A reviewer that changed files (or committed) although told only to read: warned about, its
/// verdict does not count.
fn only_read(inp: &Input<'_>, moved: bool, changed: &[String]) -> Verdict {
    let what = describe_changes(moved, changed);
    inp.at.opts.reporter.report(Event::Warning {
        text: format!(
            "the reviewer of {} {what} although told only to read; the changes are kept, its verdict does not count",
            inp.at.story.id
        ),
    });
    Verdict::Missing(format!(
        "the reviewer {what}: a reviewer must only read, so its verdict does not count"
    ))
}

/// A verdict stands even when the review talks about rate limits (as the agent's gated claim
/// does); only a review that ended without one may have hit a limit (its line).
fn limited(verdict: Verdict, run: &Finished) -> (Verdict, Option<String>) {
    match verdict {
        Verdict::Missing(why) => match detect::limit_at_end(&run.tail, run.timed_out) {
            Some(line) => {
                let v = Verdict::Missing(format!("the reviewer hit a usage limit: {line}"));
                (v, Some(line))
            }
            None => (Verdict::Missing(why), None),
        },
        v => (v, None),
    }
}

/// The review's history record (its items redacted).
fn record(
    inp: &Input<'_>,
    verdict: &Verdict,
    run: &Finished,
    changed: Vec<String>,
    usage: Option<Usage>,
) -> ReviewRecord {
    ReviewRecord {
        verdict: verdict.name().to_string(),
        items: verdict
            .items()
            .iter()
            .map(|i| crate::context::redact::redact(i).0)
            .collect(),
        round: inp.at.review_round,
        reviewer: inp.reviewer.kind.name().to_string(),
        duration_ms: run.duration.as_millis() as u64,
        why: match verdict {
            Verdict::Missing(why) => Some(why.clone()),
            _ => None,
        },
        changed,
        usage,
    }
}

/// The verdict in the reviewer's output, or why there is none.
fn read_verdict(
    output: &str,
    prompt: &str,
    run: &crate::agent::process::Finished,
    timeout: std::time::Duration,
) -> Verdict {
    match review::parse(output, prompt) {
        Verdict::Missing(_) if run.timed_out => Verdict::Missing(format!(
            "the reviewer timed out after {}",
            crate::run::events::durations::format_remaining(timeout)
        )),
        Verdict::Missing(_) if run.interrupted => Verdict::Missing("interrupted".into()),
        Verdict::Missing(why) if !run.success() => Verdict::Missing(match run.exit_code {
            Some(c) => format!("the reviewer exited with code {c}; {why}"),
            None => format!("the reviewer was killed; {why}"),
        }),
        v => v,
    }
}

/// "committed and changed a.txt, b.txt", "changed a.txt".
fn describe_changes(moved: bool, changed: &[String]) -> String {
    let files = match changed.len() {
        0 => String::new(),
        1..=5 => format!("changed {}", changed.join(", ")),
        n => format!(
            "changed {} and {} more files",
            changed[..5].join(", "),
            n - 5
        ),
    };
    match (moved, files.is_empty()) {
        (true, true) => "made a commit".into(),
        (true, false) => format!("made a commit and {files}"),
        (false, _) => files,
    }
}

/// The reviewer's process: its prompt file, log, translated output; all its output lines and
/// what it reported using.
fn run_reviewer(
    inp: &Input<'_>,
    prompt: &str,
) -> Result<(crate::agent::process::Finished, String, Option<Usage>), RunError> {
    let opts = inp.at.opts;
    let rep = &*opts.reporter;
    let prompt_file = inp
        .at
        .run_dir
        .join(format!("review-prompt-{}.md", inp.at.n));
    let inv = agent::plan(inp.reviewer, prompt, &prompt_file);
    launch::write_prompt_file(&inv, prompt)?;
    let log = log::log_sink(
        &inp.at.run_dir.join(format!("review-{}.log", inp.at.n)),
        rep,
    );
    let lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let watch: agent::process::LineWatch = {
        let lines = lines.clone();
        Arc::new(move |line: &str| {
            if let Ok(mut l) = lines.lock()
                && l.len() < MAX_LINES
            {
                l.push(line.to_string());
            }
        })
    };
    let launch::Launched { run, usage, .. } = launch::run(launch::Launch {
        opts,
        spec: inp.reviewer,
        inv: &inv,
        env: &env(inp),
        story: &inp.at.story.id,
        log,
        interrupt: inp.at.interrupt,
        watch,
        events: Some(
            &inp.at
                .run_dir
                .join(format!("review-{}.events.jsonl", inp.at.n)),
        ),
        usage_file: Some(
            &inp.at
                .run_dir
                .join(format!("review-{}.usage.json", inp.at.n)),
        ),
    })?;
    let output = lines.lock().map(|l| l.join("\n")).unwrap_or_default();
    Ok((run, output, usage))
}

/// `RALPH_*` for the reviewer, then `--env`/`[env]`.
fn env(inp: &Input<'_>) -> Vec<(String, String)> {
    let opts = inp.at.opts;
    [
        ("RALPH_RUN_ID", inp.at.run_id.to_string()),
        ("RALPH_ITERATION", inp.at.n.to_string()),
        ("RALPH_STORY_ID", inp.at.story.id.clone()),
        ("RALPH_REVIEW", inp.at.review_round.to_string()),
        ("RALPH_PRD", opts.prd_path.display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .chain(opts.env.iter().cloned())
    .collect()
}

/// prd.json is the loop's: a reviewer's edit is put back (the bytes from before the review),
/// and when the reviewer committed, HEAD gets the same file back (ralph's correction commit),
/// so no `passes` ralph did not accept stays on the branch.
fn put_back_prd(inp: &Input<'_>, before: Option<&[u8]>, moved: bool) -> Result<(), RunError> {
    let opts = inp.at.opts;
    let rep = &*opts.reporter;
    let path = &opts.prd_path;
    let Some(before) = before else {
        return Ok(());
    };
    if let Some(kept) = keep_reviewers_prd(inp, before)? {
        crate::fsutil::atomic_write(path, before)?;
        rep.report(Event::Warning {
            text: format!(
                "the reviewer changed {}; it is put back as it was before the review ({kept})",
                path.display(),
            ),
        });
    }
    if moved {
        let msg = format!(
            "ralph: put back {} as it was before the review of {} (iteration {}): the reviewer committed a change to it",
            inp.prd_rel, inp.at.story.id, inp.at.n
        );
        if let Err(e) = git::commit_correction(&opts.root, inp.prd_rel, &msg) {
            rep.report(Event::Warning {
                text: format!("{e}; {} in the work tree is put back, but HEAD may hold the reviewer's version", inp.prd_rel),
            });
        }
    }
    Ok(())
}

/// When prd.json is not what it was before the review, keep what is there in
/// `.ralph/rejected/` (nothing ralph reverts is thrown away; something that is not a regular
/// file any more is moved aside) and say where; `None` when it is unchanged.
fn keep_reviewers_prd(inp: &Input<'_>, before: &[u8]) -> Result<Option<String>, RunError> {
    let path = &inp.at.opts.prd_path;
    let state = crate::state::state_dir(&inp.at.opts.root);
    let kept = |p: std::path::PathBuf| format!("the reviewer's version is kept at {}", p.display());
    match std::fs::symlink_metadata(path) {
        Err(_) => Ok(Some("the reviewer deleted it".into())),
        Ok(m) if !m.is_file() => Ok(Some(kept(crate::state::rejected::move_aside(
            &state, inp.at.n, path,
        )?))),
        Ok(_) => {
            let now = crate::fsutil::read(path)?;
            if now == before {
                return Ok(None);
            }
            Ok(Some(kept(crate::state::rejected::keep(
                &state, inp.at.n, path, &now,
            )?)))
        }
    }
}

/// The diff of the story's work and the command that shows it: tracked changes since
/// `base` (committed or not; prd.json left out), then untracked files as new files.
pub(crate) fn diff(root: &Path, base: Option<&str>, prd_rel: &str) -> (String, String) {
    let base = base.unwrap_or(EMPTY_TREE);
    let how = format!("git diff {base}");
    let exclude = format!(":(exclude){prd_rel}");
    let args = [
        "diff",
        "--no-color",
        "--no-ext-diff",
        base,
        "--",
        ".",
        exclude.as_str(),
        ":(exclude).ralph",
    ];
    let mut out = match git::output(root, &args) {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            return (format!("(no diff: `{how}` failed: {})", err.trim()), how);
        }
        Err(e) => return (format!("(no diff: cannot run git: {e})"), how),
    };
    for file in untracked(root).into_iter().take(MAX_UNTRACKED) {
        out.push_str(&new_file(root, &file));
    }
    (out, how)
}

/// Files git does not track and does not ignore, outside `.ralph/`.
fn untracked(root: &Path) -> Vec<String> {
    let Ok(o) = git::output(root, &["ls-files", "--others", "--exclude-standard", "-z"]) else {
        return vec![];
    };
    o.stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|p| !p.starts_with(".ralph/"))
        .collect()
}

/// An untracked file as a diff that adds it (binary and large files named only).
fn new_file(root: &Path, rel: &str) -> String {
    let head = format!("diff --git a/{rel} b/{rel}\nnew file (untracked)\n");
    let path = root.join(rel);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) => return format!("{head}(cannot read it: {e})\n"),
    };
    // Never read through a link (it may point out of the project), nor a FIFO or device.
    if meta.file_type().is_symlink() {
        let to = std::fs::read_link(&path)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "?".into());
        return format!("{head}(symbolic link to {to}, not followed)\n");
    }
    if !meta.is_file() {
        return format!("{head}(not a regular file, not shown)\n");
    }
    if meta.len() > MAX_UNTRACKED_BYTES {
        return format!("{head}(large file: {} bytes, not shown)\n", meta.len());
    }
    match crate::fsutil::read(&path)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
    {
        Some(text) => {
            let mut s = format!("{head}--- /dev/null\n+++ b/{rel}\n");
            for l in text.lines() {
                s.push('+');
                s.push_str(l);
                s.push('\n');
            }
            s
        }
        None => format!("{head}(binary or unreadable, not shown)\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(root: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn the_diff_holds_commits_uncommitted_and_new_files_but_not_prd_json() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        std::fs::write(root.join("prd.json"), "{}\n").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "base"]);
        let base = String::from_utf8(
            std::process::Command::new("git")
                .args(["-C", root.to_str().unwrap(), "rev-parse", "HEAD"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        let base = base.trim();
        std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        git(root, &["commit", "-qam", "work"]);
        std::fs::write(root.join("a.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(root.join("prd.json"), "{\"passes\":true}\n").unwrap();
        std::fs::write(root.join("new.rs"), "fn x() {}\n").unwrap();
        std::fs::create_dir(root.join(".ralph")).unwrap();
        std::fs::write(root.join(".ralph/history.jsonl"), "{}\n").unwrap();
        let (d, how) = diff(root, Some(base), "prd.json");
        assert_eq!(how, format!("git diff {base}"));
        assert!(d.contains("+two\n+three\n"), "{d}");
        assert!(d.contains("+++ b/new.rs\n+fn x() {}\n"), "{d}");
        assert!(!d.contains("passes") && !d.contains("history"), "{d}");
        // Before the first commit: everything is new.
        let (d, _) = diff(root, None, "prd.json");
        assert!(d.contains("+one"), "{d}");
    }
}
