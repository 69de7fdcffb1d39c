//! Directed cycles among arcs that a predicate picks out of the neighbour
//! lists: what `acyclic(p -> q : body)` asks, evaluated in full by the
//! compiled predicate and, with the order it gives, by the run loop's
//! kept order of arcs (`runtime/engine/arc_order.rs`).

use super::Topology;

impl Topology {
    /// Whether the arcs `p -> q` (`q` a neighbour of `p`) for which
    /// `arc(p, q)` holds have no directed cycle, by an iterative
    /// depth-first search from each process in index order, each
    /// neighbour list in order; where they have none, `left(p)` is
    /// called for each process as the search leaves it, so that every
    /// arc goes from a process left later to one left earlier. The first
    /// error `arc` gives stops the search.
    pub fn arcs_acyclic<E>(
        &self,
        mut arc: impl FnMut(usize, usize) -> Result<bool, E>,
        mut left: impl FnMut(usize),
    ) -> Result<bool, E> {
        // 1 = on the stack, 2 = left. Two allocations per search: the
        // compiled predicate runs it at every step it is asked in full.
        let n = self.n();
        let mut mark = vec![0u8; n];
        let mut stack = Vec::with_capacity(n);
        for root in 0..n {
            if mark[root] != 0 {
                continue;
            }
            stack.clear();
            stack.push((root, 0usize));
            mark[root] = 1;
            while let Some(&mut (p, ref mut k)) = stack.last_mut() {
                let Some(&q) = self.nbrs(p).get(*k) else {
                    mark[p] = 2;
                    left(p);
                    stack.pop();
                    continue;
                };
                let q = q as usize;
                *k += 1;
                if !arc(p, q)? {
                    continue;
                }
                match mark[q] {
                    1 => return Ok(false),
                    0 => {
                        mark[q] = 1;
                        stack.push((q, 0));
                    }
                    _ => {}
                }
            }
        }
        Ok(true)
    }
}
