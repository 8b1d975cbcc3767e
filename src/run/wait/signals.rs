//! Ctrl-C / SIGTERM / SIGHUP for the loop: the flag an interrupt sets, and whether the terminal
//! hung up. The waits an interrupt cuts short are [`super::sleep`].
//!
//! The handlers only set a flag (signal-hook); the loop and the process supervisor poll it,
//! forward SIGTERM to the agent's process group, write history, release the lock, exit 130
//! (129 after SIGHUP). A hang-up also points stdout and stderr at /dev/null (dup2, which is
//! async-signal-safe): the terminal is gone, and a write to it must not fail or panic.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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
