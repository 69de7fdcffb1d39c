//! The steps a daemon allows from one configuration, move by move: each
//! enabled process's moves are listed ([`StepRelation::moves_into`]: every
//! enabled action, binder member and value drawn, or the first enabled
//! action alone), then every choice set the daemon allows, each mover with
//! one of its moves ([`Daemon::each_choice_set`]). Where each process has
//! one move, these are the daemon's move sets in their order. The general
//! way to the steps, for the searches that do not take them from tables.

use super::view_memo::ViewMemo;
use super::Refusal;
use crate::runtime::daemon::{Daemon, MAX_STEPS_LISTED};
use crate::runtime::step::{Move, RunError, StepRelation};
use crate::state::Config;
use crate::topology::Topology;

/// Where a listed move is: in the view memo the lister was loaded from
/// (a view's number and the move's place among its moves, see
/// [`ViewMemo::remembered_moves`]), or at this place of the lister's own
/// moves (the view `INTERPRETED`).
pub(super) type MoveAt = (u32, u32);

/// The view of a [`MoveAt`] in the lister's own moves.
const INTERPRETED: u32 = u32::MAX;

/// A configuration's moves, listed, and the buffers they are listed in.
#[derive(Default)]
pub(super) struct Lister {
    /// Every enabled process's moves, a process's together, processes in
    /// increasing order: where each is, where moves a view memo remembers
    /// are not copied (else empty).
    at: Vec<MoveAt>,
    /// The moves interpreted, not found in a memo (else every move).
    moves: Vec<Move>,
    /// The process of each move listed.
    owners: Vec<u32>,
    /// One process's moves.
    one: Vec<Move>,
    /// The step being passed on.
    step: Vec<Move>,
    /// Where its moves are listed (see `at`), if `at` says.
    step_at: Vec<MoveAt>,
    /// The places (in the list) of the step's moves.
    step_places: Vec<usize>,
}

impl Lister {
    /// Lists the moves of the processes `enabled` (in increasing order) in
    /// `cfg`: every one with `every`, else the first enabled action alone
    /// (each once per value its draws can take either way).
    pub(super) fn load(
        &mut self,
        rel: &mut StepRelation,
        cfg: &Config,
        enabled: &[u32],
        every: bool,
    ) -> Result<(), RunError> {
        self.load_seen(rel, cfg, enabled, every, None)
    }

    /// [`Lister::load`], each process's moves taken from `views` where
    /// there is one (loaded with `cfg`'s views, of `every` move or not):
    /// the moves it remembers are not copied, only where they are, which
    /// [`Lister::each_step`] passes on with each step (so that what each
    /// move does is not searched for in the memo).
    pub(super) fn load_seen(
        &mut self,
        rel: &mut StepRelation,
        cfg: &Config,
        enabled: &[u32],
        every: bool,
        views: Option<&ViewMemo>,
    ) -> Result<(), RunError> {
        self.at.clear();
        self.moves.clear();
        self.owners.clear();
        for &p in enabled {
            if let Some((k, moves)) = views.and_then(|v| v.remembered_moves(p as usize)) {
                let count = moves.len() as u32;
                self.at.extend((0..count).map(|j| (k, j)));
                self.owners.extend(std::iter::repeat_n(p, count as usize));
                continue;
            }
            match views {
                Some(views) => views.moves_into(rel, cfg, p as usize, &mut self.one)?,
                None => rel.moves_into(cfg, p as usize, every, &mut self.one)?,
            }
            if views.is_some() {
                let first = self.moves.len() as u32;
                self.at
                    .extend((first..).take(self.one.len()).map(|j| (INTERPRETED, j)));
            }
            self.owners.extend(self.one.iter().map(|m| m.process));
            self.moves.append(&mut self.one);
        }
        Ok(())
    }

