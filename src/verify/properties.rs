//! The program's properties of runs (`property NAME: FORM`), checked on the
//! configurations explored under one daemon: `always P` (a nearest
//! configuration where P fails, and a run to it), `sometimes P` (a nearest
//! configuration where P holds, and a run to it), `stable P` (no step from
//! P to not P), `P leads_to Q` (no run through P that never reaches Q: a
//! configuration outside Q from which some run stays outside it for ever,
//! round a cycle (under fairness a fair one) or to its end, found
//! among the strongly connected components of the steps outside Q).
//! Said of every process, each in turn.

use super::fair_cores::{
    components, inside_steps, strong_cores, StepTable, ANY_MOVERS, NO_COMPONENT,
};
use super::fairness::every_process;
use super::process_bits::{as_bits, enabled_as_bits};
use super::search::Search;
use super::tours::{fair_tour, walk, Outside};
use super::{Explorer, Fairness, Refusal, Run, PROGRESS_EVERY};
use crate::runtime::step::Move;
use crate::syntax::ast::{Assumed, Temporal};

/// What one property came to under one daemon.
#[derive(Clone, Debug)]
pub struct PropertyVerdict {
    /// Its name.
    pub name: String,
    /// Its form: `always`, `sometimes`, `stable`, `leads_to`, or `always
    /// eventually` (a `leads_to` from `true`, which verdicts word apart).
    pub form: &'static str,
    /// Where it is said of every process and fails, the process.
    pub process: Option<usize>,
    /// Whether it holds (true where not checked).
    pub holds: bool,
    /// Why it was not checked, where it was not: the steps it needs would
    /// pass half the memory budget.
    pub not_checked: Option<String>,
    /// The runs it was asked of: the fairness it assumes or the one
    /// asked for, whichever assumes more.
    pub fairness: Fairness,
    /// The run that shows it: for `sometimes`, an example (where it holds
    /// of one configuration); else a counterexample, with where its cycle
    /// begins among its steps if it ends round one.
    pub run: Option<(Run, Option<usize>)>,
}

/// A counterexample: the run, and where its cycle begins among its steps
/// if it ends round one.
pub(super) type Counterexample = (Run, Option<usize>);

/// What a property came to at one process (or, said of one configuration,
/// at all), by either engine.
pub(super) enum Outcome {
    Holds,
    /// It holds, as this run shows (`sometimes`).
    Example(Run),
    /// It fails, as this run shows where one does.
    Fails(Option<Counterexample>),
}

impl Outcome {
    /// Fails with `counterexample`, if there is one.
    pub(super) fn unless(counterexample: Option<Counterexample>) -> Self {
        counterexample.map_or(Outcome::Holds, |run| Outcome::Fails(Some(run)))
    }
}

impl PropertyVerdict {
    /// Takes what the property came to at process `p` (`None` where it is
    /// said of one configuration): the example of a `sometimes` said of one
    /// configuration is kept, a failure names the process and its run.
    /// Whether it failed (the processes after `p` are not asked).
    pub(super) fn take(&mut self, p: Option<usize>, outcome: Outcome) -> bool {
        match outcome {
            Outcome::Example(run) if p.is_none() => {
                self.run = Some((run, None));
                false
            }
            Outcome::Example(_) | Outcome::Holds => false,
            Outcome::Fails(run) => {
                self.holds = false;
                self.process = p;
                self.run = run;
                true
            }
        }
    }
}

