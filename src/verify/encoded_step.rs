//! A step whose movers' moves the view memo remembers, written straight
//! as the bytes of the configuration it leads to: the movers' rows
//! replaced, the messages they took left out, the ones they sent put
//! after the others to their receivers in the step's order, which is what the step
//! relation's successor, put in canonical form and encoded, gives,
//! without building it (its channels copied queue by queue, renumbered,
//! then read again to be encoded). Movers read the configuration before
//! the step and write their own rows only (a program without edge
//! variables), take heads of channels into themselves and append to
//! channels out of themselves, so what each does alone is what it does
//! in the step.
//!
//! What a move does is a function of its view (see `view_memo.rs`): its
//! new row, which channel's head it takes and what it sends where are
//! taken from the step relation once per view ([`Effect::of_last_step`]).
//! Whether the channels sent to have room is not in the view: it is asked
//! of the configuration, and where one has none (the step relation
//! faults there), or a value falls outside the space or a field outside
//! its domain, the step relation is asked instead, and reports it.

use super::config_arena::{
    put_low_bytes, varint, zigzag, BitWriter, ConfigArena, Packed, HOW, PACKED, UNCODED,
};
use super::view_memo::ViewMemo;
use crate::runtime::step::{Move, StepRelation};
use crate::state::channels::Msg;
use crate::state::Config;
use crate::topology::Topology;

/// What a move of one process does, as the step relation did it once.
#[derive(Debug)]
pub(super) struct Effect {
    /// The mover's row after.
    row: Box<[i64]>,
    /// What the move adds to a configuration's code, its halves (see
    /// [`crate::runtime::space::Space::index_halves`]) the high and low
    /// 64 bits of a 128-bit number, added modulo 2^128; worked out at its
    /// first step written (`None`: a value the code does not take). The
    /// same at every step: the mover and its row before are in its view.
    code_delta: std::cell::OnceCell<Option<u128>>,
    /// The channel whose head it took.
    taken: Option<u32>,
    /// What it sent, in order, each with its channel.
    sent: Box<[(u32, Msg)]>,
}

impl Effect {
    /// What `rel`'s last step did, a step of one mover in a program
    /// without edge variables (where one mover changes nothing else).
    pub(super) fn of_last_step(rel: &StepRelation, topo: &Topology) -> Option<Effect> {
        let record = rel.last_record();
        let p = *record.movers.first()? as usize;
        if record.movers.len() != 1 || record.tick {
            return None;
        }
        let taken = match record.received.first() {
            Some(Some((s, _))) => Some(topo.arc(*s as usize, p)? as u32),
            _ => None,
        };
        let sent = record
            .sent
            .iter()
            .map(|&(from, to, m)| Some((topo.arc(from as usize, to as usize)? as u32, m)))
            .collect::<Option<_>>()?;
        Some(Effect {
            row: record.after.as_slice().into(),
            code_delta: std::cell::OnceCell::new(),
            taken,
            sent,
        })
    }
}

/// A configuration made ready for its steps to be written as bytes: its
/// rows' code (in halves), which a step changes by what its movers' cells add, and
/// its messages in the order the arena keeps them (receiver by receiver,
/// each's in the order sent), each packed (channel, word, bits), with how
/// many each channel holds.
#[derive(Default)]
pub(super) struct EncodedSteps {
    /// Its rows' code, the halves the high and low 64 bits.
    code: u128,
    messages: Vec<(u32, u64, u32)>,
    on_arc: Vec<u32>,
    /// Whether the configuration whose steps are written can be stepped
    /// so; `None` until its first step loads it.
    ready: Option<bool>,
    /// Its number in the arena, where it is known: it is then loaded
    /// from its bytes, which hold its code and its messages packed.
    number: Option<u32>,
    /// The configuration whose code and messages were read as it was
    /// decoded (see [`EncodedSteps::decoded`]), and its code.
    decoded: Option<(u32, [u64; 2])>,
    /// A step's movers, each with where the memo keeps what its move
    /// does; its messages sent (channel, word, bits) and heads taken.
    movers: Vec<(usize, (u32, u32))>,
    sent: Vec<(u32, u64, u32)>,
    heads: Vec<u32>,
}

