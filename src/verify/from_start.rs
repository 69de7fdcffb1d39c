//! The configurations reachable from a start, breadth first: numbered in
//! the order they are found, which the sequential search gives. The
//! configurations next in line are expanded together, on every thread
//! (what they say, their steps, their successors, and whether each is
//! kept already); then, in order, the new successors are numbered and
//! kept. Only that last part is sequential, and it touches only the
//! configurations not seen before. Whether a successor is kept is left
//! to the numbering, which asks it again anyway, where that is cheap: on
//! one thread, or where a set of codes answers.
//! Under the central daemon, steps known to lead to configurations kept
//! already are counted without a look-up (see [`sleep`]).

mod block;
mod sleep;
mod source;
#[cfg(test)]
mod tests;

use super::evaluate::{evaluate, evaluate_chosen, Evaluated};
use super::move_memo::MoveMemo;
use super::parents::Parents;
use super::reached::{Reached, Unkept};
use super::states::States;
use super::successors::as_bits;
use super::{outside_the_domains, refuse_unexplorable, Explorer, Progress, Refusal};
use super::{MAX_REACHABLE_BYTES, PROGRESS_EVERY};
use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::StepRelation;
use crate::state::Config;
use block::{Aside, Block, Steps, ASIDE};
use rayon::prelude::*;
use sleep::{Asleep, Frontier};
use source::{Codes, Configs, Source};
use std::mem::{replace, take};
use std::ops::Range;

/// The most configurations expanded together: what they find is held
/// until they are all done.
const TOGETHER: u32 = 1 << 14;

/// The most steps held at once (8 bytes each), which bounds how many
/// configurations are expanded together where each has many steps (every
/// subset of the enabled processes, under the distributed daemon).
const MOST_STEPS_HELD: u64 = 1 << 20;

/// The most slots of a block's first-steps filter (8 bytes each): it
/// stays in the nearest cache.
const SEEN: usize = 1 << 12;

/// The most configurations a thread expands at a time.
const BLOCK: u32 = 1 << 9;

/// How many configurations are expanded together (at most `most`), and
/// how many at a time on a thread, for `n` processes under `daemon`: as
/// many as hold at most [`MOST_STEPS_HELD`] steps, in at least 16 blocks
/// where they are few.
fn together(daemon: &Daemon, n: usize, most: u32) -> (u32, u32) {
    let most_steps = match daemon {
        Daemon::Distributed | Daemon::LocallyCentral => (1u64 << n.min(63)) - 1,
        _ => n as u64,
    };
    let together = (MOST_STEPS_HELD / most_steps.max(1)).clamp(1, u64::from(most)) as u32;
    (together, (together / 16).clamp(1, BLOCK))
}

/// What every thread shares: the remembered moves, and per process (at
/// most 64) its neighbours and readers as bits, whose moves its own may
/// meet (a shared edge, a row it reads); whether the memo answers every
/// predicate, so that a configuration whose entries are all filled is
/// not decoded into rows.
struct Memo<'m> {
    moves: &'m MoveMemo<'m>,
    near: Vec<u64>,
    answers_predicates: bool,
    /// Per process: those apart from it, as bits, where sleep sets are
    /// used ([`sleep::apart`]).
    apart: Option<Vec<u64>>,
}

impl<'m> Memo<'m> {
    fn new(inst: &Instance, moves: &'m MoveMemo<'m>, daemon: &Daemon) -> Self {
        let near: Vec<u64> = (0..inst.topo.n())
            .map(|p| as_bits(inst.topo.nbrs(p).iter().chain(inst.topo.readers(p))))
            .collect();
        Memo {
            moves,
            // Legitimacy read off the enabled processes' count needs no rows.
            answers_predicates: moves.answers_every_invariant()
                && (inst.code.legitimate.is_none() || inst.code.legit_enabled_count.is_some()),
            apart: sleep::apart(&near, daemon),
            near,
        }
    }
}

/// One thread's step relation and buffers.
struct Expander<'i> {
    inst: &'i Instance,
    rel: StepRelation<'i>,
    memo: Option<&'i Memo<'i>>,
    /// The configuration expanded, decoded only where the interpreter
    /// reads it (`loaded` says whether it is).
    cfg: Config,
    loaded: bool,
    next: Config,
    chosen: Vec<u16>,
    /// Per process: its entry in the memo, and what its move adds to the code.
    entries: Vec<usize>,
    delta: Vec<i64>,
    /// Per process: its arcs under the acyclicity the memo remembers.
    arcs: Vec<u64>,
    enabled: Vec<u32>,
    moves: Vec<(u32, u32)>,
    /// The codes of a block's steps seen last, one per slot.
    seen: Vec<u64>,
    /// The sleep set of the configuration expanded, where they are used.
    sleep: Option<u64>,
}

