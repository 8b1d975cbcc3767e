//! The `blockedBy` dependency graph: cycles, readiness and the choice of the next story.
//!
//! Owns dependency policy as pure functions over [`Story`] views; reads and writes nothing.
//! Rendering (dot, mermaid) is in `render`; selection in `select`.

pub mod render;
pub mod select;

use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::FxHashMap;
use std::collections::{HashMap, VecDeque};

use crate::prd::Story;

pub use select::{Blocker, State, next_ready, states};

/// A story as a graph node: an id and the ids it is blocked by.
pub trait DepNode {
    fn node_id(&self) -> &str;
    fn node_deps(&self) -> impl Iterator<Item = &str>;
}

impl DepNode for Story {
    fn node_id(&self) -> &str {
        &self.id
    }
    fn node_deps(&self) -> impl Iterator<Item = &str> {
        self.blocked_by.iter().map(String::as_str)
    }
}

impl DepNode for crate::prd::StoryRef<'_> {
    fn node_id(&self) -> &str {
        self.id_str()
    }
    fn node_deps(&self) -> impl Iterator<Item = &str> {
        self.blocked_by.iter().copied()
    }
}

/// The graph of stories (nodes, by index into the slice) and "is blocked by" edges.
/// Only references to known ids become edges; the first story with an id wins.
pub struct DepGraph {
    graph: DiGraph<usize, ()>,
}

impl DepGraph {
    pub fn new<N: DepNode>(stories: &[N]) -> DepGraph {
        let mut by_id: FxHashMap<&str, usize> = FxHashMap::default();
        by_id.reserve(stories.len());
        for (i, s) in stories.iter().enumerate() {
            by_id.entry(s.node_id()).or_insert(i);
        }
        let mut graph = DiGraph::with_capacity(stories.len(), stories.len());
        for i in 0..stories.len() {
            graph.add_node(i);
        }
        for (i, s) in stories.iter().enumerate() {
            for dep in s.node_deps() {
                if let Some(&j) = by_id.get(dep)
                    && j != i
                {
                    graph.update_edge(NodeIndex::new(i), NodeIndex::new(j), ());
                }
            }
        }
        DepGraph { graph }
    }

    /// One cycle per strongly connected group of two or more stories, as story indices starting
    /// at the group's first story in file order (the closing edge back to it is implied).
    /// Self-dependencies are not cycles here; validation reports them on their own.
    pub fn cycles(&self) -> Vec<Vec<usize>> {
        let mut out: Vec<Vec<usize>> = petgraph::algo::tarjan_scc(&self.graph)
            .into_iter()
            .filter(|scc| scc.len() > 1)
            .map(|scc| {
                let start = scc.iter().map(|n| n.index()).min().unwrap_or(0);
                let members: std::collections::HashSet<usize> =
                    scc.iter().map(|n| n.index()).collect();
                self.shortest_cycle_through(start, &members)
            })
            .collect();
        out.sort();
        out
    }

    /// Breadth-first search from `start` back to itself inside one strongly connected group.
    fn shortest_cycle_through(
        &self,
        start: usize,
        members: &std::collections::HashSet<usize>,
    ) -> Vec<usize> {
        let mut parent: HashMap<usize, usize> = HashMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(u) = queue.pop_front() {
            // Visit neighbours in file order so the reported path is deterministic.
            let mut next: Vec<usize> = self
                .graph
                .neighbors(NodeIndex::new(u))
                .map(|n| n.index())
                .filter(|v| members.contains(v))
                .collect();
            next.sort_unstable();
            for v in next {
                if v == start {
                    let mut path = vec![u];
                    let mut cur = u;
                    while let Some(&p) = parent.get(&cur) {
                        path.push(p);
                        cur = p;
                    }
                    path.reverse();
                    return path;
                }
                if v != start && !parent.contains_key(&v) {
                    parent.insert(v, u);
                    queue.push_back(v);
                }
            }
        }
        vec![start] // unreachable for a real strongly connected group
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn s(id: &str, deps: &[&str]) -> Story {
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
        }
    }

    pub fn indexed(mut v: Vec<Story>) -> Vec<Story> {
        for (i, s) in v.iter_mut().enumerate() {
            s.index = i;
        }
        v
    }

    #[test]
    fn finds_shortest_cycle_in_a_tangle_once() {
        // A→B→C→A and B→A: one group, reported once, shortest path through A.
        let v = indexed(vec![s("A", &["B"]), s("B", &["C", "A"]), s("C", &["A"])]);
        assert_eq!(DepGraph::new(&v).cycles(), vec![vec![0, 1]]);
    }

    #[test]
    fn dag_has_no_cycles() {
        let v = indexed(vec![
            s("A", &[]),
            s("B", &["A"]),
            s("C", &["A", "B"]),
            s("D", &["D"]),
        ]);
        assert!(DepGraph::new(&v).cycles().is_empty());
    }
}
