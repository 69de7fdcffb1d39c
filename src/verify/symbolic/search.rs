//! The questions, answered on diagrams, and the runs that show each
//! answer, made concrete one configuration at a time.

use super::local::oom;
use super::relation::Relation;
use super::steps::moves_between;
use super::{Symbolic, F};
use crate::runtime::daemon::Daemon;
use crate::runtime::step::Move;
use crate::state::Config;
use crate::verify::{Convergence, Engine, Refusal, Run, Verdict};
use oxidd::BooleanFunction;

/// The verdict of `sym` under `daemon`.
pub(super) fn verify(sym: &Symbolic, daemon: &Daemon) -> Result<Verdict, Refusal> {
    let enc = &sym.enc;
    let rel = Relation::new(enc, &sym.procs, &sym.inst.topo, daemon)?;
    let ask = Asker {
        sym,
        rel: &rel,
        daemon,
    };
    let name = daemon.name();
    sym.note(&format!("{name}: closure (symbolic)"), 0)?;
    let outside = enc
        .universe
        .and(&sym.legit.not().map_err(oom)?)
        .map_err(oom)?;
    let leaving = sym
        .legit
        .and(&rel.pre(enc, &outside).map_err(oom)?)
        .map_err(oom)?;
    let closure = match enc.first(&leaving).map_err(oom)? {
        Some(from) => {
            let to = ask.successor_in(&from, &outside)?;
            Some(ask.run(from, &[to])?)
        }
        None => None,
    };
    let convergence = ask.convergence(&outside)?;
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
    // any other. Past 2^64, not counted.
    let transitions = (central && sym.configurations < u128::MAX)
        .then(|| {
            sym.procs.iter().try_fold(0u128, |sum, pr| {
                let each = sym.configurations / pr.valuations.max(1);
                sum.checked_add(pr.moves_listed.checked_mul(each)?)
            })
        })
        .flatten()
        .and_then(|total| u64::try_from(total).ok());
    Ok(Verdict {
        daemon: daemon.clone(),
        weak_fairness: false,
        configurations: u64::try_from(sym.configurations).unwrap_or(u64::MAX),
        legitimate: u64::try_from(sym.legitimate).unwrap_or(u64::MAX),
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
    })
}

/// The questions under one daemon.
struct Asker<'s> {
    sym: &'s Symbolic<'s>,
    rel: &'s Relation,
    daemon: &'s Daemon,
}

