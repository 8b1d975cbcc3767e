//! Ranking Pin entries for free text: BM25F over three fields (keywords > name > file paths).
//!
//! Owns the ranking `ralph pin search` prints and the context builder uses. Pure: no I/O.
//! Does not own parsing (see [`super::format`]) or the tokenizer (see [`super::text`], re-exported
//! here as [`terms`]).
//!
//! Scoring: for each query term `t` and entry `d`,
//! `tf~ = Σ_f w_f · tf_f / (1 − b + b · len_f / avglen_f)` and
//! `score += idf(t) · tf~ / (k1 + tf~)` with `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`,
//! `k1 = 1.2`, `b = 0.75`, weights keywords 3, name 2, files (and spec link) 1.
//! Ties keep Pin order.

use super::format::{Entry, EntryView, PinView};
use super::text::{FastMap as HashMap, Want, for_each_term, for_each_term_buf};

pub use super::text::terms;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Field weights: keywords, name, files.
const WEIGHTS: [f64; 3] = [3.0, 2.0, 1.0];

/// One ranked entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index into the entries searched.
    pub entry: usize,
    pub score: f64,
    /// The query terms (stemmed) found in the entry, in query order.
    pub matched: Vec<String>,
}

/// What ranking reads of an entry, owned ([`Entry`]) or borrowed ([`EntryView`]).
pub trait Searchable {
    /// Call `f(field, text)` for each text of the entry: 0 keywords, 1 name, 2 file paths and
    /// the spec link.
    fn for_each_text(&self, f: impl FnMut(usize, &str));
}

impl Searchable for Entry {
    fn for_each_text(&self, mut f: impl FnMut(usize, &str)) {
        for k in &self.keywords {
            f(0, k);
        }
        f(1, &self.name);
        for p in self.files.iter().chain(&self.spec) {
            f(2, p);
        }
    }
}

impl Searchable for EntryView<'_> {
    fn for_each_text(&self, mut f: impl FnMut(usize, &str)) {
        // A list as written has the terms of its keywords: the commas, spaces and backticks
        // that split and trim them are word separators for the tokenizer too.
        for k in &self.keyword_lists {
            f(0, k);
        }
        f(1, self.name);
        for p in self.files.iter().chain(&self.spec) {
            f(2, p);
        }
    }
}

/// Call `f(field, term)` for every term of an entry.
fn for_each_field_term(e: &impl Searchable, mut f: impl FnMut(usize, &str)) {
    e.for_each_text(|field, text| for_each_term(text, |t| f(field, t)));
}

/// [`for_each_field_term`] that stems only the words `want` accepts (see [`for_each_term_buf`]).
fn for_each_field_term_if(
    e: &impl Searchable,
    buf: &mut String,
    want: &impl Want,
    mut f: impl FnMut(usize, Option<&str>),
) {
    e.for_each_text(|field, text| for_each_term_buf(text, buf, want, |t| f(field, t)));
}

