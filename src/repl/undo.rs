//! The REPL's undo history. Each change and each step the user names keeps
//! a snapshot of the simulation; the daemon's steps of a `step` or `run`
//! keep one snapshot every [`REPLAYED`] + 1 steps and how many steps were
//! taken from it, and `back` replays those from the snapshot (the
//! generator's position is in it, so the replay takes the same steps).
//! A snapshot a step copied the whole configuration and its bookkeeping:
//! on a ring of 1,000, `run 1000000` took 4.4 s, nearly all of it copies.

use crate::runtime::daemon::Daemon;
use crate::runtime::engine::{RunError, Simulation, Snapshot};
use std::collections::VecDeque;

/// The most daemon steps one snapshot stands for beyond its own.
const REPLAYED: u32 = 63;

/// A snapshot, and the daemon steps taken from it whose states are
/// positions of the history too.
struct Entry {
    snap: Snapshot,
    replayed: u32,
    /// Which daemon took them (see [`Undo::daemons`]).
    daemon: usize,
}

/// The positions `back` can return to, oldest first.
pub(super) struct Undo {
    entries: VecDeque<Entry>,
    /// How many positions the entries hold.
    positions: usize,
    /// Every daemon the session has run under, the current one last: a
    /// replay runs under the one that took the steps.
    daemons: Vec<Daemon>,
}

impl Undo {
    /// An empty history of a session whose simulation runs under `daemon`.
    pub(super) fn new(daemon: &Daemon) -> Self {
        Undo {
            entries: VecDeque::new(),
            positions: 0,
            daemons: vec![daemon.clone()],
        }
    }

    /// The session runs under `daemon` from now on.
    pub(super) fn switch_daemon(&mut self, daemon: &Daemon) {
        self.daemons.push(daemon.clone());
    }

    /// How many positions `back` can return to.
    pub(super) fn len(&self) -> usize {
        self.positions
    }

    /// Keeps `sim`'s state as a position of its own, dropping the oldest
    /// entries beyond `keep`.
    pub(super) fn remember(&mut self, keep: usize, sim: &Simulation) {
        while self.entries.len() >= keep {
            let oldest = self.entries.pop_front().expect("keep >= 1");
            self.positions -= 1 + oldest.replayed as usize;
        }
        self.entries.push_back(Entry {
            snap: sim.snapshot(),
            replayed: 0,
            daemon: self.daemons.len() - 1,
        });
        self.positions += 1;
    }

    /// Keeps `sim`'s state, which one daemon step (`Simulation::step`)
    /// took it to from the last position kept: as a step to replay where
    /// the last entry has room and the daemon has not changed since, else
    /// as a snapshot.
    fn remember_step(&mut self, keep: usize, sim: &Simulation) {
        let current = self.daemons.len() - 1;
        match self.entries.back_mut() {
            Some(last) if last.replayed < REPLAYED && last.daemon == current => {
                last.replayed += 1;
                self.positions += 1;
            }
            _ => self.remember(keep, sim),
        }
    }

    /// Keeps `sim`'s state before a step of a `step` or `run` command: the
    /// command's `first` state as a position of its own (what came before
    /// it may be a change), each after it as a daemon step.
    pub(super) fn remember_run_step(&mut self, keep: usize, sim: &Simulation, first: bool) {
        if first {
            self.remember(keep, sim);
        } else {
            self.remember_step(keep, sim);
        }
    }

    /// Forgets the last position (the state it holds is the simulation's).
    pub(super) fn forget_last(&mut self) {
        if let Some(last) = self.entries.back_mut() {
            self.positions -= 1;
            if last.replayed > 0 {
                last.replayed -= 1;
            } else {
                self.entries.pop_back();
            }
        }
    }

    /// Takes `sim` back `k` positions (1 to [`Undo::len`]), which the
    /// history then no longer holds, replaying steps from the snapshot
    /// before them where the position is one of those.
    pub(super) fn back(&mut self, k: usize, sim: &mut Simulation) -> Result<(), RunError> {
        assert!(k >= 1 && k <= self.positions, "back within the history");
        let target = self.positions - k;
        // The entry holding the target, and the target's place in it.
        let mut start = self.positions;
        while let Some(last) = self.entries.back() {
            start -= 1 + last.replayed as usize;
            if start <= target {
                break;
            }
            self.entries.pop_back();
        }
        let offset = target - start;
        let entry = self.entries.back_mut().expect("the target is held");
        let replay_under = (offset > 0).then(|| self.daemons[entry.daemon].clone());
        if offset == 0 {
            let entry = self.entries.pop_back().expect("held");
            sim.restore(entry.snap);
        } else {
            entry.replayed = offset as u32 - 1;
            sim.restore(entry.snap.clone());
        }
        self.positions = target;
        if let Some(daemon) = replay_under {
            let current = std::mem::replace(&mut sim.daemon, daemon);
            let replayed = (0..offset).try_for_each(|_| sim.step().map(|_| ()));
            sim.daemon = current;
            replayed?;
        }
        Ok(())
    }
}