impl<'i> Expander<'i> {
    fn new(inst: &'i Instance, memo: Option<&'i Memo<'i>>, like: &Config) -> Self {
        Expander {
            inst,
            rel: inst.step_relation(),
            memo,
            cfg: like.clone(),
            loaded: false,
            next: like.clone(),
            chosen: Vec::new(),
            entries: Vec::new(),
            delta: Vec::new(),
            arcs: Vec::new(),
            enabled: Vec::new(),
            moves: Vec::new(),
            seen: Vec::new(),
            sleep: None,
        }
    }

    /// Expands the configurations `range` of `source`, in order, under
    /// `daemon`, into `block`, emptied (its buffers are reused: allocating
    /// them anew for every block costs the kernel's time). Its steps to
    /// codes are looked up if `look_up`, else all passed on: the numbering
    /// looks each up again anyway (see [`Block::leave_out_kept`]). With
    /// `sleeps`, the configurations' sleep sets, from `range`'s first.
    fn block<S: Configs>(
        &mut self,
        daemon: &Daemon,
        source: &S,
        range: Range<u32>,
        sleeps: Option<&[u64]>,
        mut block: Block,
        look_up: bool,
    ) -> Block {
        let mut steps = take(&mut block.steps);
        steps.clear();
        let first = range.start;
        for i in range {
            self.sleep = sleeps.map(|s| s[(i - first) as usize]);
            match self.expand(daemon, source, i, &mut steps) {
                Ok(evaluated) => block.configs.push((evaluated, steps.codes.len())),
                Err(refusal) => {
                    block.refusal = Some(refusal);
                    break;
                }
            }
        }
        self.first_steps(source, &mut block, &mut steps, look_up);
        block.steps = steps;
        // A copy of codes is read only where the numbering looks every
        // step up, and steps lead to codes.
        if let Some(reached) = source.store() {
            block.leave_out_kept(reached, look_up);
        }
        block
    }

