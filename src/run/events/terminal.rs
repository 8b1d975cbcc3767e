//! The terminal reporter: the lines a person reads on stderr, through `anstream` (colour as
//! `--color` says), dropped by `-q` except an unfinished run's end; a live heartbeat refreshed
//! in place. Owns the wording of every event; decides nothing about the run.

use super::durations::{format_elapsed, format_remaining};
use super::event::{Event, Reporter};
use crate::agent::process::Stop;
use crate::run::ending::Exit;
use crate::state::history::ControlKind;

/// Lines for a person, on stderr, through `anstream` (colour as `--color` says).
#[derive(Debug, Default)]
pub(crate) struct Terminal;

impl Reporter for Terminal {
    fn report(&self, event: Event) {
        // `-q` keeps only how a run ended without finishing (a limit, nothing ready, an
        // interrupt): the exit code alone does not say which stories are left.
        let unfinished = matches!(
            event,
            Event::RunEnded { ending, .. } if ending != Exit::AllDone
        );
        if crate::ui::quiet() && !unfinished {
            return;
        }
        if let Event::Heartbeat { live: true, .. } = &event {
            crate::ui::transient(&heartbeat_line(&event));
            return;
        }
        if let Event::Board { lines } = &event {
            let lines: Vec<String> = lines.iter().map(|l| format!("ralph: {l}")).collect();
            crate::ui::transient_block(&lines);
            return;
        }
        crate::ui::clear_transient();
        for line in lines(&event) {
            crate::ui::anstream::eprintln!("{line}");
        }
    }

    fn live(&self) -> bool {
        use std::io::IsTerminal;
        !crate::ui::quiet() && std::io::stderr().is_terminal()
    }
}

/// The heartbeat as one plain line: "ralph: US-1 running 4m10s · 12.3 KB of output · silent
/// 1m02s · last: Compiling foo".
pub(crate) fn heartbeat_line(event: &Event) -> String {
    let Event::Heartbeat {
        story,
        elapsed,
        bytes,
        silent,
        last_line,
        ..
    } = event
    else {
        return String::new();
    };
    let mut line = format!(
        "ralph: {story} running {} · {} of output · silent {}",
        format_remaining(*elapsed),
        human_bytes(*bytes),
        format_remaining(*silent)
    );
    if !last_line.is_empty() {
        line.push_str(" · last: ");
        line.push_str(last_line);
    }
    line
}

use crate::clean::human_bytes;

/// The lines [`Terminal`] prints for an event (styled for `anstream`).
pub(crate) fn lines(event: &Event) -> Vec<String> {
    match event {
        Event::RunStarted { .. } => started(event),
        Event::Note { text } => vec![format!("ralph: {text}")],
        Event::Warning { text } => vec![format!("ralph: warning: {text}")],
        Event::IterationStarted { .. } => vec![iteration_started(event)],
        Event::IterationFinished { .. } => vec![iteration_finished(event)],
        Event::Heartbeat { .. } => vec![heartbeat_line(event)],
        Event::Stopping { .. } => vec![stopping(event)],
        Event::Reviewed { .. } => reviewed(event),
        Event::AgentNotStarted { .. } => not_started(event),
        Event::StorySkipped { story, reason, .. } => vec![format!(
            "ralph: skipping {story} for the rest of this run: {reason}"
        )],
        Event::RateLimited { line, until, .. } => vec![match until {
            Some(at) => format!(
                "ralph: rate limited ({line}); waiting until {at}; this iteration does not count"
            ),
            None => {
                format!("ralph: rate limited ({line}); backing off; this iteration does not count")
            }
        }],
        Event::StoryDone {
            story,
            commit,
            how: Some(how),
            ..
        } => vec![format!(
            "ralph {story}: merged ({:.7}, {how})",
            commit.as_deref().unwrap_or("")
        )],
        // The sequential loop's status line already says `done`.
        Event::StoryDone { how: None, .. } => vec![],
        Event::SentBack {
            story,
            outcome,
            why,
        } => vec![format!(
            "ralph {story}: sent back ({}): {why}",
            outcome.name()
        )],
        Event::Claim { .. } => vec![claim(event)],
        Event::Board { lines } => lines.iter().map(|l| format!("ralph: {l}")).collect(),
        Event::Summary { rows, totals } => super::board::summary(rows, totals),
        Event::Control {
            action: ControlKind::Steer,
            text: Some(text),
            message,
            ..
        } => std::iter::once(format!("ralph: {message}"))
            .chain(text.lines().take(3).map(|l| format!("ralph:   > {l}")))
            .collect(),
        Event::Control { message, .. } => vec![format!("ralph: {message}")],
        Event::RunEnded { .. } => ended(event),
    }
}

