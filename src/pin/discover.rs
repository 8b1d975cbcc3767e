//! Module discovery: which files form which Pin entry.
//!
//! Owns the policy, pure over a list of paths and manifest texts: from the module roots as their
//! ecosystems define them (found by [`super::roots`]: Cargo crates, package.json packages, Python
//! projects and packages, Go modules, Java/Kotlin source roots), inside each root the
//! first-level folders (one level deeper under `src/`, `lib/`, `pkg/`, `crates/`, …), tiny ones
//! merged into their parent, large ones split so an entry names at most [`MAX_ITEMS`] files
//! (see [`super::split`]: subfolders become entries, a flat folder of many files is split into
//! cohesive parts, a file beside the folder of the same name goes with the folder). Entry
//! names follow one scheme:
//! `<package>` for a package's own files, `<package>: <folder>` for a folder (the path relative
//! to the package: `fzf: src/tui`), and a part of a split folder adds its label in parentheses
//! (`fzf: src (terminal)`, `rich (console)`, `fzf: src (tests)`), so a part never takes the name
//! of a real folder. `<package>` is the folder of the package when two packages share a name;
//! a name still taken gets ` #2` (see [`unique_name`]). Test, example, fixture and benchmark
//! folders get a [`Unit::kind`]. Does not read files (see [`super::generate`]) or choose keywords (see
//! [`super::keywords`]).

use std::collections::BTreeMap;

use super::paths::{join, parent_dir, under};
use super::split::Splitting;
use crate::index::text::{FastMap as HashMap, FastSet};

pub(crate) use super::roots::Declared;
use super::roots::{Root, find_roots};
pub(crate) use super::source::{Manifest, SourceFile};
#[cfg(test)]
use crate::par::map_each;

/// A folder whose source files total fewer bytes than this is merged into its parent.
const TINY_BYTES: u64 = 2_000;
/// Folders whose subfolders are the modules.
const CONTAINERS: &[&str] = &[
    "src", "lib", "app", "pkg", "crates", "packages", "services", "cmd", "internal", "modules",
    "libs", "apps", "source",
];

/// One generated entry: its name, the files it covers, what it lists, and its root's libraries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    pub name: String,
    /// Every source file the entry covers (project-relative).
    pub files: Vec<String>,
    /// What the entry lists: files, or globs where a folder has too many.
    pub items: Vec<String>,
    /// Library names from the root's manifest.
    pub deps: Vec<String>,
    /// The root's own entry (files at the top of the package), as opposed to one of its folders.
    pub root_entry: bool,
    /// Markdown files whose headings describe the entry.
    pub docs: Vec<String>,
    /// What the entry holds when it is not product code: `tests`, `examples`, `fixtures` or
    /// `benchmarks` (the Pin's `**Kind**:` line).
    pub kind: Option<&'static str>,
    /// The name of the module this entry was split from (its own name when it was not split):
    /// entries of one family were one entry before the module grew, so a Pin written then
    /// lists their files under one name (see [`super::merge`]).
    pub family: String,
}

/// Folder names that mark what a folder holds (the deepest such folder of a path decides).
const KIND_DIRS: &[(&str, &str)] = &[
    ("__fixtures__", "fixtures"),
    ("__mocks__", "fixtures"),
    ("__tests__", "tests"),
    ("bench", "benchmarks"),
    ("benches", "benchmarks"),
    ("benchmark", "benchmarks"),
    ("benchmarks", "benchmarks"),
    ("demo", "examples"),
    ("demos", "examples"),
    ("e2e", "tests"),
    ("example", "examples"),
    ("examples", "examples"),
    ("fixture", "fixtures"),
    ("fixtures", "fixtures"),
    ("integration_tests", "tests"),
    ("mocks", "fixtures"),
    ("sample", "examples"),
    ("samples", "examples"),
    ("spec", "tests"),
    ("test", "tests"),
    ("test_data", "fixtures"),
    ("testdata", "fixtures"),
    ("testing", "tests"),
    ("tests", "tests"),
];

