//! Byte-preserving edits of a JSON document: replace one value, or add one member to an object,
//! and leave every other byte (indentation, key order, line breaks, number spelling) as it was.
//!
//! Owns the edit mechanics on bytes, using the spans from `spans`. What to edit (which key holds
//! a story's done-marker in a dialect) is decided by the caller (`Prd`).

use super::spans::{self, Node};

/// One step of a path into a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The node at `path`, if there is one.
pub(crate) fn find<'n>(root: &'n Node, path: &[Step]) -> Option<&'n Node> {
    let mut node = root;
    for step in path {
        node = match step {
            Step::Key(k) => &node.get(k)?.value,
            Step::Index(i) => node.items().get(*i)?,
        };
    }
    Some(node)
}

/// Set member `key` of the object at `path` to the JSON text `value`: its value bytes are
/// replaced when the member exists, otherwise the member is appended in the object's own layout
/// (same indentation and `": "` spelling as its last member). `None` when `path` is not an object.
pub(crate) fn set_member(bytes: &[u8], path: &[Step], key: &str, value: &str) -> Option<Vec<u8>> {
    let root = spans::scan(bytes)?;
    let obj = find(&root, path)?;
    let members = match &obj.kind {
        spans::Kind::Object(m) => m,
        _ => return None,
    };
    if let Some(m) = members.iter().find(|m| m.key == key) {
        return Some(splice(bytes, m.value.span.clone(), value.as_bytes()));
    }
    let key_json = serde_json::to_string(key).ok()?;
    let (at, text) = match members.last() {
        None => (obj.span.start + 1, format!("{key_json}: {value}")),
        Some(last) => {
            let prev_end = match members.len() {
                1 => obj.span.start + 1,
                n => members[n - 2].value.span.end,
            };
            let gap = &bytes[prev_end..last.key_span.start];
            let sep = match gap.iter().rposition(|&b| b == b'\n') {
                Some(nl) => String::from_utf8_lossy(&gap[nl..]).into_owned(),
                None => " ".to_string(),
            };
            let colon = String::from_utf8_lossy(&bytes[last.key_span.end..last.value.span.start])
                .into_owned();
            (
                last.value.span.end,
                format!(",{sep}{key_json}{colon}{value}"),
            )
        }
    };
    Some(splice(bytes, at..at, text.as_bytes()))
}

/// Append `value` (a JSON value) to the array at `path`, laid out like the array's last item:
/// on one line when that item is, otherwise pretty-printed with its indentation and indent
/// unit; the separator before it is the one before the last item. `None` when `path` is not
/// an array.
pub(crate) fn append_item(
    bytes: &[u8],
    path: &[Step],
    value: &serde_json::Value,
) -> Option<Vec<u8>> {
    let root = spans::scan(bytes)?;
    let arr = find(&root, path)?;
    let items = match &arr.kind {
        spans::Kind::Array(v) => v,
        _ => return None,
    };
    let Some(last) = items.last() else {
        let at = arr.span.start + 1;
        return Some(splice(bytes, at..at, one_line(value).as_bytes()));
    };
    let prev_end = match items.len() {
        1 => arr.span.start + 1,
        n => items[n - 2].span.end,
    };
    let gap = &bytes[prev_end..last.span.start];
    let sep = match gap.iter().rposition(|&b| b == b'\n') {
        Some(nl) => String::from_utf8_lossy(&gap[nl..]).into_owned(),
        None => " ".to_string(),
    };
    let text = &bytes[last.span.clone()];
    let laid_out = match text.iter().position(|&b| b == b'\n') {
        None => one_line(value),
        Some(nl) => {
            // The item's own indentation (its line's) and the unit one level deeper adds.
            let line_start = bytes[..last.span.start]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let own = indent_of(&bytes[line_start..]);
            let unit = indent_of(&text[nl + 1..])
                .strip_prefix(own.as_str())
                .filter(|u| !u.is_empty())
                .unwrap_or("  ")
                .to_string();
            pretty(value, &unit, &own)
        }
    };
    let at = last.span.end;
    Some(splice(
        bytes,
        at..at,
        format!(",{sep}{laid_out}").as_bytes(),
    ))
}

/// The leading spaces and tabs of `line`.
fn indent_of(line: &[u8]) -> String {
    line.iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .map(|&b| b as char)
        .collect()
}

