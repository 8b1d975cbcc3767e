//! Telling, without walking the whole project again, what it holds now: the folders the last
//! walk entered and their modification times ([`WalkCache`]). A folder's time changes when an
//! entry is added to it, removed or renamed (an editor's or ralph's atomic write included), not
//! when a file in it is edited; so [`look`] stats the folders and the known files (for edits)
//! in one pass. Most often that is all: nothing changed ([`Looked::same`], decided without
//! copying a path). Otherwise [`rewalk_looked`] lists again only the folders that changed
//! (walking any new folder under them). An ignore file that changed, appeared or went (in the
//! project, above it, the repository's `info/exclude`, the global excludes file), or a folder
//! that cannot be listed, calls for a full walk instead (`None`). The same idea as git's
//! untracked cache.

use std::path::Path;

use super::found::{Found, Stamp, WalkCache, Walked, mtime_of};
use super::list::collect;
use super::stat::{Meta, stat_tree};

/// The ignore file names read in every folder.
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

fn stamp(path: &Path) -> Stamp {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.len(), mtime_of(&m)))
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Whether `path` is `dir` or under it (`dir` relative, `""` the root).
fn under(path: &str, dir: &str) -> bool {
    dir.is_empty() || path == dir || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// The ignore files outside the project that apply to it: those of the folders above `root`,
/// the repository's `info/exclude` and the global excludes file.
fn outer_ignores(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(abs) = std::path::absolute(root) else {
        return out;
    };
    for dir in abs.ancestors().skip(1) {
        for name in IGNORE_FILES {
            out.extend(dir.join(name).to_str().map(str::to_string));
        }
    }
    if let Some(top) = abs.ancestors().find(|d| d.join(".git").exists()) {
        let dot = top.join(".git");
        let git_dir = match std::fs::read_to_string(&dot) {
            Ok(text) => text
                .strip_prefix("gitdir: ")
                .map(|d| top.join(d.trim_end()))
                .unwrap_or(dot),
            Err(_) => dot,
        };
        let common = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(c) => git_dir.join(c.trim_end()),
            Err(_) => git_dir,
        };
        out.extend(common.join("info/exclude").to_str().map(str::to_string));
    }
    out
}

fn global_excludes() -> Option<String> {
    ignore::gitignore::gitconfig_excludes_path().and_then(|p| p.to_str().map(str::to_string))
}

impl WalkCache {
    /// The cache of a walk of `root` that entered `dirs` and found `manifests`.
    pub(super) fn new(root: &Path, dirs: Vec<Found>, manifests: Vec<String>) -> WalkCache {
        let mut c = WalkCache {
            dirs: dirs.into_iter().map(|d| (d.path, d.mtime)).collect(),
            ignores: Vec::new(),
            global: global_excludes(),
            manifests,
        };
        c.dirs.sort_unstable();
        for (dir, _) in &c.dirs {
            c.ignores.extend(inner_ignores(root, dir));
        }
        let outer = outer_ignores(root).into_iter().chain(c.global.clone());
        c.ignores
            .extend(outer.map(|p| (p.clone(), stamp(Path::new(&p)))));
        in_order(&mut c.ignores);
        c
    }
}

/// Ignore files in the one order a cache keeps them, whether a walk or a rewalk made it (so
/// that the two compare equal when nothing changed): by path, each once.
fn in_order(ignores: &mut Vec<(String, Stamp)>) {
    ignores.sort_by(|a, b| a.0.cmp(&b.0));
    ignores.dedup_by(|a, b| a.0 == b.0);
}

/// The ignore files that exist in the folder `dir` of `root`, with their stamps.
fn inner_ignores(root: &Path, dir: &str) -> Vec<(String, Stamp)> {
    IGNORE_FILES
        .iter()
        .filter_map(|name| {
            let rel = if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            };
            let s = stamp(&root.join(&rel));
            s.map(|s| (rel, Some(s)))
        })
        .collect()
}

/// The stats a refresh starts from ([`look`]): the walk cache's folders and the known files,
/// as they are now.
pub(crate) struct Looked {
    /// Per folder of the cache, in its order.
    dirs: Vec<Stamp>,
    /// Per known file, in the order they were asked for.
    files: Vec<Option<Meta>>,
}

/// The folders of `cache` and the known files at `paths` (sorted runs: sources, then docs)
/// stat'd in one pass; `None` when only a full walk can tell (no folder in the cache, or the
/// global excludes file is another).
pub(crate) fn look(root: &Path, cache: &WalkCache, paths: &[&str]) -> Option<Looked> {
    if cache.dirs.is_empty() || global_excludes() != cache.global {
        return None;
    }
    let dirs: Vec<&str> = cache.dirs.iter().map(|(d, _)| d.as_str()).collect();
    let (dirs, files) = stat_tree(root, &dirs, paths);
    let dirs = dirs
        .into_iter()
        .map(|m| m.map(|m| (m.size, m.mtime)))
        .collect();
    Some(Looked { dirs, files })
}

