//! The `ralph` binary: parse arguments, set up colour and logging, run the command, map the
//! outcome to an exit code.

use std::process::ExitCode;

// mimalloc: prd.json, Pin and progress.txt handling is allocation-heavy (a Value per JSON node);
// glibc malloc/free were a third of `ralph validate`'s instructions on a 10k-story file.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // clap's parse, except that a usage error with `--json` is a JSON envelope on stdout.
    let cli = ralph::cli::parse();
    if !cli.command.supervises() {
        // `ralph status | head -1`: a closed pipe ends a read command quietly, as it ends
        // `cat`, instead of a panic in println!. The loop keeps SIGPIPE ignored: it must
        // outlive a closed terminal pipe to stop its agent and write history.
        // SAFETY: restoring the default disposition of one signal before any thread starts.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    let verbosity = cli.verbosity();
    ralph::ui::init(cli.color, verbosity);
    let directive = ralph::ui::log_filter(verbosity, std::env::var("RALPH_LOG").ok().as_deref());
    let filter = tracing_subscriber::EnvFilter::try_new(&directive).unwrap_or_else(|e| {
        ralph::say!("warning: RALPH_LOG={directive}: {e}; logging warnings only");
        tracing_subscriber::EnvFilter::new("warn")
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ralph::ui::stderr_has_color())
        .with_target(false)
        .without_time()
        .init();
    let json = ralph::cli::json_command(&cli.command);
    match ralph::cli::dispatch(cli) {
        Ok(code) => ExitCode::from(code.as_u8()),
        Err(err) => {
            // `error: …` on stderr, or with `--json` the envelope on stdout; same exit code.
            ralph::cli::envelope::report_error(json, &err);
            ExitCode::from(ralph::exit::Code::from_error(&err).as_u8())
        }
    }
}
