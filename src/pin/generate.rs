//! `ralph pin generate`: the Pin written from the index. The index ([`crate::index`]) walks
//! the project once and reads each changed file once (what it defines, imports, links to and
//! says about itself); generation reads that, finds modules, chooses keywords and merges them
//! into the Pin.
//!
//! Owns the I/O of generation: bringing the index up to date ([`crate::index::scan`]), reading
//! manifests, and producing the new Pin text. Policy lives in [`super::discover`],
//! [`super::keywords`] and [`super::merge`]. Does not write specs/INDEX.md (the caller decides:
//! write, print, or diff).

use std::path::Path;

use super::check::resolve;
use super::cover::is_glob;
use super::discover::{Declared, Manifest, SourceFile, Unit, discover_declared};
use super::format::Pin;
use super::keywords::{ModuleText, rank};
use super::merge::{Generated, Summary, merge};
use super::{INDEX_PATH, PinError};
use crate::index::lang::{Lang, library};
use crate::index::scan::Refresh;
use crate::index::store::{Damaged, Details, FileRec, Index};
use crate::index::text::{FastMap as HashMap, FastSet as HashSet};
use crate::par::{drop_later, map_balanced_by, map_each};

/// Files larger than this are listed but give no keywords (generated or minified code).
const MAX_READ: u64 = 512 * 1024;

/// The result of a generation: the new Pin, its text, the text it replaces, and what changed.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub pin: Pin,
    pub text: String,
    /// The current specs/INDEX.md (`None` when there is none).
    pub old: Option<String>,
    pub summary: Summary,
    /// Why the index could not be saved, when it could not.
    pub index_warning: Option<String>,
}

/// What one source or doc file gives its module's keywords and discovery.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FileFacts {
    /// Names of the functions, types, classes… it defines, one per line (see
    /// [`FileFacts::defs`]): one string per file, not one per name (millions in a large tree).
    pub def_lines: String,
    /// The libraries it imports (see [`crate::index::lang::library`]).
    pub imports: Vec<String>,
    /// Its module doc (Rust `//!`, shell `#` lines) or, for markdown, its headings.
    pub doc: String,
    /// The modules of the same package it refers to by name (see
    /// [`crate::index::lang::Extract::links`]): what ties the files of one folder together.
    pub links: Vec<String>,
}

impl FileFacts {
    /// Names of the functions, types, classes… it defines.
    pub(crate) fn defs(&self) -> impl Iterator<Item = &str> {
        self.def_lines.split_terminator('\n')
    }
}

/// Whether a definition of this kind gives its module keywords: not an `impl` (its type's
/// name is there already), a module declaration, a constant or a variable (unless exported
/// from a JS/TS module), a JS/TS class method (a module's API is what it exports), nor a C
/// macro.
fn names_module(lang: Lang, kind: &str, exported: bool) -> bool {
    match kind {
        "impl" | "mod" | "static" | "macro" => false,
        "const" | "let" | "var" => exported,
        "method" => lang != Lang::Js,
        _ => true,
    }
}

/// What the Pin reads of a file from its index details.
fn file_facts(path: &str, size: u64, d: &Details) -> FileFacts {
    if size > MAX_READ {
        return FileFacts::default();
    }
    let lang = Lang::of(path);
    let lines = |s: &str| -> Vec<String> { s.lines().map(str::to_string).collect() };
    let mut def_lines = String::new();
    for s in d.symbol_refs() {
        if names_module(lang, s.kind, s.exported) {
            def_lines.push_str(s.name);
            def_lines.push('\n');
        }
    }
    FileFacts {
        def_lines,
        imports: match lang.imports_read() {
            true => d
                .imports
                .lines()
                .filter_map(|w| library(lang, w))
                .map(str::to_string)
                .collect(),
            false => Vec::new(),
        },
        doc: d.module_doc.clone(),
        links: lines(&d.links),
    }
}

/// Every indexed source and doc file's facts, by path, read on all cores.
fn read_facts(index: &Index) -> Result<HashMap<String, FileFacts>, Damaged> {
    let files: Vec<(usize, &FileRec)> = index.files().collect();
    let docs: Vec<(usize, &FileRec)> = index.docs().collect();
    let sources = map_each(&files, |&(i, f)| {
        Ok((
            f.path.clone(),
            file_facts(&f.path, f.size, &index.details(i)?),
        ))
    });
    let docs = map_each(&docs, |&(i, f)| {
        Ok((
            f.path.clone(),
            file_facts(&f.path, f.size, &index.doc_details(i)?),
        ))
    });
    sources.into_iter().chain(docs).collect()
}

