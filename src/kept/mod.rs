//! The work ralph keeps in git so that nothing an agent did is lost: story branches
//! (`<branchName>--<key>`), attempt refs (`refs/ralph/attempts/<story-branch>/<n>`) and the
//! worktrees of parallel runs under `.ralph/worktrees/`.
//!
//! This file is the pure side: the names (story keys, story branches, attempt refs), which
//! story a ref belongs to, and what `ralph clean` does with each ref ([`decide`]: a ref whose
//! commit `branchName` already contains goes, since nothing becomes unreachable; every other one
//! stays, with why, unless the person names it with `--drop`). [`git`] is the I/O: saving what a
//! worktree holds before it goes, listing, keeping and deleting refs. Does not decide when a
//! worktree is made, resumed or merged (`crate::run::parallel`).

pub(crate) mod git;

use std::collections::{HashMap, HashSet};

use serde::Serialize;

/// Where attempt refs live (not branches: `git branch` does not list them; gc keeps them).
pub(crate) const ATTEMPTS: &str = "refs/ralph/attempts/";

/// Whether `id` can be used as it is in a file name and a ref name.
fn plain(id: &str) -> bool {
    let mut chars = id.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    first_ok
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !id.contains("..")
        && !id.ends_with('.')
        && !id.ends_with(".lock")
}

/// FNV-1a, 32 bits: stable across releases and machines (unlike `DefaultHasher`).
fn fnv1a32(s: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// `<slug>-<8 hex digits>`: the key of an id that is not [`plain`].
fn hashed(id: &str) -> String {
    let mut slug: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    slug.truncate(40);
    if slug.is_empty() {
        slug.push_str("story");
    }
    format!("{slug}-{:08x}", fnv1a32(id))
}

/// Each story's key (same order as `ids`): the id itself when it is safe in a path and a ref,
/// otherwise (or when two keys would be equal ignoring case) a slug and a stable hash.
pub(crate) fn story_keys(ids: &[&str]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for id in ids.iter().filter(|id| plain(id)) {
        *seen.entry(id.to_ascii_lowercase()).or_insert(0) += 1;
    }
    ids.iter()
        .map(|id| {
            if plain(id) && seen.get(&id.to_ascii_lowercase()) == Some(&1) {
                (*id).to_string()
            } else {
                hashed(id)
            }
        })
        .collect()
}

/// The key of a story that arrived after `keys` were made (one an agent discovered): the id
/// when it is [`plain`] and no key in use equals it ignoring case, else its hashed form. The
/// keys in use never change.
pub(crate) fn key_for_new<'a>(id: &str, keys: impl IntoIterator<Item = &'a String>) -> String {
    let taken = keys.into_iter().any(|k| k.eq_ignore_ascii_case(id));
    if plain(id) && !taken {
        id.to_string()
    } else {
        hashed(id)
    }
}

/// The story branch: `<branchName>--<key>` (never clashes with `branchName` or its parents).
pub(crate) fn story_branch(branch: &str, key: &str) -> String {
    format!("{branch}--{key}")
}

/// The prefix of a story branch's attempt refs: `refs/ralph/attempts/<story-branch>/`.
pub(crate) fn attempt_prefix(story_branch: &str) -> String {
    format!("{ATTEMPTS}{story_branch}/")
}

/// What kind of ref holds kept work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    /// `refs/heads/<branchName>--<key>`: where a story's agent works; the next run resumes it.
    StoryBranch,
    /// `refs/ralph/attempts/<story-branch>/<n>`: an attempt sent back, or work kept when it
    /// could not be resumed.
    Attempt,
}

/// One ref that holds (or held) a story's work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Kept {
    /// The full ref name.
    #[serde(rename = "ref")]
    pub name: String,
    pub kind: Kind,
    pub commit: String,
    /// The subject of that commit.
    pub subject: String,
    /// The story it belongs to, when its name says (a story branch of this `branchName`).
    pub story: Option<String>,
    /// Commits on it that `branchName` does not contain (0: merged, nothing to lose).
    pub ahead: usize,
}

