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

/// Asserts exit 1 and that every expected fragment is in the output.
fn assert_rejected(o: &Outcome, expected: &[&str]) {
    assert_eq!(o.code, 1, "expected exit 1, output:\n{}", o.out);
    for e in expected {
        assert!(o.out.contains(e), "missing {e:?} in:\n{}", o.out);
    }
    assert!(o.out.contains("hint: "), "no fix hint in:\n{}", o.out);
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
        assert!(o.out.contains("0 error(s), 0 warning(s)"), "{f}: {}", o.out);
    }
}

#[test]
fn syntax_errors_give_line_and_column_and_nothing_else() {
    let o = validate_bytes(
        b"{\n  \"project\": \"x\"\n  \"branchName\": \"y\"\n}\n",
        &[],
    );
    assert_rejected(&o, &["prd.json:3:3: error[parse]: expected ',' or '}'"]);
    assert!(!o.out.contains("schema"), "{}", o.out);
}

#[test]
fn empty_whitespace_truncated_bom_and_non_utf8() {
    assert_rejected(
        &validate_bytes(b"", &[]),
        &["error[parse]", "file is empty"],
    );
    assert_rejected(
        &validate_bytes(b" \n\t\n", &[]),
        &["error[parse]", "file is empty"],
    );
    let full = serde_json::to_string_pretty(&base()).unwrap();
    assert_rejected(
        &validate_bytes(&full.as_bytes()[..full.len() / 2], &[]),
        &["error[parse]", "truncated"],
    );
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(full.as_bytes());
    assert_rejected(
        &validate_bytes(&bom, &[]),
        &["prd.json:1:1: error[parse]", "byte-order mark"],
    );
    let mut bad = full.clone().into_bytes();
    let at = full.find("Story US-001").unwrap();
    bad[at] = 0xFF;
    assert_rejected(
        &validate_bytes(&bad, &[]),
        &["error[parse]", "invalid UTF-8"],
    );
}

#[test]
fn not_an_object_at_the_top() {
    for doc in ["[]", "null", "\"prd\"", "42", "[{\"project\": \"x\"}]"] {
        let o = validate_bytes(doc.as_bytes(), &[]);
        assert_rejected(
            &o,
            &[
                "prd.json: error[not-a-prd]",
                "this is not a prd.json",
                "\"userStories\"",
            ],
        );
    }
}

#[test]
fn duplicate_keys_are_rejected_with_their_place() {
    let doc =
        "{\"project\": \"a\",\n \"project\": \"b\", \"branchName\": \"x\", \"userStories\": []}";
    assert_rejected(
        &validate_bytes(doc.as_bytes(), &[]),
        &["prd.json:2:", "duplicate key \"project\""],
    );
    let doc = serde_json::to_string_pretty(&base()).unwrap().replacen(
        "\"passes\": false",
        "\"passes\": false, \"passes\": true",
        1,
    );
    assert_rejected(
        &validate_bytes(doc.as_bytes(), &[]),
        &["duplicate key \"passes\""],
    );
}

