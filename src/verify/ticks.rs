//! Exhaustive exploration of a program that runs in ticks
//! ([`crate::runtime::tick`]): from a start, every configuration reachable
//! tick by tick under every delay its messages may take, through the tick
//! relation, the definition runs use too. Within a tick nothing is
//! chosen (each process makes its moves in the documented order), so the
//! delays are all that varies from run to run.
//!
//! The configurations are numbered breadth first (so the way to each is a
//! shortest one); then the same properties as under a daemon: invariants,
//! faults, closure of legitimacy, and convergence, with the most ticks and
//! the most moves any run takes to reach legitimacy, or a shortest way to
//! a configuration it is stuck outside of, or into a cycle outside it.

use super::fair_cores::{components, inside_steps, StepTable, ANY_MOVERS};
use super::{max_reachable_bytes, PROGRESS_EVERY};
use super::{Choices, Convergence, Progress, Refusal, Run, Verdict};
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::{Move, RunError};
use crate::runtime::tick::{TickRelation, TickSuccessor};
use crate::state::channels::Msg;
use crate::state::Config;
use std::collections::{HashMap, VecDeque};

/// A tick from a configuration: where it leads, and its messages' delays.
struct Edge {
    to: u32,
    delays: Box<[u16]>,
}

/// The configurations reached and what each says.
struct Reached {
    configs: Vec<Config>,
    /// The tick that found each (configuration, its place among the
    /// ticks from there); the start has none.
    parent: Vec<Option<(u32, u32)>>,
    edges: Vec<Vec<Edge>>,
    /// How many moves each configuration's tick makes.
    moves: Vec<u32>,
    legit: Vec<bool>,
    /// No process has anything to do, no message is on its way, no timer
    /// can advance: nothing will happen.
    silent: Vec<bool>,
    invariant: Option<(String, u32)>,
    fault: Option<(RunError, u32)>,
    transitions: u64,
}

/// Explores a program that runs in ticks from `start` (every delay of
/// every message), and checks the properties a verdict reports.
pub fn verify_ticks(
    inst: &Instance,
    start: Config,
    progress: Option<Progress>,
) -> Result<Verdict, Refusal> {
    if inst.prog.draws {
        return Err(Refusal::Unsupported(
            "the program draws at random and runs in ticks: verify explores the delays of a tick, not yet its draws; measure it with `guarded run` and `guarded sweep`".into(),
        ));
    }
    let mut rel = TickRelation::new(&inst.prog, &inst.code, &inst.topo, &start);
    let reached = reach(inst, &mut rel, start, progress)?;
    let declared = inst.prog.legitimate.is_some();
    let run = |i: u32, rel: &mut TickRelation| reached.run_to(rel, i, &[]);
    let invariant = match &reached.invariant {
        Some((name, i)) => Some((name.clone(), run(*i, &mut rel)?)),
        None => None,
    };
    let fault = match &reached.fault {
        Some((e, i)) => Some((e.clone(), run(*i, &mut rel)?)),
        None => None,
    };
    let closure = match declared.then(|| reached.leaving_legitimacy()).flatten() {
        Some((i, k)) => Some(reached.run_to(&mut rel, i, &[k])?),
        None => None,
    };
    let convergence = reached.convergence(&mut rel, declared)?;
    let for_good = match (&closure, &convergence) {
        (Some(_), Convergence::Holds { .. }) => Some(reached.for_good(&mut rel)?),
        _ => None,
    };
    Ok(Verdict {
        for_good,
        daemon: Daemon::Ticks,
        fairness: super::Fairness::Unfair,
        configurations: reached.configs.len() as u64,
        legitimate: reached.legit.iter().filter(|&&l| l).count() as u64,
        transitions: Some(reached.transitions),
        invariant,
        closure,
        fault,
        convergence,
        rounds_asked: false,
        choices: Choices::First,
        may_choose: false,
        draws: false,
        engine: super::Engine::Explicit,
        nodes: None,
        properties: Vec::new(),
        symmetries: 1,
    })
}

