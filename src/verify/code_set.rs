//! Which codes are kept, exactly, in 4 bytes a slot and one read a probe:
//! a compact hash table (Cleary's) with linear probing.
//!
//! A code's hash is a permutation of the codes' bits, so no two codes
//! share one. Its high bits name the code's first slot (its home); a slot
//! holds the other bits (the quotient) and how far past the home it is.
//! A slot thus says by itself which code it holds: a look-up compares
//! slots only, where a table of numbers must read the code kept at every
//! slot that might be its (from all over memory, on a large search).

use crate::runtime::cache::prefetch;

/// The codes kept.
pub(super) struct CodeSet {
    /// The hash's bits: every code is below `1 << width`.
    width: u32,
    /// There are `1 << bits` slots.
    bits: u32,
    /// `EMPTY`, or a code's quotient above [`DISTANCE_BITS`] bits that
    /// hold one more than the slot's distance past the code's home.
    slots: Vec<u32>,
    len: usize,
}

/// The bits of a slot that say how far it is past its code's home.
const DISTANCE_BITS: u32 = 8;

/// The farthest a code is kept past its home; the table grows sooner.
const FARTHEST: usize = (1 << DISTANCE_BITS) - 2;

/// A slot holding no code (a distance of one less than none).
const EMPTY: u32 = 0;

/// The widest codes a set keeps: wider ones would need a table of more
/// than `1 << 24` slots from the start, for the quotient to fit a slot.
const WIDEST: u32 = 48;

/// An odd multiplier (the golden ratio's, as in Fibonacci hashing): its
/// product is a permutation of the codes below any power of two, whose
/// high bits depend on every bit of the code. The verifier's other hash
/// tables take their homes from its product's high bits too.
pub(super) const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

impl CodeSet {
    /// An empty set of codes of at most `code_bits` bits; `None` when they
    /// are wider than [`WIDEST`].
    pub(super) fn new(code_bits: u32) -> Option<Self> {
        // Narrow codes are hashed over 32 bits: the quotient then has
        // bits to spare on the smallest table.
        let width = code_bits.max(32);
        if width > WIDEST {
            return None;
        }
        let bits = (width - (32 - DISTANCE_BITS)).max(10);
        Some(CodeSet {
            width,
            bits,
            slots: vec![EMPTY; 1 << bits],
            len: 0,
        })
    }

    /// How many codes are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The bytes the slots take.
    pub(super) fn bytes(&self) -> usize {
        4 * self.slots.capacity()
    }

    /// `code`'s home, and what a slot holding it at distance zero holds.
    #[inline]
    fn home_and_held(&self, code: u64) -> (usize, u32) {
        let hash = code.wrapping_mul(MIX) & (u64::MAX >> (64 - self.width));
        split(hash, self.width - self.bits)
    }

    /// `code`'s home starts to load into the cache.
    #[inline]
    pub(super) fn prefetch(&self, code: u64) {
        prefetch(&self.slots[self.home_and_held(code).0]);
    }

    /// Where `code` is, or would go.
    #[inline]
    fn probe(&self, code: u64) -> Probe {
        let (home, held) = self.home_and_held(code);
        let mask = self.slots.len() - 1;
        for distance in 0..=FARTHEST as u32 {
            let at = (home + distance as usize) & mask;
            match self.slots[at] {
                EMPTY => {
                    let slot = held + distance;
                    return Probe::Empty { at, slot };
                }
                slot if slot == held + distance => return Probe::Kept,
                _ => {}
            }
        }
        Probe::TooFar
    }

    /// Whether `code` is kept.
    #[inline]
    pub(super) fn contains(&self, code: u64) -> bool {
        matches!(self.probe(code), Probe::Kept)
    }

    /// Keeps `code`: whether it is new.
    #[inline]
    pub(super) fn insert(&mut self, code: u64) -> bool {
        if 4 * (self.len + 1) > 3 * self.slots.len() {
            self.grow();
        }
        loop {
            match self.probe(code) {
                Probe::Kept => return false,
                Probe::Empty { at, slot } => {
                    self.slots[at] = slot;
                    self.len += 1;
                    return true;
                }
                // The slots are too crowded there.
                Probe::TooFar => self.grow(),
            }
        }
    }

    /// More slots, each code placed again (read off its slot: the codes
    /// themselves are not needed).
    #[cold]
    fn grow(&mut self) {
        let mut bits = self.bits + 1;
        // Halving the crowding nearly always places every code near its
        // home; where it does not, more slots again.
        while bits <= self.width {
            if let Some(slots) = self.placed_again(bits) {
                (self.bits, self.slots) = (bits, slots);
                return;
            }
            bits += 1;
        }
        unreachable!("a slot per code places every code at its home");
    }

