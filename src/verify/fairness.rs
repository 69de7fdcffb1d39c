//! Fair cycles outside legitimacy. A cycle of steps is weakly fair when
//! every process enabled throughout it moves in it. A strongly connected
//! set of configurations outside legitimacy holds such a cycle exactly
//! when every process enabled in all of its configurations moves on some
//! step inside it (a cycle through all its configurations and those steps
//! is then fair; and a process enabled everywhere in it that never moves
//! in it makes every cycle in it unfair). So the search is over the
//! strongly connected components of the steps outside legitimacy. A cycle
//! is strongly fair when every process enabled anywhere on it moves in
//! it: within each component, the cores of [`super::fair_cores`].

use super::fair_cores::{strong_cores, StepTable, NO_COMPONENT};
use super::search::Search;
use super::successors::Succ;
use super::{Explorer, Fairness, Refusal};
use crate::runtime::step::Move;
use std::collections::{HashMap, VecDeque};

/// The steps inside one component, kept (a tour of it follows them
/// several times): each member's, in the members' order, one after the
/// other, where it leads and its movers as bits, 12 bytes a step. Only a
/// component's: the components themselves are found over steps listed on
/// demand.
struct Steps<'c> {
    /// The component's configurations, sorted.
    members: &'c [u32],
    /// Per member, where its steps begin; then where the last ends.
    first: Vec<u64>,
    to: Vec<u32>,
    movers: Vec<u64>,
}

impl<'c> Steps<'c> {
    /// The steps between the configurations of `component`.
    fn inside(s: &mut Search, component: &'c [u32]) -> Result<Self, Refusal> {
        let mut steps = Steps {
            members: component,
            first: Vec::with_capacity(component.len() + 1),
            to: Vec::new(),
            movers: Vec::new(),
        };
        let mut out: Vec<Succ> = Vec::new();
        for &c in component {
            steps.first.push(steps.to.len() as u64);
            s.successors(c, &mut out)?;
            for e in out
                .iter()
                .filter(|e| component.binary_search(&e.to).is_ok())
            {
                steps.to.push(e.to);
                steps.movers.push(e.movers);
            }
        }
        steps.first.push(steps.to.len() as u64);
        Ok(steps)
    }

    /// Configuration `c`'s steps inside the component (none when it is
    /// outside): where each leads, and its movers as bits.
    fn of(&self, c: u32) -> impl Iterator<Item = (u32, u64)> + '_ {
        let range = match self.members.binary_search(&c) {
            Ok(k) => self.first[k] as usize..self.first[k + 1] as usize,
            Err(_) => 0..0,
        };
        self.to[range.clone()]
            .iter()
            .copied()
            .zip(self.movers[range].iter().copied())
    }
}

/// A cycle: where it begins, and its steps' moves.
type Cycle = (u32, Vec<Vec<Move>>);

/// A step: its movers as bits, and where it leads.
type Hop = (u64, u32);

/// A configuration to pass through, and a step to take from it (to where,
/// who moves).
type Waypoint = (u32, Option<(u32, u64)>);

/// A fair cycle outside legitimacy (weakly or strongly, as the search
/// asks), if there is one: where it begins, and its steps' movers. `Err`
/// when fairness cannot be decided (more than 64 processes).
pub(super) fn fair_cycle(s: &mut Search, ex: &Explorer) -> Result<Option<Cycle>, Refusal> {
    if !ex.processes_fit_a_word() {
        return Err(Refusal::Unsupported(
            "fairness is decided with a bit per process: at most 64 processes".into(),
        ));
    }
    if ex.symmetries() > 1 {
        return Err(Refusal::Unsupported(
            "fairness follows each process round a cycle, which a cycle between orbits does not: verify it without --symmetry".into(),
        ));
    }
    let what = format!("{}: fair cycles", s.daemon_name());
    let found = s.components_outside_legitimacy(&what)?;
    for component in &found {
        let out = Steps::inside(s, component)?;
        let (start, hops) = match s.fairness() {
            Fairness::Strong => {
                let Some((core, owed)) = strong_core(s, &out)? else {
                    continue;
                };
                tour(&Steps::inside(s, &core)?, owed)
            }
            _ => {
                let mut always = u64::MAX;
                for &c in component {
                    always &= s.enabled_bits(c)?;
                }
                let moved = out.movers.iter().fold(0, |moved, m| moved | m);
                if always & !moved != 0 {
                    continue;
                }
                tour(&out, always)
            }
        };
        return Ok(Some((start, ex.moves_of_hops(start, &hops)?)));
    }
    Ok(None)
}

