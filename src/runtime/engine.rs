//! The step relation and its measures. One step: the daemon selects enabled
//! processes, each runs its enabled action against the configuration from
//! before the step, and all writes land together (composite atomicity).
//! After a step only the movers and the processes that read them are
//! re-evaluated, and rounds, legitimacy and stabilization are updated.

use crate::check::ir;
use crate::compile::{Compiled, Effects, Enabledness, Env, Fault, NoneEnabled, NO_ACTION};
use crate::runtime::bits::Bits;
pub use crate::runtime::daemon::{Daemon, ScheduledStep};
pub use crate::runtime::record::StepRecord;
use crate::runtime::record::{append_chosen, chosen_bits};
pub use crate::runtime::step::RunError;
use crate::runtime::step::{self, first_true, guard_fault, statement_fault, StepBuffers};
use crate::state::channels::Channels;
use crate::topology::{Topology, NONE};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::{Cell, OnceCell};

/// Which enabled action a process runs when several of the most urgent
/// priority are enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The first in program order.
    First,
    /// One at random.
    Random,
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

/// After a synchronous step evaluated column by column, what every process
/// would run next, as a column; the enabled list, positions and round flags
/// are worked out from it when needed (see [`Simulation::settle`]).
#[derive(Clone)]
struct Dense {
    chosen: Vec<u16>,
    /// Processes with an action chosen.
    count: usize,
    /// Their list, in index order, when asked for.
    list: OnceCell<Vec<u32>>,
}

/// The runtime's bookkeeping of one process, kept together so a step
/// touches one cache line per process.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProcInfo {
    /// Its place in the list of enabled processes, or `NONE`.
    pub(crate) pos: u32,
    /// The action it would run (the first enabled), or [`NO_ACTION`].
    pub(crate) chosen: u16,
    /// Its role.
    pub(crate) role: u16,
}

/// Where the action each process would run is kept: in its bookkeeping, or
/// (after a synchronous step evaluated column by column) in one column.
#[derive(Clone, Copy, Debug)]
enum Chosen<'a> {
    /// [`ProcInfo::chosen`] of each process.
    Procs(&'a [ProcInfo]),
    /// One action per process.
    Column(&'a [u16]),
}

impl Chosen<'_> {
    /// The action process `p` would run, or [`NO_ACTION`].
    #[inline]
    fn of(&self, p: usize) -> u16 {
        match self {
            Chosen::Procs(procs) => procs[p].chosen,
            Chosen::Column(c) => c[p],
        }
    }
}

/// The set of enabled processes: O(1) insert, remove and uniform choice.
/// Positions live in each process's [`ProcInfo`], next to the rest of its
/// bookkeeping, so a step touches one cache line per process.
#[derive(Default, Clone)]
struct EnabledSet {
    list: Vec<u32>,
}

impl EnabledSet {
    fn insert(&mut self, procs: &mut [ProcInfo], p: u32) {
        let info = &mut procs[p as usize];
        if info.pos == NONE {
            info.pos = self.list.len() as u32;
            self.list.push(p);
        }
    }
    fn remove(&mut self, procs: &mut [ProcInfo], p: u32) {
        let i = procs[p as usize].pos;
        if i != NONE {
            let last = self.list.pop().expect("non-empty");
            if last != p {
                self.list[i as usize] = last;
                procs[last as usize].pos = i;
            }
            procs[p as usize].pos = NONE;
        }
    }
}

/// The size of configuration and bookkeeping above which central steps
/// prefetch (see [`Simulation::prefetch_next_move`]): about what a core's
/// second-level cache holds.
const LOOK_AHEAD_BYTES: usize = 1 << 20;

/// The number of enabled processes from which central steps prefetch: with
/// fewer, the rows the next moves touch are few enough to stay in the
/// caches, and drawing ahead only costs time.
const LOOK_AHEAD_ENABLED: usize = 8192;

/// The length of the enabled list from which central steps prefetch the
/// list slot the step after next draws, rather than read it.
const LOOK_AHEAD_LIST: usize = 1 << 16;

/// Starts loading the cache line holding `x`: a hint, with no effect on
/// what the program computes.
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the pointer comes from a reference, so it is valid; and a
    // prefetch does not access memory as far as the program can tell (it
    // cannot fault, and changes no value). The intrinsic is `unsafe` only
    // because of its `target_feature`, SSE, which every x86-64 has.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Makes `v` the one-element list `[x]`; a list that already has one
/// element (as after the last single move) only has it replaced.
#[inline]
fn set_one<T>(v: &mut Vec<T>, x: T) {
    if let [only] = &mut v[..] {
        *only = x;
    } else {
        v.clear();
        v.push(x);
    }
}

/// Adds `q` to the processes a step affects unless it is there already:
/// searched for in the list when there are `few`, else marked in `marks`.
#[inline]
fn affect(marks: &mut Bits, affected: &mut Vec<u32>, few: bool, q: u32) {
    if few {
        if !affected.contains(&q) {
            affected.push(q);
        }
    } else if !marks.get(q as usize) {
        marks.set(q as usize);
        affected.push(q);
    }
}