    /// Counts the steps of `block` (`steps`) and leaves out most steps to
    /// a code met before in the block, each step left having its slot
    /// start to load if the thread will `look_up`; steps to whole
    /// configurations stay. A configuration
    /// is often reached from several of a block's, and its first step is
    /// the one that would number it; a later step that stays finds it
    /// kept when the new ones are numbered. Takes the first fault and
    /// whether a step leaves the domains into the block.
    fn first_steps<S: Configs>(
        &mut self,
        source: &S,
        block: &mut Block,
        steps: &mut Steps,
        look_up: bool,
    ) {
        let Steps {
            codes,
            aside,
            sleeps,
            skipped,
        } = steps;
        block.transitions += replace(skipped, 0);
        // The code each slot saw last (one more than it, zero for none):
        // a step is left out when its slot saw its code, with no probing
        // and no branch; a code met again after its slot saw another stays.
        let seen = &mut self.seen;
        let size = codes.len().next_power_of_two().clamp(16, SEEN);
        seen.clear();
        seen.resize(size, 0);
        let bits = size.trailing_zeros();
        let (mut kept, mut step, mut wholes, mut next_aside) = (0, 0, 0, 0);
        for (k, (_, to)) in block.configs.iter_mut().enumerate() {
            while step < *to {
                let code = codes[step];
                step += 1;
                if code == ASIDE {
                    let set_aside = replace(&mut aside[next_aside], Aside::Outside);
                    next_aside += 1;
                    match set_aside {
                        Aside::Whole(cfg) => {
                            block.transitions += 1;
                            aside[wholes] = Aside::Whole(cfg);
                            wholes += 1;
                            codes[kept] = ASIDE;
                            if let Some(&sleep) = sleeps.get(step - 1) {
                                sleeps[kept] = sleep;
                            }
                            kept += 1;
                        }
                        Aside::Outside => block.outside = true,
                        Aside::Fault(fault) => {
                            block.fault.get_or_insert((k as u32, fault));
                        }
                    }
                    continue;
                }
                block.transitions += 1;
                let s = (code.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize;
                let again = seen[s] == code.wrapping_add(1);
                seen[s] = code.wrapping_add(1);
                if look_up && !again {
                    if let Some(reached) = source.store() {
                        reached.prefetch_slot(code);
                    }
                }
                codes[kept] = code;
                if let Some(&sleep) = sleeps.get(step - 1) {
                    sleeps[kept] = sleep;
                }
                kept += usize::from(!again);
            }
            *to = kept;
        }
        codes.truncate(kept);
        sleeps.truncate(kept);
        aside.truncate(wholes);
    }

    /// Configuration `i` of `source`: what it says; its steps under
    /// `daemon` onto `steps`, but those its sleep set holds.
    fn expand<S: Configs>(
        &mut self,
        daemon: &Daemon,
        source: &S,
        i: u32,
        steps: &mut Steps,
    ) -> Result<Evaluated, Refusal> {
        self.loaded = false;
        if let (Some(memo), Some(code)) = (self.memo, source.code(i)) {
            if let Some(evaluated) = self.remembered(memo, source, i, code)? {
                let remembered = Some((memo, code));
                self.push_steps(daemon, source, i, &evaluated, remembered, steps);
                return Ok(evaluated);
            }
        }
        self.load(source, i);
        let evaluated = evaluate(&self.rel, &self.cfg, &mut self.chosen)?;
        self.push_steps(daemon, source, i, &evaluated, None, steps);
        Ok(evaluated)
    }

    /// Decodes configuration `i` of `source` into `cfg`, unless it is.
    fn load<S: Configs>(&mut self, source: &S, i: u32) {
        load_into(source, i, &mut self.cfg, &mut self.loaded);
    }

    /// What configuration `i` of `source` (of code `code`) says, from the
    /// remembered moves and predicates, with each process's chosen action
    /// and its move's delta to the code left in `chosen` and `delta`;
    /// `None` where some process's entry is left to the interpreter. The
    /// configuration is decoded only where an entry is not filled yet or
    /// a predicate is not remembered.
    fn remembered<S: Configs>(
        &mut self,
        memo: &Memo,
        source: &S,
        i: u32,
        code: u64,
    ) -> Result<Option<Evaluated>, Refusal> {
        let moves = memo.moves;
        moves.numbers_into(code, &mut self.entries);
        let answers = moves.answers(
            &self.entries,
            &mut self.chosen,
            &mut self.delta,
            &mut self.arcs,
        );
        let holding = match answers {
            Some(holding) => holding,
            None => {
                // Some entry is not filled yet, or left to the interpreter.
                self.load(source, i);
                self.chosen.clear();
                self.delta.clear();
                for (p, &k) in self.entries.iter().enumerate() {
                    let Some((action, delta)) = moves.moves(&self.rel, &self.cfg, p, k) else {
                        return Ok(None);
                    };
                    self.chosen.push(action);
                    self.delta.push(delta);
                }
                match moves.holding(&self.rel, &self.cfg, &self.chosen, &self.entries) {
                    Some(holding) => holding,
                    None => return Ok(None),
                }
            }
        };
        if !memo.answers_predicates {
            self.load(source, i);
        }
        evaluate_chosen(&self.rel, &self.cfg, &self.chosen, Some(&holding)).map(Some)
    }

    /// The steps of configuration `i` of `source` under `daemon` onto
    /// `steps` (none where an invariant fails: a run stops there, and so
    /// does the exploration). With `remembered`, the memo
    /// and the configuration's code: a step whose movers are apart (no two
    /// neighbours, none reading another) adds their moves' deltas to the
    /// code; others are interpreted.
    fn push_steps<S: Configs>(
        &mut self,
        daemon: &Daemon,
        source: &S,
        i: u32,
        evaluated: &Evaluated,
        remembered: Option<(&Memo, u64)>,
        steps: &mut Steps,
    ) {
        self.enabled.clear();
        if evaluated.invariant.is_none() {
            let chosen = &self.chosen;
            self.enabled
                .extend((0..chosen.len() as u32).filter(|&p| chosen[p as usize] != NO_ACTION));
        }
        let Expander {
            inst,
            rel,
            cfg,
            loaded,
            next,
            chosen,
            delta,
            enabled,
            moves,
            memo,
            sleep,
            ..
        } = self;
        // With sleep sets, one mover a step.
        let apart = memo.and_then(|m| m.apart.as_deref());
        let mut asleep = sleep.map(Asleep::new);
        daemon.each_move_set(enabled, &inst.topo, 0, |movers| {
            // The sleep set of where the step leads, and its mover.
            let mut after = None;
            if let (Some(asleep), Some(apart)) = (&asleep, apart) {
                let p = movers[0] as usize;
                if asleep.skips(p) {
                    steps.skipped += 1;
                    return;
                }
                after = Some((asleep.after(apart[p]), p));
            }
            let mut push = |code: u64| {
                steps.codes.push(code);
                if let (Some((sleep, p)), Some(asleep)) = (after, &mut asleep) {
                    steps.sleeps.push(sleep);
                    asleep.led_to_code(p);
                }
            };
            if let Some((memo, code)) = remembered {
                // One mover is apart from the others (none).
                let apart = || {
                    let bits = as_bits(movers);
                    movers.iter().all(|&p| memo.near[p as usize] & bits == 0)
                };
                if movers.len() == 1 || apart() {
                    let to = movers
                        .iter()
                        .fold(code, |c, &p| c.wrapping_add(delta[p as usize] as u64));
                    return push(to);
                }
            }
            load_into(source, i, cfg, loaded);
            moves.clear();
            moves.extend(movers.iter().map(|&p| (p, u32::from(chosen[p as usize]))));
            let set_aside = match rel.successor_into(cfg, moves, next) {
                Err(err) => Aside::Fault(Box::new((err, movers.to_vec()))),
                Ok(()) => match source.unkept(next) {
                    Some(Unkept::Code(code)) => return push(code),
                    Some(Unkept::Whole(cfg)) => Aside::Whole(cfg),
                    None => Aside::Outside,
                },
            };
            steps.codes.push(ASIDE);
            steps.aside.push(set_aside);
            if after.is_some() {
                steps.sleeps.push(0);
            }
        });
    }
}

/// Where the numbering writes: the next number, the store, the parents,
/// and the sleep sets of the configurations not expanded yet.
struct Numbering<'n> {
    c: &'n mut u32,
    reached: &'n mut Reached,
    parents: &'n mut Parents,
    frontier: &'n mut Frontier,
}