impl EncodedSteps {
    /// The steps written next leave from another configuration: it is
    /// loaded at the first.
    #[cfg(test)]
    pub(super) fn forget(&mut self) {
        self.ready = None;
        self.number = None;
        self.decoded = None;
    }

    /// The steps written next leave from configuration number `i` of the
    /// arena they are written for: it is loaded at the first, unless it
    /// was [`EncodedSteps::decoded`] last (ready already then).
    pub(super) fn forget_for(&mut self, i: u32) {
        self.number = Some(i);
        self.ready = match self.decoded {
            Some((j, code)) if j == i => {
                self.code = joined(code);
                Some(true)
            }
            _ => None,
        };
    }

    /// Configuration `i`, with `arcs` channels, decoded by `decode`, which
    /// also gives what [`ConfigArena::packed_messages`] gives (see
    /// [`ConfigArena::get_into_packing`]): its steps are then written
    /// without reading its bytes again.
    pub(super) fn decoded(
        &mut self,
        i: u32,
        arcs: usize,
        decode: impl FnOnce(Packed) -> Option<[u64; 2]>,
    ) {
        self.on_arc.clear();
        self.on_arc.resize(arcs, 0);
        let code = decode((&mut self.messages, &mut self.on_arc));
        self.decoded = code.map(|code| (i, code));
    }

    /// Appends to `out` the bytes of the configuration the step of
    /// `moves` leads to from `cfg` (canonical, kept in `arena`; the same
    /// since [`EncodedSteps::forget_for`]; rows of `stride` values), where
    /// `views` keeps what each move does (loaded with `cfg`'s views; `at`:
    /// where, if the lister says, see [`ViewMemo::effects_at`]); false, with
    /// `out` as it was, where the step relation must be asked instead.
    pub(super) fn write(
        &mut self,
        (arena, views): (&ConfigArena, &ViewMemo),
        cfg: &Config,
        stride: usize,
        (moves, at): (&[Move], &[(u32, u32)]),
        out: &mut Vec<u8>,
    ) -> bool {
        views.effects_at(moves, at, &mut self.movers)
            && self.ready.unwrap_or_else(|| self.load(arena, cfg))
            && self.encode((arena, views), cfg, stride, out)
    }

    /// Makes `cfg` (canonical, kept in `arena`) ready; whether it is
    /// (its rows coded, each message packed in a word): from its bytes
    /// where its number is known, else from `cfg` itself.
    // Once a configuration: kept out of the step's own code.
    #[inline(never)]
    fn load(&mut self, arena: &ConfigArena, cfg: &Config) -> bool {
        self.ready = Some(false);
        // Its buffers are another configuration's from now on.
        self.decoded = None;
        // Rows not coded are read from `cfg` at each step.
        let Some(i) = self.number.filter(|_| arena.coded().is_some()) else {
            return self.load_config(arena, cfg);
        };
        self.on_arc.clear();
        self.on_arc.resize(cfg.chans.queues.len(), 0);
        let Some(code) = arena.packed_messages(i, &mut self.messages, &mut self.on_arc) else {
            return false;
        };
        self.code = joined(code);
        self.ready = Some(true);
        true
    }

    /// [`EncodedSteps::load`] from `cfg`: its messages packed one by one
    /// and its rows coded, where the arena codes rows.
    fn load_config(&mut self, arena: &ConfigArena, cfg: &Config) -> bool {
        let count: usize = cfg.chans.queues.iter().map(|q| q.len()).sum();
        self.messages.clear();
        self.messages.resize(count, (0, 0, 0));
        self.on_arc.clear();
        self.on_arc.resize(cfg.chans.queues.len(), 0);
        for (arc, queue) in cfg.chans.queues.iter().enumerate() {
            // Most channels are empty: no slices to split.
            if queue.is_empty() {
                continue;
            }
            self.on_arc[arc] = queue.len() as u32;
            let (front, back) = queue.as_slices();
            for m in front.iter().chain(back) {
                let Some((word, bits)) = arena.packed_word(arc, m) else {
                    return false;
                };
                // Canonical: the numbers are 0..count.
                let Some(at) = self.messages.get_mut(m.seq as usize) else {
                    return false;
                };
                *at = (arc as u32, word, bits);
            }
        }
        // As the arena keeps them: receiver by receiver (stable).
        let receiver = |m: &(u32, u64, u32)| arena.receiver(m.0);
        if !self.messages.is_sorted_by_key(receiver) {
            self.messages.sort_by_key(receiver);
        }
        self.code = match arena.coded() {
            Some((space, _)) => match space.index_halves(&cfg.rows) {
                Some(code) => joined(code),
                None => return false,
            },
            None => 0,
        };
        self.ready = Some(true);
        true
    }

