//! What the guards and predicates say in each configuration: every
//! configuration of the state space in parallel blocks, or one reached
//! configuration at a time.

use super::local::LocalMoves;
use super::move_memo::Holding;
use super::view_memo::ViewMemo;
use super::{successors, Explorer, Refusal};
use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::bits::Bits;
use crate::runtime::space::Space;
use crate::runtime::step::StepRelation;
use crate::state::Config;
use rayon::prelude::*;

/// What one configuration's guards and predicates say.
pub(super) struct Evaluated {
    pub(super) legit: bool,
    /// No process is enabled.
    pub(super) terminal: bool,
    /// The enabled processes among the first 64, as bits.
    pub(super) enabled: u64,
    pub(super) invariant: Option<String>,
}

/// What `cfg`'s guards and predicates say, its chosen actions (one per
/// process) left in `chosen`.
pub(super) fn evaluate(
    rel: &StepRelation,
    cfg: &Config,
    chosen: &mut Vec<u16>,
) -> Result<Evaluated, Refusal> {
    rel.chosen_into(cfg, chosen)
        .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
    evaluate_chosen(rel, cfg, chosen, None)
}

/// [`evaluate`], each process's chosen action looked up in `views`
/// where there is one (and the views of `cfg` left loaded there).
pub(super) fn evaluate_seen(
    rel: &mut StepRelation,
    cfg: &Config,
    chosen: &mut Vec<u16>,
    views: Option<&mut ViewMemo>,
) -> Result<Evaluated, Refusal> {
    super::view_memo::chosen_into(views, rel, cfg, chosen)
        .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
    evaluate_chosen(rel, cfg, chosen, None)
}

/// What `cfg`'s predicates say, its chosen actions (one per process)
/// being `chosen`; with `holding`, the remembered invariants' answers
/// taken from it and only the others interpreted (`cfg` is read only by
/// what is interpreted: legitimacy, unless it counts the enabled
/// processes, and invariants not remembered).
pub(super) fn evaluate_chosen(
    rel: &StepRelation,
    cfg: &Config,
    chosen: &Vec<u16>,
    holding: Option<&Holding>,
) -> Result<Evaluated, Refusal> {
    let fail = |e| Refusal::Runtime(Box::new((e, cfg.clone())));
    let legit = rel.legitimate_with(cfg, chosen).map_err(fail)? == Some(true);
    let invariant = match holding {
        None => rel
            .violated_invariant_with(cfg, chosen)
            .map_err(fail)?
            .map(str::to_string),
        Some(holding) => {
            let mut violated = None;
            for j in 0..rel.invariant_count() {
                let holds = match holding.holds(j) {
                    Some(holds) => holds,
                    None => rel.invariant_holds_with(cfg, chosen, j).map_err(fail)?,
                };
                if !holds {
                    violated = Some(rel.invariant_name(j).to_string());
                    break;
                }
            }
            violated
        }
    };
    Ok(Evaluated {
        legit,
        terminal: chosen.iter().all(|&c| c == NO_ACTION),
        enabled: successors::enabled_as_bits(chosen),
        invariant,
    })
}

impl Explorer<'_> {
    /// Evaluates the guards and predicates of every configuration of
    /// `space` (`count` of them), in parallel: batches of blocks, each
    /// block on a thread with its own buffers, telling progress between
    /// batches. The first fault (by number) refuses, as in order.
    pub(super) fn evaluate_all(&mut self, space: &Space, count: u32) -> Result<(), Refusal> {
        let inst = self.inst;
        let words = (count as usize).div_ceil(64);
        let mut legit = Bits(Vec::with_capacity(words));
        let invariants = !inst.code.invariants.is_empty();
        let mut stops = Bits(Vec::with_capacity(if invariants { words } else { 0 }));
        let (mut legit_count, mut invariant) = (0, None);
        let local = self.local.as_ref();
        in_blocks(
            self.progress,
            "evaluating guards and predicates",
            count,
            |range| Block::evaluate(inst, (space, local), range),
            |block| {
                legit.0.extend(block.legit);
                if invariants {
                    stops.0.extend(block.stops);
                }
                legit_count += block.legit_count;
                if invariant.is_none() {
                    invariant = block.invariant;
                }
            },
        )?;
        (self.legit, self.stops) = (legit, stops);
        (self.legit_count, self.invariant) = (legit_count, invariant);
        self.count = count;
        Ok(())
    }
}

/// Runs `each` on every block of consecutive configurations of the
/// `count`, in parallel: batches of blocks, each block on a thread with
/// its own buffers, telling progress (`what`) between batches; `keep`
/// takes the blocks' results in order. The first refusal (by number)
/// refuses, as in order.
fn in_blocks<T: Send>(
    progress: Option<super::Progress>,
    what: &str,
    count: u32,
    each: impl Fn(std::ops::Range<u32>) -> Result<T, Refusal> + Sync,
    mut keep: impl FnMut(T),
) -> Result<(), Refusal> {
    const BLOCK: u32 = 1 << 14;
    let blocks = count.div_ceil(BLOCK);
    let batch = 4 * rayon::current_num_threads() as u32;
    for first in (0..blocks).step_by(batch as usize) {
        let done = u64::from(first) * u64::from(BLOCK);
        super::tell(progress, what, done, u64::from(count))?;
        let results: Vec<Result<T, Refusal>> = (first..blocks.min(first + batch))
            .into_par_iter()
            .map(|b| each(b * BLOCK..count.min((b + 1) * BLOCK)))
            .collect();
        for result in results {
            keep(result?);
        }
    }
    Ok(())
}

