//! `ralph run [N] --parallel K` (K ≥ 2): up to K ready stories at once, each in its own git
//! worktree under `.ralph/worktrees/<key>` on its own branch `<branchName>--<key>` made from the
//! tip, merged into `branchName` one at a time (specs/parallel.md).
//!
//! This file is the start and the end of a run ([`run`]: the git start, the run's id, manifest
//! and live channel, then the summary and the last report). The main thread is the scheduler
//! (its state: `sched`; its loop: `run_loop`): it claims stories (`claiming`: [`policy::select`]
//! on the main tree's prd.json, so a dependant waits for its blockers' merges, and
//! [`conflicts`]), starts one worker thread per attempt (`worker`: `iteration::run_one` with the
//! worktree as its root, output only to its log), acts on what they did (`finished`), runs the
//! merge queue (`landing`, with [`queue::merge`]) and is the only writer of the main tree's
//! prd.json, progress.txt and history.jsonl. Git steps are in [`worktree`] and [`queue`], the
//! pure decisions in [`policy`], the status lines in `status_lines` (quoting [`activity`]); what people ask of the live
//! run (`ralph pause`, `steer`, `skip`, …) is applied on every tick by `steer`. Files share
//! types through leaf files (`sched`, `main_tree`, `error`), never through this one.
//! `--parallel 1` is the sequential loop of the parent module, untouched.

pub(crate) mod activity;
mod carry;
mod claiming;
pub(crate) mod conflicts;
pub(crate) mod error;
mod finished;
mod landing;
mod main_tree;
pub(crate) mod policy;
pub(crate) mod predict;
pub(crate) mod queue;
mod run_loop;
mod sched;
mod status_lines;
mod steer;
mod worker;
pub(crate) mod worktree;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::control::{Live, Setup};
use super::ending::Exit;
use super::error::RunError;
use super::events::Event;
use super::options::Options;
use crate::graph;
use crate::prd::Prd;
use crate::state::runs::Manifest;
use crate::state::state_dir;
pub(crate) use error::ParallelError;
use main_tree::MainTree;
use sched::Sched;

/// Run stories in parallel until every story passes, nothing is ready, the limit, an
/// interrupt, or a pause of the merge queue.
pub(crate) fn run(opts: &Options, interrupt: &AtomicBool) -> Result<Exit, RunError> {
    let (root, prd_path, prd_rel) = paths(opts)?;
    let state = state_dir(&root);
    let lock = super::start::begin(opts)?;
    let rep = &*opts.reporter;
    let (prd, main, tip) = prepare(opts, root, &prd_path, prd_rel)?;
    let keys = story_keys(&prd);
    let (run_id, run_dir, mut manifest, live) = open_run(opts, &main, &prd_path, &prd)?;
    let mut sched = Sched::new(opts, live, main, tip, run_id, run_dir, keys);
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let exit = sched.run(interrupt, &stop);
    super::start::upkeep::finish(&sched.main.root, &sched.run_dir, &mut manifest, &exit, rep);
    sched.totals.wall = started.elapsed();
    if !sched.rows.is_empty() {
        rep.report(Event::Summary {
            rows: std::mem::take(&mut sched.rows),
            totals: sched.totals,
        });
    }
    let _ = std::fs::remove_dir(state.join("worktrees"));
    sched.steer.live.end();
    drop(lock);
    // The end goes last, after the summary and with the lock released.
    let exit = exit?;
    rep.report(sched.ended(exit, started));
    Ok(exit)
}

/// The project root and prd.json (absolute), and prd.json's path relative to the root (the
/// same in every worktree).
fn paths(opts: &Options) -> Result<(PathBuf, PathBuf, String), RunError> {
    let root = std::path::absolute(&opts.root).unwrap_or_else(|_| opts.root.clone());
    let prd_path = std::path::absolute(&opts.prd_path).unwrap_or_else(|_| opts.prd_path.clone());
    let prd_rel = prd_path
        .strip_prefix(&root)
        .map_err(|_| ParallelError::PrdOutside(prd_path.clone()))?
        .to_string_lossy()
        .into_owned();
    Ok((root, prd_path, prd_rel))
}