/// The kind of a folder (project-relative) by its deepest marking folder name (see
/// [`KIND_DIRS`]); `None` for product code.
pub(crate) fn folder_kind(dir: &str) -> Option<&'static str> {
    dir.rsplit('/').find_map(|part| {
        KIND_DIRS
            .binary_search_by(|(name, _)| name.cmp(&part))
            .ok()
            .map(|i| KIND_DIRS[i].1)
    })
}

/// Group key of a file under a root: "" for the top, else a folder path relative to the root
/// (always a prefix of `rel`: its first one or two folders).
fn group_key(rel: &str, named: bool) -> &str {
    let Some((first, rest)) = rel.split_once('/') else {
        return "";
    };
    if !CONTAINERS.contains(&first) {
        return first;
    }
    match rest.find('/') {
        None if named && (first == "src" || first == "lib") => "",
        None => first,
        Some(j) => &rel[..first.len() + 1 + j],
    }
}

fn parent_key(key: &str, keys: &BTreeMap<String, Vec<usize>>) -> String {
    let mut k = parent_dir(key).to_string();
    while !k.is_empty() && !keys.contains_key(&k) {
        k = parent_dir(&k).to_string();
    }
    k
}

/// The name each root's entries start with: its package name, or its folder when another root
/// has the same package name (two `utils` packages in a monorepo are `packages/utils` and
/// `tools/utils`); `None` for a root no manifest names (called by its folder or the project).
fn root_names(roots: &[Root]) -> Vec<Option<String>> {
    let mut count: HashMap<String, usize> = HashMap::default();
    for n in roots.iter().filter_map(|r| r.name.as_ref()) {
        *count.entry(n.to_lowercase()).or_default() += 1;
    }
    roots
        .iter()
        .map(|r| {
            let n = r.name.as_ref()?;
            let shared = count.get(&n.to_lowercase()).is_some_and(|&c| c > 1);
            Some(if shared && !r.dir.is_empty() {
                r.dir.clone()
            } else {
                n.clone()
            })
        })
        .collect()
}

/// `name`, or when an entry already has it (case-insensitive), `name #2`, `name #3`…: the
/// scheme gives distinct names to distinct folders and parts, so this is the last guard (a
/// folder literally called `src (x)`, a package named like another root's folder).
fn unique_name(name: String, used: &mut FastSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 1;
    while !used.insert(candidate.to_lowercase()) {
        n += 1;
        candidate = format!("{name} #{n}");
    }
    candidate
}

/// The sibling modules each file links to (see [`super::generate::FileFacts::links`]), by path.
pub(crate) type Links<'l> = &'l dyn Fn(&str) -> &'l [String];

/// Find the modules of a project. `project` names the top when no manifest does.
#[cfg(test)]
pub(crate) fn discover(
    project: &str,
    files: &[SourceFile],
    docs: &[String],
    manifests: &[Manifest],
    links: Links<'_>,
) -> Vec<Unit> {
    // Parsing the manifests (TOML, JSON, XML…) is the costly part; they are independent.
    let declared = map_each(manifests, Declared::read);
    discover_declared(project, files, docs, &declared, links)
}

/// [`discover`] with the manifests already parsed (in path order), e.g. during the walk.
pub(crate) fn discover_declared(
    project: &str,
    files: &[SourceFile],
    docs: &[String],
    manifests: &[Declared],
    links: Links<'_>,
) -> Vec<Unit> {
    let roots = find_roots(project, files, manifests);
    let lookup = RootLookup::new(&roots);
    let per_root = lookup.files_per_root(files);
    let docs_per_root = lookup.docs_per_root(docs);
    let root_names = root_names(&roots);
    let mut used_names = FastSet::default();
    let mut units = Vec::new();
    for (ri, root) in roots.iter().enumerate() {
        if per_root[ri].is_empty() {
            continue;
        }
        let at = RootAt {
            project,
            root,
            name: root_names[ri].as_deref(),
            files,
            links,
        };
        at.units(
            &per_root[ri],
            &docs_per_root[ri],
            &mut used_names,
            &mut units,
        );
    }
    units
}

/// Which root holds a path: the roots by folder.
struct RootLookup<'r> {
    by_dir: HashMap<&'r str, usize>,
    count: usize,
}

