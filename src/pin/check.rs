//! Validating a Pin against the project: paths and globs match, spec links resolve, names are
//! unique, keyword counts are in range.
//!
//! Owns the path safety rule every Pin reader shares ([`resolve`]): a path or glob that is
//! absolute, climbs out with `..`, or reaches outside the project through a symlink is an error
//! and is never read. Does not own parsing or printing (the CLI prints [`Diagnostic`]s).

use std::collections::HashMap;
use std::path::{Component, Path};

use super::cover::is_glob;
use super::format::{Entry, Pin};

/// Keyword counts outside this range are warned about.
pub(crate) const KEYWORDS_MIN: usize = 10;
pub(crate) const KEYWORDS_MAX: usize = 20;

/// Why a path in the Pin is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PathProblem {
    #[error("is absolute; write it relative to the project root")]
    Absolute,
    #[error("climbs out of the project with `..`; write it relative to the project root")]
    Escapes,
    #[error("leads outside the project through a symlink; point it at a file inside the project")]
    Outside,
    #[error("matches nothing in the project; fix the path or remove it")]
    Missing,
    #[error("is not a valid glob ({0}); fix the pattern")]
    BadGlob(String),
}

fn lexically_safe(item: &str) -> Result<(), PathProblem> {
    let p = Path::new(item);
    let drive =
        item.len() >= 2 && item.as_bytes()[1] == b':' && item.as_bytes()[0].is_ascii_alphabetic();
    if p.is_absolute() || item.starts_with(['/', '\\']) || drive {
        return Err(PathProblem::Absolute);
    }
    if p.components().any(|c| matches!(c, Component::ParentDir))
        || item.split(['/', '\\']).any(|s| s == "..")
    {
        return Err(PathProblem::Escapes);
    }
    Ok(())
}

/// How many things `item` (a path or a glob, relative to `root`) matches inside the project.
/// `canon_root` is `root` canonicalized. Nothing outside the project is ever opened.
pub(crate) fn resolve(root: &Path, canon_root: &Path, item: &str) -> Result<usize, PathProblem> {
    lexically_safe(item)?;
    let inside = |p: &Path| -> Result<(), PathProblem> {
        match p.canonicalize() {
            Ok(c) if c.starts_with(canon_root) => Ok(()),
            Ok(_) => Err(PathProblem::Outside),
            Err(_) => Err(PathProblem::Missing),
        }
    };
    if !is_glob(item) {
        let p = root.join(item);
        if p.symlink_metadata().is_err() {
            return Err(PathProblem::Missing);
        }
        inside(&p)?;
        return Ok(1);
    }
    glob::Pattern::new(item).map_err(|e| PathProblem::BadGlob(e.msg.to_string()))?;
    let base = glob::Pattern::escape(&root.to_string_lossy());
    let pattern = format!("{}/{item}", base.trim_end_matches('/'));
    let paths = glob::glob(&pattern).map_err(|e| PathProblem::BadGlob(e.msg.to_string()))?;
    let mut n = 0;
    for p in paths.flatten() {
        inside(&p)?;
        n += 1;
    }
    if n == 0 {
        return Err(PathProblem::Missing);
    }
    Ok(n)
}

/// Error or warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding, at a line of specs/INDEX.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable, for `--json` readers: `no-name`, `duplicate-name`, `no-files`, `bad-path`,
    /// `stale`, `bad-spec`, `spec-no-file`, `keyword-count`.
    pub code: &'static str,
    pub severity: Severity,
    pub line: usize,
    pub entry: String,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}: {sev}: entry \"{}\": {}",
            self.line, self.entry, self.message
        )
    }
}

fn is_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://")
}

/// Check every entry of `pin` against the project at `root`.
pub(crate) fn check(pin: &Pin, root: &Path) -> Vec<Diagnostic> {
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for e in pin.entries() {
        let mut c = EntryCheck { e, out: &mut out };
        c.name(&mut seen);
        c.files(root, &canon_root);
        if e.stale {
            c.diag(
                "stale",
                Severity::Warning,
                e.line(),
                "is flagged stale by `ralph pin generate`; update its paths or remove it".into(),
            );
        }
        c.spec(root, &canon_root);
        c.keywords();
    }
    out
}

/// The checks of one entry, writing their findings to `out`.
struct EntryCheck<'a> {
    e: &'a Entry,
    out: &'a mut Vec<Diagnostic>,
}

