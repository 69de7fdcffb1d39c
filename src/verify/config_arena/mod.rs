//! Configurations with channels, kept as short byte strings in one arena
//! and found again through an open-addressing table of their numbers: a
//! configuration of Chang and Roberts' ring of 9 takes some 16 bytes here
//! (about 10 bits a message in transit), where a `Config` with its queues
//! (and a copy as a hash map's key) took over 2,000, and hashing a few
//! bytes replaces hashing every queue.
//!
//! The encoding is canonical for canonical configurations (messages
//! numbered 0, 1, ... in the order they were sent): how many messages are
//! in transit and how the rest is written, in one variable-length
//! integer; the rows (their code in the state space where the space has
//! one for them, else each value as a variable-length integer); then, in
//! the order the messages were sent, each one's
//! channel, type and the fields its type has, packed in the bits their
//! values take (in a program in rounds whose fields are in their domains;
//! else each a variable-length integer, with, in a program that runs in
//! ticks, how many ticks it has to go).

mod bytes;

use super::bits_for;
use crate::runtime::space::Space;
use crate::state::channels::{Channels, Msg, MAX_FIELDS};
use crate::state::Config;
use bytes::{hash, read_varint, unzigzag, zigzag, BitReader};
pub(super) use bytes::{varint, BitWriter};

/// No number in a slot of the table.
const EMPTY: u32 = u32::MAX;

/// A configuration's bytes begin with one variable-length integer: how
/// many messages are in transit, shifted left by `HOW` bits, which say
/// how the rest is written: `UNCODED` (rows as values, not a code) and
/// `PACKED` (messages packed in bits).
pub(super) const HOW: u32 = 2;
pub(super) const UNCODED: u64 = 1;
pub(super) const PACKED: u64 = 2;

/// The bits of a slot of the table that hold a number while numbers fit
/// them; the bits above hold the top bits of the number's bytes' hash, so
/// that a probe passes over most other configurations without reading
/// their bytes (two cache misses each: where they start, and they). Past
/// that many configurations, a slot is all number.
const TAGGED_NUMBER_BITS: u32 = 27;

/// The most bytes of configurations an arena keeps before it says it is
/// full: where each one's bytes start is kept in 32 bits, and the search
/// looks between batches, which add far less than the 2 GiB left. (Under
/// the default memory budget the arena's doubling reaches the budget
/// first.)
const MOST_BYTES: usize = 2 << 30;

