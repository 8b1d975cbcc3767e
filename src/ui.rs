//! Terminal output policy: whether to colour, how much to say, and the styles ralph uses.
//!
//! Owns the one decision about colour (`--color auto|always|never`, handed to `anstream`, which
//! honours `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE` and whether the stream is a terminal, and
//! strips the escape codes when colour is off), the verbosity (`-q`, `-v`), the `tracing` filter
//! that follows from them (`RALPH_LOG`), and the named styles (errors, warnings, story states,
//! loop outcomes). Text is written styled and printed through `anstream`'s macros; nothing else
//! writes escape codes. Also owns stderr's one transient line ([`transient`]: a heartbeat or a
//! countdown refreshed in place on a terminal) or block ([`transient_block`]: a parallel run's
//! status lines), which every other write to stderr clears first ([`clear_transient`]), and what text from a file or an agent may reach a terminal
//! ([`printable`]). Does not decide what a command prints: the commands do.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

use anstyle::{AnsiColor, Style};

pub use anstream;

/// How much ralph says besides a command's result and its errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// `-q`: only results and errors: no notes, warnings or progress lines.
    Quiet,
    /// The default.
    Normal,
    /// `-v` (debug events on stderr) and `-vv` (trace events).
    Verbose(u8),
}

impl Verbosity {
    /// From the `-q` and `-v` counts (clap makes them exclusive).
    pub fn from_flags(quiet: bool, verbose: u8) -> Verbosity {
        match (quiet, verbose) {
            (true, _) => Verbosity::Quiet,
            (false, 0) => Verbosity::Normal,
            (false, n) => Verbosity::Verbose(n),
        }
    }
}

const QUIET: u8 = 0;
const NORMAL: u8 = 1;
const VERBOSE: u8 = 2;

static LEVEL: AtomicU8 = AtomicU8::new(NORMAL);

/// Set the process-wide colour choice and verbosity; called once by the binary before any
/// output.
pub fn init(color: clap::ColorChoice, verbosity: Verbosity) {
    let choice = match color {
        clap::ColorChoice::Auto => anstream::ColorChoice::Auto,
        clap::ColorChoice::Always => anstream::ColorChoice::Always,
        clap::ColorChoice::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
    LEVEL.store(
        match verbosity {
            Verbosity::Quiet => QUIET,
            Verbosity::Normal => NORMAL,
            Verbosity::Verbose(_) => VERBOSE,
        },
        Ordering::Relaxed,
    );
}

/// `-q` was given: say nothing but results and errors.
pub fn quiet() -> bool {
    LEVEL.load(Ordering::Relaxed) == QUIET
}

/// Whether text written to stderr keeps its colour (for the `tracing` subscriber, which writes
/// its own escape codes).
pub fn stderr_has_color() -> bool {
    anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
}

/// The `tracing` filter: `-q` errors only, `-v` ralph's debug events, `-vv` its trace events;
/// otherwise `RALPH_LOG` (an `EnvFilter` directive such as `debug` or `ralph::config=debug`),
/// else warnings.
pub fn log_filter(verbosity: Verbosity, ralph_log: Option<&str>) -> String {
    match verbosity {
        Verbosity::Quiet => "error".into(),
        Verbosity::Verbose(1) => "ralph=debug".into(),
        Verbosity::Verbose(_) => "ralph=trace".into(),
        Verbosity::Normal => ralph_log
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("warn")
            .to_string(),
    }
}

/// Print a line of chatter (notes, warnings, progress) to stderr unless `-q` was given.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        if !$crate::ui::quiet() {
            $crate::ui::clear_transient();
            $crate::ui::anstream::eprintln!($($arg)*);
        }
    };
}

/// Whether a transient line is on stderr now.
static TRANSIENT: AtomicBool = AtomicBool::new(false);

/// The widest transient line: one that wraps could not be rewritten in place.
pub const TRANSIENT_WIDTH: usize = 78;