    /// The slots of a table of `1 << bits` slots holding the same codes;
    /// `None` if one lands farther than [`FARTHEST`] from its home.
    fn placed_again(&self, bits: u32) -> Option<Vec<u32>> {
        let (old_rest, new_rest) = (self.width - self.bits, self.width - bits);
        let (old_mask, new_mask) = (self.slots.len() - 1, (1usize << bits) - 1);
        // Written now rather than left to the allocator's zeroed pages: a
        // slot is read before it is written, and a page read first faults
        // twice (the zero page, then a copy of it on the write).
        let mut slots = Vec::with_capacity(1 << bits);
        slots.resize(1 << bits, EMPTY);
        // In slot order, the homes come nearly in order: the writes go
        // through the new table from one end to the other.
        for (at, &slot) in self.slots.iter().enumerate() {
            if slot == EMPTY {
                continue;
            }
            let distance = (slot & ((1 << DISTANCE_BITS) - 1)) as usize - 1;
            let home = (at.wrapping_sub(distance) & old_mask) as u64;
            let hash = home << old_rest | u64::from(slot >> DISTANCE_BITS);
            let (new_home, held) = split(hash, new_rest);
            let distance = (0..=FARTHEST as u32)
                .find(|&d| slots[(new_home + d as usize) & new_mask] == EMPTY)?;
            slots[(new_home + distance as usize) & new_mask] = held + distance;
        }
        Some(slots)
    }
}

/// What probing for a code finds.
enum Probe {
    Kept,
    /// The empty slot where it would go, and what that slot would hold.
    Empty {
        at: usize,
        slot: u32,
    },
    /// Only slots farther from its home than [`FARTHEST`].
    TooFar,
}

/// A hash's home (its bits above the `rest` lowest), and what a slot
/// holding it at distance zero holds (the `rest` lowest, the quotient).
#[inline]
fn split(hash: u64, rest: u32) -> (usize, u32) {
    let quotient = (hash & ((1 << rest) - 1)) as u32;
    ((hash >> rest) as usize, quotient << DISTANCE_BITS | 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    /// Inserts `codes` into a set of `code_bits`-bit codes and into a
    /// `HashSet`, and checks that both agree throughout.
    fn agrees_with_a_hash_set(code_bits: u32, codes: &[u64], absent: &[u64]) -> CodeSet {
        let mut set = CodeSet::new(code_bits).expect("narrow enough");
        let mut plain = HashSet::new();
        for &code in codes {
            assert_eq!(set.contains(code), plain.contains(&code), "{code}");
            assert_eq!(set.insert(code), plain.insert(code), "{code}");
            assert!(set.contains(code));
        }
        assert_eq!(set.len(), plain.len());
        for &code in codes.iter().chain(absent) {
            assert_eq!(set.contains(code), plain.contains(&code), "{code}");
        }
        set
    }

    /// Codes that share most bits crowd around a few homes: the table
    /// grows past them, and every code is still told apart.
    #[test]
    fn crowded_codes_are_told_apart() {
        let width = 40;
        let codes: Vec<u64> = (0..20_000u64)
            .flat_map(|k| [k << 20, k, (k << 20) | 7, (1 << 39) | k])
            .collect();
        let absent: Vec<u64> = (20_000..30_000u64).map(|k| k << 20).collect();
        agrees_with_a_hash_set(width, &codes, &absent);
    }

    /// Codes whose hashes share a home and differ only in the quotient's
    /// top bits: more than [`FARTHEST`] of them crowd one home, so the
    /// table must grow several times over (homes next to each other stay
    /// one crowd) before every code lies near enough to its home.
    #[test]
    fn codes_of_one_home_make_the_table_grow() {
        let mut inverse = MIX;
        for _ in 0..6 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(MIX.wrapping_mul(inverse)));
        }
        assert_eq!(MIX.wrapping_mul(inverse), 1);
        let width = 32;
        let set = CodeSet::new(width).expect("narrow enough");
        let rest = width - set.bits;
        let of_hash = |hash: u64| hash.wrapping_mul(inverse) & (u64::MAX >> (64 - width));
        let codes: Vec<u64> = (0..600u64)
            .map(|k| of_hash(5 << rest | k << (rest - 10)))
            .collect();
        assert!(codes.iter().all(|&c| set.home_and_held(c).0 == 5));
        let absent: Vec<u64> = (600..1024u64)
            .map(|k| of_hash(5 << rest | k << (rest - 10)))
            .collect();
        let set = agrees_with_a_hash_set(width, &codes, &absent);
        // Fewer slots would crowd them again: no such table is made.
        assert!(set.bits > 12);
        assert!(set.placed_again(12).is_none());
    }

    #[test]
    fn the_widest_codes_fit_and_wider_ones_are_refused() {
        assert!(CodeSet::new(WIDEST + 1).is_none());
        let top = (1u64 << WIDEST) - 1;
        agrees_with_a_hash_set(WIDEST, &[0, top, top - 1, 1 << 47, 0, top], &[1, top - 2]);
        agrees_with_a_hash_set(1, &[0, 1, 1, 0], &[]);
    }

    proptest! {
        #[test]
        fn a_set_agrees_with_a_hash_set(
            code_bits in 1u32..=WIDEST,
            picks in proptest::collection::vec(any::<u64>(), 0..3000),
            few in 1u64..5000,
        ) {
            // Many repeats: codes drawn from a few, below the width.
            let top = u64::MAX >> (64 - code_bits);
            let codes: Vec<u64> = picks.iter().map(|&x| (x % few).wrapping_mul(MIX) & top).collect();
            let absent: Vec<u64> = picks.iter().map(|&x| x & top).collect();
            agrees_with_a_hash_set(code_bits, &codes, &absent);
        }
    }
}