#[test]
fn deeply_nested_junk_does_not_overflow() {
    let junk = format!(
        "{{\"project\": {}1{}}}",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    assert_rejected(
        &validate_bytes(junk.as_bytes(), &[]),
        &["error[parse]", "nested too deeply"],
    );
}

#[test]
fn wrong_type_for_every_field() {
    let cases: &[(&str, Value, &str)] = &[
        (
            "/project",
            json!(1),
            "\"project\" must be a string, not integer",
        ),
        (
            "/branchName",
            json!(null),
            "\"branchName\" must be a string, not null",
        ),
        (
            "/description",
            json!(["x"]),
            "\"description\" must be a string, not array",
        ),
        (
            "/userStories",
            json!({}),
            "\"userStories\" must be an array, not object",
        ),
        (
            "/userStories/0",
            json!("US-001"),
            "item 0 of \"userStories\" must be an object, not string",
        ),
        (
            "/userStories/0/id",
            json!(true),
            "\"id\" must be a string, not boolean",
        ),
        (
            "/userStories/0/title",
            json!(true),
            "\"title\" must be a string, not boolean",
        ),
        (
            "/userStories/0/description",
            json!(null),
            "\"description\" must be a string, not null",
        ),
        (
            "/userStories/0/acceptanceCriteria",
            json!("works"),
            "\"acceptanceCriteria\" must be an array, not string",
        ),
        (
            "/userStories/0/acceptanceCriteria/0",
            json!(7),
            "item 0 of \"acceptanceCriteria\" must be a string",
        ),
        (
            "/userStories/0/priority",
            json!(["high"]),
            "\"priority\" must be an integer, not array",
        ),
        (
            "/userStories/0/priority",
            json!({"level": 1}),
            "\"priority\" must be an integer, not object",
        ),
        (
            "/userStories/0/passes",
            json!("false"),
            "\"passes\" must be a boolean, not string",
        ),
        (
            "/userStories/0/notes",
            json!(3),
            "\"notes\" must be a string, not integer",
        ),
        (
            "/userStories/1/blockedBy",
            json!("US-001"),
            "\"blockedBy\" must be an array, not string",
        ),
        (
            "/userStories/1/blockedBy/0",
            json!(true),
            "item 0 of \"blockedBy\" must be a string",
        ),
        (
            "/userStories/0/status",
            json!(false),
            "\"status\" must be a string, not boolean",
        ),
        (
            "/userStories/0/discoveredFrom",
            json!(1),
            "\"discoveredFrom\" must be a string",
        ),
        ("/baseBranch", json!(1), "\"baseBranch\" must be a string"),
    ];
    for (pointer, value, msg) in cases {
        let mut v = base();
        if v.pointer(pointer).is_none() {
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            v.pointer_mut(parent).unwrap()[key] = value.clone();
        } else {
            v = with(v, pointer, value.clone());
        }
        let o = validate_json(&v);
        assert_rejected(&o, &[&format!("prd.json:{pointer}: error[schema]"), msg]);
    }
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
    for e in [
        "prd.json:/branchName: warning[derived]: no \"branchName\": ralph uses \"ralph/demo\"",
        "warning[defaulted]: 1 story(ies) have neither \"passes\" nor a \"status\": read as not done: US-001",
    ] {
        assert!(o.out.contains(e), "missing {e:?} in:\n{}", o.out);
    }
    let strict = validate_bytes(serde_json::to_string(&v).unwrap().as_bytes(), &["--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.out);
    let mut v = base();
    v["userStories"][1].as_object_mut().unwrap().remove("id");
    v["userStories"][0].as_object_mut().unwrap().remove("title");
    v["userStories"][0]
        .as_object_mut()
        .unwrap()
        .remove("description");
    assert_rejected(
        &validate_json(&v),
        &[
            "prd.json:/userStories/1: error[schema]: missing required field \"id\"",
            "prd.json:/userStories/0: error[no-title] (US-001): the story has neither a title nor a description",
        ],
    );
}

#[test]
fn zero_stories_and_empty_id() {
    assert_rejected(
        &validate_json(&prd(vec![])),
        &["error[empty]", "an empty template", "ralph prd import"],
    );
    let v = with(base(), "/userStories/0/id", json!(""));
    assert_rejected(&validate_json(&v), &["/userStories/0/id", "empty string"]);
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
    assert_rejected(
        &o,
        &["error[cycle] (US-002): cycle: US-002 → US-005 → US-003 → US-002"],
    );
    assert_eq!(o.out.matches("error[cycle]").count(), 1, "{}", o.out);

    let v = prd(vec![
        story("A", 1, &["B"]),
        story("B", 1, &["A"]),
        story("C", 1, &["D"]),
        story("D", 1, &["C"]),
    ]);
    let o = validate_json(&v);
    assert_rejected(&o, &["cycle: A → B → A", "cycle: C → D → C"]);
    assert_eq!(o.out.matches("error[cycle]").count(), 2, "{}", o.out);
}

#[test]
fn self_dependency_unknown_ref_and_duplicate_blockers() {
    let v = prd(vec![story("US-001", 1, &["US-001"])]);
    assert_rejected(
        &validate_json(&v),
        &["/userStories/0/blockedBy/0: error[self-ref] (US-001)"],
    );
    let v = prd(vec![
        story("US-001", 1, &[]),
        story("US-002", 1, &["US-01"]),
    ]);
    assert_rejected(
        &validate_json(&v),
        &["error[unknown-ref] (US-002)", "did you mean \"US-001\"?"],
    );
    let v = prd(vec![
        story("US-001", 1, &[]),
        story("US-002", 1, &["US-001", "US-001"]),
    ]);
    assert_rejected(
        &validate_json(&v),
        &[
            "/userStories/1/blockedBy",
            "lists \"US-001\" more than once",
        ],
    );
}

#[test]
fn duplicate_ids_and_lookalikes() {
    let v = prd(vec![story("US-001", 1, &[]), story("US-001", 2, &[])]);
    assert_rejected(
        &validate_json(&v),
        &[
            "/userStories/1/id: error[duplicate-id]",
            "first at /userStories/0",
        ],
    );
    let v = prd(vec![story("US-001", 1, &[]), story("us-001", 2, &[])]);
    assert_rejected(
        &validate_json(&v),
        &["error[duplicate-id] (us-001)", "only in case"],
    );
    let v = prd(vec![story("US-001", 1, &[]), story("US-001 ", 2, &[])]);
    assert_rejected(
        &validate_json(&v),
        &["error[id-whitespace]", "use \"US-001\""],
    );
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
    assert_rejected(
        &o,
        &[
            "error[unknown-ref]",
            "error[duplicate-id]",
            "error[cycle]",
            "error[schema]",
        ],
    );
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
    assert_rejected(
        &validate_json(&prd(stories)),
        &["/userStories/9999/blockedBy/0: error[unknown-ref] (S-9999)"],
    );
}

#[test]
fn warnings_pass_unless_strict() {
    let mut v = base();
    v["userStories"][0]["pases"] = json!(true);
    let o = validate_json(&v);
    assert_eq!(o.code, 0, "{}", o.out);
    assert!(
        o.out
            .contains("warning[unknown-field] (US-001): unknown field \"pases\""),
        "{}",
        o.out
    );
    assert!(o.out.contains("did you mean \"passes\"?"), "{}", o.out);
    let strict = validate_bytes(serde_json::to_string(&v).unwrap().as_bytes(), &["--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.out);

    let mut v = base();
    v["userStories"][0]["status"] = json!("removed");
    v["userStories"][1]["passes"] = json!(true);
    let o = validate_json(&v);
    assert_eq!(o.code, 0, "{}", o.out);
    assert!(o.out.contains("warning[removed-dep] (US-002)"), "{}", o.out);
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
    assert!(e["message"].as_str().unwrap().contains("US-404"));
    assert_eq!(j["warnings"], json!([]));
}

#[test]
fn missing_file_and_several_files() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = output_in(dir.path(), &["validate"]);
    assert_eq!(code, 1);
    assert!(err.contains("error[io]"));
    crate::support::prd_json::write_prd(dir.path(), &base());
    std::fs::write(dir.path().join("bad.json"), "{").unwrap();
    let (code, _, _) = output_in(dir.path(), &["validate", "prd.json", "bad.json"]);
    assert_eq!(code, 1, "one bad file fails the run");
    let (code, _, _) = output_in(dir.path(), &["validate", "prd.json"]);
    assert_eq!(code, 0);
}
