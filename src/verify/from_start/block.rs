//! A block: consecutive configurations expanded together on one thread,
//! and what they found, in order, for the numbering to read.

use super::super::evaluate::Evaluated;
use super::super::kept_steps::KeptStepsWriter;
use super::super::reached::{Reached, Unkept};
use super::super::Refusal;
use super::sleep::Frontier;
use crate::runtime::step::{Move, RunError};

/// How many successors ahead of the one being kept their slot starts to
/// load, while numbering.
const KEEP_AHEAD: usize = 16;

/// A step in a block's list: the code of the configuration it leads to,
/// or this, for the block's next step set [`Aside`].
pub(super) const ASIDE: u64 = u64::MAX;

/// A step in a block's list, where steps are kept for the searches after
/// this one, to a configuration kept already, whose number is the block's
/// next in `numbers` (steps are kept only where configurations are kept
/// whole, which have no codes).
pub(super) const KNOWN: u64 = u64::MAX - 1;

/// A step without a code (codes are below `u64::MAX`, so `ASIDE` is none).
pub(super) enum Aside {
    /// To the configuration (of a store that keeps them whole) whose bytes
    /// end here in the steps' `encoded`, and start where the bytes of the
    /// one before end.
    Encoded(u32),
    /// To values outside the domains, which have no code.
    Outside,
    /// The step faults: the error and the moves (boxed: rare, and large).
    Fault(Box<(RunError, Vec<Move>)>),
}

/// A step that faults: from which of a block's configurations, the error
/// and the moves.
pub(super) type Faulting = (u32, Box<(RunError, Vec<Move>)>);

/// What expanding consecutive configurations found, in order: what each
/// says and where its steps to configurations not kept yet end in
/// `steps` (the block's first step to each, mostly; where the thread
/// does not look them up, to kept ones too); how many steps there were
/// (faulting ones left out); the first that faults; whether one leaves
/// the domains; the refusal that stopped it at the next configuration,
/// if any. The sequential part then reads only what it must.
pub(super) struct Block {
    pub(super) configs: Vec<(Evaluated, usize)>,
    pub(super) transitions: u64,
    pub(super) fault: Option<Faulting>,
    pub(super) outside: bool,
    pub(super) refusal: Option<Refusal>,
    /// The steps: as found while expanding, then those left to number
    /// (their buffers are used again).
    pub(super) steps: Steps,
}

/// A block's steps, in order: the codes they lead to, `ASIDE` for each
/// of those set aside, which are in `aside` in order (once the block is
/// expanded, only steps to whole configurations are). Where the search
/// skips steps known to lead to configurations kept already (sleep sets:
/// see `super::sleep`), `sleeps` has, per step, the sleep set of the
/// configuration it leads to, were it new; and `skipped` counts the steps
/// skipped.
#[derive(Default)]
pub(super) struct Steps {
    pub(super) codes: Vec<u64>,
    pub(super) aside: Vec<Aside>,
    /// The bytes of the whole configurations set aside, one after another.
    pub(super) encoded: Vec<u8>,
    pub(super) sleeps: Vec<u64>,
    pub(super) skipped: u64,
    /// Whether the steps are kept for the searches after this one (see
    /// [`KeptStepsWriter`]): then `movers` has each step's movers as bits, and
    /// once [`Block::leave_out_kept`] is done, `numbers` has, in order,
    /// where the steps marked [`KNOWN`] lead.
    pub(super) keeping: bool,
    pub(super) movers: Vec<u64>,
    numbers: Vec<u32>,
    /// Scratch of [`Block::keep_steps`]: a configuration's steps, where
    /// each leads and its movers.
    edges: Vec<(u32, u64)>,
    /// Scratch of [`Block::leave_out_kept`]: for some whole
    /// configurations at a time, where each one's bytes end and whether
    /// it is kept.
    ends: Vec<usize>,
    kept: Vec<Option<u32>>,
}

impl Steps {
    /// Empties them, keeping their buffers.
    pub(super) fn clear(&mut self) {
        self.codes.clear();
        self.aside.clear();
        self.encoded.clear();
        self.sleeps.clear();
        self.skipped = 0;
        self.movers.clear();
        self.numbers.clear();
    }
}

impl Block {
    /// A block with nothing in it, nor buffers yet.
    pub(super) fn empty() -> Self {
        Block {
            configs: Vec::new(),
            transitions: 0,
            fault: None,
            outside: false,
            refusal: None,
            steps: Steps::default(),
        }
    }

    /// Whether an invariant fails in one of its configurations.
    pub(super) fn stops(&self) -> bool {
        self.configs.iter().any(|(e, _)| e.invariant.is_some())
    }

