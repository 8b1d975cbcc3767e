//! No panic on any input: every command's parsers, fed the compat fixtures mutated at random
//! (proptest), the corpus in `tests/fuzz/corpus/` and the crashers in `tests/fuzz/crashers/`
//! (inputs that once crashed ralph, kept as regression tests). Fast enough for CI: the
//! library-level fuzz runs a few hundred cases, the binary-level one a few dozen.

use crate::support::ralph;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const FIXTURES: &[&str] = &[
    "tests/fixtures/compat/newralph/prd.json",
    "tests/fixtures/compat/newralph/prd.json.example",
    "tests/fixtures/compat/snarktank/prd.json.example",
    "tests/fixtures/compat/newralph/progress.txt",
    "tests/fixtures/compat/newralph/INDEX.md",
];

fn fixture(i: usize) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURES[i % FIXTURES.len()])).unwrap()
}

/// One mutation of a byte string.
#[derive(Debug, Clone)]
enum Op {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b",",
    b":",
    b"\\",
    b"\"blockedBy\": [\"US-001\"]",
    b"\"passes\": true",
    b"\"id\": \"\"",
    b"null",
    b"1e999",
    b"-0",
    b"\xff\xfe",
    b"\xe2\x80\xae",
    b"\n## ",
    b"\n---\n",
    b"## Codebase Patterns\n",
    b"\n- [x](",
    b"```\n",
    b"\r\n",
    b"\0",
];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Op::Flip(i, b)),
        (any::<usize>(), proptest::sample::select(TOKENS))
            .prop_map(|(i, t)| Op::Insert(i, t.to_vec())),
        (any::<usize>(), 0usize..64).prop_map(|(i, n)| Op::Delete(i, n)),
        (any::<usize>(), 0usize..256).prop_map(|(i, n)| Op::Duplicate(i, n)),
        any::<usize>().prop_map(Op::Truncate),
    ]
}

fn mutate(mut b: Vec<u8>, ops: &[Op]) -> Vec<u8> {
    for op in ops {
        let at = |i: usize, b: &Vec<u8>| if b.is_empty() { 0 } else { i % (b.len() + 1) };
        match op {
            Op::Flip(i, x) if !b.is_empty() => {
                let i = i % b.len();
                b[i] = *x;
            }
            Op::Flip(..) => {}
            Op::Insert(i, t) => {
                let i = at(*i, &b);
                b.splice(i..i, t.iter().copied());
            }
            Op::Delete(i, n) => {
                let i = at(*i, &b);
                let end = (i + n).min(b.len());
                b.drain(i..end);
            }
            Op::Duplicate(i, n) => {
                let i = at(*i, &b);
                let end = (i + n).min(b.len());
                let chunk = b[i..end].to_vec();
                b.splice(i..i, chunk);
            }
            Op::Truncate(i) => {
                let i = at(*i, &b);
                b.truncate(i);
            }
        }
    }
    b
}

/// Every library parser that reads user files, on `bytes`.
fn parse_everything(bytes: &[u8]) {
    let path = Path::new("prd.json");
    let (_report, _value) = ralph::api::validate_bytes(path, bytes);
    if let Ok(prd) = ralph::api::Prd::from_bytes(path, bytes) {
        let states = ralph::api::states(&prd.stories);
        let _ = ralph::api::next_ready(&prd.stories, &states, &Default::default());
        let _ = ralph::api::dot(&prd.stories, &states);
        let _ = ralph::api::mermaid(&prd.stories, &states);
        let _ = prd.to_pretty();
    }
    let _ = ralph::api::scan_progress(bytes);
    let opts = ralph::api::CompactOptions {
        force: true,
        keep_recent: 3,
        ..Default::default()
    };
    let _ = ralph::api::compact(bytes, &opts);
    let text = String::from_utf8_lossy(bytes);
    let _ = ralph::api::Pin::parse(&text);
    let _ = ralph::api::PinView::parse(&text);
    let _ = ralph::api::parse_config(Path::new("ralph.toml"), &text);
    let _ = ralph::api::redact(&text);
    let _ = ralph::api::progress_added(bytes, &text.as_bytes()[..text.len() / 2]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixtures_never_panic_a_parser(i in 0usize..FIXTURES.len(), ops in proptest::collection::vec(op(), 0..12)) {
        parse_everything(&mutate(fixture(i), &ops));
    }
}

/// A scratch project holding `input` where its name says (a valid prd.json otherwise).
fn project_with(name: &str, input: &[u8]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join("specs")).unwrap();
    std::fs::write(root.join("prd.json"), fixture(0)).unwrap();
    let target = if name.ends_with(".progress.txt") {
        root.join("progress.txt")
    } else if name.ends_with(".INDEX.md") {
        root.join("specs/INDEX.md")
    } else {
        root.join("prd.json")
    };
    std::fs::write(target, input).unwrap();
    d
}

/// Run every read command in `root`; none may panic (exit 101) or hang.
fn every_command_ends_without_a_panic(root: &Path, what: &str) {
    let commands: &[&[&str]] = &[
        &["validate"],
        &["status"],
        &["status", "--json"],
        &["next", "--explain"],
        &["graph"],
        &["graph", "--format", "mermaid"],
        &["context", "US-001"],
        &["compact", "--dry-run", "--force"],
        &["pin", "check"],
        &["pin", "search", "story", "prd"],
        &["run", "--dry-run"],
    ];
    for args in commands {
        // With a timeout: a hang fails the test (no exit code) instead of stalling CI.
        let out = ralph()
            .args(*args)
            .current_dir(root)
            .env("PATH", "/usr/bin:/bin")
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && out.status.code().is_some_and(|c| c != 101),
            "{what}: ralph {args:?} panicked: {err}"
        );
    }
}

fn files_in(dir: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

#[test]
fn the_corpus_and_every_kept_crasher_run_through_every_command() {
    let mut files = files_in("tests/fuzz/corpus");
    files.extend(files_in("tests/fuzz/crashers"));
    assert!(files.len() >= 8);
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&f).unwrap();
        parse_everything(&bytes);
        let d = project_with(&name, &bytes);
        every_command_ends_without_a_panic(d.path(), &name);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixtures_never_panic_a_command(i in 0usize..FIXTURES.len(), ops in proptest::collection::vec(op(), 1..8)) {
        let name = ["a.prd.json", "b.prd.json", "c.prd.json", "d.progress.txt", "e.INDEX.md"][i];
        let input = mutate(fixture(i), &ops);
        let d = project_with(name, &input);
        every_command_ends_without_a_panic(d.path(), &format!("{name} mutated by {ops:?}"));
    }
}
