//! The configurations reached from a start, numbered in the order they
//! were reached, and the index from a configuration to its number.
//!
//! A program without channels has each configuration's number in the
//! state space ([`Space::index`]), a mixed-radix code: kept in as many bytes
//! as the largest code needs. While the search keeps them it asks only
//! whether a code is kept: a [`CodeSet`] answers (4 bytes a slot, codes of
//! at most 48 bits), reading no code. The index from a code to its number,
//! an open-addressing table of numbers (4 bytes a slot) whose look-ups
//! read codes, is made when first asked for (kept up to date throughout,
//! for wider codes). A configuration takes some 6 to 16 bytes (the
//! arbitration program on ten processes: 6 for the code, about 7 for the
//! set). With channels, whose contents have no such code, each
//! configuration is kept as a short string of bytes ([`ConfigArena`]).

use super::code_set::{CodeSet, MIX};
use super::config_arena::{ConfigArena, MessageShape};
use crate::runtime::cache::prefetch;
use crate::runtime::space::Space;
use crate::state::Config;
use std::sync::OnceLock;

/// The reached configurations.
// One store an exploration, never in a collection: its variants' sizes
// cost nothing that a box would save.
#[allow(clippy::large_enum_variant)]
pub(super) enum Reached {
    /// Kept as bytes (see [`ConfigArena`]).
    Whole(ConfigArena),
    /// Kept as codes in the state space.
    Packed(Packed),
}

impl Reached {
    /// An empty store for configurations of `space` reached from `start`:
    /// packed when the program passes no messages (`channels`: the shape of
    /// those it passes), a code fits in 64 bits and the start is its code's
    /// configuration (what the code leaves out, values no step changes, is
    /// as the space has it).
    pub(super) fn new(space: Space, channels: Option<MessageShape>, start: &Config) -> Self {
        let coded = || {
            let code = space.index(start)?;
            Some(space.config(code).rows == start.rows)
        };
        match channels {
            None if space.count() <= u128::from(u64::MAX) && coded() == Some(true) => {
                Reached::Packed(Packed::new(space))
            }
            shape => Reached::Whole(ConfigArena::new(space, start, shape.unwrap_or_default())),
        }
    }

    /// How many are kept.
    pub(super) fn len(&self) -> usize {
        match self {
            Reached::Whole(arena) => arena.len(),
            Reached::Packed(p) => p.len,
        }
    }

    /// Overwrites `cfg` (a configuration of the same instance) with
    /// configuration number `i`.
    pub(super) fn get_into(&self, i: u32, cfg: &mut Config) {
        match self {
            Reached::Whole(arena) => arena.get_into(i, cfg),
            Reached::Packed(p) => p.space.decode_into(p.code(i as usize), cfg),
        }
    }

    /// Configuration number `i`'s code in the state space, when kept as one.
    #[inline]
    pub(super) fn code(&self, i: u32) -> Option<u64> {
        match self {
            Reached::Whole { .. } => None,
            Reached::Packed(p) => Some(p.code(i as usize)),
        }
    }

    /// The codes, where the configurations are kept as codes.
    pub(super) fn packed(&self) -> Option<&Packed> {
        match self {
            Reached::Whole(_) => None,
            Reached::Packed(p) => Some(p),
        }
    }

    /// Configuration number `i`.
    pub(super) fn get(&self, i: u32) -> Config {
        match self {
            Reached::Whole(arena) => arena.get(i),
            Reached::Packed(p) => p.space.config(u128::from(p.code(i as usize))),
        }
    }

    /// The number of `cfg` (in canonical form), if kept.
    pub(super) fn index(&self, cfg: &Config) -> Option<u32> {
        match self {
            Reached::Whole(arena) => arena.index(cfg),
            Reached::Packed(p) => p.find(p.space.index(cfg)? as u64),
        }
    }

    /// Whether configuration `i` is `cfg` (in canonical form): for whole
    /// configurations, without looking `cfg` up (see
    /// [`ConfigArena::let_table_go`]).
    pub(super) fn is(&self, i: u32, cfg: &Config) -> bool {
        match self {
            Reached::Whole(arena) => arena.is(i, cfg),
            Reached::Packed(_) => self.index(cfg) == Some(i),
        }
    }

    /// Keeps `cfg` (in canonical form) unless kept already: whether it is
    /// new. `None` when a packed store meets a value outside the domains,
    /// which has no code.
    pub(super) fn insert(&mut self, cfg: &Config) -> Option<bool> {
        match self {
            Reached::Whole(arena) => Some(arena.insert(cfg)),
            Reached::Packed(p) => Some(p.insert(p.space.index(cfg)? as u64)),
        }
    }

