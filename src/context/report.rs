//! Presenting an [`Assembled`] prompt's account: the `--explain` table and the `--json` document.
//!
//! Owns the layout of both; the numbers come from [`super::assemble`].

use serde_json::{Value, json};

use super::assemble::Assembled;
use super::budget::{Zone, percent};

impl Assembled {
    /// The human table: each section's tokens, zone and fate, then each Pin entry's score,
    /// matched terms and fate, then the redaction counts.
    pub fn explain(&self) -> String {
        let mut out = format!(
            "prompt for {}: {} of {} tokens ({}%), zone {}\n",
            self.story,
            self.tokens,
            self.budget,
            percent(self.tokens, self.budget),
            self.zone,
        );
        if self.reduced_for == Zone::Green {
            out.push_str("reductions: none\n");
        } else {
            out.push_str(&format!(
                "reductions: {} (the fuller prompt reached zone {})\n",
                self.reduced_for.reduction(),
                self.reduced_for
            ));
        }
        out.push_str(
            "zones: green <60%, yellow >=60%, orange >=75%, red >=85%, critical >=95%\n\n",
        );
        out.push_str(&format!(
            "{:<14} {:>7}  {:<11} {}\n",
            "section", "tokens", "zone so far", "status"
        ));
        for s in &self.sections {
            let status = serde_json::to_value(s.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            out.push_str(&format!(
                "{:<14} {:>7}  {:<11} {}\n",
                s.name, s.tokens, s.zone, status
            ));
        }
        out.push('\n');
        if !self.keywords.is_empty() {
            out.push_str(&format!("query: {}\n", self.keywords.join(" ")));
        }
        out.push_str(&self.explain_files());
        out.push('\n');
        if self.pins.is_empty() {
            out.push_str("pin: no entry matched this story\n");
        } else {
            out.push_str(&format!(
                "{:<4} {:>7}  {:<14} {:<4} {:<30} {}\n",
                "rank", "score", "status", "cut", "name", "matched"
            ));
            for p in &self.pins {
                let status = serde_json::to_value(p.status)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "{:<4} {:>7.2}  {:<14} {:<4} {:<30} {}\n",
                    p.rank,
                    p.score,
                    status,
                    if p.cut { "yes" } else { "no" },
                    p.name,
                    p.matched.join(", ")
                ));
            }
        }
        out.push('\n');
        if self.redactions.is_empty() {
            out.push_str("redactions: none\n");
        } else {
            let kinds: Vec<String> = self
                .redactions
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            out.push_str(&format!(
                "redactions: {} ({})\n",
                self.redactions.total(),
                kinds.join(", ")
            ));
        }
        out
    }

    /// The "where to look" part of [`Assembled::explain`]: each ranked file's score, the
    /// story's words it has and the other evidence behind it.
    fn explain_files(&self) -> String {
        if self.files.is_empty() {
            return "where to look: no file matched this story\n".to_string();
        }
        let mut out = format!(
            "{:<4} {:>7}  {:<6} {:<5} {}\n",
            "rank", "score", "shown", "sigs", "file"
        );
        for f in &self.files {
            out.push_str(&format!(
                "{:<4} {:>7.2}  {:<6} {:<5} {}{}\n",
                f.rank,
                f.score,
                if f.shown { "yes" } else { "no" },
                f.signatures,
                f.path,
                if f.kind == "source" {
                    String::new()
                } else {
                    format!(" [{}]", f.kind)
                }
            ));
            if !f.matched.is_empty() {
                out.push_str(&format!("{:14}words: {}\n", "", f.matched.join(", ")));
            }
            for e in &f.evidence {
                out.push_str(&format!("{:14}{e}\n", ""));
            }
        }
        out
    }

    /// The same account as data, with the prompt, for `--json`.
    pub fn to_json(&self) -> Value {
        let mut map = serde_json::Map::new();
        map.insert("schema_version".into(), json!(1));
        if let Ok(Value::Object(fields)) = serde_json::to_value(self) {
            for (k, v) in fields {
                let tokens = k == "tokens";
                map.insert(k, v);
                if tokens {
                    map.insert("percent".into(), json!(percent(self.tokens, self.budget)));
                }
            }
        }
        Value::Object(map)
    }
}
