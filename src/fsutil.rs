//! File-system helpers every module shares: atomic writes and reading with a path in the error.
//!
//! Owns how bytes reach disk; not what they mean.

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

fn fs_err<'a>(path: &'a Path, action: &'static str) -> impl FnOnce(std::io::Error) -> FsError + 'a {
    move |source| FsError {
        path: path.to_path_buf(),
        action,
        source,
    }
}

/// Write `bytes` to `path` atomically: a temp file in the same directory, flushed and synced, then
/// renamed over the target. A crash at any moment leaves either the old or the new content.
/// Keeps the existing file's permissions.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), FsError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".ralph-tmp-")
        .tempfile_in(dir)
        .map_err(fs_err(path, "create temp file"))?;
    tmp.write_all(bytes)
        .map_err(fs_err(path, "write temp file"))?;
    tmp.as_file()
        .sync_all()
        .map_err(fs_err(path, "sync temp file"))?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Best effort: a file we cannot chmod still gets written.
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(path).map_err(|e| FsError {
        path: path.to_path_buf(),
        action: "rename temp file into place",
        source: e.error,
    })?;
    Ok(())
}

/// Read a whole file as bytes, naming the file on failure.
pub fn read(path: &Path) -> Result<Vec<u8>, FsError> {
    std::fs::read(path).map_err(fs_err(path, "read"))
}

/// Create a directory and its parents, naming it on failure.
pub fn create_dir_all(path: &Path) -> Result<(), FsError> {
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
    fn read_error_names_the_file() {
        let err = read(Path::new("/nonexistent/ralph/prd.json")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/ralph/prd.json"));
    }
}
