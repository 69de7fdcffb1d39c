//! The steps from a configuration of the state space, without building
//! configurations. In a program without effects (no edge variables,
//! messages or draws) a step replaces each mover's row by the row its
//! action computes from the configuration before the step, and nothing
//! else: so each enabled process's move is run once
//! ([`StepRelation::moved_row`]), kept as what it adds to the
//! configuration's index, and a move set's successor is the index plus its
//! movers' changes, whatever the number of move sets (2^k - 1 for k enabled
//! processes under the distributed daemon). A configuration read from
//! another (a step's predecessor, or the previous root of the search) asks
//! again only the processes whose rows changed and their readers: no other
//! guard or move can have changed. Tests hold it to the step relation's
//! successor on every configuration and move set. The configurations a
//! search from a start reached are walked the same way, by their indices
//! in the space (their codes, which the store of them numbers).
//!
//! A process that may choose (several enabled actions of one priority, a
//! binder with several members) has several moves: where every move is
//! explored, such a process's moves are each run, and listed one after
//! the other, and a step takes at most one of a process's moves (in the
//! order of [`Daemon::each_choice_set`]). Its moves are asked again at
//! every configuration: they are kept neither with the configuration nor
//! in the tables, which keep one move a process.

use super::local::LocalMoves;
use super::move_sets::{all_subsets, every_one_of_each, subset_order, subsets, Extends, TABULATED};
use super::moves::within_steps_listed;
pub(super) use super::process_bits::{affects, as_bits, enabled_as_bits, near, Bits};
use super::reached::Packed;
use super::Refusal;
use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::space::Space;
use crate::runtime::step::{Move, StepRelation};
use crate::state::Config;
use crate::topology::Topology;

/// A step: the successor's number, how many processes move, and which
/// (as bits; 0 with more than 64 processes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Succ {
    pub(super) to: u32,
    pub(super) moves: u32,
    pub(super) movers: u64,
}

/// The most configurations whose moves are kept for their successors:
/// the depth of the search's stack they follow, past which successors are
/// read afresh.
const KEPT: usize = 1 << 16;

/// In place of a step's movers: the configuration is not a step away,
/// whichever processes differ are asked again.
pub(super) const ANY_CHANGED: u64 = u64::MAX;

/// How the configurations a search walks are numbered.
#[derive(Clone, Copy)]
pub(super) enum Numbers<'a> {
    /// By their index in the space: every configuration.
    Space,
    /// In the order a search from a start reached them, kept as their
    /// indices in the space (codes) in a store, which numbers a code.
    Reached(&'a Packed),
}

/// In place of a step's successor's number: its code is not kept (the
/// store does not number it), which the step relation's own way reports.
const NOT_NUMBERED: u32 = u32::MAX;

impl Numbers<'_> {
    /// Configuration number `i`'s index in the space.
    #[inline]
    fn code(self, i: u32) -> u64 {
        match self {
            Numbers::Space => u64::from(i),
            Numbers::Reached(kept) => kept.code(i as usize),
        }
    }

    /// Whether index `i` plus `delta` is an index that can be numbered:
    /// every index of the space is one, where numbers are codes, if it
    /// fits in a number.
    #[inline]
    fn fits(self, i: u32, delta: i64) -> bool {
        match self {
            Numbers::Space => u32::try_from(i64::from(i) + delta).is_ok(),
            Numbers::Reached(_) => true,
        }
    }
}