/// Every configuration reachable from `start`, breadth first.
fn reach(
    inst: &Instance,
    rel: &mut TickRelation,
    mut start: Config,
    progress: Option<Progress>,
) -> Result<Reached, Refusal> {
    // Messages numbered receiver by receiver, as the search in rounds
    // keeps them: only a process's own messages' order is read.
    let receivers = crate::state::channels::Channels::receivers(&inst.topo);
    start.chans.canonicalize_by_receiver(&receivers);
    let step_rel = inst.step_relation();
    let runtime = |e: RunError, cfg: &Config| Refusal::Runtime(Box::new((e, cfg.clone())));
    let mut r = Reached {
        configs: vec![start.clone()],
        parent: vec![None],
        edges: Vec::new(),
        moves: Vec::new(),
        legit: Vec::new(),
        silent: Vec::new(),
        invariant: None,
        fault: None,
        transitions: 0,
    };
    let mut index: HashMap<Config, u32> = HashMap::from([(start, 0)]);
    let mut bytes = 0usize;
    let mut next: Vec<TickSuccessor> = Vec::new();
    let mut i = 0;
    while i < r.configs.len() {
        if (i as u64).is_multiple_of(PROGRESS_EVERY) {
            let told = progress.is_none_or(|p| p("reaching", i as u64, 0));
            if !told {
                return Err(Refusal::Interrupted);
            }
        }
        let cfg = r.configs[i].clone();
        let legit = step_rel.legitimate(&cfg).map_err(|e| runtime(e, &cfg))?;
        r.legit.push(legit == Some(true));
        let broken = step_rel
            .violated_invariant(&cfg)
            .map_err(|e| runtime(e, &cfg))?;
        let silent = rel.is_silent(&cfg).map_err(|e| runtime(e, &cfg))?;
        r.silent.push(silent && broken.is_none());
        let mut edges = Vec::new();
        let mut moves = 0;
        if let (Some(name), None) = (broken, &r.invariant) {
            r.invariant = Some((name.to_string(), i as u32));
        }
        // A run stops where an invariant fails, and nothing happens once silent.
        if broken.is_none() && !silent {
            match rel.successors(&cfg, &mut next) {
                Err(e) => {
                    if r.fault.is_none() {
                        r.fault = Some((e, i as u32));
                    }
                }
                Ok(made) => moves = made.len() as u32,
            }
        }
        for (mut succ, delays) in next.drain(..) {
            succ.chans.canonicalize_by_receiver(&receivers);
            r.transitions += 1;
            let to = match index.get(&succ) {
                Some(&j) => j,
                None => {
                    let j = r.configs.len() as u32;
                    bytes += 2 * config_bytes(&succ);
                    if bytes > max_reachable_bytes() || j == u32::MAX {
                        return Err(Refusal::TooManyReached(r.configs.len() as u64));
                    }
                    index.insert(succ.clone(), j);
                    r.configs.push(succ);
                    r.parent.push(Some((i as u32, edges.len() as u32)));
                    j
                }
            };
            edges.push(Edge {
                to,
                delays: delays.into(),
            });
        }
        r.edges.push(edges);
        r.moves.push(moves);
        i += 1;
    }
    Ok(r)
}

/// About the bytes a configuration takes, kept whole.
fn config_bytes(c: &Config) -> usize {
    let msgs: usize = c.chans.queues.iter().map(|q| q.len()).sum();
    64 + c.rows.len() * 8 + c.chans.queues.len() * 32 + msgs * std::mem::size_of::<Msg>()
}

impl Reached {
    /// A shortest run to configuration `i`, then the ticks `then` (places
    /// among the ticks from `i`, each from where the previous led).
    fn run_to(&self, rel: &mut TickRelation, i: u32, then: &[u32]) -> Result<Run, Refusal> {
        let mut hops: Vec<(u32, u32)> = Vec::new();
        let mut at = i;
        while let Some((from, k)) = self.parent[at as usize] {
            hops.push((from, k));
            at = from;
        }
        hops.reverse();
        let mut at = i;
        for &k in then {
            hops.push((at, k));
            at = self.edges[at as usize][k as usize].to;
        }
        let mut run = Run {
            start: self.configs[0].clone(),
            steps: Vec::new(),
            delays: Vec::new(),
        };
        let mut scratch = Vec::new();
        for (from, k) in hops {
            let cfg = &self.configs[from as usize];
            let moves = rel
                .successors(cfg, &mut scratch)
                .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
            run.steps
                .push(moves.iter().map(|&(p, a)| Move::first(p, a)).collect());
            run.delays
                .push(self.edges[from as usize][k as usize].delays.to_vec());
        }
        Ok(run)
    }

