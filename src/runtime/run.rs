//! The run loop, one for every front end: steps a simulation until a limit,
//! legitimacy (when asked), silence, the end of a schedule, a violated
//! invariant, a runtime error, or an observer (a trace, a breakpoint, an
//! interrupt) says stop.

use crate::runtime::engine::{InvariantChecks, Outcome, RunError, Simulation};

/// The most rounds in a row a run lets pass with no process enabled, only
/// timers advancing (a timer with a huge maximum would otherwise keep an
/// idle run going for ever); far more than any protocol waits.
pub const MAX_IDLE_ROUNDS: u64 = 1_000_000;

/// Such a round advances every process's timers, so on large instances
/// fewer pass: at most this many process-rounds in a row (100 rounds on a
/// million processes), and never fewer than 100 rounds.
pub const MAX_IDLE_WORK: u64 = 100_000_000;

/// The idle rounds in a row a run of `n` processes lets pass.
pub fn idle_rounds(n: usize) -> u64 {
    (MAX_IDLE_WORK / n.max(1) as u64).clamp(100, MAX_IDLE_ROUNDS)
}

/// When a run stops by itself.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The most steps to take.
    pub steps: u64,
    /// The most moves to make, if limited.
    pub moves: Option<u64>,
    /// Stop as soon as the legitimacy predicate holds.
    pub until_legitimate: bool,
    /// Check the invariants on the configuration the run starts from and
    /// after every step, and stop at the first that does not hold.
    pub invariants: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            steps: 100_000,
            moves: None,
            until_legitimate: false,
            invariants: true,
        }
    }
}

/// Why a run stopped.
#[derive(Clone, Debug)]
pub enum Stop {
    /// No process is enabled (and no timer runs).
    Silent,
    /// The legitimacy predicate holds ([`Limits::until_legitimate`]).
    Legitimate,
    /// [`Limits::steps`] steps were taken.
    StepLimit,
    /// [`Limits::moves`] moves were made.
    MoveLimit,
    /// [`idle_rounds`] rounds in a row passed with no process enabled, only
    /// timers advancing.
    IdleLimit,
    /// The schedule has no more lines.
    ScheduleDone,
    /// The invariant with this index does not hold.
    Invariant(usize),
    /// An invariant could not be evaluated.
    InvariantFault(RunError),
    /// A step failed; the configuration is the one before it.
    Error(RunError),
    /// The observer asked to stop.
    Observer,
}

/// Watches a run step by step.
pub trait Observer {
    /// Before each step; `false` stops the run.
    fn before_step(&mut self, _sim: &Simulation) -> bool {
        true
    }
    /// After each step taken; `false` stops the run.
    fn after_step(&mut self, _sim: &Simulation) -> bool {
        true
    }
    /// Whether it watches the steps at all, asked once before the run:
    /// where it does not, the run loop does not call it before and after
    /// each step (an observer that prints nothing costs nothing), only
    /// [`Observer::keep_going`] now and then.
    fn watches_steps(&self) -> bool {
        true
    }
    /// Where it does not watch the steps: asked before every step the run
    /// loop takes itself and before every batch of steps the engine takes
    /// (at most [`BATCH_STEPS`] long); `false` stops the run (an
    /// interrupt, say).
    fn keep_going(&mut self) -> bool {
        true
    }
}

/// The most steps the engine takes in one batch (see
/// [`Simulation::single_moves`]) before the run loop asks the observer
/// whether to go on: a few milliseconds' worth.
pub const BATCH_STEPS: u64 = 1 << 16;

/// An observer that watches nothing.
pub struct Unobserved;

impl Observer for Unobserved {
    fn watches_steps(&self) -> bool {
        false
    }
}

/// The invariant check [`Limits::invariants`] asks for, at the start and
/// after each step (see [`Simulation::violated_invariant_checked`]).
fn invariant_stop(sim: &Simulation, checks: &mut InvariantChecks) -> Option<Stop> {
    match sim.violated_invariant_checked(checks) {
        Ok(None) => None,
        Ok(Some(i)) => Some(Stop::Invariant(i)),
        Err(e) => Some(Stop::InvariantFault(e)),
    }
}

