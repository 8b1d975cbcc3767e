//! Merging generated entries into an existing Pin without losing anything a person wrote.
//!
//! Owns the policy: an existing entry keeps every keyword, file, spec and note and only gains
//! generated keywords (up to [`MAX_KEYWORDS`] in all) and files it does not already cover, and
//! the generated `**Kind**:` when it has none and was matched by name;
//! entries nobody generated are never removed; an entry whose files all vanished is flagged
//! stale, not deleted. Pure: whether a path exists is asked through a closure. Does not own
//! discovery, keywords or writing.

use std::collections::VecDeque;

use super::check::is_glob;
use super::format::{Entry, Pin};
use super::keywords::MAX_KEYWORDS;
use super::text::FastMap as HashMap;

/// A generated entry: its name, keywords, the items it lists and every file it covers.
#[derive(Debug, Clone)]
pub struct Generated {
    pub name: String,
    pub keywords: Vec<String>,
    pub items: Vec<String>,
    pub files: Vec<String>,
    /// `tests`, `examples`, `fixtures`, `benchmarks` (see [`Entry::kind`]).
    pub kind: Option<String>,
}

/// What a merge changed, by entry name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub stale: Vec<String>,
}

fn pattern(item: &str) -> Option<glob::Pattern> {
    if is_glob(item) {
        glob::Pattern::new(item).ok()
    } else {
        None
    }
}

const MATCH: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

/// Whether one of `items` names `path` (equal, a folder above it, or a glob matching it).
fn covers(items: &[String], path: &str) -> bool {
    items.iter().any(|it| {
        let it = it.trim_end_matches('/');
        it == path
            || (path.starts_with(it) && path.as_bytes().get(it.len()) == Some(&b'/'))
            || pattern(it).is_some_and(|p| p.matches_with(path, MATCH))
    })
}

/// The share of `g`'s files that `e` already lists, against the larger of the two lists.
fn overlap(e: &Entry, g: &Generated) -> f64 {
    if e.files.is_empty() || g.files.is_empty() {
        return 0.0;
    }
    let hit = g.files.iter().filter(|f| covers(&e.files, f)).count();
    hit as f64 / g.files.len().max(e.files.len()) as f64
}

