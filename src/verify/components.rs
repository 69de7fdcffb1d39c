//! The strongly connected components of the steps between configurations
//! outside legitimacy that hold a cycle. Every cycle outside legitimacy
//! lies inside one, so the searches for a shortest cycle and for a weakly
//! fair one look inside them only. Tarjan's algorithm without recursion,
//! over steps listed on demand: a configuration's steps are listed when
//! the search enters it, and again each time it comes back to it from a
//! step it followed down. So only the path is kept, not the steps, which
//! under the distributed daemon number up to 2^n - 1 per configuration.

use super::successors::Succ;
use super::{Refusal, PROGRESS_EVERY};

/// Lists configuration `c`'s steps into `out`, reached from `from` (a
/// configuration and the step's movers, whose guards and moves the engine
/// may reuse) when given.
pub(super) type ListSteps<'l> =
    dyn FnMut(u32, Option<(u32, u64)>, &mut Vec<Succ>) -> Result<(), Refusal> + 'l;

/// A configuration on the search's path.
struct Call {
    at: u32,
    /// Its next step to follow.
    next: usize,
    /// Whether it has a step to itself.
    loops: bool,
}

/// The search's numbering: per configuration, when it was entered and the
/// earliest entered it reaches, and the configurations not yet in a
/// component.
struct Numbering {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<u32>,
    next: u32,
}

impl Numbering {
    const UNSEEN: u32 = u32::MAX;

    /// Enters configuration `c` onto the path `calls`; true every
    /// [`PROGRESS_EVERY`] configurations.
    fn enter(&mut self, c: u32, calls: &mut Vec<Call>) -> bool {
        self.index[c as usize] = self.next;
        self.low[c as usize] = self.next;
        self.next += 1;
        self.stack.push(c);
        self.on_stack[c as usize] = true;
        calls.push(Call {
            at: c,
            next: 0,
            loops: false,
        });
        u64::from(self.next).is_multiple_of(PROGRESS_EVERY)
    }

    /// The component `v` is the first entered of, off the stack.
    fn take_component(&mut self, v: u32) -> Vec<u32> {
        let mut component = Vec::new();
        while let Some(w) = self.stack.pop() {
            self.on_stack[w as usize] = false;
            component.push(w);
            if w == v {
                break;
            }
        }
        component
    }
}

/// The components, each sorted, of the steps `steps` lists between the
/// `count` configurations outside legitimacy, that hold a cycle: more than
/// one configuration, or one with a step to itself. `entered` is told how
/// many configurations the search has entered, every [`PROGRESS_EVERY`].
pub(super) fn components(
    count: u32,
    legit: &dyn Fn(u32) -> bool,
    steps: &mut ListSteps,
    entered: &mut dyn FnMut(u64) -> Result<(), Refusal>,
) -> Result<Vec<Vec<u32>>, Refusal> {
    let n = count as usize;
    let mut num = Numbering {
        index: vec![Numbering::UNSEEN; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
    };
    let (mut calls, mut out, mut found) = (Vec::new(), Vec::new(), Vec::new());
    // Whose steps `out` holds.
    let mut listed = None;
    for root in 0..count {
        if legit(root) || num.index[root as usize] != Numbering::UNSEEN {
            continue;
        }
        if num.enter(root, &mut calls) {
            entered(u64::from(num.next))?;
        }
        while let Some(call) = calls.last_mut() {
            let v = call.at;
            if listed != Some(v) {
                steps(v, None, &mut out)?;
                listed = Some(v);
            }
            if let Some(&e) = out.get(call.next) {
                call.next += 1;
                let w = e.to as usize;
                if e.to == v {
                    call.loops = true;
                } else if legit(e.to) {
                    // Outside the steps searched.
                } else if num.index[w] == Numbering::UNSEEN {
                    if num.enter(e.to, &mut calls) {
                        entered(u64::from(num.next))?;
                    }
                    steps(e.to, Some((v, e.movers)), &mut out)?;
                    listed = Some(e.to);
                } else if num.on_stack[w] {
                    num.low[v as usize] = num.low[v as usize].min(num.index[w]);
                }
                continue;
            }
            let done = calls.pop().expect("a configuration is on the path");
            if let Some(below) = calls.last() {
                let (u, v) = (below.at as usize, v as usize);
                num.low[u] = num.low[u].min(num.low[v]);
            }
            if num.low[v as usize] == num.index[v as usize] {
                let mut component = num.take_component(v);
                if component.len() > 1 || done.loops {
                    component.sort_unstable();
                    found.push(component);
                }
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The components of a graph given by its arcs, over `count` nodes.
    fn of(count: u32, arcs: &[(u32, u32)], legit: &dyn Fn(u32) -> bool) -> Vec<Vec<u32>> {
        let mut steps = |c: u32, _: Option<(u32, u64)>, out: &mut Vec<Succ>| {
            out.clear();
            out.extend(arcs.iter().filter(|a| a.0 == c).map(|a| Succ {
                to: a.1,
                moves: 1,
                movers: 1,
            }));
            Ok(())
        };
        let mut found = components(count, legit, &mut steps, &mut |_| Ok(())).unwrap();
        found.sort();
        found
    }

    #[test]
    fn cycles_loops_and_legitimacy() {
        // 0 -> 1 -> 2 -> 0 and on to 3, which loops; 4 -> 5 -> 6 -> 4
        // only through 6, legitimate; 7 alone.
        let arcs = [
            (0, 1),
            (1, 2),
            (2, 0),
            (2, 3),
            (3, 3),
            (4, 5),
            (5, 6),
            (6, 4),
        ];
        let found = of(8, &arcs, &|c| c == 6);
        assert_eq!(found, vec![vec![0, 1, 2], vec![3]]);
    }

    proptest! {
        /// On random graphs of up to 12 nodes, the components holding a
        /// cycle are the classes of nodes outside legitimacy that reach
        /// each other (outside legitimacy) by at least one step.
        #[test]
        fn as_mutual_reachability(
            count in 1u32..12,
            arcs in proptest::collection::vec((0u32..12, 0u32..12), 0..40),
            legit_mask in 0u32..4096,
        ) {
            let arcs: Vec<(u32, u32)> =
                arcs.into_iter().filter(|a| a.0 < count && a.1 < count).collect();
            let legit = |c: u32| legit_mask >> c & 1 == 1;
            let n = count as usize;
            // reach[a][b]: a path of one step or more from a to b, outside
            // legitimacy.
            let mut reach = vec![vec![false; n]; n];
            for &(a, b) in &arcs {
                if !legit(a) && !legit(b) {
                    reach[a as usize][b as usize] = true;
                }
            }
            for k in 0..n {
                for a in 0..n {
                    for b in 0..n {
                        if reach[a][k] && reach[k][b] {
                            reach[a][b] = true;
                        }
                    }
                }
            }
            let mut naive: Vec<Vec<u32>> = Vec::new();
            for a in (0..count).filter(|&a| reach[a as usize][a as usize]) {
                if naive.iter().any(|c| c.contains(&a)) {
                    continue;
                }
                let class = (0..count)
                    .filter(|&b| reach[a as usize][b as usize] && reach[b as usize][a as usize])
                    .collect();
                naive.push(class);
            }
            naive.sort();
            prop_assert_eq!(of(count, &arcs, &legit), naive);
        }
    }
}