/// Every property of the explorer's program, under the search's daemon.
pub(super) fn check(s: &mut Search, ex: &Explorer) -> Result<Vec<PropertyVerdict>, Refusal> {
    let mut out = Vec::new();
    if ex.inst.code.properties.is_empty() {
        return Ok(out);
    }
    // What every property asks of every configuration, found once.
    let chosen = chosen_actions(ex)?;
    let mut kept_steps: Option<Result<StepTable, String>> = None;
    // The steps' movers are kept only where some property asks for a fair
    // cycle: else where a step leads is all that matters.
    let fairly = |prop: &crate::compile::CProperty| {
        fairness_of(s.fairness(), prop) != Fairness::Unfair
            && matches!(prop.form, Temporal::LeadsTo(..))
    };
    let keep_movers = ex.inst.code.properties.iter().any(fairly);
    // Each configuration's enabled processes as bits, from `chosen`.
    let mut enabled: Option<Vec<u64>> = None;
    for prop in &ex.inst.code.properties {
        let processes: Vec<Option<usize>> = match prop.each {
            Some(_) => (0..ex.inst.topo.n()).map(Some).collect(),
            None => vec![None],
        };
        let form = form_name(ex.inst, prop);
        let fairness = fairness_of(s.fairness(), prop);
        let mut verdict = PropertyVerdict {
            name: prop.name.clone(),
            form,
            process: None,
            holds: true,
            not_checked: None,
            fairness,
            run: None,
        };
        // The steps, for the forms that follow them.
        let table = match &prop.form {
            Temporal::Stable(_) | Temporal::LeadsTo(..) => {
                match all_steps(&mut kept_steps, s, ex, keep_movers)? {
                    Ok(table) => Some(table),
                    Err(why) => {
                        verdict.not_checked = Some(why.clone());
                        out.push(verdict);
                        continue;
                    }
                }
            }
            _ => None,
        };
        // Per predicate, whether it holds of each configuration (per
        // process where said of each).
        let held: Vec<Vec<Vec<bool>>> = prop
            .form
            .predicates()
            .into_iter()
            .map(|t| holding((s.daemon_name(), ex), &chosen, t, prop.each))
            .collect::<Result<_, _>>()?;
        let mut lassos = match (&prop.form, table) {
            (Temporal::LeadsTo(..), Some(steps)) => {
                let enabled = enabled.get_or_insert_with(|| {
                    let n = ex.inst.topo.n();
                    chosen.chunks(n.max(1)).map(enabled_as_bits).collect()
                });
                let asked = Asked {
                    steps,
                    fairness,
                    enabled,
                    everyone: everyone(ex, fairness)?,
                };
                let what = format!("{}: property `{}`", s.daemon_name(), prop.name);
                let tell = |done, total| ex.tell(&what, done, total);
                lassos(&asked, &held, s.threads(), &tell)?
            }
            _ => Vec::new(),
        };
        for p in processes {
            let holds = &held[0][p.unwrap_or(0)];
            let found = match &prop.form {
                Temporal::Always(_) => match (0..ex.count).find(|&i| !holds[i as usize]) {
                    Some(i) => Outcome::Fails(Some((ex.run_to(i, Vec::new()), None))),
                    None => Outcome::Holds,
                },
                Temporal::Sometimes(_) => match (0..ex.count).find(|&i| holds[i as usize]) {
                    Some(i) if p.is_none() => Outcome::Example(ex.run_to(i, Vec::new())),
                    Some(_) => Outcome::Holds,
                    None => Outcome::Fails(None),
                },
                Temporal::Stable(_) => {
                    let steps = table.expect("kept for stable");
                    Outcome::unless(leaving(s, ex, steps, holds)?.map(|run| (run, None)))
                }
                Temporal::LeadsTo(..) => {
                    let lasso = lassos.get_mut(p.unwrap_or(0)).and_then(Option::take);
                    Outcome::unless(never_reaching(s, ex, lasso)?)
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

/// The runs `prop` is asked of when the command asks about `asked`: its
/// own assumption or the command's, whichever assumes more.
pub(super) fn fairness_of(asked: Fairness, prop: &crate::compile::CProperty) -> Fairness {
    match prop.fairness {
        None => asked,
        Some(Assumed::Weak) => asked.max(Fairness::Weak),
        Some(Assumed::Strong) => Fairness::Strong,
    }
}

/// Every process's chosen action in every configuration explored (what
/// `enabled(p)` reads), one row of n after another.
fn chosen_actions(ex: &Explorer) -> Result<Vec<u16>, Refusal> {
    let rel = ex.inst.step_relation();
    let mut all = Vec::with_capacity(ex.count as usize * ex.inst.topo.n());
    let mut row = Vec::new();
    let mut cfg = ex.states.config(0);
    for i in 0..ex.count {
        ex.states.config_into(i, &mut cfg);
        rel.chosen_into(&cfg, &mut row)
            .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
        all.extend_from_slice(&row);
    }
    Ok(all)
}

/// Whether `test` holds in each configuration explored: said of each
/// process (`slot` the property's slot), one list per process; else one
/// list. Each configuration is decoded once for all of them; `chosen`
/// holds its processes' chosen actions.
fn holding(
    (daemon, ex): (&str, &Explorer),
    chosen: &[u16],
    test: &crate::compile::BFn,
    slot: Option<usize>,
) -> Result<Vec<Vec<bool>>, Refusal> {
    let rel = ex.inst.step_relation();
    let n = ex.inst.topo.n();
    let lists = if slot.is_some() { n } else { 1 };
    let mut out = vec![Vec::with_capacity(ex.count as usize); lists];
    let mut row = Vec::with_capacity(n);
    let mut cfg = ex.states.config(0);
    for i in 0..ex.count {
        if u64::from(i).is_multiple_of(PROGRESS_EVERY) {
            let what = format!("{daemon}: properties, their predicates");
            ex.tell(&what, u64::from(i), u64::from(ex.count))?;
        }
        ex.states.config_into(i, &mut cfg);
        let at = i as usize * n;
        row.clear();
        row.extend_from_slice(&chosen[at..at + n]);
        for (p, list) in out.iter_mut().enumerate() {
            let holds = rel
                .property_holds(&cfg, &row, test, slot.map(|s| (s, p)))
                .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
            list.push(holds);
        }
    }
    Ok(out)
}

/// Every step from every configuration explored, found the first time
/// they are asked for (with their movers if `movers`); `Err` saying why
/// where they would pass half the memory budget.
fn all_steps<'s>(
    kept: &'s mut Option<Result<StepTable, String>>,
    s: &mut Search,
    ex: &Explorer,
    movers: bool,
) -> Result<Result<&'s StepTable, &'s String>, Refusal> {
    if kept.is_none() {
        *kept = Some(list_steps(s, ex, movers)?);
    }
    Ok(kept.as_ref().expect("found above").as_ref())
}

/// Every step from every configuration explored, in blocks of
/// configurations taken by the search's threads in turn, each with a
/// search of its own (this one's on the calling thread, which tells the
/// progress); `Err` saying why once the tables pass half the memory
/// budget.
fn list_steps(
    s: &mut Search,
    ex: &Explorer,
    movers: bool,
) -> Result<Result<StepTable, String>, Refusal> {
    use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
    const BLOCK: u32 = 1 << 14;
    let budget = crate::memory::limit() / 2;
    let (count, blocks) = (ex.count, ex.count.div_ceil(BLOCK));
    let (next, used, over) = (AtomicU32::new(0), AtomicU64::new(0), AtomicBool::new(false));
    let what = format!("{}: properties, listing the steps", s.daemon_name());
    let work = |search: &mut Search, tell: bool| -> Result<Vec<(u32, StepTable)>, Refusal> {
        let (mut mine, mut out) = (Vec::new(), Vec::new());
        loop {
            let b = next.fetch_add(1, Relaxed);
            if b >= blocks || over.load(Relaxed) {
                return Ok(mine);
            }
            let (lo, hi) = (b * BLOCK, (b * BLOCK).saturating_add(BLOCK).min(count));
            if tell {
                ex.tell(&what, u64::from(lo), u64::from(count))?;
            }
            let mut table = StepTable::keeping((hi - lo) as usize, movers);
            for i in lo..hi {
                search.successors(i, &mut out)?;
                table.push(out.iter().map(|e| (e.to, e.movers)));
            }
            if used.fetch_add(table.bytes(), Relaxed) + table.bytes() > budget {
                over.store(true, Relaxed);
            }
            mine.push((b, table));
        }
    };
    let (daemon, fairness, threads) = (s.daemon(), s.fairness(), s.threads().clamp(1, 64));
    let listed: Result<Vec<(u32, StepTable)>, Refusal> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map(|_| {
                let work = &work;
                scope.spawn(move || work(&mut Search::new(ex, daemon, fairness), false))
            })
            .collect();
        let mut all = work(s, true)?;
        for other in others {
            let theirs = other
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))?;
            all.extend(theirs);
        }
        Ok(all)
    });
    let mut parts = listed?;
    if over.load(Relaxed) {
        let listed: usize = parts.iter().map(|(_, t)| t.len()).sum();
        return Ok(Err(format!(
            "the steps it follows pass half the memory budget ({} MB) by {listed} configurations of {count}: raise --memory-limit, or drop it with --no-properties",
            budget >> 20
        )));
    }
    parts.sort_unstable_by_key(|&(b, _)| b);
    let mut steps = StepTable::keeping(count as usize, movers);
    steps.reserve(parts.iter().map(|(_, t)| t.steps()).sum());
    for (_, part) in parts {
        steps.append(part);
    }
    Ok(Ok(steps))
}

