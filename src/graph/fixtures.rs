//! Stories for the dependency policy's tests: built in a line, indexed in order.

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
