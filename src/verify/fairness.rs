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
use super::tours::{fair_tour, Outside};
use super::{Explorer, Fairness, Refusal};
use crate::runtime::step::Move;

/// A cycle: where it begins, and its steps' moves.
type Cycle = (u32, Vec<Vec<Move>>);

/// A fair cycle outside legitimacy (weakly or strongly, as the search
/// asks), if there is one: where it begins, and its steps' movers. `Err`
/// when fairness cannot be decided (more than 64 processes).
pub(super) fn fair_cycle(s: &mut Search, ex: &Explorer) -> Result<Option<Cycle>, Refusal> {
    let everyone = every_process(ex)?;
    if ex.symmetries() > 1 {
        return Err(Refusal::Unsupported(
            "fairness follows each process round a cycle, which a cycle between orbits does not: verify it without --symmetry".into(),
        ));
    }
    let fairness = s.fairness();
    let what = format!("{}: fair cycles", s.daemon_name());
    let found = s.components_outside_legitimacy(&what)?;
    for component in &found {
        let table = inside(s, component)?;
        let mut enabled = Vec::with_capacity(component.len());
        for &c in component {
            enabled.push(s.enabled_bits(c)?);
        }
        // Where a fair cycle may go: the whole component (weakly), or one
        // of its cores (strongly).
        let within: Vec<bool> = match fairness {
            Fairness::Strong => {
                let cores = strong_cores(&table, &vec![true; component.len()], &enabled);
                let Some(&first) = cores.iter().find(|&&k| k != NO_COMPONENT) else {
                    continue;
                };
                cores.iter().map(|&k| k == first).collect()
            }
            _ => {
                let always = enabled.iter().fold(u64::MAX, |all, e| all & e);
                let moved = (0..component.len())
                    .flat_map(|k| table.from(k))
                    .fold(0, |moved, (_, m)| moved | m);
                if always & !moved != 0 {
                    continue;
                }
                vec![true; component.len()]
            }
        };
        let start = within.iter().position(|&w| w).expect("a core is not empty");
        let g = Outside {
            within,
            steps: &table,
        };
        let inside_it = |j: u32| g.within[j as usize];
        let cycle = fair_tour(&g, start as u32, &inside_it, &enabled, everyone, fairness)
            .expect("a fair tour of a fair component");
        let hops: Vec<(u64, u32)> = cycle
            .iter()
            .map(|&(j, movers)| (movers, component[j as usize]))
            .collect();
        let from = component[start];
        return Ok(Some((from, ex.moves_of_hops(from, &hops)?)));
    }
    Ok(None)
}

/// Every process as a bit, which fairness follows them by; refused past
/// 64 processes.
pub(super) fn every_process(ex: &Explorer) -> Result<u64, Refusal> {
    match ex.inst.topo.n() {
        65.. => Err(Refusal::Unsupported(
            "fairness is decided with a bit per process: at most 64 processes".into(),
        )),
        64 => Ok(u64::MAX),
        k => Ok((1u64 << k) - 1),
    }
}

/// The steps between the configurations of `component` (sorted), each
/// numbered by its place in it.
fn inside(s: &mut Search, component: &[u32]) -> Result<StepTable, Refusal> {
    let mut table = StepTable::with_capacity(component.len());
    let mut out: Vec<Succ> = Vec::new();
    for &c in component {
        s.successors(c, &mut out)?;
        let local = |to: u32| component.binary_search(&to).ok().map(|k| k as u32);
        table.push(
            out.iter()
                .filter_map(|e| local(e.to).map(|k| (k, e.movers))),
        );
    }
    Ok(table)
}
