//! Which files a story will touch, predicted before it is claimed, and how strongly two
//! predictions overlap: the parallel scheduler keeps two stories apart when they would likely
//! edit the same file (they would conflict at the merge, and one of them would be redone).
//!
//! A prediction is the files the story's text names (`src/login.rs`, `login.rs` when only one
//! file has that name), weight 1, and the best files of the where-to-look ranking the prompt
//! uses ([`crate::index::rank`]: the story's words, the Pin entries it matches, co-change),
//! weight [`RANKED`] × the square of its score relative to the best (the best file is where
//! the edit usually is; the next ones, often a module that imports it, much less), the top
//! [`TOP`] of those scoring at least [`MIN_SHARE`] of the best. The overlap of two predictions is their strongest shared
//! file, weighted by the weaker of the two ([`overlap`]). Pure apart from [`Predictor`], which
//! reads the code index and the Pin.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::prd::Story;

/// A ranked file counts this much at most (a named one counts 1).
pub(crate) const RANKED: f64 = 0.8;
/// Ranked files below this share of the best score are not predicted.
pub(crate) const MIN_SHARE: f64 = 0.5;
/// At most this many ranked files are predicted.
pub(crate) const TOP: usize = 5;
/// A bare file name (`login.rs`) names a file only when at most this many files have it.
const MAX_SAME_NAME: usize = 1;

/// Why a file is predicted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Source {
    /// The story's text names it.
    Named,
    /// The where-to-look ranking puts it near the top.
    Ranked,
}

/// One predicted file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct File {
    pub path: String,
    /// In (0, 1].
    pub weight: f64,
    pub source: Source,
}

/// A story's predicted files, strongest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Prediction {
    pub files: Vec<File>,
}

impl Prediction {
    /// From the files the text names and the ranking's (path, score) best first.
    pub(crate) fn new(named: &[String], ranked: &[(String, f64)]) -> Prediction {
        let mut files: Vec<File> = named
            .iter()
            .map(|p| File {
                path: p.clone(),
                weight: 1.0,
                source: Source::Named,
            })
            .collect();
        // The ranking puts tests and docs after sources: the best score may be further down.
        let top = ranked.iter().map(|r| r.1).fold(0.0, f64::max);
        if top > 0.0 {
            for (path, score) in ranked.iter().take(TOP) {
                let share = score / top;
                if share < MIN_SHARE || files.iter().any(|f| &f.path == path) {
                    continue;
                }
                files.push(File {
                    path: path.clone(),
                    weight: RANKED * share * share,
                    source: Source::Ranked,
                });
            }
        }
        files.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.path.cmp(&b.path)));
        Prediction { files }
    }

    /// "src/a.rs (named), src/b.rs (0.62)".
    pub(crate) fn describe(&self) -> String {
        if self.files.is_empty() {
            return "no file predicted".into();
        }
        self.files
            .iter()
            .map(|f| match f.source {
                Source::Named => format!("{} (named)", f.path),
                Source::Ranked => format!("{} ({:.2})", f.path, f.weight),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// How strongly two predictions overlap: their strongest shared file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Overlap {
    pub file: String,
    /// The weaker of the two weights of `file`, in (0, 1].
    pub score: f64,
}

/// The overlap of `a` and `b`, `None` when they share no file.
pub(crate) fn overlap(a: &Prediction, b: &Prediction) -> Option<Overlap> {
    let b_of: HashMap<&str, f64> = b
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.weight))
        .collect();
    a.files
        .iter()
        .filter_map(|f| {
            let w = b_of.get(f.path.as_str())?;
            Some(Overlap {
                file: f.path.clone(),
                score: f.weight.min(*w),
            })
        })
        .max_by(|x, y| x.score.total_cmp(&y.score).then(y.file.cmp(&x.file)))
}

/// The files of `files` (the project's, repository-relative) that `text` names: a path
/// (`src/login.rs`, `./src/login.rs`, a path's tail such as `login/mod.rs`), or a bare file
/// name that only one file has. In the order the text names them, each once.
pub(crate) fn named_files(text: &str, files: &[&str]) -> Vec<String> {
    let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
    for f in files {
        by_name
            .entry(f.rsplit('/').next().unwrap_or(f))
            .or_default()
            .push(f);
    }
    let mut out: Vec<String> = Vec::new();
    let tokens = text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-')));
    for raw in tokens {
        let t = raw
            .trim_matches(|c| c == '.' || c == '/')
            .trim_start_matches("./");
        if t.len() < 3 || !t.contains('.') {
            continue;
        }
        let found: Vec<&str> = if t.contains('/') {
            let tail = format!("/{t}");
            files
                .iter()
                .copied()
                .filter(|f| *f == t || f.ends_with(&tail))
                .collect()
        } else {
            by_name.get(t).cloned().unwrap_or_default()
        };
        if found.is_empty() || found.len() > MAX_SAME_NAME {
            continue;
        }
        for f in found {
            if !out.iter().any(|o| o == f) {
                out.push(f.to_string());
            }
        }
    }
    out
}

