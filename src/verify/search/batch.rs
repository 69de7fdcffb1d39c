//! A configuration's steps, listed first and passed on after: the steps
//! written as bytes are then looked up together
//! ([`ConfigArena::index_many`]), so that the cache misses of the look-ups
//! (the larger part of a search over millions of configurations with
//! channels) overlap instead of following one another. Everything else
//! is passed on in the order listed, as it was found.

use crate::runtime::step::{Move, RunError};
use crate::verify::config_arena::ConfigArena;

/// What became of one step listed.
pub(super) enum Listed {
    /// Written as bytes, to be looked up.
    Written,
    /// It leads to this configuration, under this symmetry.
    Found(u32, usize),
    /// It raises this runtime error with these moves (boxed: the others
    /// are small).
    Faults(Box<(RunError, Vec<Move>)>),
    /// It leads outside the configurations kept.
    Outside,
}

/// The steps of one configuration, as they were listed.
#[derive(Default)]
pub(super) struct StepBatch {
    /// The bytes of the steps written, one after the other, and where
    /// each ends.
    pub(super) bytes: Vec<u8>,
    ends: Vec<usize>,
    listed: Vec<Listed>,
    /// Each step's moves, one after the other, and where each ends, where
    /// they are kept (see [`StepBatch::clear`]).
    moves: Vec<Move>,
    move_ends: Vec<usize>,
    /// Each step's number of moves and its movers as bits (see
    /// [`crate::verify::process_bits::as_bits`]).
    counts: Vec<(u32, u64)>,
    keeps_moves: bool,
    found: Vec<Option<u32>>,
    /// Where each step listed leads, where that is known already (the
    /// steps kept while reaching, in the order listed): a step written is
    /// then taken to lead there if the configuration there is its bytes,
    /// with no look-up (see [`StepBatch::pass_on`]). Set for one
    /// configuration's steps, and emptied by [`StepBatch::pass_on`].
    pub(super) given: Vec<u32>,
}

/// A step as [`StepBatch::pass_on`] passes it on: its moves (none where
/// they are not kept), how many there are, and its movers as bits.
pub(super) struct Passed<'m> {
    pub(super) moves: &'m [Move],
    pub(super) count: u32,
    pub(super) movers: u64,
}

impl StepBatch {
    /// Empties the batch for another configuration's steps, whose moves
    /// it keeps if asked (else it passes on only their number and movers:
    /// a copy of every move is a tenth of a search with channels).
    pub(super) fn clear(&mut self, keep_moves: bool) {
        self.bytes.clear();
        self.ends.clear();
        self.listed.clear();
        self.moves.clear();
        self.move_ends.clear();
        self.counts.clear();
        self.keeps_moves = keep_moves;
    }

    /// Adds a step of `moves`: `Written` where its bytes were appended to
    /// `bytes` since the last step added.
    pub(super) fn push(&mut self, listed: Listed, moves: &[Move]) {
        if matches!(listed, Listed::Written) {
            self.ends.push(self.bytes.len());
        }
        self.listed.push(listed);
        let movers = crate::verify::process_bits::as_bits(moves.iter().map(|m| &m.process));
        self.counts.push((moves.len() as u32, movers));
        if self.keeps_moves {
            self.moves.extend_from_slice(moves);
            self.move_ends.push(self.moves.len());
        }
    }

    /// Where the steps written lead, into `found`, taken from `given`
    /// where there is a destination for each step listed and each is the
    /// step's configuration: its bytes those the step wrote (a number
    /// holding them is theirs: the arena keeps each configuration once),
    /// or the number a step found; false, with `found` empty, otherwise.
    fn found_given(&mut self, arena: &ConfigArena) -> bool {
        if self.given.len() != self.listed.len() {
            return false;
        }
        let mut start = 0;
        let mut ends = self.ends.iter();
        for (listed, &to) in self.listed.iter().zip(&self.given) {
            let holds = match listed {
                Listed::Written => {
                    let end = *ends.next().expect("an end for each step written");
                    let bytes = &self.bytes[start..end];
                    start = end;
                    arena.holds(to, bytes)
                }
                Listed::Found(next, _) => *next == to,
                Listed::Faults(_) | Listed::Outside => false,
            };
            if !holds {
                self.found.clear();
                return false;
            }
            if matches!(listed, Listed::Written) {
                self.found.push(Some(to));
            }
        }
        true
    }

    /// Passes the steps on in the order listed, as one at a time would
    /// have: `each` with where a step leads, the step and the symmetry;
    /// a fault recorded by `fault` (with its moves) unless one was; and at
    /// a step leading outside what `arena` keeps, nothing more. Whether
    /// one did.
    pub(super) fn pass_on(
        &mut self,
        arena: Option<&ConfigArena>,
        mut fault: impl FnMut(Box<(RunError, Vec<Move>)>),
        mut each: impl FnMut(u32, Passed, usize),
    ) -> bool {
        self.found.clear();
        if let Some(arena) = arena.filter(|_| !self.ends.is_empty()) {
            if !self.found_given(arena) {
                arena.index_many(&self.bytes, &self.ends, &mut self.found);
            }
        }
        self.given.clear();
        let mut found = self.found.iter();
        let mut from = 0;
        for (k, listed) in self.listed.drain(..).enumerate() {
            let (count, movers) = self.counts[k];
            let moves = match self.move_ends.get(k) {
                Some(&to) => &self.moves[std::mem::replace(&mut from, to)..to],
                None => &[],
            };
            let step = Passed {
                moves,
                count,
                movers,
            };
            match listed {
                Listed::Written => match found.next().copied().flatten() {
                    Some(next) => each(next, step, 0),
                    None => return true,
                },
                Listed::Found(next, symmetry) => each(next, step, symmetry),
                Listed::Faults(e) => fault(e),
                Listed::Outside => return true,
            }
        }
        false
    }
}
