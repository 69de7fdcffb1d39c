//! The blocks of a batch claimed one by one by the threads free.

use super::block::Block;
use super::source::Codes;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The blocks of a batch of configurations, read from a copy of their
/// codes, shared out as threads claim them: their sleep sets, if used,
/// the first configuration of the block claimed next, and the blocks
/// expanded, each after its first configuration.
pub(super) struct Claims<'c> {
    pub(super) codes: Codes<'c>,
    sleeps: Option<Vec<u64>>,
    next: AtomicUsize,
    pub(super) done: Mutex<Vec<(u32, Block)>>,
}

impl<'c> Claims<'c> {
    /// The configurations of `codes`, of sleep sets `sleeps`.
    pub(super) fn new(codes: Codes<'c>, sleeps: Option<Vec<u64>>) -> Self {
        Claims {
            next: AtomicUsize::new(codes.first as usize),
            codes,
            sleeps,
            done: Mutex::new(Vec::new()),
        }
    }

    /// The next block of at most `block` configurations, and their sleep
    /// sets; `None` once every one is claimed.
    pub(super) fn claim(&self, block: u32) -> Option<(Range<u32>, Option<&[u64]>)> {
        let first = self.next.fetch_add(block as usize, Ordering::Relaxed);
        let end = self.codes.first as usize + self.codes.codes.len();
        (first < end).then(|| {
            let at = first - self.codes.first as usize;
            let range = first as u32..end.min(first + block as usize) as u32;
            (range, self.sleeps.as_deref().map(|s| &s[at..]))
        })
    }

    /// The blocks expanded, in order.
    pub(super) fn blocks(self) -> Vec<Block> {
        let mut done = self.done.into_inner().unwrap_or_else(|e| e.into_inner());
        done.sort_unstable_by_key(|&(first, _)| first);
        done.into_iter().map(|(_, block)| block).collect()
    }
}