    /// `cfg` (in canonical form) as this store would keep it: its code,
    /// or its bytes appended to `encoded`. `None` when a packed store meets
    /// a value outside the domains, which has no code.
    pub(super) fn unkept(&self, cfg: &Config, encoded: &mut Vec<u8>) -> Option<Unkept> {
        Some(match self {
            Reached::Whole(arena) => {
                arena.encode(cfg, encoded);
                Unkept::Encoded
            }
            Reached::Packed(p) => Unkept::Code(p.space.index(cfg)? as u64),
        })
    }

    /// The arena, in a store of whole configurations.
    pub(super) fn arena(&self) -> Option<&ConfigArena> {
        match self {
            Reached::Whole(arena) => Some(arena),
            Reached::Packed(_) => None,
        }
    }

    /// The number of each configuration the byte strings of `bytes`
    /// ending at `ends` encode (see [`Reached::unkept`]), if kept, into
    /// `out`, in a store of whole configurations, their cache misses
    /// overlapping (see [`ConfigArena::index_many`]).
    pub(super) fn index_many(&self, bytes: &[u8], ends: &[usize], out: &mut Vec<Option<u32>>) {
        match self {
            Reached::Whole(arena) => arena.index_many(bytes, ends, out),
            Reached::Packed(_) => unreachable!("a store of codes keeps no bytes"),
        }
    }

    /// The place to look for the code `code` starts to load into the
    /// cache (in a store that keeps codes): many are asked for before
    /// they are looked up, so that their reads from all over memory
    /// overlap.
    #[inline]
    pub(super) fn prefetch_slot(&self, code: u64) {
        if let Reached::Packed(p) = self {
            p.prefetch_slot(code);
        }
    }

    /// What looking the code `code` up reads, beyond the place to look
    /// first (read now), starts to load into the cache.
    #[inline]
    pub(super) fn prefetch_kept(&self, code: u64) {
        if let Reached::Packed(p) = self {
            p.prefetch_kept(code);
        }
    }

    /// Whether looking a code up reads codes kept (no set of codes
    /// answers).
    pub(super) fn look_ups_read_codes(&self) -> bool {
        matches!(self, Reached::Packed(p) if p.set.is_none())
    }

    /// Whether the configuration of code `code` is kept (in a store that
    /// keeps codes).
    #[inline]
    pub(super) fn contains_code(&self, code: u64) -> bool {
        match self {
            Reached::Packed(p) => p.contains(code),
            Reached::Whole { .. } => unreachable!("a store of whole configurations has no codes"),
        }
    }

    /// Keeps what [`Reached::unkept`] gave (with `bytes`, the bytes it
    /// appended, for a store of whole configurations), unless it is kept
    /// already: whether it is new, and its number where the store knows
    /// it at once (whole configurations).
    pub(super) fn keep(&mut self, unkept: Unkept, bytes: &[u8]) -> (bool, Option<u32>) {
        match (self, unkept) {
            (Reached::Whole(arena), Unkept::Encoded) => {
                let (new, number) = arena.insert_encoded(bytes);
                (new, Some(number))
            }
            (Reached::Packed(p), Unkept::Code(code)) => (p.insert(code), None),
            _ => unreachable!("made by another store"),
        }
    }

    /// Says that nothing more is kept: the set of codes goes, and the
    /// table of numbers answers from now on (made when first asked for);
    /// where `steps_kept` (the searches after read where each step leads),
    /// whole configurations' table goes, made again if one is looked up.
    pub(super) fn kept_all(&mut self, steps_kept: bool) {
        match self {
            Reached::Packed(p) => p.set = None,
            Reached::Whole(arena) if steps_kept => arena.let_table_go(),
            Reached::Whole(_) => {}
        }
    }

    /// Whether it keeps as many configurations as it may, whatever the
    /// memory budget (whole ones: see [`ConfigArena::full`]).
    pub(super) fn full(&self) -> bool {
        matches!(self, Reached::Whole(arena) if arena.full())
    }

    /// About the bytes kept.
    pub(super) fn bytes(&self) -> usize {
        match self {
            Reached::Whole(arena) => arena.bytes(),
            Reached::Packed(p) => p.bytes(),
        }
    }
}

/// A configuration not kept yet, as its store keeps it: its bytes, in a
/// buffer of the caller's (the steps found wait in a list, where most are
/// codes), or its code.
pub(super) enum Unkept {
    Encoded,
    Code(u64),
}

