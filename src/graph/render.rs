//! Rendering the dependency graph as Graphviz dot or Mermaid text. Edges point from a blocker to
//! the story it unblocks (the order work happens in); done stories are styled apart.

use crate::prd::Story;

use super::State;

fn quote_dot(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn mermaid_label(s: &str) -> String {
    s.replace('"', "#quot;")
}

/// Graphviz dot.
pub fn dot(stories: &[Story], states: &[State]) -> String {
    let mut out =
        String::from("digraph prd {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n");
    for (s, st) in stories.iter().zip(states) {
        let style = match st {
            State::Done => ", style=\"rounded,filled\", fillcolor=\"#c8e6c9\"",
            State::Ready => ", color=\"#1565c0\", penwidth=2",
            State::Blocked { .. } => ", color=\"#9e9e9e\"",
            State::Removed => ", style=\"rounded,dashed\", fontcolor=\"#9e9e9e\"",
        };
        out.push_str(&format!(
            "  \"{}\" [label=\"{}\\n{} [{}]\"{style}];\n",
            quote_dot(&s.id),
            quote_dot(&s.id),
            quote_dot(&s.title),
            st.name()
        ));
    }
    for s in stories {
        for dep in &s.blocked_by {
            out.push_str(&format!(
                "  \"{}\" -> \"{}\";\n",
                quote_dot(dep),
                quote_dot(&s.id)
            ));
        }
    }
    out.push_str("}\n");
    out
}

/// Mermaid flowchart. Node names are `s<index>` because story ids may hold any character.
pub fn mermaid(stories: &[Story], states: &[State]) -> String {
    let mut out = String::from("flowchart LR\n");
    let node = |id: &str| {
        stories
            .iter()
            .find(|s| s.id == id)
            .map(|s| format!("s{}", s.index))
    };
    for (s, st) in stories.iter().zip(states) {
        out.push_str(&format!(
            "  s{}[\"{}: {} [{}]\"]\n",
            s.index,
            mermaid_label(&s.id),
            mermaid_label(&s.title),
            st.name()
        ));
    }
    for s in stories {
        for dep in &s.blocked_by {
            if let Some(from) = node(dep) {
                out.push_str(&format!("  {from} --> s{}\n", s.index));
            }
        }
    }
    out.push_str("  classDef done fill:#c8e6c9,stroke:#2e7d32\n");
    out.push_str("  classDef removed stroke-dasharray: 5 5,color:#9e9e9e\n");
    for (class, want) in [("done", "done"), ("removed", "removed")] {
        let members: Vec<String> = stories
            .iter()
            .zip(states)
            .filter(|(_, st)| st.name() == want)
            .map(|(s, _)| format!("s{}", s.index))
            .collect();
        if !members.is_empty() {
            out.push_str(&format!("  class {} {class}\n", members.join(",")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fixtures::{indexed, s};
    use crate::graph::states;

    #[test]
    fn dot_and_mermaid_show_edges_and_done_style() {
        let mut v = indexed(vec![s("US-1", &[]), s("US-2", &["US-1"])]);
        v[0].passes = true;
        let st = states(&v);
        let d = dot(&v, &st);
        assert!(d.contains("\"US-1\" -> \"US-2\";"));
        assert!(d.contains("fillcolor=\"#c8e6c9\""));
        let m = mermaid(&v, &st);
        assert!(m.contains("s0 --> s1"));
        assert!(m.contains("class s0 done"));
    }
}
