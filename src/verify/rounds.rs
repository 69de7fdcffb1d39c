//! The worst case in rounds. A round ends at the first step by which every
//! process enabled at its start has moved or been neutralized (a started
//! round counts as one), so how many rounds a run takes depends on more
//! than its configurations: the search runs depth first over
//! (configuration, the round's processes still pending), from every
//! configuration outside legitimacy with a fresh round, as `guarded run`
//! starts one. What is still to count from a fresh round (every enabled
//! process pending) and from the first few states in the middle of a
//! round at a configuration is kept with the configuration, beside its
//! enabled processes ([`per_config`]); from the others, in a table of keys
//! and values packed together ([`table`]). Both are read from all over
//! memory, so each step's are prefetched. Over every configuration of up
//! to 8 processes the search runs on every thread instead ([`shared`]),
//! the same walk over a memo the threads share.

mod per_config;
mod shared;
mod table;

use super::counts::{NO_RUN, UNSEEN};
use super::search::Search;
use super::successors::{Succ, ANY_CHANGED};
use super::walk::{Seen, Stop};
use super::{Explorer, Refusal, Run, MAX_ROUND_BYTES};
use per_config::{Mid, PerConfig, SLOTS};
use table::Table;

/// A state of the search: a configuration, the round's processes still
/// pending (as bits), whether a step of the round has been taken, and
/// whether the pending processes are all those enabled. Outside
/// legitimacy what is still to count depends on the configuration and the
/// pending processes only (the same steps follow, whether the round has
/// started or not); with every enabled process pending, it is the
/// configuration's fresh round, kept per configuration.
#[derive(Clone, Copy)]
struct Key {
    config: u32,
    pending: u64,
    started: bool,
    fresh: bool,
}

/// Where the rounds search reads each configuration's enabled processes
/// and its steps, and keeps what is still to count from each state: one
/// search's ([`Rounds`]) or the threads' ([`shared`]).
trait Memo {
    fn is_legit(&self, c: u32) -> bool;
    /// Configuration `c`'s enabled processes.
    fn enabled(&self, c: u32) -> u64;
    /// Starts loading configuration `c`'s enabled processes into the cache.
    fn prefetch_enabled(&self, c: u32);
    /// Starts loading where the states of configuration `c` in the middle
    /// of a round are kept into the cache.
    fn prefetch_mid(&self, c: u32);
    /// What is still to count from `k` (outside legitimacy), when known.
    fn value(&self, k: Key) -> Option<u32>;
    /// What is still to count from configuration `c`'s fresh round
    /// (outside legitimacy), when known ([`NO_RUN`] included).
    fn fresh_value(&self, c: u32) -> Option<u32>;
    /// What is known of `k` (outside legitimacy), claiming it when unseen.
    fn claim(&mut self, k: Key) -> Result<Seen<u32>, Stop>;
    /// Keeps what is still to count from `k` (`None`: no run counts).
    fn finish(&mut self, k: Key, value: Option<u32>) -> Result<(), Stop>;
    /// The steps from configuration `c`, reached from `from` (see
    /// [`Search::successors_from`]), into `out`.
    fn successors(
        &mut self,
        c: u32,
        from: Option<(u32, u64)>,
        out: &mut Vec<Succ>,
    ) -> Result<(), Stop>;
    /// Another [`super::PROGRESS_EVERY`] states are done.
    fn progress(&mut self, finished: u64) -> Result<(), Stop>;
    /// By orbits: the processes `bits` as seen from where step `k` of the
    /// last [`Memo::successors`] leads once taken to the configuration
    /// standing for its orbit.
    fn moved(&self, _k: usize, bits: u64) -> u64 {
        bits
    }

    /// The state of configuration `c` with `pending` processes of its
    /// round, and where what is still to count from it is kept starts
    /// loading into the cache.
    fn key(&self, c: u32, pending: u64, started: bool) -> Key {
        let k = Key {
            config: c,
            pending,
            started,
            fresh: pending == self.enabled(c),
        };
        // A fresh round's value came with the enabled processes; most
        // others are kept with their configuration, apart.
        if !k.fresh {
            self.prefetch_mid(c);
        }
        k
    }

    /// What is still to count from `k`, when known: at legitimacy the
    /// started round.
    fn known(&self, k: Key) -> Option<u32> {
        if self.is_legit(k.config) {
            Some(u32::from(k.started))
        } else {
            self.value(k)
        }
    }

