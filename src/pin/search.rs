//! Ranking Pin entries for free text: BM25F over three fields (keywords > name > file paths).
//!
//! Owns the one ranking path, [`search`], that `ralph pin search` prints and the context builder
//! uses. It reads the Pin's [`Digest`] (the lists of the query's own terms) and parses only the
//! entries it returns. Pure: no I/O. Does not own the digest (see [`super::digest`]), parsing
//! (see [`super::format`]) or the tokenizer (see [`crate::index::text`]).
//!
//! Scoring: [`crate::index::bm25`] (the one BM25F, which ranks files too) over three fields,
//! `k1 = 1.2`, `b = 0.75`, weights keywords 3, name 2, files (and spec link) 1.
//! An entry marked as tests, examples, fixtures… (`**Kind**:`, see [`EntryView::is_aside`])
//! scores [`ASIDE_WEIGHT`] times as much unless the query is about such things (`test`,
//! `fixtures`, `example`…). Ties keep Pin order.

use super::digest::{Damaged, Digest, FIELDS};
use super::format::{EntryView, PinView};
use crate::index::bm25::Bm25f;
use crate::index::text::for_each_term;

/// The fields: keywords, name, files (and spec link).
const BM25F: Bm25f<FIELDS> = Bm25f {
    k1: 1.2,
    weight: [3.0, 2.0, 1.0],
    b: [0.75; FIELDS],
};
/// The share of its score an entry of tests, examples, fixtures… keeps when the query is not
/// about them: below the sources it belongs to.
pub(crate) const ASIDE_WEIGHT: f64 = 0.5;
/// Query words that make tests, examples and fixtures what is searched for.
const ASIDE_WORDS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "spec",
    "specs",
    "fixture",
    "fixtures",
    "example",
    "examples",
    "bench",
    "benchmark",
    "benchmarks",
    "demo",
    "sample",
    "mock",
    "mocks",
    "e2e",
];

/// One ranked entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    /// Index into the Pin's entries.
    pub entry: usize,
    pub score: f64,
    /// The query terms (stemmed) found in the entry, in query order.
    pub matched: Vec<String>,
}

/// A ranked entry, read from the Pin's text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found<'a> {
    pub hit: Hit,
    pub entry: EntryView<'a>,
}

/// The distinct terms of a query, in order.
fn query_terms(query: &str) -> Vec<String> {
    let mut q: Vec<String> = Vec::new();
    for_each_term(query, |t, _| {
        if !q.iter().any(|x| x == t) {
            q.push(t.to_string());
        }
    });
    q
}

/// Corpus statistics the BM25F formula needs.
#[derive(Debug, Clone)]
struct Stats {
    n: f64,
    avg: [f64; FIELDS],
}

impl Stats {
    fn new(n: usize, total: [f64; FIELDS]) -> Stats {
        Stats {
            n: n as f64,
            avg: Bm25f::averages(n, total),
        }
    }

    fn idf(&self, df: usize) -> f64 {
        Bm25f::<FIELDS>::idf(self.n, df as f64)
    }

    /// One term's contribution to one entry.
    fn term_score(&self, idf: f64, tf: [u32; FIELDS], len: [f64; FIELDS]) -> f64 {
        BM25F.score(idf, tf.map(f64::from), len, &self.avg)
    }
}

/// Best first, ties in Pin order, at most `limit`.
fn finish(mut hits: Vec<Hit>, limit: usize) -> Vec<Hit> {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
    hits.truncate(limit);
    hits
}

/// Whether the query terms ask for tests, examples, fixtures… (they are then not scored lower).
fn about_aside(terms: &[String]) -> bool {
    ASIDE_WORDS
        .iter()
        .any(|w| terms.iter().any(|t| *t == crate::index::text::stem(w)))
}

