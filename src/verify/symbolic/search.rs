//! The questions, answered on diagrams, and the runs that show each
//! answer, made concrete one configuration at a time. From every
//! configuration, or from what starts reach (then a run stops where an
//! invariant fails, each counterexample is a nearest one with a run from
//! a start to it, and the worst cases are the starts').

use super::local::oom;
use super::reach::Reach;
use super::relation::Relation;
use super::steps::moves_between;
use super::{Symbolic, F};
use crate::runtime::daemon::Daemon;
use crate::runtime::step::Move;
use crate::state::Config;
use crate::verify::{Convergence, Engine, Refusal, Run, Starts, Verdict};
use oxidd::BooleanFunction;

/// The verdict of `sym` under `daemon`, from every configuration or from
/// `starts`; with `weak_fairness`, about weakly fair runs only.
pub(super) fn verify(
    sym: &Symbolic,
    daemon: &Daemon,
    starts: Option<&Starts>,
    weak_fairness: bool,
) -> Result<Verdict, Refusal> {
    let enc = &sym.enc;
    let every_step = Relation::new(enc, &sym.procs, &sym.inst.topo, daemon)?;
    let (rel, reach, stops) = match starts {
        None => (every_step, None, enc.falsity()),
        Some(starts) => {
            let starts = sym.starts(starts)?;
            let goes_on = sym.broken.not().map_err(oom)?;
            let rel = every_step.leaving_only(&goes_on).map_err(oom)?;
            let reach = Reach::new(sym, &rel, starts.clone())?;
            (rel, Some((reach, starts)), sym.broken.clone())
        }
    };
    let (scope, starts) = match &reach {
        Some((r, s)) => (r.all.clone(), s.clone()),
        None => (enc.universe.clone(), enc.universe.clone()),
    };
    let ask = Asker {
        sym,
        rel: &rel,
        daemon,
        reach: reach.as_ref().map(|(r, _)| r),
        stops,
        scope,
        starts,
        weak_fairness,
    };
    let name = daemon.name();
    sym.note(&format!("{name}: closure (symbolic)"), 0)?;
    let legit = sym.legit.and(&ask.scope).map_err(oom)?;
    let outside = ask.scope.and(&sym.legit.not().map_err(oom)?).map_err(oom)?;
    let leaving = legit
        .and(&rel.pre(enc, &outside).map_err(oom)?)
        .map_err(oom)?;
    let closure = match ask.nearest(&leaving)? {
        Some(from) => {
            let to = ask.successor_in(&from, &outside)?;
            Some(ask.run_to(from, &[to], &[])?)
        }
        None => None,
    };
    let convergence = match sym.declared {
        true => ask.convergence(&outside)?,
        false => {
            let stuck = sym.terminal.and(&ask.goes_on()?).map_err(oom)?;
            let deadlock = match ask.nearest(&stuck)? {
                Some(at) => Some(ask.run_to(at, &[], &[])?),
                None => None,
            };
            Convergence::NotDeclared { deadlock }
        }
    };
    let central = matches!(daemon, Daemon::Central);
    let convergence = match convergence {
        Convergence::Holds { steps, .. } if central => Convergence::Holds {
            moves: Some(steps.clone()),
            steps,
            rounds: None,
        },
        other => other,
    };
    // Each value of what a process reads is in as many configurations as
    // any other (from every configuration). Past 2^64, not counted.
    let transitions = (central && ask.reach.is_none() && sym.configurations < u128::MAX)
        .then(|| {
            sym.procs.iter().try_fold(0u128, |sum, pr| {
                let each = sym.configurations / pr.valuations.max(1);
                sum.checked_add(pr.moves_listed.checked_mul(each)?)
            })
        })
        .flatten()
        .and_then(|total| u64::try_from(total).ok());
    let fairness = match weak_fairness {
        true => super::super::Fairness::Weak,
        false => super::super::Fairness::Unfair,
    };
    let properties = match sym.properties {
        true => super::properties::check(&ask, fairness)?,
        false => Vec::new(),
    };
    let (configurations, legitimate) = match ask.reach {
        None => (sym.configurations, sym.legitimate),
        Some(_) => (enc.count(&ask.scope), enc.count(&legit)),
    };
    Ok(Verdict {
        daemon: daemon.clone(),
        fairness,
        configurations: u64::try_from(configurations).unwrap_or(u64::MAX),
        legitimate: u64::try_from(legitimate).unwrap_or(u64::MAX),
        transitions,
        invariant: ask.invariant()?,
        closure,
        fault: ask.fault()?,
        convergence,
        rounds_asked: false,
        choices: sym.choices,
        may_choose: sym.inst.code.may_choose(),
        draws: sym.inst.code.has_random,
        symmetries: 1,
        for_good: None,
        engine: Engine::Symbolic,
        nodes: Some(sym.nodes()),
        properties,
    })
}

