//! Ctrl-C / SIGTERM for the loop, and waits that an interrupt cuts short.
//!
//! The handlers only set a flag (signal-hook); the loop and the process supervisor poll it,
//! forward SIGTERM to the agent's process group, write history, release the lock, exit 130.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Install the handlers; the returned flag turns true on SIGINT or SIGTERM.
pub fn install() -> std::io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, flag.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, flag.clone())?;
    Ok(flag)
}

/// Sleep up to `d`; returns true when interrupted.
pub fn sleep(d: Duration, flag: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        let left = end.saturating_duration_since(Instant::now());
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
    flag.load(Ordering::SeqCst)
}

/// Wait `d` with a countdown line on stderr, refreshed every second; true when interrupted.
pub fn countdown(d: Duration, flag: &AtomicBool, label: &str) -> bool {
    let end = Instant::now() + d;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r{label}: {} left (Ctrl-C to stop)   ",
            super::ratelimit::format_remaining(left + Duration::from_millis(999))
        );
        let _ = err.flush();
        drop(err);
        if left.is_zero() {
            eprintln!();
            return false;
        }
        if sleep(left.min(Duration::from_secs(1)), flag) {
            eprintln!();
            return true;
        }
    }
}
