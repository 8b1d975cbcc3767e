//! Compaction's disk side: read progress.txt, archive the exact original, write the result
//! atomically, append to `.ralph/compaction.log`.
//!
//! Owns the order that makes compaction safe: the archive is written and read back byte for byte
//! before progress.txt is replaced, and progress.txt is replaced only if nobody changed it since
//! it was read. Does not own what the compacted text is (`compact.rs`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::compaction::{Compacted, SummaryMethod};
use crate::fsutil::{self, FsError};

/// Why compaction could not be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProgressError {
    #[error(transparent)]
    Io(#[from] FsError),
    #[error(
        "{}: no such file; `ralph run` creates it (check --root, or create one with a `# Ralph Progress Log` header)",
        path.display()
    )]
    Missing { path: PathBuf },
    #[error(
        "{}: changed while it was being compacted (another process wrote to it); nothing was written, run `ralph compact` again",
        path.display()
    )]
    Changed { path: PathBuf },
    #[error(
        "{}: the archive copy differs from {}; progress.txt was left as it is (check the disk)",
        archive.display(),
        path.display()
    )]
    ArchiveMismatch { path: PathBuf, archive: PathBuf },
}

impl crate::problem::Coded for ProgressError {
    fn problem(&self) -> Option<crate::problem::Problem> {
        use crate::problem::Problem;
        Some(match self {
            ProgressError::Io(f) => return f.problem(),
            ProgressError::Missing { path } => Problem::at("missing", path),
            ProgressError::Changed { path } => Problem::at("changed", path),
            ProgressError::ArchiveMismatch { archive, .. } => {
                Problem::at("archive-mismatch", archive)
            }
        })
    }
}

/// progress.txt as read, with what is needed to notice a concurrent change.
#[derive(Debug, Clone)]
pub(crate) struct Original {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    stamp: Option<(u64, SystemTime)>,
}

fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// Read a progress log; None when the file does not exist.
pub(crate) fn read_if_exists(path: &Path) -> Result<Option<Original>, ProgressError> {
    let before = stamp(path);
    // Never blocks on a FIFO nor reads a device: regular files only, bounded.
    Ok(fsutil::read_if_exists(path)?.map(|bytes| Original {
        path: path.to_path_buf(),
        bytes,
        stamp: before,
    }))
}

/// Read a progress log that must exist.
pub(crate) fn read(path: &Path) -> Result<Original, ProgressError> {
    read_if_exists(path)?.ok_or_else(|| ProgressError::Missing {
        path: path.to_path_buf(),
    })
}

/// What a written compaction did: the loop prints it on its status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    pub lines_before: usize,
    pub lines_after: usize,
    pub entries_compacted: usize,
    /// Where the exact original was saved.
    pub archive: PathBuf,
    pub method: SummaryMethod,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "compacted progress.txt: {} -> {} lines, {} entries summarised, original saved to {}",
            self.lines_before,
            self.lines_after,
            self.entries_compacted,
            self.archive.display()
        )
    }
}

/// `.ralph/` under a root.
pub(crate) fn ralph_dir(root: &Path) -> PathBuf {
    root.join(".ralph")
}

/// An archive path that does not exist yet: `progress-<UTC timestamp>[-N].txt`.
fn archive_path(dir: &Path, now: jiff::Timestamp) -> PathBuf {
    let base = format!("progress-{}", now.strftime("%Y%m%dT%H%M%SZ"));
    let mut path = dir.join(format!("{base}.txt"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{base}-{n}.txt"));
        n += 1;
    }
    path
}

/// Whether the file at `path` holds exactly `want` (read in chunks: no second copy in memory).
fn same_content(path: &Path, want: &[u8]) -> Result<bool, FsError> {
    let err = |source| FsError {
        path: path.to_path_buf(),
        action: "read back",
        source,
    };
    let mut file = std::fs::File::open(path).map_err(err)?;
    let mut buf = vec![0u8; 1 << 16];
    let mut at = 0;
    loop {
        let n = file.read(&mut buf).map_err(err)?;
        if n == 0 {
            return Ok(at == want.len());
        }
        if want.get(at..at + n) != Some(&buf[..n]) {
            return Ok(false);
        }
        at += n;
    }
}

/// Save the exact original as `archive`, checked byte for byte against what was read.
///
/// A hard link when possible: the archive is the very file that was read (no copy of a large log,
/// no second fsync), and the atomic write that follows gives progress.txt a new inode, so the
/// archive never changes afterwards. Otherwise (a symlinked progress.txt, another file system, no
/// hard links) an atomic copy.
fn save_archive(original: &Original, archive: &Path) -> Result<(), ProgressError> {
    let symlink = std::fs::symlink_metadata(&original.path)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(true);
    if !symlink && std::fs::hard_link(&original.path, archive).is_ok() {
        if same_content(archive, &original.bytes)? {
            return Ok(());
        }
        // progress.txt changed since it was read: this link is not the original.
        let _ = std::fs::remove_file(archive);
        return Err(ProgressError::Changed {
            path: original.path.clone(),
        });
    }
    fsutil::atomic_write(archive, &original.bytes)?;
    if let Ok(meta) = std::fs::metadata(&original.path) {
        // Best effort: the copy is readable by whoever could read the original.
        let _ = std::fs::set_permissions(archive, meta.permissions());
    }
    if !same_content(archive, &original.bytes)? {
        return Err(ProgressError::ArchiveMismatch {
            path: original.path.clone(),
            archive: archive.to_path_buf(),
        });
    }
    Ok(())
}

/// Append one line to `.ralph/compaction.log` (an atomic rewrite; a missing log starts empty).
fn append_log(log: &Path, line: &str) -> Result<(), ProgressError> {
    let mut text = match std::fs::read(log) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(source) => {
            return Err(FsError {
                path: log.to_path_buf(),
                action: "read",
                source,
            }
            .into());
        }
    };
    if !text.is_empty() && !text.ends_with(b"\n") {
        text.push(b'\n');
    }
    text.extend_from_slice(line.as_bytes());
    fsutil::atomic_write(log, &text)?;
    Ok(())
}

