//! The one JSON envelope every reading or reporting command prints with `--json`:
//! `{"schema_version", "command", "data", "errors", "warnings"}` (specs/json.md,
//! schemas/envelope.schema.json).
//!
//! Owns the envelope and problem types, printing them (a closed stdout is not an error), the
//! error path with `--json` (an error that reached `main` becomes an envelope on stdout with the
//! same exit code), and clap usage errors when `--json` was asked for. Does not own any
//! command's data: each handler builds its own `data` value and hands it over, nor any error's
//! code (each error names its own: `crate::problem`).

mod problems;

pub use crate::problem::Problem;
pub use problems::{from_error, from_pin_check, from_prd_diagnostic};

use serde::Serialize;

/// The envelope's version. 2: the data moved under `data` (version 1 was each command's own
/// top-level object).
pub const SCHEMA_VERSION: u32 = 2;

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
        super::stdout::emit(&text)
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

/// The commands with a JSON mode, as `cli::json_command` names them (a usage error names the one it
/// can find in the arguments).
const JSON_COMMANDS: [&str; 18] = [
    "validate", "status", "next", "graph", "context", "compact", "report", "show", "pin",
    "patterns", "clean", "run", "doctor", "pause", "resume", "steer", "skip", "retry",
];

/// A usage error from clap (`args`: the whole command line). When `--json` is among the
/// arguments it is an envelope on stdout (code `usage`, exit 2); everything else (help, version,
/// usage errors without `--json`) is clap's own.
pub fn usage_error(args: &[std::ffi::OsString], e: clap::Error) -> ! {
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
