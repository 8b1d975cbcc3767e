//! The walk: which files of a project are indexed, found gitignore-aware on all cores.
//!
//! Owns what counts as a source file ([`SOURCE_EXTS`]) and which folders are never entered
//! ([`SKIP_DIRS`]), for the index and the Pin alike. Does not read files (see [`super::scan`]).

use std::path::Path;
use std::time::UNIX_EPOCH;

/// File extensions that count as source code.
pub const SOURCE_EXTS: &[&str] = &[
    "rs", "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte", "go",
    "java", "kt", "kts", "scala", "groovy", "cs", "sh", "bash", "zsh", "rb", "php", "c", "h", "cc",
    "cpp", "cxx", "hpp", "hh", "m", "mm", "swift", "lua", "ex", "exs", "erl", "hs", "ml", "clj",
    "dart", "r", "jl", "zig", "nim", "pl", "pm", "sql",
];

/// Folders never walked, gitignored or not (by the code index and by `pin generate`):
/// version control, ralph's own state, dependencies, build output, caches.
pub const SKIP_DIRS: &[&str] = &[
    ".git",
    ".ralph",
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

/// A source file found by the walk.
pub(crate) struct Found {
    pub(crate) path: String,
    pub(crate) size: u64,
    pub(crate) mtime: (i64, u32),
}

/// The source files under `root`, sorted by path (symlinks are not followed: nothing outside
/// the project is indexed).
pub(crate) fn walk(root: &Path) -> Vec<Found> {
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
                if let Some(f) = entry.ok().and_then(|e| found(root, &e))
                    && tx.send(f).is_err()
                {
                    return ignore::WalkState::Quit;
                }
                ignore::WalkState::Continue
            })
        });
    drop(tx);
    let mut out: Vec<Found> = rx.into_iter().collect();
    out.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    out
}

fn found(root: &Path, e: &ignore::DirEntry) -> Option<Found> {
    if !e.file_type().is_some_and(|t| t.is_file()) {
        return None;
    }
    let name = e.file_name().to_str()?;
    let ext = name.rsplit_once('.')?.1;
    if !SOURCE_EXTS.contains(&ext) {
        return None;
    }
    let rel = e
        .path()
        .strip_prefix(root)
        .ok()?
        .to_str()?
        .replace('\\', "/");
    let meta = e.metadata().ok()?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or((0, 0), |d| {
            (
                i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                d.subsec_nanos(),
            )
        });
    Some(Found {
        path: rel,
        size: meta.len(),
        mtime,
    })
}
