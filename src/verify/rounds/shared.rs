//! The rounds search on every thread at once, over every configuration of
//! the state space, as [`super::super::search`]'s threads do for steps:
//! what is still to count is shared, each state claimed by the first
//! thread to step to it, and a thread that steps to a state on another's
//! stack waits for it. Per configuration a record of 16 bytes holds its
//! enabled processes and its fresh round's count, and up to seven states
//! in the middle of a round (pending processes and count): a step reads
//! one line from all over memory, not two. The rest go to an
//! open-addressing table of words (key and count). For up to 8 processes
//! and counts that fit a byte; anything else, and anything but a clean
//! convergence, is left to the one search.

use super::super::evaluate::EnabledSets;
use super::super::search::Search;
use super::super::states::States;
use super::super::successors::{Succ, Successors, ANY_CHANGED};
use super::super::walk::{Roots, Seen, Stop, Threads, NO_RUN, OPEN, THREADS_FROM, UNSEEN};
use super::super::{Explorer, Progress, Refusal, Run, MAX_ROUND_BYTES};
use super::{finish_worst, most_of, Key, Memo, Walker};
use crate::runtime::cache::prefetch;
use crate::runtime::daemon::Daemon;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering};

/// The most of its slots the table fills before the threads give up (it
/// cannot grow while they search).
const MOST_LOAD: f64 = 0.75;

/// The states in the middle of a round kept with their configuration.
const SLOTS: usize = 7;

/// The fresh round's count of a legitimate configuration, which has none:
/// so a step reads whether it reaches legitimacy in the line it reads
/// anyway. Below the bytes [`walk`](super::super::walk) reserves.
const LEGIT: u8 = NO_RUN - 1;

/// A configuration's words, a quarter of a cache line: first its enabled
/// processes with its fresh round's count above them ([`LEGIT`] when it
/// is legitimate), then [`SLOTS`] states in the middle of a round, each
/// its pending processes with the count above them (0: a free slot).
#[repr(align(16))]
struct Record([AtomicU16; 1 + SLOTS]);

impl Record {
    fn new(enabled: u8, legit: bool) -> Self {
        let count = if legit { LEGIT } else { UNSEEN };
        let mut words = [const { AtomicU16::new(0) }; 1 + SLOTS];
        words[0] = AtomicU16::new(u16::from(enabled) | u16::from(count) << 8);
        Record(words)
    }

    /// The enabled processes and the fresh round's count.
    fn hot(&self) -> &AtomicU16 {
        &self.0[0]
    }

    fn is_legit(&self) -> bool {
        (self.hot().load(Ordering::Relaxed) >> 8) as u8 == LEGIT
    }
}

/// What the threads share.
struct Shared {
    /// Per configuration, its record.
    records: Vec<Record>,
    /// The slots of a record in use ([`SLOTS`], fewer in tests).
    per_config: usize,
    table: Overflow,
    threads: Threads,
    starts: Roots,
    /// States done by every thread, for the progress told.
    finished: AtomicU64,
}

