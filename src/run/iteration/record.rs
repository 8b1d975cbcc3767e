//! Step 9, what the attempt did and its line in history: the work tree compared with before
//! ([`progress`]), whether the agent never got going ([`start_failure`]), the [`Record`] itself
//! ([`build`]), ralph's correction of prd.json committed ([`commit_correction`]) and the line
//! appended ([`append`]). The rules that read these are [`super::outcome`]'s and
//! [`super::verdict`]'s.

use std::path::Path;

use super::attempt::Attempt;
use super::launch::Ran;
use super::outcome::{self, AgentFacts, Outcome, Progress, StartFailure};
use super::verdict::Verdict;
use crate::agent::{self, detect};
use crate::run::error::RunError;
use crate::run::events::{Event, Reporter};
use crate::run::git;
use crate::run::guard::messages;
use crate::state::history::{self, Record, RedGreenRecord, ReviewRecord, VerifyResult};

/// The agent's progress from `before` to `after`, and the files that changed. `None` when the
/// work tree is unknown (no snapshot) and no `passes` flip of the story shows progress.
pub(crate) fn progress(
    root: &Path,
    before: Option<&git::Snapshot>,
    after: Option<&git::Snapshot>,
    passes_flipped: bool,
) -> (Option<Progress>, Vec<String>) {
    match (before, after) {
        (Some(b), Some(a)) => {
            let (committed, tree_changed, files) = git::compare(root, b, a);
            let p = Progress {
                committed,
                tree_changed,
                passes_flipped,
            };
            (Some(p), files)
        }
        // No snapshot: the work tree is unknown, only a flip is evidence.
        _ => (
            passes_flipped.then_some(Progress {
                passes_flipped,
                ..Progress::default()
            }),
            vec![],
        ),
    }
}

/// Whether the agent never got going (see [`outcome::start_failure`]).
pub(crate) fn start_failure(
    ran: &Ran,
    format: agent::telemetry::Format,
    facts: &AgentFacts,
    progress: Option<Progress>,
) -> Option<StartFailure> {
    let run = &ran.run;
    outcome::start_failure(&outcome::StartFacts {
        exit_code: run.exit_code,
        timed_out: run.timed_out,
        interrupted: run.interrupted,
        duration: run.duration,
        structured: format != agent::telemetry::Format::Plain,
        events_seen: ran.events > 0,
        refusal: detect::refusal(&run.tail),
        worked: facts.claimed() || progress.is_some_and(Progress::any),
        rate_limited: facts.rate_limited,
    })
}

/// What the gate, the verdict and the review came to (step 8), as the record needs it.
pub(crate) struct Judged {
    pub facts: AgentFacts,
    pub verify: Vec<VerifyResult>,
    pub red_green: Option<RedGreenRecord>,
    pub verdict: Verdict,
    pub review: Option<ReviewRecord>,
    /// The agent's (or the reviewer's) usage-limit message.
    pub rate_line: Option<String>,
}

/// The work tree before and after, and the files that changed.
pub(crate) struct Tree<'a> {
    pub before: Option<git::Snapshot>,
    pub after: Option<&'a git::Snapshot>,
    pub files: Vec<String>,
}

/// The attempt's history record.
pub(crate) fn build(
    at: &Attempt<'_>,
    start: &jiff::Zoned,
    ran: &Ran,
    j: &Judged,
    tree: Tree<'_>,
    restored: Vec<String>,
    failure: Option<&StartFailure>,
) -> Record {
    let (opts, run) = (at.opts, &ran.run);
    let outcome = match failure {
        Some(_) => Outcome::StartFailed,
        None => j.verdict.outcome,
    };
    Record {
        run_id: at.run_id.to_string(),
        iteration: at.n,
        story: at.story.id.clone(),
        agent: opts.agent.kind.name().to_string(),
        agent_version: opts.agent.version.as_ref().map(ToString::to_string),
        start: start.timestamp().to_string(),
        duration_ms: run.duration.as_millis() as u64,
        exit_code: run.exit_code,
        term_signal: run.signal,
        timed_out: run.timed_out,
        signal_seen: j.facts.signalled,
        verify: j.verify.clone(),
        outcome,
        head_before: tree.before.and_then(|b| b.head),
        head_after: tree.after.and_then(|a| a.head.clone()),
        files_changed: tree.files,
        restored,
        rate_limit: j
            .rate_line
            .clone()
            .filter(|_| outcome == Outcome::RateLimited),
        skipped: false,
        worker: None,
        base: None,
        merge: None,
        attempt_ref: None,
        usage: ran.usage.clone(),
        reason: reason(j, outcome, failure, &run.tail),
        review: j.review.clone(),
        events: at
            .file("iter", "events.jsonl")
            .is_file()
            .then(|| format!(".ralph/runs/{}/iter-{}.events.jsonl", at.run_id, at.n)),
        red_green: j.red_green.clone(),
    }
}

/// Why the story did not pass, in the agent's (or the reviewer's) words, or what a start
/// failure looked like.
fn reason(
    j: &Judged,
    outcome: Outcome,
    failure: Option<&StartFailure>,
    tail: &str,
) -> Option<String> {
    match &j.facts.said {
        Some(detect::Signal::Blocked(r) | detect::Signal::Failed(r)) => Some(r.clone()),
        _ => None,
    }
    .filter(|_| matches!(outcome, Outcome::Blocked | Outcome::Failed))
    .or_else(|| (outcome == Outcome::ReviewChanges).then(|| j.verdict.extra.clone()))
    .or_else(|| failure.map(|f| f.line(tail, outcome::QUICK_EXIT)))
}

/// When the guard put something back or ralph settled `passes`, commit prd.json as corrected
/// (so HEAD does not keep the rejected version); `after` gets the new HEAD.
pub(crate) fn commit_correction(
    at: &Attempt<'_>,
    prd_rel: &str,
    c: &messages::Correction<'_>,
    after: &mut Option<git::Snapshot>,
    rep: &dyn Reporter,
) {
    if c.restored.is_empty() && c.settled.is_empty() {
        return;
    }
    let msg = messages::correction_message(c);
    match git::commit_correction(&at.opts.root, prd_rel, &msg) {
        Ok(Some(head)) => {
            rep.report(Event::Note {
                text: format!("committed its correction of {prd_rel} ({head:.12})"),
            });
            if let Some(a) = after.as_mut() {
                a.head = Some(head);
            }
        }
        Ok(None) => {}
        Err(e) => rep.report(Event::Warning {
            text: format!(
                "{e}; {prd_rel} in the work tree is corrected, but HEAD may still hold the rejected version"
            ),
        }),
    }
}

/// Append the record (the loop may have marked it `skipped`).
pub(crate) fn append(root: &Path, rec: &Record) -> Result<(), RunError> {
    history::append(root, rec)?;
    Ok(())
}
