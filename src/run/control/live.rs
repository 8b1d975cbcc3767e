//! The run's side of the control channel: a thread that takes the requests under
//! `.ralph/control/requests/` every [`POLL`] (whatever the loop is doing: an agent running, a
//! verify, a merge, a sleep or a rate-limit wait), decides each with [`super::policy`], keeps its
//! line in history.jsonl, answers it, and publishes the run's state in `.ralph/control/run.json`
//! whenever it changed. The loop reads the outcome at its own checks through [`Live`] (paused?
//! the notes for a prompt, the holds and releases to apply) and tells it where it is.
//!
//! A request is taken once: its id is remembered before anything is written, so a file that
//! could not be removed is never applied again; a request meant for another run is refused.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};

use super::policy::{self, Answer, Board, Change, Facts, Fixed, View};
use crate::context::SteerNote;
use crate::run::events::{Event, Reporter};
use crate::state::control::{self as files, Ack, Request, SCHEMA_VERSION};
use crate::state::history::{self, ControlKind};

/// How often the thread looks for requests.
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// What the channel needs to know about the run.
pub(crate) struct Setup {
    pub root: PathBuf,
    pub prd_path: PathBuf,
    pub run_id: String,
    /// Stories at once (1: the sequential loop).
    pub parallel: u32,
    pub branch: Option<String>,
    /// The iteration limit.
    pub limit: u32,
    pub reporter: Arc<dyn Reporter>,
}

/// The live channel of one run; ended (and `run.json` removed) by [`Live::end`] or on drop.
pub(crate) struct Live {
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    ended: bool,
}

struct Shared {
    root: PathBuf,
    prd_path: PathBuf,
    fixed: Fixed,
    /// An instant and the wall-clock time it was: the loop's instants become times without
    /// drifting from one check to the next.
    anchor: (Instant, Timestamp),
    reporter: Arc<dyn Reporter>,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    board: Board,
    view: View,
    /// Request ids already answered.
    taken: HashSet<String>,
    /// The state changed since it was last published.
    dirty: bool,
    /// A failed publish was reported (once).
    warned: bool,
}

impl Live {
    /// Open the channel: requests and answers an earlier run left are cleared (the caller holds
    /// the project lock), the state is published, the thread starts.
    pub(crate) fn start(setup: Setup) -> Live {
        files::clear_stale(&setup.root);
        let pid = std::process::id();
        let fixed = Fixed {
            run_id: setup.run_id,
            pid,
            pid_start: files::start_ticks(pid),
            prd: setup.prd_path.display().to_string(),
            started: Timestamp::now(),
            parallel: setup.parallel,
            branch: setup.branch,
            limit: setup.limit,
        };
        let shared = Arc::new(Shared {
            root: setup.root,
            prd_path: setup.prd_path,
            fixed,
            anchor: (Instant::now(), Timestamp::now()),
            reporter: setup.reporter,
            inner: Mutex::new(Inner {
                dirty: true,
                ..Inner::default()
            }),
        });
        shared.publish_if_dirty();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (shared, stop) = (shared.clone(), stop.clone());
            std::thread::Builder::new()
                .name("ralph-control".into())
                .spawn(move || serve(&shared, &stop))
        };
        let thread = match thread {
            Ok(t) => Some(t),
            Err(e) => {
                shared.warn(format!(
                    "cannot start the control thread ({e}): ralph pause, resume, steer, skip and retry will not be answered in this run"
                ));
                None
            }
        };
        Live {
            shared,
            stop,
            thread,
            ended: false,
        }
    }

    /// Whether `ralph pause` holds the run.
    pub(crate) fn paused(&self) -> bool {
        self.shared.lock().board.paused()
    }

    /// The steering notes for `story`'s next prompt.
    pub(crate) fn notes_for(&self, story: &str) -> Vec<SteerNote> {
        policy::notes_for(&self.shared.lock().board.notes, story)
    }

    /// The holds and releases to apply now, in order (taken: the board forgets them).
    pub(crate) fn take_changes(&self) -> Vec<Change> {
        let mut inner = self.shared.lock();
        if !inner.board.changes.is_empty() {
            inner.dirty = true;
        }
        policy::net(std::mem::take(&mut inner.board.changes))
    }

    /// Tell where the loop is; published at the thread's next poll when it changed.
    pub(crate) fn update(&self, f: impl FnOnce(&mut View)) {
        let mut inner = self.shared.lock();
        let before = inner.view.clone();
        f(&mut inner.view);
        if inner.view != before {
            inner.dirty = true;
        }
    }

    /// The wall-clock time of `at` (whole seconds), the same at every check.
    pub(crate) fn wall(&self, at: Instant) -> Timestamp {
        let (i0, t0) = self.shared.anchor;
        let t = match at.checked_duration_since(i0) {
            Some(d) => SignedDuration::try_from(d)
                .ok()
                .and_then(|d| t0.checked_add(d).ok()),
            None => SignedDuration::try_from(i0.duration_since(at))
                .ok()
                .and_then(|d| t0.checked_sub(d).ok()),
        };
        let t = t.unwrap_or(t0);
        Timestamp::from_second(t.as_second()).unwrap_or(t)
    }

    /// Close the channel: the requests still waiting are refused (the run is ending), the
    /// thread stops, `run.json` goes. Call it before the project lock is released.
    pub(crate) fn end(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        self.stop.store(true, Ordering::SeqCst);
        match self.thread.take() {
            Some(t) => {
                let _ = t.join();
            }
            None => self.shared.poll(true),
        }
        files::remove_run(&self.shared.root, &self.shared.fixed.run_id);
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.end();
    }
}

