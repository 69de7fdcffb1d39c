//! Synchronous steps column by column (see [`crate::compile::columns`]):
//! the step itself, its landing and its giving up, and batches of them
//! over a configuration kept narrowed where that halves what a step over
//! a large ring moves through memory.

use super::narrow::{as_narrowed, narrow_in_place, widen_in_place};
use super::*;
use crate::compile::columns::{count_equal, ColumnValue, MayFault, Rows, Scratch};

/// The size of per-process bookkeeping above which synchronous steps
/// evaluated column by column give it back while they do not need it:
/// building it again (a central step after them, a restart) then costs
/// little next to a step over that many processes, and small instances
/// (sweeps of many short runs) allocate nothing once warmed up.
pub(super) const GIVE_BACK_BYTES: usize = 1 << 18;

/// The configuration and the one before the last step while a batch of
/// column steps runs, narrowed to `i32` values (see [`ColumnValue`]) in the
/// buffers that hold them as `i64` between batches (see [`super::narrow`]).
struct Narrowed {
    now: Vec<i64>,
    before: Vec<i64>,
}

/// What a column step holds while it runs: its buffers, the chosen
/// actions as a column with how many move, whether they were a column
/// before the step, and the column the guards choose into.
struct ColumnStep {
    buf: Box<ColumnBuffers>,
    before: (Vec<u16>, usize),
    was_dense: bool,
    after: Vec<u16>,
    /// What the chunks of `before` and of `after` each all chose, where
    /// known (see [`Dense::uniform`]).
    uniform: (Vec<Option<u16>>, Vec<Option<u16>>),
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
    /// Columns of what chunks all chose (see [`Dense::uniform`]) to
    /// reuse: a step holds two, the one it reads and the one it writes.
    spare_uniform: Vec<Vec<Option<u16>>>,
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
            spare_uniform: Vec::new(),
            moves: vec![0; actions],
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.spare_uniform
            .iter()
            .map(|u| u.capacity() * 4)
            .sum::<usize>()
            + self.moves.capacity() * 8
            + self.scratch.bytes()
            + self.chunks.capacity() * 24
            + self.spare.capacity() * 8
            + self
                .spare_columns
                .iter()
                .map(|c| c.capacity() * 2)
                .sum::<usize>()
    }

    /// Keeps `uniform`'s buffer (see [`Dense::uniform`]) for a later
    /// column step, up to the two a step holds.
    pub(super) fn keep_uniform(&mut self, uniform: Vec<Option<u16>>) {
        if uniform.capacity() > 0 && self.spare_uniform.len() < 2 {
            self.spare_uniform.push(uniform);
        }
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

impl Simulation {
    /// Whether [`Simulation::step`] takes its next step column by column:
    /// under the synchronous daemon, its first choice, when enough are
    /// enabled that visiting every process is cheaper than visiting the
    /// movers and their readers one by one (and the program has a column
    /// form: else the step finds it has none).
    pub(super) fn column_step_due(&self) -> bool {
        let (count, n) = (self.enabled_count(), self.topo.n());
        count > 0
            && count * 32 >= n
            && self.role_runs * self.column_min_run <= n
            && self.column_path
            && matches!(self.daemon, Daemon::Synchronous)
            && self.choice == Choice::First
    }

    /// Up to `budget` synchronous steps column by column (and while fewer
    /// than `moves` moves, if given, are made), exactly the
    /// steps [`Simulation::step`] would take one by one while it takes them
    /// so, without returning to the caller between them, on the
    /// configuration narrowed to `i32` (see `ColumnValue` in the column
    /// kernels): where every variable's domain fits and nothing reads it between steps (no
    /// timers; legitimacy, if declared, a count of enabled processes).
    /// Neighbours' values compared or copied as they are, it moves half
    /// the bytes (what bounds a step over a large ring) in vectors of
    /// twice the values. Stops early when no step is due column by
    /// column or, with `until_legitimate`, when legitimacy holds; a step
    /// whose kernels may fault is taken as `step` takes it (process by
    /// process, which reports the fault), and ends the batch. The run loop
    /// takes batches where nothing watches the steps and no invariant is
    /// checked after each. Returns the steps taken (none where a batch does
    /// not apply: the caller steps one by one).
    pub fn column_moves(
        &mut self,
        budget: u64,
        moves: Option<u64>,
        until_legitimate: bool,
    ) -> Result<u64, RunError> {
        // Asked before every step the run loop takes: where no batch
        // applies, the answer costs a few instructions.
        if !self.narrow_batches() {
            return Ok(0);
        }
        self.column_batch(budget, moves, until_legitimate)
    }

    /// [`Simulation::column_moves`] where a batch may apply.
    #[inline(never)]
    fn column_batch(
        &mut self,
        budget: u64,
        moves: Option<u64>,
        until_legitimate: bool,
    ) -> Result<u64, RunError> {
        let due = |sim: &Self, taken: u64, moves_before: u64| {
            taken < budget
                && moves.is_none_or(|m| sim.progress.moves - moves_before < m)
                && !(until_legitimate && sim.progress.legit_now == Some(true))
                && sim.column_step_due()
        };
        let moves_before = self.progress.moves;
        if !due(self, 0, moves_before) {
            return Ok(0);
        }
        // The configuration, and the record's rows before the last step,
        // are read by nothing until the batch ends: their buffers hold them
        // narrowed meanwhile, and hold them as they are again then.
        let mut now = std::mem::take(&mut self.state);
        if !narrow_in_place(&mut now) {
            self.state = now;
            return Ok(0);
        }
        let before = std::mem::take(&mut self.progress.last.before);
        let mut narrowed = Narrowed { now, before };
        let (mut taken, mut given_up, mut outcome) = (0, false, Ok(()));
        while due(self, taken, moves_before) {
            match self.narrowed_column_step(&mut narrowed) {
                Ok(Some(_)) => taken += 1,
                Ok(None) => {
                    given_up = true;
                    break;
                }
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        let Narrowed {
            mut now,
            mut before,
        } = narrowed;
        widen_in_place(&mut now);
        self.state = now;
        // A step that failed after landing (legitimacy's evaluation) has
        // its rows before in the record too; one given up has none, and
        // the step taken one by one next writes the record anew.
        if taken > 0 || outcome.is_err() {
            widen_in_place(&mut before);
        }
        self.progress.last.before = before;
        self.narrowed_steps += taken;
        outcome?;
        if given_up {
            self.step()?;
            taken += 1;
        }
        Ok(taken)
    }

    /// Whether [`Simulation::column_moves`] takes a batch now.
    #[inline]
    fn narrow_batches(&self) -> bool {
        let code = &self.code;
        code.columns.as_ref().is_some_and(|c| c.narrows())
            && !self.runs_in_ticks()
            && (code.legitimate.is_none() || code.legit_enabled_count.is_some())
            && self.column_step_due()
    }

    /// A synchronous step evaluated column by column (see
    /// [`crate::compile::columns`]): the same configuration, actions, rounds
    /// and legitimacy as process by process. The chosen actions stay in a
    /// column ([`Dense`]) until something needs the per-process bookkeeping.
    /// `None` when the program has no column form or a kernel may have
    /// faulted: nothing changed, and the step is to be taken process by
    /// process (which reports the fault).
    pub(super) fn column_step(&mut self) -> Result<Option<Outcome>, RunError> {
        let Some(mut step) = self.start_column_step() else {
            return Ok(None);
        };
        // Buffers of the step before last are reused.
        let mut next = if self.progress.last.whole {
            std::mem::take(&mut self.progress.last.before)
        } else {
            std::mem::take(&mut step.buf.spare)
        };
        next.resize(self.state.len(), 0);
        match self.column_kernels(&mut step, &self.state, &mut next) {
            Some(enabled) => self.land_column_step(step, Some(next), enabled),
            None => {
                self.abandon_column_step(step, Some(next));
                Ok(None)
            }
        }
    }

    /// [`Simulation::column_step`] on the configuration `narrowed` keeps:
    /// the configuration itself and the step record's rows before are left
    /// as they were, for [`Simulation::column_moves`] to bring up to date.
    fn narrowed_column_step(
        &mut self,
        narrowed: &mut Narrowed,
    ) -> Result<Option<Outcome>, RunError> {
        let Some(mut step) = self.start_column_step() else {
            return Ok(None);
        };
        let Narrowed { now, before } = narrowed;
        // After the step's start, which gives back what the step does
        // not need: never held with it.
        before.resize(now.len(), 0);
        match self.column_kernels(&mut step, as_narrowed(now), as_narrowed(before)) {
            Some(enabled) => {
                std::mem::swap(now, before);
                self.land_column_step(step, None, enabled)
            }
            None => {
                self.abandon_column_step(step, None);
                Ok(None)
            }
        }
    }

    /// What every column step starts with: its buffers, and the chosen
    /// actions as a column, the per-process bookkeeping given back where
    /// it is large; `None` where the program has no column form.
    fn start_column_step(&mut self) -> Option<ColumnStep> {
        let code = self.code.columns.as_ref()?;
        let n = self.topo.n();
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
        let (before, moving, uniform_before) = match self.progress.dense.take() {
            Some(d) => (d.chosen, d.count, d.uniform),
            None => {
                let mut c = buf.column(n);
                c.extend(self.progress.procs.iter().map(|i| i.chosen));
                let moving = self.progress.enabled.list.len();
                // Given back before the next configuration is made, so
                // that the step never holds both (see `land_column_step`):
                // the enabled list too where it is in increasing order, as
                // the chosen actions can list it again.
                if self.gives_back_bookkeeping() {
                    self.progress.procs = Vec::new();
                    let list = &mut self.progress.enabled.list;
                    if list.is_sorted() {
                        *list = Vec::new();
                    }
                }
                (c, moving, Vec::new())
            }
        };
        let mut uniform_after = buf.spare_uniform.pop().unwrap_or_default();
        uniform_after.clear();
        uniform_after.resize(buf.chunks.len(), None);
        let mut after = std::mem::take(&mut self.progress.last.chosen_before);
        if after.capacity() < n {
            after = buf.column(n);
        }
        after.resize(n, NO_ACTION);
        Some(ColumnStep {
            buf,
            before: (before, moving),
            was_dense,
            after,
            uniform: (uniform_before, uniform_after),
        })
    }

    /// The kernels of a column step: the statements, on `state`, into
    /// `next`, chunk by chunk; a chunk's guards, on `next`, as soon as both
    /// neighbouring chunks are done (the first and last wrap around, so
    /// they come at the end). How many are enabled after it, or `None`
    /// where a kernel may have faulted.
    fn column_kernels<T: ColumnValue>(
        &self,
        step: &mut ColumnStep,
        state: &[T],
        next: &mut [T],
    ) -> Option<usize> {
        let code = self.code.columns.as_ref()?;
        let (n, stride) = (self.topo.n(), self.code.stride);
        let ids = self.topo.kept_ids();
        let ColumnStep {
            buf,
            before: (before, _),
            after,
            uniform: (uniform_before, uniform_after),
            ..
        } = step;
        let ColumnBuffers {
            scratch,
            chunks,
            moves,
            ..
        } = &mut **buf;
        let first_action = &self.first_action;
        let mut enabled = 0;
        let mut choose = |k: usize, next: &[T], scratch: &mut Scratch| -> Result<(), MayFault> {
            let (lo, hi, role) = chunks[k];
            let rows = Rows {
                state: next,
                own: &next[lo * stride..hi * stride],
                ids,
                n,
            };
            let chosen = &mut after[lo..hi];
            code.choose(role, &rows, lo, chosen, scratch)?;
            // Counted while the chunk is in the cache, for the next step.
            let idle = count_equal(chosen, NO_ACTION);
            enabled += chosen.len() - idle;
            // (A chunk that starts idle but is not all idle is counted once.)
            uniform_after[k] = match chosen.first() {
                _ if idle == chosen.len() => Some(NO_ACTION),
                Some(&a) if a != NO_ACTION && count_equal(chosen, a) == chosen.len() => Some(a),
                _ => None,
            };
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
                let uniform = uniform_before.get(k).copied().flatten();
                let chosen = (&before[lo..hi], uniform);
                code.execute(role, &old, lo, chosen, rows, scratch, moved)?;
                if k >= 2 {
                    choose(k - 1, next, scratch)?;
                }
            }
            if last > 0 {
                choose(last, next, scratch)?;
            }
            choose(0, next, scratch)
        })();
        match ok {
            Ok(()) => Some(enabled),
            Err(MayFault) => {
                buf.moves.fill(0);
                None
            }
        }
    }

    /// The end of a column step that succeeded, after which `enabled`
    /// processes are: its moves counted, the configuration `next` in place
    /// (none when it is kept narrowed), the step record and the chosen
    /// actions kept as columns, a round ended and legitimacy evaluated.
    fn land_column_step(
        &mut self,
        step: ColumnStep,
        next: Option<Vec<i64>>,
        enabled: usize,
    ) -> Result<Option<Outcome>, RunError> {
        let ColumnStep {
            mut buf,
            before: (before, moving),
            after,
            uniform: (uniform_before, uniform_after),
            ..
        } = step;
        buf.keep_uniform(uniform_before);
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
        if let Some(next) = next {
            last.before = std::mem::replace(&mut self.state, next);
        }
        last.whole = true;
        progress.dense = Some(Dense {
            chosen: after,
            count: enabled,
            list: OnceCell::new(),
            uniform: uniform_after,
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
    /// configuration-sized buffer `next` (none when the configuration is
    /// kept narrowed), the columns, and the bookkeeping as it was, so that
    /// the step is taken process by process next.
    #[cold]
    fn abandon_column_step(&mut self, step: ColumnStep, next: Option<Vec<i64>>) {
        let ColumnStep {
            mut buf,
            before: (before, moving),
            was_dense,
            after,
            uniform: (uniform_before, uniform_after),
        } = step;
        buf.keep_uniform(uniform_after);
        if let Some(next) = next {
            buf.spare = next;
        }
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
                uniform: uniform_before,
            });
        } else {
            if self.progress.procs.is_empty() {
                // Given back at the step's start: the chosen actions are
                // in `before`, the places in the enabled list (kept, or
                // given back where it was in increasing order).
                let list = &mut self.progress.enabled.list;
                if list.len() != moving {
                    list.clear();
                    crate::runtime::record::append_chosen(&before, 0, list, None);
                }
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
