//! The merge queue's one step: merge a gated story branch onto the tip of `branchName` in the
//! main tree, re-verify the merged result, write ralph's bookkeeping (the story's `passes`, its
//! agent's `notes` edits and discovered stories, the progress.txt lines it added) and advance
//! the branch by compare-and-swap
//! (specs/parallel.md, section 4). Owns those git steps; the decisions are
//! `policy::merge_verdict`'s, and what follows a verdict (history, send-back, worktree
//! removal) is the scheduler's.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::policy::{MergeFacts, MergeVerdict, merge_verdict};
use super::worktree::{GitError, dirty_paths, git, git_ok, is_ancestor};
use crate::agent::process::LogSink;
use crate::run::verify;
use crate::state::history::VerifyResult;

/// progress.txt, at the root of every tree.
pub(crate) const PROGRESS: &str = "progress.txt";

/// Why a merge step could not be carried out (not a verdict: git or the disk failed).
#[derive(Debug, thiserror::Error)]
pub(crate) enum QueueError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Prd(#[from] crate::prd::PrdError),
    #[error(transparent)]
    Fs(#[from] crate::fsutil::FsError),
    #[error(transparent)]
    Agent(#[from] crate::agent::AgentError),
}

/// One merge to do.
pub(crate) struct MergeInput<'a> {
    pub root: &'a Path,
    pub branch: &'a str,
    /// The tip ralph last set (`T`).
    pub tip: &'a str,
    pub story_branch: &'a str,
    pub story_id: &'a str,
    pub story_title: &'a str,
    /// The commit the story branch was made from or last reset onto.
    pub base: &'a str,
    pub prd_rel: &'a str,
    pub verify: &'a [String],
    pub timeout: Duration,
    pub grace: Duration,
    pub log: Option<Arc<Mutex<LogSink>>>,
    pub interrupt: &'a AtomicBool,
    /// Where the re-verify reports (the run's reporter).
    pub reporter: &'a dyn crate::run::events::Reporter,
}

/// What the merge came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MergeReport {
    pub verdict: MergeVerdict,
    /// The new tip, when merged.
    pub commit: Option<String>,
    pub fast_forward: bool,
    pub verify: Vec<VerifyResult>,
    /// The failed re-verify command: its text, how it ended, its output tail.
    pub failed: Option<(String, String, String)>,
    /// What of the agent's prd.json edits was carried over (see [`super::carry`]), and what
    /// was not (with why and where its version is kept), in words.
    pub carried: Vec<String>,
    pub left: Vec<String>,
}

impl MergeReport {
    fn stop(verdict: MergeVerdict, facts: &MergeFacts) -> MergeReport {
        MergeReport {
            verdict,
            commit: None,
            fast_forward: facts.fast_forward,
            verify: vec![],
            failed: None,
            carried: vec![],
            left: vec![],
        }
    }
}

/// The lines `git diff base..head -- path` adds (the agent's progress entries).
pub(crate) fn added_lines(
    root: &Path,
    base: &str,
    head: &str,
    path: &str,
) -> Result<String, GitError> {
    let out = git(
        root,
        &[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "-U0",
            base,
            head,
            "--",
            path,
        ],
    )?;
    let mut s = String::new();
    for l in out.lines() {
        if let Some(t) = l.strip_prefix('+')
            && !l.starts_with("+++")
        {
            s.push_str(t);
            s.push('\n');
        }
    }
    Ok(s)
}

/// Put ralph's own files back as the tip has them (or out of the index when the tip has none).
fn restore_ralph_files(root: &Path, tip: &str, files: &[&str]) -> Result<(), GitError> {
    for f in files {
        if git_ok(root, &["cat-file", "-e", &format!("{tip}:{f}")]) {
            git(root, &["checkout", tip, "--", f])?;
        } else {
            git(
                root,
                &["rm", "-q", "--cached", "-f", "--ignore-unmatch", "--", f],
            )?;
            let _ = std::fs::remove_file(root.join(f));
        }
    }
    Ok(())
}

