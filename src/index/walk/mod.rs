//! The walk: which files of a project are indexed, found gitignore-aware on all cores.
//!
//! Owns what counts as a source file ([`SOURCE_EXTS`]), a doc about the code
//! ([`describes_code`]) and a manifest ([`MANIFESTS`]), and which folders are never entered
//! ([`SKIP_DIRS`]), for the index and the Pin alike: ONE walk. Does not read files (see
//! [`super::scan`]).

use std::path::Path;
use std::time::UNIX_EPOCH;

mod cache;
pub(crate) use cache::WalkCache;
pub(crate) use cache::rewalk;

/// File extensions that count as source code.
pub(crate) const SOURCE_EXTS: &[&str] = &[
    "rs", "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte", "go",
    "java", "kt", "kts", "scala", "groovy", "cs", "sh", "bash", "zsh", "rb", "php", "c", "h", "cc",
    "cpp", "cxx", "hpp", "hh", "m", "mm", "swift", "lua", "ex", "exs", "erl", "hs", "ml", "clj",
    "dart", "r", "jl", "zig", "nim", "pl", "pm", "sql",
];

/// Folders never walked, gitignored or not (by the code index and by `pin generate`):
/// version control, ralph's own state, dependencies, build output, caches.
pub(crate) const SKIP_DIRS: &[&str] = &[
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

/// Manifest file names (their folders are module roots; see `crate::pin::discover`).
pub(crate) const MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.cfg",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
];

/// A file found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Relative to the root, `/`-separated.
    pub(crate) path: String,
    pub(crate) size: u64,
    /// Modification time: seconds and nanoseconds since the epoch.
    pub(crate) mtime: (i64, u32),
}

/// What the walk found, each list sorted by path.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    /// Files with a source extension ([`SOURCE_EXTS`]).
    pub(crate) sources: Vec<Found>,
    /// Markdown files that describe the code around them ([`describes_code`]).
    pub(crate) docs: Vec<Found>,
    /// Manifests ([`MANIFESTS`]), by path.
    pub(crate) manifests: Vec<String>,
    /// The first folder or file that could not be read, if any (left out of the lists).
    pub(crate) error: Option<ignore::Error>,
    /// What the next refresh needs to tell whether anything was added, removed or renamed.
    pub(crate) cache: WalkCache,
}

/// What a walked entry is to the index.
enum Role {
    Source,
    Doc,
    Manifest,
    Dir,
}

/// A walker over `dir` (the project root or a folder in it) as the index walks: gitignore-aware
/// (`.gitignore`, `.ignore`, global git excludes, the ignore files of the folders above, also
/// outside a git repository), hidden files and [`SKIP_DIRS`] skipped, symlinks not followed
/// (nothing outside the project is indexed).
fn walker(dir: &Path, max_depth: Option<usize>) -> ignore::WalkParallel {
    ignore::WalkBuilder::new(dir)
        .require_git(false)
        .follow_links(false)
        .max_depth(max_depth)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && e.depth() > 0
                && SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
        })
        .build_parallel()
}

/// What a walk of `dir` (under `root`, at most `max_depth` deep) found, unsorted, with the
/// folders it entered.
fn collect(root: &Path, dir: &Path, max_depth: Option<usize>) -> (Walked, Vec<Found>) {
    let (tx, rx) = std::sync::mpsc::channel();
    walker(dir, max_depth).run(|| {
        let tx = tx.clone();
        Box::new(move |entry| {
            let item = match entry {
                Ok(e) => found(root, &e).map(Ok),
                Err(e) => Some(Err(e)),
            };
            if let Some(item) = item
                && tx.send(item).is_err()
            {
                return ignore::WalkState::Quit;
            }
            ignore::WalkState::Continue
        })
    });
    drop(tx);
    let mut w = Walked::default();
    let mut dirs = Vec::new();
    for item in rx {
        match item {
            Ok((Role::Source, f)) => w.sources.push(f),
            Ok((Role::Doc, f)) => w.docs.push(f),
            Ok((Role::Manifest, f)) => w.manifests.push(f.path),
            Ok((Role::Dir, f)) => dirs.push(f),
            Err(e) => {
                w.error.get_or_insert(e);
            }
        }
    }
    (w, dirs)
}

/// Walk the whole project under `root` on all cores (see [`walker`]); the lists come out
/// sorted, so the result does not depend on the order the threads saw the files in.
pub(crate) fn walk(root: &Path) -> Walked {
    let (mut w, dirs) = collect(root, root, None);
    w.sources.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    w.docs.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    w.manifests.sort_unstable();
    w.cache = WalkCache::new(root, dirs, w.manifests.clone());
    w
}

/// The modification time of a file's metadata: seconds and nanoseconds since the epoch.
pub(crate) fn mtime_of(meta: &std::fs::Metadata) -> (i64, u32) {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or((0, 0), |d| {
            (
                i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                d.subsec_nanos(),
            )
        })
}

