//! What a verification answers, whichever engine explored: per daemon,
//! the verdict on each property, the counts, and the runs that show them.

use super::Run;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::RunError;

/// Which moves of a process the verifier explores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Choices {
    /// Every move the language allows: each enabled action (of the most
    /// urgent priority whose guard holds), for each member of its binder
    /// whose guard holds, with every value its draws can take. A verdict
    /// is about every run of the program.
    #[default]
    Every,
    /// The first enabled action in program order alone, for the first
    /// member of its binder, as runs take it without `--choice random`
    /// (draws still take every value): a verdict is about that refinement
    /// of the program only.
    First,
}

/// Which runs of the daemon count: a run it could make only by starving
/// a process does not, under fairness. Fairness is per process, whatever
/// action or binder member it takes when it moves. Ordered by how much
/// it assumes: the strongly fair runs are among the weakly fair ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Fairness {
    /// Every run: the daemon may leave a process enabled for ever.
    #[default]
    Unfair,
    /// A process enabled from some point on moves again (weak fairness,
    /// justice): a cycle counts when every process enabled throughout it
    /// moves in it.
    Weak,
    /// A process enabled again and again moves again and again (strong
    /// fairness, compassion): a cycle counts when every process enabled
    /// somewhere on it moves in it.
    Strong,
}

impl Fairness {
    /// As `--fairness` writes it.
    pub fn name(self) -> &'static str {
        match self {
            Fairness::Unfair => "none",
            Fairness::Weak => "weak",
            Fairness::Strong => "strong",
        }
    }

    /// As an adverb: `weakly` fair, `strongly` fair.
    pub fn adverb(self) -> &'static str {
        match self {
            Fairness::Unfair => "",
            Fairness::Weak => "weakly",
            Fairness::Strong => "strongly",
        }
    }
}

/// Which engine explored the configurations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// One configuration at a time, numbered ([`crate::verify::Explorer`]).
    #[default]
    Explicit,
    /// Sets of configurations as decision diagrams ([`crate::verify::Symbolic`]): steps
    /// (and moves under the central daemon), no rounds.
    Symbolic,
}

/// How the legitimacy predicate fares under one daemon.
// One per daemon and verdict: boxing the runs would save nothing that counts.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Convergence {
    /// Every run reaches legitimacy: the most steps and the most moves any
    /// run takes, each with a run that takes them (ending in the first
    /// legitimate configuration it reaches).
    Holds {
        /// A run with the most steps.
        steps: Run,
        /// A run with the most moves; `None` where not counted (the
        /// symbolic engine, under a daemon where a step may be several
        /// moves).
        moves: Option<Run>,
        /// A run with the most rounds, and how many (a started round
        /// counted, as runs count them); `None` when not counted (more
        /// than 64 processes, a (configuration, pending processes) state
        /// past 64 bits, or the states in the middle of a round would take
        /// more than [`crate::verify::MAX_ROUND_BYTES`]).
        rounds: Option<(u64, Run)>,
    },
    /// A run to a configuration outside legitimacy where no process is
    /// enabled (no steps when every configuration is a start).
    Deadlock(Run),
    /// Under fairness: every fair run reaches legitimacy, but some cycle
    /// outside legitimacy is not fair (a process enabled throughout it,
    /// under strong fairness somewhere on it, never moves), so no bound
    /// holds on the steps before it: a run into a shortest such cycle and
    /// once round it.
    HoldsUnderFairness {
        /// The run: the way to the unfair cycle, then the cycle.
        run: Run,
        /// Where the cycle begins among the run's steps.
        cycle_from: usize,
    },
    /// A run into a shortest cycle of steps outside legitimacy (under
    /// fairness, a fair one) and once round it: its steps from
    /// `cycle_from` on lead back to where they began.
    Cycle {
        /// The run: the way to the cycle, then the cycle.
        run: Run,
        /// Where the cycle begins among the run's steps.
        cycle_from: usize,
    },
    /// The program declares no legitimacy: only whether a run can reach a
    /// configuration where no process is enabled, and one that does.
    NotDeclared {
        /// A run to a deadlock, if there is one.
        deadlock: Option<Run>,
    },
}

/// What the verifier found under one daemon.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The daemon.
    pub daemon: Daemon,
    /// Which runs were asked about.
    pub fairness: Fairness,
    /// Configurations explored.
    pub configurations: u64,
    /// Of them, legitimate.
    pub legitimate: u64,
    /// Steps from them (one per configuration and move set); `None`
    /// where not counted (the symbolic engine, but under the central
    /// daemon).
    pub transitions: Option<u64>,
    /// An invariant's name and a run to a configuration in which it does
    /// not hold (no steps when every configuration is a start).
    pub invariant: Option<(String, Run)>,
    /// A step that leaves legitimacy: from a legitimate configuration.
    pub closure: Option<Run>,
    /// A step that faults (two processes writing one edge variable, a value
    /// outside its domain, ...): the fault and a run whose last step raises
    /// it (from a start, a shortest one).
    pub fault: Option<(RunError, Run)>,
    /// Convergence, and the worst case or a counterexample.
    pub convergence: Convergence,
    /// Whether the worst case in rounds was asked for
    /// ([`crate::verify::Explorer::count_rounds`]).
    pub rounds_asked: bool,
    /// Which moves were explored.
    pub choices: Choices,
    /// Whether a process may choose between actions or binder members
    /// (several actions of one priority enabled, a binder): where none
    /// can, every choice and the first action alone are one and the same.
    pub may_choose: bool,
    /// Whether a statement draws (each value drawn is explored).
    pub draws: bool,
    /// How many symmetries the exploration went by (1: it explored every
    /// configuration; more: one of each orbit, and the counts above are
    /// of orbits, the worst cases those of every configuration).
    pub symmetries: usize,
    /// Where legitimacy is not closed (and every run reaches it): how late
    /// it may still be lost. `Some(Some(run))`: a run with the most steps
    /// before legitimacy holds for good (from its end every run stays
    /// legitimate); `Some(None)`: no bound, a cycle of legitimate
    /// configurations may still leave legitimacy after any number of
    /// steps. `None`: not asked (explored in ticks only), or closure holds.
    pub for_good: Option<Option<Run>>,
    /// The engine that explored.
    pub engine: Engine,
    /// The symbolic engine's decision diagrams: the most nodes they had
    /// alive so far, and the most they may have (the memory budget).
    pub nodes: Option<(usize, usize)>,
    /// The program's properties of runs (`property NAME: ...`), each
    /// checked (the explicit engine's; none where not asked).
    pub properties: Vec<super::PropertyVerdict>,
}

impl Verdict {
    /// Whether every property holds.
    pub fn holds(&self) -> bool {
        self.invariant.is_none()
            && self.properties.iter().all(|p| p.holds)
            && self.closure.is_none()
            && self.fault.is_none()
            && matches!(
                self.convergence,
                Convergence::Holds { .. }
                    | Convergence::HoldsUnderFairness { .. }
                    | Convergence::NotDeclared { deadlock: None }
            )
    }
}
