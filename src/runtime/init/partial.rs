//! A configuration being built: a value and whether it is set, for each
//! slot, kept as the values and a bit each (not `Option<i64>`, twice the
//! bytes, and then copied out: 24 bytes a slot at the peak of a set-up of
//! a ring of a million processes, against 8 now).

use crate::runtime::bits::Bits;

/// The slots of a configuration, some set.
pub(crate) struct PartialState {
    values: Vec<i64>,
    set: Bits,
}

impl PartialState {
    /// `len` slots, none set.
    pub(crate) fn unset(len: usize) -> Self {
        PartialState {
            values: vec![0; len],
            set: Bits::new(len),
        }
    }

    /// Every slot set, to `values`.
    pub(crate) fn full(values: Vec<i64>) -> Self {
        let mut set = Bits::new(values.len());
        set.0.iter_mut().for_each(|w| *w = u64::MAX);
        PartialState { values, set }
    }

    /// Sets slot `k` to `v`.
    #[inline]
    pub(crate) fn put(&mut self, k: usize, v: i64) {
        self.values[k] = v;
        self.set.set(k);
    }

    /// Slot `k`'s value, if set.
    #[inline]
    pub(crate) fn get(&self, k: usize) -> Option<i64> {
        self.set.get(k).then(|| self.values[k])
    }

    /// Slot `to` takes slot `from`'s value, or is unset with it.
    pub(crate) fn copy(&mut self, from: usize, to: usize) {
        match self.get(from) {
            Some(v) => self.put(to, v),
            None => {
                self.set.take(to);
            }
        }
    }

    /// The values, every slot set; else the first slot not set.
    pub(crate) fn into_values(self) -> Result<Vec<i64>, usize> {
        // A word of bits at a time (ten million slots in a large set-up).
        let mut words = self.set.0.iter().enumerate();
        let unset = words
            .find(|(_, &w)| w != u64::MAX)
            .map(|(i, w)| i * 64 + w.trailing_ones() as usize)
            .filter(|&k| k < self.values.len());
        match unset {
            Some(k) => Err(k),
            None => Ok(self.values),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_set_copied_and_reported_unset() {
        let mut s = PartialState::unset(130);
        assert_eq!(s.get(3), None);
        s.put(3, -7);
        s.put(129, 5);
        assert_eq!(s.get(3), Some(-7));
        s.copy(3, 64);
        assert_eq!(s.get(64), Some(-7));
        s.copy(0, 64);
        assert_eq!(s.get(64), None);
        assert_eq!(s.into_values(), Err(0));
        // The first unset past whole words set; none past the last slot.
        let mut most = PartialState::unset(200);
        (0..200)
            .filter(|&k| k != 131)
            .for_each(|k| most.put(k, k as i64));
        assert_eq!(most.into_values(), Err(131));
        let mut all = PartialState::unset(130);
        (0..130).for_each(|k| all.put(k, 1));
        assert_eq!(all.into_values().map(|v| v.len()), Ok(130));
        let mut full = PartialState::full(vec![1, 2, 3]);
        full.copy(0, 2);
        assert_eq!(full.into_values(), Ok(vec![1, 2, 1]));
    }
}
