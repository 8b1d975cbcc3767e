//! File-system helpers every module shares: atomic writes, and reads that never block and never
//! run away.
//!
//! Owns how bytes reach disk and come back: a read opens without blocking (`O_NONBLOCK`, so a
//! FIFO put in place of a file cannot hang ralph), refuses anything that is not a regular file
//! (a directory, a FIFO, a device such as /dev/zero) and stops at [`MAX_READ`] bytes.
//! [`inspect`] says what sits at a path without following a symlink. Not what the bytes mean.

use std::io::Write;
use std::path::{Path, PathBuf};

/// An I/O failure on a named file.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {action}: {source}")]
pub struct FsError {
    pub path: PathBuf,
    pub action: &'static str,
    #[source]
    pub source: std::io::Error,
}

impl crate::problem::Coded for FsError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        Some(crate::problem::Problem::at("io", &self.path))
    }
}

/// The `map_err` that names `path` and what was being done to it.
pub(crate) fn fs_err<'a>(
    path: &'a Path,
    action: &'static str,
) -> impl FnOnce(std::io::Error) -> FsError + 'a {
    move |source| FsError {
        path: path.to_path_buf(),
        action,
        source,
    }
}

/// A temp file (named [`TEMP_PREFIX`]…) in `path`'s directory, to be renamed over it.
fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile, FsError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(fs_err(path, "create temp file"))
}

/// Rename `tmp` over `path`.
fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> Result<(), FsError> {
    tmp.persist(path).map_err(|e| FsError {
        path: path.to_path_buf(),
        action: "rename temp file into place",
        source: e.error,
    })?;
    Ok(())
}

/// Write `bytes` to `path` atomically: a temp file in the same directory, flushed and synced, then
/// renamed over the target. A crash at any moment leaves either the old or the new content.
/// Keeps the existing file's permissions.
pub(crate) fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), FsError> {
    injected_failure(path)?;
    let mut tmp = temp_beside(path)?;
    tmp.write_all(bytes)
        .map_err(fs_err(path, "write temp file"))?;
    tmp.as_file()
        .sync_all()
        .map_err(fs_err(path, "sync temp file"))?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Best effort: a file we cannot chmod still gets written.
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    persist(tmp, path)
}

/// Write a cache file: a temp file in the same directory, renamed over the target, without
/// waiting for the disk (no sync). Only for files whose reader checks every byte it uses (the
/// index, `.ralph/code-index.bin`): after a crash such a file may be torn, and is then rebuilt,
/// never trusted. Syncing a large cache would cost more than rebuilding it. The file's bytes
/// are `parts`, one after the other.
pub(crate) fn replace_cache(path: &Path, parts: &[&[u8]]) -> Result<(), FsError> {
    injected_failure(path)?;
    let mut tmp = temp_beside(path)?;
    for part in parts {
        tmp.write_all(part)
            .map_err(fs_err(path, "write temp file"))?;
    }
    persist(tmp, path)
}

/// Debug builds only (the integration tests' disk-full faults): `RALPH_TEST_FAIL_WRITE=<name>`
/// makes every atomic write to a file of that name fail as if the disk were full. Release
/// builds compile this to nothing.
fn injected_failure(path: &Path) -> Result<(), FsError> {
    #[cfg(debug_assertions)]
    if let Some(name) = std::env::var_os("RALPH_TEST_FAIL_WRITE")
        && path.file_name() == Some(name.as_os_str())
    {
        return Err(FsError {
            path: path.to_path_buf(),
            action: "write temp file",
            source: std::io::Error::from_raw_os_error(libc::ENOSPC),
        });
    }
    let _ = path;
    Ok(())
}

/// The most ralph reads from one file (prd.json, progress.txt, the Pin, history): far above any
/// real one, far below what a runaway read would eat.
pub(crate) const MAX_READ: u64 = 256 * 1024 * 1024;

/// Read a whole regular file as bytes, naming the file on failure. Symlinks are followed (a
/// read is harmless); a FIFO, device, socket or directory at the end is an error, never a hang
/// or an endless read, and so is a file over [`MAX_READ`].
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, FsError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(fs_err(path, "read"))?;
    let meta = f.metadata().map_err(fs_err(path, "read"))?;
    if !meta.is_file() {
        return Err(FsError {
            path: path.to_path_buf(),
            action: "read",
            source: std::io::Error::other(format!(
                "not a regular file ({}); move it aside and put the file back",
                kind_name(&meta.file_type())
            )),
        });
    }
    let mut out = Vec::with_capacity(meta.len().min(MAX_READ) as usize);
    f.take(MAX_READ + 1)
        .read_to_end(&mut out)
        .map_err(fs_err(path, "read"))?;
    if out.len() as u64 > MAX_READ {
        return Err(FsError {
            path: path.to_path_buf(),
            action: "read",
            source: std::io::Error::other(format!(
                "larger than {} MiB; ralph reads no more than that",
                MAX_READ / 1024 / 1024
            )),
        });
    }
    Ok(out)
}

