//! The simulator's fast paths, each an optimisation of the general step
//! that must take exactly the same steps (tests/single_move.rs,
//! tests/columns.rs and tests/step_relation.rs check them against the
//! general step and the step relation): one central move of a program
//! without messages or edge variables, with a look-ahead that prefetches
//! what the next steps will read. Synchronous steps column by column are
//! in `column_steps.rs`.

use super::bookkeeping::{refresh_ring, ring_affected};
use super::unread_guards::changed_slots;
use super::*;
use crate::runtime::cache::prefetch;
use crate::runtime::choose::Mover;

/// The size of configuration and bookkeeping above which central steps
/// prefetch (see [`Simulation::prefetch_next_move`]): about what a core's
/// second-level cache holds.
pub(super) const LOOK_AHEAD_BYTES: usize = 1 << 20;

/// The number of enabled processes from which central steps prefetch: with
/// fewer, the rows the next moves touch are few enough to stay in the
/// caches, and drawing ahead only costs time.
pub(super) const LOOK_AHEAD_ENABLED: usize = 8192;

/// The length of the enabled list from which central steps prefetch the
/// list slot the step after next draws, rather than read it.
pub(super) const LOOK_AHEAD_LIST: usize = 1 << 16;

/// Makes `v` the one-element list `[x]`; a list that already has one
/// element (as after the last single move) only has it replaced.
#[inline]
pub(super) fn set_one<T>(v: &mut Vec<T>, x: T) {
    if let [only] = &mut v[..] {
        *only = x;
    } else {
        v.clear();
        v.push(x);
    }
}

/// Asks the cache for what later central steps will probably read, so
/// that its misses overlap with this step's work instead of adding to
/// theirs: the process in the enabled list's place `near` (where a draw
/// soon will fall if the list keeps its length), that process's
/// bookkeeping and rows (its own and the one before it, its left neighbour
/// on a ring), the same for the place `far` of the draw after it (or only
/// its list slot, when the list is too long for the caches), and the
/// bookkeeping of the list's last process, which moves when a process
/// leaves the list.
#[inline]
pub(super) fn prefetch_moves(
    progress: &Progress,
    state: &[i64],
    stride: usize,
    near: usize,
    far: usize,
) {
    let list = &progress.enabled.list;
    let rows = |q: usize| {
        prefetch(&progress.procs[q]);
        // A program without variables has empty rows.
        for at in [q * stride, (q * stride).saturating_sub(stride)] {
            if let Some(x) = state.get(at) {
                prefetch(x);
            }
        }
    };
    rows(list[near] as usize);
    // A short list is in the cache, so the far slot can be read now and
    // that process's rows asked for; a long one's slot is only asked for.
    if list.len() < LOOK_AHEAD_LIST {
        rows(list[far] as usize);
    } else {
        prefetch(&list[far]);
    }
    if let Some(&last) = list.last() {
        prefetch(&progress.procs[last as usize]);
    }
}

impl Simulation {
    /// Asks the cache for what the next two central steps will probably
    /// read (see [`prefetch_moves`]). The generator is cloned, so nothing
    /// drawn changes.
    pub(super) fn prefetch_next_move(&self) {
        let len = self.progress.enabled.list.len();
        let mut ahead = self.rng.clone();
        let next = ahead.gen_range(0..len);
        let after_next = ahead.gen_range(0..len);
        prefetch_moves(
            &self.progress,
            &self.state,
            self.code.stride,
            next,
            after_next,
        );
    }

    /// Whether a step is one central move taken by [`Simulation::single_move`]:
    /// the central daemon, the first choice, no effects besides the mover's
    /// row, and not in ticks.
    #[inline]
    pub(super) fn takes_single_moves(&self) -> bool {
        self.single_move_path
            && self.daemon == Daemon::Central
            && self.choice == Choice::First
            && !self.code.has_effects
            && !self.runs_in_ticks()
    }

    /// The central daemon's draw among the enabled processes (at least
    /// one, bookkeeping settled), recorded as the step's mover.
    #[inline]
    pub(super) fn draw_single_mover(&mut self) -> u32 {
        let list = &self.progress.enabled.list;
        let len = list.len();
        let p = list[self.rng.gen_range(0..len)];
        if self.look_ahead && len >= LOOK_AHEAD_ENABLED {
            self.prefetch_next_move();
        }
        set_one(&mut self.progress.last.movers, p);
        p
    }

    /// Takes up to `budget` steps while each is a single central move (the
    /// central daemon, the first choice, a program without messages, edge
    /// variables or draws, not in ticks), exactly the steps
    /// [`Simulation::step`] would take one by one, without returning to the
    /// caller between them; stops early when no process is enabled or,
    /// with `until_legitimate`, when legitimacy holds. The run loop takes
    /// batches where nothing watches the steps and no invariant is checked
    /// after each. Returns the steps taken (none where a step is not a
    /// single move: the caller steps one by one).
    pub fn single_moves(&mut self, budget: u64, until_legitimate: bool) -> Result<u64, RunError> {
        if !self.takes_single_moves() {
            return Ok(0);
        }
        self.settle();
        if let Some(readers) = self.ring_batch_readers() {
            return self.ring_batch(readers, budget, until_legitimate);
        }
        let mut taken = 0;
        while taken < budget
            && !self.progress.enabled.list.is_empty()
            && !(until_legitimate && self.progress.legit_now == Some(true))
        {
            let p = self.draw_single_mover();
            self.single_move(p as usize)?;
            taken += 1;
        }
        Ok(taken)
    }

