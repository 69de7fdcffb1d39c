//! Per configuration, side by side so that one read from memory brings
//! both: its enabled processes, and what is still to count from its fresh
//! round (every enabled process pending). Every step of the search asks
//! both of its successor.

use super::super::counts::{NO_RUN, UNSEEN};
use super::super::evaluate::EnabledSets;

pub(super) struct PerConfig {
    bytes: Vec<u8>,
    /// Bytes for the enabled processes, then for the value.
    enabled_width: usize,
    value_width: usize,
    /// The value's largest: [`UNSEEN`]; one less: [`NO_RUN`].
    max: u32,
}

impl PerConfig {
    /// `enabled`'s sets, with no value yet; values up to `most`.
    pub(super) fn new(enabled: &EnabledSets, count: u32, most: u64) -> Self {
        let enabled_width = enabled.width();
        let value_width = match most + 2 {
            v if v <= 0xff => 1,
            v if v <= 0xffff => 2,
            _ => 4,
        };
        let max = if value_width == 4 {
            u32::MAX
        } else {
            (1 << (8 * value_width)) - 1
        };
        let record = enabled_width + value_width;
        let mut bytes = vec![0xff; count as usize * record + 8];
        for c in 0..count {
            let at = c as usize * record;
            bytes[at..at + enabled_width]
                .copy_from_slice(&enabled.get(c).to_le_bytes()[..enabled_width]);
        }
        PerConfig {
            bytes,
            enabled_width,
            value_width,
            max,
        }
    }

    #[inline]
    fn word(&self, c: u32) -> u64 {
        let at = c as usize * (self.enabled_width + self.value_width);
        u64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes"))
    }

    /// Configuration `c`'s enabled processes.
    #[inline]
    pub(super) fn enabled(&self, c: u32) -> u64 {
        let all = self.word(c);
        if self.enabled_width == 8 {
            all
        } else {
            all & ((1 << (8 * self.enabled_width)) - 1)
        }
    }

    /// What is still to count from configuration `c`'s fresh round, or
    /// [`UNSEEN`].
    #[inline]
    pub(super) fn fresh(&self, c: u32) -> u32 {
        let at = c as usize * (self.enabled_width + self.value_width) + self.enabled_width;
        let mut word = [0; 4];
        word[..self.value_width].copy_from_slice(&self.bytes[at..at + self.value_width]);
        match u32::from_le_bytes(word) {
            v if v == self.max => UNSEEN,
            v if v == self.max - 1 => NO_RUN,
            v => v,
        }
    }

    /// Keeps `value` (at most the `most` given, or [`NO_RUN`]) for
    /// configuration `c`'s fresh round.
    pub(super) fn set_fresh(&mut self, c: u32, value: u32) {
        let raw = if value == NO_RUN { self.max - 1 } else { value };
        debug_assert!(raw < self.max);
        let at = c as usize * (self.enabled_width + self.value_width) + self.enabled_width;
        self.bytes[at..at + self.value_width]
            .copy_from_slice(&raw.to_le_bytes()[..self.value_width]);
    }

    /// Starts loading configuration `c`'s into the cache.
    #[inline]
    pub(super) fn prefetch(&self, c: u32) {
        let at = c as usize * (self.enabled_width + self.value_width);
        crate::runtime::cache::prefetch(&self.bytes[at]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enabled_processes_and_values_sit_side_by_side_and_keep() {
        // Nine processes (two bytes of enabled bits); values up to 300
        // (two bytes each), and up to 5 (one).
        let mut sets = EnabledSets::new(9);
        for c in 0..5u64 {
            sets.push(0x1ff - c);
        }
        for most in [300, 5] {
            let mut per = PerConfig::new(&sets, 5, most);
            assert!((0..5).all(|c| per.fresh(c) == UNSEEN));
            per.set_fresh(1, most as u32);
            per.set_fresh(2, NO_RUN);
            per.set_fresh(4, 0);
            let fresh: Vec<u32> = (0..5).map(|c| per.fresh(c)).collect();
            assert_eq!(fresh, [UNSEEN, most as u32, NO_RUN, UNSEEN, 0]);
            let enabled: Vec<u64> = (0..5).map(|c| per.enabled(c)).collect();
            assert_eq!(enabled, [0x1ff, 0x1fe, 0x1fd, 0x1fc, 0x1fb]);
        }
    }
}
