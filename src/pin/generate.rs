//! `ralph pin generate`: walk the project, find modules, choose keywords, merge into the Pin.
//!
//! Owns the I/O of generation: the gitignore-aware walk (the `ignore` crate; `.git`, `target`,
//! `node_modules`, `vendor` and build output skipped), reading manifests and sources (in
//! parallel, during the walk), and producing the new Pin text. Policy lives in [`super::discover`],
//! [`super::keywords`] and [`super::merge`]. Does not write the file (the caller decides:
//! write, print, or diff).

use std::path::Path;

use super::check::{is_glob, resolve};
use super::discover::{Declared, Manifest, SourceFile, Unit, discover_declared};
use super::extract::{FileFacts, describes_code, extract};
use super::format::Pin;
use super::keywords::{ModuleText, rank};
use super::merge::{Generated, Summary, merge};
use super::{INDEX_PATH, PinError};
use crate::index::text::{FastMap as HashMap, FastSet as HashSet};
use crate::index::walk::{SKIP_DIRS, SOURCE_EXTS};
use crate::par::{drop_later, map_balanced_by};

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
    /// Manifests, read and parsed during the walk (sorted by path).
    manifests: Vec<Declared>,
    /// What each source and doc file defines, imports and says (read during the walk).
    facts: HashMap<String, FileFacts>,
}

/// One file the walk found.
enum Found {
    Source(SourceFile, FileFacts),
    Doc(String, FileFacts),
    Other,
}

/// The size of a walked file and, when it has at most [`MAX_READ`] bytes, its bytes (`None`:
/// too large or unreadable). One open and one fstat: no separate stat of the path.
fn size_and_bytes(entry: &ignore::DirEntry) -> (u64, Option<Vec<u8>>) {
    use std::io::Read;
    let opened = std::fs::File::open(entry.path()).and_then(|f| Ok((f.metadata()?.len(), f)));
    match opened {
        Ok((size, _)) if size > MAX_READ => (size, None),
        Ok((size, mut file)) => {
            let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0) + 1);
            let read = file.read_to_end(&mut bytes);
            (size, read.ok().map(|_| bytes))
        }
        // Not readable: its size may still be known.
        Err(_) => (entry.metadata().map_or(0, |m| m.len()), None),
    }
}

/// Read and parse a manifest (`None` when it cannot be read as text: it declares nothing).
fn read_declared(path: &str, file: &Path) -> Option<Declared> {
    let text = std::fs::read_to_string(file).ok()?;
    Some(Declared::read(&Manifest {
        path: path.to_string(),
        text,
    }))
}

/// Classify one walked file and, for a source or doc file, read and extract it; a manifest is
/// read and parsed here too.
fn visit(root: &Path, entry: &ignore::DirEntry) -> Option<(Option<Declared>, Found)> {
    if !entry.file_type().is_some_and(|t| t.is_file()) {
        return None;
    }
    let rel = entry.path().strip_prefix(root).ok()?;
    let rel = rel.to_str()?; // not UTF-8: cannot be written in the Pin
    let rel = rel.replace('\\', "/");
    let name = rel.rsplit('/').next().unwrap_or(&rel);
    let manifest = if MANIFESTS.contains(&name) {
        read_declared(&rel, entry.path())
    } else {
        None
    };
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let facts = |bytes: Option<Vec<u8>>| match bytes {
        Some(bytes) => extract(&rel, &bytes),
        None => FileFacts::default(),
    };
    let found = if SOURCE_EXTS.contains(&ext) {
        let (size, bytes) = size_and_bytes(entry);
        let facts = facts(bytes);
        Found::Source(
            SourceFile {
                path: rel.clone(),
                size,
            },
            facts,
        )
    } else if (ext == "md" || ext == "markdown") && rel != INDEX_PATH && describes_code(&rel) {
        let facts = facts(size_and_bytes(entry).1);
        Found::Doc(rel.clone(), facts)
    } else {
        Found::Other
    };
    Some((manifest, found))
}