    /// Appends to `out` the bytes of the configuration the step of
    /// `self.movers` (each process with where `views` keeps what its move
    /// does, in the step's order) leads to from the one loaded, `cfg`
    /// (rows of `stride` values), as the arena encodes it; false, with
    /// `out` as it was, where the step relation must be asked instead.
    fn encode(
        &mut self,
        (arena, views): (&ConfigArena, &ViewMemo),
        cfg: &Config,
        stride: usize,
        out: &mut Vec<u8>,
    ) -> bool {
        if self.ready != Some(true) {
            return false;
        }
        // Where the state space is too large for a code in two 64-bit
        // halves, the rows are written value by value.
        let coded = arena.coded();
        // Each move looked up once: what it sends, in order (the movers',
        // each's in its order), the head it takes, and what it adds to the
        // code (the movers' rows are apart: each changed cell adds its own
        // part).
        self.sent.clear();
        self.heads.clear();
        // The halves as one number: each half's sum is exact and in its
        // range once every mover's part is added, so the sum modulo 2^128
        // is the step's code, whatever carries and borrows the parts make
        // on the way (two numbers made a step 13 instructions longer).
        let mut code = self.code;
        for &(p, e) in &self.movers {
            let effect = views.effect(e);
            for (arc, m) in effect.sent.iter() {
                match arena.packed_word(*arc as usize, m) {
                    Some((word, bits)) => self.sent.push((*arc, word, bits)),
                    None => return false,
                }
            }
            if let Some(arc) = effect.taken {
                self.heads.push(arc);
            }
            let Some((space, _)) = coded else {
                continue;
            };
            // Known but at a move's first step: its closure's setup only then.
            let delta = match effect.code_delta.get() {
                Some(delta) => *delta,
                None => *effect.code_delta.get_or_init(|| {
                    let before = &cfg.rows[p * stride..(p + 1) * stride];
                    let mut cells = before.iter().zip(effect.row.iter()).enumerate();
                    let [high, low] =
                        cells.try_fold([0, 0], |[high, low], (j, (&old, &new))| {
                            let [h, l] = space.delta_halves(p * stride + j, old, new)?;
                            Some([high + h, low + l])
                        })?;
                    Some(((high as u128) << 64).wrapping_add(low as u128))
                }),
            };
            match delta {
                Some(d) => code = code.wrapping_add(d),
                None => return false,
            }
        }
        // Room in every channel sent to, as the step relation counts it:
        // what it held, less a head its receiver takes in the step, and
        // the sends to it so far.
        for (k, &(arc, _, _)) in self.sent.iter().enumerate() {
            let before = self.sent[..k].iter().filter(|s| s.0 == arc).count();
            let held = self.on_arc[arc as usize] as usize - usize::from(self.heads.contains(&arc));
            if held + before + 1 > cfg.chans.capacity {
                return false;
            }
        }
        let heads = self.heads.len();
        let count = self.messages.len() - heads + self.sent.len();
        let packed = if count > 0 { PACKED } else { 0 };
        // The code's high half heads the messages' bits (see
        // `CodeWidths`).
        let high = match coded {
            Some((_, widths)) => {
                let (high, low) = ((code >> 64) as u64, code as u64);
                // A code past its bits (none there are for a high half
                // that is always 0) is none of the space's.
                if high.checked_shr(widths.high_bits).unwrap_or(0) != 0 {
                    return false;
                }
                // The count, unless the length says it.
                if !arena.count_in_length() {
                    varint(out, (count as u64) << HOW | packed);
                }
                put_low_bytes(out, low, widths.low_bytes);
                (high, widths.high_bits)
            }
            None => {
                varint(out, (count as u64) << HOW | UNCODED | packed);
                self.put_rows((cfg, stride), views, out);
                (0, 0)
            }
        };
        let mut bits = BitWriter::new(out);
        bits.put(high.0, high.1);
        if count == 0 {
            bits.finish();
            return true;
        }
        // The messages sent are the youngest at their receivers: each goes
        // after the others to its receiver (stable: in the step's order).
        let receiver = |m: &(u32, u64, u32)| arena.receiver(m.0);
        if self.sent.len() > 1 && !self.sent.is_sorted_by_key(receiver) {
            self.sent.sort_by_key(receiver);
        }
        let mut sent = Merged {
            sent: &self.sent,
            next: 0,
            receiver: |arc| arena.receiver(arc),
        };
        put_but_heads(&self.messages, &mut self.heads, &mut sent, &mut bits);
        for &(_, word, width) in &self.sent[sent.next..] {
            bits.put(word, width);
        }
        bits.finish();
        true
    }
}