/// The distinct terms of a query, in order.
fn query_terms(query: &str) -> Vec<String> {
    let mut q: Vec<String> = Vec::new();
    for_each_term(query, |t| {
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
        let nf = n.max(1) as f64;
        Stats {
            n: n as f64,
            avg: total.map(|t| (t / nf).max(1.0)),
        }
    }

    fn idf(&self, df: usize) -> f64 {
        let df = df as f64;
        (1.0 + (self.n - df + 0.5) / (df + 0.5)).ln()
    }

    /// One term's contribution to one entry.
    fn term_score(&self, idf: f64, tf: [u32; 3], len: [f64; 3]) -> f64 {
        let mut tfw = 0.0;
        for f in 0..3 {
            if tf[f] > 0 {
                let norm = 1.0 - B + B * len[f] / self.avg[f];
                tfw += WEIGHTS[f] * f64::from(tf[f]) / norm;
            }
        }
        idf * tfw / (K1 + tfw)
    }
}

/// Best first, ties in Pin order, at most `limit`.
fn finish(mut hits: Vec<Hit>, limit: usize) -> Vec<Hit> {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
    hits.truncate(limit);
    hits
}

/// A search index over one Pin; build once, query many times (same ranking as [`search`]).
#[derive(Debug, Clone)]
pub struct Index {
    /// term → (entry, per-field term frequency), entries ascending.
    postings: HashMap<String, Vec<(usize, [u32; 3])>>,
    /// Per entry, per field length in terms.
    lens: Vec<[f64; 3]>,
    stats: Stats,
}

impl Index {
    /// Build the index of a Pin's entries.
    pub fn new(entries: &[impl Searchable]) -> Index {
        let mut postings: HashMap<String, Vec<(usize, [u32; 3])>> = HashMap::default();
        let mut lens = Vec::with_capacity(entries.len());
        let mut total = [0f64; 3];
        for (i, e) in entries.iter().enumerate() {
            let mut len = [0f64; 3];
            for_each_field_term(e, |f, t| {
                len[f] += 1.0;
                let list = match postings.get_mut(t) {
                    Some(l) => l,
                    None => postings.entry(t.to_string()).or_default(),
                };
                match list.last_mut() {
                    Some((d, tf)) if *d == i => tf[f] += 1,
                    _ => {
                        let mut tf = [0u32; 3];
                        tf[f] = 1;
                        list.push((i, tf));
                    }
                }
            });
            for f in 0..3 {
                total[f] += len[f];
            }
            lens.push(len);
        }
        let stats = Stats::new(lens.len(), total);
        Index {
            postings,
            lens,
            stats,
        }
    }

    /// The best `limit` entries for `query`, best first; entries matching no term are left out.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let qterms = query_terms(query);
        let mut scores: HashMap<usize, (f64, Vec<usize>)> = HashMap::default();
        for (qi, t) in qterms.iter().enumerate() {
            let Some(list) = self.postings.get(t) else {
                continue;
            };
            let idf = self.stats.idf(list.len());
            for (d, tf) in list {
                let s = scores.entry(*d).or_insert((0.0, Vec::new()));
                s.0 += self.stats.term_score(idf, *tf, self.lens[*d]);
                s.1.push(qi);
            }
        }
        let hits = scores
            .into_iter()
            .map(|(entry, (score, m))| Hit {
                entry,
                score,
                matched: m.into_iter().map(|qi| qterms[qi].clone()).collect(),
            })
            .collect();
        finish(hits, limit)
    }
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
    /// `w` may hold ASCII capitals (see `for_each_term_buf`); query terms are lowercase.
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

/// Entries per thread below which search stays on one thread.
const PAR_ENTRIES: usize = 1000;

/// A query ready to count its terms in entries.
struct Query {
    /// The distinct terms, in order.
    terms: Vec<String>,
    /// Per term, the term less its last letter: a word can stem to the term only if it starts
    /// with that (stemming keeps a prefix, or replaces `ies` with `y`).
    prefixes: Vec<Vec<u8>>,
}

/// What ranking needs of one entry.
struct Counts {
    /// Field lengths in terms.
    len: [u32; 3],
    /// Per query term, its frequency in each field; `None` when the entry holds no query term.
    tf: Option<Vec<[u32; 3]>>,
}

impl Query {
    fn new(query: &str) -> Query {
        let terms = query_terms(query);
        let prefixes = terms
            .iter()
            .map(|t| t.as_bytes()[..t.len().saturating_sub(1)].to_vec())
            .collect();
        Query { terms, prefixes }
    }

    /// Count the terms of one entry and the query terms among them (`buf`: scratch space).
    fn count(&self, e: &impl Searchable, want: &Gate, buf: &mut String) -> Counts {
        let mut len = [0u32; 3];
        let mut tf: Option<Vec<[u32; 3]>> = None;
        for_each_field_term_if(e, buf, want, |f, t| {
            len[f] += 1;
            if let Some(q) = t.and_then(|t| self.terms.iter().position(|q| q == t)) {
                tf.get_or_insert_with(|| vec![[0u32; 3]; self.terms.len()])[q][f] += 1;
            }
        });
        Counts { len, tf }
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
                matched.push((i, c.len.map(f64::from), tf));
            }
        }
        let stats = Stats::new(n, total);
        let idf: Vec<f64> = df.iter().map(|&d| stats.idf(d)).collect();
        let hits = matched
            .into_iter()
            .map(|(entry, len, tfs)| {
                let mut score = 0.0;
                let mut m = Vec::new();
                for (q, t) in tfs.iter().enumerate() {
                    if t.iter().any(|&c| c > 0) {
                        score += stats.term_score(idf[q], *t, len);
                        m.push(self.terms[q].clone());
                    }
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

/// Rank a Pin's entries for `query`: the best `limit`, best first, ties in Pin order.
/// One pass over the Pin without building an [`Index`] (cheaper for a single query; keep an
/// `Index` to query one Pin many times). Both give the same ranking.
pub fn search(entries: &[impl Searchable + Sync], query: &str, limit: usize) -> Vec<Hit> {
    let q = Query::new(query);
    let want = q.gate();
    // Each entry is counted on its own: a large Pin is split over the cores.
    let parts = crate::par::map_chunks(entries, PAR_ENTRIES, |_, chunk| {
        let mut buf = String::new();
        chunk
            .iter()
            .map(|e| q.count(e, &want, &mut buf))
            .collect::<Vec<_>>()
    });
    q.rank(parts.into_iter().flatten(), limit)
}

/// Parse a Pin's text and rank its entries for `query` (as [`search`] does), counting each
/// entry on the core that parsed it: one parallel pass instead of two.
pub fn parse_and_search<'a>(text: &'a str, query: &str, limit: usize) -> (PinView<'a>, Vec<Hit>) {
    let q = Query::new(query);
    let want = q.gate();
    let (pin, counts) = PinView::parse_map(text, |e| q.count(e, &want, &mut String::new()));
    let hits = q.rank(counts, limit);
    (pin, hits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pin::format::{Pin, PinView};

    fn pin() -> Pin {
        Pin::parse(
            "### Progress log\n**Keywords**: progress, log, compaction, learnings\n\
             **File Paths**:\n- src/progress/mod.rs\n\n---\n\
             ### Pin search\n**Keywords**: index, bm25, ranking, keywords, search\n\
             **File Paths**:\n- src/pin/search.rs\n\n---\n\
             ### Search box\n**Keywords**: ui, widget\n**File Paths**:\n- web/search_box.ts\n\n---\n\
             ### Twin A\n**Keywords**: zeta\n**File Paths**:\n- a.rs\n---\n\
             ### Twin B\n**Keywords**: zeta\n**File Paths**:\n- b.rs\n---\n",
        )
    }

    #[test]
    fn keywords_outrank_names_and_paths() {
        let p = pin();
        let hits = search(p.entries(), "searching the index", 5);
        assert_eq!(hits[0].entry, 1);
        assert_eq!(hits[0].matched, ["search", "index"]);
        assert_eq!(hits[1].entry, 2);
        assert!(hits[0].score > hits[1].score);
        assert_eq!(hits.len(), 2);
    }

    #[test]
    fn stemming_matches_inflections() {
        let p = pin();
        let hits = search(p.entries(), "compaction of logs", 5);
        assert_eq!(hits[0].entry, 0);
        assert_eq!(hits[0].matched, ["compaction", "log"]);
    }

    #[test]
    fn index_and_one_pass_search_agree() {
        let fork = Pin::parse(include_str!(
            "../../tests/fixtures/compat/newralph/INDEX.md"
        ));
        for p in [pin(), fork] {
            let text = p.to_markdown();
            let view = PinView::parse(&text);
            let idx = Index::new(p.entries());
            for q in [
                "search index",
                "zeta",
                "agent skills library",
                "lib common.sh git",
                "nothing",
                "",
            ] {
                assert_eq!(idx.search(q, 10), search(p.entries(), q, 10), "{q}");
                assert_eq!(
                    search(view.entries(), q, 10),
                    search(p.entries(), q, 10),
                    "{q}"
                );
                assert_eq!(parse_and_search(&text, q, 10).1, search(p.entries(), q, 10));
            }
        }
    }

    #[test]
    fn ties_keep_pin_order_and_limit_applies() {
        let p = pin();
        let hits = search(p.entries(), "zeta", 5);
        assert_eq!(hits.iter().map(|h| h.entry).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(hits[0].score, hits[1].score);
        assert_eq!(search(p.entries(), "zeta", 1).len(), 1);
        assert!(search(p.entries(), "nothing matches", 5).is_empty());
        assert!(search(Pin::default().entries(), "zeta", 5).is_empty());
    }

    #[test]
    fn a_large_pin_split_over_threads_ranks_like_the_index() {
        let mut text = String::new();
        for i in 0..(3 * PAR_ENTRIES) {
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
        let view = PinView::parse(&text);
        assert_eq!(view.entries().len(), 3 * PAR_ENTRIES);
        let idx = Index::new(view.entries());
        for q in ["alpha3 beta", "gamma12 module", "lib", "module 2999"] {
            let hits = search(view.entries(), q, 20);
            assert!(!hits.is_empty(), "{q}");
            assert_eq!(hits, idx.search(q, 20), "{q}");
            assert_eq!(parse_and_search(&text, q, 20), (view.clone(), hits), "{q}");
        }
    }
}