/// The engine: the step relation and buffers it reuses.
pub(super) struct Successors<'a> {
    space: &'a Space,
    /// How configurations are numbered.
    numbers: Numbers<'a>,
    /// The indices of the steps listed by the last [`Successors::steps`]
    /// of the distributed daemon's table, each from the one it extends.
    codes: Vec<i64>,
    topo: &'a Topology,
    rel: StepRelation<'a>,
    cfg: Config,
    stride: usize,
    n: usize,
    /// Per process: its first enabled action, or `NO_ACTION`.
    chosen: Vec<u16>,
    /// Per enabled process: what its move adds to the index.
    delta: Vec<i64>,
    /// The enabled processes and what each one's move adds to the index.
    moves: Vec<(u32, i64)>,
    /// Per process: the processes the locally-central daemon keeps apart
    /// from it (those it reads and those that read it), as bits.
    apart: Vec<u64>,
    /// Per process: itself and the processes that read it, the only ones
    /// whose guards and moves a move of it can change.
    affects: Vec<u64>,
    /// Configurations whose `chosen` and `delta` are kept (n each in
    /// `kept_chosen` and `kept_delta`), the last loaded on top: the
    /// search's path, which its successors are read from.
    kept: Vec<u32>,
    kept_chosen: Vec<u16>,
    kept_delta: Vec<i64>,
    /// Their rows, so that a successor's are its movers' rows away.
    kept_rows: Vec<i64>,
    /// Each process's guards and move as a table, where they fit.
    local: Option<&'a LocalMoves>,
    /// See [`again_after_slots`].
    again_after_slots: Option<Vec<u64>>,
    /// Per number of enabled processes, up to [`TABULATED`]: the subsets
    /// of their places in the order of [`Daemon::move_sets`] (see
    /// [`subset_order`]).
    subset_orders: Vec<Vec<Extends>>,
    /// The processes whose every move is explored, as bits: those of a
    /// role that may choose, where every move is explored.
    choosing: u64,
    /// Per choosing process, what each of its moves adds to the index.
    choice_deltas: Vec<Vec<i64>>,
    /// A choosing process's moves, listed.
    choice_moves: Vec<Move>,
    /// Whether a process has several of the `moves` listed.
    several: bool,
}

impl<'a> Successors<'a> {
    /// The engine for `inst` over `space`, when its steps are as above
    /// and a move set fits in a word (at most 64 processes); with `local`,
    /// each process's guards and move over `space` as tables; with
    /// `every_move`, every move of a process that may choose (else its
    /// first enabled action alone).
    pub(super) fn new(
        inst: &'a Instance,
        space: &'a Space,
        local: Option<&'a LocalMoves>,
        every_move: bool,
    ) -> Option<Self> {
        let mut engine = Self::interpreted(inst, space)?;
        engine.local = local;
        if every_move {
            let code = &inst.code;
            engine.choosing = (0..engine.n)
                .filter(|&p| code.roles[code.role_of.of(p)].may_choose)
                .fold(0, |m, p| m | 1 << p);
        }
        Some(engine)
    }

    /// [`Successors::new`] over the configurations a search from a start
    /// reached, kept as codes in `kept` (of `space`), numbered as it
    /// numbered them; every guard and move interpreted, as where the
    /// codes are too wide to add to (past 2^63).
    pub(super) fn over_reached(
        inst: &'a Instance,
        space: &'a Space,
        kept: &'a Packed,
        every_move: bool,
    ) -> Option<Self> {
        if space.count() > i64::MAX as u128 {
            return None;
        }
        let mut engine = Self::new(inst, space, None, every_move)?;
        engine.numbers = Numbers::Reached(kept);
        Some(engine)
    }

    /// [`Successors::new`] without tables: every guard and move is
    /// interpreted.
    fn interpreted(inst: &'a Instance, space: &'a Space) -> Option<Self> {
        let n = inst.topo.n();
        if inst.code.has_effects || n > 64 {
            return None;
        }
        let topo = &inst.topo;
        Some(Successors {
            space,
            numbers: Numbers::Space,
            codes: Vec::new(),
            topo,
            rel: inst.step_relation(),
            cfg: space.config(0),
            stride: inst.code.stride,
            n,
            chosen: Vec::with_capacity(n),
            delta: vec![0; n],
            moves: Vec::with_capacity(n),
            apart: near(topo),
            affects: affects(topo),
            kept: Vec::new(),
            kept_chosen: Vec::new(),
            kept_delta: Vec::new(),
            kept_rows: Vec::new(),
            local: None,
            again_after_slots: again_after_slots(inst, space),
            subset_orders: (0..=n.min(TABULATED)).map(subset_order).collect(),
            choosing: 0,
            choice_deltas: vec![Vec::new(); n],
            choice_moves: Vec::new(),
            several: false,
        })
    }

