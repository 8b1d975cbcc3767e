//! What an agent changed in its worktree's prd.json besides its own `passes`, carried over to
//! the main tree's at the merge (specs/parallel.md, section 4, step 4): `notes` edits, on a
//! story whose notes on the tip are still what the story's base had (else someone changed them
//! meanwhile: the tip's stay); and discovered stories (`discoveredFrom`), whose id is still free
//! on the tip, never passing. Everything else the agent might have changed was already put back
//! by the integrity guard in its worktree. Pure: prd values in, a [`Plan`] out; the queue
//! applies it byte-preservingly and keeps what it could not carry.

use std::collections::HashMap;

use serde_json::Value;

/// What to carry over, and what not (with why).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Plan {
    /// (story id, its new notes).
    pub notes: Vec<(String, String)>,
    /// Indexes into the head's stories of the discovered stories to append.
    pub discovered: Vec<usize>,
    /// What is not carried over, in words.
    pub left: Vec<String>,
}

fn stories(v: &Value) -> &[Value] {
    v.get("userStories")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn by_id(v: &Value) -> HashMap<&str, &Value> {
    stories(v)
        .iter()
        .filter_map(|s| Some((s.get("id")?.as_str()?, s)))
        .collect()
}

fn notes(s: &Value) -> &str {
    s.get("notes").and_then(Value::as_str).unwrap_or("")
}

/// The plan for a story branch whose prd.json went from `base` to `head`, merged onto `tip`
/// (the three canonical prd values).
pub(super) fn plan(base: &Value, head: &Value, tip: &Value) -> Plan {
    let (base_ids, tip_ids) = (by_id(base), by_id(tip));
    let mut p = Plan::default();
    for (i, s) in stories(head).iter().enumerate() {
        let Some(id) = s.get("id").and_then(Value::as_str) else {
            continue;
        };
        match (base_ids.get(id), tip_ids.get(id)) {
            (Some(b), Some(t)) if notes(s) != notes(b) => {
                if notes(t) == notes(b) {
                    p.notes.push((id.to_string(), notes(s).to_string()));
                } else {
                    p.left.push(format!(
                        "the notes of {id} (changed on the branch meanwhile; the branch's are kept)"
                    ));
                }
            }
            (None, None) if s.get("discoveredFrom").and_then(Value::as_str).is_some() => {
                p.discovered.push(i);
            }
            (None, Some(_)) => p.left.push(format!(
                "the discovered story {id} (that id is taken on the branch by now)"
            )),
            _ => {}
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prd(stories: Value) -> Value {
        json!({"branchName": "b", "userStories": stories})
    }

    #[test]
    fn notes_and_discovered_stories_carry_over_unless_the_tip_moved_on() {
        let base = prd(json!([
            {"id": "A", "notes": ""}, {"id": "B", "notes": "b0"}, {"id": "C", "notes": "c0"}
        ]));
        let head = prd(json!([
            {"id": "A", "notes": "a1"}, {"id": "B", "notes": "b1"}, {"id": "C", "notes": "c0"},
            {"id": "D", "discoveredFrom": "A"}, {"id": "E", "discoveredFrom": "A"},
            {"id": "F"}
        ]));
        // Meanwhile another story's merge changed B's notes and added an E of its own.
        let tip = prd(json!([
            {"id": "A", "notes": ""}, {"id": "B", "notes": "b2"}, {"id": "C", "notes": "c0"},
            {"id": "E", "discoveredFrom": "C"}
        ]));
        let p = plan(&base, &head, &tip);
        assert_eq!(p.notes, [("A".to_string(), "a1".to_string())]);
        assert_eq!(p.discovered, [3]);
        assert_eq!(p.left.len(), 2, "{:?}", p.left);
        assert!(p.left[0].contains("notes of B"), "{:?}", p.left);
        assert!(p.left[1].contains("story E"), "{:?}", p.left);
        assert_eq!(plan(&base, &base, &tip), Plan::default());
    }
}
