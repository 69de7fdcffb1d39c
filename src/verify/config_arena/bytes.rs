//! The byte strings configurations are kept as: bits written and read
//! a few at a time, variable-length integers, and their hash.

/// Values of a few bits each, appended to a byte string, least
/// significant bits first.
pub(in crate::verify) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    pending: u64,
    held: u32,
}

impl<'a> BitWriter<'a> {
    pub(in crate::verify) fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            pending: 0,
            held: 0,
        }
    }

    /// Appends the low `width` bits of `v` (at most 64). Always in line:
    /// a step's bytes call it from three loops, where it was left a call
    /// (1% of a search with channels).
    #[inline(always)]
    pub(in crate::verify) fn put(&mut self, v: u64, width: u32) {
        // `held` stays under 64: no shift past a word (a 128-bit word's
        // shifts cost more instructions).
        self.pending |= v << self.held;
        let held = self.held + width;
        if held >= 64 {
            // Eight bytes at once, then the bits of `v` that did not fit.
            self.out.extend_from_slice(&self.pending.to_le_bytes());
            self.pending = v.checked_shr(64 - self.held).unwrap_or(0);
            self.held = held - 64;
        } else {
            self.held = held;
        }
    }

    /// Writes the last bits (the rest of their byte 0).
    pub(in crate::verify) fn finish(self) {
        let bytes = self.held.div_ceil(8) as usize;
        put_low_bytes(self.out, self.pending, bytes);
    }
}

/// Reads what a [`BitWriter`] wrote.
pub(super) struct BitReader<'a> {
    bytes: &'a [u8],
    at: usize,
    pending: u128,
    held: u32,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        BitReader {
            bytes,
            at: 0,
            pending: 0,
            held: 0,
        }
    }

    /// The next `width` bits (at most 64).
    pub(super) fn take(&mut self, width: u32) -> u64 {
        if self.held < width {
            // Eight bytes at once where there are (`held` is under 64):
            // a reader given the bytes past its string's end (see
            // `Encoding::decode_packing`) finds them nearly always.
            if let Some(word) = self.bytes.get(self.at..self.at + 8) {
                let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                self.pending |= u128::from(word) << self.held;
                self.at += 8;
                self.held += 64;
            }
        }
        while self.held < width {
            self.pending |= u128::from(self.bytes[self.at]) << self.held;
            self.at += 1;
            self.held += 8;
        }
        let v = (self.pending & ((1u128 << width) - 1)) as u64;
        self.pending >>= width;
        self.held -= width;
        v
    }
}

/// A fast hash of a short byte string (FxHash's step, a word at a time).
pub(super) fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let word = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let rest = words.remainder().len();
    // The remainder's bytes, zero above: where there are eight bytes or
    // more, the last eight read at once and the ones hashed already
    // shifted out (a copy of a few bytes is a call to memcpy).
    let last = match bytes.len().checked_sub(8) {
        Some(at) if rest > 0 => {
            let word = u64::from_le_bytes(bytes[at..].try_into().expect("8 bytes"));
            word >> (8 * (8 - rest))
        }
        Some(_) => 0,
        None => bytes
            .iter()
            .rev()
            .fold(0u64, |word, &b| (word << 8) | u64::from(b)),
    };
    h = (h.rotate_left(5) ^ last).wrapping_mul(K);
    // The table takes the low bits: fold the well-mixed high ones in.
    h ^ (h >> 29)
}

/// Appends the low `count` bytes (at most 8) of `v` to `out`, least
/// significant first: eight written and the rest cut, since a copy of a
/// length known only when running is a call to memcpy.
#[inline(always)]
pub(in crate::verify) fn put_low_bytes(out: &mut Vec<u8>, v: u64, count: usize) {
    let len = out.len();
    out.extend_from_slice(&v.to_le_bytes());
    out.truncate(len + count);
}

/// The `count` bytes (at most 8) at `at` of `bytes`, least significant
/// first: eight read at once where there are, a copy of a length known
/// only when running being a call to memcpy.
#[inline]
pub(super) fn get_low_bytes(bytes: &[u8], at: usize, count: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(word) if count > 0 => {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            word & (u64::MAX >> (64 - 8 * count as u32))
        }
        _ => bytes[at..at + count]
            .iter()
            .rev()
            .fold(0u64, |word, &b| (word << 8) | u64::from(b)),
    }
}

