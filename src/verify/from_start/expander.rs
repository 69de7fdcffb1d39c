//! Expanding configurations: what each says, and its steps, a block of
//! consecutive ones at a time on a thread (see [`super::expanding`] for
//! how the blocks are shared out).

use super::super::code_set::MIX;
use super::super::encoded_step::EncodedSteps;
use super::super::evaluate::{evaluate_chosen, evaluate_seen, Evaluated};
use super::super::move_memo::MoveMemo;
use super::super::moves::{within_steps_listed, Lister};
use super::super::reached::{Reached, Unkept};
use super::super::successors::{self, as_bits};
use super::super::symmetry::Symmetry;
use super::super::view_memo::ViewMemo;
use super::super::Refusal;
use super::block::{Aside, Block, Steps, ASIDE};
use super::sleep::{apart, Asleep};
use super::source::Configs;
use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::{Move, StepRelation};
use crate::state::Config;
use std::mem::{replace, take};
use std::ops::Range;

/// The most slots of a block's first-steps filter (8 bytes each): it
/// stays in the nearest cache.
const SEEN: usize = 1 << 12;

/// What every thread shares: the remembered moves, and per process (at
/// most 64) its neighbours and readers as bits, whose moves its own may
/// meet (a shared edge, a row it reads); whether the memo answers every
/// predicate, so that a configuration whose entries are all filled is
/// not decoded into rows.
pub(super) struct Memo<'m> {
    moves: &'m MoveMemo<'m>,
    near: Vec<u64>,
    answers_predicates: bool,
    /// Per process: those apart from it, as bits, where sleep sets are
    /// used ([`super::sleep::apart`]).
    pub(super) apart: Option<Vec<u64>>,
}

impl<'m> Memo<'m> {
    /// What the threads share about `inst`, whose moves `moves` remembers,
    /// under `daemon`.
    pub(super) fn new(inst: &Instance, moves: &'m MoveMemo<'m>, daemon: &Daemon) -> Self {
        let near = successors::near(&inst.topo);
        Memo {
            moves,
            // Legitimacy read off the enabled processes' count needs no rows.
            answers_predicates: moves.answers_every_invariant()
                && (inst.code.legitimate.is_none() || inst.code.legit_enabled_count.is_some()),
            apart: apart(&near, daemon),
            near,
        }
    }
}

/// One thread's step relation and buffers.
pub(super) struct Expander<'i> {
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
    /// See [`Expanding::listed`](super::expanding::Expanding::listed), and where the moves are listed.
    listed: Option<bool>,
    lister: Lister,
    /// Where the program has channels: what each process does per view.
    views: Option<ViewMemo>,
    /// The configuration expanded, made ready to write its steps as bytes.
    encoded: EncodedSteps,
    /// See [`Expanding::symmetry`](super::expanding::Expanding::symmetry), and where a step's orbit is found.
    symmetry: Option<&'i Symmetry>,
    canonical: Config,
}

