//! Each process's guards and move as a table. Reads are local: what a
//! process's guards and move say depends only on its own row and its
//! neighbours' (parameters, ids and the topology are fixed). So where
//! those rows take few values, each process's first enabled action and
//! what its move adds to the configuration's index are computed once per
//! value of what it reads, and a configuration's are looked up instead of
//! interpreted. Values whose guards or move fault, or whose move leaves
//! the domains, are not tabulated: the interpreter is asked there and
//! reports it.

use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::space::Space;

/// The most bytes every process's table takes together.
const MOST_BYTES: usize = 32 << 20;

/// A cell a process reads: where it is in the rows, its values, and what
/// one more of its values adds to the entry's number.
struct Read {
    at: usize,
    values: Vec<i64>,
    weight: usize,
    /// The first value, when the values are consecutive (a range, the
    /// usual domain): a value's place is then found with no search.
    range_from: Option<i64>,
}

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
    /// Per process: where its reads and its entries begin.
    reads_from: Vec<usize>,
    entries_from: Vec<usize>,
    reads: Vec<Read>,
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
        let mut tables = LocalMoves {
            reads_from: Vec::with_capacity(topo.n() + 1),
            entries_from: Vec::with_capacity(topo.n() + 1),
            reads: Vec::new(),
            entries: Vec::new(),
            after: Vec::new(),
            stride,
        };
        let mut total = 0usize;
        for p in 0..topo.n() {
            tables.reads_from.push(tables.reads.len());
            tables.entries_from.push(total);
            let mut procs: Vec<usize> = topo.nbrs(p).iter().map(|&q| q as usize).collect();
            procs.push(p);
            procs.sort_unstable();
            procs.dedup();
            let mut size = 1usize;
            for q in procs {
                for at in q * stride..(q + 1) * stride {
                    let Some(values) = space.values_at(at).filter(|v| v.len() > 1) else {
                        continue;
                    };
                    let consecutive = values.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]));
                    tables.reads.push(Read {
                        at,
                        values: values.to_vec(),
                        weight: size,
                        range_from: consecutive.then_some(values[0]),
                    });
                    size = size.checked_mul(values.len())?;
                }
            }
            total = total.checked_add(size)?;
        }
        tables.reads_from.push(tables.reads.len());
        tables.entries_from.push(total);
        let entry_bytes = std::mem::size_of::<Entry>() + stride * std::mem::size_of::<i64>();
        if total.saturating_mul(entry_bytes) > MOST_BYTES || total as u128 >= space.count() {
            return None;
        }
        tables.entries.reserve_exact(total);
        tables.after.reserve_exact(total * stride);
        let rel = inst.step_relation();
        let mut cfg = space.config(0);
        for p in 0..topo.n() {
            let reads = &tables.reads[tables.reads_from[p]..tables.reads_from[p + 1]];
            let size = tables.entries_from[p + 1] - tables.entries_from[p];
            for number in 0..size {
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
                tables.after.extend_from_slice(&row);
                tables.entries.push(entry);
            }
        }
        Some(tables)
    }

    /// The number of process `p`'s entry for the rows `rows`.
    #[inline]
    fn number(&self, p: usize, rows: &[i64]) -> Option<usize> {
        let mut number = self.entries_from[p];
        for r in &self.reads[self.reads_from[p]..self.reads_from[p + 1]] {
            let v = rows[r.at];
            let k = match r.range_from {
                Some(first) => {
                    Some(v.wrapping_sub(first) as usize).filter(|&k| k < r.values.len())?
                }
                None => r.values.iter().position(|&x| x == v)?,
            };
            number += k * r.weight;
        }
        Some(number)
    }

    /// Process `p`'s entry for the rows `rows`, when known.
    #[inline]
    pub(super) fn get(&self, p: usize, rows: &[i64]) -> Option<Entry> {
        let entry = self.entries[self.number(p, rows)?];
        entry.known.then_some(entry)
    }

    /// Process `p`'s row after its move in the rows `rows`, when its
    /// entry is known (its row unchanged where it does not move).
    #[inline]
    pub(super) fn after(&self, p: usize, rows: &[i64]) -> Option<&[i64]> {
        let number = self.number(p, rows)?;
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
