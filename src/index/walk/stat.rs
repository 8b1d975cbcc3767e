//! Many entries of a tree stat'd at once, as a warm refresh needs (every known file and folder,
//! tens of thousands): each by its bare name in its folder, the folder opened once, not by its
//! full path (which makes the kernel look up every component again, for every file: most of a
//! warm refresh's time). Spread over the cores. A symlink is never followed below the root;
//! an entry that is gone, or under a folder that is, is `None`.
//!
//! On Linux with `statx` and `O_PATH` (through `rustix`); elsewhere, or when the system refuses
//! them, one `symlink_metadata` of the full path per entry. Does not decide what changed (see
//! [`super::cache`]).

use std::path::Path;

/// What a stat says of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Meta {
    pub(super) size: u64,
    /// As [`super::found::mtime_of`] reads it.
    pub(super) mtime: (i64, u32),
    pub(super) is_file: bool,
    pub(super) is_dir: bool,
}

/// Entries handed to a thread at a time; fewer stay on one thread (a thread costs more than a
/// few hundred stats).
const BLOCK: usize = 1024;

/// Each of `paths` (relative to `root`, `/`-separated; `""` is the root itself) stat'd without
/// following a symlink. In input order; cheapest when the paths are sorted (each folder is then
/// opened once per block).
#[cfg(test)]
pub(super) fn stat_all(root: &Path, paths: &[&str]) -> Vec<Option<Meta>> {
    let entries: Vec<(&str, bool)> = paths.iter().map(|p| (*p, false)).collect();
    stat_entries(root, &entries)
}