    /// Leaves out the steps to configurations kept already: those to
    /// whole configurations, and the others if `look_up` (the numbering
    /// looks up the rest again anyway, which pays where one thread does all
    /// the work, or where a set of codes answers from one slot).
    pub(super) fn leave_out_kept(&mut self, reached: &Reached, look_up: bool) {
        let Block { configs, steps, .. } = self;
        let Steps {
            codes,
            aside,
            encoded,
            sleeps,
            ends,
            kept: found,
            keeping,
            movers,
            numbers,
            ..
        } = steps;
        if !look_up && aside.is_empty() {
            return;
        }
        // Whole configurations are looked up some at a time, together,
        // so that their cache misses overlap: those from `window` on.
        const WINDOW: usize = 1024;
        let mut window = 0;
        found.clear();
        if look_up {
            for &code in codes.iter() {
                if code != ASIDE {
                    reached.prefetch_kept(code);
                }
            }
        }
        let (mut kept, mut from, mut wholes, mut next_whole) = (0, 0, 0, 0);
        // Where the next one's bytes start, and where the ones that stay end.
        let (mut start, mut end) = (0, 0);
        for (_, to) in configs.iter_mut() {
            for step in from..*to {
                let code = codes[step];
                // Whether it stays to be numbered, and where it leads if
                // that is known.
                let (stays, number) = match code {
                    ASIDE => {
                        let Aside::Encoded(stop) = aside[next_whole] else {
                            unreachable!("only steps to whole configurations are left aside")
                        };
                        if next_whole == window + found.len() {
                            window = next_whole;
                            let last = aside.len().min(window + WINDOW);
                            let base = start as usize;
                            ends.clear();
                            ends.extend(aside[window..last].iter().map(|a| match a {
                                Aside::Encoded(stop) => *stop as usize - base,
                                _ => unreachable!("only whole configurations are set aside"),
                            }));
                            reached.index_many(&encoded[base..], ends, found);
                        }
                        let number = found[next_whole - window];
                        let stays = number.is_none();
                        next_whole += 1;
                        let bytes = start as usize..stop as usize;
                        start = stop;
                        if stays {
                            encoded.copy_within(bytes.clone(), end);
                            end += bytes.len();
                            aside[wholes] = Aside::Encoded(end as u32);
                            wholes += 1;
                        }
                        (stays, number)
                    }
                    code => (!look_up || !reached.contains_code(code), None),
                };
                // Kept for the searches after this one, it stays, known.
                let known = number.filter(|_| *keeping);
                codes[kept] = if known.is_some() { KNOWN } else { code };
                numbers.extend(known);
                if let Some(&sleep) = sleeps.get(step) {
                    sleeps[kept] = sleep;
                }
                if let Some(&mover) = movers.get(step) {
                    movers[kept] = mover;
                }
                kept += usize::from(stays || known.is_some());
            }
            from = *to;
            *to = kept;
        }
        codes.truncate(kept);
        sleeps.truncate(kept);
        movers.truncate(kept);
        aside.truncate(wholes);
        encoded.truncate(end);
    }

    /// Keeps, in order, the configurations the steps lead to that are not
    /// kept yet, and, where the steps have sleep sets, each new one's
    /// onto `frontier`; where they are kept for the searches after this
    /// one, writes each configuration's into `kept` (left `None` if that
    /// fails); tells `each` what each configuration says and how many it
    /// was the first to reach. Empties the block's configurations and
    /// steps.
    pub(super) fn keep_steps(
        &mut self,
        reached: &mut Reached,
        frontier: &mut Frontier,
        kept: &mut Option<KeptStepsWriter>,
        mut each: impl FnMut(Evaluated, u32),
    ) {
        let Block { configs, steps, .. } = self;
        let Steps {
            codes,
            aside,
            encoded,
            sleeps,
            keeping,
            movers,
            numbers,
            edges,
            ..
        } = steps;
        let mut known = numbers.iter();
        // Where the new ones go starts to load, a few ahead: the threads'
        // own look-ups, if any, are long gone from the cache.
        for &code in codes.iter().take(KEEP_AHEAD) {
            if code != ASIDE {
                reached.prefetch_slot(code);
            }
        }
        let mut wholes = aside.drain(..);
        let (mut k, mut start) = (0, 0);
        for (evaluated, to) in configs.drain(..) {
            let mut children = 0;
            while k < to {
                match codes.get(k + KEEP_AHEAD) {
                    Some(&ASIDE) | Some(&KNOWN) | None => {}
                    Some(&code) => reached.prefetch_slot(code),
                }
                let (new, number) = match codes[k] {
                    ASIDE => match wholes.next() {
                        Some(Aside::Encoded(end)) => {
                            let bytes = &encoded[start as usize..end as usize];
                            start = end;
                            reached.keep(Unkept::Encoded, bytes)
                        }
                        _ => unreachable!("only steps to whole configurations are left"),
                    },
                    KNOWN if *keeping => (false, known.next().copied()),
                    code => reached.keep(Unkept::Code(code), &[]),
                };
                match (number, movers.get(k)) {
                    (Some(number), Some(&mover)) => edges.push((number, mover)),
                    // A step that cannot be kept: none are.
                    _ if *keeping => *kept = None,
                    _ => {}
                }
                if new {
                    if let Some(&sleep) = sleeps.get(k) {
                        frontier.push(sleep);
                    }
                }
                children += u32::from(new);
                k += 1;
            }
            if *keeping && kept.as_mut().is_some_and(|w| !w.config(edges)) {
                *kept = None;
            }
            edges.clear();
            each(evaluated, children);
        }
        drop(wholes);
        steps.clear();
    }
}
