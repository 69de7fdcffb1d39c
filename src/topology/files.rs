//! Topologies read from files: an edge list, and the graph a DOT file's
//! nodes and arcs make; either, when it is one cycle, oriented as a ring.

use super::spec::topology_bytes;
use super::{Arcs, BuildError, Sides, Topology, MAX_PROCESSES, NONE};

/// Gives a graph read from a file `left`/`right` neighbours when it is a
/// ring: a directed cycle gets `left` (the process it reads), an undirected
/// cycle gets both, oriented so that `right` of process 0 is its smaller
/// neighbour. Other graphs are left alone.
pub fn orient_if_ring(t: &mut Topology) {
    let n = t.n();
    if n < 3 || (0..n).any(|p| t.nbrs(p).len() + t.readers(p).len() != 2 && t.nbrs(p).len() != 2) {
        return;
    }
    let directed = (0..n).all(|p| t.nbrs(p).len() == 1 && t.readers(p).len() == 1);
    let undirected = (0..n).all(|p| t.nbrs(p).len() == 2 && t.nbrs(p) == t.readers(p));
    let (mut left, mut right) = (vec![NONE; n], vec![NONE; n]);
    let (mut prev, mut cur) = (0usize, 0usize);
    for _ in 0..n {
        let next = if directed {
            t.readers(cur)[0] as usize
        } else if undirected {
            let ns = t.nbrs(cur);
            if cur == 0 && prev == 0 {
                ns[0] as usize
            } else if ns[0] as usize == prev {
                ns[1] as usize
            } else {
                ns[0] as usize
            }
        } else {
            return;
        };
        left[next] = cur as u32;
        right[cur] = next as u32;
        prev = cur;
        cur = next;
    }
    // One cycle through every process, back at 0.
    if cur != 0 || left.contains(&NONE) {
        return;
    }
    t.left = left;
    t.has_left = true;
    t.sides = Sides::Listed;
    if undirected {
        t.right = right;
        t.has_right = true;
    } else {
        t.right = vec![NONE; n];
    }
}

/// How an edge list is written, for its diagnostics.
const EDGE_LIST_HELP: &str = "an edge list has one edge `u v` a line (process indices from 0, `#` starting a comment), or one index alone for a process without edges";

/// Reads an edge list: one undirected edge `u v` a line (process indices;
/// `#` starts a comment); a line with one index declares an isolated process.
pub fn edge_list(name: &str, text: &str) -> Result<Topology, BuildError> {
    // Every piece below is a slice of `text`.
    let fault = |piece: &str, message: String| {
        let span = crate::span::bytes_of(text, piece);
        BuildError::at(message, name, text, span, EDGE_LIST_HELP)
    };
    let mut pairs = Vec::new();
    let mut n = 0usize;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let nums: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == ',' || c == '-')
            .filter(|s| !s.is_empty())
            .collect();
        let parse = |s: &str| -> Result<usize, BuildError> {
            match s.parse::<usize>() {
                Ok(v) if v < MAX_PROCESSES => Ok(v),
                Ok(_) => Err(fault(
                    s,
                    format!("`{s}` is more than the {MAX_PROCESSES} processes a topology may have"),
                )),
                Err(_) => Err(fault(s, format!("`{s}` is not a process index"))),
            }
        };
        match nums.as_slice() {
            [a] => n = n.max(parse(a)? + 1),
            [a, b] => {
                let (a, b) = (parse(a)?, parse(b)?);
                n = n.max(a + 1).max(b + 1);
                pairs.push((a, b));
            }
            _ => return Err(fault(line, format!("expected `u v`, found `{line}`"))),
        }
    }
    if n == 0 {
        return Err(format!("{name}: the edge list has no processes").into());
    }
    crate::memory::check(
        topology_bytes(n as u128, pairs.len() as u128 * 2),
        &format!("the edge list's {n} processes"),
    )?;
    let mut g = Arcs::new(n);
    for (a, b) in pairs {
        g.edge(a, b);
    }
    Ok(Topology::freeze(format!("file:{name}"), g))
}

/// Builds a topology from DOT nodes and arcs already parsed.
pub(super) fn from_arcs(
    name: String,
    n: usize,
    arcs: &[(usize, usize)],
    directed: bool,
) -> Topology {
    let mut g = Arcs::new(n);
    for &(a, b) in arcs {
        if directed {
            g.arc(a, b);
        } else {
            g.edge(a, b);
        }
    }
    Topology::freeze(name, g)
}
