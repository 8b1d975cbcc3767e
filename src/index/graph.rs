//! The definition/use graph around a story's best hits, and its personalised PageRank: evidence
//! that depends less on how the story is worded. A file that uses a definition the story names
//! (a call of `parse_header`, defined in a file the words found) is likely changed with it,
//! even when it says the story's words less often than a file that only mentions them; a file
//! using several such definitions, from several hits, more so. (A user has the words of the
//! name, so this reorders the files the words found; it does not find files without them.)
//!
//! The graph is built per query from the index alone, and only around the hits: the seeds' own
//! definitions whose names share a word with the story, and, for each, the files whose text has
//! every word of the name (one posting list per word, no file read). A name in too many files
//! (`new`, `get`) is no evidence and links nothing. Personalised PageRank then spreads the
//! seeds' text scores over the links: what a file receives through them is its
//! evidence ([`Link::flow`]), shared among a seed's users, more for a file linked to several
//! seeds.
//!
//! Pure: reads the index's posting lists and details, never the project's files. Does not
//! score text nor decide the final order (see [`super::rank`]).

use super::facts::BODY;
use super::store::{Damaged, Index};
use super::text::{FastMap, name_terms, terms};

/// The chance of following a link rather than returning to a seed.
pub(crate) const DAMPING: f64 = 0.5;
/// A name whose words are all in more files than this links nothing.
pub(crate) const MAX_USERS: usize = 24;
/// The most definitions followed per seed (the ones sharing most with the story).
pub(crate) const MAX_NAMES: usize = 6;

/// Personalised PageRank by power iteration: `edges` are `(from, to, weight)` over `n` nodes,
/// `restart` the distribution a walk returns to (normalised here; all zero gives all zero).
/// A node without links returns its mass to `restart`. The result sums to 1 (or 0).
///
/// Written out rather than taken from petgraph: petgraph's `page_rank` has no personalisation
/// and no edge weights, and the iteration is ten lines.
pub(crate) fn personalized_pagerank(
    n: usize,
    edges: &[(usize, usize, f64)],
    restart: &[f64],
    damping: f64,
) -> Vec<f64> {
    let total: f64 = restart.iter().take(n).filter(|w| **w > 0.0).sum();
    if n == 0 || total <= 0.0 {
        return vec![0.0; n];
    }
    let p: Vec<f64> = (0..n)
        .map(|i| restart.get(i).copied().unwrap_or(0.0).max(0.0) / total)
        .collect();
    let mut out = vec![0.0; n];
    for &(a, b, w) in edges {
        if a < n && b < n && w > 0.0 {
            out[a] += w;
        }
    }
    let mut r = p.clone();
    for _ in 0..100 {
        let mut next: Vec<f64> = p.iter().map(|x| (1.0 - damping) * x).collect();
        let mut lost = 0.0;
        for (i, &mass) in r.iter().enumerate() {
            if out[i] <= 0.0 {
                lost += damping * mass;
            }
        }
        for &(a, b, w) in edges {
            if a < n && b < n && w > 0.0 {
                next[b] += damping * r[a] * w / out[a];
            }
        }
        for (x, pi) in next.iter_mut().zip(&p) {
            *x += lost * pi;
        }
        let change: f64 = next.iter().zip(&r).map(|(x, y)| (x - y).abs()).sum();
        r = next;
        if change < 1e-12 {
            break;
        }
    }
    r
}

/// What one file received through the graph.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Link {
    pub file: usize,
    /// Its PageRank beyond its own restart share: the part that came through links, in (0, 1].
    pub flow: f64,
    /// The definitions it uses or is used through, as `name (path)`, strongest first, at most 3.
    pub via: Vec<String>,
}