impl Asker<'_> {
    /// A run from `start` through `rest`, each step's moves found.
    fn run(&self, start: Config, rest: &[Config]) -> Result<Run, Refusal> {
        let every = self.sym.every_move();
        let mut steps = Vec::with_capacity(rest.len());
        let mut from = &start;
        for to in rest {
            let moves = moves_between(self.sym.inst, self.daemon, every, from, to)
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

    /// A configuration in `within` that a step from `from` leads to.
    fn successor_in(&self, from: &Config, within: &F) -> Result<Config, Refusal> {
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
        let (sym, enc) = (self.sym, &self.sym.enc);
        let mut broken = enc.falsity();
        for inv in &sym.invariants {
            broken = broken.or(&inv.not().map_err(oom)?).map_err(oom)?;
        }
        let Some(at) = enc.first(&broken).map_err(oom)? else {
            return Ok(None);
        };
        let rel = sym.inst.step_relation();
        let name = rel
            .violated_invariant(&at)
            .map_err(|e| Refusal::Runtime(Box::new((e, at.clone()))))?
            .unwrap_or_default()
            .to_string();
        Ok(Some((name, self.run(at, &[])?)))
    }

    /// The first configuration where a step faults, that step and its fault.
    fn fault(&self) -> Result<Option<(crate::runtime::step::RunError, Run)>, Refusal> {
        let sym = self.sym;
        let Some(at) = sym.enc.first(&sym.faults).map_err(oom)? else {
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
                    let run = Run {
                        start: at.clone(),
                        steps: vec![step],
                        delays: Vec::new(),
                    };
                    return Ok(Some((e, run)));
                }
            }
        }
        Ok(None)
    }

    /// Convergence from every configuration outside legitimacy (`outside`).
    fn convergence(&self, outside: &F) -> Result<Convergence, Refusal> {
        let (sym, enc) = (self.sym, &self.sym.enc);
        let stuck = outside.and(&sym.terminal).map_err(oom)?;
        if let Some(at) = enc.first(&stuck).map_err(oom)? {
            return Ok(Convergence::Deadlock(self.run(at, &[])?));
        }
        let moving = outside
            .and(&sym.terminal.not().map_err(oom)?)
            .map_err(oom)?;
        // layers[k]: every run from there is legitimate within k steps.
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
        let rest = enc.universe.and(&last.not().map_err(oom)?).map_err(oom)?;
        if let Some(at) = enc.first(&rest).map_err(oom)? {
            return self.cycle(at, &rest);
        }
        let (from, targets) = if sym.faults.satisfiable() {
            // Where a process's every move faults, a run stops short of
            // legitimacy: the layers count those stops as arrivals, so
            // the most steps are those of the longest path to legitimacy.
            let mut paths = self.paths_to_legitimacy(outside)?;
            let from = paths.pop().unwrap_or_else(|| sym.legit.clone());
            paths.reverse();
            (from, paths)
        } else {
            // From the last layer, each step into the layer before: a step
            // from layer i + 1 that leaves layer i - 1 lands in layer i.
            let k = layers.len() - 1;
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
            (from, targets)
        };
        drop(layers);
        let moves = match self.daemon {
            Daemon::Synchronous if sym.synchronous_moves && !sym.faults.satisfiable() => {
                let successor_in = |at: &Config, within: &F| self.successor_in(at, within);
                let (start, path) =
                    super::moves::most_moves_synchronous(sym, self.rel, &moving, &successor_in)?;
                Some(self.run(start, &path)?)
            }
            _ => None,
        };
        Ok(Convergence::Holds {
            steps: self.run_through(&from, &targets)?,
            moves,
            rounds: None,
        })
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
        self.run(start, &path)
    }

    /// A cycle outside legitimacy from `at`, whose runs all stay in
    /// `rest`: walk until a configuration repeats, then the shortest cycle
    /// through it.
    fn cycle(&self, at: Config, rest: &F) -> Result<Convergence, Refusal> {
        let enc = &self.sym.enc;
        let mut seen = std::collections::HashSet::new();
        let mut on = at;
        while seen.insert(on.rows.clone()) {
            on = self.successor_in(&on, rest)?;
        }
        // Breadth first from `on` within `rest` until it comes back.
        let single = enc.single(&on).map_err(oom)?;
        let mut frontiers = vec![single.clone()];
        loop {
            let last = &frontiers[frontiers.len() - 1];
            let next = self
                .rel
                .post(enc, last)
                .map_err(oom)?
                .and(rest)
                .map_err(oom)?;
            if next.and(&single).map_err(oom)?.satisfiable() {
                break;
            }
            frontiers.push(next);
        }
        // Back from `on` through the frontiers.
        let mut back = Vec::with_capacity(frontiers.len());
        let mut to = on.clone();
        for frontier in frontiers.iter().skip(1).rev() {
            let before = self
                .rel
                .pre(enc, &enc.single(&to).map_err(oom)?)
                .map_err(oom)?
                .and(frontier)
                .map_err(oom)?;
            to = enc.first(&before).map_err(oom)?.ok_or_else(|| {
                Refusal::Unsupported("internal: a broken cycle (please report it)".into())
            })?;
            back.push(to.clone());
        }
        back.reverse();
        back.push(on.clone());
        Ok(Convergence::Cycle {
            run: self.run(on, &back)?,
            cycle_from: 0,
        })
    }
}
