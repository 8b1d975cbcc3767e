//! The project lock `.ralph/lock`: one `ralph run` per project at a time.
//!
//! An advisory `flock` held for the whole run (the kernel drops it if ralph dies, so a crash
//! never wedges the project); the file holds the owner's pid so a second run can name it, and
//! a pid left by a dead process is reported when the lock is taken over.

use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "{path}: another ralph run (pid {pid}) holds the project lock; wait for it to finish or stop it (kill {pid})"
    )]
    Held { path: PathBuf, pid: String },
    #[error("{path}: cannot use the lock file: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A held lock; released (file emptied, flock dropped) on drop.
#[derive(Debug)]
pub struct Lock {
    file: std::fs::File,
    pub path: PathBuf,
    /// The pid of a dead process whose lock was taken over.
    pub took_over_from: Option<String>,
}

fn pid_alive(pid: &str) -> bool {
    let Ok(n) = pid.trim().parse::<i32>() else {
        return false;
    };
    if n <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks for existence.
    let r = unsafe { libc::kill(n, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

impl Lock {
    pub fn acquire(state_dir: &Path) -> Result<Lock, LockError> {
        let path = state_dir.join("lock");
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(state_dir).map_err(io)?;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut previous = String::new();
        // SAFETY: flock on a descriptor we own.
        let got = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        let _ = file.read_to_string(&mut previous);
        let previous = previous.trim().to_string();
        if !got {
            return Err(LockError::Held {
                path,
                pid: if previous.is_empty() {
                    "unknown".into()
                } else {
                    previous
                },
            });
        }
        let me = std::process::id().to_string();
        let took_over_from =
            (!previous.is_empty() && previous != me && !pid_alive(&previous)).then_some(previous);
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        file.write_all(format!("{me}\n").as_bytes()).map_err(io)?;
        let _ = file.sync_all();
        Ok(Lock {
            file,
            path,
            took_over_from,
        })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        // SAFETY: unlocking our own descriptor.
        unsafe {
            libc::flock(self.file.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_fails_naming_the_pid_and_stale_pid_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let first = Lock::acquire(dir.path()).unwrap();
        assert_eq!(first.took_over_from, None);
        let err = Lock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("lock")).unwrap(),
            ""
        );
        // A pid that cannot be alive (beyond pid_max) left behind by a crash.
        std::fs::write(dir.path().join("lock"), "99999999\n").unwrap();
        let again = Lock::acquire(dir.path()).unwrap();
        assert_eq!(again.took_over_from.as_deref(), Some("99999999"));
    }
}
