//! The sending side, for `ralph pause`, `resume`, `steer`, `skip` and `retry` in another terminal:
//! find the live run, write the request, wait briefly for its answer.

use std::time::{Duration, Instant};

use crate::fsutil::FsError;
use crate::state::control::{self as files, Ack, NoRun, Request, RunState, SCHEMA_VERSION};
use crate::state::history::ControlKind;

/// How long a command waits for the run's answer before it says the request is queued.
pub(crate) const WAIT: Duration = Duration::from_secs(5);

/// What the run did with a request.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// It took the request (changed something, or there was nothing to change).
    Answered(Ack),
    /// No answer yet: the request waits under `.ralph/control/requests/` for its next check.
    Queued,
}

/// A request sent: its id, the run it went to (as it was when sent), and the reply.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    pub id: String,
    pub run: RunState,
    pub reply: Reply,
}

/// Why a request did not reach a run, or was refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SendError {
    #[error(transparent)]
    NoRun(#[from] NoRun),
    #[error("run {run_id} refused `ralph {action}`: {message}")]
    Refused {
        run_id: String,
        action: &'static str,
        /// The story the request named.
        story: Option<String>,
        message: String,
    },
    #[error("run {run_id} (pid {pid}) ended before it took `ralph {action}`; nothing was changed")]
    Ended {
        run_id: String,
        pid: u32,
        action: &'static str,
    },
    #[error("cannot send `ralph {action}`: {source}")]
    Io {
        action: &'static str,
        #[source]
        source: FsError,
    },
}

/// Send `action` (with its story and text) to the live run at `root` and wait up to `wait` for
/// the answer.
pub(crate) fn send(
    root: &std::path::Path,
    action: ControlKind,
    story: Option<String>,
    text: Option<String>,
    wait: Duration,
) -> Result<Sent, SendError> {
    let run = files::live_run(root)?;
    let req = Request {
        schema_version: SCHEMA_VERSION,
        id: files::new_request_id(),
        run_id: run.run_id.clone(),
        action,
        story,
        text,
        time: jiff::Timestamp::now().to_string(),
        pid: std::process::id(),
    };
    let path = files::write_request(root, &req).map_err(|source| SendError::Io {
        action: action.name(),
        source,
    })?;
    let reply = wait_for_answer(root, &req, &path, &run, wait)?;
    Ok(Sent {
        id: req.id,
        run,
        reply,
    })
}

/// Wait up to `wait` for the answer to `req` (written at `path`) from `run`.
fn wait_for_answer(
    root: &std::path::Path,
    req: &Request,
    path: &std::path::Path,
    run: &RunState,
    wait: Duration,
) -> Result<Reply, SendError> {
    let action = req.action.name();
    let answered = |ack: Ack| {
        if ack.accepted {
            return Ok(Reply::Answered(ack));
        }
        Err(SendError::Refused {
            run_id: ack.run_id,
            action,
            story: req.story.clone(),
            message: ack.message,
        })
    };
    let end = Instant::now() + wait;
    loop {
        if let Some(ack) = files::take_ack(root, &req.id) {
            return answered(ack);
        }
        if !files::alive(root, run) {
            // Taken at the last moment, or never: then the request is nobody's.
            let last = files::take_ack(root, &req.id);
            let _ = std::fs::remove_file(path);
            return match last {
                Some(ack) => answered(ack),
                None => Err(SendError::Ended {
                    run_id: run.run_id.clone(),
                    pid: run.pid,
                    action,
                }),
            };
        }
        if Instant::now() >= end {
            return Ok(Reply::Queued);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
