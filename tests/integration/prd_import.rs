//! `ralph prd import` on the markdown PRDs in tests/fixtures/prd-markdown/ (real files, see
//! SOURCES.tsv): each imports into a prd.json that validates, with exactly the stories, ids,
//! titles, descriptions, criteria and dependencies the file states; nothing is overwritten
//! without --force; `ralph init --from` uses the same import.

use crate::support::{output_in, output_joined_in, ralph_in};
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Case {
    file: PathBuf,
    ids: Vec<String>,
    /// (story, its blockers); `None` when the file states no dependency line.
    deps: Option<Vec<(String, Vec<String>)>>,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/prd-markdown")
}

fn cases() -> Vec<Case> {
    let tsv = std::fs::read_to_string(dir().join("SOURCES.tsv")).unwrap();
    tsv.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let deps = match c[6] {
                "none" => Some(vec![]),
                "not stated" => None,
                list => Some(
                    list.split("; ")
                        .map(|p| {
                            let (s, b) = p.split_once(": ").unwrap();
                            (s.to_string(), b.split(", ").map(String::from).collect())
                        })
                        .collect(),
                ),
            };
            Case {
                file: dir().join(c[0]),
                ids: c[5].split(',').map(String::from).collect(),
                deps,
            }
        })
        .collect()
}

fn import(case: &Case) -> (tempfile::TempDir, Value, String) {
    let tmp = tempfile::tempdir().unwrap();
    let file = case.file.to_str().unwrap();
    let (code, out) = output_joined_in(tmp.path(), &["prd", "import", file]);
    assert_eq!(code, 0, "{}: {out}", case.file.display());
    let v: Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("prd.json")).unwrap()).unwrap();
    (tmp, v, out)
}

#[test]
fn every_fixture_imports_with_the_right_stories_and_dependencies() {
    let all = cases();
    assert_eq!(all.len(), 9);
    for case in &all {
        let name = case.file.display().to_string();
        let md = std::fs::read_to_string(&case.file).unwrap();
        let (tmp, v, out) = import(case);
        let stories = v["userStories"].as_array().unwrap();
        let ids: Vec<&str> = stories.iter().map(|s| s["id"].as_str().unwrap()).collect();
        assert_eq!(ids, case.ids, "{name}");
        for s in stories {
            let id = s["id"].as_str().unwrap();
            let title = s["title"].as_str().unwrap();
            assert!(
                !title.is_empty() && md.contains(title),
                "{name} {id}: title {title:?}"
            );
            let criteria = s["acceptanceCriteria"].as_array().unwrap();
            assert!(!criteria.is_empty(), "{name} {id}: no criteria");
            for c in criteria {
                let c = c.as_str().unwrap();
                let head: String = c.chars().take(20).collect();
                assert!(
                    md.contains(&head),
                    "{name} {id}: criterion {c:?} not from the file"
                );
            }
        }
        let got: Vec<(String, Vec<String>)> = stories
            .iter()
            .filter_map(|s| {
                let b = s.get("blockedBy")?.as_array()?;
                Some((
                    s["id"].as_str()?.to_string(),
                    b.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect(),
                ))
            })
            .collect();
        match &case.deps {
            Some(want) => assert_eq!(&got, want, "{name}"),
            None => assert!(got.is_empty(), "{name}: dependencies from prose: {got:?}"),
        }
        let (code, _, err) = output_in(tmp.path(), &["validate"]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(
            out.contains(&format!("imported {} stories", case.ids.len())),
            "{name}: {out}"
        );
    }
}

#[test]
fn descriptions_come_from_labels_paragraphs_or_bold_lines() {
    let all = cases();
    let desc = |file: &str, i: usize| {
        let c = all.iter().find(|c| c.file.ends_with(file)).unwrap();
        let (_, v, _) = import(c);
        v["userStories"][i]["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        desc("01-context-management.md", 0).starts_with("As a developer, I want the PRD validator")
    );
    assert!(
        desc("03-ghissues-tui.md", 0).starts_with("As a user running ghissues for the first time")
    );
    assert!(
        desc("04-merchant-content-blocks.md", 0).starts_with("As a platform, I want each merchant")
    );
    assert!(
        desc("07-ai-changelog.md", 3).starts_with("As a developer, I want a provider registry")
    );
    assert!(desc("09-quantum-oracle-ux-redesign.md", 0).len() > 20);
}

#[test]
fn existing_output_is_kept_without_force_and_output_is_deterministic() {
    let case = &cases()[0];
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("prd.json"), "mine").unwrap();
    let file = case.file.to_str().unwrap();
    let (code, _, err) = output_in(tmp.path(), &["prd", "import", file]);
    assert_eq!(code, 1);
    assert!(err.contains("--force"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("prd.json")).unwrap(),
        "mine"
    );
    for _ in 0..2 {
        let args = ["prd", "import", "--force", "--out", "out.json", file];
        let (code, _, _) = output_in(tmp.path(), &args);
        assert_eq!(code, 0);
    }
    let a = std::fs::read(tmp.path().join("out.json")).unwrap();
    let (_, v, _) = import(case);
    assert_eq!(serde_json::from_slice::<Value>(&a).unwrap(), v);
}

#[test]
fn a_fifo_named_as_the_prd_is_an_error_not_a_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("PRD.md");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    for args in [&["prd", "import"][..], &["init", "--from"][..]] {
        let o = ralph_in(tmp.path())
            .args(args)
            .arg(&fifo)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    assert!(!tmp.path().join("prd.json").exists());
}
