//! Where each configuration's bytes start in the arena: in groups of
//! [`GROUP`], the group's first start in 32 bits and every start as 16
//! bits past it, 2.25 bytes a configuration rather than 4 (Chang and
//! Roberts' ring of 9 keeps 16 bytes a configuration: the starts were a
//! fifth of the arena). A group whose bytes outgrow 16 bits turns every
//! start into 32 bits, once.

/// How many starts share a first start.
const GROUP: usize = 16;

/// The starts of the configurations kept, and one past the last's end.
pub(super) enum Starts {
    /// The first start of each group, and each start past its group's.
    Grouped { firsts: Vec<u32>, offsets: Vec<u16> },
    /// Each start.
    Plain(Vec<u32>),
}

impl Starts {
    /// The start of the first configuration, 0, alone.
    pub(super) fn new() -> Self {
        Starts::Grouped {
            firsts: vec![0],
            offsets: vec![0],
        }
    }

    /// How many starts there are (one more than the configurations).
    #[inline]
    pub(super) fn len(&self) -> usize {
        match self {
            Starts::Grouped { offsets, .. } => offsets.len(),
            Starts::Plain(starts) => starts.len(),
        }
    }

    /// Start `i`.
    #[inline]
    pub(super) fn get(&self, i: usize) -> usize {
        match self {
            Starts::Grouped { firsts, offsets } => {
                firsts[i / GROUP] as usize + usize::from(offsets[i])
            }
            Starts::Plain(starts) => starts[i] as usize,
        }
    }

    /// Asks the cache for start `i`.
    #[inline]
    pub(super) fn prefetch(&self, i: usize) {
        use crate::runtime::cache::prefetch;
        match self {
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

    /// Every start in 32 bits.
    #[cold]
    fn widen(&mut self) {
        let plain = (0..self.len()).map(|i| self.get(i) as u32).collect();
        *self = Starts::Plain(plain);
    }

    /// The bytes they take.
    pub(super) fn bytes(&self) -> usize {
        match self {
            Starts::Grouped { firsts, offsets } => 4 * firsts.capacity() + 2 * offsets.capacity(),
            Starts::Plain(starts) => 4 * starts.capacity(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts close together stay grouped; one group spanning more than
    /// 16 bits turns them all plain; either way each start comes back.
    #[test]
    fn starts_come_back_grouped_or_plain() {
        let mut starts = Starts::new();
        let mut expected = vec![0u32];
        let mut at = 0u32;
        for i in 1..200u32 {
            at += i % 37;
            starts.push(at);
            expected.push(at);
        }
        assert!(matches!(starts, Starts::Grouped { .. }));
        // A group's bytes past 16 bits, part way through a group.
        assert_ne!(starts.len() % GROUP, 0);
        at += 70_000;
        starts.push(at);
        expected.push(at);
        assert!(matches!(starts, Starts::Plain(_)));
        for i in 0..100u32 {
            at += i;
            starts.push(at);
            expected.push(at);
        }
        assert_eq!(starts.len(), expected.len());
        for (i, &e) in expected.iter().enumerate() {
            assert_eq!(starts.get(i), e as usize, "{i}");
        }
        // A start 65,535 past its group's first still fits.
        let mut starts = Starts::new();
        starts.push(65_535);
        assert!(matches!(starts, Starts::Grouped { .. }));
        assert_eq!(starts.get(1), 65_535);
        // The first of a group takes any start.
        let mut starts = Starts::new();
        for i in 1..GROUP as u32 {
            starts.push(i);
        }
        starts.push(1 << 30);
        assert!(matches!(starts, Starts::Grouped { .. }));
        assert_eq!(starts.get(GROUP), 1 << 30);
    }
}
