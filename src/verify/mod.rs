//! The verifier: every configuration of a small instance, explored under a
//! daemon through the step relation ([`crate::runtime::step`]) and the
//! daemon's move sets, the one definition of a step that runs use too.
//!
//! It checks the invariants in every configuration, the closure of the
//! legitimacy predicate (no step leaves it), and convergence (no
//! configuration outside it is terminal, and no run stays outside it
//! forever: the steps outside legitimacy form no cycle). When the instance
//! converges it gives the exact worst case, the most steps and the most
//! moves any run takes to reach legitimacy under the daemon, each with a
//! run that takes that many; when it does not, a shortest counterexample.
//! Every run it reports is a start and the move sets of its steps, which
//! `guarded run --init ... --daemon schedule:...` replays.
//!
//! Two questions, two sets of configurations. From every configuration
//! (the self-stabilization question), numbered by their place in the state
//! space ([`crate::runtime::space::Space`]), a perfect hash: what is kept
//! per configuration is a bit or two and a count or two, a byte each while
//! they fit. Or from one start (the
//! safety question, and programs with channels), the configurations
//! reachable from it under the daemon, numbered breadth first and kept as
//! their codes in the state space: every run reported then starts there,
//! by a shortest path.

mod code_set;
mod components;
mod config_arena;
mod counts;
mod encoded_step;
mod entry_numbers;
mod evaluate;
mod fair_cores;
mod fairness;
mod fills;
pub use fills::Fills;
mod from_start;
mod tours;
pub use from_start::{max_reachable_bytes, Starts};
pub use moves::{steps_listed, MOST_IMAGES};
mod kept_steps;
mod local;
mod move_memo;
mod move_sets;
mod moves;
mod orbits;
mod parents;
mod process_bits;
mod reached;
mod read_cells;
mod retrace;
mod rounds;
mod run;
mod search;
mod states;
mod successors;
pub use run::Run;
pub mod expected;
mod properties;
pub use properties::PropertyVerdict;
mod symbolic;
pub use symbolic::{unsupported as symbolic_unsupported, Symbolic};
mod symmetry;
mod ticks;
pub use ticks::verify_ticks;
mod verdict;
mod view_key;
mod view_memo;
pub use verdict::{Choices, Convergence, Engine, Fairness, Verdict};
mod walk;

use crate::load::Instance;
use crate::runtime::bits::Bits;
use crate::runtime::daemon::Daemon;
use crate::runtime::space::Space;
use crate::runtime::step::{Move, RunError, StepRelation};
use crate::state::Config;
use evaluate::{EnabledSets, Evaluated};
use states::States;

/// The most bytes the worst case in rounds may keep: at most half of them
/// with each configuration, the rest in a table of the states in the
/// middle of a round.
pub const MAX_ROUND_BYTES: u64 = 1 << 30;

/// The most configurations an instance may have to be verified.
pub const MAX_CONFIGURATIONS: u128 = u32::MAX as u128;

/// Told how far the exploration is: what it is doing, how much of it is
/// done and of how much (0 when unknown); `false` stops it
/// ([`Refusal::Interrupted`]).
pub type Progress<'p> = &'p (dyn Fn(&str, u64, u64) -> bool + Sync);

/// How often, in configurations or states, progress is told.
const PROGRESS_EVERY: u64 = 1 << 12;

/// Why an instance cannot be verified.
#[derive(Debug)]
pub enum Refusal {
    /// The progress callback asked to stop.
    Interrupted,
    /// A construct the explorer does not handle; says which and why.
    Unsupported(String),
    /// Too many configurations to number: how many there are.
    TooLarge(u128),
    /// Too many starts to number (every configuration of the declared
    /// `random` ranges): how many there are.
    TooManyStarts(u128),
    /// A start reaches more configurations than [`max_reachable_bytes`]
    /// holds: how many were reached when it stopped.
    TooManyReached(u64),
    /// A guard, statement or predicate faults in some configuration.
    Runtime(Box<(RunError, Config)>),
    /// A configuration has more steps under a daemon than the explorer
    /// lists ([`crate::runtime::daemon::MAX_STEPS_LISTED`], fewer by
    /// orbits: see [`moves::steps_listed`]): the daemon, how many
    /// processes are enabled there, and the symmetries each step's
    /// configuration is compared under.
    TooManySteps(Daemon, usize, usize),
    /// The symbolic engine's diagrams outgrew their node limit (the
    /// memory budget).
    OutOfNodes,
}

