//! A prompt's account: what happened to each section, Pin entry and file ([`Assembled`] and
//! its parts), and presenting it as the `--explain` table and the `--json` document.
//!
//! Owns these types and both layouts; the numbers come from [`super::assemble`].

use serde::Serialize;
use serde_json::{Value, json};

use super::budget::{Zone, percent};
use super::redact::Redactions;

/// What happened to a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Kept,
    Shortened,
    Dropped,
    /// Nothing to put there (no blockers, no patterns, …).
    Empty,
}

/// What happened to a Pin entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PinStatus {
    /// With its spec excerpt (up to `spec_lines` lines).
    Full,
    /// Spec excerpt shortened to `short_spec_lines` (60% zone).
    SpecShortened,
    /// Name and files only (75% zone).
    NamesOnly,
    /// Not in the prompt (95% zone).
    Dropped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SectionAccount {
    pub name: &'static str,
    /// Estimated tokens of this section's text.
    pub tokens: usize,
    /// The zone the prompt is in once this section is added.
    pub zone: Zone,
    pub status: Status,
}

/// What happened to a file of "where to look".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FileAccount {
    pub rank: usize,
    pub path: String,
    pub kind: &'static str,
    pub score: f64,
    /// The story's words found in it, as the story wrote them, most telling first.
    pub matched: Vec<String>,
    /// Evidence besides words (Pin entry, blocker, co-change, kind).
    pub evidence: Vec<String>,
    /// Matching definitions shown under it (0 when its signatures were cut or it was dropped).
    pub signatures: usize,
    /// Other definitions shown under it, its outline (only the top files have one).
    pub outline: usize,
    /// Whether the file is in the prompt at all.
    pub shown: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PinAccount {
    pub rank: usize,
    pub name: String,
    pub score: f64,
    pub matched: Vec<String>,
    pub status: PinStatus,
    /// True unless the entry is in the prompt in full.
    pub cut: bool,
}

/// A learned error pattern chosen for the prompt (`.ralph/patterns.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ErrorPatternAccount {
    pub id: String,
    /// The verify command whose failure it is (redacted).
    pub command: String,
    /// Why it was chosen: like the current failure, or its fix's files ranked for the story.
    pub why: String,
    /// Whether the section is in the prompt (it goes at 85% of the budget).
    pub shown: bool,
}

/// The prompt and the account of how it was built.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Assembled {
    pub story: String,
    pub budget: usize,
    /// Estimated tokens of the whole prompt (never above `budget`).
    pub tokens: usize,
    /// The zone the finished prompt is in.
    pub zone: Zone,
    /// The zone whose reductions were applied (green: none).
    pub reduced_for: Zone,
    pub sections: Vec<SectionAccount>,
    /// The keywords the Pin and the code were searched with, as the story wrote them.
    pub keywords: Vec<String>,
    /// The files of "where to look" (all ranked files, shown or not).
    pub files: Vec<FileAccount>,
    pub pins: Vec<PinAccount>,
    /// The learned error patterns chosen for the story ("errors seen before").
    pub error_patterns: Vec<ErrorPatternAccount>,
    /// Warnings for the person running ralph (no Pin, cache not writable, …).
    pub warnings: Vec<String>,
    /// Secrets redacted from the material in the prompt, by kind.
    pub redactions: Redactions,
    pub prompt: String,
}

impl Assembled {
    /// The human table: each section's tokens, zone and fate, then each Pin entry's score,
    /// matched terms and fate, then the redaction counts.
    pub(crate) fn explain(&self) -> String {
        let mut out = self.explain_header();
        out.push_str(&self.explain_sections());
        out.push('\n');
        if !self.keywords.is_empty() {
            out.push_str(&format!("query: {}\n", self.keywords.join(" ")));
        }
        out.push_str(&self.explain_files());
        out.push('\n');
        out.push_str(&self.explain_pins());
        out.push('\n');
        out.push_str(&self.explain_errors());
        out.push_str(&self.explain_redactions());
        out
    }

    /// The prompt's size and zone, the reductions made and the zones' thresholds.
    fn explain_header(&self) -> String {
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
        out
    }

    /// Each section's tokens, the zone the prompt is in where it ends, and its fate.
    fn explain_sections(&self) -> String {
        let mut out = format!(
            "{:<14} {:>7}  {:<11} {}\n",
            "section", "tokens", "zone so far", "status"
        );
        for s in &self.sections {
            out.push_str(&format!(
                "{:<14} {:>7}  {:<11} {}\n",
                s.name,
                s.tokens,
                s.zone,
                wire_name(s.status)
            ));
        }
        out
    }

    /// Each Pin entry's rank, score, fate and matched terms.
    fn explain_pins(&self) -> String {
        if self.pins.is_empty() {
            return "pin: no entry matched this story\n".to_string();
        }
        let mut out = format!(
            "{:<4} {:>7}  {:<14} {:<4} {:<30} {}\n",
            "rank", "score", "status", "cut", "name", "matched"
        );
        for p in &self.pins {
            out.push_str(&format!(
                "{:<4} {:>7.2}  {:<14} {:<4} {:<30} {}\n",
                p.rank,
                p.score,
                wire_name(p.status),
                if p.cut { "yes" } else { "no" },
                p.name,
                p.matched.join(", ")
            ));
        }
        out
    }

    /// The secrets redacted from what the prompt kept, by kind.
    fn explain_redactions(&self) -> String {
        if self.redactions.is_empty() {
            return "redactions: none\n".to_string();
        }
        let kinds: Vec<String> = self
            .redactions
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        format!(
            "redactions: {} ({})\n",
            self.redactions.total(),
            kinds.join(", ")
        )
    }

    /// The "where to look" part of [`Assembled::explain`]: each ranked file's score, the
    /// story's words it has and the other evidence behind it.
    fn explain_files(&self) -> String {
        if self.files.is_empty() {
            return "where to look: no file matched this story\n".to_string();
        }
        let mut out = format!(
            "{:<4} {:>7}  {:<6} {:<5} {:<7} {}\n",
            "rank", "score", "shown", "sigs", "outline", "file"
        );
        for f in &self.files {
            out.push_str(&format!(
                "{:<4} {:>7.2}  {:<6} {:<5} {:<7} {}{}\n",
                f.rank,
                f.score,
                if f.shown { "yes" } else { "no" },
                f.signatures,
                f.outline,
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

    /// The error-patterns part of [`Assembled::explain`] (nothing when none was chosen).
    fn explain_errors(&self) -> String {
        let mut out = String::new();
        for e in &self.error_patterns {
            out.push_str(&format!(
                "error pattern {} ({}): `{}`, {}\n",
                e.id,
                if e.shown { "shown" } else { "dropped" },
                e.command,
                e.why
            ));
        }
        out
    }

    /// The same account as data, with the prompt: the `data` of `ralph context --json`.
    pub(crate) fn to_json(&self) -> Value {
        let mut map = serde_json::Map::new();
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

/// A status as the JSON document spells it (`"kept"`, `"names-only"`, …), for the table.
fn wire_name(status: impl Serialize) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}