/// Steps `sim` until something in `limits` or `observer` stops it; the
/// step and move limits count from where the run starts.
pub fn run(sim: &mut Simulation, limits: &Limits, observer: &mut dyn Observer) -> Stop {
    let start = sim.now();
    let mut checks = InvariantChecks::default();
    if limits.invariants {
        if let Some(stop) = invariant_stop(sim, &mut checks) {
            return stop;
        }
    }
    // Rounds in a row in which no process moved, only timers advanced.
    let mut idle = 0;
    let idle_limit = idle_rounds(sim.n());
    let watching = observer.watches_steps();
    // Where nothing is looked at between steps, central single moves are
    // taken in batches inside the engine (the same steps, without a call
    // per step); the checks below then run once per batch.
    let invariant_checks = limits.invariants && sim.has_invariants();
    let batches = !watching && !invariant_checks;
    loop {
        if limits.until_legitimate && sim.legitimate() == Some(true) {
            return Stop::Legitimate;
        }
        let now = sim.now();
        if idle >= idle_limit {
            return Stop::IdleLimit;
        }
        if now.step - start.step >= limits.steps {
            return Stop::StepLimit;
        }
        if limits.moves.is_some_and(|m| now.moves - start.moves >= m) {
            return Stop::MoveLimit;
        }
        if !watching && !observer.keep_going() {
            return Stop::Observer;
        }
        if batches {
            let left = limits.steps - (now.step - start.step);
            let budget = limits
                .moves
                .map_or(left, |m| left.min(m - (now.moves - start.moves)))
                .min(BATCH_STEPS);
            let batch = match sim.single_moves(budget, limits.until_legitimate) {
                Ok(0) => {
                    // Steps of many moves each: the moves left bound them too.
                    let moves = limits.moves.map(|m| m - (now.moves - start.moves));
                    let steps = left.min(BATCH_STEPS);
                    sim.column_moves(steps, moves, limits.until_legitimate)
                }
                taken => taken,
            };
            match batch {
                Ok(0) => {}
                Ok(_) => {
                    idle = 0;
                    continue;
                }
                Err(e) => return Stop::Error(e),
            }
        }
        if watching && !observer.before_step(sim) {
            return Stop::Observer;
        }
        match sim.step() {
            Ok(Outcome::Moved) => {
                idle = if sim.last().tick { idle + 1 } else { 0 };
                if watching && !observer.after_step(sim) {
                    return Stop::Observer;
                }
                if limits.invariants {
                    if let Some(stop) = invariant_stop(sim, &mut checks) {
                        return stop;
                    }
                }
            }
            Ok(Outcome::Silent) => return Stop::Silent,
            Ok(Outcome::ScheduleDone) => return Stop::ScheduleDone,
            Err(e) => return Stop::Error(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{simulate, Setup};

    /// Counts the calls it gets; watches the steps or not.
    struct Counting {
        watches: bool,
        calls: u64,
    }

    impl Observer for Counting {
        fn before_step(&mut self, _: &Simulation) -> bool {
            self.calls += 1;
            true
        }
        fn after_step(&mut self, _: &Simulation) -> bool {
            self.calls += 1;
            true
        }
        fn watches_steps(&self) -> bool {
            self.watches
        }
    }

    /// An observer that watches is called before and after every step;
    /// one that does not is never called, and the run is the same.
    #[test]
    fn an_observer_that_does_not_watch_is_not_called() {
        let src = "var x: 0..3 = 0\nprocess { up :: x < 3 -> x := x + 1 }\n";
        let setup = Setup {
            topology: Some("ring:4".into()),
            ..Setup::default()
        };
        let mut ends = Vec::new();
        for watches in [true, false] {
            let mut sim = simulate(src, &setup).expect("loads");
            let mut observer = Counting { watches, calls: 0 };
            let stop = run(&mut sim, &Limits::default(), &mut observer);
            assert!(matches!(stop, Stop::Silent), "{stop:?}");
            let steps = sim.now().step;
            assert_eq!(steps, 12);
            // Before every step, and before the last attempt, which finds
            // no process enabled; after every step.
            assert_eq!(observer.calls, if watches { 2 * steps + 1 } else { 0 });
            ends.push(sim.config().rows.clone());
        }
        assert_eq!(ends[0], ends[1]);
    }

    /// Says stop at its `n`-th `keep_going`.
    struct StopAt {
        asked: u64,
        n: u64,
    }

    impl Observer for StopAt {
        fn watches_steps(&self) -> bool {
            false
        }
        fn keep_going(&mut self) -> bool {
            self.asked += 1;
            self.asked < self.n
        }
    }

    /// An observer that does not watch the steps can still stop a run
    /// (an interrupt): asked before every batch of central single moves,
    /// at most `BATCH_STEPS` apart, and before every other step.
    #[test]
    fn an_observer_that_does_not_watch_can_stop_the_run_between_batches() {
        let src = "var x: 0..1 = 0\nprocess { flip :: true -> x := 1 - x }\n";
        use crate::runtime::engine::Daemon;
        for (daemon, most) in [(Daemon::Central, BATCH_STEPS), (Daemon::Synchronous, 1)] {
            let setup = Setup {
                topology: Some("ring:4".into()),
                daemon: daemon.clone(),
                ..Setup::default()
            };
            let mut sim = simulate(src, &setup).expect("loads");
            let limits = Limits {
                steps: u64::MAX,
                ..Limits::default()
            };
            let mut observer = StopAt { asked: 0, n: 3 };
            let stop = run(&mut sim, &limits, &mut observer);
            assert!(matches!(stop, Stop::Observer), "{stop:?}");
            assert_eq!(sim.now().step, 2 * most, "{daemon:?}");
        }
    }
}