/// Whether two short byte strings are the same, compared a word at a
/// time in line (the library's comparison is a call).
#[inline]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.chunks_exact(8), b.chunks_exact(8));
    for (u, v) in (&mut x).zip(&mut y) {
        if u64::from_le_bytes(u.try_into().expect("8 bytes"))
            != u64::from_le_bytes(v.try_into().expect("8 bytes"))
        {
            return false;
        }
    }
    x.remainder().iter().zip(y.remainder()).all(|(u, v)| u == v)
}

pub(in crate::verify) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(super) fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// Appends `v` as a variable-length integer, seven bits a byte: the one
/// byte of a small value in line (a configuration's count of messages,
/// where its length does not say it), the rest a call.
#[inline(always)]
pub(in crate::verify) fn varint(out: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        out.push(v as u8);
    } else {
        varint_long(out, v);
    }
}

#[inline(never)]
fn varint_long(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn read_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The hash as first written: the remainder copied into a zeroed word.
    fn hash_copying(bytes: &[u8]) -> u64 {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = bytes.len() as u64;
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w.try_into().unwrap())).wrapping_mul(K);
        }
        let mut last = [0u8; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
        h ^ (h >> 29)
    }

    proptest! {
        /// Values of 0 to 64 bits written one after the other are read
        /// back as they were, also where the bytes go on past them.
        #[test]
        fn bits_written_are_read_back(
            values in proptest::collection::vec((any::<u64>(), 0u32..=64), 0..40),
            after in proptest::collection::vec(any::<u8>(), 0..10),
        ) {
            let mut out = Vec::new();
            let mut bits = BitWriter::new(&mut out);
            for &(v, width) in &values {
                bits.put(v & u64::MAX.checked_shr(64 - width).unwrap_or(0), width);
            }
            bits.finish();
            let total: u32 = values.iter().map(|v| v.1).sum();
            prop_assert_eq!(out.len() as u32, total.div_ceil(8));
            out.extend_from_slice(&after);
            let mut read = BitReader::new(&out);
            for &(v, width) in &values {
                prop_assert_eq!(read.take(width), v & u64::MAX.checked_shr(64 - width).unwrap_or(0));
            }
        }

        /// The word-at-a-time helpers give what copying byte by byte
        /// gives, at every length and place: the hash (the table's layout
        /// depends on it), the low bytes written and read, the comparison.
        #[test]
        fn word_helpers_agree_with_copies(
            bytes in proptest::collection::vec(any::<u8>(), 0..40),
            other in proptest::collection::vec(any::<u8>(), 0..40),
            v in any::<u64>(),
            count in 0usize..=8,
            at in 0usize..40,
        ) {
            prop_assert_eq!(hash(&bytes), hash_copying(&bytes));
            let mut out = bytes.clone();
            put_low_bytes(&mut out, v, count);
            prop_assert_eq!(&out[..bytes.len()], &bytes[..]);
            prop_assert_eq!(&out[bytes.len()..], &v.to_le_bytes()[..count]);
            prop_assert_eq!(get_low_bytes(&out, bytes.len(), count), {
                let mut word = [0u8; 8];
                word[..count].copy_from_slice(&v.to_le_bytes()[..count]);
                u64::from_le_bytes(word)
            });
            if at + count <= bytes.len() {
                let mut word = [0u8; 8];
                word[..count].copy_from_slice(&bytes[at..at + count]);
                prop_assert_eq!(get_low_bytes(&bytes, at, count), u64::from_le_bytes(word));
            }
            prop_assert_eq!(same_bytes(&bytes, &other), bytes == other);
            prop_assert!(same_bytes(&bytes, &bytes.clone()));
            let mut changed = bytes.clone();
            if let Some(b) = changed.get_mut(at) {
                *b ^= 1;
                prop_assert!(!same_bytes(&bytes, &changed));
            }
        }
    }
}