/// Decodes configuration `i` of `source` into `cfg`, unless `loaded`
/// says it is there already (the step closures hold the buffers apart
/// from their expander).
fn load_into<S: Configs>(source: &S, i: u32, cfg: &mut Config, loaded: &mut bool) {
    if !*loaded {
        source.get_into(i, cfg);
        *loaded = true;
    }
}

impl<'a> Explorer<'a> {
    /// The configurations reachable from `start` under `daemon`, breadth
    /// first; `verify` then explores them under that daemon only.
    pub fn reachable(
        inst: &'a Instance,
        start: Config,
        daemon: &Daemon,
        progress: Option<Progress<'a>>,
    ) -> Result<Self, Refusal> {
        Self::reach(inst, start, daemon, progress, true, TOGETHER)
    }

    /// [`Explorer::reachable`], every guard, move and predicate
    /// interpreted unless `remember` (where the memo serves), at most
    /// `most_together` configurations expanded together.
    fn reach(
        inst: &'a Instance,
        start: Config,
        daemon: &Daemon,
        progress: Option<Progress<'a>>,
        remember: bool,
        most_together: u32,
    ) -> Result<Self, Refusal> {
        refuse_unexplorable(inst)?;
        let mut start = start;
        start.canonicalize();
        let mut reached = Reached::new(inst.space(), inst.code.capacity.is_some(), &start);
        let mut parents = Parents::new();
        if reached.insert(&start).is_none() {
            return Err(outside_the_domains());
        }
        // The configurations are moved in once all are reached.
        let mut ex = Explorer::empty(
            inst,
            progress,
            States::All(inst.space()),
            Some(daemon.clone()),
        );
        let (together, block) = together(daemon, inst.topo.n(), most_together);
        // Threads look steps up where they share the work and a look-up
        // reads codes kept, from all over memory; a set of codes answers
        // from one slot, and the numbering asks again anyway.
        let look_up = rayon::current_num_threads() > 1 && reached.look_ups_read_codes();
        let space = inst.space();
        let remembered = (remember && inst.topo.n() <= 64)
            .then(|| MoveMemo::new(inst, &space))
            .flatten()
            .filter(|_| reached.code(0).is_some());
        let memo = remembered
            .as_ref()
            .map(|moves| Memo::new(inst, moves, daemon));
        // Blocks emptied, for the threads to fill again.
        let spare = std::sync::Mutex::new(Vec::new());
        let expand = |source: Source, range: Range<u32>, sleeps: Option<&[u64]>| -> Vec<Block> {
            let (from, end) = (range.start, range.end);
            range
                .step_by(block as usize)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map_init(
                    || Expander::new(inst, memo.as_ref(), &start),
                    |x, first| {
                        let emptied = spare.lock().ok().and_then(|mut s| s.pop());
                        let emptied = emptied.unwrap_or_else(Block::empty);
                        let range = first..end.min(first + block);
                        let sleeps = sleeps.map(|s| &s[(first - from) as usize..]);
                        match source {
                            Source::Store(reached) => {
                                x.block(daemon, reached, range, sleeps, emptied, look_up)
                            }
                            Source::Codes(codes) => {
                                x.block(daemon, codes, range, sleeps, emptied, look_up)
                            }
                        }
                    },
                )
                .collect()
        };
        // Where the numbering looks every step up, in a store of codes, on
        // several threads: while the configurations found are numbered, the
        // threads expand the next ones numbered already, from a copy of
        // their codes.
        let overlap = !look_up && rayon::current_num_threads() > 1 && reached.code(0).is_some();
        // The sleep sets of the configurations numbered and not expanded
        // yet, the first being number `i`'s.
        let mut frontier = Frontier::new(memo.as_ref().is_some_and(|m| m.apart.is_some()));
        let (mut i, mut told) = (0, 0);
        // The next configurations, expanded already: which, their blocks,
        // whether with sleep sets.
        let mut ahead: Option<(Range<u32>, Vec<Block>, bool)> = None;
        while i < reached.len() {
            if i >= told {
                ex.tell("reaching configurations", i as u64, reached.len() as u64)?;
                told = i + PROGRESS_EVERY as usize;
                if reached.bytes() + parents.bytes() + frontier.bytes() >= MAX_REACHABLE_BYTES {
                    return Err(Refusal::TooManyReached(reached.len() as u64));
                }
            }
            let (range, mut blocks, slept) = ahead.take().unwrap_or_else(|| {
                let range = i as u32..reached.len().min(i + together as usize) as u32;
                let sleeps = frontier.take(range.len());
                let blocks = expand(Source::Store(&reached), range.clone(), sleeps.as_deref());
                (range, blocks, sleeps.is_some())
            });
            // A configuration where an invariant fails has no steps, which
            // sleep sets assume: none from now on, and the configurations
            // that may have counted on it are expanded again.
            if frontier.used() && blocks.iter().any(Block::stops) {
                frontier.stop();
            }
            if slept && !frontier.used() {
                blocks = expand(Source::Store(&reached), range.clone(), None);
            }
            let next = range.end..reached.len().min(range.end as usize + together as usize) as u32;
            // In order: the numbers, the first fault and the first refusal
            // are those the sequential search gives.
            let mut c = range.start;
            let mut numbering = Numbering {
                c: &mut c,
                reached: &mut reached,
                parents: &mut parents,
                frontier: &mut frontier,
            };
            if overlap && !next.is_empty() {
                let codes = Codes {
                    space: &space,
                    first: next.start,
                    codes: next
                        .clone()
                        .filter_map(|j| numbering.reached.code(j))
                        .collect(),
                };
                let sleeps = numbering.frontier.take(next.len());
                let (numbered, expanded) = std::thread::scope(|s| {
                    let expanding =
                        s.spawn(|| expand(Source::Codes(&codes), next.clone(), sleeps.as_deref()));
                    let numbered = ex.number_all(blocks, &mut numbering, &spare);
                    (numbered, expanding.join())
                });
                numbered?;
                let expanded = expanded.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                ahead = Some((next, expanded, sleeps.is_some()));
            } else {
                ex.number_all(blocks, &mut numbering, &spare)?;
            }
            i = range.end as usize;
        }
        reached.kept_all();
        ex.count = reached.len() as u32;
        ex.states = States::Reachable { reached, parents };
        Ok(ex)
    }

