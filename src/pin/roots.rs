//! Module roots: where the ecosystems put package boundaries.
//!
//! Owns finding the roots of a project, pure over a list of paths and parsed manifests: Cargo
//! crates, package.json packages, Python projects and packages (top-most folders with an
//! `__init__.py`), Go modules and Java/Kotlin source roots, each with the libraries its
//! manifest (or the nearest enclosing one) declares. Does not own reading or parsing
//! manifests (see [`super::manifest`]) or what a root is split into (see [`super::discover`]).

use std::collections::BTreeMap;

use memchr::memmem;

use super::manifest::read_manifest;
use super::paths::{base_name, parent_dir, under};
use super::source::{Manifest, SourceFile};
use crate::index::text::FastSet;

/// A manifest already read: its path and what it declares (see [`read_manifest`]).
#[derive(Debug, Clone)]
pub(crate) struct Declared {
    pub path: String,
    /// Name and dependencies (`None` when the manifest declares no package).
    pub package: Option<(Option<String>, Vec<String>)>,
}

impl Declared {
    /// Parse one manifest.
    pub(crate) fn read(m: &Manifest) -> Self {
        Declared {
            path: m.path.clone(),
            package: read_manifest(m),
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct Root {
    pub(super) dir: String,
    pub(super) name: Option<String>,
    pub(super) deps: Vec<String>,
    /// Inherits the deps of the nearest enclosing root that has a manifest.
    pub(super) inherit: bool,
}

/// The roots of a project: the top (always first, unnamed) and every package root found, in
/// folder order.
pub(super) fn find_roots(project: &str, files: &[SourceFile], manifests: &[Declared]) -> Vec<Root> {
    let mut roots: BTreeMap<String, Root> = BTreeMap::new();
    roots.insert(String::new(), Root::unnamed(String::new()));
    add_manifest_roots(&mut roots, manifests);
    add_python_roots(&mut roots, files);
    add_jvm_roots(&mut roots, project, files);
    let mut list: Vec<Root> = roots.into_values().collect();
    inherit_deps(&mut list);
    list
}

impl Root {
    fn unnamed(dir: String) -> Root {
        Root {
            dir,
            name: None,
            deps: Vec::new(),
            inherit: false,
        }
    }
}

/// The folder of every manifest that declares a package, with its name and libraries.
fn add_manifest_roots(roots: &mut BTreeMap<String, Root>, manifests: &[Declared]) {
    for m in manifests {
        let Some((name, deps)) = m.package.clone() else {
            continue;
        };
        let dir = parent_dir(&m.path).to_string();
        let r = roots
            .entry(dir.clone())
            .or_insert_with(|| Root::unnamed(dir));
        if r.name.is_none() {
            r.name = name;
        }
        r.deps.extend(deps);
    }
}

/// Python packages: the top-most folders holding an __init__.py.
fn add_python_roots(roots: &mut BTreeMap<String, Root>, files: &[SourceFile]) {
    let inits: std::collections::BTreeSet<&str> = files
        .iter()
        .filter(|f| base_name(&f.path) == "__init__.py")
        .map(|f| parent_dir(&f.path))
        .collect();
    for dir in &inits {
        if !dir.is_empty() && !inits.contains(parent_dir(dir)) {
            roots.entry(dir.to_string()).or_insert(Root {
                dir: dir.to_string(),
                name: Some(base_name(dir).to_string()),
                deps: Vec::new(),
                inherit: true,
            });
        }
    }
}

/// Java/Kotlin source roots. Each marker has the form `src/…/…`: a path without `src/` has
/// none of them, and the searchers are built once, not once per file.
fn add_jvm_roots(roots: &mut BTreeMap<String, Root>, project: &str, files: &[SourceFile]) {
    let markers: Vec<(&str, String, memmem::Finder<'static>)> = [
        "src/main/java",
        "src/main/kotlin",
        "src/test/java",
        "src/test/kotlin",
    ]
    .into_iter()
    .map(|m| {
        let inside = format!("/{m}/");
        (
            m,
            format!("{m}/"),
            memmem::Finder::new(&inside).into_owned(),
        )
    })
    .collect();
    let src = memmem::Finder::new("src/");
    for f in files
        .iter()
        .filter(|f| src.find(f.path.as_bytes()).is_some())
    {
        for (marker, at_top, inside) in &markers {
            let dir = if f.path.starts_with(at_top.as_str()) {
                Some(marker.to_string())
            } else {
                inside
                    .find(f.path.as_bytes())
                    .map(|i| f.path[..i + 1 + marker.len()].to_string())
            };
            if let Some(dir) = dir
                && !roots.contains_key(&dir)
            {
                let root = jvm_root(project, marker, dir.clone());
                roots.insert(dir, root);
            }
        }
    }
}

/// The root of source folder `dir` ending in `marker` (`src/main/java`): named after its
/// project folder (or the project) and its kind, `app (main java)`.
fn jvm_root(project: &str, marker: &str, dir: String) -> Root {
    let project_dir = dir[..dir.len() - marker.len()].trim_end_matches('/');
    let label = if project_dir.is_empty() {
        project.to_string()
    } else {
        base_name(project_dir).to_string()
    };
    let kind = &marker[4..];
    Root {
        dir,
        name: Some(format!("{label} ({})", kind.replace('/', " "))),
        deps: Vec::new(),
        inherit: true,
    }
}

/// A root without a manifest takes the libraries of the nearest enclosing root that has one;
/// every root's libraries are listed once.
fn inherit_deps(list: &mut [Root]) {
    for i in 0..list.len() {
        if list[i].inherit {
            let dir = list[i].dir.clone();
            let parent = list
                .iter()
                .filter(|r| !r.inherit && under(&r.dir, &dir))
                .max_by_key(|r| r.dir.len())
                .map(|r| r.deps.clone());
            if let Some(d) = parent {
                list[i].deps = d;
            }
        }
        let mut seen = FastSet::default();
        list[i].deps.retain(|d| seen.insert(d.clone()));
    }
}
