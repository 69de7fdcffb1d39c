//! Central single moves on a ring, taken in a batch with nothing watching
//! them: the steps [`Simulation::single_move`] takes, one after another in
//! one loop, with the step record written once, after the batch's last
//! step (nobody reads it in between), and legitimacy kept as each step
//! keeps it (a count of enabled processes, parts at the processes the step
//! affected, or the whole predicate). tests/single_move.rs holds batches to
//! steps taken one at a time, which tests/step_relation.rs holds to the
//! step relation. Programs of one plain action a role and one value a
//! process take the leaner loop of `lean_ring.rs` instead.

use super::bookkeeping::{refresh_ring, ring_affected};
use super::fast::{prefetch_moves, set_one, LOOK_AHEAD_ENABLED};
use super::lean_ring::{guards_inline, lean_actions};
use super::measures::Reads;
use super::*;
use crate::compile::{slot_bit, Holds};
use crate::runtime::ahead::DrawsAhead;
use crate::runtime::choose::Mover;

/// What a batch has done so far, and the draws it took ahead.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) taken: u64,
    pub(super) last: Option<Taken>,
    pub(super) draws: DrawsAhead,
}

/// The last step of a batch, for its record: the mover, its action, and
/// (with one value a process) its value before the step; with more, the
/// row before is in the record already.
#[derive(Clone, Copy)]
pub(super) struct Taken {
    pub(super) mover: u32,
    pub(super) action: u16,
    pub(super) before: i64,
}

/// Whether legitimacy holds after a single move on a ring, where it is
/// evaluated (not a count of enabled processes), at the mover `p` of a
/// ring of `n` and the neighbours that read it (`readers`), as refreshed
/// (as [`Simulation::update_legitimacy`] evaluates it, without timers);
/// `None` where it stands, the move having written (the slots `writes`)
/// nothing it reads. Out of line, which keeps the loop smaller (11
/// instructions a step fewer on SSLE's ring).
#[inline(never)]
fn evaluate_legitimacy(
    reads: &Reads,
    progress: &mut Progress,
    (p, n, readers, writes): (u32, u32, (bool, bool), u64),
) -> Result<Option<bool>, RunError> {
    if progress.legitimacy_stands(reads.code, writes) {
        return Ok(None);
    }
    let (affected, count) = ring_affected(p, n, readers);
    let affected = &affected[..count];
    let holds = match &reads.code.legitimate {
        Some(legit) if reads.code.legit_parts.is_empty() => legit.holds(&reads.env(progress)),
        _ => reads.legit_parts(progress, affected, false),
    };
    let step = progress.steps;
    holds
        .map(Some)
        .map_err(|fault| predicate_fault(step, LEGITIMACY, fault))
}

/// Asks the cache for what the steps after the next will read: as
/// `prefetch_next_move`, one step further ahead (the step after this one
/// was asked for by the step before), and from words drawn ahead instead
/// of a clone of the generator (which copies its buffer: a fifth of the
/// samples at a million processes), the guesses in one pass over them.
/// Further still was slower: the list slot read for the guess then
/// misses; with guesses this cheap, three and four ahead were no faster
/// (alternated on ring:10^6).
#[inline(always)]
fn prefetch_ahead(
    draws: &mut DrawsAhead,
    rng: &mut ChaCha8Rng,
    progress: &Progress,
    state: &[i64],
    stride: usize,
) {
    let len = progress.enabled.list.len();
    if let Some([second, third]) = draws.guess_after_next(rng, len) {
        prefetch_moves(progress, state, stride, second, third);
    }
}

/// A batch's next mover: the daemon's draw among the enabled processes,
/// with what the steps after it will read asked of the cache where the
/// ring looks ahead (`LOOK_AHEAD`, rows of `stride` values); `None` where
/// none is enabled or, with `until_legitimate`, legitimacy holds.
#[inline(always)]
pub(super) fn next_mover<const LOOK_AHEAD: bool>(
    (draws, rng): (&mut DrawsAhead, &mut ChaCha8Rng),
    progress: &Progress,
    state: &[i64],
    (stride, until_legitimate): (usize, bool),
) -> Option<usize> {
    let len = progress.enabled.list.len();
    if len == 0 || (until_legitimate && progress.legit_now == Some(true)) {
        return None;
    }
    let drawn = if LOOK_AHEAD {
        draws.index(rng, len)
    } else {
        rng.gen_range(0..len)
    };
    let p = progress.enabled.list[drawn] as usize;
    if LOOK_AHEAD && len >= LOOK_AHEAD_ENABLED {
        prefetch_ahead(draws, rng, progress, state, stride);
    }
    Some(p)
}

impl Progress {
    /// Rounds after a step whose one mover was `p`, where no timer runs:
    /// the mover has left the round (where its move `disabled` it, its
    /// refresh took it out already), which ends if no process is left in
    /// it.
    #[inline(always)]
    pub(super) fn single_mover_done(&mut self, p: usize, disabled: bool) {
        if !disabled && self.in_round.take(p) {
            self.pending -= 1;
        }
        self.steps_in_round += 1;
        if self.pending == 0 {
            self.rounds_done += 1;
            self.start_round();
        }
    }
}

