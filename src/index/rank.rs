//! Ranking the project's files for a story: BM25F over the index's fields (path and defined
//! names above comments above all text), then the other evidence ralph has — the Pin entries
//! the story matches, the files that use the definitions the story names in the best sources
//! (the definition/use graph, [`super::graph`]), the files its blockers changed, and files
//! changed together with the best candidates in recent git history. Tests, examples, fixtures, benchmarks and docs rank below
//! every source (and tooling) scoring at least [`FLOOR`] of the best, unless the story is about them: the agent
//! reaches a test from its source, not the other way round.
//!
//! Pure and deterministic (ties by path); every score carries its reasons so `ralph context
//! --explain` can show them. Reads the index's posting lists and details, and says when they
//! are damaged ([`Damaged`]: the caller rebuilds, see [`super::scan::rank`]); does not read
//! the project's files nor print.

use super::bm25::Bm25f;
use super::facts::{BODY, DOC, FIELDS, NAMES, PATH, Symbol};
use super::kind::Kind;
use super::query::QueryTerm;
use super::store::{Damaged, Index};
use crate::index::text::{FastMap, name_terms};

/// Below this share of the best score a source no longer ranks above tests and examples.
const FLOOR: f64 = 0.1;
/// The fields' weights and length normalisation: path, names, comments, all text.
const BM25F: Bm25f<FIELDS> = {
    let mut weight = [0.0; FIELDS];
    let mut b = [0.0; FIELDS];
    (weight[PATH], b[PATH]) = (3.0, 0.3);
    (weight[NAMES], b[NAMES]) = (2.0, 0.5);
    (weight[DOC], b[DOC]) = (1.0, 0.75);
    (weight[BODY], b[BODY]) = (1.0, 0.75);
    Bm25f { k1: 1.2, weight, b }
};
/// A Pin entry the story matches multiplies its files' scores by up to `1 + PIN_BOOST`.
const PIN_BOOST: f64 = 0.3;
/// A file a blocker changed gains this share of the best text score.
const BLOCKER_BOOST: f64 = 0.5;
/// A file changed together with a top candidate gains up to this share of the best score.
const COCHANGE_BOOST: f64 = 0.3;
/// How many of the best candidates seed the co-change evidence.
const COCHANGE_SEEDS: usize = 5;
/// A file linked to the best sources by definitions and uses gains this times the seeds'
/// scores that reached it (see [`graph_evidence`]).
const GRAPH_BOOST: f64 = 1.0;
/// How many of the best sources seed the definition/use graph.
const GRAPH_SEEDS: usize = 5;
/// The most definitions shown per file.
const MAX_SYMBOLS: usize = 6;
/// The most other definitions kept as a file's outline.
const MAX_OUTLINE: usize = 24;
/// The top files that carry an outline (the prompt shows no other file's).
pub(crate) const OUTLINED_FILES: usize = 3;

/// A Pin entry the story matched.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PinEvidence {
    pub name: String,
    /// Its score relative to the best entry's, in (0, 1].
    pub strength: f64,
    /// Its file paths and globs as the Pin lists them.
    pub files: Vec<String>,
}

impl PinEvidence {
    /// The matched entries as evidence: `(name, score, files)`, best first or not; each
    /// strength is the score relative to the best (none when no entry scored).
    pub(crate) fn from_scores(entries: Vec<(String, f64, Vec<String>)>) -> Vec<PinEvidence> {
        let top = entries.iter().map(|e| e.1).fold(0.0, f64::max);
        if top <= 0.0 {
            return Vec::new();
        }
        entries
            .into_iter()
            .map(|(name, score, files)| PinEvidence {
                name,
                strength: score / top,
                files,
            })
            .collect()
    }
}

/// The evidence besides the story's words.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Evidence {
    pub pins: Vec<PinEvidence>,
    /// (blocker story id, file it changed).
    pub blockers: Vec<(String, String)>,
}

/// One ranked file and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranked {
    pub path: String,
    pub kind: Kind,
    pub score: f64,
    /// The story's words found in the file (as the story wrote them) and what each added.
    pub matched: Vec<(String, f64)>,
    /// Other reasons, in words ("Pin entry …", "changed by blocker …", "changed with …").
    pub evidence: Vec<String>,
    /// Its definitions whose names share words with the story, in line order.
    pub symbols: Vec<Symbol>,
    /// Its other definitions, the file's outline (see [`outline`]), in line order; empty below
    /// the top [`OUTLINED_FILES`].
    pub outline: Vec<Symbol>,
    pub summary: String,
}