    /// The steps from `key` (reached from `from`) onto `steps`, each with
    /// whether it ends the round: each mover leaves the round, so does
    /// every pending process the step disables; when none is left, the
    /// round ends and the next starts with the processes then enabled. A
    /// step to legitimacy counts the started round, whichever it is.
    fn steps(
        &mut self,
        key: Key,
        from: Option<(u32, u64)>,
        (out, steps): (&mut Vec<Succ>, &mut Vec<Step>),
    ) -> Result<(), Stop> {
        self.successors(key.config, from, out)?;
        // Each successor's enabled processes, then what is kept for its
        // state, are read from all over memory: asked for a few steps
        // ahead of their use.
        for e in out.iter().take(AHEAD) {
            self.prefetch_enabled(e.to);
        }
        for k in 0..out.len() {
            if let Some(ahead) = out.get(k + AHEAD) {
                self.prefetch_enabled(ahead.to);
            }
            let e = out[k];
            if self.is_legit(e.to) {
                let at = Key {
                    config: e.to,
                    pending: 0,
                    started: true,
                    fresh: false,
                };
                steps.push((at, 0, e.movers));
                continue;
            }
            let enabled = self.enabled(e.to);
            let left = self.moved(k, key.pending & !e.movers) & enabled;
            steps.push(if left == 0 {
                (self.key(e.to, enabled, false), 1, e.movers)
            } else {
                (self.key(e.to, left, true), 0, e.movers)
            });
        }
        Ok(())
    }
}

/// One search's memo: each configuration's enabled processes, and what is
/// still to count from each state finished (fresh rounds per
/// configuration, the others in a table).
struct Rounds<'x, 's, 'e, 'a> {
    search: &'s mut Search<'e, 'a>,
    ex: &'x Explorer<'x>,
    /// Bits for the pending processes (the number of processes).
    n: u32,
    per_config: PerConfig,
    table: Table,
    /// Where the table's values say [`NO_RUN`].
    no_run: u32,
    what: String,
}

/// How many steps ahead a successor's enabled processes are prefetched:
/// about as many reads as a core keeps in flight.
const AHEAD: usize = 16;

/// A step of the search: to which state, whether it ends the round, who
/// moves (as bits).
type Step = (Key, u32, u64);

/// A state on the search's stack.
struct Frame {
    key: Key,
    /// Its steps: from here on the stack of steps, up to the next frame's.
    steps_from: usize,
    next: usize,
    /// Whether the step into this state ended a round.
    ends_round: u32,
    best: u32,
    /// Whether a step from here leads to legitimacy without a runtime
    /// error (else no run from here counts: [`NO_RUN`]).
    reached: bool,
}

impl Rounds<'_, '_, '_, '_> {
    /// Keeps what is still to count from `k`; false when the table is full.
    fn keep(&mut self, k: Key, value: u32) -> Result<bool, Refusal> {
        // The most steps bound the rounds, and so the values' width.
        if value != NO_RUN && value >= self.no_run {
            return Err(Refusal::Unsupported(
                "a run takes more rounds than steps (an inconsistency in the explorer)".into(),
            ));
        }
        if k.fresh {
            self.per_config.set_fresh(k.config, value);
            Ok(true)
        } else if self.per_config.set_mid(k.config, k.pending, value) {
            Ok(true)
        } else {
            let v = if value == NO_RUN { self.no_run } else { value };
            Ok(self.table.insert(self.pack(k), v))
        }
    }

    fn pack(&self, k: Key) -> u64 {
        u64::from(k.config) << self.n | k.pending
    }
}

impl Memo for Rounds<'_, '_, '_, '_> {
    fn is_legit(&self, c: u32) -> bool {
        self.ex.is_legit(c)
    }

    fn enabled(&self, c: u32) -> u64 {
        self.per_config.enabled(c)
    }

    fn prefetch_enabled(&self, c: u32) {
        self.per_config.prefetch(c);
    }

    fn prefetch_mid(&self, c: u32) {
        self.per_config.prefetch_slots(c);
    }

    fn fresh_value(&self, c: u32) -> Option<u32> {
        Some(self.per_config.fresh(c)).filter(|&v| v != UNSEEN)
    }

    fn value(&self, k: Key) -> Option<u32> {
        if k.fresh {
            self.fresh_value(k.config)
        } else {
            match self.per_config.mid(k.config, k.pending) {
                Mid::Kept(v) => Some(v),
                Mid::Free => None,
                Mid::Elsewhere => {
                    let v = self.table.get(self.pack(k))?;
                    Some(if v == self.no_run { NO_RUN } else { v })
                }
            }
        }
    }

