//! `.ralph/rejected/`: every version of a file ralph reverted, and every foreign object (a
//! directory, FIFO, device or symlink put where prd.json or progress.txt belongs) it moved out of
//! the way. Nothing ralph reverts is thrown away: the messages name the kept copy and say how to
//! re-apply it.
//!
//! Owns the names (`<time>-iter<n>-<file>`, never overwriting) and the two ways in: a copy of
//! bytes, or a rename of whatever sits at a path (a rename moves a symlink itself, never what it
//! points at, and needs no new disk space). Does not decide what is rejected (the run's
//! integrity guard, `crate::run::guard`).

use std::path::{Path, PathBuf};

use crate::fsutil::{self, FsError};

/// The directory, under the state dir.
pub(crate) fn dir(state_dir: &Path) -> PathBuf {
    state_dir.join("rejected")
}

/// A free name for `file` rejected in iteration `n`.
fn free_name(state_dir: &Path, n: u32, file: &str) -> Result<PathBuf, FsError> {
    let d = dir(state_dir);
    fsutil::create_dir_all(&d)?;
    let stamp = jiff::Zoned::now().strftime("%Y%m%dT%H%M%S").to_string();
    let base = format!("{stamp}-iter{n}-{file}");
    let mut p = d.join(&base);
    let mut k = 2;
    while std::fs::symlink_metadata(&p).is_ok() {
        p = d.join(format!("{base}.{k}"));
        k += 1;
    }
    Ok(p)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into())
}

/// Keep `bytes`, the rejected version of `original`, and return where.
pub(crate) fn keep(
    state_dir: &Path,
    n: u32,
    original: &Path,
    bytes: &[u8],
) -> Result<PathBuf, FsError> {
    let p = free_name(state_dir, n, &file_name(original))?;
    fsutil::atomic_write(&p, bytes)?;
    Ok(p)
}

/// Move whatever sits at `path` (of any kind) into the rejected dir and return where.
pub(crate) fn move_aside(state_dir: &Path, n: u32, path: &Path) -> Result<PathBuf, FsError> {
    let p = free_name(state_dir, n, &file_name(path))?;
    std::fs::rename(path, &p).map_err(fsutil::fs_err(path, "move aside"))?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_version_and_moves_foreign_objects_whole() {
        let d = tempfile::tempdir().unwrap();
        let state = d.path().join(".ralph");
        let a = keep(&state, 1, Path::new("prd.json"), b"one").unwrap();
        let b = keep(&state, 1, Path::new("prd.json"), b"two").unwrap();
        assert_ne!(a, b);
        assert_eq!(std::fs::read(&a).unwrap(), b"one");
        assert_eq!(std::fs::read(&b).unwrap(), b"two");
        let victim = d.path().join("prd.json");
        std::fs::create_dir(&victim).unwrap();
        std::fs::write(victim.join("inside"), b"x").unwrap();
        let moved = move_aside(&state, 2, &victim).unwrap();
        assert!(!victim.exists());
        assert_eq!(std::fs::read(moved.join("inside")).unwrap(), b"x");
        let link = d.path().join("progress.txt");
        std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
        let moved = move_aside(&state, 2, &link).unwrap();
        assert!(
            std::fs::symlink_metadata(&moved)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(Path::new("/etc/passwd").exists());
    }
}