/// Per file, while scoring.
struct Cand {
    file: usize,
    /// Ranked after every candidate that is not: a kind below sources (see
    /// [`Kind::below_sources`]) or a score under [`FLOOR`] of the best.
    below: bool,
    score: f64,
    matched: Vec<(usize, f64)>,
    evidence: Vec<String>,
}

/// The best `limit` files of `index` for `query`, best first.
pub(crate) fn rank(
    index: &Index,
    query: &[QueryTerm],
    ev: &Evidence,
    limit: usize,
) -> Result<Vec<Ranked>, Damaged> {
    let query = &query[..query.len().min(250)];
    let mut cands = text_scores(index, query)?;
    let about = |t: &str| query.iter().any(|q| q.term == t);
    weigh_kinds(index, &about, &mut cands);
    let below = |file: usize| {
        let kind = index.rec(file).kind;
        kind.below_sources() && kind.weight(about) < 1.0
    };
    let top = cands.iter().map(|c| c.score).fold(0.0, f64::max);
    let mut slots = Slots::new(index);
    for (i, c) in cands.iter().enumerate() {
        slots.set(c.file, i);
    }
    let mut cand_of = |file: usize, cands: &mut Vec<Cand>| slots.cand(file, cands);
    pin_evidence(index, ev, top, &mut cands, &mut cand_of);
    graph_evidence(index, query, &below, &mut cands, &mut cand_of)?;
    blocker_evidence(index, ev, top, &mut cands, &mut cand_of);
    cochange_evidence(index, ev, &mut cands, &mut cand_of);
    order(index, &mut cands, &below, limit);
    cands
        .into_iter()
        .enumerate()
        .map(|(i, c)| finish(index, query, c, i < OUTLINED_FILES))
        .collect()
}

/// A file of a kind that weighs less than a source for this query (see [`Kind::weight`]) has
/// its score scaled down, and says so.
fn weigh_kinds(index: &Index, about: &impl Fn(&str) -> bool, cands: &mut [Cand]) {
    for c in cands {
        let kind = index.rec(c.file).kind;
        let w = kind.weight(about);
        if w < 1.0 {
            c.score *= w;
            c.evidence.push(format!("{} file ×{w}", kind.name()));
        }
    }
}

/// The best `limit` of `cands`, in order: files `below` sources or under [`FLOOR`] of the best
/// after all others, then by score, then by path.
fn order(index: &Index, cands: &mut Vec<Cand>, below: &impl Fn(usize) -> bool, limit: usize) {
    cands.retain(|c| c.score > 0.0);
    // A source far below the best (only an entry's spread, say) is no reason to hide a test.
    let floor = FLOOR * cands.iter().map(|c| c.score).fold(0.0, f64::max);
    for c in cands.iter_mut() {
        c.below = below(c.file) || c.score < floor;
        if c.below && c.score >= floor {
            c.evidence.push("ranked below sources".to_string());
        }
    }
    best_first(cands, limit, |a, b| {
        a.below
            .cmp(&b.below)
            .then_with(|| b.score.total_cmp(&a.score))
            .then_with(|| index.rec(a.file).path.cmp(&index.rec(b.file).path))
    });
}

/// The first `k` of `v` in the order `cmp` gives (a total order), the rest dropped: what
/// sorting all of `v` and keeping `k` gives, without sorting the tens of thousands of files a
/// common word matches to keep fifteen.
fn best_first<T>(v: &mut Vec<T>, k: usize, mut cmp: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    if k == 0 {
        v.clear();
        return;
    }
    if v.len() > k {
        v.select_nth_unstable_by(k - 1, &mut cmp);
        v.truncate(k);
    }
    v.sort_unstable_by(cmp);
}

