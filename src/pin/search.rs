//! Ranking Pin entries for free text: BM25F over three fields (keywords > name > file paths).
//!
//! Owns the one ranking path, [`parse_and_search`], that `ralph pin search` prints and the
//! context builder uses. Pure: no I/O. Does not own parsing (see [`super::format`]) or the
//! tokenizer (see [`crate::index::text`]; [`terms`] is the same function, re-exported).
//!
//! Scoring: [`crate::index::bm25`] (the one BM25F, which ranks files too) over three fields,
//! `k1 = 1.2`, `b = 0.75`, weights keywords 3, name 2, files (and spec link) 1.
//! An entry marked as tests, examples, fixtures… (`**Kind**:`, see [`EntryView::is_aside`])
//! scores [`ASIDE_WEIGHT`] times as much unless the query is about such things (`test`,
//! `fixtures`, `example`…). Ties keep Pin order.

use super::format::{EntryView, PinView};
use crate::index::bm25::Bm25f;
use crate::index::text::{Want, for_each_term, scan_terms};

/// The fields: keywords, name, files (and spec link).
const BM25F: Bm25f<3> = Bm25f {
    k1: 1.2,
    weight: [3.0, 2.0, 1.0],
    b: [0.75; 3],
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
    /// Index into the entries searched.
    pub entry: usize,
    pub score: f64,
    /// The query terms (stemmed) found in the entry, in query order.
    pub matched: Vec<String>,
}

/// Call `f(field, text)` for each searched text of an entry: 0 keywords, 1 name, 2 file paths
/// and the spec link. A keyword list as written has the terms of its keywords: the commas,
/// spaces and backticks that split and trim them are word separators for the tokenizer too.
fn for_each_text(e: &EntryView<'_>, mut f: impl FnMut(usize, &str)) {
    for k in &e.keyword_lists {
        f(0, k);
    }
    f(1, e.name);
    for p in e.files.iter().chain(&e.spec) {
        f(2, p);
    }
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
    avg: [f64; 3],
}

impl Stats {
    fn new(n: usize, total: [f64; 3]) -> Stats {
        Stats {
            n: n as f64,
            avg: Bm25f::averages(n, total),
        }
    }

    fn idf(&self, df: usize) -> f64 {
        Bm25f::<3>::idf(self.n, df as f64)
    }

    /// One term's contribution to one entry.
    fn term_score(&self, idf: f64, tf: [u32; 3], len: [f64; 3]) -> f64 {
        BM25F.score(idf, tf.map(f64::from), len, &self.avg)
    }
}

/// Best first, ties in Pin order, at most `limit`.
fn finish(mut hits: Vec<Hit>, limit: usize) -> Vec<Hit> {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
    hits.truncate(limit);
    hits
}

/// The words search stems: those starting with a query prefix (a term less its last letter:
/// stemming keeps a prefix, or replaces `ies` with `y`). A gate on a word's first three bytes
/// (`& 31`: ASCII case folded, digits share slots with letters, a short word pads with 0) has a
/// bit set for every start a prefix allows, so most words are rejected by one bit test.
struct Gate<'a> {
    bits: Vec<u64>,
    prefixes: &'a [Vec<u8>],
}

impl<'a> Gate<'a> {
    fn slot(a: u8, b: u8, c: u8) -> usize {
        usize::from(a & 31) << 10 | usize::from(b & 31) << 5 | usize::from(c & 31)
    }

    fn new(prefixes: &'a [Vec<u8>]) -> Gate<'a> {
        let mut bits = vec![0u64; 1 << 9];
        for p in prefixes {
            // Each of the three bytes: the prefix's, or any when the prefix is shorter.
            let range = |i: usize| p.get(i).map_or(0..32, |&x| (x & 31)..(x & 31) + 1);
            for a in range(0) {
                for b in range(1) {
                    for c in range(2) {
                        let k = Gate::slot(a, b, c);
                        bits[k >> 6] |= 1 << (k & 63);
                    }
                }
            }
        }
        Gate { bits, prefixes }
    }
}

impl Want for Gate<'_> {
    /// `w` may hold ASCII capitals (see `text::scan_terms`); query terms are lowercase.
    #[inline(always)]
    fn want(&self, b: &[u8]) -> bool {
        let at = |i: usize| b.get(i).copied().unwrap_or(0);
        let k = Gate::slot(at(0), at(1), at(2));
        self.bits[k >> 6] & (1 << (k & 63)) != 0 && starts_with_any(b, self.prefixes)
    }
}

/// Whether `w` starts with one of `prefixes` (ASCII case folded). Kept out of line: the gate
/// in front of it (inlined into the word loop) lets few words through.
#[inline(never)]
fn starts_with_any(w: &[u8], prefixes: &[Vec<u8>]) -> bool {
    prefixes
        .iter()
        .any(|p| w.len() >= p.len() && w[..p.len()].eq_ignore_ascii_case(p))
}

/// A query ready to count its terms in entries.
struct Query {
    /// The distinct terms, in order.
    terms: Vec<String>,
    /// Per term, the term less its last letter: a word can stem to the term only if it starts
    /// with that (stemming keeps a prefix, or replaces `ies` with `y`).
    prefixes: Vec<Vec<u8>>,
    /// Whether the query asks for tests, examples, fixtures… (they are then not scored lower).
    about_aside: bool,
}

/// What ranking needs of one entry.
struct Counts {
    /// Field lengths in terms.
    len: [u32; 3],
    /// Per query term, its frequency in each field; `None` when the entry holds no query term.
    tf: Option<Vec<[u32; 3]>>,
    /// Tests, examples, fixtures…: scored lower unless the query is about them.
    aside: bool,
}

