//! The symbolic engine: every configuration of an instance as binary
//! decision diagrams (sets of configurations, and each daemon's steps as
//! a relation), where the explicit engine would number them one by one.
//! It answers the same questions, from every configuration or from what
//! starts reach (forward layers): invariants, closure, deadlock,
//! convergence (no cycle outside legitimacy; under weak fairness, no fair
//! one), and the exact worst case in steps, as the number of backward
//! layers from legitimacy (the configurations from which every run
//! reaches it within k steps, for k = 0, 1, ...), with a run that takes
//! that many; worst moves where each step is one move (central) and
//! under the synchronous daemon; rounds are the explicit engine's. Every
//! run it reports is concrete, its moves found and checked by the step
//! relation, and replays with `guarded run`.

mod encoding;
mod fair;
mod local;
mod moves;
mod predicate;
mod properties;
mod reach;
mod relation;
mod search;
mod steps;
mod tabulate;

use super::{outside_the_domains, tell, Choices, Fairness, Progress, Refusal, Starts, Verdict};
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::{INVARIANT, LEGITIMACY};
use encoding::Encoding;
use local::{oom, Process};
use oxidd::bdd::BDDFunction as F;
use oxidd::BooleanFunction;

/// Bytes a diagram node takes, with its share of the unique table and the
/// apply cache: the node limit is the memory budget over this.
const BYTES_PER_NODE: u64 = 48;

/// Why the symbolic engine cannot take `inst` (explored `from_starts`, or
/// from every configuration), if it cannot: what it needs is a program
/// without messages, edge variables, timers or ticks, whose legitimacy
/// predicate (declared, unless from starts) and invariants are boolean
/// combinations of quantifiers and counts over processes with bodies
/// local to each.
pub fn unsupported(inst: &Instance, from_starts: bool) -> Option<String> {
    let prog = &inst.prog;
    if prog.legitimate.is_none() && !from_starts {
        return Some("the program declares no `legitimate:` predicate".into());
    }
    if inst.code.capacity.is_some() || inst.runs_in_ticks() {
        return Some("the program passes messages".into());
    }
    if !inst.code.timers.is_empty() {
        return Some("the program has timers".into());
    }
    if prog
        .vars
        .iter()
        .any(|v| v.kind == crate::check::ir::VarKind::Edge)
    {
        return Some("the program has edge variables".into());
    }
    if prog.legitimate.is_some() && inst.code.legit_by_process.is_none() {
        return Some("its legitimacy predicate is not a combination of `forall`, `exists` and `count` over processes with bodies local to each (reading the process, its neighbours and whether it is enabled)".into());
    }
    if let Some(inv) = inst.code.invariants.iter().find(|i| i.by_process.is_none()) {
        return Some(format!(
            "invariant `{}` is not a combination of `forall`, `exists` and `count` over processes with bodies local to each",
            inv.name
        ));
    }
    local::too_many_valuations(inst)
}

/// Every configuration of an instance as diagrams, ready to be asked
/// about under any daemon.
pub struct Symbolic<'a> {
    inst: &'a Instance,
    progress: Option<Progress<'a>>,
    enc: Encoding,
    procs: Vec<Process>,
    /// Whether the program declares `legitimate:` (else `legit` is empty).
    declared: bool,
    legit: F,
    /// Where some invariant fails.
    broken: F,
    /// Where no process is enabled.
    terminal: F,
    /// Where some move faults.
    faults: F,
    choices: Choices,
    configurations: u128,
    /// How many configurations are legitimate.
    legitimate: u128,
    node_limit: usize,
    /// The most nodes seen alive so far.
    peak: std::cell::Cell<usize>,
    /// Whether the synchronous daemon's worst moves are searched for.
    synchronous_moves: bool,
    /// Whether the program's properties of runs are checked.
    properties: bool,
}

