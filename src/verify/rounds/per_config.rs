//! Per configuration: its enabled processes and what is still to count
//! from its fresh round (every enabled process pending), side by side so
//! that one read brings both, and small enough to stay in the caches on
//! the instances that fit (2 bytes at n = 8); then, apart, what is still
//! to count from the first few states in the middle of a round at it
//! (pending processes and value, a pending set of none marking a free
//! slot), read only for such states. Every step of the search asks these
//! of its successor; only states past those few go to the table.

use super::super::counts::{NO_RUN, UNSEEN};
use super::super::evaluate::EnabledSets;

/// The bytes for values up to `most`, with room for [`UNSEEN`] and
/// [`NO_RUN`].
fn value_width(most: u64) -> usize {
    match most + 2 {
        v if v <= 0xff => 1,
        v if v <= 0xffff => 2,
        _ => 4,
    }
}

/// The most states in the middle of a round kept with their
/// configuration. On Dijkstra's ring of 8 there are 2.6 a configuration,
/// but some have many: 6 keep all but about a tenth of them.
pub(super) const SLOTS: usize = 6;

/// What the rounds search keeps per configuration (see the module).
pub(super) struct PerConfig {
    /// Per configuration: enabled processes, fresh value.
    hot: Vec<u8>,
    /// Per configuration: `slots` of pending processes and value.
    cold: Vec<u8>,
    /// Bytes for a set of processes, and for a value: a pair.
    set_width: usize,
    value_width: usize,
    slots: usize,
    /// The value's largest: [`UNSEEN`]; one less: [`NO_RUN`].
    max: u32,
}

/// Where a state in the middle of a round is kept with its configuration.
pub(super) enum Mid {
    /// With this value.
    Kept(u32),
    /// Not kept, and a slot is free for it.
    Free,
    /// Not with its configuration, whose slots are taken.
    Elsewhere,
}

impl PerConfig {
    /// The most slots, up to `most_slots`, with which `count`
    /// configurations of `processes` processes and values up to `most`
    /// take at most `budget` bytes; `None` when even none do.
    pub(super) fn slots_within(
        (count, processes, most): (u32, usize, u64),
        most_slots: usize,
        budget: u64,
    ) -> Option<usize> {
        let pair = (EnabledSets::width_for(processes) + value_width(most)) as u64;
        (0..=most_slots)
            .rev()
            .find(|&slots| u64::from(count) * (1 + slots as u64) * pair <= budget)
    }

    /// `enabled`'s sets, with no value yet, and `slots` slots each; values
    /// up to `most`.
    pub(super) fn new(enabled: &EnabledSets, count: u32, most: u64, slots: usize) -> Self {
        let set_width = enabled.width();
        let value_width = value_width(most);
        let max = if value_width == 4 {
            u32::MAX
        } else {
            (1 << (8 * value_width)) - 1
        };
        let pair = set_width + value_width;
        // Fresh values unseen (all ones), slots free (no pending process).
        let mut hot = vec![0xff; count as usize * pair + 8];
        for c in 0..count {
            let at = c as usize * pair;
            hot[at..at + set_width].copy_from_slice(&enabled.get(c).to_le_bytes()[..set_width]);
        }
        PerConfig {
            hot,
            cold: vec![0; count as usize * slots * pair + 8],
            set_width,
            value_width,
            slots,
            max,
        }
    }

    /// The bytes kept.
    pub(super) fn bytes(&self) -> u64 {
        (self.hot.len() + self.cold.len()) as u64
    }

    fn pair(&self) -> usize {
        self.set_width + self.value_width
    }

    /// The set at byte `at` of `bytes`.
    #[inline]
    fn set(&self, bytes: &[u8], at: usize) -> u64 {
        let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        if self.set_width == 8 {
            word
        } else {
            word & ((1 << (8 * self.set_width)) - 1)
        }
    }

    /// The value at byte `at` of `bytes` (read as a word and masked: a
    /// copy of a varying width is a call).
    #[inline]
    fn value(&self, bytes: &[u8], at: usize) -> u32 {
        let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        match (word & ((1 << (8 * self.value_width)) - 1)) as u32 {
            v if v == self.max => UNSEEN,
            v if v == self.max - 1 => NO_RUN,
            v => v,
        }
    }

    /// `value` (at most the `most` given, or [`NO_RUN`]) as kept.
    fn raw(&self, value: u32) -> [u8; 4] {
        let raw = if value == NO_RUN { self.max - 1 } else { value };
        debug_assert!(raw < self.max);
        raw.to_le_bytes()
    }

    /// Configuration `c`'s enabled processes.
    #[inline]
    pub(super) fn enabled(&self, c: u32) -> u64 {
        self.set(&self.hot, c as usize * self.pair())
    }

