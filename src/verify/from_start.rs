//! The configurations reachable from a start, breadth first: numbered in
//! the order they are found, which the sequential search gives. The
//! configurations next in line are expanded together, on every thread
//! (what they say, their steps, their successors, and whether each is
//! kept already); then, in order, the new successors are numbered and
//! kept. Only that last part is sequential, and it touches only the
//! configurations not seen before. Whether a successor is kept is left
//! to the numbering, which asks it again anyway, where that is cheap: on
//! one thread, or where a set of codes answers. On several threads, the
//! next configurations (numbered already) are expanded meanwhile, by the
//! threads left and then by the numbering's own.
//!
//! Under the central daemon, steps known to lead to configurations kept
//! already are counted without a look-up (see [`sleep`]).

mod block;
mod claims;
mod expander;
mod expanding;
mod sleep;
mod source;
#[cfg(test)]
mod tests;

use super::config_arena::MessageShape;
use super::fills::Fills;
use super::kept_steps::{KeptStepsWriter, MoverBytes};
use super::move_memo::MoveMemo;
use super::parents::Parents;
use super::reached::Reached;
use super::states::States;
use super::symmetry::Symmetry;
use super::PROGRESS_EVERY;
use super::{outside_the_domains, refuse_unexplorable, Choices, Explorer, Progress, Refusal};
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::space::Space;
use crate::state::Config;
use block::Block;
use claims::Claims;
use expander::Memo;
use expanding::Expanding;
use sleep::Frontier;
use source::Codes;
use std::mem::replace;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The most configurations expanded together: what they find is held
/// until they are all done.
const TOGETHER: u32 = 1 << 14;

/// The most steps held at once (8 bytes each, a code), which bounds how
/// many configurations are expanded together where each has many steps
/// (every subset of the enabled processes, under the distributed daemon).
const MOST_STEPS_HELD: u64 = 1 << 20;

/// [`MOST_STEPS_HELD`] where configurations are kept whole (with their
/// channels): a step held then has its bytes and where they end, some 50
/// bytes with its buffers' room, and those held would otherwise outweigh
/// the arena of an instance of a few million configurations (9 MB of 108
/// on Chang and Roberts' ring of 9, at 2^17 steps). Fewer together did
/// not slow that ring, on one thread or two.
const MOST_WHOLE_STEPS_HELD: u64 = 1 << 15;

/// The most configurations a thread expands at a time.
const BLOCK: u32 = 1 << 9;

/// How many configurations are expanded together (at most `most`), and
/// how many at a time on a thread, for `n` processes under `daemon`: as
/// many as hold at most `steps_held` steps ([`MOST_STEPS_HELD`] or
/// [`MOST_WHOLE_STEPS_HELD`]), in at least 16 blocks where they are few.
fn together(daemon: &Daemon, n: usize, most: u32, steps_held: u64) -> (u32, u32) {
    let most_steps = match daemon {
        Daemon::Distributed | Daemon::LocallyCentral => (1u64 << n.min(63)) - 1,
        _ => n as u64,
    };
    let together = (steps_held / most_steps.max(1)).clamp(1, u64::from(most)) as u32;
    (together, (together / 16).clamp(1, BLOCK))
}

/// About the most memory the configurations reachable from a start may
/// take (each is kept whole, with its channels, and in the index, with its
/// parent): half the memory budget ([`crate::memory::limit`], 8 GiB or
/// what the process may use, or `--memory-limit`), the other half left for
/// what the checks keep per configuration afterwards.
pub fn max_reachable_bytes() -> usize {
    usize::try_from(crate::memory::limit() / 2).unwrap_or(usize::MAX)
}

/// Where a search from a start begins: one configuration, or every
/// configuration of a space (the arbitrary starts, within the declared
/// `random` ranges, with every channel content `--init random` can draw
/// where the program passes messages), kept in order before any other.
pub enum Starts {
    /// One configuration.
    One(Config),
    /// Every configuration of this space (of the instance's rows).
    Every(Space),
    /// Every configuration of this space's rows with each of these
    /// channel contents (the rows' first, then the next).
    Filled(Space, Fills),
}

impl From<Config> for Starts {
    fn from(start: Config) -> Self {
        Starts::One(start)
    }
}

/// The most contents one channel's arbitrary starts may take.
const MOST_CONTENTS: u128 = 1 << 20;

