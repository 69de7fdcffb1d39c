//! The blocks of a batch of configurations to expand, shared out to the
//! pool's threads or claimed one by one by the threads free, each
//! expanded by an [`Expander`] a thread borrows.

use super::block::Block;
use super::claims::Claims;
use super::expander::{Expander, Memo};
use super::source::Configs;
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::state::Config;
use crate::verify::reached::Reached;
use crate::verify::symmetry::Symmetry;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// What the threads expanding configurations share: the instance, the
/// memo, a configuration to shape buffers after, the daemon, how many
/// configurations a block takes, whether threads look steps up (see
/// [`Block::leave_out_kept`]), and blocks emptied, to fill again, and
/// expanders free, to use again.
pub(super) struct Expanding<'e> {
    pub(super) inst: &'e Instance,
    /// Whether steps are listed move by move, and then whether every move
    /// of a mover is (see [`super::super::moves`]).
    pub(super) listed: Option<bool>,
    /// By orbits: the symmetries, each step leading to the configuration
    /// standing for its orbit.
    pub(super) symmetry: Option<&'e Symmetry>,
    pub(super) memo: Option<&'e Memo<'e>>,
    pub(super) like: &'e Config,
    pub(super) daemon: &'e Daemon,
    pub(super) block: u32,
    pub(super) look_up: bool,
    /// Whether steps are kept for the searches after this one (see
    /// [`crate::verify::kept_steps`]): cleared where they no longer are,
    /// so that the blocks expanded after leave the work out.
    pub(super) keeps_steps: AtomicBool,
    pub(super) spare: Mutex<Vec<Block>>,
    /// Expanders no thread is using: their memos of views stay learnt
    /// from one batch to the next. (A new one for each of Chang and
    /// Roberts' ring of 9's 14,000 blocks learnt its 50 or so views
    /// again, each through the interpreter.)
    pub(super) free: Mutex<Vec<Expander<'e>>>,
}

impl<'e> Expanding<'e> {
    /// Configurations `range` of `reached`, of sleep sets `sleeps` (from
    /// the first on, where they are used), expanded in blocks on the
    /// pool's threads: the blocks, in order.
    pub(super) fn all(
        &self,
        reached: &Reached,
        range: Range<u32>,
        sleeps: Option<&[u64]>,
    ) -> Vec<Block> {
        let (from, end) = (range.start, range.end);
        range
            .step_by(self.block as usize)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map_init(
                || self.expander(),
                |x, first| {
                    let range = first..end.min(first + self.block);
                    let sleeps = sleeps.map(|s| &s[(first - from) as usize..]);
                    self.one(x.get(), reached, range, sleeps)
                },
            )
            .collect()
    }

    /// Expands the blocks of `claims` this thread claims, until none is
    /// left.
    pub(super) fn claimed(&self, claims: &Claims) {
        let mut x = self.expander();
        while let Some((range, sleeps)) = claims.claim(self.block) {
            let first = range.start;
            let block = self.one(x.get(), &claims.codes, range, sleeps);
            if let Ok(mut done) = claims.done.lock() {
                done.push((first, block));
            }
        }
    }

    /// An expander for a thread: a free one, else a new one; it is free
    /// again when the thread drops it.
    fn expander(&self) -> Lent<'_, 'e> {
        let free = self.free.lock().ok().and_then(|mut free| free.pop());
        Lent {
            x: Some(free.unwrap_or_else(|| self.new_expander())),
            free: &self.free,
        }
    }

    /// A new expander, its buffers empty.
    fn new_expander(&self) -> Expander<'e> {
        Expander::for_thread(self.inst, self.memo, self.like, self.listed, self.symmetry)
    }

    /// Configurations `range` of `source` expanded into a block.
    fn one<S: Configs>(
        &self,
        x: &mut Expander,
        source: &S,
        range: Range<u32>,
        sleeps: Option<&[u64]>,
    ) -> Block {
        let emptied = self.spare.lock().ok().and_then(|mut s| s.pop());
        let mut emptied = emptied.unwrap_or_else(Block::empty);
        emptied.steps.keeping = self.keeps_steps.load(Ordering::Relaxed);
        x.block(self.daemon, source, range, sleeps, emptied, self.look_up)
    }

    /// `block`, numbered, to fill again.
    pub(super) fn give_back(&self, block: Block) {
        if let Ok(mut spare) = self.spare.lock() {
            spare.push(block);
        }
    }
}

/// An expander a thread uses, given back to the free ones when dropped.
struct Lent<'f, 'e> {
    x: Option<Expander<'e>>,
    free: &'f Mutex<Vec<Expander<'e>>>,
}

impl<'e> Lent<'_, 'e> {
    fn get(&mut self) -> &mut Expander<'e> {
        self.x.as_mut().expect("lent until dropped")
    }
}

impl Drop for Lent<'_, '_> {
    fn drop(&mut self) {
        if let (Some(x), Ok(mut free)) = (self.x.take(), self.free.lock()) {
            free.push(x);
        }
    }
}
