//! The integrity guard as pure policy: what an agent may change in prd.json during an iteration.
//!
//! Allowed: `notes` of existing stories, `passes` false→true on the current story only,
//! `passes` true→false on any story, and new stories that carry `discoveredFrom` (and do not
//! pass yet). A false→true flip on another story, or a new story that arrives passing, is a
//! violation of that one field: the loop sets it back to false and keeps the rest. Everything
//! else (removing or reordering stories, editing titles, criteria, priorities, dependencies,
//! top-level fields) is a violation, and only what breaks a rule is reverted: [`repair`] starts
//! from the copy taken before the iteration and re-applies everything allowed (the legitimate
//! `passes` flips, `notes`, discovered stories). progress.txt has one rule
//! ([`progress_kept`]): what was there before is still there, in order; [`progress_added`] is
//! the agent's new text, kept when the file is restored. Reading and writing the files is the
//! loop's job ([`super::repair`]).

use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// One thing the agent changed that it must not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Violation {
    /// The file is gone.
    Deleted,
    /// Something that is not a regular file took its place (a directory, FIFO, device, a
    /// symlink): moved aside, the file restored.
    NotRegular(&'static str),
    /// The file no longer parses or validates (the first diagnostic).
    Invalid(String),
    TopLevelChanged(String),
    StoryRemoved(String),
    StoryChanged {
        id: String,
        field: String,
    },
    StoriesReordered,
    /// A new story without `discoveredFrom`.
    UndeclaredNewStory(String),
    /// `passes` went false→true on a story other than the one being worked on.
    OtherStoryPassed(String),
    /// A new (discovered) story arrived with `passes: true`.
    NewStoryPassing(String),
}

impl Violation {
    /// A violation repaired by setting that story's `passes` back to false (the rest of the
    /// agent's edit stays).
    pub(crate) fn passes_only(&self) -> Option<&str> {
        match self {
            Violation::OtherStoryPassed(id) | Violation::NewStoryPassing(id) => Some(id),
            _ => None,
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::Deleted => write!(f, "prd.json was deleted"),
            Violation::NotRegular(kind) => write!(f, "prd.json was replaced by {kind}"),
            Violation::Invalid(why) => write!(f, "prd.json became invalid: {why}"),
            Violation::TopLevelChanged(k) => write!(f, "top-level field \"{k}\" was changed"),
            Violation::StoryRemoved(id) => write!(f, "story {id} was removed"),
            Violation::StoryChanged { id, field } => {
                write!(f, "field \"{field}\" of story {id} was changed")
            }
            Violation::StoriesReordered => write!(f, "existing stories were reordered"),
            Violation::UndeclaredNewStory(id) => {
                write!(f, "new story {id} has no \"discoveredFrom\"")
            }
            Violation::OtherStoryPassed(id) => write!(
                f,
                "story {id} was marked passing, but only the current story may be"
            ),
            Violation::NewStoryPassing(id) => {
                write!(f, "new story {id} was added already passing")
            }
        }
    }
}

/// Fields an agent may edit on an existing story.
pub(crate) const AGENT_FIELDS: &[&str] = &["passes", "notes"];