impl Starts {
    /// `inst`'s arbitrary starts (`--from random`): every configuration
    /// within the declared `random` ranges, channels filled as `--init
    /// random` fills them (see `fills.rs`).
    pub fn arbitrary(inst: &Instance) -> Result<Starts, Refusal> {
        super::refuse_unlistable(inst)?;
        let space = inst.arbitrary_space();
        if inst.code.capacity.is_none() {
            return Ok(Starts::Every(space));
        }
        match Fills::of(&inst.code, &inst.topo, MOST_CONTENTS) {
            Ok(fills) => Ok(Starts::Filled(space, fills)),
            Err(contents) => Err(Refusal::Unsupported(format!(
                "a channel's arbitrary contents are {} (every sequence of {} to {} messages), too many to list (at most {MOST_CONTENTS}, of 16 messages each on average): narrow them (`channel capacity K random lo..hi`)",
                if contents == u128::MAX { "too many to count".to_string() } else { contents.to_string() },
                inst.code.random_fill.0,
                inst.code.random_fill.1
            ))),
        }
    }

    /// How many starts there are (`u128::MAX` past that).
    pub fn count(&self) -> u128 {
        match self {
            Starts::One(_) => 1,
            Starts::Every(space) => space.count(),
            Starts::Filled(space, fills) => space.count().saturating_mul(fills.count()),
        }
    }

    /// Every start, in order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = Config> + '_> {
        match self {
            Starts::One(cfg) => Box::new(std::iter::once(cfg.clone())),
            Starts::Every(space) => Box::new(space.iter()),
            Starts::Filled(space, fills) => Box::new(space.iter().flat_map(move |rows| {
                (0..fills.count()).map(move |k| Config {
                    rows: rows.rows.clone(),
                    chans: fills.channels(k),
                })
            })),
        }
    }

    /// The first start, every other one's likeness (same rows and
    /// channels, other values).
    fn first(&self) -> Config {
        match self {
            Starts::One(cfg) => cfg.clone(),
            Starts::Every(space) => space.config(0),
            Starts::Filled(..) => self.iter().next().expect("a start"),
        }
    }

    /// Keeps every start in `reached`, in order, with `reached`'s own
    /// limits; how many there are. Under `symmetry`, every start of a
    /// space by the one that stands for its orbit (the space holds the
    /// orbit whole), but one start as given, which runs reported start from.
    fn keep_all(self, reached: &mut Reached, symmetry: Option<&Symmetry>) -> Result<u32, Refusal> {
        let orbits = symmetry.filter(|_| matches!(self, Starts::Every(_)));
        let keep = |start: Config| {
            let mut start = match orbits {
                Some(sym) => sym.canonical(&start).0,
                None => start,
            };
            start.canonicalize();
            match reached.insert(&start) {
                None => Err(outside_the_domains()),
                Some(_) if reached.full() || reached.bytes() >= max_reachable_bytes() => {
                    Err(Refusal::TooManyReached(reached.len() as u64))
                }
                Some(_) => Ok(()),
            }
        };
        let count = self.count();
        if count > super::MAX_CONFIGURATIONS {
            return Err(Refusal::TooManyStarts(count));
        }
        self.iter().try_for_each(keep)?;
        Ok(reached.len() as u32)
    }
}

/// Which moves a search from a start explores, and whether by orbits.
#[derive(Clone, Copy)]
pub(super) struct Choosing {
    choices: Choices,
    by_orbits: bool,
    /// Whether rounds will be counted: each configuration's enabled
    /// processes are kept only then.
    rounds: bool,
}

impl Choosing {
    #[cfg(test)]
    fn new(choices: Choices) -> Self {
        Choosing {
            choices,
            by_orbits: false,
            rounds: true,
        }
    }
}

/// Where the numbering writes: the next number, the store, the parents,
/// and the sleep sets of the configurations not expanded yet.
struct Numbering<'n> {
    c: &'n mut u32,
    reached: &'n mut Reached,
    parents: &'n mut Parents,
    frontier: &'n mut Frontier,
    /// Where the steps are kept for the searches after this one.
    kept: &'n mut Option<KeptStepsWriter>,
}

impl<'a> Explorer<'a> {
    /// The configurations reachable from `start` under `daemon`, breadth
    /// first; `verify` then explores them under that daemon only.
    pub fn reachable(
        inst: &'a Instance,
        start: impl Into<Starts>,
        daemon: &Daemon,
        progress: Option<Progress<'a>>,
    ) -> Result<Self, Refusal> {
        Self::reachable_choosing(inst, start, daemon, progress, Choices::Every)
    }