    /// Reads configuration `i` and which processes are enabled there.
    pub(super) fn load(&mut self, i: u32) -> Result<(), Refusal> {
        self.space.decode_into(self.numbers.code(i), &mut self.cfg);
        self.rel
            .chosen_into(&self.cfg, &mut self.chosen)
            .map_err(|e| Refusal::Runtime(Box::new((e, self.cfg.clone()))))
    }

    /// The enabled processes of the loaded configuration, as bits.
    pub(super) fn enabled_bits(&self) -> u64 {
        enabled_as_bits(&self.chosen)
    }

    /// Loads configuration `i` and runs every enabled process's move
    /// there. `from`, the configuration `i` was reached from and the
    /// step's movers as bits (or [`ANY_CHANGED`]), lets it take from that
    /// configuration, when kept, the guards and moves of every process the
    /// step cannot have changed (neither a mover nor a reader of one). False when a move
    /// faults or leaves the state space: the caller then takes the step
    /// relation's own way, which reports it.
    pub(super) fn load_moves(&mut self, i: u32, from: Option<(u32, u64)>) -> Result<bool, Refusal> {
        let kept = from.and_then(|(c, movers)| Some((self.find_kept(c)?, movers)));
        let (n, stride) = (self.n, self.stride);
        // The processes whose guards and moves are asked again.
        let again = match kept {
            Some((k, movers)) => {
                let cells = self.cfg.rows.len();
                let kept_rows = &self.kept_rows[k * cells..(k + 1) * cells];
                self.cfg.rows.copy_from_slice(kept_rows);
                let again = match (movers, &self.again_after_slots) {
                    // Another root: only its last digits differ.
                    (ANY_CHANGED, Some(again_after)) => {
                        let c = self.numbers.code(self.kept[k]);
                        again_after[self.space.redecode(&mut self.cfg, c, self.numbers.code(i))]
                    }
                    (ANY_CHANGED, None) => {
                        // Whichever processes' rows differ.
                        self.space.decode_into(self.numbers.code(i), &mut self.cfg);
                        (0..n)
                            .filter(|&p| {
                                let mine = p * stride..(p + 1) * stride;
                                self.cfg.rows[mine.clone()] != kept_rows[mine]
                            })
                            .fold(0, |m, p| m | self.affects[p])
                    }
                    _ => {
                        for p in Bits(movers) {
                            let mine = p * stride..(p + 1) * stride;
                            // The mover's row after its move, from its
                            // table where known (the table's is the
                            // first move's), else from the index.
                            let table = self.local.filter(|_| self.choosing >> p & 1 == 0);
                            match table.and_then(|t| t.after(p, kept_rows)) {
                                Some(row) => self.cfg.rows[mine].copy_from_slice(row),
                                None => self.space.decode_cells(
                                    self.numbers.code(i),
                                    &mut self.cfg,
                                    mine,
                                ),
                            }
                        }
                        Bits(movers).fold(0, |again, p| again | self.affects[p])
                    }
                };
                self.chosen.clear();
                self.chosen
                    .extend_from_slice(&self.kept_chosen[k * n..(k + 1) * n]);
                self.delta
                    .copy_from_slice(&self.kept_delta[k * n..(k + 1) * n]);
                again
            }
            None => {
                self.space.decode_into(self.numbers.code(i), &mut self.cfg);
                self.chosen.clear();
                self.chosen.resize(n, NO_ACTION);
                if n == 64 {
                    u64::MAX
                } else {
                    (1 << n) - 1
                }
            }
        };
        // A choosing process's moves are asked at every configuration.
        let again = again | self.choosing;
        // The processes asked again that the tables do not answer.
        let mut interpret = again;
        if let Some(local) = self.local {
            for p in Bits(again) {
                if let Some(entry) = local.get(p, &self.cfg.rows) {
                    self.chosen[p] = entry.action;
                    self.delta[p] = entry.delta;
                    interpret &= !(1 << p);
                }
            }
        }
        for p in Bits(interpret) {
            self.chosen[p] = match self.rel.first_enabled(&self.cfg, p) {
                Ok(a) => a.map_or(NO_ACTION, |a| a as u16),
                Err(e) => return Err(Refusal::Runtime(Box::new((e, self.cfg.clone())))),
            };
        }
        if !self.list_moves(i, interpret, again)? {
            return Ok(false);
        }
        if self.kept.len() < KEPT {
            self.kept.push(i);
            self.kept_chosen.extend_from_slice(&self.chosen);
            self.kept_delta.extend_from_slice(&self.delta);
            self.kept_rows.extend_from_slice(&self.cfg.rows);
        }
        Ok(true)
    }

