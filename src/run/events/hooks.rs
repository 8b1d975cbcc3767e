//! Hooks: `[hooks]` in ralph.toml (`on_story_done`, `on_blocked`, `on_run_end`) run a command
//! when the loop reports a story done, a story skipped for no progress, or the end of the run.
//!
//! [`Hooked`] is a [`Reporter`] that wraps the real one: it forwards every event, then, for the
//! three that have a hook, runs the command with `/bin/sh -c` in the project root, in its own
//! process group, with the event on stdin as JSON (the `--json` object plus `hook`, `project`
//! and `branch`, see [`payload`]) and `RALPH_HOOK` set to the hook's name. A hook that fails,
//! cannot start or runs past `[hooks] timeout` (its process group is then killed) is reported
//! as a warning; it never stops the run. Owns when a hook fires ([`hook_for`], pure), what it
//! receives ([`payload`], pure) and running it; not the events (see [`super::event`]).

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use super::event::{Event, Reporter};
use crate::config::Hooks;

/// How much of a hook's stderr a warning quotes.
const STDERR_TAIL: usize = 4096;

/// The three hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hook {
    StoryDone,
    Blocked,
    RunEnd,
}

impl Hook {
    /// Its key in `[hooks]`.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Hook::StoryDone => "on_story_done",
            Hook::Blocked => "on_blocked",
            Hook::RunEnd => "on_run_end",
        }
    }

    fn command(self, hooks: &Hooks) -> Option<&str> {
        match self {
            Hook::StoryDone => hooks.on_story_done.as_deref(),
            Hook::Blocked => hooks.on_blocked.as_deref(),
            Hook::RunEnd => hooks.on_run_end.as_deref(),
        }
    }
}

/// The hook an event fires, if any (pure).
pub(crate) fn hook_for(event: &Event) -> Option<Hook> {
    match event {
        Event::StoryDone { .. } => Some(Hook::StoryDone),
        Event::StorySkipped { .. } => Some(Hook::Blocked),
        Event::RunEnded { .. } => Some(Hook::RunEnd),
        _ => None,
    }
}

/// What a hook reads on stdin (pure): the event as `--json` writes it, plus `hook` (its key),
/// `project` and `branch` (prd.json's `project` and `branchName`, null when absent).
pub(crate) fn payload(
    hook: Hook,
    event: &Event,
    prd: Option<&serde_json::Value>,
) -> serde_json::Value {
    let mut v = serde_json::to_value(event).unwrap_or_default();
    let field = |k: &str| {
        prd.and_then(|p| p.get(k))
            .filter(|x| x.is_string())
            .cloned()
            .unwrap_or_default()
    };
    if let Some(o) = v.as_object_mut() {
        o.insert("hook".into(), hook.key().into());
        o.insert("project".into(), field("project"));
        o.insert("branch".into(), field("branchName"));
    }
    v
}

/// Why a hook did not succeed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HookError {
    #[error("cannot start /bin/sh: {0}")]
    Spawn(std::io::Error),
    #[error("exited {code}{}", tail(.stderr))]
    Failed { code: i32, stderr: String },
    #[error("was killed by signal {signal}{}", tail(.stderr))]
    Killed { signal: i32, stderr: String },
    #[error("ran longer than {} and was killed (its process group)", super::durations::format_elapsed(*.timeout))]
    TimedOut { timeout: Duration },
    #[error("cannot wait for it: {0}")]
    Wait(std::io::Error),
}

fn tail(stderr: &str) -> String {
    match stderr.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(l) => format!(": {}", l.trim()),
        None => String::new(),
    }
}