    /// [`Explorer::number`] of every block of `blocks` in turn, each then
    /// left `spare` for the threads to fill again.
    fn number_all(
        &mut self,
        blocks: Vec<Block>,
        numbering: &mut Numbering,
        spare: &std::sync::Mutex<Vec<Block>>,
    ) -> Result<(), Refusal> {
        for mut block in blocks {
            self.number(&mut block, numbering)?;
            if let Ok(mut spare) = spare.lock() {
                spare.push(block);
            }
        }
        Ok(())
    }

    /// Numbers, in order, the configurations `block`'s steps lead to that
    /// are not kept yet, and records what each of its configurations
    /// says, the first being number `c` (moved past the block); takes its
    /// fault and refusal. The block is left emptied.
    fn number(&mut self, block: &mut Block, numbering: &mut Numbering) -> Result<(), Refusal> {
        let Numbering {
            c,
            reached,
            parents,
            frontier,
        } = numbering;
        if block.outside {
            return Err(outside_the_domains());
        }
        self.reached_transitions += replace(&mut block.transitions, 0);
        if let Some((k, fault)) = block.fault.take() {
            // A counterexample of its own; the rest is explored without it.
            let (err, movers) = *fault;
            self.fault.get_or_insert((err, **c + k, movers));
        }
        block.keep_steps(reached, frontier, |evaluated, children| {
            parents.numbered(children);
            self.record(**c, evaluated);
            **c += 1;
        });
        block.refusal.take().map_or(Ok(()), Err)
    }
}
