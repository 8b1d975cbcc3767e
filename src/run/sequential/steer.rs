//! The sequential loop's side of steering a live run ([`crate::run::control`]): the holds and
//! releases people asked for, applied to the loop's own map at each check; the wait while
//! `ralph pause` holds the run; the steering notes added to a story's prompt; where the loop is,
//! for `ralph status`.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::state::Loop;
use crate::run::control::{Change, Claim, Live, Setup, live::POLL, policy::SKIPPED};
use crate::run::events::Event;
use crate::run::options::Options;

/// The run's control channel, open once the run has its id.
pub(super) fn open(opts: &Options, run_id: &str, branch: Option<String>) -> Live {
    Live::start(Setup {
        root: opts.root.clone(),
        prd_path: opts.prd_path.clone(),
        run_id: run_id.to_string(),
        parallel: 1,
        branch,
        limit: opts.settings.iterations,
        reporter: opts.reporter.clone(),
    })
}

impl Loop<'_> {
    /// Apply the holds (`ralph skip`) and releases (`ralph retry`) asked for since the last
    /// check, and publish what the loop holds.
    pub(super) fn apply_control(&mut self) {
        for change in self.control.take_changes() {
            match change {
                Change::Hold(id) => {
                    let story = self.cache.last.as_ref().and_then(|l| l.prd.story(&id));
                    // Passing by now (its running attempt landed): nothing left to hold.
                    if self.skipped.contains_key(&id) || story.is_some_and(|s| s.passes) {
                        continue;
                    }
                    let title = story.map(|s| s.title.clone()).unwrap_or_default();
                    self.skipped.insert(id.clone(), SKIPPED.into());
                    self.rep.report(Event::StorySkipped {
                        attempts: self.attempts.get(&id).copied().unwrap_or(0),
                        story: id,
                        title,
                        reason: SKIPPED.into(),
                    });
                }
                Change::Release(id) => {
                    self.skipped.remove(&id);
                    self.strikes.forget(&id);
                    self.reviews.remove(&id);
                }
            }
        }
        let held = self.skipped.clone();
        self.control.update(|v| v.held = held);
    }

    /// While `ralph pause` holds the run: wait here until `ralph resume` or an interrupt. True
    /// when it waited (the caller then looks at prd.json afresh: it may have been edited).
    pub(super) fn hold_while_paused(&mut self, next: Option<&str>) -> bool {
        if !self.control.paused() {
            return false;
        }
        self.show_between(None);
        let next = next.map_or(String::new(), |id| format!(" ({id} is next)"));
        self.note(format!(
            "paused before iteration {}{next}: waiting for `ralph resume`",
            self.n + 1
        ));
        while self.control.paused() && !self.interrupt.load(Ordering::SeqCst) {
            std::thread::sleep(POLL);
            self.apply_control();
        }
        // What a person changed while the run was paused is not the next agent's progress.
        self.tree = None;
        true
    }

    /// The run's options for `story`'s prompt when steering notes are for it.
    pub(super) fn steered(&self, story: &str) -> Option<Options> {
        let notes = self.control.notes_for(story);
        (!notes.is_empty()).then(|| {
            let mut o = self.opts.clone();
            o.settings.context.steering = notes;
            o
        })
    }

    /// `story` runs its `attempt`.
    pub(super) fn show_running(&self, story: &str, title: &str, attempt: u32) {
        let claim = Claim {
            story: story.into(),
            title: title.into(),
            state: "running",
            attempt,
            worker: None,
            since: self.control.wall(Instant::now()),
        };
        let n = self.n;
        self.control.update(|v| {
            v.claims = vec![claim];
            v.wait = None;
            v.iteration = n + 1;
        });
    }

    /// Between iterations: nothing runs; `wait` says what the loop waits for, if anything.
    pub(super) fn show_between(&self, wait: Option<(&'static str, Duration)>) {
        let until = wait.map(|(why, d)| {
            let at = Instant::now().checked_add(d).unwrap_or_else(Instant::now);
            (why, self.control.wall(at))
        });
        let n = self.n;
        self.control.update(|v| {
            v.claims.clear();
            v.wait = until;
            v.iteration = n;
        });
    }
}
