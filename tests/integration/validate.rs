//! `ralph validate` against malformed, hostile and real prd.json files (the real binary).

use crate::support::prd_json::{prd, story};
use crate::support::{compat, output_in, output_joined_in};
use serde_json::{Value, json};

struct Outcome {
    code: i32,
    out: String,
}

fn validate_bytes(bytes: &[u8], extra: &[&str]) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prd.json"), bytes).unwrap();
    let args: Vec<&str> = ["validate"].iter().chain(extra).copied().collect();
    let (code, out) = output_joined_in(dir.path(), &args);
    assert!(!out.contains("panicked"), "panic: {out}");
    Outcome { code, out }
}

fn validate_json(v: &Value) -> Outcome {
    validate_bytes(serde_json::to_string_pretty(v).unwrap().as_bytes(), &[])
}

/// Asserts exit 1 and the whole output: the diagnostics, their places and fix hints, and the
/// summary line are the contract (`snapshots/integration__validate__<name>.snap`).
fn assert_rejected(o: &Outcome, name: &str) {
    assert_eq!(o.code, 1, "expected exit 1, output:\n{}", o.out);
    insta::assert_snapshot!(name, o.out);
}

/// Several rejected files' outputs as one text, each under its label, for one snapshot.
fn rejected_all(cases: impl IntoIterator<Item = (String, Outcome)>) -> String {
    let mut all = String::new();
    for (label, o) in cases {
        assert_eq!(o.code, 1, "{label}: expected exit 1, output:\n{}", o.out);
        all.push_str(&format!("== {label}\n{}", o.out));
    }
    all
}

fn with(mut v: Value, pointer: &str, new: Value) -> Value {
    *v.pointer_mut(pointer).unwrap() = new;
    v
}

fn base() -> Value {
    prd(vec![
        story("US-001", 1, &[]),
        story("US-002", 2, &["US-001"]),
    ])
}

#[test]
fn real_ecosystem_files_validate_clean() {
    for f in [
        "snarktank/prd.json.example",
        "newralph/prd.json.example",
        "newralph/prd.json",
    ] {
        let bytes = std::fs::read(compat(f)).unwrap();
        let o = validate_bytes(&bytes, &["--strict"]);
        assert_eq!(o.code, 0, "{f}: {}", o.out);
        assert_eq!(o.out, "./prd.json: 0 error(s), 0 warning(s)\n", "{f}");
    }
}

#[test]
fn syntax_errors_give_line_and_column_and_nothing_else() {
    let o = validate_bytes(
        b"{\n  \"project\": \"x\"\n  \"branchName\": \"y\"\n}\n",
        &[],
    );
    assert_rejected(&o, "syntax_error");
}

#[test]
fn empty_whitespace_truncated_bom_and_non_utf8() {
    let full = serde_json::to_string_pretty(&base()).unwrap();
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(full.as_bytes());
    let mut bad = full.clone().into_bytes();
    let at = full.find("Story US-001").unwrap();
    bad[at] = 0xFF;
    let cases: [(&str, &[u8]); 5] = [
        ("empty", b""),
        ("whitespace", b" \n\t\n"),
        ("truncated", &full.as_bytes()[..full.len() / 2]),
        ("byte-order mark", &bom),
        ("not UTF-8", &bad),
    ];
    let all = rejected_all(
        cases
            .into_iter()
            .map(|(label, bytes)| (label.to_string(), validate_bytes(bytes, &[]))),
    );
    insta::assert_snapshot!("empty_truncated_bom_utf8", all);
}

#[test]
fn not_an_object_at_the_top() {
    let docs = ["[]", "null", "\"prd\"", "42", "[{\"project\": \"x\"}]"];
    let all = rejected_all(docs.map(|doc| (doc.to_string(), validate_bytes(doc.as_bytes(), &[]))));
    insta::assert_snapshot!("not_an_object", all);
}

#[test]
fn duplicate_keys_are_rejected_with_their_place() {
    let doc =
        "{\"project\": \"a\",\n \"project\": \"b\", \"branchName\": \"x\", \"userStories\": []}";
    assert_rejected(&validate_bytes(doc.as_bytes(), &[]), "duplicate_key_top");
    let doc = serde_json::to_string_pretty(&base()).unwrap().replacen(
        "\"passes\": false",
        "\"passes\": false, \"passes\": true",
        1,
    );
    assert_rejected(&validate_bytes(doc.as_bytes(), &[]), "duplicate_key_story");
}

