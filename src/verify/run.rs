//! The runs a verdict reports: a start and each step's moves (and, in
//! ticks, each tick's delays), which `guarded run` replays.

use super::moves;
use crate::runtime::step::Move;
use crate::state::Config;

/// A run the verifier reports: where it starts and the moves of each step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The configuration it starts from.
    pub start: Config,
    /// Each step's moves, movers in increasing order (in a program that
    /// runs in ticks, each tick's moves in the order made).
    pub steps: Vec<Vec<Move>>,
    /// In a program that runs in ticks, each tick's delays: the ticks each
    /// message sent in it takes, in the order sent; empty otherwise.
    pub delays: Vec<Vec<u16>>,
}

impl Run {
    /// The number of moves the run makes.
    pub fn moves(&self) -> u64 {
        self.steps.iter().map(|s| s.len() as u64).sum()
    }

    /// Step `k`'s movers.
    pub fn movers(&self, k: usize) -> Vec<u32> {
        moves::movers(&self.steps[k])
    }
}
