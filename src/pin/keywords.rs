//! Keywords: choosing each module's most distinctive terms.
//!
//! Owns [`rank`]: TF-IDF across modules over definition words, file and folder names, library
//! names and doc words, with stop words and code noise dropped. Pure: no I/O. Does not own reading
//! files (see [`crate::index`]) or which files form a module (see [`super::discover`]).

use std::sync::LazyLock;

use crate::index::text::{FastMap as HashMap, FastSet, for_each_word, is_stop, stem};
use crate::par::{drop_later, map_balanced_by};

/// Keywords per generated entry.
pub(crate) const MAX_KEYWORDS: usize = 20;
/// Terms per module given a written form before the final sort (room for case duplicates).
const CANDIDATES: usize = 3 * MAX_KEYWORDS;

/// Words too common in code to tell modules apart.
const NOISE: &[&str] = &[
    "always",
    "anything",
    "arc",
    "arg",
    "args",
    "bool",
    "box",
    "byte",
    "bytes",
    "char",
    "class",
    "clone",
    "const",
    "crate",
    "ctx",
    "data",
    "debug",
    "def",
    "default",
    "display",
    "doe",
    "done",
    "enum",
    "eq",
    "err",
    "error",
    "everything",
    "false",
    "fmt",
    "fn",
    "foo",
    "from",
    "func",
    "function",
    "get",
    "gets",
    "give",
    "given",
    "gives",
    "hash",
    "impl",
    "init",
    "inner",
    "int",
    "into",
    "item",
    "keep",
    "kept",
    "lands",
    "len",
    "less",
    "lib",
    "made",
    "main",
    "make",
    "many",
    "mean",
    "means",
    "mod",
    "much",
    "mut",
    "need",
    "needs",
    "never",
    "new",
    "none",
    "nothing",
    "obj",
    "ok",
    "opt",
    "option",
    "own",
    "owns",
    "per",
    "ptr",
    "pub",
    "put",
    "ref",
    "res",
    "result",
    "ret",
    "see",
    "self",
    "set",
    "some",
    "something",
    "src",
    "still",
    "str",
    "string",
    "struct",
    "super",
    "take",
    "takes",
    "test",
    "tests",
    "thing",
    "things",
    "tmp",
    "trait",
    "true",
    "type",
    "use",
    "used",
    "uses",
    "using",
    "val",
    "value",
    "var",
    "vec",
    "void",
    "way",
    "ways",
    "well",
    "whether",
    "work",
    "works",
];

static NOISE_SET: LazyLock<FastSet<&'static str>> =
    LazyLock::new(|| NOISE.iter().copied().collect());

fn is_noise(w: &str) -> bool {
    w.len() < 3
        || w.len() > 30
        || w.chars().all(|c| c.is_numeric())
        || is_stop(w)
        || NOISE_SET.contains(w)
}

/// The raw material of one module, before ranking.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModuleText<'a> {
    /// Defined identifiers (each occurrence counts).
    pub defs: Vec<&'a str>,
    /// File paths of the module (their file and folder names count).
    pub paths: Vec<String>,
    /// Libraries the module uses.
    pub deps: Vec<String>,
    /// Doc text: headings and module doc comments.
    pub doc: String,
}

#[derive(Default)]
struct Term {
    weight: f64,
    surface: Surfaces,
}

/// The ways one term was written and how often. Most terms are written exactly as their key
/// (the stem of a word that stemming leaves alone): that form is only counted, the others are
/// kept in a list, so a term costs no allocation beyond its key in the common case.
#[derive(Debug, Default, Clone, PartialEq)]
struct Surfaces {
    /// Times written as the term's key itself.
    same: u32,
    /// Every other written form and its count.
    other: Vec<(String, u32)>,
}

impl Surfaces {
    /// Count `word` `n` times (`as_key`: it is written exactly as the term's key).
    fn add(&mut self, word: &str, as_key: bool, n: u32) {
        if as_key {
            self.same += n;
        } else if let Some((_, c)) = self.other.iter_mut().find(|(w, _)| w == word) {
            *c += n;
        } else {
            self.other.push((word.to_string(), n));
        }
    }