/// A step from a configuration where `holds` to one where not, as a run
/// (from a start, a nearest one).
fn leaving(
    s: &mut Search,
    ex: &Explorer,
    steps: &StepTable,
    holds: &[bool],
) -> Result<Option<Run>, Refusal> {
    let found = (0..ex.count as usize).filter(|&i| holds[i]).find_map(|i| {
        let mut out = steps.from(i).filter(|&(j, _)| !holds[j as usize]);
        out.next().map(|(j, movers)| (i as u32, j, movers))
    });
    let Some((i, j, movers)) = found else {
        return Ok(None);
    };
    Ok(Some(ex.run_to(i, vec![moves_of_step(s, i, (j, movers))?])))
}

/// The moves of the first step from `i` to `j` with these movers (as
/// bits; [`ANY_MOVERS`]: any).
fn moves_of_step(s: &mut Search, i: u32, (j, movers): (u32, u64)) -> Result<Vec<Move>, Refusal> {
    let e = s
        .edges(i)?
        .into_iter()
        .find(|e| {
            e.to == j
                && (movers == ANY_MOVERS || as_bits(e.moves.iter().map(|m| &m.process)) == movers)
        })
        .expect("a step found among the edges");
    Ok(e.moves)
}

/// A run through a configuration where `from` holds that never reaches
/// one where `to` holds, if there is one, with where its cycle begins.
fn never_reaching(
    s: &mut Search,
    ex: &Explorer,
    lasso: Option<Lasso>,
) -> Result<Option<Counterexample>, Refusal> {
    let Some(Lasso {
        start,
        steps,
        cycle_from,
    }) = lasso
    else {
        return Ok(None);
    };
    // The moves of each step: the first the daemon allows between the two.
    let mut moves: Vec<Vec<Move>> = Vec::with_capacity(steps.len());
    let mut at = start;
    for &(j, movers) in &steps {
        moves.push(moves_of_step(s, at, (j, movers))?);
        at = j;
    }
    let run = ex.run_to(start, moves);
    let prefix = run.steps.len() - steps.len();
    Ok(Some((run, cycle_from.map(|c| c + prefix))))
}

