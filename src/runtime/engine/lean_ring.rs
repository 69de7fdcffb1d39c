//! The ring batch (see `ring_batch.rs`) where every role has one plain
//! action and every process one value, and legitimacy, if any, is a
//! count of enabled processes: Dijkstra's ring, and the usual rules of
//! self-stabilizing programs. A process is then enabled or not, its guard
//! is called without looking through its role's actions, and the loop
//! keeps what it reads in a table of its own, small enough to stay in
//! the nearest cache. A guard that compares two reads and a statement
//! that assigns one (`x != left.x -> x := left.x`, see
//! [`crate::compile::InlineGuard`]) the loop evaluates itself, without a
//! call or an environment: 310 instructions a step of Dijkstra's ring of
//! 1,000 became 256. The same steps as the ring batch, kept as it keeps
//! them: tests/single_move.rs holds both to steps taken one at a time.

use super::bookkeeping::{ring_neighbours, settle_choice};
use super::ring_batch::{next_mover, Batch, Taken};
use super::*;
use crate::check::ir::Cmp;
use crate::compile::{BFn, InlineAssign, InlineGuard, SFn};
use crate::runtime::error::guard_fault;

/// A role's one action, as the loop calls it.
pub(super) struct LeanAction<'c> {
    body: &'c SFn,
    guard: &'c BFn,
    /// The guard, where the loop evaluates it itself.
    inline_guard: Option<InlineGuard>,
    /// The statement, where the loop makes the move itself.
    inline_assign: Option<InlineAssign>,
    /// Where its moves are counted.
    place: usize,
    /// Whether a move of it leaves its mover disabled (see
    /// [`crate::compile::CAction::disables_mover`]).
    disables: bool,
}

/// Per role, its one action, where every role has one plain action (no
/// binder, no receive, no draw), a process one value, no channels and
/// legitimacy, if any, a count of enabled processes; else `None`.
pub(super) fn lean_actions(code: &Compiled) -> Option<Vec<LeanAction<'_>>> {
    let plain = code.stride == 1
        && code.capacity.is_none()
        && (code.legitimate.is_none() || code.legit_enabled_count.is_some());
    if !plain {
        return None;
    }
    code.roles
        .iter()
        .map(|role| match &role.actions[..] {
            [a] if a.binder.is_none() && a.receive_from.is_none() && !a.draws => Some(LeanAction {
                body: &a.body,
                guard: &a.guard,
                inline_guard: a.inline_guard,
                inline_assign: a.inline_assign,
                place: a.place as usize,
                disables: a.disables_mover,
            }),
            _ => None,
        })
        .collect()
}

/// Whether every role's guard is evaluated in the loop itself: the loop
/// then needs an environment only for a statement it does not make
/// itself.
pub(super) fn guards_inline(actions: &[LeanAction]) -> bool {
    actions.iter().all(|a| a.inline_guard.is_some())
}

impl Simulation {
    /// The loop of the ring batch on a lean program (`actions`, one per
    /// role, as [`lean_actions`] gives them; with `INLINE_GUARDS`, every
    /// guard inline): the same steps, in `batch`.
    #[inline(never)]
    pub(super) fn lean_ring_steps<const LOOK_AHEAD: bool, const INLINE_GUARDS: bool>(
        &mut self,
        actions: &[LeanAction],
        (readers, budget, until_legitimate, batch): ((bool, bool), u64, bool, &mut Batch),
    ) -> Result<(), RunError> {
        let (code, topo, state, rng, chans, progress, b) = self.loop_parts();
        let n = topo.n();
        let legit_count = code.legit_enabled_count;
        let cell = &b.scratch[0];
        let Batch { taken, last, draws } = batch;
        let legit_at = legit_count.map(|(op, k)| CountRange::of(op, k));
        // Where guards are called, the environment made after a step's
        // write serves the refreshes, then the next step's statement
        // (guards do not read `scratch`).
        let mut kept: Option<Env> = None;
        while *taken < budget {
            let stop = (1, until_legitimate);
            let Some(p) = next_mover::<LOOK_AHEAD>((draws, rng), progress, state, stop) else {
                break;
            };
            let role = progress.procs[p].role as usize;
            let action = &actions[role];
            let (before_p, after_p) = ring_neighbours(p as u32, n as u32);
            let (before_p, after_p) = (before_p as usize, after_p as usize);
            let before = state[p];
            let after = match action.inline_assign {
                Some(assign) => assign.value.get(state, 1, p, before_p),
                None => {
                    let mut env = kept
                        .take()
                        .unwrap_or_else(|| b.statement_env(state, topo, chans, p));
                    env.me = p;
                    cell.set(before);
                    if let Err(fault) = (action.body)(&env) {
                        *last = None;
                        fast::set_one(&mut progress.last.movers, p as u32);
                        let info = progress.procs[p];
                        return Err(self.single_move_fault(p, info, fault));
                    }
                    cell.get()
                }
            };
            state[p] = after;
            progress.moved[action.place] += 1;
            progress.steps += 1;
            progress.moves += 1;
            *taken += 1;
            *last = Some(Taken {
                mover: p as u32,
                action: 0,
                before,
            });
            // The mover, then its readers in index order, as
            // `refresh_ring` refreshes them.
            let mut env = (!INLINE_GUARDS).then(|| b.statement_env(state, topo, chans, p));
            let guards = (code, actions, &*state);
            if action.disables {
                settle_choice(progress, p as u32, NO_ACTION);
            } else {
                refresh(guards, progress, &mut env, (p, before_p))?;
            }
            let left_of = |q: usize| ring_neighbours(q as u32, n as u32).0 as usize;
            match readers {
                (true, false) => refresh(guards, progress, &mut env, (after_p, p))?,
                (false, true) => {
                    refresh(guards, progress, &mut env, (before_p, left_of(before_p)))?
                }
                (true, true) => {
                    let (before, after) = ((before_p, left_of(before_p)), (after_p, p));
                    let (low, high) = match before_p < after_p {
                        true => (before, after),
                        false => (after, before),
                    };
                    refresh(guards, progress, &mut env, low)?;
                    refresh(guards, progress, &mut env, high)?;
                }
                (false, false) => {}
            }
            kept = env;
            progress.single_mover_done(p, action.disables);
            if let Some(legit_at) = &legit_at {
                let holds = legit_at.holds(progress.enabled.list.len() as i64);
                if progress.legit_now != Some(holds) {
                    progress.set_legitimacy(holds);
                }
            }
        }
        Ok(())
    }
}

