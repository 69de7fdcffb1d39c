//! A shortest cycle of steps outside legitimacy, once the search has met
//! one: every cycle has a smallest configuration, so a breadth first
//! search from each configuration through those numbered no lower finds
//! the shortest cycles whose smallest configuration it is.

use super::super::successors::Succ;
use super::super::Refusal;
use super::Search;

impl Search<'_, '_> {
    /// A shortest cycle of steps outside legitimacy, given one through
    /// `at` of `len` steps. Every cycle has a smallest configuration: so
    /// breadth first from each configuration `u` outside legitimacy, through
    /// configurations numbered `u` or more only, no deeper than the
    /// shortest cycle found so far, finds the shortest cycles whose
    /// smallest configuration is `u`. Where it begins, and its steps' movers.
    pub(super) fn shortest_cycle(
        &mut self,
        at: u32,
        len: usize,
    ) -> Result<(u32, Vec<Vec<u32>>), Refusal> {
        let mut bfs = Bfs {
            seen: vec![0; self.ex.count as usize],
            parent: vec![0; self.ex.count as usize],
            mark: 0,
            out: Vec::new(),
        };
        let Some(mut best) = self
            .cycle_from(at, len, 0, &mut bfs)?
            .map(|steps| (at, steps))
        else {
            return Err(Refusal::Unsupported(
                "the cycle the search found could not be retraced (an inconsistency in the explorer)".into(),
            ));
        };
        let what = format!("{}: shortest cycle", self.daemon.name());
        for u in 0..self.ex.count {
            if best.1.len() <= 1 {
                break;
            }
            if u64::from(u).is_multiple_of(super::super::PROGRESS_EVERY) {
                self.ex
                    .tell(&what, u64::from(u), u64::from(self.ex.count))?;
            }
            if self.ex.is_legit(u) || u == at {
                continue;
            }
            if let Some(steps) = self.cycle_from(u, best.1.len() - 1, u, &mut bfs)? {
                best = (u, steps);
            }
        }
        Ok(best)
    }

    /// A shortest cycle from `u` back to itself of at most `limit` steps,
    /// outside legitimacy, through configurations numbered `floor` or more.
    fn cycle_from(
        &mut self,
        u: u32,
        limit: usize,
        floor: u32,
        bfs: &mut Bfs,
    ) -> Result<Option<Vec<Vec<u32>>>, Refusal> {
        bfs.mark += 1;
        let mark = bfs.mark;
        bfs.seen[u as usize] = mark;
        let mut frontier = vec![u];
        let mut out = std::mem::take(&mut bfs.out);
        for _ in 0..limit {
            let mut next = Vec::new();
            for &x in &frontier {
                self.successors(x, &mut out)?;
                for e in &out {
                    if e.to < floor || self.ex.is_legit(e.to) {
                        continue;
                    }
                    if e.to == u {
                        // Back along the parents, then the movers of each step.
                        let mut path = vec![x];
                        while *path.last().expect("not empty") != u {
                            let y = *path.last().expect("not empty");
                            path.push(bfs.parent[y as usize]);
                        }
                        path.reverse();
                        path.push(u);
                        bfs.out = out;
                        return match self.ex.movers_along(self.daemon, &path) {
                            Some(steps) => Ok(Some(steps)),
                            None => Err(Refusal::Unsupported(
                                "a step of a cycle could not be retraced (an inconsistency in the explorer)".into(),
                            )),
                        };
                    }
                    if bfs.seen[e.to as usize] != mark {
                        bfs.seen[e.to as usize] = mark;
                        bfs.parent[e.to as usize] = x;
                        next.push(e.to);
                    }
                }
            }
            frontier = next;
        }
        bfs.out = out;
        Ok(None)
    }
}

/// The buffers of the breadth first searches for a shortest cycle: per
/// configuration, the search that last saw it and where from.
struct Bfs {
    seen: Vec<u32>,
    parent: Vec<u32>,
    mark: u32,
    out: Vec<Succ>,
}
