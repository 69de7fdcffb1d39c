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
//! memory, so each step's are prefetched.

mod per_config;
mod table;

use super::counts::{NO_RUN, UNSEEN};
use super::search::Search;
use super::successors::{Bits, Succ, ANY_CHANGED};
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

/// The search's state: each configuration's enabled processes, and what
/// is still to count from each state finished (fresh rounds per
/// configuration, the others in a table).
struct Rounds<'x> {
    ex: &'x Explorer<'x>,
    /// Bits for the pending processes (the number of processes).
    n: u32,
    per_config: PerConfig,
    table: Table,
    /// Where the table's values say [`NO_RUN`].
    no_run: u32,
    out: Vec<Succ>,
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

impl Rounds<'_> {
    /// The rounds still to count from `k`, when known: at legitimacy the
    /// started round, else what was kept.
    fn value(&self, k: Key) -> Option<u32> {
        if self.ex.is_legit(k.config) {
            Some(u32::from(k.started))
        } else if k.fresh {
            Some(self.per_config.fresh(k.config)).filter(|&v| v != UNSEEN)
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

    /// The state of configuration `c` with `pending` processes of its
    /// round, and where what is still to count from it is kept starts
    /// loading into the cache.
    fn key(&self, c: u32, pending: u64, started: bool) -> Key {
        let k = Key {
            config: c,
            pending,
            started,
            fresh: pending == self.per_config.enabled(c),
        };
        // A fresh round's value came with the enabled processes; most
        // others are kept with their configuration, apart.
        if !k.fresh {
            self.per_config.prefetch_slots(c);
        }
        k
    }

    /// The steps from `key` (reached from `from`, see
    /// [`Search::successors_from`]) onto `steps`, each with whether it
    /// ends the round: each mover leaves the round, so does every pending
    /// process the step disables; when none is left, the round ends and
    /// the next starts with the processes then enabled. A step to
    /// legitimacy counts the started round, whichever it is.
    fn steps(
        &mut self,
        s: &mut Search,
        key: Key,
        from: Option<(u32, u64)>,
        steps: &mut Vec<Step>,
    ) -> Result<(), Refusal> {
        s.successors_from(key.config, from, &mut self.out)?;
        // Each successor's enabled processes, then what is kept for its
        // state, are read from all over memory: asked for a few steps
        // ahead of their use.
        for e in self.out.iter().take(AHEAD) {
            self.per_config.prefetch(e.to);
        }
        for k in 0..self.out.len() {
            if let Some(ahead) = self.out.get(k + AHEAD) {
                self.per_config.prefetch(ahead.to);
            }
            let e = self.out[k];
            if self.ex.is_legit(e.to) {
                let at = Key {
                    config: e.to,
                    pending: 0,
                    started: true,
                    fresh: false,
                };
                steps.push((at, 0, e.movers));
                continue;
            }
            let enabled = self.per_config.enabled(e.to);
            let left = key.pending & !e.movers & enabled;
            steps.push(if left == 0 {
                (self.key(e.to, enabled, false), 1, e.movers)
            } else {
                (self.key(e.to, left, true), 0, e.movers)
            });
        }
        Ok(())
    }
}

/// The most rounds any run takes to legitimacy, with such a run;
/// `worst_steps`, the most steps any run takes, bounds the rounds. `None`
/// when rounds are not counted: more than 64 processes, a state that does
/// not fit in a word, or what the search keeps would pass
/// [`MAX_ROUND_BYTES`]. Only for instances that converge: the search
/// assumes no cycle outside legitimacy.
pub(super) fn worst_rounds(
    s: &mut Search,
    ex: &Explorer,
    worst_steps: u64,
) -> Result<Option<(u64, Run)>, Refusal> {
    worst_rounds_within(s, ex, worst_steps, (SLOTS, MAX_ROUND_BYTES))
}

/// [`worst_rounds`] with at most `most_slots` states in the middle of a
/// round kept with each configuration, and at most `bytes` kept in all.
fn worst_rounds_within(
    s: &mut Search,
    ex: &Explorer,
    worst_steps: u64,
    (most_slots, bytes): (usize, u64),
) -> Result<Option<(u64, Run)>, Refusal> {
    let n = ex.inst.topo.n() as u32;
    let config_bits = 32 - ex.count.saturating_sub(1).leading_zeros();
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
    let mut r = Rounds {
        ex,
        n,
        per_config,
        table: Table::new(config_bits + n, value_bits, budget),
        no_run: (1 << value_bits) - 1,
        out: Vec::new(),
    };
    // From a start, only the start's fresh round; else every configuration's.
    let starts = if ex.states.reached_from_a_start() {
        0..1
    } else {
        0..ex.count
    };
    let what = format!("{}: rounds", s.daemon_name());
    let mut stack: Vec<Frame> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut worst: Option<(u32, Key)> = None;
    let (mut finished, mut last_start) = (0u64, None);
    for c in starts.filter(|&c| !ex.is_legit(c)) {
        let start = r.key(c, r.per_config.enabled(c), false);
        if r.value(start).is_none() {
            // Each start is read from the one before, a few digits away.
            let from = last_start.map(|l| (l, ANY_CHANGED));
            last_start = Some(c);
            open(s, &mut r, (start, from, 0), &mut stack, &mut steps)?;
        }
        while let Some(top) = stack.last_mut() {
            if let Some(&(k, w, movers)) = steps.get(top.steps_from + top.next) {
                top.next += 1;
                let from = Some((top.key.config, movers));
                match r.value(k) {
                    Some(NO_RUN) => {}
                    Some(v) => {
                        top.best = top.best.max(w + v);
                        top.reached = true;
                    }
                    None => open(s, &mut r, (k, from, w), &mut stack, &mut steps)?,
                }
                continue;
            }
            let done = stack.pop().expect("the loop saw a top");
            steps.truncate(done.steps_from);
            // Where every step faults, no run counts (the search runs
            // only where no configuration outside legitimacy is terminal).
            let counted = done.reached;
            if !r.keep(done.key, if counted { done.best } else { NO_RUN })? {
                return Ok(None);
            }
            finished += 1;
            if finished.is_multiple_of(super::PROGRESS_EVERY) {
                ex.tell(&what, finished, 0)?;
            }
            match stack.last_mut() {
                Some(below) if counted => {
                    below.best = below.best.max(done.ends_round + done.best);
                    below.reached = true;
                }
                _ => {}
            }
        }
        let v = r.value(start).expect("the start was searched");
        if v != NO_RUN && worst.is_none_or(|(w, _)| v > w) {
            worst = Some((v, start));
        }
    }
    let Some((most, start)) = worst else {
        // Every configuration is legitimate: no run takes a round.
        let start = ex.states.config(0);
        return Ok(Some((
            0,
            Run {
                start,
                steps: vec![],
            },
        )));
    };
    Ok(Some((u64::from(most), retrace(s, &mut r, start)?)))
}

/// A run from `start` that takes the most rounds, each step one that keeps
/// the worst case.
fn retrace(s: &mut Search, r: &mut Rounds, start: Key) -> Result<Run, Refusal> {
    let mut run = Run {
        start: r.ex.states.config(start.config),
        steps: Vec::new(),
    };
    let mut at = start;
    let mut steps = Vec::new();
    while !r.ex.is_legit(at.config) {
        let want = r.value(at).expect("every state on the way was searched");
        if want == NO_RUN {
            break;
        }
        steps.clear();
        r.steps(s, at, None, &mut steps)?;
        let next = steps
            .iter()
            .find(|&&(k, w, _)| r.value(k).is_some_and(|v| v != NO_RUN && w + v == want));
        let Some(&(k, _, movers)) = next else {
            return Err(Refusal::Unsupported(
                "the worst case in rounds could not be retraced (an inconsistency in the explorer)"
                    .into(),
            ));
        };
        run.steps.push(Bits(movers).map(|p| p as u32).collect());
        at = k;
    }
    Ok(run)
}

/// Puts a state (reached from a configuration by movers, and whether that
/// step ended a round) on the search's stack, its steps on the stack of
/// steps.
fn open(
    s: &mut Search,
    r: &mut Rounds,
    (key, from, ends_round): (Key, Option<(u32, u64)>, u32),
    stack: &mut Vec<Frame>,
    steps: &mut Vec<Step>,
) -> Result<(), Refusal> {
    let steps_from = steps.len();
    r.steps(s, key, from, steps)?;
    stack.push(Frame {
        key,
        steps_from,
        next: 0,
        ends_round,
        best: 0,
        reached: false,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::daemon::Daemon;
    use crate::verify::Convergence;

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
                let mut s = Search::new(&ex, &d, false);
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