    /// Lists the moves of configuration `i` (loaded, with each process's
    /// first enabled action) into `moves`, running those of the processes
    /// `interpret` and every move of a choosing one; `again`: the
    /// processes whose moves were asked again. False when a move faults or
    /// leaves the state space.
    fn list_moves(&mut self, i: u32, interpret: u64, again: u64) -> Result<bool, Refusal> {
        self.moves.clear();
        self.several = false;
        for p in 0..self.n {
            let a = self.chosen[p];
            if a == NO_ACTION {
                continue;
            }
            if self.choosing >> p & 1 != 0 {
                if !self.choice_moves_of(i, p)? {
                    return Ok(false);
                }
                let deltas = &self.choice_deltas[p];
                self.several |= deltas.len() > 1;
                self.moves.extend(deltas.iter().map(|&d| (p as u32, d)));
                continue;
            }
            if interpret >> p & 1 != 0 {
                let Ok(after) = self.rel.moved_row(&self.cfg, p as u32, u32::from(a)) else {
                    return Ok(false);
                };
                let Some(delta) = row_delta(self.space, &self.cfg.rows, p, after) else {
                    return Ok(false);
                };
                self.delta[p] = delta;
            }
            if again >> p & 1 != 0 && !self.numbers.fits(i, self.delta[p]) {
                return Ok(false);
            }
            self.moves.push((p as u32, self.delta[p]));
        }
        Ok(true)
    }

    /// Runs every move of choosing process `p` (enabled) in the loaded
    /// configuration `i`, keeping what each adds to the index; false when
    /// one faults or leaves the state space.
    fn choice_moves_of(&mut self, i: u32, p: usize) -> Result<bool, Refusal> {
        if let Err(e) = self
            .rel
            .moves_into(&self.cfg, p, true, &mut self.choice_moves)
        {
            return Err(Refusal::Runtime(Box::new((e, self.cfg.clone()))));
        }
        let deltas = &mut self.choice_deltas[p];
        deltas.clear();
        for m in &self.choice_moves {
            let Ok(after) = self.rel.moved_row_of(&self.cfg, m) else {
                return Ok(false);
            };
            let Some(delta) = row_delta(self.space, &self.cfg.rows, p, after)
                .filter(|&d| self.numbers.fits(i, d))
            else {
                return Ok(false);
            };
            deltas.push(delta);
        }
        Ok(true)
    }

    /// Where configuration `c` is kept, dropping those kept after it (the
    /// search has left them); `None` when it is not kept.
    fn find_kept(&mut self, c: u32) -> Option<usize> {
        while self.kept.last().is_some_and(|&top| top != c) {
            self.kept.pop();
        }
        let (k, n) = (self.kept.len(), self.n);
        self.kept_chosen.truncate(k * n);
        self.kept_delta.truncate(k * n);
        self.kept_rows.truncate(k * self.cfg.rows.len());
        k.checked_sub(1)
    }

    /// [`Successors::load_moves`], then [`Successors::steps`] into `out`:
    /// whether no process is enabled in configuration `i`, or `None` where
    /// the step relation's own way is needed (a move faults or leaves the
    /// state space, or a step leads where the store numbers nothing).
    pub(super) fn load_steps(
        &mut self,
        (i, from): (u32, Option<(u32, u64)>),
        daemon: &Daemon,
        out: &mut Vec<Succ>,
    ) -> Result<Option<bool>, Refusal> {
        if !self.load_moves(i, from)? {
            return Ok(None);
        }
        // The fast way is not taken by orbits.
        within_steps_listed(daemon, self.moves.iter().map(|m| m.0), self.topo, 1)?;
        self.steps(i, daemon, out);
        if matches!(self.numbers, Numbers::Reached(_)) && out.iter().any(|s| s.to == NOT_NUMBERED) {
            return Ok(None);
        }
        Ok(Some(self.enabled_bits() == 0))
    }

