//! How a configuration with channels is written as bytes (see the
//! parent module's doc for the encoding).

use super::bytes::{get_low_bytes, read_varint, unzigzag, zigzag, BitReader};
use super::count_in_length::CountInLength;
use super::MessageShape;
use super::{put_low_bytes, varint, BitWriter};
use crate::runtime::space::Space;
use crate::state::channels::{Channels, Msg, MAX_FIELDS};
use crate::state::Config;
use crate::verify::bits_for;

/// A configuration's bytes begin with one variable-length integer: how
/// many messages are in transit, shifted left by `HOW` bits, which say
/// how the rest is written: `UNCODED` (rows as values, not a code) and
/// `PACKED` (messages packed in bits).
pub(in crate::verify) const HOW: u32 = 2;
pub(in crate::verify) const UNCODED: u64 = 1;
pub(in crate::verify) const PACKED: u64 = 2;

/// How configurations are written as bytes.
pub(super) struct Encoding {
    /// The state space and how a code in halves is written (see
    /// [`Space::index_halves`]), where the rows are coded.
    pub(super) coded: Option<(Space, CodeWidths)>,
    pub(super) messages: MessageShape,
    /// The bits of a packed message's channel and type.
    pub(super) bits: (u32, u32),
    /// Whether messages are packed a word each (see
    /// [`Encoding::pack_words`]): in rounds, each type's bits fitting a word.
    pub(super) words: bool,
    /// Per message type: the bits of its fields, packed.
    pub(super) fields_bits: Vec<u32>,
    /// Where the count of messages is left out and read from the length
    /// (see [`CountInLength`]).
    pub(super) count_in_length: Option<CountInLength>,
}

impl Encoding {
    /// What the configuration `bytes` begin with (`len` bytes long) says
    /// of its count of messages and of how the rest is written (as the
    /// variable-length integer its bytes begin with where they have one,
    /// see [`HOW`]), and where that rest starts.
    #[inline]
    fn how(&self, bytes: &[u8], len: usize) -> (u64, usize) {
        let mut at = 0;
        if let (Some(implied), Some((_, widths))) = (self.count_in_length, &self.coded) {
            let count = implied.count(len, *widths);
            if !implied.marks(bytes, *widths, count) {
                return (count << HOW | if count > 0 { PACKED } else { 0 }, 0);
            }
            at = implied.counted_from(*widths);
        }
        let how = read_varint(bytes, &mut at);
        (how, at)
    }

    /// Appends `cfg`'s bytes (canonical: its messages numbered 0, 1, ...
    /// in the order they were sent, or receiver by receiver) to `out`:
    /// its messages receiver by receiver ([`Channels::by_receiver`]).
    pub(super) fn encode(&self, cfg: &Config, out: &mut Vec<u8>) {
        if let (Some(implied), Some((space, widths))) = (self.count_in_length, &self.coded) {
            let head = out.len();
            if let Some([high, low]) = space.index_halves(&cfg.rows) {
                put_low_bytes(out, low, widths.low_bytes);
                let count = cfg.chans.queues.iter().map(|q| q.len()).sum();
                let high = (high, widths.high_bits);
                if count == 0 {
                    return put_high_alone(out, high);
                }
                if self.pack_words(&cfg.chans, (count, high), out) {
                    return;
                }
                out.truncate(head);
            }
            // Written with its count, after what no configuration so
            // written begins with.
            implied.put_mark(out, *widths);
        }
        self.encode_counted(cfg, out);
    }

