//! The program's properties of runs on diagrams, the questions the
//! explicit engine asks (see `crate::verify::properties`) over sets:
//! `always P` (a nearest configuration outside P), `sometimes P` (a
//! nearest one in P), `stable P` (a nearest step from P out of it),
//! `P leads_to Q` (a nearest configuration of P from which some run stays
//! outside Q for ever: to a run's end, or round a cycle, under weak
//! fairness a weakly fair one). Said of every process, each in turn, each
//! predicate's parts local to that process asked of it.

use super::fair::{fair_cycle, fair_states, Fairness as FairSteps};
use super::local::oom;
use super::predicate::set_of;
use super::search::Asker;
use super::F;
use crate::compile::by_process::ByProcess;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::PROPERTY;
use crate::state::Config;
use crate::syntax::ast::Temporal;
use crate::verify::properties::{fairness_of, Counterexample as Lasso, Outcome as Found};
use crate::verify::{Fairness, PropertyVerdict, Refusal};
use oxidd::BooleanFunction;

/// Every property of the program under the asker's daemon, the command
/// asking about `asked` runs.
pub(super) fn check(ask: &Asker, asked: Fairness) -> Result<Vec<PropertyVerdict>, Refusal> {
    let inst = ask.sym.inst;
    let mut out = Vec::with_capacity(inst.code.properties.len());
    // Each process's fair steps, made once where some property needs them.
    let mut fair_steps = None;
    for prop in &inst.code.properties {
        let fairness = fairness_of(asked, prop);
        let mut verdict = PropertyVerdict {
            name: prop.name.clone(),
            form: crate::verify::properties::form_name(inst, prop),
            process: None,
            holds: true,
            not_checked: None,
            fairness,
            run: None,
        };
        let form = match (&prop.by_process, fairness) {
            (None, _) => {
                verdict.not_checked = Some(
                    "its predicates are not combinations of `forall`, `exists` and `count` over processes with bodies local to each (or to the process it is said of), which the symbolic engine needs: --engine explicit checks it".into(),
                );
                out.push(verdict);
                continue;
            }
            (Some(Temporal::LeadsTo(..)), Fairness::Strong) => {
                verdict.not_checked = Some(
                    "the symbolic engine decides weak fairness only: --engine explicit checks it under strong fairness".into(),
                );
                out.push(verdict);
                continue;
            }
            (Some(form), _) => form,
        };
        let processes: Vec<Option<usize>> = match prop.each {
            Some(_) => (0..inst.topo.n()).map(Some).collect(),
            None => vec![None],
        };
        let what = format!("{}: property `{}` (symbolic)", ask.daemon.name(), prop.name);
        for p in processes {
            ask.sym.note(&what, p.unwrap_or(0) as u64)?;
            let found = match form {
                Temporal::Always(b) => {
                    let holds = holding(ask, b, p)?;
                    let outside = ask.scope.and(&holds.not().map_err(oom)?).map_err(oom)?;
                    match ask.nearest(&outside)? {
                        Some(at) => Found::Fails(Some((ask.run_to(at, &[], &[])?, None))),
                        None => Found::Holds,
                    }
                }
                Temporal::Sometimes(b) => match ask.nearest(&holding(ask, b, p)?)? {
                    Some(at) if p.is_none() => Found::Example(ask.run_to(at, &[], &[])?),
                    Some(_) => Found::Holds,
                    None => Found::Fails(None),
                },
                Temporal::Stable(b) => Found::unless(leaving(ask, &holding(ask, b, p)?)?),
                Temporal::LeadsTo(pb, qb) => {
                    let (from, to) = (holding(ask, pb, p)?, holding(ask, qb, p)?);
                    let weakly =
                        fairness == Fairness::Weak && !matches!(ask.daemon, Daemon::Synchronous);
                    if weakly && fair_steps.is_none() {
                        fair_steps = Some(FairSteps::new(ask)?);
                    }
                    let steps = fair_steps.as_ref().filter(|_| weakly);
                    Found::unless(never_reaching(ask, &from, &to, steps)?)
                }
            };
            if verdict.take(p, found) {
                break;
            }
        }
        out.push(verdict);
    }
    Ok(out)
}

/// The configurations in scope where `pred` holds, asked of process `p`
/// where the property is said of each.
fn holding(ask: &Asker, pred: &ByProcess, p: Option<usize>) -> Result<F, Refusal> {
    let (sym, enc) = (ask.sym, &ask.sym.enc);
    let set = set_of(sym.inst, enc, pred, PROPERTY, p)?;
    set.and(&ask.scope).map_err(oom)
}