    /// The steps `daemon` allows from configuration `i` (loaded by
    /// [`Successors::load_moves`]), in the order of [`Daemon::move_sets`].
    pub(super) fn steps(&mut self, i: u32, daemon: &Daemon, out: &mut Vec<Succ>) {
        let code = self.numbers.code(i) as i64;
        match self.numbers {
            Numbers::Space => self.steps_numbered(code, daemon, out, |c| c as u32),
            Numbers::Reached(kept) => self.steps_numbered(code, daemon, out, |c| {
                kept.find(c as u64).unwrap_or(NOT_NUMBERED)
            }),
        }
    }

    /// [`Successors::steps`] from the configuration of index `code`, each
    /// step's successor numbered by `number` from its index.
    fn steps_numbered(
        &mut self,
        code: i64,
        daemon: &Daemon,
        out: &mut Vec<Succ>,
        number: impl Fn(i64) -> u32 + Copy,
    ) {
        out.clear();
        if self.moves.is_empty() {
            return;
        }
        match daemon {
            Daemon::Central => out.extend(self.moves.iter().map(|&(p, d)| Succ {
                to: number(code + d),
                moves: 1,
                movers: 1 << p,
            })),
            // One move of each process, in every combination.
            Daemon::Synchronous if self.several => {
                every_one_of_each(&self.moves, (code, 0, 0), number, out)
            }
            Daemon::Synchronous => {
                let sum: i64 = self.moves.iter().map(|m| m.1).sum();
                out.push(Succ {
                    to: number(code + sum),
                    moves: self.moves.len() as u32,
                    movers: self.enabled_bits(),
                });
            }
            Daemon::Distributed if self.moves.len() <= TABULATED && !self.several => {
                let order = &self.subset_orders[self.moves.len()];
                all_subsets(&self.moves, order, (code, number), &mut self.codes, out);
            }
            Daemon::Distributed | Daemon::LocallyCentral => {
                let apart = matches!(daemon, Daemon::LocallyCentral).then_some(&self.apart[..]);
                subsets(&self.moves, apart, (code, 0, 0), number, out);
            }
            Daemon::Schedule(_) | Daemon::Ticks => {
                unreachable!("the verifier explores no schedule, and ticks apart")
            }
        }
    }
}

/// What process `p`'s row becoming `after` adds to the index of the
/// configuration of `rows`; `None` when it leaves the state space.
fn row_delta(space: &Space, rows: &[i64], p: usize, after: &[std::cell::Cell<i64>]) -> Option<i64> {
    let stride = after.len();
    let before = &rows[p * stride..(p + 1) * stride];
    let mut delta = 0i128;
    for (s, (&old, new)) in before.iter().zip(after).enumerate() {
        delta += space.delta(p * stride + s, old, new.get())?;
    }
    i64::try_from(delta).ok()
}

/// Per number k of free slots, counted from the last: the processes whose
/// guards a change of those k slots can change, as bits. `None` past 64
/// processes or when a slot is copied elsewhere (edge variables).
pub(super) fn again_after_slots(inst: &Instance, space: &Space) -> Option<Vec<u64>> {
    let cells = space.free_cells().filter(|_| inst.topo.n() <= 64)?;
    let affects = affects(&inst.topo);
    let stride = inst.code.stride;
    let mut again = vec![0u64];
    for &at in cells.iter().rev() {
        let last = *again.last().expect("starts with one");
        again.push(last | affects[at / stride]);
    }
    Some(again)
}

#[cfg(test)]
mod tests {
    use super::super::reached::Reached;
    use super::*;

    const DAEMONS: [Daemon; 4] = [
        Daemon::Central,
        Daemon::LocallyCentral,
        Daemon::Distributed,
        Daemon::Synchronous,
    ];

