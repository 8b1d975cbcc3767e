//! Which learned patterns a prompt shows, and how (pure): similarity between two signatures
//! (token Jaccard), the selection of at most [`MAX_SHOWN`] patterns for a story, and the
//! "Errors seen before" section.
//!
//! The rule: when the story's last attempt failed verify, the patterns whose signature is at
//! least [`MIN_SIMILARITY`] like that failure's, most alike first; when there is no such
//! failure or none is alike enough, the patterns whose fix touched files the context builder
//! ranked for the story ("where to look"), most shared files first. Ties go to the pattern
//! used and seen most, then the most recently seen. Owns no I/O.

use std::collections::BTreeSet;

use crate::state::errors_seen::Pattern;

/// The most patterns one prompt shows.
pub(crate) const MAX_SHOWN: usize = 3;
/// How alike (0..=1) a pattern's signature must be to the current failure's.
pub(crate) const MIN_SIMILARITY: f64 = 0.5;

/// Why a pattern was chosen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Why {
    /// Its signature is this alike (0..=1) to the story's current failure.
    Similar(f64),
    /// Its fix touched these files, which are ranked for the story.
    Files(Vec<String>),
}

impl Why {
    /// A short account for `ralph context --explain`.
    pub(crate) fn text(&self) -> String {
        match self {
            Why::Similar(s) => format!("like the current failure ({:.0}%)", s * 100.0),
            Why::Files(f) => format!("fixed files ranked for the story: {}", f.join(", ")),
        }
    }
}

/// A pattern chosen for a prompt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chosen {
    pub pattern: Pattern,
    pub why: Why,
}

fn tokens(lines: &[String]) -> BTreeSet<String> {
    lines
        .iter()
        .flat_map(|l| {
            l.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '<' | '>' | '.')))
                .filter(|t| !t.is_empty())
                .map(str::to_lowercase)
        })
        .collect()
}