/// The best `limit` entries of `digest` for `query`, best first; entries matching no term are
/// left out. Each entry's score adds its terms' in query order.
fn rank(digest: &Digest, query: &str, limit: usize) -> Result<Vec<Hit>, Damaged> {
    let terms = query_terms(query);
    let stats = Stats::new(digest.len(), digest.totals().map(|t| t as f64));
    // Per entry holding a term: its place in `hits`.
    let mut slot: std::collections::HashMap<usize, usize, foldhash::fast::RandomState> =
        Default::default();
    let mut hits: Vec<Hit> = Vec::new();
    for term in &terms {
        let list = digest.postings(term)?;
        let idf = stats.idf(list.len());
        for (entry, tf) in list {
            let len = digest.entry(entry).ok_or(Damaged)?.len.map(f64::from);
            let at = *slot.entry(entry).or_insert_with(|| {
                hits.push(Hit {
                    entry,
                    score: 0.0,
                    matched: Vec::new(),
                });
                hits.len() - 1
            });
            hits[at].score += stats.term_score(idf, tf, len);
            hits[at].matched.push(term.clone());
        }
    }
    if !about_aside(&terms) {
        for h in &mut hits {
            if digest.entry(h.entry).is_some_and(|e| e.aside) {
                h.score *= ASIDE_WEIGHT;
            }
        }
    }
    Ok(finish(hits, limit))
}

/// [`rank`], each hit with its entry read from `text` (the Pin `digest` was built from).
fn found<'a>(
    text: &'a str,
    digest: &Digest,
    query: &str,
    limit: usize,
) -> Result<Vec<Found<'a>>, Damaged> {
    rank(digest, query, limit)?
        .into_iter()
        .map(|hit| {
            let at = digest.entry(hit.entry).ok_or(Damaged)?;
            let entry = PinView::entry_at(text, at.start, at.line).ok_or(Damaged)?;
            Ok(Found { hit, entry })
        })
        .collect()
}

/// The best `limit` entries of the Pin `text` for `query`, best first, ties in Pin order;
/// entries matching no term are left out. `digest` is the text's ([`Digest::build`], or read
/// back); one that turns out damaged is built again from the text.
pub(crate) fn search<'a>(
    text: &'a str,
    digest: &Digest,
    query: &str,
    limit: usize,
) -> Vec<Found<'a>> {
    found(text, digest, query, limit)
        .or_else(|Damaged| found(text, &Digest::build(text), query, limit))
        .unwrap_or_default()
}