    /// The steps the step relation gives (every move of each mover, where
    /// `every`): each step's successor's number, how many move, which;
    /// `None` when a step faults or leaves the space (the engine then
    /// defers to it).
    fn by_the_step_relation(
        inst: &Instance,
        space: &Space,
        (i, every): (u32, bool),
        d: &Daemon,
    ) -> Option<Vec<Succ>> {
        let mut rel = inst.step_relation();
        let cfg = space.config(u128::from(i));
        let enabled = rel.enabled(&cfg).expect("guards evaluate");
        let mut out = Vec::new();
        if !(every && inst.code.may_choose()) {
            // One move each: the first enabled action.
            for movers in d.move_sets(&enabled, &inst.topo, 0) {
                let next = rel.successor_first(&cfg, &movers).ok()?;
                out.push(Succ {
                    to: space.index(&next)? as u32,
                    moves: movers.len() as u32,
                    movers: movers.iter().fold(0, |m, &p| m | 1 << p),
                });
            }
            return Some(out);
        }
        let mut lister = super::super::moves::Lister::default();
        lister.load(&mut rel, &cfg, &enabled, every).ok()?;
        for moves in lister.steps(d, &inst.topo, 1).ok()? {
            let next = rel.successor_of(&cfg, &moves).ok()?;
            out.push(Succ {
                to: space.index(&next)? as u32,
                moves: moves.len() as u32,
                movers: moves.iter().fold(0, |m, mv| m | 1 << mv.process),
            });
        }
        Some(out)
    }

    /// On every configuration of each instance, under each daemon, the
    /// engine's steps are the step relation's, read afresh and read from
    /// each configuration the step comes from; every move of a process
    /// that may choose, and its first action alone.
    #[test]
    fn the_engine_gives_the_step_relations_successors() {
        for (src, topology, params) in cases() {
            engine_agrees(super::super::test_instance(src, topology, params), topology);
        }
    }

    /// Over configurations numbered by a search from a start (here every
    /// one, kept as codes in a scrambled order, so that numbers and codes
    /// differ), the engine's steps are the step relation's, numbered by
    /// the store; a step to a code not kept is left to the step relation.
    #[test]
    fn the_engine_over_reached_codes_numbers_as_the_store() {
        for (src, topology, params) in cases().into_iter().step_by(3) {
            let inst = super::super::test_instance(src, topology, params);
            let space = inst.space();
            let count = space.count() as u32;
            let scrambled = |k: u32| (u64::from(k) * 7919 % u64::from(count)) as u32;
            // 7919 is prime: a permutation unless it divides the count.
            if count.is_multiple_of(7919) {
                continue;
            }
            let start = space.config(0);
            let mut store = Reached::new(space.clone(), None, &start);
            // All but the last of the order kept: steps there are not.
            for k in 0..count - 1 {
                assert_eq!(
                    store.insert(&space.config(u128::from(scrambled(k)))),
                    Some(true)
                );
            }
            let kept = store.packed().expect("codes");
            let missing = scrambled(count - 1);
            for d in &DAEMONS {
                let mut fast =
                    Successors::over_reached(&inst, &space, kept, true).expect("no effects");
                let mut out = Vec::new();
                for i in 0..count - 1 {
                    let code = scrambled(i);
                    let want = by_the_step_relation(&inst, &space, (code, true), d);
                    let got = fast
                        .load_steps((i, None), d, &mut out)
                        .expect("guards evaluate");
                    let Some(want) = want else {
                        assert_eq!(got, None, "{topology} {} from {code}", d.name());
                        continue;
                    };
                    if want.iter().any(|s| s.to == missing) {
                        assert_eq!(got, None, "{topology} {} from {code}", d.name());
                        continue;
                    }
                    assert!(got.is_some(), "{topology} {} from {code}", d.name());
                    let numbered: Vec<Succ> = want
                        .iter()
                        .map(|s| Succ {
                            to: kept.find(u64::from(s.to)).expect("kept"),
                            ..*s
                        })
                        .collect();
                    assert_eq!(out, numbered, "{topology} {} from {code}", d.name());
                }
            }
        }
    }

