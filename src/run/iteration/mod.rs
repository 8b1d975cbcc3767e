//! One iteration, steps 6-9, each step in the file named after it: the prompt and the agent
//! ([`launch`]), the integrity guard ([`crate::run::guard`]), the gate ([`gate`]: [`verify`]
//! commands, then [`redgreen`]), the verdict ([`verdict`], on [`outcome`]'s rule), the review
//! ([`reviewer`]) and the history record ([`record`]). What every step reads is one
//! [`Attempt`]. The loop around it (lock, validation, archive, selection, sleeps, limits) is
//! the sequential driver's or the parallel scheduler's.

pub(crate) mod attempt;
pub(crate) mod cost;
pub(crate) mod gate;
pub(crate) mod launch;
pub(crate) mod outcome;
pub(crate) mod prompt;
pub(crate) mod record;
pub(crate) mod redgreen;
pub(crate) mod reviewer;
pub(crate) mod verdict;
pub(crate) mod verify;

pub(crate) use attempt::Attempt;

use self::launch::Ran;
use self::outcome::{AgentFacts, Outcome, Progress, StartFailure};
use self::prompt::RetryNote;
use self::record::{Judged, Tree};
use crate::agent::detect;
use crate::run::error::RunError;
use crate::run::guard::{self, Checked, messages, repair};
use crate::run::options::{Options, PrdSnapshot};
use crate::run::{git, log};
use crate::state::history::Record;

/// What happened.
pub(crate) struct Done {
    pub outcome: Outcome,
    /// `None` when it cannot be known (outside git, or `git status` failed) and no `passes`
    /// flip shows it: such an iteration never counts as a strike.
    pub progress: Option<Progress>,
    pub record: Record,
    /// What the next prompt for this story should say, when it failed.
    pub retry: Option<RetryNote>,
    /// prd.json after the iteration (guarded, passes settled), when it changed.
    pub changed: Option<PrdSnapshot>,
    /// Every story passes now.
    pub all_done: bool,
    pub rate_line: Option<String>,
    pub extra: String,
    /// The work tree after the iteration (the next iteration's "before").
    pub after: Option<git::Snapshot>,
    /// The learned error patterns the prompt showed (ids; the loop counts their uses).
    pub patterns_used: Vec<String>,
    /// The agent never got going: the run stops (outcome `StartFailed`).
    pub start_failure: Option<StartFailure>,
}

/// Steps 6-9 for one attempt (see the module doc).
pub(crate) fn run_one(mut at: Attempt<'_>) -> Result<Done, RunError> {
    let opts = at.opts;
    let start = jiff::Zoned::now();
    let prompted = launch::prompt(&at)?;
    let prd_rel = prd_rel(opts);
    let before = at
        .before
        .take()
        .or_else(|| git::snapshot(&opts.root, &prd_rel));
    let log = log::log_sink(&at.file("iter", "log"), &*opts.reporter);
    log::log_line(&log, &header(&at, &start, &prompted.inv.argv));
    let state = crate::state::state_dir(&opts.root);
    let gctx = repair::Ctx {
        state_dir: &state,
        n: at.n,
    };
    let progress = opts.root.join("progress.txt");
    let progress_before = repair::progress_before(&progress);
    let ran = launch::agent(&at, &prompted, log.clone())?;
    let mut checked = guard::after_attempt(
        gctx,
        &watched(&at, &progress, progress_before.as_deref()),
        &*opts.reporter,
    )?;
    let head = at
        .review_base
        .or_else(|| before.as_ref().and_then(|b| b.head.as_deref()));
    let judged = judge(&at, &ran, &checked, head, log, &prd_rel)?;
    let settle = &judged.verdict.settle;
    let changed = guard::settle(gctx, checked.changed.take(), &at.prd.prd, settle)?;
    let all_done = changed.as_ref().map_or(&*at.prd.prd, |(p, _)| p).all_done();
    let mut after = git::snapshot(&opts.root, &prd_rel);
    let (record, progress, start_failure) = recorded(
        &at,
        &start,
        &ran,
        &judged,
        &mut checked,
        before,
        after.as_ref(),
    );
    let correction = correction(&at, &record, &checked, settle);
    record::commit_correction(&at, &prd_rel, &correction, &mut after, &*opts.reporter);
    Ok(Done {
        outcome: record.outcome,
        progress,
        record,
        retry: judged.verdict.retry,
        changed: changed.map(|(p, b)| PrdSnapshot::new(p, b)),
        all_done,
        rate_line: judged.rate_line,
        extra: judged.verdict.extra,
        after,
        patterns_used: prompted.patterns,
        start_failure,
    })
}

