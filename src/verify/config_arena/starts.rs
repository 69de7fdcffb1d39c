//! Where each configuration's bytes start in the arena: in groups of
//! [`GROUP`], the group's first start in 32 bits and each
//! configuration's length in a byte, 1.25 bytes a configuration (Chang
//! and Roberts' ring of 16 keeps some 20 bytes a configuration, and 16
//! bits past the group's first took 2.25). A start is its group's first
//! plus the lengths before it in the group, summed in two words. A
//! configuration longer than 255 bytes turns every start into 16 bits
//! past its group's first, and a group whose bytes outgrow 16 bits every
//! start into 32 bits, once each.

/// How many starts share a first start.
const GROUP: usize = 16;

/// The starts of the configurations kept, and one past the last's end.
pub(super) enum Starts {
    /// Each group begun (and the next where the last ends a group), how
    /// many configurations there are and where the last ends.
    Lengths {
        groups: Vec<LengthGroup>,
        count: usize,
        end: u32,
    },
    /// The first start of each group, and each start past its group's.
    Grouped { firsts: Vec<u32>, offsets: Vec<u16> },
    /// Each start.
    Plain(Vec<u32>),
}

/// A group's first start and each of its configurations' lengths (zeros
/// past the last), together: a start is read from one place.
#[derive(Clone, Copy)]
pub(super) struct LengthGroup {
    first: u32,
    lengths: [u8; GROUP],
}

impl LengthGroup {
    /// The sum of its first `k` lengths (`k` under 16).
    #[inline(always)]
    fn before(&self, k: usize) -> usize {
        let (low, high) = BEFORE[k];
        let lengths = u128::from_le_bytes(self.lengths);
        let (a, b) = (lengths as u64 & low, (lengths >> 64) as u64 & high);
        // Fifteen lengths at most, 3,825 together.
        lanes_sum(byte_pairs(a) + byte_pairs(b))
    }
}

/// Per `k` under 16, the low and high words that keep a group's first
/// `k` lengths.
const BEFORE: [(u64, u64); GROUP] = {
    let mut masks = [(0, 0); GROUP];
    let mut k = 1;
    while k < GROUP {
        masks[k] = match k {
            1..=7 => ((1 << (8 * k)) - 1, 0),
            8 => (u64::MAX, 0),
            _ => (u64::MAX, (1 << (8 * (k - 8))) - 1),
        };
        k += 1;
    }
    masks
};

/// Four 16-bit sums of two bytes each of `x` (at most 510 each).
#[inline]
fn byte_pairs(x: u64) -> u64 {
    const LOW: u64 = 0x00ff_00ff_00ff_00ff;
    (x & LOW) + ((x >> 8) & LOW)
}