    /// The first tick (configuration, place) from a legitimate
    /// configuration to one that is not.
    fn leaving_legitimacy(&self) -> Option<(u32, u32)> {
        (0..self.configs.len()).find_map(|i| {
            let out = self.edges[i]
                .iter()
                .position(|e| !self.legit[e.to as usize]);
            (self.legit[i] && out.is_some()).then(|| (i as u32, out.unwrap_or(0) as u32))
        })
    }

    fn convergence(&self, rel: &mut TickRelation, declared: bool) -> Result<Convergence, Refusal> {
        let stuck = (0..self.configs.len()).find(|&i| self.silent[i] && !self.legit[i]);
        if !declared {
            return Ok(Convergence::NotDeclared {
                deadlock: stuck.map(|i| self.run_to(rel, i as u32, &[])).transpose()?,
            });
        }
        if let Some(i) = stuck {
            return Ok(Convergence::Deadlock(self.run_to(rel, i as u32, &[])?));
        }
        if let Some((at, cycle)) = self.cycle_outside() {
            let run = self.run_to(rel, at, &cycle)?;
            let cycle_from = run.steps.len() - cycle.len();
            return Ok(Convergence::Cycle { run, cycle_from });
        }
        let (steps, moves) = self.worst();
        let worst_run = |by: &[u64], weight: &dyn Fn(u32) -> u64, rel: &mut TickRelation| {
            let mut then = Vec::new();
            let mut at = 0u32;
            while !self.legit[at as usize] && !self.edges[at as usize].is_empty() {
                let want = by[at as usize] - weight(at);
                let k = self.edges[at as usize]
                    .iter()
                    .position(|e| by[e.to as usize] == want)
                    .expect("a successor gives the longest way");
                then.push(k as u32);
                at = self.edges[at as usize][k].to;
            }
            self.run_to(rel, 0, &then)
        };
        let steps_run = worst_run(&steps, &|_| 1, rel)?;
        let moves_run = worst_run(&moves, &|i| u64::from(self.moves[i as usize]), rel)?;
        Ok(Convergence::Holds {
            steps: steps_run,
            moves: Some(moves_run),
            // Every tick is a round: the ticks say it.
            rounds: None,
        })
    }

    /// The most ticks a run takes before legitimacy holds for good (every
    /// run from there stays legitimate), and a run that takes them; `None`
    /// when a cycle may leave legitimacy after any number of ticks.
    fn for_good(&self, rel: &mut TickRelation) -> Result<Option<Run>, Refusal> {
        let n = self.configs.len();
        // Those that can still reach a configuration outside legitimacy.
        let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, edges) in self.edges.iter().enumerate() {
            for e in edges {
                into[e.to as usize].push(i as u32);
            }
        }
        let mut unsettled: Vec<bool> = self.legit.iter().map(|&l| !l).collect();
        let mut queue: VecDeque<u32> = (0..n as u32).filter(|&i| unsettled[i as usize]).collect();
        while let Some(i) = queue.pop_front() {
            for &j in &into[i as usize] {
                if !unsettled[j as usize] {
                    unsettled[j as usize] = true;
                    queue.push_back(j);
                }
            }
        }
        // The most ticks from each unsettled one to a settled one, in an
        // order that puts each after those it leads to.
        let mut ticks = vec![0u64; n];
        let (mut state, mut order) = (vec![0u8; n], Vec::new());
        for root in (0..n).filter(|&i| unsettled[i]) {
            if state[root] != 0 {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            state[root] = 1;
            while let Some((i, k)) = stack.pop() {
                match self.edges[i].get(k) {
                    Some(e) => {
                        stack.push((i, k + 1));
                        let j = e.to as usize;
                        match (unsettled[j], state[j]) {
                            (true, 0) => {
                                state[j] = 1;
                                stack.push((j, 0));
                            }
                            // A cycle among unsettled ones: no bound.
                            (true, 1) => return Ok(None),
                            _ => {}
                        }
                    }
                    None => {
                        state[i] = 2;
                        order.push(i);
                    }
                }
            }
        }
        for &i in &order {
            let next = self.edges[i].iter().map(|e| ticks[e.to as usize]).max();
            ticks[i] = 1 + next.unwrap_or(0);
        }
        let mut then = Vec::new();
        let mut at = 0usize;
        while unsettled[at] {
            let k = self.edges[at]
                .iter()
                .position(|e| ticks[e.to as usize] + 1 == ticks[at])
                .expect("a successor gives the longest way");
            then.push(k as u32);
            at = self.edges[at][k].to as usize;
        }
        self.run_to(rel, 0, &then).map(Some)
    }