fn serve(shared: &Shared, stop: &AtomicBool) {
    loop {
        let last = stop.load(Ordering::SeqCst);
        shared.poll(last);
        if last {
            return;
        }
        std::thread::sleep(POLL);
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn warn(&self, text: String) {
        self.reporter.report(Event::Warning { text });
    }

    /// Take every request waiting, then publish the state if it changed.
    fn poll(&self, ending: bool) {
        for (path, req) in files::pending(&self.root) {
            match req {
                Ok(req) => self.answer(&path, req, ending),
                Err(why) => self.reject(&path, &why),
            }
        }
        self.publish_if_dirty();
    }

    /// A file under `requests/` that is not a request: out of the way, kept.
    fn reject(&self, path: &Path, why: &str) {
        let state = crate::state::state_dir(&self.root);
        match crate::state::rejected::move_aside(&state, 0, path) {
            Ok(to) => self.warn(format!(
                "{}: {why}; moved to {}",
                path.display(),
                to.display()
            )),
            Err(e) => self.warn(format!("{}: {why}; {e}", path.display())),
        }
    }

    /// prd.json's stories as the requests check them.
    fn stories(&self) -> Result<Vec<policy::Story>, String> {
        let prd = crate::prd::Prd::load(&self.prd_path).map_err(|e| e.to_string())?;
        Ok(prd
            .stories
            .iter()
            .map(|s| policy::Story {
                id: s.id.clone(),
                passes: s.passes,
                removed: s.removed,
            })
            .collect())
    }

    fn judge(&self, req: &Request, ending: bool) -> Option<Answer> {
        let stories = match req.story {
            Some(_) => self.stories(),
            None => Ok(vec![]),
        };
        let mut inner = self.lock();
        if !inner.taken.insert(req.id.clone()) {
            return None;
        }
        let answer = if ending {
            Answer {
                accepted: false,
                changed: false,
                message: "the run is ending; nothing was changed".into(),
                record: None,
            }
        } else {
            let facts = Facts {
                run_id: &self.fixed.run_id,
                parallel: self.fixed.parallel,
                stories: stories.as_deref().map_err(Clone::clone),
                prd: &self.fixed.prd,
                now: Timestamp::now(),
            };
            let Inner { board, view, .. } = &mut *inner;
            policy::apply(board, view, &facts, req)
        };
        inner.dirty |= answer.changed;
        Some(answer)
    }

    /// Decide one request, keep its line in history, answer it, remove it, report it.
    fn answer(&self, path: &Path, req: Request, ending: bool) {
        let Some(mut answer) = self.judge(&req, ending) else {
            // Answered before; the file only lingered.
            let _ = std::fs::remove_file(path);
            return;
        };
        if let Some(rec) = &answer.record
            && let Err(e) = history::append_control(&self.root, rec)
        {
            answer
                .message
                .push_str(&format!(" (not kept in the history: {e})"));
        }
        // Published before the answer: once a command has it, `ralph status` shows the change.
        self.publish_if_dirty();
        let ack = Ack {
            schema_version: SCHEMA_VERSION,
            id: req.id.clone(),
            run_id: self.fixed.run_id.clone(),
            accepted: answer.accepted,
            changed: answer.changed,
            message: answer.message.clone(),
            time: Timestamp::now().to_string(),
        };
        if let Err(e) = files::write_ack(&self.root, &ack) {
            self.warn(format!("cannot answer `ralph {}`: {e}", req.action.name()));
        }
        let _ = std::fs::remove_file(path);
        if answer.accepted && answer.changed {
            self.reporter.report(Event::Control {
                action: req.action,
                story: req.story.clone(),
                text: (req.action == ControlKind::Steer)
                    .then(|| answer.record.and_then(|r| r.text))
                    .flatten(),
                message: answer.message,
            });
        }
    }

    fn publish_if_dirty(&self) {
        let state = {
            let mut inner = self.lock();
            if !inner.dirty {
                return;
            }
            inner.dirty = false;
            policy::state(&inner.board, &inner.view, &self.fixed, Timestamp::now())
        };
        if let Err(e) = files::publish(&self.root, &state) {
            let mut inner = self.lock();
            inner.dirty = true;
            if !std::mem::replace(&mut inner.warned, true) {
                drop(inner);
                self.warn(format!(
                    "cannot publish the run's state for `ralph status`: {e}; retrying"
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::control::client::{self, Reply};

    #[derive(Debug, Default)]
    struct Quiet;
    impl Reporter for Quiet {
        fn report(&self, _: Event) {}
    }

    fn wait(mut cond: impl FnMut() -> bool) {
        let end = Instant::now() + Duration::from_secs(10);
        while !cond() {
            assert!(Instant::now() < end, "not within 10s");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_request_is_answered_once_recorded_and_published_and_never_applied_twice() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let prd = root.join("prd.json");
        std::fs::write(
            &prd,
            r#"{"userStories":[{"id":"A","title":"A","passes":false}]}"#,
        )
        .unwrap();
        let lock = crate::state::lock::Lock::acquire(root).unwrap();
        let mut live = Live::start(Setup {
            root: root.to_path_buf(),
            prd_path: prd,
            run_id: "r1".into(),
            parallel: 1,
            branch: None,
            limit: 10,
            reporter: Arc::new(Quiet),
        });
        let sent = client::send(
            root,
            ControlKind::Skip,
            Some("A".into()),
            None,
            client::WAIT,
        )
        .unwrap();
        let Reply::Answered(ack) = &sent.reply else {
            panic!("not answered: {sent:?}");
        };
        assert!(ack.changed, "{ack:?}");
        // Published before the answer.
        let state = files::read_run(root).unwrap().unwrap();
        assert_eq!(state.held[0].story, "A");
        // The same request again (a file that could not be removed, say): never applied twice.
        let again = not_twice(root, &mut live, &sent.id);
        other_run_refused(root, &again);
        // The end: run.json goes, a late request is refused by nobody (the client sees the end).
        live.end();
        assert!(files::read_run(root).is_none());
        drop(lock);
        let e = client::send(root, ControlKind::Pause, None, None, client::WAIT).unwrap_err();
        assert!(e.to_string().starts_with("no ralph run is active"), "{e}");
    }

    /// The same request again (a file that could not be removed, say): never applied twice,
    /// never answered twice, recorded once. Returns the request.
    fn not_twice(root: &std::path::Path, live: &mut Live, id: &str) -> Request {
        let again = Request {
            schema_version: SCHEMA_VERSION,
            id: id.to_string(),
            run_id: "r1".into(),
            action: ControlKind::Skip,
            story: Some("A".into()),
            text: None,
            time: Timestamp::now().to_string(),
            pid: 1,
        };
        let path = files::write_request(root, &again).unwrap();
        wait(|| !path.exists());
        assert_eq!(files::take_ack(root, id), None, "no second answer");
        assert_eq!(live.take_changes(), vec![Change::Hold("A".into())]);
        assert!(live.take_changes().is_empty());
        let h = history::read_all(root).unwrap();
        assert_eq!(h.control.len(), 1);
        again
    }

    /// A request for another run is refused.
    fn other_run_refused(root: &std::path::Path, again: &Request) {
        let mut other = again.clone();
        other.id = files::new_request_id();
        other.run_id = "r0".into();
        files::write_request(root, &other).unwrap();
        let mut ack = None;
        wait(|| {
            ack = files::take_ack(root, &other.id);
            ack.is_some()
        });
        assert!(!ack.unwrap().accepted);
    }
}
