//! The step relation and its measures. One step: the daemon selects enabled
//! processes, each runs its enabled action against the configuration from
//! before the step, and all writes land together (composite atomicity).
//! After a step only the movers and the processes that read them are
//! re-evaluated, and rounds, legitimacy and stabilization are updated.

use crate::check::ir;
use crate::compile::{CRole, Compiled, Draws, Effects, Enabledness, Env, Fault, Holds, NO_ACTION};
use crate::runtime::bits::Bits;
pub use crate::runtime::daemon::{Daemon, NamedMove, ScheduledStep};
pub use crate::runtime::record::StepRecord;
use crate::runtime::record::{append_chosen, chosen_bits};
pub use crate::runtime::step::RunError;
use crate::runtime::step::{
    self, first_true, guard_fault, predicate_fault, statement_fault, Pick, StepBuffers, INVARIANT,
    LEGITIMACY,
};
use crate::state::channels::Channels;
use crate::topology::{Topology, NONE};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::{Cell, OnceCell};

mod access;
mod arc_order;
mod bookkeeping;
mod counts;
mod procs;
use counts::first_actions;
pub(crate) use procs::ProcInfo;
use procs::{Chosen, Dense, EnabledSet};
mod column_steps;
mod fast;
mod general;
mod invariants;
mod lean_ring;
mod legit_parts;
mod measures;
mod narrow;
mod ring_batch;
mod ticks;
mod unread_guards;

/// How many processes a synchronous step evaluates column by column at once.
pub use crate::compile::columns::CHUNK as COLUMN_CHUNK;
pub use access::FastPaths;
use bookkeeping::affect;
use column_steps::ColumnBuffers;
use fast::LOOK_AHEAD_BYTES;
pub use invariants::InvariantChecks;

/// Which move a process makes when it has several: several enabled
/// actions of the most urgent priority, or several members of its action's
/// binder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The first action in program order, for the first member.
    First,
    /// One at random among every action and member.
    Random,
}

impl Choice {
    /// Its name as `--choice` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Choice::First => "first",
            Choice::Random => "random",
        }
    }
}

/// A point in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct Point {
    /// Steps taken.
    pub step: u64,
    /// Moves made.
    pub moves: u64,
    /// Rounds, counting a started partial round as one.
    pub round: u64,
}

/// What one call to [`Simulation::step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A step was taken; see [`Simulation::last`].
    Moved,
    /// No process is enabled.
    Silent,
    /// The schedule has no more lines.
    ScheduleDone,
}

/// A running instance: configuration, enabled set, daemon and measures.
pub struct Simulation {
    /// The checked program (names, types).
    pub(crate) prog: std::sync::Arc<ir::Program>,
    /// Its compiled form on this topology.
    pub(crate) code: std::sync::Arc<Compiled>,
    /// The topology.
    pub(crate) topo: Topology,
    /// The configuration: `stride` values per process.
    pub(crate) state: Vec<i64>,
    /// The generator every random choice draws from.
    pub(crate) rng: ChaCha8Rng,
    /// The channels' contents (empty without messages).
    pub(crate) chans: Channels,
    /// The daemon.
    pub(crate) daemon: Daemon,
    /// How an action is chosen among several enabled.
    pub(crate) choice: Choice,
    progress: Progress,
    /// What a step works in, reused from step to step.
    buf: StepBuffers,
    /// The quantifier cells of guards evaluated while a step's statements
    /// run (to list a mover's enabled actions for `--choice random`).
    choice_locals: Vec<Cell<i64>>,
    /// Processes already looked at in this step (cleared after it).
    marks: Bits,
    affected: Vec<u32>,
    /// The column path's buffers, made at its first step.
    columns: Option<Box<ColumnBuffers>>,
    /// Whether synchronous steps may be evaluated column by column.
    pub(crate) column_path: bool,
    /// The shortest average run of consecutive processes with one role
    /// for which the column path is taken: kernels are dispatched once per
    /// run, so very short runs are faster process by process.
    pub(crate) column_min_run: usize,
    /// Runs of consecutive processes with one role.
    role_runs: usize,
    /// Whether single moves may take the lean path ([`Simulation::single_move`]).
    pub(crate) single_move_path: bool,
    /// Whether central steps prefetch what the next ones will read: on when
    /// the configuration is larger than the caches near the processor.
    look_ahead: bool,
    /// On a ring: whether a move can change the guards of the process
    /// after the mover, and of the one before it (those that read it).
    ring_guard_readers: Option<(bool, bool)>,
    /// Whether steps leave alone the guards that read nothing they changed
    /// ([`unread_guards::guards_may_be_left_alone`], where that path is on).
    leaves_guards_alone: bool,
    /// Whether that path is on ([`FastPaths::guards_left_alone`]).
    guards_left_alone_path: bool,
    column_steps: u64,
    /// How many of them ran on the configuration narrowed.
    narrowed_steps: u64,
    /// Where each role's actions begin in [`Progress::moved`].
    first_action: Vec<u32>,
    /// What a tick works in (programs that run in ticks).
    tick_buf: crate::runtime::tick::TickBuffers,
}

