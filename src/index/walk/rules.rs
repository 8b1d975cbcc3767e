//! What the walk keeps and what it never enters, for the index and the Pin alike: source
//! files ([`SOURCE_EXTS`]), docs about the code ([`describes_code`]), manifests
//! ([`MANIFESTS`]), and the folders never walked ([`SKIP_DIRS`]). Pure: names in, yes or no
//! out; does not touch the disk (see [`super::list`]).

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
}
