//! Module discovery: which files form which Pin entry.
//!
//! Owns the policy, pure over a list of paths and manifest texts: from the module roots as their
//! ecosystems define them (found by [`super::roots`]: Cargo crates, package.json packages, Python
//! projects and packages, Go modules, Java/Kotlin source roots), inside each root the
//! first-level folders (one level deeper under `src/`, `lib/`, `pkg/`, `crates/`, …), tiny ones
//! merged into their parent, large ones split so an entry names at most [`MAX_ITEMS`] files:
//! subfolders become entries, a flat folder of many files is split into cohesive parts (see
//! [`super::cluster`]), a file beside the folder of the same name (`router.ts` and `router/`,
//! Rust's `output.rs` and `output/`) goes with the folder. Entry names follow one scheme:
//! `<package>` for a package's own files, `<package>: <folder>` for a folder (the path relative
//! to the package: `fzf: src/tui`), and a part of a split folder adds its label in parentheses
//! (`fzf: src (terminal)`, `rich (console)`, `fzf: src (tests)`), so a part never takes the name
//! of a real folder. `<package>` is the folder of the package when two packages share a name;
//! a name still taken gets ` #2` (see [`unique_name`]). Test, example, fixture and benchmark
//! folders get a [`Unit::kind`]. Does not read files (see [`super::generate`]) or choose keywords (see
//! [`super::keywords`]).

use std::collections::BTreeMap;

use super::cluster::{FlatFile, PartKind, SPLIT_ABOVE, split_flat};
use super::text::{FastMap as HashMap, FastSet};

pub use super::roots::Declared;
use super::roots::find_roots;
use crate::par::map_each;

/// At most this many paths or globs in one generated entry.
pub const MAX_ITEMS: usize = 30;
/// A folder whose source files total fewer bytes than this is merged into its parent.
const TINY_BYTES: u64 = 2_000;
/// Folders whose subfolders are the modules.
const CONTAINERS: &[&str] = &[
    "src", "lib", "app", "pkg", "crates", "packages", "services", "cmd", "internal", "modules",
    "libs", "apps", "source",
];

/// A source file found by the walk (path relative to the project root, `/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub size: u64,
}

/// A manifest file and its text (Cargo.toml, package.json, pyproject.toml, setup.cfg, go.mod,
/// pom.xml, build.gradle[.kts]).
#[derive(Debug, Clone)]
pub struct Manifest {
    pub path: String,
    pub text: String,
}

/// One generated entry: its name, the files it covers, what it lists, and its root's libraries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
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
pub fn folder_kind(dir: &str) -> Option<&'static str> {
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