/// Where a state's count is kept, and the word there when read.
enum Place<'s> {
    /// A fresh round's: in its configuration's word, above the enabled
    /// processes.
    Fresh(&'s AtomicU16, u16),
    /// In a slot (keeping the state, or free: 0), above the pending
    /// processes.
    Slot(&'s AtomicU16, u16),
    Table(u64),
}

impl Shared {
    /// Where `k` (outside legitimacy) is kept: a slot keeping it or the
    /// first free one, else the table.
    fn place(&self, k: Key) -> Place<'_> {
        let record = &self.records[k.config as usize];
        if k.fresh {
            let word = record.hot();
            return Place::Fresh(word, word.load(Ordering::Acquire));
        }
        for slot in &record.0[1..=self.per_config] {
            let word = slot.load(Ordering::Acquire);
            if word == 0 || u64::from(word as u8) == k.pending {
                return Place::Slot(slot, word);
            }
        }
        Place::Table(u64::from(k.config) << 8 | k.pending)
    }

    /// The count kept for `k`, [`UNSEEN`] when none is.
    fn byte(&self, k: Key) -> u8 {
        match self.place(k) {
            Place::Fresh(_, word) => (word >> 8) as u8,
            Place::Slot(_, 0) => UNSEEN,
            Place::Slot(_, word) => (word >> 8) as u8,
            Place::Table(key) => self.table.get(key),
        }
    }

    /// What is known of `k`, claiming it when unseen.
    fn claim(&self, k: Key) -> Result<Seen<u32>, Stop> {
        let claimed = k.pending as u16 | u16::from(OPEN) << 8;
        let byte = match self.place(k) {
            // Most states are seen before: a claim (a locked instruction)
            // only for those that look unseen.
            Place::Fresh(w, word) => {
                let unseen = k.pending as u16 | u16::from(UNSEEN) << 8;
                if word != unseen {
                    (word >> 8) as u8
                } else {
                    match w.compare_exchange(unseen, claimed, Ordering::Acquire, Ordering::Acquire)
                    {
                        Ok(_) => return Ok(Seen::Claimed),
                        Err(now) => (now >> 8) as u8,
                    }
                }
            }
            Place::Slot(_, word) if word != 0 => (word >> 8) as u8,
            Place::Slot(w, _) => {
                match w.compare_exchange(0, claimed, Ordering::Acquire, Ordering::Acquire) {
                    Ok(_) => return Ok(Seen::Claimed),
                    Err(now) if u64::from(now as u8) == k.pending => (now >> 8) as u8,
                    // Another took the free slot for another state: the
                    // next one, then.
                    Err(_) => return self.claim(k),
                }
            }
            Place::Table(key) => match self.table.claim(key)? {
                None => return Ok(Seen::Claimed),
                Some(byte) => byte,
            },
        };
        let byte = if byte == OPEN {
            self.threads.wait_for(OPEN, || self.byte(k))?
        } else {
            byte
        };
        Ok(match byte {
            NO_RUN => Seen::NoRun,
            v => Seen::Done(u32::from(v)),
        })
    }

    /// Keeps `value` for `k`, claimed by this thread.
    fn finish(&self, k: Key, value: Option<u32>) -> Result<(), Stop> {
        let Some(v) = value
            .and_then(|v| u8::try_from(v).ok())
            .filter(|&v| v < LEGIT)
        else {
            return Err(Stop::GiveUp);
        };
        match self.place(k) {
            // Released: whoever reads the count reads it whole.
            Place::Fresh(w, _) | Place::Slot(w, _) => {
                w.store(k.pending as u16 | u16::from(v) << 8, Ordering::Release);
            }
            Place::Table(key) => self.table.finish(key, v),
        }
        Ok(())
    }
}

/// The states past the slots: an open-addressing table of words, each a
/// key (configuration and pending processes) above a count, 0 when free.
/// It is sized once, a word per configuration; filled past [`MOST_LOAD`],
/// the threads give up.
struct Overflow {
    slots: Vec<AtomicU64>,
    /// The number of slots, less one (a power of two, less one).
    mask: u64,
    used: AtomicUsize,
    most: usize,
}

impl Overflow {
    fn new(count: u32) -> Self {
        let len = u64::from(count).next_power_of_two().max(64);
        Overflow {
            slots: (0..len).map(|_| AtomicU64::new(0)).collect(),
            mask: len - 1,
            used: AtomicUsize::new(0),
            most: (len as f64 * MOST_LOAD) as usize,
        }
    }

    /// The slots from `key`'s on, round the table.
    fn probe(&self, key: u64) -> impl Iterator<Item = &AtomicU64> {
        let start = key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32;
        (0..=self.mask).map(move |k| &self.slots[((start + k) & self.mask) as usize])
    }

    /// The count kept for `key`, [`UNSEEN`] when none is.
    fn get(&self, key: u64) -> u8 {
        for slot in self.probe(key) {
            match slot.load(Ordering::Acquire) {
                0 => return UNSEEN,
                word if word >> 8 == key => return word as u8,
                _ => {}
            }
        }
        UNSEEN
    }

    /// The count kept for `key`, or `None` when this thread claimed it.
    fn claim(&self, key: u64) -> Result<Option<u8>, Stop> {
        for slot in self.probe(key) {
            let mut word = slot.load(Ordering::Acquire);
            if word == 0 {
                if self.used.fetch_add(1, Ordering::Relaxed) >= self.most {
                    return Err(Stop::GiveUp);
                }
                let claimed = key << 8 | u64::from(OPEN);
                match slot.compare_exchange(0, claimed, Ordering::Acquire, Ordering::Acquire) {
                    Ok(_) => return Ok(None),
                    Err(now) => word = now,
                }
            }
            if word >> 8 == key {
                return Ok(Some(word as u8));
            }
        }
        Err(Stop::GiveUp)
    }

