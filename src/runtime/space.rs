//! The state space of an instance: every configuration its variables'
//! domains allow, enumerated one after the other (the arbitrary starts of
//! self-stabilization), and a compact encoding of a configuration for an
//! explorer that must store millions of them.
//!
//! Each process's slots range over their declared domains (a node
//! reference over the process and its neighbours); an edge variable is
//! free at the edge's smaller end and copied to the other, so both ends
//! agree; per-neighbour slots beyond a process's neighbours keep the
//! domain's first value. Channels start empty: a program that passes
//! messages is explored from given starts, not from every configuration.

use crate::check::ir::{self, VarKind};
use crate::compile::{Compiled, VarDomain};
use crate::state::channels::Channels;
use crate::state::Config;
use crate::topology::Topology;

mod halves;

/// Division by a fixed count, the fastest way that is exact for the
/// numbers divided: a mask and a shift for a power of two; else, where
/// every number divided is below 2^64 over the count, a multiplication by
/// the count's reciprocal (`2^64 / count`, rounded up); else a division.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Divisor {
    count: u64,
    shift: Option<u32>,
    reciprocal: Option<u64>,
}

impl Divisor {
    /// Division by `count` (at least 1) of numbers below `below`: with
    /// m = 2^64 / d rounded up, (n * m) >> 64 is n / d for every n with
    /// n * d below 2^64.
    pub(crate) fn new(count: u64, below: u128) -> Self {
        let shift = count.is_power_of_two().then(|| count.trailing_zeros());
        let exact = below
            .checked_mul(u128::from(count))
            .is_some_and(|c| c <= 1 << 64);
        Divisor {
            count,
            shift,
            reciprocal: (shift.is_none() && exact).then(|| u64::MAX / count + 1),
        }
    }

    /// `index` split into its remainder and its quotient.
    #[inline]
    pub(crate) fn split(&self, index: u64) -> (u64, u64) {
        match (self.shift, self.reciprocal) {
            (Some(shift), _) => (index & (self.count - 1), index >> shift),
            (None, Some(m)) => {
                let rest = ((u128::from(index) * u128::from(m)) >> 64) as u64;
                (index - rest * self.count, rest)
            }
            (None, None) => (index % self.count, index / self.count),
        }
    }
}

/// One slot that varies independently: its place in the rows and its
/// values, and how a code is divided by their count to take its digit.
#[derive(Clone, Debug)]
struct Free {
    at: usize,
    values: Vec<i64>,
    divisor: Divisor,
}

impl Free {
    fn new(at: usize, values: Vec<i64>) -> Self {
        // Reciprocals wait for the count of the whole space.
        let divisor = Divisor::new(values.len() as u64, u128::MAX);
        Free {
            at,
            values,
            divisor,
        }
    }

    /// `index` split into its last digit (for this slot) and the rest.
    #[inline]
    fn split(&self, index: u64) -> (u64, u64) {
        self.divisor.split(index)
    }

    /// Where `v` sits among the values.
    #[inline]
    fn position(&self, v: i64) -> Option<usize> {
        // Ranges, the usual domains, are consecutive: no search.
        let first = self.values[0];
        let k = v.wrapping_sub(first) as usize;
        if self.values.get(k) == Some(&v) {
            return Some(k);
        }
        self.values.iter().position(|&x| x == v)
    }
}

/// Every configuration of an instance, in a fixed order: the last free
/// slot varies fastest. Also a bijection between configurations (with
/// empty channels) and `0..count()`, which is their compact encoding.
#[derive(Clone, Debug)]
pub struct Space {
    base: Vec<i64>,
    free: Vec<Free>,
    /// (copy, original): slots that repeat another (an edge's far end).
    mirrors: Vec<(usize, usize)>,
    chans: Channels,
    /// Per free slot: what one more of its values adds to the index.
    weights: Vec<u128>,
    /// Per cell of the rows: its free slot, or `NOT_FREE`.
    free_at: Vec<u32>,
    /// A configuration's code in two 64-bit halves, where it has one
    /// (boxed: a store holding a space stays small beside its others).
    halves: Option<Box<halves::Halves>>,
}

const NOT_FREE: u32 = u32::MAX;

impl Space {
    /// The state space of `prog` compiled as `code` on `topo`.
    pub(crate) fn new(prog: &ir::Program, code: &Compiled, topo: &Topology) -> Self {
        Self::over(prog, code, topo, &code.domains)
    }

