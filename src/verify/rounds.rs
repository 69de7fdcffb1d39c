//! The worst case in rounds. A round ends at the first step by which every
//! process enabled at its start has moved or been neutralized (a started
//! round counts as one), so how many rounds a run takes depends on more
//! than its configurations: the search runs over (configuration, the
//! round's processes still pending, whether the round has started), from
//! every configuration outside legitimacy with a fresh round, as
//! `guarded run` starts one.

use super::search::Search;
use super::successors::Succ;
use super::{Explorer, Refusal, Run, MAX_ROUND_STATES};
use rustc_hash::FxHashMap;

/// A configuration, the round's pending processes as bits, and whether a
/// step of the round has been taken.
type Key = (u32, u64, bool);

/// Keys packed in a word: the memo then takes 16 bytes a key.
#[derive(Clone, Copy)]
struct Packing {
    /// Bits for the pending set (the number of processes).
    n: u32,
}

impl Packing {
    /// The packing for `ex`, when a key fits in a word.
    fn new(ex: &Explorer) -> Option<Self> {
        let config_bits = 32 - ex.count.saturating_sub(1).leading_zeros();
        let n = ex.inst.topo.n() as u32;
        (config_bits + n < 64).then_some(Packing { n })
    }

    fn pack(self, (c, pending, started): Key) -> u64 {
        (u64::from(c) << (self.n + 1)) | (pending << 1) | u64::from(started)
    }
}

/// The processes enabled in each configuration, asked of the guards once.
struct Enabled {
    bits: Vec<u64>,
    known: crate::runtime::bits::Bits,
}

impl Enabled {
    fn new(count: u32) -> Self {
        Enabled {
            bits: vec![0; count as usize],
            known: crate::runtime::bits::Bits::new(count as usize),
        }
    }

    fn get(&mut self, s: &mut Search, c: u32) -> Result<u64, Refusal> {
        if !self.known.get(c as usize) {
            self.bits[c as usize] = s.enabled_bits(c)?;
            self.known.set(c as usize);
        }
        Ok(self.bits[c as usize])
    }
}

/// The search's state: the memo of finished keys and the enabled cache.
struct Rounds<'x> {
    ex: &'x Explorer<'x>,
    packing: Packing,
    memo: FxHashMap<u64, u32>,
    enabled: Enabled,
    out: Vec<Succ>,
}

/// A key on the search's stack.
struct Frame {
    key: Key,
    /// Its steps: from here on the stack of steps, up to the next frame's.
    steps_from: usize,
    next: usize,
    /// Whether the step into this key ended a round.
    ends_round: u32,
    best: u32,
    /// Whether a step from here leads to legitimacy without a runtime
    /// error (else no run from here counts: [`NO_RUN`]).
    reached: bool,
}

/// The value of a key from which no run reaches legitimacy without a
/// runtime error.
const NO_RUN: u32 = u32::MAX;

impl Rounds<'_> {
    /// The rounds still to count from `key`, when known: at legitimacy the
    /// started round, else what the memo holds.
    fn value(&self, k: Key) -> Option<u32> {
        if self.ex.is_legit(k.0) {
            Some(u32::from(k.2))
        } else {
            self.memo.get(&self.packing.pack(k)).copied()
        }
    }

    /// The steps from `key` onto `steps`, each with whether it ends the
    /// round: each mover leaves the round, so does every pending process
    /// the step disables; when none is left, the round ends and the next
    /// starts with the processes then enabled.
    fn steps(
        &mut self,
        s: &mut Search,
        (c, pending, _): Key,
        steps: &mut Vec<(Key, u32)>,
    ) -> Result<(), Refusal> {
        s.successors(c, &mut self.out)?;
        for k in 0..self.out.len() {
            let e = self.out[k];
            let enabled = self.enabled.get(s, e.to)?;
            let left = pending & !e.movers & enabled;
            steps.push(if left == 0 {
                ((e.to, enabled, false), 1)
            } else {
                ((e.to, left, true), 0)
            });
        }
        Ok(())
    }
}

