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

/// The most processes whose sleep sets are kept (in 4 bytes each).
const MOST_PROCESSES: usize = 32;

/// Per process, those apart from it, as bits, from each one's neighbours
/// and readers as bits (`near`); `None` where no step is skipped: not
/// under the central daemon, where no two processes are apart, or where
/// there are more than [`MOST_PROCESSES`].
pub(super) fn apart(near: &[u64], daemon: &Daemon) -> Option<Vec<u64>> {
    if near.len() > MOST_PROCESSES {
        return None;
    }
    let apart_from = |q: usize| {
        (0..near.len())
            .filter(|&p| p != q && near[p] >> q & 1 == 0 && near[q] >> p & 1 == 0)
            .fold(0u64, |bits, p| bits | 1 << p)
    };
    let apart: Vec<u64> = (0..near.len()).map(apart_from).collect();
    (matches!(daemon, Daemon::Central) && apart.iter().any(|&a| a != 0)).then_some(apart)
}

/// The sleep sets of the configurations numbered and not expanded yet,
/// in order (4 bytes each: see [`MOST_PROCESSES`]), while they are used.
pub(super) struct Frontier(Option<VecDeque<u32>>);

impl Frontier {
    /// Where `used`, the `starts` starts' (empty) sleep sets alone; else
    /// none.
    pub(super) fn new(used: bool, starts: u32) -> Self {
        Frontier(used.then(|| VecDeque::from(vec![0; starts as usize])))
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
        self.0
            .as_mut()
            .map(|f| f.drain(..n).map(u64::from).collect())
    }

    /// The sleep set of the configuration numbered next, if they are used.
    #[inline]
    pub(super) fn push(&mut self, sleep: u64) {
        if let Some(f) = &mut self.0 {
            // Of at most `MOST_PROCESSES` processes.
            f.push_back(sleep as u32);
        }
    }

    /// The bytes it takes.
    pub(super) fn bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |f| 4 * f.capacity())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `near` of a chain of `n`: each process's neighbours, as bits.
    fn chain(n: usize) -> Vec<u64> {
        (0..n)
            .map(|p| {
                let left = if p > 0 { 1 << (p - 1) } else { 0 };
                let right = if p + 1 < n { 1 << (p + 1) } else { 0 };
                left | right
            })
            .collect()
    }

    /// Processes are apart when neither is the other's neighbour, nor the
    /// same; sleep sets are used only under the central daemon, where two
    /// are apart, for at most 32 processes.
    #[test]
    fn apart_are_those_not_near() {
        let apart_in_four = apart(&chain(4), &Daemon::Central).expect("some apart");
        assert_eq!(apart_in_four, vec![0b1100, 0b1000, 0b0001, 0b0011]);
        // A triangle: every two are neighbours.
        assert_eq!(apart(&[0b110, 0b101, 0b011], &Daemon::Central), None);
        assert_eq!(apart(&chain(4), &Daemon::Distributed), None);
        assert_eq!(apart(&chain(4), &Daemon::Synchronous), None);
        assert!(apart(&chain(32), &Daemon::Central).is_some());
        assert_eq!(apart(&chain(33), &Daemon::Central), None);
    }

    /// The frontier gives back the sleep sets in the order they came, and
    /// none once stopped.
    #[test]
    fn the_frontier_keeps_its_order() {
        let mut frontier = Frontier::new(true, 1);
        for sleep in [5, 1 << 31, 7] {
            frontier.push(sleep);
        }
        assert_eq!(frontier.take(2), Some(vec![0, 5]));
        assert_eq!(frontier.take(2), Some(vec![1 << 31, 7]));
        frontier.stop();
        frontier.push(3);
        assert_eq!(frontier.take(0), None);
        assert!(!Frontier::new(false, 1).used());
    }
}
