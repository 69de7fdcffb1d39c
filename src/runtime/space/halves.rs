//! A configuration's code in two 64-bit halves, for an explorer that keeps
//! configurations of a space of more than 2^64 (Chang and Roberts'
//! election from a ring of 14 on): the free slots split in two parts of at
//! most 2^64 values each, the high half numbering the values of the slots
//! before the split and the low half those from it on. The index is the
//! high half times the low part's count plus the low half. A step changes
//! each half by what its cells add to it, with no carry between them, and
//! each half decodes by 64-bit division as a code of a smaller space would;
//! one 128-bit number would take a 128-bit division a slot. Where the space
//! has at most 2^64 configurations, the split is at the first slot: the
//! high half is 0 and the low half is the index.

use super::{Config, Divisor, Space};

/// The most values a half takes: every code of it fits 64 bits.
const MOST: u128 = 1 << 64;

/// Where a space's free slots split in two, and each half's arithmetic.
#[derive(Clone, Debug)]
pub(super) struct Halves {
    /// The first free slot of the low half.
    split: usize,
    /// How many values each half takes: the high half's, then the low's.
    counts: [u128; 2],
    /// Per free slot: its divisor, exact for every code of its half, and
    /// what one more of its values adds to its half.
    slots: Vec<(Divisor, u128)>,
}

impl Halves {
    /// The halves of a space whose free slots take `radices` values each,
    /// in order: the low half as many of the last slots as fit; `None`
    /// where the slots before them do not fit either.
    pub(super) fn new(radices: &[u64]) -> Option<Self> {
        let mut split = radices.len();
        let mut low = 1u128;
        while let Some(c) = split
            .checked_sub(1)
            .and_then(|k| low.checked_mul(u128::from(radices[k])))
            .filter(|&c| c <= MOST)
        {
            low = c;
            split -= 1;
        }
        let high = radices[..split]
            .iter()
            .try_fold(1u128, |acc, &r| acc.checked_mul(u128::from(r)))
            .filter(|&c| c <= MOST)?;
        let counts = [high, low];
        let mut slots = vec![(Divisor::new(1, 1), 1u128); radices.len()];
        for (half, range) in [(0, 0..split), (1, split..radices.len())] {
            let mut weight = 1u128;
            for k in range.rev() {
                slots[k] = (Divisor::new(radices[k], counts[half]), weight);
                weight *= u128::from(radices[k]);
            }
        }
        Some(Halves {
            split,
            counts,
            slots,
        })
    }

    /// The half free slot `k` is in: 0 for the high one, 1 for the low.
    #[inline]
    fn half(&self, k: usize) -> usize {
        usize::from(k >= self.split)
    }
}

impl Space {
    /// How many values each half of a configuration's code takes (the
    /// high half's, then the low's; see the module's notes); `None` where
    /// the space has no code in two 64-bit halves.
    pub(crate) fn halves_counts(&self) -> Option<[u128; 2]> {
        self.halves.as_ref().map(|h| h.counts)
    }

    /// The code in halves (high, low) of the configuration whose rows are
    /// `rows`, where its free slots hold values of their domains and the
    /// space has such a code.
    #[inline]
    pub(crate) fn index_halves(&self, rows: &[i64]) -> Option<[u64; 2]> {
        let h = self.halves.as_ref()?;
        if h.split == 0 {
            return Some([0, self.index_of_rows(rows)?]);
        }
        let mut code = [0u64; 2];
        for (k, f) in self.free.iter().enumerate() {
            let half = &mut code[h.half(k)];
            // Below the half's count, at most 2^64: no overflow.
            *half = *half * f.values.len() as u64 + f.position(rows[f.at])? as u64;
        }
        Some(code)
    }

    /// Overwrites `cfg` (a configuration of this space) with the one whose
    /// code in halves is `code`, allocating nothing.
    pub(crate) fn decode_halves_into(&self, code: [u64; 2], cfg: &mut Config) {
        let Some(h) = self.halves.as_ref().filter(|h| h.split > 0) else {
            // One half: the index, whose divisors are the slots' own.
            return self.decode_into(code[1], cfg);
        };
        for (mut index, range) in [(code[1], h.split..self.free.len()), (code[0], 0..h.split)] {
            for k in range.rev() {
                let f = &self.free[k];
                let (digit, rest) = h.slots[k].0.split(index);
                cfg.rows[f.at] = f.values[digit as usize];
                index = rest;
            }
        }
        self.copy_mirrors(&mut cfg.rows);
    }