/// Read and parse a manifest (`None` when it cannot be read as text: it declares nothing).
fn read_declared(root: &Path, path: &str) -> Option<Declared> {
    let text = std::fs::read_to_string(root.join(path)).ok()?;
    Some(Declared::read(&Manifest {
        path: path.to_string(),
        text,
    }))
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
            m.defs.extend(fx.defs());
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

/// Generate the Pin for the project at `root`, merged into its current specs/INDEX.md. The
/// index is brought up to date first, and saved when `save_index` (a `--check` or `--stdout`
/// run writes nothing).
pub(crate) fn generate(root: &Path, save_index: bool) -> Result<Outcome, PinError> {
    let old = super::read_text(&root.join(INDEX_PATH))?;
    let current = old.as_deref().unwrap_or("");
    // The Pin is made while the index is written (tens of megabytes after a cold build).
    let (mut refreshed, made) = crate::index::scan::refresh_while(root, save_index, |r| {
        read_facts(&r.index).map(|facts| merged(root, r, facts, current))
    });
    if let Some(source) = refreshed.walk_error.take() {
        return Err(PinError::Walk {
            root: root.to_path_buf(),
            source,
        });
    }
    // The cache turned out damaged while its facts were read: built again from the files.
    let Made { pin, text, summary } = made.unwrap_or_else(|_| {
        refreshed = crate::index::scan::rebuilt(root, save_index);
        let facts = read_facts(&refreshed.index).unwrap_or_default();
        merged(root, &refreshed, facts, current)
    });
    Ok(Outcome {
        pin,
        text,
        old,
        summary,
        index_warning: refreshed.warning,
    })
}

/// A Pin just made, as markdown too, and what changed in it.
struct Made {
    pin: Pin,
    text: String,
    summary: Summary,
}

/// The Pin `current` (the text of specs/INDEX.md) with what the index `refreshed` and its
/// files' `facts` say merged in.
fn merged(
    root: &Path,
    refreshed: &Refresh,
    facts: HashMap<String, FileFacts>,
    current: &str,
) -> Made {
    let mut pin = Pin::parse(current);
    let sources: Vec<SourceFile> = refreshed
        .index
        .files()
        .map(|(_, f)| SourceFile {
            path: f.path.clone(),
            size: f.size,
        })
        .collect();
    let units = units(root, refreshed, &sources, &facts);
    let generated = generated(units, facts);
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let walked_set: HashSet<&str> = sources.iter().map(|s| s.path.as_str()).collect();
    let summary = merge(&mut pin, generated, |item| {
        if !is_glob(item) && walked_set.contains(item) {
            return true;
        }
        resolve(root, &canon_root, item).is_ok()
    });
    let text = pin.to_markdown();
    Made { pin, text, summary }
}

/// The project's units (see [`discover_declared`]): its `sources`, its docs but the Pin, the
/// manifests the walk found and the links between files.
fn units(
    root: &Path,
    refreshed: &Refresh,
    sources: &[SourceFile],
    facts: &HashMap<String, FileFacts>,
) -> Vec<Unit> {
    let docs: Vec<String> = refreshed
        .index
        .docs()
        .map(|(_, d)| d.path.clone())
        .filter(|p| p != INDEX_PATH)
        .collect();
    let manifests: Vec<Declared> = map_each(&refreshed.manifests, |p| read_declared(root, p))
        .into_iter()
        .flatten()
        .collect();
    let project = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".to_string());
    let links = |path: &str| -> &[String] { facts.get(path).map_or(&[], |f| f.links.as_slice()) };
    discover_declared(&project, sources, &docs, &manifests, &links)
}

/// Each unit with its keywords, ranked from its files' `facts`.
fn generated(units: Vec<Unit>, facts: HashMap<String, FileFacts>) -> Vec<Generated> {
    // Per unit and independent: built on all cores.
    let texts: Vec<ModuleText> =
        map_balanced_by(&units, |u| u.files.len(), |u| module_text(u, &facts));
    let keywords = rank(&texts);
    drop(texts);
    // Hundreds of thousands of small strings: freed while the merge goes on.
    drop_later(facts);
    units
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
        .collect()
}
