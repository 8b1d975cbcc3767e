//! What a file is for — source, test, example, fixture, benchmark, docs or project tooling
//! (build scripts, CI, linter and bundler configuration) — told from its path.
//!
//! Owns the path rules and how much each kind is demoted in a ranking when the story is not
//! about it. Does not read files nor rank (see [`super::rank`]).

use serde::{Deserialize, Serialize};

/// The role of a file in the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Kind {
    Source,
    Test,
    Example,
    Fixture,
    Bench,
    Docs,
    /// Scripts and configuration that build, lint or release the project rather than being it.
    Tooling,
}

/// Folder names that mark what the files under them are (matched case-insensitively).
const FOLDERS: &[(&str, Kind)] = &[
    ("fixtures", Kind::Fixture),
    ("fixture", Kind::Fixture),
    ("testdata", Kind::Fixture),
    ("__snapshots__", Kind::Fixture),
    ("snapshots", Kind::Fixture),
    ("tests", Kind::Test),
    ("test", Kind::Test),
    ("__tests__", Kind::Test),
    ("testing", Kind::Test),
    ("spec", Kind::Test),
    ("e2e", Kind::Test),
    ("examples", Kind::Example),
    ("example", Kind::Example),
    ("samples", Kind::Example),
    ("sample", Kind::Example),
    ("benches", Kind::Bench),
    ("benchmarks", Kind::Bench),
    ("benchmark", Kind::Bench),
    ("bench", Kind::Bench),
    ("docs", Kind::Docs),
    ("doc", Kind::Docs),
    ("documentation", Kind::Docs),
    ("scripts", Kind::Tooling),
    ("script", Kind::Tooling),
    ("devtools", Kind::Tooling),
    ("tools", Kind::Tooling),
    ("tooling", Kind::Tooling),
    ("hack", Kind::Tooling),
    (".github", Kind::Tooling),
    (".circleci", Kind::Tooling),
    (".husky", Kind::Tooling),
];

/// Root-level file names (lowercase) of build, packaging and tool configuration scripts.
const TOOLING_FILES: &[&str] = &[
    "setup.py",
    "noxfile.py",
    "fabfile.py",
    "tasks.py",
    "makefile",
    "justfile",
    "rakefile",
    "gulpfile.js",
    "gruntfile.js",
    "build.ts",
    "build.js",
    "build.mjs",
];

impl Kind {
    /// The kind of the file at `path` (relative, `/`-separated). The innermost marking folder
    /// wins over outer ones (`tests/fixtures/x.rs` is a fixture); a folder named with a marking
    /// word as one of its `-`/`_` parts counts too (`integration-tests`, `runtime_tests`). A
    /// test-like file name makes a file under no marking folder a test; a root-level build or
    /// tool configuration script (`setup.py`, `eslint.config.mjs`) is tooling.
    pub(crate) fn of(path: &str) -> Kind {
        let mut parts: Vec<&str> = path.split('/').collect();
        let name = parts.pop().unwrap_or("");
        for dir in parts.iter().rev() {
            if let Some(k) = folder_kind(dir) {
                return k;
            }
        }
        if is_test_name(name) {
            Kind::Test
        } else if parts.is_empty() && is_tooling_name(name) {
            Kind::Tooling
        } else {
            Kind::Source
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Source => "source",
            Kind::Test => "test",
            Kind::Example => "example",
            Kind::Fixture => "fixture",
            Kind::Bench => "bench",
            Kind::Docs => "docs",
            Kind::Tooling => "tooling",
        }
    }