    /// Outside legitimacy (where there is no cycle): the most ticks and
    /// the most moves from each configuration to legitimacy, 0 at a
    /// legitimate one (or one where a run stops).
    fn worst(&self) -> (Vec<u64>, Vec<u64>) {
        let n = self.configs.len();
        let (mut steps, mut moves) = (vec![0u64; n], vec![0u64; n]);
        for i in self.post_order() {
            let i = i as usize;
            if self.legit[i] || self.edges[i].is_empty() {
                continue;
            }
            let succ = |by: &[u64]| self.edges[i].iter().map(|e| by[e.to as usize]).max();
            steps[i] = 1 + succ(&steps).unwrap_or(0);
            moves[i] = u64::from(self.moves[i]) + succ(&moves).unwrap_or(0);
        }
        (steps, moves)
    }

    /// The configurations outside legitimacy, each after those it leads
    /// to outside legitimacy (there must be no cycle among them).
    fn post_order(&self) -> Vec<u32> {
        let n = self.configs.len();
        let mut state = vec![0u8; n];
        let mut out = Vec::with_capacity(n);
        for root in 0..n {
            if state[root] != 0 || self.legit[root] {
                continue;
            }
            let mut stack = vec![(root as u32, 0usize)];
            state[root] = 1;
            while let Some((i, k)) = stack.pop() {
                let edges = &self.edges[i as usize];
                match edges.get(k) {
                    Some(e) => {
                        stack.push((i, k + 1));
                        let j = e.to as usize;
                        if state[j] == 0 && !self.legit[j] {
                            state[j] = 1;
                            stack.push((e.to, 0));
                        }
                    }
                    None => out.push(i),
                }
            }
        }
        out
    }

    /// A cycle of ticks outside legitimacy: the configuration on one found
    /// first breadth first (so the way into it is a shortest), and a
    /// shortest cycle from it (places among the ticks), if there is one.
    fn cycle_outside(&self) -> Option<(u32, Vec<u32>)> {
        let on_cycle = self.on_cycles_outside();
        let at = (0..self.configs.len()).find(|&i| on_cycle[i])? as u32;
        // Breadth first from `at`, outside legitimacy, back to it.
        let mut came: HashMap<u32, (u32, u32)> = HashMap::new();
        let mut queue = VecDeque::from([at]);
        while let Some(i) = queue.pop_front() {
            for (k, e) in self.edges[i as usize].iter().enumerate() {
                if self.legit[e.to as usize] {
                    continue;
                }
                if e.to == at {
                    let mut cycle = vec![k as u32];
                    let mut x = i;
                    while x != at {
                        let (from, kk) = came[&x];
                        cycle.push(kk);
                        x = from;
                    }
                    cycle.reverse();
                    return Some((at, cycle));
                }
                if let std::collections::hash_map::Entry::Vacant(v) = came.entry(e.to) {
                    v.insert((i, k as u32));
                    queue.push_back(e.to);
                }
            }
        }
        None
    }

    /// Per configuration: whether it lies on a cycle of ticks outside
    /// legitimacy (a strongly connected component of them with a tick
    /// inside it, as the other searches find theirs).
    fn on_cycles_outside(&self) -> Vec<bool> {
        let n = self.configs.len();
        let mut table = StepTable::keeping(n, false);
        for edges in &self.edges {
            table.push(edges.iter().map(|e| (e.to, ANY_MOVERS)));
        }
        let outside: Vec<bool> = self.legit.iter().map(|&l| !l).collect();
        let component = components(&table, &outside);
        let count = component.iter().map(|&c| c + 1).max().unwrap_or(0);
        let (cyclic, _) = inside_steps(&table, &outside, &component, count);
        (0..n).map(|i| outside[i] && cyclic[component[i]]).collect()
    }
}
