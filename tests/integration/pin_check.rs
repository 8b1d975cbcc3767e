//! `ralph pin check`: paths, globs, spec links, names, keyword counts, and paths leaving the project.

use crate::support::normalize::normalize;
use crate::support::{output, ralph_at};
use predicates::prelude::*;
use std::path::Path;

/// `ralph pin check` in `root`: its exit code, and its stdout and stderr as one text (the
/// project's path as `[ROOT]`) for an exact comparison.
fn check(root: &Path) -> (i32, String) {
    let (code, out, err) = output(ralph_at(root).args(["pin", "check"]));
    (
        code,
        normalize(&format!("stdout:\n{out}stderr:\n{err}"), root),
    )
}

fn project(pin: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for f in ["src/a.rs", "src/b.rs", "specs/a.md"] {
        let p = tmp.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x").unwrap();
    }
    std::fs::write(tmp.path().join("specs/INDEX.md"), pin).unwrap();
    tmp
}

const TEN: &str = "one, two, three, four, five, six, seven, eight, nine, ten";

#[test]
fn this_repository_pin_is_valid() {
    ralph_at(Path::new(env!("CARGO_MANIFEST_DIR")))
        .args(["pin", "check"])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 errors"));
}

#[test]
fn a_valid_pin_passes_with_globs_and_spec_links() {
    let tmp = project(&format!(
        "# Pin\n\n### A\n**Keywords**: {TEN}\n\n**File Paths**:\n- src/*.rs\n- src\n\n**Spec Link**: [spec](specs/a.md)\n\n---\n"
    ));
    ralph_at(tmp.path())
        .args(["pin", "check"])
        .assert()
        .success()
        .stdout("specs/INDEX.md: 1 entries, 0 errors, 0 warnings\n");
}

#[test]
fn errors_name_the_line_and_the_fix() {
    let tmp = project(&format!(
        "### A\n**Keywords**: {TEN}\n**File Paths**:\n- src/a.rs\n- src/gone.rs\n- ../outside.rs\n- /etc/passwd\n\
         **Spec Link**: specs/missing.md\n---\n\
         ### a\n**Keywords**: lonely\n**File Paths**:\n- src/b.rs\n---\n"
    ));
    let (code, text) = check(tmp.path());
    assert_eq!(code, 1, "{text}");
    insta::assert_snapshot!("errors", text);
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_project_are_errors() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.rs"), "x").unwrap();
    let tmp = project(&format!(
        "### A\n**Keywords**: {TEN}\n**File Paths**:\n- link/secret.rs\n- link/*.rs\n---\n"
    ));
    std::os::unix::fs::symlink(outside.path(), tmp.path().join("link")).unwrap();
    let (code, text) = check(tmp.path());
    assert_eq!(code, 1, "{text}");
    insta::assert_snapshot!("symlinks", text);
}

#[test]
fn keyword_counts_outside_10_to_20_only_warn() {
    let many: Vec<String> = (0..21).map(|i| format!("k{i}")).collect();
    let tmp = project(&format!(
        "### A\n**Keywords**: {}\n**File Paths**:\n- src/a.rs\n---\n",
        many.join(", ")
    ));
    let (code, text) = check(tmp.path());
    assert_eq!(code, 0, "{text}");
    insta::assert_snapshot!("keyword_counts", text);
}

#[test]
fn a_missing_or_unreadable_pin_is_an_error_with_a_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, text) = check(tmp.path());
    assert_eq!(code, 1, "{text}");
    insta::assert_snapshot!("missing_pin", text);
    let bad = project("");
    std::fs::write(bad.path().join("specs/INDEX.md"), b"### A\n\xff\n").unwrap();
    let (code, text) = check(bad.path());
    assert_eq!(code, 1, "{text}");
    insta::assert_snapshot!("not_utf8", text);
}

#[test]
fn the_fork_pin_parses_and_reports_only_real_problems() {
    let fork = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compat/newralph/INDEX.md"),
    )
    .unwrap();
    let tmp = project(&fork);
    // None of the fork's files exist here: every path is reported, nothing else breaks.
    let (code, text) = check(tmp.path());
    assert_eq!(code, 1, "{text}");
    insta::assert_snapshot!("fork_pin", text);
}
