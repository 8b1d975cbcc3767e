//! A story's gate, run by an iteration once the agent claims the story: the run's verify
//! commands, then the story's own (`verify` in prd.json, those not already among the run's),
//! then, when it is on for the story and every command passed, the red-green gate's red run
//! ([`super::redgreen`]). Returns what the verdict needs ([`verdict::GateSummary`]), the
//! results for history and the red run's record, and reports the red run's verdict and time.
//! Decides no outcome ([`verdict`] does).

use std::sync::{Arc, Mutex};

use super::attempt::ToVerify;
use super::outcome::AgentFacts;
use super::redgreen::{self, policy::Red};
use super::{verdict, verify};
use crate::agent::process::LogSink;
use crate::prd::Story;
use crate::run::error::RunError;
use crate::run::events::Event;
use crate::run::events::durations::format_elapsed;
use crate::run::options::Options;
use crate::state::history::{RedGreenRecord, VerifyResult};

/// The commands `story`'s gate runs: the run's, then the story's own.
pub(crate) fn commands(opts: &Options, story: &Story) -> Vec<String> {
    story.gate_commands(&opts.settings.verify)
}

/// What the run says at its start about the stories' gates, besides the banner: stories
/// with their own commands when the run has none, and red-green stories nothing can test.
pub(crate) fn start_notes(settings: &crate::config::Settings, stories: &[Story]) -> Vec<Event> {
    let open: Vec<&Story> = stories.iter().filter(|s| !s.passes && !s.removed).collect();
    let mut out = vec![];
    let own: Vec<&str> = open
        .iter()
        .filter(|s| !s.verify.is_empty())
        .map(|s| s.id.as_str())
        .collect();
    if settings.verify.is_empty() && !own.is_empty() {
        out.push(Event::Note {
            text: format!(
                "{} open story(ies) have their own verify commands (\"verify\" in prd.json) and are gated by them: {}",
                own.len(),
                own.join(", ")
            ),
        });
    }
    let untestable: Vec<&str> = open
        .iter()
        .filter(|s| redgreen::enabled(settings, s) && s.gate_commands(&settings.verify).is_empty())
        .map(|s| s.id.as_str())
        .collect();
    if !untestable.is_empty() {
        out.push(Event::Warning {
            text: format!(
                "red-green is on, but no verify command can run the tests of {}: add --verify (or the story's \"verify\")",
                untestable.join(", ")
            ),
        });
    }
    out
}

/// What the gate gave.
pub(crate) struct Gated {
    pub summary: verdict::GateSummary,
    pub results: Vec<VerifyResult>,
    pub red_green: Option<RedGreenRecord>,
}

/// Step 8, the gate of an attempt whose agent claims its story (and has commands to run): its
/// summary for the verdict, the verify results and the red run's record. Nothing when it does
/// not claim it.
pub(crate) fn for_attempt(inp: &ToVerify<'_>, facts: &AgentFacts) -> Result<ForAttempt, RunError> {
    if !(facts.claimed() && facts.gated) {
        return Ok((None, vec![], None));
    }
    let g = run(inp)?;
    Ok((Some(g.summary), g.results, g.red_green))
}

/// The gate's summary (`None`: it did not run), its results, the red run's record.
pub(crate) type ForAttempt = (
    Option<verdict::GateSummary>,
    Vec<VerifyResult>,
    Option<RedGreenRecord>,
);

