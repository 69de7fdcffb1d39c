//! The cells of the rows each process reads, and a number for each value
//! they take together: the entry of a process's table (its guards and
//! move, remembered or tabulated) for a configuration. Reads are local,
//! so a process's cells are few, and so are their values.

use crate::runtime::space::Space;

/// A cell a process reads: where it is in the rows, its values, and what
/// one more of its values adds to the entry's number.
pub(super) struct Read {
    pub(super) at: usize,
    pub(super) values: Vec<i64>,
    pub(super) weight: usize,
    /// The first value, when the values are consecutive (a range, the
    /// usual domain): a value's place is then found with no search.
    range_from: Option<i64>,
}

/// A read of consecutive values, packed for the hot loop: the cell, how
/// many values, the first, and the weight.
#[derive(Clone, Copy)]
struct Ranged {
    at: u32,
    len: u32,
    first: i64,
    weight: u64,
}

/// Every process's cells, and where its entries begin among all of them.
pub(super) struct ReadCells {
    reads_from: Vec<usize>,
    entries_from: Vec<usize>,
    reads: Vec<Read>,
    /// Per read, packed, when every read of its process is of
    /// consecutive values (per process: whether they all are).
    ranged: Vec<Ranged>,
    all_ranged: Vec<bool>,
    /// Per read: its free slot in the space and its weight, for entries
    /// numbered from a configuration's digits.
    digit_reads: Vec<(u32, u32)>,
}

impl ReadCells {
    /// The cells `cells_of(p)` of each of `n` processes that vary in
    /// `space` (a fixed value needs no place in the number); `None` when
    /// the entries of all together would be more than `most`.
    pub(super) fn new(
        space: &Space,
        n: usize,
        most: usize,
        cells_of: impl Fn(usize) -> Vec<usize>,
    ) -> Option<Self> {
        let mut read = ReadCells {
            reads_from: Vec::with_capacity(n + 1),
            entries_from: Vec::with_capacity(n + 1),
            reads: Vec::new(),
            ranged: Vec::new(),
            all_ranged: Vec::new(),
            digit_reads: Vec::new(),
        };
        let mut total = 0usize;
        for p in 0..n {
            read.reads_from.push(read.reads.len());
            read.entries_from.push(total);
            let mut cells = cells_of(p);
            cells.sort_unstable();
            cells.dedup();
            let mut size = 1usize;
            for at in cells {
                let Some(values) = space.values_at(at).filter(|v| v.len() > 1) else {
                    continue;
                };
                let consecutive = values.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]));
                read.reads.push(Read {
                    at,
                    values: values.to_vec(),
                    weight: size,
                    range_from: consecutive.then_some(values[0]),
                });
                size = size.checked_mul(values.len())?;
            }
            total = total.checked_add(size).filter(|&t| t <= most)?;
        }
        read.reads_from.push(read.reads.len());
        read.entries_from.push(total);
        read.all_ranged = (0..n)
            .map(|p| read.reads(p).iter().all(|r| r.range_from.is_some()))
            .collect();
        read.ranged = read
            .reads
            .iter()
            .map(|r| {
                Some(Ranged {
                    at: u32::try_from(r.at).ok()?,
                    len: u32::try_from(r.values.len()).ok()?,
                    first: r.range_from.unwrap_or(0),
                    weight: r.weight as u64,
                })
            })
            .collect::<Option<_>>()
            .unwrap_or_default();
        if read.ranged.is_empty() {
            read.all_ranged.iter_mut().for_each(|a| *a = false);
        }
        // A cell with two values or more is a free slot; left empty where
        // a weight is too large.
        read.digit_reads = read
            .reads
            .iter()
            .map(|r| {
                let slot = space.free_slot(r.at)?;
                Some((u32::try_from(slot).ok()?, u32::try_from(r.weight).ok()?))
            })
            .collect::<Option<_>>()
            .unwrap_or_default();
        Some(read)
    }

    /// How many entries all processes have together.
    pub(super) fn total(&self) -> usize {
        self.entries_from.last().copied().unwrap_or(0)
    }

    /// Process `p`'s cells.
    pub(super) fn reads(&self, p: usize) -> &[Read] {
        &self.reads[self.reads_from[p]..self.reads_from[p + 1]]
    }

    /// How many entries process `p` has.
    pub(super) fn entries(&self, p: usize) -> usize {
        self.entries_from[p + 1] - self.entries_from[p]
    }

    /// Whether entries can be numbered from digits
    /// ([`ReadCells::digit_reads`]).
    pub(super) fn numbers_digits(&self) -> bool {
        self.digit_reads.len() == self.reads.len()
    }

    /// How many processes read.
    pub(super) fn processes(&self) -> usize {
        self.entries_from.len() - 1
    }

    /// Process `p`'s reads as free slots of the space and their weights,
    /// where [`ReadCells::numbers_digits`].
    pub(super) fn digit_reads(&self, p: usize) -> &[(u32, u32)] {
        &self.digit_reads[self.reads_from[p]..self.reads_from[p + 1]]
    }

    /// Where process `p`'s entries begin among all of them.
    pub(super) fn first_entry(&self, p: usize) -> usize {
        self.entries_from[p]
    }

    /// The number of process `p`'s entry for the rows `rows` (of a
    /// configuration of the space; `None` for a value outside it).
    #[inline]
    pub(super) fn number(&self, p: usize, rows: &[i64]) -> Option<usize> {
        let mut number = self.entries_from[p];
        if self.all_ranged[p] {
            for r in &self.ranged[self.reads_from[p]..self.reads_from[p + 1]] {
                let k = rows[r.at as usize].wrapping_sub(r.first) as u64;
                if k >= u64::from(r.len) {
                    return None;
                }
                number += (k * r.weight) as usize;
            }
            return Some(number);
        }
        for r in self.reads(p) {
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
}
