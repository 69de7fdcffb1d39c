//! The search under one daemon: closure over the legitimate
//! configurations, then a depth-first search over the others that finds,
//! for each, the most steps and moves to legitimacy, or a deadlock or a
//! cycle (and then a shortest one, breadth first).

mod cycles;

use super::counts::{Counts, NO_RUN, OPEN, UNSEEN};
use super::states::States;
use super::successors::{Succ, Successors, ANY_CHANGED};
use super::{Convergence, Explorer, Refusal, Run};
use crate::compile::NO_ACTION;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::StepRelation;
use crate::state::Config;

/// One step from a configuration: where it leads and who moves.
pub(super) struct Edge {
    pub(super) to: u32,
    pub(super) movers: Vec<u32>,
}

/// What the depth-first search found.
struct Longest {
    steps: Counts,
    moves: Option<Counts>,
    deadlock: Option<u32>,
    /// A configuration on a cycle, and the cycle's length.
    cycle: Option<(u32, usize)>,
}

/// A configuration on the depth-first search's stack.
struct Frame {
    node: u32,
    /// Its steps: from here on the search's stack of steps, up to the
    /// next frame's.
    edges_from: usize,
    next: usize,
    /// The moves of the step that led here from the frame below.
    moves_in: u32,
    /// The most steps and moves to legitimacy found so far from here.
    steps: u32,
    moves: u32,
    /// Whether a step from here was found to lead to legitimacy without
    /// a runtime error (else no run from here counts).
    reached: bool,
}

pub(super) struct Search<'e, 'a> {
    ex: &'e Explorer<'a>,
    daemon: &'e Daemon,
    /// Whether a cycle counts only when it is weakly fair.
    weak_fairness: bool,
    rel: StepRelation<'a>,
    /// The fast way to the steps from a configuration, where it applies.
    fast: Option<Successors<'e>>,
    transitions: u64,
    /// The first step found that raises a runtime error: the error, from
    /// which configuration, the movers.
    pub(super) fault: Option<(crate::runtime::step::RunError, u32, Vec<u32>)>,
}

impl<'e, 'a> Search<'e, 'a> {
    pub(super) fn new(ex: &'e Explorer<'a>, daemon: &'e Daemon, weak_fairness: bool) -> Self {
        Search {
            ex,
            daemon,
            weak_fairness,
            rel: ex.relation(),
            fast: match (&ex.states, daemon) {
                (_, Daemon::Schedule(_)) => None,
                (States::All(space), _) => Successors::new(ex.inst, space, ex.local.as_ref()),
                _ => None,
            },
            transitions: 0,
            fault: None,
        }
    }