/// Archive the original, check the copy, replace progress.txt atomically, log the compaction.
pub(crate) fn commit(
    root: &Path,
    original: &Original,
    c: &Compacted,
) -> Result<Summary, ProgressError> {
    let now = jiff::Timestamp::now();
    let ralph = ralph_dir(root);
    let dir = ralph.join("archive");
    fsutil::create_dir_all(&dir)?;
    let archive = archive_path(&dir, now);
    save_archive(original, &archive)?;
    let replaced = if stamp(&original.path) != original.stamp {
        Err(ProgressError::Changed {
            path: original.path.clone(),
        })
    } else {
        fsutil::atomic_write(&original.path, &c.bytes).map_err(ProgressError::from)
    };
    if let Err(e) = replaced {
        // progress.txt was not replaced, so it still holds the original. The archive may be a hard
        // link to it: left behind, the agent's next append would change the "archive" too.
        let _ = std::fs::remove_file(&archive);
        return Err(e);
    }
    let shown = archive
        .strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| archive.clone());
    let s = &c.stats;
    let line = format!(
        "{}\tlines {} -> {}\tentries {}\tarchive {}\tsummary {}\n",
        now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        s.lines_before,
        s.lines_after,
        s.entries_compacted,
        shown.display(),
        s.method
    );
    append_log(&ralph.join("compaction.log"), &line)?;
    Ok(Summary {
        lines_before: s.lines_before,
        lines_after: s.lines_after,
        entries_compacted: s.entries_compacted,
        archive: shown,
        method: s.method.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::compaction::Stats;

    fn compacted(bytes: &[u8]) -> Compacted {
        Compacted {
            bytes: bytes.to_vec(),
            stats: Stats {
                lines_before: 3,
                lines_after: 1,
                entries_compacted: 2,
                entries_kept: 0,
                stories: 2,
                learnings: 0,
                duplicates_merged: 0,
                method: SummaryMethod::Deterministic,
            },
        }
    }

    #[test]
    fn commit_archives_exact_bytes_writes_and_logs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.txt");
        std::fs::write(&path, b"a\r\nb\xff\nc").unwrap();
        let original = read(&path).unwrap();
        let s = commit(dir.path(), &original, &compacted(b"short\n")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"short\n");
        assert_eq!(
            std::fs::read(dir.path().join(&s.archive)).unwrap(),
            b"a\r\nb\xff\nc"
        );
        assert!(s.archive.starts_with(".ralph/archive"));
        let s2 = commit(dir.path(), &read(&path).unwrap(), &compacted(b"x\n")).unwrap();
        assert_ne!(s.archive, s2.archive, "archives never overwrite each other");
        let log = std::fs::read_to_string(dir.path().join(".ralph/compaction.log")).unwrap();
        assert_eq!(log.lines().count(), 2);
        assert!(log.contains("\tlines 3 -> 1\tentries 2\tarchive .ralph/archive/progress-"));
        assert!(s.to_string().contains("3 -> 1 lines"));
    }

    #[test]
    fn a_concurrent_change_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.txt");
        std::fs::write(&path, b"one\n").unwrap();
        let original = read(&path).unwrap();
        std::fs::write(&path, b"one\ntwo, appended by the agent\n").unwrap();
        let err = commit(dir.path(), &original, &compacted(b"x\n")).unwrap_err();
        assert!(matches!(err, ProgressError::Changed { .. }), "{err}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"one\ntwo, appended by the agent\n"
        );
        let archives = dir.path().join(".ralph/archive");
        let left = std::fs::read_dir(&archives).map(|d| d.count()).unwrap_or(0);
        assert_eq!(
            left, 0,
            "a refused compaction leaves no archive linked to the live file"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_log_is_archived_by_copy() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real-progress.txt");
        std::fs::write(&real, b"original\xff\r\n").unwrap();
        let path = dir.path().join("progress.txt");
        std::os::unix::fs::symlink(&real, &path).unwrap();
        let s = commit(dir.path(), &read(&path).unwrap(), &compacted(b"x\n")).unwrap();
        let archive = dir.path().join(&s.archive);
        assert!(
            !std::fs::symlink_metadata(&archive)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&archive).unwrap(), b"original\xff\r\n");
        assert_eq!(std::fs::read(&path).unwrap(), b"x\n");
    }

    #[test]
    fn missing_file_is_none_or_a_named_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.txt");
        assert!(read_if_exists(&path).unwrap().is_none());
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("progress.txt: no such file"), "{err}");
    }
}
