//! Learning lines without duplicates: normalisation, exact and near-duplicate merging.
//!
//! Owns when two learning lines count as the same (see [`normalize`] and [`near_duplicate`]); not
//! where learnings come from or how they are printed (`compacted.rs`). Keeps the first wording seen
//! (the oldest) and the original bytes of it, so non-UTF-8 text survives.
//!
//! Cost is bounded on huge logs: exact duplicates go through a hash map; the similarity ratio is
//! computed only against the last [`NEAR_CANDIDATES`] learnings that start with the same two
//! words and have a similar length.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Similarity ratio (normalised Levenshtein on the normalised text) at or above which two
/// learnings are near duplicates.
pub(super) const NEAR_RATIO: f64 = 0.9;
/// Normalised learnings shorter than this are merged only when exactly equal.
const NEAR_MIN_LEN: usize = 24;
/// How many earlier learnings with the same first two words one learning is compared with.
pub(super) const NEAR_CANDIDATES: usize = 8;
/// Near-duplicate comparisons allowed in one compaction; past it only exact duplicates merge.
/// Real logs stay far below it; it bounds the time on a pathological one (every line a learning
/// starting with the same two words).
pub(super) const NEAR_BUDGET: usize = 200_000;

/// Lower-case, punctuation to spaces, whitespace collapsed: `Use jq's  -r!` gives `use jq s r`.
pub(super) fn normalize(text: &[u8]) -> String {
    if text.is_ascii() {
        // Fast path for the common case; same result as the general one below.
        let mut out = String::with_capacity(text.len());
        let mut gap = false;
        for &b in text {
            if b.is_ascii_alphanumeric() {
                if gap && !out.is_empty() {
                    out.push(' ');
                }
                gap = false;
                out.push(b.to_ascii_lowercase() as char);
            } else {
                gap = true;
            }
        }
        return out;
    }
    let text = String::from_utf8_lossy(text);
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Two normalised learnings say the same thing: long enough, similar length, the same numbers,
/// and a similarity ratio of at least [`NEAR_RATIO`]. Numbers must match so that `port 8080` and
/// `port 8081` stay two facts.
pub(super) fn near_duplicate(a: &str, b: &str) -> bool {
    let (la, lb) = (a.len(), b.len());
    if la.min(lb) < NEAR_MIN_LEN || la.abs_diff(lb) * 10 > la.max(lb) {
        return false;
    }
    let digits = |s: &str| s.bytes().filter(u8::is_ascii_digit).collect::<Vec<u8>>();
    if digits(a) != digits(b) {
        return false;
    }
    // Cheap lower bound first: the edit distance is at least the bag distance (bytes one side
    // has and the other lacks), so unrelated lines never reach the quadratic comparison.
    let mut bag = [0i32; 256];
    a.bytes().for_each(|c| bag[c as usize] += 1);
    b.bytes().for_each(|c| bag[c as usize] -= 1);
    let (extra, missing) = bag.iter().fold((0usize, 0usize), |(p, n), &d| {
        (p + d.max(0) as usize, n + (-d).max(0) as usize)
    });
    // A ratio of 0.9 allows max_len / 10 character edits; one character is up to 4 bytes.
    let max_edits = la.max(lb) / 10 * if a.is_ascii() && b.is_ascii() { 1 } else { 4 };
    extra.max(missing) <= max_edits && strsim::normalized_levenshtein(a, b) >= NEAR_RATIO
}

/// The code names in a learning, lower-cased, in order: words with a capital after their first
/// letter or an underscore (`TabGraphSection`, `GET_ANNOTATIONS`, `macOS`, `snake_case`). Near
/// duplicates must name the same things, as they must have the same numbers, so `after
/// TabGraphSection` and `after TimeMachineSection` stay two facts.
fn names(text: &[u8]) -> Vec<Vec<u8>> {
    text.split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .filter(|w| w.contains(&b'_') || w.iter().skip(1).any(u8::is_ascii_uppercase))
        .map(<[u8]>::to_ascii_lowercase)
        .collect()
}

fn hash_of(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// First two words of a normalised text: near duplicates are looked for only within this bucket.
fn bucket_of(norm: &str) -> u64 {
    let mut words = norm.splitn(3, ' ');
    let key = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// The comparison form of a learning: [`normalize`]d, or the trimmed text itself when only
/// punctuation or symbols are left.
fn norm_of(text: &[u8]) -> String {
    let norm = normalize(text);
    if norm.is_empty() {
        String::from_utf8_lossy(text.trim_ascii()).into_owned()
    } else {
        norm
    }
}

/// A kept learning. Its normalised form is not stored (recomputed for the few comparisons that
/// need it), so a log with a million learnings costs little beyond the log itself.
struct Item<'a> {
    text: Cow<'a, [u8]>,
    /// The previous learning with the same first two words (a per-bucket linked list).
    prev_in_bucket: Option<u32>,
}

/// An ordered set of learnings, duplicates merged.
pub(super) struct Learnings<'a> {
    items: Vec<Item<'a>>,
    /// Hash of the normalised text to the first learning with it.
    exact: HashMap<u64, usize>,
    /// Bucket key to the newest learning in it.
    buckets: HashMap<u64, u32>,
    near_budget: usize,
    /// How many added learnings were merged into an earlier one.
    pub merged: usize,
}

impl Default for Learnings<'_> {
    fn default() -> Self {
        Learnings {
            items: Vec::new(),
            exact: HashMap::new(),
            buckets: HashMap::new(),
            near_budget: NEAR_BUDGET,
            merged: 0,
        }
    }
}