/// Run `cmd` with `/bin/sh -c` in `root`, `input` on its stdin, killed after `timeout`.
pub(crate) fn run(
    hook: Hook,
    cmd: &str,
    root: &Path,
    input: &[u8],
    timeout: Duration,
) -> Result<(), HookError> {
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(root)
        .env("RALPH_HOOK", hook.key())
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(HookError::Spawn)?;
    // The child leads its own group: its pid is the group id.
    let pgid = child.id() as i32;
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_vec();
        // A hook that does not read its input (EPIPE) is fine.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let rx = stderr_tail(&mut child);
    let status = wait(&mut child, pgid, timeout)?;
    // A process that left the group may hold the pipe open: the quote is not worth a hang.
    let stderr = rx
        .recv_timeout(Duration::from_millis(500))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    match (status.code(), status.signal()) {
        (Some(0), _) => Ok(()),
        (Some(code), _) => Err(HookError::Failed { code, stderr }),
        (None, signal) => Err(HookError::Killed {
            signal: signal.unwrap_or(0),
            stderr,
        }),
    }
}

/// The last [`STDERR_TAIL`] bytes (at least) of the child's stderr, read on a thread and sent
/// when the pipe closes.
fn stderr_tail(child: &mut std::process::Child) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(mut err) = child.stderr.take() {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while let Ok(n) = err.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > 2 * STDERR_TAIL {
                    buf.drain(..buf.len() - STDERR_TAIL);
                }
            }
            let _ = tx.send(buf);
        });
    }
    rx
}

/// The hook's exit status; its whole group killed when it outlives `timeout` or cannot be
/// waited for.
fn wait(
    child: &mut std::process::Child,
    pgid: i32,
    timeout: Duration,
) -> Result<std::process::ExitStatus, HookError> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return Ok(st),
            Ok(None) if start.elapsed() >= timeout => {
                // SAFETY: kill(2) on the hook's own process group; no memory is touched.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
                let _ = child.wait();
                return Err(HookError::TimedOut { timeout });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                // SAFETY: as above.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
                let _ = child.wait();
                return Err(HookError::Wait(e));
            }
        }
    }
}

/// A reporter that runs the `[hooks]` after forwarding each event to the one it wraps.
#[derive(Debug)]
pub(crate) struct Hooked {
    inner: Arc<dyn Reporter>,
    hooks: Hooks,
    root: PathBuf,
    prd_path: PathBuf,
}

impl Hooked {
    /// `inner` itself when no hook is set.
    pub(crate) fn wrap(
        inner: Arc<dyn Reporter>,
        hooks: &Hooks,
        root: &Path,
        prd_path: &Path,
    ) -> Arc<dyn Reporter> {
        if !hooks.any() {
            return inner;
        }
        Arc::new(Hooked {
            inner,
            hooks: hooks.clone(),
            root: root.to_path_buf(),
            prd_path: prd_path.to_path_buf(),
        })
    }

    fn fire(&self, hook: Hook, cmd: &str, event: &Event) {
        // prd.json as it is now (the branch may have changed with it); unreadable: nulls.
        let prd = crate::fsutil::read(&self.prd_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
        let mut input = serde_json::to_vec(&payload(hook, event, prd.as_ref())).unwrap_or_default();
        input.push(b'\n');
        tracing::debug!(hook = hook.key(), cmd, "running a hook");
        if let Err(e) = run(hook, cmd, &self.root, &input, self.hooks.timeout) {
            self.inner.report(Event::Warning {
                text: format!(
                    "hook {} (`{cmd}`) {e}; the run goes on (check [hooks] {} in {})",
                    hook.key(),
                    hook.key(),
                    self.root.join(crate::config::FILE).display()
                ),
            });
        }
    }
}

impl Reporter for Hooked {
    fn report(&self, event: Event) {
        let fire =
            hook_for(&event).and_then(|h| h.command(&self.hooks).map(|c| (h, c.to_string())));
        match fire {
            None => self.inner.report(event),
            Some((hook, cmd)) => {
                self.inner.report(event.clone());
                self.fire(hook, &cmd, &event);
            }
        }
    }

