//! The depth-first search of [`super::longest`] on every thread at once,
//! over every configuration of the state space or every one a search from
//! a start reached (numbered by the store of their codes, or kept whole,
//! with their channels: then each thread lists steps as the one search
//! does, through a [`Search`] of its own): the counts are shared, a
//! byte each, and each configuration is claimed by the first thread to
//! step to it. A thread that steps to a configuration on another's stack
//! waits for its count. Anything but a clean convergence (a cycle, a
//! deadlock, a faulting step, a count past a byte) is given up on and left
//! to the one search, which reports it the same way each time: so the
//! results do not depend on the threads.

use super::super::counts::Counts;
use super::super::local::LocalMoves;
use super::super::reached::Packed;
use super::super::states::States;
use super::super::successors::{Succ, Successors, ANY_CHANGED};
use super::super::{Explorer, Progress, Refusal};
use super::longest::{Seen, Walk, Walker};
use super::Search;
use crate::load::Instance;
use crate::runtime::bits::Bits;
use crate::runtime::daemon::Daemon;
use crate::runtime::space::Space;
use crate::verify::walk::{Roots, Stop, Threads, NO_RUN, OPEN, THREADS_FROM, UNSEEN};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What the threads share.
struct Shared<'s> {
    steps: &'s [AtomicU8],
    moves: Option<&'s [AtomicU8]>,
    legit: &'s Bits,
    threads: Threads,
    roots: Roots,
    /// Configurations done, for the progress told.
    finished: AtomicU64,
}

/// The state space, the tables and the daemon each thread reads.
#[derive(Clone, Copy)]
struct Reads<'e> {
    inst: &'e Instance,
    space: &'e Space,
    local: Option<&'e LocalMoves>,
    /// From a start: the codes of the configurations reached, which
    /// number them.
    kept: Option<&'e Packed>,
    daemon: &'e Daemon,
    /// Whether every move of a process that may choose is explored.
    every_move: bool,
}

/// Where a thread gets a configuration's steps: the fast way over codes,
/// or, for configurations kept whole, a search of its own.
// One per thread: its size does not matter, and the fast way stays unboxed.
#[allow(clippy::large_enum_variant)]
enum Engine<'e, 'a> {
    Codes(Successors<'e>),
    Whole(Box<Search<'e, 'a>>),
}

/// One thread's walk.
struct OneThread<'s, 'e, 'a> {
    shared: &'s Shared<'s>,
    engine: Engine<'e, 'a>,
    daemon: &'e Daemon,
    transitions: u64,
    /// On the calling thread: where progress is told, what of, and out of
    /// how many.
    progress: Option<(Progress<'e>, &'e str, u64)>,
}

impl OneThread<'_, '_, '_> {
    /// What a byte other than `UNSEEN` says of configuration `i`.
    fn seen(&self, i: u32, byte: u8) -> Seen {
        match byte {
            OPEN => Seen::Open,
            NO_RUN => Seen::NoRun,
            steps => {
                let moves = self
                    .shared
                    .moves
                    .map_or(steps, |m| m[i as usize].load(Ordering::Relaxed));
                Seen::Done((u32::from(steps), u32::from(moves)))
            }
        }
    }
}

