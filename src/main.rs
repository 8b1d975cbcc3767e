//! The `ralph` binary: parse arguments, run the command, map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = ralph::cli::Cli::parse();
    match ralph::cli::dispatch(cli) {
        Ok(code) => ExitCode::from(code.as_u8()),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(ralph::exit::Code::from_error(&err).as_u8())
        }
    }
}
