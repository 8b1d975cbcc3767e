//! The `RALPH_*` environment variables, read into a [`Layer`] by clap: each field of `Layer` that
//! a variable sets names it (`#[arg(env = "RALPH_…")]`) with the parser of its value, so this
//! file only runs clap on the environment. An empty variable is unset (`RALPH_AGENT=` as
//! a shell user writes it); a bad value is an error that names its variable. Does not read
//! ralph.toml ([`super::file`]) nor merge layers (the parent module).

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, Command, FromArgMatches};

use super::layer::{ConfigError, Layer, bad};

/// The command whose arguments are `Layer`'s fields: clap reads each one's variable when
/// the argument is made.
fn command() -> Command {
    Layer::augment_args(Command::new("RALPH_*").no_binary_name(true))
}

/// The `RALPH_*` variables of this process.
pub(crate) fn from_process_env() -> Result<Layer, ConfigError> {
    let cmd = command().mut_args(|a| match a.get_env().and_then(std::env::var_os) {
        Some(value) if value.is_empty() => a.env(None),
        _ => a,
    });
    parse(cmd, Vec::new())
}

/// The same variables as `get` gives them (for unit tests: the threads of a test binary share
/// one environment). Each is handed to clap as its argument instead, with the same parser.
#[cfg(test)]
pub(crate) fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Layer, ConfigError> {
    let mut argv = Vec::new();
    for a in command().get_arguments() {
        let var = a.get_env().and_then(|v| v.to_str());
        if let (Some(long), Some(value)) = (a.get_long(), var.and_then(&get))
            && !value.is_empty()
        {
            argv.push(format!("--{long}={value}"));
        }
    }
    parse(command().mut_args(|a| a.env(None)), argv)
}

fn parse(cmd: Command, argv: Vec<String>) -> Result<Layer, ConfigError> {
    cmd.try_get_matches_from(argv)
        .and_then(|m| Layer::from_arg_matches(&m))
        .map_err(misread)
}

/// clap's error as the variable's: `RALPH_X: <what its parser said>`.
fn misread(e: clap::Error) -> ConfigError {
    let mut cmd = command();
    cmd.build(); // the arguments as clap names them in its errors
    let arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => Some(arg.clone()),
        _ => None,
    };
    let var = match arg {
        Some(arg) => cmd
            .get_arguments()
            .find(|a| a.to_string() == arg)
            .and_then(|a| a.get_env())
            .map(|v| v.to_string_lossy().into_owned()),
        // A value that is not UTF-8 is the one error clap cannot place.
        None => cmd
            .get_arguments()
            .filter_map(|a| a.get_env())
            .find(|v| std::env::var_os(v).is_some_and(|value| value.to_str().is_none()))
            .map(|v| v.to_string_lossy().into_owned()),
    };
    let message = match (e.kind(), std::error::Error::source(&e)) {
        (ErrorKind::InvalidUtf8, _) => "the value is not UTF-8 text".to_string(),
        (_, Some(source)) => source.to_string(),
        (_, None) => e.kind().to_string(),
    };
    bad(var.as_deref().unwrap_or("RALPH_*"), message)
}