    /// Unseen states are not marked: the search runs only where no cycle
    /// leads back to one on its stack.
    fn claim(&mut self, k: Key) -> Result<Seen<u32>, Stop> {
        Ok(match self.value(k) {
            None => Seen::Claimed,
            Some(NO_RUN) => Seen::NoRun,
            Some(v) => Seen::Done(v),
        })
    }

    fn finish(&mut self, k: Key, value: Option<u32>) -> Result<(), Stop> {
        match self.keep(k, value.unwrap_or(NO_RUN))? {
            true => Ok(()),
            // The table is full: rounds are not counted.
            false => Err(Stop::GiveUp),
        }
    }

    fn successors(
        &mut self,
        c: u32,
        from: Option<(u32, u64)>,
        out: &mut Vec<Succ>,
    ) -> Result<(), Stop> {
        self.search.successors_from(c, from, out)?;
        Ok(())
    }

    fn progress(&mut self, finished: u64) -> Result<(), Stop> {
        self.ex.tell(&self.what, finished, 0)?;
        Ok(())
    }

    fn moved(&self, k: usize, bits: u64) -> u64 {
        match &self.ex.symmetry {
            Some(sym) => sym.map_bits(self.search.symmetries[k], bits),
            None => bits,
        }
    }
}

/// Whether a state in the middle of a round, at a configuration whose
/// fresh round's count is `fresh` (when known), cannot raise the best
/// count of `top`, its predecessor, so that it need not be searched. The
/// runs from a configuration are the same whatever is pending; along one,
/// a round with fewer pending processes ends no later, and so does each
/// round after it. So from a state in the middle of a round no fewer
/// rounds are counted than from the fresh round, and at most one more
/// (once its first round ends, a fresh round starts no earlier than the
/// fresh run's round then in progress). Where no run from the fresh round
/// counts, none does. (The naive explorer of `tests/verify.rs` checks both
/// bounds on every state.)
fn cannot_raise(fresh: Option<u32>, top: &Frame) -> bool {
    match fresh {
        Some(NO_RUN) => true,
        Some(f) => top.reached && f < top.best,
        None => false,
    }
}

/// The rounds search's stacks, reused from start to start.
struct Walker {
    stack: Vec<Frame>,
    steps: Vec<Step>,
    out: Vec<Succ>,
    finished: u64,
}

impl Walker {
    fn new() -> Self {
        Walker {
            stack: Vec::new(),
            steps: Vec::new(),
            out: Vec::new(),
            finished: 0,
        }
    }

    /// Searches from `start` (read from `from`) every state it reaches
    /// that is still unseen; false when `start` itself was seen.
    fn walk(
        &mut self,
        m: &mut impl Memo,
        start: Key,
        from: Option<(u32, u64)>,
    ) -> Result<bool, Stop> {
        if !matches!(m.claim(start)?, Seen::Claimed) {
            return Ok(false);
        }
        self.open(m, (start, from, 0))?;
        while let Some(top) = self.stack.last_mut() {
            let Some(&(k, w, movers)) = self.steps.get(top.steps_from + top.next) else {
                self.close(m)?;
                continue;
            };
            top.next += 1;
            let from = Some((top.key.config, movers));
            let seen = if m.is_legit(k.config) {
                Seen::Done(u32::from(k.started))
            } else if !k.fresh && cannot_raise(m.fresh_value(k.config), top) {
                // Left unseen: another state may need it searched.
                continue;
            } else {
                m.claim(k)?
            };
            match seen {
                Seen::Claimed => self.open(m, (k, from, w))?,
                Seen::Done(v) => {
                    let top = self.stack.last_mut().expect("a state is open");
                    top.best = top.best.max(w + v);
                    top.reached = true;
                }
                Seen::NoRun => {}
                // A claim waits for a state on another's stack.
                Seen::Open => {
                    return Err(Stop::Refused(Refusal::Unsupported(
                        "a state was found open (an inconsistency in the explorer)".into(),
                    )))
                }
            }
        }
        Ok(true)
    }

