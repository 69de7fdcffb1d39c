//! What a user of the library reads of a simulation (its configuration,
//! topology, names of variables, actions and invariants), the switches of
//! its fast paths, fault injection, and starting again from another
//! configuration.

use super::*;
use crate::runtime::init;

/// Which of the simulator's fast paths may run. Each takes exactly the
/// steps the general path takes (tests hold them to it); turning them off
/// is for comparing and measuring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastPaths {
    /// One central move of a program without messages or edge variables.
    pub single_move: bool,
    /// Synchronous steps column by column, on rings.
    pub columns: bool,
    /// The shortest average run of consecutive processes with one role for
    /// which the column path is taken (kernels are dispatched once per run).
    pub column_min_run: usize,
    /// After a step, the guards that read nothing it changed are left
    /// alone (programs without messages, timers or effects).
    pub guards_left_alone: bool,
}

impl Default for FastPaths {
    fn default() -> Self {
        FastPaths {
            single_move: true,
            columns: true,
            column_min_run: 8,
            guards_left_alone: true,
        }
    }
}

impl Simulation {
    /// The configuration: `stride()` values per process, process after process.
    pub fn rows(&self) -> &[i64] {
        &self.state
    }

    /// Process `p`'s row.
    pub fn row(&self, p: usize) -> &[i64] {
        let s = self.code.stride;
        &self.state[p * s..(p + 1) * s]
    }

    /// Whether the guard of action `a` of `p`'s role holds (for some member
    /// of its binder, some message a receive takes), whatever more urgent
    /// actions do: what the REPL explains a disabled action by.
    pub fn guard_holds(&self, p: usize, a: usize) -> Result<bool, RunError> {
        let role = &self.code.roles[self.code.role_of.of(p)];
        let step = self.progress.steps;
        role.actions[a]
            .guard
            .holds(&self.env(p, &[]))
            .map_err(|fault| crate::runtime::error::guard_fault(role, p, a, step, fault))
    }

    /// The channels' contents.
    pub fn channels(&self) -> &Channels {
        &self.chans
    }

    /// The topology.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// The slots variable `name` occupies in a row (one for a scalar, one
    /// per element or neighbour for an array).
    pub fn slots(&self, name: &str) -> Option<std::ops::Range<usize>> {
        let v = self.prog.vars.iter().position(|v| v.name == name)?;
        Some(self.code.slots(v))
    }

    /// The value of variable `name` (its first slot) at process `p`.
    pub fn value(&self, p: usize, name: &str) -> Option<i64> {
        Some(self.row(p)[self.slots(name)?.start])
    }

    /// Parameter values, in declaration order.
    pub fn params(&self) -> &[(String, i64)] {
        &self.code.params
    }

    /// The label of action `a` (an index into the process's role's actions,
    /// as [`StepRecord::actions`] gives it) of process `p`.
    pub fn action_label(&self, p: usize, a: u32) -> &str {
        &self.code.roles[self.code.role_of.of(p)].actions[a as usize].label
    }

    /// The name of the `i`-th declared invariant.
    pub fn invariant_name(&self, i: usize) -> &str {
        &self.code.invariants[i].name
    }

    /// The name of message type `kind`.
    pub fn message_name(&self, kind: u16) -> &str {
        &self.prog.messages[kind as usize].name
    }

    /// Whether the program has a column form (the synchronous fast path).
    pub fn has_column_form(&self) -> bool {
        self.code.columns.is_some()
    }

    /// Whether the legitimacy predicate is kept process by process (some
    /// conjunct is a `forall` or `count` of a predicate local to a process).
    pub fn legitimacy_is_incremental(&self) -> bool {
        !self.code.legit_parts.is_empty()
    }

    /// The daemon.
    pub fn daemon(&self) -> &Daemon {
        &self.daemon
    }

    /// Switches the daemon; the run goes on from where it is.
    pub fn set_daemon(&mut self, daemon: Daemon) {
        self.daemon = daemon;
    }

    /// Switches how an action is chosen among several enabled at a process.
    pub fn set_choice(&mut self, choice: Choice) {
        self.choice = choice;
    }

    /// Which fast paths may run.
    pub fn fast_paths(&self) -> FastPaths {
        FastPaths {
            single_move: self.single_move_path,
            columns: self.column_path,
            column_min_run: self.column_min_run,
            guards_left_alone: self.guards_left_alone_path,
        }
    }