/// The sum of the four 16-bit numbers in `pairs`, at most 65,535 together.
#[inline]
fn lanes_sum(pairs: u64) -> usize {
    (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize
}

impl Starts {
    /// The start of the first configuration, 0, alone.
    pub(super) fn new() -> Self {
        Starts::Lengths {
            groups: vec![LengthGroup {
                first: 0,
                lengths: [0; GROUP],
            }],
            count: 0,
            end: 0,
        }
    }

    /// How many starts there are (one more than the configurations).
    #[inline]
    pub(super) fn len(&self) -> usize {
        match self {
            Starts::Lengths { count, .. } => count + 1,
            Starts::Grouped { offsets, .. } => offsets.len(),
            Starts::Plain(starts) => starts.len(),
        }
    }

    /// Start `i`.
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> usize {
        match self {
            Starts::Lengths { groups, .. } => {
                let group = &groups[i / GROUP];
                group.first as usize + group.before(i % GROUP)
            }
            Starts::Grouped { firsts, offsets } => {
                firsts[i / GROUP] as usize + usize::from(offsets[i])
            }
            Starts::Plain(starts) => starts[i] as usize,
        }
    }

    /// Where configuration `i`'s bytes start and end, read in one `match`:
    /// its end through [`Starts::end_of`] was a call at each look-up.
    #[inline(always)]
    pub(super) fn span(&self, i: usize) -> (usize, usize) {
        match self {
            Starts::Lengths { groups, .. } => {
                let (group, k) = (&groups[i / GROUP], i % GROUP);
                let start = group.first as usize + group.before(k);
                (start, start + usize::from(group.lengths[k]))
            }
            Starts::Grouped { firsts, offsets } => {
                let first = |i| firsts[i / GROUP] as usize + usize::from(offsets[i]);
                (first(i), first(i + 1))
            }
            Starts::Plain(starts) => (starts[i] as usize, starts[i + 1] as usize),
        }
    }

    /// Where configuration `i`, which starts at `start`, ends.
    #[inline]
    pub(super) fn end_of(&self, i: usize, start: usize) -> usize {
        match self {
            Starts::Lengths { groups, .. } => {
                start + usize::from(groups[i / GROUP].lengths[i % GROUP])
            }
            _ => self.get(i + 1),
        }
    }

    /// Asks the cache for start `i`.
    #[inline]
    pub(super) fn prefetch(&self, i: usize) {
        use crate::runtime::cache::prefetch;
        match self {
            Starts::Lengths { groups, .. } => prefetch(&groups[i / GROUP]),
            Starts::Grouped { firsts, offsets } => {
                prefetch(&firsts[i / GROUP]);
                prefetch(&offsets[i]);
            }
            Starts::Plain(starts) => prefetch(&starts[i]),
        }
    }

    /// Appends a start, `at` (no smaller than the last).
    pub(super) fn push(&mut self, at: u32) {
        match self {
            Starts::Lengths { groups, count, end } => {
                let Ok(length) = u8::try_from(at - *end) else {
                    self.widen();
                    return self.push(at);
                };
                let i = *count;
                groups[i / GROUP].lengths[i % GROUP] = length;
                (*count, *end) = (i + 1, at);
                if (i + 1) % GROUP == 0 {
                    groups.push(LengthGroup {
                        first: at,
                        lengths: [0; GROUP],
                    });
                }
            }
            Starts::Grouped { firsts, offsets } => {
                let i = offsets.len();
                if i % GROUP == 0 {
                    firsts.push(at);
                    offsets.push(0);
                } else if let Ok(past) = u16::try_from(at - firsts[i / GROUP]) {
                    offsets.push(past);
                } else {
                    self.widen();
                    self.push(at);
                }
            }
            Starts::Plain(starts) => starts.push(at),
        }
    }

    /// Lengths to 16 bits past each group's first where every group's
    /// fit, else (and from those) every start in 32 bits.
    #[cold]
    fn widen(&mut self) {
        let plain: Vec<u32> = (0..self.len()).map(|i| self.get(i) as u32).collect();
        let offsets = match self {
            Starts::Lengths { .. } => plain
                .iter()
                .enumerate()
                .map(|(i, &at)| u16::try_from(at - plain[i / GROUP * GROUP]).ok())
                .collect::<Option<Vec<u16>>>(),
            _ => None,
        };
        *self = match offsets {
            Some(offsets) => Starts::Grouped {
                firsts: plain.iter().step_by(GROUP).copied().collect(),
                offsets,
            },
            None => Starts::Plain(plain),
        };
    }

    /// The bytes they take.
    pub(super) fn bytes(&self) -> usize {
        match self {
            Starts::Lengths { groups, .. } => {
                groups.capacity() * std::mem::size_of::<LengthGroup>()
            }
            Starts::Grouped { firsts, offsets } => 4 * firsts.capacity() + 2 * offsets.capacity(),
            Starts::Plain(starts) => 4 * starts.capacity(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes `at` to both, and checks every start (and span) comes back.
    fn push_and_check(starts: &mut Starts, expected: &mut Vec<u32>, at: u32) {
        starts.push(at);
        expected.push(at);
        assert_eq!(starts.len(), expected.len());
        for (i, &e) in expected.iter().enumerate() {
            assert_eq!(starts.get(i), e as usize, "{i}");
        }
        for i in 0..expected.len() - 1 {
            let span = (expected[i] as usize, expected[i + 1] as usize);
            assert_eq!(starts.span(i), span, "{i}");
        }
    }

    /// Short configurations keep their lengths in a byte; one longer
    /// than 255 bytes turns the starts into 16 bits past each group's
    /// first; a group spanning more than 16 bits turns them all plain;
    /// each way, each start comes back, at every length of the last
    /// group.
    #[test]
    fn starts_come_back_as_lengths_grouped_or_plain() {
        let mut starts = Starts::new();
        let mut expected = vec![0u32];
        let mut at = 0u32;
        for i in 1..200u32 {
            // Lengths of 0 and 255 among them.
            at += [i % 37, 0, 255][i as usize % 3];
            push_and_check(&mut starts, &mut expected, at);
        }
        assert!(matches!(starts, Starts::Lengths { .. }));
        // A configuration of 256 bytes, part way through a group.
        assert_ne!(starts.len() % GROUP, 0);
        at += 256;
        push_and_check(&mut starts, &mut expected, at);
        assert!(matches!(starts, Starts::Grouped { .. }));
        for i in 1..42u32 {
            at += i * 3;
            push_and_check(&mut starts, &mut expected, at);
        }
        // A group's bytes past 16 bits, part way through a group.
        assert_ne!(starts.len() % GROUP, 0);
        at += 70_000;
        push_and_check(&mut starts, &mut expected, at);
        assert!(matches!(starts, Starts::Plain(_)));
        for i in 0..100u32 {
            at += i;
            push_and_check(&mut starts, &mut expected, at);
        }
        // A start 65,535 past its group's first still fits 16 bits, and
        // the first of a group takes any start.
        let mut starts = Starts::new();
        let mut expected = vec![0u32];
        for at in [255, 510, 300 + 255] {
            push_and_check(&mut starts, &mut expected, at);
        }
        push_and_check(&mut starts, &mut expected, 1_000);
        assert!(matches!(starts, Starts::Grouped { .. }));
        for i in 0..11 {
            push_and_check(&mut starts, &mut expected, 65_525 + i);
        }
        assert_eq!(starts.len(), GROUP);
        push_and_check(&mut starts, &mut expected, 1 << 30);
        assert!(matches!(starts, Starts::Grouped { .. }));
        // Lengths whose group spans more than 16 bits go plain at once.
        let mut starts = Starts::new();
        let mut expected = vec![0u32];
        for i in 1..=GROUP as u32 + 3 {
            push_and_check(&mut starts, &mut expected, 255 * i);
        }
        push_and_check(&mut starts, &mut expected, 255 * 19 + 70_000);
        assert!(matches!(starts, Starts::Plain(_)));
    }

    /// Sums of bytes, at their largest, and the masks of a group's first
    /// lengths.
    #[test]
    fn bytes_are_summed_in_words() {
        assert_eq!(lanes_sum(byte_pairs(u64::MAX) * 2), 16 * 255);
        assert_eq!(lanes_sum(byte_pairs(0x0102_0304_0506_0708)), 36);
        assert_eq!(lanes_sum(byte_pairs(0)), 0);
        for (k, &(low, high)) in BEFORE.iter().enumerate() {
            let bytes = u128::from(high) << 64 | u128::from(low);
            assert_eq!(bytes, (1u128 << (8 * k)) - 1, "{k}");
        }
    }
}
