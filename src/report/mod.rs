//! `ralph report`: what a run did, story by story, read from `.ralph/history.jsonl`.
//!
//! Owns the report's model ([`Report`]: the iterations of the chosen runs, one row per story,
//! the totals, and which optional columns any record has) and building it from the history's
//! records, read by `state::history`'s typed reader: the same records `ralph status` and the
//! loop read, where fields added later (`usage`, `worker`, `merge`, a review) are optional and
//! a line that is not a record is skipped and counted, never an error. Rendering is pure and
//! lives beside it: [`text`] (a terminal table and markdown) and [`html`] (one self-contained
//! page with a timeline). Does not own the record's shape (`state::history` does) nor any
//! printing (the CLI does).

pub(crate) mod html;
pub(crate) mod text;

use serde::Serialize;
use std::path::{Path, PathBuf};

use crate::agent::telemetry;
use crate::state::history::{self, HistoryError, Outcome, Record};

/// A history that cannot be reported on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReportError {
    #[error(transparent)]
    History(#[from] HistoryError),
    #[error("{path}: no iterations recorded yet; `ralph run` writes one record per iteration")]
    Empty { path: PathBuf },
    #[error("{path}: no run \"{id}\"{hint}")]
    UnknownRun {
        path: PathBuf,
        id: String,
        /// ` (did you mean …?) …`, ready to print.
        hint: String,
    },
}

impl crate::problem::Coded for ReportError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        use crate::problem::Problem;
        Some(match self {
            ReportError::History(h) => return h.problem(),
            ReportError::Empty { path } => Problem::at("no-history", path),
            ReportError::UnknownRun { path, .. } => Problem::at("unknown-run", path),
        })
    }
}

/// Which runs to report on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RunChoice {
    /// The run of the last record in the file.
    Latest,
    /// Every run in the file.
    All,
    /// One run by its id.
    Id(String),
}

impl RunChoice {
    /// `None` is the latest run; `all` is every run; anything else is a run id.
    pub(crate) fn parse(arg: Option<&str>) -> RunChoice {
        match arg {
            None | Some("latest") => RunChoice::Latest,
            Some("all") => RunChoice::All,
            Some(id) => RunChoice::Id(id.to_string()),
        }
    }
}

/// Token use and cost of one iteration, as far as the agent reported them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub cost_usd: Option<f64>,
    pub model: Option<String>,
}

impl Usage {
    /// Input plus output tokens, when either is known.
    pub(crate) fn tokens(&self) -> Option<u64> {
        match (self.input_tokens, self.output_tokens) {
            (None, None) => None,
            (i, o) => Some(i.unwrap_or(0).saturating_add(o.unwrap_or(0))),
        }
    }
}

/// One iteration, from one history record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Iteration {
    pub run_id: String,
    pub iteration: u64,
    pub story: String,
    pub agent: String,
    /// RFC 3339, as recorded.
    pub start: Option<String>,
    /// Milliseconds since the run's first start (laid end to end when a start is unreadable).
    pub offset_ms: u64,
    pub duration_ms: u64,
    /// As recorded: `done`, `verify-failed`, `incomplete`, `agent-failed`, `timed-out`, … .
    pub outcome: String,
    pub verify_passed: usize,
    pub verify_total: usize,
    /// The verify commands that failed.
    pub verify_failed: Vec<String>,
    /// The parallel worker (1 when the record names none).
    pub worker: u64,
    pub usage: Option<Usage>,
    /// `merge.result`: merged, conflict, verify-failed.
    pub merge: Option<String>,
    /// The review verdict.
    pub review: Option<String>,
    pub skipped: bool,
}

/// One story's iterations, summed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct StoryRow {
    pub story: String,
    pub iterations: usize,
    pub duration_ms: u64,
    /// The last iteration's outcome.
    pub outcome: String,
    /// The last iteration's verify results.
    pub verify_passed: usize,
    pub verify_total: usize,
    pub tokens: Option<u64>,
    pub cost_usd: Option<f64>,
    pub merge: Option<String>,
    pub review: Option<String>,
    pub workers: Vec<u64>,
}

