//! A function of what one process reads (its moves, or where a predicate's
//! body holds), run on every value of it and kept as a reduced decision
//! diagram over its cells: equal sub-tables shared, a cell whose value
//! does not matter there skipped. The diagrams of the engine are then
//! built once per node of that table, not once per value: a process that
//! reads 10^7 values was a BDD operation on a growing diagram per value
//! (minutes); it is now the compiled guards and statements run per value,
//! on every core, and a BDD operation per distinct sub-table.

use super::encoding::Encoding;
use super::local::oom;
use super::Refusal;
use crate::state::Config;
use oxidd::bdd::BDDFunction as F;
use oxidd::util::AllocResult;
use oxidd::BooleanFunction;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The most values of what one process reads that are run one by one
/// (each is the compiled guards, and statements, run once: about a
/// microsecond).
pub(super) const MOST_VALUATIONS: u128 = 1 << 28;

/// A node number of a [`Table`] with this bit is an outcome's number.
const LEAF: u32 = 1 << 31;

/// What a worker's function gives at each value: the number of its
/// outcome among the outcomes it has seen.
pub(super) trait Outcomes: Send {
    /// The outcome at `cfg`.
    fn at(&mut self, cfg: &Config) -> Result<u32, Refusal>;
}

/// One worker's reduced table over the cells after the ones it was given
/// fixed values of.
struct Table {
    /// Per inner node: its cell's position among the cells read, then its
    /// children (one per value of the cell).
    nodes: Vec<Vec<u32>>,
    root: u32,
}

/// The tables of a function over `cells`, one per value of the first few
/// (one worker each), with each worker's outcomes.
pub(super) struct Tabulated<'e, O> {
    enc: &'e Encoding,
    cells: Vec<usize>,
    /// How many of the first cells the parts split: part `i` holds the
    /// values of those cells that `i` spells (the last varies fastest).
    split: usize,
    parts: Vec<(Table, O)>,
    /// How many values were run.
    pub(super) valuations: u128,
}

/// Runs the function `make()` builds on every value of `cells` (free
/// cells of `enc`, in the order of their bits), the rest of a
/// configuration at the base.
pub(super) fn tabulate<'e, O: Outcomes>(
    enc: &'e Encoding,
    cells: &[usize],
    make: impl Fn() -> O + Sync,
) -> Result<Tabulated<'e, O>, Refusal> {
    let sizes: Vec<usize> = cells.iter().map(|&k| enc.cells[k].values.len()).collect();
    let valuations = sizes
        .iter()
        .try_fold(1u128, |acc, &s| acc.checked_mul(s as u128))
        .filter(|&t| t <= MOST_VALUATIONS)
        .ok_or_else(|| {
            Refusal::Unsupported(format!(
                "a process reads more than {MOST_VALUATIONS} values of its neighbourhood, more than the symbolic engine tabulates; use --engine explicit"
            ))
        })?;
    let room = AtomicU64::new(enc.table_bytes);
    let failed = AtomicUsize::new(usize::MAX);
    // Enough parts to keep every core busy while some finish early.
    let want = rayon::current_num_threads() * 8;
    let (mut split, mut parts) = (0, 1usize);
    while split < cells.len() && parts < want {
        parts *= sizes[split];
        split += 1;
    }
    let parts = (0..parts)
        .into_par_iter()
        .map(|i| {
            let mut cfg = enc.base().clone();
            let mut rest = i;
            for j in (0..split).rev() {
                let c = &enc.cells[cells[j]];
                cfg.rows[c.at] = c.values[rest % sizes[j]];
                rest /= sizes[j];
            }
            let mut out = make();
            let mut builder = Builder {
                enc,
                cells,
                unique: HashMap::new(),
                scratch: vec![Vec::new(); cells.len()],
                key: Vec::new(),
                room: &room,
                part: i,
                failed: &failed,
            };
            let root = builder.build(split, &mut cfg, &mut out)?;
            let mut nodes = vec![Vec::new(); builder.unique.len()];
            for (key, n) in builder.unique {
                nodes[n as usize] = key;
            }
            Ok((Table { nodes, root }, out))
        })
        .collect::<Vec<Result<_, Refusal>>>()
        // The first fault in the order of the values, whichever part
        // found one first: the same fault on every run (a part stops
        // early only after an earlier one failed).
        .into_iter()
        .collect::<Result<Vec<_>, Refusal>>()?;
    Ok(Tabulated {
        enc,
        cells: cells.to_vec(),
        split,
        parts,
        valuations,
    })
}

/// Builds one worker's table, sharing equal sub-tables.
struct Builder<'a> {
    enc: &'a Encoding,
    cells: &'a [usize],
    /// Inner nodes (their cell's position, then their children) and their
    /// numbers.
    unique: HashMap<Vec<u32>, u32>,
    /// Per depth, the children being gathered there.
    scratch: Vec<Vec<u32>>,
    key: Vec<u32>,
    /// Bytes the tables of every worker may still take.
    room: &'a AtomicU64,
    /// This part's number, and the first part that failed (or `usize::MAX`).
    part: usize,
    failed: &'a AtomicUsize,
}