/// Merge one story (see the module doc). A verdict other than `Merged` leaves the main tree
/// and the branch as they were.
pub(crate) fn merge(inp: &MergeInput<'_>) -> Result<MergeReport, QueueError> {
    let root = inp.root;
    let branch_ref = format!("refs/heads/{}", inp.branch);
    let mut f = MergeFacts {
        branch_at_tip: git(root, &["rev-parse", &branch_ref]).ok().as_deref() == Some(inp.tip)
            && git(root, &["symbolic-ref", "-q", "HEAD"]).ok().as_deref()
                == Some(branch_ref.as_str()),
        dirty: dirty_paths(root)?,
        fast_forward: is_ancestor(root, inp.tip, inp.story_branch),
        interrupted: inp.interrupt.load(std::sync::atomic::Ordering::SeqCst),
        ..MergeFacts::default()
    };
    let v = merge_verdict(&f);
    if v != MergeVerdict::Proceed {
        return Ok(MergeReport::stop(v, &f));
    }
    // Step 2: merge without committing; ralph's files come from the tip.
    let merged = git(
        root,
        &["merge", "--no-ff", "--no-commit", "-q", inp.story_branch],
    );
    let unmerged: Vec<String> = git(root, &["diff", "--name-only", "--diff-filter=U"])?
        .lines()
        .map(String::from)
        .collect();
    let ralph_files = [inp.prd_rel, PROGRESS];
    if let Err(e) = merged
        && unmerged.is_empty()
    {
        let _ = git(root, &["merge", "--abort"]);
        return Err(e.into());
    }
    let in_merge = git_ok(root, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]);
    let abort = || {
        if in_merge {
            let _ = git(root, &["merge", "--abort"]);
        }
    };
    f.conflicts = Some(
        unmerged
            .iter()
            .filter(|p| !ralph_files.contains(&p.as_str()))
            .cloned()
            .collect(),
    );
    let v = merge_verdict(&f);
    if v != MergeVerdict::Proceed {
        abort();
        return Ok(MergeReport::stop(v, &f));
    }
    if let Err(e) = restore_ralph_files(root, inp.tip, &ralph_files) {
        abort();
        return Err(e.into());
    }
    // Step 3: re-verify the merged result (a fast-forward is what the gate verified).
    let mut results = vec![];
    let mut failed = None;
    if !f.fast_forward && !inp.verify.is_empty() {
        let gate = verify::run_all(
            inp.verify,
            &verify::VerifyEnv {
                root,
                dir: None,
                env: &[],
                label: "verify",
                timeout: inp.timeout,
                grace: inp.grace,
                log: inp.log.clone(),
                echo: false,
                interrupt: inp.interrupt,
                sweep_orphans: false,
                reporter: inp.reporter,
            },
        );
        let gate = match gate {
            Ok(g) => g,
            Err(e) => {
                abort();
                return Err(e.into());
            }
        };
        f.interrupted = gate.interrupted;
        f.verify_passed = Some(gate.passed());
        if let (Some(fin), Some(r)) = (&gate.failed, gate.results.last()) {
            let how = if fin.timed_out {
                "timed out".to_string()
            } else {
                fin.exit_code
                    .map_or("was killed".into(), |c| format!("exited {c}"))
            };
            failed = Some((r.command.clone(), how, fin.tail.clone()));
        }
        results = gate.results;
    }
    let v = merge_verdict(&f);
    if v != MergeVerdict::Proceed {
        abort();
        let mut r = MergeReport::stop(v, &f);
        r.verify = results;
        r.failed = failed;
        return Ok(r);
    }
    // Steps 4-6: bookkeeping, the commit, the compare-and-swap.
    let (commit, carried) = match bookkeep_and_commit(inp, f.fast_forward) {
        Ok(c) => c,
        Err(e) => {
            abort();
            return Err(e);
        }
    };
    let msg = format!("ralph: merge {}", inp.story_id);
    f.advanced = Some(git_ok(
        root,
        &["update-ref", "-m", &msg, &branch_ref, &commit, inp.tip],
    ));
    let v = merge_verdict(&f);
    if !matches!(v, MergeVerdict::Merged { .. }) {
        abort();
        return Ok(MergeReport::stop(v, &f));
    }
    if in_merge {
        // The index and the files already equal the new tip.
        let _ = git(root, &["merge", "--quit"]);
    }
    Ok(MergeReport {
        verdict: v,
        commit: Some(commit),
        fast_forward: f.fast_forward,
        verify: results,
        failed: None,
        carried: carried.carried,
        left: carried.left,
    })
}