impl Walk for OneThread<'_, '_, '_> {
    fn is_legit(&self, i: u32) -> bool {
        self.shared.legit.get(i as usize)
    }

    fn settled(&self, i: u32) -> Option<Seen> {
        match self.shared.steps[i as usize].load(Ordering::Acquire) {
            UNSEEN | OPEN => None,
            byte => Some(self.seen(i, byte)),
        }
    }

    fn claim(&mut self, i: u32) -> Seen {
        let byte = &self.shared.steps[i as usize];
        // Most configurations are seen before: read first, claim only
        // those that look unseen (a claim is a locked instruction).
        match byte.load(Ordering::Acquire) {
            UNSEEN => {}
            seen => return self.seen(i, seen),
        }
        match byte.compare_exchange(UNSEEN, OPEN, Ordering::Acquire, Ordering::Acquire) {
            Ok(_) => Seen::Claimed,
            Err(byte) => self.seen(i, byte),
        }
    }

    fn successors(
        &mut self,
        i: u32,
        from: Option<(u32, u64)>,
        out: &mut Vec<Succ>,
    ) -> Result<bool, Stop> {
        let terminal = match &mut self.engine {
            Engine::Codes(engine) => {
                let engine = (engine, self.daemon);
                self.shared.threads.steps(engine, (i, from), out)?
            }
            // A faulting step (kept in the search's `fault`) is the one
            // search's to report.
            Engine::Whole(search) => match search.successors_from(i, from, out) {
                Ok(terminal) if search.fault.is_none() && !self.shared.threads.given_up() => {
                    terminal
                }
                _ => return Err(Stop::GiveUp),
            },
        };
        self.transitions += out.len() as u64;
        Ok(terminal)
    }

    fn terminal(&mut self, _: u32) -> Result<(), Stop> {
        Err(Stop::GiveUp)
    }

    fn cycle(&mut self, _: u32, _: usize) -> Result<(), Stop> {
        Err(Stop::GiveUp)
    }

    fn wait(&mut self, j: u32) -> Result<Seen, Stop> {
        let steps = &self.shared.steps[j as usize];
        let byte = self
            .shared
            .threads
            .wait_for(OPEN, || steps.load(Ordering::Acquire))?;
        Ok(self.seen(j, byte))
    }

    fn finish(&mut self, i: u32, counts: Option<(u32, u32)>) -> Result<(), Stop> {
        let fits = |c: u32| u8::try_from(c).ok().filter(|&b| b < NO_RUN);
        let Some((steps, moves)) = counts.and_then(|(s, m)| Some((fits(s)?, fits(m)?))) else {
            return Err(Stop::GiveUp);
        };
        if let Some(m) = self.shared.moves {
            m[i as usize].store(moves, Ordering::Relaxed);
        }
        // Released: whoever reads the steps reads the moves stored before.
        self.shared.steps[i as usize].store(steps, Ordering::Release);
        Ok(())
    }

    fn progress(&mut self) -> Result<(), Stop> {
        let every = super::super::PROGRESS_EVERY;
        let done = self.shared.finished.fetch_add(every, Ordering::Relaxed) + every;
        if let Some((progress, what, total)) = self.progress {
            super::super::tell(Some(progress), what, done, total)?;
        }
        Ok(())
    }
}

/// Views `bytes` as atomics for as long as it is borrowed.
fn as_atomic(bytes: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: `AtomicU8` has the same size, alignment (1) and in-memory
    // representation as `u8`, and the exclusive borrow keeps every other
    // access out while the view lives.
    #[allow(unsafe_code)]
    unsafe {
        std::slice::from_raw_parts(bytes.as_mut_ptr().cast::<AtomicU8>(), bytes.len())
    }
}

/// One thread's share of the roots: walks from each it takes until none
/// is left; the steps it took. Configurations kept whole are listed by
/// a search of `whole`'s explorer's.
fn one_thread(
    (shared, thread): (&Shared, usize),
    (reads, whole): (Reads, Option<&Explorer>),
    weighted: bool,
    progress: Option<(Progress, &str, u64)>,
) -> Result<u64, Stop> {
    let engine = match (whole, reads.kept) {
        // It only lists steps, where fairness does not enter.
        (Some(ex), _) => Some(Engine::Whole(Box::new(Search::new(
            ex,
            reads.daemon,
            crate::verify::Fairness::Unfair,
        )))),
        (None, Some(kept)) => {
            Successors::over_reached(reads.inst, reads.space, kept, reads.every_move)
                .map(Engine::Codes)
        }
        (None, None) => Successors::new(reads.inst, reads.space, reads.local, reads.every_move)
            .map(Engine::Codes),
    };
    let Some(engine) = engine else {
        return Err(Stop::GiveUp);
    };
    let mut walk = OneThread {
        shared,
        engine,
        daemon: reads.daemon,
        transitions: 0,
        progress,
    };
    let mut walker = Walker::new(weighted);
    let mut last_root = None;
    let mut walk_roots = || {
        while let Some(roots) = shared.roots.take(thread) {
            for root in roots.filter(|&r| !shared.legit.get(r as usize)) {
                let from = last_root.map(|r| (r, ANY_CHANGED));
                if walker.walk(&mut walk, root, from)? {
                    last_root = Some(root);
                }
            }
        }
        Ok(())
    };
    let outcome = walk_roots();
    shared.threads.done(&outcome);
    outcome.map(|()| walk.transitions)
}

