//! The simple directed cycles of a topology's arcs `p -> q` (q a neighbour
//! of p), for translating `acyclic`: each listed once, from its smallest
//! process (an undirected edge is a cycle of two arcs).

use crate::topology::Topology;

/// Every simple cycle, or `None` when there are more than `limit`.
pub fn simple_cycles(topo: &Topology, limit: usize) -> Option<Vec<Vec<usize>>> {
    let mut out = Vec::new();
    for start in 0..topo.n() {
        let mut path = vec![start];
        let mut on_path = vec![false; topo.n()];
        on_path[start] = true;
        if !extend(topo, start, &mut path, &mut on_path, &mut out, limit) {
            return None;
        }
    }
    Some(out)
}

/// Depth-first from the end of `path` through processes above `start`;
/// false once more than `limit` cycles are found.
fn extend(
    topo: &Topology,
    start: usize,
    path: &mut Vec<usize>,
    on_path: &mut [bool],
    out: &mut Vec<Vec<usize>>,
    limit: usize,
) -> bool {
    let p = *path.last().expect("the path starts at `start`");
    for &q in topo.nbrs(p) {
        let q = q as usize;
        if q == start {
            out.push(path.clone());
            if out.len() > limit {
                return false;
            }
        } else if q > start && !on_path[q] {
            path.push(q);
            on_path[q] = true;
            let ok = extend(topo, start, path, on_path, out, limit);
            on_path[q] = false;
            path.pop();
            if !ok {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    fn topo(spec: &str) -> crate::topology::Topology {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        crate::topology::build(spec, &mut rng, &|_| Err(String::new())).unwrap()
    }

    #[test]
    fn counts_the_cycles_of_small_graphs() {
        // A ring of 4: its 4 edges both ways, and the ring both ways.
        assert_eq!(super::simple_cycles(&topo("ring:4"), 100).unwrap().len(), 6);
        // K4: 6 edges x 1, 4 triangles x 2, 3 squares x 2.
        assert_eq!(
            super::simple_cycles(&topo("complete:4"), 100)
                .unwrap()
                .len(),
            20
        );
        // A directed ring: one cycle.
        assert_eq!(
            super::simple_cycles(&topo("uring:5"), 100).unwrap(),
            vec![vec![0, 4, 3, 2, 1]]
        );
        assert!(super::simple_cycles(&topo("complete:8"), 100).is_none());
    }
}