/// An iteration's first line: the agent starting (or, in a parallel run, the worker and its
/// log).
fn iteration_started(event: &Event) -> String {
    let Event::IterationStarted {
        iteration,
        limit,
        story,
        title,
        attempt,
        agent,
        worker,
        log,
    } = event
    else {
        return String::new();
    };
    match (worker, log) {
        (Some(w), Some(log)) => format!(
            "ralph [{iteration}/{limit}] {story} {title} (attempt {attempt}, worker {w}): started; output in {log}"
        ),
        _ => format!(
            "ralph [{iteration}/{limit}] {story} {title} (attempt {attempt}): starting {agent}"
        ),
    }
}

/// An iteration's status line, its cost after the detail.
fn iteration_finished(event: &Event) -> String {
    let Event::IterationFinished {
        iteration,
        limit,
        story,
        title,
        elapsed,
        outcome,
        detail,
        cost_usd,
    } = event
    else {
        return String::new();
    };
    let detail = match cost_usd {
        Some(c) if detail.is_empty() => format!("${c:.2}"),
        Some(c) => format!("{detail} · ${c:.2}"),
        None => detail.clone(),
    };
    super::status::status_line(
        *iteration, *limit, story, title, *elapsed, *outcome, &detail,
    )
}

/// A process being stopped: why, after how long, and when SIGKILL follows.
fn stopping(event: &Event) -> String {
    let Event::Stopping {
        what,
        reason,
        elapsed,
        grace,
    } = event
    else {
        return String::new();
    };
    format!(
        "ralph: stopping {what} ({} after {}): SIGTERM now, SIGKILL in {} if it is still running",
        match reason {
            Stop::Timeout => "timed out",
            Stop::Interrupt => "interrupted",
        },
        format_remaining(*elapsed),
        format_elapsed(*grace)
    )
}

/// A review's verdict, and the changes asked for one per line.
fn reviewed(event: &Event) -> Vec<String> {
    let Event::Reviewed {
        story,
        round,
        max_rounds,
        reviewer,
        verdict,
        items,
        why,
    } = event
    else {
        return vec![];
    };
    let head = format!("ralph {story}: review {round}/{max_rounds} by {reviewer}");
    match (verdict.as_str(), why) {
        ("approve", _) => vec![format!("{head}: approved")],
        ("changes", _) => std::iter::once(format!("{head}: changes requested"))
            .chain(items.iter().map(|i| format!("  - {i}")))
            .collect(),
        (_, why) => vec![format!(
            "{head}: no verdict ({}); not approved",
            why.as_deref().unwrap_or("none given")
        )],
    }
}

/// The agent could not start: the CLI's words and what to do.
fn not_started(event: &Event) -> Vec<String> {
    let Event::AgentNotStarted {
        agent,
        version,
        message,
        advice,
        ..
    } = event
    else {
        return vec![];
    };
    let v = version
        .as_deref()
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    vec![
        format!("ralph: {agent}{v} could not start: {message}"),
        format!("ralph: what to do: {advice}"),
    ]
}