/// Run the story's gate (see the module doc).
pub(crate) fn run(inp: &ToVerify<'_>) -> Result<Gated, RunError> {
    let opts = inp.at.opts;
    let s = &opts.settings;
    let cmds = commands(opts, inp.at.story);
    let gate = verify::run_all(
        &cmds,
        &verify::VerifyEnv {
            root: &opts.root,
            dir: None,
            env: &[],
            label: "verify",
            timeout: s.timeout,
            grace: s.grace,
            log: inp.log.clone(),
            echo: opts.echo,
            interrupt: inp.at.interrupt,
            sweep_orphans: s.parallel <= 1,
            reporter: &*opts.reporter,
        },
    )?;
    let mut summary = summary(&gate, cmds.len());
    let mut red_green = None;
    if gate.passed() && redgreen::enabled(s, inp.at.story) {
        let red = redgreen::run(inp)?;
        report(opts, &inp.log, &red);
        summary.interrupted |= red.interrupted;
        summary.red_green = Some(verdict::RedVerdict {
            short: redgreen::policy::short(&red.red),
            sent_back: redgreen::policy::reason(&red.red, &red.record.test_files, &red.commands),
        });
        red_green = Some(red.record);
    }
    Ok(Gated {
        summary,
        results: gate.results,
        red_green,
    })
}

/// The red run's verdict and time, on stderr (or as JSON events) and in the iteration log.
fn report(opts: &Options, log: &Option<Arc<Mutex<LogSink>>>, red: &redgreen::RedRun) {
    let rep = &*opts.reporter;
    for w in &red.warnings {
        rep.report(Event::Warning {
            text: format!("red-green: {w}"),
        });
    }
    if red.interrupted {
        return;
    }
    let took = format_elapsed(std::time::Duration::from_millis(red.record.duration_ms));
    let files = red.record.test_files.len();
    let text = match &red.red {
        Red::Red => format!(
            "red-green: {files} test file(s) alone on the story's base commit fail the checks, as required (red run {took})"
        ),
        Red::Green => format!(
            "red-green: {files} test file(s) alone on the story's base commit pass the checks: the tests do not test the change; the story goes back (red run {took})"
        ),
        Red::NoTests => {
            format!("red-green: the story changed no test file; it goes back (red run {took})")
        }
        Red::Inconclusive(why) => {
            rep.report(Event::Warning {
                text: format!(
                    "red-green: inconclusive ({why}); the gate's verdict stands (red run {took})"
                ),
            });
            return;
        }
    };
    crate::run::log::log_line(log, &format!("=== {text}"));
    rep.report(Event::Note { text });
}

/// The gate as the verdict sees it.
fn summary(gate: &verify::Gate, total: usize) -> verdict::GateSummary {
    let failed = match (&gate.failed, gate.results.last()) {
        (Some(f), Some(r)) => {
            let how = if f.timed_out {
                "timed out".to_string()
            } else {
                match f.exit_code {
                    Some(c) => format!("exited {c}"),
                    None => "was killed".to_string(),
                }
            };
            Some((r.command.clone(), how, f.tail.clone()))
        }
        _ => None,
    };
    verdict::GateSummary {
        total,
        passed: gate.results.iter().filter(|r| r.passed).count(),
        failed,
        interrupted: gate.interrupted,
        red_green: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Event::Note { text } => format!("note: {text}"),
                Event::Warning { text } => format!("warning: {text}"),
                _ => String::new(),
            })
            .collect()
    }

    #[test]
    fn the_start_names_stories_gated_by_their_own_commands_and_untestable_red_green() {
        let prd = crate::prd::Prd::from_bytes(
            std::path::Path::new("prd.json"),
            br#"{"userStories":[
                {"id":"A","title":"a","passes":false,"verify":["make a"]},
                {"id":"B","title":"b","passes":false,"redGreen":true},
                {"id":"C","title":"c","passes":true,"verify":["make c"]}]}"#,
        )
        .unwrap();
        let mut s = crate::config::Settings::default();
        assert_eq!(
            texts(&start_notes(&s, &prd.stories)),
            [
                "note: 1 open story(ies) have their own verify commands (\"verify\" in prd.json) and are gated by them: A",
                "warning: red-green is on, but no verify command can run the tests of B: add --verify (or the story's \"verify\")"
            ]
        );
        s.verify = vec!["make".into()];
        assert!(start_notes(&s, &prd.stories).is_empty());
    }
}
