//! Dependency graphs in the abstract: nodes with ids and the ids they are blocked by, and the
//! cycles among them, for prd.json's validation (`prd::refs`, over its borrowed stories). Generic
//! over [`DepNode`]; owns no story semantics (readiness and selection are [`crate::graph`]'s).

use foldhash::{HashMap, HashMapExt};
use petgraph::graph::{DiGraph, NodeIndex};

/// A node: an id and the ids it is blocked by.
pub(crate) trait DepNode {
    fn node_id(&self) -> &str;
    fn node_deps(&self) -> impl Iterator<Item = &str>;
}

/// The graph of stories (nodes, by index into the slice) and "is blocked by" edges.
/// Only references to known ids become edges; the first story with an id wins.
pub(crate) struct DepGraph {
    graph: DiGraph<usize, ()>,
}

impl DepGraph {
    pub(crate) fn new<N: DepNode>(stories: &[N]) -> DepGraph {
        let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(stories.len());
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

    /// Every elementary cycle among two or more stories (overlapping ones each), as story
    /// indices starting at the cycle's first story in file order (the closing edge back to it is
    /// implied), sorted. Capped at [`MAX_CYCLES`]: a tangle can hold exponentially many.
    /// Self-dependencies are not cycles here; validation reports them on their own.
    pub(crate) fn cycles(&self) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        let mut budget = SEARCH_BUDGET;
        let mut sccs: Vec<Vec<usize>> = petgraph::algo::tarjan_scc(&self.graph)
            .into_iter()
            .filter(|scc| scc.len() > 1)
            .map(|scc| {
                let mut v: Vec<usize> = scc.iter().map(|n| n.index()).collect();
                v.sort_unstable();
                v
            })
            .collect();
        sccs.sort();
        for scc in &sccs {
            let members: std::collections::HashSet<usize> = scc.iter().copied().collect();
            for &start in scc {
                let mut path = vec![start];
                self.cycles_from(start, start, &members, &mut path, &mut out, &mut budget);
            }
        }
        out.sort();
        out.truncate(MAX_CYCLES);
        out
    }

    /// Depth-first: every simple path from `start` back to it through members above `start`.
    fn cycles_from(
        &self,
        start: usize,
        u: usize,
        members: &std::collections::HashSet<usize>,
        path: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
        budget: &mut usize,
    ) {
        let mut next: Vec<usize> = self
            .graph
            .neighbors(NodeIndex::new(u))
            .map(|n| n.index())
            .filter(|v| members.contains(v) && *v >= start)
            .collect();
        next.sort_unstable();
        for v in next {
            if out.len() >= MAX_CYCLES || *budget == 0 {
                return;
            }
            *budget -= 1;
            if v == start {
                out.push(path.clone());
            } else if !path.contains(&v) {
                path.push(v);
                self.cycles_from(start, v, members, path, out, budget);
                path.pop();
            }
        }
    }
}

/// At most this many cycles are reported (each one is an error to fix anyway).
pub(crate) const MAX_CYCLES: usize = 50;
/// Edges the cycle search may follow before it stops looking for more.
const SEARCH_BUDGET: usize = 200_000;

#[cfg(test)]
mod tests {
    use super::*;

    struct N(&'static str, Vec<&'static str>);

    impl DepNode for N {
        fn node_id(&self) -> &str {
            self.0
        }
        fn node_deps(&self) -> impl Iterator<Item = &str> {
            self.1.iter().copied()
        }
    }

    fn s(id: &'static str, deps: &[&'static str]) -> N {
        N(id, deps.to_vec())
    }

    #[test]
    fn overlapping_cycles_are_each_reported() {
        // A→B→C→A and A→B→A share A and B: both are cycles, each reported once.
        let v = vec![s("A", &["B"]), s("B", &["C", "A"]), s("C", &["A"])];
        assert_eq!(DepGraph::new(&v).cycles(), vec![vec![0, 1], vec![0, 1, 2]]);
        // Two cycles through a shared hub D: D→E→D and D→F→D.
        let v = vec![s("D", &["E", "F"]), s("E", &["D"]), s("F", &["D"])];
        assert_eq!(DepGraph::new(&v).cycles(), vec![vec![0, 1], vec![0, 2]]);
    }

    #[test]
    fn a_complete_tangle_is_capped() {
        let ids: Vec<&'static str> = (0..12)
            .map(|i| &*Box::leak(format!("S{i}").into_boxed_str()))
            .collect();
        let v: Vec<N> = ids.iter().map(|id| s(id, &ids)).collect();
        assert_eq!(DepGraph::new(&v).cycles().len(), MAX_CYCLES);
    }

    #[test]
    fn dag_has_no_cycles() {
        let v = vec![
            s("A", &[]),
            s("B", &["A"]),
            s("C", &["A", "B"]),
            s("D", &["D"]),
        ];
        assert!(DepGraph::new(&v).cycles().is_empty());
    }
}