impl<'r> RootLookup<'r> {
    fn new(roots: &'r [Root]) -> Self {
        let by_dir = roots
            .iter()
            .enumerate()
            .map(|(i, r)| (r.dir.as_str(), i))
            .collect();
        RootLookup {
            by_dir,
            count: roots.len(),
        }
    }

    /// The deepest root holding `path`: look its ancestors up, nearest first.
    fn root_of(&self, path: &str) -> usize {
        let mut dir = parent_dir(path);
        loop {
            if let Some(&i) = self.by_dir.get(dir) {
                return i;
            }
            if dir.is_empty() {
                return 0;
            }
            dir = parent_dir(dir);
        }
    }

    /// The indexes of the files under each root.
    fn files_per_root(&self, files: &[SourceFile]) -> Vec<Vec<usize>> {
        let mut per_root: Vec<Vec<usize>> = vec![Vec::new(); self.count];
        // Files come sorted, so neighbours mostly share a folder: look each folder up once in a row.
        let mut last: Option<(&str, usize)> = None;
        for (i, f) in files.iter().enumerate() {
            let dir = parent_dir(&f.path);
            let r = match last {
                Some((d, r)) if d == dir => r,
                _ => self.root_of(&f.path),
            };
            last = Some((dir, r));
            per_root[r].push(i);
        }
        per_root
    }

    /// The markdown files under each root.
    fn docs_per_root<'d>(&self, docs: &'d [String]) -> Vec<Vec<&'d String>> {
        let mut per_root: Vec<Vec<&String>> = vec![Vec::new(); self.count];
        for d in docs {
            per_root[self.root_of(d)].push(d);
        }
        per_root
    }
}

/// `path` relative to folder `dir` (which holds it; "" is the top).
fn strip_dir<'p>(dir: &str, path: &'p str) -> &'p str {
    if dir.is_empty() {
        path
    } else {
        &path[dir.len() + 1..]
    }
}

/// One root being cut into entries: what every step of it needs.
struct RootAt<'a, 'l> {
    project: &'a str,
    root: &'a Root,
    /// The name its entries start with (see [`root_names`]).
    name: Option<&'a str>,
    files: &'a [SourceFile],
    links: Links<'l>,
}

impl RootAt<'_, '_> {
    /// Push the entries of this root (its files `idx`, its markdown files `docs`).
    fn units(
        &self,
        idx: &[usize],
        docs: &[&String],
        used_names: &mut FastSet<String>,
        units: &mut Vec<Unit>,
    ) {
        let base = self.chain_base(idx);
        let mut groups = self.groups(idx, &base);
        merge_tiny(&mut groups, self.files);
        let root_base = join(&self.root.dir, &base);
        let mut root_docs = self.docs_by_group(docs, &root_base, &groups);
        for (key, mut idx) in groups {
            idx.sort_by(|a, b| self.files[*a].path.cmp(&self.files[*b].path));
            let group_docs = root_docs.remove(&key).unwrap_or_default();
            self.group_units(&root_base, &key, &idx, &group_docs, used_names, units);
        }
    }

    /// The folder (relative to the root) past single-folder chains (`com/example/app/...`):
    /// "" when the root holds files or several folders at its top, or has no name.
    fn chain_base(&self, idx: &[usize]) -> String {
        let mut base = String::new();
        loop {
            let mut subs = std::collections::BTreeSet::new();
            let mut direct = false;
            let prefix = format!("{base}/");
            for &i in idx {
                let r = strip_dir(&self.root.dir, &self.files[i].path);
                let r = r.strip_prefix(prefix.as_str()).unwrap_or(r);
                match r.split_once('/') {
                    Some((first, _)) if !base.is_empty() || !CONTAINERS.contains(&first) => {
                        subs.insert(first);
                    }
                    Some((first, _)) => {
                        subs.insert(first);
                        direct = true; // keep container folders visible
                    }
                    None => direct = true,
                }
            }
            if direct || subs.len() != 1 || self.root.name.is_none() {
                return base;
            }
            let only = subs.into_iter().next().unwrap_or_default();
            base = join(&base, only);
        }
    }