/// The whole report's sums.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Totals {
    pub stories: usize,
    pub done: usize,
    pub iterations: usize,
    /// The agents' time, summed.
    pub duration_ms: u64,
    /// From the first start to the last end, per run, summed.
    pub wall_ms: u64,
    pub tokens: Option<u64>,
    pub cost_usd: Option<f64>,
}

/// Which optional columns some record has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Columns {
    pub verify: bool,
    pub tokens: bool,
    pub cost: bool,
    pub workers: bool,
    pub merge: bool,
    pub review: bool,
}

/// The report on the chosen runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Report {
    /// The runs reported on, oldest first.
    pub runs: Vec<String>,
    pub stories: Vec<StoryRow>,
    pub iterations: Vec<Iteration>,
    pub totals: Totals,
    pub columns: Columns,
    /// Lines of the file that are not records (skipped).
    pub skipped_lines: usize,
}

/// Read `path` (missing = empty): its records, and how many lines are not records.
pub(crate) fn read(path: &Path) -> Result<(Vec<Record>, usize), ReportError> {
    Ok(history::read_file(path)?)
}

/// The run ids in the order they first appear.
pub(crate) fn run_ids(records: &[Record]) -> Vec<String> {
    let mut ids: Vec<&str> = Vec::new();
    for r in records {
        if !ids.contains(&r.run_id.as_str()) {
            ids.push(&r.run_id);
        }
    }
    ids.into_iter().map(String::from).collect()
}

/// The report on `choice`'s runs among `records` (read from `path`, named in errors).
pub(crate) fn build(
    path: &Path,
    records: &[Record],
    skipped_lines: usize,
    choice: &RunChoice,
) -> Result<Report, ReportError> {
    let ids = run_ids(records);
    let runs: Vec<String> = match choice {
        _ if ids.is_empty() => {
            return Err(ReportError::Empty {
                path: path.to_path_buf(),
            });
        }
        RunChoice::All => ids.clone(),
        RunChoice::Latest => records
            .last()
            .map(|r| vec![r.run_id.clone()])
            .unwrap_or_default(),
        RunChoice::Id(id) if ids.contains(id) => vec![id.clone()],
        RunChoice::Id(id) => {
            return Err(ReportError::UnknownRun {
                path: path.to_path_buf(),
                id: id.clone(),
                hint: unknown_hint(id, &ids),
            });
        }
    };
    let mut iterations = Vec::new();
    for run in &runs {
        let mine: Vec<&Record> = records.iter().filter(|r| &r.run_id == run).collect();
        iterations.extend(run_iterations(&mine));
    }
    Ok(summarize(runs, iterations, skipped_lines))
}

/// ` (did you mean "x"?); runs in the file: a, b, c (latest last)`.
fn unknown_hint(id: &str, ids: &[String]) -> String {
    let mut hint = String::new();
    if let Some(near) = crate::suggest::nearest(id, ids.iter().map(String::as_str)) {
        hint.push_str(&format!(" (did you mean \"{near}\"?)"));
    }
    let shown: Vec<&str> = ids.iter().rev().take(5).rev().map(String::as_str).collect();
    let more = if ids.len() > shown.len() { "…, " } else { "" };
    hint.push_str(&format!(
        "; runs in the file: {more}{} (latest last); `--run all` reports every run",
        shown.join(", ")
    ));
    hint
}

/// What an iteration used: its agent's `usage`, plus its reviewer's (`review.usage`, with
/// `--review`), so the report's cost is the one `--max-cost` and `ralph status` count.
fn usage_of(r: &Record) -> Option<Usage> {
    let agent = r.usage.as_ref().map(one_usage);
    let reviewer = r
        .review
        .as_ref()
        .and_then(|v| v.usage.as_ref())
        .map(one_usage);
    let usage = match (agent, reviewer) {
        (Some(a), Some(r)) => Usage {
            input_tokens: add(a.input_tokens, r.input_tokens),
            output_tokens: add(a.output_tokens, r.output_tokens),
            cached_tokens: add(a.cached_tokens, r.cached_tokens),
            cost_usd: add(a.cost_usd, r.cost_usd),
            model: a.model,
        },
        (a, r) => a.or(r)?,
    };
    (usage != Usage::default()).then_some(usage)
}