/// The questions under one daemon.
pub(super) struct Asker<'s> {
    pub(super) sym: &'s Symbolic<'s>,
    pub(super) rel: &'s Relation,
    pub(super) daemon: &'s Daemon,
    /// What the starts reach, from starts.
    reach: Option<&'s Reach>,
    /// Where a run stops though some process is enabled: from a start,
    /// where an invariant fails (none from every configuration).
    stops: F,
    /// The configurations asked about: those reached, or every one.
    pub(super) scope: F,
    /// Those whose worst cases count: the starts, or every one.
    starts: F,
    weak_fairness: bool,
}

impl Asker<'_> {
    /// A run from `start` through `rest`, each step's moves found; the
    /// i-th step with `movers[i]` among its movers where it says so.
    pub(super) fn run(
        &self,
        start: Config,
        rest: &[Config],
        movers: &[Option<usize>],
    ) -> Result<Run, Refusal> {
        let every = self.sym.every_move();
        let mut steps = Vec::with_capacity(rest.len());
        let mut from = &start;
        for (i, to) in rest.iter().enumerate() {
            let mover = movers.get(i).copied().flatten();
            let moves = moves_between(self.sym.inst, self.daemon, every, (from, to), mover)
                .map_err(|e| Refusal::Runtime(Box::new((e, from.clone()))))?
                .ok_or_else(|| {
                    Refusal::Unsupported(
                        "internal: the diagrams relate two configurations the step relation does not (please report it)".into(),
                    )
                })?;
            steps.push(moves);
            from = to;
        }
        Ok(Run {
            start,
            steps,
            delays: Vec::new(),
        })
    }

    /// [`Asker::run`] from `at` on, from a start: a shortest run from one
    /// to `at` first.
    pub(super) fn run_to(
        &self,
        at: Config,
        rest: &[Config],
        movers: &[Option<usize>],
    ) -> Result<Run, Refusal> {
        let Some(reach) = self.reach else {
            return self.run(at, rest, movers);
        };
        let (start, mut path) = reach.path_to(&self.sym.enc, self.rel, &at)?;
        let before = vec![None; path.len()];
        path.extend_from_slice(rest);
        self.run(start, &path, &[before.as_slice(), movers].concat())
    }

    /// How many steps a run to `at` from a start takes (none from every
    /// configuration): where a cycle entered at `at` begins in its run.
    pub(super) fn steps_to(&self, at: &Config) -> Result<usize, Refusal> {
        match self.reach {
            Some(reach) => Ok(reach.path_to(&self.sym.enc, self.rel, at)?.1.len()),
            None => Ok(0),
        }
    }

    /// A configuration of `set` (in scope), from a start a nearest one.
    pub(super) fn nearest(&self, set: &F) -> Result<Option<Config>, Refusal> {
        let enc = &self.sym.enc;
        match self.reach {
            Some(reach) => reach.nearest(enc, set),
            None => enc.first(set).map_err(oom),
        }
    }

    /// The configurations in scope that a run goes on from.
    fn goes_on(&self) -> Result<F, Refusal> {
        self.scope.and(&self.stops.not().map_err(oom)?).map_err(oom)
    }

    /// A configuration in `within` that a step from `from` leads to.
    pub(super) fn successor_in(&self, from: &Config, within: &F) -> Result<Config, Refusal> {
        let enc = &self.sym.enc;
        let next = self
            .rel
            .post(enc, &enc.single(from).map_err(oom)?)
            .map_err(oom)?;
        let next = next.and(within).map_err(oom)?;
        enc.first(&next).map_err(oom)?.ok_or_else(|| {
            Refusal::Unsupported(
                "internal: no successor where the diagrams said one (please report it)".into(),
            )
        })
    }

    /// The first configuration where an invariant fails, and which.
    fn invariant(&self) -> Result<Option<(String, Run)>, Refusal> {
        let sym = self.sym;
        let broken = sym.broken.and(&self.scope).map_err(oom)?;
        let Some(at) = self.nearest(&broken)? else {
            return Ok(None);
        };
        let rel = sym.inst.step_relation();
        let name = rel
            .violated_invariant(&at)
            .map_err(|e| Refusal::Runtime(Box::new((e, at.clone()))))?
            .unwrap_or_default()
            .to_string();
        Ok(Some((name, self.run_to(at, &[], &[])?)))
    }

    /// The first configuration where a step faults, that step and its fault.
    fn fault(&self) -> Result<Option<(crate::runtime::step::RunError, Run)>, Refusal> {
        let sym = self.sym;
        let faults = sym.faults.and(&self.goes_on()?).map_err(oom)?;
        let Some(at) = self.nearest(&faults)? else {
            return Ok(None);
        };
        let mut rel = sym.inst.step_relation();
        let fail = |e| Refusal::Runtime(Box::new((e, at.clone())));
        // Every process's moves, listed once.
        let mut all: Vec<Vec<Move>> = Vec::with_capacity(sym.inst.topo.n());
        for p in 0..sym.inst.topo.n() {
            let mut listed = Vec::new();
            rel.moves_into(&at, p, sym.every_move(), &mut listed)
                .map_err(fail)?;
            all.push(listed);
        }
        for (p, listed) in all.iter().enumerate() {
            for m in listed {
                let m = m.clone();
                let step: Vec<Move> = match self.daemon {
                    // Every enabled process moves: the others their first move.
                    Daemon::Synchronous => all
                        .iter()
                        .enumerate()
                        .filter_map(|(q, moves)| match q == p {
                            true => Some(m.clone()),
                            false => moves.first().cloned(),
                        })
                        .collect(),
                    _ => vec![m],
                };
                if let Err(e) = rel.successor_of(&at, &step) {
                    let mut run = self.run_to(at.clone(), &[], &[])?;
                    run.steps.push(step);
                    return Ok(Some((e, run)));
                }
            }
        }
        Ok(None)
    }

    /// Convergence from the configurations in scope outside legitimacy
    /// (`outside`).
    fn convergence(&self, outside: &F) -> Result<Convergence, Refusal> {
        let (sym, enc) = (self.sym, &self.sym.enc);
        let stuck = outside
            .and(&sym.terminal)
            .map_err(oom)?
            .and(&self.stops.not().map_err(oom)?)
            .map_err(oom)?;
        if let Some(at) = self.nearest(&stuck)? {
            return Ok(Convergence::Deadlock(self.run_to(at, &[], &[])?));
        }
        let moving = outside
            .and(&sym.terminal.not().map_err(oom)?)
            .map_err(oom)?;
        // layers[k]: every run from there is legitimate within k steps (or
        // stops short of it, where it has no step).
        let mut layers = vec![sym.legit.clone()];
        let name = self.daemon.name();
        loop {
            let k = layers.len() as u64;
            sym.note(&format!("{name}: layer {k} (symbolic)"), k)?;
            let last = &layers[layers.len() - 1];
            let beyond = enc.universe.and(&last.not().map_err(oom)?).map_err(oom)?;
            let escapes = self.rel.pre(enc, &beyond).map_err(oom)?;
            let next = moving
                .and(&escapes.not().map_err(oom)?)
                .map_err(oom)?
                .or(last)
                .map_err(oom)?;
            if &next == last {
                break;
            }
            layers.push(next);
        }
        let last = layers.last().cloned().unwrap_or_else(|| enc.falsity());
        let rest = self.scope.and(&last.not().map_err(oom)?).map_err(oom)?;
        if rest.satisfiable() {
            drop(layers);
            return self.cycle(&rest);
        }
        let dead_ends = sym
            .faults
            .or(&self.stops)
            .map_err(oom)?
            .and(outside)
            .map_err(oom)?;
        let (from, targets) = if dead_ends.satisfiable() {
            // Where a run stops short of legitimacy (every move of a
            // process faults, or an invariant fails), the layers count the
            // stop as an arrival: the most steps are those of the longest
            // path to legitimacy.
            let mut paths = self.paths_to_legitimacy(outside)?;
            let k = (0..paths.len())
                .rev()
                .find(|&k| paths[k].and(&self.starts).is_ok_and(|s| s.satisfiable()))
                .unwrap_or(0);
            paths.truncate(k + 1);
            let from = paths.pop().unwrap_or_else(|| sym.legit.clone());
            paths.reverse();
            (from, paths)
        } else {
            // From the first layer that holds every start, each step into
            // the layer before: a step from layer i + 1 that leaves layer
            // i - 1 lands in layer i.
            let k = self.first_holding_the_starts(&layers)?;
            let from = match k {
                0 => layers[0].clone(),
                _ => layers[k]
                    .and(&layers[k - 1].not().map_err(oom)?)
                    .map_err(oom)?,
            };
            let mut targets = Vec::with_capacity(k);
            for i in (0..k).rev() {
                targets.push(match i {
                    0 => layers[0].clone(),
                    _ => layers[i - 1].not().map_err(oom)?,
                });
            }
            (from.and(&self.starts).map_err(oom)?, targets)
        };
        drop(layers);
        let moves = match self.daemon {
            Daemon::Synchronous if sym.synchronous_moves && !dead_ends.satisfiable() => {
                let successor_in = |at: &Config, within: &F| self.successor_in(at, within);
                let (start, path) = super::moves::most_moves_synchronous(
                    sym,
                    self.rel,
                    (&moving, &self.scope, &self.starts),
                    &successor_in,
                )?;
                Some(self.run(start, &path, &[])?)
            }
            _ => None,
        };
        Ok(Convergence::Holds {
            steps: self.run_through(&from, &targets)?,
            moves,
            rounds: None,
        })
    }

    /// The first of `layers` (the last holds every configuration in
    /// scope) that holds every start.
    fn first_holding_the_starts(&self, layers: &[F]) -> Result<usize, Refusal> {
        let mut k = layers.len() - 1;
        while k > 0
            && !self
                .starts
                .and(&layers[k - 1].not().map_err(oom)?)
                .map_err(oom)?
                .satisfiable()
        {
            k -= 1;
        }
        Ok(k)
    }

    /// Sets of configurations: the k-th, those with a path of k steps
    /// outside legitimacy (`outside`) into it (the 0-th, legitimacy),
    /// up to the last not empty: there are no cycles outside legitimacy,
    /// so the paths end.
    fn paths_to_legitimacy(&self, outside: &F) -> Result<Vec<F>, Refusal> {
        let (sym, enc) = (self.sym, &self.sym.enc);
        let mut paths = vec![sym.legit.clone()];
        loop {
            let k = paths.len() as u64;
            let what = format!("{}: paths of {k} steps (symbolic)", self.daemon.name());
            sym.note(&what, k)?;
            let longer = self
                .rel
                .pre(enc, &paths[paths.len() - 1])
                .map_err(oom)?
                .and(outside)
                .map_err(oom)?;
            if !longer.satisfiable() {
                return Ok(paths);
            }
            paths.push(longer);
        }
    }

    /// A run from the first configuration of `from`, its i-th step into
    /// `targets[i]`.
    fn run_through(&self, from: &F, targets: &[F]) -> Result<Run, Refusal> {
        let enc = &self.sym.enc;
        let start = enc.first(from).map_err(oom)?.ok_or_else(|| {
            Refusal::Unsupported("internal: an empty layer (please report it)".into())
        })?;
        let mut path = Vec::with_capacity(targets.len());
        let mut at = start.clone();
        for within in targets {
            at = self.successor_in(&at, within)?;
            path.push(at.clone());
        }
        self.run(start, &path, &[])
    }

    /// Where some run never reaches legitimacy (from every configuration
    /// of `rest`, one can stay in it for ever): a cycle in it, under weak
    /// fairness a fair one where there is one.
    fn cycle(&self, rest: &F) -> Result<Convergence, Refusal> {
        // Under the synchronous daemon every enabled process moves at
        // every step: every cycle is fair.
        let weakly = self.weak_fairness && !matches!(self.daemon, Daemon::Synchronous);
        if weakly {
            let fairness = super::fair::Fairness::new(self)?;
            let fair = super::fair::fair_states(self, &fairness, rest)?;
            if let Some(at) = self.nearest(&fair)? {
                let cycle = super::fair::fair_cycle(self, &fairness, at, &fair)?;
                return self.cycle_run(cycle.on, &cycle.steps, &cycle.movers, false);
            }
        }
        let at = self.nearest(rest)?.ok_or_else(|| {
            Refusal::Unsupported("internal: an empty set of cycles (please report it)".into())
        })?;
        let (on, cycle) = self.shortest_cycle(at, rest)?;
        self.cycle_run(on, &cycle, &[], weakly)
    }

    /// A run to `on` (from a start) and once round `cycle` (its steps from
    /// `on` back to it); `unfair`: the cycle is not weakly fair, and every
    /// fair run converges.
    fn cycle_run(
        &self,
        on: Config,
        cycle: &[Config],
        movers: &[Option<usize>],
        unfair: bool,
    ) -> Result<Convergence, Refusal> {
        let cycle_from = self.steps_to(&on)?;
        let before = vec![None; cycle_from];
        let run = self.run_to(on, cycle, &[before.as_slice(), movers].concat())?;
        Ok(match unfair {
            true => Convergence::HoldsUnderFairness { run, cycle_from },
            false => Convergence::Cycle { run, cycle_from },
        })
    }

    /// A cycle outside legitimacy from `at`, whose runs all stay in
    /// `rest`: walk until a configuration repeats, then the shortest cycle
    /// through it: that configuration, and the cycle's steps back to it.
    fn shortest_cycle(&self, at: Config, rest: &F) -> Result<(Config, Vec<Config>), Refusal> {
        let enc = &self.sym.enc;
        let mut seen = std::collections::HashSet::new();
        let mut on = at;
        while seen.insert(on.rows.clone()) {
            on = self.successor_in(&on, rest)?;
        }
        let back = self
            .walk_within(&on, &enc.single(&on).map_err(oom)?, rest)?
            .ok_or_else(|| {
                Refusal::Unsupported("internal: a broken cycle (please report it)".into())
            })?;
        Ok((on, back))
    }

    /// A shortest walk of at least one step from `from` into `to`, every
    /// configuration after `from` in `within`: the configurations after
    /// each step, if there is one.
    pub(super) fn walk_within(
        &self,
        from: &Config,
        to: &F,
        within: &F,
    ) -> Result<Option<Vec<Config>>, Refusal> {
        let enc = &self.sym.enc;
        let mut seen = enc.single(from).map_err(oom)?;
        let mut frontiers = vec![seen.clone()];
        loop {
            let last = &frontiers[frontiers.len() - 1];
            let next = self
                .rel
                .post(enc, last)
                .map_err(oom)?
                .and(within)
                .map_err(oom)?;
            let there = next.and(to).map_err(oom)?;
            if let Some(end) = enc.first(&there).map_err(oom)? {
                return self.back_through(&frontiers, end).map(Some);
            }
            let new = next.and(&seen.not().map_err(oom)?).map_err(oom)?;
            if !new.satisfiable() {
                return Ok(None);
            }
            seen = seen.or(&new).map_err(oom)?;
            frontiers.push(new);
        }
    }

    /// The walk to `end`, a step from the last of `frontiers`, back
    /// through them to the first (not included).
    fn back_through(&self, frontiers: &[F], end: Config) -> Result<Vec<Config>, Refusal> {
        let enc = &self.sym.enc;
        let mut back = vec![end];
        for frontier in frontiers.iter().skip(1).rev() {
            let to = enc.single(&back[back.len() - 1]).map_err(oom)?;
            let before = self
                .rel
                .pre(enc, &to)
                .map_err(oom)?
                .and(frontier)
                .map_err(oom)?;
            let cfg = enc.first(&before).map_err(oom)?.ok_or_else(|| {
                Refusal::Unsupported("internal: a broken walk (please report it)".into())
            })?;
            back.push(cfg);
        }
        back.reverse();
        Ok(back)
    }
}
