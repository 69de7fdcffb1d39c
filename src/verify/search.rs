//! The search under one daemon: closure over the legitimate
//! configurations, then a depth-first search over the others that finds,
//! for each, the most steps and moves to legitimacy, or a deadlock or a
//! cycle (and then a shortest one, breadth first).

mod batch;
mod cycles;
mod longest;
mod shared;

use super::counts::{Counts, NO_RUN, UNSEEN};
use super::encoded_step::EncodedSteps;
use super::moves::Lister;
use super::states::States;
use super::successors::{Succ, Successors, ANY_CHANGED};
use super::view_memo::{chosen_into, ViewMemo};
use super::walk::Stop;
use super::{Convergence, Explorer, Fairness, Refusal, Run};
use crate::compile::NO_ACTION;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::{Move, StepRelation};
use crate::state::Config;
use longest::{OneSearch, Walk, Walker};

/// One step from a configuration: where it leads (by orbits, the
/// configuration standing for where it leads), and its moves.
pub(super) struct Edge {
    pub(super) to: u32,
    pub(super) moves: Vec<Move>,
}

/// What the depth-first search found.
struct Longest {
    steps: Counts,
    moves: Option<Counts>,
    deadlock: Option<u32>,
    /// A configuration on a cycle, and the cycle's length.
    cycle: Option<(u32, usize)>,
}

/// Where steps are written as bytes and looked up: the arena of the
/// configurations reached from a start, unless they stand for orbits.
fn arena_of<'x>(ex: &'x Explorer) -> Option<&'x super::config_arena::ConfigArena> {
    match (&ex.states, &ex.symmetry) {
        (States::Reachable { reached, .. }, None) => reached.arena(),
        _ => None,
    }
}

pub(super) struct Search<'e, 'a> {
    ex: &'e Explorer<'a>,
    daemon: &'e Daemon,
    /// Which cycles count.
    fairness: Fairness,
    rel: StepRelation<'a>,
    /// The fast way to the steps from a configuration, where it applies.
    fast: Option<Successors<'e>>,
    transitions: u64,
    /// How many threads the depth-first search may take.
    threads: usize,
    /// The first step found that raises a runtime error: the error, from
    /// which configuration, the moves.
    pub(super) fault: Option<(crate::runtime::step::RunError, u32, Vec<Move>)>,
    /// The steps of a configuration, listed move by move.
    lister: Lister,
    /// Where the program has channels: what each process does per view.
    views: Option<ViewMemo>,
    /// The configuration whose steps are listed, made ready to write
    /// its steps as bytes, and its steps as listed.
    encoded: EncodedSteps,
    batch: batch::StepBatch,
    /// By orbits: per step of the last [`Search::successors_from`], the
    /// symmetry that takes where it leads to the configuration standing
    /// for its orbit.
    pub(super) symmetries: Vec<usize>,
    /// The configuration whose steps are listed, and a successor's.
    here: Config,
    next: Config,
    /// Its processes' chosen actions and the enabled ones, kept from
    /// configuration to configuration (two allocations each otherwise).
    chosen: (Vec<u16>, Vec<u32>),
    /// Where the program has channels: the views of configurations
    /// listed lately (see [`ViewMemo::loaded`]), a slot each by number,
    /// so that a configuration reached from one of them keeps the views
    /// its step did not touch (the walk opens a configuration from the
    /// one on top of its stack, listed not long before); not by orbits.
    views_seen: Vec<(u32, Vec<u32>)>,
}

/// How many configurations' views the search keeps at once.
const VIEWS_SEEN: usize = 64;

impl<'e, 'a> Search<'e, 'a> {
    pub(super) fn new(ex: &'e Explorer<'a>, daemon: &'e Daemon, fairness: Fairness) -> Self {
        Search {
            ex,
            daemon,
            fairness,
            rel: ex.relation(),
            fast: match (&ex.states, daemon) {
                (_, Daemon::Schedule(_)) => None,
                (States::All(space), _) => {
                    Successors::new(ex.inst, space, ex.local.as_ref(), ex.every_move())
                }
                (States::Reachable { reached, .. }, _) if ex.symmetry.is_none() => {
                    reached.packed().and_then(|kept| {
                        Successors::over_reached(ex.inst, kept.space(), kept, ex.every_move())
                    })
                }
                _ => None,
            },
            transitions: 0,
            threads: rayon::current_num_threads(),
            fault: None,
            lister: Lister::default(),
            views: ViewMemo::new(ex.inst, ex.every_move()).map(|views| {
                match (&ex.states, &ex.symmetry) {
                    (States::Reachable { .. }, None) => {
                        views.with_effects(ex.inst, &ex.states.config(0))
                    }
                    _ => views,
                }
            }),
            encoded: EncodedSteps::default(),
            batch: batch::StepBatch::default(),
            symmetries: Vec::new(),
            here: Config::default(),
            next: Config::default(),
            chosen: Default::default(),
            views_seen: Vec::new(),
        }
    }