/// One `usage` of a record. A count of 0 is what the record holds when the agent reported
/// none: not reported.
fn one_usage(u: &telemetry::Usage) -> Usage {
    let count = |n: u64| (n > 0).then_some(n);
    Usage {
        input_tokens: count(u.input_tokens),
        output_tokens: count(u.output_tokens),
        cached_tokens: count(u.cached_tokens),
        cost_usd: u.cost_usd.and_then(history::counted_cost),
        model: u.model.clone(),
    }
}

/// The outcome as the record spells it (`verify-failed`).
fn recorded(o: Outcome) -> String {
    match serde_json::to_value(o) {
        Ok(serde_json::Value::String(s)) => s,
        _ => "unknown".to_string(),
    }
}

fn start_ms(r: &Record) -> Option<i64> {
    let t: jiff::Timestamp = r.start.parse().ok()?;
    Some(t.as_millisecond())
}

/// One run's records as iterations, placed on the run's time line.
fn run_iterations(records: &[&Record]) -> Vec<Iteration> {
    let starts: Vec<Option<i64>> = records.iter().map(|r| start_ms(r)).collect();
    let t0 = starts.iter().flatten().min().copied();
    let mut end_so_far = 0u64;
    let mut out = Vec::with_capacity(records.len());
    for (r, start) in records.iter().zip(&starts) {
        let offset_ms = match (start, t0) {
            (Some(s), Some(t0)) => u64::try_from(s.saturating_sub(t0)).unwrap_or(0),
            _ => end_so_far,
        };
        end_so_far = end_so_far.max(offset_ms.saturating_add(r.duration_ms));
        out.push(Iteration {
            run_id: r.run_id.clone(),
            iteration: u64::from(r.iteration),
            story: r.story.clone(),
            agent: r.agent.clone(),
            start: Some(r.start.clone()),
            offset_ms,
            duration_ms: r.duration_ms,
            outcome: recorded(r.outcome),
            verify_passed: r.verify.iter().filter(|v| v.passed).count(),
            verify_total: r.verify.len(),
            verify_failed: r
                .verify
                .iter()
                .filter(|v| !v.passed)
                .map(|v| v.command.clone())
                .collect(),
            worker: r.worker.filter(|w| *w >= 1).map_or(1, u64::from),
            usage: usage_of(r),
            merge: r.merge.as_ref().map(|m| m.result.clone()),
            review: r.review.as_ref().map(|v| v.verdict.clone()),
            skipped: r.skipped,
        });
    }
    out
}

/// A sum of what is known: `None` only when neither is (saturating: a junk record with huge
/// counts must not overflow).
fn add<T: Sum>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.plus(b)),
        (a, b) => a.or(b),
    }
}

/// What [`add`] adds: token counts (saturating) and dollars.
trait Sum {
    fn plus(self, other: Self) -> Self;
}

impl Sum for u64 {
    fn plus(self, other: u64) -> u64 {
        self.saturating_add(other)
    }
}

impl Sum for f64 {
    fn plus(self, other: f64) -> f64 {
        self + other
    }
}

impl Columns {
    /// The optional columns `it` has a value for (its tokens and cost as counted).
    fn see(&mut self, it: &Iteration, tokens: bool, cost: bool) {
        self.verify |= it.verify_total > 0;
        self.tokens |= tokens;
        self.cost |= cost;
        self.workers |= it.worker > 1;
        self.merge |= it.merge.is_some();
        self.review |= it.review.is_some();
    }
}