    /// Keeps `count` for `key`, claimed by this thread.
    fn finish(&self, key: u64, count: u8) {
        if let Some(slot) = self
            .probe(key)
            .find(|s| s.load(Ordering::Relaxed) >> 8 == key)
        {
            slot.store(key << 8 | u64::from(count), Ordering::Release);
        }
    }
}

/// One thread's memo: the shared counts, its own successors engine.
struct OneThread<'s, 'e> {
    shared: &'s Shared,
    engine: Successors<'e>,
    daemon: &'e Daemon,
    /// On the calling thread: where progress is told, and what of.
    progress: Option<(Progress<'e>, &'e str)>,
}

impl Memo for OneThread<'_, '_> {
    fn is_legit(&self, c: u32) -> bool {
        self.shared.records[c as usize].is_legit()
    }

    fn enabled(&self, c: u32) -> u64 {
        u64::from(
            self.shared.records[c as usize]
                .hot()
                .load(Ordering::Relaxed) as u8,
        )
    }

    fn prefetch_enabled(&self, c: u32) {
        prefetch(&self.shared.records[c as usize]);
    }

    /// The slots came into the cache with the enabled processes.
    fn prefetch_mid(&self, _: u32) {}

    fn fresh_value(&self, c: u32) -> Option<u32> {
        let word = self.shared.records[c as usize]
            .hot()
            .load(Ordering::Acquire);
        match (word >> 8) as u8 {
            UNSEEN | OPEN => None,
            NO_RUN => Some(super::NO_RUN),
            v => Some(u32::from(v)),
        }
    }

    fn value(&self, k: Key) -> Option<u32> {
        match self.shared.byte(k) {
            UNSEEN | OPEN => None,
            NO_RUN => Some(super::NO_RUN),
            v => Some(u32::from(v)),
        }
    }

    fn claim(&mut self, k: Key) -> Result<Seen<u32>, Stop> {
        self.shared.claim(k)
    }

    fn finish(&mut self, k: Key, value: Option<u32>) -> Result<(), Stop> {
        self.shared.finish(k, value)
    }

    fn successors(
        &mut self,
        c: u32,
        from: Option<(u32, u64)>,
        out: &mut Vec<Succ>,
    ) -> Result<(), Stop> {
        let engine = (&mut self.engine, self.daemon);
        self.shared.threads.steps(engine, (c, from), out)?;
        Ok(())
    }

    fn progress(&mut self, _: u64) -> Result<(), Stop> {
        let every = super::super::PROGRESS_EVERY;
        let done = self.shared.finished.fetch_add(every, Ordering::Relaxed) + every;
        if let Some((progress, what)) = self.progress {
            super::super::tell(Some(progress), what, done, 0)?;
        }
        Ok(())
    }
}

/// One thread's share of the starts: searches from each it takes until
/// none is left.
fn one_thread(m: &mut OneThread, thread: usize) -> Result<(), Stop> {
    let shared = m.shared;
    let mut walker = Walker::new();
    let mut last_start = None;
    let mut walk_starts = || {
        while let Some(starts) = shared.starts.take(thread) {
            for c in starts.filter(|&c| !shared.records[c as usize].is_legit()) {
                let start = m.key(c, m.enabled(c), false);
                let from = last_start.map(|l| (l, ANY_CHANGED));
                if walker.walk(m, start, from)? {
                    last_start = Some(c);
                }
            }
        }
        Ok(())
    };
    let outcome = walk_starts();
    shared.threads.done(&outcome);
    outcome
}

/// The most rounds, with a run, searched on every thread; `None` where one
/// search is needed (see the module).
pub(super) fn worst_rounds_on_threads(
    s: &Search,
    ex: &Explorer,
    worst_steps: u64,
) -> Result<Option<(u64, Run)>, Refusal> {
    worst_rounds_on_threads_within(s, ex, worst_steps, SLOTS)
}