/// The folders `dirs` and the files `files` of `root` stat'd in one pass (see [`stat_all`]):
/// a folder that holds entries asked for is opened once and stat'd through its handle, its
/// entries by their names in it. Each list in its input order; cheapest when both are sorted.
pub(super) fn stat_tree(
    root: &Path,
    dirs: &[&str],
    files: &[&str],
) -> (Vec<Option<Meta>>, Vec<Option<Meta>>) {
    // One sequence in path order (a stable merge: each list keeps its own order).
    let mut all: Vec<(&str, bool)> = Vec::with_capacity(dirs.len() + files.len());
    let (mut d, mut f) = (dirs.iter().peekable(), files.iter().peekable());
    loop {
        let dir_first = match (d.peek(), f.peek()) {
            (Some(a), Some(b)) => a <= b,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        match dir_first {
            true => all.extend(d.next().map(|p| (*p, true))),
            false => all.extend(f.next().map(|p| (*p, false))),
        }
    }
    let metas = stat_entries(root, &all);
    let (mut dm, mut fm) = (
        Vec::with_capacity(dirs.len()),
        Vec::with_capacity(files.len()),
    );
    for ((_, is_dir), m) in all.iter().zip(metas) {
        match is_dir {
            true => dm.push(m),
            false => fm.push(m),
        }
    }
    (dm, fm)
}

/// Entries `(path, is a folder)` stat'd, in order, spread over the cores in blocks of
/// [`BLOCK`] handed out one at a time: a core that other work shares (the ranking done beside
/// the refresh, see [`crate::index::scan::refresh_reading`]) takes fewer, where halves fixed
/// in advance would leave the other core idle at the end.
fn stat_entries(root: &Path, entries: &[(&str, bool)]) -> Vec<Option<Meta>> {
    let blocks: Vec<usize> = (0..entries.len().div_ceil(BLOCK)).collect();
    if blocks.len() <= 1 {
        return stat_chunk(root, entries);
    }
    let mut out = vec![None; entries.len()];
    crate::par::on_all_cores(
        &blocks,
        vec![(); crate::par::threads_for(blocks.len())],
        |b, _| {
            let start = b * BLOCK;
            stat_chunk(root, &entries[start..entries.len().min(start + BLOCK)])
        },
        |b, metas| {
            let start = b * BLOCK;
            out[start..start + metas.len()].copy_from_slice(&metas);
        },
    );
    out
}

/// One stat by full path, the portable way.
fn by_path(root: &Path, rel: &str) -> Option<Meta> {
    let m = std::fs::symlink_metadata(root.join(rel)).ok()?;
    Some(Meta {
        size: m.len(),
        mtime: super::found::mtime_of(&m),
        is_file: m.is_file(),
        is_dir: m.is_dir(),
    })
}

#[cfg(not(target_os = "linux"))]
fn stat_chunk(root: &Path, entries: &[(&str, bool)]) -> Vec<Option<Meta>> {
    entries.iter().map(|(p, _)| by_path(root, p)).collect()
}

#[cfg(target_os = "linux")]
fn stat_chunk(root: &Path, entries: &[(&str, bool)]) -> Vec<Option<Meta>> {
    let Some(mut folders) = at::Folders::open(root) else {
        return entries.iter().map(|(p, _)| by_path(root, p)).collect();
    };
    let mut out = Vec::with_capacity(entries.len());
    for (i, &(p, is_dir)) in entries.iter().enumerate() {
        // A folder whose entries come next is opened (they are stat'd in it), and stat'd
        // through its handle; any other entry by its name in its folder.
        let holds_next = is_dir
            && entries
                .get(i + 1)
                .is_some_and(|(next, _)| at::holds(p, next) && *next != p);
        let got = match holds_next {
            true => folders.stat_open(p),
            false => folders.stat(p),
        };
        out.push(got.unwrap_or_else(|| by_path(root, p)));
    }
    out
}

#[cfg(target_os = "linux")]
mod at {
    use std::path::Path;

    use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
    use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags, StatxFlags};
    use rustix::io::Errno;

    use super::Meta;

    /// The folders from the root down to the last one asked for, each open (`O_PATH`: a handle
    /// to name entries by, nothing read): in sorted order, the next path's folder is one of
    /// them or below one, so each folder is opened once, by its name in its parent.
    pub(super) struct Folders<'a> {
        root: OwnedFd,
        /// (path relative to the root, its handle), each one inside the previous.
        open: Vec<(&'a str, OwnedFd)>,
    }

    fn open_in(at: BorrowedFd<'_>, name: &str) -> Option<OwnedFd> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        rustix::fs::openat(at, name, flags, Mode::empty()).ok()
    }

    /// Whether folder `dir` is `inner` or holds it (`""` holds everything).
    pub(super) fn holds(dir: &str, inner: &str) -> bool {
        inner
            .strip_prefix(dir)
            .is_some_and(|r| r.is_empty() || dir.is_empty() || r.starts_with('/'))
    }

    impl<'a> Folders<'a> {
        pub(super) fn open(root: &Path) -> Option<Folders<'a>> {
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let root = rustix::fs::openat(CWD, root, flags, Mode::empty()).ok()?;
            Some(Folders {
                root,
                open: Vec::new(),
            })
        }

        /// The handle of folder `dir` (relative, `""` the root), opening what is missing
        /// below the deepest open folder that holds it. `None` when it cannot be opened.
        fn folder(&mut self, dir: &'a str) -> Option<BorrowedFd<'_>> {
            while self.open.last().is_some_and(|(d, _)| !holds(d, dir)) {
                self.open.pop();
            }
            let mut done = self.open.last().map_or(0, |(d, _)| d.len());
            while done < dir.len() {
                let start = if done == 0 { 0 } else { done + 1 };
                let end = dir[start..].find('/').map_or(dir.len(), |i| start + i);
                let at = self
                    .open
                    .last()
                    .map_or(self.root.as_fd(), |(_, fd)| fd.as_fd());
                let fd = open_in(at, &dir[start..end])?;
                self.open.push((&dir[..end], fd));
                done = end;
            }
            Some(
                self.open
                    .last()
                    .map_or(self.root.as_fd(), |(_, fd)| fd.as_fd()),
            )
        }

        /// The entry at `path`: `Some(None)` when it is gone, `None` when this way cannot
        /// tell (the system refuses `statx`): the caller asks by full path.
        pub(super) fn stat(&mut self, path: &'a str) -> Option<Option<Meta>> {
            let (dir, name, flags) = match path.rsplit_once('/') {
                Some((d, n)) => (d, n, AtFlags::SYMLINK_NOFOLLOW),
                None if path.is_empty() => ("", "", AtFlags::EMPTY_PATH),
                None => ("", path, AtFlags::SYMLINK_NOFOLLOW),
            };
            let Some(at) = self.folder(dir) else {
                return Some(None);
            };
            meta(rustix::fs::statx(at, name, flags, MASK))
        }

        /// [`Folders::stat`] of the folder `dir`, opened (for the entries in it that come
        /// next) and stat'd through its handle.
        pub(super) fn stat_open(&mut self, dir: &'a str) -> Option<Option<Meta>> {
            let Some(fd) = self.folder(dir) else {
                return Some(None);
            };
            meta(rustix::fs::statx(fd, "", AtFlags::EMPTY_PATH, MASK))
        }
    }

    const MASK: StatxFlags = StatxFlags::TYPE
        .union(StatxFlags::SIZE)
        .union(StatxFlags::MTIME);

    /// What a `statx` said: `Some(None)` when the entry is gone, `None` when the system
    /// refuses the call.
    fn meta(st: rustix::io::Result<rustix::fs::Statx>) -> Option<Option<Meta>> {
        match st {
            Ok(st) => {
                let kind = FileType::from_raw_mode(u32::from(st.stx_mode));
                Some(Some(Meta {
                    size: st.stx_size,
                    mtime: super::super::found::mtime_at(st.stx_mtime.tv_sec, st.stx_mtime.tv_nsec),
                    is_file: kind == FileType::RegularFile,
                    is_dir: kind == FileType::Directory,
                }))
            }
            Err(Errno::NOSYS | Errno::PERM) => None,
            Err(_) => Some(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// Each of `paths` under `r` (folders made), holding its own path.
    fn files(r: &Path, paths: &[&str]) {
        for p in paths {
            fs::create_dir_all(r.join(p).parent().unwrap()).unwrap();
            fs::write(r.join(p), p).unwrap();
        }
    }

    #[test]
    fn each_entry_is_stat_d_as_by_its_full_path() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        files(
            r,
            &[
                "a/b.rs",
                "a/c/d.rs",
                "a/e.rs",
                "a-x/y.rs",
                "f.rs",
                "g/h/i/j.rs",
            ],
        );
        std::os::unix::fs::symlink(r.join("a"), r.join("link")).unwrap();
        let paths = [
            "",
            "a",
            "a-x/y.rs",
            "a/b.rs",
            "a/c/d.rs",
            "a/e.rs",
            "a/gone.rs",
            "f.rs",
            "g/h",
            "g/h/i/j.rs",
            "gone/x.rs",
            "link",
            "link/b.rs",
            "a/c/d.rs", // out of order: still right
        ];
        let got = stat_all(r, &paths);
        for (p, m) in paths.iter().zip(&got) {
            if *p == "link/b.rs" {
                assert_eq!(*m, None, "not followed through a symlink");
                continue;
            }
            assert_eq!(*m, by_path(r, p), "{p}");
        }
        assert!(got[0].unwrap().is_dir && got[3].unwrap().is_file && got[3].unwrap().size == 6);
        assert!(got[6].is_none() && got[10].is_none());
        let link = got[11].unwrap();
        assert!(!link.is_file && !link.is_dir, "the link itself");
        // Many paths, over several blocks handed to the threads: each its own, in order.
        let many: Vec<String> = (0..2600).map(|i| format!("m/{}/{i}.rs", i % 7)).collect();
        for (i, p) in many.iter().enumerate().filter(|(i, _)| i % 3 != 0) {
            fs::create_dir_all(r.join(p).parent().unwrap()).unwrap();
            fs::write(r.join(p), vec![b'x'; i]).unwrap();
        }
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let got = stat_all(r, &many);
        for (i, m) in got.iter().enumerate() {
            assert_eq!(m.map(|m| m.size as usize), (i % 3 != 0).then_some(i), "{i}");
        }
    }

    #[test]
    fn folders_and_files_in_one_pass_are_each_as_by_full_path() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        files(
            r,
            &[
                "a/b.rs",
                "a/c/d.rs",
                "a/c/e/f.rs",
                "a/g.rs",
                "h.rs",
                "i/j/k.rs",
            ],
        );
        fs::create_dir_all(r.join("empty")).unwrap();
        let dirs = ["", "a", "a/c", "a/c/e", "empty", "gone", "i", "i/j"];
        let files = [
            "a/b.rs",
            "a/c/d.rs",
            "a/g.rs",
            "gone/x.rs",
            "h.rs",
            "i/j/k.rs",
        ];
        let (dm, fm) = stat_tree(r, &dirs, &files);
        for (p, m) in dirs.iter().zip(&dm) {
            assert_eq!(*m, by_path(r, p), "{p}");
        }
        for (p, m) in files.iter().zip(&fm) {
            assert_eq!(*m, by_path(r, p), "{p}");
        }
        assert!(dm[1].unwrap().is_dir && dm[5].is_none() && fm[3].is_none());
        // Out of order, and unsorted: still each its own.
        let (dm, fm) = stat_tree(r, &["i/j", ""], &["h.rs", "a/b.rs"]);
        assert_eq!(dm, [by_path(r, "i/j"), by_path(r, "")]);
        assert_eq!(fm, [by_path(r, "h.rs"), by_path(r, "a/b.rs")]);
    }
}