/// A run outside Q that never reaches it: where it starts (a
/// configuration where P holds), its steps (where each leads, its
/// movers), and where its cycle begins among them (`None`: it ends).
struct Lasso {
    start: u32,
    steps: Vec<(u32, u64)>,
    cycle_from: Option<usize>,
}

/// What every `leads_to` of one property is asked under: the steps, the
/// fairness, each configuration's enabled processes, all processes as
/// bits.
struct Asked<'a> {
    steps: &'a StepTable,
    fairness: Fairness,
    enabled: &'a [u64],
    everyone: u64,
}

/// Every process as a bit, where `fairness` follows them (at most 64;
/// past that fairness is refused); unfair, every bit.
fn everyone(ex: &Explorer, fairness: Fairness) -> Result<u64, Refusal> {
    match fairness {
        Fairness::Unfair => Ok(u64::MAX),
        _ => every_process(ex),
    }
}

/// The [`Lasso`] of each list of `held` (per process, or one): P's
/// lists, then Q's. On up to `threads` threads at once, as many as half
/// the memory budget holds (a search keeps some 48 bytes a
/// configuration); the rest are not sought once one is found, as the
/// first process it fails for is the one reported.
fn lassos(
    asked: &Asked,
    held: &[Vec<Vec<bool>>],
    threads: usize,
    tell: &dyn Fn(u64, u64) -> Result<(), Refusal>,
) -> Result<Vec<Option<Lasso>>, Refusal> {
    use rayon::prelude::*;
    let each = 48 * asked.steps.len().max(1) as u64;
    let threads = threads.min((crate::memory::limit() / 2 / each).max(1) as usize);
    let lists = held[0].len();
    let mut out: Vec<Option<Lasso>> = Vec::with_capacity(lists);
    for batch in (0..lists).collect::<Vec<_>>().chunks(threads.max(1)) {
        tell(batch[0] as u64, lists as u64)?;
        let found: Vec<Option<Lasso>> = batch
            .par_iter()
            .map(|&p| lasso(asked, (&held[0][p], &held[1][p])))
            .collect();
        let done = found.iter().any(Option::is_some);
        out.extend(found);
        if done {
            break;
        }
    }
    Ok(out)
}

