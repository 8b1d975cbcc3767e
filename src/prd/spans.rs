//! Where each value of a JSON document sits in its bytes: a span-aware scan that lets `edit`
//! change one value without touching any other byte.
//!
//! Owns byte offsets only. It runs on text that `parse` has already accepted, so it trusts the
//! syntax and reports `None` rather than panicking when the bytes are not what it expects.
//! Semantics (which key means what) belong to `dialect`; the edits themselves to `edit`.

use std::ops::Range;

/// A value and, for containers, its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Node {
    /// The value's bytes, from its first to one past its last byte.
    pub span: Range<usize>,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A string, number, true, false or null.
    Scalar,
    Array(Vec<Node>),
    /// Members in file order: the decoded key, the key's span (quotes included) and the value.
    Object(Vec<Member>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Member {
    pub key: String,
    pub key_span: Range<usize>,
    pub value: Node,
}

impl Node {
    /// The member `key` of an object node.
    pub(crate) fn get(&self, key: &str) -> Option<&Member> {
        match &self.kind {
            Kind::Object(m) => m.iter().find(|m| m.key == key),
            _ => None,
        }
    }

    /// The items of an array node (empty for anything else).
    pub(crate) fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(v) => v,
            _ => &[],
        }
    }
}

/// Scan a whole document. `None` when the bytes are not one JSON value (parse reports why).
pub(crate) fn scan(bytes: &[u8]) -> Option<Node> {
    let mut s = Scanner { b: bytes, i: 0 };
    s.ws();
    let node = s.value(0)?;
    s.ws();
    (s.i == bytes.len()).then_some(node)
}

/// The same nesting limit as serde_json, so a document `parse` accepted always scans.
const MAX_DEPTH: usize = 128;

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(c)).then(|| self.i += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.i;
        let kind = match self.peek()? {
            b'{' => Kind::Object(self.object(depth)?),
            b'[' => Kind::Array(self.array(depth)?),
            b'"' => {
                self.string()?;
                Kind::Scalar
            }
            _ => {
                self.bare()?;
                Kind::Scalar
            }
        };
        Some(Node {
            span: start..self.i,
            kind,
        })
    }

    /// A number or a literal: everything up to the next delimiter.
    fn bare(&mut self) -> Option<()> {
        let start = self.i;
        while let Some(c) = self.peek() {
            if matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            self.i += 1;
        }
        (self.i > start).then_some(())
    }

    /// Skip a string; returns the raw bytes between the quotes.
    fn string(&mut self) -> Option<Range<usize>> {
        self.eat(b'"')?;
        let start = self.i;
        loop {
            let at = memchr::memchr2(b'"', b'\\', self.b.get(self.i..)?)?;
            self.i += at;
            if self.b[self.i] == b'\\' {
                self.i += 2;
            } else {
                let inner = start..self.i;
                self.i += 1;
                return Some(inner);
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<Vec<Node>> {
        self.eat(b'[')?;
        let mut out = Vec::new();
        self.ws();
        if self.eat(b']').is_some() {
            return Some(out);
        }
        loop {
            self.ws();
            out.push(self.value(depth + 1)?);
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(out);
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<Vec<Member>> {
        self.eat(b'{')?;
        let mut out = Vec::new();
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(out);
        }
        loop {
            self.ws();
            let key_start = self.i;
            let inner = self.string()?;
            let key_span = key_start..self.i;
            // Keys are decoded through serde_json so escapes compare like the parsed value.
            let key: String = serde_json::from_slice(&self.b[key_span.clone()])
                .unwrap_or_else(|_| String::from_utf8_lossy(&self.b[inner]).into_owned());
            self.ws();
            self.eat(b':')?;
            self.ws();
            let value = self.value(depth + 1)?;
            out.push(Member {
                key,
                key_span,
                value,
            });
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(out);
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_values_exactly() {
        let src = br#" {"a": [1, {"b\"c": true}], "d" : "x\\"} "#;
        let n = scan(src).unwrap();
        let a = n.get("a").unwrap();
        assert_eq!(&src[a.value.span.clone()], br#"[1, {"b\"c": true}]"#);
        let inner = &a.value.items()[1];
        let m = inner.get("b\"c").unwrap();
        assert_eq!(&src[m.value.span.clone()], b"true");
        assert_eq!(&src[n.get("d").unwrap().value.span.clone()], br#""x\\""#);
        assert_eq!(&src[n.get("d").unwrap().key_span.clone()], br#""d""#);
    }

    #[test]
    fn junk_is_none_not_a_panic() {
        for bad in [
            &b""[..],
            b"{",
            b"[1,",
            b"{\"a\" 1}",
            b"\"abc",
            b"[1] x",
            b"{\"a\":}",
        ] {
            assert!(scan(bad).is_none(), "{:?}", String::from_utf8_lossy(bad));
        }
        assert!(scan("[".repeat(200).as_bytes()).is_none());
    }
}