    /// [`Encoding::encode`] with the count of messages first.
    fn encode_counted(&self, cfg: &Config, out: &mut Vec<u8>) {
        let head = out.len();
        // First, how many messages are in transit and how the rest is
        // written, in one variable-length integer (see `HOW`).
        let chans = &cfg.chans;
        let count: usize = chans.queues.iter().map(|q| q.len()).sum();
        // Rows with a code or, with a value the space does not have, each
        // value (`UNCODED`): every configuration is kept.
        // The code's high half, if any, heads the bits the messages are
        // packed in (see `CodeWidths`).
        let high = match self
            .coded
            .as_ref()
            .and_then(|(space, w)| Some((space.index_halves(&cfg.rows)?, *w)))
        {
            Some((code, widths)) => {
                varint(out, (count as u64) << HOW);
                put_low_bytes(out, code[1], widths.low_bytes);
                (code[0], widths.high_bits)
            }
            None => {
                varint(out, (count as u64) << HOW | UNCODED);
                cfg.rows.iter().for_each(|&v| varint(out, zigzag(v)));
                (0, 0)
            }
        };
        // The messages receiver by receiver, each receiver's in the order
        // they were sent, each with its channel: the channels are first
        // in, first out, so that order gives every queue back, and each
        // message's place in it needs no bytes.
        if count == 0 {
            return put_high_alone(out, high);
        }
        // The first byte holds the low bits of the integer.
        if self.words && self.pack_words(chans, (count, high), out) {
            out[head] |= PACKED as u8;
            return;
        }
        // Where each message is (channel, place), by its number.
        let (mut few, mut many) = ([(0u32, 0u32); 64], Vec::new());
        let order = first_of(&mut few, &mut many, count);
        for (arc, queue) in chans
            .queues
            .iter()
            .enumerate()
            .filter(|(_, q)| !q.is_empty())
        {
            for (at, m) in queue.iter().enumerate() {
                debug_assert!(m.seq < count as u64, "canonical channels");
                order[m.seq as usize] = (arc as u32, at as u32);
            }
        }
        // Stable: each receiver's in the order sent.
        let receiver = |&(arc, _): &(u32, u32)| self.messages.receiver(arc);
        if !order.is_sorted_by_key(receiver) {
            order.sort_by_key(receiver);
        }
        // Packed (`PACKED`) where every field is in its domain: the
        // channel, the type and each field in the bits their values take,
        // next to one another; else, from the same place, a
        // variable-length integer each.
        if !self.messages.timed && self.pack(chans, (order, high), out) {
            out[head] |= PACKED as u8;
            return;
        }
        put_high_alone(out, high);
        for &(arc, at) in order.iter() {
            let m = &chans.queues[arc as usize][at as usize];
            varint(out, u64::from(arc));
            varint(out, u64::from(m.kind));
            let arity = self.messages.arity(m.kind);
            debug_assert!(
                m.fields[arity..].iter().all(|&f| f == 0),
                "unused fields are 0"
            );
            m.fields[..arity]
                .iter()
                .for_each(|&f| varint(out, zigzag(f)));
            if self.messages.timed {
                varint(out, u64::from(m.due));
            } else {
                debug_assert_eq!(m.due, 0, "no delays in rounds");
            }
        }
    }

    /// A packed message's bits, on channel `arc`, in a word, and how
    /// many; `None` where a field is outside its domain or the type is
    /// unknown. Only where [`Encoding::words`] says they fit.
    #[inline]
    pub(super) fn word(&self, arc: usize, m: &Msg) -> Option<(u64, u32)> {
        let (arc_bits, kind_bits) = self.bits;
        let fields = self.messages.domains.get(usize::from(m.kind))?;
        let (mut word, mut held) = (
            arc as u64 | u64::from(m.kind) << arc_bits,
            arc_bits + kind_bits,
        );
        for (&(lo, width), &f) in fields.iter().zip(&m.fields) {
            // Below `lo`, the difference wraps to a large number.
            let x = f.wrapping_sub(lo) as u64;
            if width < 64 && x >> width != 0 {
                return None;
            }
            word |= x.checked_shl(held).unwrap_or(0);
            held += width;
        }
        Some((word, held))
    }

    /// [`Encoding::pack`] of the `count` messages of `chans` where each
    /// fits in a word: one pass over the channels, each message's word
    /// put at its number, then written in order, after `high`.
    fn pack_words(
        &self,
        chans: &Channels,
        (count, high): (usize, (u64, u32)),
        out: &mut Vec<u8>,
    ) -> bool {
        let (mut few, mut many) = ([(0u32, 0u64, 0u32); 32], Vec::new());
        let words = first_of(&mut few, &mut many, count);
        // Most channels are empty: an iterator over a queue's two halves
        // costs more than the test.
        for (arc, queue) in chans.queues.iter().enumerate() {
            if queue.is_empty() {
                continue;
            }
            let (front, back) = queue.as_slices();
            for m in front.iter().chain(back) {
                debug_assert!(m.seq < count as u64, "canonical channels");
                match self.word(arc, m) {
                    Some((word, held)) => {
                        words[m.seq as usize] = (self.messages.receiver(arc as u32), word, held);
                    }
                    None => return false,
                }
            }
        }
        // Stable: each receiver's in the order sent.
        if !words.is_sorted_by_key(|w| w.0) {
            words.sort_by_key(|w| w.0);
        }
        let mut bits = BitWriter::new(out);
        bits.put(high.0, high.1);
        for &(_, word, held) in words.iter() {
            bits.put(word, held);
        }
        bits.finish();
        true
    }

