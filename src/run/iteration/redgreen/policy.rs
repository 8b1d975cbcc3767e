//! The red-green gate's policy (pure): what a test file is (built-in globs per language, or
//! `[verify] test_patterns`), which commands the red run runs, what its results mean, and the
//! words the status line and the next prompt use. The I/O (scratch worktree, copies, runs) is
//! the parent module's.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::state::history::VerifyResult;

/// Test files by convention, for the languages ralph's users write most: Rust, Go, Python,
/// JS/TS, Java/Kotlin, Ruby, and the common `test/`, `tests/`, `spec/` folders. A path
/// matches when any glob does (`*` stays within one folder, `**` crosses folders).
pub(crate) const DEFAULT_TEST_PATTERNS: &[&str] = &[
    // Folders of tests, anywhere (Rust integration tests, Python and JS test folders, Java's
    // src/test, Ruby's spec).
    "**/tests/**",
    "**/test/**",
    "**/__tests__/**",
    "**/spec/**",
    "**/testdata/**",
    // Rust: a test module in its own file (`mod tests;`), snapshots.
    "**/tests.rs",
    "**/*_test.rs",
    "**/*_tests.rs",
    "**/*.snap",
    // Go.
    "**/*_test.go",
    // Python.
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    // JS/TS.
    "**/*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "**/*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    // Java, Kotlin, Ruby.
    "**/*Test.java",
    "**/*Tests.java",
    "**/*IT.java",
    "**/*Test.kt",
    "**/*_spec.rb",
];

/// Which paths are test files.
#[derive(Debug, Clone)]
pub(crate) struct TestFiles {
    set: GlobSet,
}

impl TestFiles {
    /// `patterns` (`[verify] test_patterns`), or the defaults when `None`. A glob that does
    /// not parse is an error naming it (the settings check them first).
    pub(crate) fn new(patterns: Option<&[String]>) -> Result<TestFiles, globset::Error> {
        let mut b = GlobSetBuilder::new();
        let defaults: Vec<String>;
        let list = match patterns {
            Some(p) => p,
            None => {
                defaults = DEFAULT_TEST_PATTERNS
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                &defaults
            }
        };
        for p in list {
            b.add(GlobBuilder::new(p).literal_separator(true).build()?);
        }
        Ok(TestFiles { set: b.build()? })
    }

    /// Whether `path` (relative, `/`-separated) is a test file.
    pub(crate) fn matches(&self, path: &str) -> bool {
        self.set.is_match(path)
    }
}

/// The commands of the red run: the story's own when it has any (they are what tests it),
/// else the run's.
pub(crate) fn red_commands(global: &[String], story: &[String]) -> Vec<String> {
    if story.is_empty() {
        global.to_vec()
    } else {
        story.to_vec()
    }
}

/// What the red run came to.
// `Red::Red` is the verdict named as the run is; clippy checks variant names only on items that
// are not exported, which this became with pub(crate).
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Red {
    /// A command failed without the change: the tests test it.
    Red,
    /// Every command passed without the change: the tests do not test it.
    Green,
    /// The story changed no test file.
    NoTests,
    /// It could not judge (no base commit, the scratch worktree or its setup failed, a command
    /// could not be started there): the gate's verdict stands, with a warning.
    Inconclusive(String),
}

impl Red {
    /// The name in history.jsonl (`red_green.result`).
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Red::Red => "red",
            Red::Green => "green",
            Red::NoTests => "no-tests",
            Red::Inconclusive(_) => "inconclusive",
        }
    }

    /// Whether the story goes back to the agent.
    #[cfg(test)]
    pub(crate) fn sends_back(&self) -> bool {
        matches!(self, Red::Green | Red::NoTests)
    }
}

/// The verdict on the red run's results (the run stops at the first failing command). A
/// command that could not be found or started in the scratch worktree (exit 126, 127) says
/// nothing about the tests.
pub(crate) fn judge(results: &[VerifyResult]) -> Red {
    match results.iter().find(|r| !r.passed) {
        Some(r) if matches!(r.exit_code, Some(126 | 127)) => Red::Inconclusive(format!(
            "`{}` exited {} in the scratch worktree (a command not found or not executable there: \
             it holds only tracked files; install what the commands need with [verify] \
             red_green_setup)",
            r.command,
            r.exit_code.unwrap_or_default()
        )),
        Some(_) => Red::Red,
        None if results.is_empty() => {
            Red::Inconclusive("no verify command to run the tests with".into())
        }
        None => Red::Green,
    }
}

/// Up to five paths, then a count.
fn list(paths: &[String]) -> String {
    let mut s = paths.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if paths.len() > 5 {
        s.push_str(&format!(" and {} more", paths.len() - 5));
    }
    s
}

