//! Each process's guards and move as a table. Reads are local: what a
//! process's guards and move say depends only on its own row and its
//! neighbours' (parameters, ids and the topology are fixed). So where
//! those rows take few values, each process's first enabled action and
//! what its move adds to the configuration's index are computed once per
//! value of what it reads, and a configuration's are looked up instead of
//! interpreted. Values whose guards or move fault, or whose move leaves
//! the domains, are not tabulated: the interpreter is asked there and
//! reports it.

use super::read_cells::ReadCells;
use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::space::Space;

/// The most bytes every process's table takes together.
const MOST_BYTES: usize = 32 << 20;

/// What a process does for one value of what it reads.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    /// Its first enabled action, or `NO_ACTION`.
    pub(super) action: u16,
    /// What its move adds to the configuration's index.
    pub(super) delta: i64,
    /// False where the guards or the move fault or the move leaves the
    /// domains: the interpreter is asked instead.
    known: bool,
}

/// Every process's table.
pub(super) struct LocalMoves {
    /// Per process: the cells it reads, which number its entries.
    cells: ReadCells,
    entries: Vec<Entry>,
    /// Per entry: the process's row after its move (`stride` values;
    /// its row before where it does not move or the entry is not known).
    after: Vec<i64>,
    stride: usize,
}

impl LocalMoves {
    /// The tables of `inst` (a program without effects) over `space`,
    /// when they are smaller than the space itself and than
    /// [`MOST_BYTES`]; `None` otherwise (the interpreter then serves).
    pub(super) fn new(inst: &Instance, space: &Space) -> Option<Self> {
        if inst.code.has_effects {
            return None;
        }
        let (topo, stride) = (&inst.topo, inst.code.stride);
        // Its own row and its neighbours'.
        let cells = ReadCells::new(space, topo.n(), usize::MAX, |p| {
            topo.nbrs(p)
                .iter()
                .map(|&q| q as usize)
                .chain([p])
                .flat_map(|q| q * stride..(q + 1) * stride)
                .collect()
        })?;
        let total = cells.total();
        let entry_bytes = std::mem::size_of::<Entry>() + stride * std::mem::size_of::<i64>();
        if total.saturating_mul(entry_bytes) > MOST_BYTES || total as u128 >= space.count() {
            return None;
        }
        let mut entries = Vec::with_capacity(total);
        let mut afters = Vec::with_capacity(total * stride);
        let rel = inst.step_relation();
        let mut cfg = space.config(0);
        for p in 0..topo.n() {
            let reads = cells.reads(p);
            for number in 0..cells.entries(p) {
                for r in reads {
                    cfg.rows[r.at] = r.values[number / r.weight % r.values.len()];
                }
                // Reads are local (the checker and the interpreter see to
                // it), so the rest of `cfg` is never read.
                let mine = p * stride..(p + 1) * stride;
                let mut row = cfg.rows[mine.clone()].to_vec();
                let entry = match rel.first_enabled(&cfg, p) {
                    Ok(None) => Entry {
                        action: NO_ACTION,
                        delta: 0,
                        known: true,
                    },
                    Ok(Some(a)) => match rel.moved_row(&cfg, p as u32, a) {
                        Ok(after) => {
                            let delta = row
                                .iter()
                                .zip(after)
                                .zip(mine)
                                .try_fold(0i128, |sum, ((&old, new), at)| {
                                    Some(sum + space.delta(at, old, new.get())?)
                                })
                                .and_then(|d| i64::try_from(d).ok());
                            if delta.is_some() {
                                row.iter_mut()
                                    .zip(after)
                                    .for_each(|(x, new)| *x = new.get());
                            }
                            Entry {
                                action: a as u16,
                                delta: delta.unwrap_or(0),
                                known: delta.is_some(),
                            }
                        }
                        Err(_) => UNKNOWN,
                    },
                    Err(_) => UNKNOWN,
                };
                afters.extend_from_slice(&row);
                entries.push(entry);
            }
        }
        Some(LocalMoves {
            cells,
            entries,
            after: afters,
            stride,
        })
    }

    /// The number of process `p`'s entry for the rows `rows` (`None` for
    /// a value outside the space).
    #[inline]
    pub(super) fn number(&self, p: usize, rows: &[i64]) -> Option<usize> {
        self.cells.number(p, rows)
    }

    /// The entry numbered `number`, when known.
    #[inline]
    pub(super) fn entry(&self, number: usize) -> Option<Entry> {
        let entry = self.entries[number];
        entry.known.then_some(entry)
    }

    /// Per process: what the next value of the last free slot of `space`
    /// (the one that changes from each configuration to the next) adds to
    /// its entry's number, 0 where it does not read it; `None` where
    /// entries are not numbered from digits.
    pub(super) fn last_slot_weights(&self, space: &Space) -> Option<Vec<usize>> {
        let last = space.radices().len().checked_sub(1)?;
        if !self.cells.numbers_digits() {
            return None;
        }
        let weights = (0..self.cells.processes())
            .map(|p| {
                let reads = self.cells.digit_reads(p).iter();
                reads
                    .filter(|&&(slot, _)| slot as usize == last)
                    .map(|&(_, weight)| weight as usize)
                    .sum()
            })
            .collect();
        Some(weights)
    }

    /// Process `p`'s entry for the rows `rows`, when known.
    #[inline]
    pub(super) fn get(&self, p: usize, rows: &[i64]) -> Option<Entry> {
        self.entry(self.number(p, rows)?)
    }

    /// Process `p`'s row after its move in the rows `rows`, when its
    /// entry is known (its row unchanged where it does not move).
    #[inline]
    pub(super) fn after(&self, p: usize, rows: &[i64]) -> Option<&[i64]> {
        let number = self.cells.number(p, rows)?;
        self.entries[number]
            .known
            .then(|| &self.after[number * self.stride..(number + 1) * self.stride])
    }
}

/// An entry the interpreter answers.
const UNKNOWN: Entry = Entry {
    action: NO_ACTION,
    delta: 0,
    known: false,
};