/// What [`carry_over`] did.
#[derive(Debug, Default)]
struct Carried {
    carried: Vec<String>,
    left: Vec<String>,
}

/// prd.json at `rev` (none when it has none, or it does not validate).
fn prd_at(inp: &MergeInput<'_>, rev: &str) -> Option<(crate::prd::Prd, Vec<u8>)> {
    let spec = format!("{rev}:{}", inp.prd_rel);
    let out = crate::run::git::output(inp.root, &["show", &spec]).ok()?;
    if !out.status.success() {
        return None;
    }
    let path = inp.root.join(inp.prd_rel);
    let prd = crate::prd::Prd::from_bytes(&path, &out.stdout).ok()?;
    Some((prd, out.stdout))
}

/// The story's `notes` edits and discovered stories, from its branch's prd.json onto the
/// tip's `prd` ([`super::carry::plan`]); what could not be carried is reported, the branch's
/// version kept in `.ralph/rejected/`.
fn carry_over(inp: &MergeInput<'_>, prd: &mut crate::prd::Prd) -> Carried {
    let mut out = Carried::default();
    let (Some((base, _)), Some((head, head_bytes))) =
        (prd_at(inp, inp.base), prd_at(inp, inp.story_branch))
    else {
        return out;
    };
    let plan = super::carry::plan(&base.value, &head.value, &prd.value);
    out.left = plan.left.clone();
    for (id, notes) in &plan.notes {
        match prd.set_notes(id, notes) {
            Ok(()) => out.carried.push(format!("the notes of {id}")),
            Err(e) => out.left.push(format!("the notes of {id} ({e})")),
        }
    }
    let raw: serde_json::Value = serde_json::from_slice(&head_bytes).unwrap_or_default();
    let raw_stories = raw
        .get(&head.dialect.stories_key)
        .and_then(|v| v.as_array());
    for i in plan.discovered {
        let (Some(story), Some(s)) = (raw_stories.and_then(|a| a.get(i)), head.stories.get(i))
        else {
            continue;
        };
        let from = story
            .get("discoveredFrom")
            .and_then(|v| v.as_str())
            .unwrap_or("?");
        match prd.append_story(story) {
            Ok(()) => out
                .carried
                .push(format!("the discovered story {} (from {from})", s.id)),
            Err(e) => out.left.push(format!(
                "the discovered story {} (it would not be valid on the branch: {})",
                s.id,
                e.to_string().lines().next().unwrap_or("")
            )),
        }
    }
    if !out.left.is_empty() {
        let state = crate::state::state_dir(inp.root);
        if let Ok(kept) =
            crate::state::rejected::keep(&state, 0, &inp.root.join(inp.prd_rel), &head_bytes)
        {
            out.left.push(format!(
                "the branch's prd.json is kept at {}",
                kept.display()
            ));
        }
    }
    out
}