    /// Puts a state (reached from a configuration by movers, and whether
    /// that step ended a round) on the stack, its steps on the stack of
    /// steps.
    fn open(
        &mut self,
        m: &mut impl Memo,
        (key, from, ends_round): (Key, Option<(u32, u64)>, u32),
    ) -> Result<(), Stop> {
        let steps_from = self.steps.len();
        m.steps(key, from, (&mut self.out, &mut self.steps))?;
        self.stack.push(Frame {
            key,
            steps_from,
            next: 0,
            ends_round,
            best: 0,
            reached: false,
        });
        Ok(())
    }

    /// Takes the top state off, its steps all followed.
    fn close(&mut self, m: &mut impl Memo) -> Result<(), Stop> {
        let done = self.stack.pop().expect("a state is open");
        self.steps.truncate(done.steps_from);
        // Where every step faults, no run counts (the search runs only
        // where no configuration outside legitimacy is terminal).
        m.finish(done.key, done.reached.then_some(done.best))?;
        self.finished += 1;
        if self.finished.is_multiple_of(super::PROGRESS_EVERY) {
            m.progress(self.finished)?;
        }
        match self.stack.last_mut() {
            Some(below) if done.reached => {
                below.best = below.best.max(done.ends_round + done.best);
                below.reached = true;
            }
            _ => {}
        }
        Ok(())
    }
}

/// The most rounds any run takes to legitimacy, with such a run;
/// `worst_steps`, the most steps any run takes, bounds the rounds. `None`
/// when rounds are not counted: more than 64 processes, a state that does
/// not fit in a word, or what the search keeps would pass
/// [`MAX_ROUND_BYTES`]. Only for instances that converge: the search
/// assumes no cycle outside legitimacy. On every thread where it can be,
/// else as one search.
pub(super) fn worst_rounds(
    s: &mut Search,
    ex: &Explorer,
    worst_steps: u64,
) -> Result<Option<(u64, Run)>, Refusal> {
    if let Some(found) = shared::worst_rounds_on_threads(s, ex, worst_steps)? {
        return Ok(Some(found));
    }
    worst_rounds_within(s, ex, worst_steps, (SLOTS, MAX_ROUND_BYTES))
}

/// [`worst_rounds`] as one search, with at most `most_slots` states in the
/// middle of a round kept with each configuration, and at most `bytes`
/// kept in all.
fn worst_rounds_within(
    s: &mut Search,
    ex: &Explorer,
    worst_steps: u64,
    (most_slots, bytes): (usize, u64),
) -> Result<Option<(u64, Run)>, Refusal> {
    let n = ex.inst.topo.n() as u32;
    let config_bits = super::bits_for(u128::from(ex.count));
    // Values up to the most steps, and one more for NO_RUN.
    let value_bits = 64 - (worst_steps + 1).leading_zeros();
    if !ex.processes_fit_a_word() || config_bits + n + value_bits > 64 {
        return Ok(None);
    }
    // Half the memory for what is kept per configuration, the rest for
    // the table.
    let kept = (ex.count, n as usize, worst_steps);
    let Some(slots) = PerConfig::slots_within(kept, most_slots, bytes / 2) else {
        return Ok(None);
    };
    let per_config = PerConfig::new(&*ex.enabled_sets()?, ex.count, worst_steps, slots);
    let budget = usize::try_from(bytes.saturating_sub(per_config.bytes())).unwrap_or(usize::MAX);
    let what = format!(
        "{}: rounds, states (a configuration and its round's processes still to move)",
        s.daemon_name()
    );
    let mut r = Rounds {
        search: s,
        ex,
        n,
        per_config,
        table: Table::new(config_bits + n, value_bits, budget),
        no_run: (1 << value_bits) - 1,
        what,
    };
    // From starts, only their fresh rounds; else every configuration's.
    let starts = 0..ex.states.starts(ex.count);
    let mut walker = Walker::new();
    let mut last_start = None;
    for c in starts.clone().filter(|&c| !ex.is_legit(c)) {
        let start = r.key(c, r.enabled(c), false);
        // Each start is read from the one before, a few digits away.
        let from = last_start.map(|l| (l, ANY_CHANGED));
        match walker.walk(&mut r, start, from) {
            Ok(true) => last_start = Some(c),
            Ok(false) => {}
            Err(Stop::GiveUp) => return Ok(None),
            Err(Stop::Refused(e)) => return Err(e),
        }
    }
    let worst = most_of(&r, starts);
    finish_worst(&mut r, ex, worst)
}

