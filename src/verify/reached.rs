//! The configurations reached from a start, numbered in the order they
//! were reached, and the index from a configuration to its number.
//!
//! A program without channels has each configuration's number in the
//! state space ([`Space::index`]), a mixed-radix code: kept in as many bytes
//! as the largest code needs, with an open-addressing table of numbers
//! (4 bytes a slot) as the index, a configuration takes some 6 to 16 bytes
//! (the arbitration program on ten processes: 6 for the code, about 7 for
//! the table). With channels, whose contents have no such code, each
//! configuration is kept whole, in order and in a hash map.

use crate::runtime::cache::prefetch;
use crate::runtime::space::Space;
use crate::state::Config;
use std::collections::HashMap;

/// The reached configurations.
pub(super) enum Reached {
    /// Kept whole.
    Whole {
        configs: Vec<Config>,
        index: HashMap<Config, u32>,
    },
    /// Kept as codes in the state space.
    Packed(Packed),
}

impl Reached {
    /// An empty store for configurations of `space` reached from `start`:
    /// packed when the program passes no messages, a code fits in 64 bits
    /// and the start is its code's configuration (what the code leaves out,
    /// values no step changes, is as the space has it).
    pub(super) fn new(space: Space, channels: bool, start: &Config) -> Self {
        let coded = || {
            let code = space.index(start)?;
            Some(space.config(code).rows == start.rows)
        };
        if !channels && space.count() <= u128::from(u64::MAX) && coded() == Some(true) {
            Reached::Packed(Packed::new(space))
        } else {
            Reached::Whole {
                configs: Vec::new(),
                index: HashMap::new(),
            }
        }
    }

    /// How many are kept.
    pub(super) fn len(&self) -> usize {
        match self {
            Reached::Whole { configs, .. } => configs.len(),
            Reached::Packed(p) => p.len,
        }
    }

