//! The project lock: one writer of prd.json, progress.txt and `.ralph/` per project at a time
//! (`ralph run`, `ralph compact`, `ralph clean`, every command that writes them).
//!
//! An advisory `flock` on the project root directory itself, held for the whole command: the
//! kernel drops it if ralph dies (a crash never wedges the project), and an agent deleting
//! `.ralph/` cannot release it (a lock on a file inside `.ralph/` would be gone with the
//! directory, and a second run would start). `.ralph/lock` holds the owner's pid so a second
//! command can name it; a pid left by a dead process is reported when the lock is taken over.
//! Owns taking and releasing the lock; does not decide which commands take it (each does).

use std::io::{Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LockError {
    #[error(
        "{path}: another ralph (pid {pid}) holds the project lock (ralph run, compact, clean and patterns forget take it); wait for it to finish or stop it (kill {pid})"
    )]
    Held { path: PathBuf, pid: String },
    #[error("{path}: cannot use the lock file: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl crate::problem::Coded for LockError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        use crate::problem::Problem;
        Some(match self {
            LockError::Held { path, .. } => Problem::at("locked", path),
            LockError::Io { path, .. } => Problem::at("io", path),
        })
    }
}

/// A held lock; released (pid file emptied, flock dropped) on drop.
#[derive(Debug)]
pub(crate) struct Lock {
    dir: std::fs::File,
    file: Option<std::fs::File>,
    pub path: PathBuf,
    /// The pid of a dead process whose lock was taken over.
    pub took_over_from: Option<String>,
}

pub(crate) fn pid_alive(pid: &str) -> bool {
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

/// The pid recorded in the lock file ("" when there is none or it is not a regular file:
/// a FIFO put there must not hang the run).
fn read_pid(path: &Path) -> String {
    crate::fsutil::read(path).map_or_else(
        |_| String::new(),
        |b| {
            String::from_utf8_lossy(&b[..b.len().min(64)])
                .trim()
                .to_string()
        },
    )
}

/// The pid the project lock at `root` names: its holder's, or, after a SIGKILL, the killed
/// holder's until the next command takes the lock (a clean release empties the file). `None`
/// when it names none.
pub(crate) fn holder(root: &Path) -> Option<String> {
    let pid = read_pid(&super::state_dir(root).join("lock"));
    (!pid.is_empty()).then_some(pid)
}

impl Lock {
    /// Take the lock of the project at `root` (state in `root/.ralph`).
    pub(crate) fn acquire(root: &Path) -> Result<Lock, LockError> {
        let state_dir = super::state_dir(root);
        let path = state_dir.join("lock");
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let dir = std::fs::File::open(if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            root
        })
        .map_err(io)?;
        // SAFETY: flock on a descriptor we own.
        let got = unsafe { libc::flock(dir.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        let previous = read_pid(&path);
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
        std::fs::create_dir_all(&state_dir).map_err(io)?;
        // Nobody else writes here while we hold the lock: temp files are left by killed writes.
        crate::fsutil::sweep_temp_files(root);
        crate::fsutil::sweep_temp_files(&state_dir);
        let me = std::process::id().to_string();
        let took_over_from =
            (!previous.is_empty() && previous != me && !pid_alive(&previous)).then_some(previous);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        file.write_all(format!("{me}\n").as_bytes()).map_err(io)?;
        let _ = file.sync_all();
        Ok(Lock {
            dir,
            file: Some(file),
            path,
            took_over_from,
        })
    }
}

impl Lock {
    /// Remove the temp files killed writes left beside `file` when it lives outside the root
    /// (`--prd sub/prd.json`); `acquire` sweeps the root and `.ralph/`. Holding the lock is what
    /// makes this safe: nobody else writes there meanwhile.
    pub(crate) fn sweep_beside(&self, file: &Path) {
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::fsutil::sweep_temp_files(dir);
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Empty the pid file only if it is still ours (an agent may have replaced `.ralph/`).
        if read_pid(&self.path) == std::process::id().to_string()
            && let Some(f) = &self.file
        {
            let _ = f.set_len(0);
        }
        self.file = None;
        // SAFETY: unlocking our own descriptor.
        unsafe {
            libc::flock(self.dir.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_in_place_of_the_lock_file_reads_as_no_pid_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("lock");
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert_eq!(read_pid(&path), "");
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "1234\n").unwrap();
        assert_eq!(read_pid(&path), "1234");
    }

    #[test]
    fn second_lock_fails_naming_the_pid_and_stale_pid_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let first = Lock::acquire(dir.path()).unwrap();
        assert_eq!(first.took_over_from, None);
        let err = Lock::acquire(dir.path()).unwrap_err().to_string();
        assert!(err.contains(".ralph/lock"), "{err}");
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".ralph/lock")).unwrap(),
            ""
        );
        // A pid that cannot be alive (beyond pid_max) left behind by a crash.
        std::fs::write(dir.path().join(".ralph/lock"), "99999999\n").unwrap();
        let again = Lock::acquire(dir.path()).unwrap();
        assert_eq!(again.took_over_from.as_deref(), Some("99999999"));
    }

    #[test]
    fn deleting_the_state_dir_does_not_release_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let held = Lock::acquire(dir.path()).unwrap();
        std::fs::remove_dir_all(dir.path().join(".ralph")).unwrap();
        let err = Lock::acquire(dir.path()).unwrap_err().to_string();
        assert!(err.contains("pid unknown"), "{err}");
        drop(held);
        Lock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn temp_files_of_killed_writes_are_swept_beside_a_prd_in_a_subfolder() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let left = sub.join(format!("{}abc", crate::fsutil::TEMP_PREFIX));
        std::fs::write(&left, "half a prd.json").unwrap();
        std::fs::write(sub.join("prd.json"), "{}").unwrap();
        let lock = Lock::acquire(dir.path()).unwrap();
        assert!(left.exists(), "acquire sweeps the root and .ralph/ only");
        lock.sweep_beside(&sub.join("prd.json"));
        assert!(!left.exists());
        assert!(sub.join("prd.json").exists());
        // A bare file name (relative to the working directory) sweeps nothing and never fails.
        lock.sweep_beside(Path::new("prd.json"));
    }
}
