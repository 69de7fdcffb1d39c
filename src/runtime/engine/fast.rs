//! The simulator's fast paths, each an optimisation of the general step
//! that must take exactly the same steps (tests/single_move.rs,
//! tests/columns.rs and tests/step_relation.rs check them against the
//! general step and the step relation): one central move of a program
//! without messages or edge variables, with a look-ahead that prefetches
//! what the next steps will read; and synchronous steps column by column.

use super::bookkeeping::{refresh_ring, ring_affected};
use super::unread_guards::changed_slots;
use super::*;
use crate::runtime::cache::prefetch;

/// The size of configuration and bookkeeping above which central steps
/// prefetch (see [`Simulation::prefetch_next_move`]): about what a core's
/// second-level cache holds.
pub(super) const LOOK_AHEAD_BYTES: usize = 1 << 20;

/// The size of per-process bookkeeping above which synchronous steps
/// evaluated column by column give it back while they do not need it:
/// building it again (a central step after them, a restart) then costs
/// little next to a step over that many processes, and small instances
/// (sweeps of many short runs) allocate nothing once warmed up.
pub(super) const GIVE_BACK_BYTES: usize = 1 << 18;

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

/// What a synchronous step evaluated column by column works in.
pub(super) struct ColumnBuffers {
    pub(super) scratch: crate::compile::columns::Scratch,
    /// Runs of consecutive processes with one role, cut in chunks of at
    /// most [`CHUNK`](crate::compile::columns::CHUNK): (first, end, role).
    pub(super) chunks: Vec<(usize, usize, usize)>,
    /// A configuration-sized buffer the next configuration is built in.
    pub(super) spare: Vec<i64>,
    /// Columns of chosen actions to reuse.
    pub(super) spare_columns: Vec<Vec<u16>>,
    /// The step's moves per role and action (as [`Progress::moved`]),
    /// counted by the kernels as they run each action and added to the
    /// run's once the step has succeeded; zero between steps.
    pub(super) moves: Vec<u64>,
}

