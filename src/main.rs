//! The `ralph` binary: parse arguments, run the command, map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

// mimalloc: prd.json, Pin and progress.txt handling is allocation-heavy (a Value per JSON node);
// glibc malloc/free were a third of `ralph validate`'s instructions on a 10k-story file.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = ralph::cli::Cli::parse();
    if !cli.command.supervises() {
        // `ralph status | head -1`: a closed pipe ends a read command quietly, as it ends
        // `cat`, instead of a panic in println!. The loop keeps SIGPIPE ignored: it must
        // outlive a closed terminal pipe to stop its agent and write history.
        // SAFETY: restoring the default disposition of one signal before any thread starts.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    match ralph::cli::dispatch(cli) {
        Ok(code) => ExitCode::from(code.as_u8()),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(ralph::exit::Code::from_error(&err).as_u8())
        }
    }
}
