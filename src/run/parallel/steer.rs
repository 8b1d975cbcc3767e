//! The parallel scheduler's side of steering a live run ([`crate::run::control`]), on every tick:
//! the holds (`ralph skip`) and releases (`ralph retry`) applied to its `held` map, a held
//! story's claim released once no attempt of it runs, the claims published for `ralph status`
//! (running, waiting, queued, merging), and whether a paused run with nothing claimed waits for
//! `ralph resume` rather than ending. The pause itself is one check where attempts start.

use std::time::{Duration, Instant};

use super::sched::{ClaimState, Sched};
use crate::run::control::{Change, Claim, policy::SKIPPED};

/// How often a paused, idle run reads prd.json to see whether every story passes by now.
const IDLE_CHECK: Duration = Duration::from_secs(1);

impl Sched<'_> {
    /// Apply what people asked since the last tick and publish the claims (`merging`: the story
    /// the queue merges now).
    pub(super) fn steer_tick(&mut self, merging: Option<&str>) {
        for change in self.steer.live.take_changes() {
            match change {
                Change::Hold(id) if !self.held.contains_key(&id) => self.hold(&id),
                Change::Hold(_) => {}
                Change::Release(id) => {
                    self.held.remove(&id);
                    self.strikes.forget(&id);
                }
            }
        }
        // A held story's claim goes once no attempt of it runs; a queued one still merges.
        let waiting: Vec<String> = self
            .claims
            .iter()
            .filter(|(id, c)| {
                matches!(c.state, ClaimState::Waiting(_)) && self.held.contains_key(*id)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in waiting {
            self.release(&id, "held");
        }
        self.publish(merging);
    }

    /// Hold `id` for the rest of the run (unless it passes by now: its attempt merged).
    fn hold(&mut self, id: &str) {
        let story = crate::prd::Prd::load(&self.opts.prd_path)
            .ok()
            .and_then(|p| p.story(id).map(|s| (s.passes, s.title.clone())));
        if story.as_ref().is_some_and(|(passes, _)| *passes) {
            return;
        }
        self.held.insert(id.to_string(), SKIPPED.into());
        let attempts = self.claims.get(id).map_or(0, |c| c.attempt);
        self.opts
            .reporter
            .report(crate::run::events::Event::StorySkipped {
                story: id.to_string(),
                title: story.map(|(_, t)| t).unwrap_or_default(),
                attempts,
                reason: SKIPPED.into(),
            });
    }

    fn publish(&self, merging: Option<&str>) {
        let live = &self.steer.live;
        let claims: Vec<Claim> = self
            .claims
            .iter()
            .map(|(id, c)| Claim {
                story: id.clone(),
                title: c.title.clone(),
                state: match c.state {
                    _ if merging == Some(id.as_str()) => "merging",
                    ClaimState::Running => "running",
                    ClaimState::Waiting(_) => "waiting",
                    ClaimState::Queued => "queued",
                },
                attempt: c.attempt,
                worker: Some(c.worker),
                since: live.wall(c.since),
            })
            .collect();
        let wait = self
            .rate_until
            .filter(|t| *t > Instant::now())
            .map(|t| ("rate-limit", live.wall(t)));
        let (held, n) = (self.held.clone(), self.n);
        live.update(|v| {
            v.claims = claims;
            v.held = held;
            v.wait = wait;
            v.iteration = n;
        });
    }

    /// Nothing is claimed: whether `ralph pause` keeps the run waiting for `ralph resume`
    /// rather than ending. It ends anyway when nothing could start after a resume: every story
    /// passes (prd.json looked at once a second), the iteration limit, the cost cap, an agent
    /// that cannot start.
    pub(super) fn idle_paused(&mut self) -> bool {
        if !self.steer.live.paused() {
            self.steer.checked = None;
            return false;
        }
        let s = &self.opts.settings;
        if self.start_failed || self.spent.reached(s.max_cost) || self.n >= s.iterations {
            return false;
        }
        let all_done = match self.steer.checked {
            Some((at, done)) if at.elapsed() < IDLE_CHECK => done,
            _ => {
                let done = crate::prd::Prd::load(&self.opts.prd_path).is_ok_and(|p| p.all_done());
                if self.steer.checked.is_none() && !done {
                    self.note("paused with nothing running: waiting for `ralph resume`".into());
                }
                self.steer.checked = Some((Instant::now(), done));
                done
            }
        };
        !all_done
    }
}
