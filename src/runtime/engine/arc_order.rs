//! A topological order of the arcs of an acyclicity invariant
//! (`acyclic(x -> y : body)`, an arc from each process to each neighbour
//! its body holds for), kept from step to step, so that after a step only
//! the arcs that may have changed are asked (each, as its body may fault)
//! and only those that go against the order are searched from: each is
//! placed by Pearce and Kelly's dynamic topological
//! sort (D. J. Pearce, P. H. J. Kelly, "A dynamic topological sort
//! algorithm for directed acyclic graphs", JEA 11, 2006), which searches
//! only between its ends' places and finds a cycle it closes. Arcs that
//! disappear leave the order valid. The search from the changed processes
//! over all they reach, which this replaces, cost 87% of a central step
//! of the arbitration program on `random:1000`.

use crate::compile::Fault;
use crate::topology::Topology;

/// Whether there is an arc from the first process to the second (a
/// neighbour of it) now.
pub(super) type ArcNow<'a> = dyn FnMut(u32, u32) -> Result<bool, Box<Fault>> + 'a;

/// Each process's place in an order in which every arc goes up.
pub(super) struct ArcOrder {
    rank: Vec<i64>,
    /// Per process, the search that last visited it (`stamp`), so that
    /// marks need no clearing.
    marks: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
    /// The processes a placement moves: found forwards from the arc's
    /// head, backwards from its tail.
    forward: Vec<u32>,
    backward: Vec<u32>,
    places: Vec<i64>,
    /// A step's arcs that go against the order, to place.
    against: Vec<(u32, u32)>,
}

impl ArcOrder {
    /// The order of the arcs of `topo` now, or `None` where they have a
    /// cycle: the reverse of the order in which a depth-first search
    /// ([`Topology::arcs_acyclic`]) leaves the processes.
    pub(super) fn of(topo: &Topology, arc: &mut ArcNow) -> Result<Option<ArcOrder>, Box<Fault>> {
        let n = topo.n();
        let mut rank = vec![0i64; n];
        let mut next = n as i64;
        let acyclic = topo.arcs_acyclic(
            |p, q| arc(p as u32, q as u32),
            |p| {
                next -= 1;
                rank[p] = next;
            },
        )?;
        Ok(acyclic.then(|| ArcOrder {
            rank,
            marks: vec![0; n],
            stamp: 0,
            stack: Vec::new(),
            forward: Vec::new(),
            backward: Vec::new(),
            places: Vec::new(),
            against: Vec::new(),
        }))
    }

    /// Whether the arcs have no cycle after a step that may have changed
    /// the arcs from the processes `asked` only, the order having held
    /// for the arcs before it; the order then holds for the arcs now.
    /// Where this says false or fails, the order is to be dropped.
    pub(super) fn still_acyclic(
        &mut self,
        topo: &Topology,
        asked: &[u32],
        arc: &mut ArcNow,
    ) -> Result<bool, Box<Fault>> {
        // Kept from step to step: no allocation a step.
        let mut against = std::mem::take(&mut self.against);
        against.clear();
        for &u in asked {
            for &v in topo.nbrs(u as usize) {
                // Each asked, also where it would go up in the order: its
                // body may fault now, as a full evaluation would find.
                if arc(u, v)? && self.rank[u as usize] >= self.rank[v as usize] {
                    against.push((u, v));
                }
            }
        }
        // Placed one at a time, the others left out of the searches as if
        // not yet there, as the algorithm adds arcs one by one.
        let mut acyclic = Ok(true);
        while let Some((u, v)) = against.pop() {
            if self.rank[u as usize] >= self.rank[v as usize] {
                acyclic = self.place(topo, (u, v), &against, arc);
                if !matches!(acyclic, Ok(true)) {
                    break;
                }
            }
        }
        self.against = against;
        acyclic
    }

    /// Places arc `u -> v`, which goes down, by moving the processes
    /// between: those `v` reaches below `u`'s place, and those that reach
    /// `u` above `v`'s; false where `v` reaches `u` (a cycle). The arcs
    /// of `absent` are not followed.
    fn place(
        &mut self,
        topo: &Topology,
        (u, v): (u32, u32),
        absent: &[(u32, u32)],
        arc: &mut ArcNow,
    ) -> Result<bool, Box<Fault>> {
        if v == u {
            return Ok(false);
        }
        let (low, high) = (self.rank[v as usize], self.rank[u as usize]);
        let mut follows = |x: u32, y: u32| -> Result<bool, Box<Fault>> {
            Ok(!absent.contains(&(x, y)) && arc(x, y)?)
        };
        // Forwards from v, below u.
        self.next_stamp();
        let mut forward = std::mem::take(&mut self.forward);
        forward.clear();
        self.stack.clear();
        self.visit(v, &mut forward);
        while let Some(x) = self.stack.pop() {
            for &y in topo.nbrs(x as usize) {
                if y == u && follows(x, y)? {
                    self.forward = forward;
                    return Ok(false);
                }
                let r = self.rank[y as usize];
                if r < high && self.marks[y as usize] != self.stamp && follows(x, y)? {
                    self.visit(y, &mut forward);
                }
            }
        }
        // Backwards from u, above v.
        self.next_stamp();
        let mut backward = std::mem::take(&mut self.backward);
        backward.clear();
        self.visit(u, &mut backward);
        while let Some(y) = self.stack.pop() {
            for &x in topo.readers(y as usize) {
                let r = self.rank[x as usize];
                if r > low && self.marks[x as usize] != self.stamp && follows(x, y)? {
                    self.visit(x, &mut backward);
                }
            }
        }
        // The places they held, given to those reaching u first, then to
        // those v reaches, each group in the order it had.
        let rank = &mut self.rank;
        backward.sort_unstable_by_key(|&p| rank[p as usize]);
        forward.sort_unstable_by_key(|&p| rank[p as usize]);
        self.places.clear();
        self.places
            .extend(backward.iter().chain(&forward).map(|&p| rank[p as usize]));
        self.places.sort_unstable();
        for (&p, &place) in backward.iter().chain(&forward).zip(&self.places) {
            rank[p as usize] = place;
        }
        self.forward = forward;
        self.backward = backward;
        Ok(true)
    }