    pub(super) fn daemon_name(&self) -> &'static str {
        self.daemon.name()
    }

    pub(super) fn transitions(&self) -> u64 {
        self.transitions
    }

    fn config(&self, i: u32) -> Config {
        self.ex.states.config(i)
    }

    /// Every step the daemon allows from configuration `i`.
    pub(super) fn edges(&mut self, i: u32) -> Result<Vec<Edge>, Refusal> {
        Ok(self.edges_and_terminal(i)?.0)
    }

    /// [`Search::edges`], and whether no process is enabled there.
    fn edges_and_terminal(&mut self, i: u32) -> Result<(Vec<Edge>, bool), Refusal> {
        // From a start, a run stops where an invariant fails.
        if self.ex.states.reached_from_a_start() && self.ex.stops_at(i) {
            return Ok((Vec::new(), self.ex.is_terminal(i)));
        }
        let cfg = self.config(i);
        let fail = |e| Refusal::Runtime(Box::new((e, cfg.clone())));
        let chosen = self.rel.chosen(&cfg).map_err(fail)?;
        let enabled: Vec<u32> = (0..chosen.len() as u32)
            .filter(|&p| chosen[p as usize] != NO_ACTION)
            .collect();
        let sets = self.daemon.move_sets(&enabled, &self.ex.inst.topo, 0);
        let mut out = Vec::with_capacity(sets.len());
        for movers in sets {
            let moves: Vec<(u32, u32)> = movers
                .iter()
                .map(|&p| (p, u32::from(chosen[p as usize])))
                .collect();
            let next = match self.rel.successor(&cfg, &moves) {
                Ok(next) => next,
                // A faulting step is a counterexample of its own, and not
                // followed (from a start, the search that reached the
                // configurations recorded it already).
                Err(e) => {
                    self.fault.get_or_insert((e, i, movers));
                    continue;
                }
            };
            let to = self
                .ex
                .states
                .index(&next)
                .ok_or_else(super::outside_the_domains)?;
            out.push(Edge { to, movers });
        }
        Ok((out, enabled.is_empty()))
    }

    /// Every step the daemon allows from configuration `i`, into `out`:
    /// where each leads and how many processes move, in the order of
    /// [`Search::edges`], without building configurations where the fast
    /// way applies.
    pub(super) fn successors(&mut self, i: u32, out: &mut Vec<Succ>) -> Result<(), Refusal> {
        self.successors_from(i, None, out).map(|_| ())
    }

    /// [`Search::successors`] of configuration `i` reached from `from`
    /// (a configuration and the step's movers as bits), whose guards and
    /// moves the fast way may reuse; and whether no process is enabled
    /// there (asked now rather than kept: from every configuration,
    /// a bit each would be an eighth of what the search keeps).
    pub(super) fn successors_from(
        &mut self,
        i: u32,
        from: Option<(u32, u64)>,
        out: &mut Vec<Succ>,
    ) -> Result<bool, Refusal> {
        if let Some(fast) = &mut self.fast {
            if fast.load_moves(i, from)? {
                fast.steps(i, self.daemon, out);
                return Ok(fast.enabled_bits() == 0);
            }
        }
        out.clear();
        let (edges, terminal) = self.edges_and_terminal(i)?;
        out.extend(edges.iter().map(|e| Succ {
            to: e.to,
            moves: e.movers.len() as u32,
            movers: super::successors::as_bits(&e.movers),
        }));
        Ok(terminal)
    }

    /// The processes enabled in configuration `i`, as bits (at most 64
    /// processes).
    pub(super) fn enabled_bits(&mut self, i: u32) -> Result<u64, Refusal> {
        if (i as usize) < self.ex.enabled.len() {
            return Ok(self.ex.enabled.get(i));
        }
        if let Some(fast) = &mut self.fast {
            fast.load(i)?;
            return Ok(fast.enabled_bits());
        }
        let cfg = self.config(i);
        let chosen = self
            .rel
            .chosen(&cfg)
            .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
        Ok(super::successors::enabled_as_bits(&chosen))
    }

    /// A step from a legitimate configuration to one that is not.
    pub(super) fn closure(&mut self) -> Result<Option<Run>, Refusal> {
        let mut found = None;
        let daemon = self.daemon.name();
        let mut out = Vec::new();
        for i in 0..self.ex.count {
            if u64::from(i).is_multiple_of(super::PROGRESS_EVERY) {
                let what = format!("{daemon}: closure");
                self.ex
                    .tell(&what, u64::from(i), u64::from(self.ex.count))?;
            }
            if !self.ex.is_legit(i) {
                continue;
            }
            self.successors(i, &mut out)?;
            self.transitions += out.len() as u64;
            if found.is_some() {
                continue;
            }
            if let Some(k) = out.iter().position(|e| !self.ex.is_legit(e.to)) {
                let movers = self.edges(i)?.swap_remove(k).movers;
                found = Some(self.ex.run_to(i, vec![movers]));
            }
        }
        Ok(found)
    }

    /// Without a legitimacy predicate: the first configuration (the nearest
    /// the start, from one) where no process is enabled, and a run to it.
    pub(super) fn deadlock(&mut self) -> Result<Option<Run>, Refusal> {
        // Without `legitimate:` the configurations are those reached from
        // a start, whose steps the search that reached them counted.
        self.transitions += self.ex.reached_transitions;
        let found = (0..self.ex.count)
            .find(|&i| self.ex.is_terminal(i) && !self.ex.stops_at(i))
            .map(|i| self.ex.run_to(i, Vec::new()));
        Ok(found)
    }

    /// Convergence from every configuration outside legitimacy, with the
    /// worst case or a shortest counterexample.
    pub(super) fn convergence(&mut self) -> Result<Convergence, Refusal> {
        // Under the synchronous daemon (one step from each configuration)
        // the most moves are searched for on their own once the most
        // steps are known, in the same room: both at once would take twice it.
        let (central, synchronous) = (
            matches!(self.daemon, Daemon::Central),
            matches!(self.daemon, Daemon::Synchronous),
        );
        let Longest {
            steps,
            moves,
            deadlock,
            cycle,
        } = self.longest(false, !central && !synchronous)?;
        if let Some(d) = deadlock {
            return Ok(Convergence::Deadlock(self.ex.run_to(d, Vec::new())));
        }
        if let Some((at, len)) = cycle {
            drop((steps, moves));
            let ex = self.ex;
            let fair = if self.weak_fairness {
                super::fairness::fair_cycle(self, ex)?
            } else {
                None
            };
            let unfair = fair.is_none() && self.weak_fairness;
            let (u, cycle) = match fair {
                Some(found) => found,
                None => self.shortest_cycle(at, len)?,
            };
            let (run, cycle_from) = (ex.run_to(u, cycle), ex.states.path_to(u).len() - 1);
            return Ok(if unfair {
                Convergence::HoldsUnderWeakFairness { run, cycle_from }
            } else {
                Convergence::Cycle { run, cycle_from }
            });
        }
        let ex = self.ex;
        let steps_run = self.worst_run(&steps, |_, after| after + 1)?;
        let moves_run = if synchronous {
            drop(steps);
            // The same steps again: counted once.
            let transitions = self.transitions;
            let moves = self.longest(true, false)?.steps;
            self.transitions = transitions;
            self.worst_run(&moves, |w, after| after + w)?
        } else {
            let moves_run =
                self.worst_run(moves.as_ref().unwrap_or(&steps), |w, after| after + w)?;
            drop((steps, moves));
            moves_run
        };
        let rounds = match (ex.rounds, synchronous) {
            (false, _) => None,
            // Every enabled process moves at each step, which so ends its
            // round: the rounds are the steps.
            (true, true) => Some((steps_run.steps.len() as u64, steps_run.clone())),
            (true, false) => super::rounds::worst_rounds(self, ex, steps_run.steps.len() as u64)?,
        };
        Ok(Convergence::Holds {
            steps: steps_run,
            moves: moves_run,
            rounds,
        })
    }

    /// The depth-first search over the configurations outside legitimacy:
    /// per configuration the most steps to legitimacy (with `weighted`,
    /// the most moves instead), and with `track_moves` the most moves too;
    /// the first deadlock met and the shortest cycle met, if any.
    fn longest(&mut self, weighted: bool, track_moves: bool) -> Result<Longest, Refusal> {
        let n = self.ex.count as usize;
        // Per configuration outside legitimacy: unseen, on the stack, or
        // the most steps to legitimacy from it; and the most moves, which
        // under the central daemon are the steps.
        let mut steps = Counts::new(n, UNSEEN);
        let mut moves = track_moves.then(|| Counts::new(n, 0));
        // What a step adds to the count: one, or its moves.
        let unit = |w: u32| if weighted { w } else { 1 };
        let (mut deadlock, mut cycle) = (None, None);
        let (mut finished, what) = (0u64, format!("{}: convergence", self.daemon.name()));
        let mut stack: Vec<Frame> = Vec::new();
        // The steps of every frame on the stack, one after the other.
        let mut edges: Vec<Succ> = Vec::new();
        let mut out = Vec::new();
        // Roots are read from the last root, a few digits away.
        let mut last_root = None;
        for root in 0..self.ex.count {
            if self.ex.is_legit(root) || steps.get(root) != UNSEEN {
                continue;
            }
            let from = last_root.map(|r| (r, ANY_CHANGED));
            last_root = Some(root);
            self.open(
                (root, from),
                0,
                &mut steps,
                &mut deadlock,
                (&mut stack, &mut edges, &mut out),
            )?;
            while let Some(top) = stack.last_mut() {
                let at = top.edges_from + top.next;
                let end = edges.len();
                if at < end {
                    let Succ {
                        to: j,
                        moves: w,
                        movers,
                    } = edges[at];
                    top.next += 1;
                    let from = Some((top.node, movers));
                    if self.ex.is_legit(j) {
                        top.steps = top.steps.max(unit(w));
                        top.moves = top.moves.max(w);
                        top.reached = true;
                        continue;
                    }
                    match steps.get(j) {
                        UNSEEN => {
                            self.open(
                                (j, from),
                                w,
                                &mut steps,
                                &mut deadlock,
                                (&mut stack, &mut edges, &mut out),
                            )?;
                        }
                        OPEN => {
                            // Back on the search's own path: a cycle outside legitimacy.
                            let at = stack.iter().position(|f| f.node == j).unwrap_or(0);
                            let len = stack.len() - at;
                            if cycle.is_none_or(|(_, l)| len < l) {
                                cycle = Some((j, len));
                            }
                        }
                        NO_RUN => {}
                        done => {
                            let done_moves = moves.as_ref().map_or(done, |m| m.get(j));
                            top.steps = top.steps.max(done.saturating_add(unit(w)));
                            top.moves = top.moves.max(done_moves.saturating_add(w));
                            top.reached = true;
                        }
                    }
                    continue;
                }
                let done = stack.pop().expect("the loop saw a top");
                edges.truncate(done.edges_from);
                finished += 1;
                if finished.is_multiple_of(super::PROGRESS_EVERY) {
                    self.ex.tell(
                        &what,
                        finished,
                        u64::from(self.ex.count) - self.ex.legit_count,
                    )?;
                }
                // Where every step faults (or an invariant fails, from a
                // start), no run counts; a deadlock is reported instead of
                // any worst case.
                let counted = done.reached;
                steps.set(done.node, if counted { done.steps } else { NO_RUN });
                if let Some(m) = &mut moves {
                    m.set(done.node, if counted { done.moves } else { NO_RUN });
                }
                match stack.last_mut() {
                    Some(below) if counted => {
                        below.steps = below
                            .steps
                            .max(done.steps.saturating_add(unit(done.moves_in)));
                        below.moves = below.moves.max(done.moves.saturating_add(done.moves_in));
                        below.reached = true;
                    }
                    _ => {}
                }
            }
        }
        Ok(Longest {
            steps,
            moves,
            deadlock,
            cycle,
        })
    }

    /// Puts configuration `i` on the search's stack, its steps on the
    /// stack of steps.
    fn open(
        &mut self,
        (i, from): (u32, Option<(u32, u64)>),
        moves_in: u32,
        steps: &mut Counts,
        deadlock: &mut Option<u32>,
        (stack, edges, out): (&mut Vec<Frame>, &mut Vec<Succ>, &mut Vec<Succ>),
    ) -> Result<(), Refusal> {
        steps.set(i, OPEN);
        let terminal = self.successors_from(i, from, out)?;
        self.transitions += out.len() as u64;
        if terminal && !self.ex.stops_at(i) && deadlock.is_none() {
            *deadlock = Some(i);
        }
        stack.push(Frame {
            node: i,
            edges_from: edges.len(),
            next: 0,
            moves_in,
            steps: 0,
            moves: 0,
            reached: false,
        });
        edges.extend_from_slice(out);
        Ok(())
    }

    /// A run from a configuration with the most of `worst` to legitimacy,
    /// each step one that keeps the worst case: `cost(w, after)` is the
    /// worst case through a step of `w` moves to a configuration whose own
    /// is `after` (0 when legitimate).
    fn worst_run(
        &mut self,
        worst: &Counts,
        cost: impl Fn(u32, u32) -> u32,
    ) -> Result<Run, Refusal> {
        let ex = self.ex;
        let legit = |i: u32| ex.is_legit(i);
        // From a start, the worst case is the start's; where no run
        // counts, a run of no steps.
        let start = if self.ex.states.reached_from_a_start() {
            0
        } else {
            (0..self.ex.count)
                .filter(|&i| !legit(i) && worst.get(i) != NO_RUN)
                .max_by_key(|&i| (worst.get(i), std::cmp::Reverse(i)))
                .or_else(|| (0..self.ex.count).find(|&i| legit(i)))
                .unwrap_or(0)
        };
        let mut run = Run {
            start: self.config(start),
            steps: Vec::new(),
        };
        let mut at = start;
        while !legit(at) && worst.get(at) != NO_RUN {
            let want = worst.get(at);
            let edges = self.edges(at)?;
            let next = edges.into_iter().find(|e| {
                let after = if legit(e.to) { 0 } else { worst.get(e.to) };
                after != NO_RUN && cost(e.movers.len() as u32, after) == want
            });
            let Some(e) = next else {
                return Err(Refusal::Unsupported(
                    "the worst case could not be retraced (an inconsistency in the explorer)"
                        .into(),
                ));
            };
            at = e.to;
            run.steps.push(e.movers);
        }
        Ok(run)
    }
}