/// The files linked to `seeds` (`(file, score)`, any order) by the definitions the story's
/// `words` (terms) name, with what each received. `skip` says which files never join (they are
/// neither seeds' users nor evidence, such as vendored code). Ties by file index.
pub(crate) fn links(
    index: &Index,
    seeds: &[(usize, f64)],
    words: &FastMap<&str, f64>,
    skip: &dyn Fn(usize) -> bool,
) -> Result<Vec<Link>, Damaged> {
    let mut nodes: Vec<usize> = seeds.iter().map(|s| s.0).collect();
    let mut node_of: FastMap<usize, usize> =
        nodes.iter().enumerate().map(|(i, &f)| (f, i)).collect();
    let mut edges: Vec<(usize, usize, f64)> = Vec::new();
    let mut via: FastMap<usize, Vec<(f64, String)>> = FastMap::default();
    let mut cache: FastMap<String, Vec<usize>> = FastMap::default();
    for (si, &(seed, _)) in seeds.iter().enumerate() {
        let seed_path = &index.rec(seed).path;
        for (w, name) in named(index, seed, words)? {
            let users = users_of(index, &name, &mut cache)?;
            if users.len() > MAX_USERS {
                continue;
            }
            for u in users {
                if u == seed || skip(u) {
                    continue;
                }
                let ui = *node_of.entry(u).or_insert_with(|| {
                    nodes.push(u);
                    nodes.len() - 1
                });
                edges.push((si, ui, w));
                edges.push((ui, si, w));
                via.entry(u)
                    .or_default()
                    .push((w, format!("{name} ({seed_path})")));
            }
        }
    }
    let restart: Vec<f64> = (0..nodes.len())
        .map(|i| seeds.get(i).map_or(0.0, |s| s.1))
        .collect();
    let r = personalized_pagerank(nodes.len(), &edges, &restart, DAMPING);
    let total: f64 = restart.iter().sum();
    let mut out: Vec<Link> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, &file)| {
            let own = (1.0 - DAMPING) * restart[i] / total.max(f64::MIN_POSITIVE);
            let flow = r[i] - own;
            let mut v = via.remove(&file).unwrap_or_default();
            v.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            v.dedup_by(|a, b| a.1 == b.1);
            let via = v.into_iter().take(3).map(|(_, s)| s).collect();
            (flow > 1e-9 && i >= seeds.len()).then_some(Link { file, flow, via })
        })
        .collect();
    out.sort_by_key(|l| l.file);
    Ok(out)
}

/// The definitions of `file` whose names share a word with the story, with the story weight of
/// those words, best first, at most [`MAX_NAMES`] distinct names.
fn named(
    index: &Index,
    file: usize,
    words: &FastMap<&str, f64>,
) -> Result<Vec<(f64, String)>, Damaged> {
    let mut out: Vec<(f64, String)> = Vec::new();
    let details = index.details(file)?;
    for s in details.symbol_refs() {
        if out.iter().any(|(_, n)| n == s.name) {
            continue;
        }
        let w: f64 = name_terms(s.name)
            .iter()
            .filter_map(|t| words.get(t.as_str()))
            .sum();
        if w > 0.0 {
            out.push((w, s.name.to_string()));
        }
    }
    out.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    out.truncate(MAX_NAMES);
    Ok(out)
}