/// Writes a mover's `row` from the statement's (`scratch`), keeping the
/// row before it in `record`; with `UNREAD_GUARDS`, the slots it changed
/// (as `changed_slots` finds them, in the copy: 50 instructions a step
/// fewer on SSLE), else none.
#[inline(always)]
fn land_row<const UNREAD_GUARDS: bool>(
    row: &mut [i64],
    scratch: &[std::cell::Cell<i64>],
    record: &mut Vec<i64>,
) -> u64 {
    if record.len() != row.len() {
        record.clear();
        record.resize(row.len(), 0);
    }
    let cells = row.iter_mut().zip(scratch).zip(record.iter_mut());
    let mut changed = 0;
    if UNREAD_GUARDS {
        for (k, ((v, c), kept)) in cells.enumerate() {
            *kept = *v;
            changed |= u64::from(*v != c.get()) * slot_bit(k);
            *v = c.get();
        }
    } else {
        for ((v, c), kept) in cells {
            *kept = *v;
            *v = c.get();
        }
    }
    changed
}

/// What a batch's loop reads and writes of a simulation, taken apart
/// (see [`Simulation::loop_parts`]).
pub(super) type LoopParts<'s> = (
    &'s Compiled,
    &'s Topology,
    &'s mut [i64],
    &'s mut ChaCha8Rng,
    &'s Channels,
    &'s mut Progress,
    &'s StepBuffers,
);