    /// The most frequent written form (ties: shortest, then alphabetical); `None` when nothing
    /// was counted.
    fn best<'s>(&'s self, key: &'s str) -> Option<&'s str> {
        let same = (self.same > 0).then_some((key, self.same));
        same.into_iter()
            .chain(self.other.iter().map(|(w, c)| (w.as_str(), *c)))
            .max_by(|a, b| {
                a.1.cmp(&b.1)
                    .then(b.0.len().cmp(&a.0.len()))
                    .then(b.0.cmp(a.0))
            })
            .map(|(w, _)| w)
    }
}

/// Count `word` `n` times with `weight` each.
fn add(terms: &mut HashMap<String, Term>, word: &str, weight: f64, n: u32) {
    let key = if word.contains(['_', '-', '@', '/', '.']) {
        word.to_string()
    } else {
        stem(word)
    };
    let as_key = key == word;
    let t = terms.entry(key).or_default();
    t.weight += weight * f64::from(n);
    t.surface.add(word, as_key, n);
}

/// Split each distinct text once and count its words `weight` times per occurrence.
fn add_split<'a>(
    terms: &mut HashMap<String, Term>,
    texts: impl Iterator<Item = &'a str>,
    weight: f64,
) {
    // Sized up front: growing these maps rehashes every key several times.
    let mut counts: HashMap<&str, u32> =
        HashMap::with_capacity_and_hasher(texts.size_hint().0, Default::default());
    for t in texts {
        *counts.entry(t).or_default() += 1;
    }
    let mut words: HashMap<String, u32> =
        HashMap::with_capacity_and_hasher(counts.len(), Default::default());
    let mut buf = String::new();
    for (t, n) in counts {
        // A noise word is kept with a count of 0, so it is checked once, not at every
        // occurrence (short words, the most common noise, cost nothing to check).
        for_each_word(t, &mut buf, |w| match words.get_mut(w) {
            Some(0) => {}
            Some(c) => *c += n,
            None if w.len() < 3 => {}
            None => {
                words.insert(w.to_string(), if is_noise(w) { 0 } else { n });
            }
        });
    }
    terms.reserve(words.len());
    for (w, n) in words {
        if n > 0 {
            add(terms, &w, weight, n);
        }
    }
}

fn module_terms(m: &ModuleText<'_>) -> HashMap<String, Term> {
    let mut terms = HashMap::default();
    add_split(&mut terms, m.defs.iter().copied(), 1.0);
    let mut folders = std::collections::BTreeSet::new();
    let mut buf = String::new();
    for p in &m.paths {
        let (dir, file) = p.rsplit_once('/').unwrap_or(("", p));
        let stem_part = file.split('.').next().unwrap_or(file);
        for_each_word(stem_part, &mut buf, |w| {
            if !is_noise(w) {
                add(&mut terms, w, 3.0, 1);
            }
        });
        folders.insert(dir);
    }
    let mut folder_words = std::collections::BTreeSet::new();
    for d in folders {
        for_each_word(d, &mut buf, |w| {
            if !folder_words.contains(w) {
                folder_words.insert(w.to_string());
            }
        });
    }
    for w in folder_words {
        if !is_noise(&w) {
            add(&mut terms, &w, 3.0, 1);
        }
    }
    for d in &m.deps {
        add(&mut terms, &d.to_lowercase(), 4.0, 1);
    }
    add_split(&mut terms, m.doc.split_whitespace(), 0.5);
    terms
}