/// A parallel run's status line for one claimed story.
fn claim(event: &Event) -> String {
    let Event::Claim {
        story,
        title,
        state,
        elapsed,
        attempt,
        last_line,
        last_age,
    } = event
    else {
        return String::new();
    };
    let last = last_line.clone().map(|l| (last_age.unwrap_or_default(), l));
    format!(
        "ralph: {}",
        super::board::status_line(story, title, state, *elapsed, *attempt, last.as_ref())
    )
}

/// The banner: the agent, the limit, the verify commands (and, for a parallel run, how many
/// stories at once and the branch merges land on); a warning when nothing verifies.
fn started(event: &Event) -> Vec<String> {
    let Event::RunStarted {
        run_id,
        agent,
        iterations,
        verify,
        parallel,
        branch,
    } = event
    else {
        return vec![];
    };
    let gate = if verify.is_empty() {
        String::new()
    } else {
        format!(", verify: {}", verify.join(" && "))
    };
    match parallel {
        Some(k) => {
            let mut out = vec![format!(
                "ralph: run {run_id}: agent {agent}, up to {k} stories at once, up to {iterations} attempts, merging into {}{gate}",
                branch.as_deref().unwrap_or("")
            )];
            if verify.is_empty() {
                out.push("ralph: warning: no verify commands: nothing verifies the agent's claims, and merged results are not checked (conflicts still are)".into());
            }
            out
        }
        None => {
            let mut out = vec![format!(
                "ralph: run {run_id}: agent {agent}, up to {iterations} iterations{gate}"
            )];
            if verify.is_empty() {
                out.push("ralph: warning: no verify commands (--verify, [verify] in ralph.toml): nothing verifies the agent's claims; a story counts as done only when the agent marks it passing in prd.json".into());
            }
            out
        }
    }
}