/// What a block of consecutive configurations says, as words of bits
/// (a block starts at a multiple of 64).
struct Block {
    legit: Vec<u64>,
    stops: Vec<u64>,
    legit_count: u64,
    /// The first configuration in the block where an invariant fails.
    invariant: Option<(String, u32)>,
}

impl Block {
    fn evaluate(
        inst: &Instance,
        space: (&Space, Option<&LocalMoves>),
        range: std::ops::Range<u32>,
    ) -> Result<Self, Refusal> {
        let words = (range.len()).div_ceil(64);
        let mut block = Block {
            legit: vec![0; words],
            stops: vec![0; words],
            legit_count: 0,
            invariant: None,
        };
        let start = range.start;
        each_chosen(inst, space, range, |i, rel, cfg, chosen| {
            let fail = |e| Refusal::Runtime(Box::new((e, cfg.clone())));
            let legit = match rel.legitimate_by_count(|| chosen.enabled_count) {
                Some(holds) => holds,
                None => rel.legitimate_with(cfg, chosen.actions).map_err(fail)? == Some(true),
            };
            let k = (i - start) as usize;
            let bit = 1u64 << (k % 64);
            if legit {
                block.legit[k / 64] |= bit;
                block.legit_count += 1;
            }
            // No invariant: no global environment to build for them.
            if inst.code.invariants.is_empty() {
                return Ok(());
            }
            if let Some(name) = rel
                .violated_invariant_with(cfg, chosen.actions)
                .map_err(fail)?
            {
                block.stops[k / 64] |= bit;
                if block.invariant.is_none() {
                    block.invariant = Some((name.to_string(), i));
                }
            }
            Ok(())
        })?;
        Ok(block)
    }
}

/// A configuration's chosen actions, with what they say of who is enabled.
struct Chosen<'c> {
    /// One per process, `NO_ACTION` where none is enabled.
    actions: &'c Vec<u16>,
    /// The enabled processes among the first 64, as bits.
    enabled: u64,
    /// How many processes are enabled.
    enabled_count: usize,
}

/// Calls `each` with every configuration of `range` in order, the step
/// relation and the configuration's chosen actions, asking again only
/// the guards a step of the numbering can change (of the tables `local`,
/// where they answer).
fn each_chosen(
    inst: &Instance,
    (space, local): (&Space, Option<&LocalMoves>),
    range: std::ops::Range<u32>,
    mut each: impl FnMut(u32, &StepRelation, &Config, Chosen) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    let rel = inst.step_relation();
    let mut cfg = space.config(u128::from(range.start));
    let mut chosen = Vec::with_capacity(inst.topo.n());
    // Kept up to date as actions change: counting afresh would read
    // back what was just written, which stalls.
    let (mut enabled, mut enabled_count) = (0u64, 0usize);
    // Per number of trailing free slots a step of the numbering
    // changes: the processes whose guards it can change (those slots'
    // owners and their readers); none known past 64 processes.
    let again = successors::again_after_slots(inst, space);
    // Most steps of the numbering change the last slot alone, to its next
    // value: each reader's entry number then grows by the slot's weight
    // for it, with no need to read its cells again. `numbered`: the
    // processes whose entry numbers are known.
    let weights = local.and_then(|t| t.last_slot_weights(space));
    let (mut numbers, mut numbered) = (vec![0usize; inst.topo.n()], 0u64);
    for i in range.clone() {
        let changed = (i != range.start).then(|| space.advance(&mut cfg));
        let fail = |e| Refusal::Runtime(Box::new((e, cfg.clone())));
        match (changed, &again) {
            (Some(changed), Some(again)) => {
                for p in successors::Bits(again[changed]) {
                    let entry = match (local, &weights) {
                        (Some(t), Some(w)) if changed == 1 && numbered >> p & 1 != 0 => {
                            numbers[p] += w[p];
                            t.entry(numbers[p])
                        }
                        (Some(t), _) => match t.number(p, &cfg.rows) {
                            Some(k) => {
                                (numbers[p], numbered) = (k, numbered | 1 << p);
                                t.entry(k)
                            }
                            None => {
                                numbered &= !(1 << p);
                                None
                            }
                        },
                        (None, _) => None,
                    };
                    let action = match entry {
                        Some(entry) => entry.action,
                        None => {
                            let a = rel.first_enabled(&cfg, p).map_err(fail)?;
                            a.map_or(NO_ACTION, |a| a as u16)
                        }
                    };
                    let (was, is) = (chosen[p] != NO_ACTION, action != NO_ACTION);
                    enabled_count = enabled_count + usize::from(is) - usize::from(was);
                    // `again` is only known up to 64 processes.
                    enabled = enabled & !(1 << p) | u64::from(is) << p;
                    chosen[p] = action;
                }
            }
            _ => {
                rel.chosen_into(&cfg, &mut chosen).map_err(fail)?;
                enabled = successors::enabled_as_bits(&chosen);
                enabled_count = chosen.iter().filter(|&&a| a != NO_ACTION).count();
            }
        }
        let this = Chosen {
            actions: &chosen,
            enabled,
            enabled_count,
        };
        each(i, &rel, &cfg, this)?;
    }
    Ok(())
}

