//! What follows a gated attempt: the merge queue's step for one story and the verdict acted on
//! (history record, new tip, send-back with its attempt ref, reset and retry note), and the
//! release of a claim (leftovers committed, worktree removed, branch deleted or kept, summary
//! row). The scheduler's methods on [`super::sched::Sched`]; the git steps are `queue` and
//! `worktree`; the wording of a send-back and of a pause is pure, beside them.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::error::ParallelError;
use super::policy::{MergeVerdict, Pause, SendBack};
use super::queue::{self, MergeReport};
use super::sched::{ClaimState, Sched};
use super::worktree;
use crate::agent::process::LogSink;
use crate::errors_seen::Failure;
use crate::run::events::Event;
use crate::run::events::durations::format_elapsed;
use crate::run::iteration::outcome::{Outcome, Progress};
use crate::run::iteration::prompt::RetryNote;
use crate::run::iteration::verdict::tail_of;
use crate::run::log;
use crate::state::history::{MergeRecord, Record};

/// How a merged story landed, for its line: a fast-forward, merged without verify commands, or
/// re-verified (in `took`).
fn how_merged(fast_forward: bool, reverified: bool, took: Duration) -> String {
    if fast_forward {
        "fast-forward".to_string()
    } else if !reverified {
        "merged, not re-verified: no verify commands".to_string()
    } else {
        format!("re-verified in {}", format_elapsed(took))
    }
}

/// Why the queue stopped, and what to do about it (`branch` was at `tip_before`).
fn pause_reason(p: Pause, branch: &str, tip_before: &str) -> String {
    match p {
        Pause::BranchMoved => format!(
            "{branch} moved outside ralph (it was {tip_before:.12}); see `git log {tip_before:.12}..{branch}`, then run again"
        ),
        Pause::TreeDirty(paths) => format!(
            "the main tree has changes ralph did not make ({}); commit or stash them and run again",
            paths.join(", ")
        ),
    }
}

/// What the next prompt of a sent-back story is told (`attempt` was sent back `why`, after the
/// stories `since` merged; its work is `kept` as said), and the failure it counts as.
fn send_back_note(
    why: &SendBack,
    failed: Option<(String, String, String)>,
    attempt: u32,
    since: &str,
    kept: &str,
) -> (RetryNote, &'static str) {
    let (reason, tail, failure, label) = match why {
        SendBack::Conflict(paths) => (
            format!(
                "it could not be merged: it conflicts with {since} in {}. Your work was reset onto the current tip; {kept}. Redo the story on the current code, reusing what still applies",
                paths.join(", ")
            ),
            None,
            None,
            "conflict",
        ),
        SendBack::VerifyFailed => {
            let (cmd, how, tail) = failed.unwrap_or_default();
            let failure = Failure {
                command: cmd.clone(),
                tail: tail_of(&tail, 4096).to_string(),
            };
            let reason = format!(
                "it passed verification alone but failed once merged with {since}: `{cmd}` {how}. Your work was reset onto the current tip; {kept}. Redo the story so it works with their code"
            );
            (reason, Some(tail), Some(failure), "verify")
        }
    };
    let note = RetryNote {
        attempt,
        reason,
        output_tail: tail.map(|t| tail_of(&t, 4096).to_string()),
        failure,
    };
    (note, label)
}

/// The stories merged since a claim's base (from `merged`), in words.
fn merged_since(merged: &[(String, String)]) -> String {
    let since: Vec<String> = merged
        .iter()
        .map(|(s, m)| format!("{s} (merged as {m:.7})"))
        .collect();
    if since.is_empty() {
        "the stories merged since your base".to_string()
    } else {
        since.join(", ")
    }
}