/// The bookkeeping a step changes besides the configuration: enabled set,
/// schedule position, last step, measures, round and legitimacy state.
#[derive(Clone)]
struct Progress {
    /// Per process: chosen action, place in the enabled list, round flag, role, mark.
    procs: Vec<ProcInfo>,
    enabled: EnabledSet,
    schedule_pos: usize,
    last: StepRecord,
    steps: u64,
    moves: u64,
    rounds_done: u64,
    /// Rounds a change from outside a step ended before they completed:
    /// they count among the rounds (so the count never goes back), not
    /// among the complete ones.
    rounds_cut: u64,
    steps_in_round: u64,
    /// Enabled at the round's start and neither moved nor neutralized since.
    in_round: Bits,
    /// Per incremental legitimacy conjunct: where its predicate is known
    /// to hold (see `legit_parts.rs`).
    legit: Vec<legit_parts::PartState>,
    /// Set after a column step: then `procs[].chosen`, `procs[].pos`,
    /// `enabled` and `in_round` are out of date, and this holds the truth.
    dense: Option<Dense>,
    pending: usize,
    legit_now: Option<bool>,
    first_legit: Option<Point>,
    last_entry: Option<Point>,
    losses: u64,
    /// Moves per role and action, at `first_action[role] + action`,
    /// counted by each step where it knows them.
    moved: Vec<u64>,
}

impl Progress {
    /// How many processes are enabled.
    fn enabled_count(&self) -> usize {
        self.dense
            .as_ref()
            .map_or(self.enabled.list.len(), |d| d.count)
    }

    /// Steps, moves and rounds so far.
    fn now(&self) -> Point {
        Point {
            step: self.steps,
            moves: self.moves,
            round: self.rounds_done + self.rounds_cut + u64::from(self.steps_in_round > 0),
        }
    }
}

impl Enabledness for Progress {
    #[inline]
    fn is_enabled(&self, p: usize) -> bool {
        match &self.dense {
            Some(d) => d.chosen[p] != NO_ACTION,
            None => self.procs[p].chosen != NO_ACTION,
        }
    }
}

/// Everything a step can change, so a run can go back exactly (undo),
/// including the random generator's position.
#[derive(Clone)]
pub struct Snapshot {
    state: Vec<i64>,
    chans: Channels,
    rng: ChaCha8Rng,
    /// Where `random(...)` draws stand.
    draws: Draws,
    progress: Progress,
}

impl Snapshot {
    /// The configuration it holds.
    pub fn state(&self) -> &[i64] {
        &self.state
    }

    /// The messages in transit it holds.
    pub fn channels(&self) -> &Channels {
        &self.chans
    }
}