fn ended(event: &Event) -> Vec<String> {
    let Event::RunEnded {
        ending,
        iterations,
        limit,
        elapsed,
        passing,
        unfinished,
        history_written,
        cost_usd,
        max_cost,
    } = event
    else {
        return vec![];
    };
    let spent = cost_usd.map(|c| format!(", ${c:.2}")).unwrap_or_default();
    let indented = unfinished.iter().map(|l| format!("  {l}"));
    match ending {
        Exit::AllDone => vec![format!(
            "ralph: {} ({iterations} iteration(s) in {}{spent})",
            crate::ui::paint(crate::ui::GOOD, &format!("all {passing} stories pass")),
            format_elapsed(*elapsed)
        )],
        Exit::CostLimit => std::iter::once(format!(
            "ralph: reached the cost limit: spent ${:.2} of ${:.2} (--max-cost) in {iterations} iteration(s); {} stor{} remain:",
            cost_usd.unwrap_or(0.0),
            max_cost.unwrap_or(0.0),
            unfinished.len(),
            if unfinished.len() == 1 { "y" } else { "ies" }
        ))
        .chain(indented)
        .collect(),
        Exit::NoReady => std::iter::once("ralph: no ready story; unfinished stories:".into())
            .chain(indented)
            .collect(),
        Exit::Limit => std::iter::once(format!(
            "ralph: reached the iteration limit ({limit}); {} stor{} remain:",
            unfinished.len(),
            if unfinished.len() == 1 { "y" } else { "ies" }
        ))
        .chain(indented)
        .collect(),
        Exit::Interrupted if *history_written => {
            vec!["ralph: interrupted; history written, lock released".into()]
        }
        Exit::Interrupted => vec!["ralph: interrupted".into()],
        Exit::StartFailed => vec![format!(
            "ralph: stopped: the agent could not start, so no story was retried or skipped ({iterations} iteration(s) in {}); fix the cause and run again (`ralph doctor` checks it)",
            format_elapsed(*elapsed)
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn plain(e: &Event) -> Vec<String> {
        lines(e)
            .iter()
            .map(|l| anstream::adapter::strip_str(l).to_string())
            .collect()
    }

    #[test]
    fn terminal_lines_read_as_before() {
        let e = Event::IterationStarted {
            iteration: 2,
            limit: 10,
            story: "US-2".into(),
            title: "Add login".into(),
            attempt: 1,
            agent: "claude".into(),
            worker: None,
            log: None,
        };
        assert_eq!(
            plain(&e),
            ["ralph [2/10] US-2 Add login (attempt 1): starting claude"]
        );
        let e = Event::RunEnded {
            ending: Exit::Limit,
            iterations: 3,
            limit: 3,
            elapsed: Duration::from_secs(5),
            passing: 1,
            unfinished: vec!["US-3 Later".into()],
            history_written: false,
            cost_usd: None,
            max_cost: None,
        };
        assert_eq!(
            plain(&e),
            [
                "ralph: reached the iteration limit (3); 1 story remain:",
                "  US-3 Later"
            ]
        );
        let e = Event::RunStarted {
            run_id: "r".into(),
            agent: "amp".into(),
            iterations: 4,
            verify: vec![],
            parallel: None,
            branch: None,
        };
        assert_eq!(plain(&e).len(), 2, "no verify commands is warned about");
    }

    #[test]
    fn watching_lines_read_well() {
        let beat = Event::Heartbeat {
            story: "US-2".into(),
            elapsed: Duration::from_secs(250),
            bytes: 12_345,
            silent: Duration::from_secs(62),
            last_line: "Compiling foo v0.1.0".into(),
            live: false,
        };
        let stop = Event::Stopping {
            what: "the agent".into(),
            reason: Stop::Timeout,
            elapsed: Duration::from_secs(3600),
            grace: Duration::from_secs(10),
        };
        let skipped = Event::StorySkipped {
            story: "US-3".into(),
            title: "T".into(),
            attempts: 3,
            reason: "no progress in 3 attempts in a row".into(),
        };
        let text: Vec<String> = [beat, stop, skipped].iter().flat_map(plain).collect();
        insta::assert_snapshot!(text.join("\n"), @r"
        ralph: US-2 running 4m10s · 12.3 KB of output · silent 1m02s · last: Compiling foo v0.1.0
        ralph: stopping the agent (timed out after 1h00m00s): SIGTERM now, SIGKILL in 10s if it is still running
        ralph: skipping US-3 for the rest of this run: no progress in 3 attempts in a row
        ");
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(4_000_000), "4.0 MB");
    }

    #[test]
    fn a_parallel_run_reads_as_workers_merges_and_send_backs() {
        let e = Event::IterationStarted {
            iteration: 3,
            limit: 12,
            story: "B".into(),
            title: "Second".into(),
            attempt: 1,
            agent: "claude".into(),
            worker: Some(2),
            log: Some(".ralph/runs/r/iter-3.log".into()),
        };
        assert_eq!(
            plain(&e),
            [
                "ralph [3/12] B Second (attempt 1, worker 2): started; output in .ralph/runs/r/iter-3.log"
            ]
        );
        let merged = Event::StoryDone {
            story: "B".into(),
            title: "Second".into(),
            commit: Some("0123456789abcdef".into()),
            how: Some("fast-forward".into()),
        };
        assert_eq!(plain(&merged), ["ralph B: merged (0123456, fast-forward)"]);
        let sequential = Event::StoryDone {
            story: "B".into(),
            title: "Second".into(),
            commit: None,
            how: None,
        };
        assert!(
            plain(&sequential).is_empty(),
            "the status line already says done"
        );
        let back = Event::SentBack {
            story: "C".into(),
            outcome: crate::state::history::Outcome::MergeConflict,
            why: "f.txt".into(),
        };
        assert!(
            plain(&back)[0].starts_with("ralph C: sent back ("),
            "{:?}",
            plain(&back)
        );
        let banner = Event::RunStarted {
            run_id: "r".into(),
            agent: "claude".into(),
            iterations: 12,
            verify: vec!["true".into()],
            parallel: Some(4),
            branch: Some("ralph/x".into()),
        };
        assert_eq!(
            plain(&banner),
            [
                "ralph: run r: agent claude, up to 4 stories at once, up to 12 attempts, merging into ralph/x, verify: true"
            ]
        );
    }
}
