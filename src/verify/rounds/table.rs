//! The rounds still to count from states in the middle of a round: an
//! open-addressing table whose slots hold a key (a configuration and the
//! round's pending processes) and its value together, in as few bytes as
//! the two need (5 on Dijkstra's ring of 8 with K = 8). A lookup then
//! touches one place in memory, where a hash map of `u64` to `u32` took
//! 16 bytes a key and two places.

/// Keys (never 0) with their values (below `1 << value_bits`).
pub(super) struct Table {
    /// `slots` slots of `width` bytes, then 8 bytes so that a slot reads
    /// as a word; an empty slot is 0.
    bytes: Vec<u8>,
    width: usize,
    slots: usize,
    value_bits: u32,
    len: usize,
    /// The most bytes the slots may take.
    budget: usize,
}

/// The slots are grown when more than this share of them (in 1/8) is taken.
const MOST_TAKEN_EIGHTHS: usize = 6;

impl Table {
    /// A table for keys of `key_bits` and values of `value_bits` (together
    /// at most 64), whose slots may take up to `budget` bytes.
    pub(super) fn new(key_bits: u32, value_bits: u32, budget: usize) -> Self {
        debug_assert!(key_bits + value_bits <= 64);
        let width = (key_bits + value_bits).div_ceil(8).max(1) as usize;
        let slots = 1 << 12;
        Table {
            bytes: vec![0; slots * width + 8],
            width,
            slots,
            value_bits,
            len: 0,
            budget,
        }
    }

    /// How many keys are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.len
    }

    /// The value kept for `key`.
    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<u32> {
        let mut at = self.home(key);
        loop {
            let word = self.read(at);
            if word == 0 {
                return None;
            }
            if word >> self.value_bits == key {
                return Some((word & ((1 << self.value_bits) - 1)) as u32);
            }
            at = if at + 1 == self.slots { 0 } else { at + 1 };
        }
    }

    /// Keeps `value` for `key` (not kept yet); false when the table
    /// would pass its budget.
    pub(super) fn insert(&mut self, key: u64, value: u32) -> bool {
        debug_assert!(key != 0 && u64::from(value) < 1 << self.value_bits);
        if (self.len + 1) * 8 > self.slots * MOST_TAKEN_EIGHTHS && !self.grow() {
            return false;
        }
        self.put(key << self.value_bits | u64::from(value));
        self.len += 1;
        true
    }

    /// Twice the slots, or as many as the budget allows; false when that
    /// is no more.
    #[cold]
    fn grow(&mut self) -> bool {
        let slots = (self.slots * 2).min(self.budget / self.width);
        if slots <= self.slots + self.slots / 8 {
            return false;
        }
        let old = std::mem::replace(&mut self.bytes, vec![0; slots * self.width + 8]);
        let old_slots = std::mem::replace(&mut self.slots, slots);
        for at in 0..old_slots {
            let word = read(&old, at, self.width);
            if word != 0 {
                self.put(word);
            }
        }
        true
    }

    /// Writes `word` (a key and its value) into the first free slot from
    /// its key's home.
    fn put(&mut self, word: u64) {
        let mut at = self.home(word >> self.value_bits);
        while self.read(at) != 0 {
            at = if at + 1 == self.slots { 0 } else { at + 1 };
        }
        let w = self.width;
        self.bytes[at * w..at * w + w].copy_from_slice(&word.to_le_bytes()[..w]);
    }

    /// Where a key's search starts: a multiplicative hash, scaled to the
    /// slots.
    #[inline]
    fn home(&self, key: u64) -> usize {
        let h = key.wrapping_mul(super::super::code_set::MIX);
        ((u128::from(h) * self.slots as u128) >> 64) as usize
    }

    #[inline]
    fn read(&self, at: usize) -> u64 {
        read(&self.bytes, at, self.width)
    }
}

/// Slot `at` of `bytes` (slots of `width` bytes, then 8 more).
#[inline]
fn read(bytes: &[u8], at: usize, width: usize) -> u64 {
    let word = u64::from_le_bytes(
        bytes[at * width..at * width + 8]
            .try_into()
            .expect("8 bytes"),
    );
    if width == 8 {
        word
    } else {
        word & ((1 << (8 * width)) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_keeps_what_it_is_given_through_growth() {
        // 20-bit keys and 5-bit values: 4-byte slots.
        let mut t = Table::new(20, 5, 1 << 30);
        let key = |i: u64| (i * 7919) % (1 << 20) + 1;
        for i in 0..100_000u64 {
            assert!(t.insert(key(i), (i % 31) as u32));
        }
        assert_eq!(t.len(), 100_000);
        for i in 0..100_000u64 {
            assert_eq!(t.get(key(i)), Some((i % 31) as u32), "key {}", key(i));
        }
        assert_eq!(t.get(key(100_000)), None);
        assert_eq!(t.width, 4);
    }

    #[test]
    fn the_table_stays_within_its_budget() {
        let mut t = Table::new(40, 8, 100_000);
        let mut kept = 0;
        while t.insert(kept + 1, 3) {
            kept += 1;
        }
        assert!(t.bytes.len() <= 100_000 + 8);
        assert!(
            kept > 10_000,
            "{kept} keys in 100,000 bytes of 6-byte slots"
        );
        assert_eq!(t.get(kept), Some(3));
        assert_eq!(t.get(kept + 1), None);
    }
}
