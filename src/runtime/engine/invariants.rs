//! Invariants asked again after a step where they all held before it:
//! the conjuncts over every process of a body local to it
//! (`forall(x in procs : body)`, `count(x in procs : body) <= k`, see
//! [`crate::check::ir::local_to`]) at the processes the step may have
//! changed the body of only, the counts kept from step to step, and a
//! local acyclicity invariant (`acyclic(x -> y : body)`) by an order of
//! its arcs kept from step to step, in which only the arcs from them are
//! looked at (see [`ArcOrder`]); anything else in full, as before. A step
//! changes nothing but its movers' rows, the channels at their ends and
//! their edges, and a local body reads its process, its neighbours, its
//! own channels and edges and its own enabledness: so only the movers and
//! the processes that read them (their neighbours) can change. Where one of these
//! finds a conjunct false, a cycle or a fault, the invariant is asked in
//! full, so that what is reported (which invariant, which fault) is what
//! the full evaluation says; the run stops there.

use super::arc_order::ArcOrder;
use super::*;
use crate::compile::LegitPart;
use crate::runtime::bits::Bits;

/// The cells the checks after a step work in, kept from step to step by
/// the run loop (whose steps alone change the configuration between two
/// checks): the processes to ask, the counts kept, and the marks of a
/// search for cycles.
#[derive(Default)]
pub struct InvariantChecks {
    /// Whether every invariant held at the last check.
    held: bool,
    asked: Vec<u32>,
    /// Per invariant and conjunct, for a count: the processes where its
    /// body holds, and how many; made at the first check after a step,
    /// dropped whenever the invariants are asked in full.
    counts: Vec<Vec<Option<(Bits, i64)>>>,
    /// Per invariant, for an acyclicity: an order of its arcs, kept as
    /// the counts are.
    orders: Vec<Option<ArcOrder>>,
}

/// Past what share of the processes a step's are asked in full instead
/// (half: a synchronous step moves them all, and asking each with its
/// neighbours would cost more).
const MOST_ASKED_SHARE: usize = 2;

impl Simulation {
    /// The first declared invariant that does not hold now, where `checks`
    /// was given every check since the run's start (the first in full,
    /// as [`Simulation::violated_invariant`] does it), each after one
    /// step.
    pub fn violated_invariant_checked(
        &self,
        checks: &mut InvariantChecks,
    ) -> Result<Option<usize>, RunError> {
        let incremental = checks.held && self.ask_after_step(checks);
        let violated = match incremental {
            true => self.violated_after_step(checks),
            false => {
                checks.counts.clear();
                checks.orders.clear();
                self.violated_invariant()
            }
        };
        checks.held = matches!(violated, Ok(None));
        violated
    }

    /// Lists in `checks.asked`, in increasing order, the processes the last
    /// step may have changed a local body at; false where the step is not
    /// one whose movers are listed (a tick, a column step) or where they
    /// are more than half the processes.
    fn ask_after_step(&self, checks: &mut InvariantChecks) -> bool {
        let last = &self.progress.last;
        let n = self.topo.n();
        // Timers advance at every process when a round ends, and a step of
        // delayed messages is a tick of many moves.
        let timed = !self.code.timers.is_empty() || self.code.delay.is_some();
        if timed || last.lazy || last.tick || last.whole || last.movers.is_empty() {
            return false;
        }
        checks.asked.clear();
        for &m in &last.movers {
            let m = m as usize;
            checks.asked.push(m as u32);
            checks.asked.extend_from_slice(self.topo.readers(m));
            checks.asked.extend_from_slice(self.topo.nbrs(m));
            if checks.asked.len() > MOST_ASKED_SHARE * n {
                return false;
            }
        }
        checks.asked.sort_unstable();
        checks.asked.dedup();
        checks.asked.len() * MOST_ASKED_SHARE <= n
    }