/// The state space of an instance, what every configuration's guards and
/// predicates say, ready to be explored under any daemon.
pub struct Explorer<'a> {
    inst: &'a Instance,
    progress: Option<Progress<'a>>,
    states: States,
    /// The daemon the configurations were reached under, from a start.
    reached_under: Option<Daemon>,
    count: u32,
    /// Per configuration: legitimate.
    legit: Bits,
    /// From a start, per configuration: no process is enabled (from every
    /// configuration the search asks when it gets there).
    terminal: Bits,
    /// Per configuration: an invariant fails there, which stops a run (and
    /// the exploration from a start); empty when none is declared.
    stops: Bits,
    /// From a start, per configuration: its enabled processes as bits
    /// (empty with more than 64 processes: then rounds are not counted;
    /// empty too without a declared legitimacy, which rounds and fairness
    /// are about, or where rounds are not counted: asked of the guards
    /// again if ever needed). From every
    /// configuration they are asked of the guards again instead: a word
    /// each would be twice what the rest of the exploration keeps.
    enabled: EnabledSets,
    legit_count: u64,
    /// The first configuration (by number) where an invariant does not hold.
    invariant: Option<(String, u32)>,
    /// Whether the program declares `legitimate:`.
    declared: bool,
    /// From a start: the first step that faults, from which configuration
    /// and with which moves (the exploration goes on without it).
    fault: Option<(RunError, u32, Vec<Move>)>,
    /// Whether the worst case in rounds is searched for.
    rounds: bool,
    /// Whether the program's properties of runs are checked.
    properties: bool,
    /// Over every configuration: each process's guards and move as a
    /// table, where they fit.
    local: Option<local::LocalMoves>,
    /// From a start: the steps taken from the configurations reached (one
    /// per configuration and move set, faulting ones left out).
    reached_transitions: u64,
    /// Which moves are explored.
    choices: Choices,
    /// The symmetries it explores by orbits under, where asked.
    symmetry: Option<symmetry::Symmetry>,
    /// From a start, where they are kept: every configuration's steps.
    kept_steps: Option<kept_steps::KeptSteps>,
}

/// The most values of one variable the state space lists (a slot's
/// values are kept as a list).
pub const MOST_LISTED_VALUES: u128 = 1 << 24;

/// Refuses a variable whose domain has more values than the state space
/// lists (`var big: 0..1000000000`), which every engine builds.
pub fn refuse_unlistable(inst: &Instance) -> Result<(), Refusal> {
    for (slot, d) in inst.code.domains.iter().enumerate() {
        let size = d.size(0, &inst.topo);
        if size > MOST_LISTED_VALUES {
            let (v, _) = inst.code.var_of_slot(slot);
            return Err(Refusal::Unsupported(format!(
                "the variable `{}` has {size} values, more than verify and expect list ({MOST_LISTED_VALUES}): narrow its domain (a `random lo..hi` range narrows only the starts)",
                inst.prog.vars[v].name
            )));
        }
    }
    Ok(())
}

/// Refuses what no exploration handles: a domain too large to list;
/// timers, which advance when a round ends, so that a configuration
/// alone does not say what happens next.
fn refuse_unexplorable(inst: &Instance) -> Result<(), Refusal> {
    refuse_unlistable(inst)?;
    if inst.runs_in_ticks() {
        return Err(Refusal::Unsupported(
            "the program runs in ticks (its channels declare a `delay`): verify explores it from one start (`--from declared` or a file), on one topology at a time, not from every configuration or under a daemon".into(),
        ));
    }
    if inst.code.timers.is_empty() {
        return Ok(());
    }
    // What the user can do instead: in ticks a configuration does say it.
    let instead = match inst.code.capacity {
        Some(_) => "; a program whose channels declare a `delay lo..hi` runs in ticks, where verify explores its timers from a start (`--from declared`)",
        None => "; explore its runs with `guarded sweep` or `guarded repl`",
    };
    Err(Refusal::Unsupported(format!(
        "the program has timers, which advance when a round ends: a configuration alone does not say what happens next, and verify keeps no rounds in its states{instead}"
    )))
}