/// The story's text, as it names files.
fn story_text(s: &Story) -> String {
    let mut t = format!("{}\n{}\n{}\n", s.title, s.description, s.notes);
    for c in &s.acceptance_criteria {
        t.push_str(c);
        t.push('\n');
    }
    t
}

/// Predicts files from the project's code index (read once, refreshed when asked) and its Pin.
pub(crate) struct Predictor {
    root: PathBuf,
    index: crate::index::store::Index,
    pin: crate::pin::Searchable,
}

impl Predictor {
    /// The index of `root` as it is now (refreshed, never saved: the prompts' builds save it).
    pub(crate) fn new(root: &Path) -> Predictor {
        Predictor {
            root: root.to_path_buf(),
            index: crate::index::scan::refresh_with(root, false).index,
            pin: crate::pin::searchable(root, false).unwrap_or_default(),
        }
    }

    /// Read the project again (after a merge changed it).
    pub(crate) fn refresh(&mut self) {
        *self = Predictor::new(&self.root);
    }

    /// The files `story` will likely touch.
    pub(crate) fn predict(&mut self, story: &Story) -> Prediction {
        let paths: Vec<&str> = self.index.files().map(|(_, f)| f.path.as_str()).collect();
        let named = named_files(&story_text(story), &paths);
        let query = crate::context::gather::story_query(story);
        let found = self.pin.search(
            &crate::index::written_words(&query),
            crate::context::Options::default().top_k,
        );
        let pins = crate::pin::search::as_evidence(&found);
        let ev = crate::index::Evidence {
            pins,
            blockers: vec![],
        };
        let (ranked, _) = crate::index::scan::rank_or_rebuild(
            &self.root,
            &mut self.index,
            false,
            &query,
            &ev,
            TOP,
        );
        let ranked: Vec<(String, f64)> = ranked.into_iter().map(|r| (r.path, r.score)).collect();
        Prediction::new(&named, &ranked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_is_the_named_files_then_the_best_ranked_ones() {
        let ranked = vec![
            ("src/a.rs".to_string(), 10.0),
            ("src/b.rs".to_string(), 6.0),
            ("src/c.rs".to_string(), 4.0),
        ];
        let p = Prediction::new(&["src/b.rs".to_string()], &ranked);
        let got: Vec<(&str, f64, Source)> = p
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.weight, f.source))
            .collect();
        assert_eq!(
            got,
            [
                ("src/b.rs", 1.0, Source::Named),
                ("src/a.rs", 0.8, Source::Ranked)
            ]
        );
        assert_eq!(p.describe(), "src/b.rs (named), src/a.rs (0.80)");
        assert_eq!(Prediction::new(&[], &[]).describe(), "no file predicted");
    }

    #[test]
    fn the_overlap_is_the_strongest_shared_file_weighted_by_the_weaker_side() {
        let a = Prediction::new(&["src/a.rs".to_string()], &[("src/z.rs".to_string(), 1.0)]);
        let b = Prediction::new(
            &[],
            &[("src/a.rs".to_string(), 2.0), ("src/z.rs".to_string(), 1.5)],
        );
        let o = overlap(&a, &b).unwrap();
        assert_eq!(o.file, "src/a.rs");
        assert!((o.score - 0.8).abs() < 1e-9, "{o:?}");
        assert_eq!(overlap(&b, &a).unwrap().file, "src/a.rs");
        let c = Prediction::new(&["src/c.rs".to_string()], &[]);
        assert!(overlap(&a, &c).is_none());
        assert!(overlap(&a, &Prediction::default()).is_none());
    }

    #[test]
    fn the_text_names_paths_tails_and_unique_file_names() {
        let files = [
            "src/login.rs",
            "src/auth/mod.rs",
            "src/db/mod.rs",
            "web/app.ts",
            "README.md",
        ];
        let text = "Fix `src/login.rs` and auth/mod.rs; see app.ts (not mod.rs, two have it), README.md. e.g. v1.2";
        assert_eq!(
            named_files(text, &files),
            ["src/login.rs", "src/auth/mod.rs", "web/app.ts", "README.md"]
        );
        assert_eq!(
            named_files("./src/login.rs, src/login.rs.", &files),
            ["src/login.rs"]
        );
        assert!(named_files("nothing here", &files).is_empty());
    }
}