/// BM25F of every file that has at least one query term, in file order.
fn text_scores(index: &Index, query: &[QueryTerm]) -> Result<Vec<Cand>, Damaged> {
    let n = index.len().max(1) as f64;
    let avg = index.averages();
    let mut slots = Slots::new(index);
    let lists = (query.iter())
        .map(|q| index.postings(&q.term))
        .collect::<Result<Vec<_>, _>>()?;
    // Sized once: tens of thousands of candidates grown one by one land in fresh memory at
    // every step.
    let hits = lists.iter().map(Vec::len).sum::<usize>();
    let mut cands = Vec::with_capacity(hits.min(index.slots()));
    for ((qi, q), list) in query.iter().enumerate().zip(lists) {
        let df = u32::try_from(list.len()).unwrap_or(u32::MAX);
        let idf = Bm25f::<FIELDS>::idf(n, f64::from(df));
        for (fi, tf) in list {
            let lens = index.rec(fi).lens.map(f64::from);
            let s = BM25F.score(idf, tf.map(f64::from), lens, &avg);
            let c = slots.cand(fi, &mut cands);
            cands[c].matched.push((qi, q.weight * s));
        }
    }
    for c in &mut cands {
        c.score = c.matched.iter().map(|(_, s)| s).sum();
    }
    cands.sort_unstable_by_key(|c| c.file);
    Ok(cands)
}

/// Which candidate each file is, when it is one: a table as long as the index's file slots
/// (tens of thousands of files hit by a common word each find theirs without hashing).
struct Slots(Vec<u32>);

impl Slots {
    const NONE: u32 = u32::MAX;

    fn new(index: &Index) -> Slots {
        Slots(vec![Slots::NONE; index.slots()])
    }

    /// Remember that file `file` is candidate `at`.
    fn set(&mut self, file: usize, at: usize) {
        self.0[file] = u32::try_from(at).unwrap_or(Slots::NONE);
    }

    /// The candidate of `file`, added to `cands` (with nothing found yet) when it is none.
    fn cand(&mut self, file: usize, cands: &mut Vec<Cand>) -> usize {
        match self.0[file] {
            Slots::NONE => {
                cands.push(Cand {
                    file,
                    below: false,
                    score: 0.0,
                    matched: Vec::new(),
                    evidence: Vec::new(),
                });
                self.set(file, cands.len() - 1);
                cands.len() - 1
            }
            at => at as usize,
        }
    }
}

type CandOf<'a> = dyn FnMut(usize, &mut Vec<Cand>) -> usize + 'a;

fn pin_evidence(
    index: &Index,
    ev: &Evidence,
    top: f64,
    cands: &mut Vec<Cand>,
    cand_of: &mut CandOf,
) {
    for p in &ev.pins {
        let members = entry_files(index, &p.files);
        let spread = (members.len().max(1) as f64).sqrt();
        for fi in members {
            let c = cand_of(fi, cands);
            let c = &mut cands[c];
            // Multiplies what the words found; a little on its own, shared among the entry's files.
            c.score = c.score * (1.0 + PIN_BOOST * p.strength) + 0.1 * top * p.strength / spread;
            c.evidence
                .push(format!("Pin entry \"{}\" ({:.2})", p.name, p.strength));
        }
    }
}

/// The files of a Pin entry's list (`items`: paths, folders, globs), in path order: only the
/// ranges of paths under each item's prefix are looked at (a few of tens of thousands).
fn entry_files(index: &Index, items: &[String]) -> Vec<usize> {
    let entry = crate::pin::cover::of(items);
    let mut members: Vec<(usize, &str)> = entry
        .prefixes()
        .flat_map(|prefix| index.files_under(prefix))
        .filter(|(_, f)| entry.contains(&f.path))
        .map(|(i, f)| (i, f.path.as_str()))
        .collect();
    members.sort_unstable_by(|a, b| a.1.cmp(b.1));
    members.dedup();
    members.into_iter().map(|(i, _)| i).collect()
}

/// Files linked by definitions and uses to the best sources (see [`super::graph`]) gain
/// [`GRAPH_BOOST`] times the seeds' scores they received through the links.
fn graph_evidence(
    index: &Index,
    query: &[QueryTerm],
    below: &dyn Fn(usize) -> bool,
    cands: &mut Vec<Cand>,
    cand_of: &mut CandOf,
) -> Result<(), Damaged> {
    let mut order: Vec<usize> = (0..cands.len())
        .filter(|&i| cands[i].score > 0.0 && !below(cands[i].file))
        .collect();
    best_first(&mut order, GRAPH_SEEDS, |&a, &b| {
        cands[b]
            .score
            .total_cmp(&cands[a].score)
            .then(cands[a].file.cmp(&cands[b].file))
    });
    let seeds: Vec<(usize, f64)> = order
        .iter()
        .map(|&i| (cands[i].file, cands[i].score))
        .collect();
    let mass: f64 = seeds.iter().map(|s| s.1).sum();
    let words: FastMap<&str, f64> = query.iter().map(|q| (q.term.as_str(), q.weight)).collect();
    for link in super::graph::links(index, &seeds, &words, &|_| false)? {
        let bonus = GRAPH_BOOST * mass * link.flow;
        let c = cand_of(link.file, cands);
        cands[c].score += bonus;
        cands[c].evidence.push(format!(
            "uses or is used by {} (graph {:.3}, +{bonus:.2})",
            link.via.join(", "),
            link.flow
        ));
    }
    Ok(())
}

