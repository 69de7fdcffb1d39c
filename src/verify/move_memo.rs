//! Each process's first enabled action and what its move adds to the
//! configuration's code, remembered per value of the cells it reads: the
//! search from a start meets the same neighbourhoods again and again, and
//! looks them up instead of interpreting them.
//!
//! Reads are local (the checker and the interpreter see to it): a process
//! reads its own row and its neighbours'. An edge variable lives at the
//! edge's smaller end and is copied to the other; a process whose actions
//! read edge variables only on its own edges ([`reads_own_edges_only`])
//! does not depend on its neighbours' other edges, which are left out of
//! what it reads. Entries are filled when first met, by the interpreter,
//! from whichever thread meets them (an entry is written whole before it
//! is marked filled; two threads filling one write the same). Entries
//! whose guards or move fault, or whose move leaves the domains, are
//! marked so: the interpreter is asked there, and reports it.

use super::entry_numbers::EntryNumbers;
use super::read_cells::ReadCells;
use crate::check::ir::{reads_own_edges_only, VarKind};
use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::space::Space;
use crate::runtime::step::StepRelation;
use crate::state::Config;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};

/// The most entries of every process together (24 bytes each: at most
/// 48 MiB).
const MOST_ENTRIES: usize = 1 << 21;

/// Not filled yet.
const UNFILLED: u32 = 0;
/// The interpreter answers (a fault, or a move out of the domains).
const INTERPRETED: u32 = u32::MAX;

/// Every process's remembered moves.
pub(super) struct MoveMemo<'s> {
    space: &'s Space,
    /// Per cell of the rows: the free cell whose value it holds.
    originals: Vec<Option<usize>>,
    stride: usize,
    /// Per process: its entries' numbers, from a configuration's code
    /// (the cells it reads number them).
    numbers: EntryNumbers,
    /// The entries.
    entries: Vec<Entry>,
    /// Per invariant: its place among the local ones remembered.
    local_invariants: Vec<Option<u32>>,
    /// The first invariant `acyclic(x -> y : body)` with `body` local to
    /// x, whose arcs are remembered.
    acyclic: Option<usize>,
}

/// What a process's entry remembers.
struct Entry {
    /// `UNFILLED`, `INTERPRETED`, or one more than the action
    /// (`NO_ACTION` included).
    tag: AtomicU32,
    /// `UNFILLED`, `INTERPRETED`, or `FILLED` with a bit (`1 << (2 + l)`)
    /// for each of the first [`LOCAL_INVARIANTS`] local invariants (the
    /// `l`-th) whose body holds at the process.
    holding: AtomicU32,
    /// What the move adds to the code (written before `tag`).
    delta: AtomicI64,
    /// The arcs from the process under the acyclicity remembered, as bits
    /// of the processes they lead to (written before `holding`).
    arcs: AtomicU64,
}

/// An entry of `holding` filled.
const FILLED: u32 = 1;

/// The most local invariants remembered (the bits of a `holding` entry).
const LOCAL_INVARIANTS: u32 = 30;

/// Which invariants hold in a configuration, from the memo.
pub(super) struct Holding<'m> {
    local_invariants: &'m [Option<u32>],
    /// The bits every process's entry has.
    all: u32,
    /// The acyclicity invariant remembered, and whether it holds.
    acyclic: Option<(usize, bool)>,
}

impl Holding<'_> {
    /// Whether invariant `j` holds, when it is one of those remembered.
    pub(super) fn holds(&self, j: usize) -> Option<bool> {
        match (self.local_invariants[j], self.acyclic) {
            (Some(l), _) => Some(self.all & (1 << (2 + l)) != 0),
            (None, Some((a, holds))) if a == j => Some(holds),
            _ => None,
        }
    }
}

