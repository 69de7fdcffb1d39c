//! Walks and fair tours among configurations: shortest walks over a
//! table of steps, and cycles round a strongly connected part that are
//! weakly or strongly fair, for the counterexamples of convergence and of
//! `leads_to` alike.

use super::fair_cores::StepTable;
use super::Fairness;
use std::collections::VecDeque;

/// The steps among the configurations outside Q: successors (with their
/// movers as bits), and where a run ends (no step).
pub(super) struct Outside<'s> {
    pub(super) within: Vec<bool>,
    pub(super) steps: &'s StepTable,
}

impl Outside<'_> {
    /// The steps from configuration `i` to one outside Q, if `i` is.
    pub(super) fn succ(&self, i: usize) -> impl Iterator<Item = (u32, u64)> + '_ {
        let inside = self.within[i];
        let steps = self.steps.from(i);
        steps.filter(move |&(j, _)| inside && self.within[j as usize])
    }

    /// Whether a run ends at `i` (outside Q): it has no step.
    pub(super) fn ends(&self, i: usize) -> bool {
        self.within[i] && self.steps.targets(i).is_empty()
    }
}

/// A shortest walk from `from` to a configuration where `done` holds,
/// through configurations where `inside` holds (at least one step with
/// `a_step`): each step's configuration and movers.
pub(super) fn walk(
    g: &Outside,
    from: u32,
    done: impl Fn(u32) -> bool,
    inside: impl Fn(u32) -> bool,
    a_step: bool,
) -> Option<Vec<(u32, u64)>> {
    if !a_step && done(from) {
        return Some(Vec::new());
    }
    let mut parent: std::collections::HashMap<u32, (u32, u64)> = Default::default();
    let mut seen: std::collections::HashSet<u32> = Default::default();
    if !a_step {
        seen.insert(from);
    }
    let mut queue = VecDeque::from([from]);
    while let Some(i) = queue.pop_front() {
        for (j, movers) in g.succ(i as usize) {
            if !inside(j) || !seen.insert(j) {
                continue;
            }
            parent.insert(j, (i, movers));
            if done(j) {
                let mut path = vec![(j, movers)];
                let mut at = i;
                while at != from {
                    let (p, m) = parent[&at];
                    path.push((at, m));
                    at = p;
                }
                path.reverse();
                return Some(path);
            }
            queue.push_back(j);
        }
    }
    None
}

/// A cycle from `at` back to it within a component (`inside`) fair as
/// `fairness` (weak or strong) asks: each process enabled throughout it
/// (strong: enabled anywhere in the component) moves in it. For each
/// process, on to a step it moves in (weak: or to where it is not
/// enabled), then home. `enabled` holds each configuration's enabled
/// processes as bits.
pub(super) fn fair_tour(
    g: &Outside,
    at: u32,
    inside: &impl Fn(u32) -> bool,
    enabled: &[u64],
    everyone: u64,
    fairness: Fairness,
) -> Option<Vec<(u32, u64)>> {
    let weakly = fairness == Fairness::Weak;
    let mut tour: Vec<(u32, u64)> = Vec::new();
    let mut here = at;
    // Processes owed nothing: weakly, those not enabled somewhere passed;
    // strongly, those enabled nowhere in the component.
    let mut done = match weakly {
        true => everyone & !enabled[at as usize],
        false => {
            let members = (0..g.within.len() as u32).filter(|&j| inside(j));
            everyone & !members.fold(0, |bits, j| bits | enabled[j as usize])
        }
    };
    let passing = |j: u32| match weakly {
        true => everyone & !enabled[j as usize],
        false => 0,
    };
    for q in 0..64u32 {
        if everyone & (1 << q) == 0 || done & (1 << q) != 0 {
            continue;
        }
        // A configuration of the component with a step inside it that
        // moves q (weakly, or one where q is not enabled).
        let mut targets = std::collections::HashSet::new();
        for j in (0..g.within.len() as u32).filter(|&j| inside(j)) {
            let moves_q = g
                .succ(j as usize)
                .any(|(k, m)| inside(k) && m & (1 << q) != 0);
            if moves_q || (weakly && enabled[j as usize] & (1 << q) == 0) {
                targets.insert(j);
            }
        }
        let path = walk(g, here, |j| targets.contains(&j), inside, false)?;
        for &(j, m) in &path {
            done |= m | passing(j);
        }
        here = path.last().map_or(here, |&(j, _)| j);
        tour.extend(path);
        if done & (1 << q) == 0 {
            let (k, m) = g
                .succ(here as usize)
                .find(|&(k, m)| inside(k) && m & (1 << q) != 0)?;
            done |= m | passing(k);
            tour.push((k, m));
            here = k;
        }
    }
    let home = walk(g, here, |j| j == at, inside, here == at && tour.is_empty());
    home.map(|h| {
        tour.extend(h);
        tour
    })
}