    /// What changing cell `at` of the rows from `old` to `new` adds to
    /// each half of a configuration's code (high, then low); `None` where
    /// [`Space::delta`] gives `None` or the space has no code in halves.
    #[inline]
    pub(crate) fn delta_halves(&self, at: usize, old: i64, new: i64) -> Option<[i128; 2]> {
        if old == new {
            return Some([0, 0]);
        }
        let h = self.halves.as_ref()?;
        let (k, places) = self.slot_move(at, old, new)?;
        let mut delta = [0; 2];
        delta[h.half(k)] = places * h.slots[k].1 as i128;
        Some(delta)
    }
}

#[cfg(test)]
mod tests {
    use super::Halves;
    use crate::load::{load, read_file, Setup};
    use crate::state::Config;

    /// The split leaves each half within 2^64 and the low half as long as
    /// it can be; one half where the whole fits, none where no split fits.
    #[test]
    fn halves_split_where_both_fit() {
        let at_most = Halves::new(&[3, 5, 7]).expect("fits");
        assert_eq!((at_most.split, at_most.counts), (0, [1, 105]));
        // 64 booleans: 2^64 configurations, one half still.
        let bits = Halves::new(&[2; 64]).expect("fits");
        assert_eq!((bits.split, bits.counts), (0, [1, 1 << 64]));
        let radices = [1 << 20, 1 << 30, 1 << 40, 3];
        let two = Halves::new(&radices).expect("two halves");
        assert_eq!(two.split, 2);
        assert_eq!(two.counts, [1 << 50, 3 << 40]);
        assert!(Halves::new(&[1 << 40, 1 << 40, 1 << 40, 1 << 40]).is_none());
        // Exactly 2^64 a half still fits: its codes are below it.
        let full = Halves::new(&[1 << 32, 1 << 32, 1 << 32, 1 << 32]).expect("fits");
        assert_eq!((full.split, full.counts), (2, [1 << 64, 1 << 64]));
    }

    /// On a space of more than 2^64 configurations, codes in halves give
    /// back the configurations they code, and are the index split at the
    /// low half's count; a change of cells moves each half by its delta.
    #[test]
    fn codes_in_halves_decode_and_step_as_the_index() {
        let src =
            "var x: 0..29 = 0\nvar b: bool = false\nprocess { a :: x != left.x -> x := left.x }";
        let setup = Setup {
            topology: Some("ring:14".into()),
            ..Setup::default()
        };
        let inst = load(src, &setup, &read_file).unwrap_or_else(|e| panic!("{e:?}"));
        let space = inst.space();
        assert!(space.count() > u128::from(u64::MAX));
        let [high, low] = space.halves_counts().expect("two halves");
        assert!(high > 1 && high * low == space.count());
        let mut cfg: Config = space.config(0);
        // Indices spread over the space, and its last.
        let mut index = 0u128;
        for step in 0..2000u128 {
            index = (index + step * 0x9e37_79b9_7f4a_7c15_f39c) % space.count();
            let at = space.config(index);
            let code = space.index_halves(&at.rows).expect("coded");
            assert_eq!(u128::from(code[0]) * low + u128::from(code[1]), index);
            space.decode_halves_into(code, &mut cfg);
            assert_eq!(cfg, at, "index {index}");
            // Process 13's x to 7 and process 0's b flipped: one cell each side.
            let mut after = at.clone();
            let (x13, b0) = (13 * 2, 1);
            after.rows[x13] = 7;
            after.rows[b0] = 1 - after.rows[b0];
            let mut moved = code.map(i128::from);
            for (cell, old, new) in [(x13, at.rows[x13], 7), (b0, at.rows[b0], after.rows[b0])] {
                let d = space.delta_halves(cell, old, new).expect("free cell");
                moved[0] += d[0];
                moved[1] += d[1];
            }
            let expected = space.index_halves(&after.rows).expect("coded");
            assert_eq!(moved, expected.map(i128::from));
        }
        let last = space.config(space.count() - 1);
        let code = space.index_halves(&last.rows).expect("coded");
        assert_eq!(code, [(high - 1) as u64, (low - 1) as u64]);
    }
}