/// Found entries as evidence for the files they name (see [`crate::index::PinEvidence`]).
pub(crate) fn as_evidence(found: &[Found<'_>]) -> Vec<crate::index::PinEvidence> {
    crate::index::PinEvidence::from_scores(
        found
            .iter()
            .map(|f| {
                let files = f.entry.files.iter().map(|p| (*p).to_string()).collect();
                (f.entry.name.to_string(), f.hit.score, files)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::text::terms;
    use crate::pin::format::Pin;

    const PIN: &str = "### Progress log\n**Keywords**: progress, log, compaction, learnings\n\
             **File Paths**:\n- src/progress/mod.rs\n\n---\n\
             ### Pin search\n**Keywords**: index, bm25, ranking, keywords, search\n\
             **File Paths**:\n- src/pin/search.rs\n\n---\n\
             ### Search box\n**Keywords**: ui, widget\n**File Paths**:\n- web/search_box.ts\n\n---\n\
             ### Twin A\n**Keywords**: zeta\n**File Paths**:\n- a.rs\n---\n\
             ### Twin B\n**Keywords**: zeta\n**File Paths**:\n- b.rs\n---\n";

    /// The hits of [`search`] over a freshly built digest, checking that each comes with the
    /// entry a whole parse gives.
    fn hits(text: &str, query: &str, limit: usize) -> Vec<Hit> {
        let whole = PinView::parse(text);
        search(text, &Digest::build(text), query, limit)
            .into_iter()
            .map(|f| {
                assert_eq!(Some(&f.entry), whole.entries().get(f.hit.entry), "{query}");
                f.hit
            })
            .collect()
    }

    /// BM25F as the module doc states it, over owned entries and [`terms`]: what the one-pass,
    /// gated, parallel ranking must agree with.
    fn reference(text: &str, query: &str, limit: usize) -> Vec<Hit> {
        let pin = Pin::parse(text);
        let fields = |e: &crate::pin::format::Entry| -> [Vec<String>; 3] {
            [
                e.keywords.iter().flat_map(|k| terms(k)).collect(),
                terms(&e.name),
                e.files
                    .iter()
                    .chain(&e.spec)
                    .flat_map(|p| terms(p))
                    .collect(),
            ]
        };
        let docs: Vec<[Vec<String>; 3]> = pin.entries().iter().map(fields).collect();
        let mut total = [0f64; 3];
        for d in &docs {
            for f in 0..3 {
                total[f] += d[f].len() as f64;
            }
        }
        let stats = Stats::new(docs.len(), total);
        let q = query_terms(query);
        let mut hits = Vec::new();
        for (i, d) in docs.iter().enumerate() {
            let len = [0, 1, 2].map(|f| d[f].len() as f64);
            let mut score = 0.0;
            let mut matched = Vec::new();
            for t in &q {
                let tf = [0, 1, 2].map(|f| d[f].iter().filter(|w| *w == t).count() as u32);
                if tf.iter().all(|&c| c == 0) {
                    continue;
                }
                let df = docs
                    .iter()
                    .filter(|d| d.iter().any(|f| f.contains(t)))
                    .count();
                score += stats.term_score(stats.idf(df), tf, len);
                matched.push(t.clone());
            }
            if !matched.is_empty() {
                hits.push(Hit {
                    entry: i,
                    score,
                    matched,
                });
            }
        }
        finish(hits, limit)
    }

    #[test]
    fn keywords_outrank_names_and_paths() {
        let hits = hits(PIN, "searching the index", 5);
        assert_eq!(hits[0].entry, 1);
        assert_eq!(hits[0].matched, ["search", "index"]);
        assert_eq!(hits[1].entry, 2);
        assert!(hits[0].score > hits[1].score);
        assert_eq!(hits.len(), 2);
    }

    #[test]
    fn stemming_matches_inflections() {
        let hits = hits(PIN, "compaction of logs", 5);
        assert_eq!(hits[0].entry, 0);
        assert_eq!(hits[0].matched, ["compaction", "log"]);
    }

    #[test]
    fn ranking_agrees_with_the_reference() {
        let fork = include_str!("../../tests/fixtures/compat/newralph/INDEX.md");
        for text in [PIN, fork] {
            for q in [
                "search index",
                "zeta",
                "agent skills library",
                "lib common.sh git",
                "nothing",
                "",
            ] {
                assert_eq!(hits(text, q, 10), reference(text, q, 10), "{q}");
            }
        }
    }

    #[test]
    fn tests_and_examples_rank_below_sources_unless_asked_for() {
        let text = "### app: src/render\n**Keywords**: render, table\n**File Paths**:\n- src/render.rs\n---\n\
                    ### app: tests\n**Kind**: tests\n\n**Keywords**: render, table, cases\n\
                    **File Paths**:\n- tests/render.rs\n- tests/render_more.rs\n---\n\
                    ### app: examples\n- **Kind:** Examples\n**Keywords**: render, table, table\n\
                    **File Paths**:\n- examples/table.rs\n---\n";
        let pin = PinView::parse(text);
        assert_eq!(pin.entries()[1].kind, Some("tests"));
        assert!(pin.entries()[2].is_aside());
        let found = hits(text, "render a table", 5);
        assert_eq!(found[0].entry, 0, "{found:?}");
        let full = reference(text, "render a table", 5);
        for h in &found[1..] {
            let unweighted = full.iter().find(|r| r.entry == h.entry).map(|r| r.score);
            assert_eq!(Some(h.score / ASIDE_WEIGHT), unweighted);
        }
        let found = hits(text, "render table tests", 5);
        assert_eq!(found[0].entry, 1, "{found:?}");
    }

    #[test]
    fn ties_keep_pin_order_and_limit_applies() {
        let found = hits(PIN, "zeta", 5);
        assert_eq!(found.iter().map(|h| h.entry).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(found[0].score, found[1].score);
        assert_eq!(hits(PIN, "zeta", 1).len(), 1);
        assert!(hits(PIN, "nothing matches", 5).is_empty());
        assert!(hits("", "zeta", 5).is_empty());
    }

    #[test]
    fn a_large_pin_read_on_several_cores_ranks_like_the_reference() {
        let mut text = String::new();
        for i in 0..3000 {
            text += &format!(
                "### module {i}\n**Keywords**: alpha{}, beta, gamma{}\n**File Paths**:\n\
                 - src/m{i}/lib.rs\n\n{}\n\n---\n\n",
                i % 7,
                i % 13,
                // Notes (not searched) make the text large enough to be parsed in parts.
                "A note that is not searched. ".repeat(4)
            );
        }
        assert!(text.len() > 2 * 256 * 1024, "{}", text.len());
        for q in ["alpha3 beta", "gamma12 module", "lib", "module 2999"] {
            assert_eq!(Digest::build(&text).len(), 3000);
            let found = hits(&text, q, 20);
            assert!(!found.is_empty(), "{q}");
            assert_eq!(found, reference(&text, q, 20), "{q}");
        }
    }
}