impl Simulation {
    /// Replaces values from outside a step (fault injection, a loaded
    /// configuration): guards are re-evaluated, a new round starts (the
    /// completed ones are kept, and a round under way still counts among
    /// the rounds, so the count never goes back) and legitimacy is updated,
    /// so a later return to legitimacy counts as a new stabilization.
    pub fn change_state(&mut self, change: impl FnOnce(&mut [i64])) -> Result<(), RunError> {
        self.settle();
        self.keep_last_rows();
        change(&mut self.state);
        self.reevaluate_all()?;
        // The change ends the round under way: it stays counted.
        if self.progress.steps_in_round > 0 {
            self.progress.rounds_cut += 1;
        }
        self.progress.in_round.clear_all();
        self.progress.start_round();
        self.update_legitimacy(true)
    }

    /// Starts a run from `state`.
    pub fn new(
        prog: std::sync::Arc<ir::Program>,
        code: std::sync::Arc<Compiled>,
        topo: Topology,
        (state, chans): (Vec<i64>, Channels),
        daemon: Daemon,
        choice: Choice,
        rng: ChaCha8Rng,
    ) -> Result<Self, RunError> {
        let n = topo.n();
        let stride = code.stride;
        let moved = vec![0; code.roles.iter().map(|r| r.actions.len()).sum()];
        let first_action = first_actions(&code);
        let procs = code.role_of.iter().map(ProcInfo::of_role).collect();
        let role_runs = code.role_of.runs().count().max(1);
        let buf = StepBuffers::new(&code);
        let leaves_guards_alone = unread_guards::guards_may_be_left_alone(&code);
        if code.has_random {
            // Draws have a stream of their own: the daemon's choices are
            // those of the same seed in a program that does not draw.
            let mut draws = rng.clone();
            draws.set_stream(1);
            *buf.fx.draws.borrow_mut() = Draws::Generator(Box::new(draws));
        }
        let mut sim = Simulation {
            buf,
            choice_locals: vec![Cell::new(0); code.max_locals],
            prog,
            code,
            topo,
            state,
            rng,
            chans,
            daemon,
            choice,
            progress: Progress {
                procs,
                // At most every process: room for all once, no growth.
                enabled: EnabledSet {
                    list: Vec::with_capacity(n),
                },
                schedule_pos: 0,
                last: StepRecord::default(),
                steps: 0,
                moves: 0,
                rounds_done: 0,
                rounds_cut: 0,
                steps_in_round: 0,
                in_round: Bits::new(n),
                legit: Vec::new(),
                dense: None,
                pending: 0,
                legit_now: None,
                first_legit: None,
                last_entry: None,
                losses: 0,
                moved,
            },
            // Made room for where first needed: rings and most graphs
            // never mark (a move affects few enough to search a list).
            marks: Bits::default(),
            affected: Vec::new(),
            columns: None,
            column_path: true,
            column_min_run: 8,
            role_runs,
            single_move_path: true,
            look_ahead: n * (stride * 8 + std::mem::size_of::<ProcInfo>()) > LOOK_AHEAD_BYTES,
            ring_guard_readers: None,
            leaves_guards_alone,
            guards_left_alone_path: true,
            column_steps: 0,
            narrowed_steps: 0,
            first_action,
            tick_buf: Default::default(),
        };
        sim.ring_guard_readers = sim.topo.regular_ring.map(|both| {
            // A ring's neighbours both read a process, unless no guard reads
            // that side. Incremental legitimacy conjuncts may read every
            // neighbour, so they keep both.
            let local_legit = sim
                .code
                .legit_parts
                .iter()
                .any(|part| !matches!(part, crate::compile::LegitPart::Whole(_)));
            match &sim.code.columns {
                Some(c) if !local_legit => {
                    let (left, right) = c.guards_read();
                    (left, both && right)
                }
                _ => (true, both),
            }
        });
        sim.reevaluate_all()?;
        sim.progress.start_round();
        sim.update_legitimacy(true)?;
        Ok(sim)
    }

