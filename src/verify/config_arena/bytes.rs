//! The byte strings configurations are kept as: bits written and read
//! a few at a time, variable-length integers, and their hash.

/// Values of a few bits each, appended to a byte string, least
/// significant bits first.
pub(in crate::verify) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    pending: u128,
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

    /// Appends the low `width` bits of `v` (at most 64).
    #[inline]
    pub(in crate::verify) fn put(&mut self, v: u64, width: u32) {
        self.pending |= u128::from(v) << self.held;
        self.held += width;
        // Eight bytes at once: `held` stays under 64 + 64.
        if self.held >= 64 {
            self.out
                .extend_from_slice(&(self.pending as u64).to_le_bytes());
            self.pending >>= 64;
            self.held -= 64;
        }
    }

    /// Writes the last bits (the rest of their byte 0).
    pub(in crate::verify) fn finish(self) {
        let bytes = self.held.div_ceil(8) as usize;
        self.out
            .extend_from_slice(&(self.pending as u64).to_le_bytes()[..bytes]);
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
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    // The table takes the low bits: fold the well-mixed high ones in.
    h ^ (h >> 29)
}

pub(super) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(super) fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

pub(in crate::verify) fn varint(out: &mut Vec<u8>, mut v: u64) {
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