impl ColumnBuffers {
    /// Buffers for `code`, with the chunks of `role_of`'s runs of one role,
    /// and a count for each of the `actions` of every role.
    fn new(
        code: &crate::compile::columns::ColumnCode,
        role_of: &crate::compile::RoleMap,
        actions: usize,
    ) -> Self {
        use crate::compile::columns::CHUNK;
        let chunks = role_of
            .runs()
            .flat_map(|(first, end, role)| {
                (first..end)
                    .step_by(CHUNK)
                    .map(move |lo| (lo, (lo + CHUNK).min(end), role))
            })
            .collect();
        ColumnBuffers {
            scratch: code.scratch(),
            chunks,
            spare: Vec::new(),
            spare_columns: Vec::new(),
            moves: vec![0; actions],
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.moves.capacity() * 8
            + self.scratch.bytes()
            + self.chunks.capacity() * 24
            + self.spare.capacity() * 8
            + self
                .spare_columns
                .iter()
                .map(|c| c.capacity() * 2)
                .sum::<usize>()
    }

    /// A column for `n` processes, reused when one is at hand.
    pub(super) fn column(&mut self, n: usize) -> Vec<u16> {
        let mut c = self
            .spare_columns
            .pop()
            .filter(|c| c.capacity() >= n)
            .unwrap_or_default();
        c.clear();
        c
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
        let last = &mut self.progress.last;
        set_one(&mut last.actions, u32::from(info.chosen));
        if stride == 1 {
            let after = self.buf.scratch[0].get();
            set_one(
                &mut last.before,
                std::mem::replace(&mut self.state[p], after),
            );
            set_one(&mut last.after, after);
        } else {
            let row = &mut self.state[p * stride..(p + 1) * stride];
            last.before.clear();
            last.after.clear();
            last.before.extend_from_slice(row);
            last.after.extend(self.buf.scratch.iter().map(Cell::get));
            row.copy_from_slice(&last.after);
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
                    refresh_ring(code, progress, &mut env, (p, n), readers, changed)?;
                    return self.finish_single(p);
                }
                // Legitimacy's local conjuncts are evaluated again where
                // the step affected them: list them.
                let (affected, count) = ring_affected(p as u32, n as u32, readers);
                self.affected.extend_from_slice(&affected[..count]);
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
        self.finish_single(p)
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
        last.whole = false;
        last.tick = false;
        statement_fault(action, p, self.progress.steps + 1, fault)
    }

    /// A synchronous step evaluated column by column (see
    /// [`crate::compile::columns`]): the same configuration, actions, rounds
    /// and legitimacy as process by process. The chosen actions stay in a
    /// column ([`Dense`]) until something needs the per-process bookkeeping.
    /// `None` when the program has no column form or a kernel may have
    /// faulted: nothing changed, and the step is to be taken process by
    /// process (which reports the fault).
    pub(super) fn column_step(&mut self) -> Result<Option<Outcome>, RunError> {
        use crate::compile::columns::{count_equal, MayFault, Rows, Scratch};
        let Some(code) = self.code.columns.as_ref() else {
            return Ok(None);
        };
        let n = self.topo.n();
        let stride = self.code.stride;
        let mut buf = match self.columns.take() {
            Some(buf) => buf,
            None => Box::new(ColumnBuffers::new(
                code,
                &self.code.role_of,
                self.progress.moved.len(),
            )),
        };
        // What everyone runs in this step, as a column.
        let was_dense = self.progress.dense.is_some();
        let (before, moving) = match self.progress.dense.take() {
            Some(d) => (d.chosen, d.count),
            None => {
                let mut c = buf.column(n);
                c.extend(self.progress.procs.iter().map(|i| i.chosen));
                // Given back before the next configuration is made, so
                // that the step never holds both (see `land_column_step`).
                if self.gives_back_bookkeeping() {
                    self.progress.procs = Vec::new();
                }
                (c, self.progress.enabled.list.len())
            }
        };
        // Buffers of the step before last are reused.
        let mut next = if self.progress.last.whole {
            std::mem::take(&mut self.progress.last.before)
        } else {
            std::mem::take(&mut buf.spare)
        };
        next.resize(self.state.len(), 0);
        let mut after = std::mem::take(&mut self.progress.last.chosen_before);
        if after.capacity() < n {
            after = buf.column(n);
        }
        after.resize(n, NO_ACTION);
        let ids = self.topo.kept_ids();
        let ColumnBuffers {
            scratch,
            chunks,
            moves,
            ..
        } = &mut *buf;
        let first_action = &self.first_action;
        // The statements, on the configuration before the step, chunk by
        // chunk; a chunk's guards, on the configuration after it, as soon as
        // both neighbouring chunks are done (the first and last wrap around,
        // so they come at the end).
        let mut enabled = 0;
        let state = &self.state;
        let mut choose = |k: usize, next: &[i64], scratch: &mut Scratch| -> Result<(), MayFault> {
            let (lo, hi, role) = chunks[k];
            let rows = Rows {
                state: next,
                own: &next[lo * stride..hi * stride],
                ids,
                n,
            };
            let chosen = &mut after[lo..hi];
            code.choose(role, &rows, lo, chosen, scratch)?;
            enabled += chosen.len() - count_equal(chosen, NO_ACTION);
            Ok(())
        };
        let ok = (|| {
            let last = chunks.len() - 1;
            for (k, &(lo, hi, role)) in chunks.iter().enumerate() {
                let old = Rows {
                    state,
                    own: &[],
                    ids,
                    n,
                };
                let rows = &mut next[lo * stride..hi * stride];
                let moved = &mut moves[first_action[role] as usize..];
                code.execute(role, &old, lo, &before[lo..hi], rows, scratch, moved)?;
                if k >= 2 {
                    choose(k - 1, &next, scratch)?;
                }
            }
            if last > 0 {
                choose(last, &next, scratch)?;
            }
            choose(0, &next, scratch)
        })();
        if ok.is_err() {
            buf.moves.fill(0);
            self.abandon_column_step(buf, next, after, (before, moving), was_dense);
            return Ok(None);
        }
        self.land_column_step(buf, next, (before, moving), (after, enabled))
    }

    /// The end of a column step that succeeded: its moves counted, the
    /// configuration `next` in place, the step record and the chosen
    /// actions kept as columns, a round ended and legitimacy evaluated.
    fn land_column_step(
        &mut self,
        mut buf: Box<ColumnBuffers>,
        next: Vec<i64>,
        (before, moving): (Vec<u16>, usize),
        (after, enabled): (Vec<u16>, usize),
    ) -> Result<Option<Outcome>, RunError> {
        for (total, step) in self.progress.moved.iter_mut().zip(&mut buf.moves) {
            *total += std::mem::take(step);
        }
        self.columns = Some(buf);
        self.column_steps += 1;
        let gives_back = self.gives_back_bookkeeping();
        let progress = &mut self.progress;
        let last = &mut progress.last;
        last.after.clear();
        last.received.clear();
        last.sent.clear();
        last.tick = false;
        last.lazy = true;
        last.chosen_before = before;
        last.worked_out = OnceCell::new();
        last.before = std::mem::replace(&mut self.state, next);
        last.whole = true;
        progress.dense = Some(Dense {
            chosen: after,
            count: enabled,
            list: OnceCell::new(),
        });
        // While the chosen actions are a column, the per-process
        // bookkeeping and the enabled list are out of date: large ones give
        // their memory back, and `settle` builds them again when a step
        // needs them.
        if gives_back {
            progress.procs = Vec::new();
            progress.enabled.list = Vec::new();
            // The step's movers are worked out from the columns when asked.
            last.movers = Vec::new();
            last.actions = Vec::new();
        }
        progress.steps += 1;
        progress.moves += moving as u64;
        // Every process enabled at the round's start has moved: the round
        // ends, and the next starts with everyone enabled now.
        progress.rounds_done += 1;
        progress.steps_in_round = 0;
        progress.pending = enabled;
        self.update_legitimacy(true)?;
        Ok(Some(Outcome::Moved))
    }

    /// Puts back what a column step that may have faulted borrowed: the
    /// configuration-sized buffer, the columns, and the bookkeeping as it
    /// was, so that the step is taken process by process next.
    #[cold]
    pub(super) fn abandon_column_step(
        &mut self,
        mut buf: Box<ColumnBuffers>,
        next: Vec<i64>,
        after: Vec<u16>,
        (before, moving): (Vec<u16>, usize),
        was_dense: bool,
    ) {
        buf.spare = next;
        // The last record lent its buffers to this attempt; the step
        // taken process by process next rewrites it.
        let last = &mut self.progress.last;
        last.chosen_before = after;
        last.whole = false;
        last.lazy = false;
        last.movers.clear();
        last.actions.clear();
        if was_dense {
            self.progress.dense = Some(Dense {
                chosen: before,
                count: moving,
                list: OnceCell::new(),
            });
        } else {
            if self.progress.procs.is_empty() {
                // Given back at the step's start: the chosen actions are
                // in `before`, the places in the enabled list (kept).
                let procs = &mut self.progress.procs;
                procs.extend(self.code.role_of.iter().map(ProcInfo::of_role));
                for (info, &chosen) in procs.iter_mut().zip(&before) {
                    info.chosen = chosen;
                }
                for (k, &p) in self.progress.enabled.list.iter().enumerate() {
                    procs[p as usize].pos = k as u32;
                }
            }
            buf.spare_columns.push(before);
        }
        self.columns = Some(buf);
    }

    /// Whether the per-process bookkeeping is large enough that column
    /// steps give it back while it is out of date ([`GIVE_BACK_BYTES`]).
    fn gives_back_bookkeeping(&self) -> bool {
        self.topo.n() * std::mem::size_of::<ProcInfo>() > GIVE_BACK_BYTES
    }
}