impl Builder<'_> {
    /// The node of the table over cells `j..`, the earlier ones as `cfg`
    /// holds them.
    fn build(
        &mut self,
        j: usize,
        cfg: &mut Config,
        out: &mut impl Outcomes,
    ) -> Result<u32, Refusal> {
        if j == self.cells.len() {
            return match out.at(cfg) {
                Ok(o) => Ok(LEAF | o),
                Err(e) => {
                    self.failed.fetch_min(self.part, Ordering::Relaxed);
                    Err(e)
                }
            };
        }
        // A part before this one failed: what this one finds is not told.
        if self.failed.load(Ordering::Relaxed) < self.part {
            return Err(Refusal::OutOfNodes);
        }
        let cell = &self.enc.cells[self.cells[j]];
        let mut kids = std::mem::take(&mut self.scratch[j]);
        kids.clear();
        for &v in &cell.values {
            cfg.rows[cell.at] = v;
            kids.push(self.build(j + 1, cfg, out)?);
        }
        let node = if kids.iter().all(|&k| k == kids[0]) {
            kids[0]
        } else {
            self.key.clear();
            self.key.push(j as u32);
            self.key.extend_from_slice(&kids);
            match self.unique.get(self.key.as_slice()) {
                Some(&n) => n,
                None => {
                    // The key, its heap block and its entry in the map.
                    let bytes = 4 * self.key.len() as u64 + 64;
                    let taken = self
                        .room
                        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                            r.checked_sub(bytes)
                        });
                    if taken.is_err() {
                        self.failed.fetch_min(self.part, Ordering::Relaxed);
                        return Err(Refusal::OutOfNodes);
                    }
                    let n = self.unique.len() as u32;
                    self.unique.insert(self.key.clone(), n);
                    n
                }
            }
        };
        self.scratch[j] = kids;
        Ok(node)
    }
}

impl<O> Tabulated<'_, O> {
    /// Every worker's outcomes.
    pub(super) fn outcomes_mut(&mut self) -> impl Iterator<Item = &mut O> {
        self.parts.iter_mut().map(|(_, o)| o)
    }

    /// The function over the cells' bits whose value at each value of the
    /// cells is `leaf(outcomes, number)` of the outcome there.
    pub(super) fn function(
        &self,
        mut leaf: impl FnMut(&O, u32) -> AllocResult<F>,
    ) -> Result<F, Refusal> {
        let mut tops = Vec::with_capacity(self.parts.len());
        for (table, outcomes) in &self.parts {
            let mut memo = vec![None; table.nodes.len()];
            let mut leaves: HashMap<u32, F> = HashMap::new();
            let mut at_leaf = |o: u32| -> AllocResult<F> {
                if let Some(f) = leaves.get(&o) {
                    return Ok(f.clone());
                }
                let f = leaf(outcomes, o)?;
                leaves.insert(o, f.clone());
                Ok(f)
            };
            tops.push(
                self.node(table, table.root, &mut memo, &mut at_leaf)
                    .map_err(oom)?,
            );
        }
        // The parts, joined over the cells they split.
        for j in (0..self.split).rev() {
            let size = self.enc.cells[self.cells[j]].values.len();
            tops = tops
                .chunks(size)
                .map(|kids| over_cell(self.enc, self.cells[j], kids))
                .collect::<AllocResult<_>>()
                .map_err(oom)?;
        }
        Ok(tops.pop().expect("one function over every part"))
    }

    /// The function of node `n` of `table`.
    fn node(
        &self,
        table: &Table,
        n: u32,
        memo: &mut [Option<F>],
        leaf: &mut impl FnMut(u32) -> AllocResult<F>,
    ) -> AllocResult<F> {
        if n & LEAF != 0 {
            return leaf(n & !LEAF);
        }
        if let Some(f) = &memo[n as usize] {
            return Ok(f.clone());
        }
        let node = &table.nodes[n as usize];
        let k = self.cells[node[0] as usize];
        let mut kids = Vec::with_capacity(node.len() - 1);
        for &kid in &node[1..] {
            kids.push(self.node(table, kid, memo, leaf)?);
        }
        let f = over_cell(self.enc, k, &kids)?;
        memo[n as usize] = Some(f.clone());
        Ok(f)
    }
}

/// The function that is `kids[i]` where free cell `k` holds its `i`-th
/// value (false where its bits spell no value).
fn over_cell(enc: &Encoding, k: usize, kids: &[F]) -> AllocResult<F> {
    fn below(enc: &Encoding, k: usize, kids: &[F], bit: usize, place: usize) -> AllocResult<F> {
        let width = enc.width(k);
        if bit == width {
            return Ok(kids.get(place).cloned().unwrap_or_else(|| enc.falsity()));
        }
        let high = place | 1 << (width - 1 - bit);
        if high >= kids.len() {
            // No value has this bit set here.
            let other = below(enc, k, kids, bit + 1, place)?;
            return enc.bit(k, bit).not()?.and(&other);
        }
        let then = below(enc, k, kids, bit + 1, high)?;
        let other = below(enc, k, kids, bit + 1, place)?;
        enc.bit(k, bit).ite(&then, &other)
    }
    below(enc, k, kids, 0, 0)
}