/// `value` on one line, with `": "` and `", "` as people write them.
fn one_line(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(one_line).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), one_line(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        scalar => scalar.to_string(),
    }
}

/// `value` pretty-printed with `unit` per level, each line after the first prefixed by `own`.
fn pretty(value: &serde_json::Value, unit: &str, own: &str) -> String {
    use serde::Serialize;
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    if value.serialize(&mut ser).is_err() {
        return one_line(value);
    }
    String::from_utf8_lossy(&out).replace('\n', &format!("\n{own}"))
}

fn splice(bytes: &[u8], range: std::ops::Range<usize>, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + with.len());
    out.extend_from_slice(&bytes[..range.start]);
    out.extend_from_slice(with);
    out.extend_from_slice(&bytes[range.end..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(src: &str, path: &[Step], key: &str, value: &str) -> String {
        String::from_utf8(set_member(src.as_bytes(), path, key, value).unwrap()).unwrap()
    }

    #[test]
    fn replaces_only_the_value_bytes() {
        let src = "{\"s\": [ {\"id\":1,   \"passes\" :false , \"x\": [1,2]} ]}\n";
        let out = set(src, &[Step::Key("s"), Step::Index(0)], "passes", "true");
        assert_eq!(
            out,
            "{\"s\": [ {\"id\":1,   \"passes\" :true , \"x\": [1,2]} ]}\n"
        );
    }

    #[test]
    fn appends_a_missing_member_in_the_objects_layout() {
        let src =
            "{\n\t\"a\": [\n\t\t{\n\t\t\t\"id\": \"A\",\n\t\t\t\"title\": \"t\"\n\t\t}\n\t]\n}";
        let out = set(src, &[Step::Key("a"), Step::Index(0)], "passes", "true");
        assert_eq!(
            out,
            "{\n\t\"a\": [\n\t\t{\n\t\t\t\"id\": \"A\",\n\t\t\t\"title\": \"t\",\n\t\t\t\"passes\": true\n\t\t}\n\t]\n}"
        );
        let one_line = set("{\"id\":\"A\"}", &[], "passes", "false");
        assert_eq!(one_line, "{\"id\":\"A\", \"passes\":false}");
        assert_eq!(set("{ }", &[], "k", "1"), "{\"k\": 1 }");
    }

    #[test]
    fn an_appended_item_takes_the_layout_of_the_last_one() {
        let v = serde_json::json!({"id": "C", "tags": ["a"], "passes": false});
        let path = [Step::Key("s")];
        let one = "{\"s\": [\n  {\"id\": \"A\"},\n  {\"id\": \"B\"}\n]}\n";
        let out = String::from_utf8(append_item(one.as_bytes(), &path, &v).unwrap()).unwrap();
        assert_eq!(
            out,
            "{\"s\": [\n  {\"id\": \"A\"},\n  {\"id\": \"B\"},\n  {\"id\": \"C\", \"tags\": [\"a\"], \"passes\": false}\n]}\n"
        );
        let pretty = "{\n\t\"s\": [\n\t\t{\n\t\t\t\"id\": \"A\"\n\t\t}\n\t]\n}\n";
        let out = String::from_utf8(append_item(pretty.as_bytes(), &path, &v).unwrap()).unwrap();
        assert_eq!(
            out,
            "{\n\t\"s\": [\n\t\t{\n\t\t\t\"id\": \"A\"\n\t\t},\n\t\t{\n\t\t\t\"id\": \"C\",\n\t\t\t\"tags\": [\n\t\t\t\t\"a\"\n\t\t\t],\n\t\t\t\"passes\": false\n\t\t}\n\t]\n}\n"
        );
        assert_eq!(
            append_item(b"{\"s\": []}", &path, &serde_json::json!(1)).unwrap(),
            b"{\"s\": [1]}"
        );
        assert!(append_item(b"{\"s\": {}}", &path, &v).is_none());
    }

    #[test]
    fn missing_paths_are_none() {
        assert!(set_member(b"{\"a\": 1}", &[Step::Key("b")], "k", "1").is_none());
        assert!(set_member(b"{\"a\": 1}", &[Step::Key("a")], "k", "1").is_none());
        assert!(set_member(b"[1]", &[Step::Index(3)], "k", "1").is_none());
    }
}