/// Per configuration, its enabled processes as bits (at most 64
/// processes), in as many bytes as the processes need.
#[derive(Clone)]
pub(super) struct EnabledSets {
    bytes: Vec<u8>,
    width: usize,
}

impl EnabledSets {
    /// None kept yet, for `processes` processes.
    pub(super) fn new(processes: usize) -> Self {
        EnabledSets {
            bytes: Vec::new(),
            width: Self::width_for(processes),
        }
    }

    /// The bytes a configuration's take, for `processes` processes.
    pub(super) fn width_for(processes: usize) -> usize {
        processes.div_ceil(8).max(1)
    }

    /// The bytes a configuration's take.
    pub(super) fn width(&self) -> usize {
        self.width
    }

    /// How many configurations' are kept.
    pub(super) fn len(&self) -> usize {
        self.bytes.len() / self.width
    }

    /// Keeps the next configuration's.
    pub(super) fn push(&mut self, enabled: u64) {
        self.bytes
            .extend_from_slice(&enabled.to_le_bytes()[..self.width]);
    }

    /// Configuration `i`'s.
    #[inline]
    pub(super) fn get(&self, i: u32) -> u64 {
        let (at, w) = (i as usize * self.width, self.width);
        let mut word = [0; 8];
        word[..w].copy_from_slice(&self.bytes[at..at + w]);
        u64::from_le_bytes(word)
    }
}

impl Explorer<'_> {
    /// The enabled processes of every configuration of `space` (`count`
    /// of them, at most 64 processes), in parallel blocks.
    pub(super) fn enabled_everywhere(
        &self,
        space: &Space,
        count: u32,
    ) -> Result<EnabledSets, Refusal> {
        let (inst, local) = (self.inst, self.local.as_ref());
        let mut sets = EnabledSets::new(inst.topo.n());
        in_blocks(
            self.progress,
            "evaluating guards for rounds",
            count,
            |range| {
                let mut block = EnabledSets::new(inst.topo.n());
                each_chosen(inst, (space, local), range, |_, _, _, chosen| {
                    block.push(chosen.enabled);
                    Ok(())
                })?;
                Ok(block)
            },
            |block| sets.bytes.extend(block.bytes),
        )?;
        Ok(sets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With the tables (entry numbers read or grown from the last slot's)
    /// and without, in blocks that start anywhere, every configuration's
    /// chosen actions, enabled processes and their count are the
    /// interpreter's.
    #[test]
    fn the_chosen_actions_are_the_interpreters() {
        let cases: [super::super::TestCase; 4] = [
            (
                include_str!("../../programs/dijkstra_kstate.gc"),
                "ring:5",
                &[("K", 4)],
            ),
            (
                include_str!("../../programs/johnen_leader.gc"),
                "uring:3",
                &[("k", 1)],
            ),
            (include_str!("../../programs/matching.gc"), "chain:5", &[]),
            (
                include_str!("../../tests/golden/programs/sides.gc"),
                "ring:6",
                &[("K", 3)],
            ),
        ];
        for (src, topology, params) in cases {
            let inst = super::super::test_instance(src, topology, params);
            let space = inst.space();
            let count = space.count() as u32;
            let tables = LocalMoves::new(&inst, &space);
            assert!(tables.is_some(), "{topology}: the tables fit");
            let rel = inst.step_relation();
            let mut want = Vec::new();
            for local in [tables.as_ref(), None] {
                for start in [0, 1, count / 3, count - 1] {
                    let mut seen = 0;
                    each_chosen(&inst, (&space, local), start..count, |i, _, cfg, chosen| {
                        assert_eq!(cfg, &space.config(u128::from(i)), "{topology} {i}");
                        rel.chosen_into(cfg, &mut want).expect("guards evaluate");
                        let what = format!("{topology} from {start}: {i}");
                        assert_eq!(chosen.actions, &want, "{what}");
                        assert_eq!(chosen.enabled, successors::enabled_as_bits(&want), "{what}");
                        let count = want.iter().filter(|&&a| a != NO_ACTION).count();
                        assert_eq!(chosen.enabled_count, count, "{what}");
                        seen += 1;
                        Ok(())
                    })
                    .expect("no refusal");
                    assert_eq!(seen, count - start, "{topology} from {start}");
                }
            }
        }
    }
}
