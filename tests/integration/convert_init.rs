//! `ralph prd convert --to snarktank` and `ralph init` (the real binary, temp projects).

use crate::support::{hold_lock, output_in};
use std::path::Path;

fn wild(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wild/prd")
        .join(name)
}

#[test]
fn convert_dry_run_diffs_and_convert_writes_the_canonical_form() {
    let dir = tempfile::tempdir().unwrap();
    let prd = dir.path().join("prd.json");
    std::fs::copy(wild("045-ShepAlderson-github-issues-tui.json"), &prd).unwrap();
    let before = std::fs::read(&prd).unwrap();
    let (code, out, err) = output_in(
        dir.path(),
        &["prd", "convert", "--to", "snarktank", "--dry-run"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("-  \"name\": ") && out.contains("+  \"project\": "),
        "{out}"
    );
    assert!(out.contains("+      \"blockedBy\": ["), "{out}");
    assert!(err.contains("ralph-tui"), "{err}");
    assert_eq!(std::fs::read(&prd).unwrap(), before);
    let (code, out, err) = output_in(dir.path(), &["prd", "convert", "--to", "snarktank"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("converted from the ralph-tui dialect"),
        "{out}"
    );
    let (code, out, err) = output_in(dir.path(), &["validate"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("warning[dialect]"), "{out}");
    let (code, out, _) = output_in(dir.path(), &["prd", "convert", "--to", "snarktank"]);
    assert_eq!(code, 0);
    assert!(out.contains("already in the canonical"), "{out}");
}

#[test]
fn convert_refuses_an_invalid_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        wild("047-TRocket-Labs-vectorlint.json"),
        dir.path().join("prd.json"),
    )
    .unwrap();
    let (code, _, err) = output_in(dir.path(), &["prd", "convert", "--to", "snarktank"]);
    assert_eq!(code, 1);
    assert!(err.contains("a feature list"), "{err}");
}

#[test]
fn init_creates_everything_once_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "//! x\npub fn f() {}\n").unwrap();
    std::fs::write(root.join(".gitignore"), "target").unwrap();
    let (code, out, err) = output_in(root, &["init"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("with a starter story"), "{out}");
    assert!(out.contains("with verify: cargo test"), "{out}");
    assert!(out.contains("added .ralph/ to"), "{out}");
    assert!(out.contains("next: "), "{out}");
    assert!(root.join("specs/INDEX.md").exists(), "{out}{err}");
    let toml = std::fs::read_to_string(root.join("ralph.toml")).unwrap();
    assert!(toml.contains("commands = [\"cargo test\"]"), "{toml}");
    assert_eq!(
        std::fs::read_to_string(root.join(".gitignore")).unwrap(),
        "target\n# ralph's run state (lock, logs, archives)\n.ralph/\n"
    );
    let (code, out, err) = output_in(root, &["validate"]);
    assert_eq!(code, 0, "{out}{err}");
    let files = ["prd.json", "ralph.toml", ".gitignore", "specs/INDEX.md"];
    let snapshot: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(root.join(f)).unwrap())
        .collect();
    let (code, out, err) = output_in(root, &["init"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("kept") && !out.contains("created"), "{out}");
    let again: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(root.join(f)).unwrap())
        .collect();
    assert_eq!(snapshot, again);
}

#[test]
fn init_from_a_markdown_prd() {
    let dir = tempfile::tempdir().unwrap();
    let md = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/prd-markdown/04-merchant-content-blocks.md");
    let (code, out, err) = output_in(dir.path(), &["init", "--from", md.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("created") && out.contains("from"), "{out}");
    assert!(out.contains("no test command found"), "{out}");
    let (code, out, err) = output_in(dir.path(), &["status"]);
    assert_eq!(code, 0, "{out}{err}");
    insta::assert_snapshot!("status_after_init_from_markdown", out);
}

#[test]
fn import_force_never_replaces_a_prd_while_a_run_holds_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let prd = dir.path().join("prd.json");
    std::fs::copy(wild("045-ShepAlderson-github-issues-tui.json"), &prd).unwrap();
    let before = std::fs::read(&prd).unwrap();
    let plan = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/prd-markdown/03-ghissues-tui.md");
    std::fs::copy(plan, dir.path().join("plan.md")).unwrap();
    let root = hold_lock(dir.path(), "4242");
    let (code, out, err) = output_in(dir.path(), &["prd", "import", "plan.md", "--force"]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(err.contains("lock"), "{err}");
    assert_eq!(std::fs::read(&prd).unwrap(), before);
    drop(root);
    let (code, out, err) = output_in(dir.path(), &["prd", "import", "plan.md", "--force"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_ne!(std::fs::read(&prd).unwrap(), before);
}

#[test]
fn convert_never_writes_while_a_run_holds_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let prd = dir.path().join("prd.json");
    std::fs::copy(wild("045-ShepAlderson-github-issues-tui.json"), &prd).unwrap();
    let before = std::fs::read(&prd).unwrap();
    // What `ralph run` holds: an exclusive flock on the project root.
    let root = hold_lock(dir.path(), "4242");
    let (code, out, err) = output_in(dir.path(), &["prd", "convert", "--to", "snarktank"]);
    assert_ne!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read(&prd).unwrap(), before);
    drop(root);
    let (code, _, err) = output_in(dir.path(), &["prd", "convert", "--to", "snarktank"]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(std::fs::read(&prd).unwrap(), before);
}