/// Merge `generated` into `pin`. `exists(item)` says whether a path or glob matches anything.
pub fn merge(pin: &mut Pin, generated: Vec<Generated>, exists: impl Fn(&str) -> bool) -> Summary {
    let mut summary = Summary::default();
    let n_old = pin.entries().len();
    let mut taken = vec![false; n_old];
    let mut target: Vec<Option<usize>> = vec![None; generated.len()];
    let mut by_same_name = vec![false; generated.len()];
    // By name first (each generated entry takes the first untaken entry of its name, case
    // and surrounding blanks ignored; the names are lowered once, not once per pair), then by
    // the files they share.
    let mut by_name: HashMap<String, VecDeque<usize>> = HashMap::default();
    for (i, e) in pin.entries().iter().enumerate() {
        by_name
            .entry(e.name.trim().to_lowercase())
            .or_default()
            .push_back(i);
    }
    for (gi, g) in generated.iter().enumerate() {
        if let Some(ei) = by_name
            .get_mut(&g.name.trim().to_lowercase())
            .and_then(VecDeque::pop_front)
        {
            taken[ei] = true;
            target[gi] = Some(ei);
            by_same_name[gi] = true;
        }
    }
    for (gi, g) in generated.iter().enumerate() {
        if target[gi].is_some() {
            continue;
        }
        let mut best: Option<(f64, usize)> = None;
        for ei in (0..n_old).filter(|&i| !taken[i]) {
            let o = overlap(&pin.entries()[ei], g);
            if o >= 0.5 && best.is_none_or(|(b, _)| o > b) {
                best = Some((o, ei));
            }
        }
        if let Some((_, ei)) = best {
            taken[ei] = true;
            target[gi] = Some(ei);
        }
    }
    for ((g, t), same_name) in generated.into_iter().zip(target).zip(by_same_name) {
        match t {
            Some(ei) => {
                let e = &mut pin.entries_mut()[ei];
                let mut changed = false;
                // Only an entry of the same name: one found by its files may hold more.
                if same_name && e.kind.is_none() && g.kind.is_some() {
                    e.kind.clone_from(&g.kind);
                    changed = true;
                }
                for it in &g.items {
                    let item_files: Vec<&String> = if is_glob(it) {
                        g.files
                            .iter()
                            .filter(|f| covers(std::slice::from_ref(it), f))
                            .collect()
                    } else {
                        vec![it]
                    };
                    let known = e.files.iter().any(|f| f == it)
                        || (!item_files.is_empty()
                            && item_files.iter().all(|f| covers(&e.files, f)));
                    if !known {
                        e.files.push(it.clone());
                        changed = true;
                    }
                }
                for k in &g.keywords {
                    if e.keywords.len() >= MAX_KEYWORDS {
                        break;
                    }
                    if !e.keywords.iter().any(|x| x.eq_ignore_ascii_case(k)) {
                        e.keywords.push(k.clone());
                        changed = true;
                    }
                }
                if changed {
                    summary.updated.push(e.name.clone());
                }
            }
            None => {
                let mut e = Entry::new(g.name.clone());
                e.keywords = g.keywords;
                e.files = g.items;
                e.kind = g.kind;
                summary.added.push(e.name.clone());
                pin.push_entry(e);
            }
        }
    }
    for e in pin.entries_mut() {
        let stale = !e.files.is_empty() && !e.files.iter().any(|f| exists(f));
        if e.stale != stale {
            e.stale = stale;
        }
        if stale {
            summary.stale.push(e.name.clone());
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(name: &str, kws: &[&str], items: &[&str], files: &[&str]) -> Generated {
        Generated {
            name: name.into(),
            keywords: kws.iter().map(|s| s.to_string()).collect(),
            items: items.iter().map(|s| s.to_string()).collect(),
            files: files.iter().map(|s| s.to_string()).collect(),
            kind: None,
        }
    }

    const HAND: &str = "# Index\n\nIntro.\n\n### Parser (hand named)\n**Keywords**: lexer, Grammar\n\n\
**File Paths**:\n- src/parse/*.rs\n\n**Spec Link**: specs/parse.md\n\n---\n\n\
### Old thing\n**Keywords**: legacy\n\n**File Paths**:\n- src/old.rs\n\n**Spec Link**: N/A\n\n---\n\n\
### Notes only\n**Keywords**: ideas\n\n**File Paths**:\n\n**Spec Link**: N/A\n\n---\n\n## Footer\n";

    #[test]
    fn keeps_human_work_gains_new_and_flags_vanished() {
        let mut pin = Pin::parse(HAND);
        let gen_ = vec![
            g(
                "p: src/parse",
                &["grammar", "token", "ast"],
                &["src/parse/lex.rs", "src/parse/new.rs", "src/parse/sub/x.rs"],
                &["src/parse/lex.rs", "src/parse/new.rs", "src/parse/sub/x.rs"],
            ),
            g(
                "p: src/graph",
                &["graph"],
                &["src/graph/mod.rs"],
                &["src/graph/mod.rs"],
            ),
        ];
        let s = merge(&mut pin, gen_, |f| f != "src/old.rs");
        assert_eq!(s.added, ["p: src/graph"]);
        assert_eq!(s.updated, ["Parser (hand named)"]);
        assert_eq!(s.stale, ["Old thing"]);
        let e = &pin.entries()[0];
        assert_eq!(e.keywords, ["lexer", "Grammar", "token", "ast"]);
        assert_eq!(e.files, ["src/parse/*.rs", "src/parse/sub/x.rs"]);
        assert_eq!(e.spec.as_deref(), Some("specs/parse.md"));
        assert!(pin.entries()[1].stale);
        assert!(!pin.entries()[2].stale);
        let text = pin.to_markdown();
        assert!(text.contains(
            "### Notes only\n**Keywords**: ideas\n\n**File Paths**:\n\n**Spec Link**: N/A\n\n---\n"
        ));
        assert!(text.ends_with("## Footer\n"));
        let graph_at = text.find("### p: src/graph").unwrap();
        assert!(graph_at < text.find("## Footer").unwrap());
    }

    #[test]
    fn names_match_ignoring_case_and_blanks_first_untaken_first() {
        let old = "### Alpha\n**Keywords**: a\n\n**File Paths**:\n- a.rs\n\n**Spec Link**: N/A\n\n---\n\n\
### alpha\n**Keywords**: b\n\n**File Paths**:\n- b.rs\n\n**Spec Link**: N/A\n\n---\n";
        let mut pin = Pin::parse(old);
        let gen_ = vec![
            g(" ALPHA ", &["k1"], &["a.rs"], &["a.rs"]),
            g("alpha", &["k2"], &["b.rs"], &["b.rs"]),
            g("Alpha", &["k3"], &["c.rs"], &["c.rs"]),
        ];
        let s = merge(&mut pin, gen_, |_| true);
        assert_eq!(pin.entries()[0].keywords, ["a", "k1"]);
        assert_eq!(pin.entries()[1].keywords, ["b", "k2"]);
        assert_eq!(s.added, ["Alpha"], "both old entries were taken");
    }

    #[test]
    fn merging_twice_changes_nothing() {
        let gen_ = || {
            vec![
                g(
                    "p: src/parse",
                    &["grammar", "token"],
                    &["src/parse/lex.rs"],
                    &["src/parse/lex.rs"],
                ),
                g(
                    "p: src/graph",
                    &["graph"],
                    &["src/graph/mod.rs"],
                    &["src/graph/mod.rs"],
                ),
            ]
        };
        let mut pin = Pin::parse(HAND);
        merge(&mut pin, gen_(), |f| f != "src/old.rs");
        let once = pin.to_markdown();
        let mut again = Pin::parse(&once);
        let s = merge(&mut again, gen_(), |f| f != "src/old.rs");
        assert_eq!(again.to_markdown(), once);
        assert!(s.added.is_empty() && s.updated.is_empty());
    }

    #[test]
    fn keyword_gain_stops_at_twenty() {
        let mut pin = Pin::default();
        let many: Vec<String> = (0..25).map(|i| format!("k{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        merge(
            &mut pin,
            vec![g("x", &refs[..18], &["a.rs"], &["a.rs"])],
            |_| true,
        );
        merge(&mut pin, vec![g("x", &refs, &["a.rs"], &["a.rs"])], |_| {
            true
        });
        assert_eq!(pin.entries()[0].keywords.len(), 20);
    }
}
