//! The borrowed, dependency-only view of a story ([`StoryRef`]) and of every story in a prd value
//! ([`story_refs`]): what validation, its reference checks and the graph read.
//!
//! A leaf: imports nothing of [`crate::prd`], so `validate.rs` and `refs.rs` share it without
//! going through `mod.rs` (which imports them).

use serde_json::Value;

/// A borrowed, dependency-only view of a story: what validation and the graph need, without
/// copying titles and criteria (validating 10k stories stays cheap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoryRef<'a> {
    pub index: usize,
    /// `None` when `id` is missing or not a string (the schema reports it).
    pub id: Option<&'a str>,
    pub passes: bool,
    pub removed: bool,
    pub blocked_by: Vec<&'a str>,
    pub discovered_from: Option<&'a str>,
}

impl<'a> StoryRef<'a> {
    pub(crate) fn from_value(index: usize, v: &'a Value) -> StoryRef<'a> {
        StoryRef {
            index,
            id: v.get("id").and_then(Value::as_str),
            passes: v.get("passes").and_then(Value::as_bool).unwrap_or(false),
            removed: v.get("status").and_then(Value::as_str) == Some("removed"),
            blocked_by: v
                .get("blockedBy")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default(),
            discovered_from: v.get("discoveredFrom").and_then(Value::as_str),
        }
    }

    /// The id, or "" when it is missing.
    pub(crate) fn id_str(&self) -> &'a str {
        self.id.unwrap_or("")
    }
}

impl crate::dag::DepNode for StoryRef<'_> {
    fn node_id(&self) -> &str {
        self.id_str()
    }
    fn node_deps(&self) -> impl Iterator<Item = &str> {
        self.blocked_by.iter().copied()
    }
}

/// The `userStories` entries of a prd value (empty when it is not an array).
pub(super) fn story_values(value: &Value) -> &[Value] {
    value
        .get("userStories")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The borrowed views of every story in a prd value.
pub(crate) fn story_refs(value: &Value) -> Vec<StoryRef<'_>> {
    story_values(value)
        .iter()
        .enumerate()
        .map(|(i, v)| StoryRef::from_value(i, v))
        .collect()
}