/// The counts `c` for which `c op k` holds, as a range they are in or
/// out of: a test without a jump through the operators per step.
struct CountRange {
    low: i64,
    high: i64,
    outside: bool,
}

impl CountRange {
    fn of(op: Cmp, k: i64) -> Self {
        let (low, high, outside) = match op {
            Cmp::Eq => (k, k, false),
            Cmp::Ne => (k, k, true),
            // None below the least, nor above the greatest.
            Cmp::Lt => k
                .checked_sub(1)
                .map_or((1, 0, false), |h| (i64::MIN, h, false)),
            Cmp::Le => (i64::MIN, k, false),
            Cmp::Gt => k
                .checked_add(1)
                .map_or((1, 0, false), |l| (l, i64::MAX, false)),
            Cmp::Ge => (k, i64::MAX, false),
        };
        CountRange { low, high, outside }
    }

    #[inline(always)]
    fn holds(&self, count: i64) -> bool {
        (self.low <= count && count <= self.high) != self.outside
    }
}

/// Evaluates `q`'s one guard (`left` its left neighbour) and lists or
/// unlists it: in `env`, or, where there is none, inline.
#[inline(always)]
fn refresh(
    (code, actions, state): (&Compiled, &[LeanAction], &[i64]),
    progress: &mut Progress,
    env: &mut Option<Env>,
    (q, left): (usize, usize),
) -> Result<(), RunError> {
    match env {
        Some(env) => lean_refresh(code, actions, progress, env, q),
        None => {
            inline_refresh(actions, progress, state, q, left);
            Ok(())
        }
    }
}

/// Evaluates `q`'s one guard, inline (its left neighbour `left`), and
/// lists or unlists it.
#[inline(always)]
fn inline_refresh(
    actions: &[LeanAction],
    progress: &mut Progress,
    state: &[i64],
    q: usize,
    left: usize,
) {
    let role = progress.procs[q].role as usize;
    let holds = actions[role]
        .inline_guard
        .is_some_and(|g| g.holds(state, 1, q, left));
    settle_choice(progress, q as u32, if holds { 0 } else { NO_ACTION });
}

/// Evaluates `q`'s one guard in `env` and lists or unlists it.
#[inline(always)]
fn lean_refresh(
    code: &Compiled,
    actions: &[LeanAction],
    progress: &mut Progress,
    env: &mut Env,
    q: usize,
) -> Result<(), RunError> {
    env.me = q;
    let role = progress.procs[q].role as usize;
    match (actions[role].guard)(env) {
        Ok(holds) if holds.holds() => settle_choice(progress, q as u32, 0),
        Ok(_) => settle_choice(progress, q as u32, NO_ACTION),
        Err(fault) => {
            let step = progress.steps;
            return Err(guard_fault(&code.roles[role], q, 0, step, fault));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count's range holds where the comparison does.
    #[test]
    fn a_count_range_holds_where_its_comparison_does() {
        let ops = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];
        for op in ops {
            for k in [-2, 0, 1, 5, i64::MAX, i64::MIN] {
                let range = CountRange::of(op, k);
                for count in [-3, -2, -1, 0, 1, 2, 4, 5, 6, i64::MAX, i64::MIN] {
                    assert_eq!(range.holds(count), op.holds(count, k), "{op:?} {k} {count}");
                }
            }
        }
    }
}