/// Step 4 and 5: the story's `passes` and its progress lines on the tip's files, staged; the
/// commit that lands the story (the story branch itself when that is already it).
fn bookkeep_and_commit(
    inp: &MergeInput<'_>,
    fast_forward: bool,
) -> Result<(String, Carried), QueueError> {
    let root = inp.root;
    let mut prd = crate::prd::Prd::load(&root.join(inp.prd_rel))?;
    let flipped = prd.set_passes(inp.story_id, true)?;
    let carried = carry_over(inp, &mut prd);
    if flipped || !carried.carried.is_empty() {
        prd.save()?;
    }
    let added = added_lines(root, inp.base, inp.story_branch, PROGRESS)?;
    let mut staged = vec![inp.prd_rel];
    if !added.is_empty() {
        let path = root.join(PROGRESS);
        let mut text = std::fs::read(&path).unwrap_or_default();
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        text.extend_from_slice(added.as_bytes());
        crate::fsutil::atomic_write(&path, &text)?;
        staged.push(PROGRESS);
    }
    let mut args = vec!["add", "--"];
    args.extend(staged);
    git(root, &args)?;
    let tree = git(root, &["write-tree"])?;
    let b_tree = git(
        root,
        &["rev-parse", &format!("{}^{{tree}}", inp.story_branch)],
    )?;
    let verified = if inp.verify.is_empty() || fast_forward {
        String::new()
    } else {
        format!(" (verified: {})", inp.verify.join(" && "))
    };
    let msg = format!(
        "ralph: merge {} {}{verified}",
        inp.story_id, inp.story_title
    );
    let b = git(root, &["rev-parse", inp.story_branch])?;
    let commit = if fast_forward && tree == b_tree {
        b
    } else if fast_forward {
        git(root, &["commit-tree", &tree, "-p", &b, "-m", &msg])?
    } else if is_ancestor(root, &b, inp.tip) {
        git(root, &["commit-tree", &tree, "-p", inp.tip, "-m", &msg])?
    } else {
        git(
            root,
            &["commit-tree", &tree, "-p", inp.tip, "-p", &b, "-m", &msg],
        )?
    };
    Ok((commit, carried))
}

#[cfg(test)]
mod tests {
    use super::super::worktree::{add, tests::repo};
    use super::*;
    use crate::kept::git::head;

    const PRD: &str = "{\"branchName\": \"main\", \"userStories\": [\n{\"id\": \"A\", \"title\": \"a\", \"priority\": 1, \"passes\": false},\n{\"id\": \"B\", \"title\": \"b\", \"priority\": 2, \"passes\": false}\n]}\n";

    fn setup() -> (tempfile::TempDir, std::path::PathBuf, String) {
        let (d, root) = repo();
        std::fs::write(root.join("prd.json"), PRD).unwrap();
        std::fs::write(root.join(PROGRESS), "# log\n").unwrap();
        git(&root, &["add", "-A"]).unwrap();
        git(&root, &["commit", "-qm", "prd"]).unwrap();
        let tip = head(&root).unwrap();
        (d, root, tip)
    }

    /// A story worktree whose agent writes `f.txt`, flips its story and logs progress.
    fn work(root: &Path, tip: &str, id: &str, f_txt: &str) -> std::path::PathBuf {
        let wt = root.join(format!(".ralph/worktrees/{id}"));
        add(root, &wt, &format!("main--{id}"), tip).unwrap();
        std::fs::write(wt.join("f.txt"), f_txt).unwrap();
        let prd = std::fs::read_to_string(wt.join("prd.json")).unwrap();
        let prd = prd.replace(
            &format!(
                "\"id\": \"{id}\", \"title\": \"{}\", \"priority\": {}, \"passes\": false",
                id.to_lowercase(),
                if id == "A" { 1 } else { 2 }
            ),
            &format!(
                "\"id\": \"{id}\", \"title\": \"{}\", \"priority\": {}, \"passes\": true",
                id.to_lowercase(),
                if id == "A" { 1 } else { 2 }
            ),
        );
        std::fs::write(wt.join("prd.json"), prd).unwrap();
        std::fs::write(wt.join(PROGRESS), format!("# log\n{id} did it\n")).unwrap();
        git(&wt, &["add", "-A"]).unwrap();
        git(&wt, &["commit", "-qm", id]).unwrap();
        wt
    }

    static QUIET: std::sync::LazyLock<crate::run::events::Recorded> =
        std::sync::LazyLock::new(crate::run::events::Recorded::default);