impl StoryRow {
    /// A story's row before its first iteration is added.
    fn new(story: String) -> StoryRow {
        StoryRow {
            story,
            iterations: 0,
            duration_ms: 0,
            outcome: String::new(),
            verify_passed: 0,
            verify_total: 0,
            tokens: None,
            cost_usd: None,
            merge: None,
            review: None,
            workers: vec![],
        }
    }

    /// One more iteration of the story: sums added, the latest outcome, verify, merge and
    /// review kept.
    fn add(&mut self, it: &Iteration, tokens: Option<u64>, cost: Option<f64>) {
        self.iterations += 1;
        self.duration_ms = self.duration_ms.saturating_add(it.duration_ms);
        self.outcome = it.outcome.clone();
        self.verify_passed = it.verify_passed;
        self.verify_total = it.verify_total;
        self.tokens = add(self.tokens, tokens);
        self.cost_usd = add(self.cost_usd, cost);
        self.merge = it.merge.clone().or(self.merge.take());
        self.review = it.review.clone().or(self.review.take());
        if !self.workers.contains(&it.worker) {
            self.workers.push(it.worker);
        }
    }
}

/// Rows per story (in order of first iteration), totals and columns.
fn summarize(runs: Vec<String>, iterations: Vec<Iteration>, skipped_lines: usize) -> Report {
    let mut stories: Vec<StoryRow> = Vec::new();
    let mut columns = Columns::default();
    let mut totals = Totals::default();
    for it in &iterations {
        let tokens = it.usage.as_ref().and_then(Usage::tokens);
        let cost = it.usage.as_ref().and_then(|u| u.cost_usd);
        columns.see(it, tokens.is_some(), cost.is_some());
        totals.iterations += 1;
        totals.duration_ms = totals.duration_ms.saturating_add(it.duration_ms);
        totals.tokens = add(totals.tokens, tokens);
        totals.cost_usd = add(totals.cost_usd, cost);
        let i = match stories.iter().position(|s| s.story == it.story) {
            Some(i) => i,
            None => {
                stories.push(StoryRow::new(it.story.clone()));
                stories.len() - 1
            }
        };
        stories[i].add(it, tokens, cost);
    }
    // Sums of binary fractions drift (0.1 + 0.2): a cost is kept to a millionth of a dollar.
    let round = |c: Option<f64>| c.map(|c| (c * 1e6).round() / 1e6);
    for row in &mut stories {
        row.cost_usd = round(row.cost_usd);
    }
    totals.cost_usd = round(totals.cost_usd);
    for run in &runs {
        let wall = iterations
            .iter()
            .filter(|i| &i.run_id == run)
            .map(|i| i.offset_ms.saturating_add(i.duration_ms))
            .max()
            .unwrap_or(0);
        totals.wall_ms = totals.wall_ms.saturating_add(wall);
    }
    totals.stories = stories.len();
    totals.done = stories.iter().filter(|s| s.outcome == "done").count();
    Report {
        runs,
        stories,
        iterations,
        totals,
        columns,
        skipped_lines,
    }
}

/// `1h 02m`, `3m 05s`, `42s`, `0.8s`.
pub(crate) fn duration(ms: u64) -> String {
    if ms < 10_000 && !ms.is_multiple_of(1000) {
        return format!("{:.1}s", ms as f64 / 1000.0);
    }
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// An RFC 3339 start as a person reads it, to the second in UTC (`2026-11-26 10:00:05 UTC`);
/// anything unreadable as written.
pub(crate) fn when(start: &str) -> String {
    match start.parse::<jiff::Timestamp>() {
        Ok(t) => t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string(),
        Err(_) => start.to_string(),
    }
}

/// `12,345` (`ralph report`, and `ralph status`'s token totals in `run::cost`).
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `$0.42`, `$12.30`, `$0.0031` (small costs keep two significant digits).
pub(crate) fn cost(usd: f64) -> String {
    if usd > 0.0 && usd < 0.01 {
        format!("${usd:.4}")
    } else {
        format!("${usd:.2}")
    }
}

#[cfg(test)]
mod tests;
