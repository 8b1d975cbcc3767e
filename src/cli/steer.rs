//! `ralph pause`, `ralph resume`, `ralph steer "TEXT" [--story ID]`, `ralph skip ID`,
//! `ralph retry ID`: requests to the live `ralph run` of the project, from another terminal,
//! answered at once (see `crate::run::control`); and the lines `ralph status` adds about that
//! run ([`run_lines`], [`story_note`], pure).

use std::io::Read;

use clap::Args;
use serde_json::json;

use super::ctx::Ctx;
use super::envelope::Envelope;
use crate::exit::Code;
use crate::run::control::client::{self, Reply};
use crate::state::control::RunState;
use crate::state::history::ControlKind;

#[derive(Debug, Args)]
pub struct PauseArgs {
    /// Print the run's answer as the JSON envelope.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SteerArgs {
    /// The note for the agents' next prompts (`-`: read it from stdin).
    pub text: String,
    /// Only for this story's prompts (default: every story's).
    #[arg(long, value_name = "ID")]
    pub story: Option<String>,
    /// Print the run's answer as the JSON envelope.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StoryArgs {
    /// The story.
    pub story_id: String,
    /// Print the run's answer as the JSON envelope.
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn pause(ctx: &Ctx, args: PauseArgs) -> anyhow::Result<Code> {
    send(ctx, ControlKind::Pause, None, None, args.json)
}

pub(crate) fn resume(ctx: &Ctx, args: PauseArgs) -> anyhow::Result<Code> {
    send(ctx, ControlKind::Resume, None, None, args.json)
}

pub(crate) fn steer(ctx: &Ctx, args: SteerArgs) -> anyhow::Result<Code> {
    let text = if args.text == "-" {
        let mut t = String::new();
        // More than a note may hold is refused by the run, with the limit; never read forever.
        std::io::stdin()
            .take(1 << 20)
            .read_to_string(&mut t)
            .map_err(|e| anyhow::anyhow!("cannot read the note from stdin: {e}"))?;
        t
    } else {
        args.text
    };
    send(ctx, ControlKind::Steer, args.story, Some(text), args.json)
}

pub(crate) fn skip(ctx: &Ctx, args: StoryArgs) -> anyhow::Result<Code> {
    send(ctx, ControlKind::Skip, Some(args.story_id), None, args.json)
}

pub(crate) fn retry(ctx: &Ctx, args: StoryArgs) -> anyhow::Result<Code> {
    send(
        ctx,
        ControlKind::Retry,
        Some(args.story_id),
        None,
        args.json,
    )
}

/// Send one request and print the run's answer: what changed, that nothing needed to, or that
/// it is queued for the run's next check. No run, a refusal, a run that ended: an error (exit 1).
fn send(
    ctx: &Ctx,
    action: ControlKind,
    story: Option<String>,
    text: Option<String>,
    json: bool,
) -> anyhow::Result<Code> {
    let sent = client::send(&ctx.root, action, story.clone(), text, client::WAIT)?;
    let (status, message) = match &sent.reply {
        Reply::Answered(ack) if ack.changed => ("applied", ack.message.clone()),
        Reply::Answered(ack) => ("unchanged", ack.message.clone()),
        Reply::Queued => (
            "queued",
            format!(
                "sent to run {} (pid {}), which has not answered within {}s; it takes the request at its next check (`ralph status` shows the run)",
                sent.run.run_id,
                sent.run.pid,
                client::WAIT.as_secs()
            ),
        ),
    };
    if json {
        let data = json!({
            "run_id": sent.run.run_id,
            "pid": sent.run.pid,
            "request": sent.id,
            "action": action.name(),
            "story": story,
            "status": status,
            "message": message,
        });
        Envelope::new(action.name(), data).emit()?;
    } else {
        super::stdout::emit(&format!("{message}\n"))?;
    }
    Ok(Code::OK)
}

/// The lines `ralph status` prints about the live run, after the stories: the run and whether it
/// is paused or waiting, then its steering notes (pure).
pub(crate) fn run_lines(run: &RunState) -> Vec<String> {
    let clock = |t: &str| {
        t.parse::<jiff::Timestamp>()
            .map_or_else(|_| t.to_string(), crate::run::control::policy::clock)
    };
    let how = match (run.parallel, &run.branch) {
        (1, _) => "sequential".to_string(),
        (k, Some(b)) => format!("parallel {k}, branch {b}"),
        (k, None) => format!("parallel {k}"),
    };
    let mut state = if run.paused {
        format!(
            "paused since {} (`ralph resume` goes on)",
            run.paused_since.as_deref().map(clock).unwrap_or_default()
        )
    } else {
        "running".to_string()
    };
    if let Some(w) = &run.wait {
        let what = if w.why == "rate-limit" {
            "waiting for a usage limit"
        } else {
            "sleeping"
        };
        state.push_str(&format!(", {what} until {}", clock(&w.until)));
    }
    let busy = |s: &str| run.claims.iter().filter(|c| c.state == s).count();
    let mut lines = vec![format!(
        "run {} (pid {}, {how}): {state}; iteration {} of {}; {} running, {} queued, {} merging, {} held",
        run.run_id,
        run.pid,
        run.iteration,
        run.limit,
        busy("running"),
        busy("queued"),
        busy("merging"),
        run.held.len()
    )];
    if !run.steering.is_empty() {
        lines.push(format!("steering notes ({}):", run.steering.len()));
        for n in &run.steering {
            let whom = n.story.as_deref().unwrap_or("every story");
            let mut text = n.text.lines();
            lines.push(format!(
                "  {} {whom} ({}): {}",
                n.id,
                clock(&n.time),
                text.next().unwrap_or("")
            ));
            lines.extend(text.map(|l| format!("      {l}")));
        }
    }
    lines
}

/// What the live run is doing with story `id`, for its line in `ralph status`: `[running:
/// attempt 2 since 14:29:10]`, `[held: skipped by ralph skip]`, or nothing (pure).
pub(crate) fn story_note(run: &RunState, id: &str) -> Option<String> {
    if let Some(c) = run.claims.iter().find(|c| c.story == id) {
        let since = c
            .since
            .parse::<jiff::Timestamp>()
            .map_or_else(|_| c.since.clone(), crate::run::control::policy::clock);
        let worker = c.worker.map_or(String::new(), |w| format!(", worker {w}"));
        return Some(format!(
            "[{}: attempt {}{worker} since {since}]",
            c.state, c.attempt
        ));
    }
    run.held
        .iter()
        .find(|h| h.story == id)
        .map(|h| format!("[held: {}]", h.reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::control::{ClaimView, Held, Note, SCHEMA_VERSION, Wait};

    fn run() -> RunState {
        RunState {
            schema_version: SCHEMA_VERSION,
            run_id: "r1".into(),
            pid: 42,
            pid_start: None,
            prd: "prd.json".into(),
            started: "x".into(),
            updated: "x".into(),
            parallel: 3,
            branch: Some("ralph/x".into()),
            paused: true,
            paused_since: Some("not a time".into()),
            wait: Some(Wait {
                why: "rate-limit".into(),
                until: "later".into(),
            }),
            iteration: 4,
            limit: 10,
            claims: vec![ClaimView {
                story: "US-2".into(),
                title: "T".into(),
                state: "merging".into(),
                attempt: 2,
                worker: Some(1),
                since: "then".into(),
            }],
            held: vec![Held {
                story: "US-3".into(),
                reason: "requested with `ralph skip`".into(),
            }],
            steering: vec![Note {
                id: "n1".into(),
                story: None,
                text: "use the client\nnot the raw API".into(),
                time: "then".into(),
            }],
        }
    }

    #[test]
    fn the_run_lines_say_paused_waiting_counts_and_notes() {
        assert_eq!(
            run_lines(&run()),
            [
                "run r1 (pid 42, parallel 3, branch ralph/x): paused since not a time (`ralph resume` goes on), waiting for a usage limit until later; iteration 4 of 10; 0 running, 0 queued, 1 merging, 1 held",
                "steering notes (1):",
                "  n1 every story (then): use the client",
                "      not the raw API",
            ]
        );
        assert_eq!(
            story_note(&run(), "US-2").as_deref(),
            Some("[merging: attempt 2, worker 1 since then]")
        );
        assert_eq!(
            story_note(&run(), "US-3").as_deref(),
            Some("[held: requested with `ralph skip`]")
        );
        assert_eq!(story_note(&run(), "US-1"), None);
    }
}