fn stories(v: &Value) -> &[Value] {
    v.get("userStories")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn id_of(v: &Value) -> &str {
    v.get("id").and_then(Value::as_str).unwrap_or("")
}

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

fn obj(v: &Value) -> &Map<String, Value> {
    v.as_object().unwrap_or(&EMPTY)
}

fn passes(v: &Value) -> bool {
    v.get("passes").and_then(Value::as_bool).unwrap_or(false)
}

/// Every violation between the prd value before and after an iteration (both parsed) that
/// worked on story `current`.
pub(crate) fn check(before: &Value, after: &Value, current: &str) -> Vec<Violation> {
    let mut out = Vec::new();
    let (b, a) = (obj(before), obj(after));
    let keys: HashSet<&String> = b.keys().chain(a.keys()).collect();
    let mut keys: Vec<&String> = keys.into_iter().filter(|k| *k != "userStories").collect();
    keys.sort();
    for k in keys {
        if b.get(k) != a.get(k) {
            out.push(Violation::TopLevelChanged(k.clone()));
        }
    }
    let after_by_id: HashMap<&str, &Value> = stories(after).iter().map(|s| (id_of(s), s)).collect();
    let before_ids: HashSet<&str> = stories(before).iter().map(id_of).collect();
    for s in stories(before) {
        let id = id_of(s);
        let Some(new) = after_by_id.get(id) else {
            out.push(Violation::StoryRemoved(id.to_string()));
            continue;
        };
        if id != current && !passes(s) && passes(new) {
            out.push(Violation::OtherStoryPassed(id.to_string()));
        }
        out.extend(changed_fields(id, s, new));
    }
    let kept_order: Vec<&str> = stories(after)
        .iter()
        .map(id_of)
        .filter(|id| before_ids.contains(id))
        .collect();
    let before_order: Vec<&str> = stories(before)
        .iter()
        .map(id_of)
        .filter(|id| after_by_id.contains_key(id))
        .collect();
    if kept_order != before_order {
        out.push(Violation::StoriesReordered);
    }
    for s in stories(after) {
        let id = id_of(s);
        if before_ids.contains(id) {
            continue;
        }
        if s.get("discoveredFrom").and_then(Value::as_str).is_none() {
            out.push(Violation::UndeclaredNewStory(id.to_string()));
        } else if passes(s) {
            out.push(Violation::NewStoryPassing(id.to_string()));
        }
    }
    out
}

/// The fields of story `id` other than the agent's own that differ between `before` and
/// `after`, sorted.
fn changed_fields(id: &str, before: &Value, after: &Value) -> Vec<Violation> {
    let (so, no) = (obj(before), obj(after));
    let fields: HashSet<&String> = so.keys().chain(no.keys()).collect();
    let mut fields: Vec<&String> = fields
        .into_iter()
        .filter(|f| !AGENT_FIELDS.contains(&f.as_str()))
        .collect();
    fields.sort();
    fields
        .into_iter()
        .filter(|f| so.get(*f) != no.get(*f))
        .map(|f| Violation::StoryChanged {
            id: id.to_string(),
            field: f.clone(),
        })
        .collect()
}

/// The legitimate `passes` changes the agent made on stories that existed before: (id, new
/// value). A false→true flip counts only on `current`; true→false on any story.
pub(crate) fn passes_flips(before: &Value, after: &Value, current: &str) -> Vec<(String, bool)> {
    let after_by_id: HashMap<&str, &Value> = stories(after).iter().map(|s| (id_of(s), s)).collect();
    stories(before)
        .iter()
        .filter_map(|s| {
            let id = id_of(s);
            let old = s.get("passes").and_then(Value::as_bool).unwrap_or(false);
            let new = after_by_id
                .get(id)?
                .get("passes")
                .and_then(Value::as_bool)?;
            (old != new && (!new || id == current)).then(|| (id.to_string(), new))
        })
        .collect()
}

/// The prd value to keep after an iteration that broke a rule: the copy from before it, with
/// everything the agent was allowed to do re-applied (legitimate `passes` flips, `notes` of
/// existing stories, new stories with `discoveredFrom`, which never arrive passing).
pub(crate) fn repair(before: &Value, after: &Value, current: &str) -> Value {
    let mut out = before.clone();
    let flips: HashMap<String, bool> = passes_flips(before, after, current).into_iter().collect();
    let after_by_id: HashMap<&str, &Value> = stories(after).iter().map(|s| (id_of(s), s)).collect();
    let before_ids: HashSet<&str> = stories(before).iter().map(id_of).collect();
    let discovered: Vec<Value> = stories(after)
        .iter()
        .filter(|s| !before_ids.contains(id_of(s)))
        .filter(|s| s.get("discoveredFrom").and_then(Value::as_str).is_some())
        .map(|s| {
            let mut s = s.clone();
            if let Some(o) = s.as_object_mut()
                && o.get("passes").and_then(Value::as_bool) == Some(true)
            {
                o.insert("passes".into(), Value::Bool(false));
            }
            s
        })
        .collect();
    let Some(arr) = out.get_mut("userStories").and_then(Value::as_array_mut) else {
        return out;
    };
    for s in arr.iter_mut() {
        let id = id_of(s).to_string();
        let (Some(new), Some(o)) = (after_by_id.get(id.as_str()), s.as_object_mut()) else {
            continue;
        };
        if let Some(p) = flips.get(&id) {
            o.insert("passes".into(), Value::Bool(*p));
        }
        if let Some(n) = new.get("notes").filter(|n| n.is_string()) {
            o.insert("notes".into(), n.clone());
        }
    }
    arr.extend(discovered);
    out
}

/// The lines of `b` without terminators: progress.txt's own line splitting.
fn lines(b: &[u8]) -> impl Iterator<Item = &[u8]> {
    crate::progress::parse::lines(b).map(crate::progress::parse::content)
}

/// progress.txt's rule: every line that was there before the iteration is still there, in the
/// same order (appended entries and inserted patterns are fine; truncating, rewriting or
/// dropping a section is not).
pub(crate) fn progress_kept(before: &[u8], after: &[u8]) -> bool {
    let mut after_lines = lines(after);
    lines(before).all(|want| after_lines.any(|l| l == want))
}

/// The agent's new text in a progress.txt that broke the rule: the lines it inserted (by a
/// line diff against the copy from before), in order, to be appended to the restored copy.
pub fn progress_added(before: &[u8], after: &[u8]) -> Vec<u8> {
    let (b, a) = (
        String::from_utf8_lossy(before),
        String::from_utf8_lossy(after),
    );
    let diff = similar::TextDiff::from_lines(b.as_ref(), a.as_ref());
    let mut out = String::new();
    for change in diff.iter_all_changes() {
        if change.tag() == similar::ChangeTag::Insert {
            out.push_str(change.value());
            if !change.value().ends_with('\n') {
                out.push('\n');
            }
        }
    }
    if out.trim().is_empty() {
        return vec![];
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repair_reverts_only_what_breaks_a_rule() {
        let before = prd();
        let mut after = prd();
        after["userStories"][0]["passes"] = json!(true);
        after["userStories"][0]["notes"] = json!("done via X");
        after["userStories"][1]["title"] = json!("easier");
        after["branchName"] = json!("main");
        after["userStories"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "C", "title": "c", "discoveredFrom": "A", "passes": true}));
        let fixed = repair(&before, &after, "A");
        let mut want = prd();
        want["userStories"][0]["passes"] = json!(true);
        want["userStories"][0]["notes"] = json!("done via X");
        want["userStories"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "C", "title": "c", "discoveredFrom": "A", "passes": false}));
        assert_eq!(fixed, want);
        assert!(check(&before, &fixed, "A").is_empty());
        // An undeclared new story is dropped with the rest.
        let mut sneaky = prd();
        sneaky["userStories"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "D", "title": "d"}));
        assert_eq!(repair(&before, &sneaky, "A"), prd());
    }

    #[test]
    fn progress_may_grow_but_not_lose_a_line() {
        let before = b"# Log\n## Codebase Patterns\n- use X\n---\n## e1\n- did a\n---\n";
        let appended = [&before[..], b"## e2\n- did b\n---\n"].concat();
        assert!(progress_kept(before, &appended));
        let pattern = b"# Log\n## Codebase Patterns\n- use X\n- use Y\n---\n## e1\n- did a\n---\n";
        assert!(progress_kept(before, pattern));
        assert!(progress_kept(b"", b"anything"));
        assert!(progress_kept(b"a\r\nb\r\n", b"a\nb\nc\n"));
        let truncated = b"# Log\n";
        assert!(!progress_kept(before, truncated));
        let no_patterns = b"# Log\n---\n## e1\n- did a\n---\n## e2\n";
        assert!(!progress_kept(before, no_patterns));
        assert_eq!(progress_added(before, no_patterns), b"## e2\n");
        assert!(progress_added(before, truncated).is_empty());
        let rewritten = b"everything is fine\n";
        assert_eq!(progress_added(before, rewritten), b"everything is fine\n");
    }

    fn prd() -> Value {
        json!({"project": "p", "branchName": "ralph/x", "userStories": [
            {"id": "A", "title": "a", "priority": 1, "passes": false, "notes": ""},
            {"id": "B", "title": "b", "priority": 2, "passes": false, "notes": "", "blockedBy": ["A"]}
        ]})
    }

    #[test]
    fn passes_and_notes_edits_are_allowed() {
        let before = prd();
        let mut after = prd();
        after["userStories"][0]["passes"] = json!(true);
        after["userStories"][1]["notes"] = json!("learned something");
        assert!(check(&before, &after, "A").is_empty());
        assert_eq!(
            passes_flips(&before, &after, "A"),
            [("A".to_string(), true)]
        );
    }

    #[test]
    fn discovered_stories_may_be_added_but_not_undeclared_ones() {
        let before = prd();
        let mut after = prd();
        let arr = after["userStories"].as_array_mut().unwrap();
        arr.push(json!({"id": "C", "title": "c", "discoveredFrom": "A"}));
        assert!(check(&before, &after, "A").is_empty());
        after["userStories"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "D", "title": "d"}));
        assert_eq!(
            check(&before, &after, "A"),
            [Violation::UndeclaredNewStory("D".into())]
        );
    }

    #[test]
    fn every_other_change_is_a_violation() {
        let before = prd();
        let mut after = prd();
        after["branchName"] = json!("main");
        after["userStories"][1]["blockedBy"] = json!([]);
        after["userStories"][0]["title"] = json!("easier");
        after["userStories"][0]["passes"] = json!(true);
        let v = check(&before, &after, "A");
        assert_eq!(
            v,
            [
                Violation::TopLevelChanged("branchName".into()),
                Violation::StoryChanged {
                    id: "A".into(),
                    field: "title".into()
                },
                Violation::StoryChanged {
                    id: "B".into(),
                    field: "blockedBy".into()
                },
            ]
        );
        // The legitimate flip is still reported, to be re-applied on the restored copy.
        assert_eq!(
            passes_flips(&before, &after, "A"),
            [("A".to_string(), true)]
        );
    }

    #[test]
    fn only_the_current_story_may_start_passing() {
        let mut before = prd();
        before["userStories"][1]["passes"] = json!(true);
        let mut after = before.clone();
        after["userStories"][0]["passes"] = json!(true);
        after["userStories"][1]["passes"] = json!(false);
        // Working on B: A's false→true is a violation; B's true→false is fine.
        assert_eq!(
            check(&before, &after, "B"),
            [Violation::OtherStoryPassed("A".into())]
        );
        assert_eq!(
            passes_flips(&before, &after, "B"),
            [("B".to_string(), false)]
        );
        // Working on A: both are legitimate.
        assert!(check(&before, &after, "A").is_empty());
        assert_eq!(passes_flips(&before, &after, "A").len(), 2);
    }

    #[test]
    fn discovered_story_may_not_arrive_passing() {
        let before = prd();
        let mut after = prd();
        after["userStories"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "C", "title": "c", "discoveredFrom": "A", "passes": true}));
        let v = check(&before, &after, "A");
        assert_eq!(v, [Violation::NewStoryPassing("C".into())]);
        assert_eq!(v[0].passes_only(), Some("C"));
    }

    #[test]
    fn removal_and_reordering_are_violations() {
        let before = prd();
        let mut after = prd();
        after["userStories"].as_array_mut().unwrap().remove(0);
        assert_eq!(
            check(&before, &after, "A"),
            [Violation::StoryRemoved("A".into())]
        );
        let mut swapped = prd();
        swapped["userStories"].as_array_mut().unwrap().swap(0, 1);
        assert_eq!(check(&before, &swapped, "A"), [Violation::StoriesReordered]);
        assert!(check(&before, &before, "A").is_empty());
    }
}