impl<'a> Learnings<'a> {
    /// Add a learning (bullet marker already removed). Returns false when it duplicates one
    /// already kept. Blank text is ignored.
    pub(super) fn add(&mut self, text: Cow<'a, [u8]>) -> bool {
        if text.trim_ascii().is_empty() {
            return false;
        }
        let norm = norm_of(&text);
        if self.is_duplicate(&text, &norm) {
            self.merged += 1;
            return false;
        }
        let idx = self.items.len();
        self.exact.entry(hash_of(&norm)).or_insert(idx);
        let prev_in_bucket = u32::try_from(idx)
            .ok()
            .and_then(|i| self.buckets.insert(bucket_of(&norm), i));
        self.items.push(Item {
            text,
            prev_in_bucket,
        });
        true
    }

    fn is_duplicate(&mut self, text: &[u8], norm: &str) -> bool {
        if let Some(&i) = self.exact.get(&hash_of(norm)) {
            if norm_of(&self.items[i].text) == norm {
                return true;
            }
            // A hash collision between different texts: fall back to a full comparison.
            if self.items.iter().any(|it| norm_of(&it.text) == norm) {
                return true;
            }
        }
        let mut next = self.buckets.get(&bucket_of(norm)).copied();
        for _ in 0..NEAR_CANDIDATES {
            if self.near_budget == 0 {
                return false;
            }
            let Some(item) = next.and_then(|i| self.items.get(i as usize)) else {
                return false;
            };
            self.near_budget -= 1;
            if near_duplicate(&norm_of(&item.text), norm) && names(&item.text) == names(text) {
                return true;
            }
            next = item.prev_in_bucket;
        }
        false
    }

    /// The kept learnings, in the order they were first seen.
    pub(super) fn texts(&self) -> impl Iterator<Item = &[u8]> {
        self.items.iter().map(|i| i.text.as_ref())
    }