    /// A step where one process `p` (already in the step record's movers)
    /// runs its chosen action and nothing but its row changes: what
    /// [`Simulation::execute_forced`] does, without its cases for several
    /// movers, random choices and effects. It draws the same random numbers,
    /// so runs are the same either way.
    pub(super) fn single_move(&mut self, p: usize) -> Result<Outcome, RunError> {
        let stride = self.code.stride;
        let info = self.progress.procs[p];
        let action = &self.code.roles[info.role as usize].actions[info.chosen as usize];
        if stride == 1 {
            // Most programs keep one value per process: no copy loops.
            self.buf.scratch[0].set(self.state[p]);
        } else {
            let row = &self.state[p * stride..(p + 1) * stride];
            for (c, v) in self.buf.scratch.iter().zip(row) {
                c.set(*v);
            }
        }
        let env = self.statement_env(p);
        if let Err(fault) = (action.body)(&env) {
            return Err(self.single_move_fault(p, info, fault));
        }
        self.progress.moved[action.place as usize] += 1;
        let (writes, disables) = (action.writes, action.disables_mover);
        let last = &mut self.progress.last;
        set_one(&mut last.actions, u32::from(info.chosen));
        if self.code.has_binders {
            let member = action
                .binder
                .as_ref()
                .map(|b| self.buf.locals[b.slot].get());
            set_one(&mut last.members, member);
        }
        if stride == 1 {
            let after = self.buf.scratch[0].get();
            set_one(
                &mut last.before,
                std::mem::replace(&mut self.state[p], after),
            );
            set_one(&mut last.after, after);
        } else {
            let row = &mut self.state[p * stride..(p + 1) * stride];
            for record in [&mut last.before, &mut last.after] {
                if record.len() != stride {
                    record.clear();
                    record.resize(stride, 0);
                }
            }
            // One loop for the record and the write (calls of `memcpy`
            // otherwise).
            let cells = row.iter_mut().zip(self.buf.scratch.iter());
            for ((v, c), (before, after)) in cells.zip(last.before.iter_mut().zip(&mut last.after))
            {
                *before = *v;
                *after = c.get();
                *v = c.get();
            }
        }
        let changed = (self.leaves_guards_alone).then(|| changed_slots(&last.before, &last.after));
        last.whole = false;
        last.tick = false;
        self.progress.steps += 1;
        self.progress.moves += 1;
        let n = self.topo.n();
        self.affected.clear();
        match self.ring_guard_readers {
            // From three processes on, the mover and its two neighbours
            // are distinct: nothing to search for.
            Some(readers) if n >= 3 => {
                if self.code.legit_parts.is_empty() {
                    // Refreshed in place, without a list of them.
                    let b = &self.buf;
                    let mut env =
                        Env::new(&self.state, &self.topo, &b.locals, &self.chans, &b.fx, p);
                    let (code, progress) = (&self.code, &mut self.progress);
                    let last = &progress.last;
                    let mover = || Mover::new(p, code.under_slot, &last.before, &last.after);
                    let changed = changed.map(|vars| (vars, mover()));
                    let at = (p, n, disables);
                    refresh_ring(code, progress, &mut env, at, readers, changed)?;
                    return self.finish_single(p, writes);
                }
                // Legitimacy's local conjuncts are evaluated again where
                // the step affected them: list them.
                let (affected, count) = ring_affected(p as u32, n as u32, readers);
                self.affected.extend_from_slice(&affected[..count]);
            }
            // One mover off rings: itself, then the processes that read
            // it, distinct (a reader list is sorted without repeats, and
            // no process reads itself), so listed without a search.
            _ if self.topo.regular_ring.is_none() => {
                self.affected.push(p as u32);
                self.affected.extend_from_slice(self.topo.readers(p));
            }
            _ => {
                let few = self.few_readers(p);
                self.affect_mover(p as u32, few, true);
                if !few {
                    for &q in &self.affected {
                        self.marks.take(q as usize);
                    }
                }
            }
        }
        self.refresh_affected(changed, true)?;
        self.finish_single(p, writes)
    }

    /// The fault of mover `p`'s statement, with the step record as the
    /// general step leaves it: the mover, no rows.
    #[cold]
    #[inline(never)]
    pub(super) fn single_move_fault(
        &mut self,
        p: usize,
        info: ProcInfo,
        fault: Box<Fault>,
    ) -> RunError {
        let action = &self.code.roles[info.role as usize].actions[info.chosen as usize];
        let last = &mut self.progress.last;
        last.actions.clear();
        last.before.clear();
        last.after.clear();
        last.members.clear();
        last.whole = false;
        last.tick = false;
        statement_fault(action, p, self.progress.steps + 1, fault)
    }
}