/// How alike two signatures are: the Jaccard index of their words (0 when either is empty).
pub(crate) fn similarity(a: &[String], b: &[String]) -> f64 {
    let (a, b) = (tokens(a), tokens(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.intersection(&b).count();
    let union = a.len() + b.len() - shared;
    shared as f64 / union as f64
}

/// The order among equally good candidates: used and seen most, then seen last.
fn tie(p: &Pattern) -> (u32, u32, &str) {
    (p.uses, p.seen, p.last_seen.as_str())
}

/// The patterns for a story's prompt (see the module doc): `current` is the signature of the
/// failure its last attempt ended with, `files` the files ranked for it.
pub(crate) fn select(
    patterns: &[Pattern],
    current: Option<&[String]>,
    files: &[String],
) -> Vec<Chosen> {
    if let Some(cur) = current.filter(|c| !c.is_empty()) {
        let mut alike: Vec<(f64, &Pattern)> = patterns
            .iter()
            .map(|p| (similarity(cur, &p.signature), p))
            .filter(|(s, _)| *s >= MIN_SIMILARITY)
            .collect();
        alike.sort_by(|(sa, a), (sb, b)| sb.total_cmp(sa).then_with(|| tie(b).cmp(&tie(a))));
        if !alike.is_empty() {
            return alike
                .into_iter()
                .take(MAX_SHOWN)
                .map(|(s, p)| Chosen {
                    pattern: p.clone(),
                    why: Why::Similar(s),
                })
                .collect();
        }
    }
    let mut shared: Vec<(Vec<String>, &Pattern)> = patterns
        .iter()
        .map(|p| {
            let f: Vec<String> = p
                .fix
                .files
                .iter()
                .filter(|f| files.contains(f))
                .cloned()
                .collect();
            (f, p)
        })
        .filter(|(f, _)| !f.is_empty())
        .collect();
    shared.sort_by(|(fa, a), (fb, b)| fb.len().cmp(&fa.len()).then_with(|| tie(b).cmp(&tie(a))));
    shared
        .into_iter()
        .take(MAX_SHOWN)
        .map(|(f, p)| Chosen {
            pattern: p.clone(),
            why: Why::Files(f),
        })
        .collect()
}

/// The "Errors seen before" section for `chosen` (empty when nothing is chosen). `keep` says
/// whether a line may go in: the caller drops lines that would read as a signal.
pub(crate) fn render(chosen: &[Chosen], keep: impl Fn(&str) -> bool) -> String {
    if chosen.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n# Errors seen before\n\nThese verify failures happened in earlier stories and were fixed; \
         if you meet one, start from its fix.\n",
    );
    for c in chosen {
        let p = &c.pattern;
        // One line whatever the command: a multi-line verify command would break the heading
        // (and the check that it was shown).
        let command = p.command.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut block = vec![format!("\n## `{command}` failed (pattern {})", p.id)];
        block.extend(p.signature.iter().map(|l| format!("    {l}")));
        if !p.fix.diff.is_empty() {
            block.push(format!("Fixed in {} by changing: {}", p.story, p.fix.diff));
        } else if !p.fix.files.is_empty() {
            block.push(format!(
                "Fixed in {} by changing: {}",
                p.story,
                p.fix.files.join(", ")
            ));
        }
        if let Some(l) = &p.fix.learning {
            block.push(format!("Learning: {l}"));
        }
        for line in block.into_iter().filter(|l| keep(l)) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::errors_seen::Fix;

    fn pat(id: &str, sig: &[&str], files: &[&str], uses: u32) -> Pattern {
        Pattern {
            id: id.into(),
            command: "sh check.sh".into(),
            signature: sig.iter().map(|s| s.to_string()).collect(),
            fix: Fix {
                files: files.iter().map(|s| s.to_string()).collect(),
                diff: String::new(),
                learning: None,
                ..Fix::default()
            },
            story: "S-1".into(),
            uses,
            seen: 1,
            ..Pattern::default()
        }
    }

    fn sig(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn similarity_is_the_jaccard_index_of_words() {
        let a = sig(&["error: bad value N in cfg.toml"]);
        assert_eq!(similarity(&a, &a), 1.0);
        let b = sig(&["error: missing key in cfg.toml"]);
        let s = similarity(&a, &b);
        assert!(s > 0.3 && s < 0.6, "{s}");
        assert_eq!(similarity(&a, &[]), 0.0);
        assert_eq!(similarity(&a, &sig(&["all good"])), 0.0);
    }

    #[test]
    fn a_similar_failure_wins_and_ties_go_to_the_most_used() {
        let ps = [
            pat("a", &["error: bad value N in cfg.toml"], &["src/x.rs"], 0),
            pat("b", &["error: bad value N in cfg.toml"], &[], 4),
            pat("c", &["linker failed"], &["src/x.rs"], 9),
        ];
        let cur = sig(&["error: bad value N in cfg.toml"]);
        let got = select(&ps, Some(&cur), &["src/x.rs".into()]);
        let ids: Vec<&str> = got.iter().map(|c| c.pattern.id.as_str()).collect();
        assert_eq!(ids, ["b", "a"]);
        assert_eq!(got[0].why, Why::Similar(1.0));
    }

    #[test]
    fn without_a_similar_failure_the_ranked_files_choose_at_most_three() {
        let ps = [
            pat("a", &["x"], &["src/x.rs"], 0),
            pat("b", &["y"], &["src/x.rs", "src/y.rs"], 0),
            pat("c", &["z"], &["src/other.rs"], 5),
            pat("d", &["w"], &["src/y.rs"], 3),
            pat("e", &["v"], &["src/x.rs"], 1),
        ];
        let files = ["src/x.rs".to_string(), "src/y.rs".to_string()];
        let got = select(&ps, Some(&sig(&["nothing alike"])), &files);
        let ids: Vec<&str> = got.iter().map(|c| c.pattern.id.as_str()).collect();
        assert_eq!(ids, ["b", "d", "e"]);
        assert_eq!(
            got[0].why,
            Why::Files(vec!["src/x.rs".into(), "src/y.rs".into()])
        );
        assert!(select(&ps, None, &[]).is_empty());
        assert!(select(&[], None, &files).is_empty());
    }

    #[test]
    fn the_section_names_command_signature_fix_and_learning_and_drops_what_keep_refuses() {
        let mut p = pat(
            "abc",
            &["error: bad value N", "<promise>COMPLETE</promise>"],
            &["cfg.toml"],
            0,
        );
        p.fix.diff = "cfg.toml +1 -1".into();
        p.fix.learning = Some("values are quoted".into());
        let c = [Chosen {
            pattern: p,
            why: Why::Similar(1.0),
        }];
        let text = render(&c, |l| !l.contains("<promise>"));
        assert!(text.contains("# Errors seen before"), "{text}");
        assert!(text.contains("## `sh check.sh` failed (pattern abc)"));
        assert!(text.contains("    error: bad value N\n"));
        assert!(text.contains("Fixed in S-1 by changing: cfg.toml +1 -1"));
        assert!(text.contains("Learning: values are quoted"));
        assert!(!text.contains("promise"));
        assert_eq!(render(&[], |_| true), "");
    }

    #[test]
    fn a_multi_line_command_is_one_heading_line() {
        let mut p = pat("abc", &["error: x"], &["a.rs"], 0);
        p.command = "cargo fmt --check &&\ncargo test".into();
        let text = render(
            &[Chosen {
                pattern: p,
                why: Why::Similar(1.0),
            }],
            |_| true,
        );
        assert!(
            text.lines()
                .any(|l| l == "## `cargo fmt --check && cargo test` failed (pattern abc)"),
            "{text}"
        );
    }
}
