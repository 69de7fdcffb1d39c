//! Every process's entry number straight from a configuration's code, a
//! few digits at a time: an entry's number is a sum over the digits a
//! process reads, so the code's consecutive digits, taken together as one
//! chunk, add to every process's number what a table row says. A code
//! then takes a division per chunk and a row's addition, instead of a
//! division per digit and a multiplication per digit read.

use super::read_cells::ReadCells;
use crate::runtime::space::{Divisor, Space};

/// Table bytes a chunk of several digits may take at most (its rows of
/// one number per process): the tables stay in the nearest caches.
const CHUNK_BYTES: usize = 8 << 10;

/// The most numbers in the tables together (4 bytes each): a single
/// digit of many values, read by few processes among many, would
/// otherwise take a row per value for every process.
const MOST_NUMBERS: usize = 1 << 21;

/// Consecutive digits taken together.
struct Chunk {
    /// How many values they take together, as a divisor of the code.
    divisor: Divisor,
    /// Where the chunk's rows begin in the table.
    at: usize,
}

/// The chunks of a space's codes and what each value of each adds to
/// every process's entry number.
pub(super) struct EntryNumbers {
    /// From the last digit (which varies fastest) on.
    chunks: Vec<Chunk>,
    /// Per chunk, per value, per process: what it adds.
    table: Vec<u32>,
    /// Per process: where its entries begin.
    first: Vec<usize>,
}

impl EntryNumbers {
    /// The entry numbers of `cells` for the codes of `space`; `None`
    /// where they are not numbered from digits
    /// ([`ReadCells::numbers_digits`]) or the tables would hold more than
    /// [`MOST_NUMBERS`].
    pub(super) fn new(space: &Space, cells: &ReadCells) -> Option<Self> {
        if !cells.numbers_digits() {
            return None;
        }
        let n = cells.processes();
        let radices = space.radices();
        // Per digit: the processes that read it, and its weight for each.
        let mut readers: Vec<Vec<(usize, u32)>> = vec![Vec::new(); radices.len()];
        for p in 0..n {
            for &(slot, weight) in cells.digit_reads(p) {
                readers[slot as usize].push((p, weight));
            }
        }
        let most = (CHUNK_BYTES / (4 * n.max(1))).max(2) as u64;
        let count = space.count();
        let (mut chunks, mut table) = (Vec::new(), Vec::new());
        let mut last = radices.len();
        while last > 0 {
            // The digits `first..last` together, as many as fit.
            let (mut first, mut values) = (last - 1, radices[last - 1]);
            while first > 0 && values.saturating_mul(radices[first - 1]) <= most {
                first -= 1;
                values *= radices[first];
            }
            let at = table.len();
            let size = (values as usize).checked_mul(n)?;
            if at + size > MOST_NUMBERS {
                return None;
            }
            table.resize(at + size, 0);
            for value in 0..values {
                let row = &mut table[at + value as usize * n..][..n];
                let mut rest = value;
                for slot in (first..last).rev() {
                    let digit = rest % radices[slot];
                    rest /= radices[slot];
                    for &(p, weight) in &readers[slot] {
                        row[p] += digit as u32 * weight;
                    }
                }
            }
            chunks.push(Chunk {
                divisor: Divisor::new(values, count),
                at,
            });
            last = first;
        }
        Some(EntryNumbers {
            chunks,
            table,
            first: (0..n).map(|p| cells.first_entry(p)).collect(),
        })
    }

    /// Every process's entry number for the configuration of code `code`
    /// into `entries`.
    #[inline]
    pub(super) fn numbers_into(&self, code: u64, entries: &mut Vec<usize>) {
        entries.clear();
        entries.extend_from_slice(&self.first);
        let n = self.first.len();
        let mut rest = code;
        for chunk in &self.chunks {
            let (value, quotient) = chunk.divisor.split(rest);
            rest = quotient;
            let row = &self.table[chunk.at + value as usize * n..][..n];
            for (entry, &add) in entries.iter_mut().zip(row) {
                *entry += add as usize;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers from the chunks are those read off the rows, on
    /// spaces of many digits and few, counts powers of two and not, and
    /// processes reading their neighbours' edges and not.
    #[test]
    fn chunks_number_entries_as_the_rows_do() {
        let arbitration = include_str!("../../programs/arbitration.gc");
        let dijkstra = include_str!("../../programs/dijkstra_kstate.gc");
        let johnen = include_str!("../../programs/johnen_leader.gc");
        for (src, topology, params) in [
            (arbitration, "ring:8", &[][..]),
            (arbitration, "grid:3x3", &[]),
            (arbitration, "star:6", &[]),
            (dijkstra, "ring:5", &[("K", 5)]),
            (johnen, "uring:4", &[("k", 2)]),
        ] {
            let inst = super::super::test_instance(src, topology, params);
            let space = inst.space();
            let n = inst.topo.n();
            // Its own row and its neighbours' first variable.
            let stride = inst.code.stride;
            let cells = ReadCells::new(&space, n, 1 << 21, |p| {
                let theirs = inst.topo.nbrs(p).iter().map(|&q| q as usize * stride);
                (p * stride..(p + 1) * stride).chain(theirs).collect()
            })
            .unwrap();
            assert!(cells.numbers_digits(), "{topology}");
            let numbers = EntryNumbers::new(&space, &cells).unwrap();
            let count = space.count() as u64;
            let mut entries = Vec::new();
            // The first and last codes, and some between.
            let codes = (0..4000u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15) % count);
            for code in codes.chain([0, count - 1]) {
                let cfg = space.config(u128::from(code));
                numbers.numbers_into(code, &mut entries);
                let rows: Vec<usize> = (0..n)
                    .map(|p| cells.number(p, &cfg.rows).unwrap())
                    .collect();
                assert_eq!(entries, rows, "{topology}, code {code}");
            }
            assert!(numbers.chunks.len() > 1, "{topology}");
        }
    }

    /// Digits of many values on many processes would take a row per
    /// value for every process: refused past the bound, kept below it.
    #[test]
    fn tables_stay_bounded() {
        let src = "var x: 0..99999 = 0\nprocess {\n    a :: x < 5 -> x := x + 1\n}\n";
        for (topology, fits) in [("chain:3", true), ("chain:40", false)] {
            let inst = super::super::test_instance(src, topology, &[]);
            let space = inst.space();
            let stride = inst.code.stride;
            let cells =
                ReadCells::new(&space, inst.topo.n(), 1 << 23, |p| vec![p * stride]).unwrap();
            assert_eq!(
                EntryNumbers::new(&space, &cells).is_some(),
                fits,
                "{topology}"
            );
        }
    }
}
