//! The search under one daemon: closure over the legitimate
//! configurations, then a depth-first search over the others that finds,
//! for each, the most steps and moves to legitimacy, or a deadlock or a
//! cycle (and then a shortest one, breadth first).

use super::{Convergence, Explorer, Refusal, Run};
use crate::compile::NO_ACTION;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::StepRelation;
use crate::state::Config;

/// Not yet visited, on the search's stack, or finished.
const NEW: u8 = 0;
const OPEN: u8 = 1;
const DONE: u8 = 2;

/// One step from a configuration: where it leads and who moves.
pub(super) struct Edge {
    pub(super) to: u32,
    pub(super) movers: Vec<u32>,
}

/// A configuration on the depth-first search's stack.
struct Frame {
    node: u32,
    edges: Vec<(u32, u32)>,
    next: usize,
    /// The moves of the step that led here from the frame below.
    moves_in: u32,
    /// The most steps and moves to legitimacy found so far from here.
    steps: u32,
    moves: u32,
}

pub(super) struct Search<'e, 'a> {
    ex: &'e Explorer<'a>,
    daemon: &'e Daemon,
    /// Whether a cycle counts only when it is weakly fair.
    weak_fairness: bool,
    rel: StepRelation<'a>,
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
        // From a start, a run stops where an invariant fails.
        if self.ex.states.reached_from_a_start() && self.ex.stops[i as usize] {
            return Ok(Vec::new());
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
            let to = self.ex.states.index(&next).ok_or_else(|| {
                Refusal::Unsupported(
                    "a step leads outside the declared domains (a value the domain check let through)".into(),
                )
            })?;
            out.push(Edge { to, movers });
        }
        Ok(out)
    }

    /// A step from a legitimate configuration to one that is not.
    pub(super) fn closure(&mut self) -> Result<Option<Run>, Refusal> {
        let mut found = None;
        let daemon = self.daemon.name();
        for i in 0..self.ex.count {
            if u64::from(i).is_multiple_of(super::PROGRESS_EVERY) {
                let what = format!("{daemon}: closure");
                self.ex
                    .tell(&what, u64::from(i), u64::from(self.ex.count))?;
            }
            if !self.ex.legit[i as usize] {
                continue;
            }
            let edges = self.edges(i)?;
            self.transitions += edges.len() as u64;
            if found.is_some() {
                continue;
            }
            if let Some(e) = edges.into_iter().find(|e| !self.ex.legit[e.to as usize]) {
                found = Some(self.ex.run_to(i, vec![e.movers]));
            }
        }
        Ok(found)
    }

    /// Without a legitimacy predicate: the first configuration (the nearest
    /// the start, from one) where no process is enabled, and a run to it.
    pub(super) fn deadlock(&mut self) -> Result<Option<Run>, Refusal> {
        let mut found = None;
        for i in 0..self.ex.count {
            let edges = self.edges(i)?.len();
            self.transitions += edges as u64;
            if self.ex.terminal[i as usize] && !self.ex.stops[i as usize] && found.is_none() {
                found = Some(self.ex.run_to(i, Vec::new()));
            }
        }
        Ok(found)
    }

    /// Convergence from every configuration outside legitimacy, with the
    /// worst case or a shortest counterexample.
    pub(super) fn convergence(&mut self) -> Result<Convergence, Refusal> {
        let n = self.ex.count as usize;
        let mut state = vec![NEW; n];
        let mut steps = vec![0u32; n];
        let mut moves = vec![0u32; n];
        let (mut deadlock, mut cycle) = (None, None);
        let (mut finished, what) = (0u64, format!("{}: convergence", self.daemon.name()));
        for root in 0..self.ex.count {
            if self.ex.legit[root as usize] || state[root as usize] != NEW {
                continue;
            }
            let mut stack = vec![self.open(root, 0, &mut state, &mut deadlock)?];
            while let Some(top) = stack.last_mut() {
                if let Some(&(j, w)) = top.edges.get(top.next) {
                    top.next += 1;
                    let j_ = j as usize;
                    if self.ex.legit[j_] {
                        top.steps = top.steps.max(1);
                        top.moves = top.moves.max(w);
                    } else if state[j_] == DONE {
                        top.steps = top.steps.max(steps[j_].saturating_add(1));
                        top.moves = top.moves.max(moves[j_].saturating_add(w));
                    } else if state[j_] == OPEN {
                        // Back on the search's own path: a cycle outside legitimacy.
                        let at = stack.iter().position(|f| f.node == j).unwrap_or(0);
                        let len = stack.len() - at;
                        if cycle.is_none_or(|(_, l)| len < l) {
                            cycle = Some((j, len));
                        }
                    } else {
                        let frame = self.open(j, w, &mut state, &mut deadlock)?;
                        stack.push(frame);
                    }
                    continue;
                }
                let done = stack.pop().expect("the loop saw a top");
                let node = done.node as usize;
                state[node] = DONE;
                finished += 1;
                if finished.is_multiple_of(super::PROGRESS_EVERY) {
                    self.ex.tell(
                        &what,
                        finished,
                        u64::from(self.ex.count) - self.ex.legit_count,
                    )?;
                }
                steps[node] = done.steps;
                moves[node] = done.moves;
                if let Some(below) = stack.last_mut() {
                    below.steps = below.steps.max(done.steps.saturating_add(1));
                    below.moves = below.moves.max(done.moves.saturating_add(done.moves_in));
                }
            }
        }
        if let Some(d) = deadlock {
            return Ok(Convergence::Deadlock(self.ex.run_to(d, Vec::new())));
        }
        if let Some((at, len)) = cycle {
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
            let (run, cycle_from) = (ex.run_to(u, cycle), ex.states.stem(u).len());
            return Ok(if unfair {
                Convergence::HoldsUnderWeakFairness { run, cycle_from }
            } else {
                Convergence::Cycle { run, cycle_from }
            });
        }
        let ex = self.ex;
        Ok(Convergence::Holds {
            steps: self.worst_run(&steps, |_, after| after + 1)?,
            moves: self.worst_run(&moves, |w, after| after + w)?,
            rounds: super::rounds::worst_rounds(self, ex)?,
        })
    }

    /// Puts configuration `i` on the search's stack.
    fn open(
        &mut self,
        i: u32,
        moves_in: u32,
        state: &mut [u8],
        deadlock: &mut Option<u32>,
    ) -> Result<Frame, Refusal> {
        state[i as usize] = OPEN;
        let edges: Vec<(u32, u32)> = self
            .edges(i)?
            .into_iter()
            .map(|e| (e.to, e.movers.len() as u32))
            .collect();
        self.transitions += edges.len() as u64;
        if self.ex.terminal[i as usize] && !self.ex.stops[i as usize] && deadlock.is_none() {
            *deadlock = Some(i);
        }
        Ok(Frame {
            node: i,
            edges,
            next: 0,
            moves_in,
            steps: 0,
            moves: 0,
        })
    }

    /// A run from a configuration with the most of `worst` to legitimacy,
    /// each step one that keeps the worst case: `cost(w, after)` is the
    /// worst case through a step of `w` moves to a configuration whose own
    /// is `after` (0 when legitimate).
    fn worst_run(&mut self, worst: &[u32], cost: impl Fn(u32, u32) -> u32) -> Result<Run, Refusal> {
        let legit = &self.ex.legit;
        // From a start, the worst case is the start's.
        let start = if self.ex.states.reached_from_a_start() {
            0
        } else {
            (0..self.ex.count)
                .filter(|&i| !legit[i as usize])
                .max_by_key(|&i| (worst[i as usize], std::cmp::Reverse(i)))
                .unwrap_or(0)
        };
        let mut run = Run {
            start: self.config(start),
            steps: Vec::new(),
        };
        let mut at = start;
        while !legit[at as usize] {
            let want = worst[at as usize];
            let edges = self.edges(at)?;
            let next = edges.into_iter().find(|e| {
                let after = if legit[e.to as usize] {
                    0
                } else {
                    worst[e.to as usize]
                };
                cost(e.movers.len() as u32, after) == want
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

    /// A shortest cycle of steps outside legitimacy, given one through
    /// `at` of `len` steps: breadth first from each configuration outside
    /// legitimacy, no deeper than the shortest cycle found so far. Where it
    /// begins, and its steps' movers.
    fn shortest_cycle(&mut self, at: u32, len: usize) -> Result<(u32, Vec<Vec<u32>>), Refusal> {
        let Some(mut best) = self.cycle_from(at, len)?.map(|steps| (at, steps)) else {
            return Err(Refusal::Unsupported(
                "the cycle the search found could not be retraced (an inconsistency in the explorer)".into(),
            ));
        };
        for u in 0..self.ex.count {
            if best.1.len() <= 1 {
                break;
            }
            if self.ex.legit[u as usize] || u == at {
                continue;
            }
            if let Some(steps) = self.cycle_from(u, best.1.len() - 1)? {
                best = (u, steps);
            }
        }
        Ok(best)
    }

    /// A shortest cycle from `u` back to itself of at most `limit` steps,
    /// outside legitimacy.
    fn cycle_from(&mut self, u: u32, limit: usize) -> Result<Option<Vec<Vec<u32>>>, Refusal> {
        let mut parent: std::collections::HashMap<u32, (u32, Vec<u32>)> =
            std::collections::HashMap::new();
        let mut frontier = vec![u];
        for _ in 0..limit {
            let mut next = Vec::new();
            for &x in &frontier {
                for e in self.edges(x)? {
                    if self.ex.legit[e.to as usize] {
                        continue;
                    }
                    if e.to == u {
                        let mut steps = vec![e.movers];
                        let mut y = x;
                        while y != u {
                            let (p, movers) = parent[&y].clone();
                            steps.push(movers);
                            y = p;
                        }
                        steps.reverse();
                        return Ok(Some(steps));
                    }
                    if let std::collections::hash_map::Entry::Vacant(v) = parent.entry(e.to) {
                        v.insert((x, e.movers));
                        next.push(e.to);
                    }
                }
            }
            frontier = next;
        }
        Ok(None)
    }
}
