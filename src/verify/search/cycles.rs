//! A shortest cycle of steps outside legitimacy, once the search has met
//! one: every cycle lies inside a strongly connected component of the
//! steps outside legitimacy and has a smallest configuration, so a breadth
//! first search from each configuration of a component, through those of
//! its component numbered no lower, finds the shortest cycles whose
//! smallest configuration it is.

use super::super::components::components;
use super::super::successors::Succ;
use super::super::Refusal;
use super::Search;
use crate::runtime::step::Move;

/// In place of a component: the configuration is on no cycle.
const ON_NO_CYCLE: u32 = u32::MAX;

impl Search<'_, '_> {
    /// The components of the steps outside legitimacy that hold a cycle
    /// (see [`components`]), over this search's steps, progress told as
    /// `what`.
    pub(in crate::verify) fn components_outside_legitimacy(
        &mut self,
        what: &str,
    ) -> Result<Vec<Vec<u32>>, Refusal> {
        let ex = self.ex;
        let legit = |c: u32| ex.is_legit(c);
        let mut steps = |c: u32, from: Option<(u32, u64)>, out: &mut Vec<Succ>| {
            self.successors_from(c, from, out).map(|_| ())
        };
        let mut entered = |done| ex.tell(what, done, u64::from(ex.count));
        components(ex.count, &legit, &mut steps, &mut entered)
    }

    /// A shortest cycle of steps outside legitimacy, given one through
    /// `at` of `len` steps. Every cycle lies inside one component and has
    /// a smallest configuration: so breadth first from each configuration
    /// `u` of a component, through those of its component numbered `u` or
    /// more only, no deeper than the shortest cycle found so far, finds
    /// the shortest cycles whose smallest configuration is `u`. Where it
    /// begins, and its steps' movers.
    pub(super) fn shortest_cycle(
        &mut self,
        at: u32,
        len: usize,
    ) -> Result<(u32, Vec<Vec<Move>>), Refusal> {
        let ex = self.ex;
        let count = u64::from(ex.count);
        let what = format!("{}: shortest cycle", self.daemon.name());
        let found = self.components_outside_legitimacy(&what)?;
        // Allocated once the components' search has given back its own.
        let mut component = vec![ON_NO_CYCLE; ex.count as usize];
        for (k, members) in found.iter().enumerate() {
            for &c in members {
                component[c as usize] = k as u32;
            }
        }
        drop(found);
        if component[at as usize] == ON_NO_CYCLE {
            return Err(Refusal::Unsupported(
                "the cycle the search found lies in no component (an inconsistency in the explorer)"
                    .into(),
            ));
        }
        let mut bfs = Bfs {
            seen: vec![0; ex.count as usize],
            parent: vec![0; ex.count as usize],
            mark: 0,
            out: Vec::new(),
            component,
        };
        let Some(mut best) = self
            .cycle_from(at, len, 0, &mut bfs)?
            .map(|steps| (at, steps))
        else {
            return Err(Refusal::Unsupported(
                "the cycle the search found could not be retraced (an inconsistency in the explorer)".into(),
            ));
        };
        for u in 0..ex.count {
            if best.1.len() <= 1 {
                break;
            }
            if u64::from(u).is_multiple_of(super::super::PROGRESS_EVERY) {
                ex.tell(&what, u64::from(u), count)?;
            }
            if bfs.component[u as usize] == ON_NO_CYCLE || u == at {
                continue;
            }
            if let Some(steps) = self.cycle_from(u, best.1.len() - 1, u, &mut bfs)? {
                best = (u, steps);
            }
        }
        Ok(best)
    }

    /// A shortest cycle from `u` back to itself of at most `limit` steps,
    /// through configurations of `u`'s component numbered `floor` or more.
    fn cycle_from(
        &mut self,
        u: u32,
        limit: usize,
        floor: u32,
        bfs: &mut Bfs,
    ) -> Result<Option<Vec<Vec<Move>>>, Refusal> {
        bfs.mark += 1;
        let mark = bfs.mark;
        let inside = bfs.component[u as usize];
        bfs.seen[u as usize] = mark;
        let mut frontier = vec![u];
        let mut out = std::mem::take(&mut bfs.out);
        for _ in 0..limit {
            let mut next = Vec::new();
            for &x in &frontier {
                self.successors(x, &mut out)?;
                for e in &out {
                    if e.to < floor || bfs.component[e.to as usize] != inside {
                        continue;
                    }
                    if e.to == u {
                        // Back along the parents, then the moves of each step.
                        let mut path = vec![x];
                        while *path.last().expect("not empty") != u {
                            let y = *path.last().expect("not empty");
                            path.push(bfs.parent[y as usize]);
                        }
                        path.reverse();
                        path.push(u);
                        bfs.out = out;
                        return match self.ex.moves_along(self.daemon, &path) {
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
/// configuration, the search that last saw it and where from, and its
/// component ([`ON_NO_CYCLE`] outside every one).
struct Bfs {
    seen: Vec<u32>,
    parent: Vec<u32>,
    mark: u32,
    out: Vec<Succ>,
    component: Vec<u32>,
}
