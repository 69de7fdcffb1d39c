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
//! Configurations are numbered by their place in the state space
//! ([`crate::runtime::space::Space`]), a perfect hash: what is kept per
//! configuration is a few bits and two counts.

mod rounds;
mod search;

use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::space::Space;
use crate::runtime::step::{RunError, StepRelation};
use crate::state::Config;

/// The most (configuration, round) states the worst case in rounds explores.
pub const MAX_ROUND_STATES: usize = 20_000_000;

/// The most configurations an instance may have to be verified.
pub const MAX_CONFIGURATIONS: u128 = u32::MAX as u128;

/// A run the verifier reports: where it starts and who moves at each step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The configuration it starts from.
    pub start: Config,
    /// Each step's movers, in increasing order.
    pub steps: Vec<Vec<u32>>,
}

impl Run {
    /// The number of moves the run makes.
    pub fn moves(&self) -> u64 {
        self.steps.iter().map(|s| s.len() as u64).sum()
    }
}

/// How the legitimacy predicate fares under one daemon.
#[derive(Clone, Debug)]
pub enum Convergence {
    /// Every run reaches legitimacy: the most steps and the most moves any
    /// run takes, each with a run that takes them (ending in the first
    /// legitimate configuration it reaches).
    Holds {
        /// A run with the most steps.
        steps: Run,
        /// A run with the most moves.
        moves: Run,
        /// A run with the most rounds, and how many (a started round
        /// counted, as runs count them); `None` when not counted (more
        /// than 64 processes, or more than [`MAX_ROUND_STATES`] states).
        rounds: Option<(u64, Run)>,
    },
    /// A configuration outside legitimacy where no process is enabled.
    Deadlock(Config),
    /// A shortest cycle of steps outside legitimacy: a run that starts on
    /// it, goes round once and is back where it started.
    Cycle(Run),
}

/// What the verifier found under one daemon.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The daemon.
    pub daemon: Daemon,
    /// Configurations explored.
    pub configurations: u64,
    /// Of them, legitimate.
    pub legitimate: u64,
    /// Steps from them (one per configuration and move set).
    pub transitions: u64,
    /// A configuration in which an invariant does not hold, and its name.
    pub invariant: Option<(String, Config)>,
    /// A step that leaves legitimacy: from a legitimate configuration.
    pub closure: Option<Run>,
    /// Convergence, and the worst case or a counterexample.
    pub convergence: Convergence,
}

impl Verdict {
    /// Whether every property holds.
    pub fn holds(&self) -> bool {
        self.invariant.is_none()
            && self.closure.is_none()
            && matches!(self.convergence, Convergence::Holds { .. })
    }
}

/// Told how far the exploration is: what it is doing, how much of it is
/// done and of how much (0 when unknown); `false` stops it
/// ([`Refusal::Interrupted`]).
pub type Progress<'p> = &'p dyn Fn(&str, u64, u64) -> bool;

/// How often, in configurations or states, progress is told.
const PROGRESS_EVERY: u64 = 1 << 12;

/// Why an instance cannot be verified.
#[derive(Debug)]
pub enum Refusal {
    /// The progress callback asked to stop.
    Interrupted,
    /// A construct the explorer does not handle; says which and why.
    Unsupported(String),
    /// Too many configurations to number.
    TooLarge(u128),
    /// A guard, statement or predicate faults in some configuration.
    Runtime(Box<(RunError, Config)>),
}

/// The state space of an instance, what every configuration's guards and
/// predicates say, ready to be explored under any daemon.
pub struct Explorer<'a> {
    inst: &'a Instance,
    progress: Option<Progress<'a>>,
    space: Space,
    count: u32,
    /// Per configuration: legitimate.
    legit: Vec<bool>,
    /// Per configuration: its enabled processes as bits (empty when the
    /// topology has more than 64 processes: then rounds are not counted).
    enabled: Vec<u64>,
    legit_count: u64,
    invariant: Option<(String, Config)>,
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
        let (prog, code) = (&inst.prog, &inst.code);
        if prog.legitimate.is_none() {
            return Err(Refusal::Unsupported(
                "the program declares no `legitimate:` predicate, so there is nothing to converge to"
                    .into(),
            ));
        }
        if code.capacity.is_some() {
            return Err(Refusal::Unsupported(
                "the program passes messages: channel contents are part of a configuration, and only programs without channels can be explored from every configuration".into(),
            ));
        }
        if !code.timers.is_empty() {
            return Err(Refusal::Unsupported(
                "the program has timers, which advance when a round ends: a configuration alone does not say what happens next".into(),
            ));
        }
        let space = inst.space();
        let count = space.count();
        if count > MAX_CONFIGURATIONS {
            return Err(Refusal::TooLarge(count));
        }
        let rel = inst.step_relation();
        let mut legit = Vec::with_capacity(count as usize);
        let with_rounds = inst.topo.n() <= 64;
        let mut enabled = Vec::with_capacity(if with_rounds { count as usize } else { 0 });
        let mut invariant = None;
        for i in 0..count {
            if i.is_multiple_of(u128::from(PROGRESS_EVERY)) {
                tell(
                    progress,
                    "evaluating guards and predicates",
                    i as u64,
                    count as u64,
                )?;
            }
            let cfg = space.config(i);
            let fail = |e| Refusal::Runtime(Box::new((e, space.config(i))));
            let chosen = rel.chosen(&cfg).map_err(fail)?;
            legit.push(rel.legitimate_with(&cfg, &chosen).map_err(fail)? == Some(true));
            if with_rounds {
                let bits = chosen.iter().enumerate().filter(|(_, &c)| c != NO_ACTION);
                enabled.push(bits.fold(0u64, |m, (p, _)| m | 1 << p));
            }
            if invariant.is_none() {
                if let Some(name) = rel.violated_invariant(&cfg).map_err(fail)? {
                    invariant = Some((name.to_string(), cfg));
                }
            }
        }
        let legit_count = legit.iter().filter(|&&l| l).count() as u64;
        Ok(Explorer {
            inst,
            progress,
            space,
            count: count as u32,
            legit,
            enabled,
            legit_count,
            invariant,
        })
    }

    /// How many configurations the instance has.
    pub fn configurations(&self) -> u64 {
        u64::from(self.count)
    }

    /// Explores every configuration under `daemon`.
    pub fn verify(&self, daemon: &Daemon) -> Result<Verdict, Refusal> {
        let mut s = search::Search::new(self, daemon);
        let closure = s.closure()?;
        let convergence = s.convergence()?;
        Ok(Verdict {
            daemon: daemon.clone(),
            configurations: self.configurations(),
            legitimate: self.legit_count,
            transitions: s.transitions(),
            invariant: self.invariant.clone(),
            closure,
            convergence,
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

fn tell(progress: Option<Progress>, what: &str, done: u64, total: u64) -> Result<(), Refusal> {
    match progress {
        Some(f) if !f(what, done, total) => Err(Refusal::Interrupted),
        _ => Ok(()),
    }
}