    /// [`Explorer::reachable`] by the moves `choices` says.
    pub fn reachable_choosing(
        inst: &'a Instance,
        start: impl Into<Starts>,
        daemon: &Daemon,
        progress: Option<Progress<'a>>,
        choices: Choices,
    ) -> Result<Self, Refusal> {
        Self::reachable_for(inst, start, (daemon, progress), (choices, false, true))
    }

    /// [`Explorer::reachable_choosing`], keeping one configuration of each
    /// orbit under the instance's symmetries (see `verify/orbits.rs`).
    pub fn reachable_by_orbits(
        inst: &'a Instance,
        start: impl Into<Starts>,
        daemon: &Daemon,
        progress: Option<Progress<'a>>,
        choices: Choices,
    ) -> Result<Self, Refusal> {
        Self::reachable_for(inst, start, (daemon, progress), (choices, true, true))
    }

    /// [`Explorer::reachable_choosing`], by orbits where `by_orbits` (see
    /// [`Explorer::reachable_by_orbits`]), for a search that counts rounds
    /// only where `rounds`: without them, each configuration's enabled
    /// processes are not kept while reaching (2 bytes a configuration on
    /// a ring of 15), and are asked of the guards again if ever needed.
    pub fn reachable_for(
        inst: &'a Instance,
        start: impl Into<Starts>,
        (daemon, progress): (&Daemon, Option<Progress<'a>>),
        (choices, by_orbits, rounds): (Choices, bool, bool),
    ) -> Result<Self, Refusal> {
        let choose = Choosing {
            choices,
            by_orbits,
            rounds,
        };
        Self::reach(
            inst,
            start.into(),
            (daemon, choose),
            progress,
            true,
            TOGETHER,
        )
    }

    /// [`Explorer::reachable_choosing`], every guard, move and predicate
    /// interpreted unless `remember` (where the memo serves), at most
    /// `most_together` configurations expanded together.
    fn reach(
        inst: &'a Instance,
        starts: Starts,
        (daemon, choosing): (&Daemon, Choosing),
        progress: Option<Progress<'a>>,
        remember: bool,
        most_together: u32,
    ) -> Result<Self, Refusal> {
        refuse_unexplorable(inst)?;
        let mut start = starts.first();
        start.canonicalize();
        let channels = inst.code.capacity.map(|_| MessageShape::of(inst));
        let mut reached = Reached::new(inst.space(), channels, &start);
        // The configurations are moved in once all are reached.
        let mut ex = Explorer::empty(
            inst,
            progress,
            States::All(inst.space()),
            Some(daemon.clone()),
        );
        ex.choices = choosing.choices;
        ex.count_rounds(choosing.rounds);
        let symmetry = choosing
            .by_orbits
            .then(|| super::symmetry::Symmetry::find(inst, ex.every_move()))
            .filter(|sym| !sym.is_trivial());
        let count = starts.keep_all(&mut reached, symmetry.as_ref())?;
        let mut parents = Parents::new(count);
        // The memo keeps each process's first enabled action alone, and a
        // code where a step leads, not where its orbit stands.
        let listed = (ex.lists_moves() || symmetry.is_some()).then(|| ex.every_move());
        let remember = remember && listed.is_none();
        let steps_held = match reached.code(0) {
            Some(_) => MOST_STEPS_HELD,
            None => MOST_WHOLE_STEPS_HELD,
        };
        let (together, block) = together(daemon, inst.topo.n(), most_together, steps_held);
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
        // Configurations kept whole have their steps kept for the searches
        // after this one: under a daemon of several movers, where the
        // numbering lists them as those searches do (the first action
        // alone is listed in another order: `Daemon::each_move_set`).
        let keeps_steps = reached.code(0).is_none()
            && symmetry.is_none()
            && (matches!(daemon, Daemon::Central) || listed.is_some());
        let movers = MoverBytes::under(daemon, inst.topo.n()).filter(|_| keeps_steps);
        let mut kept = movers.and_then(KeptStepsWriter::new);
        let expanding = Expanding {
            inst,
            listed,
            symmetry: symmetry.as_ref(),
            memo: memo.as_ref(),
            like: &start,
            daemon,
            block,
            look_up,
            keeps_steps: AtomicBool::new(kept.is_some()),
            spare: Mutex::new(Vec::new()),
            free: Mutex::new(Vec::new()),
        };
        // Where the numbering looks every step up, in a store of codes, on
        // several threads: while the configurations found are numbered, the
        // threads left expand the next ones numbered already, from a copy of
        // their codes, and the numbering's thread joins them when done.
        let threads = rayon::current_num_threads();
        let overlap = !look_up && threads > 1 && reached.code(0).is_some();
        let helpers = overlap
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads - 1)
                    .build()
                    .ok()
            })
            .flatten();
        // The sleep sets of the configurations numbered and not expanded
        // yet, the first being number `i`'s.
        let mut frontier = Frontier::new(memo.as_ref().is_some_and(|m| m.apart.is_some()), count);
        let (mut i, mut told) = (0, 0);
        // The next configurations, expanded already: which, their blocks,
        // whether with sleep sets.
        let mut ahead: Option<(Range<u32>, Vec<Block>, bool)> = None;
        while i < reached.len() {
            if i >= told {
                ex.tell("reaching configurations", i as u64, reached.len() as u64)?;
                told = i + PROGRESS_EVERY as usize;
                let steps = kept.as_ref().map_or(0, KeptStepsWriter::bytes);
                let held = reached.bytes() + parents.bytes() + frontier.bytes() + steps;
                if reached.full() || held >= max_reachable_bytes() {
                    return Err(Refusal::TooManyReached(reached.len() as u64));
                }
            }
            let (range, mut blocks, slept) = ahead.take().unwrap_or_else(|| {
                let range = i as u32..reached.len().min(i + together as usize) as u32;
                let sleeps = frontier.take(range.len());
                let blocks = expanding.all(&reached, range.clone(), sleeps.as_deref());
                (range, blocks, sleeps.is_some())
            });
            // A configuration where an invariant fails has no steps, which
            // sleep sets assume: none from now on, and the configurations
            // that may have counted on it are expanded again.
            if frontier.used() && blocks.iter().any(Block::stops) {
                frontier.stop();
            }
            if slept && !frontier.used() {
                blocks = expanding.all(&reached, range.clone(), None);
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
                kept: &mut kept,
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
                let slept = sleeps.is_some();
                let claims = Claims::new(codes, sleeps);
                let (numbered, helped) = std::thread::scope(|s| {
                    let helping = s.spawn(|| {
                        if let Some(pool) = &helpers {
                            pool.broadcast(|_| expanding.claimed(&claims));
                        }
                    });
                    let numbered = ex.number_all(blocks, &mut numbering, &expanding);
                    expanding.claimed(&claims);
                    (numbered, helping.join())
                });
                numbered?;
                helped.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                ahead = Some((next, claims.blocks(), slept));
            } else {
                ex.number_all(blocks, &mut numbering, &expanding)?;
            }
            // A step that faulted, or a file that took no more, dropped them.
            if kept.is_none() {
                expanding.keeps_steps.store(false, Ordering::Relaxed);
            }
            i = range.end as usize;
        }
        ex.kept_steps = kept.and_then(KeptStepsWriter::finish);
        reached.kept_all(ex.kept_steps.is_some());
        ex.count = reached.len() as u32;
        ex.states = States::Reachable { reached, parents };
        drop(expanding);
        ex.symmetry = symmetry;
        Ok(ex)
    }

    /// [`Explorer::number`] of every block of `blocks` in turn, each then
    /// given back to `expanding` to fill again.
    fn number_all(
        &mut self,
        blocks: Vec<Block>,
        numbering: &mut Numbering,
        expanding: &Expanding,
    ) -> Result<(), Refusal> {
        for mut block in blocks {
            self.number(&mut block, numbering)?;
            expanding.give_back(block);
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
            kept,
        } = numbering;
        if block.outside {
            return Err(outside_the_domains());
        }
        self.reached_transitions += replace(&mut block.transitions, 0);
        if let Some((k, fault)) = block.fault.take() {
            // A counterexample of its own; the rest is explored without it.
            let (err, moves) = *fault;
            self.fault.get_or_insert((err, **c + k, moves));
            // The searches after this one must meet it themselves: they
            // work the steps out again.
            **kept = None;
        }
        block.keep_steps(reached, frontier, kept, |evaluated, children| {
            parents.numbered(children);
            self.record(**c, evaluated);
            **c += 1;
        });
        block.refusal.take().map_or(Ok(()), Err)
    }
}