    fn live(&self) -> bool {
        self.inner.live()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::ending::Exit;
    use crate::run::events::event::Recorded;
    use crate::state::history::Outcome;

    fn ended() -> Event {
        Event::RunEnded {
            ending: Exit::AllDone,
            iterations: 2,
            limit: 10,
            elapsed: Duration::from_millis(1234),
            passing: 2,
            unfinished: vec![],
            history_written: false,
            cost_usd: None,
            max_cost: None,
        }
    }

    #[test]
    fn only_done_stories_skips_and_the_end_fire_hooks() {
        let finished = |outcome| Event::IterationFinished {
            iteration: 1,
            limit: 3,
            story: "A".into(),
            title: "T".into(),
            elapsed: Duration::ZERO,
            outcome,
            detail: String::new(),
            cost_usd: None,
        };
        // A done attempt is not yet a landed story (a parallel run merges it later).
        assert_eq!(hook_for(&finished(Outcome::Done)), None);
        assert_eq!(hook_for(&finished(Outcome::VerifyFailed)), None);
        let landed = Event::StoryDone {
            story: "A".into(),
            title: "T".into(),
            commit: Some("abc".into()),
            how: None,
        };
        assert_eq!(hook_for(&landed), Some(Hook::StoryDone));
        let skipped = Event::StorySkipped {
            story: "A".into(),
            title: "T".into(),
            attempts: 3,
            reason: "r".into(),
        };
        assert_eq!(hook_for(&skipped), Some(Hook::Blocked));
        assert_eq!(hook_for(&ended()), Some(Hook::RunEnd));
        assert_eq!(hook_for(&Event::Note { text: "x".into() }), None);
    }

    #[test]
    fn the_payload_is_the_json_event_with_hook_project_and_branch() {
        let prd = serde_json::json!({"project": "P", "branchName": "ralph/p", "userStories": []});
        let v = payload(Hook::RunEnd, &ended(), Some(&prd));
        assert_eq!(
            v,
            serde_json::json!({"event": "run-ended", "ending": "all-done", "iterations": 2,
                "limit": 10, "elapsed": 1234, "passing": 2, "unfinished": [],
                "history_written": false, "hook": "on_run_end", "project": "P",
                "branch": "ralph/p"})
        );
        let v = payload(Hook::RunEnd, &ended(), None);
        assert_eq!(v["project"], serde_json::Value::Null);
        assert_eq!(v["branch"], serde_json::Value::Null);
    }

    #[test]
    fn a_failing_or_hanging_hook_is_a_warning_and_the_event_still_goes_through() {
        let dir = tempfile::tempdir().unwrap();
        let rec = Arc::new(Recorded::default());
        let hooks = Hooks {
            on_run_end: Some("cat > got.json; echo 'no webhook' >&2; exit 7".into()),
            on_blocked: Some("sleep 30".into()),
            timeout: Duration::from_millis(300),
            ..Hooks::default()
        };
        let r = Hooked::wrap(
            rec.clone(),
            &hooks,
            dir.path(),
            &dir.path().join("prd.json"),
        );
        r.report(ended());
        let t = Instant::now();
        r.report(Event::StorySkipped {
            story: "A".into(),
            title: "T".into(),
            attempts: 3,
            reason: "r".into(),
        });
        assert!(t.elapsed() < Duration::from_secs(5));
        let got: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("got.json")).unwrap()).unwrap();
        assert_eq!(got["event"], "run-ended");
        let events = rec.0.lock().unwrap();
        let texts: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::Warning { text } => Some(text.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(events.len(), 4, "{events:?}");
        assert!(texts[0].starts_with("hook on_run_end (`cat > got.json; echo 'no webhook' >&2; exit 7`) exited 7: no webhook; the run goes on (check [hooks] on_run_end in "), "{texts:?}");
        assert!(
            texts[1].contains("hook on_blocked (`sleep 30`) ran longer than 0.30s and was killed"),
            "{texts:?}"
        );
    }
}