/// The keywords of each module: its terms ranked by TF-IDF across all modules (`(1 + ln tf) ·
/// (1 + ln((N + 1) / (df + 1)))`), at most [`MAX_KEYWORDS`], best first, ties by term.
pub(crate) fn rank(modules: &[ModuleText<'_>]) -> Vec<Vec<String>> {
    // Modules differ in size by orders of magnitude: hand them out one at a time, the largest
    // first, so that no big one is left for the end while the other cores wait.
    let per = map_balanced_by(modules, |m| m.defs.len() + m.doc.len() / 8, module_terms);
    let mut df: HashMap<&str, usize> = HashMap::default();
    for m in &per {
        for k in m.keys() {
            *df.entry(k.as_str()).or_default() += 1;
        }
    }
    let n = per.len() as f64;
    // The idf of each possible document frequency, computed once instead of once per term.
    let idf_of: Vec<f64> = (0..=per.len())
        .map(|df| 1.0 + ((n + 1.0) / (df as f64 + 1.0)).ln())
        .collect();
    let ranked = map_balanced_by(&per, HashMap::len, |terms| {
        let all: Vec<(f64, &String, &Term)> = terms
            .iter()
            .map(|(k, t)| {
                let idf = idf_of[df[k.as_str()]];
                ((1.0 + t.weight.ln()) * idf, k, t)
            })
            .collect();
        // Only the best few (and anything tied with them) need their written form.
        let cut = if all.len() > CANDIDATES {
            let mut s: Vec<f64> = all.iter().map(|x| x.0).collect();
            s.select_nth_unstable_by(CANDIDATES - 1, |a, b| b.total_cmp(a));
            s[CANDIDATES - 1]
        } else {
            f64::NEG_INFINITY
        };
        let mut scored: Vec<(f64, String)> = all
            .into_iter()
            .filter(|x| x.0 >= cut)
            .map(|(score, k, t)| {
                // The most frequent way it was written (ties: shortest, then alphabetical).
                let surface = t.surface.best(k).unwrap_or(k).to_string();
                (score, surface)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut out: Vec<String> = Vec::new();
        for (_, s) in scored {
            if !out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
                out.push(s);
            }
            if out.len() == MAX_KEYWORDS {
                break;
            }
        }
        out
    });
    drop(df);
    // Hundreds of thousands of small strings: freed while the caller goes on.
    drop_later(per);
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surfaces_pick_the_most_frequent_form_then_shortest_then_alphabetical() {
        let mut s = Surfaces::default();
        assert_eq!(s.best("pars"), None);
        s.add("parse", false, 2);
        s.add("parses", false, 2);
        assert_eq!(s.best("pars"), Some("parse"));
        s.add("pars", true, 1);
        s.add("pars", true, 1);
        assert_eq!(s.best("pars"), Some("pars"), "ties: the shortest");
        s.add("parsed", false, 3);
        assert_eq!(s.best("pars"), Some("parsed"));
        assert_eq!(s.other.len(), 3, "the key's own form is only counted");
        let mut t = Surfaces::default();
        t.add("abd", false, 1);
        t.add("abc", false, 1);
        assert_eq!(t.best("ab"), Some("abc"), "then alphabetical");
    }

    #[test]
    fn noise_list_is_sorted() {
        let mut s = NOISE.to_vec();
        s.sort_unstable();
        assert_eq!(s, NOISE);
    }

    #[test]
    fn ranks_distinctive_terms_first() {
        let m = |defs: &[&'static str], paths: &[&str], deps: &[&str]| ModuleText {
            defs: defs.to_vec(),
            paths: paths.iter().map(|s| s.to_string()).collect(),
            deps: deps.iter().map(|s| s.to_string()).collect(),
            doc: String::new(),
        };
        let ranked = rank(&[
            m(
                &["parse_config", "ConfigError", "load_config", "shared_util"],
                &["src/config/load.rs"],
                &["toml"],
            ),
            m(
                &["render_graph", "GraphNode", "shared_util"],
                &["src/graph/render.rs"],
                &[],
            ),
        ]);
        assert_eq!(ranked[0][0], "config");
        assert!(ranked[0].contains(&"toml".to_string()));
        assert!(!ranked[0].contains(&"self".to_string()));
        let share = ranked[0].iter().position(|k| k == "shared").unwrap();
        let load = ranked[0].iter().position(|k| k == "load").unwrap();
        assert!(load < share, "{:?}", ranked[0]);
        assert_eq!(ranked[1][0], "graph");
    }
}
