//! `ralph report`: the fixture history (tests/fixtures/history/history.jsonl: two runs, the
//! latest with two workers, a retry, a verify failure, usage and cost on some records, one torn
//! line) as text, markdown and HTML (insta snapshots), `--run`, `--out`, and the errors.

use crate::support::normalize::normalize;
use crate::support::{closed_pipe, command, output_in};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history/history.jsonl")
}

/// A project whose `.ralph/history.jsonl` is the fixture.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".ralph")).unwrap();
    std::fs::copy(fixture(), dir.path().join(".ralph/history.jsonl")).unwrap();
    dir
}

fn report(args: &[&str]) -> String {
    let dir = project();
    let (code, out, err) = output_in(dir.path(), &[&["report"], args].concat());
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn text_md_and_html_of_the_latest_run() {
    insta::assert_snapshot!("report_text", report(&[]));
    insta::assert_snapshot!("report_md", report(&["--format", "md"]));
    insta::assert_snapshot!("report_html", report(&["--format", "html"]));
}

#[test]
fn every_run_and_one_run_by_id() {
    insta::assert_snapshot!("report_text_all", report(&["--run", "all"]));
    let old = report(&["--run", "20261120T090000-4242"]);
    // No usage in that run: no tokens column; only its stories.
    insta::assert_snapshot!("report_text_one_run", old);
}

#[test]
fn an_unknown_run_names_the_file_and_the_nearest_id() {
    let dir = project();
    let (code, out, err) = output_in(dir.path(), &["report", "--run", "20261126T100000-5152"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    insta::assert_snapshot!("unknown_run", err);
}

#[test]
fn no_history_is_an_error_that_says_how_to_get_one() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = output_in(dir.path(), &["report"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("no_history", err);
}

#[test]
fn out_writes_the_file_and_nothing_on_stdout() {
    let dir = project();
    let (code, out, err) = output_in(
        dir.path(),
        &[
            "report",
            "--format",
            "html",
            "--out",
            "r.html",
            "--history",
            ".ralph/history.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "{out}");
    let page = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert_eq!(page, report(&["--format", "html"]));
    let (code, _, err) = output_in(dir.path(), &["report", "--out", "no/such/dir/r.txt"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("out_unwritable", normalize(&err, dir.path()));
}

#[test]
fn a_closed_stdout_ends_the_report_quietly() {
    let dir = project();
    for format in ["text", "md", "html"] {
        let out = command()
            .current_dir(dir.path())
            .args(["report", "--run", "all", "--format", format])
            .stdout(closed_pipe())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{format}: {err}");
        assert!(!err.contains("Broken pipe"), "{format}: {err}");
        assert_ne!(out.status.code(), Some(101), "{format}: {err}");
    }
}