#[test]
fn deeply_nested_junk_does_not_overflow() {
    let junk = format!(
        "{{\"project\": {}1{}}}",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    assert_rejected(&validate_bytes(junk.as_bytes(), &[]), "nested_too_deeply");
}

#[test]
fn wrong_type_for_every_field() {
    let cases: &[(&str, Value)] = &[
        ("/project", json!(1)),
        ("/branchName", json!(null)),
        ("/description", json!(["x"])),
        ("/userStories", json!({})),
        ("/userStories/0", json!("US-001")),
        ("/userStories/0/id", json!(true)),
        ("/userStories/0/title", json!(true)),
        ("/userStories/0/description", json!(null)),
        ("/userStories/0/acceptanceCriteria", json!("works")),
        ("/userStories/0/acceptanceCriteria/0", json!(7)),
        ("/userStories/0/priority", json!(["high"])),
        ("/userStories/0/priority", json!({"level": 1})),
        ("/userStories/0/passes", json!("false")),
        ("/userStories/0/notes", json!(3)),
        ("/userStories/1/blockedBy", json!("US-001")),
        ("/userStories/1/blockedBy/0", json!(true)),
        ("/userStories/0/status", json!(false)),
        ("/userStories/0/discoveredFrom", json!(1)),
        ("/baseBranch", json!(1)),
    ];
    let mut outs = Vec::new();
    for (pointer, value) in cases {
        let mut v = base();
        if v.pointer(pointer).is_none() {
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            v.pointer_mut(parent).unwrap()[key] = value.clone();
        } else {
            v = with(v, pointer, value.clone());
        }
        outs.push((format!("{pointer} = {value}"), validate_json(&v)));
    }
    insta::assert_snapshot!("wrong_types", rejected_all(outs));
}

#[test]
fn missing_fields_are_derived_or_defaulted_and_said_but_a_missing_id_is_an_error() {
    let mut v = base();
    v.as_object_mut().unwrap().remove("branchName");
    v["userStories"][0]
        .as_object_mut()
        .unwrap()
        .remove("passes");
    let o = validate_json(&v);
    assert_eq!(o.code, 0, "{}", o.out);
    insta::assert_snapshot!("derived_and_defaulted", o.out);
    let strict = validate_bytes(serde_json::to_string(&v).unwrap().as_bytes(), &["--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.out);
    let mut v = base();
    v["userStories"][1].as_object_mut().unwrap().remove("id");
    v["userStories"][0].as_object_mut().unwrap().remove("title");
    v["userStories"][0]
        .as_object_mut()
        .unwrap()
        .remove("description");
    assert_rejected(&validate_json(&v), "missing_id_and_title");
}

#[test]
fn zero_stories_and_empty_id() {
    assert_rejected(&validate_json(&prd(vec![])), "zero_stories");
    let v = with(base(), "/userStories/0/id", json!(""));
    assert_rejected(&validate_json(&v), "empty_id");
}

#[test]
fn cycles_are_reported_once_each_with_full_path() {
    let v = prd(vec![
        story("US-001", 1, &[]),
        story("US-002", 2, &["US-005"]),
        story("US-003", 3, &["US-002"]),
        story("US-005", 4, &["US-003"]),
    ]);
    let o = validate_json(&v);
    assert_rejected(&o, "one_cycle");

    let v = prd(vec![
        story("A", 1, &["B"]),
        story("B", 1, &["A"]),
        story("C", 1, &["D"]),
        story("D", 1, &["C"]),
    ]);
    let o = validate_json(&v);
    assert_rejected(&o, "two_cycles");
}

#[test]
fn self_dependency_unknown_ref_and_duplicate_blockers() {
    let v = prd(vec![story("US-001", 1, &["US-001"])]);
    assert_rejected(&validate_json(&v), "self_ref");
    let v = prd(vec![
        story("US-001", 1, &[]),
        story("US-002", 1, &["US-01"]),
    ]);
    assert_rejected(&validate_json(&v), "unknown_ref");
    let v = prd(vec![
        story("US-001", 1, &[]),
        story("US-002", 1, &["US-001", "US-001"]),
    ]);
    assert_rejected(&validate_json(&v), "duplicate_blocker");
}

#[test]
fn duplicate_ids_and_lookalikes() {
    let v = prd(vec![story("US-001", 1, &[]), story("US-001", 2, &[])]);
    assert_rejected(&validate_json(&v), "duplicate_id");
    let v = prd(vec![story("US-001", 1, &[]), story("us-001", 2, &[])]);
    assert_rejected(&validate_json(&v), "duplicate_id_case");
    let v = prd(vec![story("US-001", 1, &[]), story("US-001 ", 2, &[])]);
    assert_rejected(&validate_json(&v), "id_whitespace");
}

#[test]
fn every_problem_reported_in_one_run() {
    let mut v = prd(vec![
        story("A", 1, &["Z"]),
        story("A", 2, &[]),
        story("B", 3, &["C"]),
        story("C", 4, &["B"]),
    ]);
    v["userStories"][3]["priority"] = json!(true);
    let o = validate_json(&v);
    assert_rejected(&o, "every_problem");
}

#[test]
fn ten_thousand_stories_validate_and_a_late_error_is_found() {
    let mut stories: Vec<Value> = (0..10_000)
        .map(|i| {
            let deps: Vec<String> = (1..=3)
                .filter(|d| i >= *d)
                .map(|d| format!("S-{}", i - d))
                .collect();
            let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
            story(&format!("S-{i}"), i, &deps)
        })
        .collect();
    let o = validate_json(&prd(stories.clone()));
    assert_eq!(o.code, 0, "{}", &o.out[..o.out.len().min(2000)]);
    stories[9_999]["blockedBy"] = json!(["S-10000"]);
    assert_rejected(&validate_json(&prd(stories)), "late_unknown_ref");
}

#[test]
fn warnings_pass_unless_strict() {
    let mut v = base();
    v["userStories"][0]["pases"] = json!(true);
    let o = validate_json(&v);
    assert_eq!(o.code, 0, "{}", o.out);
    insta::assert_snapshot!("unknown_field_warning", o.out);
    let strict = validate_bytes(serde_json::to_string(&v).unwrap().as_bytes(), &["--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.out);

    let mut v = base();
    v["userStories"][0]["status"] = json!("removed");
    v["userStories"][1]["passes"] = json!(true);
    let o = validate_json(&v);
    assert_eq!(o.code, 0, "{}", o.out);
    insta::assert_snapshot!("removed_dep_warning", o.out);
}

#[test]
fn json_output_has_the_documented_shape() {
    let v = prd(vec![story("US-001", 1, &["US-404"])]);
    let dir = tempfile::tempdir().unwrap();
    crate::support::prd_json::write_prd(dir.path(), &v);
    let (code, out, _) = output_in(dir.path(), &["validate", "--json"]);
    assert_eq!(code, 1);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["schema_version"], 2);
    assert_eq!(j["command"], "validate");
    assert_eq!(j["data"]["valid"], false);
    assert!(
        j["data"]["files"][0]["file"]
            .as_str()
            .unwrap()
            .ends_with("prd.json")
    );
    let e = &j["errors"][0];
    assert!(e["file"].as_str().unwrap().ends_with("prd.json"));
    assert_eq!(e["code"], "unknown-ref");
    assert_eq!(e["pointer"], "/userStories/0/blockedBy/0");
    assert_eq!(e["story"], "US-001");
    assert_eq!(
        e["message"],
        "blockedBy names \"US-404\", which is not a story id"
    );
    assert_eq!(j["warnings"], json!([]));
}

#[test]
fn missing_file_and_several_files() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = output_in(dir.path(), &["validate"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("missing_file", err);
    crate::support::prd_json::write_prd(dir.path(), &base());
    std::fs::write(dir.path().join("bad.json"), "{").unwrap();
    let (code, _, _) = output_in(dir.path(), &["validate", "prd.json", "bad.json"]);
    assert_eq!(code, 1, "one bad file fails the run");
    let (code, _, _) = output_in(dir.path(), &["validate", "prd.json"]);
    assert_eq!(code, 0);
}