    /// Calls `each` with every step `daemon` allows from the configuration
    /// loaded (its moves, movers in increasing order, and where the memo
    /// the lister was loaded from keeps them, or none), in order; where
    /// each step's configuration is then compared under `symmetries`
    /// symmetries, fewer steps are listed (see [`steps_listed`]). `views`
    /// is the memo the lister was loaded from, if any.
    pub(super) fn each_step(
        &mut self,
        daemon: &Daemon,
        topo: &Topology,
        symmetries: usize,
        views: Option<&ViewMemo>,
        mut each: impl FnMut(&[Move], &[MoveAt]),
    ) -> Result<(), Refusal> {
        within_steps_listed(daemon, self.owners.iter().copied(), topo, symmetries)?;
        let Lister {
            at,
            moves,
            owners,
            step,
            step_at,
            step_places,
            ..
        } = self;
        // The moves copied for steps of several movers are another
        // configuration's.
        step.clear();
        step_places.clear();
        // Without `at` (not loaded by reference), every move is in `moves`.
        let listed = |k: usize| -> &Move {
            if at.is_empty() {
                return &moves[k];
            }
            match at[k] {
                (INTERPRETED, j) => &moves[j as usize],
                (view, j) => views
                    .and_then(|v| v.remembered_move(view, j))
                    .expect("a move listed from this memo"),
            }
        };
        daemon.each_choice_set(owners, topo, |places| {
            // One mover (every central step): its move as listed, not a copy.
            if let [k] = *places {
                let at = at.get(k).map_or(&[][..], std::slice::from_ref);
                return each(std::slice::from_ref(listed(k)), at);
            }
            // Copied past the moves the step before had at the same places
            // (steps come in the daemon's order, most changing the last
            // movers' moves only).
            let same = step_places
                .iter()
                .zip(places)
                .take_while(|(a, b)| a == b)
                .count();
            step.truncate(same);
            step_places.truncate(same);
            step.extend(places[same..].iter().map(|&k| listed(k).clone()));
            step_places.extend_from_slice(&places[same..]);
            step_at.clear();
            if !at.is_empty() {
                step_at.extend(places.iter().map(|&k| at[k]));
            }
            each(step, step_at);
        });
        Ok(())
    }

    /// The steps `daemon` allows from the configuration loaded, in order
    /// (as [`Lister::each_step`] lists them).
    pub(super) fn steps(
        &mut self,
        daemon: &Daemon,
        topo: &Topology,
        symmetries: usize,
    ) -> Result<Vec<Vec<Move>>, Refusal> {
        let mut out = Vec::new();
        self.each_step(daemon, topo, symmetries, None, |m, _| out.push(m.to_vec()))?;
        Ok(out)
    }
}

/// The most process images one configuration's steps may ask for by
/// orbits (each step's configuration compared with its image under every
/// symmetry, process by process): some seconds of them.
pub const MOST_IMAGES: u64 = 1 << 29;

/// The most steps listed from one configuration of `n` processes whose
/// steps' configurations are compared under `symmetries` symmetries:
/// [`MAX_STEPS_LISTED`], or fewer, so that they make at most
/// [`MOST_IMAGES`] process images.
pub fn steps_listed(symmetries: usize, n: usize) -> u64 {
    match symmetries {
        0 | 1 => MAX_STEPS_LISTED,
        k => (MOST_IMAGES / (k as u64 * n.max(1) as u64)).clamp(1, MAX_STEPS_LISTED),
    }
}

/// Refuses a configuration whose moves (by process, `owners`, in
/// increasing order) make more steps under `daemon` than the explorer
/// lists: past [`MAX_STEPS_LISTED`], one configuration's steps would not
/// fit in memory or time (2^64 with 64 enabled processes).
pub(super) fn within_steps_listed(
    daemon: &Daemon,
    owners: impl ExactSizeIterator<Item = u32>,
    topo: &Topology,
    symmetries: usize,
) -> Result<(), Refusal> {
    let most = steps_listed(symmetries, topo.n());
    // Fewer moves than the limit's bits make fewer steps under any daemon
    // (and are not even collected).
    if owners.len() < most.ilog2() as usize {
        return Ok(());
    }
    let owners: Vec<u32> = owners.collect();
    if daemon.count_choice_sets(&owners, topo, most).is_some() {
        return Ok(());
    }
    let mut enabled = owners;
    enabled.dedup();
    Err(Refusal::TooManySteps(
        daemon.clone(),
        enabled.len(),
        symmetries,
    ))
}

/// The processes of a step's moves.
pub(super) fn movers(moves: &[Move]) -> Vec<u32> {
    moves.iter().map(|m| m.process).collect()
}
