//! The scheduler's loop (see the module doc of `super`): on every tick, what people asked of the
//! live run applied, the merge queue's next story merged, attempts started on worker threads,
//! their answers acted on, the status lines printed; then, once nothing is claimed or the run
//! must stop, the workers waited for, what is left released, and why the run ended
//! ([`Sched::finish`]).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::Scope;
use std::time::{Duration, Instant};

use super::policy;
use super::sched::Sched;
use super::worker::{AttemptDone, Job, work};
use crate::graph;
use crate::prd::Prd;
use crate::run::ending::Exit;
use crate::run::error::RunError;
use crate::run::events::status;

/// A worker's answer: the story and its attempt (or why there was none).
type Answer = (String, Result<AttemptDone, String>);

/// Run `job` on a worker thread of `scope`; its answer goes to `tx`.
fn spawn<'scope>(
    scope: &'scope Scope<'scope, '_>,
    job: Job,
    tx: Sender<Answer>,
    stop: &'scope AtomicBool,
) {
    scope.spawn(move || {
        // A panic must still answer, or the scheduler would wait for ever.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&job, stop)))
            .unwrap_or_else(|_| Err("the worker thread panicked".to_string()));
        let _ = tx.send((job.id, r));
    });
}

impl Sched<'_> {
    pub(super) fn run(
        &mut self,
        interrupt: &AtomicBool,
        stop: &AtomicBool,
    ) -> Result<Exit, RunError> {
        let (tx, rx) = channel::<Answer>();
        std::thread::scope(|scope| {
            let mut running = 0usize;
            // The loop owns the only sender besides the workers': once it returns, `recv` ends
            // when they are all gone.
            let result = self.ticks(scope, tx, &rx, &mut running, interrupt, stop);
            // Stopping: every worker sees `stop`, its agent group gets SIGTERM, then SIGKILL.
            self.wind_down(&rx, running);
            match (self.fatal.take(), result) {
                (Some(e), _) => Err(e),
                (None, Some(exit)) => exit,
                (None, None) => Ok(Exit::Interrupted),
            }
        })
    }

    /// Tick until the run is over (`Some`: why) or must stop (`None`: an interrupt, or
    /// something fatal).
    fn ticks<'scope>(
        &mut self,
        scope: &'scope Scope<'scope, '_>,
        tx: Sender<Answer>,
        rx: &Receiver<Answer>,
        running: &mut usize,
        interrupt: &AtomicBool,
        stop: &'scope AtomicBool,
    ) -> Option<Result<Exit, RunError>> {
        let mut status_at = Instant::now() + self.status_every();
        loop {
            if interrupt.load(Ordering::SeqCst) || self.fatal.is_some() {
                stop.store(true, Ordering::SeqCst);
                return None;
            }
            let merging = self.queue.front().cloned();
            self.steer_tick(merging.as_deref());
            if let Some(id) = self.queue.pop_front() {
                // The signal itself: `stop` is set only once this loop sees it.
                self.merge(&id, interrupt);
                continue;
            }
            for job in self.start_attempts() {
                *running += 1;
                spawn(scope, job, tx.clone(), stop);
            }
            if self.claims.is_empty() && !self.idle_paused() {
                return Some(self.finish());
            }
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok((id, r)) => {
                    *running -= 1;
                    self.finished(&id, r);
                }
                Err(_) => {
                    // Quiet for a moment: merged worktrees go now, not while workers
                    // wait for the worktree lock to make theirs or a merge waits.
                    self.tidy();
                    if Instant::now() >= status_at {
                        status_at = Instant::now() + self.status_every();
                        self.print_status_lines();
                    }
                }
            }
        }
    }

    /// The `running` workers' answers awaited and acted on; merged worktrees removed, the
    /// processes the agents left stopped, every claim left released.
    fn wind_down(&mut self, rx: &Receiver<Answer>, mut running: usize) {
        while running > 0 {
            let Ok((id, r)) = rx.recv() else { break };
            running -= 1;
            self.finished(&id, r);
        }
        self.tidy();
        // Nothing runs now: what agents left outside their groups can be stopped.
        if crate::agent::process::stop_orphans(self.opts.settings.grace) {
            self.note("stopped processes the agents left running".into());
        }
        let ids: Vec<String> = self.claims.keys().cloned().collect();
        for id in ids {
            self.release(&id, "interrupted");
        }
    }

    /// The run is over once nothing is claimed: why.
    fn finish(&mut self) -> Result<Exit, RunError> {
        let prd = Prd::load(&self.opts.prd_path)?;
        if self.start_failed {
            self.unfinished = status::remaining(&prd.stories);
            return Ok(Exit::StartFailed);
        }
        if prd.all_done() {
            self.passing = prd.stories.iter().filter(|s| !s.removed).count();
            return Ok(Exit::AllDone);
        }
        let states = graph::states(&prd.stories);
        let busy: HashSet<String> = self.held.keys().cloned().collect();
        if self.spent.reached(self.opts.settings.max_cost) {
            self.unfinished = status::remaining(&prd.stories);
            return Ok(Exit::CostLimit);
        }
        if self.n >= self.opts.settings.iterations
            && !policy::select(&prd.stories, &states, &busy, 1, None).is_empty()
        {
            self.unfinished = status::remaining(&prd.stories);
            return Ok(Exit::Limit);
        }
        self.unfinished = status::not_runnable(&prd.stories, &states, &self.held);
        Ok(Exit::NoReady)
    }
}
