//! Sleep sets: steps known to lead to configurations kept already, which
//! the search counts without looking them up.
//!
//! As in partial-order reduction, but here they only spare look-ups:
//! every step is still counted, and the numbers are those of the plain
//! search. Under the central daemon, configuration `x`'s sleep set holds
//! processes `p` whose step from `x` leads to a configuration kept before
//! `x`'s steps are numbered. If `x` was first reached by `q`'s move from
//! `c`, a process `p` apart from `q` (neither is the other's neighbour, so
//! neither moves what the other reads: a process reads and writes only
//! itself, its neighbours and the edges between them) is in it where, at
//! `c`, `p`'s step came before `q`'s and led to a code, or `p` was in
//! `c`'s sleep set. Either way `c + p` was numbered before `x`, so
//! expanded before it; and `q`'s move there is the one it made at `c`, to
//! `c + p + q`, which is `x + p`.
//!
//! That needs every configuration to have its steps: one where an
//! invariant fails has none, so the first such one ends the skipping.

use crate::runtime::daemon::Daemon;
use std::collections::VecDeque;

/// Per process, those apart from it, as bits, from each one's neighbours
/// and readers as bits (`near`); `None` where no step is ever skipped:
/// not under the central daemon, or where no two processes are apart.
pub(super) fn apart(near: &[u64], daemon: &Daemon) -> Option<Vec<u64>> {
    let apart_from = |q: usize| {
        (0..near.len())
            .filter(|&p| p != q && near[p] >> q & 1 == 0 && near[q] >> p & 1 == 0)
            .fold(0u64, |bits, p| bits | 1 << p)
    };
    let apart: Vec<u64> = (0..near.len()).map(apart_from).collect();
    (matches!(daemon, Daemon::Central) && apart.iter().any(|&a| a != 0)).then_some(apart)
}

/// The sleep sets of the configurations numbered and not expanded yet,
/// in order (8 bytes each), while they are used.
pub(super) struct Frontier(Option<VecDeque<u64>>);

impl Frontier {
    /// Where `used`, the start's (empty) sleep set alone; else none.
    pub(super) fn new(used: bool) -> Self {
        Frontier(used.then(|| VecDeque::from([0])))
    }

    /// Whether sleep sets are used.
    pub(super) fn used(&self) -> bool {
        self.0.is_some()
    }

    /// No sleep sets from now on.
    pub(super) fn stop(&mut self) {
        self.0 = None;
    }

    /// The sleep sets of the `n` configurations next, taken out.
    pub(super) fn take(&mut self, n: usize) -> Option<Vec<u64>> {
        self.0.as_mut().map(|f| f.drain(..n).collect())
    }

    /// The sleep set of the configuration numbered next, if they are used.
    #[inline]
    pub(super) fn push(&mut self, sleep: u64) {
        if let Some(f) = &mut self.0 {
            f.push_back(sleep);
        }
    }

    /// The bytes it takes.
    pub(super) fn bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |f| 8 * f.capacity())
    }
}

/// The sleep set of a configuration being expanded, and the processes
/// whose steps from it led to codes so far, in the central daemon's
/// order.
pub(super) struct Asleep {
    sleep: u64,
    done: u64,
}

impl Asleep {
    /// A configuration of sleep set `sleep`, before its steps.
    pub(super) fn new(sleep: u64) -> Self {
        Asleep { sleep, done: 0 }
    }

    /// Whether `p`'s step is known to lead to a configuration kept.
    #[inline]
    pub(super) fn skips(&self, p: usize) -> bool {
        self.sleep >> p & 1 == 1
    }

    /// The sleep set of the configuration `p`'s step leads to, were it
    /// new, where `apart` are the processes apart from `p`.
    #[inline]
    pub(super) fn after(&self, apart: u64) -> u64 {
        (self.sleep | self.done) & apart
    }

    /// `p`'s step led to a code.
    #[inline]
    pub(super) fn led_to_code(&mut self, p: usize) {
        self.done |= 1 << p;
    }
}