    /// The instances the engine is held to the step relation on.
    fn cases() -> [super::super::TestCase; 14] {
        let both = "var x: 0..1 = 0\nprocess {\n    b :: x == 0 -> x := 1\n    c :: x == 0 -> x := 0\n}\nlegitimate: forall(p in procs : p.x == 1)";
        [
            (
                include_str!("../../programs/dijkstra_kstate.gc"),
                "ring:4",
                &[("K", 3)],
            ),
            (
                include_str!("../../programs/dijkstra_kstate.gc"),
                "ring:5",
                &[("K", 3)],
            ),
            (
                include_str!("../../programs/dijkstra_kstate.gc"),
                "ring:3",
                &[("K", 4)],
            ),
            (include_str!("../../programs/matching.gc"), "star:4", &[]),
            (include_str!("../../programs/matching.gc"), "chain:4", &[]),
            (
                include_str!("../../programs/johnen_leader.gc"),
                "uring:3",
                &[("k", 1)],
            ),
            (
                include_str!("../../tests/golden/programs/four_state.gc"),
                "chain:4",
                &[],
            ),
            (
                include_str!("../../tests/golden/programs/counter_invariant.gc"),
                "ring:3",
                &[],
            ),
            (
                include_str!("../../tests/golden/programs/sides.gc"),
                "ring:4",
                &[("K", 3)],
            ),
            (
                include_str!("../../tests/golden/programs/max_graph.gc"),
                "chain:3",
                &[],
            ),
            (
                include_str!("../../programs/johnen_leader.gc"),
                "uring:3",
                &[("k", 0)],
            ),
            (include_str!("../../programs/matching.gc"), "ring:4", &[]),
            (both, "ring:3", &[]),
            (both, "star:4", &[]),
        ]
    }

    /// [`the_engine_gives_the_step_relations_successors`] on one instance.
    fn engine_agrees(inst: Instance, topology: &str) {
        let space = inst.space();
        let count = space.count() as u32;
        assert!(count <= 200_000, "{topology}: {count} configurations");
        let tables = LocalMoves::new(&inst, &space);
        if ["ring:5", "uring:3"].contains(&topology) {
            assert!(tables.is_some(), "{topology}: the tables fit");
        }
        // With the tables and interpreted alike; every move and the
        // first alone.
        let engines = [tables.as_ref(), None];
        // The first action alone is another way only where one may choose.
        let choices: &[bool] = if inst.code.may_choose() {
            &[true, false]
        } else {
            &[true]
        };
        let ways = DAEMONS
            .iter()
            .flat_map(|d| engines.map(|t| (d, t)))
            .flat_map(|(d, t)| choices.iter().map(move |&every| (d, t, every)));
        for (d, local, every) in ways {
            let mut fast = Successors::new(&inst, &space, local, every).expect("no effects");
            let (mut out, mut again) = (Vec::new(), Vec::new());
            for i in 0..count {
                let want = by_the_step_relation(&inst, &space, (i, every), d);
                let fine = fast.load_moves(i, None).expect("guards evaluate");
                if !fine {
                    assert_eq!(want, None, "{topology} {} from {i}", d.name());
                    continue;
                }
                fast.steps(i, d, &mut out);
                assert_eq!(
                    Some(&out),
                    want.as_ref(),
                    "{topology} {} from {i}",
                    d.name()
                );
                // Read from here: as read afresh.
                let here = out.clone();
                for e in here {
                    let fine = fast.load_moves(e.to, Some((i, e.movers))).unwrap();
                    let fresh = by_the_step_relation(&inst, &space, (e.to, every), d);
                    if fine {
                        fast.steps(e.to, d, &mut again);
                        assert_eq!(Some(&again), fresh.as_ref(), "{topology} {i} -> {}", e.to);
                    } else {
                        assert_eq!(fresh, None, "{topology} {i} -> {}", e.to);
                    }
                    // Back to `i` as the search would find it kept.
                    assert!(fast.load_moves(i, None).unwrap());
                }
                // The next configuration read from this one, not a
                // step away; and one further on, or back.
                let further = (u64::from(i) * 7919 % u64::from(count)) as u32;
                for j in [i + 1, further].into_iter().filter(|&j| j < count) {
                    assert!(fast.load_moves(i, None).unwrap());
                    let want = by_the_step_relation(&inst, &space, (j, every), d);
                    let fine = fast.load_moves(j, Some((i, ANY_CHANGED))).unwrap();
                    if fine {
                        fast.steps(j, d, &mut again);
                        assert_eq!(Some(&again), want.as_ref(), "{topology} {i} then {j}");
                    } else {
                        assert_eq!(want, None, "{topology} {i} then {j}");
                    }
                }
            }
        }
    }
}
