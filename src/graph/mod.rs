//! The `blockedBy` dependency policy: readiness and the choice of the next story.
//!
//! Owns dependency policy as pure functions over [`crate::prd::Story`] values; reads and writes
//! nothing. Rendering (dot, mermaid) is in `render`; selection in `select`. Cycles are found when
//! prd.json is validated ([`crate::dag`]), so the policy here may assume there are none.

pub(crate) mod render;
pub(crate) mod select;

pub(crate) use select::{State, next_ready, ready_in_order, states};

#[cfg(test)]
pub(crate) mod fixtures;
