//! Where every configuration's rows are coded and its messages packed a
//! word each, all of one width: its bytes are its code and its messages
//! alone, and how many messages there are is read from how many bytes
//! there are (the count's byte was 1 of Chang and Roberts' 21 a
//! configuration on the ring of 16). A configuration not so written
//! (rows the code does not take, a field outside its domain) begins with
//! a mark no configuration so written begins with, then is written with
//! its count (see [`HOW`]).

use super::bytes::get_low_bytes;
use super::encoding::CodeWidths;
#[cfg(doc)]
use super::encoding::HOW;
use super::{put_low_bytes, BitWriter};

/// How the count of messages is read from a configuration's length.
#[derive(Clone, Copy, Debug)]
pub(in crate::verify) struct CountInLength {
    /// The bits each message takes: at least 8, so that the bits that
    /// pad the last byte hold no message.
    width: u32,
    /// The bits of a message's channel, the first of its word.
    arc_bits: u32,
    mark: Mark,
}

/// What a configuration written with its count begins with.
#[derive(Clone, Copy, Debug)]
enum Mark {
    /// A low half no code takes (the count of its values).
    Low(u64),
    /// Where the low half has no value to spare: the code's halves 0,
    /// then a message on a channel there is not (the count of channels),
    /// alone in its bytes.
    Channel(u64),
}

impl CountInLength {
    /// Where configurations' counts can be read from their length: rows
    /// coded as `coded` (the space's counts in halves and how they are
    /// written), messages packed a word each (`words`) on `arcs`
    /// channels, each type taking the bits of its channel and type
    /// (`bits`) and of its fields (`fields_bits`); `None` where the
    /// types' widths differ or are below a byte, or where neither the
    /// code's low half nor the channels have a value to spare (a low
    /// half of 2^64 values and a power of two of channels).
    pub(super) fn of(
        coded: Option<([u128; 2], CodeWidths)>,
        (words, arcs): (bool, usize),
        (arc_bits, kind_bits): (u32, u32),
        fields_bits: &[u32],
    ) -> Option<Self> {
        let ([_, low_count], widths) = coded.filter(|_| words)?;
        let width = arc_bits + kind_bits + fields_bits.first()?;
        let one_width = fields_bits
            .iter()
            .all(|&f| arc_bits + kind_bits + f == width);
        // A low half past every code's, which its bytes can hold (at most
        // eight); else a channel past every one, which its bits can.
        let mark = if low_count >> (8 * widths.low_bytes) == 0 {
            Mark::Low(low_count as u64)
        } else if (arcs as u64) >> arc_bits == 0 {
            Mark::Channel(arcs as u64)
        } else {
            return None;
        };
        (one_width && width >= 8).then_some(CountInLength {
            width,
            arc_bits,
            mark,
        })
    }

    /// How many messages a configuration `len` bytes long holds, if it
    /// is written without its count.
    #[inline]
    pub(super) fn count(&self, len: usize, widths: CodeWidths) -> u64 {
        let bits = 8 * (len - widths.low_bytes) as u32 - widths.high_bits;
        u64::from(bits / self.width)
    }

    /// Whether configuration `bytes`, which would hold `count` messages
    /// if written without its count, is written with it.
    #[inline]
    pub(super) fn marks(&self, bytes: &[u8], widths: CodeWidths, count: u64) -> bool {
        match self.mark {
            Mark::Low(low) => get_low_bytes(bytes, 0, widths.low_bytes) == low,
            Mark::Channel(arc) => {
                // The first message's channel, after the code.
                let bit = 8 * widths.low_bytes + widths.high_bits as usize;
                let (at, shift) = (bit / 8, bit as u32 % 8);
                let read = (shift + self.arc_bits).div_ceil(8) as usize;
                count > 0
                    && get_low_bytes(bytes, at, read) >> shift & ((1 << self.arc_bits) - 1) == arc
            }
        }
    }

    /// Where the count of a configuration written with it is.
    #[inline]
    pub(super) fn counted_from(&self, widths: CodeWidths) -> usize {
        match self.mark {
            Mark::Low(_) => widths.low_bytes,
            Mark::Channel(_) => {
                widths.low_bytes + (widths.high_bits + self.width).div_ceil(8) as usize
            }
        }
    }

    /// Appends the mark of a configuration written with its count.
    pub(super) fn put_mark(&self, out: &mut Vec<u8>, widths: CodeWidths) {
        match self.mark {
            Mark::Low(low) => put_low_bytes(out, low, widths.low_bytes),
            Mark::Channel(arc) => {
                put_low_bytes(out, 0, widths.low_bytes);
                let mut bits = BitWriter::new(out);
                bits.put(0, widths.high_bits);
                bits.put(arc, self.width);
                bits.finish();
            }
        }
    }
}
