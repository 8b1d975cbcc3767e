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

use super::main_tree::MainTree;
use super::policy::{MergeFacts, MergeVerdict, merge_verdict};
use super::worktree::{GitError, dirty_paths, git, git_ok, is_ancestor};
use crate::agent::process::LogSink;
use crate::run::iteration::verify;
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
    /// Where it lands: the main tree, prd.json in it, the branch.
    pub main: &'a MainTree,
    /// The tip ralph last set (`T`).
    pub tip: &'a str,
    pub story_branch: &'a str,
    pub story_id: &'a str,
    pub story_title: &'a str,
    /// The commit the story branch was made from or last reset onto.
    pub base: &'a str,
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
    let mut f = facts_before(inp)?;
    let v = merge_verdict(&f);
    if v != MergeVerdict::Proceed {
        return Ok(MergeReport::stop(v, &f));
    }
    // Step 2: merge without committing; ralph's files come from the tip.
    let m = start_merge(inp, &mut f)?;
    let v = merge_verdict(&f);
    if v != MergeVerdict::Proceed {
        m.abort();
        return Ok(MergeReport::stop(v, &f));
    }
    if let Err(e) = restore_ralph_files(&inp.main.root, inp.tip, &ralph_files(inp)) {
        m.abort();
        return Err(e.into());
    }
    // Step 3: re-verify the merged result (a fast-forward is what the gate verified).
    let checked = match reverify(inp, &mut f) {
        Ok(c) => c,
        Err(e) => {
            m.abort();
            return Err(e);
        }
    };
    let v = merge_verdict(&f);
    if v != MergeVerdict::Proceed {
        m.abort();
        let mut r = MergeReport::stop(v, &f);
        r.verify = checked.results;
        r.failed = checked.failed;
        return Ok(r);
    }
    land(inp, &mut f, &m, checked.results)
}

/// Step 1: what the main tree and the branch look like before anything is merged.
fn facts_before(inp: &MergeInput<'_>) -> Result<MergeFacts, QueueError> {
    let root = &inp.main.root;
    let branch_ref = format!("refs/heads/{}", inp.main.branch);
    Ok(MergeFacts {
        branch_at_tip: git(root, &["rev-parse", &branch_ref]).ok().as_deref() == Some(inp.tip)
            && git(root, &["symbolic-ref", "-q", "HEAD"]).ok().as_deref()
                == Some(branch_ref.as_str()),
        dirty: dirty_paths(root)?,
        fast_forward: is_ancestor(root, inp.tip, inp.story_branch),
        interrupted: inp.interrupt.load(std::sync::atomic::Ordering::SeqCst),
        ..MergeFacts::default()
    })
}

/// ralph's own files, which it resolves itself: prd.json and progress.txt.
fn ralph_files<'a>(inp: &'a MergeInput<'_>) -> [&'a str; 2] {
    [inp.main.prd_rel.as_str(), PROGRESS]
}

/// A merge under way in the main tree (or none: a fast-forward leaves no `MERGE_HEAD`).
struct Merging<'a> {
    root: &'a Path,
    in_merge: bool,
}

impl Merging<'_> {
    /// Leave the main tree as it was.
    fn abort(&self) {
        if self.in_merge {
            let _ = git(self.root, &["merge", "--abort"]);
        }
    }
}

/// Step 2: merge the story branch without committing; the paths it conflicts on, other than
/// ralph's own files, go into `f`.
fn start_merge<'a>(inp: &'a MergeInput<'_>, f: &mut MergeFacts) -> Result<Merging<'a>, QueueError> {
    let root = &inp.main.root;
    let merged = git(
        root,
        &["merge", "--no-ff", "--no-commit", "-q", inp.story_branch],
    );
    let unmerged: Vec<String> = git(root, &["diff", "--name-only", "--diff-filter=U"])?
        .lines()
        .map(String::from)
        .collect();
    if let Err(e) = merged
        && unmerged.is_empty()
    {
        let _ = git(root, &["merge", "--abort"]);
        return Err(e.into());
    }
    let in_merge = git_ok(root, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]);
    let ours = ralph_files(inp);
    f.conflicts = Some(
        unmerged
            .into_iter()
            .filter(|p| !ours.contains(&p.as_str()))
            .collect(),
    );
    Ok(Merging { root, in_merge })
}

/// What the re-verify ran, and the command that failed (its text, how it ended, its tail).
#[derive(Default)]
struct Reverified {
    results: Vec<VerifyResult>,
    failed: Option<(String, String, String)>,
}