impl EncodedSteps {
    /// The rows after the step, each value as a variable-length integer
    /// (as the arena writes rows it does not code): the movers' rows as
    /// their moves leave them, the others as in `cfg`.
    fn put_rows(&self, (cfg, stride): (&Config, usize), views: &ViewMemo, out: &mut Vec<u8>) {
        for (p, row) in cfg.rows.chunks(stride.max(1)).enumerate() {
            let row = match self.movers.iter().find(|m| m.0 == p) {
                Some(&(_, e)) => &views.effect(e).row[..],
                None => row,
            };
            row.iter().for_each(|&v| varint(out, zigzag(v)));
        }
    }
}

/// A rows' code in halves (high, low) as one number, the high half its
/// high 64 bits.
fn joined([high, low]: [u64; 2]) -> u128 {
    u128::from(high) << 64 | u128::from(low)
}

/// A step's messages sent (channel, word, bits; by receiver), put among
/// those kept as the arena keeps them: before the first kept message to
/// a later receiver.
struct Merged<'s, R> {
    sent: &'s [(u32, u64, u32)],
    /// How many are put.
    next: usize,
    receiver: R,
}

impl<R: Fn(u32) -> u32> Merged<'_, R> {
    /// Puts the message kept on channel `arc`, after the messages sent
    /// to receivers before its own.
    #[inline(always)]
    fn put_kept(&mut self, arc: u32, (word, width): (u64, u32), bits: &mut BitWriter) {
        if let Some(&(first, _, _)) = self.sent.get(self.next) {
            let to = (self.receiver)(arc);
            if (self.receiver)(first) < to {
                self.put_before(to, bits);
            }
        }
        bits.put(word, width);
    }

    /// Puts the messages sent to receivers before `to`.
    #[inline(never)]
    fn put_before(&mut self, to: u32, bits: &mut BitWriter) {
        while let Some(&(arc, word, width)) = self.sent.get(self.next) {
            if (self.receiver)(arc) >= to {
                break;
            }
            bits.put(word, width);
            self.next += 1;
        }
    }
}