impl Simulation {
    /// The simulation taken apart for a batch's loop, so that what the
    /// loop reads stays where it is while it writes the rest, the
    /// configuration held as a slice, not the vector, so that its start
    /// and length stay in registers rather than being loaded again after
    /// each call.
    #[inline(always)]
    pub(super) fn loop_parts(&mut self) -> LoopParts<'_> {
        let Simulation {
            code,
            topo,
            state,
            rng,
            chans,
            progress,
            buf,
            ..
        } = self;
        (&**code, &*topo, state, rng, &*chans, progress, &*buf)
    }

    /// Which neighbours' guards read a mover, where a batch of single
    /// moves keeps all its bookkeeping in its loop: a ring of at least
    /// three, and no timers.
    pub(super) fn ring_batch_readers(&self) -> Option<(bool, bool)> {
        match self.ring_guard_readers {
            Some(readers) if self.topo.n() >= 3 && self.code.timers.is_empty() => Some(readers),
            _ => None,
        }
    }

    /// Up to `budget` single moves (see [`Simulation::single_moves`]) on a
    /// ring whose guard readers are `readers` (as
    /// [`Simulation::ring_batch_readers`] gives them); stops early when no
    /// process is enabled or, with `until_legitimate`, when legitimacy
    /// holds. Returns the steps taken.
    pub(super) fn ring_batch(
        &mut self,
        readers: (bool, bool),
        budget: u64,
        until_legitimate: bool,
    ) -> Result<u64, RunError> {
        let mut batch = Batch::default();
        let run = (readers, budget, until_legitimate, &mut batch);
        let code = std::sync::Arc::clone(&self.code);
        let outcome = match lean_actions(&code) {
            Some(actions) => match (self.look_ahead, guards_inline(&actions)) {
                (true, true) => self.lean_ring_steps::<true, true>(&actions, run),
                (true, false) => self.lean_ring_steps::<true, false>(&actions, run),
                (false, true) => self.lean_ring_steps::<false, true>(&actions, run),
                (false, false) => self.lean_ring_steps::<false, false>(&actions, run),
            },
            // Compiled four times, so that programs whose guards all read
            // every variable test nothing for it, and rings too small to
            // look ahead carry no code for it.
            None => match (self.leaves_guards_alone, self.look_ahead) {
                (true, true) => self.ring_batch_steps::<true, true>(run),
                (true, false) => self.ring_batch_steps::<true, false>(run),
                (false, true) => self.ring_batch_steps::<false, true>(run),
                (false, false) => self.ring_batch_steps::<false, false>(run),
            },
        };
        batch.draws.give_back(&mut self.rng);
        if let Some(step) = batch.last {
            self.record_ring_step(step);
        }
        outcome.map(|()| batch.taken)
    }

    /// The loop of [`Simulation::ring_batch`], which counts the steps in
    /// `batch` and leaves there the last whose statement ran, also when a
    /// guard faults after it, on the simulation taken apart
    /// ([`Simulation::loop_parts`]). One environment serves a step: made after the step's
    /// write, it serves the refreshes (the mover, then the neighbours that
    /// read it in index order, as `single_move` refreshes them) and then
    /// the next step's statement (guards do not read `scratch`), and is
    /// made again once that statement has run. A row of several values is
    /// kept in the record in the loop that writes it (a call of `memcpy` a
    /// step otherwise). Rounds and legitimacy are kept as `finish_single`
    /// keeps them, timers left out. In line, as the loop was before it had
    /// two forms (7 instructions a step fewer on Dijkstra's ring of 1000).
    #[inline(always)]
    fn ring_batch_steps<const UNREAD_GUARDS: bool, const LOOK_AHEAD: bool>(
        &mut self,
        (readers, budget, until_legitimate, batch): ((bool, bool), u64, bool, &mut Batch),
    ) -> Result<(), RunError> {
        let Batch { taken, last, draws } = batch;
        let (code, topo, state, rng, chans, progress, b) = self.loop_parts();
        let stride = code.stride;
        let n = topo.n();
        let legit_count = code.legit_enabled_count;
        // With one value a process, its cell of the statement's row.
        let own_cell = b.scratch.first().filter(|_| stride == 1);
        let evaluates_legitimacy = code.legitimate.is_some();
        let mut env = b.statement_env(state, topo, chans, 0);
        while *taken < budget {
            let stop = (stride, until_legitimate);
            let Some(p) = next_mover::<LOOK_AHEAD>((draws, rng), progress, state, stop) else {
                break;
            };
            let info = progress.procs[p];
            let action = &code.roles[info.role as usize].actions[info.chosen as usize];
            let mut before = 0;
            if let Some(cell) = own_cell {
                before = state[p];
                cell.set(before);
            } else {
                let row = &state[p * stride..(p + 1) * stride];
                for (c, v) in b.scratch.iter().zip(row) {
                    c.set(*v);
                }
            }
            env.me = p;
            if let Err(fault) = (action.body)(&env) {
                *last = None;
                set_one(&mut progress.last.movers, p as u32);
                return Err(self.single_move_fault(p, info, fault));
            }
            // The slots the move changed (guards reading none are left alone).
            let changed = if let Some(cell) = own_cell {
                let after = cell.get();
                state[p] = after;
                u64::from(before != after)
            } else {
                let row = &mut state[p * stride..(p + 1) * stride];
                land_row::<UNREAD_GUARDS>(row, &b.scratch, &mut progress.last.before)
            };
            let changed = UNREAD_GUARDS.then(|| {
                let kept = if own_cell.is_some() {
                    std::slice::from_ref(&before)
                } else {
                    &progress.last.before
                };
                (
                    changed,
                    Mover::new(p, code.under_slot, kept, &state[p * stride..]),
                )
            });
            progress.moved[action.place as usize] += 1;
            progress.steps += 1;
            progress.moves += 1;
            *taken += 1;
            *last = Some(Taken {
                mover: p as u32,
                action: info.chosen,
                before,
            });
            env = b.statement_env(state, topo, chans, p);
            let disables = action.disables_mover;
            let at = (p, n, disables);
            refresh_ring(code, progress, &mut env, at, readers, changed)?;
            progress.single_mover_done(p, disables);
            let holds = match legit_count {
                Some((op, k)) => op.holds(progress.enabled.list.len() as i64, k),
                None if evaluates_legitimacy => {
                    let reads = Reads::of(code, topo, state, chans, b);
                    let mover = (p as u32, n as u32, readers, action.writes);
                    match evaluate_legitimacy(&reads, progress, mover)? {
                        Some(holds) => holds,
                        None => continue,
                    }
                }
                None => continue,
            };
            progress.set_legitimacy(holds);
        }
        Ok(())
    }

    /// The record of the batch's last step, as `single_move` leaves it.
    fn record_ring_step(&mut self, step: Taken) {
        let stride = self.code.stride;
        let p = step.mover as usize;
        let member = self
            .code
            .has_binders
            .then(|| self.member_before(&step))
            .flatten();
        let last = &mut self.progress.last;
        set_one(&mut last.movers, step.mover);
        set_one(&mut last.actions, u32::from(step.action));
        if self.code.has_binders {
            set_one(&mut last.members, member);
        }
        if stride == 1 {
            set_one(&mut last.before, step.before);
            set_one(&mut last.after, self.state[p]);
        } else {
            last.after.clear();
            last.after
                .extend_from_slice(&self.state[p * stride..(p + 1) * stride]);
        }
        last.whole = false;
        last.tick = false;
    }

    /// The binder member the batch's last step ran for, found again (the
    /// loop keeps none): the first whose guard held at the mover before it
    /// moved, its row put back for the search. After the batch, so cold.
    #[cold]
    fn member_before(&mut self, step: &Taken) -> Option<i64> {
        let stride = self.code.stride;
        let p = step.mover as usize;
        let role = &self.code.roles[self.code.role_of.of(p)];
        let binder = role.actions[step.action as usize].binder.as_ref()?;
        let before = match stride {
            1 => vec![step.before],
            _ => self.progress.last.before.clone(),
        };
        let row = p * stride..(p + 1) * stride;
        let after = self.state[row.clone()].to_vec();
        self.state[row.clone()].copy_from_slice(&before);
        let members = (binder.members)(&self.env(p, &[]));
        self.state[row].copy_from_slice(&after);
        members.ok()?.first().copied()
    }
}