impl Sched<'_> {
    /// Merge a queued story (the queue's one step) and act on the verdict.
    pub(super) fn merge(&mut self, id: &str, stop: &AtomicBool) {
        let Some(c) = self.claims.get_mut(id) else {
            return;
        };
        c.state = ClaimState::Queued;
        let log = log::log_sink(
            &self.run_dir.join(format!("merge-{}.log", self.n)),
            &*self.opts.reporter,
        );
        let t0 = Instant::now();
        let report = self.merge_step(id, log, stop);
        self.totals.queue += t0.elapsed();
        match report {
            Ok(r) => self.land(id, r, t0),
            Err(source) => {
                let story = id.to_string();
                self.fatal = Some(ParallelError::Queue { story, source }.into());
            }
        }
    }

    /// The merge queue's step for the claim of `id` (logged to `log`); [`Sched::merge`] has
    /// just found the claim.
    fn merge_step(
        &self,
        id: &str,
        log: Option<Arc<Mutex<LogSink>>>,
        stop: &AtomicBool,
    ) -> Result<MergeReport, queue::QueueError> {
        let (s, c) = (&self.opts.settings, &self.claims[id]);
        queue::merge(&queue::MergeInput {
            main: &self.main,
            tip: &self.tip,
            story_branch: &c.branch,
            story_id: id,
            story_title: &c.title,
            base: &c.base,
            verify: &c.verify,
            timeout: s.timeout,
            grace: s.grace,
            log,
            interrupt: stop,
            reporter: &*self.opts.reporter,
        })
    }

    /// Act on the merge of `id` (begun at `t0`): the history record completed, then merged,
    /// sent back, the queue paused, or (interrupted) recorded as it is.
    fn land(&mut self, id: &str, r: MergeReport, t0: Instant) {
        let Some(c) = self.claims.get_mut(id) else {
            return;
        };
        let mut rec = c.gated.take().unwrap_or_else(|| unreachable_record(id));
        let mut merge = MergeRecord {
            result: String::new(),
            tip_before: self.tip.clone(),
            tip_after: None,
            fast_forward: r.fast_forward,
            conflicts: vec![],
            verify: r.verify.clone(),
        };
        match r.verdict.clone() {
            MergeVerdict::Merged { .. } => {
                self.merged(id, &r, rec, merge, t0);
            }
            MergeVerdict::SentBack(why) => {
                let (outcome, result) = match &why {
                    SendBack::Conflict(paths) => {
                        merge.conflicts = paths.clone();
                        (Outcome::MergeConflict, "conflict")
                    }
                    SendBack::VerifyFailed => (Outcome::MergeVerifyFailed, "verify-failed"),
                };
                merge.result = result.into();
                rec.outcome = outcome;
                rec.merge = Some(merge);
                self.send_back(id, rec, &why, r.failed);
            }
            MergeVerdict::Pause(p) => {
                let why = pause_reason(p, &self.main.branch, &merge.tip_before);
                c.gated = Some(rec);
                self.fatal = Some(ParallelError::Paused(why).into());
            }
            MergeVerdict::Abort | MergeVerdict::Proceed => {
                rec.outcome = Outcome::Interrupted;
                self.record(&rec);
            }
        }
    }

    /// `id` landed (its merge begun at `t0`): what was carried over said, its record written,
    /// learned from when it passed after a verify failure, the tip moved on, and its claim
    /// released.
    fn merged(
        &mut self,
        id: &str,
        r: &MergeReport,
        mut rec: Record,
        mut merge: MergeRecord,
        t0: Instant,
    ) {
        if !r.carried.is_empty() {
            self.note(format!(
                "{id}: carried over from its worktree's prd.json: {}",
                r.carried.join(", ")
            ));
        }
        if !r.left.is_empty() {
            self.warn(format!("{id}: not carried over: {}", r.left.join("; ")));
        }
        let commit = r.commit.clone().unwrap_or_default();
        merge.result = "merged".into();
        merge.tip_after = Some(commit.clone());
        rec.head_after = Some(commit.clone());
        rec.merge = Some(merge);
        self.record(&rec);
        // Passed after a verify failure (alone or once merged): learn from the fix.
        let failed_before = self.claims.get(id).and_then(|c| c.retry.as_ref());
        if let Some(f) = failed_before.and_then(|r| r.failure.clone()) {
            crate::run::errors_seen::learn_reported(
                &self.main.root,
                &f,
                &rec,
                &*self.opts.reporter,
            );
        }
        self.tip = commit.clone();
        self.merged.push((id.to_string(), commit.clone()));
        self.totals.merges += 1;
        self.strikes
            .record(id, Outcome::Done, Some(Progress::default()));
        let fast_forward = matches!(r.verdict, MergeVerdict::Merged { fast_forward: true });
        let reverified = self.claims.get(id).is_some_and(|c| !c.verify.is_empty());
        let how = how_merged(fast_forward, reverified, t0.elapsed());
        let title = self
            .claims
            .get(id)
            .map(|c| c.title.clone())
            .unwrap_or_default();
        self.opts.reporter.report(Event::StoryDone {
            story: id.to_string(),
            title,
            commit: Some(commit),
            how: Some(how),
        });
        self.release(id, "merged");
    }

    /// The merge could not land the story: keep its attempt, reset its worktree onto the tip,
    /// and tell its next prompt why.
    fn send_back(
        &mut self,
        id: &str,
        mut rec: Record,
        why: &SendBack,
        failed: Option<(String, String, String)>,
    ) {
        // The attempt is kept before its worktree is reset: what cannot be kept is not reset.
        let Some(r) = self.keep_attempt(id, &mut rec) else {
            return;
        };
        let Some(c) = self.claims.get_mut(id) else {
            return;
        };
        rec.attempt_ref = Some(r.clone());
        let since = merged_since(&self.merged[c.merged_mark.min(self.merged.len())..]);
        let kept = format!(
            "the previous attempt is kept at {r} (`git diff {base:.12}..{r}` shows it, `git cherry-pick {base:.12}..{r}` replays it)",
            base = c.base
        );
        let (note, label) = send_back_note(why, failed, c.attempt, &since, &kept);
        self.opts.reporter.report(Event::SentBack {
            story: id.to_string(),
            outcome: rec.outcome,
            why: match why {
                SendBack::Conflict(p) => p.join(", "),
                SendBack::VerifyFailed => "failed verify on the merged result".into(),
            },
        });
        self.totals.send_backs += 1;
        *c.failures.entry(label).or_insert(0) += 1;
        if let Err(e) = worktree::reset_onto(&c.wt, &self.tip) {
            self.opts.reporter.report(Event::Warning {
                text: format!("{id}: cannot reset its worktree: {e}"),
            });
        }
        c.base = self.tip.clone();
        c.merged_mark = self.merged.len();
        c.retry = Some(note);
        c.state = ClaimState::Waiting(Instant::now() + self.opts.settings.sleep);
        let held = self
            .strikes
            .record(id, rec.outcome, Some(Progress::default()));
        rec.skipped = held.is_some();
        self.record(&rec);
        if let Some(k) = held {
            let why = format!("sent back {k} times in a row");
            self.report_held(id, k, &why);
            self.hold_for_run(id, why);
        }
    }

    /// Keep a sent-back attempt of `id` (its worktree's work saved, its head under the next
    /// attempt ref); when it cannot be, the story is held (its work stays on its branch) and
    /// `None` says so.
    fn keep_attempt(&mut self, id: &str, rec: &mut Record) -> Option<String> {
        let c = self.claims.get(id)?;
        let saved = worktree::save(
            &self.main.root,
            &c.wt,
            &c.branch,
            "ralph: left at a send-back",
        )
        .and_then(|s| worktree::save_attempt(&self.main.root, &c.branch, &s.head));
        let e = match saved {
            Ok(r) => return Some(r),
            Err(e) => e,
        };
        let (attempt, branch) = (c.attempt, c.branch.clone());
        let why = format!("sent back, but its attempt could not be kept: {e}");
        rec.reason = Some(why.clone());
        rec.skipped = true;
        self.record(rec);
        self.warn(format!("{id}: {why}; held, its work stays on {branch}"));
        self.report_held(id, attempt, &why);
        self.hold_for_run(id, why);
        None
    }

    /// Remove the worktrees, branches and merged attempt refs of merged stories (what they
    /// hold is saved first; attempts the tip does not contain stay).
    pub(super) fn tidy(&mut self) {
        for (wt, branch) in std::mem::take(&mut self.cleanup) {
            let msg = format!("ralph: left after the merge, run {}", self.run_id);
            if let Err(e) =
                worktree::retire_worktree(&self.main.root, &wt, &branch, &msg, &self.tip)
            {
                self.warn(format!("{}: kept as it is: {e}", wt.display()));
            }
            worktree::delete_merged_attempts(&self.main.root, &branch, &self.tip);
        }
    }

    /// Free a claim's slot and add its summary row. Merged: its worktree and branch go at the
    /// next [`Sched::tidy`]. Otherwise: what is left in its worktree is saved on its branch
    /// (or under an attempt ref), the worktree removed, the branch deleted when the tip holds
    /// it and kept otherwise (the next run resumes it).
    pub(super) fn release(&mut self, id: &str, result: &str) {
        let Some(c) = self.claims.remove(id) else {
            return;
        };
        self.queue.retain(|q| q != id);
        let failures: Vec<String> = c.failures.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let mut row = crate::run::events::board::Row {
            id: id.to_string(),
            result: result.to_string(),
            attempts: c.attempt,
            failures: failures.join(", "),
            agent: c.agent,
            claim_to_end: c.claimed.elapsed(),
            where_: String::new(),
        };
        if result == "merged" {
            row.where_ = format!("{:.7}", self.tip);
            self.rows.push(row);
            self.cleanup.push((c.wt, c.branch));
            return;
        }
        // A claim whose first attempt never started has no worktree of this run's.
        if !c.fresh && c.wt.exists() {
            let msg = format!("ralph: work left by run {}, not verified", self.run_id);
            match worktree::retire_worktree(&self.main.root, &c.wt, &c.branch, &msg, &self.tip) {
                Ok(r) if r.merged => {}
                Ok(r) => {
                    row.result = format!("{result}, kept");
                    row.where_ = r
                        .saved
                        .kept_at
                        .strip_prefix("refs/heads/")
                        .unwrap_or(&r.saved.kept_at)
                        .to_string();
                }
                Err(e) => {
                    self.warn(format!(
                        "{id}: its worktree {} is left as it is (its work could not be saved: {e})",
                        c.wt.display()
                    ));
                    row.result = format!("{result}, kept");
                    row.where_ = c.wt.display().to_string();
                }
            }
        }
        self.rows.push(row);
    }
}

/// A queued claim always holds its gated record; should it not, an empty one keeps history
/// well-formed rather than stopping the run.
fn unreachable_record(id: &str) -> Record {
    Record::new("", 0, id, jiff::Timestamp::now().to_string(), Outcome::Done)
}
