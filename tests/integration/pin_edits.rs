//! What people write in specs/INDEX.md survives `ralph pin generate`.

use crate::support::pin::*;
use crate::support::ralph_at;
use predicates::prelude::*;

fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&registry_crate("regex-syntax"), tmp.path(), &[]);
    std::fs::create_dir_all(tmp.path().join("specs")).unwrap();
    std::fs::write(tmp.path().join("specs/ast.md"), "# AST spec\n").unwrap();
    tmp
}

/// Add a source file to src/hir (the regex-syntax `src/hir` entry gains it) and regenerate,
/// expecting `summary` in the report.
fn add_zebra_stripes(root: &std::path::Path, summary: &str) {
    std::fs::write(
        root.join("src/hir/zebra_stripes.rs"),
        "pub fn paint_zebra_stripes() {}\npub struct ZebraStripe;\n".repeat(20),
    )
    .unwrap();
    ralph_at(root)
        .args(["pin", "generate"])
        .assert()
        .success()
        .stderr(predicate::str::contains(summary));
}

#[test]
fn a_hand_edited_pin_survives_regeneration_byte_for_byte() {
    let tmp = project();
    let root = tmp.path();
    ralph_at(root).args(["pin", "generate"]).assert().success();
    let generated = index(root);
    let old_ast = section(&generated, "regex-syntax: src/ast").to_string();
    // A person renames the entry, rewrites its keywords in their own style, links a spec, adds a
    // note, adds an entry of their own and some prose.
    let edited_ast = format!(
        "### Regex parser (AST)\n\nThe concrete syntax tree; start at `src/ast/parse.rs`.\n\n\
         **Keywords**: syntax tree,concrete syntax, {}\n\n**File Paths**:\n* src/ast/*.rs\n\n\
         **Spec Link**: specs/ast.md\n\n---\n",
        keywords(&generated, "regex-syntax: src/ast").join(",")
    );
    let own = "### Glossary\n**Keywords**: terms, words\n\n**File Paths**:\n- specs/ast.md\n\n**Spec Link**: N/A\n\n---\n";
    let text = generated.replace(&old_ast, &format!("{edited_ast}\n{own}"))
        + "\n## Notes from the team\n\nKeep this paragraph.\n";
    std::fs::write(root.join("specs/INDEX.md"), &text).unwrap();

    ralph_at(root).args(["pin", "generate"]).assert().success();
    let after = index(root);
    assert_eq!(after, text, "nothing was new, so nothing may change");
    assert!(after.contains(&edited_ast));
    assert!(after.contains(own));
    assert!(!names(&after).contains(&"regex-syntax: src/ast".to_string()));
    ralph_at(root).args(["pin", "check"]).assert().success();
}

#[test]
fn new_code_adds_files_and_keywords_without_touching_human_ones() {
    let tmp = project();
    let root = tmp.path();
    ralph_at(root).args(["pin", "generate"]).assert().success();
    let generated = index(root);
    let hir = section(&generated, "regex-syntax: src/hir").to_string();
    let mine = hir.replace("**Keywords**: ", "**Keywords**: my term, ");
    let mine = mine.replace(
        &keywords(&generated, "regex-syntax: src/hir")[19..].join(", "),
        "",
    );
    let mine = mine.replace(", \n", "\n");
    std::fs::write(root.join("specs/INDEX.md"), generated.replace(&hir, &mine)).unwrap();
    add_zebra_stripes(root, "1 updated");
    let after = index(root);
    let entry = section(&after, "regex-syntax: src/hir");
    assert!(entry.contains("- src/hir/zebra_stripes.rs\n"), "{entry}");
    let kws = keywords(&after, "regex-syntax: src/hir");
    assert_eq!(kws[0], "my term");
    assert_eq!(kws.len(), 20);
    // A second run is byte-identical.
    ralph_at(root).args(["pin", "generate"]).assert().success();
    assert_eq!(index(root), after);
}