thread_local! {
    /// Where a configuration is encoded to be looked up.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// What an instance's messages carry: per type, how many fields (those
/// past them are 0), and whether the program runs in ticks (where a
/// message has ticks to go; in rounds, none); per type, each field's
/// smallest value and the bits its values take (empty where unknown).
#[derive(Clone, Debug, Default)]
pub(crate) struct MessageShape {
    pub(crate) arity: Vec<u8>,
    pub(crate) timed: bool,
    pub(crate) domains: Vec<Vec<(i64, u32)>>,
}

impl MessageShape {
    /// The shape of `inst`'s messages.
    pub(crate) fn of(inst: &crate::load::Instance) -> Self {
        use crate::compile::VarDomain;
        let n = inst.topo.n() as i64;
        let field = |d: &VarDomain| match *d {
            VarDomain::Bool => (0, 2),
            VarDomain::Range(lo, hi) => (lo, hi.saturating_sub(lo).saturating_add(1)),
            VarDomain::Enum(len) => (0, len as i64),
            VarDomain::Node => (0, n),
        };
        MessageShape {
            arity: inst
                .prog
                .messages
                .iter()
                .map(|m| m.fields.len() as u8)
                .collect(),
            timed: inst.runs_in_ticks(),
            domains: inst
                .code
                .message_domains
                .iter()
                .map(|fields| {
                    fields
                        .iter()
                        .map(|d| {
                            let (lo, size) = field(d);
                            (lo, bits_for(size.max(1) as u128))
                        })
                        .collect()
                })
                .collect(),
        }
    }

    /// The bits of a packed message's channel (among `arcs`) and type.
    fn bits(&self, arcs: usize) -> (u32, u32) {
        (bits_for(arcs as u128), bits_for(self.domains.len() as u128))
    }

    /// Whether every packed message of every type fits in a word.
    fn fits_words(&self, (arc_bits, kind_bits): (u32, u32)) -> bool {
        self.domains
            .iter()
            .all(|fields| arc_bits + kind_bits + fields.iter().map(|f| f.1).sum::<u32>() <= 64)
    }

    /// How many fields a message of type `kind` has (every one, for a type
    /// this shape does not know).
    fn arity(&self, kind: u16) -> usize {
        self.arity
            .get(usize::from(kind))
            .map_or(MAX_FIELDS, |&a| usize::from(a))
    }
}

/// How configurations are written as bytes.
struct Encoding {
    /// The state space and the bytes of a code, where the rows are coded.
    coded: Option<(Space, usize)>,
    messages: MessageShape,
    /// The bits of a packed message's channel and type.
    bits: (u32, u32),
    /// Whether messages are packed a word each (see
    /// [`Encoding::pack_words`]): in rounds, each type's bits fitting a word.
    words: bool,
}

impl Encoding {
    /// Appends `cfg`'s bytes (canonical: its messages numbered 0, 1, ...
    /// in the order they were sent) to `out`.
    fn encode(&self, cfg: &Config, out: &mut Vec<u8>) {
        let head = out.len();
        // First, how many messages are in transit and how the rest is
        // written, in one variable-length integer (see `HOW`).
        let chans = &cfg.chans;
        let count: usize = chans.queues.iter().map(|q| q.len()).sum();
        // Rows with a code or, with a value the space does not have, each
        // value (`UNCODED`): every configuration is kept.
        match self
            .coded
            .as_ref()
            .and_then(|(space, w)| Some((space.index_u64(cfg)?, *w)))
        {
            Some((code, width)) => {
                varint(out, (count as u64) << HOW);
                out.extend_from_slice(&code.to_le_bytes()[..width]);
            }
            None => {
                varint(out, (count as u64) << HOW | UNCODED);
                cfg.rows.iter().for_each(|&v| varint(out, zigzag(v)));
            }
        }
        // The messages in the order they were sent, each with its channel:
        // the channels are first in, first out, so that order gives every
        // queue back, and each message's place in it needs no bytes.
        if count == 0 {
            return;
        }
        // The first byte holds the low bits of the integer.
        if self.words && self.pack_words(chans, count, out) {
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
        // Packed (`PACKED`) where every field is in its domain: the
        // channel, the type and each field in the bits their values take,
        // next to one another; else, from the same place, a
        // variable-length integer each.
        if !self.messages.timed && self.pack(chans, order, out) {
            out[head] |= PACKED as u8;
            return;
        }
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
    fn word(&self, arc: usize, m: &Msg) -> Option<(u64, u32)> {
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
    /// put at its number, then written in order.
    fn pack_words(&self, chans: &Channels, count: usize, out: &mut Vec<u8>) -> bool {
        let (mut few, mut many) = ([(0u64, 0u32); 32], Vec::new());
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
                    Some(word) => words[m.seq as usize] = word,
                    None => return false,
                }
            }
        }
        let mut bits = BitWriter::new(out);
        for &(word, held) in words.iter() {
            bits.put(word, held);
        }
        bits.finish();
        true
    }

    /// Appends the messages `order` lists (channel, place), packed; false,
    /// with `out` as it was, where a field is outside its domain.
    fn pack(&self, chans: &Channels, order: &[(u32, u32)], out: &mut Vec<u8>) -> bool {
        let from = out.len();
        let (arc_bits, kind_bits) = self.bits;
        let mut bits = BitWriter::new(out);
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

    /// Overwrites `cfg` (a configuration of the same instance) with the
    /// one `bytes` encode.
    fn decode(&self, bytes: &[u8], cfg: &mut Config) {
        let mut at = 0;
        let how = read_varint(bytes, &mut at);
        match (&self.coded, how & UNCODED) {
            (Some((space, width)), 0) => {
                let mut word = [0u8; 16];
                word[..*width].copy_from_slice(&bytes[at..at + *width]);
                space.decode_into(u128::from_le_bytes(word) as u64, cfg);
                at += *width;
            }
            _ => {
                for v in cfg.rows.iter_mut() {
                    *v = unzigzag(read_varint(bytes, &mut at));
                }
            }
        }
        cfg.chans.queues.iter_mut().for_each(|q| q.clear());
        let count = how >> HOW;
        cfg.chans.next_seq = count;
        if how & PACKED != 0 {
            let (arc_bits, kind_bits) = self.bits;
            let mut bits = BitReader::new(&bytes[at..]);
            for seq in 0..count {
                let arc = bits.take(arc_bits) as usize;
                let kind = bits.take(kind_bits) as u16;
                let mut fields = [0i64; MAX_FIELDS];
                for (f, &(lo, width)) in fields
                    .iter_mut()
                    .zip(&self.messages.domains[usize::from(kind)])
                {
                    *f = lo.wrapping_add(bits.take(width) as i64);
                }
                cfg.chans.queues[arc].push_back(Msg {
                    kind,
                    seq,
                    fields,
                    due: 0,
                });
            }
            return;
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
    }
}

/// The first `count` places of `few`, or where they are too few, of
/// `many` grown to `count`: a buffer that allocates only when large.
fn first_of<'b, T: Copy + Default>(
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

/// Configurations kept as bytes, numbered in the order kept.
pub(super) struct ConfigArena {
    encoding: Encoding,
    bytes: Vec<u8>,
    /// Where each configuration's bytes start, and one past the last.
    starts: Vec<u32>,
    /// Numbers (each in its low `number_bits`, with a tag above, see
    /// [`TAGGED_NUMBER_BITS`]), or `EMPTY`; a power of two long, at most
    /// seven eighths full.
    table: Vec<u32>,
    number_bits: u32,
    /// A configuration of the instance, shaped as decoding needs.
    like: Config,
    /// [`MOST_BYTES`], smaller in tests.
    most_bytes: usize,
}

impl ConfigArena {
    /// An empty arena for configurations shaped as `like`, whose rows are
    /// coded in `space` where that gives `like` back, and whose messages
    /// are shaped as `messages` says.
    pub(super) fn new(space: Space, like: &Config, messages: MessageShape) -> Self {
        let coded = space.count() <= u128::from(u64::MAX)
            && space
                .index(like)
                .is_some_and(|code| space.config(code).rows == like.rows);
        let width = bits_for(space.count()).div_ceil(8);
        let bits = messages.bits(like.chans.queues.len());
        ConfigArena {
            encoding: Encoding {
                coded: coded.then_some((space, (width as usize).max(1))),
                words: !messages.timed && messages.fits_words(bits),
                messages,
                bits,
            },
            bytes: Vec::new(),
            starts: vec![0],
            table: vec![EMPTY; 1 << 10],
            number_bits: TAGGED_NUMBER_BITS,
            like: like.clone(),
            most_bytes: MOST_BYTES,
        }
    }

    /// Whether it keeps as many bytes as it may (see [`MOST_BYTES`]).
    pub(super) fn full(&self) -> bool {
        self.bytes.len() >= self.most_bytes
    }

    /// How many are kept.
    pub(super) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    fn at(&self, i: u32) -> &[u8] {
        let i = i as usize;
        &self.bytes[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Overwrites `cfg` (a configuration of the same instance) with number
    /// `i`.
    pub(super) fn get_into(&self, i: u32, cfg: &mut Config) {
        if cfg.rows.len() != self.like.rows.len()
            || cfg.chans.queues.len() != self.like.chans.queues.len()
        {
            cfg.clone_from(&self.like);
        }
        self.encoding.decode(self.at(i), cfg);
    }

    /// Configuration number `i`.
    pub(super) fn get(&self, i: u32) -> Config {
        let mut cfg = self.like.clone();
        self.get_into(i, &mut cfg);
        cfg
    }

    /// What a slot holds for number `i` whose bytes hash to `h`.
    #[inline]
    fn entry(&self, i: u32, h: u64) -> u32 {
        match self.number_bits {
            32 => i,
            bits => i | ((h >> (32 + bits)) as u32) << bits,
        }
    }

    /// The number a slot's `entry` holds.
    #[inline]
    fn number(&self, entry: u32) -> u32 {
        entry & (u32::MAX >> (32 - self.number_bits))
    }

    /// The slot where `bytes` is, or the empty one where it would go.
    fn slot(&self, bytes: &[u8]) -> usize {
        self.slot_hashed(bytes, hash(bytes))
    }

    /// [`ConfigArena::slot`] of `bytes`, whose hash is `h`.
    #[inline]
    fn slot_hashed(&self, bytes: &[u8], h: u64) -> usize {
        let mask = self.table.len() - 1;
        // A slot with another tag holds other bytes.
        let tag = self.entry(0, h);
        let tag_mask = !(u32::MAX >> (32 - self.number_bits));
        let mut s = h as usize & mask;
        loop {
            match self.table[s] {
                EMPTY => return s,
                e if e & tag_mask == tag && self.at(self.number(e)) == bytes => return s,
                _ => s = (s + 1) & mask,
            }
        }
    }

    /// The number of `cfg` (canonical), if kept.
    pub(super) fn index(&self, cfg: &Config) -> Option<u32> {
        SCRATCH.with_borrow_mut(|bytes| {
            bytes.clear();
            self.encoding.encode(cfg, bytes);
            self.index_encoded(bytes)
        })
    }

    /// The number of the configuration `bytes` encode (see
    /// [`ConfigArena::encode`]), if kept.
    pub(super) fn index_encoded(&self, bytes: &[u8]) -> Option<u32> {
        Some(self.table[self.slot(bytes)])
            .filter(|&e| e != EMPTY)
            .map(|e| self.number(e))
    }

    /// The numbers of the configurations the byte strings of `bytes`
    /// ending at `ends` encode, if kept, into `out`, as
    /// [`ConfigArena::index_encoded`] finds each; but some at a time, the
    /// first slot each probes, the start of the bytes it names and those
    /// bytes are asked of the cache for all before any is compared, so
    /// that their misses (three deep, one after the other for a single
    /// look-up) overlap.
    pub(super) fn index_many(&self, bytes: &[u8], ends: &[usize], out: &mut Vec<Option<u32>>) {
        use crate::runtime::cache::prefetch;
        /// How many look-ups wait on the cache together: enough to keep
        /// its misses busy, few enough that what they ask for stays.
        const TOGETHER: usize = 16;
        let range = |k: usize| &bytes[if k == 0 { 0 } else { ends[k - 1] }..ends[k]];
        let mask = self.table.len() - 1;
        let tag_mask = !(u32::MAX >> (32 - self.number_bits));
        // The number in the first slot probed, where its tag matches.
        let first = |h: u64| {
            let e = self.table[h as usize & mask];
            (e != EMPTY && e & tag_mask == self.entry(0, h)).then(|| self.number(e) as usize)
        };
        out.clear();
        let mut hashes = [0u64; TOGETHER];
        for from in (0..ends.len()).step_by(TOGETHER) {
            let some = &mut hashes[..TOGETHER.min(ends.len() - from)];
            for (j, h) in some.iter_mut().enumerate() {
                *h = hash(range(from + j));
            }
            let some = &*some;
            for &h in some {
                prefetch(&self.table[h as usize & mask]);
            }
            for &h in some {
                if let Some(i) = first(h) {
                    prefetch(&self.starts[i]);
                }
            }
            for &h in some {
                if let Some(at) = first(h).and_then(|i| self.bytes.get(self.starts[i] as usize)) {
                    prefetch(at);
                }
            }
            out.extend(some.iter().enumerate().map(|(j, &h)| {
                let e = self.table[self.slot_hashed(range(from + j), h)];
                (e != EMPTY).then(|| self.number(e))
            }));
        }
    }

    /// Appends the bytes `cfg` (canonical) is kept as to `out`.
    pub(super) fn encode(&self, cfg: &Config, out: &mut Vec<u8>) {
        self.encoding.encode(cfg, out);
    }

    /// The state space the rows are coded in and the bytes of a code,
    /// where they are.
    pub(super) fn coded(&self) -> Option<(&Space, usize)> {
        self.encoding
            .coded
            .as_ref()
            .map(|(space, width)| (space, *width))
    }

    /// Whether messages are packed a word each (in rounds, each type's
    /// bits fitting a word), and then message `m`'s word on channel
    /// `arc` and its bits; `None` where it is not packed so.
    #[inline]
    pub(super) fn packed_word(&self, arc: usize, m: &Msg) -> Option<(u64, u32)> {
        let encoding = &self.encoding;
        if !encoding.words {
            return None;
        }
        encoding.word(arc, m)
    }

    /// Keeps `cfg` (canonical) unless kept already: whether it is new.
    pub(super) fn insert(&mut self, cfg: &Config) -> bool {
        SCRATCH.with_borrow_mut(|bytes| {
            bytes.clear();
            self.encoding.encode(cfg, bytes);
            self.insert_encoded(bytes)
        })
    }

    /// Keeps the configuration `bytes` encode unless kept already: whether
    /// it is new.
    pub(super) fn insert_encoded(&mut self, bytes: &[u8]) -> bool {
        let s = self.slot(bytes);
        if self.table[s] != EMPTY {
            return false;
        }
        self.table[s] = self.entry(self.len() as u32, hash(bytes));
        self.bytes.extend_from_slice(bytes);
        // Under 4 GiB: the search stops once the arena is full (MOST_BYTES).
        self.starts.push(self.bytes.len() as u32);
        // The next number, with the largest tag, must not be `EMPTY`.
        if self.number_bits < 32 && self.len() + 1 >= 1 << self.number_bits {
            self.number_bits = 32;
            self.rehash(self.table.len());
        }
        // Seven eighths: a probe past other configurations reads their
        // slots only (the tags), which lie together.
        if 8 * self.len() > 7 * self.table.len() {
            self.rehash(self.table.len() * 2);
        }
        true
    }

    /// Makes the table `size` slots long and puts every number back.
    fn rehash(&mut self, size: usize) {
        self.table = vec![EMPTY; size];
        for i in 0..self.len() as u32 {
            let h = hash(self.at(i));
            let mut s = h as usize & (size - 1);
            while self.table[s] != EMPTY {
                s = (s + 1) & (size - 1);
            }
            self.table[s] = self.entry(i, h);
        }
    }

    /// The bytes kept.
    pub(super) fn bytes(&self) -> usize {
        self.bytes.capacity() + 4 * self.starts.capacity() + 4 * self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::init::InitMode;
    use crate::state::channels::Msg;

    /// Two message types of 0 and 2 fields, in rounds or (`DELAY`) in ticks.
    const PROGRAM: &str = "message ping
message pair(a: 0..3, b: -2..2)
channel capacity 3 DELAY
var x: 0..1 = 0
process {
    a :: x == 0 -> x := 1; send ping to right
    b :: receive pair(u, v) from q -> x := 0
}
";

    #[test]
    fn configurations_with_messages_come_back_as_they_were_kept() {
        for (delay, timed) in [("", false), ("delay 1..3", true)] {
            let mut inst =
                crate::verify::test_instance(&PROGRAM.replace("DELAY", delay), "ring:3", &[]);
            let start = inst.initial(&InitMode::Declared, &[]).unwrap();
            let shape = MessageShape::of(&inst);
            assert_eq!((shape.arity.as_slice(), shape.timed), (&[0, 2][..], timed));
            let mut arena = ConfigArena::new(inst.space(), &start, shape);
            // Sent in an order that is not the channels': channel, type,
            // fields, ticks to go.
            let sent = [
                (3, 1, [3, -2], 2),
                (0, 0, [0, 0], 0),
                (3, 0, [0, 0], 1),
                (5, 1, [0, 2], 0),
                (0, 1, [1, -1], 3),
            ];
            let mut cfg = start.clone();
            cfg.rows[1] = 1;
            for (arc, kind, [a, b], due) in sent {
                let mut m: Msg = cfg.chans.stamp(kind, [a, b, 0, 0]);
                m.due = if timed { due } else { 0 };
                cfg.chans.queues[arc].push_back(m);
            }
            cfg.canonicalize();
            // The same messages sent in another order across channels.
            let mut other = cfg.clone();
            let (first, last) = (other.chans.queues[0][0].seq, other.chans.queues[5][0].seq);
            other.chans.queues[0][0].seq = last;
            other.chans.queues[5][0].seq = first;
            // A field outside its domain (b in -2..2) is kept all the
            // same, unpacked.
            let mut wild = cfg.clone();
            wild.chans.queues[5][0].fields[1] = 7;
            for (k, c) in [&start, &cfg, &other, &wild].into_iter().enumerate() {
                assert!(arena.insert(c), "{k} is new");
                assert!(!arena.insert(c), "{k} is kept");
            }
            // Packed in rounds: a message of type 1 takes 3 + 1 + 2 + 3 bits.
            let mut packed = Vec::new();
            arena.encode(&cfg, &mut packed);
            let mut unpacked = Vec::new();
            arena.encode(&wild, &mut unpacked);
            assert_eq!(packed[0] & 2 != 0, !timed);
            assert_eq!(unpacked[0] & 2, 0);
            if !timed {
                assert!(packed.len() < unpacked.len(), "{packed:?} {unpacked:?}");
            }
            for (k, c) in [&start, &cfg, &other, &wild].into_iter().enumerate() {
                assert_eq!(&arena.get(k as u32), c);
                assert_eq!(arena.index(c), Some(k as u32));
            }
            let mut encoded = Vec::new();
            arena.encode(&cfg, &mut encoded);
            assert_eq!(arena.index_encoded(&encoded), Some(1));
            // Full once it keeps as many bytes as it may.
            assert!(!arena.full());
            arena.most_bytes = arena.bytes.len();
            assert!(arena.full());
        }
    }

    /// Thousands of configurations kept are each found again under its
    /// number as the table grows: with tags in the slots, and where the
    /// numbers outgrow the tags' room (made small here) and the slots
    /// become all number.
    #[test]
    fn every_configuration_kept_is_found_under_its_number() {
        let mut inst = crate::verify::test_instance(&PROGRAM.replace("DELAY", ""), "ring:3", &[]);
        let start = inst.initial(&InitMode::Declared, &[]).unwrap();
        for number_bits in [TAGGED_NUMBER_BITS, 9] {
            let mut arena = ConfigArena::new(inst.space(), &start, MessageShape::of(&inst));
            arena.number_bits = number_bits;
            let mut kept = Vec::new();
            // Rows, and a ping on channel `arc` for each bit of `k`.
            for k in 0..4096usize {
                let mut cfg = start.clone();
                cfg.rows[0] = (k % 2) as i64;
                for arc in 0..6 {
                    for _ in 0..(k >> (1 + 2 * arc)) % 4 {
                        if cfg.chans.queues[arc].len() < 3 {
                            let m = cfg.chans.stamp(0, [0; 4]);
                            cfg.chans.queues[arc].push_back(m);
                        }
                    }
                }
                cfg.canonicalize();
                if arena.insert(&cfg) {
                    kept.push(cfg);
                }
            }
            assert!(kept.len() > 1000, "{}", kept.len());
            assert_eq!(
                arena.number_bits,
                if number_bits == 9 { 32 } else { number_bits }
            );
            for (i, cfg) in kept.iter().enumerate() {
                assert_eq!(arena.index(cfg), Some(i as u32), "{number_bits}");
                assert!(!arena.insert(cfg));
            }
            // Looked up together, each with one not kept after it.
            let (mut bytes, mut ends, mut expected) = (Vec::new(), Vec::new(), Vec::new());
            for (i, cfg) in kept.iter().enumerate() {
                arena.encode(cfg, &mut bytes);
                ends.push(bytes.len());
                let mut other = cfg.clone();
                other.rows[1] = 1;
                arena.encode(&other, &mut bytes);
                ends.push(bytes.len());
                expected.extend([Some(i as u32), None]);
            }
            let mut found = Vec::new();
            arena.index_many(&bytes, &ends, &mut found);
            assert_eq!(found, expected, "{number_bits}");
        }
    }

    #[test]
    fn bits_come_back_as_they_were_written() {
        let values = [
            (5u64, 3u32),
            (0, 0),
            (1, 1),
            (u64::MAX, 64),
            (300, 9),
            (0, 7),
            (1 << 40, 41),
        ];
        let mut out = vec![0xff];
        let mut bits = BitWriter::new(&mut out);
        for &(v, width) in &values {
            bits.put(v, width);
        }
        bits.finish();
        let total: u32 = values.iter().map(|v| v.1).sum();
        assert_eq!(out.len(), 1 + total.div_ceil(8) as usize);
        let mut read = BitReader::new(&out[1..]);
        for &(v, width) in &values {
            assert_eq!(read.take(width), v);
        }
    }

    #[test]
    fn integers_survive_their_encoding() {
        for v in [0, 1, -1, 63, -64, 64, 1 << 40, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            varint(&mut out, zigzag(v));
            let mut at = 0;
            assert_eq!(unzigzag(read_varint(&out, &mut at)), v);
            assert_eq!(at, out.len());
        }
    }
}
