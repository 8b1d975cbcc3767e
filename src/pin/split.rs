//! Splitting one module that is too large for one readable Pin entry.
//!
//! Owns the policy, pure over paths, sizes and the links between files: subfolders with more
//! than two files become entries of their own (with the file named like the folder beside
//! them: `router.ts` with `router/`), the files directly in a folder of more than
//! [`SPLIT_ABOVE`] are split into cohesive parts (see [`super::cluster`]) named
//! `<module> (<label>)`, and a part still too large to list becomes one glob per folder and
//! extension. Does not own which files form a module or the names of folders (see
//! [`super::discover`], which calls [`Splitting::split`] with its naming scheme).

use std::collections::BTreeMap;

use super::cluster::{FlatFile, PartKind, SPLIT_ABOVE, split_flat};
use super::paths::{base_name, join, parent_dir};
use super::source::SourceFile;
use crate::index::text::FastMap as HashMap;

/// At most this many paths or globs in one generated entry.
pub(crate) const MAX_ITEMS: usize = 30;
/// One entry [`Splitting::split`] makes.
pub(super) struct Piece {
    pub(super) name: String,
    /// The folder it stands for.
    pub(super) dir: String,
    /// What it lists (files, or one glob per extension for a folder too large to list).
    pub(super) items: Vec<String>,
    /// Every file it covers.
    pub(super) files: Vec<String>,
    /// Whether the folder's markdown files describe it (a part of a split folder: no).
    pub(super) docs: bool,
    /// Set for the tests part of a split folder (others: by folder name).
    pub(super) kind: Option<&'static str>,
}

impl Piece {
    pub(super) fn new(name: String, dir: &str) -> Piece {
        Piece {
            name,
            dir: dir.to_string(),
            items: Vec::new(),
            files: Vec::new(),
            docs: true,
            kind: None,
        }
    }

    fn push(&mut self, path: &str) {
        self.items.push(path.to_string());
        self.files.push(path.to_string());
    }
}

/// What splitting one group needs: the files, their links, and the naming scheme.
pub(super) struct Splitting<'a, 'l> {
    pub(super) files: &'a [SourceFile],
    pub(super) links: &'a (dyn Fn(&str) -> &'l [String] + 'l),
    /// The entry name of a folder (or a part's path) under the group's package.
    pub(super) naming: &'a dyn Fn(&str) -> String,
}

/// Whether a group must be split: more than [`MAX_ITEMS`] files, or a folder holding more than
/// [`SPLIT_ABOVE`] of them directly.
fn needs_split(idx: &[usize], files: &[SourceFile]) -> bool {
    if idx.len() > MAX_ITEMS {
        return true;
    }
    let mut per_dir: HashMap<&str, usize> = HashMap::default();
    idx.iter().any(|&i| {
        let n = per_dir.entry(parent_dir(&files[i].path)).or_default();
        *n += 1;
        *n > SPLIT_ABOVE
    })
}

/// The module name of a file (its name without the extension).
fn module_name(path: &str) -> &str {
    let b = base_name(path);
    b.split_once('.').map_or(b, |(n, _)| n)
}

impl Splitting<'_, '_> {
    /// Split one group (the files `idx` under `dir`, called `name`) so that no entry lists more
    /// than [`MAX_ITEMS`] paths and no flat folder stays one list of many unrelated files:
    /// subfolders with more than two files become their own entries (with the file of the
    /// same name beside them), the files directly in a folder of more than [`SPLIT_ABOVE`] are
    /// split into parts (see [`split_flat`]), and a part too large to list becomes one glob
    /// per extension.
    pub(super) fn split(&self, name: &str, dir: &str, idx: &[usize]) -> Vec<Piece> {
        let files = self.files;
        if !needs_split(idx, files) {
            let mut one = Piece::new(name.to_string(), dir);
            for &i in idx {
                one.push(&files[i].path);
            }
            return vec![one];
        }
        let (mut direct, subs) = self.by_subfolder(dir, idx);
        let mut own = Piece::new(name.to_string(), dir);
        // Subfolders: small ones listed here, the others their own entries.
        let mut small: Vec<usize> = Vec::new();
        let out = self.subfolder_pieces(name, dir, &subs, &mut direct, &mut small);
        let parts = if direct.len() > SPLIT_ABOVE {
            self.flat_parts(name, dir, &direct, &mut own)
        } else {
            own.files
                .extend(direct.iter().map(|&i| files[i].path.clone()));
            Vec::new()
        };
        own.files
            .extend(small.iter().map(|&i| files[i].path.clone()));
        own.files.sort();
        own.items = if own.files.len() <= MAX_ITEMS {
            own.files.clone()
        } else {
            globs(&own.files)
        };
        let mut all = Vec::with_capacity(1 + parts.len() + out.len());
        if !own.files.is_empty() {
            all.push(own);
        }
        all.extend(parts);
        all.extend(out);
        all
    }