/// A nearest step from a configuration of `holds` to one outside it.
fn leaving(ask: &Asker, holds: &F) -> Result<Option<Lasso>, Refusal> {
    let enc = &ask.sym.enc;
    let outside = ask.scope.and(&holds.not().map_err(oom)?).map_err(oom)?;
    let into = ask.rel.pre(enc, &outside).map_err(oom)?;
    let from = holds.and(&into).map_err(oom)?;
    let Some(at) = ask.nearest(&from)? else {
        return Ok(None);
    };
    let to = ask.successor_in(&at, &outside)?;
    Ok(Some((ask.run_to(at, &[to], &[])?, None)))
}

/// A nearest configuration of `from` from which some run never reaches
/// `to` (with `fair`, each process's fair steps: some weakly fair run),
/// and that run: to its end, or to a cycle and once round it.
fn never_reaching(
    ask: &Asker,
    from: &F,
    to: &F,
    fair: Option<&FairSteps>,
) -> Result<Option<Lasso>, Refusal> {
    let enc = &ask.sym.enc;
    let outside = ask.scope.and(&to.not().map_err(oom)?).map_err(oom)?;
    // Where a run ends: no step leads on (no process enabled, every move
    // faults, or from a start an invariant fails).
    let on = ask.rel.pre(enc, &enc.universe).map_err(oom)?;
    let ends = outside.and(&on.not().map_err(oom)?).map_err(oom)?;
    // Those with a way outside `to` to a run's end: the least fixpoint.
    let mut to_end = ends.clone();
    loop {
        let before = ask.rel.pre(enc, &to_end).map_err(oom)?;
        let more = to_end
            .or(&outside.and(&before).map_err(oom)?)
            .map_err(oom)?;
        if more == to_end {
            break;
        }
        to_end = more;
    }
    // Those with a run that stays outside for ever: the greatest fixpoint,
    // then under weak fairness those with a fair such run.
    let mut stay = outside.clone();
    loop {
        let next = stay
            .and(&ask.rel.pre(enc, &stay).map_err(oom)?)
            .map_err(oom)?;
        if next == stay {
            break;
        }
        stay = next;
    }
    if let Some(steps) = fair {
        stay = fair_states(ask, steps, &stay)?;
    }
    let bad = from.and(&to_end.or(&stay).map_err(oom)?).map_err(oom)?;
    let Some(at) = ask.nearest(&bad)? else {
        return Ok(None);
    };
    let single = enc.single(&at).map_err(oom)?;
    if single.and(&to_end).map_err(oom)?.satisfiable() {
        // A shortest way to a run's end, outside `to`.
        let path = match single.and(&ends).map_err(oom)?.satisfiable() {
            true => Vec::new(),
            false => ask.walk_within(&at, &ends, &outside)?.ok_or_else(broken)?,
        };
        return Ok(Some((ask.run_to(at, &path, &[])?, None)));
    }
    let (walk, cycle, movers) = match fair {
        Some(steps) => {
            let c = fair_cycle(ask, steps, at.clone(), &stay)?;
            let walk = match c.on == at {
                true => Vec::new(),
                false => {
                    let on = enc.single(&c.on).map_err(oom)?;
                    ask.walk_within(&at, &on, &stay)?.ok_or_else(broken)?
                }
            };
            (walk, c.steps, c.movers)
        }
        None => {
            let (walk, cycle) = lasso_within(ask, &at, &stay)?;
            (walk, cycle, Vec::new())
        }
    };
    let cycle_from = ask.steps_to(&at)? + walk.len();
    let movers = [vec![None; walk.len()], movers].concat();
    let rest = [walk, cycle].concat();
    Ok(Some((ask.run_to(at, &rest, &movers)?, Some(cycle_from))))
}

/// From `at`, within `stay` (where every configuration has a step that
/// stays): a walk to a configuration on a cycle (its configurations after
/// each step), then a shortest cycle through it (its steps back to it).
fn lasso_within(ask: &Asker, at: &Config, stay: &F) -> Result<(Vec<Config>, Vec<Config>), Refusal> {
    let enc = &ask.sym.enc;
    let mut seen = std::collections::HashMap::new();
    let mut path = vec![at.clone()];
    seen.insert(at.rows.clone(), 0);
    let first = loop {
        let next = ask.successor_in(&path[path.len() - 1], stay)?;
        if let Some(&k) = seen.get(&next.rows) {
            break k;
        }
        seen.insert(next.rows.clone(), path.len());
        path.push(next);
    };
    path.truncate(first + 1);
    let on = path[first].clone();
    let home = enc.single(&on).map_err(oom)?;
    let cycle = ask.walk_within(&on, &home, stay)?.ok_or_else(broken)?;
    path.remove(0);
    Ok((path, cycle))
}

fn broken() -> Refusal {
    Refusal::Unsupported(
        "internal: a broken run in a property's counterexample (please report it)".into(),
    )
}
