//! What a file is for — source, test, example, fixture, benchmark or docs — told from its path.
//!
//! Owns the path rules and how much each kind is demoted in a ranking when the story is not
//! about it. Does not read files nor rank (see [`super::rank`]).

use serde::{Deserialize, Serialize};

/// The role of a file in the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kind {
    Source,
    Test,
    Example,
    Fixture,
    Bench,
    Docs,
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
];

impl Kind {
    /// The kind of the file at `path` (relative, `/`-separated). The innermost marking folder
    /// wins over outer ones (`tests/fixtures/x.rs` is a fixture); a test-like file name makes a
    /// file under no marking folder a test.
    pub fn of(path: &str) -> Kind {
        let mut parts: Vec<&str> = path.split('/').collect();
        let name = parts.pop().unwrap_or("");
        for dir in parts.iter().rev() {
            if let Some((_, k)) = FOLDERS.iter().find(|(n, _)| dir.eq_ignore_ascii_case(n)) {
                return *k;
            }
        }
        if is_test_name(name) {
            Kind::Test
        } else {
            Kind::Source
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Source => "source",
            Kind::Test => "test",
            Kind::Example => "example",
            Kind::Fixture => "fixture",
            Kind::Bench => "bench",
            Kind::Docs => "docs",
        }
    }

    /// Search terms (stemmed, as [`crate::pin::text::terms`] gives them) that say a story is
    /// about files of this kind.
    fn topic(self) -> &'static [&'static str] {
        match self {
            Kind::Source => &[],
            Kind::Test => &["test", "tested", "unittest", "spec", "coverage", "e2e"],
            Kind::Example => &["exampl", "sampl", "demo"],
            Kind::Fixture => &["fixtur", "testdata", "snapshot"],
            Kind::Bench => &["bench", "benchmark", "perf", "performanc"],
            Kind::Docs => &["doc", "documentation", "readm"],
        }
    }

    /// The factor a file of this kind's score is multiplied by: 1 for sources and for any kind
    /// the story is about (`about(term)` tells whether the story has a term), less otherwise.
    pub fn weight(self, about: impl Fn(&str) -> bool) -> f64 {
        if self == Kind::Source || self.topic().iter().any(|t| about(t)) {
            return 1.0;
        }
        match self {
            Kind::Fixture => 0.25,
            _ => 0.4,
        }
    }
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
