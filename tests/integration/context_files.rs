//! The code index and "where to look": the real binary on small synthetic trees.

use crate::support::ralph_in;
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn prd(title: &str, description: &str) -> String {
    serde_json::json!({
        "project": "Demo",
        "branchName": "ralph/demo",
        "description": "d",
        "userStories": [{
            "id": "S-1", "title": title, "description": description,
            "acceptanceCriteria": [], "priority": 1, "passes": false, "notes": ""
        }]
    })
    .to_string()
}

/// A flat crate of unrelated modules, one of which already does what the story asks.
fn project(title: &str, description: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let topics = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
    ];
    for t in topics {
        write(
            r,
            &format!("src/{t}.rs"),
            &format!("//! The {t} part.\npub fn {t}_run(x: u32) -> u32 {{ x + 1 }}\n"),
        );
    }
    write(
        r,
        "src/render_table.rs",
        "//! Lays rows out in aligned columns.\npub struct Column { width: usize }\npub fn render_table(rows: &[Vec<String>]) -> String {\n    String::new()\n}\nfn pad(s: &str) -> String { s.to_string() }\n",
    );
    write(
        r,
        "tests/render_table_test.rs",
        "use demo::render_table;\n#[test]\nfn render_table_aligns() { render_table(&[]); render_table(&[]); }\n",
    );
    write(r, "prd.json", &prd(title, description));
    d
}

