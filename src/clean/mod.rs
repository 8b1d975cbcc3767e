//! Run hygiene: what `ralph clean` (and `ralph run` at its start) removes of what ralph leaves
//! behind: old run folders (`.ralph/runs/<run-id>/`), rejected copies (`.ralph/rejected/`) and
//! archives (`archive/YYYY-MM-DD-<feature>/`); and, `ralph clean` only, the work ralph keeps in
//! git ([`work`]: stale worktrees saved then removed, merged refs deleted, unmerged ones kept
//! and listed unless named with `--drop`).
//!
//! This file is the pure policy: given the items (kind, path, time, size) and the limits, what
//! goes and why. Per kind, newest first, an item goes when it is OLDER than `older_than` AND not
//! among the newest `keep`; the current run's folder and archives git tracks always stay.
//! [`sweep`] is the I/O: finding the items, removing them. Does not decide when to clean (the
//! command, the loop).

pub(crate) mod sweep;
pub(crate) mod work;

use std::path::PathBuf;
use std::time::Duration;

use jiff::Timestamp;
use serde::Serialize;

/// The kinds of things ralph cleans, each limited on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Category {
    /// `.ralph/runs/<run-id>/`.
    Runs,
    /// `.ralph/rejected/<copy>`.
    Rejected,
    /// `archive/YYYY-MM-DD-<feature>/`.
    Archives,
}

impl Category {
    pub(crate) const ALL: [Category; 3] = [Category::Runs, Category::Rejected, Category::Archives];

    /// "run folder" / "run folders", for `n` of them.
    pub(crate) fn noun(self, n: usize) -> &'static str {
        match (self, n == 1) {
            (Category::Runs, true) => "run folder",
            (Category::Runs, false) => "run folders",
            (Category::Rejected, true) => "rejected copy",
            (Category::Rejected, false) => "rejected copies",
            (Category::Archives, true) => "archive",
            (Category::Archives, false) => "archives",
        }
    }
}

/// One thing that may be removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    pub category: Category,
    /// As found under the project root.
    pub path: PathBuf,
    /// When it was made or last used (see [`sweep`]).
    pub time: Timestamp,
    /// Bytes on disk (symlinks not followed). [`sweep`] measures only what is shown: the items
    /// removed and the tracked archives; 0 for the others.
    pub bytes: u64,
    /// The running run's own folder: never removed.
    pub current: bool,
    /// An archive git tracks: never removed (it would dirty the tree).
    pub tracked: bool,
}

/// The limits: per kind, remove what is older than `older_than` and beyond the newest `keep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub older_than: Duration,
    pub keep: usize,
}

/// The limits `[clean]` (with env and flags) sets.
impl From<&crate::config::Clean> for Limits {
    fn from(c: &crate::config::Clean) -> Limits {
        Limits {
            older_than: c.older_than,
            keep: c.keep,
        }
    }
}

/// Why an item stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Keep {
    /// Among the newest `keep` of its kind.
    Newest,
    /// Not older than `older_than`.
    Recent,
    /// The running run's folder.
    Current,
    /// Tracked by git: `git rm -r` it.
    Tracked,
}

/// The verdict on one item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    pub item: Item,
    /// `None`: removed.
    pub keep: Option<Keep>,
}

/// The verdicts, per kind newest first (kinds in [`Category::ALL`] order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    pub decisions: Vec<Decision>,
}

impl Plan {
    /// What goes.
    pub(crate) fn removals(&self) -> impl Iterator<Item = &Item> {
        self.decisions
            .iter()
            .filter(|d| d.keep.is_none())
            .map(|d| &d.item)
    }

    /// What stays for `why`.
    pub(crate) fn kept(&self, why: Keep) -> impl Iterator<Item = &Item> {
        self.decisions
            .iter()
            .filter(move |d| d.keep == Some(why))
            .map(|d| &d.item)
    }
}

/// Decide, at `now`, what of `items` goes under `limits`. Pure.
pub(crate) fn plan(items: Vec<Item>, limits: Limits, now: Timestamp) -> Plan {
    let mut items = items;
    // Newest first; the same time in path order, so the verdicts never depend on listing order.
    items.sort_by(|a, b| {
        a.category
            .cmp(&b.category)
            .then(b.time.cmp(&a.time))
            .then(a.path.cmp(&b.path))
    });
    let mut rank = 0usize;
    let mut last = None;
    let decisions = items
        .into_iter()
        .map(|item| {
            if last != Some(item.category) {
                last = Some(item.category);
                rank = 0;
            }
            rank += 1;
            let keep = verdict(&item, rank, limits, now);
            Decision { item, keep }
        })
        .collect();
    Plan { decisions }
}