/// A running instance: configuration, enabled set, daemon and measures.
pub struct Simulation {
    /// The checked program (names, types).
    pub prog: ir::Program,
    /// Its compiled form on this topology.
    pub code: Compiled,
    /// The topology.
    pub topo: Topology,
    /// The configuration: `stride` values per process.
    pub state: Vec<i64>,
    /// The generator every random choice draws from.
    pub rng: ChaCha8Rng,
    /// The channels' contents (empty without messages).
    pub chans: Channels,
    /// The daemon.
    pub daemon: Daemon,
    /// How an action is chosen among several enabled.
    pub choice: Choice,
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
    pub column_path: bool,
    /// The shortest average run of consecutive processes with one role
    /// for which the column path is taken: kernels are dispatched once per
    /// run, so very short runs are faster process by process.
    pub column_min_run: usize,
    /// Runs of consecutive processes with one role.
    role_runs: usize,
    /// The incremental legitimacy conjuncts' new values at the affected
    /// processes, kept to reuse its allocation.
    legit_changes: Vec<(usize, bool)>,
    /// Whether single moves may take the lean path ([`Simulation::single_move`]).
    pub single_move_path: bool,
    /// Whether central steps prefetch what the next ones will read: on when
    /// the configuration is larger than the caches near the processor.
    look_ahead: bool,
    /// On a ring: whether a move can change the guards of the process
    /// after the mover, and of the one before it (those that read it).
    ring_guard_readers: Option<(bool, bool)>,
    column_steps: u64,
}

/// What a synchronous step evaluated column by column works in.
struct ColumnBuffers {
    scratch: crate::compile::columns::Scratch,
    /// Runs of consecutive processes with one role, cut in chunks of at
    /// most [`CHUNK`](crate::compile::columns::CHUNK): (first, end, role).
    chunks: Vec<(usize, usize, usize)>,
    /// A configuration-sized buffer the next configuration is built in.
    spare: Vec<i64>,
    /// Columns of chosen actions to reuse.
    spare_columns: Vec<Vec<u16>>,
}

impl ColumnBuffers {
    fn bytes(&self) -> usize {
        self.scratch.bytes()
            + self.chunks.capacity() * 24
            + self.spare.capacity() * 8
            + self
                .spare_columns
                .iter()
                .map(|c| c.capacity() * 2)
                .sum::<usize>()
    }

    /// A column for `n` processes, reused when one is at hand.
    fn column(&mut self, n: usize) -> Vec<u16> {
        let mut c = self
            .spare_columns
            .pop()
            .filter(|c| c.capacity() >= n)
            .unwrap_or_default();
        c.clear();
        c
    }
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
    steps_in_round: u64,
    /// Enabled at the round's start and neither moved nor neutralized since.
    in_round: Bits,
    /// Per incremental legitimacy conjunct: where its predicate holds, and how often.
    legit: Vec<(Bits, usize)>,
    /// Set after a column step: then `procs[].chosen`, `procs[].pos`,
    /// `enabled` and `in_round` are out of date, and this holds the truth.
    dense: Option<Dense>,
    pending: usize,
    legit_now: Option<bool>,
    first_legit: Option<Point>,
    last_entry: Option<Point>,
    losses: u64,
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
    progress: Progress,
}

impl Snapshot {
    /// The configuration it holds.
    pub fn state(&self) -> &[i64] {
        &self.state
    }
}