impl Search<'_, '_> {
    /// The most steps (or moves, `weighted`) from every configuration,
    /// and with `track_moves` the most moves too, searched on every
    /// thread, with the steps taken; `None` where one search is needed
    /// (one thread, few configurations, no fast successors, or anything
    /// but a clean convergence met).
    pub(super) fn longest_on_threads(
        &self,
        weighted: bool,
        track_moves: bool,
    ) -> Result<Option<(Counts, Option<Counts>, u64)>, Refusal> {
        let ex = self.ex;
        let threads = self.threads;
        let own_space;
        let (space, kept, whole) = match &ex.states {
            States::All(space) => (space, None, None),
            // From a start, where a run may stop (an invariant fails) the
            // one search says so.
            States::Reachable { reached, .. } if !ex.stops_anywhere() => match reached.packed() {
                Some(kept) => (kept.space(), Some(kept), None),
                // Kept whole (with channels): each thread lists steps as the
                // one search does, but not by orbits or along a schedule.
                None if ex.symmetry.is_none() && !matches!(self.daemon, Daemon::Schedule(_)) => {
                    own_space = ex.inst.space();
                    (&own_space, None, Some(ex))
                }
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        if threads < 2 || (self.fast.is_none() && whole.is_none()) || ex.count < THREADS_FROM {
            return Ok(None);
        }
        let n = ex.count as usize;
        let mut steps = vec![UNSEEN; n];
        for c in ex.legit_configs() {
            steps[c as usize] = 0;
        }
        let mut moves = track_moves.then(|| vec![0; n]);
        let shared = Shared {
            steps: as_atomic(&mut steps),
            moves: moves.as_deref_mut().map(as_atomic),
            legit: &ex.legit,
            threads: Threads::new(threads),
            roots: Roots::new(ex.count, threads),
            finished: AtomicU64::new(0),
        };
        let reads = Reads {
            inst: ex.inst,
            space,
            local: ex.local.as_ref(),
            kept,
            daemon: self.daemon,
            every_move: ex.every_move(),
        };
        let what = format!("{}: convergence", self.daemon.name());
        let total = u64::from(ex.count) - ex.legit_count;
        let outcome = std::thread::scope(|s| {
            let others: Vec<_> = (1..threads)
                .map(|t| {
                    let shared = &shared;
                    s.spawn(move || one_thread((shared, t), (reads, whole), weighted, None))
                })
                .collect();
            let progress = ex.progress.map(|p| (p, what.as_str(), total));
            let mut outcome = one_thread((&shared, 0), (reads, whole), weighted, progress);
            for other in others {
                let theirs = other
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e));
                outcome = match (outcome, theirs) {
                    (Ok(a), Ok(b)) => Ok(a + b),
                    (Err(Stop::Refused(r)), _) | (_, Err(Stop::Refused(r))) => {
                        Err(Stop::Refused(r))
                    }
                    _ => Err(Stop::GiveUp),
                };
            }
            outcome
        });
        match outcome {
            Ok(transitions) => Ok(Some((
                Counts::U8(steps),
                moves.map(Counts::U8),
                transitions,
            ))),
            Err(Stop::GiveUp) => Ok(None),
            Err(Stop::Refused(r)) => Err(r),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::{test_instance, Explorer};
    use super::*;

    fn all(c: &Counts, n: u32) -> Vec<u32> {
        (0..n).map(|i| c.get(i)).collect()
    }

    /// On 2 and 3 threads, the counts of every configuration and the
    /// steps taken are one search's; where one search meets a cycle, the
    /// threads give up.
    #[test]
    fn the_threads_count_what_one_search_counts() {
        let src = include_str!("../../../programs/dijkstra_kstate.gc");
        let daemons = [
            Daemon::Central,
            Daemon::LocallyCentral,
            Daemon::Distributed,
            Daemon::Synchronous,
        ];
        let mut shared_runs = 0;
        for (ring, k) in [("ring:6", 7), ("ring:8", 4)] {
            let inst = test_instance(src, ring, &[("K", k)]);
            let ex = Explorer::new(&inst).expect("explorable");
            assert!(
                ex.count >= THREADS_FROM,
                "enough configurations for the threads"
            );
            for daemon in &daemons {
                let track = matches!(daemon, Daemon::LocallyCentral | Daemon::Distributed);
                for weighted in [false, true] {
                    let mut s = Search::new(&ex, daemon, crate::verify::Fairness::Unfair);
                    s.threads = 1;
                    let one = s.longest(weighted, track).expect("no refusal");
                    let one_steps = s.transitions();
                    for threads in [2, 3] {
                        let mut s = Search::new(&ex, daemon, crate::verify::Fairness::Unfair);
                        s.threads = threads;
                        let found = s.longest_on_threads(weighted, track).expect("no refusal");
                        let clean = one.cycle.is_none() && one.deadlock.is_none();
                        let what = format!("K={k} {} on {threads} threads", daemon.name());
                        // Where one search meets a cycle the threads give
                        // up; elsewhere they may too, on a busy machine.
                        assert!(clean || found.is_none(), "{what}");
                        let Some((steps, moves, transitions)) = found else {
                            continue;
                        };
                        shared_runs += 1;
                        assert_eq!(all(&steps, ex.count), all(&one.steps, ex.count), "{what}");
                        let both = moves.as_ref().zip(one.moves.as_ref());
                        assert_eq!(moves.is_some(), one.moves.is_some(), "{what}");
                        if let Some((mine, theirs)) = both {
                            assert_eq!(all(mine, ex.count), all(theirs, ex.count), "{what}");
                        }
                        assert_eq!(transitions, one_steps, "{what}");
                    }
                }
            }
        }
        assert!(
            shared_runs >= 8,
            "the threads converged in {shared_runs} runs"
        );
    }

    /// With channels, from a start (configurations kept whole, each
    /// thread listing steps through a search of its own): on 2 and 3
    /// threads, Chang and Roberts' ring of 8 counts what one search
    /// counts; where a step faults (the runs through it do not count) or
    /// a cycle is met, the threads give up and leave it to the one search.
    #[test]
    fn the_threads_count_what_one_search_counts_with_channels() {
        use crate::runtime::init::InitMode;
        let src = include_str!("../../../tests/golden/programs/chang_roberts.gc");
        let done = "done :: receive elected(u) from q and u == id -> skip";
        assert!(src.contains(done));
        // A step that faults (a process learning), after which no run
        // counts.
        let learn = "learn :: receive elected(u) from q and u != id -> leader := u;";
        assert!(src.contains(learn));
        let faulting = src.replace(
            learn,
            "learn :: receive elected(u) from q and u != id -> leader := u / (id - 3);",
        );
        let cycling = src.replace(
            done,
            "done :: receive elected(u) from q and u == id -> send elected(u) to right",
        );
        let mut shared_runs = 0;
        for (program, clean) in [(src, true), (&faulting[..], false), (&cycling[..], false)] {
            let mut inst = test_instance(program, "ring:12", &[]);
            let start = inst.initial(&InitMode::Declared, &[]).expect("a start");
            let ex = Explorer::reachable(&inst, start, &Daemon::Central, None).expect("reached");
            assert!(
                ex.count >= THREADS_FROM,
                "enough configurations for the threads"
            );
            let mut s = Search::new(&ex, &Daemon::Central, crate::verify::Fairness::Unfair);
            s.threads = 1;
            let one = s.longest(false, false).expect("no refusal");
            let one_steps = s.transitions();
            assert_eq!(
                clean,
                one.cycle.is_none() && s.fault.is_none(),
                "the variants fault or cycle"
            );
            for threads in [2, 3] {
                let mut s = Search::new(&ex, &Daemon::Central, crate::verify::Fairness::Unfair);
                s.threads = threads;
                let found = s.longest_on_threads(false, false).expect("no refusal");
                assert!(clean || found.is_none(), "{threads} threads");
                let Some((steps, _, transitions)) = found else {
                    continue;
                };
                shared_runs += 1;
                assert_eq!(all(&steps, ex.count), all(&one.steps, ex.count));
                assert_eq!(transitions, one_steps);
            }
        }
        assert!(
            shared_runs >= 1,
            "the threads converged in {shared_runs} runs"
        );
    }
}