    /// The arbitrary starts of `prog` compiled as `code` on `topo`: every
    /// configuration whose values lie in the declared `random` ranges (the
    /// domains where none is declared), as `--init random` draws them.
    pub(crate) fn arbitrary(prog: &ir::Program, code: &Compiled, topo: &Topology) -> Self {
        Self::over(prog, code, topo, &code.arbitrary)
    }

    /// Every configuration with each slot's values in `domains`.
    fn over(prog: &ir::Program, code: &Compiled, topo: &Topology, domains: &[VarDomain]) -> Self {
        let stride = code.stride;
        let mut base = vec![0; topo.n() * stride];
        let (mut free, mut mirrors) = (Vec::new(), Vec::new());
        for p in 0..topo.n() {
            for (slot, d) in domains.iter().enumerate() {
                let at = p * stride + slot;
                let (v, k) = code.var_of_slot(slot);
                let nbr = k.filter(|_| code.per_nbr[v]);
                match nbr {
                    Some(k) if k >= topo.nbr_count(p) => {
                        // The same filler whatever the values drawn from.
                        base[at] = crate::runtime::init::unused_value(&code.domains[slot], p);
                    }
                    Some(k) if prog.vars[v].kind == VarKind::Edge => {
                        let q = topo.nbrs(p)[k] as usize;
                        match topo.nbr_pos(q, p) {
                            // The smaller end holds the value; the other copies it.
                            Some(j) if q < p => {
                                mirrors.push((at, q * stride + code.offsets[v] + j))
                            }
                            _ => {
                                let values = match d {
                                    VarDomain::Node => vec![p as i64, q as i64],
                                    d => d.values(p, topo),
                                };
                                free.push(Free::new(at, values));
                            }
                        }
                    }
                    // A variable of another role: its declared value only.
                    _ => free.push(Free::new(
                        at,
                        match code.fixed_at(v, p) {
                            Some(x) => vec![x],
                            None => d.values(p, topo),
                        },
                    )),
                }
            }
        }
        for f in &free {
            base[f.at] = f.values[0];
        }
        let mut weights = vec![1u128; free.len()];
        for k in (0..free.len().saturating_sub(1)).rev() {
            weights[k] = weights[k + 1].saturating_mul(free[k + 1].values.len() as u128);
        }
        let mut free_at = vec![NOT_FREE; base.len()];
        for (k, f) in free.iter().enumerate() {
            free_at[f.at] = k as u32;
        }
        let mut space = Space {
            base,
            free,
            mirrors,
            chans: Channels::new(topo, code.capacity),
            weights,
            free_at,
            halves: None,
        };
        space.take_reciprocals();
        space
    }

    /// Gives each free slot the divisor that is exact for every code of
    /// the space (each below the count), and the space its code in halves.
    fn take_reciprocals(&mut self) {
        let count = self.count();
        for f in &mut self.free {
            f.divisor = Divisor::new(f.values.len() as u64, count);
        }
        self.halves = halves::Halves::new(&self.radices()).map(Box::new);
    }

    /// Per free slot, in order (the last varies fastest), how many values
    /// it takes.
    pub(crate) fn radices(&self) -> Vec<u64> {
        self.free.iter().map(|f| f.values.len() as u64).collect()
    }

    /// How many configurations there are (saturating at `u128::MAX`).
    pub fn count(&self) -> u128 {
        self.free
            .iter()
            .try_fold(1u128, |acc, f| acc.checked_mul(f.values.len() as u128))
            .unwrap_or(u128::MAX)
    }

    /// The `index`-th configuration (`index < count()`).
    pub fn config(&self, mut index: u128) -> Config {
        let mut rows = self.base.clone();
        for f in self.free.iter().rev() {
            let len = f.values.len() as u128;
            rows[f.at] = f.values[(index % len) as usize];
            index /= len;
        }
        self.copy_mirrors(&mut rows);
        Config {
            rows,
            chans: self.chans.clone(),
        }
    }

    /// The index of `cfg` among [`Space::config`]'s, when its free slots
    /// hold values of their domains (channels are not encoded).
    pub fn index(&self, cfg: &Config) -> Option<u128> {
        let mut index = 0u128;
        for f in &self.free {
            let k = f.position(cfg.rows[f.at])?;
            index = index * f.values.len() as u128 + k as u128;
        }
        Some(index)
    }

