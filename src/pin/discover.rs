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

use super::split::Splitting;
use crate::index::text::{FastMap as HashMap, FastSet};

pub(crate) use super::roots::Declared;
use super::roots::find_roots;

/// At most this many paths or globs in one generated entry.
pub(crate) const MAX_ITEMS: usize = 30;
/// A folder whose source files total fewer bytes than this is merged into its parent.
const TINY_BYTES: u64 = 2_000;
/// Folders whose subfolders are the modules.
const CONTAINERS: &[&str] = &[
    "src", "lib", "app", "pkg", "crates", "packages", "services", "cmd", "internal", "modules",
    "libs", "apps", "source",
];

/// A source file found by the walk (path relative to the project root, `/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceFile {
    pub path: String,
    pub size: u64,
}

/// A manifest file and its text (Cargo.toml, package.json, pyproject.toml, setup.cfg, go.mod,
/// pom.xml, build.gradle[.kts]).
#[derive(Debug, Clone)]
pub(crate) struct Manifest {
    pub path: String,
    pub text: String,
}

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

pub(super) fn parent_dir(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

pub(super) fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

pub(super) fn under(dir: &str, path: &str) -> bool {
    dir.is_empty()
        || (path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/')
}

pub(super) fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}/{b}"),
    }
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
fn root_names(roots: &[super::roots::Root]) -> Vec<Option<String>> {
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
    let declared = crate::par::map_each(manifests, Declared::read);
    discover_declared(project, files, docs, &declared, links)
}

/// [`discover`] with the manifests already parsed (in path order), e.g. during the walk.
pub(crate) fn discover_declared<'f>(
    project: &str,
    files: &'f [SourceFile],
    docs: &[String],
    manifests: &[Declared],
    links: Links<'_>,
) -> Vec<Unit> {
    let roots = find_roots(project, files, manifests);
    let by_dir: HashMap<&str, usize> = roots
        .iter()
        .enumerate()
        .map(|(i, r)| (r.dir.as_str(), i))
        .collect();
    // The deepest root holding `path`: look its ancestors up, nearest first.
    let root_of = |path: &str| -> usize {
        let mut dir = parent_dir(path);
        loop {
            if let Some(&i) = by_dir.get(dir) {
                return i;
            }
            if dir.is_empty() {
                return 0;
            }
            dir = parent_dir(dir);
        }
    };
    let mut per_root: Vec<Vec<usize>> = vec![Vec::new(); roots.len()];
    // Files come sorted, so neighbours mostly share a folder: look each folder up once in a row.
    let mut last: Option<(&str, usize)> = None;
    for (i, f) in files.iter().enumerate() {
        let dir = parent_dir(&f.path);
        let r = match last {
            Some((d, r)) if d == dir => r,
            _ => root_of(&f.path),
        };
        last = Some((dir, r));
        per_root[r].push(i);
    }
    let mut docs_per_root: Vec<Vec<&String>> = vec![Vec::new(); roots.len()];
    for d in docs {
        docs_per_root[root_of(d)].push(d);
    }
    let root_names = root_names(&roots);
    let mut used_names = FastSet::default();
    let mut units = Vec::new();
    for (ri, root) in roots.iter().enumerate() {
        if per_root[ri].is_empty() {
            continue;
        }
        let rel = |p: &'f str| -> &'f str {
            if root.dir.is_empty() {
                p
            } else {
                &p[root.dir.len() + 1..]
            }
        };
        // Skip single-folder chains (com/example/app/...).
        let mut base = String::new();
        loop {
            let mut subs = std::collections::BTreeSet::new();
            let mut direct = false;
            let prefix = format!("{base}/");
            for &i in &per_root[ri] {
                let r = rel(&files[i].path);
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
            if direct || subs.len() != 1 || root.name.is_none() {
                break;
            }
            let only = subs.into_iter().next().unwrap_or_default();
            base = join(&base, only);
        }
        let inner = |p: &'f str| -> &'f str {
            let r = rel(p);
            if base.is_empty() {
                r
            } else {
                &r[base.len() + 1..]
            }
        };
        let named = root.name.is_some();
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        // Files of one folder come in a row and share a key: look the group up once per run.
        let mut last: Option<(&str, &str)> = None;
        for &i in &per_root[ri] {
            let path = files[i].path.as_str();
            let dir = parent_dir(path);
            let key = match last {
                Some((d, k)) if d == dir => k,
                _ => group_key(inner(path), named),
            };
            last = Some((dir, key));
            match groups.get_mut(key) {
                Some(g) => g.push(i),
                None => {
                    groups.insert(key.to_string(), vec![i]);
                }
            }
        }
        // Merge tiny groups into their parent (deepest first).
        let keys: Vec<String> = groups.keys().rev().cloned().collect();
        for k in keys {
            if k.is_empty() {
                continue;
            }
            let size: u64 = groups[&k].iter().map(|&i| files[i].size).sum();
            if size < TINY_BYTES {
                let p = parent_key(&k, &groups);
                if let Some(moved) = groups.remove(&k) {
                    groups.entry(p).or_default().extend(moved);
                }
            }
        }
        let root_base = join(&root.dir, &base);
        let mut root_docs: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for &d in docs_per_root[ri].iter().filter(|d| under(&root_base, d)) {
            let r = if root_base.is_empty() {
                d.clone()
            } else {
                d[root_base.len() + 1..].to_string()
            };
            let mut k = group_key(&r, named).to_string();
            if !groups.contains_key(&k) {
                k = parent_key(&k, &groups);
            }
            root_docs.entry(k).or_default().push(d.clone());
        }
        for (key, mut idx) in groups {
            idx.sort_by(|a, b| files[*a].path.cmp(&files[*b].path));
            // `<package>` for the package's own files, `<package>: <path>` for the others
            // (the path relative to the package's base); a root no manifest names is called
            // by its folder, the project's own by the project.
            let naming = |dir: &str| -> String {
                let rel = if root_base.is_empty() {
                    dir
                } else {
                    dir.strip_prefix(root_base.as_str())
                        .map_or(dir, |r| r.trim_start_matches('/'))
                };
                match (&root_names[ri], rel.is_empty()) {
                    (Some(n), true) => n.clone(),
                    (Some(n), false) => format!("{n}: {rel}"),
                    (None, true) if root.dir.is_empty() => format!("{project} (top level)"),
                    (None, true) => root.dir.clone(),
                    (None, false) => join(&root.dir, rel),
                }
            };
            let dir = join(&root_base, &key);
            let label = if key.is_empty() {
                naming("")
            } else {
                naming(&dir)
            };
            let group_docs = root_docs.remove(&key).unwrap_or_default();
            let ctx = Splitting {
                files,
                links,
                naming: &naming,
            };
            for (n, piece) in ctx.split(&label, &dir, &idx).into_iter().enumerate() {
                let name = unique_name(piece.name, &mut used_names);
                let udir = piece.dir;
                let docs = if piece.docs {
                    group_docs
                        .iter()
                        .filter(|d| parent_dir(d) == udir || under(&udir, parent_dir(d)))
                        .cloned()
                        .collect()
                } else {
                    Vec::new()
                };
                units.push(Unit {
                    name,
                    files: piece.files,
                    items: piece.items,
                    deps: root.deps.clone(),
                    root_entry: key.is_empty() && n == 0,
                    docs,
                    kind: piece.kind.or_else(|| folder_kind(&udir)),
                    family: label.clone(),
                });
            }
        }
    }
    units
}

#[cfg(test)]
mod tests;
