//! A count per configuration, in as few bytes as the largest count needs:
//! one byte each until a count passes 252, then two, then four. Worst
//! cases on the instances that fit are short, so the verifier keeps about
//! a byte per configuration and its daemon, where a `u32` would take four.

use crate::runtime::bits::Bits;
use rayon::prelude::*;

/// Not reached yet (a count's reserved value).
pub(super) const UNSEEN: u32 = u32::MAX;
/// On the search's stack (a count's reserved value).
pub(super) const OPEN: u32 = u32::MAX - 1;
/// No run from here reaches legitimacy without a runtime error (a
/// count's reserved value): such runs are not counted.
pub(super) const NO_RUN: u32 = u32::MAX - 2;
/// The largest count kept: larger ones saturate.
const MOST: u32 = u32::MAX - 3;

/// The counts, at their current width; the three largest values of each
/// width stand for [`UNSEEN`], [`OPEN`] and [`NO_RUN`].
pub(super) enum Counts {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Counts {
    /// `n` counts, all `fill` (0 or [`UNSEEN`]).
    pub(super) fn new(n: usize, fill: u32) -> Self {
        Counts::U8(vec![narrow(fill, u8::MAX as u32) as u8; n])
    }

    #[inline]
    pub(super) fn get(&self, i: u32) -> u32 {
        let i = i as usize;
        match self {
            Counts::U8(v) => widen(u32::from(v[i]), u8::MAX as u32),
            Counts::U16(v) => widen(u32::from(v[i]), u16::MAX as u32),
            Counts::U32(v) => v[i],
        }
    }

    /// Sets count `i` to `value` (or a reserved value), widening every
    /// count first when it does not fit.
    #[inline]
    pub(super) fn set(&mut self, i: u32, value: u32) {
        let value = if value >= NO_RUN {
            value
        } else {
            value.min(MOST)
        };
        let i = i as usize;
        loop {
            match self {
                Counts::U8(v) if fits(value, u8::MAX as u32) => {
                    v[i] = narrow(value, u8::MAX as u32) as u8;
                    return;
                }
                Counts::U16(v) if fits(value, u16::MAX as u32) => {
                    v[i] = narrow(value, u16::MAX as u32) as u16;
                    return;
                }
                Counts::U32(v) => {
                    v[i] = value;
                    return;
                }
                _ => self.widen(),
            }
        }
    }

    /// Of the first `count` configurations, those outside `legit` with a
    /// run that counts: the one with the largest count (the first of
    /// those), searched in parallel blocks.
    pub(super) fn largest_outside(&self, legit: &Bits, count: u32) -> Option<u32> {
        const BLOCK: u32 = 1 << 16;
        let key = |i: u32| (self.get(i), std::cmp::Reverse(i));
        (0..count.div_ceil(BLOCK))
            .into_par_iter()
            .filter_map(|b| {
                (b * BLOCK..count.min((b + 1) * BLOCK))
                    .filter(|&i| !legit.get(i as usize) && self.get(i) != NO_RUN)
                    .max_by_key(|&i| key(i))
            })
            // The keys differ (by number): no tie to break.
            .max_by_key(|&i| key(i))
    }

    /// The next width, every count kept.
    #[cold]
    fn widen(&mut self) {
        *self = match self {
            Counts::U8(v) => Counts::U16(
                v.iter()
                    .map(|&x| narrow(widen(u32::from(x), u8::MAX as u32), u16::MAX as u32) as u16)
                    .collect(),
            ),
            Counts::U16(v) => Counts::U32(
                v.iter()
                    .map(|&x| widen(u32::from(x), u16::MAX as u32))
                    .collect(),
            ),
            Counts::U32(_) => unreachable!("counts never pass u32"),
        };
    }
}

/// Whether `value` (or a reserved value) is kept at a width whose largest value is `max`.
#[inline]
fn fits(value: u32, max: u32) -> bool {
    value >= NO_RUN || value < max - 2
}

/// `value` at the width whose largest value is `max` (it fits).
#[inline]
fn narrow(value: u32, max: u32) -> u32 {
    match value {
        UNSEEN => max,
        OPEN => max - 1,
        NO_RUN => max - 2,
        v => v,
    }
}

/// The value stored as `raw` at the width whose largest value is `max`.
#[inline]
fn widen(raw: u32, max: u32) -> u32 {
    match max - raw {
        0 => UNSEEN,
        1 => OPEN,
        2 => NO_RUN,
        _ => raw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_widen_and_keep_what_they_hold() {
        let mut c = Counts::new(4, UNSEEN);
        c.set(0, 7);
        c.set(1, OPEN);
        c.set(2, 252);
        c.set(3, NO_RUN);
        assert!(matches!(c, Counts::U8(_)));
        assert_eq!(c.get(3), NO_RUN);
        c.set(3, 253);
        assert!(matches!(c, Counts::U16(_)));
        let all = |c: &Counts| [c.get(0), c.get(1), c.get(2), c.get(3)];
        assert_eq!(all(&c), [7, OPEN, 252, 253]);
        c.set(3, 70_000);
        c.set(2, NO_RUN);
        assert!(matches!(c, Counts::U32(_)));
        assert_eq!(all(&c), [7, OPEN, NO_RUN, 70_000]);
        c.set(0, u32::MAX - 3);
        assert_eq!(c.get(0), u32::MAX - 3, "the largest count");
        c.set(0, u32::MAX - 10);
        assert_eq!(c.get(0), u32::MAX - 10);
        assert_eq!(Counts::new(3, 0).get(2), 0);
        assert_eq!(Counts::new(3, UNSEEN).get(1), UNSEEN);
    }
}