fn blocker_evidence(
    index: &Index,
    ev: &Evidence,
    top: f64,
    cands: &mut Vec<Cand>,
    cand_of: &mut CandOf,
) {
    for (story, path) in &ev.blockers {
        let Some(fi) = index.file(path) else {
            continue;
        };
        let c = cand_of(fi, cands);
        cands[c].score += BLOCKER_BOOST * top.max(1.0);
        cands[c]
            .evidence
            .push(format!("changed by blocker {story}"));
    }
}

fn cochange_evidence(index: &Index, ev: &Evidence, cands: &mut Vec<Cand>, cand_of: &mut CandOf) {
    let Some(co) = index.cochange() else { return };
    let mut order: Vec<usize> = (0..cands.len()).collect();
    // Equal scores in candidate order, as a stable sort leaves them.
    best_first(&mut order, COCHANGE_SEEDS, |&a, &b| {
        cands[b].score.total_cmp(&cands[a].score).then(a.cmp(&b))
    });
    let top = order.first().map_or(0.0, |&i| cands[i].score);
    if top <= 0.0 {
        return;
    }
    let mut seeds: Vec<(&str, f64)> = order
        .iter()
        .map(|&i| (index.rec(cands[i].file).path.as_str(), cands[i].score / top))
        .collect();
    for (_, p) in &ev.blockers {
        seeds.push((p.as_str(), 1.0));
    }
    let seed_weight: FastMap<&str, f64> = seeds.iter().copied().collect();
    let paths: Vec<&str> = seeds.iter().map(|(p, _)| *p).collect();
    let mut links: Vec<(String, super::cochange::Link)> = co.related(&paths).into_iter().collect();
    links.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, link) in links {
        if link.both < 2 {
            continue;
        }
        let Some(fi) = index.file(&path) else {
            continue;
        };
        let w = seed_weight.get(link.seed.as_str()).copied().unwrap_or(0.0);
        let bonus = COCHANGE_BOOST * top * w * link.strength();
        if bonus <= 0.0 {
            continue;
        }
        let c = cand_of(fi, cands);
        cands[c].score += bonus;
        cands[c].evidence.push(format!(
            "changed with {} in {} of its {} commits",
            link.seed, link.both, link.seed_commits
        ));
    }
}

/// The report of one candidate: matched words as written, matching definitions, and its
/// outline when it is one of the top files (`outlined`).
fn finish(index: &Index, query: &[QueryTerm], c: Cand, outlined: bool) -> Result<Ranked, Damaged> {
    let f = &index.rec(c.file);
    let details = index.details(c.file)?;
    // Best first; equal contributions in the story's order.
    let mut found = c.matched;
    found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let matched: Vec<(String, f64)> = found
        .iter()
        .map(|(qi, s)| (query[*qi].written.clone(), *s))
        .collect();
    let weight: FastMap<&str, f64> = query.iter().map(|q| (q.term.as_str(), q.weight)).collect();
    let all: Vec<Symbol> = details.symbols().collect();
    let mut symbols: Vec<(f64, &Symbol)> = all
        .iter()
        .filter_map(|s| {
            let w: f64 = name_terms(&s.name)
                .iter()
                .filter_map(|t| weight.get(t.as_str()))
                .sum();
            (w > 0.0).then_some((w, s))
        })
        .collect();
    symbols.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.line.cmp(&b.1.line)));
    symbols.truncate(MAX_SYMBOLS);
    let mut symbols: Vec<Symbol> = symbols.into_iter().map(|(_, s)| s.clone()).collect();
    symbols.sort_by_key(|s| s.line);
    let outline = match outlined {
        true => outline(&all, &symbols, MAX_OUTLINE),
        false => Vec::new(),
    };
    Ok(Ranked {
        path: f.path.clone(),
        kind: f.kind,
        score: c.score,
        matched,
        evidence: c.evidence,
        symbols,
        outline,
        summary: details.summary,
    })
}