/// Codes in a byte arena, `width` bytes each; which are kept, and the
/// table from a code to its number.
pub(super) struct Packed {
    space: Space,
    width: usize,
    codes: Vec<u8>,
    len: usize,
    /// Which codes are kept, where a slot can say (codes of at most 48
    /// bits): a search from a start asks only that, while it keeps them.
    set: Option<CodeSet>,
    /// Numbers of codes, or `EMPTY`; a power of two long, never more than
    /// three quarters full. Kept up to date without a set; with one, made
    /// when first asked for (after the search, mostly).
    table: OnceLock<Vec<u32>>,
}

const EMPTY: u32 = u32::MAX;

/// How many codes ahead of the one placed in a table its slot starts to
/// load: they are placed all over it.
const PLACE_AHEAD: usize = 16;

impl Packed {
    fn new(space: Space) -> Self {
        let bits = super::bits_for(space.count());
        let set = CodeSet::new(bits);
        let table = OnceLock::new();
        if set.is_none() {
            let _ = table.set(vec![EMPTY; 1 << 10]);
        }
        Packed {
            space,
            width: (bits as usize).div_ceil(8).max(1),
            codes: vec![0; 8],
            len: 0,
            set,
            table,
        }
    }

    /// The space the codes are indices in.
    pub(super) fn space(&self) -> &Space {
        &self.space
    }

    /// Number `i`'s code.
    #[inline]
    pub(super) fn code(&self, i: usize) -> u64 {
        // The arena ends in 8 spare bytes, so that a whole word can be read.
        let at = i * self.width;
        let word = u64::from_le_bytes(self.codes[at..at + 8].try_into().expect("8 bytes"));
        match self.width {
            8 => word,
            w => word & ((1u64 << (8 * w)) - 1),
        }
    }

    /// `code`'s first place to look starts to load into the cache.
    #[inline]
    fn prefetch_slot(&self, code: u64) {
        match (&self.set, self.table.get()) {
            (Some(set), _) => set.prefetch(code),
            (None, Some(table)) => prefetch(&table[slot_and_tag(table.len(), code).0]),
            (None, None) => {}
        }
    }

    /// The table from codes to numbers, made now if it is not yet.
    fn table(&self) -> &[u32] {
        self.table.get_or_init(|| {
            let slots = (4 * self.len / 3 + 1).next_power_of_two().max(1 << 10);
            self.numbered(slots)
        })
    }

    /// A table of `slots` slots holding every code kept.
    fn numbered(&self, slots: usize) -> Vec<u32> {
        let mut table = vec![EMPTY; slots];
        for i in 0..self.len.min(PLACE_AHEAD) {
            prefetch(&table[slot_and_tag(slots, self.code(i)).0]);
        }
        for i in 0..self.len {
            if i + PLACE_AHEAD < self.len {
                prefetch(&table[slot_and_tag(slots, self.code(i + PLACE_AHEAD)).0]);
            }
            place(&mut table, self.code(i), i as u32);
        }
        table
    }

    /// The number of `code`, if kept.
    #[inline]
    pub(super) fn find(&self, code: u64) -> Option<u32> {
        probe(self.table(), code, |i| self.code(i)).ok()
    }

    /// Whether `code` is kept.
    #[inline]
    fn contains(&self, code: u64) -> bool {
        match &self.set {
            Some(set) => set.contains(code),
            None => self.find(code).is_some(),
        }
    }

    /// The kept code at the first place to look for `code` starts to load
    /// into the cache, where looking `code` up reads it (no set).
    #[inline]
    fn prefetch_kept(&self, code: u64) {
        if let (None, Some(table)) = (&self.set, self.table.get()) {
            let (s, tag) = slot_and_tag(table.len(), code);
            if let Some(i) = tagged(table.len(), table[s], tag) {
                prefetch(&self.codes[i as usize * self.width]);
            }
        }
    }

    /// Keeps `code`: whether it is new.
    #[inline]
    fn insert(&mut self, code: u64) -> bool {
        let new = match &mut self.set {
            Some(set) => set.insert(code),
            None => !self.contains(code),
        };
        if !new {
            return false;
        }
        let i = self.len;
        // Over the spare bytes, which move to the end: the code's bytes
        // above its width are zero.
        let at = i * self.width;
        self.codes.resize(at + self.width + 8, 0);
        self.codes[at..at + 8].copy_from_slice(&code.to_le_bytes());
        self.len += 1;
        if let Some(mut table) = self.table.take() {
            if 4 * self.len > 3 * table.len() {
                table = self.numbered(2 * table.len());
            } else {
                place(&mut table, code, i as u32);
            }
            let _ = self.table.set(table);
        }
        true
    }

    /// The bytes kept.
    fn bytes(&self) -> usize {
        self.codes.capacity()
            + self.set.as_ref().map_or(0, CodeSet::bytes)
            + self.table.get().map_or(0, |t| 4 * t.capacity())
    }
}