    /// The files `idx` under `dir`: those directly in it, and the others by first subfolder.
    fn by_subfolder(&self, dir: &str, idx: &[usize]) -> (Vec<usize>, BTreeMap<String, Vec<usize>>) {
        let mut direct: Vec<usize> = Vec::new();
        let mut subs: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &i in idx {
            let p = &self.files[i].path;
            let r = if dir.is_empty() {
                p.as_str()
            } else {
                &p[dir.len() + 1..]
            };
            match r.split_once('/') {
                Some((first, _)) => subs.entry(first.to_string()).or_default().push(i),
                None => direct.push(i),
            }
        }
        (direct, subs)
    }

    /// The entries of the subfolders with more than two files, each with the file of its name
    /// taken from `direct` (`router.ts` with `router/`); the files of smaller ones go to `small`.
    fn subfolder_pieces(
        &self,
        name: &str,
        dir: &str,
        subs: &BTreeMap<String, Vec<usize>>,
        direct: &mut Vec<usize>,
        small: &mut Vec<usize>,
    ) -> Vec<Piece> {
        let files = self.files;
        let mut out: Vec<Piece> = Vec::new();
        // A folder that only wraps one folder (a crate's `src/`) is that folder: it keeps the
        // name, so the entry a Pin had for it goes on naming the same files.
        let only_child = direct.is_empty() && subs.len() == 1;
        for (sub, sidx) in subs {
            if sidx.len() <= 2 {
                small.extend(sidx);
                continue;
            }
            let sdir = join(dir, sub);
            let sname = if only_child {
                name.to_string()
            } else {
                (self.naming)(&sdir)
            };
            let mut pieces = self.split(&sname, &sdir, sidx);
            if let Some(k) = direct
                .iter()
                .position(|&i| module_name(&files[i].path) == sub.as_str())
                && let Some(first) = pieces.first_mut()
            {
                let path = &files[direct.remove(k)].path;
                first.items.insert(0, path.clone());
                first.files.insert(0, path.clone());
            }
            out.extend(pieces);
        }
        out
    }

    /// The parts of the flat folder `dir` (its files `direct`, see [`split_flat`]); the files of
    /// no part stay with the folder's own entry `own`.
    fn flat_parts(&self, name: &str, dir: &str, direct: &[usize], own: &mut Piece) -> Vec<Piece> {
        let files = self.files;
        let flat: Vec<FlatFile> = direct
            .iter()
            .map(|&i| FlatFile {
                path: &files[i].path,
                size: files[i].size,
                links: (self.links)(&files[i].path),
            })
            .collect();
        let mut parts = Vec::new();
        for part in split_flat(&flat) {
            let paths = part.files.iter().map(|&k| direct[k]);
            if part.kind == PartKind::Own {
                own.files.extend(paths.map(|i| files[i].path.clone()));
                continue;
            }
            // A part is named by its folder and its label in parentheses, which no
            // folder's entry name has: `app: src (terminal)`, `app: src (tests)`.
            let mut piece = Piece::new(format!("{name} ({})", part.label), dir);
            if part.kind == PartKind::Tests {
                piece.kind = Some("tests");
            }
            piece.docs = false;
            for i in paths {
                piece.push(&files[i].path);
            }
            parts.push(piece);
        }
        parts
    }
}

/// Files too many to list: one glob per folder and extension, sorted.
fn globs(files: &[String]) -> Vec<String> {
    let mut globs: Vec<String> = files
        .iter()
        .map(|p| {
            let b = base_name(p);
            let glob = b
                .rsplit_once('.')
                .map_or(b.to_string(), |(_, e)| format!("*.{e}"));
            join(parent_dir(p), &glob)
        })
        .collect();
    globs.sort();
    globs.dedup();
    globs
}