    /// [`Space::index`] in a space of at most 2^64 configurations, in
    /// 64-bit arithmetic (a third of the 128-bit one's instructions).
    #[inline]
    pub fn index_u64(&self, cfg: &Config) -> Option<u64> {
        self.index_of_rows(&cfg.rows)
    }

    /// [`Space::index_u64`] of a configuration whose rows are `rows`.
    #[inline]
    pub fn index_of_rows(&self, rows: &[i64]) -> Option<u64> {
        // Every index is below the count: at most 2^64 of them fit.
        debug_assert!(self.count() <= 1 << 64);
        let mut index = 0u64;
        for f in &self.free {
            let k = f.position(rows[f.at])?;
            index = index * f.values.len() as u64 + k as u64;
        }
        Some(index)
    }

    /// Overwrites `cfg` (a configuration of this space) with the
    /// `index`-th, allocating nothing.
    pub(crate) fn decode_into(&self, mut index: u64, cfg: &mut Config) {
        for f in self.free.iter().rev() {
            let (digit, rest) = f.split(index);
            cfg.rows[f.at] = f.values[digit as usize];
            index = rest;
        }
        self.copy_mirrors(&mut cfg.rows);
    }

    /// The free slot (its place in the free slots' order) at cell `at` of
    /// the rows, if it is one.
    pub(crate) fn free_slot(&self, at: usize) -> Option<usize> {
        let k = *self.free_at.get(at)?;
        (k != NOT_FREE).then_some(k as usize)
    }

    /// Turns `cfg`, a configuration of the space (not the last), into the
    /// next: the last free slot moves on, and carries like an odometer.
    /// Returns how many free slots, counted from the last, changed.
    pub(crate) fn advance(&self, cfg: &mut Config) -> usize {
        // No division: each slot's value says where it is (one outside
        // the domain, never met in a configuration of the space, starts over).
        let mut changed = 0;
        for f in self.free.iter().rev() {
            changed += 1;
            let k = f.position(cfg.rows[f.at]).map_or(0, |k| k + 1);
            if k < f.values.len() {
                cfg.rows[f.at] = f.values[k];
                break;
            }
            cfg.rows[f.at] = f.values[0];
        }
        self.copy_mirrors(&mut cfg.rows);
        changed
    }

    /// Turns `cfg`, the configuration `from`, into configuration `to`,
    /// rewriting the free slots from the last up to the last where they
    /// differ. Returns how many it rewrote.
    pub(crate) fn redecode(&self, cfg: &mut Config, from: u64, to: u64) -> usize {
        let (mut from, mut to) = (from, to);
        let mut changed = 0;
        for f in self.free.iter().rev() {
            if from == to {
                break;
            }
            let len = f.values.len() as u64;
            cfg.rows[f.at] = f.values[(to % len) as usize];
            changed += 1;
            (from, to) = (from / len, to / len);
        }
        self.copy_mirrors(&mut cfg.rows);
        changed
    }

    /// Where each free slot is in the rows, in order (the last varies
    /// fastest); `None` when some slot copies another (an edge's far end),
    /// so that a change shows in more places than these.
    pub(crate) fn free_cells(&self) -> Option<Vec<usize>> {
        self.mirrors
            .is_empty()
            .then(|| self.free.iter().map(|f| f.at).collect())
    }

    /// The values of cell `at` of the rows, in index order, when it is
    /// free to vary (not a fixed value, nor a copy of an edge's other end).
    pub(crate) fn values_at(&self, at: usize) -> Option<&[i64]> {
        let k = *self.free_at.get(at)?;
        (k != NOT_FREE).then(|| &self.free[k as usize].values[..])
    }

    /// Per cell of the rows, the free cell whose value it holds: itself,
    /// or for an edge's far end the near end it copies; `None` for a
    /// fixed value.
    pub(crate) fn originals(&self) -> Vec<Option<usize>> {
        let mut originals: Vec<Option<usize>> = (0..self.base.len())
            .map(|at| self.values_at(at).map(|_| at))
            .collect();
        for &(copy, original) in &self.mirrors {
            originals[copy] = Some(original);
        }
        originals
    }

