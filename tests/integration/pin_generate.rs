//! `ralph pin generate` on real trees: this repository and crates from the cargo registry cache.

use crate::support::pin::*;
use crate::support::ralph_at;
use predicates::prelude::*;
use std::path::Path;

fn assert_keyword_counts(pin: &str) {
    for name in names(pin) {
        let n = keywords(pin, &name).len();
        assert!((10..=20).contains(&n), "{name}: {n} keywords\n{pin}");
    }
}

fn assert_idempotent(root: &Path) {
    let once = index(root);
    ralph_at(root)
        .args(["pin", "generate"])
        .assert()
        .success()
        .stderr(predicate::str::contains("unchanged"));
    assert_eq!(index(root), once);
    ralph_at(root)
        .args(["pin", "generate", "--check"])
        .assert()
        .success();
    ralph_at(root).args(["pin", "check"]).assert().success();
}

#[test]
fn generates_this_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_tree(repo, tmp.path(), &["specs/INDEX.md"]);
    ralph_at(tmp.path())
        .args(["pin", "generate"])
        .assert()
        .success()
        .stderr(predicate::str::contains("added"));
    let pin = index(tmp.path());
    let found = names(&pin);
    for module in [
        "ralph",
        "ralph: src/cli",
        "ralph: src/pin",
        "ralph: src/prd",
        "ralph: src/graph",
    ] {
        assert!(
            found.iter().any(|n| n == module),
            "{module} not in {found:?}"
        );
    }
    assert!(section(&pin, "ralph: src/pin").contains("- src/pin/search.rs\n"));
    // Keywords come from the code's imports too: src/dag.rs (in the root entry) uses petgraph.
    assert!(keywords(&pin, "ralph").iter().any(|k| k == "petgraph"));
    assert!(
        keywords(&pin, "ralph: src/graph")
            .iter()
            .any(|k| k == "mermaid")
    );
    assert!(
        keywords(&pin, "ralph: src/pin")
            .iter()
            .any(|k| k == "keywords")
    );
    assert_keyword_counts(&pin);
    assert_idempotent(tmp.path());
}

#[test]
fn generates_a_registry_crate_and_splits_big_folders() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&registry_crate("regex-syntax"), tmp.path(), &[]);
    ralph_at(tmp.path())
        .args(["pin", "generate"])
        .assert()
        .success();
    let pin = index(tmp.path());
    assert_eq!(
        names(&pin),
        [
            "regex-syntax",
            "regex-syntax: src/ast",
            "regex-syntax: src/hir",
            "regex-syntax: src/unicode_tables"
        ]
    );
    assert!(section(&pin, "regex-syntax: src/ast").contains("- src/ast/parse.rs\n"));
    assert!(
        keywords(&pin, "regex-syntax: src/unicode_tables")
            .iter()
            .any(|k| k == "perl")
    );
    for name in names(&pin) {
        let items = section(&pin, &name)
            .lines()
            .filter(|l| l.starts_with("- "))
            .count();
        assert!(items <= 30, "{name} lists {items} paths");
    }
    assert_keyword_counts(&pin);
    assert_idempotent(tmp.path());
}

#[test]
fn finds_the_crates_of_a_cargo_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/*\"]\n",
    )
    .unwrap();
    copy_tree(
        &registry_crate("similar"),
        &tmp.path().join("crates/similar"),
        &[],
    );
    copy_tree(
        &registry_crate("strsim"),
        &tmp.path().join("crates/strsim"),
        &[],
    );
    ralph_at(tmp.path())
        .args(["pin", "generate"])
        .assert()
        .success();
    let pin = index(tmp.path());
    let found = names(&pin);
    assert!(found.iter().any(|n| n == "strsim"), "{found:?}");
    assert!(found.iter().any(|n| n.starts_with("similar")), "{found:?}");
    assert!(section(&pin, "strsim").contains("- crates/strsim/src/lib.rs\n"));
    assert!(keywords(&pin, "strsim").iter().any(|k| k == "levenshtein"));
    assert_idempotent(tmp.path());
}

#[test]
fn honours_gitignore_and_skips_build_output() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let write = |p: &str, s: &str| {
        let p = root.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    };
    let body = "def load_settings():\n    pass\n".repeat(50);
    write(".gitignore", "generated/\n");
    write("app/settings.py", &body);
    write("generated/out.py", &body);
    write("node_modules/dep/index.js", "function x() {}");
    write("target/debug/build.rs", "fn main() {}");
    ralph_at(root).args(["pin", "generate"]).assert().success();
    let pin = index(root);
    assert!(pin.contains("- app/settings.py\n"), "{pin}");
    for hidden in ["generated/", "node_modules", "target/"] {
        assert!(!pin.contains(hidden), "{hidden} in\n{pin}");
    }
}

#[test]
fn check_and_stdout_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("src")).unwrap();
    std::fs::write(tmp.path().join("src/lib.rs"), "pub fn hello_world() {}\n").unwrap();
    ralph_at(tmp.path())
        .args(["pin", "generate", "--check"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("+++ b/specs/INDEX.md"))
        .stdout(predicate::str::contains("+- src/lib.rs"))
        .stderr(predicate::str::contains("out of date"));
    ralph_at(tmp.path())
        .args(["pin", "generate", "--stdout"])
        .assert()
        .success()
        .stdout(predicate::str::contains("**Keywords**: hello, world"));
    assert!(!tmp.path().join("specs").exists());
    ralph_at(tmp.path())
        .args(["pin", "generate", "--check", "--stdout"])
        .assert()
        .code(2);
}

#[test]
fn a_missing_root_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    ralph_at(&tmp.path().join("nope"))
        .args(["pin", "generate"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "nope: cannot walk the project (check --root)",
        ));
}