impl Query {
    fn new(query: &str) -> Query {
        let terms = query_terms(query);
        let prefixes = terms
            .iter()
            .map(|t| t.as_bytes()[..t.len().saturating_sub(1)].to_vec())
            .collect();
        let about_aside = ASIDE_WORDS
            .iter()
            .any(|w| terms.iter().any(|t| *t == crate::index::text::stem(w)));
        Query {
            terms,
            prefixes,
            about_aside,
        }
    }

    /// Count the terms of one entry and the query terms among them (`buf`: scratch space).
    fn count(&self, e: &EntryView<'_>, want: &Gate, buf: &mut String) -> Counts {
        let mut len = [0u32; 3];
        let mut tf: Option<Vec<[u32; 3]>> = None;
        for_each_text(e, |f, text| {
            scan_terms(text, buf, want, |t, _| {
                len[f] += 1;
                if let Some(q) = t.and_then(|t| self.terms.iter().position(|q| q == t)) {
                    tf.get_or_insert_with(|| vec![[0u32; 3]; self.terms.len()])[q][f] += 1;
                }
            });
        });
        Counts {
            len,
            tf,
            aside: e.is_aside(),
        }
    }

    /// The best `limit` entries, best first, from every entry's counts (in entry order).
    fn rank(&self, counts: impl IntoIterator<Item = Counts>, limit: usize) -> Vec<Hit> {
        let mut n = 0;
        let mut total = [0f64; 3];
        let mut df = vec![0usize; self.terms.len()];
        let mut matched = Vec::new();
        for (i, c) in counts.into_iter().enumerate() {
            n += 1;
            for (t, l) in total.iter_mut().zip(c.len) {
                *t += f64::from(l);
            }
            if let Some(tf) = c.tf {
                for (d, t) in df.iter_mut().zip(&tf) {
                    *d += usize::from(t.iter().any(|&x| x > 0));
                }
                matched.push((i, c.len.map(f64::from), tf, c.aside));
            }
        }
        let stats = Stats::new(n, total);
        let idf: Vec<f64> = df.iter().map(|&d| stats.idf(d)).collect();
        let hits = matched
            .into_iter()
            .map(|(entry, len, tfs, aside)| {
                let mut score = 0.0;
                let mut m = Vec::new();
                for (q, t) in tfs.iter().enumerate() {
                    if t.iter().any(|&c| c > 0) {
                        score += stats.term_score(idf[q], *t, len);
                        m.push(self.terms[q].clone());
                    }
                }
                if aside && !self.about_aside {
                    score *= ASIDE_WEIGHT;
                }
                Hit {
                    entry,
                    score,
                    matched: m,
                }
            })
            .collect();
        finish(hits, limit)
    }

    fn gate(&self) -> Gate<'_> {
        Gate::new(&self.prefixes)
    }
}

/// Parse a Pin's text and rank its entries for `query`: the best `limit`, best first, ties in
/// Pin order; entries matching no term are left out. Each entry's terms are counted on the core
/// that parsed it: one parallel pass.
pub(crate) fn parse_and_search<'a>(
    text: &'a str,
    query: &str,
    limit: usize,
) -> (PinView<'a>, Vec<Hit>) {
    let q = Query::new(query);
    let want = q.gate();
    let (pin, counts) = PinView::parse_map(text, |e| q.count(e, &want, &mut String::new()));
    let hits = q.rank(counts, limit);
    (pin, hits)
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

    fn search(text: &str, query: &str, limit: usize) -> Vec<Hit> {
        parse_and_search(text, query, limit).1
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
        let hits = search(PIN, "searching the index", 5);
        assert_eq!(hits[0].entry, 1);
        assert_eq!(hits[0].matched, ["search", "index"]);
        assert_eq!(hits[1].entry, 2);
        assert!(hits[0].score > hits[1].score);
        assert_eq!(hits.len(), 2);
    }

    #[test]
    fn stemming_matches_inflections() {
        let hits = search(PIN, "compaction of logs", 5);
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
                assert_eq!(search(text, q, 10), reference(text, q, 10), "{q}");
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
        let (pin, hits) = parse_and_search(text, "render a table", 5);
        assert_eq!(pin.entries()[1].kind, Some("tests"));
        assert!(pin.entries()[2].is_aside());
        assert_eq!(hits[0].entry, 0, "{hits:?}");
        let full = reference(text, "render a table", 5);
        for h in &hits[1..] {
            let unweighted = full.iter().find(|r| r.entry == h.entry).map(|r| r.score);
            assert_eq!(Some(h.score / ASIDE_WEIGHT), unweighted);
        }
        let (_, hits) = parse_and_search(text, "render table tests", 5);
        assert_eq!(hits[0].entry, 1, "{hits:?}");
    }

    #[test]
    fn ties_keep_pin_order_and_limit_applies() {
        let hits = search(PIN, "zeta", 5);
        assert_eq!(hits.iter().map(|h| h.entry).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(hits[0].score, hits[1].score);
        assert_eq!(search(PIN, "zeta", 1).len(), 1);
        assert!(search(PIN, "nothing matches", 5).is_empty());
        assert!(search("", "zeta", 5).is_empty());
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
            let (view, hits) = parse_and_search(&text, q, 20);
            assert_eq!(view.entries().len(), 3000);
            assert!(!hits.is_empty(), "{q}");
            assert_eq!(hits, reference(&text, q, 20), "{q}");
        }
    }
}