#[test]
fn a_pin_with_level_two_entries_keeps_them_when_one_is_updated() {
    let tmp = project();
    let root = tmp.path();
    ralph_at(root).args(["pin", "generate"]).assert().success();
    // A person prefers `## Module` headings for the entries.
    let level2 = index(root).replace("\n### ", "\n## ");
    let before = level2.matches("\n## ").count();
    std::fs::write(root.join("specs/INDEX.md"), &level2).unwrap();
    add_zebra_stripes(root, "0 added, 1 updated");
    let after = index(root);
    // The updated entry is written at the Pin's level, so every entry is still an entry.
    assert!(after.contains("\n## regex-syntax: src/hir\n"), "{after}");
    assert!(!after.contains("\n### "), "{after}");
    assert_eq!(after.matches("\n## ").count(), before);
    ralph_at(root).args(["pin", "generate"]).assert().success();
    assert_eq!(index(root), after, "a second run changes nothing");
}

#[test]
fn an_entry_whose_files_vanished_is_flagged_not_deleted() {
    let tmp = project();
    let root = tmp.path();
    ralph_at(root).args(["pin", "generate"]).assert().success();
    std::fs::remove_dir_all(root.join("src/ast")).unwrap();
    ralph_at(root)
        .args(["pin", "generate"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "entry \"regex-syntax: src/ast\": none of its files exist any more",
        ));
    let after = index(root);
    assert!(section(&after, "regex-syntax: src/ast").contains("**Status**: stale"));
    ralph_at(root)
        .args(["pin", "check"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("flagged stale"));
    ralph_at(root).args(["pin", "generate"]).assert().success();
    assert_eq!(index(root), after);
}

#[test]
fn a_deleted_file_leaves_its_entry_and_the_pin_checks_clean() {
    let tmp = project();
    let root = tmp.path();
    ralph_at(root).args(["pin", "generate"]).assert().success();
    let before = index(root);
    assert!(
        section(&before, "regex-syntax: src/hir").contains("- src/hir/visitor.rs\n"),
        "{before}"
    );
    std::fs::remove_file(root.join("src/hir/visitor.rs")).unwrap();
    ralph_at(root)
        .args(["pin", "generate"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "entry \"regex-syntax: src/hir\": removed `src/hir/visitor.rs`, which matches nothing any more",
        ));
    let after = index(root);
    let hir = section(&after, "regex-syntax: src/hir");
    assert!(!hir.contains("visitor.rs"), "{hir}");
    assert!(hir.contains("- src/hir/print.rs\n"), "{hir}");
    ralph_at(root).args(["pin", "check"]).assert().success();
    ralph_at(root).args(["pin", "generate"]).assert().success();
    assert_eq!(index(root), after, "a second run changes nothing");
}

#[test]
fn the_fork_pin_keeps_its_entries_and_prose() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let fork = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/compat/newralph/INDEX.md"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("specs")).unwrap();
    std::fs::write(root.join("specs/INDEX.md"), &fork).unwrap();
    // Every file the fork's Pin names exists (empty), and three libraries have code.
    for line in fork.lines() {
        if let Some(path) = line
            .strip_prefix("- ")
            .filter(|p| p.contains('.') && !p.contains(' '))
        {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
    }
    for f in ["checkpointing", "common", "git"] {
        std::fs::write(
            root.join(format!("lib/{f}.sh")),
            format!("{f}_setup() {{\n  echo {f}\n}}\n").repeat(40),
        )
        .unwrap();
    }
    ralph_at(root).args(["pin", "generate"]).assert().success();
    let after = index(root);
    let usage = &fork[fork.find("## Usage Guidelines").unwrap()..];
    assert!(after.ends_with(usage));
    assert!(after.starts_with(&fork[..fork.find("### Common Libraries").unwrap()]));
    for name in [
        "Agent System Instructions",
        "Skills",
        "Scripts",
        "Ralph Core",
        "Specifications",
    ] {
        assert!(after.contains(section(&fork, name)), "{name} changed");
    }
    let common = keywords(&after, "Common Libraries");
    assert!(common.iter().any(|k| k == "setup"), "{common:?}");
    assert_eq!(common[..17], keywords(&fork, "Common Libraries")[..]);
    assert!(!after.contains("**Status**: stale"));
    ralph_at(root).args(["pin", "generate"]).assert().success();
    assert_eq!(index(root), after);
}

/// A crate whose `src/` grew flat: 20 modules of a few topics, a `tests.rs`, and a folder
/// `src/widget/` beside a part that would be called `widget` too.
fn flat_crate(root: &std::path::Path) -> Vec<String> {
    std::fs::create_dir_all(root.join("src/widget")).unwrap();
    std::fs::create_dir_all(root.join("specs")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"flat\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(root.join("specs/flat.md"), "# Flat\n").unwrap();
    let mut files = Vec::new();
    let topics = ["render", "parse", "table", "style", "color", "term"];
    for t in topics {
        for part in ["", "_cache", "_util"] {
            files.push(format!("src/{t}{part}.rs"));
        }
    }
    files.extend(["src/lib.rs".to_string(), "src/tests.rs".to_string()]);
    files.push("src/widget.rs".to_string());
    for f in &files {
        let stem = f.trim_start_matches("src/").trim_end_matches(".rs");
        let body = format!("pub fn {stem}_step(input: &str) -> usize {{\n    input.len()\n}}\n");
        std::fs::write(root.join(f), body.repeat(40)).unwrap();
    }
    for w in ["button", "slider", "knob"] {
        let body = format!("pub struct {w}Widget;\npub fn draw_{w}() {{}}\n");
        std::fs::write(root.join(format!("src/widget/{w}.rs")), body.repeat(40)).unwrap();
    }
    files.sort();
    files
}

#[test]
fn a_pin_written_before_a_folder_was_split_lists_each_file_once_and_keeps_hand_edits() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let files = flat_crate(root);
    // The Pin as it was when `src/` was one entry, with a person's note, keyword and spec.
    let listed: String = files.iter().map(|f| format!("- {f}\n")).collect();
    let old = format!(
        "# The Pin\n\n## Modules\n\n### flat\nStart at `src/lib.rs`.\n\n\
         **Keywords**: my own words, render, parse\n\n**File Paths**:\n{listed}\n\
         **Spec Link**: specs/flat.md\n\n---\n\n### flat: src/widget\n**Keywords**: widget\n\n\
         **File Paths**:\n- src/widget/button.rs\n- src/widget/slider.rs\n- src/widget/knob.rs\n\n\
         **Spec Link**: N/A\n\n---\n"
    );
    std::fs::write(root.join("specs/INDEX.md"), &old).unwrap();
    ralph_at(root).args(["pin", "generate"]).assert().success();
    let after = index(root);

    // The hand edits are there.
    let flat = section(&after, "flat");
    assert!(flat.contains("Start at `src/lib.rs`."), "{flat}");
    assert!(flat.contains("**Spec Link**: specs/flat.md"), "{flat}");
    assert_eq!(keywords(&after, "flat")[0], "my own words");
    // Every file is listed by exactly one entry.
    let all_files: Vec<String> = files
        .iter()
        .cloned()
        .chain(["button", "slider", "knob"].map(|w| format!("src/widget/{w}.rs")))
        .collect();
    for f in &all_files {
        let n = after.lines().filter(|l| *l == format!("- {f}")).count();
        assert_eq!(n, 1, "{f} listed {n} times in\n{after}");
    }
    // The parts are named by one scheme and no name is taken twice: the `widget` part of
    // `src/` and the `src/widget/` folder keep apart.
    let found = names(&after);
    let mut unique: Vec<String> = found.iter().map(|n| n.to_lowercase()).collect();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), found.len(), "{found:?}");
    for name in [
        "flat (render)",
        "flat (tests)",
        "flat (widget)",
        "flat: src/widget",
    ] {
        assert!(found.iter().any(|n| n == name), "{name} not in {found:?}");
    }
    assert!(section(&after, "flat (render)").contains("- src/render_cache.rs\n"));
    assert!(section(&after, "flat (tests)").contains("**Kind**: tests"));
    // The parts come right after the entry they were split from.
    assert!(after.find("### flat (render)") < after.find("### flat: src/widget"));
    ralph_at(root).args(["pin", "check"]).assert().success();
    // Nothing changes on a second run.
    ralph_at(root)
        .args(["pin", "generate"])
        .assert()
        .success()
        .stderr(predicate::str::contains("unchanged"));
    assert_eq!(index(root), after);
}