/// The most rounds any run takes to legitimacy, with such a run; `None`
/// when rounds are not counted (more than 64 processes, a key that does
/// not fit in a word) or the search would pass [`MAX_ROUND_STATES`]
/// states. Only for instances that converge: the search assumes no cycle
/// outside legitimacy.
pub(super) fn worst_rounds(s: &mut Search, ex: &Explorer) -> Result<Option<(u64, Run)>, Refusal> {
    let Some(packing) = Packing::new(ex).filter(|_| ex.processes_fit_a_word()) else {
        return Ok(None);
    };
    let mut r = Rounds {
        ex,
        packing,
        memo: FxHashMap::default(),
        enabled: Enabled::new(ex.count),
        out: Vec::new(),
    };
    // From a start, only the start's fresh round; else every configuration's.
    let starts: Vec<u32> = if ex.states.reached_from_a_start() {
        vec![0]
    } else {
        (0..ex.count).collect()
    };
    let starts: Vec<u32> = starts.into_iter().filter(|&c| !ex.is_legit(c)).collect();
    let what = format!("{}: rounds", s.daemon_name());
    let mut stack: Vec<Frame> = Vec::new();
    let mut steps: Vec<(Key, u32)> = Vec::new();
    let mut worst: Option<(u32, Key)> = None;
    for &c in &starts {
        let start = (c, r.enabled.get(s, c)?, false);
        if r.value(start).is_none() {
            open(s, &mut r, start, 0, &mut stack, &mut steps)?;
        }
        while let Some(top) = stack.last_mut() {
            if let Some(&(k, w)) = steps.get(top.steps_from + top.next) {
                top.next += 1;
                match r.value(k) {
                    Some(NO_RUN) => {}
                    Some(v) => {
                        top.best = top.best.max(w + v);
                        top.reached = true;
                    }
                    None => {
                        if r.memo.len() + stack.len() > MAX_ROUND_STATES {
                            return Ok(None);
                        }
                        open(s, &mut r, k, w, &mut stack, &mut steps)?;
                    }
                }
                continue;
            }
            let done = stack.pop().expect("the loop saw a top");
            steps.truncate(done.steps_from);
            // Where every step faults, no run counts (the search runs
            // only where no configuration outside legitimacy is terminal).
            let counted = done.reached;
            let value = if counted { done.best } else { NO_RUN };
            r.memo.insert(packing.pack(done.key), value);
            if (r.memo.len() as u64).is_multiple_of(super::PROGRESS_EVERY) {
                ex.tell(&what, r.memo.len() as u64, 0)?;
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
        start: r.ex.states.config(start.0),
        steps: Vec::new(),
    };
    let mut at = start;
    let mut steps = Vec::new();
    while !r.ex.is_legit(at.0) {
        let want = r.value(at).expect("every key on the way was searched");
        if want == NO_RUN {
            break;
        }
        steps.clear();
        r.steps(s, at, &mut steps)?;
        let next = steps
            .iter()
            .position(|&(k, w)| r.value(k).is_some_and(|v| v != NO_RUN && w + v == want));
        let Some(k) = next else {
            return Err(Refusal::Unsupported(
                "the worst case in rounds could not be retraced (an inconsistency in the explorer)"
                    .into(),
            ));
        };
        // The step's movers, from the step relation's list in the same order.
        run.steps.push(s.edges(at.0)?.swap_remove(k).movers);
        at = steps[k].0;
    }
    Ok(run)
}

fn open(
    s: &mut Search,
    r: &mut Rounds,
    key: Key,
    ends_round: u32,
    stack: &mut Vec<Frame>,
    steps: &mut Vec<(Key, u32)>,
) -> Result<(), Refusal> {
    let steps_from = steps.len();
    r.steps(s, key, steps)?;
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