/// Where to look for `code` first in a table of `slots` slots, and the
/// tag its slot holds: the hash's next bits above the number's (a number
/// is below the table's length), so that most slots of other codes are
/// passed over without reading their codes.
#[inline]
fn slot_and_tag(slots: usize, code: u64) -> (usize, u32) {
    let bits = slots.trailing_zeros();
    let hash = code.wrapping_mul(MIX);
    let tag = ((hash << bits) >> 32) as u32 & !number_mask(slots);
    ((hash >> (64 - bits)) as usize, tag)
}

/// The bits of a slot of a table of `slots` slots that hold a number.
#[inline]
fn number_mask(slots: usize) -> u32 {
    u32::MAX >> (32 - slots.trailing_zeros().min(32))
}

/// The number a slot holds, if its tag is `tag`.
#[inline]
fn tagged(slots: usize, slot: u32, tag: u32) -> Option<u32> {
    let mask = number_mask(slots);
    (slot != EMPTY && slot & !mask == tag).then_some(slot & mask)
}

/// `code`'s number in `table`, where `code_of` gives the code of a number;
/// or the empty slot where it would go.
#[inline]
fn probe(table: &[u32], code: u64, code_of: impl Fn(usize) -> u64) -> Result<u32, usize> {
    let mask = table.len() - 1;
    let (mut s, tag) = slot_and_tag(table.len(), code);
    loop {
        match table[s] {
            EMPTY => return Err(s),
            x => match tagged(table.len(), x, tag) {
                Some(i) if code_of(i as usize) == code => return Ok(i),
                _ => s = (s + 1) & mask,
            },
        }
    }
}

/// Places number `i`, of code `code`, in the first empty slot from its.
fn place(table: &mut [u32], code: u64, i: u32) {
    let mask = table.len() - 1;
    let (mut s, tag) = slot_and_tag(table.len(), code);
    while table[s] != EMPTY {
        s = (s + 1) & mask;
    }
    table[s] = tag | i;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Instance;

    /// Keeps `picks` codes of `inst`'s space (of `count`, scrambled, with
    /// repeats) in a packed store and in a whole one, asking for numbers
    /// while keeping if `asked_while_keeping` (else only once all are
    /// kept): both say the same throughout, and after the packed store
    /// is told all are kept. Whether the packed store kept a set of codes.
    fn numbered_alike(inst: &Instance, picks: u64, asked_while_keeping: bool) -> bool {
        let space = inst.space();
        let start = space.config(0);
        let mut packed = Reached::new(space.clone(), None, &start);
        let mut whole = Reached::new(space.clone(), Some(MessageShape::default()), &start);
        let Reached::Packed(p) = &packed else {
            panic!("a packed store")
        };
        let set = p.set.is_some();
        assert!(matches!(whole, Reached::Whole { .. }));
        let count = space.count();
        let few = u128::from(picks / 2).min(count);
        let cfg = |k: u128| space.config(k * 97 % few * (count / few));
        for k in 0..u128::from(picks) {
            assert_eq!(packed.insert(&cfg(k)), whole.insert(&cfg(k)));
            if asked_while_keeping {
                assert_eq!(packed.index(&cfg(k)), whole.index(&cfg(k)));
            }
        }
        assert_eq!(packed.len(), few as usize);
        let missing = space.config(count - 1);
        assert_eq!(packed.index(&missing), whole.index(&missing));
        // The whole store's table let go, and made again by the look-ups.
        packed.kept_all(true);
        whole.kept_all(true);
        for i in 0..few as u32 {
            assert_eq!(packed.get(i), whole.get(i));
            assert_eq!(packed.index(&whole.get(i)), Some(i));
            assert!(whole.is(i, &packed.get(i)));
            assert_eq!(whole.index(&packed.get(i)), Some(i));
        }
        assert_eq!(whole.index(&missing), packed.index(&missing));
        set
    }

    #[test]
    fn packed_and_whole_stores_number_alike() {
        let src = include_str!("../../programs/dijkstra_kstate.gc");
        // Every configuration twice (the tables grow), numbers asked for
        // while keeping and after: from the set of codes, and without.
        let inst = super::super::test_instance(src, "ring:4", &[]);
        for asked in [false, true] {
            assert!(numbered_alike(
                &inst,
                2 * inst.space().count() as u64,
                asked
            ));
        }
        // 14^14 configurations: codes too wide for a set.
        let inst = super::super::test_instance(src, "ring:14", &[]);
        for asked in [false, true] {
            assert!(!numbered_alike(&inst, 6000, asked));
        }
    }
}