    /// Search terms (stemmed, as [`crate::index::text::terms`] gives them) that say a story is
    /// about files of this kind.
    fn topic(self) -> &'static [&'static str] {
        match self {
            Kind::Source => &[],
            Kind::Test => &["test", "tested", "unittest", "spec", "coverage", "e2e"],
            Kind::Example => &["exampl", "sampl", "demo"],
            Kind::Fixture => &["fixtur", "testdata", "snapshot"],
            Kind::Bench => &["bench", "benchmark", "perf", "performanc"],
            Kind::Docs => &["doc", "documentation", "readm"],
            Kind::Tooling => &[
                "build", "script", "ci", "lint", "linter", "eslint", "releas", "packag", "bundl",
                "workflow", "makefil", "devtool", "tooling",
            ],
        }
    }

    /// Whether files of this kind come after every source that matched a story that is not
    /// about them: tests, examples, fixtures, benchmarks and docs (a test file repeats its
    /// source's words, and the agent finds it from the source). Tooling is only weighed down.
    pub(crate) fn below_sources(self) -> bool {
        !matches!(self, Kind::Source | Kind::Tooling)
    }

    /// The factor a file of this kind's score is multiplied by: 1 for sources and for any kind
    /// the story is about (`about(term)` tells whether the story has a term), less otherwise.
    pub(crate) fn weight(self, about: impl Fn(&str) -> bool) -> f64 {
        if self == Kind::Source || self.topic().iter().any(|t| about(t)) {
            return 1.0;
        }
        match self {
            Kind::Fixture => 0.25,
            Kind::Tooling => 0.6,
            _ => 0.4,
        }
    }
}

/// The kind a folder name marks: the whole name, or else one of its `-`/`_` parts.
fn folder_kind(dir: &str) -> Option<Kind> {
    let find = |w: &str| {
        FOLDERS
            .iter()
            .find(|(n, _)| w.eq_ignore_ascii_case(n))
            .map(|(_, k)| *k)
    };
    find(dir).or_else(|| {
        dir.split(['-', '_'])
            .filter(|w| !w.is_empty())
            .find_map(|w| find(w).filter(|k| *k != Kind::Tooling))
    })
}

/// Whether a root-level file name is a build or tool configuration script: one of
/// [`TOOLING_FILES`], or a `*.config.*` / `*rc.js`-style file of a JavaScript tool.
fn is_tooling_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    TOOLING_FILES.contains(&lower.as_str())
        || lower.contains(".config.")
        || (lower.starts_with('.') && lower.ends_with("rc.js"))
}

/// Whether a file name follows a test naming convention of a common ecosystem.
fn is_test_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let (stem, _) = lower.rsplit_once('.').unwrap_or((&lower, ""));
    stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("_spec")
        || stem.starts_with("test_")
        || stem == "tests"
        || stem == "conftest"
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
        || stem.ends_with(".e2e")
        || (name.ends_with("Test.java") || name.ends_with("Tests.java"))
        || (name.ends_with("Test.kt") || name.ends_with("Tests.cs"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_folders_and_names() {
        for (p, k) in [
            ("src/output/table.rs", Kind::Source),
            ("rich/table.py", Kind::Source),
            ("tests/test_table.py", Kind::Test),
            ("src/terminal_test.go", Kind::Test),
            ("src/middleware/cors/index.test.ts", Kind::Test),
            ("src/a.spec.tsx", Kind::Test),
            ("src/context/tests.rs", Kind::Test),
            ("conftest.py", Kind::Test),
            ("tests/fixtures/compat/x.rs", Kind::Fixture),
            ("pkg/testdata/in.go", Kind::Fixture),
            ("examples/demo.rs", Kind::Example),
            ("benches/speed.rs", Kind::Bench),
            ("docs/conf.py", Kind::Docs),
            ("src/Latest.java", Kind::Source),
            ("src/LatestTest.java", Kind::Test),
            ("src/attestation.rs", Kind::Source),
            ("contest.py", Kind::Source),
            ("runtime_tests/lambda/index.ts", Kind::Test),
            ("integration-tests/a.py", Kind::Test),
            ("contest-tools/a.py", Kind::Source),
            ("eslint.config.mjs", Kind::Tooling),
            ("setup.py", Kind::Tooling),
            ("src/setup.py", Kind::Source),
            ("src/vite.config.ts", Kind::Source),
            ("scripts/release.sh", Kind::Tooling),
            ("devtools/dev-fixtures.sh", Kind::Tooling),
            (".github/workflows/ci.py", Kind::Tooling),
        ] {
            assert_eq!(Kind::of(p), k, "{p}");
        }
    }

    #[test]
    fn only_kinds_the_story_is_not_about_are_demoted() {
        let none = |_: &str| false;
        assert_eq!(Kind::Source.weight(none), 1.0);
        assert!(Kind::Test.weight(none) < 1.0);
        assert!(Kind::Fixture.weight(none) < Kind::Test.weight(none));
        assert_eq!(Kind::Test.weight(|t| t == "test"), 1.0);
        assert!(Kind::Example.weight(|t| t == "test") < 1.0);
    }
}