/// Read a regular file, `None` when nothing is there.
pub(crate) fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>, FsError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => read(path).map(Some),
    }
}

/// A readable name for a file type: "a directory", "a FIFO", "a symlink", ….
pub(crate) fn kind_name(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symlink"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_file() {
        "a regular file"
    } else {
        "an unknown kind of file"
    }
}

/// What sits at a path, looked at without following a symlink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    Missing,
    /// A regular file and its bytes (read with [`read`]'s limits).
    Regular(Vec<u8>),
    /// Anything else: a directory, FIFO, device, socket, or a symlink (whatever it points at).
    Foreign(&'static str),
}

/// Look at `path` without following a symlink and without blocking.
pub(crate) fn inspect(path: &Path) -> Result<Entry, FsError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Entry::Missing),
        Err(source) => {
            return Err(FsError {
                path: path.to_path_buf(),
                action: "inspect",
                source,
            });
        }
    };
    if !meta.file_type().is_file() {
        return Ok(Entry::Foreign(kind_name(&meta.file_type())));
    }
    match read(path) {
        Ok(b) => Ok(Entry::Regular(b)),
        // Swapped between the two looks: report what is there now.
        Err(e) if e.source.kind() == std::io::ErrorKind::Other => {
            match std::fs::symlink_metadata(path) {
                // Still a regular file: the error (too large) stands; it is not foreign.
                Ok(m) if m.file_type().is_file() => Err(e),
                Ok(m) => Ok(Entry::Foreign(kind_name(&m.file_type()))),
                Err(_) => Ok(Entry::Missing),
            }
        }
        Err(e) => Err(e),
    }
}

/// The prefix of [`atomic_write`]'s temp files.
pub(crate) const TEMP_PREFIX: &str = ".ralph-tmp-";

/// Remove the temp files interrupted writes left in `dir` (a SIGKILL between create and
/// rename). Only for a caller that holds the project lock: nobody else writes there then.
/// Returns how many bytes were freed.
pub(crate) fn sweep_temp_files(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut freed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let is_temp = name.to_str().is_some_and(|n| n.starts_with(TEMP_PREFIX));
        if let (true, Ok(meta)) = (is_temp, e.metadata())
            && meta.is_file()
            && std::fs::remove_file(e.path()).is_ok()
        {
            freed += meta.len();
        }
    }
    freed
}

/// Create a directory and its parents, naming it on failure.
pub(crate) fn create_dir_all(path: &Path) -> Result<(), FsError> {
    std::fs::create_dir_all(path).map_err(fs_err(path, "create directory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        atomic_write(&path, b"one").unwrap();
        atomic_write(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn an_oversized_regular_file_is_an_error_not_a_foreign_object() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("progress.txt");
        // Sparse: no disk is used for the zeros.
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_READ + 1)
            .unwrap();
        let err = inspect(&big).unwrap_err().to_string();
        assert!(
            err.contains("larger than") && err.contains("progress.txt"),
            "{err}"
        );
    }

    #[test]
    fn reads_refuse_fifos_devices_and_directories_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("prd.json");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let err = read(&fifo).unwrap_err().to_string();
        assert!(err.contains("a FIFO") && err.contains("prd.json"), "{err}");
        assert_eq!(inspect(&fifo).unwrap(), Entry::Foreign("a FIFO"));
        assert!(
            read(Path::new("/dev/zero"))
                .unwrap_err()
                .to_string()
                .contains("character device")
        );
        assert!(
            read(dir.path())
                .unwrap_err()
                .to_string()
                .contains("a directory")
        );
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/etc/hostname", &link).unwrap();
        assert_eq!(inspect(&link).unwrap(), Entry::Foreign("a symlink"));
        assert_eq!(inspect(&dir.path().join("none")).unwrap(), Entry::Missing);
        assert_eq!(read_if_exists(&dir.path().join("none")).unwrap(), None);
        std::fs::write(dir.path().join("f"), b"x").unwrap();
        assert_eq!(
            inspect(&dir.path().join("f")).unwrap(),
            Entry::Regular(b"x".to_vec())
        );
    }

    #[test]
    fn sweeping_removes_only_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".ralph-tmp-abc"), b"12345").unwrap();
        std::fs::write(dir.path().join("prd.json"), b"{}").unwrap();
        std::fs::create_dir(dir.path().join(".ralph-tmp-dir")).unwrap();
        assert_eq!(sweep_temp_files(dir.path()), 5);
        assert!(dir.path().join("prd.json").exists());
        assert!(!dir.path().join(".ralph-tmp-abc").exists());
        assert_eq!(sweep_temp_files(&dir.path().join("none")), 0);
    }

    #[test]
    fn read_error_names_the_file() {
        let err = read(Path::new("/nonexistent/ralph/prd.json")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/ralph/prd.json"));
    }
}