impl EntryCheck<'_> {
    fn diag(&mut self, code: &'static str, severity: Severity, line: usize, message: String) {
        self.out.push(Diagnostic {
            code,
            severity,
            line,
            entry: self.e.name.clone(),
            message,
        })
    }

    /// A name, and one no earlier entry has (case-insensitive; `seen` gives their lines).
    fn name(&mut self, seen: &mut HashMap<String, usize>) {
        let e = self.e;
        if e.name.trim().is_empty() {
            self.diag(
                "no-name",
                Severity::Error,
                e.line(),
                "the entry has no name; write one after the `###`".into(),
            );
        }
        match seen.get(&e.name.trim().to_lowercase()) {
            Some(first) => self.diag(
                "duplicate-name",
                Severity::Error,
                e.line(),
                format!(
                    "duplicate entry name (first at line {first}); rename or merge the entries"
                ),
            ),
            None => {
                seen.insert(e.name.trim().to_lowercase(), e.line());
            }
        }
    }

    /// Some file paths, each naming something inside the project.
    fn files(&mut self, root: &Path, canon_root: &Path) {
        let e = self.e;
        if e.files.is_empty() {
            self.diag(
                "no-files",
                Severity::Warning,
                e.line(),
                "lists no file paths; add the files it describes".into(),
            );
        }
        for (i, f) in e.files.iter().enumerate() {
            if let Err(p) = resolve(root, canon_root, f) {
                self.diag(
                    "bad-path",
                    Severity::Error,
                    e.file_line(i),
                    format!("file path `{f}` {p}"),
                );
            }
        }
    }

    /// A spec link, when there is one, that is a URL or names one file inside the project.
    fn spec(&mut self, root: &Path, canon_root: &Path) {
        let e = self.e;
        let Some(spec) = &e.spec else {
            return;
        };
        match e.spec_path() {
            Some(p) if is_url(&p) => {}
            Some(p) => {
                if let Err(problem) = resolve(root, canon_root, &p).and_then(|n| {
                    if is_glob(&p) && n != 1 {
                        Err(PathProblem::BadGlob("a spec link names one file".into()))
                    } else {
                        Ok(n)
                    }
                }) {
                    self.diag(
                        "bad-spec",
                        Severity::Error,
                        e.line(),
                        format!("spec link `{p}` {problem}"),
                    );
                }
            }
            None => self.diag(
                "spec-no-file",
                Severity::Warning,
                e.line(),
                format!("spec link `{spec}` names no file; write a path (or N/A)"),
            ),
        }
    }

    /// Between [`KEYWORDS_MIN`] and [`KEYWORDS_MAX`] keywords.
    fn keywords(&mut self) {
        let n = self.e.keywords.len();
        if !(KEYWORDS_MIN..=KEYWORDS_MAX).contains(&n) {
            self.diag(
                "keyword-count",
                Severity::Warning,
                self.e.line(),
                format!(
                    "has {n} keywords; {KEYWORDS_MIN}-{KEYWORDS_MAX} find it best (synonyms, library names, related terms)"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src/a")).unwrap();
        std::fs::write(d.path().join("src/a/x.rs"), "fn x() {}").unwrap();
        std::fs::write(d.path().join("spec.md"), "# spec").unwrap();
        d
    }

    #[test]
    fn resolves_paths_and_globs_inside_only() {
        let d = project();
        let root = d.path();
        let canon = root.canonicalize().unwrap();
        assert_eq!(resolve(root, &canon, "src/a/x.rs"), Ok(1));
        assert_eq!(resolve(root, &canon, "src/**/*.rs"), Ok(1));
        assert_eq!(resolve(root, &canon, "src/a"), Ok(1));
        assert_eq!(resolve(root, &canon, "nope.rs"), Err(PathProblem::Missing));
        assert_eq!(resolve(root, &canon, "src/*.py"), Err(PathProblem::Missing));
        assert_eq!(resolve(root, &canon, "../x"), Err(PathProblem::Escapes));
        assert_eq!(
            resolve(root, &canon, "src/../../x"),
            Err(PathProblem::Escapes)
        );
        assert_eq!(
            resolve(root, &canon, "/etc/passwd"),
            Err(PathProblem::Absolute)
        );
        assert!(matches!(
            resolve(root, &canon, "src/[a"),
            Err(PathProblem::BadGlob(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_leading_out_are_errors() {
        let d = project();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.rs"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("link")).unwrap();
        let canon = d.path().canonicalize().unwrap();
        assert_eq!(
            resolve(d.path(), &canon, "link/secret.rs"),
            Err(PathProblem::Outside)
        );
        assert_eq!(
            resolve(d.path(), &canon, "link/*.rs"),
            Err(PathProblem::Outside)
        );
    }

    #[test]
    fn finds_duplicates_missing_files_bad_specs_and_keyword_counts() {
        let d = project();
        let kws = (0..10)
            .map(|i| format!("k{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let text = format!(
            "### A\n**Keywords**: {kws}\n**File Paths**:\n- src/a/x.rs\n**Spec Link**: spec.md\n---\n\
             ### a\n**Keywords**: one\n**File Paths**:\n- gone.rs\n**Spec Link**: See missing.md\n---\n"
        );
        let diags = check(&Pin::parse(&text), d.path());
        let msgs: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        assert_eq!(msgs.len(), 4, "{msgs:#?}");
        assert!(
            msgs[0].starts_with("7: error: entry \"a\": duplicate entry name (first at line 1)")
        );
        assert!(msgs[1].starts_with("10: error: entry \"a\": file path `gone.rs` matches nothing"));
        assert!(msgs[2].contains("spec link `missing.md` matches nothing"));
        assert!(msgs[3].contains("has 1 keywords"));
        assert_eq!(diags[3].severity, Severity::Warning);
    }
}