impl Looked {
    /// Whether the project is as last seen, so nothing need be listed or read: every folder
    /// of `cache` and every known file (`stamps`: each one's size and modification time as
    /// last seen, in the order looked at) is there, unchanged and modified before `built_at`
    /// (see [`rewalk_looked`]), and no ignore file changed. Decides as [`rewalk_looked`]
    /// followed by a comparison would, without copying a path.
    pub(crate) fn same(
        &self,
        root: &Path,
        cache: &WalkCache,
        stamps: impl Iterator<Item = (u64, (i64, u32))>,
        built_at: i64,
    ) -> bool {
        let dirs_same = cache
            .dirs
            .iter()
            .zip(&self.dirs)
            .all(|((_, was), now)| now.is_some_and(|(_, t)| t == *was && t.0 < built_at));
        let mut seen = 0;
        for ((size, mtime), now) in stamps.zip(&self.files) {
            let same = now.is_some_and(|m| m.is_file && m.size == size && m.mtime == mtime);
            if !same || mtime.0 >= built_at {
                return false;
            }
            seen += 1;
        }
        dirs_same && seen == self.files.len() && ignores_same(root, cache, &[])
    }
}

/// Whether every ignore file of `cache` is as it was; one that went with its folder (one of
/// `gone`) changes nothing: the folder is dropped.
fn ignores_same(root: &Path, cache: &WalkCache, gone: &[&str]) -> bool {
    let abs = |p: &str| match Path::new(p).is_absolute() {
        true => Path::new(p).to_path_buf(),
        false => root.join(p),
    };
    let same = crate::par::map_each(&cache.ignores, |(p, s)| {
        let now = stamp(&abs(p));
        now == *s || (now.is_none() && !Path::new(p).is_absolute() && gone.contains(&parent(p)))
    });
    !same.contains(&false)
}

/// What `root` holds now, from `cache` and the files the index knows (`sources`, `docs`, as
/// last seen), without a full walk; `None` when only a full walk can tell (see the module
/// doc). Folders modified in the second the index was built (`built_at`) or later are listed
/// again: they may have changed after they were read.
#[cfg(test)]
pub(crate) fn rewalk(
    root: &Path,
    cache: &WalkCache,
    sources: Vec<Found>,
    docs: Vec<Found>,
    built_at: i64,
) -> Option<Walked> {
    let paths: Vec<&str> = sources
        .iter()
        .chain(&docs)
        .map(|f| f.path.as_str())
        .collect();
    let looked = look(root, cache, &paths)?;
    drop(paths);
    rewalk_looked(root, cache, looked, sources, docs, built_at)
}

/// [`rewalk`] from what [`look`] found of the paths of `sources` and `docs`.
pub(crate) fn rewalk_looked(
    root: &Path,
    cache: &WalkCache,
    looked: Looked,
    sources: Vec<Found>,
    docs: Vec<Found>,
    built_at: i64,
) -> Option<Walked> {
    let Looked { dirs: now, files } = looked;
    let (sources, docs) = restamped(files, sources, docs);
    let gone: Vec<&str> = cache
        .dirs
        .iter()
        .zip(&now)
        .filter(|(_, s)| s.is_none())
        .map(|((d, _), _)| d.as_str())
        .collect();
    if !ignores_same(root, cache, &gone) {
        return None;
    }
    let changed: Vec<&str> = cache
        .dirs
        .iter()
        .zip(&now)
        .filter(|((_, m), s)| s.is_none_or(|(_, t)| t != *m || t.0 >= built_at))
        .map(|((d, _), _)| d.as_str())
        .collect();
    let mut next = Next {
        sources,
        docs,
        manifests: cache.manifests.clone(),
        dirs: cache.dirs.clone(),
        ignores: cache.ignores.clone(),
        whole: Vec::new(),
    };
    for dir in changed {
        next.relist(root, dir)?;
    }
    Some(next.finish(cache))
}

/// `sources` and `docs` as they are now (`now`: what [`look`] found of each, in order; an edit
/// changes no folder; a file gone, or no longer a file, is dropped).
fn restamped(
    now: Vec<Option<Meta>>,
    sources: Vec<Found>,
    docs: Vec<Found>,
) -> (Vec<Found>, Vec<Found>) {
    let mut files_now = now.into_iter();
    let mut restamp = |files: Vec<Found>| -> Vec<Found> {
        files
            .into_iter()
            .zip(files_now.by_ref())
            .filter_map(|(f, m)| {
                let m = m.filter(|m| m.is_file)?;
                Some(Found {
                    size: m.size,
                    mtime: m.mtime,
                    ..f
                })
            })
            .collect()
    };
    let sources = restamp(sources);
    let docs = restamp(docs);
    (sources, docs)
}

