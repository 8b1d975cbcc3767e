//! Module discovery: which files form which Pin entry.
//!
//! Owns the policy, pure over a list of paths and manifest texts: from the module roots as their
//! ecosystems define them (found by [`super::roots`]: Cargo crates, package.json packages, Python
//! projects and packages, Go modules, Java/Kotlin source roots), inside each root the
//! first-level folders (one level deeper under `src/`, `lib/`, `pkg/`, `crates/`, …), tiny ones
//! merged into their parent, large ones split so an entry names at most [`MAX_ITEMS`] files or
//! globs. Does not read files (see [`super::generate`]) or choose keywords (see
//! [`super::keywords`]).

use std::collections::BTreeMap;

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

/// Find the modules of a project. `project` names the top when no manifest does.
pub fn discover(
    project: &str,
    files: &[SourceFile],
    docs: &[String],
    manifests: &[Manifest],
) -> Vec<Unit> {
    // Parsing the manifests (TOML, JSON, XML…) is the costly part; they are independent.
    let declared = map_each(manifests, Declared::read);
    discover_declared(project, files, docs, &declared)
}

/// [`discover`] with the manifests already parsed (in path order), e.g. during the walk.
pub fn discover_declared<'f>(
    project: &str,
    files: &'f [SourceFile],
    docs: &[String],
    manifests: &[Declared],
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
            let label = match (&root.name, key.is_empty()) {
                (Some(n), true) => n.clone(),
                (Some(n), false) => format!("{n}: {key}"),
                (None, true) if root.dir.is_empty() => format!("{project} (top level)"),
                (None, true) => root.dir.clone(),
                (None, false) => join(&root.dir, &key),
            };
            let dir = join(&root_base, &key);
            let group_docs = root_docs.remove(&key).unwrap_or_default();
            for (n, (name, udir, items, covered)) in
                split(&label, &dir, &idx, files).into_iter().enumerate()
            {
                let mut name = name;
                if !used_names.insert(name.to_lowercase()) {
                    name = format!("{name} ({})", if udir.is_empty() { "." } else { &udir });
                    used_names.insert(name.to_lowercase());
                }
                let docs = group_docs
                    .iter()
                    .filter(|d| parent_dir(d) == udir || under(&udir, parent_dir(d)))
                    .cloned()
                    .collect();
                units.push(Unit {
                    name,
                    files: covered,
                    items,
                    deps: root.deps.clone(),
                    root_entry: key.is_empty() && n == 0,
                    docs,
                });
            }
        }
    }
    units
}

/// Split one group so that no entry lists more than [`MAX_ITEMS`] paths: subfolders become their
/// own entries, small subfolders stay listed in the parent, too many files in one folder
/// become one glob per extension. Returns (name, folder, items, files covered).
fn split(
    name: &str,
    dir: &str,
    idx: &[usize],
    files: &[SourceFile],
) -> Vec<(String, String, Vec<String>, Vec<String>)> {
    let paths: Vec<String> = idx.iter().map(|&i| files[i].path.clone()).collect();
    if paths.len() <= MAX_ITEMS {
        return vec![(name.to_string(), dir.to_string(), paths.clone(), paths)];
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
    let mut out = Vec::new();
    let mut own: Vec<String> = Vec::new();
    let mut own_files: Vec<String> = Vec::new();
    if direct.len() <= MAX_ITEMS {
        own.extend(direct.iter().map(|&i| files[i].path.clone()));
    } else {
        let mut exts: Vec<String> = direct
            .iter()
            .map(|&i| {
                let b = base_name(&files[i].path);
                b.rsplit_once('.')
                    .map_or(b.to_string(), |(_, e)| format!("*.{e}"))
            })
            .collect();
        exts.sort();
        exts.dedup();
        own.extend(exts.iter().map(|e| join(dir, e)));
    }
    own_files.extend(direct.iter().map(|&i| files[i].path.clone()));
    for (sub, sidx) in &subs {
        let sdir = join(dir, sub);
        if sidx.len() <= 2 && own.len() + sidx.len() <= MAX_ITEMS {
            own.extend(sidx.iter().map(|&i| files[i].path.clone()));
            own_files.extend(sidx.iter().map(|&i| files[i].path.clone()));
        } else {
            out.extend(split(&format!("{name}/{sub}"), &sdir, sidx, files));
        }
    }
    if !own.is_empty() {
        out.insert(0, (name.to_string(), dir.to_string(), own, own_files));
    }
    out
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
        let u = discover("proj", &files, &[], &m);
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
        let u = discover("proj", &files, &[], &m);
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
        let u = discover("newralph", &files, &["lib/README.md".to_string()], &[]);
        assert_eq!(names(&u), ["newralph (top level)", "lib", "scripts"]);
        assert_eq!(u[1].docs, ["lib/README.md"]);
    }

    #[test]
    fn large_folders_split_to_at_most_30_items() {
        let mut v = Vec::new();
        for i in 0..70 {
            v.push((format!("src/big/f{i:02}.rs"), 3000));
        }
        for i in 0..40 {
            v.push((format!("src/big/sub/g{i:02}.rs"), 3000));
        }
        v.push(("src/big/one/x.rs".to_string(), 3000));
        let files: Vec<SourceFile> = v
            .into_iter()
            .map(|(path, size)| SourceFile { path, size })
            .collect();
        let u = discover("p", &files, &[], &[]);
        assert_eq!(names(&u), ["src/big", "src/big/sub"]);
        assert_eq!(u[0].items, ["src/big/*.rs", "src/big/one/x.rs"]);
        assert_eq!(u[0].files.len(), 71);
        assert_eq!(u[1].items, ["src/big/sub/*.rs"]);
        assert!(u.iter().all(|u| u.items.len() <= MAX_ITEMS));
    }
}