    /// Appends the code's high half `high` (its value and bits) and the
    /// messages `order` lists (channel, place), packed; false, with `out`
    /// as it was, where a field is outside its domain.
    fn pack(
        &self,
        chans: &Channels,
        (order, high): (&[(u32, u32)], (u64, u32)),
        out: &mut Vec<u8>,
    ) -> bool {
        let from = out.len();
        let (arc_bits, kind_bits) = self.bits;
        let mut bits = BitWriter::new(out);
        bits.put(high.0, high.1);
        for &(arc, at) in order {
            let m = &chans.queues[arc as usize][at as usize];
            let Some(fields) = self.messages.domains.get(usize::from(m.kind)) else {
                out.truncate(from);
                return false;
            };
            // The message's bits gathered in a word, written at once.
            let (mut word, mut held) = (
                u64::from(arc) | u64::from(m.kind) << arc_bits,
                arc_bits + kind_bits,
            );
            for (&(lo, width), &f) in fields.iter().zip(&m.fields) {
                // Below `lo`, the difference wraps to a large number.
                let x = f.wrapping_sub(lo) as u64;
                if width < 64 && x >> width != 0 {
                    out.truncate(from);
                    return false;
                }
                if held + width > 64 {
                    bits.put(word, held);
                    (word, held) = (0, 0);
                }
                word |= x.checked_shl(held).unwrap_or(0);
                held += width;
            }
            bits.put(word, held);
        }
        bits.finish();
        true
    }

    /// What a step written as bytes needs of the configuration `bytes`
    /// begin with, `len` long (see [`Encoding::decode_packing`]), read from them: its rows'
    /// code, returned, and its messages in the order kept (receiver by
    /// receiver, each's in the order sent),
    /// each's channel, word and bits as [`Encoding::word`] gives them,
    /// into `messages`, with how many each channel holds added to
    /// `on_arc`; `None` where its rows are not coded or its messages not
    /// packed a word each.
    pub(super) fn packed_messages(
        &self,
        (bytes, len): (&[u8], usize),
        messages: &mut Vec<(u32, u64, u32)>,
        on_arc: &mut [u32],
    ) -> Option<[u64; 2]> {
        let (how, at) = self.how(bytes, len);
        let (_, widths) = self.coded.as_ref().filter(|_| how & UNCODED == 0)?;
        let (code, mut bits) = get_code(bytes, at, *widths);
        messages.clear();
        let count = how >> HOW;
        if count == 0 {
            return Some(code);
        }
        if !self.words || how & PACKED == 0 {
            return None;
        }
        let (arc_bits, kind_bits) = self.bits;
        let head = arc_bits + kind_bits;
        for _ in 0..count {
            // The channel and the type in one read, the fields in another.
            let arc_kind = bits.take(head);
            let arc = arc_kind & ((1 << arc_bits) - 1);
            let fields = *self.fields_bits.get((arc_kind >> arc_bits) as usize)?;
            let word = arc_kind | bits.take(fields).checked_shl(head).unwrap_or(0);
            *on_arc.get_mut(arc as usize)? += 1;
            messages.push((arc as u32, word, head + fields));
        }
        Some(code)
    }