/// Whether the arcs `out` (from each process, as bits of the processes
/// they lead to; at most 64) form no cycle: taking away, again and again,
/// the processes with no arc to one left takes every process away.
fn acyclic(out: &[u64]) -> bool {
    // A process with no arc is on no cycle: only the others are looked at.
    let mut left = out
        .iter()
        .take(64)
        .enumerate()
        .fold(0u64, |left, (x, &arcs)| left | u64::from(arcs != 0) << x);
    while left != 0 {
        let mut sinks = 0u64;
        let mut rest = left;
        while rest != 0 {
            let x = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if out[x] & left == 0 {
                sinks |= 1 << x;
            }
        }
        if sinks == 0 {
            return false;
        }
        left &= !sinks;
    }
    true
}

impl<'s> MoveMemo<'s> {
    /// The memo of `inst` (a program without channels) over `space`, when
    /// every process's entries together are at most [`MOST_ENTRIES`].
    pub(super) fn new(inst: &Instance, space: &'s Space) -> Option<Self> {
        if inst.code.capacity.is_some() || inst.prog.draws || !inst.code.timers.is_empty() {
            return None;
        }
        let (topo, code, prog) = (&inst.topo, &inst.code, &inst.prog);
        let stride = code.stride;
        let edge_var = |v: usize| prog.vars[v].kind == VarKind::Edge;
        let own_edges_only = prog
            .roles
            .iter()
            .flat_map(|r| &r.actions)
            .all(|a| reads_own_edges_only(a, &edge_var));
        let edge_slot = |slot: usize| edge_var(code.var_of_slot(slot).0);
        let originals = space.originals();
        let cells = ReadCells::new(space, topo.n(), MOST_ENTRIES, |p| {
            // Its own row, through the copies to the cells they copy; its
            // neighbours' rows, without their edges where it reads only its own.
            let mine = (p * stride..(p + 1) * stride).filter_map(|at| originals[at]);
            let originals = &originals;
            let theirs = topo.nbrs(p).iter().flat_map(move |&q| {
                (0..stride)
                    .filter(move |&slot| !(own_edges_only && edge_slot(slot)))
                    .filter_map(move |slot| originals[q as usize * stride + slot])
            });
            mine.chain(theirs).collect()
        })?;
        let numbers = EntryNumbers::new(space, &cells)?;
        let total = cells.total();
        let rel = inst.step_relation();
        let mut locals = 0;
        let local_invariants = (0..rel.invariant_count())
            .map(|j| {
                let l = (rel.invariant_is_local(j) && locals < LOCAL_INVARIANTS).then_some(locals);
                locals += u32::from(l.is_some());
                l
            })
            .collect();
        let acyclic = (0..rel.invariant_count()).find(|&j| rel.invariant_is_local_acyclic(j));
        let entries = (0..total)
            .map(|_| Entry {
                tag: AtomicU32::new(UNFILLED),
                holding: AtomicU32::new(UNFILLED),
                delta: AtomicI64::new(0),
                arcs: AtomicU64::new(0),
            })
            .collect();
        Some(MoveMemo {
            space,
            originals,
            stride,
            numbers,
            entries,
            local_invariants,
            acyclic,
        })
    }

    /// Every process's entry number for the configuration of code
    /// `code` into `entries`.
    #[inline]
    pub(super) fn numbers_into(&self, code: u64, entries: &mut Vec<usize>) {
        self.numbers.numbers_into(code, entries);
    }

