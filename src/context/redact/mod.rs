//! Secret redaction: every text is passed through here before it enters a prompt or a log.
//!
//! Owns the patterns (API keys, tokens, JWTs, private keys, credentials in assignments and URLs,
//! and a high-entropy fallback for values assigned to `*_KEY`/`*_TOKEN`/`*_SECRET` names), the
//! order they apply in (Anthropic `sk-ant-` before OpenAI `sk-`, private key blocks first), and
//! the per-kind counts. A redacted secret becomes `[REDACTED:<kind>]`; what surrounds it (a
//! `password=` key, a `Bearer ` prefix, a URL's user and host) is kept so the text still reads.
//! Does not decide which texts are redacted: callers pass everything they show.
//!
//! `rules.rs` holds the patterns and their order, `accept.rs` the last checks on a matched
//! value (placeholders, references, code and prose are not secrets).

mod accept;
mod rules;
#[cfg(test)]
mod tests;

use serde::Serialize;
use std::collections::BTreeMap;

use rules::{RULES, candidates};

/// How many secrets of each kind were redacted (kinds in name order, for stable output).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Redactions(BTreeMap<&'static str, usize>);

impl Redactions {
    pub fn total(&self) -> usize {
        self.0.values().sum()
    }

    pub fn get(&self, kind: &str) -> usize {
        self.0.get(kind).copied().unwrap_or(0)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        self.0.iter().map(|(k, v)| (*k, *v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Add another count into this one.
    pub fn merge(&mut self, other: &Redactions) {
        for (k, v) in other.iter() {
            *self.0.entry(k).or_default() += v;
        }
    }

    pub(super) fn add(&mut self, kind: &'static str) {
        *self.0.entry(kind).or_default() += 1;
    }
}

/// The kinds of secret ralph redacts, in the order the rules apply.
#[cfg(test)]
pub(crate) fn kinds() -> Vec<&'static str> {
    RULES.iter().map(|r| r.kind).collect()
}

/// `text` with every secret replaced by `[REDACTED:<kind>]`; the count of each kind is added to
/// `counts`. Text without secrets comes back unchanged.
pub(crate) fn redact_into(text: &str, counts: &mut Redactions) -> String {
    redact_rules(text, candidates(text), counts)
}

/// [`redact_into`] trying only the rules in `candidates` (bit `i` for rule `i`).
fn redact_rules(text: &str, candidates: u32, counts: &mut Redactions) -> String {
    let mut cur = text.to_string();
    for (i, r) in RULES.iter().enumerate() {
        // A replacement only ever inserts a marker, which no rule accepts, so rules that could
        // not match the original text cannot match now.
        if candidates & (1 << i) == 0 || !r.re().is_match(&cur) {
            continue;
        }
        let mut out = String::with_capacity(cur.len());
        let mut last = 0;
        for caps in r.re().captures_iter(&cur) {
            let Some(m) = caps.get(r.group) else {
                continue;
            };
            let secret = m.as_str();
            if !(r.accept)(secret) {
                continue;
            }
            out.push_str(&cur[last..m.start()]);
            let quote = secret
                .chars()
                .next()
                .filter(|q| r.group != 0 && (*q == '"' || *q == '\'') && secret.len() >= 2);
            match quote {
                Some(q) => {
                    out.push(q);
                    out.push_str(&format!("[REDACTED:{}]", r.kind));
                    out.push(q);
                }
                None => out.push_str(&format!("[REDACTED:{}]", r.kind)),
            }
            last = m.end();
            counts.add(r.kind);
        }
        out.push_str(&cur[last..]);
        cur = out;
    }
    cur
}

/// Redact one text on its own: the redacted text and its counts.
pub fn redact(text: &str) -> (String, Redactions) {
    let mut counts = Redactions::default();
    let out = redact_into(text, &mut counts);
    (out, counts)
}
