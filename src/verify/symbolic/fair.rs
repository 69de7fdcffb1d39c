//! Weak fairness on diagrams: a cycle outside legitimacy counts against
//! convergence only if every process enabled throughout it moves in it.
//! Each process's fairness is a set of steps (those where it is not
//! enabled, or moves), and the configurations with a fair run that never
//! reaches legitimacy are Emerson and Lei's greatest fixpoint: those from
//! which, for each process, a run within the set takes one of its steps
//! back into the set. A fair cycle is then found one concrete
//! configuration at a time, taking each process's step in turn.

use super::local::oom;
use super::relation::Relation;
use super::search::Asker;
use super::{Refusal, F};
use crate::state::Config;
use oxidd::BooleanFunction;

/// The steps that count for each process's weak fairness, under the
/// asker's daemon.
pub(super) struct Fairness(Vec<Relation>);

impl Fairness {
    pub(super) fn new(ask: &Asker) -> Result<Self, Refusal> {
        let (sym, n) = (ask.sym, ask.sym.procs.len());
        (0..n)
            .map(|p| {
                ask.rel
                    .fair_to(&sym.procs, &sym.inst.topo, ask.daemon, p)
                    .map_err(oom)
            })
            .collect::<Result<_, _>>()
            .map(Fairness)
    }
}

/// The configurations of `rest` (where some run stays outside legitimacy
/// for ever) with a weakly fair run that does. (Under the synchronous
/// daemon every enabled process moves at every step: every cycle is fair,
/// and the caller need not ask.)
pub(super) fn fair_states(ask: &Asker, fairness: &Fairness, rest: &F) -> Result<F, Refusal> {
    let (sym, enc) = (ask.sym, &ask.sym.enc);
    let mut z = rest.clone();
    let mut round = 0;
    loop {
        let mut next = z.clone();
        for (p, steps) in fairness.0.iter().enumerate() {
            round += 1;
            sym.note(
                &format!("{}: weakly fair cycles (symbolic)", ask.daemon.name()),
                round,
            )?;
            let mut reaching = z.and(&steps.pre(enc, &z).map_err(oom)?).map_err(oom)?;
            loop {
                let before = ask.rel.pre(enc, &reaching).map_err(oom)?;
                let more = reaching.or(&z.and(&before).map_err(oom)?).map_err(oom)?;
                if more == reaching {
                    break;
                }
                reaching = more;
            }
            next = next.and(&reaching).map_err(oom)?;
            if !next.satisfiable() || p + 1 == fairness.0.len() {
                break;
            }
        }
        if next == z || !next.satisfiable() {
            return Ok(next);
        }
        z = next;
    }
}

/// A cycle, each step with the process it is taken for, if any.
pub(super) struct FairCycle {
    /// The configuration it goes round from.
    pub(super) on: Config,
    /// The configurations after each step, `on` last.
    pub(super) steps: Vec<Config>,
    /// Per step, the process that moves in it for its fairness.
    pub(super) movers: Vec<Option<usize>>,
}

/// A weakly fair cycle within `fair` (the configurations with a fair run
/// that stays in it, from [`fair_states`]), from `at` on.
pub(super) fn fair_cycle(
    ask: &Asker,
    fairness: &Fairness,
    at: Config,
    fair: &F,
) -> Result<FairCycle, Refusal> {
    let (sym, enc) = (ask.sym, &ask.sym.enc);
    let broken = || Refusal::Unsupported("internal: a broken fair cycle (please report it)".into());
    let is_enabled = |p: usize, cfg: &Config| -> Result<bool, Refusal> {
        let single = enc.single(cfg).map_err(oom)?;
        Ok(single
            .and(&sym.procs[p].enabled)
            .map_err(oom)?
            .satisfiable())
    };
    let enabled_throughout = |p: usize, from: &Config, path: &[Config]| {
        for cfg in std::iter::once(from).chain(path) {
            if !is_enabled(p, cfg)? {
                return Ok(false);
            }
        }
        Ok::<_, Refusal>(true)
    };
    let (mut within, mut from) = (fair.clone(), at);
    loop {
        let (mut path, mut movers) = (Vec::<Config>::new(), Vec::new());
        let mut here = from.clone();
        for (p, steps) in fairness.0.iter().enumerate() {
            // Taken for already, or not enabled somewhere on the way.
            if movers.contains(&Some(p)) || !enabled_throughout(p, &from, &path)? {
                continue;
            }
            // Where one of p's steps leads back within the set.
            let target = within
                .and(&steps.pre(enc, &within).map_err(oom)?)
                .map_err(oom)?;
            let here_single = enc.single(&here).map_err(oom)?;
            if !here_single.and(&target).map_err(oom)?.satisfiable() {
                let walk = ask
                    .walk_within(&here, &target, &within)?
                    .ok_or_else(broken)?;
                movers.extend(walk.iter().map(|_| None));
                here = walk[walk.len() - 1].clone();
                path.extend(walk);
                if !is_enabled(p, &here)? {
                    continue;
                }
            }
            let after = steps
                .post(enc, &enc.single(&here).map_err(oom)?)
                .map_err(oom)?
                .and(&within)
                .map_err(oom)?;
            here = enc.first(&after).map_err(oom)?.ok_or_else(broken)?;
            path.push(here.clone());
            movers.push(Some(p));
        }
        let home = enc.single(&from).map_err(oom)?;
        if let Some(back) = ask.walk_within(&here, &home, &within)? {
            movers.extend(back.iter().map(|_| None));
            path.extend(back);
            return Ok(FairCycle {
                on: from,
                steps: path,
                movers,
            });
        }
        // `from` is not reached again: go on from where the walk is, among
        // what it reaches (fewer configurations each time).
        within = reached_within(ask, &here, &within)?;
        from = here;
    }
}

/// The configurations of `within` that runs from `from` reach within it.
fn reached_within(ask: &Asker, from: &Config, within: &F) -> Result<F, Refusal> {
    let enc = &ask.sym.enc;
    let mut all = enc.single(from).map_err(oom)?;
    loop {
        let more = all
            .or(&ask
                .rel
                .post(enc, &all)
                .map_err(oom)?
                .and(within)
                .map_err(oom)?)
            .map_err(oom)?;
        if more == all {
            return Ok(all);
        }
        all = more;
    }
}
