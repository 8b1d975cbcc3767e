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

use super::format::{Entry, Pin};

use super::text::FastMap as HashMap;
pub use super::text::terms;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Field weights: keywords, name, files.
const WEIGHTS: [f64; 3] = [3.0, 2.0, 1.0];

/// One ranked entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index into [`Pin::entries`].
    pub entry: usize,
    pub score: f64,
    /// The query terms (stemmed) found in the entry, in query order.
    pub matched: Vec<String>,
}

/// A search index over one Pin; build once, query many times.
#[derive(Debug, Clone)]
pub struct Index {
    /// term → (entry, per-field term frequency).
    postings: HashMap<String, Vec<(usize, [u32; 3])>>,
    /// Per entry, per field length in terms.
    lens: Vec<[f64; 3]>,
    avg: [f64; 3],
}

fn entry_fields(e: &Entry) -> [Vec<String>; 3] {
    let kw = terms(&e.keywords.join(" "));
    let name = terms(&e.name);
    let mut files = String::new();
    for f in &e.files {
        files.push_str(f);
        files.push(' ');
    }
    if let Some(s) = &e.spec {
        files.push_str(s);
    }
    [kw, name, terms(&files)]
}

impl Index {
    /// Build the index of a Pin.
    pub fn new(pin: &Pin) -> Index {
        let mut postings: HashMap<String, Vec<(usize, [u32; 3])>> = HashMap::default();
        let mut lens = Vec::with_capacity(pin.entries().len());
        let mut total = [0f64; 3];
        for (i, e) in pin.entries().iter().enumerate() {
            let fields = entry_fields(e);
            let mut len = [0f64; 3];
            for (f, ts) in fields.iter().enumerate() {
                len[f] = ts.len() as f64;
                total[f] += len[f];
                for t in ts {
                    let list = postings.entry(t.clone()).or_default();
                    match list.last_mut() {
                        Some((d, tf)) if *d == i => tf[f] += 1,
                        _ => {
                            let mut tf = [0u32; 3];
                            tf[f] = 1;
                            list.push((i, tf));
                        }
                    }
                }
            }
            lens.push(len);
        }
        let n = lens.len().max(1) as f64;
        let avg = total.map(|t| (t / n).max(1.0));
        Index {
            postings,
            lens,
            avg,
        }
    }

    /// The best `limit` entries for `query`, best first; entries matching no term are left out.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let mut qterms: Vec<String> = Vec::new();
        for t in terms(query) {
            if !qterms.contains(&t) {
                qterms.push(t);
            }
        }
        let n = self.lens.len() as f64;
        let mut scores: HashMap<usize, (f64, Vec<usize>)> = HashMap::default();
        for (qi, t) in qterms.iter().enumerate() {
            let Some(list) = self.postings.get(t) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (d, tf) in list {
                let mut tfw = 0.0;
                for f in 0..3 {
                    if tf[f] > 0 {
                        let norm = 1.0 - B + B * self.lens[*d][f] / self.avg[f];
                        tfw += WEIGHTS[f] * f64::from(tf[f]) / norm;
                    }
                }
                let s = scores.entry(*d).or_insert((0.0, Vec::new()));
                s.0 += idf * tfw / (K1 + tfw);
                s.1.push(qi);
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .map(|(entry, (score, m))| Hit {
                entry,
                score,
                matched: m.into_iter().map(|qi| qterms[qi].clone()).collect(),
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
        hits.truncate(limit);
        hits
    }
}

/// Rank the entries of `pin` for `query`: the best `limit`, best first, ties in Pin order.
/// Builds an [`Index`] each call; keep an `Index` to query one Pin many times.
pub fn search(pin: &Pin, query: &str, limit: usize) -> Vec<Hit> {
    Index::new(pin).search(query, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let hits = search(&p, "searching the index", 5);
        assert_eq!(hits[0].entry, 1);
        assert_eq!(hits[0].matched, ["search", "index"]);
        assert_eq!(hits[1].entry, 2);
        assert!(hits[0].score > hits[1].score);
        assert_eq!(hits.len(), 2);
    }

    #[test]
    fn stemming_matches_inflections() {
        let p = pin();
        let hits = search(&p, "compaction of logs", 5);
        assert_eq!(hits[0].entry, 0);
        assert_eq!(hits[0].matched, ["compaction", "log"]);
    }

    #[test]
    fn ties_keep_pin_order_and_limit_applies() {
        let p = pin();
        let hits = search(&p, "zeta", 5);
        assert_eq!(hits.iter().map(|h| h.entry).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(hits[0].score, hits[1].score);
        assert_eq!(search(&p, "zeta", 1).len(), 1);
        assert!(search(&p, "nothing matches", 5).is_empty());
        assert!(search(&Pin::default(), "zeta", 5).is_empty());
    }
}