impl<'i> Expander<'i> {
    /// A thread's expander, its buffers empty, listing moves as `listed`
    /// says and stepping to orbits under `symmetry`.
    pub(super) fn for_thread(
        inst: &'i Instance,
        memo: Option<&'i Memo<'i>>,
        like: &Config,
        listed: Option<bool>,
        symmetry: Option<&'i Symmetry>,
    ) -> Self {
        let mut x = Expander::new(inst, memo, like);
        x.listed = listed;
        x.symmetry = symmetry;
        x.views = ViewMemo::new(inst, listed.unwrap_or(false)).map(|views| match symmetry {
            None => views.with_effects(inst, like),
            Some(_) => views,
        });
        x
    }

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
            listed: None,
            lister: Lister::default(),
            views: None,
            encoded: EncodedSteps::default(),
            symmetry: None,
            canonical: like.clone(),
        }
    }

    /// Expands the configurations `range` of `source`, in order, under
    /// `daemon`, into `block`, emptied (its buffers are reused: allocating
    /// them anew for every block costs the kernel's time). Its steps to
    /// codes are looked up if `look_up`, else all passed on: the numbering
    /// looks each up again anyway (see [`Block::leave_out_kept`]). With
    /// `sleeps`, the configurations' sleep sets, from `range`'s first.
    pub(super) fn block<S: Configs>(
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
            movers,
            keeping,
            ..
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
                        Aside::Encoded(end) => {
                            block.transitions += 1;
                            aside[wholes] = Aside::Encoded(end);
                            wholes += 1;
                            codes[kept] = ASIDE;
                            if let Some(&sleep) = sleeps.get(step - 1) {
                                sleeps[kept] = sleep;
                            }
                            if let Some(&mover) = movers.get(step - 1) {
                                movers[kept] = mover;
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
                let s = (code.wrapping_mul(MIX) >> (64 - bits)) as usize;
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
                if let Some(&mover) = movers.get(step - 1) {
                    movers[kept] = mover;
                }
                // Where steps are kept, every one is.
                kept += usize::from(!again || *keeping);
            }
            *to = kept;
        }
        codes.truncate(kept);
        sleeps.truncate(kept);
        movers.truncate(kept);
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
                self.push_steps(daemon, source, i, &evaluated, remembered, steps)?;
                return Ok(evaluated);
            }
        }
        self.load(source, i);
        let evaluated = evaluate_seen(
            &mut self.rel,
            &self.cfg,
            &mut self.chosen,
            self.views.as_mut(),
        )?;
        match self.listed {
            Some(every) => self.push_listed(daemon, (source, i), &evaluated, every, steps)?,
            None => self.push_steps(daemon, source, i, &evaluated, None, steps)?,
        }
        Ok(evaluated)
    }

    /// Decodes configuration `i` of `source` into `cfg`, unless it is;
    /// where its steps are written as bytes, with what they are written
    /// from (see [`EncodedSteps::decoded`]).
    fn load<S: Configs>(&mut self, source: &S, i: u32) {
        let arena = source.store().and_then(Reached::arena);
        match arena.filter(|_| self.views.is_some() && !self.loaded) {
            Some(arena) => {
                let Expander { cfg, encoded, .. } = self;
                let arcs = cfg.chans.queues.len();
                encoded.decoded(i, arcs, |packed| arena.get_into_packing(i, cfg, packed));
                self.loaded = true;
            }
            None => load_into(source, i, &mut self.cfg, &mut self.loaded),
        }
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
    ) -> Result<(), Refusal> {
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
        // Not by orbits: those steps are listed (see `Expanding::listed`).
        within_steps_listed(daemon, enabled.iter().copied(), &inst.topo, 1)?;
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
            if steps.keeping {
                steps.movers.push(as_bits(movers));
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
                Err(err) => {
                    let moves = moves.iter().map(|&(p, a)| Move::first(p, a)).collect();
                    Aside::Fault(Box::new((err, moves)))
                }
                Ok(()) => match source.unkept(next, &mut steps.encoded) {
                    Some(Unkept::Code(code)) => return push(code),
                    Some(Unkept::Encoded) => Aside::Encoded(steps.encoded.len() as u32),
                    None => Aside::Outside,
                },
            };
            steps.codes.push(ASIDE);
            steps.aside.push(set_aside);
            if after.is_some() {
                steps.sleeps.push(0);
            }
        });
        Ok(())
    }
}

impl Expander<'_> {
    /// [`Expander::push_steps`] where they are listed move by move (the
    /// configuration, number `i` of `source`, decoded already, no memo),
    /// with every move of each mover if `every`.
    fn push_listed<S: Configs>(
        &mut self,
        daemon: &Daemon,
        (source, i): (&S, u32),
        evaluated: &Evaluated,
        every: bool,
        steps: &mut Steps,
    ) -> Result<(), Refusal> {
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
            next,
            enabled,
            lister,
            views,
            encoded,
            symmetry,
            canonical,
            ..
        } = self;
        lister
            .load_seen(rel, cfg, enabled, every, views.as_ref())
            .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
        let symmetries = symmetry.map_or(1, Symmetry::order);
        let arena = source.store().and_then(Reached::arena);
        encoded.forget_for(i);
        lister.each_step(
            daemon,
            &inst.topo,
            symmetries,
            views.as_ref(),
            |moves, at| {
                if steps.keeping {
                    steps.movers.push(as_bits(moves.iter().map(|m| &m.process)));
                }
                // Every mover's move remembered: the step written as bytes.
                if let (Some(views), Some(arena)) = (views.as_ref(), arena) {
                    let stride = inst.code.stride;
                    if encoded.write((arena, views), cfg, stride, (moves, at), &mut steps.encoded) {
                        steps.codes.push(ASIDE);
                        steps.aside.push(Aside::Encoded(steps.encoded.len() as u32));
                        return;
                    }
                }
                let set_aside = match rel.successor_of_into(cfg, moves, next) {
                    Err(err) => Aside::Fault(Box::new((err, moves.to_vec()))),
                    Ok(()) => match source.unkept(
                        Symmetry::orbit(*symmetry, next, canonical),
                        &mut steps.encoded,
                    ) {
                        Some(Unkept::Code(code)) => return steps.codes.push(code),
                        Some(Unkept::Encoded) => Aside::Encoded(steps.encoded.len() as u32),
                        None => Aside::Outside,
                    },
                };
                steps.codes.push(ASIDE);
                steps.aside.push(set_aside);
            },
        )
    }
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