impl<'a> Symbolic<'a> {
    /// The diagrams of `inst` (with `choices`), within a node limit of
    /// `memory` bytes; refuses what the engine does not take.
    pub fn new(
        inst: &'a Instance,
        choices: Choices,
        memory: u64,
        progress: Option<Progress<'a>>,
    ) -> Result<Self, Refusal> {
        if let Some(why) = unsupported(inst, true) {
            return Err(Refusal::Unsupported(format!(
                "the symbolic engine does not take this program: {why}; use --engine explicit"
            )));
        }
        let node_limit =
            (memory / BYTES_PER_NODE).clamp(1 << 16, u64::from(u32::MAX >> 1)) as usize;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8)) as u32;
        let space = inst.space();
        let mut enc = Encoding::new(&space, node_limit, threads).map_err(oom)?;
        enc.table_bytes = memory / 2;
        let every = every_move(inst, choices);
        let n = inst.topo.n();
        let mut procs = Vec::with_capacity(n);
        for p in 0..n {
            tell(
                progress,
                "symbolic: moves of each process",
                p as u64,
                n as u64,
            )?;
            procs.push(local::process(inst, &enc, p, every)?);
        }
        let legit = match &inst.code.legit_by_process {
            Some(tree) => predicate::set_of(inst, &enc, tree, LEGITIMACY, None)?,
            None => enc.falsity(),
        };
        let legit = legit.and(&enc.universe).map_err(oom)?;
        let mut broken = enc.falsity();
        for tree in inst
            .code
            .invariants
            .iter()
            .filter_map(|i| i.by_process.as_ref())
        {
            let holds = predicate::set_of(inst, &enc, tree, INVARIANT, None)?;
            broken = broken.or(&holds.not().map_err(oom)?).map_err(oom)?;
        }
        let broken = broken.and(&enc.universe).map_err(oom)?;
        let (mut terminal, mut faults) = (enc.universe.clone(), enc.falsity());
        for pr in &procs {
            terminal = terminal.and(&pr.enabled.not().map_err(oom)?).map_err(oom)?;
            faults = faults.or(&pr.faults).map_err(oom)?;
        }
        let faults = faults.and(&enc.universe).map_err(oom)?;
        let configurations = enc.count(&enc.universe);
        let legitimate = enc.count(&legit);
        Ok(Symbolic {
            inst,
            progress,
            enc,
            procs,
            declared: inst.prog.legitimate.is_some(),
            legit,
            broken,
            terminal,
            faults,
            choices,
            configurations,
            legitimate,
            node_limit,
            peak: std::cell::Cell::new(0),
            synchronous_moves: true,
            properties: true,
        })
    }

    /// How many configurations there are (saturating).
    pub fn configurations(&self) -> u128 {
        self.configurations
    }

    /// The most nodes the diagrams have had alive (as seen at each step
    /// of the searches), and the most they may have.
    pub fn nodes(&self) -> (usize, usize) {
        (self.peak.get().max(self.enc.nodes()), self.node_limit)
    }

    /// Tells the progress callback what is being done (`k`-th of it), and
    /// notes the nodes alive.
    fn note(&self, what: &str, k: u64) -> Result<(), Refusal> {
        self.peak.set(self.peak.get().max(self.enc.nodes()));
        tell(self.progress, what, k, 0)
    }

    /// Whether every action and binder member of every mover is explored
    /// where it may have several.
    fn every_move(&self) -> bool {
        every_move(self.inst, self.choices)
    }

    /// Whether [`Symbolic::verify`] searches for the worst moves under the
    /// synchronous daemon (it does unless told otherwise): a layer per
    /// move rather than per step, several times the time of the rest.
    pub fn count_synchronous_moves(&mut self, on: bool) {
        self.synchronous_moves = on;
    }

    /// Whether [`Symbolic::verify_from`] checks the program's properties
    /// of runs (it does unless told otherwise).
    pub fn check_properties(&mut self, on: bool) {
        self.properties = on;
    }

    /// The verdict under `daemon` (an unfair daemon), from every
    /// configuration.
    pub fn verify(&self, daemon: &Daemon) -> Result<Verdict, Refusal> {
        search::verify(self, daemon, None, false)
    }

    /// The verdict under `daemon`, from every configuration or from what
    /// `starts` reach under it; under weak fairness, a cycle outside
    /// legitimacy counts against convergence only when it is weakly fair
    /// (every process enabled throughout it moves in it). Strong fairness
    /// is refused: its fixpoint nests one per process, and only the
    /// explicit engine decides it.
    pub fn verify_from(
        &self,
        daemon: &Daemon,
        starts: Option<&Starts>,
        fairness: Fairness,
    ) -> Result<Verdict, Refusal> {
        if fairness == Fairness::Strong {
            return Err(Refusal::Unsupported(
                "the symbolic engine decides weak fairness only: verify strong fairness with --engine explicit".into(),
            ));
        }
        search::verify(self, daemon, starts, fairness == Fairness::Weak)
    }

    /// The configurations `starts` names, as a set.
    fn starts(&self, starts: &Starts) -> Result<F, Refusal> {
        match starts {
            Starts::One(cfg) => match self.inst.space().index(cfg) {
                Some(_) => self.enc.single(cfg).map_err(oom),
                None => Err(outside_the_domains()),
            },
            Starts::Every(space) => self.enc.within(space).map_err(oom),
            // Programs that pass messages are refused before.
            Starts::Filled(..) => Err(Refusal::Unsupported(
                "messages in transit are not taken by the decision diagrams".into(),
            )),
        }
    }
}

/// Whether `choices` asks for every move and some process of `inst` may
/// choose between several.
fn every_move(inst: &Instance, choices: Choices) -> bool {
    choices == Choices::Every && inst.code.may_choose()
}