fn prompt(root: &Path) -> String {
    let out = ralph_in(root).args(["context", "S-1"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The numbered files of the "where to look" section, in order.
fn where_to_look(prompt: &str) -> Vec<String> {
    let start = prompt
        .find("# Where to look")
        .expect("a where-to-look section");
    let rest = &prompt[start + 1..];
    let end = rest.find("\n# ").map_or(rest.len(), |i| i);
    rest[..end]
        .lines()
        .filter_map(|l| {
            let (n, tail) = l.split_once(". ")?;
            n.parse::<usize>().ok()?;
            Some(tail.split_whitespace().next()?.to_string())
        })
        .collect()
}

#[test]
fn a_story_naming_an_identifier_finds_its_file_first_and_its_test_below_it() {
    let d = project("Show the renderTable output with a header", "");
    let p = prompt(d.path());
    let files = where_to_look(&p);
    assert_eq!(files[0], "src/render_table.rs", "{p}");
    let test = files.iter().position(|f| f == "tests/render_table_test.rs");
    assert!(test.is_none_or(|i| i > 0), "{files:?}");
    // The matching definitions are shown with their signatures and lines.
    assert!(
        p.contains("3: `pub fn render_table(rows: &[Vec<String>]) -> String`"),
        "{p}"
    );
    // The top file's other definitions follow as its outline, after the matching ones.
    let sig = p.find("fn render_table(rows").unwrap();
    let also = p.find("   Also defined here:\n").expect("an outline");
    let pad = p.find("6: `fn pad(s: &str)").expect("pad in the outline");
    assert!(sig < also && also < pad, "{p}");
    assert_eq!(p.matches("Also defined here").count(), 1, "{p}");
}

#[test]
fn stop_words_and_boilerplate_match_no_file() {
    let d = project("As a user I want to add it", "so that the thing works");
    let p = prompt(d.path());
    assert!(where_to_look(&p).is_empty(), "{p}");
    assert!(p.contains("No source file of this project matches"), "{p}");
}

#[test]
fn the_cache_survives_deletion_corruption_and_an_unwritable_place() {
    let d = project("render table columns", "");
    let r = d.path();
    let first = prompt(r);
    let cache = r.join(".ralph/code-index.bin");
    assert!(cache.is_file());
    std::fs::write(&cache, b"RALPHCIX\x01\x00\x00\x00garbage").unwrap();
    assert_eq!(prompt(r), first);
    assert!(
        std::fs::read(&cache).unwrap().len() > 30,
        "rebuilt and saved"
    );
    std::fs::remove_file(&cache).unwrap();
    assert_eq!(prompt(r), first);
    // A folder where the cache goes: it cannot be saved, the prompt is still built, and it
    // says why.
    std::fs::remove_file(&cache).unwrap();
    std::fs::create_dir_all(cache.join("x")).unwrap();
    let out = ralph_in(r).args(["context", "S-1"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), first);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("code index could not be saved"), "{err}");
}

/// Whether a cache file is as long as its preamble says (magic 8, version 4, head length 8,
/// body length 8, head check 8). Its length alone changes between builds: the head holds the
/// folders' modification times, which postcard writes in as many bytes as they need.
fn whole(bytes: &[u8]) -> bool {
    let len = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    bytes.len() >= 36 && bytes.len() == 36 + len(12) + len(20)
}

#[test]
fn a_truncated_cache_or_one_damaged_where_a_query_reads_it_is_rebuilt() {
    let d = project("render table columns", "");
    let r = d.path();
    let first = prompt(r);
    let cache = r.join(".ralph/code-index.bin");
    let good = std::fs::read(&cache).unwrap();
    // Cut short: its length no longer matches the preamble's.
    std::fs::write(&cache, &good[..good.len() - 1]).unwrap();
    assert_eq!(prompt(r), first);
    assert!(whole(&std::fs::read(&cache).unwrap()), "rebuilt");
    // The head intact, every byte after it changed: found when the query reads its lists.
    // (Preamble: magic 8, version 4, head length 8, body length 8, head check 8.)
    let head_len = u64::from_le_bytes(good[12..20].try_into().unwrap()) as usize;
    let mut bad = good.clone();
    for b in &mut bad[36 + head_len..] {
        *b ^= 0x55;
    }
    std::fs::write(&cache, &bad).unwrap();
    let out = ralph_in(r).args(["context", "S-1"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), first);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked") && !err.contains("error"), "{err}");
    let saved = std::fs::read(&cache).unwrap();
    assert!(whole(&saved));
    assert_ne!(saved, bad, "rebuilt and saved");
    assert_eq!(prompt(r), first);
}

#[test]
fn a_changed_file_is_read_again() {
    let d = project("zebra stripes", "");
    let r = d.path();
    assert!(where_to_look(&prompt(r)).is_empty());
    write(
        r,
        "src/kilo.rs",
        "//! The kilo part.\npub fn zebra_stripes() -> bool { true }\n",
    );
    let p = prompt(r);
    assert_eq!(
        where_to_look(&p).first().map(String::as_str),
        Some("src/kilo.rs"),
        "{p}"
    );
    std::fs::remove_file(r.join("src/kilo.rs")).unwrap();
    assert!(where_to_look(&prompt(r)).is_empty());
}

#[test]
fn without_a_pin_the_prompt_says_to_search_the_code_and_ralph_warns() {
    let d = project("render table", "");
    let out = ralph_in(d.path())
        .args(["context", "S-1"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.matches("ralph pin generate").count(), 1, "{err}");
    let p = String::from_utf8(out.stdout).unwrap();
    assert!(p.contains("has no Pin (specs/INDEX.md) yet"), "{p}");
    assert!(!p.contains("Relevant modules from the Pin"), "{p}");
}

#[test]
fn the_prompt_names_the_branch_and_the_verify_commands() {
    let d = project("render table", "");
    write(
        d.path(),
        "ralph.toml",
        "[verify]\ncommands = [\"cargo test\", \"cargo clippy\"]\n",
    );
    let p = prompt(d.path());
    assert!(p.contains("Branch: `ralph/demo`"), "{p}");
    assert!(p.contains("- `cargo test`\n- `cargo clippy`\n"), "{p}");
}

#[test]
fn explain_shows_each_files_score_words_and_evidence() {
    let d = project("render the table columns", "");
    ralph_in(d.path())
        .args(["pin", "generate"])
        .assert()
        .success();
    let out = ralph_in(d.path())
        .args(["context", "S-1", "--explain"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("src/render_table.rs"), "{text}");
    assert!(text.contains("words: "), "{text}");
    assert!(text.contains("[test]"), "{text}");
    assert!(text.contains("query: render table columns"), "{text}");
}

#[test]
fn pin_search_ranks_files_and_takes_words_that_start_with_a_dash() {
    let d = project("x", "");
    ralph_in(d.path())
        .args(["pin", "generate"])
        .assert()
        .success();
    let out = ralph_in(d.path())
        .args([
            "pin",
            "search",
            "--files",
            "--",
            "--render-table",
            "Columns",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("1. src/render_table.rs"), "{text}");
    assert!(text.contains("Columns"), "words as written: {text}");
    // "render" and "table" add the same (both in the path and the name): the story's order.
    assert!(text.contains("matched: render, table, Columns"), "{text}");
    // Its matching definition, with the signature read from its line.
    assert!(
        text.contains("\n   3: pub fn render_table(rows: &[Vec<String>]) -> String\n"),
        "{text}"
    );
}