    /// Overwrites `cfg` (a configuration of the same instance) with
    /// configuration number `i`.
    pub(super) fn get_into(&self, i: u32, cfg: &mut Config) {
        match self {
            Reached::Whole { configs, .. } => cfg.clone_from(&configs[i as usize]),
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

    /// Configuration number `i`.
    pub(super) fn get(&self, i: u32) -> Config {
        match self {
            Reached::Whole { configs, .. } => configs[i as usize].clone(),
            Reached::Packed(p) => p.space.config(u128::from(p.code(i as usize))),
        }
    }

    /// The number of `cfg` (in canonical form), if kept.
    pub(super) fn index(&self, cfg: &Config) -> Option<u32> {
        match self {
            Reached::Whole { index, .. } => index.get(cfg).copied(),
            Reached::Packed(p) => p.find(p.space.index(cfg)? as u64),
        }
    }

    /// Keeps `cfg` (in canonical form) unless kept already: its number,
    /// and whether it is new. `None` when a packed store meets a value
    /// outside the domains, which has no code.
    pub(super) fn insert(&mut self, cfg: &Config) -> Option<(u32, bool)> {
        match self.look_up(cfg)? {
            Ok(i) => Some((i, false)),
            Err(unkept) => Some(self.keep(unkept)),
        }
    }

    /// Whether `cfg` (in canonical form) is kept, without keeping it: its
    /// number, or what [`Reached::keep`] takes to keep it. `None` when a
    /// packed store meets a value outside the domains, which has no code.
    pub(super) fn look_up(&self, cfg: &Config) -> Option<Result<u32, Unkept>> {
        Some(self.look_up_unkept(self.unkept(cfg)?))
    }

    /// `cfg` (in canonical form) as this store would keep it. `None` as
    /// for [`Reached::look_up`].
    pub(super) fn unkept(&self, cfg: &Config) -> Option<Unkept> {
        Some(match self {
            Reached::Whole { .. } => Unkept::Whole(Box::new(cfg.clone())),
            Reached::Packed(p) => Unkept::Code(p.space.index(cfg)? as u64),
        })
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

    /// The kept configuration's code at the place to look for the code
    /// `code` starts to load into the cache (that place is read now).
    #[inline]
    pub(super) fn prefetch_kept(&self, code: u64) {
        if let Reached::Packed(p) = self {
            if let Some(i) = p.first_number(code) {
                prefetch(&p.codes[i as usize * p.width]);
            }
        }
    }

    /// [`Reached::look_up`] of what [`Reached::unkept`] gave.
    pub(super) fn look_up_unkept(&self, unkept: Unkept) -> Result<u32, Unkept> {
        let found = match (self, &unkept) {
            (Reached::Whole { index, .. }, Unkept::Whole(cfg)) => index.get(cfg).copied(),
            (Reached::Packed(p), Unkept::Code(code)) => p.find(*code),
            _ => unreachable!("made by another store"),
        };
        found.ok_or(unkept)
    }

    /// Keeps what [`Reached::look_up`] found unkept, unless it was kept
    /// since: its number, and whether it is new.
    pub(super) fn keep(&mut self, unkept: Unkept) -> (u32, bool) {
        match (self, unkept) {
            (Reached::Whole { configs, index }, Unkept::Whole(cfg)) => {
                if let Some(&i) = index.get(&cfg) {
                    return (i, false);
                }
                let i = configs.len() as u32;
                index.insert((*cfg).clone(), i);
                configs.push(*cfg);
                (i, true)
            }
            (Reached::Packed(p), Unkept::Code(code)) => p.insert(code),
            _ => unreachable!("looked up in another store"),
        }
    }

    /// About the bytes kept.
    pub(super) fn bytes(&self) -> usize {
        match self {
            Reached::Whole { configs, .. } => {
                let one = configs.first().map_or(0, |c| {
                    std::mem::size_of::<Config>() + 8 * c.rows.len() + c.chans.memory_bytes()
                });
                // Kept twice (in order and in the index), with the map's own.
                configs.len() * (2 * one + 16)
            }
            Reached::Packed(p) => p.codes.capacity() + 4 * p.table.capacity(),
        }
    }
}

/// A configuration not kept yet, as its store keeps it (boxed whole: the
/// steps found wait in a list, where most are codes).
pub(super) enum Unkept {
    Whole(Box<Config>),
    Code(u64),
}

/// Codes in a byte arena, `width` bytes each, and the table.
pub(super) struct Packed {
    space: Space,
    width: usize,
    codes: Vec<u8>,
    len: usize,
    /// Numbers of codes, or `EMPTY`; a power of two long, never more than
    /// three quarters full.
    table: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

impl Packed {
    fn new(space: Space) -> Self {
        let bits = 128 - space.count().saturating_sub(1).leading_zeros() as usize;
        Packed {
            space,
            width: bits.div_ceil(8).max(1),
            codes: vec![0; 8],
            len: 0,
            table: vec![EMPTY; 1 << 10],
        }
    }

    #[inline]
    fn code(&self, i: usize) -> u64 {
        // The arena ends in 8 spare bytes, so that a whole word can be read.
        let at = i * self.width;
        let word = u64::from_le_bytes(self.codes[at..at + 8].try_into().expect("8 bytes"));
        match self.width {
            8 => word,
            w => word & ((1u64 << (8 * w)) - 1),
        }
    }

    /// Where to look for `code` first, and the tag its slot holds: the
    /// hash's next bits above the number's (a number is below the table's
    /// length), so that most slots of other codes are passed over without
    /// reading their codes.
    #[inline]
    fn slot_and_tag(&self, code: u64) -> (usize, u32) {
        let bits = self.table.len().trailing_zeros();
        let hash = code.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let tag = ((hash << bits) >> 32) as u32 & !self.number_mask();
        ((hash >> (64 - bits)) as usize, tag)
    }

    /// `code`'s first slot starts to load into the cache.
    #[inline]
    fn prefetch_slot(&self, code: u64) {
        prefetch(&self.table[self.slot(code)]);
    }

    /// The first slot to look in for `code`.
    fn slot(&self, code: u64) -> usize {
        self.slot_and_tag(code).0
    }

    /// The bits of a slot that hold a number.
    #[inline]
    fn number_mask(&self) -> u32 {
        u32::MAX >> (32 - self.table.len().trailing_zeros().min(32))
    }

    /// The number a slot holds, if its tag is `tag`.
    #[inline]
    fn tagged(&self, slot: u32, tag: u32) -> Option<u32> {
        let mask = self.number_mask();
        (slot & !mask == tag).then_some(slot & mask)
    }

    /// The number in `code`'s first slot when its tag is `code`'s (the
    /// code to read next to see whether it is kept).
    fn first_number(&self, code: u64) -> Option<u32> {
        let (s, tag) = self.slot_and_tag(code);
        match self.table[s] {
            EMPTY => None,
            x => self.tagged(x, tag),
        }
    }

    fn find(&self, code: u64) -> Option<u32> {
        self.probe(code).ok()
    }

    /// `code`'s number, or the empty slot where it would go.
    #[inline]
    fn probe(&self, code: u64) -> Result<u32, usize> {
        let mask = self.table.len() - 1;
        let (mut s, tag) = self.slot_and_tag(code);
        loop {
            match self.table[s] {
                EMPTY => return Err(s),
                x => match self.tagged(x, tag) {
                    Some(i) if self.code(i as usize) == code => return Ok(i),
                    _ => s = (s + 1) & mask,
                },
            }
        }
    }

    fn insert(&mut self, code: u64) -> (u32, bool) {
        if 4 * (self.len + 1) > 3 * self.table.len() {
            self.grow();
        }
        let s = match self.probe(code) {
            Ok(i) => return (i, false),
            Err(s) => s,
        };
        let i = self.len as u32;
        // Over the spare bytes, which move to the end: the code's bytes
        // above its width are zero.
        let at = self.len * self.width;
        self.codes.resize(at + self.width + 8, 0);
        self.codes[at..at + 8].copy_from_slice(&code.to_le_bytes());
        self.len += 1;
        self.table[s] = self.slot_and_tag(code).1 | i;
        (i, true)
    }

    fn place(&mut self, code: u64, i: u32) {
        let mask = self.table.len() - 1;
        let (mut s, tag) = self.slot_and_tag(code);
        while self.table[s] != EMPTY {
            s = (s + 1) & mask;
        }
        self.table[s] = tag | i;
    }

    /// Twice the slots, every number placed again.
    fn grow(&mut self) {
        self.table = vec![EMPTY; 2 * self.table.len()];
        // The slots are read from all over the table: each starts to load
        // well before it is written.
        const AHEAD: usize = 16;
        for i in 0..self.len.min(AHEAD) {
            self.prefetch_slot(self.code(i));
        }
        for i in 0..self.len {
            if i + AHEAD < self.len {
                self.prefetch_slot(self.code(i + AHEAD));
            }
            self.place(self.code(i), i as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_and_whole_stores_number_alike() {
        let src = include_str!("../../programs/dijkstra_kstate.gc");
        let inst = super::super::test_instance(src, "ring:4", &[]);
        let space = inst.space();
        let start = space.config(0);
        let mut packed = Reached::new(space.clone(), false, &start);
        let mut whole = Reached::new(space.clone(), true, &start);
        assert!(matches!(packed, Reached::Packed(_)));
        assert!(matches!(whole, Reached::Whole { .. }));
        // Every configuration twice, in a scrambled order: the table grows.
        let count = space.count() as u64;
        for k in 0..2 * count {
            let cfg = space.config(u128::from(k * 97 % count));
            assert_eq!(packed.insert(&cfg), whole.insert(&cfg));
        }
        assert_eq!(packed.len(), count as usize);
        for i in 0..count as u32 {
            assert_eq!(packed.get(i), whole.get(i));
            assert_eq!(packed.index(&whole.get(i)), Some(i));
        }
    }
}