/// The most still to count from the fresh rounds of `starts` (outside
/// legitimacy, in order), and the first start with it.
fn most_of(m: &impl Memo, starts: std::ops::Range<u32>) -> Option<(u32, u32)> {
    let values = starts
        .filter(|&c| !m.is_legit(c))
        .filter_map(|c| Some((m.value(m.key(c, m.enabled(c), false))?, c)))
        .filter(|&(v, _)| v != NO_RUN);
    #[cfg(test)]
    let values = {
        let every: Vec<(u32, u32)> = values.collect();
        tests::EVERY_START.with(|e| e.replace(every.clone()));
        every.into_iter()
    };
    values.fold(None, |best, (v, c)| match best {
        Some((b, _)) if b >= v => best,
        _ => Some((v, c)),
    })
}

/// The worst case in rounds, `worst` (the most still to count, from which
/// start), with a run from that start that takes them.
fn finish_worst(
    m: &mut impl Memo,
    ex: &Explorer,
    worst: Option<(u32, u32)>,
) -> Result<Option<(u64, Run)>, Refusal> {
    let Some((most, c)) = worst else {
        // Every configuration is legitimate: no run takes a round.
        let start = ex.states.config(0);
        return Ok(Some((
            0,
            Run {
                start,
                steps: vec![],
                delays: Vec::new(),
            },
        )));
    };
    let start = m.key(c, m.enabled(c), false);
    Ok(Some((u64::from(most), retrace(m, ex, start)?)))
}

/// A run from `start` that takes the most rounds, each step one that keeps
/// the worst case.
fn retrace(m: &mut impl Memo, ex: &Explorer, start: Key) -> Result<Run, Refusal> {
    let mut hops = Vec::new();
    let mut at = start;
    let (mut out, mut steps) = (Vec::new(), Vec::new());
    let lost = || {
        Refusal::Unsupported(
            "the worst case in rounds could not be retraced (an inconsistency in the explorer)"
                .into(),
        )
    };
    while !ex.is_legit(at.config) {
        let want = m.known(at).ok_or_else(lost)?;
        if want == NO_RUN {
            break;
        }
        steps.clear();
        match m.steps(at, None, (&mut out, &mut steps)) {
            Ok(()) => {}
            Err(Stop::Refused(e)) => return Err(e),
            Err(Stop::GiveUp) => return Err(lost()),
        }
        let next = steps
            .iter()
            .find(|&&(k, w, _)| m.known(k).is_some_and(|v| v != NO_RUN && w + v == want));
        let &(k, _, movers) = next.ok_or_else(lost)?;
        hops.push((movers, k.config));
        at = k;
    }
    Ok(Run {
        start: ex.states.config(start.config),
        steps: ex.moves_of_hops(start.config, &hops)?,
        delays: Vec::new(),
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::runtime::daemon::Daemon;
    use crate::verify::Convergence;

    thread_local! {
        /// The last search's count from every start, with the start.
        pub(in crate::verify) static EVERY_START: std::cell::RefCell<Vec<(u32, u32)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    /// The states in the middle of a round kept with their configuration
    /// or in the table give the same worst case and run; past the memory
    /// given, rounds are not counted.
    #[test]
    fn the_slots_and_the_table_keep_alike() {
        let src = include_str!("../../programs/dijkstra_kstate.gc");
        for (n, k) in [(5, 5), (6, 6)] {
            let inst = super::super::test_instance(src, &format!("ring:{n}"), &[("K", k)]);
            let ex = Explorer::new(&inst).expect("explores");
            for d in [Daemon::Central, Daemon::LocallyCentral, Daemon::Distributed] {
                let Convergence::Holds { steps, rounds, .. } = ex.verify(&d).unwrap().convergence
                else {
                    panic!("Dijkstra's ring of {n} with K = {k} converges");
                };
                let (most, run) = rounds.expect("rounds are counted");
                let worst = steps.steps.len() as u64;
                let mut s = Search::new(&ex, &d, crate::verify::Fairness::Unfair);
                for slots in 0..=SLOTS {
                    let got = worst_rounds_within(&mut s, &ex, worst, (slots, MAX_ROUND_BYTES));
                    let (got, got_run) = got.unwrap().expect("rounds are counted");
                    assert_eq!((got, &got_run.steps), (most, &run.steps), "{slots} slots");
                }
                if n == 6 {
                    let small = worst_rounds_within(&mut s, &ex, worst, (0, 200_000)).unwrap();
                    assert!(small.is_none(), "the table passes 200,000 bytes");
                }
            }
        }
    }
}