/// Refuses every configuration of a program that passes messages: with
/// every channel's possible contents, too many to list.
pub fn refuse_every_channel_content(inst: &Instance) -> Result<(), Refusal> {
    match inst.code.capacity {
        Some(_) => Err(Refusal::Unsupported(
            "the program passes messages, and every configuration with channel contents is too many to list; explore what its start reaches with --from declared (or an init file)".into(),
        )),
        None => Ok(()),
    }
}

/// The state space of `inst` and how many configurations it has, where
/// every configuration can be explored; else why not.
fn every_configuration(inst: &Instance) -> Result<(Space, u128), Refusal> {
    if inst.prog.legitimate.is_none() {
        return Err(Refusal::Unsupported(
            "the program declares no `legitimate:` predicate, so there is nothing to converge to from every configuration; explore what its start reaches with --from declared".into(),
        ));
    }
    refuse_every_channel_content(inst)?;
    refuse_unexplorable(inst)?;
    let space = inst.space();
    let count = space.count();
    if count > MAX_CONFIGURATIONS {
        return Err(Refusal::TooLarge(count));
    }
    Ok((space, count))
}

impl<'a> Explorer<'a> {
    /// Numbers every configuration of `inst` and evaluates the legitimacy
    /// predicate and the invariants in each; refuses what it cannot explore.
    pub fn new(inst: &'a Instance) -> Result<Self, Refusal> {
        Explorer::with_progress(inst, None)
    }

    /// [`Explorer::new`], telling `progress` how far it is, here and in
    /// every [`Explorer::verify`].
    pub fn with_progress(
        inst: &'a Instance,
        progress: Option<Progress<'a>>,
    ) -> Result<Self, Refusal> {
        let (space, count) = every_configuration(inst)?;
        let mut ex = Explorer::empty(inst, progress, States::All(space.clone()), None);
        if inst.topo.n() <= 64 {
            ex.local = local::LocalMoves::new(inst, &space);
        }
        ex.evaluate_all(&space, count as u32)?;
        Ok(ex)
    }

    fn empty(
        inst: &'a Instance,
        progress: Option<Progress<'a>>,
        states: States,
        reached_under: Option<Daemon>,
    ) -> Self {
        Explorer {
            inst,
            progress,
            states,
            reached_under,
            count: 0,
            legit: Bits::default(),
            terminal: Bits::default(),
            stops: Bits::default(),
            enabled: EnabledSets::new(inst.topo.n()),
            legit_count: 0,
            invariant: None,
            declared: inst.prog.legitimate.is_some(),
            fault: None,
            rounds: true,
            properties: true,
            local: None,
            reached_transitions: 0,
            choices: Choices::Every,
            symmetry: None,
            kept_steps: None,
        }
    }

    /// Explores the moves `choices` says (every one unless told otherwise),
    /// from every configuration; from a start or by orbits, the choices are
    /// those the explorer was made with ([`Explorer::reachable_choosing`],
    /// [`Explorer::by_orbits`]).
    pub fn choose(&mut self, choices: Choices) -> Result<(), Refusal> {
        if (self.reached_under.is_some() || self.symmetry.is_some()) && choices != self.choices {
            return Err(Refusal::Unsupported(
                "these configurations were reached with other choices".into(),
            ));
        }
        self.choices = choices;
        Ok(())
    }

    /// Whether every action and binder member of every mover is explored
    /// where it may have several: the choices are every one, and some
    /// process may choose.
    fn every_move(&self) -> bool {
        self.choices == Choices::Every && self.inst.code.may_choose()
    }

    /// Whether steps are listed move by move: some mover may have several
    /// moves (every one is explored, or an action draws). Else each mover
    /// has its first enabled action as its one move, which the tables and
    /// the fast ways to the steps take.
    fn lists_moves(&self) -> bool {
        self.every_move() || self.inst.code.has_random
    }