    /// What is still to count from configuration `c`'s fresh round, or
    /// [`UNSEEN`].
    #[inline]
    pub(super) fn fresh(&self, c: u32) -> u32 {
        self.value(&self.hot, c as usize * self.pair() + self.set_width)
    }

    /// Keeps `value` (at most the `most` given, or [`NO_RUN`]) for
    /// configuration `c`'s fresh round.
    pub(super) fn set_fresh(&mut self, c: u32, value: u32) {
        let (at, w) = (c as usize * self.pair() + self.set_width, self.value_width);
        let raw = self.raw(value);
        self.hot[at..at + w].copy_from_slice(&raw[..w]);
    }

    /// The slot of configuration `c` that keeps `pending` (not none), or
    /// else its first free one: its byte, and whether it keeps `pending`.
    #[inline]
    fn slot(&self, c: u32, pending: u64) -> Option<(usize, bool)> {
        let pair = self.pair();
        let first = c as usize * self.slots * pair;
        (0..self.slots)
            .map(|k| first + k * pair)
            .find_map(|at| match self.set(&self.cold, at) {
                p if p == pending => Some((at, true)),
                0 => Some((at, false)),
                _ => None,
            })
    }

    /// Where the state of configuration `c` with `pending` processes (not
    /// none) in the middle of a round is kept.
    #[inline]
    pub(super) fn mid(&self, c: u32, pending: u64) -> Mid {
        debug_assert!(
            pending != 0,
            "a state in the middle of a round has a pending process"
        );
        match self.slot(c, pending) {
            Some((at, true)) => Mid::Kept(self.value(&self.cold, at + self.set_width)),
            Some((_, false)) => Mid::Free,
            None => Mid::Elsewhere,
        }
    }

    /// Keeps `value` for the state of configuration `c` with `pending`
    /// processes in the middle of a round, when a slot is free; false
    /// when none is.
    pub(super) fn set_mid(&mut self, c: u32, pending: u64, value: u32) -> bool {
        let Some((at, _)) = self.slot(c, pending) else {
            return false;
        };
        let (w, v) = (self.set_width, self.value_width);
        let raw = self.raw(value);
        self.cold[at..at + w].copy_from_slice(&pending.to_le_bytes()[..w]);
        self.cold[at + w..at + w + v].copy_from_slice(&raw[..v]);
        true
    }

    /// Starts loading configuration `c`'s enabled processes and fresh
    /// value into the cache.
    #[inline]
    pub(super) fn prefetch(&self, c: u32) {
        crate::runtime::cache::prefetch(&self.hot[c as usize * self.pair()]);
    }

    /// Starts loading configuration `c`'s slots into the cache.
    #[inline]
    pub(super) fn prefetch_slots(&self, c: u32) {
        if self.slots > 0 {
            crate::runtime::cache::prefetch(&self.cold[c as usize * self.slots * self.pair()]);
        }
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
            let mut per = PerConfig::new(&sets, 5, most, SLOTS);
            assert!((0..5).all(|c| per.fresh(c) == UNSEEN));
            per.set_fresh(1, most as u32);
            per.set_fresh(2, NO_RUN);
            per.set_fresh(4, 0);
            let fresh: Vec<u32> = (0..5).map(|c| per.fresh(c)).collect();
            assert_eq!(fresh, [UNSEEN, most as u32, NO_RUN, UNSEEN, 0]);
            // States in the middle of a round: the first SLOTS kept with
            // the configuration, without touching what else it keeps.
            assert!(matches!(per.mid(1, 0x100), Mid::Free));
            for k in 0..SLOTS as u64 {
                assert!(per.set_mid(1, 0x100 + k, k as u32));
            }
            assert!(!per.set_mid(1, 0x1f0, 3), "the slots are taken");
            assert!(!PerConfig::new(&sets, 5, most, 0).set_mid(1, 0x100, 1));
            for k in 0..SLOTS as u64 {
                assert!(matches!(per.mid(1, 0x100 + k), Mid::Kept(v) if v == k as u32));
            }
            assert!(matches!(per.mid(1, 0x1f0), Mid::Elsewhere));
            assert!(per.set_mid(3, 0x1, NO_RUN));
            assert!(matches!(per.mid(3, 0x1), Mid::Kept(NO_RUN)));
            assert!(matches!(per.mid(3, 0x2), Mid::Free));
            let fresh: Vec<u32> = (0..5).map(|c| per.fresh(c)).collect();
            assert_eq!(fresh, [UNSEEN, most as u32, NO_RUN, UNSEEN, 0]);
            let enabled: Vec<u64> = (0..5).map(|c| per.enabled(c)).collect();
            assert_eq!(enabled, [0x1ff, 0x1fe, 0x1fd, 0x1fc, 0x1fb]);
        }
    }
}