/// Under strong fairness, a core of the component of `out` (its
/// configurations, sorted) and the processes enabled in it, which a fair
/// tour of it moves; `None` when no strongly fair cycle lies inside it.
fn strong_core(s: &mut Search, out: &Steps) -> Result<Option<(Vec<u32>, u64)>, Refusal> {
    let members = out.members;
    let mut table = StepTable::with_capacity(members.len());
    let mut enabled = Vec::with_capacity(members.len());
    for &c in members {
        let local = |to: u32| members.binary_search(&to).expect("a step inside") as u32;
        table.push(out.of(c).map(|(to, movers)| (local(to), movers)));
        enabled.push(s.enabled_bits(c)?);
    }
    let cores = strong_cores(&table, &vec![true; members.len()], &enabled);
    let Some(first) = cores.iter().position(|&k| k != NO_COMPONENT) else {
        return Ok(None);
    };
    let (mut core, mut owed) = (Vec::new(), 0);
    for (k, &c) in members.iter().enumerate() {
        if cores[k] == cores[first] {
            core.push(c);
            owed |= enabled[k];
        }
    }
    Ok(Some((core, owed)))
}

/// A cycle inside the component of `out` through every configuration of it
/// and, for each process of `always`, a step in which it moves: where it
/// begins, and its steps.
fn tour(out: &Steps, always: u64) -> (u32, Vec<Hop>) {
    let component = out.members;
    let start = component[0];
    let mut steps: Vec<Hop> = Vec::new();
    let mut at = start;
    // Waypoints: every configuration, then a step moving each such process.
    let mut visit: Vec<Waypoint> = component.iter().map(|&c| (c, None)).collect();
    for p in (0..64).filter(|p| always >> p & 1 == 1) {
        let edge = component.iter().find_map(|&c| {
            out.of(c)
                .find(|&(_, m)| m >> p & 1 == 1)
                .map(|(to, movers)| (c, (to, movers)))
        });
        if let Some((from, step)) = edge {
            visit.push((from, Some(step)));
        }
    }
    visit.push((start, None));
    for (target, then) in visit {
        steps.extend(path(out, at, target));
        at = target;
        if let Some((to, movers)) = then {
            steps.push((movers, to));
            at = to;
        }
    }
    // The tour ends where it began unless it began and ended in one place
    // without a step (a component of one configuration with a loop).
    if steps.is_empty() {
        if let Some((_, movers)) = out.of(start).find(|&(to, _)| to == start) {
            steps.push((movers, start));
        }
    }
    (start, steps)
}

/// A shortest path from `from` to `to` inside the component of `out`.
fn path(out: &Steps, from: u32, to: u32) -> Vec<Hop> {
    if from == to {
        return Vec::new();
    }
    let mut parent: HashMap<u32, (u32, u64)> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(x) = queue.pop_front() {
        for (y, movers) in out.of(x) {
            if y == from || parent.contains_key(&y) {
                continue;
            }
            parent.insert(y, (x, movers));
            if y == to {
                let mut steps = Vec::new();
                let mut at = to;
                while at != from {
                    let (p, movers) = parent[&at];
                    steps.push((movers, at));
                    at = p;
                }
                steps.reverse();
                return steps;
            }
            queue.push_back(y);
        }
    }
    // In one component every configuration reaches every other.
    Vec::new()
}
