//! One bit per process: the runtime's round flags, marks and legitimacy
//! sets, at an eighth of a byte each.

/// A fixed-size set of small integers, as bits.
#[derive(Clone, Default, Debug)]
pub(crate) struct Bits(pub(crate) Vec<u64>);

impl Bits {
    /// `n` bits, all clear.
    pub(crate) fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }
    #[inline]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
    #[inline]
    pub(crate) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    /// Clears bit `i`, returning whether it was set.
    #[inline]
    pub(crate) fn take(&mut self, i: usize) -> bool {
        let word = &mut self.0[i / 64];
        let bit = 1 << (i % 64);
        let was = *word & bit != 0;
        *word &= !bit;
        was
    }
    /// Makes room for bits up to `n` (new ones clear).
    pub(crate) fn grow(&mut self, n: usize) {
        let words = n.div_ceil(64);
        if self.0.len() < words {
            self.0.resize(words, 0);
        }
    }
    /// The first set bit from `from` on, if any.
    pub(crate) fn first_set_from(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut word = self.0.get(w)? & (u64::MAX << (from % 64));
        while word == 0 {
            w += 1;
            word = *self.0.get(w)?;
        }
        Some(w * 64 + word.trailing_zeros() as usize)
    }
    pub(crate) fn clear_all(&mut self) {
        self.0.iter_mut().for_each(|w| *w = 0);
    }
    pub(crate) fn bytes(&self) -> usize {
        self.0.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::Bits;

    /// The first set bit from a place, across words and past the last.
    #[test]
    fn the_first_set_bit_from_a_place_is_found_across_words() {
        let mut bits = Bits::new(200);
        for i in [3, 63, 64, 130] {
            bits.set(i);
        }
        let found: Vec<Option<usize>> = [0, 4, 63, 65, 131, 199, 250]
            .iter()
            .map(|&from| bits.first_set_from(from))
            .collect();
        let expected = [Some(3), Some(63), Some(63), Some(130), None, None, None];
        assert_eq!(found, expected);
    }
}
