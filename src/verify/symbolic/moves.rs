//! The worst case in moves under the synchronous daemon. Every enabled
//! process moves at each step, so every step from a configuration makes
//! as many moves as it has enabled processes: the moves are a weight of
//! the configuration, and the configurations from which every run is
//! legitimate within j moves come in layers as the steps do, M(0) the
//! legitimate ones and M(j) those with k enabled processes (k <= j) all
//! of whose steps go into M(j - k).

use super::local::oom;
use super::predicate::exactly;
use super::relation::Relation;
use super::{Refusal, Symbolic, F};
use crate::state::Config;
use oxidd::BooleanFunction;

/// The most moves a synchronous run from a start outside legitimacy
/// makes before it is legitimate, as a walk: its start and the
/// configurations after each step. `moving`: configurations outside
/// legitimacy with a step (every one of them reaches legitimacy, and no
/// move faults); `scope`: the configurations asked about (closed under
/// steps), `starts` among them.
pub(super) fn most_moves_synchronous(
    sym: &Symbolic,
    rel: &Relation,
    (moving, scope, starts): (&F, &F, &F),
    successor_in: &dyn Fn(&Config, &F) -> Result<Config, Refusal>,
) -> Result<(Config, Vec<Config>), Refusal> {
    let enc = &sym.enc;
    let enabled: Vec<F> = sym.procs.iter().map(|p| p.enabled.clone()).collect();
    // Per count of enabled processes, the configurations outside
    // legitimacy with a step that have it.
    let by_count = exactly(enc, &enabled)?
        .iter()
        .map(|c| c.and(moving))
        .collect::<Result<Vec<F>, _>>()
        .map_err(oom)?;
    // within[j] = M(j); escapes[i]: a step from there leaves M(i).
    let mut within = vec![sym.legit.clone()];
    let mut escapes: Vec<F> = Vec::new();
    let outside = |set: &F, layer: &F| -> Result<bool, Refusal> {
        Ok(set
            .and(&layer.not().map_err(oom)?)
            .map_err(oom)?
            .satisfiable())
    };
    while outside(scope, &within[within.len() - 1])? {
        let j = within.len();
        sym.note("synchronous: moves (symbolic)", j as u64)?;
        let beyond = enc
            .universe
            .and(&within[j - 1].not().map_err(oom)?)
            .map_err(oom)?;
        escapes.push(rel.pre(enc, &beyond).map_err(oom)?);
        let mut next = sym.legit.clone();
        for (k, count) in by_count.iter().enumerate().skip(1).take(j) {
            let stays = escapes[j - k].not().map_err(oom)?;
            let here = count.and(&stays).map_err(oom)?;
            next = next.or(&here).map_err(oom)?;
        }
        within.push(next);
    }
    // From M(w) outside M(w - 1), w the least that holds every start:
    // each step with k moves from M(j) into M(j - k) outside M(j - k - 1).
    let mut j = within.len() - 1;
    while j > 0 && !outside(starts, &within[j - 1])? {
        j -= 1;
    }
    let first = match j {
        0 => within[0].clone(),
        _ => within[j]
            .and(&within[j - 1].not().map_err(oom)?)
            .map_err(oom)?,
    }
    .and(starts)
    .map_err(oom)?;
    let start = enc.first(&first).map_err(oom)?.ok_or_else(|| {
        Refusal::Unsupported("internal: an empty layer of moves (please report it)".into())
    })?;
    let rel_step = sym.inst.step_relation();
    let (mut at, mut path) = (start.clone(), Vec::new());
    while j > 0 {
        let k = rel_step
            .enabled(&at)
            .map_err(|e| Refusal::Runtime(Box::new((e, at.clone()))))?
            .len();
        let target = match (j - k).checked_sub(1) {
            None => within[0].clone(),
            Some(below) => within[below].not().map_err(oom)?,
        };
        at = successor_in(&at, &target)?;
        path.push(at.clone());
        j -= k;
    }
    Ok((start, path))
}
