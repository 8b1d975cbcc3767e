//! `ralph pin generate`: walk the project, find modules, choose keywords, merge into the Pin.
//!
//! Owns the I/O of generation: the gitignore-aware walk (the `ignore` crate; `.git`, `target`,
//! `node_modules`, `vendor` and build output skipped), reading manifests and sources (in
//! parallel), and producing the new Pin text. Policy lives in [`super::discover`],
//! [`super::keywords`] and [`super::merge`]. Does not write the file (the caller decides:
//! write, print, or diff).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::check::{is_glob, resolve};
use super::discover::{Manifest, SourceFile, discover};
use super::extract::{FileFacts, SOURCE_EXTS, extract};
use super::format::Pin;
use super::keywords::{ModuleText, rank};
use super::merge::{Generated, Summary, merge};
use super::text::{FastMap as HashMap, FastSet as HashSet};
use super::{INDEX_PATH, PinError};

/// Folders never walked, gitignored or not.
const SKIP_DIRS: &[&str] = &[
    ".git",
    "target",
    "node_modules",
    "vendor",
    "build",
    "dist",
    "out",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    "bower_components",
    ".next",
    ".gradle",
    ".idea",
    "coverage",
];
const MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.cfg",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
];
/// Files larger than this are listed but not read for keywords (generated or minified code).
const MAX_READ: u64 = 512 * 1024;

/// The result of a generation: the new Pin, its text, the text it replaces, and what changed.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub pin: Pin,
    pub text: String,
    /// The current specs/INDEX.md (`None` when there is none).
    pub old: Option<String>,
    pub summary: Summary,
}

struct Walked {
    sources: Vec<SourceFile>,
    docs: Vec<String>,
    manifests: Vec<String>,
}

fn walk(root: &Path) -> Result<Walked, PinError> {
    let mut sources = Vec::new();
    let mut docs = Vec::new();
    let mut manifests = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && e.depth() > 0
                && SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
        })
        .build();
    for entry in walker {
        let entry = entry.map_err(|source| PinError::Walk {
            root: root.to_path_buf(),
            source,
        })?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel) = rel.to_str() else {
            continue; // not UTF-8: cannot be written in the Pin
        };
        let rel = rel.replace('\\', "/");
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        if MANIFESTS.contains(&name) {
            manifests.push(rel.clone());
        }
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        if SOURCE_EXTS.contains(&ext) {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            sources.push(SourceFile { path: rel, size });
        } else if (ext == "md" || ext == "markdown") && rel != INDEX_PATH {
            docs.push(rel);
        }
    }
    sources.sort_by(|a, b| a.path.cmp(&b.path));
    docs.sort();
    manifests.sort();
    Ok(Walked {
        sources,
        docs,
        manifests,
    })
}

/// Read and extract every path in parallel; unreadable files contribute nothing.
fn facts_of(root: &Path, paths: &[&str]) -> Vec<FileFacts> {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let mut all: Vec<(usize, FileFacts)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(p) = paths.get(i) else { break };
                        let full = root.join(p);
                        let small = full.metadata().is_ok_and(|m| m.len() <= MAX_READ);
                        let facts = match small.then(|| std::fs::read(&full)) {
                            Some(Ok(bytes)) => extract(p, &bytes),
                            _ => FileFacts::default(),
                        };
                        mine.push((i, facts));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    all.sort_by_key(|(i, _)| *i);
    let mut out: Vec<FileFacts> = vec![FileFacts::default(); paths.len()];
    for (i, f) in all {
        out[i] = f;
    }
    out
}

fn norm_lib(s: &str) -> String {
    s.to_lowercase().replace('-', "_")
}

/// Generate the Pin for the project at `root`, merged into its current specs/INDEX.md.
pub fn generate(root: &Path) -> Result<Outcome, PinError> {
    let index = root.join(INDEX_PATH);
    let old = super::read_text(&index)?;
    let mut pin = Pin::parse(old.as_deref().unwrap_or(""));
    let walked = walk(root)?;
    let mut manifests = Vec::new();
    for m in &walked.manifests {
        if let Ok(text) = std::fs::read_to_string(root.join(m)) {
            manifests.push(Manifest {
                path: m.clone(),
                text,
            });
        }
    }
    let project = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".to_string());
    let units = discover(&project, &walked.sources, &walked.docs, &manifests);

    let mut wanted: Vec<&str> = units
        .iter()
        .flat_map(|u| u.files.iter().map(String::as_str))
        .collect();
    wanted.extend(units.iter().flat_map(|u| u.docs.iter().map(String::as_str)));
    wanted.sort_unstable();
    wanted.dedup();
    let facts: HashMap<&str, FileFacts> = wanted
        .iter()
        .copied()
        .zip(facts_of(root, &wanted))
        .collect();

    let texts: Vec<ModuleText> = units
        .iter()
        .map(|u| {
            let mut m = ModuleText {
                paths: u.files.clone(),
                ..ModuleText::default()
            };
            let mut imports = HashSet::default();
            let mut any_import_lang = false;
            for f in u.files.iter().chain(&u.docs) {
                if let Some(fx) = facts.get(f.as_str()) {
                    m.defs.extend(fx.defs.iter().cloned());
                    m.doc.push_str(&fx.doc);
                    imports.extend(fx.imports.iter().map(|i| norm_lib(i)));
                }
                any_import_lang |= [".rs", ".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".go"]
                    .iter()
                    .any(|e| f.ends_with(e));
            }
            m.deps = u
                .deps
                .iter()
                .filter(|d| {
                    if any_import_lang {
                        imports.contains(&norm_lib(d))
                    } else {
                        u.root_entry // imports not read: the libraries go to the package's own entry
                    }
                })
                .cloned()
                .collect();
            m
        })
        .collect();
    let keywords = rank(&texts);
    let generated: Vec<Generated> = units
        .into_iter()
        .zip(keywords)
        .map(|(u, k)| Generated {
            name: u.name,
            keywords: k,
            items: u.items,
            files: u.files,
        })
        .collect();

    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let walked_set: HashSet<&str> = walked.sources.iter().map(|s| s.path.as_str()).collect();
    let summary = merge(&mut pin, generated, |item| {
        if !is_glob(item) && walked_set.contains(item) {
            return true;
        }
        resolve(root, &canon_root, item).is_ok()
    });
    let text = pin.to_markdown();
    Ok(Outcome {
        pin,
        text,
        old,
        summary,
    })
}