/// A [`Lasso`] through a configuration where `from` holds that never
/// reaches one where `to` holds, if there is one. Where a run can stay
/// outside Q for ever: a configuration with no step, or a cycle (under
/// fairness a fair one) in a strongly connected component of the steps
/// outside Q; a configuration fails when it has a way to one, which
/// Tarjan's numbering (a component after every one it leads to) gives in
/// one pass over the steps.
fn lasso(asked: &Asked, (from, to): (&[bool], &[bool])) -> Option<Lasso> {
    let Asked {
        steps,
        fairness,
        enabled,
        everyone,
    } = *asked;
    let n = steps.len();
    let g = Outside {
        within: to.iter().map(|&q| !q).collect(),
        steps,
    };
    let component = components(steps, &g.within);
    let count = component.iter().map(|&c| c + 1).max().unwrap_or(0);
    // Per configuration, the part whose cycles a run may go round for
    // ever (fair ones, under fairness), or none.
    let fair_part: Vec<usize> = match fairness {
        Fairness::Strong => strong_cores(steps, &g.within, enabled),
        _ => {
            let (cyclic, moved) = inside_steps(steps, &g.within, &component, count);
            let mut disabled = vec![0u64; count];
            for i in (0..n).filter(|&i| g.within[i]) {
                disabled[component[i]] |= everyone & !enabled[i];
            }
            let weakly = fairness == Fairness::Weak;
            let fair = |c: usize| cyclic[c] && (!weakly || (disabled[c] | moved[c]) == everyone);
            (0..n)
                .map(|i| match g.within[i] && fair(component[i]) {
                    true => component[i],
                    false => NO_COMPONENT,
                })
                .collect()
        }
    };
    let trap = |i: usize| g.ends(i) || fair_part[i] != NO_COMPONENT;
    // The configurations of each component, components in Tarjan's order:
    // one leads only to those before it.
    let mut first = vec![0u32; count + 1];
    for i in (0..n).filter(|&i| g.within[i]) {
        first[component[i] + 1] += 1;
    }
    for c in 0..count {
        first[c + 1] += first[c];
    }
    let mut members = vec![0u32; first[count] as usize];
    let mut filled = first.clone();
    for i in (0..n).filter(|&i| g.within[i]) {
        members[filled[component[i]] as usize] = i as u32;
        filled[component[i]] += 1;
    }
    drop(filled);
    let mut bad = vec![false; count];
    for c in 0..count {
        let of_c = &members[first[c] as usize..first[c + 1] as usize];
        bad[c] = of_c.iter().any(|&i| {
            trap(i as usize)
                || g.succ(i as usize)
                    .any(|(j, _)| component[j as usize] != c && bad[component[j as usize]])
        });
    }
    let start = (0..n).find(|&i| from[i] && g.within[i] && bad[component[i]])?;
    // On to the nearest trap, then round its part's cycle.
    let path = walk(&g, start as u32, |j| trap(j as usize), |_| true, false)
        .expect("a trap is reached from where it was found");
    let end = path.last().map_or(start as u32, |&(j, _)| j);
    let mut run: Vec<(u32, u64)> = path;
    let cycle_from = match g.ends(end as usize) {
        true => None,
        false => {
            let c = fair_part[end as usize];
            let inside = |j: u32| fair_part[j as usize] == c;
            let before = run.len();
            let tour = match fairness {
                Fairness::Unfair => walk(&g, end, |j| j == end, inside, true),
                _ => fair_tour(&g, end, &inside, enabled, everyone, fairness),
            };
            run.extend(tour.expect("a cycle through a configuration of a cyclic component"));
            Some(before)
        }
    };
    Some(Lasso {
        start: start as u32,
        steps: run,
        cycle_from,
    })
}

/// The form a verdict names: the property's own, but `always eventually`
/// where it is `true leads_to Q` (as `always eventually Q` is read), since
/// a verdict about its first predicate would be about `true`.
pub(crate) fn form_name(
    inst: &crate::load::Instance,
    prop: &crate::compile::CProperty,
) -> &'static str {
    use crate::check::ir::BExpr;
    use crate::syntax::ast::Temporal;
    let written = inst.prog.properties.iter().find(|p| p.name == prop.name);
    match written.map(|p| &p.form) {
        Some(Temporal::LeadsTo(BExpr::Const(true), _)) => "always eventually",
        _ => prop.form.name(),
    }
}
