//! The `blockedBy` dependency policy: readiness and the choice of the next story.
//!
//! Owns dependency policy as pure functions over [`crate::prd::Story`] values; reads and writes
//! nothing. Rendering (dot, mermaid) is in `render`; selection in `select`. Cycles are found when
//! prd.json is validated ([`crate::dag`]), so the policy here may assume there are none.

pub(crate) mod render;
pub(crate) mod select;

pub(crate) use select::{State, next_ready, ready_in_order, states};

#[cfg(test)]
pub(crate) mod tests {
    use crate::prd::Story;

    pub(crate) fn s(id: &str, deps: &[&str]) -> Story {
        Story {
            index: 0,
            id: id.into(),
            title: format!("title of {id}"),
            description: String::new(),
            acceptance_criteria: vec![],
            priority: 1,
            passes: false,
            notes: String::new(),
            blocked_by: deps.iter().map(|d| d.to_string()).collect(),
            removed: false,
            discovered_from: None,
            verify: vec![],
            red_green: None,
        }
    }

    pub(crate) fn indexed(mut v: Vec<Story>) -> Vec<Story> {
        for (i, s) in v.iter_mut().enumerate() {
            s.index = i;
        }
        v
    }
}