impl Kept {
    /// The name a person types: the branch's short name, or the full attempt ref.
    pub(crate) fn short(&self) -> &str {
        self.name.strip_prefix("refs/heads/").unwrap_or(&self.name)
    }
}

/// The story a ref name belongs to: `refs/heads/<branch>--<key>` or
/// `refs/ralph/attempts/<branch>--<key>/<n>`, `key` one of `keys` (key → story id).
pub(crate) fn story_of(name: &str, branch: &str, keys: &HashMap<String, String>) -> Option<String> {
    let sb = match name.strip_prefix(ATTEMPTS) {
        Some(rest) => rest.rsplit_once('/')?.0,
        None => name.strip_prefix("refs/heads/")?,
    };
    let key = sb.strip_prefix(branch)?.strip_prefix("--")?;
    keys.get(key).cloned()
}

/// Why `ralph clean` keeps a ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Why {
    /// A story branch of an unfinished story: the next `ralph run` resumes it.
    Resume,
    /// A story branch whose story passes, but whose commits `branchName` lacks (it landed
    /// another way, or by hand).
    Unlanded,
    /// An earlier attempt (sent back, or kept when it could not be resumed).
    Attempt,
    /// A story branch or attempt of another `branchName`, or of a story not in prd.json.
    Other,
}

impl Why {
    /// The reason in words, for the ref `k` of `branch`.
    pub(crate) fn text(self, k: &Kept, branch: &str) -> String {
        let story = k.story.as_deref().unwrap_or("?");
        let n = k.ahead;
        match self {
            Why::Resume => format!(
                "{n} commit(s) of {story} not on {branch}; the next `ralph run` resumes the story from them"
            ),
            Why::Unlanded => format!(
                "{n} commit(s) not on {branch}, though {story} passes there; see them with `git log {branch}..{}`",
                k.short()
            ),
            Why::Attempt => match &k.story {
                Some(s) => format!(
                    "an earlier attempt of {s}, {n} commit(s) not on {branch}; `git diff {branch}...{}` shows it",
                    k.short()
                ),
                None => format!("an earlier attempt, {n} commit(s) not on {branch}"),
            },
            Why::Other => format!(
                "{n} commit(s) not on {branch}, of another branch or a story not in prd.json"
            ),
        }
    }
}

/// What `ralph clean` does with one ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    /// `branchName` contains its commit: deleting it loses nothing.
    Delete,
    /// Unmerged work, kept.
    Keep(Why),
    /// Unmerged, but the person named it (`--drop`).
    Drop,
}

/// Whether `--drop NAME` names `k`: its full ref, its short name, or its story's id (every ref
/// of that story).
pub(crate) fn named(k: &Kept, name: &str) -> bool {
    k.name == name || k.short() == name || k.story.as_deref() == Some(name)
}

/// What to do with each ref (see the module doc). `passing`: the stories that pass on
/// `branchName`; `drop`: the names given to `--drop`.
pub(crate) fn decide(items: &[Kept], passing: &HashSet<String>, drop: &[String]) -> Vec<Fate> {
    items
        .iter()
        .map(|k| {
            if k.ahead == 0 {
                Fate::Delete
            } else if drop.iter().any(|d| named(k, d)) {
                Fate::Drop
            } else {
                Fate::Keep(match (k.kind, &k.story) {
                    (_, None) => Why::Other,
                    (Kind::Attempt, Some(_)) => Why::Attempt,
                    (Kind::StoryBranch, Some(s)) if passing.contains(s) => Why::Unlanded,
                    (Kind::StoryBranch, Some(_)) => Why::Resume,
                })
            }
        })
        .collect()
}

