//! The configurations an exploration numbers: every one the domains allow
//! (the state space, numbered by its mixed-radix index), one of each orbit
//! of them under the instance's symmetries (in increasing index), or those
//! reachable from a start under one daemon (numbered breadth first, so a
//! lower number is never farther from the start, with each one's parent
//! for the path).

use super::parents::Parents;
use super::reached::Reached;
use crate::runtime::space::Space;
use crate::state::Config;

/// The configurations an explorer asks about (one per explorer, so the
/// sizes of its variants do not matter).
#[allow(clippy::large_enum_variant)]
pub(super) enum States {
    /// Every configuration of the instance.
    All(Space),
    /// One configuration of each orbit under the symmetries (the one that
    /// stands for it), by their indices in the space, in increasing order.
    Orbits { space: Space, reps: Vec<u64> },
    /// Those reachable from the starts, configurations `0..parents.starts()`.
    Reachable {
        reached: Reached,
        /// Per configuration: the one breadth first search first reached
        /// it from. Which step led there is asked again when a run is
        /// reported, not kept.
        parents: Parents,
    },
}

impl States {
    /// Configuration number `i`.
    pub(super) fn config(&self, i: u32) -> Config {
        match self {
            States::All(space) => space.config(u128::from(i)),
            States::Orbits { space, reps } => space.config(u128::from(reps[i as usize])),
            States::Reachable { reached, .. } => reached.get(i),
        }
    }

    /// Configuration number `i`, into `cfg` (one of these configurations,
    /// whose channels it keeps).
    pub(super) fn config_into(&self, i: u32, cfg: &mut Config) {
        match self {
            States::All(space) => space.decode_into(u64::from(i), cfg),
            States::Orbits { space, reps } => space.decode_into(reps[i as usize], cfg),
            States::Reachable { reached, .. } => reached.get_into(i, cfg),
        }
    }

    /// The number of a configuration, when it is one of these (for
    /// orbits, one that stands for its orbit).
    pub(super) fn index(&self, cfg: &Config) -> Option<u32> {
        match self {
            States::All(space) => space.index(cfg).map(|i| i as u32),
            States::Orbits { space, reps } => {
                let code = space.index(cfg)? as u64;
                reps.binary_search(&code).ok().map(|k| k as u32)
            }
            States::Reachable { reached, .. } => reached.index(cfg),
        }
    }

    /// Whether configuration `i` is `cfg` (for orbits, the one standing
    /// for its orbit): [`States::index`] of `cfg` is `i`.
    pub(super) fn is(&self, i: u32, cfg: &Config) -> bool {
        match self {
            States::Reachable { reached, .. } => reached.is(i, cfg),
            _ => self.index(cfg) == Some(i),
        }
    }

    /// Whether these are the configurations reachable from starts
    /// (the first numbers), rather than all.
    pub(super) fn reached_from_a_start(&self) -> bool {
        matches!(self, States::Reachable { .. })
    }

    /// How many of the `count` configurations runs start from: the first
    /// ones, reached from; else all.
    pub(super) fn starts(&self, count: u32) -> u32 {
        match self {
            States::Reachable { parents, .. } => parents.starts(),
            _ => count,
        }
    }

    /// The configurations of a shortest run from the start to
    /// configuration `i`, both included (only `i` when every
    /// configuration is a start).
    pub(super) fn path_to(&self, mut i: u32) -> Vec<u32> {
        let mut path = vec![i];
        if let States::Reachable { parents, .. } = self {
            while let Some(parent) = parents.parent(i) {
                i = parent;
                path.push(i);
            }
        }
        path.reverse();
        path
    }
}