    /// Overwrites `cfg` (a configuration of the same instance) with the
    /// one `bytes` begin with, `len` long: the bytes after, if any, are
    /// read (eight at a time) but not used.
    /// Where `packed` asks, also what [`Encoding::packed_messages`] gives
    /// (its messages into the first, their count by channel added to the
    /// second, and the rows' code returned), from the same reading;
    /// `None` where it gives `None` (the messages packed then left
    /// unfinished) or nothing is asked.
    pub(super) fn decode_packing(
        &self,
        (bytes, len): (&[u8], usize),
        cfg: &mut Config,
        mut packed: Option<Packed>,
    ) -> Option<[u64; 2]> {
        let (how, mut at) = self.how(bytes, len);
        // The bits the messages are packed in, from the code's high half.
        let (code, mut bits) = match (&self.coded, how & UNCODED) {
            (Some((space, widths)), 0) => {
                let (code, bits) = get_code(bytes, at, *widths);
                space.decode_halves_into(code, cfg);
                at += widths.bytes_alone();
                (Some(code), bits)
            }
            _ => {
                for v in cfg.rows.iter_mut() {
                    *v = unzigzag(read_varint(bytes, &mut at));
                }
                (None, BitReader::new(&bytes[at..]))
            }
        };
        cfg.chans.queues.iter_mut().for_each(|q| q.clear());
        let count = how >> HOW;
        cfg.chans.next_seq = count;
        if let Some((messages, _)) = packed.as_mut() {
            messages.clear();
        }
        // As `packed_messages`: a word a message, where each takes one.
        if count > 0 && !(self.words && how & PACKED != 0) {
            packed = None;
        }
        if how & PACKED != 0 {
            let (arc_bits, kind_bits) = self.bits;
            let head = arc_bits + kind_bits;
            for seq in 0..count {
                // The channel and the type in one read.
                let arc_kind = bits.take(head);
                let arc = (arc_kind & ((1 << arc_bits) - 1)) as usize;
                let kind = (arc_kind >> arc_bits) as u16;
                let mut fields = [0i64; MAX_FIELDS];
                // The fields' bits as read, in order: the message's word
                // past its head.
                let (mut word, mut held) = (0u64, 0u32);
                for (f, &(lo, width)) in fields
                    .iter_mut()
                    .zip(&self.messages.domains[usize::from(kind)])
                {
                    let raw = bits.take(width);
                    *f = lo.wrapping_add(raw as i64);
                    word |= raw.checked_shl(held).unwrap_or(0);
                    held += width;
                }
                cfg.chans.queues[arc].push_back(Msg {
                    kind,
                    seq,
                    fields,
                    due: 0,
                });
                if let Some((messages, on_arc)) = packed.as_mut() {
                    // `on_arc` has a place per channel, as `cfg` a queue.
                    on_arc[arc] += 1;
                    let word = arc_kind | word.checked_shl(head).unwrap_or(0);
                    messages.push((arc as u32, word, head + held));
                }
            }
            return packed.and(code);
        }
        for seq in 0..count {
            let arc = read_varint(bytes, &mut at) as usize;
            let kind = read_varint(bytes, &mut at) as u16;
            let mut fields = [0i64; MAX_FIELDS];
            for f in fields[..self.messages.arity(kind)].iter_mut() {
                *f = unzigzag(read_varint(bytes, &mut at));
            }
            let due = match self.messages.timed {
                true => read_varint(bytes, &mut at) as u16,
                false => 0,
            };
            cfg.chans.queues[arc].push_back(Msg {
                kind,
                seq,
                fields,
                due,
            });
        }
        cfg.chans.next_seq = count;
        packed.and(code)
    }
}

/// How a rows' code in halves is written: the low half in `low_bytes`
/// bytes (at least one) after the count, if any, the high half in `high_bits`
/// bits (none where it is always 0: a space of at most 2^64) at the head
/// of the bits the messages are packed in, so that its last byte is
/// shared with them rather than padded alone.
#[derive(Clone, Copy, Debug)]
pub(in crate::verify) struct CodeWidths {
    pub(in crate::verify) high_bits: u32,
    pub(in crate::verify) low_bytes: usize,
}

impl CodeWidths {
    /// The widths of the halves of a code of `counts` (high, low).
    pub(super) fn of([high, low]: [u128; 2]) -> Self {
        CodeWidths {
            high_bits: bits_for(high),
            low_bytes: (bits_for(low).div_ceil(8) as usize).max(1),
        }
    }

    /// The bytes a code takes where no message is packed after its high
    /// half, which then stands alone (see [`put_high_alone`]).
    pub(super) fn bytes_alone(self) -> usize {
        self.low_bytes + self.high_bits.div_ceil(8) as usize
    }
}

/// The high half of a code (its value and bits) in bits of its own, where
/// no message is packed after it.
fn put_high_alone(out: &mut Vec<u8>, (high, bits): (u64, u32)) {
    if bits > 0 {
        let mut writer = BitWriter::new(out);
        writer.put(high, bits);
        writer.finish();
    }
}

/// The rows' code in halves written from `at` of `bytes` (see
/// [`CodeWidths`]), and a reader of the bits after its high half.
#[inline]
fn get_code(bytes: &[u8], at: usize, widths: CodeWidths) -> ([u64; 2], BitReader<'_>) {
    let low = get_low_bytes(bytes, at, widths.low_bytes);
    let mut bits = BitReader::new(&bytes[at + widths.low_bytes..]);
    let high = match widths.high_bits {
        0 => 0,
        width => bits.take(width),
    };
    ([high, low], bits)
}

/// Where a configuration's messages are read packed, as
/// [`Encoding::packed_messages`] gives them: each's channel, word and bits,
/// and how many each channel holds.
pub(in crate::verify) type Packed<'p> = (&'p mut Vec<(u32, u64, u32)>, &'p mut [u32]);

/// The first `count` places of `few`, or where they are too few, of
/// `many` grown to `count`: a buffer that allocates only when large.
pub(super) fn first_of<'b, T: Copy + Default>(
    few: &'b mut [T],
    many: &'b mut Vec<T>,
    count: usize,
) -> &'b mut [T] {
    if count <= few.len() {
        &mut few[..count]
    } else {
        many.resize(count, T::default());
        &mut many[..]
    }
}