fn join(a: &str, b: &str) -> String {
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

/// The sibling modules each file links to (see [`super::extract::FileFacts::links`]), by path.
pub type Links<'l> = &'l dyn Fn(&str) -> &'l [String];

/// Find the modules of a project. `project` names the top when no manifest does.
pub fn discover(
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
pub fn discover_declared<'f>(
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

/// One entry [`Splitting::split`] makes.
struct Piece {
    name: String,
    /// The folder it stands for.
    dir: String,
    /// What it lists (files, or one glob per extension for a folder too large to list).
    items: Vec<String>,
    /// Every file it covers.
    files: Vec<String>,
    /// Whether the folder's markdown files describe it (a part of a split folder: no).
    docs: bool,
    /// Set for the tests part of a split folder (others: by folder name).
    kind: Option<&'static str>,
}

impl Piece {
    fn new(name: String, dir: &str) -> Piece {
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
struct Splitting<'a, 'l> {
    files: &'a [SourceFile],
    links: &'a (dyn Fn(&str) -> &'l [String] + 'l),
    /// The entry name of a folder (or a part's path) under the group's package.
    naming: &'a dyn Fn(&str) -> String,
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
    fn split(&self, name: &str, dir: &str, idx: &[usize]) -> Vec<Piece> {
        let files = self.files;
        if !needs_split(idx, files) {
            let mut one = Piece::new(name.to_string(), dir);
            for &i in idx {
                one.push(&files[i].path);
            }
            return vec![one];
        }
        let mut direct: Vec<usize> = Vec::new();
        let mut subs: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &i in idx {
            let p = &files[i].path;
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
        let mut own = Piece::new(name.to_string(), dir);
        let mut out: Vec<Piece> = Vec::new();
        // Subfolders: small ones listed here, the others their own entries, each with the file
        // of its name beside it (`router.ts` with `router/`).
        let mut small: Vec<usize> = Vec::new();
        // A folder that only wraps one folder (a crate's `src/`) is that folder: it keeps the
        // name, so the entry a Pin had for it goes on naming the same files.
        let only_child = direct.is_empty() && subs.len() == 1;
        for (sub, sidx) in &subs {
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
        let mut parts = Vec::new();
        if direct.len() > SPLIT_ABOVE {
            let flat: Vec<FlatFile> = direct
                .iter()
                .map(|&i| FlatFile {
                    path: &files[i].path,
                    size: files[i].size,
                    links: (self.links)(&files[i].path),
                })
                .collect();
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
        } else {
            own.files
                .extend(direct.iter().map(|&i| files[i].path.clone()));
        }
        own.files
            .extend(small.iter().map(|&i| files[i].path.clone()));
        own.files.sort();
        if own.files.len() <= MAX_ITEMS {
            own.items = own.files.clone();
        } else {
            // Too many to list: one glob per folder and extension.
            let mut globs: Vec<String> = own
                .files
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
            own.items = globs;
        }
        let mut all = Vec::with_capacity(1 + parts.len() + out.len());
        if !own.files.is_empty() {
            all.push(own);
        }
        all.extend(parts);
        all.extend(out);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sf(paths: &[(&str, u64)]) -> Vec<SourceFile> {
        paths
            .iter()
            .map(|(p, s)| SourceFile {
                path: p.to_string(),
                size: *s,
            })
            .collect()
    }

    fn man(path: &str, text: &str) -> Manifest {
        Manifest {
            path: path.into(),
            text: text.into(),
        }
    }

    fn no_links(_: &str) -> &'static [String] {
        &[]
    }

    fn names(u: &[Unit]) -> Vec<&str> {
        u.iter().map(|u| u.name.as_str()).collect()
    }

    #[test]
    fn group_keys_are_the_first_folder_or_two_under_a_container() {
        assert_eq!(group_key("build.rs", true), "");
        assert_eq!(group_key("src/lib.rs", true), "");
        assert_eq!(group_key("src/lib.rs", false), "src");
        assert_eq!(group_key("app/main.rs", true), "app");
        assert_eq!(group_key("src/parse/lex.rs", true), "src/parse");
        assert_eq!(group_key("src/parse/deep/x.rs", false), "src/parse");
        assert_eq!(group_key("tools/gen/x.rs", true), "tools");
    }

    #[test]
    fn cargo_workspace_crates_and_their_folders() {
        let files = sf(&[
            ("crates/core/src/lib.rs", 5000),
            ("crates/core/src/parse/mod.rs", 5000),
            ("crates/core/src/parse/lex.rs", 5000),
            ("crates/core/src/tiny/mod.rs", 10),
            ("crates/cli/src/main.rs", 3000),
            ("xtask/build.rs", 100),
        ]);
        let m = [
            man("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
            man(
                "crates/core/Cargo.toml",
                "[package]\nname = \"core\"\n[dependencies]\nregex = \"1\"\n",
            ),
            man("crates/cli/Cargo.toml", "[package]\nname = \"cli\"\n"),
        ];
        let u = discover("proj", &files, &[], &m, &no_links);
        assert_eq!(
            names(&u),
            ["proj (top level)", "cli", "core", "core: src/parse"]
        );
        let core = &u[2];
        assert_eq!(
            core.files,
            ["crates/core/src/lib.rs", "crates/core/src/tiny/mod.rs"]
        );
        assert_eq!(core.deps, ["regex"]);
        assert_eq!(u[0].files, ["xtask/build.rs"]);
    }

    #[test]
    fn python_go_js_and_java_roots() {
        let files = sf(&[
            ("py/pkg/__init__.py", 3000),
            ("py/pkg/sub/__init__.py", 3000),
            ("gosvc/internal/auth/auth.go", 3000),
            ("gosvc/cmd/server/main.go", 3000),
            ("web/src/index.ts", 3000),
            ("jv/src/main/java/com/acme/app/App.java", 3000),
            ("jv/src/main/java/com/acme/app/util/Str.java", 3000),
        ]);
        let m = [
            man(
                "py/pyproject.toml",
                "[project]\nname = \"pyproj\"\ndependencies = [\"requests>=2\"]\n",
            ),
            man(
                "gosvc/go.mod",
                "module github.com/acme/gosvc\nrequire (\n\tgithub.com/spf13/cobra v1\n)\n",
            ),
            man(
                "web/package.json",
                r#"{"name":"web","dependencies":{"react":"18"}}"#,
            ),
            man(
                "jv/pom.xml",
                "<project><artifactId>jv</artifactId><dependencies><dependency><artifactId>guava</artifactId></dependency></dependencies></project>",
            ),
        ];
        let u = discover("proj", &files, &[], &m, &no_links);
        assert_eq!(
            names(&u),
            [
                "gosvc: cmd/server",
                "gosvc: internal/auth",
                "jv (main java)",
                "jv (main java): util",
                "pkg",
                "pkg: sub",
                "web"
            ]
        );
        assert_eq!(u[0].deps, ["cobra"]);
        assert_eq!(u[2].deps, ["guava"]);
        assert_eq!(u[4].deps, ["requests"]);
        assert_eq!(u[6].deps, ["react"]);
    }

    #[test]
    fn plain_project_uses_top_level_folders() {
        let files = sf(&[
            ("lib/common.sh", 3000),
            ("lib/git.sh", 3000),
            ("scripts/generate-pin.sh", 3000),
            ("ralph.sh", 3000),
        ]);
        let u = discover(
            "newralph",
            &files,
            &["lib/README.md".to_string()],
            &[],
            &no_links,
        );
        assert_eq!(names(&u), ["newralph (top level)", "lib", "scripts"]);
        assert_eq!(u[1].docs, ["lib/README.md"]);
    }

    #[test]
    fn large_flat_folders_split_into_named_parts_without_globs() {
        let mut v = Vec::new();
        v.push(("src/lib.rs".to_string(), 3000));
        for stem in ["alpha", "beta", "gamma", "delta", "omega"] {
            for k in 0..4 {
                v.push((format!("src/{stem}_{k}.rs"), 3000));
            }
            v.push((format!("src/{stem}_test.rs"), 3000));
        }
        for i in 0..14 {
            v.push((format!("src/widget/w{i:02}.rs"), 3000));
        }
        v.push(("src/widget.rs".to_string(), 3000));
        v.push(("src/one/x.rs".to_string(), 3000));
        let files: Vec<SourceFile> = v
            .into_iter()
            .map(|(path, size)| SourceFile { path, size })
            .collect();
        let m = [man("Cargo.toml", "[package]\nname = \"app\"\n")];
        let u = discover("p", &files, &[], &m, &no_links);
        // `src/widget/` and `src/one/` are modules of their own (one level under `src/`), so
        // `widget.rs` is a part of the flat `src/` here: the part and the folder keep apart.
        assert_eq!(
            names(&u),
            [
                "app",
                "app (alpha)",
                "app (beta)",
                "app (delta)",
                "app (gamma)",
                "app (omega)",
                "app (widget)",
                "app (tests)",
                "app: src/one",
                "app: src/widget"
            ]
        );
        assert!(u[..8].iter().all(|u| u.family == "app"));
        assert_eq!(u[9].family, "app: src/widget");
        assert_eq!(u[0].files, ["src/lib.rs"]);
        assert_eq!(u[1].files.len(), 4);
        assert_eq!(u[7].kind, Some("tests"));
        assert_eq!(u[7].files.len(), 5);
        assert!(
            u.iter()
                .all(|u| u.items.len() <= MAX_ITEMS && u.items == u.files)
        );
        assert!(u[..7].iter().all(|u| u.kind.is_none()));
    }

    #[test]
    fn names_are_unique_and_follow_one_scheme() {
        // Two packages called `utils`, a flat folder with a `tests.rs` beside `*_test.rs` files
        // and a stem `tests` could give the same name twice.
        let mut v: Vec<(String, u64)> = vec![
            ("packages/utils/index.ts".into(), 3000),
            ("tools/utils/index.ts".into(), 3000),
            ("tools/utils/src/io/a.ts".into(), 3000),
            ("tools/utils/src/io/b.ts".into(), 3000),
            ("src/lib.rs".into(), 3000),
            ("src/tests.rs".into(), 3000),
        ];
        for stem in ["alpha", "beta", "gamma", "delta"] {
            for k in 0..4 {
                v.push((format!("src/{stem}_{k}.rs"), 3000));
            }
            v.push((format!("src/{stem}_test.rs"), 3000));
        }
        let files: Vec<SourceFile> = v
            .into_iter()
            .map(|(path, size)| SourceFile { path, size })
            .collect();
        let m = [
            man("Cargo.toml", "[package]\nname = \"utils\"\n"),
            man("packages/utils/package.json", r#"{"name":"utils"}"#),
            man("tools/utils/package.json", r#"{"name":"utils"}"#),
        ];
        let u = discover("p", &files, &[], &m, &no_links);
        let got = names(&u);
        assert_eq!(
            got,
            [
                "utils",
                "utils (alpha)",
                "utils (beta)",
                "utils (delta)",
                "utils (gamma)",
                "utils (tests)",
                "packages/utils",
                "tools/utils",
                "tools/utils: src/io"
            ]
        );
        let tests = &u[5];
        assert_eq!(tests.files.len(), 5, "{:?}", tests.files);
        assert!(tests.files.contains(&"src/tests.rs".to_string()));
        let mut lower: Vec<String> = got.iter().map(|n| n.to_lowercase()).collect();
        lower.sort();
        lower.dedup();
        assert_eq!(lower.len(), got.len());
        let mut used = FastSet::default();
        assert_eq!(unique_name("a".into(), &mut used), "a");
        assert_eq!(unique_name("A".into(), &mut used), "A #2");
        assert_eq!(unique_name("a".into(), &mut used), "a #3");
    }

    #[test]
    fn folder_kinds_by_the_deepest_marking_folder() {
        assert_eq!(folder_kind("src/pin"), None);
        assert_eq!(folder_kind("tests"), Some("tests"));
        assert_eq!(folder_kind("tests/fixtures/compat"), Some("fixtures"));
        assert_eq!(folder_kind("examples/demo/src"), Some("examples"));
        assert_eq!(folder_kind("benches"), Some("benchmarks"));
        let mut sorted = KIND_DIRS.to_vec();
        sorted.sort();
        assert_eq!(sorted, KIND_DIRS);
    }
}