/// Puts each message of `messages` (channel, word, bits) but the first on
/// each channel of `heads` (each channel once: the heads a step's movers
/// take, each its channel's oldest message), in order, with `sent`'s
/// messages put among them (see [`Merged`]); `heads` is spent.
/// In line: a step's bytes are written around it (as a call, 12 more
/// instructions a step of Chang and Roberts' election with one mover, 33
/// with several).
#[inline(always)]
fn put_but_heads<R: Fn(u32) -> u32>(
    messages: &[(u32, u64, u32)],
    heads: &mut Vec<u32>,
    sent: &mut Merged<R>,
    bits: &mut BitWriter,
) {
    // No head or one (every central step) without a search per message.
    match heads[..] {
        [] => {
            for &(arc, word, width) in messages {
                sent.put_kept(arc, (word, width), bits);
            }
        }
        // Those before the head and after it, without a test at each.
        [head] => {
            let at = messages.iter().position(|m| m.0 == head);
            let (before, after) = messages.split_at(at.unwrap_or(messages.len()));
            for &(arc, word, width) in before {
                sent.put_kept(arc, (word, width), bits);
            }
            for &(arc, word, width) in after.get(1..).unwrap_or_default() {
                sent.put_kept(arc, (word, width), bits);
            }
        }
        // Channels numbered below 64: each head's channel a bit.
        _ if heads.iter().all(|&h| h < 64) => {
            let mut left = heads.iter().fold(0u64, |left, &h| left | 1 << h);
            for &(arc, word, width) in messages {
                if left.checked_shr(arc).is_some_and(|b| b & 1 != 0) {
                    left &= !(1 << arc);
                    continue;
                }
                sent.put_kept(arc, (word, width), bits);
            }
        }
        _ => {
            for &(arc, word, width) in messages {
                if let Some(at) = heads.iter().position(|&h| h == arc) {
                    heads.swap_remove(at);
                    continue;
                }
                sent.put_kept(arc, (word, width), bits);
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::runtime::init::InitMode;
    use crate::verify::config_arena::MessageShape;
    use std::collections::{HashSet, VecDeque};

    /// Channels of one message, so that sends find them full in some
    /// configurations; two sends in one move; heads from both neighbours;
    /// a field sent out of its domain; rows of two cells.
    pub(crate) const PROGRAM: &str = "message tok(v: 0..2)
message back
channel capacity 1
var c: 0..3 = 0
var got: 0..2 = 0
process {
    start :: c == 0 and index == 0 -> c := 1; send tok(0) to right
    fwd :: receive tok(v) from q and v < 2 -> c := (c + 1) mod 4; got := v; send tok(v + 1) to right
    twice :: receive tok(v) from q and v == 2 and c < 3 -> c := 3; got := 2; send back to left; send tok(1) to right
    over :: receive tok(v) from q and v == 2 and c == 3 -> c := 0; send tok(v + c) to right
    ack :: receive back from q -> c := (c + 2) mod 4
}
";

    /// [`PROGRAM`] with messages of one width, at least a byte (10 bits
    /// on a ring of 3 to 4, 11 on a ring of 5): the arena reads their
    /// count from a configuration's length (see `CountInLength`); the
    /// step `over` sends a field out of its domain. `d`, three values a
    /// process, keeps the rows' count off a power of two, so that the
    /// code's low half has a value to spare.
    pub(crate) const ONE_WIDTH: &str = "message tok(v: 0..4, w: 0..7)
message back(v: 0..4, w: 0..7)
channel capacity 1
var c: 0..3 = 0
var d: 0..2 = 0
process {
    start :: c == 0 -> c := 1; send tok(0, 0) to right
    fwd :: receive tok(v, w) from q and v < 2 -> c := (c + 1) mod 4; send tok(v + 1, c) to right
    twice :: receive tok(v, w) from q and v == 2 and c < 3 -> c := 3; send back(0, w) to left; send tok(1, w) to right
    over :: receive tok(v, w) from q and v == 2 and c == 3 -> c := 0; send tok(v + c + 3, w) to right
    ack :: receive back(v, w) from q -> c := (c + 2) mod 4
}
";

    /// Every move of `every` alone, then every two of different
    /// processes together.
    pub(crate) fn alone_and_in_pairs(every: &[Move]) -> Vec<Vec<Move>> {
        let alone = every.iter().map(|m| vec![m.clone()]);
        let pairs = every.iter().flat_map(|a| {
            every
                .iter()
                .filter(|b| b.process > a.process)
                .map(|b| vec![a.clone(), b.clone()])
        });
        alone.chain(pairs).collect()
    }

    /// Every message but the first on each channel whose head is taken is
    /// put, in order, whichever way the heads are looked for: none, one,
    /// channels below 64 as bits, or searched for (channels past 64); the
    /// messages sent go after those kept to their receivers.
    #[test]
    fn messages_but_the_heads_taken_are_put_in_order() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut ways = [0usize; 4];
        for case in 0..4000 {
            // Channels below 64, or some past it.
            let wide = case % 2 == 1;
            let arc = |rng: &mut rand_chacha::ChaCha8Rng| {
                let a: u32 = rng.gen_range(0..6);
                if wide && a % 2 == 1 {
                    60 + a * 3
                } else {
                    a
                }
            };
            // Three receivers, the messages kept by receiver as the arena
            // keeps them.
            let receiver = |arc: u32| arc % 3;
            let count = rng.gen_range(0..9);
            let mut messages: Vec<(u32, u64, u32)> = (0..count)
                .map(|k| (arc(&mut rng), k as u64 + 1, rng.gen_range(1..40)))
                .collect();
            messages.sort_by_key(|m| receiver(m.0));
            let mut sent: Vec<(u32, u64, u32)> = (0..rng.gen_range(0..4))
                .map(|k| (arc(&mut rng), 100 + k as u64, rng.gen_range(1..40)))
                .collect();
            sent.sort_by_key(|m| receiver(m.0));
            let mut on: Vec<u32> = messages.iter().map(|m| m.0).collect();
            on.sort_unstable();
            on.dedup();
            let mut heads: Vec<u32> = on.into_iter().filter(|_| rng.gen_bool(0.6)).collect();
            heads.reverse();
            ways[match heads.len() {
                0 => 0,
                1 => 1,
                _ if heads.iter().all(|&h| h < 64) => 2,
                _ => 3,
            }] += 1;
            let mut expected = Vec::new();
            let mut reference = BitWriter::new(&mut expected);
            let mut first: Vec<u32> = heads.clone();
            let mut kept = Vec::new();
            for &(arc, word, width) in &messages {
                if let Some(at) = first.iter().position(|&h| h == arc) {
                    first.remove(at);
                    continue;
                }
                kept.push((arc, word, width));
            }
            for to in 0..3 {
                let mine = |m: &&(u32, u64, u32)| receiver(m.0) == to;
                for &(_, word, width) in kept.iter().filter(mine).chain(sent.iter().filter(mine)) {
                    reference.put(word, width);
                }
            }
            reference.finish();
            let mut got = Vec::new();
            let mut bits = BitWriter::new(&mut got);
            let mut merged = Merged {
                sent: &sent,
                next: 0,
                receiver,
            };
            put_but_heads(&messages, &mut heads, &mut merged, &mut bits);
            for &(_, word, width) in &sent[merged.next..] {
                bits.put(word, width);
            }
            bits.finish();
            assert_eq!(got, expected, "{messages:?} {sent:?}");
        }
        assert!(ways.iter().all(|&w| w > 100), "{ways:?}");
    }

    /// Messages of more bits than a word: packed, but not a word each.
    const WIDE: &str = "message big(a: 0..1000000000, b: 0..1000000000, k: 0..3)
channel capacity 2
var c: 0..3 = 0
process {
    start :: c == 0 and index == 0 -> c := 1; send big(5, 6, 0) to right
    fwd :: receive big(a, b, k) from q and k < 3 -> c := k; send big(b, a, k + 1) to right
    stop :: receive big(a, b, k) from q and k == 3 -> c := 3
}
";

    /// A configuration kept in the arena is made ready from its bytes
    /// as from itself: every configuration reached on rings of 3 to 5
    /// (messages of two types, full channels, a field out of its domain,
    /// messages wider than a word).
    #[test]
    fn configurations_kept_load_from_their_bytes_as_from_themselves() {
        let (mut loaded, mut unloaded) = (0, 0);
        let cases = [
            (PROGRAM, "ring:3"),
            (PROGRAM, "ring:4"),
            (PROGRAM, "ring:5"),
            (WIDE, "ring:3"),
            (ONE_WIDTH, "ring:3"),
            (ONE_WIDTH, "ring:5"),
        ];
        for (program, topology) in cases {
            let mut inst = crate::verify::test_instance(program, topology, &[]);
            let mut start = inst.initial(&InitMode::Declared, &[]).unwrap();
            start.canonicalize();
            let mut rel = inst.step_relation();
            let mut arena = ConfigArena::new(inst.space(), &start, MessageShape::of(&inst));
            let mut queue = VecDeque::from([start.clone()]);
            arena.insert(&start);
            while let Some(cfg) = queue.pop_front() {
                for p in 0..inst.topo.n() {
                    let mut moves = Vec::new();
                    if rel.moves_into(&cfg, p, true, &mut moves).is_err() {
                        continue;
                    }
                    for m in moves {
                        if let Ok(mut next) = rel.successor_of(&cfg, &[m]) {
                            next.canonicalize();
                            if arena.insert(&next) {
                                queue.push_back(next);
                            }
                        }
                    }
                }
            }
            // A field sent out of its domain: kept unpacked.
            let mut wild = (0..arena.len() as u32)
                .map(|i| arena.get(i))
                .find(|c| c.chans.queues.iter().any(|q| !q.is_empty()))
                .expect("a message in transit");
            let queue = wild
                .chans
                .queues
                .iter_mut()
                .find(|q| !q.is_empty())
                .unwrap();
            queue[0].fields[0] = 7;
            assert!(arena.insert(&wild));
            for i in 0..arena.len() as u32 {
                let cfg = arena.get(i);
                let (mut by_bytes, mut by_config) =
                    (EncodedSteps::default(), EncodedSteps::default());
                by_bytes.forget_for(i);
                by_config.forget();
                let ready = by_bytes.load(&arena, &cfg);
                assert_eq!(ready, by_config.load(&arena, &cfg), "{topology}: {cfg:?}");
                // Read as it is decoded, into a configuration holding another.
                let mut by_decoding = EncodedSteps::default();
                let mut decoded = arena.get((i + 1) % arena.len() as u32);
                let arcs = cfg.chans.queues.len();
                by_decoding.decoded(i, arcs, |packed| {
                    arena.get_into_packing(i, &mut decoded, packed)
                });
                // Ready for configuration `i` only.
                by_decoding.forget_for((i + 1) % arena.len() as u32);
                assert!(arena.len() == 1 || by_decoding.ready.is_none());
                by_decoding.forget_for(i);
                assert_eq!(decoded, cfg, "{topology}");
                assert_eq!(
                    by_decoding.ready == Some(true),
                    ready,
                    "{topology}: {cfg:?}"
                );
                if ready {
                    assert_eq!(
                        (by_bytes.code, &by_bytes.messages, &by_bytes.on_arc),
                        (by_config.code, &by_config.messages, &by_config.on_arc),
                        "{topology}: {cfg:?}"
                    );
                    assert_eq!(
                        (by_decoding.code, &by_decoding.messages, &by_decoding.on_arc),
                        (by_config.code, &by_config.messages, &by_config.on_arc),
                        "{topology}: {cfg:?}"
                    );
                    loaded += 1;
                } else {
                    unloaded += 1;
                }
            }
        }
        // One wild configuration a program, and the wide program's with
        // messages in transit.
        assert!(loaded > 500 && unloaded > 4, "{loaded} {unloaded}");
    }

    /// Channels that hold two messages, whose heads two processes take in
    /// one step: what is left of each is written after them.
    const QUEUES: &str = "message tok(v: 0..1)
channel capacity 2
var c: 0..1 = 0
process {
    emit :: c == 0 -> c := 1; send tok(index mod 2) to right
    take :: receive tok(v) from q -> c := v
}
";

    /// From every configuration reached (breadth first, every move taken
    /// alone), each move whose effect is remembered, and each pair of two
    /// processes' moves, is written as the bytes the arena gives the step
    /// relation's successor (each move found by where the memo keeps it,
    /// as the lister passes it on, or searched for), or is left to the
    /// step relation exactly where that faults or leaves the domains.
    #[test]
    fn steps_written_as_bytes_are_the_successors_encoded() {
        // More than 2^64 rows on a ring of 4 (2^17 a process): the rows
        // coded in two halves; more than 2^128 on a ring of 3 (2^49 a
        // process): written value by value.
        let wide_rows = QUEUES.replace(
            "take :: receive tok(v) from q -> c := v",
            "take :: receive tok(v) from q -> c := v; big := (big + 7) mod 65536",
        ) + "var big: 0..65535 = 0\n";
        let widest_rows = wide_rows.clone() + "var more: 0..65535 = 0\nvar most: 0..65535 = 0\n";
        // 2^24 rows, in three bytes: none to spare to mark a
        // configuration written with its count (see `CountInLength`).
        let full_code =
            ONE_WIDTH.replace("var c: 0..3 = 0\nvar d: 0..2 = 0\n", "var c: 0..255 = 0\n");
        // (program, topology, whether some step leaves the domains)
        let cases = [
            (PROGRAM, "ring:3", true),
            (PROGRAM, "ring:4", true),
            (PROGRAM, "ring:5", true),
            (ONE_WIDTH, "ring:3", true),
            (ONE_WIDTH, "ring:4", true),
            (&full_code[..], "ring:3", true),
            (QUEUES, "ring:3", false),
            (&wide_rows[..], "ring:4", false),
            (&wide_rows[..], "ring:5", false),
            (&widest_rows[..], "ring:3", false),
        ];
        for (program, topology, leaves) in cases {
            let mut inst = crate::verify::test_instance(program, topology, &[]);
            let mut start = inst.initial(&InitMode::Declared, &[]).unwrap();
            start.canonicalize();
            let mut rel = inst.step_relation();
            let mut views = ViewMemo::new(&inst, true)
                .unwrap()
                .with_effects(&inst, &start);
            let arena = ConfigArena::new(inst.space(), &start, MessageShape::of(&inst));
            // Whether the code has a high half, where the rows are coded.
            let halves = arena.coded().map(|(_, widths)| widths.high_bits > 0);
            let expected = match program.contains("most") {
                true => None,
                false => Some(program.contains("big")),
            };
            assert_eq!(halves, expected, "{topology}");
            let one_width = program.starts_with("message tok(v: 0..4, w: 0..7)");
            assert_eq!(arena.count_in_length(), one_width, "{topology}");
            let mut steps = EncodedSteps::default();
            let (mut written, mut left, mut faults, mut by_places) = (0, 0, 0, 0);
            let mut seen = HashSet::from([start.clone()]);
            let mut queue = VecDeque::from([start]);
            while let Some(cfg) = queue.pop_front() {
                let mut chosen = Vec::new();
                if views.chosen_into(&mut rel, &cfg, &mut chosen).is_err() {
                    continue;
                }
                steps.forget();
                assert!(steps.load(&arena, &cfg), "{topology}: {cfg:?}");
                let mut every = Vec::new();
                for p in 0..inst.topo.n() {
                    let mut moves = Vec::new();
                    views.moves_into(&mut rel, &cfg, p, &mut moves).unwrap();
                    every.extend(moves);
                }
                for (k, step) in alone_and_in_pairs(&every).into_iter().enumerate() {
                    let next = rel.successor_of(&cfg, &step);
                    let mut bytes = Vec::new();
                    let stride = inst.code.stride;
                    let stepped =
                        steps.write((&arena, &views), &cfg, stride, (&step, &[]), &mut bytes);
                    // The same, each move found where the memo keeps it, as
                    // the lister passes it on.
                    let at: Option<Vec<(u32, u32)>> = step
                        .iter()
                        .map(|m| {
                            let (k, kept) = views.remembered_moves(m.process as usize)?;
                            let j = kept.iter().position(|x| x == m)?;
                            Some((k, j as u32))
                        })
                        .collect();
                    if let Some(at) = at {
                        let mut by_place = Vec::new();
                        let placed = steps.write(
                            (&arena, &views),
                            &cfg,
                            stride,
                            (&step, &at),
                            &mut by_place,
                        );
                        assert_eq!(
                            (placed, &by_place),
                            (stepped, &bytes),
                            "{topology}: {cfg:?} {step:?}"
                        );
                        by_places += 1;
                    }
                    match (&next, stepped) {
                        (Ok(next), true) => {
                            let mut encoded = Vec::new();
                            arena.encode(next, &mut encoded);
                            assert_eq!(bytes, encoded, "{topology}: {cfg:?} {step:?}");
                            written += 1;
                        }
                        (Err(_), true) => panic!("{topology}: {cfg:?} {step:?} faults"),
                        (Err(_), false) => faults += 1,
                        (Ok(_), false) => left += 1,
                    }
                    // Moves alone lead to every configuration reached.
                    if let (Ok(next), true) = (next, k < every.len()) {
                        if seen.insert(next.clone()) {
                            queue.push_back(next);
                        }
                    }
                }
            }
            // A send out of its domain leaves the words the arena packs;
            // the wide rows' channels fill on the ring of 5 only.
            let faulting = faults > 0 || (program.contains("big") && topology == "ring:4");
            assert!(
                written > 50 && faulting && (left > 0) == leaves && by_places > 50,
                "{topology}: {written} {faults} {left} {by_places}"
            );
        }
    }
}