    /// Keeps what configuration `i` (the next in order) says.
    fn record(&mut self, i: u32, e: Evaluated) {
        let at = i as usize;
        for bits in [&mut self.legit, &mut self.terminal, &mut self.stops] {
            bits.grow(at + 1);
        }
        if e.legit {
            self.legit.set(at);
        }
        if e.terminal {
            self.terminal.set(at);
        }
        if e.invariant.is_some() {
            self.stops.set(at);
        }
        self.legit_count += u64::from(e.legit);
        // Rounds are counted with a bit per process, and only towards a
        // declared legitimacy: without one, or where rounds will not be
        // counted, they are not kept (they are asked of the guards again
        // if ever needed).
        if self.inst.topo.n() <= 64 && self.declared && self.rounds {
            self.enabled.push(e.enabled);
        }
        if self.invariant.is_none() {
            self.invariant = e.invariant.map(|name| (name, i));
        }
    }

    /// Every configuration's enabled processes (at most 64 processes):
    /// from a start, those kept while reaching; else asked of the guards
    /// now.
    fn enabled_sets(&self) -> Result<std::borrow::Cow<'_, EnabledSets>, Refusal> {
        match &self.states {
            States::All(space) => Ok(std::borrow::Cow::Owned(
                self.enabled_everywhere(space, self.count)?,
            )),
            _ if self.enabled.len() == self.count as usize => {
                Ok(std::borrow::Cow::Borrowed(&self.enabled))
            }
            _ => {
                let mut enabled = EnabledSets::new(self.inst.topo.n());
                let rel = self.relation();
                let mut chosen = Vec::new();
                for i in 0..self.count {
                    let cfg = self.states.config(i);
                    rel.chosen_into(&cfg, &mut chosen)
                        .map_err(|e| Refusal::Runtime(Box::new((e, cfg))))?;
                    enabled.push(successors::enabled_as_bits(&chosen));
                }
                Ok(std::borrow::Cow::Owned(enabled))
            }
        }
    }

    /// Whether configuration `i` is legitimate.
    #[inline]
    fn is_legit(&self, i: u32) -> bool {
        self.legit.get(i as usize)
    }

    /// The legitimate configurations, in order.
    fn legit_configs(&self) -> impl Iterator<Item = u32> + '_ {
        let words = self.legit.0.iter().enumerate();
        words.flat_map(|(k, &w)| successors::Bits(w).map(move |b| (k * 64 + b) as u32))
    }

    /// Whether no process is enabled in configuration `i`.
    fn is_terminal(&self, i: u32) -> bool {
        self.terminal.get(i as usize)
    }

    /// Whether an invariant fails in configuration `i`, which ends a run.
    fn stops_at(&self, i: u32) -> bool {
        !self.stops.0.is_empty() && self.stops.get(i as usize)
    }

    /// Whether an invariant fails in some configuration.
    fn stops_anywhere(&self) -> bool {
        self.stops.0.iter().any(|&w| w != 0)
    }

    /// Whether the processes are few enough for rounds and fairness,
    /// which keep them as bits.
    fn processes_fit_a_word(&self) -> bool {
        self.inst.topo.n() <= 64
    }

    /// Whether [`Explorer::verify`] searches for the worst case in rounds
    /// (it does unless told otherwise): it searches over a configuration
    /// and a round's pending processes together, many times the
    /// configurations alone.
    pub fn count_rounds(&mut self, on: bool) {
        self.rounds = on;
    }

    /// Whether [`Explorer::verify`] checks the program's properties of
    /// runs (it does unless told otherwise): a pass over every
    /// configuration for each predicate, and for `stable` and `leads_to`
    /// over every step, kept.
    pub fn check_properties(&mut self, on: bool) {
        self.properties = on;
    }

    /// How many configurations are explored.
    pub fn configurations(&self) -> u64 {
        u64::from(self.count)
    }

    /// Explores the configurations under `daemon` (from a start, the one
    /// they were reached under), an unfair daemon.
    pub fn verify(&self, daemon: &Daemon) -> Result<Verdict, Refusal> {
        self.verify_fairly(daemon, Fairness::Unfair)
    }

    /// [`Explorer::verify`] about the runs fair as `fairness` says: a cycle
    /// outside legitimacy counts against convergence (and a property) only
    /// when it is fair.
    pub fn verify_fairly(&self, daemon: &Daemon, fairness: Fairness) -> Result<Verdict, Refusal> {
        if self.reached_under.as_ref().is_some_and(|d| d != daemon) {
            return Err(Refusal::Unsupported(
                "these configurations were reached under another daemon".into(),
            ));
        }
        let mut s = search::Search::new(self, daemon, fairness);
        let closure = s.closure()?;
        // Properties name processes, which orbits do not follow: by
        // orbits they are not checked (and the output says so).
        let properties = match self.properties && self.symmetries() == 1 {
            true => properties::check(&mut s, self)?,
            false => Vec::new(),
        };
        let convergence = if self.declared {
            s.convergence()?
        } else {
            Convergence::NotDeclared {
                deadlock: s.deadlock()?,
            }
        };
        // By orbits, runs between orbits become runs between configurations.
        let concrete = |run: Run| self.concrete(run, None);
        let convergence = match convergence {
            Convergence::Holds {
                steps,
                moves,
                rounds,
            } => Convergence::Holds {
                steps: concrete(steps),
                moves: moves.map(concrete),
                rounds: rounds.map(|(r, run)| (r, concrete(run))),
            },
            Convergence::Deadlock(run) => Convergence::Deadlock(concrete(run)),
            Convergence::Cycle { run, cycle_from } => Convergence::Cycle {
                run: self.concrete(run, Some(cycle_from)),
                cycle_from,
            },
            Convergence::NotDeclared { deadlock } => Convergence::NotDeclared {
                deadlock: deadlock.map(concrete),
            },
            unfair => unfair,
        };
        Ok(Verdict {
            for_good: None,
            daemon: daemon.clone(),
            fairness,
            configurations: self.configurations(),
            legitimate: self.legit_count,
            transitions: Some(s.transitions()),
            invariant: self
                .invariant
                .as_ref()
                .map(|(name, i)| (name.clone(), concrete(self.run_to(*i, Vec::new())))),
            closure: closure.map(concrete),
            fault: self
                .fault
                .as_ref()
                .or(s.fault.as_ref())
                .map(|(e, i, moves)| (e.clone(), concrete(self.run_to(*i, vec![moves.clone()])))),
            convergence,
            rounds_asked: self.rounds,
            choices: self.choices,
            may_choose: self.inst.code.may_choose(),
            draws: self.inst.code.has_random,
            symmetries: self.symmetries(),
            engine: Engine::Explicit,
            nodes: None,
            properties,
        })
    }

    fn relation(&self) -> StepRelation<'a> {
        self.inst.step_relation()
    }

    /// Tells the progress callback, if any; `Err` when it asks to stop.
    fn tell(&self, what: &str, done: u64, total: u64) -> Result<(), Refusal> {
        tell(self.progress, what, done, total)
    }
}

