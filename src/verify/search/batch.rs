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
    /// It raises this runtime error (boxed: the others are small).
    Faults(Box<RunError>),
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
    /// Each step's moves, one after the other, and where each ends.
    moves: Vec<Move>,
    move_ends: Vec<usize>,
    found: Vec<Option<u32>>,
}

impl StepBatch {
    /// Empties the batch for another configuration's steps.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.listed.clear();
        self.moves.clear();
        self.move_ends.clear();
    }

    /// Adds a step of `moves`: `Written` where its bytes were appended to
    /// `bytes` since the last step added.
    pub(super) fn push(&mut self, listed: Listed, moves: &[Move]) {
        if matches!(listed, Listed::Written) {
            self.ends.push(self.bytes.len());
        }
        self.listed.push(listed);
        self.moves.extend_from_slice(moves);
        self.move_ends.push(self.moves.len());
    }

    /// Passes the steps on in the order listed, as one at a time would
    /// have: `each` with where a step leads, its moves and the symmetry;
    /// a fault recorded by `fault` unless one was; and at a step leading
    /// outside what `arena` keeps, nothing more. Whether one did.
    pub(super) fn pass_on(
        &mut self,
        arena: Option<&ConfigArena>,
        mut fault: impl FnMut(Box<RunError>, &[Move]),
        mut each: impl FnMut(u32, &[Move], usize),
    ) -> bool {
        self.found.clear();
        if let Some(arena) = arena.filter(|_| !self.ends.is_empty()) {
            arena.index_many(&self.bytes, &self.ends, &mut self.found);
        }
        let mut found = self.found.iter();
        let mut from = 0;
        for (listed, &to) in self.listed.drain(..).zip(&self.move_ends) {
            let moves = &self.moves[from..to];
            from = to;
            match listed {
                Listed::Written => match found.next().copied().flatten() {
                    Some(next) => each(next, moves, 0),
                    None => return true,
                },
                Listed::Found(next, symmetry) => each(next, moves, symmetry),
                Listed::Faults(e) => fault(e, moves),
                Listed::Outside => return true,
            }
        }
        false
    }
}