    fn input<'a>(
        root: &'a Path,
        tip: &'a str,
        id: &'a str,
        sb: &'a str,
        verify: &'a [String],
        flag: &'a AtomicBool,
    ) -> MergeInput<'a> {
        MergeInput {
            root,
            branch: "main",
            tip,
            story_branch: sb,
            story_id: id,
            story_title: "t",
            base: tip,
            prd_rel: "prd.json",
            verify,
            timeout: Duration::from_secs(20),
            grace: Duration::from_millis(100),
            log: None,
            interrupt: flag,
            reporter: &*QUIET,
        }
    }

    #[test]
    fn fast_forward_then_a_conflict_then_a_verify_failure() {
        let (_d, root, t0) = setup();
        let flag = AtomicBool::new(false);
        work(&root, &t0, "A", "A\n");
        let wb = work(&root, &t0, "B", "B\n");
        let r = merge(&input(&root, &t0, "A", "main--A", &[], &flag)).unwrap();
        assert_eq!(r.verdict, MergeVerdict::Merged { fast_forward: true });
        let t1 = r.commit.unwrap();
        // The agent's own commit lands as it is: its prd.json flip equals ralph's.
        assert_eq!(t1, git(&root, &["rev-parse", "main--A"]).unwrap());
        assert_eq!(head(&root).unwrap(), t1);
        assert!(dirty_paths(&root).unwrap().is_empty());
        // B edits the same line: a conflict; nothing moves.
        let mut i = input(&root, &t1, "B", "main--B", &[], &flag);
        i.base = &t0;
        let r = merge(&i).unwrap();
        assert_eq!(
            r.verdict,
            MergeVerdict::SentBack(super::super::policy::SendBack::Conflict(vec![
                "f.txt".into()
            ]))
        );
        assert_eq!(head(&root).unwrap(), t1);
        assert!(dirty_paths(&root).unwrap().is_empty());
        assert!(!git_ok(
            &root,
            &["rev-parse", "-q", "--verify", "MERGE_HEAD"]
        ));
        // B redone on the new tip, touching another file, merges with a merge commit; a
        // verify that fails on the merged result sends it back first.
        super::super::worktree::reset_onto(&wb, &t1).unwrap();
        std::fs::write(wb.join("g.txt"), "g\n").unwrap();
        std::fs::write(wb.join(PROGRESS), "# log\nA did it\nB did it\n").unwrap();
        git(&wb, &["add", "-A"]).unwrap();
        git(&wb, &["commit", "-qm", "B2"]).unwrap();
        std::fs::write(root.join("h.txt"), "").unwrap();
        git(&root, &["add", "-A"]).unwrap();
        git(&root, &["commit", "-qm", "moved by hand"]).unwrap();
        let t2 = head(&root).unwrap();
        // The branch moved outside ralph: pause.
        let r = merge(&input(&root, &t1, "B", "main--B", &[], &flag)).unwrap();
        assert_eq!(
            r.verdict,
            MergeVerdict::Pause(super::super::policy::Pause::BranchMoved)
        );
        let fail = vec!["test ! -f g.txt || test ! -f h.txt".to_string()];
        let mut i = input(&root, &t2, "B", "main--B", &fail, &flag);
        i.base = &t1;
        let r = merge(&i).unwrap();
        assert_eq!(
            r.verdict,
            MergeVerdict::SentBack(super::super::policy::SendBack::VerifyFailed)
        );
        assert!(r.failed.unwrap().1.contains("exited 1"));
        assert_eq!(head(&root).unwrap(), t2);
        assert!(dirty_paths(&root).unwrap().is_empty());
        let pass = vec!["test -f g.txt".to_string()];
        let mut i = input(&root, &t2, "B", "main--B", &pass, &flag);
        i.base = &t1;
        let r = merge(&i).unwrap();
        assert_eq!(
            r.verdict,
            MergeVerdict::Merged {
                fast_forward: false
            }
        );
        let t3 = r.commit.unwrap();
        assert_eq!(head(&root).unwrap(), t3);
        let parents = git(&root, &["rev-list", "--parents", "-n1", &t3]).unwrap();
        assert_eq!(parents.split(' ').count(), 3);
        assert!(dirty_paths(&root).unwrap().is_empty());
        let prd = std::fs::read_to_string(root.join("prd.json")).unwrap();
        assert_eq!(prd.matches("\"passes\": true").count(), 2, "{prd}");
        let log = std::fs::read_to_string(root.join(PROGRESS)).unwrap();
        assert_eq!(log, "# log\nA did it\nB did it\n");
        assert!(
            git(&root, &["log", "-1", "--format=%s", &t3])
                .unwrap()
                .contains("verified: test -f g.txt")
        );
    }
}