    /// [`Simulation::violated_invariant`], each local invariant asked at
    /// the processes in `checks.asked` only, and in full where that finds
    /// anything amiss.
    fn violated_after_step(&self, checks: &mut InvariantChecks) -> Result<Option<usize>, RunError> {
        let env = self.env(0, &[]);
        let invariants = &self.code.invariants;
        checks.counts.resize_with(invariants.len(), Vec::new);
        checks.orders.resize_with(invariants.len(), || None);
        for (i, inv) in invariants.iter().enumerate() {
            let stands = match &inv.arcs {
                _ if !inv.parts.is_empty() => parts_stand(&env, &inv.parts, i, checks),
                Some((from, to, body)) => acyclic_stands(&env, i, (*from, *to, body), checks),
                None => false,
            };
            if stands {
                continue;
            }
            // Counts may have been left half kept: made again when next
            // asked for.
            checks.counts.iter_mut().for_each(Vec::clear);
            checks.orders.iter_mut().for_each(|order| *order = None);
            match inv.test.holds(&env) {
                Ok(true) => {}
                Ok(false) => return Ok(Some(i)),
                Err(fault) => return Err(predicate_fault(self.progress.steps, INVARIANT, fault)),
            }
        }
        Ok(None)
    }
}

/// Whether every conjunct of invariant `i` (its `parts`) holds, asked
/// at the processes of `checks.asked` (its counts kept there, made first
/// where they are not yet) and in full where it is not over processes.
fn parts_stand(env: &Env, parts: &[LegitPart], i: usize, checks: &mut InvariantChecks) -> bool {
    let n = env.topo.n();
    let holds_at = |slot: usize, body: &crate::compile::BFn, p: usize| {
        env.locals[slot].set(p as i64);
        body.holds(env).ok()
    };
    let counts = &mut checks.counts[i];
    counts.resize_with(parts.len(), || None);
    for (part, kept) in parts.iter().zip(counts.iter_mut()) {
        let stands = match part {
            LegitPart::Forall(slot, body, _) => checks
                .asked
                .iter()
                .all(|&p| holds_at(*slot, body, p as usize) == Some(true)),
            LegitPart::Count(slot, body, op, k) => {
                if kept.is_none() {
                    let mut bits = Bits::new(n);
                    let mut count = 0;
                    for p in 0..n {
                        let Some(holds) = holds_at(*slot, body, p) else {
                            return false;
                        };
                        if holds {
                            bits.set(p);
                            count += 1;
                        }
                    }
                    *kept = Some((bits, count));
                }
                let Some((bits, count)) = kept else {
                    return false;
                };
                for &p in &checks.asked {
                    let Some(holds) = holds_at(*slot, body, p as usize) else {
                        return false;
                    };
                    if holds != bits.get(p as usize) {
                        match holds {
                            true => bits.set(p as usize),
                            false => {
                                bits.take(p as usize);
                            }
                        }
                        *count += if holds { 1 } else { -1 };
                    }
                }
                op.holds(*count, *k)
            }
            LegitPart::Whole(f) => matches!(f.holds(env), Ok(true)),
        };
        if !stands {
            return false;
        }
    }
    true
}

/// Whether no cycle of arcs (`body` holding for `from` and a neighbour
/// `to`) is there now, invariant `i` being an acyclicity: by its order
/// of arcs from before the step, where it has one, in which only the arcs
/// from the processes of `checks.asked` can have changed (see
/// [`ArcOrder::still_acyclic`]); else by making one from every arc. The
/// order is dropped where this finds a cycle or a fault.
fn acyclic_stands(
    env: &Env,
    i: usize,
    (from, to, body): (usize, usize, &crate::compile::BFn),
    checks: &mut InvariantChecks,
) -> bool {
    let mut arc = |p: u32, q: u32| {
        env.locals[from].set(i64::from(p));
        env.locals[to].set(i64::from(q));
        body.holds(env)
    };
    let order = &mut checks.orders[i];
    let stands = match order {
        Some(kept) => kept.still_acyclic(env.topo, &checks.asked, &mut arc),
        None => ArcOrder::of(env.topo, &mut arc).map(|made| {
            *order = made;
            order.is_some()
        }),
    };
    if !matches!(stands, Ok(true)) {
        *order = None;
    }
    matches!(stands, Ok(true))
}