/// Walk the project on all cores, reading and extracting each source and doc file as it is
/// found (the work is per file); the lists come out sorted, so the result does not depend on
/// the order the threads saw the files in.
fn walk(root: &Path) -> Result<Walked, PinError> {
    let (tx, rx) = std::sync::mpsc::channel();
    ignore::WalkBuilder::new(root)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && e.depth() > 0
                && SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
        })
        .build_parallel()
        .run(|| {
            let tx = tx.clone();
            Box::new(move |entry| {
                let (item, state) = match entry {
                    Ok(entry) => (visit(root, &entry).map(Ok), ignore::WalkState::Continue),
                    Err(e) => (Some(Err(e)), ignore::WalkState::Quit),
                };
                if let Some(item) = item
                    && tx.send(item).is_err()
                {
                    return ignore::WalkState::Quit;
                }
                state
            })
        });
    drop(tx);
    let mut walked = Walked {
        sources: Vec::new(),
        docs: Vec::new(),
        manifests: Vec::new(),
        facts: HashMap::default(),
    };
    for item in rx {
        let (manifest, found) = item.map_err(|source| PinError::Walk {
            root: root.to_path_buf(),
            source,
        })?;
        if let Some(m) = manifest {
            walked.manifests.push(m);
        }
        match found {
            Found::Source(file, facts) => {
                walked.facts.insert(file.path.clone(), facts);
                walked.sources.push(file);
            }
            Found::Doc(path, facts) => {
                walked.facts.insert(path.clone(), facts);
                walked.docs.push(path);
            }
            Found::Other => {}
        }
    }
    // A walk finds each path once: an unstable sort gives the same order, with fewer moves.
    walked
        .sources
        .sort_unstable_by(|a, b| a.path.cmp(&b.path).then(a.size.cmp(&b.size)));
    walked.docs.sort_unstable();
    walked.manifests.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(walked)
}

fn norm_lib(s: &str) -> String {
    s.to_lowercase().replace('-', "_")
}

/// The raw material of one unit's keywords: its files' definitions and docs, and the libraries
/// of its root that its files import.
fn module_text<'a>(u: &Unit, facts: &'a HashMap<String, FileFacts>) -> ModuleText<'a> {
    let mut m = ModuleText {
        paths: u.files.clone(),
        ..ModuleText::default()
    };
    let mut raw_imports: HashSet<&str> = HashSet::default();
    let mut any_import_lang = false;
    for f in u.files.iter().chain(&u.docs) {
        if let Some(fx) = facts.get(f.as_str()) {
            m.defs.extend(fx.defs.iter().map(String::as_str));
            m.doc.push_str(&fx.doc);
            raw_imports.extend(fx.imports.iter().map(String::as_str));
        }
        any_import_lang |= [".rs", ".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".go"]
            .iter()
            .any(|e| f.ends_with(e));
    }
    // Each distinct import normalised once (a library is imported by many files).
    let imports: HashSet<String> = if any_import_lang && !u.deps.is_empty() {
        raw_imports.into_iter().map(norm_lib).collect()
    } else {
        HashSet::default()
    };
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
}

/// Generate the Pin for the project at `root`, merged into its current specs/INDEX.md.
pub fn generate(root: &Path) -> Result<Outcome, PinError> {
    let index = root.join(INDEX_PATH);
    let old = super::read_text(&index)?;
    let mut pin = Pin::parse(old.as_deref().unwrap_or(""));
    let mut walked = walk(root)?;
    let project = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".to_string());
    let facts = std::mem::take(&mut walked.facts);
    let links = |path: &str| -> &[String] { facts.get(path).map_or(&[], |f| f.links.as_slice()) };
    let units = discover_declared(
        &project,
        &walked.sources,
        &walked.docs,
        &walked.manifests,
        &links,
    );

    // Per unit and independent: built on all cores.
    let texts: Vec<ModuleText> =
        map_balanced_by(&units, |u| u.files.len(), |u| module_text(u, &facts));
    let keywords = rank(&texts);
    drop(texts);
    // Hundreds of thousands of small strings: freed while the merge goes on.
    drop_later(facts);
    let generated: Vec<Generated> = units
        .into_iter()
        .zip(keywords)
        .map(|(u, k)| Generated {
            name: u.name,
            keywords: k,
            items: u.items,
            files: u.files,
            kind: u.kind.map(str::to_string),
            family: u.family,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_and_bytes_reads_small_files_and_only_sizes_large_ones() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("small.rs"), b"fn a() {}").unwrap();
        let big = usize::try_from(MAX_READ).unwrap() + 1;
        std::fs::write(dir.path().join("big.rs"), vec![b'x'; big]).unwrap();
        type Seen = (String, (u64, Option<Vec<u8>>));
        let mut seen: Vec<Seen> = ignore::WalkBuilder::new(dir.path())
            .build()
            .map(Result::unwrap)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    size_and_bytes(&e),
                )
            })
            .collect();
        seen.sort();
        assert_eq!(seen[0], ("big.rs".to_string(), (MAX_READ + 1, None)));
        assert_eq!(
            seen[1],
            ("small.rs".to_string(), (9, Some(b"fn a() {}".to_vec())))
        );
    }
}