    /// Re-evaluates every process's guards, as after the configuration
    /// changed from outside a step; the caller starts a new round.
    pub(crate) fn reevaluate_all(&mut self) -> Result<(), RunError> {
        self.settle();
        // One guard environment for them all. The callers start a new
        // round after, so a process leaving the old one changes nothing.
        let b = &self.buf;
        let mut env = Env::new(&self.state, &self.topo, &b.locals, &self.chans, &b.fx, 0);
        for p in 0..self.topo.n() as u32 {
            bookkeeping::refresh_in(&self.code, &mut self.progress, &mut env, p)?;
        }
        Ok(())
    }

    /// Bytes held by the configuration, the runtime's per-process tables,
    /// the compiled instance's (roles, values kept by processes outside a
    /// variable's role) and the topology (closures and per-step buffers are
    /// left out: they do not grow with n).
    pub fn memory_bytes(&self) -> usize {
        let p = &self.progress;
        let fixed: usize = self
            .code
            .fixed
            .iter()
            .flatten()
            .map(|per| per.capacity() * 16)
            .sum();
        let lists =
            |(movers, actions): &(Vec<u32>, Vec<u32>)| (movers.capacity() + actions.capacity()) * 4;
        self.state.capacity() * 8
            + self.code.role_of.bytes()
            + fixed
            + p.legit
                .iter()
                .map(legit_parts::PartState::bytes)
                .sum::<usize>()
            + p.last.worked_out.get().map_or(0, lists)
            + p.procs.capacity() * std::mem::size_of::<ProcInfo>()
            + p.enabled.list.capacity() * 4
            + p.in_round.bytes()
            + self.marks.bytes()
            + self.topo.memory_bytes()
            + (p.last.movers.capacity() + p.last.actions.capacity()) * 4
            + p.last.chosen_before.capacity() * 2
            + p.dense.as_ref().map_or(0, |d| {
                d.chosen.capacity() * 2
                    + d.uniform.capacity() * 4
                    + d.list.get().map_or(0, |l| l.capacity() * 4)
            })
            + (p.last.before.capacity() + p.last.after.capacity()) * 8
            + self.columns.as_ref().map_or(0, |c| c.bytes())
    }