fn found(root: &Path, e: &ignore::DirEntry) -> Option<(Role, Found)> {
    let t = e.file_type()?;
    let rel = || -> Option<String> {
        Some(
            e.path()
                .strip_prefix(root)
                .ok()?
                .to_str()?
                .replace('\\', "/"),
        )
    };
    let role = if t.is_dir() {
        Role::Dir
    } else if !t.is_file() {
        return None;
    } else {
        let name = e.file_name().to_str()?;
        let ext = name.rsplit_once('.').map_or("", |(_, x)| x);
        if SOURCE_EXTS.contains(&ext) {
            Role::Source
        } else if MANIFESTS.contains(&name) {
            Role::Manifest
        } else if ext == "md" || ext == "markdown" {
            Role::Doc
        } else {
            return None;
        }
    };
    let path = rel()?; // not UTF-8: cannot be named in a prompt or the Pin
    if matches!(role, Role::Doc) && !describes_code(&path) {
        return None;
    }
    let meta = e.metadata().ok();
    Some((
        role,
        Found {
            path,
            size: meta.as_ref().map_or(0, |m| m.len()),
            mtime: meta.as_ref().map_or((0, 0), mtime_of),
        },
    ))
}

/// Markdown files that never describe the code around them: change logs and release notes
/// (`CHANGELOG*`, `HISTORY*`, `NEWS*`, `RELEASES*`), licences, codes of conduct, author lists,
/// and translations (`README.zh.md`, `README_ja-JP.md`, `docs/zh-cn/…`): their words would
/// become keywords of whatever module sits beside them.
pub(crate) fn describes_code(path: &str) -> bool {
    const NOT: &[&str] = &[
        "changelog",
        "changes",
        "history",
        "news",
        "release",
        "releases",
        "release_notes",
        "license",
        "licence",
        "copying",
        "notice",
        "code_of_conduct",
        "authors",
        "contributors",
        "maintainers",
        "security",
        "funding",
        "citation",
    ];
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name
        .split_once('.')
        .map_or(name, |(s, _)| s)
        .to_ascii_lowercase();
    let stem_words = stem.replace('-', "_");
    if NOT
        .iter()
        .any(|n| stem_words == *n || stem_words.starts_with(&format!("{n}_")))
    {
        return false;
    }
    // A language tag in the name (`README.zh-CN.md`, `README_ja.md`) or a folder named like one.
    let tagged = |s: &str| is_language_tag(s);
    let parts: Vec<&str> = name.split('.').collect();
    if parts.len() >= 3 && parts[1..parts.len() - 1].iter().any(|p| tagged(p)) {
        return false;
    }
    if let Some((_, tag)) = stem.split_once(['_', '-'])
        && stem.starts_with("readme")
        && tagged(tag)
    {
        return false;
    }
    !path.split('/').rev().skip(1).any(tagged)
}

/// Whether `s` is a language tag other than English: two letters from the common ISO 639-1
/// codes of documentation translations, optionally with a region (`zh-CN`, `pt_BR`).
fn is_language_tag(s: &str) -> bool {
    const LANGS: &[&str] = &[
        "ar", "bg", "bn", "cn", "cs", "da", "de", "el", "es", "fa", "fi", "fr", "he", "hi", "hu",
        "id", "it", "ja", "jp", "ko", "kr", "nl", "no", "pl", "pt", "ro", "ru", "sk", "sv", "th",
        "tr", "tw", "uk", "ur", "vi", "zh",
    ];
    let lower = s.to_ascii_lowercase();
    let (lang, region) = match lower.split_once(['-', '_']) {
        Some((l, r)) => (l, Some(r)),
        None => (lower.as_str(), None),
    };
    LANGS.contains(&lang)
        && region.is_none_or(|r| {
            (2..=4).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_alphabetic())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_docs_about_the_code_are_read() {
        for yes in [
            "README.md",
            "docs/usage.md",
            "src/pin/README.md",
            "docs/introduction.md",
            "news_feed/design.md",
            "docs/id_tokens.md",
        ] {
            assert!(describes_code(yes), "{yes}");
        }
        for no in [
            "CHANGELOG.md",
            "changes.md",
            "HISTORY.md",
            "NEWS.md",
            "docs/RELEASES.md",
            "RELEASE_NOTES.md",
            "LICENSE.md",
            "CODE_OF_CONDUCT.md",
            "README.zh-CN.md",
            "README.ja.md",
            "README_zh.md",
            "README-pt_BR.md",
            "docs/zh-cn/index.md",
            "docs/ja/intro.md",
        ] {
            assert!(!describes_code(no), "{no}");
        }
    }

    #[test]
    fn the_walk_sorts_sources_docs_and_manifests_and_skips_the_rest() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for (p, t) in [
            ("src/b.rs", "fn b() {}"),
            ("src/a.py", "x = 1"),
            ("README.md", "# Hi"),
            ("CHANGELOG.md", "# 1.0"),
            ("Cargo.toml", "[package]"),
            ("notes.txt", "x"),
            ("target/x.rs", "fn x() {}"),
            (".hidden/y.rs", "fn y() {}"),
            ("ignored/z.rs", "fn z() {}"),
            (".ignore", "ignored/\n"),
        ] {
            let path = r.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, t).unwrap();
        }
        let w = walk(r);
        let paths = |v: &[Found]| v.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&w.sources), ["src/a.py", "src/b.rs"]);
        assert_eq!(w.sources[1].size, 9);
        assert_eq!(paths(&w.docs), ["README.md"]);
        assert_eq!(w.manifests, ["Cargo.toml"]);
        assert!(w.error.is_none());
        assert!(walk(&r.join("missing")).error.is_some());
    }
}