/// The short text for the status line: `red run: failed as required`, ….
pub(crate) fn short(red: &Red) -> String {
    match red {
        Red::Red => "red run failed without the change, as required".into(),
        Red::Green => "red run: the new tests pass without the change".into(),
        Red::NoTests => "red run: no test file changed".into(),
        Red::Inconclusive(_) => "red run inconclusive".into(),
    }
}

/// What the story's next prompt says when the red run sends it back.
pub(crate) fn reason(red: &Red, tests: &[String], commands: &[String]) -> Option<String> {
    let cmds = commands
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match red {
        Red::Green => Some(format!(
            "The red-green check failed: with only your test-file changes ({}) on the commit the \
             story started from, {cmds} passed. The new tests pass without your change: they do \
             not test it. Make them exercise what the story adds, so that they fail on the old \
             code, and finish the story again.",
            list(tests)
        )),
        Red::NoTests => Some(
            "The red-green check failed: your change touched no test file, so nothing shows the \
             story works. Add tests, in test files (a test inside a source file cannot be taken \
             alone), that fail without your change and pass with it."
                .to_string(),
        ),
        Red::Red | Red::Inconclusive(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(cmd: &str, code: i32) -> VerifyResult {
        VerifyResult {
            command: cmd.into(),
            exit_code: Some(code),
            passed: code == 0,
            timed_out: false,
            duration_ms: 1,
        }
    }

    #[test]
    fn default_patterns_know_each_languages_test_files() {
        let t = TestFiles::new(None).unwrap();
        for p in [
            "tests/cli.rs",
            "crates/core/tests/parse.rs",
            "src/prd/dialect/tests.rs",
            "src/net/conn_test.rs",
            "tests/snapshots/a__b.snap",
            "pkg/api/handler_test.go",
            "pkg/api/testdata/req.json",
            "test_priority.py",
            "app/tests/test_models.py",
            "app/models_test.py",
            "conftest.py",
            "src/sort.test.ts",
            "web/components/Button.spec.tsx",
            "src/__tests__/sort.js",
            "src/test/java/com/acme/SortTest.java",
            "core/src/main/java/com/acme/SortIT.java",
            "app/src/test/kotlin/SortTest.kt",
            "spec/models/user_spec.rb",
        ] {
            assert!(t.matches(p), "{p}");
        }
        for p in [
            "src/main.rs",
            "src/testing.rs",
            "pkg/api/handler.go",
            "app/models.py",
            "src/sort.ts",
            "src/main/java/com/acme/Sort.java",
            "README.md",
            "contest.py",
            "src/latest/x.rs",
        ] {
            assert!(!t.matches(p), "{p}");
        }
    }

    #[test]
    fn configured_patterns_replace_the_defaults() {
        let t = TestFiles::new(Some(&["checks/*.sh".to_string()])).unwrap();
        assert!(t.matches("checks/a.sh"));
        assert!(!t.matches("checks/deep/a.sh"));
        assert!(!t.matches("tests/a.rs"));
        assert!(TestFiles::new(Some(&["a/{b".to_string()])).is_err());
    }

    #[test]
    fn the_red_run_uses_the_storys_own_commands_first() {
        let g = vec!["cargo test".to_string()];
        let s = vec!["cargo test priority".to_string()];
        assert_eq!(red_commands(&g, &s), s);
        assert_eq!(red_commands(&g, &[]), g);
    }

    #[test]
    fn a_failure_is_red_a_pass_is_green_a_missing_command_is_inconclusive() {
        assert_eq!(judge(&[r("a", 0), r("b", 1)]), Red::Red);
        assert_eq!(judge(&[r("a", 0)]), Red::Green);
        assert!(
            matches!(judge(&[r("jest", 127)]), Red::Inconclusive(w) if w.contains("`jest` exited 127"))
        );
        assert!(matches!(judge(&[]), Red::Inconclusive(_)));
        assert!(Red::Green.sends_back() && Red::NoTests.sends_back());
        assert!(!Red::Red.sends_back() && !Red::Inconclusive(String::new()).sends_back());
    }

    #[test]
    fn the_reason_names_the_tests_and_the_commands() {
        let tests: Vec<String> = (1..=7).map(|i| format!("t{i}.py")).collect();
        let why = reason(&Red::Green, &tests, &["pytest".into()]).unwrap();
        assert!(
            why.contains("(t1.py, t2.py, t3.py, t4.py, t5.py and 2 more)"),
            "{why}"
        );
        assert!(why.contains("`pytest` passed"), "{why}");
        assert!(why.contains("they do not test it"), "{why}");
        assert!(
            reason(&Red::NoTests, &[], &[])
                .unwrap()
                .contains("no test file")
        );
        assert_eq!(reason(&Red::Red, &tests, &[]), None);
    }
}
