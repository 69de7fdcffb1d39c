//! Each reached configuration's parent, the one breadth-first search
//! first reached it from, in about two bits a configuration instead of
//! four bytes. Configurations are numbered as they are found, by
//! expanding them in order, so each one's children have the numbers
//! after the children of those before it: the parents never decrease.
//! They are kept as how many children each configuration numbered, in
//! unary.

/// Every how many children the place of one is kept, so that finding a
/// child's place reads few words.
const SAMPLE: u64 = 256;

/// The parents of configurations numbered breadth first.
pub(super) struct Parents {
    /// For each configuration in order: a one for each configuration it
    /// numbered, then a zero.
    bits: Vec<u64>,
    len: u64,
    ones: u64,
    /// The place of every [`SAMPLE`]-th one (the 0th, the `SAMPLE`-th, ...).
    sampled: Vec<u64>,
    /// How many starts come first (numbered before any child).
    starts: u32,
}

impl Parents {
    /// The parents of `starts` starts alone (configurations `0..starts`,
    /// which have none).
    pub(super) fn new(starts: u32) -> Self {
        Parents {
            bits: Vec::new(),
            len: 0,
            ones: 0,
            sampled: Vec::new(),
            starts,
        }
    }

    /// How many starts there are: the configurations numbered first.
    pub(super) fn starts(&self) -> u32 {
        self.starts
    }

    /// The next configuration in order numbered `children` configurations
    /// (the next ones).
    pub(super) fn numbered(&mut self, children: u32) {
        let children = u64::from(children);
        // The samples among the new ones: the multiples of SAMPLE.
        let mut sample = self.ones.div_ceil(SAMPLE) * SAMPLE;
        while sample < self.ones + children {
            self.sampled.push(self.len + sample - self.ones);
            sample += SAMPLE;
        }
        self.ones += children;
        // Ones, then the zero.
        let end = self.len + children + 1;
        self.bits.resize(end.div_ceil(64) as usize, 0);
        for at in self.len..end - 1 {
            self.bits[(at / 64) as usize] |= 1 << (at % 64);
        }
        self.len = end;
    }

    /// Configuration `i`'s parent; `None` for a start, and for a
    /// configuration no one numbered yet.
    pub(super) fn parent(&self, i: u32) -> Option<u32> {
        // Configuration i is the (i - starts)-th child numbered: the zeros
        // before its one are the configurations before its parent.
        let child = u64::from(i)
            .checked_sub(u64::from(self.starts))
            .filter(|&c| c < self.ones)?;
        let at = self.sampled[(child / SAMPLE) as usize];
        let mut skip = child % SAMPLE;
        let mut word = (at / 64) as usize;
        // The sampled one and those after it, counted from its word.
        let mut bits = self.bits[word] & (u64::MAX << (at % 64));
        loop {
            let ones = u64::from(bits.count_ones());
            if skip < ones {
                for _ in 0..skip {
                    bits &= bits - 1;
                }
                let place = 64 * word as u64 + u64::from(bits.trailing_zeros());
                return Some((place - child) as u32);
            }
            skip -= ones;
            word += 1;
            bits = self.bits[word];
        }
    }

    /// About the bytes kept.
    pub(super) fn bytes(&self) -> usize {
        8 * (self.bits.capacity() + self.sampled.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The parents given back are those numbered, with runs of
        /// childless configurations long and short, across samples.
        #[test]
        fn parents_are_given_back(children in prop::collection::vec(
            prop_oneof![0u32..3, 0u32..700, Just(0u32)], 1..400), starts in 1u32..5) {
            let mut parents = Parents::new(starts);
            let mut expected = vec![None; starts as usize];
            for (c, &k) in children.iter().enumerate() {
                parents.numbered(k);
                expected.extend((0..k).map(|_| Some(c as u32)));
            }
            for (i, &p) in expected.iter().enumerate() {
                prop_assert_eq!(parents.parent(i as u32), p, "{}", i);
            }
            prop_assert_eq!(parents.parent(expected.len() as u32), None);
        }
    }
}