    /// What the entries `entries` (one per process) answer, where every
    /// one is filled and none is left to the interpreter: each process's
    /// first enabled action and its move's delta onto `chosen` and
    /// `delta` (both emptied first), and which invariants hold (the arcs
    /// under the acyclicity remembered left in `arcs`). `None`
    /// otherwise: [`MoveMemo::moves`] and [`MoveMemo::holding`] then
    /// fill what is not, from the configuration.
    #[inline]
    pub(super) fn answers(
        &self,
        entries: &[usize],
        chosen: &mut Vec<u16>,
        delta: &mut Vec<i64>,
        arcs: &mut Vec<u64>,
    ) -> Option<Holding<'_>> {
        chosen.clear();
        delta.clear();
        arcs.clear();
        let mut all = u32::MAX;
        for &k in entries {
            let entry = &self.entries[k];
            let (tag, bits) = (
                entry.tag.load(Ordering::Acquire),
                entry.holding.load(Ordering::Acquire),
            );
            if [tag, bits]
                .iter()
                .any(|&t| t == UNFILLED || t == INTERPRETED)
            {
                return None;
            }
            chosen.push((tag - 1) as u16);
            delta.push(entry.delta.load(Ordering::Relaxed));
            all &= bits;
            arcs.push(entry.arcs.load(Ordering::Relaxed));
        }
        Some(self.holding_of(all, arcs))
    }

    /// Whether every invariant is remembered (local, or the acyclicity's).
    pub(super) fn answers_every_invariant(&self) -> bool {
        (0..self.local_invariants.len())
            .all(|j| self.local_invariants[j].is_some() || self.acyclic == Some(j))
    }

    /// Process `p`'s first enabled action in `cfg` (a configuration of the
    /// space, where `p`'s entry is `k`; read only to fill the entry) and
    /// what its move adds to the code; `None` where the interpreter must
    /// answer.
    #[inline]
    pub(super) fn moves(
        &self,
        rel: &StepRelation,
        cfg: &Config,
        p: usize,
        k: usize,
    ) -> Option<(u16, i64)> {
        let entry = &self.entries[k];
        let tag = match entry.tag.load(Ordering::Acquire) {
            UNFILLED => self.fill(rel, cfg, p, k),
            tag => tag,
        };
        (tag != INTERPRETED).then(|| ((tag - 1) as u16, entry.delta.load(Ordering::Relaxed)))
    }

    /// Which invariants hold in `cfg`, where every process's first enabled
    /// action is `chosen` and its entry in `entries` (`cfg` is read only
    /// to fill entries); `None` where the interpreter must answer.
    pub(super) fn holding(
        &self,
        rel: &StepRelation,
        cfg: &Config,
        chosen: &Vec<u16>,
        entries: &[usize],
    ) -> Option<Holding<'_>> {
        let mut all = u32::MAX;
        let mut out = [0u64; 64];
        for (p, &k) in entries.iter().enumerate() {
            let entry = &self.entries[k];
            let bits = match entry.holding.load(Ordering::Acquire) {
                UNFILLED => self.fill_holding(rel, cfg, chosen, p, k),
                bits => bits,
            };
            if bits == INTERPRETED {
                return None;
            }
            all &= bits;
            if self.acyclic.is_some() {
                out[p] = entry.arcs.load(Ordering::Relaxed);
            }
        }
        Some(self.holding_of(all, &out[..entries.len()]))
    }

    /// Which invariants hold where every process's entry has the bits
    /// `all` in common and `out` are the processes' arcs.
    fn holding_of(&self, all: u32, out: &[u64]) -> Holding<'_> {
        Holding {
            local_invariants: &self.local_invariants,
            all,
            acyclic: self.acyclic.map(|j| (j, acyclic(out))),
        }
    }

    /// Evaluates the local invariants' bodies at process `p` of `cfg`
    /// into entry `k`: its bits.
    #[cold]
    fn fill_holding(
        &self,
        rel: &StepRelation,
        cfg: &Config,
        chosen: &Vec<u16>,
        p: usize,
        k: usize,
    ) -> u32 {
        let mut bits = FILLED;
        for (j, l) in self.local_invariants.iter().enumerate() {
            let Some(l) = l else { continue };
            match rel.invariant_holds_at(cfg, chosen, j, p) {
                Ok(Some(true)) => bits |= 1 << (2 + l),
                Ok(_) => {}
                Err(_) => bits = INTERPRETED,
            }
            if bits == INTERPRETED {
                break;
            }
        }
        if let Some(j) = self.acyclic.filter(|_| bits != INTERPRETED) {
            match rel.arcs_at(cfg, chosen, j, p) {
                Ok(arcs) => self.entries[k]
                    .arcs
                    .store(arcs.unwrap_or(0), Ordering::Relaxed),
                Err(_) => bits = INTERPRETED,
            }
        }
        self.entries[k].holding.store(bits, Ordering::Release);
        bits
    }

    /// Interprets process `p` in `cfg` into entry `k`: its tag.
    #[cold]
    fn fill(&self, rel: &StepRelation, cfg: &Config, p: usize, k: usize) -> u32 {
        let (tag, delta) = match rel.first_enabled(cfg, p) {
            Ok(None) => (u32::from(NO_ACTION) + 1, Some(0)),
            Ok(Some(a)) => (a + 1, self.delta(rel, cfg, p, a)),
            Err(_) => (INTERPRETED, None),
        };
        let Some(delta) = delta else {
            self.entries[k].tag.store(INTERPRETED, Ordering::Release);
            return INTERPRETED;
        };
        self.entries[k].delta.store(delta, Ordering::Relaxed);
        self.entries[k].tag.store(tag, Ordering::Release);
        tag
    }

    /// What process `p`'s action `a` in `cfg` adds to the code: its row's
    /// changes, an edge's at the cell its far end copies; `None` when it
    /// faults or leaves the domains.
    fn delta(&self, rel: &StepRelation, cfg: &Config, p: usize, a: u32) -> Option<i64> {
        let after = rel.moved_row(cfg, p as u32, a).ok()?;
        let mine = p * self.stride..(p + 1) * self.stride;
        let mut sum = 0i128;
        for (at, new) in mine.zip(after) {
            let (old, new) = (cfg.rows[at], new.get());
            if old != new {
                sum += self.space.delta(self.originals[at]?, old, new)?;
            }
        }
        i64::try_from(sum).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether the arcs have a cycle, by depth-first search.
    fn has_cycle(out: &[u64]) -> bool {
        fn visit(x: usize, out: &[u64], mark: &mut [u8]) -> bool {
            mark[x] = 1;
            for y in 0..out.len() {
                if out[x] >> y & 1 == 1 && (mark[y] == 1 || mark[y] == 0 && visit(y, out, mark)) {
                    return true;
                }
            }
            mark[x] = 2;
            false
        }
        let mut mark = vec![0u8; out.len()];
        (0..out.len()).any(|x| mark[x] == 0 && visit(x, out, &mut mark))
    }

    /// Every graph of three processes, self-loops included.
    #[test]
    fn acyclic_agrees_with_a_search_on_every_small_graph() {
        for graph in 0u64..1 << 9 {
            let out: Vec<u64> = (0..3).map(|x| graph >> (3 * x) & 7).collect();
            assert_eq!(acyclic(&out), !has_cycle(&out), "{out:?}");
        }
    }

    proptest! {
        #[test]
        fn acyclic_agrees_with_a_search(n in 1usize..=64, seed in any::<u64>(), density in 1u32..6) {
            // Sparse random arcs, denser ones forward (x < y): both kinds.
            let mut state = seed | 1;
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let out: Vec<u64> = (0..n)
                .map(|x| {
                    let forward = if x + 1 >= 64 { 0 } else { u64::MAX << (x + 1) };
                    let all = u64::MAX >> (64 - n);
                    (next() & next() & forward | next() & next() & next() & next() >> density) & all
                })
                .collect();
            prop_assert_eq!(acyclic(&out), !has_cycle(&out));
        }
    }

    /// The arbitration program's invariants are all remembered: three
    /// local ones, and Q2's arcs.
    #[test]
    fn the_arbitration_invariants_are_remembered() {
        let src = include_str!("../../programs/arbitration.gc");
        let inst = super::super::test_instance(src, "grid:2x3", &[]);
        let space = inst.space();
        let memo = MoveMemo::new(&inst, &space).expect("a memo");
        assert_eq!(memo.local_invariants, [Some(0), Some(1), None, Some(2)]);
        assert_eq!(memo.acyclic, Some(2));
    }
}