    /// The normalised form of every kept learning.
    pub(super) fn norms(&self) -> impl Iterator<Item = String> + '_ {
        self.items.iter().map(|i| norm_of(&i.text))
    }

    pub(super) fn len(&self) -> usize {
        self.items.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(l: &mut Learnings<'static>, s: &'static str) -> bool {
        l.add(Cow::Borrowed(s.as_bytes()))
    }

    #[test]
    fn normalize_folds_case_punctuation_and_whitespace() {
        assert_eq!(normalize(b"  Use `jq -r`,  ALWAYS!  "), "use jq r always");
        assert_eq!(normalize("Ünïcode Straße".as_bytes()), "ünïcode straße");
        assert_eq!(normalize(b"caf\xe9 ok"), "caf ok");
        assert_eq!(normalize(b"--a--b--"), "a b");
        assert_eq!(normalize(b"!!!"), "");
    }

    #[test]
    fn exact_duplicates_after_normalisation_merge() {
        let mut l = Learnings::default();
        assert!(add(&mut l, "Bash 3.2 has no associative arrays"));
        assert!(!add(&mut l, "bash 3.2 has no associative arrays."));
        assert!(!add(&mut l, "  BASH 3.2 - has no associative   arrays"));
        assert_eq!(l.len(), 1);
        assert_eq!(l.merged, 2);
        assert_eq!(
            l.texts().next(),
            Some(&b"Bash 3.2 has no associative arrays"[..])
        );
    }

    #[test]
    fn near_duplicates_merge_but_different_numbers_do_not() {
        let mut l = Learnings::default();
        assert!(add(
            &mut l,
            "Bash 3.2 (macOS default) doesn't support associative arrays"
        ));
        assert!(!add(
            &mut l,
            "Bash 3.2 (macOS default) does not support associative arrays"
        ));
        assert!(add(
            &mut l,
            "The dev server listens on port 8080 by default"
        ));
        assert!(add(
            &mut l,
            "The dev server listens on port 8081 by default"
        ));
        assert_eq!(l.len(), 3);
    }

    #[test]
    fn near_duplicates_naming_different_things_do_not_merge() {
        // From a real log: one letter of ratio apart, two different facts.
        let mut l = Learnings::default();
        assert!(add(
            &mut l,
            "Section placement in App.tsx: after TimeMachineSection, before RecentlyClosedSection"
        ));
        assert!(add(
            &mut l,
            "Section placement in App.tsx: after TabGraphSection, before RecentlyClosedSection"
        ));
        assert!(!add(
            &mut l,
            "Section placement in App.tsx is after TabGraphSection, before RecentlyClosedSection"
        ));
        assert_eq!(l.len(), 2);
        assert_eq!(
            names(b"use `GET_X` on macOS, not getY"),
            [&b"get_x"[..], b"macos", b"gety"]
        );
    }

    #[test]
    fn short_or_unrelated_lines_stay_distinct() {
        let mut l = Learnings::default();
        assert!(add(&mut l, "use jq"));
        assert!(add(&mut l, "use sed"));
        assert!(add(&mut l, "Keywords should be comprehensive"));
        assert!(add(&mut l, "Index structure is simple markdown"));
        assert!(!add(&mut l, "   "));
        assert!(add(&mut l, "→"));
        assert!(!add(&mut l, " → "));
        assert_eq!(l.len(), 5);
    }

    #[test]
    fn non_utf8_learning_keeps_its_bytes() {
        let mut l = Learnings::default();
        assert!(l.add(Cow::Borrowed(&b"caf\xe9 is spelled with \xff bytes"[..])));
        assert_eq!(
            l.texts().next(),
            Some(&b"caf\xe9 is spelled with \xff bytes"[..])
        );
    }

    #[test]
    fn near_duplicate_search_stops_at_its_budget() {
        let mut l = Learnings {
            near_budget: 1,
            ..Learnings::default()
        };
        assert!(add(&mut l, "the quick brown fox jumps over the lazy dog"));
        assert!(!add(&mut l, "the quick brown fox jumped over the lazy dog"));
        assert!(
            add(&mut l, "the quick brown fox leaps over the lazy dog"),
            "budget spent"
        );
        assert!(
            !add(&mut l, "The quick brown fox jumps over the lazy dog!"),
            "exact still merges"
        );
        assert_eq!(l.len(), 2);
    }

    #[test]
    fn near_duplicate_bounds() {
        assert!(!near_duplicate("abc", "abd"));
        let a = "the quick brown fox jumps over the lazy dog";
        assert!(near_duplicate(
            a,
            "the quick brown fox jumped over the lazy dog"
        ));
        assert!(!near_duplicate(a, "the quick brown fox"));
    }
}
