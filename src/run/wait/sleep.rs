//! Waits that an interrupt cuts short: the `--sleep` between iterations and the countdown of a
//! rate-limit wait (its cadence is the heartbeat's, [`super::watch`]). The flag they watch is
//! the one [`super::signals`] sets.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::watch::{Beat, Cadence, countdown_line};

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
