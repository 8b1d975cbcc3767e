//! The one JSON envelope every reading or reporting command prints with `--json`:
//! `{"schema_version", "command", "data", "errors", "warnings"}` (specs/json.md,
//! schemas/envelope.schema.json).
//!
//! Owns the envelope and problem types, printing them (a closed stdout is not an error), the
//! error path with `--json` (an error that reached `main` becomes an envelope on stdout with the
//! same exit code), and clap usage errors when `--json` was asked for. Does not own any
//! command's data: each handler builds its own `data` value and hands it over.

mod problems;

pub use problems::{from_error, from_pin_check, from_prd_diagnostic};

use serde::Serialize;

use super::Command;
use super::patterns::PatternsCommand;
use super::pin::PinCommand;

/// The envelope's version. 2: the data moved under `data` (version 1 was each command's own
/// top-level object).
pub const SCHEMA_VERSION: u32 = 2;

/// One error or warning, with the place the human message names when there is one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Stable, kebab-case (`parse`, `unknown-ref`, `io`, `usage`, …).
    pub code: String,
    /// What is wrong, as the human message says it.
    pub message: String,
    /// How to fix it, when the message does not already say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The file concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line (and column) in `file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// JSON pointer into `file` ("" is the whole document).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// The story concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub story: Option<String>,
    /// The Pin entry concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
}

impl Problem {
    /// A problem with a code and a message and no place.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            code: code.into(),
            message: message.into(),
            ..Problem::default()
        }
    }

    pub fn file(mut self, file: impl std::fmt::Display) -> Problem {
        self.file = Some(file.to_string());
        self
    }

    pub fn story(mut self, story: impl Into<String>) -> Problem {
        self.story = Some(story.into());
        self
    }
}

