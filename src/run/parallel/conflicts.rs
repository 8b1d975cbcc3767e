//! Conflict-aware claiming (specs/parallel.md, section 3): before a ready story is claimed, the
//! files it will touch are predicted ([`super::predict`], from the main tree at the current
//! tip), and a story whose prediction overlaps a live claim's by `--conflict-threshold` or more
//! waits until that claim is merged or released, instead of conflicting at the merge; each
//! wait is said once. Also the dry run's plan ([`plan`]: the waves `--dry-run --parallel K`
//! prints). The decisions are `policy::schedule` and `policy::waves`; the claiming that asks
//! for these predictions is `super::claiming`'s.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::policy::{self, Wave};
use super::predict::{Prediction, Predictor};
use crate::prd::Prd;

/// The project is read again for a prediction once the tip moved, at most this often: reading
/// it (the walk, changed files, the co-change history) would otherwise sit between every
/// merge and the dependants' start, and files change little between two waves.
const REREAD_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// The scheduler's memory of predictions.
#[derive(Default)]
pub(super) struct Conflicts {
    predictor: Option<Predictor>,
    /// The tip the predictor last read the project at, and when.
    read_at: String,
    read_when: Option<std::time::Instant>,
    cache: HashMap<String, Prediction>,
    /// (story, the claim it waits for), said already.
    said: HashSet<(String, String)>,
}

impl Conflicts {
    /// The prediction for story `id` of `prd` (from the project at `tip`, read again when the
    /// tip moved since the last story predicted, see [`REREAD_EVERY`]).
    pub(super) fn predict(&mut self, root: &Path, tip: &str, prd: &Prd, id: &str) -> Prediction {
        if let Some(p) = self.cache.get(id) {
            return p.clone();
        }
        let Some(story) = prd.story(id) else {
            return Prediction::default();
        };
        let recent = self.read_when.is_some_and(|t| t.elapsed() < REREAD_EVERY);
        let fresh = self.read_at == tip || recent;
        let predictor = match &mut self.predictor {
            Some(p) if fresh => p,
            Some(p) => {
                p.refresh();
                p
            }
            None => self.predictor.insert(Predictor::new(root)),
        };
        if !fresh || self.read_when.is_none() {
            self.read_at = tip.to_string();
            self.read_when = Some(std::time::Instant::now());
        }
        let p = predictor.predict(story);
        self.cache.insert(id.to_string(), p.clone());
        p
    }

    /// Whether `story` waiting for the claim `with` is new (each wait is said once).
    pub(super) fn first_time(&mut self, story: &str, with: &str) -> bool {
        self.said.insert((story.to_string(), with.to_string()))
    }
}

/// What `--dry-run --parallel K` shows.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub waves: Vec<Wave>,
    /// Each story's predicted files (those looked at), by id.
    pub predictions: Vec<(String, Prediction)>,
}

/// The waves a parallel run of `prd` at `root` would run, `k` at once (see
/// [`policy::waves`]); reads the project, writes nothing.
pub(crate) fn plan(
    root: &Path,
    prd: &Prd,
    k: usize,
    threshold: Option<f64>,
    forced: Option<&str>,
) -> Plan {
    let mut predictor = None;
    let mut predictions: Vec<(String, Prediction)> = Vec::new();
    let waves = policy::waves(&prd.stories, k, threshold, forced, |id| {
        if let Some((_, p)) = predictions.iter().find(|(i, _)| i == id) {
            return p.clone();
        }
        let p = match prd.story(id) {
            Some(s) => predictor
                .get_or_insert_with(|| Predictor::new(root))
                .predict(s),
            None => Prediction::default(),
        };
        predictions.push((id.to_string(), p.clone()));
        p
    });
    Plan { waves, predictions }
}