/// The definitions of a file beyond the `shown` ones, at most `max`, in line order: what else
/// the file offers to reuse. Types before functions before constants, public names (no leading
/// `_`) before private ones, then the earliest; a huge file gives its API, not its first lines.
pub(crate) fn outline(all: &[Symbol], shown: &[Symbol], max: usize) -> Vec<Symbol> {
    let rank = |s: &Symbol| {
        let private = s.name.starts_with('_');
        let kind = match s.kind.as_str() {
            // The kinds `lang.rs` captures (`facts` drops a trailing `!`).
            "struct" | "enum" | "trait" | "union" | "type" | "class" | "interface" | "record"
            | "object" | "namespace" | "module" | "defmodule" | "mod" | "protocol"
            | "extension" => 0,
            "fn" | "def" | "func" | "function" | "method" | "fun" | "impl" | "macro_rules"
            | "defp" | "defmacro" => 1,
            _ => 2,
        };
        (private, kind, s.line)
    };
    let mut rest: Vec<&Symbol> = all
        .iter()
        .filter(|s| !shown.iter().any(|m| m.line == s.line && m.name == s.name))
        .collect();
    rest.sort_by_key(|s| rank(s));
    rest.truncate(max);
    rest.sort_by_key(|s| s.line);
    rest.into_iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::query::query;
    use crate::index::store::from_texts;

    #[test]
    fn best_first_keeps_what_a_full_sort_keeps() {
        // Scores with many ties, broken by position: a total order, as the ranking's are.
        let v: Vec<(u32, usize)> = (0..500).map(|i| ((i * 7919 % 13) as u32, i)).collect();
        let cmp = |a: &(u32, usize), b: &(u32, usize)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        for k in [0, 1, 5, 15, 499, 500, 501] {
            let mut full = v.clone();
            full.sort_by(cmp);
            full.truncate(k);
            let mut best = v.clone();
            best_first(&mut best, k, cmp);
            assert_eq!(best, full, "k = {k}");
        }
    }

    fn index(files: &[(&str, &str)]) -> Index {
        from_texts(files)
    }

    /// The index of files held as owned strings.
    fn owned_index(files: &[(String, String)]) -> Index {
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        index(&refs)
    }

    /// The best 10 files of `index` for a story titled `title`, no other evidence.
    fn ranked(index: &Index, title: &str) -> Vec<Ranked> {
        rank(index, &query(title, ""), &Evidence::default(), 10).unwrap()
    }

    fn paths(index: &Index, title: &str) -> Vec<String> {
        ranked(index, title).into_iter().map(|r| r.path).collect()
    }

    /// A source that matches once, and tests that match its words over and over.
    fn tree() -> Index {
        let test = "// italic italic italic\nfn italic_test() { italic(); italic(); }\n";
        index(&[
            (
                "src/style.rs",
                "pub struct Style;\nfn other() {}\n// italic\n",
            ),
            ("tests/style_test.rs", test),
            ("tests/italic.rs", test),
            ("examples/italic.rs", test),
        ])
    }

    #[test]
    fn a_weakly_matching_source_still_ranks_above_tests_and_examples() {
        let idx = tree();
        let got = paths(&idx, "fix superfluous italic");
        assert_eq!(got[0], "src/style.rs", "{got:?}");
        assert_eq!(got.len(), 4, "the others are still named: {got:?}");
        let ranked = ranked(&idx, "fix italic");
        assert!(
            ranked[1]
                .evidence
                .iter()
                .any(|e| e == "ranked below sources")
        );
        assert!(ranked[0].evidence.is_empty(), "{:?}", ranked[0].evidence);
    }

    #[test]
    fn a_story_about_tests_ranks_them_by_their_words() {
        let got = paths(&tree(), "add tests for italic");
        assert_ne!(got[0], "src/style.rs", "{got:?}");
        assert!(got[..2].iter().all(|p| p.starts_with("tests/")), "{got:?}");
    }

    #[test]
    fn words_split_as_code_find_the_file_and_ties_go_by_path() {
        let idx = index(&[
            ("src/b.rs", "fn render_table() {}\n"),
            ("src/a.rs", "fn render_table() {}\n"),
            ("src/c.rs", "fn unrelated() {}\n"),
        ]);
        assert_eq!(
            paths(&idx, "`renderTable` is slow"),
            ["src/a.rs", "src/b.rs"]
        );
        assert!(
            paths(&idx, "the and of").is_empty(),
            "stop words match nothing"
        );
    }

    #[test]
    fn a_name_that_is_a_stop_word_finds_its_file_when_the_story_writes_it_as_a_name() {
        let idx = index(&[
            (
                "tpl/where.go",
                "// Where filters items.\nfunc Where(items []int) {}\n",
            ),
            (
                "tpl/errors.go",
                "// Errors where the items are wrong.\nfunc Errors() {}\n",
            ),
        ]);
        let got = ranked(&idx, "Provide more detailed errors in Where");
        let at = got.iter().position(|r| r.path == "tpl/where.go");
        let found = &got[at.expect("found by its name and path")];
        assert_eq!(
            found.symbols[0].name, "Where",
            "shown as a matching definition"
        );
        // In prose the word is a stop word: it matches nothing, not even the comments.
        assert!(paths(&idx, "show where").is_empty());
    }

    #[test]
    fn a_file_using_a_definition_the_story_names_gains_beyond_its_words() {
        // Four notes say the word more than the parser; the parser is the fifth seed.
        let mut files: Vec<(String, String)> = (0..4)
            .map(|i| (format!("src/note{i}.rs"), format!("// the header {i}\n")))
            .collect();
        files.push(("src/parser.rs".into(), "pub fn parse_header() {}\n".into()));
        files.push((
            "src/server.rs".into(),
            "fn s() { parse_header(); }\n".into(),
        ));
        files.push(("src/zlog.rs".into(), "fn s() { header(); }\n".into()));
        let ranked = ranked(&owned_index(&files), "the header");
        let of = |p: &str| ranked.iter().find(|r| r.path == p).unwrap();
        let (server, log) = (of("src/server.rs"), of("src/zlog.rs"));
        let words = |r: &Ranked| r.matched.iter().map(|m| m.1).sum::<f64>();
        assert!(server.score > words(server) + 1e-9, "{server:?}");
        assert!(
            server.evidence[0].starts_with("uses or is used by parse_header (src/parser.rs)"),
            "{:?}",
            server.evidence
        );
        assert_eq!(
            log.score,
            words(log),
            "no definition of the story used: {log:?}"
        );
        assert!(log.evidence.is_empty(), "{:?}", log.evidence);
    }

    #[test]
    fn only_the_top_files_carry_an_outline() {
        let files: Vec<(String, String)> = (0..5)
            .map(|i| {
                let body = format!("fn render_{i}() {{}}\nfn other_{i}() {{}}\n");
                (format!("src/f{i}.rs"), body.repeat(1 + i))
            })
            .collect();
        let ranked = ranked(&owned_index(&files), "render");
        assert_eq!(ranked.len(), 5);
        for (i, r) in ranked.iter().enumerate() {
            assert_eq!(
                !r.outline.is_empty(),
                i < OUTLINED_FILES,
                "{i}: {:?}",
                r.outline
            );
        }
    }

    #[test]
    fn the_outline_gives_the_api_beyond_the_matching_definitions() {
        let sym = |kind: &str, name: &str, line: u32| Symbol {
            kind: kind.into(),
            name: name.into(),
            line,
            sig: format!("{kind} {name}"),
        };
        let all = [
            sym("def", "_helper", 1),
            sym("const", "LIMIT", 2),
            sym("def", "render", 3),
            sym("class", "Table", 4),
            sym("def", "add_row", 5),
        ];
        let shown = [all[2].clone()];
        let names = |v: Vec<Symbol>| v.into_iter().map(|s| s.name).collect::<Vec<_>>();
        assert_eq!(
            names(outline(&all, &shown, 10)),
            ["_helper", "LIMIT", "Table", "add_row"],
            "everything else, in line order"
        );
        assert_eq!(
            names(outline(&all, &shown, 2)),
            ["Table", "add_row"],
            "a type, then a public function, when only two fit"
        );
        assert!(outline(&all, &all, 10).is_empty());
    }

    #[test]
    fn kinds_read_from_real_files_rank_as_types_then_functions_then_the_rest() {
        let src = "pub const LIMIT: u32 = 3;\nstatic NAME: &str = \"x\";\nmacro_rules! make_x { () => {} }\npub mod inner {}\n";
        let f = crate::index::facts::facts_alone("src/lib.rs", src.as_bytes()).0;
        let all: Vec<Symbol> = crate::index::facts::def_refs(&f.defs)
            .map(Symbol::from)
            .collect();
        let names: Vec<String> = outline(&all, &[], 2).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["make_x", "inner"], "{all:?}");
    }
}