/// How a failed command ended, in words.
fn how_ended(timed_out: bool, exit_code: Option<i32>) -> String {
    if timed_out {
        "timed out".to_string()
    } else {
        exit_code.map_or("was killed".into(), |c| format!("exited {c}"))
    }
}

/// Step 3: the verify commands on the merged result, unless it is a fast-forward (what the
/// gate verified) or there are none; what they came to goes into `f`.
fn reverify(inp: &MergeInput<'_>, f: &mut MergeFacts) -> Result<Reverified, QueueError> {
    if f.fast_forward || inp.verify.is_empty() {
        return Ok(Reverified::default());
    }
    let gate = verify::run_all(
        inp.verify,
        &verify::VerifyEnv {
            root: &inp.main.root,
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
    )?;
    f.interrupted = gate.interrupted;
    f.verify_passed = Some(gate.passed());
    let failed = match (&gate.failed, gate.results.last()) {
        (Some(fin), Some(r)) => Some((
            r.command.clone(),
            how_ended(fin.timed_out, fin.exit_code),
            fin.tail.clone(),
        )),
        _ => None,
    };
    Ok(Reverified {
        results: gate.results,
        failed,
    })
}

/// Steps 4-6: bookkeeping, the commit, the compare-and-swap that advances the branch.
fn land(
    inp: &MergeInput<'_>,
    f: &mut MergeFacts,
    m: &Merging<'_>,
    results: Vec<VerifyResult>,
) -> Result<MergeReport, QueueError> {
    let (commit, carried) = match bookkeep_and_commit(inp, f.fast_forward) {
        Ok(c) => c,
        Err(e) => {
            m.abort();
            return Err(e);
        }
    };
    let msg = format!("ralph: merge {}", inp.story_id);
    let branch_ref = format!("refs/heads/{}", inp.main.branch);
    f.advanced = Some(git_ok(
        &inp.main.root,
        &["update-ref", "-m", &msg, &branch_ref, &commit, inp.tip],
    ));
    let v = merge_verdict(f);
    if !matches!(v, MergeVerdict::Merged { .. }) {
        m.abort();
        return Ok(MergeReport::stop(v, f));
    }
    if m.in_merge {
        // The index and the files already equal the new tip.
        let _ = git(&inp.main.root, &["merge", "--quit"]);
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
    let spec = format!("{rev}:{}", inp.main.prd_rel);
    let out = crate::run::git::output(&inp.main.root, &["show", &spec]).ok()?;
    if !out.status.success() {
        return None;
    }
    let path = inp.main.root.join(&inp.main.prd_rel);
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
        let state = crate::state::state_dir(&inp.main.root);
        if let Ok(kept) = crate::state::rejected::keep(
            &state,
            0,
            &inp.main.root.join(&inp.main.prd_rel),
            &head_bytes,
        ) {
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
    let root = &inp.main.root;
    let mut prd = crate::prd::Prd::load(&root.join(&inp.main.prd_rel))?;
    let flipped = prd.set_passes(inp.story_id, true)?;
    let carried = carry_over(inp, &mut prd);
    if flipped || !carried.carried.is_empty() {
        prd.save()?;
    }
    let added = added_lines(root, inp.base, inp.story_branch, PROGRESS)?;
    let mut staged = vec![inp.main.prd_rel.as_str()];
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

    fn main_tree(root: &Path) -> MainTree {
        MainTree {
            root: root.to_path_buf(),
            prd_rel: "prd.json".into(),
            branch: "main".into(),
        }
    }

    fn input<'a>(
        main: &'a MainTree,
        tip: &'a str,
        id: &'a str,
        sb: &'a str,
        verify: &'a [String],
        flag: &'a AtomicBool,
    ) -> MergeInput<'a> {
        MergeInput {
            main,
            tip,
            story_branch: sb,
            story_id: id,
            story_title: "t",
            base: tip,
            verify,
            timeout: Duration::from_secs(20),
            grace: Duration::from_millis(100),
            log: None,
            interrupt: flag,
            reporter: &*QUIET,
        }
    }

    /// HEAD is at `tip` and the main tree is clean.
    fn assert_at(root: &Path, tip: &str) {
        assert_eq!(head(root).unwrap(), tip);
        assert!(dirty_paths(root).unwrap().is_empty());
    }

    #[test]
    fn fast_forward_then_a_conflict_then_a_verify_failure() {
        let (_d, root, t0) = setup();
        let main = main_tree(&root);
        let flag = AtomicBool::new(false);
        work(&root, &t0, "A", "A\n");
        let wb = work(&root, &t0, "B", "B\n");
        let t1 = a_fast_forwards(&main, &t0, &flag);
        b_conflicts(&main, &t0, &t1, &flag);
        let t2 = b_redone_while_the_branch_moved(&main, &wb, &t1, &flag);
        b_fails_verify_on_the_merged_result_then_merges(&main, &t1, &t2, &flag);
    }

    /// A merges first: its own commit lands as it is (its prd.json flip equals ralph's).
    fn a_fast_forwards(main: &MainTree, t0: &str, flag: &AtomicBool) -> String {
        let root = &main.root;
        let r = merge(&input(main, t0, "A", "main--A", &[], flag)).unwrap();
        assert_eq!(r.verdict, MergeVerdict::Merged { fast_forward: true });
        let t1 = r.commit.unwrap();
        assert_eq!(t1, git(root, &["rev-parse", "main--A"]).unwrap());
        assert_at(root, &t1);
        t1
    }

    /// B edits the same line: a conflict; nothing moves.
    fn b_conflicts(main: &MainTree, t0: &str, t1: &str, flag: &AtomicBool) {
        let root = &main.root;
        let mut i = input(main, t1, "B", "main--B", &[], flag);
        i.base = t0;
        let r = merge(&i).unwrap();
        assert_eq!(
            r.verdict,
            MergeVerdict::SentBack(super::super::policy::SendBack::Conflict(vec![
                "f.txt".into()
            ]))
        );
        assert_at(root, t1);
        assert!(!git_ok(
            root,
            &["rev-parse", "-q", "--verify", "MERGE_HEAD"]
        ));
    }

    /// B redone on the new tip, touching another file, while the branch moved outside ralph:
    /// the queue pauses. The new tip.
    fn b_redone_while_the_branch_moved(
        main: &MainTree,
        wb: &Path,
        t1: &str,
        flag: &AtomicBool,
    ) -> String {
        let root = &main.root;
        super::super::worktree::reset_onto(wb, t1).unwrap();
        std::fs::write(wb.join("g.txt"), "g\n").unwrap();
        std::fs::write(wb.join(PROGRESS), "# log\nA did it\nB did it\n").unwrap();
        git(wb, &["add", "-A"]).unwrap();
        git(wb, &["commit", "-qm", "B2"]).unwrap();
        std::fs::write(root.join("h.txt"), "").unwrap();
        git(root, &["add", "-A"]).unwrap();
        git(root, &["commit", "-qm", "moved by hand"]).unwrap();
        let t2 = head(root).unwrap();
        let r = merge(&input(main, t1, "B", "main--B", &[], flag)).unwrap();
        assert_eq!(
            r.verdict,
            MergeVerdict::Pause(super::super::policy::Pause::BranchMoved)
        );
        t2
    }

    /// B merges with a merge commit; a verify that fails on the merged result sends it back
    /// first.
    fn b_fails_verify_on_the_merged_result_then_merges(
        main: &MainTree,
        t1: &str,
        t2: &str,
        flag: &AtomicBool,
    ) {
        let root = &main.root;
        let fail = vec!["test ! -f g.txt || test ! -f h.txt".to_string()];
        let mut i = input(main, t2, "B", "main--B", &fail, flag);
        i.base = t1;
        let r = merge(&i).unwrap();
        assert_eq!(
            r.verdict,
            MergeVerdict::SentBack(super::super::policy::SendBack::VerifyFailed)
        );
        assert!(r.failed.unwrap().1.contains("exited 1"));
        assert_at(root, t2);
        let pass = vec!["test -f g.txt".to_string()];
        let mut i = input(main, t2, "B", "main--B", &pass, flag);
        i.base = t1;
        let r = merge(&i).unwrap();
        assert_eq!(
            r.verdict,
            MergeVerdict::Merged {
                fast_forward: false
            }
        );
        let t3 = r.commit.unwrap();
        assert_at(root, &t3);
        let parents = git(root, &["rev-list", "--parents", "-n1", &t3]).unwrap();
        assert_eq!(parents.split(' ').count(), 3);
        let prd = std::fs::read_to_string(root.join("prd.json")).unwrap();
        assert_eq!(prd.matches("\"passes\": true").count(), 2, "{prd}");
        let log = std::fs::read_to_string(root.join(PROGRESS)).unwrap();
        assert_eq!(log, "# log\nA did it\nB did it\n");
        assert!(
            git(root, &["log", "-1", "--format=%s", &t3])
                .unwrap()
                .contains("verified: test -f g.txt")
        );
    }
}