    /// Allows or forbids the fast paths.
    pub fn set_fast_paths(&mut self, paths: FastPaths) {
        self.single_move_path = paths.single_move;
        self.column_path = paths.columns;
        self.column_min_run = paths.column_min_run;
        self.guards_left_alone_path = paths.guards_left_alone;
        self.leaves_guards_alone =
            paths.guards_left_alone && unread_guards::guards_may_be_left_alone(&self.code);
    }

    /// Fault injection: each of `procs` gets arbitrary values in every
    /// variable (as `--init random` draws them, from the run's generator),
    /// edge variables shared with its neighbours; then guards are
    /// re-evaluated and a new round starts (see [`Simulation::change_state`]).
    pub fn corrupt(&mut self, procs: &[usize]) -> Result<(), RunError> {
        let stride = self.code.stride;
        let mut new = self.state.clone();
        for &p in procs {
            let row = init::random_row(&self.prog, &self.code, &self.topo, p, &mut self.rng);
            new[p * stride..(p + 1) * stride].copy_from_slice(&row);
            init::share_edges_of(&self.prog, &self.code, &self.topo, &mut new, p);
        }
        self.change_state(|s| s.copy_from_slice(&new))
    }
}

/// Going back: snapshots of everything a step changes.
impl Simulation {
    /// Captures everything a step can change.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: self.state.clone(),
            chans: self.chans.clone(),
            rng: self.rng.clone(),
            draws: self.buf.fx.draws.borrow().clone(),
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
            let dense = p.dense.take().map(|d| {
                buf.keep_uniform(d.uniform);
                d.chosen
            });
            let columns = [
                std::mem::take(&mut p.last.chosen_before),
                dense.unwrap_or_default(),
            ];
            buf.spare_columns
                .extend(columns.into_iter().filter(|c| c.capacity() > 0));
        }
        self.state = s.state;
        self.chans = s.chans;
        self.rng = s.rng;
        *self.buf.fx.draws.borrow_mut() = s.draws;
        self.progress = s.progress;
    }
}

impl Simulation {
    /// Starts again from `start`, drawing from `rng`: the run
    /// [`Simulation::new`] would start with this one's program, topology,
    /// daemon and choice (the fast paths as set), keeping its tables and
    /// buffers, so that a sweep's worker runs seed after seed in one
    /// simulation instead of building one per run.
    ///
    /// # Panics
    ///
    /// If `state` is not a configuration of this instance (its length is
    /// not the number of processes times the values each holds).
    pub fn restart(
        &mut self,
        (state, chans): (Vec<i64>, Channels),
        rng: ChaCha8Rng,
    ) -> Result<(), RunError> {
        if self.code.has_random {
            // As `new` does: draws on a stream of the seed of their own.
            let mut draws = rng.clone();
            draws.set_stream(1);
            *self.buf.fx.draws.borrow_mut() = Draws::Generator(Box::new(draws));
        }
        // What a step that failed half-way may have left behind.
        self.buf.fx.sends.borrow_mut().clear();
        self.buf.fx.edge_writes.borrow_mut().clear();
        self.buf.fx.received.set(None);
        self.marks.clear_all();
        self.affected.clear();
        self.tick_buf = Default::default();
        assert_eq!(
            state.len(),
            self.state.len(),
            "a configuration of another instance"
        );
        let old = std::mem::replace(&mut self.state, state);
        if let Some(columns) = self.columns.as_mut() {
            // The configuration-sized buffer a column step builds the next
            // configuration in.
            if columns.spare.capacity() < old.capacity() {
                columns.spare = old;
            }
        }
        self.chans = chans;
        self.rng = rng;
        self.column_steps = 0;
        let p = &mut self.progress;
        p.procs.clear();
        p.procs
            .extend(self.code.role_of.iter().map(ProcInfo::of_role));
        p.enabled.list.clear();
        p.schedule_pos = 0;
        p.last.clear();
        (
            p.steps,
            p.moves,
            p.rounds_done,
            p.rounds_cut,
            p.steps_in_round,
        ) = (0, 0, 0, 0, 0);
        p.in_round.clear_all();
        // The legitimacy conjuncts' tables are evaluated again in full below.
        if let (Some(dense), Some(columns)) = (p.dense.take(), self.columns.as_mut()) {
            // Columns for the next column step to reuse.
            columns.keep_uniform(dense.uniform);
            columns.spare_columns.push(dense.chosen);
        }
        p.pending = 0;
        (p.legit_now, p.first_legit, p.last_entry, p.losses) = (None, None, None, 0);
        p.moved.fill(0);
        self.reevaluate_all()?;
        self.progress.start_round();
        self.update_legitimacy(true)
    }
}