impl Simulation {
    /// Captures everything a step can change.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: self.state.clone(),
            chans: self.chans.clone(),
            rng: self.rng.clone(),
            progress: self.progress.clone(),
        }
    }

    /// Goes back to a snapshot taken from this simulation.
    pub fn restore(&mut self, s: Snapshot) {
        // Keep the column path's big buffers for its next step.
        if let Some(buf) = self.columns.as_mut() {
            let p = &mut self.progress;
            if p.last.whole {
                buf.spare = std::mem::take(&mut p.last.before);
            }
            let columns = [
                std::mem::take(&mut p.last.chosen_before),
                p.dense.take().map(|d| d.chosen).unwrap_or_default(),
            ];
            buf.spare_columns
                .extend(columns.into_iter().filter(|c| c.capacity() > 0));
        }
        self.state = s.state;
        self.chans = s.chans;
        self.rng = s.rng;
        self.progress = s.progress;
    }

    /// Replaces values from outside a step (fault injection, a loaded
    /// configuration): guards are re-evaluated, a new round starts (the
    /// completed ones are kept) and legitimacy is updated, so a later return
    /// to legitimacy counts as a new stabilization.
    pub fn change_state(&mut self, change: impl FnOnce(&mut [i64])) -> Result<(), RunError> {
        self.settle();
        self.keep_last_rows();
        change(&mut self.state);
        self.reevaluate_all()?;
        self.progress.in_round.clear_all();
        self.start_round();
        self.update_legitimacy(true)
    }

    /// Starts a run from `state`.
    pub fn new(
        prog: ir::Program,
        code: Compiled,
        topo: Topology,
        (state, chans): (Vec<i64>, Channels),
        daemon: Daemon,
        choice: Choice,
        rng: ChaCha8Rng,
    ) -> Result<Self, RunError> {
        let n = topo.n();
        let stride = code.stride;
        let code_roles = code.role_of.clone();
        let mut sim = Simulation {
            buf: StepBuffers::new(&code),
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
                procs: code_roles
                    .iter()
                    .map(|&role| ProcInfo {
                        chosen: NO_ACTION,
                        pos: NONE,
                        role: role as u16,
                    })
                    .collect(),
                enabled: EnabledSet::default(),
                schedule_pos: 0,
                last: StepRecord::default(),
                steps: 0,
                moves: 0,
                rounds_done: 0,
                steps_in_round: 0,
                in_round: Bits::new(n),
                legit: Vec::new(),
                dense: None,
                pending: 0,
                legit_now: None,
                first_legit: None,
                last_entry: None,
                losses: 0,
            },
            marks: Bits::new(n),
            affected: Vec::new(),
            columns: None,
            column_path: true,
            column_min_run: 8,
            role_runs: 1 + code_roles.windows(2).filter(|w| w[0] != w[1]).count(),
            legit_changes: Vec::new(),
            single_move_path: true,
            look_ahead: n * (stride * 8 + std::mem::size_of::<ProcInfo>()) > LOOK_AHEAD_BYTES,
            ring_guard_readers: None,
            column_steps: 0,
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
        sim.start_round();
        sim.update_legitimacy(true)?;
        Ok(sim)
    }

    /// Re-evaluates every process's guards, as after the configuration
    /// changed from outside a step.
    pub fn reevaluate_all(&mut self) -> Result<(), RunError> {
        self.settle();
        for p in 0..self.topo.n() {
            self.refresh(p)?;
        }
        Ok(())
    }

    fn start_round(&mut self) {
        self.progress.steps_in_round = 0;
        self.progress.pending = self.progress.enabled.list.len();
        for &p in &self.progress.enabled.list {
            self.progress.in_round.set(p as usize);
        }
    }

    /// Bytes held by the configuration, the runtime's per-process tables and
    /// the topology (closures and per-step buffers are left out: they do not
    /// grow with n).
    pub fn memory_bytes(&self) -> usize {
        let p = &self.progress;
        self.state.capacity() * 8
            + p.procs.capacity() * std::mem::size_of::<ProcInfo>()
            + p.enabled.list.capacity() * 4
            + p.in_round.bytes()
            + self.marks.bytes()
            + self.topo.memory_bytes()
            + (p.last.movers.capacity() + p.last.actions.capacity()) * 4
            + p.last.chosen_before.capacity() * 2
            + p.dense.as_ref().map_or(0, |d| d.chosen.capacity() * 2)
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
        Point {
            step: self.progress.steps,
            moves: self.progress.moves,
            round: self.progress.rounds_done + u64::from(self.progress.steps_in_round > 0),
        }
    }
    /// Rounds completed (a partial round not counted).
    pub fn rounds_completed(&self) -> u64 {
        self.progress.rounds_done
    }
    /// Whether no process is enabled.
    pub fn is_silent(&self) -> bool {
        self.enabled_count() == 0 && !self.timers_can_run()
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
    /// How many processes are enabled.
    fn enabled_count(&self) -> usize {
        self.progress
            .dense
            .as_ref()
            .map_or(self.progress.enabled.list.len(), |d| d.count)
    }
    /// Where the action each process would run is kept now.
    fn chosen(&self) -> Chosen<'_> {
        match &self.progress.dense {
            Some(d) => Chosen::Column(&d.chosen),
            None => Chosen::Procs(&self.progress.procs),
        }
    }
    /// The action process `p` would run, if it is enabled.
    pub fn chosen_action(&self, p: usize) -> Option<&crate::compile::CAction> {
        let chosen = self.chosen().of(p);
        let role = self.progress.procs[p].role;
        (chosen != NO_ACTION).then(|| &self.code.roles[role as usize].actions[chosen as usize])
    }

    /// Brings the per-process bookkeeping up to date after column steps
    /// (see [`Dense`]): chosen actions and positions, the enabled list in
    /// index order, the round's flags (a round starts after every column
    /// step) and the last step's movers.
    #[inline]
    fn settle(&mut self) {
        if self.progress.last.lazy || self.progress.dense.is_some() {
            self.settle_columns();
        }
    }

    fn settle_columns(&mut self) {
        let progress = &mut self.progress;
        let last = &mut progress.last;
        if last.lazy {
            let (movers, actions) = match last.worked_out.take() {
                Some(done) => done,
                None => last.moves_of_chosen(),
            };
            last.movers = movers;
            last.actions = actions;
            last.lazy = false;
        }
        let Some(dense) = progress.dense.take() else {
            return;
        };
        let list = &mut progress.enabled.list;
        list.clear();
        append_chosen(&dense.chosen, 0, list, None);
        let mut k = 0u32;
        for ((infos, chosen), word) in progress
            .procs
            .chunks_mut(64)
            .zip(dense.chosen.chunks(64))
            .zip(progress.in_round.0.iter_mut())
        {
            let bits = chosen_bits(chosen);
            *word = bits;
            for (info, &c) in infos.iter_mut().zip(chosen) {
                info.chosen = c;
                info.pos = NONE;
            }
            let mut rest = bits;
            while rest != 0 {
                infos[rest.trailing_zeros() as usize].pos = k;
                k += 1;
                rest &= rest - 1;
            }
        }
    }
    /// Whether the legitimacy predicate holds now (`None` without one).
    pub fn legitimate(&self) -> Option<bool> {
        self.progress.legit_now
    }
    /// The first point at which legitimacy held.
    pub fn first_legitimate(&self) -> Option<Point> {
        self.progress.first_legit
    }
    /// The point from which legitimacy has held without interruption, if it holds now.
    pub fn stabilized_at(&self) -> Option<Point> {
        if self.progress.legit_now == Some(true) {
            self.progress.last_entry
        } else {
            None
        }
    }
    /// How often legitimacy was lost after holding.
    pub fn legitimacy_losses(&self) -> u64 {
        self.progress.losses
    }

    fn env<'a>(&'a self, me: usize, scratch: &'a [Cell<i64>]) -> Env<'a> {
        Env {
            state: &self.state,
            me,
            scratch,
            topo: &self.topo,
            locals: &self.buf.locals,
            enabled: &self.progress,
            enabled_count: self.enabled_count(),
            chans: &self.chans,
            fx: &self.buf.fx,
        }
    }

    /// The environment mover `p`'s statement runs in: its row in the
    /// scratch cells. Statements cannot ask whether a process is enabled.
    fn statement_env(&self, p: usize) -> Env<'_> {
        Env {
            state: &self.state,
            me: p,
            scratch: &self.buf.scratch,
            topo: &self.topo,
            locals: &self.buf.locals,
            enabled: &NoneEnabled,
            enabled_count: 0,
            chans: &self.chans,
            fx: &self.buf.fx,
        }
    }

    /// Evaluates `p`'s guards: the first enabled action of the most urgent priority.
    fn first_enabled(&self, p: usize) -> Result<u32, RunError> {
        Ok(self.first_true_guard(p, false)?.unwrap_or(NONE))
    }

    /// The first action of `p` whose guard holds, among all actions or only
    /// those whose guards read timers.
    fn first_true_guard(&self, p: usize, only_timers: bool) -> Result<Option<u32>, RunError> {
        let role = &self.code.roles[self.progress.procs[p].role as usize];
        match first_true(role, &self.env(p, &[]), only_timers) {
            Ok(NO_ACTION) => Ok(None),
            Ok(a) => Ok(Some(u32::from(a))),
            Err((i, fault)) => Err(guard_fault(role, p, i, self.progress.steps, fault)),
        }
    }

    fn refresh(&mut self, p: usize) -> Result<(), RunError> {
        let a = self.first_enabled(p)?;
        let progress = &mut self.progress;
        progress.procs[p].chosen = if a == NONE { NO_ACTION } else { a as u16 };
        if a == NONE {
            progress.enabled.remove(&mut progress.procs, p as u32);
        } else {
            progress.enabled.insert(&mut progress.procs, p as u32);
        }
        Ok(())
    }

    /// The enabled actions of `p` (those of the most urgent enabled priority), by index.
    pub fn enabled_actions(&self, p: usize) -> Result<Vec<u32>, RunError> {
        let role = &self.code.roles[self.progress.procs[p].role as usize];
        let first = self.chosen().of(p);
        step::enabled_actions_from(role, &self.env(p, &[]), p, first, self.progress.steps)
    }

    fn select(&mut self) -> Result<bool, RunError> {
        let lines = match &self.daemon {
            Daemon::Schedule(lines) => lines,
            daemon => {
                let progress = &mut self.progress;
                daemon.select(
                    &progress.enabled.list,
                    &self.topo,
                    &mut self.rng,
                    &mut self.marks,
                    &mut progress.last.movers,
                );
                return Ok(true);
            }
        };
        self.progress.last.movers.clear();
        let Some(line) = lines.get(self.progress.schedule_pos) else {
            return Ok(false);
        };
        self.progress.schedule_pos += 1;
        for &p in &line.procs {
            if p as usize >= self.topo.n() {
                return Err(RunError::Schedule {
                    line: line.line,
                    message: format!(
                        "process {p} does not exist (the topology has {})",
                        self.topo.n()
                    ),
                });
            }
            if self.progress.procs[p as usize].chosen == NO_ACTION {
                return Err(RunError::Schedule {
                    line: line.line,
                    message: format!(
                        "process {p} is not enabled at step {}",
                        self.progress.steps + 1
                    ),
                });
            }
            if !self.progress.last.movers.contains(&p) {
                self.progress.last.movers.push(p);
            }
        }
        Ok(true)
    }

    /// Takes one step under the daemon.
    pub fn step(&mut self) -> Result<Outcome, RunError> {
        let count = self.enabled_count();
        if count > 0
            && self.single_move_path
            && self.daemon == Daemon::Central
            && self.choice == Choice::First
            && !self.code.has_effects
        {
            self.settle();
            let list = &self.progress.enabled.list;
            let len = list.len();
            let p = list[self.rng.gen_range(0..len)];
            if self.look_ahead && len >= LOOK_AHEAD_ENABLED {
                self.prefetch_next_move();
            }
            set_one(&mut self.progress.last.movers, p);
            return self.single_move(p as usize);
        }
        // Column by column when the daemon moves everyone and enough are
        // enabled that visiting every process is cheaper than visiting
        // the movers and their readers one by one.
        let n = self.topo.n();
        if count > 0
            && count * 32 >= n
            && self.role_runs * self.column_min_run <= n
            && self.column_path
            && matches!(self.daemon, Daemon::Synchronous)
            && self.choice == Choice::First
        {
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

    /// Asks the cache for what the next central steps will probably read,
    /// so that its misses overlap with this step's work instead of adding
    /// to the next one's: the process the generator will name next if the
    /// enabled list keeps its length, that process's bookkeeping and rows
    /// (its own and the one before it, its left neighbour on a ring), the
    /// same for the step after (or only its list slot, when the list is too
    /// long for the caches), and the bookkeeping of the list's last
    /// process, which moves when a process leaves the list. The generator
    /// is cloned, so nothing drawn changes.
    fn prefetch_next_move(&self) {
        let list = &self.progress.enabled.list;
        let stride = self.code.stride;
        let rows = |q: usize| {
            prefetch(&self.progress.procs[q]);
            // A program without variables has empty rows.
            for at in [q * stride, (q * stride).saturating_sub(stride)] {
                if let Some(x) = self.state.get(at) {
                    prefetch(x);
                }
            }
        };
        let mut ahead = self.rng.clone();
        rows(list[ahead.gen_range(0..list.len())] as usize);
        // The step after next: a short list is in the cache, so its slot
        // can be read now and that process's rows asked for; a long one's
        // slot is only asked for.
        let after_next = ahead.gen_range(0..list.len());
        if list.len() < LOOK_AHEAD_LIST {
            rows(list[after_next] as usize);
        } else {
            prefetch(&list[after_next]);
        }
        if let Some(&last) = list.last() {
            prefetch(&self.progress.procs[last as usize]);
        }
    }

    /// A step where one process `p` (already in the step record's movers)
    /// runs its chosen action and nothing but its row changes: what
    /// [`Simulation::execute_forced`] does, without its cases for several
    /// movers, random choices and effects. It draws the same random numbers,
    /// so runs are the same either way.
    fn single_move(&mut self, p: usize) -> Result<Outcome, RunError> {
        let stride = self.code.stride;
        let step_no = self.progress.steps + 1;
        let info = self.progress.procs[p];
        let action = &self.code.roles[info.role as usize].actions[info.chosen as usize];
        let row = &self.state[p * stride..(p + 1) * stride];
        if stride == 1 {
            self.buf.scratch[0].set(row[0]);
        } else {
            for (c, v) in self.buf.scratch.iter().zip(row) {
                c.set(*v);
            }
        }
        let env = self.statement_env(p);
        if let Err(fault) = (action.body)(&env) {
            // The step record as the general step leaves it: the mover, no rows.
            let last = &mut self.progress.last;
            last.actions.clear();
            last.before.clear();
            last.after.clear();
            last.whole = false;
            last.tick = false;
            return Err(statement_fault(action, p, step_no, fault));
        }
        let last = &mut self.progress.last;
        set_one(&mut last.actions, u32::from(info.chosen));
        if stride == 1 {
            // Most programs keep one value per process: no copy loops.
            set_one(&mut last.before, row[0]);
            set_one(&mut last.after, self.buf.scratch[0].get());
            self.state[p] = last.after[0];
        } else {
            last.before.clear();
            last.after.clear();
            last.before.extend_from_slice(row);
            last.after.extend(self.buf.scratch.iter().map(Cell::get));
            self.state[p * stride..(p + 1) * stride].copy_from_slice(&last.after);
        }
        last.whole = false;
        last.tick = false;
        self.progress.steps = step_no;
        self.progress.moves += 1;
        self.affected.clear();
        let n = self.topo.n();
        match self.ring_guard_readers {
            // From three processes on, the mover and its two neighbours
            // are distinct: nothing to search for. Neighbours in index
            // order, as `affect_mover` takes them.
            Some((after_reads, before_reads)) if n >= 3 => {
                let before = if p == 0 { n - 1 } else { p - 1 };
                let after = if p + 1 == n { 0 } else { p + 1 };
                self.affected.push(p as u32);
                let (first, second) = if before < after {
                    ((before, before_reads), (after, after_reads))
                } else {
                    ((after, after_reads), (before, before_reads))
                };
                for (q, reads) in [first, second] {
                    if reads {
                        self.affected.push(q as u32);
                    }
                }
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
        self.refresh_affected()?;
        self.finish_step()
    }

    /// A synchronous step evaluated column by column (see
    /// [`crate::compile::columns`]): the same configuration, actions, rounds
    /// and legitimacy as process by process. The chosen actions stay in a
    /// column ([`Dense`]) until something needs the per-process bookkeeping.
    /// `None` when the program has no column form or a kernel may have
    /// faulted: nothing changed, and the step is to be taken process by
    /// process (which reports the fault).
    fn column_step(&mut self) -> Result<Option<Outcome>, RunError> {
        use crate::compile::columns::{count_equal, MayFault, Rows, Scratch, CHUNK};
        let Some(code) = self.code.columns.as_ref() else {
            return Ok(None);
        };
        let n = self.topo.n();
        let stride = self.code.stride;
        let mut buf = match self.columns.take() {
            Some(buf) => buf,
            None => {
                let mut runs: Vec<(usize, usize, usize)> = Vec::new();
                for (p, &r) in self.code.role_of.iter().enumerate() {
                    match runs.last_mut() {
                        Some(run) if run.2 == r as usize => run.1 = p + 1,
                        _ => runs.push((p, p + 1, r as usize)),
                    }
                }
                let chunks = runs
                    .iter()
                    .flat_map(|&(first, end, role)| {
                        (first..end)
                            .step_by(CHUNK)
                            .map(move |lo| (lo, (lo + CHUNK).min(end), role))
                    })
                    .collect();
                Box::new(ColumnBuffers {
                    scratch: code.scratch(),
                    chunks,
                    spare: Vec::new(),
                    spare_columns: Vec::new(),
                })
            }
        };
        // What everyone runs in this step, as a column.
        let was_dense = self.progress.dense.is_some();
        let (before, moving) = match self.progress.dense.take() {
            Some(d) => (d.chosen, d.count),
            None => {
                let mut c = buf.column(n);
                c.extend(self.progress.procs.iter().map(|i| i.chosen));
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
        let ids = &self.topo.ids;
        let ColumnBuffers {
            scratch, chunks, ..
        } = &mut *buf;
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
                };
                let rows = &mut next[lo * stride..hi * stride];
                code.execute(role, &old, lo, &before[lo..hi], rows, scratch)?;
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
                buf.spare_columns.push(before);
            }
            self.columns = Some(buf);
            return Ok(None);
        }
        self.columns = Some(buf);
        self.column_steps += 1;
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

    /// Takes one step in which exactly `movers` move (each must be enabled),
    /// running the action with index `action` of its role when given (it
    /// must be one of the process's enabled actions).
    pub fn step_with(&mut self, movers: &[u32], action: Option<u32>) -> Result<Outcome, RunError> {
        self.settle();
        self.progress.last.movers.clear();
        self.progress.last.movers.extend_from_slice(movers);
        self.execute_forced(action)
    }

    fn execute(&mut self) -> Result<Outcome, RunError> {
        self.execute_forced(None)
    }

    /// With no process enabled, time still passes while a timer can run: a
    /// round with no step ends (`last().tick`). Otherwise the run is silent.
    fn tick(&mut self) -> Result<Outcome, RunError> {
        if !self.timers_can_run() {
            return Ok(Outcome::Silent);
        }
        let last = &mut self.progress.last;
        last.movers.clear();
        last.actions.clear();
        last.before.clear();
        last.after.clear();
        last.whole = false;
        last.received.clear();
        last.sent.clear();
        last.tick = true;
        self.progress.rounds_done += 1;
        self.advance_timers()?;
        self.start_round();
        if self.code.legitimate_reads_timers {
            self.update_legitimacy(true)?;
        }
        Ok(Outcome::Moved)
    }

    fn timers_can_run(&self) -> bool {
        let stride = self.code.stride;
        self.code.timers.iter().any(|&(first, len, max)| {
            (0..self.topo.n()).any(|p| {
                let used = self.timer_slots(p, first, len);
                self.state[p * stride + first..p * stride + first + used]
                    .iter()
                    .any(|&v| v < max)
            })
        })
    }

    /// How many of a timer's `len` slots process `p` uses: all, or one per
    /// neighbour for per-neighbour timers.
    fn timer_slots(&self, p: usize, first: usize, len: usize) -> usize {
        let (v, _) = self.code.var_of_slot(first);
        if self.code.per_nbr[v] {
            self.topo.nbrs(p).len().min(len)
        } else {
            len
        }
    }

    /// A round has ended: every timer advances by one (stopping at its
    /// maximum) and guards that read them are re-evaluated.
    fn advance_timers(&mut self) -> Result<(), RunError> {
        if self.code.timers.is_empty() {
            return Ok(());
        }
        let stride = self.code.stride;
        for p in 0..self.topo.n() {
            for &(first, len, max) in &self.code.timers {
                let used = self.timer_slots(p, first, len);
                for v in &mut self.state[p * stride + first..p * stride + first + used] {
                    *v = (*v + 1).min(max);
                }
            }
        }
        // Only guards that read timers can change: an enabled process is
        // looked at again in full, a disabled one only if such a guard now holds.
        for p in 0..self.topo.n() {
            if self.progress.procs[p].chosen != NO_ACTION || self.timer_guard_holds(p)? {
                self.refresh(p)?;
            }
        }
        Ok(())
    }

    fn timer_guard_holds(&self, p: usize) -> Result<bool, RunError> {
        Ok(self.first_true_guard(p, true)?.is_some())
    }

    fn execute_forced(&mut self, forced: Option<u32>) -> Result<Outcome, RunError> {
        debug_assert!(self.progress.dense.is_none() && !self.progress.last.lazy);
        let step_no = self.progress.steps + 1;
        let Simulation {
            prog,
            code,
            topo,
            state,
            chans,
            rng,
            choice,
            progress,
            buf,
            choice_locals,
            ..
        } = self;
        let (procs, last) = (&progress.procs, &mut progress.last);
        // Guards write no effects: an empty set (which allocates nothing) will do.
        let fx = Effects::default();
        let choose = |p: usize| match (forced, *choice) {
            (Some(a), _) => Ok(a),
            (None, Choice::First) => Ok(u32::from(procs[p].chosen)),
            (None, Choice::Random) => {
                let role = &code.roles[procs[p].role as usize];
                let env = step::guard_env(choice_locals, topo, state, chans, &fx, p, &NoneEnabled);
                let options =
                    step::enabled_actions_from(role, &env, p, procs[p].chosen, step_no - 1)?;
                Ok(options[rng.gen_range(0..options.len())])
            }
        };
        step::evaluate(prog, code, topo, state, chans, step_no, buf, last, choose)?;
        step::land(code, topo, state, chans, buf, last);
        self.progress.steps = step_no;
        self.progress.moves += self.progress.last.movers.len() as u64;
        // Only the movers and their readers can change enabledness.
        self.affected.clear();
        // One mover (the central daemon) affects a handful of processes: a
        // scan of the list is cheaper than marking and unmarking bits.
        let few = match self.progress.last.movers[..] {
            [m] => {
                self.few_readers(m as usize)
                    && self.buf.sends.len() + self.buf.edge_writes.len() <= 8
            }
            _ => false,
        };
        for k in 0..self.progress.last.movers.len() {
            self.affect_mover(self.progress.last.movers[k], few, false);
        }
        // Where a neighbour does not read the writer (directed topologies),
        // the destinations of messages and the other ends of edges still change.
        let buf = &self.buf;
        for q in buf
            .sends
            .iter()
            .map(|s| s.1)
            .chain(buf.edge_writes.iter().map(|w| w.1))
        {
            affect(&mut self.marks, &mut self.affected, few, q as u32);
        }
        if !few {
            for &q in &self.affected {
                self.marks.take(q as usize);
            }
        }
        self.refresh_affected()?;
        self.finish_step()
    }

    /// Whether a move of `p` affects few enough processes that the list of
    /// them is searched instead of marking bits.
    fn few_readers(&self, p: usize) -> bool {
        self.topo.regular_ring.is_some() || self.topo.readers(p).len() <= 8
    }

    /// Adds mover `p` and the processes that read it to the affected ones.
    /// With `only_guard_readers`, on a ring, only the neighbours whose
    /// guards read it: this leaves out refreshes that change nothing, but
    /// with several movers it would change the order of the refreshes that
    /// do, and so the enabled list's order; only single moves use it.
    #[inline]
    fn affect_mover(&mut self, p: u32, few: bool, only_guard_readers: bool) {
        let (marks, affected) = (&mut self.marks, &mut self.affected);
        affect(marks, affected, few, p);
        let ring = match self.topo.regular_ring {
            Some(_) if only_guard_readers => self.ring_guard_readers,
            Some(both) => Some((true, both)),
            None => None,
        };
        match ring {
            // On rings the readers are computed, not looked up.
            // In increasing order, as the neighbour lists are (so runs
            // are the same as through the lists).
            Some((after_reads, before_reads)) => {
                let n = self.topo.n() as u32;
                let before = if p == 0 { n - 1 } else { p - 1 };
                let after = if p + 1 == n { 0 } else { p + 1 };
                match (after_reads, before_reads) {
                    (true, true) => {
                        affect(marks, affected, few, before.min(after));
                        affect(marks, affected, few, before.max(after));
                    }
                    (true, false) => affect(marks, affected, few, after),
                    (false, true) => affect(marks, affected, few, before),
                    (false, false) => {}
                }
            }
            None => {
                for &q in self.topo.readers(p as usize) {
                    affect(marks, affected, few, q);
                }
            }
        }
    }

    /// Re-evaluates the guards of the processes the step affected and
    /// updates their chosen actions and the enabled set; the processes it
    /// disables leave the round (neutralized). Guards cannot read
    /// whether a process is enabled, so one environment serves them all.
    #[inline]
    fn refresh_affected(&mut self) -> Result<(), RunError> {
        let mut env = Env {
            state: &self.state,
            me: 0,
            scratch: &[],
            topo: &self.topo,
            locals: &self.buf.locals,
            enabled: &NoneEnabled,
            enabled_count: 0,
            chans: &self.chans,
            fx: &self.buf.fx,
        };
        let progress = &mut self.progress;
        for &q in &self.affected {
            env.me = q as usize;
            let role = &self.code.roles[progress.procs[q as usize].role as usize];
            let a = first_true(role, &env, false)
                .map_err(|(i, fault)| guard_fault(role, q as usize, i, progress.steps, fault))?;
            progress.procs[q as usize].chosen = a;
            if a == NO_ACTION {
                progress.enabled.remove(&mut progress.procs, q);
                // Neutralized: done with this round.
                if progress.in_round.take(q as usize) {
                    progress.pending -= 1;
                }
            } else {
                progress.enabled.insert(&mut progress.procs, q);
            }
        }
        Ok(())
    }

    /// The end of a step, once the affected processes are refreshed: rounds
    /// (and timers at a round's end) and legitimacy.
    #[inline]
    fn finish_step(&mut self) -> Result<Outcome, RunError> {
        // Rounds: movers are done (the refresh has taken the neutralized
        // processes out of the round).
        for &p in &self.progress.last.movers {
            if self.progress.in_round.take(p as usize) {
                self.progress.pending -= 1;
            }
        }
        self.progress.steps_in_round += 1;
        let mut timers_ran = false;
        if self.progress.pending == 0 {
            self.progress.rounds_done += 1;
            timers_ran = !self.code.timers.is_empty();
            if timers_ran {
                self.advance_timers()?;
            }
            self.start_round();
        }
        // Timers change every process; otherwise only the affected ones changed.
        self.update_legitimacy(timers_ran && self.code.legitimate_reads_timers)?;
        Ok(Outcome::Moved)
    }

    /// Re-evaluates the legitimacy predicate: in full, or (`full` false)
    /// its incremental parts at the processes the last step affected only.
    #[inline]
    fn update_legitimacy(&mut self, full: bool) -> Result<(), RunError> {
        if self.code.legitimate.is_none() {
            return Ok(());
        }
        let holds = match self.code.legit_enabled_count {
            Some((op, k)) => op.holds(self.enabled_count() as i64, k),
            None => self.evaluate_legitimacy(full)?,
        };
        match (self.progress.legit_now, holds) {
            (Some(true), false) => self.progress.losses += 1,
            (Some(true), true) | (_, false) => {}
            (_, true) => {
                let now = self.now();
                self.progress.last_entry = Some(now);
                self.progress.first_legit.get_or_insert(now);
            }
        }
        self.progress.legit_now = Some(holds);
        Ok(())
    }

    /// Evaluates the legitimacy predicate, in parts where it has them.
    fn evaluate_legitimacy(&mut self, full: bool) -> Result<bool, RunError> {
        let step = self.progress.steps;
        let fail = move |fault| RunError::Fault {
            fault,
            process: None,
            action: None,
            step,
            during: "the legitimacy predicate",
        };
        match &self.code.legitimate {
            Some(legit) if self.code.legit_parts.is_empty() => {
                legit(&self.env(0, &[])).map_err(fail)
            }
            Some(_) => self.legit_parts(full).map_err(fail),
            None => Ok(true),
        }
    }

    /// The legitimacy predicate evaluated in full on the current
    /// configuration, bypassing the incremental bookkeeping (for tests).
    pub fn legitimate_in_full(&self) -> Result<Option<bool>, Box<Fault>> {
        self.code
            .legitimate
            .as_ref()
            .map(|f| f(&self.env(0, &[])))
            .transpose()
    }

    /// Keeps the counts of the incremental conjuncts (processes where the
    /// local predicate holds) and evaluates the others; whether all hold.
    fn legit_parts(&mut self, full: bool) -> Result<bool, Box<Fault>> {
        use crate::compile::LegitPart;
        let n = self.topo.n();
        let fresh = self.progress.legit.len() != self.code.legit_parts.len();
        if fresh {
            self.progress.legit = vec![(Bits::new(n), 0); self.code.legit_parts.len()];
        } else if full {
            // Evaluated again everywhere (after every column step): the
            // bits are reused, not allocated again.
            for (bits, count) in &mut self.progress.legit {
                bits.clear_all();
                *count = 0;
            }
        }
        let full = full || fresh;
        let mut all = true;
        // Reused from step to step: no allocation in the steady state.
        let mut changes = std::mem::take(&mut self.legit_changes);
        for (i, part) in self.code.legit_parts.iter().enumerate() {
            let (slot, body) = match part {
                LegitPart::Whole(f) => {
                    all &= f(&self.env(0, &[]))?;
                    continue;
                }
                LegitPart::Forall(slot, body) | LegitPart::Count(slot, body, _, _) => (*slot, body),
            };
            changes.clear();
            {
                let env = self.env(0, &[]);
                let mut eval = |p: usize| -> Result<(), Box<Fault>> {
                    env.locals[slot].set(p as i64);
                    changes.push((p, body(&env)?));
                    Ok(())
                };
                if full {
                    (0..n).try_for_each(&mut eval)?;
                } else {
                    self.affected.iter().try_for_each(|&p| eval(p as usize))?;
                }
            }
            let (bits, count) = &mut self.progress.legit[i];
            for &(p, holds) in &changes {
                if holds != bits.get(p) {
                    if holds {
                        bits.set(p);
                        *count += 1;
                    } else {
                        bits.take(p);
                        *count -= 1;
                    }
                }
            }
            all &= match part {
                LegitPart::Forall(..) => *count == n,
                LegitPart::Count(_, _, op, k) => op.holds(*count as i64, *k),
                LegitPart::Whole(_) => true,
            };
        }
        self.legit_changes = changes;
        Ok(all)
    }

    /// Evaluates a compiled global expression on the current configuration;
    /// `locals` is the number of quantifier slots it needs.
    pub fn eval_global(
        &self,
        f: &crate::compile::GlobalFn,
        locals: usize,
    ) -> Result<i64, Box<Fault>> {
        self.eval_at(0, f, locals)
    }

    /// The program's `report` values on the current configuration, as text;
    /// a report that cannot be evaluated gives the reason instead.
    pub fn reports(&self) -> Vec<(String, Result<String, String>)> {
        self.code
            .reports
            .iter()
            .map(|(name, f)| {
                let v = self.eval_global(f, 0).map_err(|e| e.message.clone());
                let shown = v.map(|v| match f {
                    crate::compile::GlobalFn::Int(_, crate::check::ir::Ty::Node) => {
                        match self.topo.ids.get(v as usize) {
                            Some(id) => format!("process {v} (id {id})"),
                            None => format!("{v}"),
                        }
                    }
                    crate::compile::GlobalFn::Int(_, ty) => self.prog.show_value(*ty, v),
                    crate::compile::GlobalFn::Bool(_) => (v != 0).to_string(),
                });
                (name.clone(), shown)
            })
            .collect()
    }

    /// Evaluates a compiled expression as process `p` sees the configuration.
    pub fn eval_at(
        &self,
        p: usize,
        f: &crate::compile::GlobalFn,
        locals: usize,
    ) -> Result<i64, Box<Fault>> {
        let cells = vec![Cell::new(0); locals.max(self.buf.locals.len())];
        let env = Env {
            locals: &cells,
            ..self.env(p, &[])
        };
        match f {
            crate::compile::GlobalFn::Int(g, _) => g(&env),
            crate::compile::GlobalFn::Bool(g) => g(&env).map(i64::from),
        }
    }

    /// The first declared invariant that does not hold now, if any.
    pub fn violated_invariant(&self) -> Result<Option<usize>, RunError> {
        if self.code.invariants.is_empty() {
            return Ok(None);
        }
        let env = self.env(0, &[]);
        for (i, inv) in self.code.invariants.iter().enumerate() {
            match (inv.test)(&env) {
                Ok(true) => {}
                Ok(false) => return Ok(Some(i)),
                Err(fault) => {
                    return Err(RunError::Fault {
                        fault,
                        process: None,
                        action: None,
                        step: self.progress.steps,
                        during: "an invariant",
                    })
                }
            }
        }
        Ok(None)
    }
}