/// Show `line` in place of the previous transient line on stderr (a terminal): carriage
/// return, the line (plain text, cut to [`TRANSIENT_WIDTH`] characters), clear to the end of
/// the line, no newline. Write errors (a closed stderr) are ignored.
pub fn transient(line: &str) {
    let line = shown(line);
    let block = erase(false, BLOCK.swap(0, Ordering::SeqCst));
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{block}\r{line}\x1b[K").and_then(|()| err.flush());
    TRANSIENT.store(true, Ordering::SeqCst);
}

/// How many lines the transient block on stderr has (0: none shown).
static BLOCK: AtomicUsize = AtomicUsize::new(0);

/// Clear the transient line or block, if one is shown, so the next write starts on a clean
/// line.
pub fn clear_transient() {
    let line = TRANSIENT.swap(false, Ordering::SeqCst);
    let block = BLOCK.swap(0, Ordering::SeqCst);
    if line || block > 0 {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{}", erase(line, block)).and_then(|()| err.flush());
    }
}

/// The escape codes that erase a transient line (`line`) and a block of `block` lines above
/// the cursor.
fn erase(line: bool, block: usize) -> String {
    let mut s = String::new();
    if line {
        s.push_str("\r\x1b[2K");
    }
    if block > 0 {
        s.push_str(&format!("\x1b[{block}F\x1b[J"));
    }
    s
}

/// One transient line as shown: control characters blanked, cut to [`TRANSIENT_WIDTH`].
fn shown(line: &str) -> String {
    line.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(TRANSIENT_WIDTH)
        .collect()
}

/// Show `lines` in place of the previous transient line or block on stderr (a terminal): the
/// old one erased, each line (plain text, cut to [`TRANSIENT_WIDTH`]) on its own row, the
/// cursor left below them. The parallel run's status lines, one per claim, redrawn each
/// second. Write errors (a closed stderr) are ignored.
pub fn transient_block(lines: &[String]) {
    let mut text = erase(
        TRANSIENT.swap(false, Ordering::SeqCst),
        BLOCK.load(Ordering::SeqCst),
    );
    for l in lines {
        text.push_str(&shown(l));
        text.push_str("\x1b[K\n");
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{text}").and_then(|()| err.flush());
    BLOCK.store(lines.len(), Ordering::SeqCst);
}

/// `text` wrapped in `style` (its escape codes; `anstream` strips them when colour is off).
pub fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// "error" in diagnostics and the top-level error line.
pub const ERROR: Style = AnsiColor::Red.on_default().bold();
/// "warning" in diagnostics.
pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
/// A hint line's label.
pub const HINT: Style = AnsiColor::Cyan.on_default();
/// Success: a passing story, a finished run.
pub const GOOD: Style = AnsiColor::Green.on_default();
/// A story ready to run.
pub const READY: Style = AnsiColor::Cyan.on_default();
/// Waiting: a blocked story, a rate limit.
pub const WAITING: Style = AnsiColor::Yellow.on_default();
/// Out of the way: a removed story.
pub const DIM: Style = Style::new().dimmed();
/// A failure that is not ralph's error: a failed gate, a failed agent.
pub const BAD: Style = AnsiColor::Red.on_default();

/// The style of a story state's name (`done`, `ready`, `blocked`, `removed`).
pub fn state_style(state: &str) -> Style {
    match state {
        "done" => GOOD,
        "ready" => READY,
        "blocked" => WAITING,
        "removed" => DIM,
        _ => Style::new(),
    }
}

/// `s` without control characters: text read from a file or an agent (a story id, a reason)
/// must not move the cursor or recolour a terminal (`\x1b[…`), nor break a table's row.
pub fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// [`printable`] for text of several lines: its newlines are kept.
pub fn printable_lines(s: &str) -> String {
    s.split('\n').map(printable).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_pick_the_filter_and_beat_ralph_log() {
        assert_eq!(log_filter(Verbosity::Normal, None), "warn");
        assert_eq!(log_filter(Verbosity::Normal, Some(" ")), "warn");
        assert_eq!(log_filter(Verbosity::Normal, Some("debug")), "debug");
        assert_eq!(log_filter(Verbosity::Quiet, Some("debug")), "error");
        assert_eq!(log_filter(Verbosity::Verbose(1), None), "ralph=debug");
        assert_eq!(
            log_filter(Verbosity::Verbose(3), Some("warn")),
            "ralph=trace"
        );
        assert_eq!(Verbosity::from_flags(true, 0), Verbosity::Quiet);
        assert_eq!(Verbosity::from_flags(false, 0), Verbosity::Normal);
        assert_eq!(Verbosity::from_flags(false, 2), Verbosity::Verbose(2));
    }

    #[test]
    fn a_transient_line_or_block_is_erased_in_place() {
        assert_eq!(erase(false, 0), "");
        assert_eq!(erase(true, 0), "\r\x1b[2K");
        // Up to the block's first row, then everything below it.
        assert_eq!(erase(false, 3), "\x1b[3F\x1b[J");
        assert_eq!(shown("a\tb\x1b[31m"), "a b [31m");
        assert_eq!(shown(&"x".repeat(100)).chars().count(), TRANSIENT_WIDTH);
    }

    #[test]
    fn painted_text_strips_back_to_the_text() {
        let s = paint(ERROR, "error");
        assert_ne!(s, "error");
        assert_eq!(anstream::adapter::strip_str(&s).to_string(), "error");
        assert_eq!(paint(Style::new(), "plain"), "plain");
    }
}
