//! Configurations with channels, kept as short byte strings in one arena
//! and found again through an open-addressing table of their numbers: a
//! configuration of Chang and Roberts' ring of 9 takes some 16 bytes here
//! (about 10 bits a message in transit), where a `Config` with its queues
//! (and a copy as a hash map's key) took over 2,000, and hashing a few
//! bytes replaces hashing every queue.
//!
//! The encoding is canonical for canonical configurations (messages
//! numbered 0, 1, ... in the order they were sent), and the same for two
//! that differ only in how old messages to different processes are
//! against one another, which no run can tell apart (see
//! [`crate::state::channels::Channels::by_receiver`]): how many messages
//! are in transit and how the rest is written, in one variable-length
//! integer; the rows (their code in the state space where the space has
//! one for them: its low half in bytes, its high half, past 2^64 rows, in
//! the bits its values take, at the head of the messages' bits; else each
//! value as a variable-length integer); then, receiver by receiver and
//! each receiver's in the order sent, each one's channel, type and the
//! fields its type has, packed in the bits their values take (in a
//! program in rounds whose fields are in their domains; else each a
//! variable-length integer, with, in a program that runs in ticks, how
//! many ticks it has to go). Where every message takes one width of at
//! least a byte, packed a word each, and the rows' code has a low half
//! to spare or the channels a number, the count is left out of a
//! configuration whose rows are coded and whose messages are packed, and
//! read from its length; any other begins with a mark (that spare low
//! half or, where there is none, a message on a channel there is not),
//! then is written as above (see [`CountInLength`]).

mod bytes;
mod count_in_length;
mod encoding;
mod message_shape;
mod starts;

use crate::runtime::space::Space;
use crate::state::channels::Msg;
use crate::state::Config;
use bytes::{hash, same_bytes};
pub(super) use bytes::{put_low_bytes, varint, zigzag, BitWriter};
use count_in_length::CountInLength;
use encoding::Encoding;
pub(super) use encoding::{CodeWidths, Packed};
pub(super) use encoding::{HOW, PACKED, UNCODED};
pub(crate) use message_shape::MessageShape;
use starts::Starts;
use std::sync::OnceLock;

/// No number in a slot of the table.
const EMPTY: u32 = u32::MAX;

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

/// Configurations kept as bytes, numbered in the order kept.
pub(super) struct ConfigArena {
    encoding: Encoding,
    bytes: Vec<u8>,
    /// Where each configuration's bytes start, and one past the last.
    starts: Starts,
    /// Numbers (each in its low `number_bits`, with a tag above, see
    /// [`TAGGED_NUMBER_BITS`]), or `EMPTY`; 2^`slot_bits` long,
    /// at most seven eighths full. Let go where no look-up is expected
    /// (see [`ConfigArena::let_table_go`]), and made again at the next.
    table: OnceLock<Vec<u32>>,
    slot_bits: u32,
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
        let halves = space.halves_counts();
        let coded = halves.is_some()
            && space
                .index(like)
                .is_some_and(|code| space.config(code).rows == like.rows);
        // Where the rows are coded: how a code is written.
        let widths = halves.map(CodeWidths::of).filter(|_| coded);
        let bits = messages.bits(like.chans.queues.len());
        let words = !messages.timed && messages.fits_words(bits);
        let fields_bits: Vec<u32> = (messages.domains.iter())
            .map(|fields| fields.iter().map(|f| f.1).sum())
            .collect();
        let count_in_length = CountInLength::of(
            halves.zip(widths),
            (words, like.chans.queues.len()),
            bits,
            &fields_bits,
        );
        ConfigArena {
            encoding: Encoding {
                coded: widths.map(|widths| (space, widths)),
                words,
                fields_bits,
                messages,
                bits,
                count_in_length,
            },
            bytes: Vec::new(),
            starts: Starts::new(),
            table: OnceLock::from(vec![EMPTY; 1 << 10]),
            slot_bits: 10,
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
        let (start, end) = self.starts.span(i as usize);
        &self.bytes[start..end]
    }