    /// The files `idx` by group key (see [`group_key`]), under `base`.
    fn groups(&self, idx: &[usize], base: &str) -> BTreeMap<String, Vec<usize>> {
        let named = self.root.name.is_some();
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        // Files of one folder come in a row and share a key: look the group up once per run.
        let mut last: Option<(&str, &str)> = None;
        for &i in idx {
            let path = self.files[i].path.as_str();
            let dir = parent_dir(path);
            let key = match last {
                Some((d, k)) if d == dir => k,
                _ => group_key(strip_dir(base, strip_dir(&self.root.dir, path)), named),
            };
            last = Some((dir, key));
            match groups.get_mut(key) {
                Some(g) => g.push(i),
                None => {
                    groups.insert(key.to_string(), vec![i]);
                }
            }
        }
        groups
    }

    /// The markdown files under `root_base` by the group they describe (their own, or the
    /// nearest enclosing one).
    fn docs_by_group(
        &self,
        docs: &[&String],
        root_base: &str,
        groups: &BTreeMap<String, Vec<usize>>,
    ) -> BTreeMap<String, Vec<String>> {
        let named = self.root.name.is_some();
        let mut root_docs: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for &d in docs.iter().filter(|d| under(root_base, d)) {
            let mut k = group_key(strip_dir(root_base, d), named).to_string();
            if !groups.contains_key(&k) {
                k = parent_key(&k, groups);
            }
            root_docs.entry(k).or_default().push(d.clone());
        }
        root_docs
    }

    /// The entry name of folder `dir`: `<package>` for the package's own files, `<package>:
    /// <path>` for the others (the path relative to the package's base `root_base`); a root no
    /// manifest names is called by its folder, the project's own by the project.
    fn naming(&self, root_base: &str, dir: &str) -> String {
        let rel = if root_base.is_empty() {
            dir
        } else {
            dir.strip_prefix(root_base)
                .map_or(dir, |r| r.trim_start_matches('/'))
        };
        let root_dir = &self.root.dir;
        match (self.name, rel.is_empty()) {
            (Some(n), true) => n.to_string(),
            (Some(n), false) => format!("{n}: {rel}"),
            (None, true) if root_dir.is_empty() => format!("{} (top level)", self.project),
            (None, true) => root_dir.clone(),
            (None, false) => join(root_dir, rel),
        }
    }

    /// Push the entries of one group (key `key`, its sorted files `idx`, its markdown files
    /// `group_docs`): one, or the pieces it is split into.
    fn group_units(
        &self,
        root_base: &str,
        key: &str,
        idx: &[usize],
        group_docs: &[String],
        used_names: &mut FastSet<String>,
        units: &mut Vec<Unit>,
    ) {
        let naming = |dir: &str| self.naming(root_base, dir);
        let dir = join(root_base, key);
        let label = if key.is_empty() {
            naming("")
        } else {
            naming(&dir)
        };
        let ctx = Splitting {
            files: self.files,
            links: self.links,
            naming: &naming,
        };
        for (n, piece) in ctx.split(&label, &dir, idx).into_iter().enumerate() {
            let docs = if piece.docs {
                docs_in(group_docs, &piece.dir)
            } else {
                Vec::new()
            };
            units.push(Unit {
                name: unique_name(piece.name, used_names),
                files: piece.files,
                items: piece.items,
                deps: self.root.deps.clone(),
                root_entry: key.is_empty() && n == 0,
                docs,
                kind: piece.kind.or_else(|| folder_kind(&piece.dir)),
                family: label.clone(),
            });
        }
    }
}

/// Merge tiny groups into their parent (deepest first).
fn merge_tiny(groups: &mut BTreeMap<String, Vec<usize>>, files: &[SourceFile]) {
    let keys: Vec<String> = groups.keys().rev().cloned().collect();
    for k in keys {
        if k.is_empty() {
            continue;
        }
        let size: u64 = groups[&k].iter().map(|&i| files[i].size).sum();
        if size < TINY_BYTES {
            let p = parent_key(&k, groups);
            if let Some(moved) = groups.remove(&k) {
                groups.entry(p).or_default().extend(moved);
            }
        }
    }
}

/// The markdown files in folder `dir` or below it.
fn docs_in(docs: &[String], dir: &str) -> Vec<String> {
    docs.iter()
        .filter(|d| parent_dir(d) == dir || under(dir, parent_dir(d)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;