    /// Overwrites, in `cfg`, the free cells among `cells` with their
    /// values in configuration `index` (of a space of at most 2^64).
    pub(crate) fn decode_cells(&self, index: u64, cfg: &mut Config, cells: std::ops::Range<usize>) {
        for at in cells {
            let k = self.free_at[at];
            if k == NOT_FREE {
                continue;
            }
            let f = &self.free[k as usize];
            let digit = (index / self.weights[k as usize] as u64) % f.values.len() as u64;
            cfg.rows[at] = f.values[digit as usize];
        }
    }

    /// What changing cell `at` of the rows from `old` to `new` adds to a
    /// configuration's index; `None` when the cell is not free to change
    /// (a fixed value, a copy of an edge's other end) or `new` is not one
    /// of its values.
    #[inline]
    pub(crate) fn delta(&self, at: usize, old: i64, new: i64) -> Option<i128> {
        if old == new {
            return Some(0);
        }
        let (k, places) = self.slot_move(at, old, new)?;
        Some(places * self.weights[k] as i128)
    }

    /// The free slot of cell `at` and how many places among its values
    /// `new` is after `old`; `None` where the cell is not free to change
    /// or either is not one of its values.
    #[inline]
    fn slot_move(&self, at: usize, old: i64, new: i64) -> Option<(usize, i128)> {
        let k = self.free_at[at];
        if k == NOT_FREE {
            return None;
        }
        let f = &self.free[k as usize];
        let (from, to) = (f.position(old)?, f.position(new)?);
        Some((k as usize, to as i128 - from as i128))
    }

    /// Makes each cell that copies another (an edge's far end) hold its
    /// original's value.
    #[inline]
    fn copy_mirrors(&self, rows: &mut [i64]) {
        for &(copy, original) in &self.mirrors {
            rows[copy] = rows[original];
        }
    }

    /// Every configuration, in index order.
    pub fn iter(&self) -> impl Iterator<Item = Config> + '_ {
        (0..self.count()).map(|i| self.config(i))
    }
}

#[cfg(test)]
mod tests {
    use super::Divisor;
    use crate::load::{load, read_file, Setup};
    use proptest::prelude::*;

    proptest! {
        /// A digit taken with the reciprocal is the remainder, and the
        /// rest the quotient, for every index below 2^64 over the count
        /// (the most a divisor takes its reciprocal for), the largest
        /// included.
        #[test]
        fn reciprocals_divide_exactly(len in 2u64..5000, at in any::<u64>(), top in any::<bool>()) {
            prop_assume!(!len.is_power_of_two());
            let below = ((1u128 << 64) / u128::from(len)) as u64;
            let divisor = Divisor::new(len, u128::from(below));
            prop_assert!(divisor.reciprocal.is_some());
            let index = if top { below - 1 - at % 64 } else { at % below };
            prop_assert_eq!(divisor.split(index), (index % len, index / len));
        }
    }

    /// Stepping on from each configuration, and rewriting it into any
    /// other, gives the configuration of that number, with the free slots
    /// that changed counted alike; domains that are not ranges included.
    #[test]
    fn advance_and_redecode_agree_with_config() {
        let src = "enum Colour = {red, green, blue}\nvar c: Colour = red\nvar x: 0..2 = 0\n\
                   edge var e: bool = false\nprocess {\n    a :: c == red -> c := green\n}\n";
        let setup = Setup {
            topology: Some("chain:3".into()),
            ..Setup::default()
        };
        let inst = load(src, &setup, &read_file).unwrap_or_else(|e| panic!("{e:?}"));
        let space = inst.space();
        let count = space.count() as u64;
        assert!(count > 100, "{count} configurations");
        let mut cfg = space.config(0);
        for i in 1..count {
            let mut again = cfg.clone();
            let changed = space.advance(&mut cfg);
            assert_eq!(cfg, space.config(u128::from(i)), "after {i}");
            assert_eq!(space.redecode(&mut again, i - 1, i), changed, "at {i}");
            assert_eq!(again, cfg);
            let far = (i * 37) % count;
            let mut there = cfg.clone();
            space.redecode(&mut there, i, far);
            assert_eq!(there, space.config(u128::from(far)), "{i} to {far}");
            space.decode_into(far, &mut there);
            assert_eq!(there, space.config(u128::from(far)), "{far} decoded");
        }
    }
}