/// The `--drop` names that match no ref.
pub(crate) fn unmatched<'a>(items: &[Kept], drop: &'a [String]) -> Vec<&'a str> {
    drop.iter()
        .filter(|d| !items.iter().any(|k| named(k, d)))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_id_when_safe_and_a_stable_hash_otherwise() {
        let k = story_keys(&[
            "US-001", "a b/c", "x..y", "ok.lock", "Dup", "dup", ".hidden",
        ]);
        assert_eq!(k[0], "US-001");
        assert_eq!(k[1], format!("a-b-c-{:08x}", fnv1a32("a b/c")));
        assert!(k[2].starts_with("x-y-"));
        assert!(k[3].starts_with("ok-lock-"));
        assert!(k[4].starts_with("Dup-") && k[5].starts_with("dup-"));
        assert_ne!(k[4].to_lowercase(), k[5].to_lowercase());
        assert!(k[6].starts_with("hidden-"));
        // Stable: FNV-1a's published test vector.
        assert_eq!(fnv1a32("a"), 0xe40c_292c);
        for key in &k {
            assert!(plain(key), "{key}");
        }
        assert_eq!(
            story_keys(&["***"])[0],
            format!("story-{:08x}", fnv1a32("***"))
        );
        // A story discovered during the run: its own id, unless a key in use is the same.
        let used = ["US-001".to_string(), "A2".to_string()];
        assert_eq!(key_for_new("B1", &used), "B1");
        assert_eq!(
            key_for_new("a2", &used),
            format!("a2-{:08x}", fnv1a32("a2"))
        );
        assert!(key_for_new("a b", &used).starts_with("a-b-"));
    }

    #[test]
    fn story_branches_sit_beside_the_branch_never_under_it() {
        assert_eq!(story_branch("ralph/ralph", "US-1"), "ralph/ralph--US-1");
        assert_eq!(story_branch("main", "A"), "main--A");
        assert_eq!(
            attempt_prefix("main--A"),
            "refs/ralph/attempts/main--A/".to_string()
        );
    }

    fn kept(name: &str, kind: Kind, story: Option<&str>, ahead: usize) -> Kept {
        Kept {
            name: name.into(),
            kind,
            commit: "c0ffee".into(),
            subject: "s".into(),
            story: story.map(String::from),
            ahead,
        }
    }

    #[test]
    fn refs_name_their_story() {
        let keys: HashMap<String, String> = [("A".to_string(), "A".to_string())].into();
        let of = |n: &str| story_of(n, "ralph/x", &keys);
        assert_eq!(of("refs/heads/ralph/x--A").as_deref(), Some("A"));
        assert_eq!(of("refs/ralph/attempts/ralph/x--A/3").as_deref(), Some("A"));
        assert_eq!(of("refs/heads/ralph/x--B"), None);
        assert_eq!(of("refs/heads/ralph/y--A"), None);
        assert_eq!(of("refs/ralph/attempts/ralph/y--A/1"), None);
    }

    #[test]
    fn clean_deletes_only_what_the_branch_contains_and_drops_only_what_is_named() {
        let items = vec![
            kept("refs/heads/b--A", Kind::StoryBranch, Some("A"), 0),
            kept("refs/heads/b--B", Kind::StoryBranch, Some("B"), 2),
            kept("refs/heads/b--C", Kind::StoryBranch, Some("C"), 1),
            kept("refs/ralph/attempts/b--C/1", Kind::Attempt, Some("C"), 1),
            kept("refs/ralph/attempts/o--C/1", Kind::Attempt, None, 4),
        ];
        let passing: HashSet<String> = ["C".to_string()].into();
        assert_eq!(
            decide(&items, &passing, &[]),
            [
                Fate::Delete,
                Fate::Keep(Why::Resume),
                Fate::Keep(Why::Unlanded),
                Fate::Keep(Why::Attempt),
                Fate::Keep(Why::Other),
            ]
        );
        // By story id: every ref of that story; by short or full name: that one.
        let fates = decide(&items, &passing, &["C".into(), "b--B".into()]);
        assert_eq!(
            fates,
            [
                Fate::Delete,
                Fate::Drop,
                Fate::Drop,
                Fate::Drop,
                Fate::Keep(Why::Other)
            ]
        );
        let fates = decide(&items, &passing, &["refs/ralph/attempts/o--C/1".into()]);
        assert_eq!(fates[4], Fate::Drop);
        assert_eq!(fates[3], Fate::Keep(Why::Attempt));
        assert_eq!(unmatched(&items, &["C".into(), "nope".into()]), ["nope"]);
        let why = Why::Resume.text(&items[1], "b");
        assert!(
            why.contains("2 commit(s) of B") && why.contains("resumes"),
            "{why}"
        );
    }
}