    /// A new search: marks from before count as unvisited.
    fn next_stamp(&mut self) {
        if self.stamp == u32::MAX {
            self.marks.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    /// Marks `p` visited by this search, lists it and stacks it.
    fn visit(&mut self, p: u32, found: &mut Vec<u32>) {
        self.marks[p as usize] = self.stamp;
        found.push(p);
        self.stack.push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::build;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Whether the arcs `on` (per process, per neighbour) have a cycle,
    /// by repeatedly removing processes with no arc out.
    fn has_cycle(topo: &Topology, on: &[Vec<bool>]) -> bool {
        let n = topo.n();
        let mut gone = vec![false; n];
        loop {
            let sink = (0..n).find(|&p| {
                !gone[p]
                    && topo
                        .nbrs(p)
                        .iter()
                        .enumerate()
                        .all(|(k, &q)| !on[p][k] || gone[q as usize])
            });
            match sink {
                Some(p) => gone[p] = true,
                None => return gone.iter().any(|g| !g),
            }
        }
    }

    /// Arcs redrawn at a few processes at a time, in and out of them, on
    /// several graphs: the order finds a cycle exactly where there is one,
    /// and where there is none every arc goes up in it.
    #[test]
    fn the_order_finds_cycles_and_stays_an_order() {
        let (mut cycles, mut placed) = (0, 0);
        for spec in ["ring:9", "grid:4x4", "random:14", "complete:6", "uring:7"] {
            for seed in 0..20 {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let topo = build(spec, &mut rng, &|_| Err("no files".into())).unwrap();
                let n = topo.n();
                let mut on: Vec<Vec<bool>> =
                    (0..n).map(|p| vec![false; topo.nbrs(p).len()]).collect();
                let arc_of = |on: &[Vec<bool>], p: u32, q: u32| {
                    let k = topo.nbr_pos(p as usize, q as usize).unwrap();
                    Ok(on[p as usize][k])
                };
                let mut order = ArcOrder::of(&topo, &mut |p, q| arc_of(&on, p, q))
                    .unwrap()
                    .expect("no arcs, no cycle");
                for _ in 0..300 {
                    // A process and the processes reading it redraw their
                    // arcs, sparsely, as a step of it would change them.
                    let m = rng.gen_range(0..n);
                    let mut asked: Vec<u32> = vec![m as u32];
                    asked.extend_from_slice(topo.readers(m));
                    asked.sort_unstable();
                    asked.dedup();
                    for &p in &asked {
                        for arc in on[p as usize].iter_mut() {
                            if rng.gen_bool(0.3) {
                                *arc = rng.gen_bool(0.4);
                            }
                        }
                    }
                    let before: Vec<i64> = order.rank.clone();
                    let acyclic = order
                        .still_acyclic(&topo, &asked, &mut |p, q| arc_of(&on, p, q))
                        .unwrap();
                    assert_eq!(acyclic, !has_cycle(&topo, &on), "{spec} seed {seed}");
                    if !acyclic {
                        cycles += 1;
                        // As the run loop does after a cycle: the arcs
                        // cleared, the order made again.
                        on.iter_mut().for_each(|arcs| arcs.fill(false));
                        order = ArcOrder::of(&topo, &mut |p, q| arc_of(&on, p, q))
                            .unwrap()
                            .unwrap();
                        continue;
                    }
                    placed += usize::from(before != order.rank);
                    for (p, arcs) in on.iter().enumerate() {
                        for (&q, _) in topo.nbrs(p).iter().zip(arcs).filter(|(_, &a)| a) {
                            assert!(
                                order.rank[p] < order.rank[q as usize],
                                "{spec} seed {seed}: {p} -> {q}"
                            );
                        }
                    }
                }
            }
        }
        // Both outcomes, and many placements, were tried.
        assert!(
            cycles > 100 && placed > 1000,
            "{cycles} cycles, {placed} placements"
        );
    }
}