/// Step 9's record: the work tree compared with `before`, whether the agent never got going,
/// the history record (its outcome `StartFailed` then).
fn recorded(
    at: &Attempt<'_>,
    start: &jiff::Zoned,
    ran: &Ran,
    judged: &Judged,
    checked: &mut Checked,
    before: Option<git::Snapshot>,
    after: Option<&git::Snapshot>,
) -> (Record, Option<Progress>, Option<StartFailure>) {
    let (opts, id) = (at.opts, &at.story.id);
    let flipped = checked.flips.iter().any(|(s, p)| s == id && *p);
    let (progress, files) = record::progress(&opts.root, before.as_ref(), after, flipped);
    let failure = record::start_failure(ran, opts.agent.format(), &judged.facts, progress);
    let tree = Tree {
        before,
        after,
        files,
    };
    let restored = std::mem::take(&mut checked.restored);
    let rec = record::build(at, start, ran, judged, tree, restored, failure.as_ref());
    (rec, progress, failure)
}

/// prd.json's path relative to the root (`prd.json` when it is outside it).
fn prd_rel(opts: &Options) -> String {
    opts.prd_path
        .strip_prefix(&opts.root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "prd.json".into())
}

/// The iteration log's first line: which iteration, story and attempt, when, and the argv.
fn header(at: &Attempt<'_>, start: &jiff::Zoned, argv: &[String]) -> String {
    format!(
        "=== ralph iteration {} · story {} · attempt {} · {}\n$ {}",
        at.n,
        at.story.id,
        at.attempt,
        start.timestamp(),
        shell_words::join(argv)
    )
}

/// What the guard checks after the agent of `at` (see [`guard::Watched`]).
fn watched<'a>(
    at: &'a Attempt<'_>,
    progress: &'a std::path::Path,
    before: Option<&'a [u8]>,
) -> guard::Watched<'a> {
    guard::Watched {
        progress,
        progress_before: before,
        prd_path: &at.opts.prd_path,
        prd: &at.prd.prd,
        bytes: &at.prd.bytes,
        story: &at.story.id,
    }
}

/// Step 8: what the agent's run shows ([`AgentFacts`]), the gate when the agent claims the
/// story, the verdict, and the review when it comes to done (`head`: where the story's work
/// started).
fn judge(
    at: &Attempt<'_>,
    ran: &Ran,
    checked: &Checked,
    head: Option<&str>,
    log: Option<std::sync::Arc<std::sync::Mutex<crate::agent::process::LogSink>>>,
    prd_rel: &str,
) -> Result<Judged, RunError> {
    let (opts, run) = (at.opts, &ran.run);
    // A limit message ends the agent's run, so only its last lines count (earlier output may
    // well mention limits or 429 in ordinary work); a timeout is a timeout.
    let rate_line = detect::limit_at_end(&run.tail, run.timed_out);
    let facts = facts(at, ran, checked, rate_line.is_some());
    let inp = attempt::ToVerify {
        at,
        base: head,
        log,
        prd_rel,
    };
    let (gate, verify, red_green) = gate::for_attempt(&inp, &facts)?;
    let observed = verdict::Observed {
        story: &at.story.id,
        attempt: at.attempt,
        facts: facts.clone(),
        gate,
        flips: &checked.flips,
        restored: &checked.restored,
        signal: run.signal,
        tail: &run.tail,
        timeout: opts.settings.timeout,
    };
    let decided = verdict::decide(&observed);
    let r = reviewer::after_gate(at, &observed, decided, head, &verify, prd_rel)?;
    Ok(Judged {
        facts,
        verify,
        red_green,
        verdict: r.verdict,
        review: r.record,
        // A reviewer's usage limit is the run's to wait for, like the agent's.
        rate_line: r.rate_line.or(rate_line),
    })
}

/// What is known once the agent has exited and the guard has run.
fn facts(at: &Attempt<'_>, ran: &Ran, checked: &Checked, rate_limited: bool) -> AgentFacts {
    let prd = checked.changed.as_ref().map_or(&*at.prd.prd, |(p, _)| p);
    AgentFacts {
        exit_code: ran.run.exit_code,
        timed_out: ran.run.timed_out,
        interrupted: ran.run.interrupted,
        passes_after: prd.story(&at.story.id).is_some_and(|x| x.passes),
        signalled: ran.signalled,
        said: ran.said.clone(),
        rate_limited,
        gated: !gate::commands(at.opts, at.story).is_empty(),
    }
}

/// ralph's correction commit's message parts.
fn correction<'a>(
    at: &'a Attempt<'_>,
    record: &'a Record,
    checked: &'a Checked,
    settled: &'a [(String, bool)],
) -> messages::Correction<'a> {
    messages::Correction {
        n: at.n,
        story: &at.story.id,
        restored: &record.restored,
        settled,
        outcome: record.outcome,
        rejected: checked.rejected.as_deref(),
    }
}
