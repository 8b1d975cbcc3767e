//! Turning prd.json bytes into a `serde_json::Value`, strictly: UTF-8 only, no byte-order mark,
//! no duplicate keys, errors with line:column.
//!
//! Owns syntax only; the shape of the value is checked by `schema` and `validate`.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// A syntax error at a place in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub(crate) struct ParseError {
    /// 1-based line; 0 when the error is about the whole file.
    pub line: usize,
    /// 1-based column (serde_json's count: the column of the offending character).
    pub column: usize,
    pub message: String,
    pub hint: String,
}

fn line_col_of_byte(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, col)
}

/// Parse prd.json bytes.
pub(crate) fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(ParseError {
            line: 1,
            column: 1,
            message: "file starts with a UTF-8 byte-order mark (BOM)".into(),
            hint: "save the file as UTF-8 without BOM".into(),
        });
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ParseError {
            line: 1,
            column: 1,
            message: "file is empty".into(),
            hint: "a prd.json needs at least \"project\", \"branchName\" and \"userStories\" (see examples/prd.json.example)".into(),
        });
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    StrictValue
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| utf8_error(bytes).unwrap_or_else(|| from_serde(e)))
}

/// The first invalid UTF-8 byte, as a parse error. Checked only after a failed parse: valid JSON
/// from serde_json is UTF-8 already, so the happy path does not scan the file twice.
fn utf8_error(bytes: &[u8]) -> Option<ParseError> {
    let e = std::str::from_utf8(bytes).err()?;
    let (line, column) = line_col_of_byte(bytes, e.valid_up_to());
    Some(ParseError {
        line,
        column,
        message: format!("invalid UTF-8 byte at offset {}", e.valid_up_to()),
        hint: "JSON must be UTF-8: re-save the file as UTF-8".into(),
    })
}

fn from_serde(e: serde_json::Error) -> ParseError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full
        .strip_suffix(&suffix)
        .unwrap_or(&full)
        .replace('`', "'");
    let hint = if message.contains("duplicate key") {
        "each key may appear once per object: remove or rename one of them"
    } else if message.contains("recursion limit") {
        "the JSON is nested too deeply to be a prd.json: remove the nested junk"
    } else if e.is_eof() {
        "the file ends early: it may have been truncated; restore it from git"
    } else {
        "fix the JSON syntax at that place (a missing comma, quote or bracket is the usual cause)"
    };
    ParseError {
        line: e.line(),
        column: e.column(),
        message,
        hint: hint.into(),
    }
}

/// Builds a `Value` like serde_json does, but rejects an object that repeats a key.
struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate key \"{key}\"")));
            }
            let v = map.next_value_seed(StrictValue)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_line_and_column_of_syntax_errors() {
        let e = parse(b"{\n  \"project\": \"x\"\n  \"branchName\": \"y\"\n}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3));
        assert!(e.message.contains("expected"), "{}", e.message);
    }

    #[test]
    fn rejects_duplicate_keys() {
        let e = parse(br#"{"a": 1, "a": 2}"#).unwrap_err();
        assert!(e.message.contains("duplicate key \"a\""), "{}", e.message);
        assert_eq!(e.line, 1);
    }

    #[test]
    fn rejects_bom_empty_and_non_utf8() {
        assert!(
            parse(b"\xEF\xBB\xBF{}")
                .unwrap_err()
                .message
                .contains("byte-order mark")
        );
        assert!(parse(b"  \n ").unwrap_err().message.contains("empty"));
        let e = parse(b"{\n\"a\": \"\xff\"}").unwrap_err();
        assert_eq!((e.line, e.column), (2, 7));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        let e = parse(deep.as_bytes()).unwrap_err();
        assert!(e.message.contains("recursion limit"), "{}", e.message);
    }

    #[test]
    fn keeps_key_order() {
        let v = parse(br#"{"z": 1, "a": 2, "m": 3}"#).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }
}
