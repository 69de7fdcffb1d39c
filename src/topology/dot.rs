//! Reads topologies from Graphviz DOT files, the format SASA users keep
//! their graphs in. Node attribute `id` gives the process id; any other node
//! attribute named like a program variable gives its initial value (`VAR[Q]`
//! a per-neighbour value), and an edge attribute named like an edge
//! variable that edge's value.
//!
//! Processes are numbered by their node names when those are exactly
//! `0..n-1`, and in order of first appearance otherwise.

use super::{from_arcs, BuildError, Topology};
use pest::Parser;
use std::collections::HashMap;

mod grammar {
    #![allow(missing_docs)]
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/dot.pest"]
    pub(super) struct DotParser;
}
use grammar::{DotParser, Rule};

/// A DOT identifier's text: a quoted string without its quotes, `\"` and
/// `\\` read as one character each (Graphviz's own escapes, such as
/// `\n`, are kept).
fn unquote(s: &str) -> String {
    let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return s.to_string();
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('"' | '\\'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// How a DOT file this tool reads is written, for its diagnostics.
const DOT_HELP: &str = "one `graph` (edges `a -- b`) or `digraph` (arcs `a -> b`) of node and edge statements with attributes; subgraphs are not supported";

/// Parses a DOT file's text into a topology.
pub fn parse(name: &str, text: &str) -> Result<Topology, BuildError> {
    let file = DotParser::parse(Rule::dot_file, text)
        .map_err(|e| {
            let span = match e.location {
                pest::error::InputLocation::Pos(p) => (p, (p + 1).min(text.len()).max(p)),
                pest::error::InputLocation::Span(s) => s,
            };
            let message = "not a DOT graph this tool reads".to_string();
            BuildError::at(message, name, text, span, DOT_HELP)
        })?
        .next()
        .expect("dot_file yields one pair");
    let mut directed = false;
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut attrs: Vec<Vec<(String, String)>> = Vec::new();
    let mut arcs: Vec<(String, String)> = Vec::new();
    // Edge attributes: (from, to, name, value).
    let mut edge_attrs: Vec<(String, String, String, String)> = Vec::new();
    let mut node =
        |n: &str, names: &mut Vec<String>, attrs: &mut Vec<Vec<(String, String)>>| -> usize {
            *index.entry(n.to_string()).or_insert_with(|| {
                names.push(n.to_string());
                attrs.push(Vec::new());
                names.len() - 1
            })
        };
    for stmt in file.into_inner() {
        match stmt.as_rule() {
            Rule::graph_kind => directed = stmt.as_str().eq_ignore_ascii_case("digraph"),
            Rule::node_stmt => {
                let mut it = stmt.into_inner();
                let id = unquote(it.next().unwrap().as_str());
                let k = node(&id, &mut names, &mut attrs);
                if let Some(list) = it.next() {
                    attrs[k].extend(attr_pairs(list));
                }
            }
            Rule::edge_stmt => {
                let mut prev: Option<String> = None;
                let first_arc = arcs.len();
                for part in stmt.into_inner() {
                    match part.as_rule() {
                        Rule::dot_id => {
                            let id = unquote(part.as_str());
                            node(&id, &mut names, &mut attrs);
                            if let Some(p) = prev.replace(id.clone()) {
                                arcs.push((p, id));
                            }
                        }
                        Rule::attr_list => {
                            for (key, val) in attr_pairs(part) {
                                for (x, y) in &arcs[first_arc..] {
                                    let (x, y) = (x.clone(), y.clone());
                                    edge_attrs.push((x, y, key.clone(), val.clone()));
                                }
                            }
                        }
                        Rule::edge_op => {
                            let op_directed = part.as_str() == "->";
                            if op_directed != directed {
                                let message = format!(
                                    "`{}` in a {}",
                                    part.as_str(),
                                    if directed {
                                        "digraph (use `->`)"
                                    } else {
                                        "graph (use `--`)"
                                    }
                                );
                                let span = part.as_span();
                                let span = (span.start(), span.end());
                                return Err(BuildError::at(message, name, text, span, DOT_HELP));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if names.is_empty() {
        return Err(format!("{name}: the graph has no nodes").into());
    }
    let n = names.len();
    let order = numbering(&names);
    let arcs: Vec<(usize, usize)> = arcs
        .iter()
        .map(|(a, b)| (order[index[a]], order[index[b]]))
        .collect();
    let mut topo = from_arcs(format!("dot:{name}"), n, &arcs, directed);
    for (k, list) in attrs.into_iter().enumerate() {
        let p = order[k];
        for (key, val) in list {
            if key == "id" {
                let id = val.parse().map_err(|_| {
                    format!(
                        "{name}: node `{}` has id `{val}`, which is not an integer",
                        names[k]
                    )
                })?;
                topo.set_id(p, id);
            } else {
                topo.attrs.push((p as u32, key, val));
            }
        }
    }
    // An edge's value belongs to the end that reads the other: either end
    // of an undirected edge, the head of an arc.
    for (a, b, key, val) in edge_attrs {
        let (a, b) = (order[index[&a]], order[index[&b]]);
        let (p, q) = if directed { (b, a) } else { (a, b) };
        topo.attrs.push((p as u32, format!("{key}[{q}]"), val));
    }
    Ok(topo)
}

/// What a node attribute's name says about a variable: the assignment
/// target it stands for (`VAR` or `VAR[Q]`, without the `gc:` a variable
/// named like a Graphviz attribute is written with), and the variable's name.
pub fn attribute_variable(key: &str) -> (&str, &str) {
    let target = key.strip_prefix("gc:").unwrap_or(key);
    (target, target.split('[').next().unwrap_or(target))
}

/// An attribute list's (name, value) pairs, unquoted.
fn attr_pairs(list: pest::iterators::Pair<Rule>) -> Vec<(String, String)> {
    list.into_inner()
        .map(|a| {
            let mut kv = a.into_inner();
            let key = unquote(kv.next().unwrap().as_str());
            let val = unquote(kv.next().unwrap().as_str());
            (key, val)
        })
        .collect()
}

/// Each node's process index: numeric names `0..n-1` are process indices;
/// otherwise the order of first appearance.
fn numbering(names: &[String]) -> Vec<usize> {
    let n = names.len();
    let numeric: Option<Vec<usize>> = names
        .iter()
        .map(|s| s.parse::<usize>().ok().filter(|v| *v < n))
        .collect();
    if let Some(nums) = numeric {
        let mut seen = vec![false; n];
        if nums.iter().all(|&v| !std::mem::replace(&mut seen[v], true)) {
            return nums;
        }
    }
    (0..n).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_nodes_edges_ids_and_values() {
        let t = super::parse(
            "g.dot",
            "graph g {\n node [shape=circle]\n 2 [id=7, x=\"3\"];\n 0 -- 1 -- 2; 2 -- 0 // ring\n}",
        )
        .unwrap();
        assert_eq!(t.n(), 3);
        assert_eq!(t.nbrs(0), &[1, 2]);
        assert_eq!(*t.ids(), [0, 1, 7]);
        assert_eq!(t.attrs, vec![(2, "x".to_string(), "3".to_string())]);
    }

    #[test]
    fn digraph_arcs_point_the_way_information_flows() {
        let t = super::parse("u.dot", "digraph { a -> b -> c -> a }").unwrap();
        assert_eq!(t.nbrs(1), &[0]);
        assert!(super::parse("x.dot", "digraph { a -- b }").is_err());
        assert!(super::parse("x.dot", "graph { subgraph s { a } }").is_err());
    }

    /// HTML strings, as Graphviz's labels often are, read as ids, their
    /// brackets nesting.
    #[test]
    fn html_strings_are_ids() {
        let t = super::parse(
            "h.dot",
            "graph { a [label=<<b>A</b><br/>x>]; a -- <i> -- c }",
        )
        .unwrap();
        assert_eq!(t.n(), 3);
        assert_eq!(t.nbrs(1), &[0, 2]);
        assert!(super::parse("x.dot", "graph { a [label=<<b>] }").is_err());
    }
}