/// [`worst_rounds_on_threads`] with `slots` slots per configuration.
fn worst_rounds_on_threads_within(
    s: &Search,
    ex: &Explorer,
    worst_steps: u64,
    slots: usize,
) -> Result<Option<(u64, Run)>, Refusal> {
    let threads = s.threads();
    let States::All(space) = &ex.states else {
        return Ok(None);
    };
    let n = ex.inst.topo.n();
    // A record per configuration, and a table of a word per configuration.
    let per_config = (size_of::<Record>() + 8) as u64 * u64::from(ex.count);
    if threads < 2
        || n > 8
        || slots > SLOTS
        || worst_steps >= u64::from(LEGIT)
        || ex.count < THREADS_FROM
        || per_config > MAX_ROUND_BYTES / 2
    {
        return Ok(None);
    }
    let enabled: std::borrow::Cow<EnabledSets> = ex.enabled_sets()?;
    let records = (0..ex.count)
        .map(|c| Record::new(enabled.get(c) as u8, ex.legit.get(c as usize)))
        .collect();
    drop(enabled);
    let shared = Shared {
        records,
        per_config: slots,
        table: Overflow::new(ex.count),
        threads: Threads::new(threads),
        starts: Roots::new(ex.count, threads),
        finished: AtomicU64::new(0),
    };
    let what = format!(
        "{}: rounds, states (a configuration and its round's processes still to move)",
        s.daemon_name()
    );
    let (daemon, inst, local) = (s.daemon(), ex.inst, ex.local.as_ref());
    let every_move = ex.every_move();
    let memo = |progress| {
        Successors::new(inst, space, local, every_move).map(|engine| OneThread {
            shared: &shared,
            engine,
            daemon,
            progress,
        })
    };
    let Some(mut mine) = memo(ex.progress.map(|p| (p, what.as_str()))) else {
        return Ok(None);
    };
    let outcome = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map(|t| {
                let memo = &memo;
                scope.spawn(move || match memo(None) {
                    Some(mut m) => one_thread(&mut m, t),
                    None => Err(Stop::GiveUp),
                })
            })
            .collect();
        let mut outcome = one_thread(&mut mine, 0);
        for other in others {
            let theirs = other
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            outcome = match (outcome, theirs) {
                (Ok(()), Ok(())) => Ok(()),
                (Err(Stop::Refused(r)), _) | (_, Err(Stop::Refused(r))) => Err(Stop::Refused(r)),
                _ => Err(Stop::GiveUp),
            };
        }
        outcome
    });
    match outcome {
        Ok(()) => {}
        Err(Stop::GiveUp) => return Ok(None),
        Err(Stop::Refused(r)) => return Err(r),
    }
    let worst = most_of(&mine, 0..ex.count);
    finish_worst(&mut mine, ex, worst)
}

#[cfg(test)]
mod tests {
    use super::super::super::test_instance;
    use super::super::worst_rounds_within;
    use super::*;

    /// On 2 and 3 threads, with states in the middle of a round in slots
    /// or all in the table, the threads find one search's worst case in
    /// rounds and the same run.
    #[test]
    fn the_threads_find_one_searchs_rounds() {
        let src = include_str!("../../../programs/dijkstra_kstate.gc");
        let inst = test_instance(src, "ring:6", &[("K", 7)]);
        let ex = Explorer::new(&inst).expect("explorable");
        assert!(
            ex.count >= THREADS_FROM,
            "enough configurations for the threads"
        );
        let mut found = 0;
        for daemon in [Daemon::Central, Daemon::LocallyCentral, Daemon::Distributed] {
            let verdict = ex.verify(&daemon).expect("no refusal").convergence;
            let crate::verify::Convergence::Holds { steps, .. } = verdict else {
                panic!("Dijkstra's ring of 6 with K = 7 converges");
            };
            let worst = steps.steps.len() as u64;
            let mut one =
                Search::new(&ex, &daemon, crate::verify::Fairness::Unfair).with_threads(1);
            let (most, run) =
                worst_rounds_within(&mut one, &ex, worst, (super::SLOTS, MAX_ROUND_BYTES))
                    .expect("no refusal")
                    .expect("rounds are counted");
            let every_start = super::super::tests::EVERY_START.take();
            for (threads, slots) in [(2, SLOTS), (3, SLOTS), (2, 0), (3, 1)] {
                let s = Search::new(&ex, &daemon, crate::verify::Fairness::Unfair)
                    .with_threads(threads);
                let what = format!("{} on {threads} threads, {slots} slots", daemon.name());
                let got =
                    worst_rounds_on_threads_within(&s, &ex, worst, slots).expect("no refusal");
                // The threads may give up on a busy machine, never differ.
                if let Some((got, got_run)) = got {
                    found += 1;
                    assert_eq!((got, &got_run.steps), (most, &run.steps), "{what}");
                    assert_eq!(got_run.start, run.start, "{what}");
                    let theirs = super::super::tests::EVERY_START.take();
                    assert!(theirs == every_start, "{what}: the count from each start");
                }
            }
        }
        assert!(
            found >= 6,
            "the threads found the rounds {found} times of 12"
        );
    }
}