    /// Overwrites `cfg` (a configuration of the same instance) with number
    /// `i`.
    pub(super) fn get_into(&self, i: u32, cfg: &mut Config) {
        self.decode_into(i, cfg, None);
    }

    /// [`ConfigArena::get_into`], and what
    /// [`ConfigArena::packed_messages`] gives into `packed`, from one
    /// reading of its bytes (see [`Encoding::decode_packing`]).
    pub(super) fn get_into_packing(
        &self,
        i: u32,
        cfg: &mut Config,
        packed: Packed,
    ) -> Option<[u64; 2]> {
        self.decode_into(i, cfg, Some(packed))
    }

    /// Number `i` decoded into `cfg`, reshaped first if it is not one of
    /// this instance's, with what `packed` asks for.
    fn decode_into(&self, i: u32, cfg: &mut Config, packed: Option<Packed>) -> Option<[u64; 2]> {
        if cfg.rows.len() != self.like.rows.len()
            || cfg.chans.queues.len() != self.like.chans.queues.len()
        {
            cfg.clone_from(&self.like);
        }
        // The bytes from its start on: decoding reads only its own, but
        // may then read them eight at a time up to its last.
        let (start, end) = self.starts.span(i as usize);
        self.encoding
            .decode_packing((&self.bytes[start..], end - start), cfg, packed)
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

    /// The bits of a slot's entry that hold its tag: an entry (not
    /// `EMPTY`) may hold bytes hashing to `h` where these bits of it are
    /// those of `self.entry(0, h)` (a slot with another tag holds other
    /// bytes).
    #[inline]
    fn tag_mask(&self) -> u32 {
        !(u32::MAX >> (32 - self.number_bits))
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
        let table = self.table();
        let mask = table.len() - 1;
        let mut s = h as usize & mask;
        // The tag once, not at each slot probed.
        let (tag_mask, tag) = (self.tag_mask(), self.entry(0, h));
        loop {
            match table[s] {
                EMPTY => return s,
                e if e & tag_mask == tag && same_bytes(self.at(self.number(e)), bytes) => return s,
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

    /// Whether configuration `i` is `cfg` (canonical), asked without the
    /// table.
    pub(super) fn is(&self, i: u32, cfg: &Config) -> bool {
        SCRATCH.with_borrow_mut(|bytes| {
            bytes.clear();
            self.encoding.encode(cfg, bytes);
            self.holds(i, bytes)
        })
    }

    /// The number of the configuration `bytes` encode (see
    /// [`ConfigArena::encode`]), if kept.
    pub(super) fn index_encoded(&self, bytes: &[u8]) -> Option<u32> {
        Some(self.table()[self.slot(bytes)])
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
        /// No number in the first slot (empty, or another tag).
        const NO_FIRST: usize = usize::MAX;
        let table = self.table();
        let mask = table.len() - 1;
        // Worked out once, not at each look-up.
        let tag_mask = self.tag_mask();
        out.clear();
        let mut hashes = [0u64; TOGETHER];
        // Per look-up: the number the first slot names (its tag matching),
        // then where its bytes start and end; each read once, as the cache
        // is asked.
        let mut firsts = [NO_FIRST; TOGETHER];
        let mut spans = [(0usize, 0usize); TOGETHER];
        // Each look-up's bytes, found once.
        let mut keys: [&[u8]; TOGETHER] = [&[]; TOGETHER];
        for from in (0..ends.len()).step_by(TOGETHER) {
            let len = TOGETHER.min(ends.len() - from);
            for (j, (h, key)) in hashes[..len].iter_mut().zip(&mut keys).enumerate() {
                *key = range(from + j);
                *h = hash(key);
                prefetch(&table[*h as usize & mask]);
            }
            for (&h, first) in hashes[..len].iter().zip(&mut firsts) {
                let e = table[h as usize & mask];
                *first = match e != EMPTY && e & tag_mask == self.entry(0, h) {
                    true => {
                        let i = self.number(e) as usize;
                        self.starts.prefetch(i);
                        i
                    }
                    false => NO_FIRST,
                };
            }
            for (&i, span) in firsts[..len].iter().zip(&mut spans) {
                if i != NO_FIRST {
                    *span = self.starts.span(i);
                    if let Some(at) = self.bytes.get(span.0) {
                        prefetch(at);
                    }
                }
            }
            for j in 0..len {
                let (bytes, h, i) = (keys[j], hashes[j], firsts[j]);
                // Mostly the first slot answers: the bytes it names are
                // these, or it is empty.
                let found =
                    if i != NO_FIRST && same_bytes(&self.bytes[spans[j].0..spans[j].1], bytes) {
                        Some(i as u32)
                    } else if table[h as usize & mask] == EMPTY {
                        None
                    } else {
                        let e = table[self.slot_hashed(bytes, h)];
                        (e != EMPTY).then(|| self.number(e))
                    };
                out.push(found);
            }
        }
    }

    /// Appends the bytes `cfg` (canonical) is kept as to `out`.
    pub(super) fn encode(&self, cfg: &Config, out: &mut Vec<u8>) {
        self.encoding.encode(cfg, out);
    }

    /// The state space the rows are coded in and how a code in halves is
    /// written (see [`Space::index_halves`]), where they are.
    pub(super) fn coded(&self) -> Option<(&Space, CodeWidths)> {
        self.encoding
            .coded
            .as_ref()
            .map(|(space, widths)| (space, *widths))
    }

    /// Whether a configuration whose rows are coded and whose messages
    /// are packed a word each is written without its count of messages
    /// (see [`CountInLength`]).
    pub(super) fn count_in_length(&self) -> bool {
        self.encoding.count_in_length.is_some()
    }

    /// Configuration `i`'s rows' code (in halves) and its messages packed, as
    /// [`Encoding::packed_messages`] reads them from its bytes.
    pub(super) fn packed_messages(
        &self,
        i: u32,
        messages: &mut Vec<(u32, u64, u32)>,
        on_arc: &mut [u32],
    ) -> Option<[u64; 2]> {
        let (start, end) = self.starts.span(i as usize);
        let bytes = (&self.bytes[start..], end - start);
        self.encoding.packed_messages(bytes, messages, on_arc)
    }

    /// The process channel `arc` leads to (the messages are kept receiver
    /// by receiver).
    #[inline]
    pub(super) fn receiver(&self, arc: u32) -> u32 {
        self.encoding.messages.receiver(arc)
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
            self.insert_encoded(bytes).0
        })
    }

    /// Keeps the configuration `bytes` encode unless kept already: whether
    /// it is new, and its number.
    pub(super) fn insert_encoded(&mut self, bytes: &[u8]) -> (bool, u32) {
        let h = hash(bytes);
        let s = self.slot_hashed(bytes, h);
        let found = self.table()[s];
        if found != EMPTY {
            return (false, self.number(found));
        }
        let number = self.len() as u32;
        let entry = self.entry(number, h);
        self.table.get_mut().expect("made by the look-up")[s] = entry;
        self.bytes.extend_from_slice(bytes);
        // Under 4 GiB: the search stops once the arena is full (MOST_BYTES).
        self.starts.push(self.bytes.len() as u32);
        // The next number, with the largest tag, must not be `EMPTY`.
        if self.number_bits < 32 && self.len() + 1 >= 1 << self.number_bits {
            self.number_bits = 32;
            self.rehash(self.slot_bits);
        }
        // Seven eighths: a probe past other configurations reads their
        // slots only (the tags), which lie together.
        if 8 * self.len() > 7 << self.slot_bits {
            self.rehash(self.slot_bits + 1);
        }
        (true, number)
    }

    /// Makes the table 2^`bits` slots long and puts every number back.
    fn rehash(&mut self, bits: u32) {
        // The old one goes first: both at once would take half as much
        // memory again.
        self.table = OnceLock::new();
        self.slot_bits = bits;
        self.table = OnceLock::from(self.filled());
    }

    /// The table, made again if it was let go.
    #[inline]
    fn table(&self) -> &[u32] {
        self.table.get_or_init(|| self.filled())
    }

    /// A table 2^`slot_bits` long holding every number.
    // Out of the look-ups' code, which ask for the table at each.
    #[cold]
    #[inline(never)]
    fn filled(&self) -> Vec<u32> {
        let size = 1 << self.slot_bits;
        let mut table = vec![EMPTY; size];
        // One configuration after another: each starts where the last ended.
        let mut start = 0;
        for i in 0..self.len() as u32 {
            let end = self.starts.end_of(i as usize, start);
            let h = hash(&self.bytes[std::mem::replace(&mut start, end)..end]);
            let mut s = h as usize & (size - 1);
            while table[s] != EMPTY {
                s = (s + 1) & (size - 1);
            }
            table[s] = self.entry(i, h);
        }
        table
    }

    /// Lets the table go, every configuration being kept and none
    /// expected to be looked up (where the steps between them are kept
    /// too: Chang and Roberts' ring of 15 held 16.8 MB of it through the
    /// searches after reaching); a look-up makes it again.
    pub(super) fn let_table_go(&mut self) {
        self.table = OnceLock::new();
    }

    /// Whether configuration `i` is kept as `bytes`, asked without the
    /// table (a step whose destination is known already, see
    /// `search/batch.rs`).
    pub(super) fn holds(&self, i: u32, bytes: &[u8]) -> bool {
        (i as usize) < self.len() && same_bytes(self.at(i), bytes)
    }

    /// The bytes kept.
    pub(super) fn bytes(&self) -> usize {
        let table = self.table.get().map_or(0, Vec::len);
        self.bytes.capacity() + self.starts.bytes() + 4 * table
    }
}

#[cfg(test)]
mod tests {
    use super::bytes::{read_varint, unzigzag, zigzag, BitReader};
    use super::*;
    use crate::runtime::init::InitMode;
    use crate::state::channels::{Channels, Msg};

    /// Two message types of 0 and 2 fields, in rounds or (`DELAY`) in
    /// ticks; with `BIG` a variable of 2^22 values, past 2^64 rows on a
    /// ring of 3 (a code in two halves).
    const PROGRAM: &str = "message ping
message pair(a: 0..3, b: -2..2)
channel capacity 3 DELAY
var x: 0..1 = 0
BIG
process {
    a :: x == 0 -> x := 1; send ping to right
    b :: receive pair(u, v) from q -> x := 0
}
";

    /// Where messages are of one width of at least a byte, a
    /// configuration whose rows are coded and whose messages packed is
    /// its code and its messages alone, their count read from its length;
    /// one with a field outside its domain, or a row the code does not
    /// take, begins with a mark, then its count: a low half no code takes
    /// or, where the low half has none to spare (2^24 rows in 3 bytes),
    /// a message on a seventh of six channels. Each comes back as kept,
    /// with a code in one half and in two.
    #[test]
    fn counts_are_read_from_lengths_where_messages_have_one_width() {
        use crate::verify::encoded_step::tests::ONE_WIDTH;
        let big = ONE_WIDTH.to_string() + "var big: 0..4194300 = 0\n";
        let full = ONE_WIDTH.replace("var c: 0..3 = 0\nvar d: 0..2 = 0\n", "var c: 0..255 = 0\n");
        assert_ne!(full, ONE_WIDTH);
        for (program, high_bits, mark) in [
            (ONE_WIDTH.to_string(), 0, "Low"),
            (big, 26, "Low"),
            (full, 0, "Channel(6)"),
        ] {
            let mut inst = crate::verify::test_instance(&program, "ring:3", &[]);
            let start = inst.initial(&InitMode::Declared, &[]).unwrap();
            let mut arena = ConfigArena::new(inst.space(), &start, MessageShape::of(&inst));
            let implied = arena
                .encoding
                .count_in_length
                .expect("the count in the length");
            assert!(format!("{implied:?}").contains(mark), "{implied:?}");
            let (_, widths) = arena.coded().expect("coded");
            assert_eq!(widths.high_bits, high_bits);
            // Six channels (3 bits), two types (1), two fields (3 + 3).
            let width = 10;
            let mut configs = vec![start.clone()];
            for count in 1..=6 {
                let mut cfg = start.clone();
                cfg.rows[0] = 2;
                for k in 0..count {
                    let m = cfg
                        .chans
                        .stamp(k as u16 % 2, [k as i64 % 5, 7 - k as i64, 0, 0]);
                    cfg.chans.queues[k].push_back(m);
                }
                cfg.canonicalize();
                configs.push(cfg);
            }
            let mut wild = configs[3].clone();
            wild.chans.queues[1][0].fields[0] = 9;
            let mut outside = configs[2].clone();
            outside.rows[1] = 300;
            configs.extend([wild, outside]);
            let receivers = Channels::receivers(&inst.topo);
            for (k, cfg) in configs.iter().enumerate() {
                assert!(arena.insert(cfg), "{k} is new");
                let mut bytes = Vec::new();
                arena.encode(cfg, &mut bytes);
                let count = implied.count(bytes.len(), widths);
                if k <= 6 {
                    // Its code and k messages' bits, padded to a byte.
                    let bits = high_bits + k as u32 * width;
                    let len = widths.low_bytes + bits.div_ceil(8) as usize;
                    assert_eq!((bytes.len(), count), (len, k as u64), "{k}");
                    assert!(!implied.marks(&bytes, widths, count), "{k}");
                } else {
                    assert!(implied.marks(&bytes, widths, count), "{k}");
                    // Then its count of messages, not packed.
                    let mut at = implied.counted_from(widths);
                    let how = read_varint(&bytes, &mut at);
                    assert_eq!(how >> HOW, cfg.chans.next_seq, "{k}");
                    // A field outside its domain, unpacked; rows the code
                    // does not take, each value.
                    let uncoded = k == 8;
                    assert_eq!((how & PACKED == 0, how & UNCODED != 0), (!uncoded, uncoded));
                }
            }
            for (k, cfg) in configs.iter().enumerate() {
                let mut kept = cfg.clone();
                kept.chans.canonicalize_by_receiver(&receivers);
                assert_eq!(arena.get(k as u32), kept, "{k}");
                assert_eq!(arena.index(cfg), Some(k as u32), "{k}");
            }
        }
    }

    #[test]
    fn configurations_with_messages_come_back_as_they_were_kept() {
        let big = "var big: 0..4194303 = 4194303";
        for (delay, timed, big) in [
            ("", false, ""),
            ("delay 1..3", true, ""),
            ("", false, big),
            ("delay 1..3", true, big),
        ] {
            let program = PROGRAM.replace("DELAY", delay).replace("BIG", big);
            let mut inst = crate::verify::test_instance(&program, "ring:3", &[]);
            let start = inst.initial(&InitMode::Declared, &[]).unwrap();
            let shape = MessageShape::of(&inst);
            assert_eq!((shape.arity.as_slice(), shape.timed), (&[0, 2][..], timed));
            let mut arena = ConfigArena::new(inst.space(), &start, shape);
            // The code's high half heads the messages' bits (or stands
            // alone where none is packed).
            let high_bits = arena.coded().map(|(_, widths)| widths.high_bits);
            assert_eq!(high_bits, Some(if big.is_empty() { 0 } else { 23 }));
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
            // Messages to different processes sent in another order
            // (channel 0 leads to 1, channel 3 to 2): no run tells them
            // apart, and they are kept as one.
            let mut alike = cfg.clone();
            let (first, last) = (alike.chans.queues[0][0].seq, alike.chans.queues[3][0].seq);
            alike.chans.queues[0][0].seq = last;
            alike.chans.queues[3][0].seq = first;
            assert_ne!(alike, cfg);
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
            assert_eq!(arena.index(&alike), Some(1), "kept as one");
            assert!(!arena.insert(&alike));
            // Back numbered receiver by receiver.
            let receivers = Channels::receivers(&inst.topo);
            for (k, c) in [&start, &cfg, &other, &wild].into_iter().enumerate() {
                let mut kept = c.clone();
                kept.chans.canonicalize_by_receiver(&receivers);
                assert_eq!(arena.get(k as u32), kept);
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
        let mut inst = crate::verify::test_instance(
            &PROGRAM.replace("DELAY", "").replace("BIG", ""),
            "ring:3",
            &[],
        );
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
