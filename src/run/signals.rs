//! Ctrl-C / SIGTERM / SIGHUP for the loop, and waits that an interrupt cuts short.
//!
//! The handlers only set a flag (signal-hook); the loop and the process supervisor poll it,
//! forward SIGTERM to the agent's process group, write history, release the lock, exit 130
//! (129 after SIGHUP). A hang-up also points stdout and stderr at /dev/null (dup2, which is
//! async-signal-safe): the terminal is gone, and a write to it must not fail or panic.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::watch::{Beat, Cadence, countdown_line};

static HUNG_UP: AtomicBool = AtomicBool::new(false);

/// Whether a SIGHUP arrived.
pub(crate) fn hung_up() -> bool {
    HUNG_UP.load(Ordering::SeqCst)
}

/// Install the handlers; the returned flag turns true on SIGINT, SIGTERM or SIGHUP.
pub(crate) fn install() -> std::io::Result<Arc<AtomicBool>> {
    use std::os::fd::IntoRawFd;
    let flag = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, flag.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, flag.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGHUP, flag.clone())?;
    // Opened now: the handler itself may only make async-signal-safe calls.
    let null = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")?
        .into_raw_fd();
    // SAFETY: the handler only stores to an atomic and calls dup2(2), both async-signal-safe;
    // `null` stays open for the life of the process.
    unsafe {
        signal_hook::low_level::register(signal_hook::consts::SIGHUP, move || {
            HUNG_UP.store(true, Ordering::SeqCst);
            libc::dup2(null, 1);
            libc::dup2(null, 2);
        })?;
    }
    Ok(flag)
}

/// Longest single wait (keeps `Instant` arithmetic far from overflow on absurd inputs).
const MAX_WAIT: Duration = Duration::from_secs(366 * 24 * 3600);

/// Sleep up to `d`; returns true when interrupted.
pub(crate) fn sleep(d: Duration, flag: &AtomicBool) -> bool {
    let end = Instant::now() + d.min(MAX_WAIT);
    while Instant::now() < end {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        let left = end.saturating_duration_since(Instant::now());
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
    flag.load(Ordering::SeqCst)
}

/// Wait `d` with a countdown on stderr, as `cadence` says (see [`super::watch`]): on a
/// terminal one line refreshed in place every second, else a line at the start and one per
/// interval (a log file gets no `\r` spinner). True when interrupted.
pub(crate) fn countdown(d: Duration, flag: &AtomicBool, label: &str, cadence: Cadence) -> bool {
    let start = Instant::now();
    let end = start + d.min(MAX_WAIT);
    let mut beat = Beat::now();
    let interrupted = loop {
        let left = end.saturating_duration_since(Instant::now());
        // A wait is all silence: the cadence alone decides.
        if beat.due(&cadence, start.elapsed(), Duration::MAX) {
            let line = countdown_line(label, left);
            if cadence.live {
                crate::ui::transient(&line);
            } else {
                crate::ui::clear_transient();
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            }
        }
        if left.is_zero() {
            break false;
        }
        if sleep(left.min(Duration::from_millis(200)), flag) {
            break true;
        }
    };
    crate::ui::clear_transient();
    interrupted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeps_end_early_on_interrupt_and_never_overflow() {
        let flag = AtomicBool::new(true);
        assert!(sleep(Duration::MAX, &flag));
        let plain = Cadence::new(false, Duration::from_secs(60));
        assert!(countdown(Duration::MAX, &flag, "t", plain));
        let calm = AtomicBool::new(false);
        assert!(!sleep(Duration::from_millis(5), &calm));
        assert!(!countdown(Duration::ZERO, &calm, "t", plain));
    }
}
