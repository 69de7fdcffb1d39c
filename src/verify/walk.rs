//! What the depth-first searches (for the most steps and moves, and for
//! the most rounds) know of a state they step to, and why one stops,
//! whether one search walks or every thread does; and, for the threads,
//! how they share the roots and wait for one another.

use super::successors::{Succ, Successors};
use super::Refusal;
use crate::runtime::daemon::Daemon;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

/// What a search knows of a state it steps to.
pub(super) enum Seen<V> {
    /// Unseen until now: now claimed by this search, to be opened.
    Claimed,
    /// On a search's stack.
    Open,
    /// No run from it counts (every way on faults).
    NoRun,
    /// Done: what is still to count from it.
    Done(V),
}

/// The fewest configurations worth the threads.
pub(super) const THREADS_FROM: u32 = 1 << 16;

/// A count the threads share in a byte, as [`super::counts::Counts`]
/// keeps one: the three largest values are reserved.
pub(super) const UNSEEN: u8 = u8::MAX;
pub(super) const OPEN: u8 = u8::MAX - 1;
pub(super) const NO_RUN: u8 = u8::MAX - 2;

/// Why a walk stopped before its end.
pub(super) enum Stop {
    Refused(Refusal),
    /// The threads met what only one search reports the same way each
    /// time (a cycle, a deadlock, a faulting step, a count too wide), or
    /// one search ran out of room: the caller knows which.
    GiveUp,
}

impl From<Refusal> for Stop {
    fn from(r: Refusal) -> Self {
        Stop::Refused(r)
    }
}

/// How many roots (or starts) a thread takes at a time.
const ROOTS_AT_A_TIME: u32 = 1 << 10;

/// The roots in one share per thread, each taken from its start a few at a
/// time; a thread done with its share takes from the others'. Shares far
/// apart keep the threads' walks apart, at first at least: fewer reads of
/// what another thread has just written.
pub(super) struct Roots {
    shares: Vec<(AtomicU32, u32)>,
}

impl Roots {
    pub(super) fn new(count: u32, threads: usize) -> Self {
        let threads = threads.max(1);
        let at = |t: usize| (u64::from(count) * t as u64 / threads as u64) as u32;
        let shares = (0..threads).map(|t| (AtomicU32::new(at(t)), at(t + 1)));
        Roots {
            shares: shares.collect(),
        }
    }

    /// The next few roots for thread `mine`, from its share or another's.
    pub(super) fn take(&self, mine: usize) -> Option<std::ops::Range<u32>> {
        let n = self.shares.len();
        (0..n).find_map(|k| {
            let (next, end) = &self.shares[(mine + k) % n];
            // Past the end, the cursor stops (so that it cannot wrap).
            let first = next
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |f| {
                    (f < *end).then(|| f.saturating_add(ROOTS_AT_A_TIME).min(*end))
                })
                .ok()?;
            Some(first..(*end).min(first.saturating_add(ROOTS_AT_A_TIME)))
        })
    }
}

/// How long every thread must be seen waiting before the waits are taken
/// for a cycle: long enough for a thread the system held up to go on.
const STALLED_FOR: std::time::Duration = std::time::Duration::from_millis(200);

/// The threads of a search: whether one gave up (then all do), and how
/// many wait for a state on another's stack or are done with their roots.
/// When all of them are, the waits form a cycle of the steps and none ends.
pub(super) struct Threads {
    count: usize,
    stalled: AtomicUsize,
    give_up: AtomicBool,
}

impl Threads {
    pub(super) fn new(count: usize) -> Self {
        Threads {
            count,
            stalled: AtomicUsize::new(0),
            give_up: AtomicBool::new(false),
        }
    }

    /// Whether a thread gave up.
    pub(super) fn given_up(&self) -> bool {
        self.give_up.load(Ordering::Relaxed)
    }

    /// A thread is done with its roots, having found all or given up.
    pub(super) fn done(&self, outcome: &Result<(), Stop>) {
        if outcome.is_err() {
            self.give_up.store(true, Ordering::Relaxed);
        }
        self.stalled.fetch_add(1, Ordering::SeqCst);
    }

    /// A thread's steps from configuration `i` (reached from `from`) by
    /// `engine` into `out`, and whether no process is enabled there. It
    /// gives up when another thread has, and where the step relation's own
    /// way is needed: a faulting guard or move is the one search's to
    /// report.
    pub(super) fn steps(
        &self,
        (engine, daemon): (&mut Successors, &Daemon),
        (i, from): (u32, Option<(u32, u64)>),
        out: &mut Vec<Succ>,
    ) -> Result<bool, Stop> {
        if self.given_up() {
            return Err(Stop::GiveUp);
        }
        match engine.load_steps((i, from), daemon, out) {
            Ok(Some(terminal)) => Ok(terminal),
            _ => Err(Stop::GiveUp),
        }
    }

    /// Waits until `probe` gives what is not `open` (a state on another
    /// thread's stack), and gives that.
    pub(super) fn wait_for(&self, open: u8, probe: impl Fn() -> u8) -> Result<u8, Stop> {
        self.stalled.fetch_add(1, Ordering::SeqCst);
        let (mut tries, mut all_stalled) = (0u32, None);
        let got = loop {
            let byte = probe();
            if byte != open {
                break Ok(byte);
            }
            if self.given_up() {
                break Err(Stop::GiveUp);
            }
            // Every thread stalled for long (not just a thread held up
            // between the end of its wait and its count): a cycle, the
            // one search's to report.
            if self.stalled.load(Ordering::SeqCst) == self.count {
                let since = *all_stalled.get_or_insert_with(std::time::Instant::now);
                if since.elapsed() > STALLED_FOR {
                    break Err(Stop::GiveUp);
                }
            } else {
                all_stalled = None;
            }
            tries = tries.saturating_add(1);
            if tries < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        };
        self.stalled.fetch_sub(1, Ordering::SeqCst);
        got
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whichever threads take them, the roots are each taken once.
    #[test]
    fn every_root_is_taken_once() {
        for count in [0, 1, 5, 1023, 1024, 5000] {
            for threads in 1..=4 {
                let roots = Roots::new(count, threads);
                let mut taken = vec![0u32; count as usize];
                // Thread 0 takes most, the others a turn each now and then.
                let mut turn = 0;
                while let Some(r) = roots.take(if turn % 3 == 0 { turn % threads } else { 0 }) {
                    r.for_each(|c| taken[c as usize] += 1);
                    turn += 1;
                }
                assert!(
                    taken.iter().all(|&t| t == 1),
                    "{count} roots, {threads} threads"
                );
                assert!((0..threads).all(|t| roots.take(t).is_none()));
            }
        }
    }
}