/// The files whose text has every word of `name` (more than [`MAX_USERS`] of them is cut
/// short: the caller only needs to know there are too many).
fn users_of(
    index: &Index,
    name: &str,
    cache: &mut FastMap<String, Vec<usize>>,
) -> Result<Vec<usize>, Damaged> {
    let mut words = terms(name);
    words.sort();
    words.dedup();
    let mut acc: Option<Vec<usize>> = None;
    for w in words {
        if !cache.contains_key(&w) {
            let mut files: Vec<usize> = index
                .postings(&w)?
                .into_iter()
                .filter(|(_, tf)| tf[BODY] > 0)
                .map(|(fi, _)| fi)
                .collect();
            files.sort_unstable();
            cache.insert(w.clone(), files);
        }
        let files = &cache[&w];
        acc = Some(match acc {
            None => files.clone(),
            Some(a) => a
                .into_iter()
                .filter(|f| files.binary_search(f).is_ok())
                .collect(),
        });
    }
    let mut users = acc.unwrap_or_default();
    users.truncate(MAX_USERS + 1);
    Ok(users)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::store::from_texts;

    #[test]
    fn pagerank_without_links_is_the_restart_and_flows_along_links() {
        let r = personalized_pagerank(3, &[], &[2.0, 2.0, 0.0], 0.5);
        assert_eq!(r, [0.5, 0.5, 0.0]);
        // 0 -> 1 -> 2, all restarts at 0.
        let r = personalized_pagerank(3, &[(0, 1, 1.0), (1, 2, 1.0)], &[1.0, 0.0, 0.0], 0.5);
        assert!(r[0] > r[1] && r[1] > r[2] && r[2] > 0.0, "{r:?}");
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{r:?}");
        // Node 2 is a dead end: its mass goes back to the restart, nothing is lost.
        assert!((r[1] - 0.5 * r[0]).abs() < 1e-9, "{r:?}");
        assert!(
            personalized_pagerank(2, &[(0, 1, 1.0)], &[0.0, 0.0], 0.5)
                .iter()
                .all(|x| *x == 0.0)
        );
    }

    #[test]
    fn a_node_linked_from_two_seeds_outranks_one_linked_from_one() {
        // Seeds 0 and 1; node 2 linked from both, node 3 from seed 0 only.
        let e = |a, b| [(a, b, 1.0), (b, a, 1.0)];
        let edges: Vec<_> = [e(0, 2), e(1, 2), e(0, 3)].concat();
        let r = personalized_pagerank(4, &edges, &[1.0, 1.0, 0.0, 0.0], 0.5);
        assert!(r[2] > r[3] && r[3] > 0.0, "{r:?}");
    }

    fn words<'a>(w: &[&'a str]) -> FastMap<&'a str, f64> {
        w.iter().map(|t| (*t, 1.0)).collect()
    }

    #[test]
    fn files_using_a_definition_the_story_names_are_linked_to_its_file() {
        let idx = from_texts(&[
            (
                "src/client.rs",
                "fn get() { let h = parse_header(x); other(); }\n",
            ),
            ("src/log.rs", "fn log() { /* the header */ }\n"),
            (
                "src/parser.rs",
                "pub fn parse_header(s: &str) {}\npub fn other() {}\n",
            ),
            ("src/server.rs", "fn serve() { parse_header(line); }\n"),
        ]);
        let parser = idx.file("src/parser.rs").unwrap();
        let got = links(&idx, &[(parser, 3.0)], &words(&["header"]), &|_| false).unwrap();
        let paths: Vec<&str> = got.iter().map(|l| idx.rec(l.file).path.as_str()).collect();
        assert_eq!(paths, ["src/client.rs", "src/server.rs"], "{got:?}");
        assert!(
            (got[0].flow - got[1].flow).abs() < 1e-12,
            "one name, shared alike"
        );
        assert_eq!(got[0].via, ["parse_header (src/parser.rs)"]);
        let none = links(&idx, &[(parser, 3.0)], &words(&["unrelated"]), &|_| false).unwrap();
        assert!(none.is_empty(), "no definition the story names: {none:?}");
        let server = idx.file("src/server.rs").unwrap();
        let skipped = links(&idx, &[(parser, 3.0)], &words(&["header"]), &|f| {
            f == server
        })
        .unwrap();
        assert_eq!(skipped.len(), 1);
    }

    #[test]
    fn a_file_using_two_seeds_definitions_receives_more_and_common_names_link_nothing() {
        let mut files = vec![
            ("src/table.rs", "pub fn render_table() {}\n".to_string()),
            ("src/row.rs", "pub fn render_row() {}\n".to_string()),
            (
                "src/view.rs",
                "fn v() { render_table(); render_row(); }\n".to_string(),
            ),
            ("src/other.rs", "fn o() { render_table(); }\n".to_string()),
            ("src/common.rs", "pub fn render() {}\n".to_string()),
        ];
        for i in 0..MAX_USERS {
            files.push(("", format!("fn f{i}() {{ render(); }}\n")));
        }
        let mut named: Vec<(String, String)> = files
            .iter()
            .enumerate()
            .map(|(i, (p, t))| match p.is_empty() {
                true => (format!("src/user{i}.rs"), t.clone()),
                false => (p.to_string(), t.clone()),
            })
            .collect();
        named.sort();
        let refs: Vec<(&str, &str)> = named
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let idx = from_texts(&refs);
        let f = |p: &str| idx.file(p).unwrap();
        let seeds = [(f("src/table.rs"), 1.0), (f("src/row.rs"), 1.0)];
        let got = links(&idx, &seeds, &words(&["render", "tabl", "row"]), &|_| false).unwrap();
        let flow = |p: &str| got.iter().find(|l| l.file == f(p)).map_or(0.0, |l| l.flow);
        assert!(flow("src/view.rs") > flow("src/other.rs"), "{got:?}");
        assert!(flow("src/other.rs") > 0.0, "{got:?}");
        let common = links(
            &idx,
            &[(f("src/common.rs"), 1.0)],
            &words(&["render"]),
            &|_| false,
        );
        assert!(
            common.unwrap().is_empty(),
            "`render` is in too many files to be evidence"
        );
    }
}