fn branch_name(prd: &Prd) -> String {
    prd.value
        .get("branchName")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string()
}

/// The git start: what a killed run left recovered, the branch checked out or created (the
/// same start as the sequential loop), the preconditions checked, `--story` checked as the
/// sequential loop does; prd.json as the run starts, the main tree and its tip.
fn prepare(
    opts: &Options,
    root: PathBuf,
    prd_path: &std::path::Path,
    prd_rel: String,
) -> Result<(Prd, MainTree, String), RunError> {
    let rep = &*opts.reporter;
    let prd = Prd::load(prd_path)?;
    let worktrees = crate::state::worktrees_dir(&root);
    for text in worktree::recover(&root, &worktrees, &branch_name(&prd), opts.settings.grace) {
        rep.report(Event::Note { text });
    }
    let (events, prd) = super::start::branch::parallel::prepare_parallel(&root, &prd)?;
    for e in events {
        rep.report(e);
    }
    let branch = branch_name(&prd);
    let tip = worktree::preconditions(&root, &branch, &prd_rel).map_err(ParallelError::from)?;
    // `--story` must name a story (its readiness is checked as the sequential loop does).
    super::choose::choose(
        &prd,
        &graph::states(&prd.stories),
        opts.story.as_deref(),
        &HashSet::new(),
    )?;
    let main = MainTree {
        root,
        prd_rel,
        branch,
    };
    Ok((prd, main, tip))
}

/// Each story's file- and ref-safe key, by id.
fn story_keys(prd: &Prd) -> HashMap<String, String> {
    let ids: Vec<&str> = prd.stories.iter().map(|s| s.id.as_str()).collect();
    ids.iter()
        .map(|s| s.to_string())
        .zip(policy::story_keys(&ids))
        .collect()
}

/// The run begins: old runs cleaned up, its id, directory and manifest, the live run's
/// channel, and the start reported (with the gate's notes on the stories).
fn open_run(
    opts: &Options,
    main: &MainTree,
    prd_path: &std::path::Path,
    prd: &Prd,
) -> Result<(String, PathBuf, Manifest, Live), RunError> {
    let (s, rep) = (&opts.settings, &*opts.reporter);
    super::start::upkeep::clean_at_start(opts, rep);
    let run_id = super::start::upkeep::new_run_id();
    let run_dir = state_dir(&main.root).join("runs").join(&run_id);
    crate::fsutil::create_dir_all(&run_dir)?;
    let branch = Some(main.branch.clone());
    let manifest = super::start::upkeep::begin(opts, &run_id, &run_dir, branch.clone(), rep);
    let live = Live::start(Setup {
        root: main.root.clone(),
        prd_path: prd_path.to_path_buf(),
        run_id: run_id.clone(),
        parallel: s.parallel,
        branch: branch.clone(),
        limit: s.iterations,
        reporter: opts.reporter.clone(),
    });
    rep.report(Event::RunStarted {
        run_id: run_id.clone(),
        agent: opts.agent.kind.name().to_string(),
        iterations: s.iterations,
        verify: s.verify.clone(),
        parallel: Some(s.parallel),
        branch,
    });
    for e in super::iteration::gate::start_notes(s, &prd.stories) {
        rep.report(e);
    }
    Ok((run_id, run_dir, manifest, live))
}

impl Sched<'_> {
    /// The run's last report.
    fn ended(&self, exit: Exit, started: Instant) -> Event {
        Event::RunEnded {
            ending: exit,
            iterations: self.n,
            limit: self.opts.settings.iterations,
            elapsed: started.elapsed(),
            passing: self.passing,
            unfinished: self.unfinished.clone(),
            history_written: true,
            cost_usd: self.spent.usd(),
            max_cost: self.opts.settings.max_cost.map(|m| m.usd()),
        }
    }
}