    pub(super) fn daemon_name(&self) -> &'static str {
        self.daemon.name()
    }

    /// The daemon searched under.
    pub(super) fn daemon(&self) -> &'e Daemon {
        self.daemon
    }

    /// How many threads the searches may take.
    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// The search on `threads` threads, for tests.
    #[cfg(test)]
    pub(super) fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Which runs are asked about.
    pub(super) fn fairness(&self) -> Fairness {
        self.fairness
    }

    pub(super) fn transitions(&self) -> u64 {
        self.transitions
    }

    fn config(&self, i: u32) -> Config {
        self.ex.states.config(i)
    }

    /// Reads into `out` the steps kept from configuration `i`, where they
    /// were kept and may answer: not where a run stops because an
    /// invariant fails (the slow way says so). Whether they were.
    fn kept_steps_for(&self, i: u32, out: &mut Vec<Succ>) -> bool {
        let stops = self.ex.states.reached_from_a_start() && self.ex.stops_at(i);
        match self.ex.kept_steps.as_ref() {
            Some(kept) if !stops => kept.read(i, out),
            _ => false,
        }
    }

    /// Every step the daemon allows from configuration `i`.
    pub(super) fn edges(&mut self, i: u32) -> Result<Vec<Edge>, Refusal> {
        Ok(self.edges_and_terminal(i)?.0)
    }

    /// [`Search::edges`], and whether no process is enabled there.
    fn edges_and_terminal(&mut self, i: u32) -> Result<(Vec<Edge>, bool), Refusal> {
        let mut out = Vec::new();
        // Where the steps lead, where they were kept: the steps written
        // are then not looked up (the set of codes goes once steps are
        // kept, and a look-up would make it again).
        let mut kept_steps = Vec::new();
        if self.kept_steps_for(i, &mut kept_steps) {
            self.batch.given.extend(kept_steps.iter().map(|s| s.to));
        }
        let terminal = self.each_edge((i, None), true, |to, step, _| {
            out.push(Edge {
                to,
                moves: step.moves.to_vec(),
            })
        });
        self.batch.given.clear();
        Ok((out, terminal?))
    }

    /// Calls `each` with every step the daemon allows from configuration
    /// `i` (where it leads, the step, with its moves where `keep_moves`
    /// asks for them, and the symmetry that takes it there), in order;
    /// whether no process is enabled there.
    fn each_edge(
        &mut self,
        (i, from): (u32, Option<(u32, u64)>),
        keep_moves: bool,
        each: impl FnMut(u32, batch::Passed, usize),
    ) -> Result<bool, Refusal> {
        // From a start, a run stops where an invariant fails.
        if self.ex.states.reached_from_a_start() && self.ex.stops_at(i) {
            return Ok(self.ex.is_terminal(i));
        }
        // Buffers kept from call to call: a configuration with channels
        // has a queue for each, which a copy would allocate anew.
        let mut cfg = std::mem::take(&mut self.here);
        let arena = arena_of(self.ex);
        if cfg.rows.is_empty() {
            cfg = self.config(i);
        } else if let Some(arena) = arena.filter(|_| self.views.is_some()) {
            // What its steps are written from, read with it.
            let arcs = cfg.chans.queues.len();
            (self.encoded).decoded(i, arcs, |packed| {
                arena.get_into_packing(i, &mut cfg, packed)
            });
        } else {
            self.ex.states.config_into(i, &mut cfg);
        }
        let mut next = std::mem::take(&mut self.next);
        let found = self.each_edge_from((i, from), &cfg, (&mut next, keep_moves), each);
        (self.here, self.next) = (cfg, next);
        found
    }

    /// [`Search::each_edge`] of configuration `i`, `cfg`, each successor
    /// built in `next`.
    fn each_edge_from(
        &mut self,
        (i, from): (u32, Option<(u32, u64)>),
        cfg: &Config,
        (next, keep_moves): (&mut Config, bool),
        each: impl FnMut(u32, batch::Passed, usize),
    ) -> Result<bool, Refusal> {
        let fail = |e| Refusal::Runtime(Box::new((e, cfg.clone())));
        let (mut chosen, mut enabled) = std::mem::take(&mut self.chosen);
        let listed = self.list_enabled((i, from), cfg, &mut chosen, &mut enabled);
        let terminal = enabled.is_empty();
        self.chosen = (chosen, enabled);
        listed.map_err(fail)?;
        let Search {
            ex,
            daemon,
            rel,
            lister,
            fault,
            views,
            encoded,
            batch,
            ..
        } = self;
        let arena = arena_of(ex);
        encoded.forget_for(i);
        batch.clear(keep_moves);
        let memo = views.as_ref();
        lister.each_step(daemon, &ex.inst.topo, ex.symmetries(), memo, |moves, at| {
            // Every mover's move remembered: looked up by the step's
            // bytes, with the others' once all are listed.
            if let (Some(views), Some(arena)) = (views.as_ref(), arena) {
                let stride = ex.inst.code.stride;
                if encoded.write((arena, views), cfg, stride, (moves, at), &mut batch.bytes) {
                    return batch.push(batch::Listed::Written, moves);
                }
            }
            let listed = match rel.successor_of_into(cfg, moves, next) {
                Err(e) => batch::Listed::Faults(Box::new((e, moves.to_vec()))),
                Ok(()) => match ex.number_of(next) {
                    Some((to, symmetry)) => batch::Listed::Found(to, symmetry),
                    None => batch::Listed::Outside,
                },
            };
            batch.push(listed, moves);
        })?;
        // A faulting step is a counterexample of its own, and not followed
        // (from a start, the search that reached the configurations
        // recorded it already).
        let record = |e: Box<(_, Vec<Move>)>| {
            let (e, moves) = *e;
            fault.get_or_insert_with(|| (e, i, moves));
        };
        let outside = batch.pass_on(arena, record, each);
        match outside {
            true => Err(super::outside_the_domains()),
            false => Ok(terminal),
        }
    }

    /// Each process's chosen action in `cfg`, configuration `i` (reached
    /// from `from`, see [`Search::successors_from`]), into `chosen`, the
    /// enabled ones into `enabled`, and their moves into the lister.
    fn list_enabled(
        &mut self,
        (i, from): (u32, Option<(u32, u64)>),
        cfg: &Config,
        chosen: &mut Vec<u16>,
        enabled: &mut Vec<u32>,
    ) -> Result<(), crate::runtime::step::RunError> {
        match self.views.as_mut() {
            Some(views) => {
                if self.views_seen.is_empty() {
                    self.views_seen = vec![(u32::MAX, Vec::new()); VIEWS_SEEN];
                }
                // By orbits, a step leads to the configuration standing
                // for where it leads, whose processes may be others.
                let by_orbits = self.ex.symmetries() > 1;
                let before = from.filter(|_| !by_orbits).and_then(|(parent, movers)| {
                    let (seen, before) = &self.views_seen[parent as usize % VIEWS_SEEN];
                    (*seen == parent).then_some((before.as_slice(), movers))
                });
                match before {
                    Some(before) => views.chosen_into_after(&mut self.rel, cfg, chosen, before)?,
                    None => views.chosen_into(&mut self.rel, cfg, chosen)?,
                }
                let (seen, kept) = &mut self.views_seen[i as usize % VIEWS_SEEN];
                *seen = i;
                kept.clear();
                kept.extend_from_slice(views.loaded());
            }
            None => chosen_into(None, &mut self.rel, cfg, chosen)?,
        }
        enabled.clear();
        enabled.extend((0..chosen.len() as u32).filter(|&p| chosen[p as usize] != NO_ACTION));
        let every = self.ex.every_move();
        self.lister
            .load_seen(&mut self.rel, cfg, enabled, every, self.views.as_ref())
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
        if self.kept_steps_for(i, out) {
            return Ok(self.ex.is_terminal(i));
        }
        // From a start, a run stops where an invariant fails: the slow way
        // says so.
        let stops = self.ex.states.reached_from_a_start() && self.ex.stops_at(i);
        if let Some(fast) = self.fast.as_mut().filter(|_| !stops) {
            if let Some(terminal) = fast.load_steps((i, from), self.daemon, out)? {
                return Ok(terminal);
            }
        }
        out.clear();
        let mut symmetries = std::mem::take(&mut self.symmetries);
        symmetries.clear();
        let terminal = self.each_edge((i, from), false, |to, step, symmetry| {
            symmetries.push(symmetry);
            out.push(Succ {
                to,
                moves: step.count,
                movers: step.movers,
            });
        });
        self.symmetries = symmetries;
        terminal
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
                let moves = self.edges(i)?.swap_remove(k).moves;
                found = Some(self.ex.run_to(i, vec![moves]));
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
            let fair = match self.fairness {
                Fairness::Unfair => None,
                _ => super::fairness::fair_cycle(self, ex)?,
            };
            let unfair = fair.is_none() && self.fairness != Fairness::Unfair;
            let (u, cycle) = match fair {
                Some(found) => found,
                None => self.shortest_cycle(at, len)?,
            };
            let (run, cycle_from) = (ex.run_to(u, cycle), ex.states.path_to(u).len() - 1);
            return Ok(if unfair {
                Convergence::HoldsUnderFairness { run, cycle_from }
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
            moves: Some(moves_run),
            rounds,
        })
    }

    /// The depth-first search over the configurations outside legitimacy:
    /// per configuration the most steps to legitimacy (with `weighted`,
    /// the most moves instead), and with `track_moves` the most moves too;
    /// the first deadlock met and the shortest cycle met, if any. On every
    /// thread where it can be, else as one search.
    fn longest(&mut self, weighted: bool, track_moves: bool) -> Result<Longest, Refusal> {
        if let Some((steps, moves, transitions)) = self.longest_on_threads(weighted, track_moves)? {
            self.transitions += transitions;
            return Ok(Longest {
                steps,
                moves,
                deadlock: None,
                cycle: None,
            });
        }
        let (n, count) = (self.ex.count as usize, self.ex.count);
        let what = format!("{}: convergence", self.daemon.name());
        let mut steps = Counts::new(n, UNSEEN);
        for c in self.ex.legit_configs() {
            steps.set(c, 0);
        }
        let mut walk = OneSearch {
            search: self,
            // Per configuration: unseen, on the stack, or the most steps to
            // legitimacy from it (none from a legitimate one); and the most
            // moves, which under the central daemon are the steps.
            steps,
            moves: track_moves.then(|| Counts::new(n, 0)),
            deadlock: None,
            cycle: None,
            finished: 0,
            what,
        };
        let mut walker = Walker::new(weighted);
        // Roots are read from the last root, a few digits away.
        let mut last_root = None;
        for root in 0..count {
            if walk.is_legit(root) {
                continue;
            }
            let from = last_root.map(|r| (r, ANY_CHANGED));
            match walker.walk(&mut walk, root, from) {
                Ok(true) => last_root = Some(root),
                Ok(false) => {}
                Err(Stop::Refused(r)) => return Err(r),
                Err(Stop::GiveUp) => {
                    return Err(Refusal::Unsupported(
                        "the search gave up (an inconsistency in the explorer)".into(),
                    ))
                }
            }
        }
        Ok(Longest {
            steps: walk.steps,
            moves: walk.moves,
            deadlock: walk.deadlock,
            cycle: walk.cycle,
        })
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
        // The worst case is a start's (from starts, theirs only); where no
        // run counts, a run of no steps.
        let starts = ex.states.starts(ex.count);
        let start = worst
            .largest_outside(&ex.legit, starts)
            .or_else(|| (0..starts).find(|&i| legit(i)))
            .unwrap_or(0);
        let mut run = Run {
            start: self.config(start),
            steps: Vec::new(),
            delays: Vec::new(),
        };
        let mut at = start;
        while !legit(at) && worst.get(at) != NO_RUN {
            let want = worst.get(at);
            let edges = self.edges(at)?;
            let next = edges.into_iter().find(|e| {
                let after = if legit(e.to) { 0 } else { worst.get(e.to) };
                after != NO_RUN && cost(e.moves.len() as u32, after) == want
            });
            let Some(e) = next else {
                return Err(Refusal::Unsupported(
                    "the worst case could not be retraced (an inconsistency in the explorer)"
                        .into(),
                ));
            };
            at = e.to;
            run.steps.push(e.moves);
        }
        Ok(run)
    }
}