/// The lists being brought up to date by [`rewalk`].
struct Next {
    sources: Vec<Found>,
    docs: Vec<Found>,
    manifests: Vec<String>,
    dirs: Vec<(String, (i64, u32))>,
    ignores: Vec<(String, Stamp)>,
    /// Folders just walked whole (every file under them is fresh).
    whole: Vec<String>,
}

impl Next {
    /// Drop everything at or under `dir` (`direct`: only the files directly in it).
    fn drop_dir(&mut self, dir: &str, direct: bool) {
        let gone = |p: &str| match direct {
            true => parent(p) == dir,
            false => under(p, dir),
        };
        self.sources.retain(|f| !gone(&f.path));
        self.docs.retain(|f| !gone(&f.path));
        self.manifests.retain(|p| !gone(p));
        if !direct {
            self.dirs.retain(|(d, _)| !under(d, dir));
            self.ignores
                .retain(|(p, _)| Path::new(p).is_absolute() || !under(p, dir));
        }
    }

    /// List the folder `dir` again; a new folder in it is walked whole, one gone is dropped.
    /// `None` when its ignore files changed or it cannot be listed.
    fn relist(&mut self, root: &Path, dir: &str) -> Option<()> {
        if self.whole.iter().any(|w| under(dir, w)) || !self.dirs.iter().any(|(d, _)| d == dir) {
            return Some(()); // already walked whole, or dropped with a folder above
        }
        let Some(meta) = std::fs::symlink_metadata(root.join(dir))
            .ok()
            .filter(|m| m.is_dir())
        else {
            self.drop_dir(dir, false);
            return Some(());
        };
        let recorded: Vec<(String, Stamp)> = self
            .ignores
            .iter()
            .filter(|(p, _)| !Path::new(p).is_absolute() && parent(p) == dir)
            .cloned()
            .collect();
        if inner_ignores(root, dir) != recorded {
            return None;
        }
        let (listed, subdirs) = collect(root, &root.join(dir), Some(1));
        if listed.error.is_some() {
            return None;
        }
        self.drop_dir(dir, true);
        self.absorb(listed);
        let known: Vec<String> = self
            .dirs
            .iter()
            .filter(|(d, _)| d != dir && parent(d) == dir)
            .map(|(d, _)| d.clone())
            .collect();
        for gone in known
            .iter()
            .filter(|k| !subdirs.iter().any(|s| &s.path == *k))
        {
            self.drop_dir(gone, false);
        }
        for sub in subdirs.iter().filter(|s| s.path != dir) {
            if !known.contains(&sub.path) {
                self.walk_new(root, &sub.path)?;
            }
        }
        if let Some(d) = self.dirs.iter_mut().find(|(d, _)| d == dir) {
            d.1 = mtime_of(&meta);
        }
        Some(())
    }

    /// Walk a folder the last walk did not see, whole.
    fn walk_new(&mut self, root: &Path, dir: &str) -> Option<()> {
        let (w, dirs) = collect(root, &root.join(dir), None);
        if w.error.is_some() {
            return None;
        }
        self.absorb(w);
        for d in dirs {
            self.ignores.extend(inner_ignores(root, &d.path));
            self.dirs.push((d.path, d.mtime));
        }
        self.whole.push(dir.to_string());
        Some(())
    }

    fn absorb(&mut self, w: Walked) {
        self.sources.extend(w.sources);
        self.docs.extend(w.docs);
        self.manifests.extend(w.manifests);
    }

    /// The lists sorted (the files just listed came after the known ones), and the cache.
    fn finish(mut self, old: &WalkCache) -> Walked {
        let sources = sorted(self.sources);
        let docs = sorted(self.docs);
        self.manifests.sort_unstable();
        self.manifests.dedup();
        self.dirs.sort_unstable();
        self.dirs.dedup_by(|a, b| a.0 == b.0);
        in_order(&mut self.ignores);
        Walked {
            sources,
            docs,
            manifests: self.manifests.clone(),
            error: None,
            cache: WalkCache {
                dirs: self.dirs,
                ignores: self.ignores,
                global: old.global.clone(),
                manifests: self.manifests,
            },
        }
    }
}

/// `files` sorted by path, one each (known files come sorted, the ones just listed after them:
/// most often nothing to do).
fn sorted(mut files: Vec<Found>) -> Vec<Found> {
    if !files.is_sorted_by(|a, b| a.path < b.path) {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files.dedup_by(|a, b| a.path == b.path);
    }
    files
}

#[cfg(test)]
mod tests;