    /// The step relation of this simulation's instance (the definition its
    /// steps follow, as a pure function on configurations).
    pub fn step_relation(&self) -> step::StepRelation<'_> {
        step::StepRelation::new(&self.prog, &self.code, &self.topo)
    }

    /// The configuration now, as a value in canonical form.
    pub fn config(&self) -> crate::state::Config {
        let mut c = crate::state::Config {
            rows: self.state.clone(),
            chans: self.chans.clone(),
        };
        c.canonicalize();
        c
    }

    /// The number of processes.
    pub fn n(&self) -> usize {
        self.topo.n()
    }
    /// Whether the program runs in ticks (then a step is a tick).
    pub fn runs_in_ticks(&self) -> bool {
        self.code.delay.is_some()
    }
    /// Values per process.
    pub fn stride(&self) -> usize {
        self.code.stride
    }
    /// The last step's movers and rows.
    pub fn last(&self) -> &StepRecord {
        &self.progress.last
    }

    /// How many steps were evaluated column by column.
    pub fn column_steps(&self) -> u64 {
        self.column_steps
    }

    /// How many of the steps evaluated column by column ran on the
    /// configuration narrowed to 32-bit values (see
    /// [`Simulation::column_moves`]).
    pub fn narrowed_steps(&self) -> u64 {
        self.narrowed_steps
    }

    /// The rows of the last step's `k`-th mover before and after the step.
    pub fn mover_rows(&self, k: usize) -> (&[i64], &[i64]) {
        let s = self.code.stride;
        let last = &self.progress.last;
        if last.whole {
            let p = last.movers()[k] as usize;
            (
                &last.before[p * s..(p + 1) * s],
                &self.state[p * s..(p + 1) * s],
            )
        } else {
            (
                &last.before[k * s..(k + 1) * s],
                &last.after[k * s..(k + 1) * s],
            )
        }
    }

    /// Copies the last step's rows out of the configuration before it changes
    /// from outside a step (a column step reads them from there).
    fn keep_last_rows(&mut self) {
        let last = &mut self.progress.last;
        if !last.whole {
            return;
        }
        let s = self.code.stride;
        let whole = std::mem::take(&mut last.before);
        last.after.clear();
        for &p in &last.movers {
            let p = p as usize;
            last.before.extend_from_slice(&whole[p * s..(p + 1) * s]);
            last.after
                .extend_from_slice(&self.state[p * s..(p + 1) * s]);
        }
        last.whole = false;
    }
    /// Steps, moves and rounds so far.
    pub fn now(&self) -> Point {
        self.progress.now()
    }
    /// Rounds completed (a partial round not counted).
    pub fn rounds_completed(&self) -> u64 {
        self.progress.rounds_done
    }
    /// Whether nothing will happen any more: no process is enabled, no
    /// timer can advance, and (in ticks) no message is on its way.
    pub fn is_silent(&self) -> bool {
        self.enabled_count() == 0 && !self.timers_can_run() && !self.chans.in_transit()
    }
    /// The enabled processes, in no particular order.
    pub fn enabled(&self) -> &[u32] {
        match &self.progress.dense {
            Some(d) => d.list.get_or_init(|| {
                let mut list = Vec::with_capacity(d.count);
                append_chosen(&d.chosen, 0, &mut list, None);
                list
            }),
            None => &self.progress.enabled.list,
        }
    }
    /// How many processes are enabled (without listing them, which after
    /// a synchronous step evaluated column by column would build the list).
    pub fn enabled_count(&self) -> usize {
        self.progress.enabled_count()
    }
    /// The action process `p` would run, if it is enabled.
    pub fn chosen_action(&self, p: usize) -> Option<&crate::compile::CAction> {
        let chosen = self.chosen().of(p);
        let role = self.code.role_of.of(p);
        (chosen != NO_ACTION).then(|| &self.code.roles[role].actions[chosen as usize])
    }

    fn env<'a>(&'a self, me: usize, scratch: &'a [Cell<i64>]) -> Env<'a> {
        let b = &self.buf;
        Env {
            scratch,
            enabled: &self.progress,
            enabled_count: self.enabled_count(),
            ..Env::new(&self.state, &self.topo, &b.locals, &self.chans, &b.fx, me)
        }
    }

    /// The environment mover `p`'s statement runs in: its row in the
    /// scratch cells. Statements cannot ask whether a process is enabled.
    fn statement_env(&self, p: usize) -> Env<'_> {
        (self.buf).statement_env(&self.state, &self.topo, &self.chans, p)
    }

    /// The enabled actions of `p` (those of the most urgent enabled priority), by index.
    pub fn enabled_actions(&self, p: usize) -> Result<Vec<u32>, RunError> {
        let role = &self.code.roles[self.code.role_of.of(p)];
        let first = self.chosen().of(p);
        step::enabled_actions_from(role, &self.env(p, &[]), p, first, self.progress.steps)
    }

    /// Takes one step under the daemon (in ticks, one tick).
    pub fn step(&mut self) -> Result<Outcome, RunError> {
        if self.runs_in_ticks() {
            return self.tick_step();
        }
        let count = self.enabled_count();
        if count > 0 && self.takes_single_moves() {
            self.settle();
            let p = self.draw_single_mover();
            return self.single_move(p as usize);
        }
        // Column by column when the daemon moves everyone and enough are
        // enabled that visiting every process is cheaper than visiting
        // the movers and their readers one by one.
        if self.column_step_due() {
            if let Some(outcome) = self.column_step()? {
                return Ok(outcome);
            }
        }
        self.settle();
        if count == 0 {
            return self.tick();
        }
        if !self.select()? {
            return Ok(Outcome::ScheduleDone);
        }
        self.execute()
    }
}