/// What a command printed with `--json`. `data` is `null` when the command failed before it had
/// anything to report (the reason is in `errors`).
#[derive(Debug, Clone, Serialize)]
pub struct Envelope<T: Serialize = serde_json::Value> {
    pub schema_version: u32,
    /// The command as typed after `ralph` (`status`, `pin search`, …).
    pub command: &'static str,
    pub data: Option<T>,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

impl<T: Serialize> Envelope<T> {
    /// A report with data and no problems yet.
    pub fn new(command: &'static str, data: T) -> Envelope<T> {
        Envelope {
            schema_version: SCHEMA_VERSION,
            command,
            data: Some(data),
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }

    pub fn warnings(mut self, warnings: impl IntoIterator<Item = Problem>) -> Envelope<T> {
        self.warnings.extend(warnings);
        self
    }

    pub fn errors(mut self, errors: impl IntoIterator<Item = Problem>) -> Envelope<T> {
        self.errors.extend(errors);
        self
    }

    /// Print as one line on stdout. A closed stdout (`… --json | head -c 10`) is not an error.
    pub fn emit(&self) -> anyhow::Result<()> {
        let mut text = serde_json::to_string(self)?;
        text.push('\n');
        super::pin::emit(&text)
    }
}

impl Envelope {
    /// A command that failed with nothing to report but its errors.
    pub fn failed(command: &'static str, errors: Vec<Problem>) -> Envelope {
        Envelope {
            schema_version: SCHEMA_VERSION,
            command,
            data: None,
            errors,
            warnings: Vec::new(),
        }
    }
}

/// The command name for the envelope when `--json` was asked for, else `None`.
pub fn json_command(cmd: &Command) -> Option<&'static str> {
    match cmd {
        Command::Validate(a) if a.json => Some("validate"),
        Command::Status(a) if a.json => Some("status"),
        Command::Next(a) if a.json => Some("next"),
        Command::Graph(a) if a.json => Some("graph"),
        Command::Context(a) if a.json => Some("context"),
        Command::Report(a) if a.json => Some("report"),
        Command::Show(a) if a.json => Some("show"),
        Command::Patterns(a) => match &a.command {
            Some(PatternsCommand::Forget { json: true, .. }) => Some("patterns forget"),
            None if a.json => Some("patterns"),
            _ => None,
        },
        Command::Compact(a) if a.json => Some("compact"),
        Command::Clean(a) if a.json => Some("clean"),
        Command::Doctor(a) if a.json => Some("doctor"),
        Command::Pause(a) if a.json => Some("pause"),
        Command::Resume(a) if a.json => Some("resume"),
        Command::Steer(a) if a.json => Some("steer"),
        Command::Skip(a) if a.json => Some("skip"),
        Command::Retry(a) if a.json => Some("retry"),
        // A run streams events; an error that stops it is the envelope, on the last line.
        Command::Run(a) if a.json => Some("run"),
        Command::Pin(p) => match &p.command {
            PinCommand::Search { json: true, .. } => Some("pin search"),
            PinCommand::Check { json: true } => Some("pin check"),
            _ => None,
        },
        _ => None,
    }
}

/// Report an error that reached `main`: an envelope on stdout when `json` names the command,
/// else `error: …` on stderr. The exit code is the caller's ([`crate::exit::Code::from_error`]),
/// the same either way.
pub fn report_error(json: Option<&'static str>, err: &anyhow::Error) {
    match json {
        Some(command) => {
            if Envelope::failed(command, from_error(err)).emit().is_err() {
                eprintln!("error: {err:#}");
            }
        }
        None => {
            let label = crate::ui::paint(crate::ui::ERROR, "error:");
            crate::ui::anstream::eprintln!("{label} {err:#}");
        }
    }
}

/// The commands with a JSON mode, as `json_command` names them (a usage error names the one it
/// can find in the arguments).
const JSON_COMMANDS: [&str; 18] = [
    "validate", "status", "next", "graph", "context", "compact", "report", "show", "pin",
    "patterns", "clean", "run", "doctor", "pause", "resume", "steer", "skip", "retry",
];

/// Parse the command line. A usage error when `--json` is among the arguments is an envelope on
/// stdout (code `usage`, exit 2); everything else (help, version, usage errors without `--json`)
/// is clap's own.
pub fn parse() -> super::Cli {
    use clap::FromArgMatches;
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = super::help::command()
        .try_get_matches_from(&args)
        .and_then(|m| super::Cli::from_arg_matches(&m));
    match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let words: Vec<&str> = args
                .iter()
                .skip(1)
                .map(|a| a.to_str().unwrap_or(""))
                .take_while(|a| *a != "--")
                .collect();
            if !e.use_stderr() || !words.contains(&"--json") {
                e.exit();
            }
            let command = match words.iter().position(|w| JSON_COMMANDS.contains(w)) {
                Some(i) if words[i] == "pin" => match words.get(i + 1) {
                    Some(&"search") => "pin search",
                    Some(&"check") => "pin check",
                    _ => "pin",
                },
                Some(i) if words[i] == "patterns" => match words.get(i + 1) {
                    Some(&"forget") => "patterns forget",
                    _ => "patterns",
                },
                Some(i) => JSON_COMMANDS
                    .iter()
                    .find(|c| **c == words[i])
                    .copied()
                    .unwrap_or("ralph"),
                None => "ralph",
            };
            let message = e.render().to_string();
            let message = message.trim_end().trim_start_matches("error: ");
            let env = Envelope::failed(command, vec![Problem::new("usage", message)]);
            if env.emit().is_err() {
                e.exit();
            }
            std::process::exit(e.exit_code());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_every_field_and_skips_unknown_places() {
        let env = Envelope::new("status", serde_json::json!({"x": 1}))
            .warnings([Problem::new("dialect", "m").file("prd.json")]);
        let v = serde_json::to_value(&env).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "schema_version": SCHEMA_VERSION, "command": "status", "data": {"x": 1},
                "errors": [], "warnings": [{"code": "dialect", "message": "m", "file": "prd.json"}],
            })
        );
        let failed = serde_json::to_value(Envelope::failed("next", vec![])).unwrap();
        assert_eq!(failed["data"], serde_json::Value::Null);
    }
}