/// The verdict on the `rank`-th newest item of its kind (1-based).
fn verdict(item: &Item, rank: usize, limits: Limits, now: Timestamp) -> Option<Keep> {
    let age = now.duration_since(item.time);
    let old = age.is_positive() && age.unsigned_abs() > limits.older_than;
    if item.current {
        Some(Keep::Current)
    } else if rank <= limits.keep {
        Some(Keep::Newest)
    } else if !old {
        Some(Keep::Recent)
    } else if item.tracked {
        Some(Keep::Tracked)
    } else {
        None
    }
}

/// "0 bytes", "512 bytes", "12.3 KB", "4.0 MB".
pub(crate) fn human_bytes(n: u64) -> String {
    match n {
        0..1000 => format!("{n} bytes"),
        1000..1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// "3 run folders and 1 rejected copy (12.4 MB)": what `items` hold, per kind, the first noun
/// after `adjective` ("old " gives "3 old run folders and 1 rejected copy"); `None` for none.
pub(crate) fn summary<'a>(
    items: impl IntoIterator<Item = &'a Item>,
    adjective: &str,
) -> Option<String> {
    let mut counts = [0usize; 3];
    let mut bytes = 0u64;
    for i in items {
        counts[i.category as usize] += 1;
        bytes += i.bytes;
    }
    let parts: Vec<String> = Category::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .enumerate()
        .map(|(k, (c, n))| {
            let adjective = if k == 0 { adjective } else { "" };
            format!("{n} {adjective}{}", c.noun(n))
        })
        .collect();
    let list = match parts.as_slice() {
        [] => return None,
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    Some(format!("{list} ({})", human_bytes(bytes)))
}

/// "14d", "36h", "90m", "45s", "0": an age as `--older-than` takes it.
pub(crate) fn format_age(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0 => "0".into(),
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    fn now() -> Timestamp {
        "2026-11-26T12:00:00Z".parse().unwrap()
    }

    fn item(category: Category, name: &str, days_old: i64) -> Item {
        Item {
            category,
            path: PathBuf::from(name),
            time: now() - jiff::SignedDuration::from_secs(days_old * DAY),
            bytes: 1000,
            current: false,
            tracked: false,
        }
    }

    fn limits(days: u64, keep: usize) -> Limits {
        Limits {
            older_than: Duration::from_secs(days * DAY as u64),
            keep,
        }
    }

    fn removed(p: &Plan) -> Vec<String> {
        p.removals().map(|i| i.path.display().to_string()).collect()
    }

    fn runs(ages: &[i64]) -> Vec<Item> {
        ages.iter()
            .enumerate()
            .map(|(i, d)| item(Category::Runs, &format!("r{i}"), *d))
            .collect()
    }

    #[test]
    fn removes_what_is_both_old_and_beyond_the_newest_keep() {
        // r0..r5 are 1, 3, 20, 30, 40, 50 days old.
        let items = runs(&[1, 3, 20, 30, 40, 50]);
        let p = plan(items.clone(), limits(14, 3), now());
        assert_eq!(
            removed(&p),
            ["r3", "r4", "r5"],
            "r2 is old but third newest"
        );
        assert_eq!(p.kept(Keep::Newest).count(), 3);
        let p = plan(items.clone(), limits(14, 1), now());
        assert_eq!(removed(&p), ["r2", "r3", "r4", "r5"]);
        assert_eq!(
            p.kept(Keep::Recent).count(),
            1,
            "r1: beyond keep, but young"
        );
        let p = plan(items.clone(), limits(100, 0), now());
        assert!(removed(&p).is_empty(), "nothing is that old");
    }

    #[test]
    fn keep_zero_removes_everything_past_the_age_and_age_zero_everything_past_keep() {
        let items = runs(&[1, 3, 20, 30]);
        assert_eq!(
            removed(&plan(items.clone(), limits(14, 0), now())),
            ["r2", "r3"]
        );
        assert_eq!(
            removed(&plan(items.clone(), limits(0, 2), now())),
            ["r2", "r3"]
        );
        assert_eq!(
            removed(&plan(items.clone(), limits(0, 0), now())),
            ["r0", "r1", "r2", "r3"]
        );
        assert_eq!(removed(&plan(items, limits(0, 100), now())).len(), 0);
    }

    #[test]
    fn an_item_exactly_at_the_age_or_from_the_future_is_not_older() {
        let mut items = runs(&[14, -3]);
        items[0].time = now() - jiff::SignedDuration::from_secs(14 * DAY);
        let p = plan(items, limits(14, 0), now());
        assert!(removed(&p).is_empty(), "{p:?}");
        let p = plan(runs(&[-3]), limits(0, 0), now());
        assert!(removed(&p).is_empty(), "a clock ahead is no age");
    }

    #[test]
    fn each_kind_has_its_own_newest_keep_whatever_the_input_order() {
        let mut items = vec![
            item(Category::Archives, "a-old", 90),
            item(Category::Rejected, "x-old", 60),
            item(Category::Runs, "r-old", 30),
            item(Category::Archives, "a-new", 80),
            item(Category::Rejected, "x-new", 50),
            item(Category::Runs, "r-new", 20),
        ];
        let p = plan(items.clone(), limits(14, 1), now());
        assert_eq!(removed(&p), ["r-old", "x-old", "a-old"]);
        items.reverse();
        assert_eq!(plan(items, limits(14, 1), now()), p);
    }

    #[test]
    fn ties_in_time_are_broken_by_path() {
        let items = vec![item(Category::Runs, "b", 30), item(Category::Runs, "a", 30)];
        assert_eq!(removed(&plan(items, limits(14, 1), now())), ["b"]);
    }

    #[test]
    fn the_current_run_and_tracked_archives_always_stay() {
        let mut items = runs(&[30, 40]);
        items[1].current = true;
        let mut a = item(Category::Archives, "archive/2020-01-01-x", 300);
        a.tracked = true;
        items.push(a);
        let p = plan(items, limits(0, 0), now());
        assert_eq!(removed(&p), ["r0"]);
        assert_eq!(p.kept(Keep::Current).count(), 1);
        let tracked: Vec<_> = p.kept(Keep::Tracked).collect();
        assert_eq!(tracked.len(), 1);
        assert_eq!(tracked[0].path, PathBuf::from("archive/2020-01-01-x"));
        // A young tracked archive is kept for being young: nothing to say about git.
        let mut young = item(Category::Archives, "archive/new", 1);
        young.tracked = true;
        let p = plan(vec![young], limits(14, 0), now());
        assert_eq!(p.kept(Keep::Recent).count(), 1);
    }

    #[test]
    fn nothing_in_nothing_out() {
        assert_eq!(plan(vec![], limits(0, 0), now()), Plan::default());
    }

    #[test]
    fn summaries_count_each_kind_in_words_with_the_size() {
        let items = [
            item(Category::Runs, "a", 1),
            item(Category::Runs, "b", 1),
            item(Category::Runs, "c", 1),
            item(Category::Rejected, "d", 1),
        ];
        assert_eq!(
            summary(&items, "old ").unwrap(),
            "3 old run folders and 1 rejected copy (4.0 KB)"
        );
        let all = [
            item(Category::Runs, "a", 1),
            item(Category::Rejected, "d", 1),
            item(Category::Archives, "e", 1),
            item(Category::Archives, "f", 1),
        ];
        assert_eq!(
            summary(&all, "").unwrap(),
            "1 run folder, 1 rejected copy and 2 archives (4.0 KB)"
        );
        assert_eq!(summary(&[], ""), None);
    }

    #[test]
    fn sizes_and_ages_read_as_a_person_writes_them() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(999), "999 bytes");
        assert_eq!(human_bytes(12_400_000), "12.4 MB");
        assert_eq!(human_bytes(3_000_000_000), "3.0 GB");
        assert_eq!(format_age(Duration::from_secs(14 * 86_400)), "14d");
        assert_eq!(format_age(Duration::from_secs(36 * 3600)), "36h");
        assert_eq!(format_age(Duration::from_secs(90 * 60)), "90m");
        assert_eq!(format_age(Duration::from_secs(61)), "61s");
        assert_eq!(format_age(Duration::ZERO), "0");
    }
}