/// A step led to a value outside its domain that the domain checks let
/// through: the explorer cannot number it.
fn outside_the_domains() -> Refusal {
    Refusal::Unsupported(
        "a step leads outside the declared domains (a value the domain check let through)".into(),
    )
}

/// How many bits number `len` things (0 for one).
pub(crate) fn bits_for(len: u128) -> u32 {
    128 - len.saturating_sub(1).leading_zeros()
}

fn tell(progress: Option<Progress>, what: &str, done: u64, total: u64) -> Result<(), Refusal> {
    match progress {
        Some(f) if !f(what, done, total) => Err(Refusal::Interrupted),
        _ => Ok(()),
    }
}

/// A program's text, a topology, parameter values: an instance for the
/// verifier's unit tests.
#[cfg(test)]
type TestCase = (&'static str, &'static str, &'static [(&'static str, i64)]);

/// The instance of `src` on `topology` with `params`, for the verifier's
/// unit tests.
#[cfg(test)]
fn test_instance(src: &str, topology: &str, params: &[(&str, i64)]) -> Instance {
    let setup = crate::load::Setup {
        topology: Some(topology.into()),
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ..crate::load::Setup::default()
    };
    crate::load::load(src, &setup, &crate::load::read_file).unwrap_or_else(|e| panic!("{e:?}"))
}
