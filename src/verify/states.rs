//! The configurations an exploration numbers: every one the domains allow
//! (the state space, numbered by its mixed-radix index), or those reachable
//! from a start under one daemon (numbered breadth first, so a lower number
//! is never farther from the start, with each one's parent for the path).

use crate::runtime::space::Space;
use crate::state::Config;
use std::collections::HashMap;

/// A step into a configuration from its parent: the parent and the movers.
pub(super) type Parent = (u32, Vec<u32>);

pub(super) enum States {
    /// Every configuration of the instance.
    All(Space),
    /// Those reachable from `configs[0]`.
    Reachable {
        configs: Vec<Config>,
        index: HashMap<Config, u32>,
        /// Per configuration but the start: where breadth first search
        /// first reached it from.
        parent: Vec<Option<Parent>>,
    },
}

impl States {
    /// No configuration reached yet.
    pub(super) fn reached_none() -> Self {
        States::Reachable {
            configs: Vec::new(),
            index: HashMap::new(),
            parent: Vec::new(),
        }
    }

    /// Configuration number `i`.
    pub(super) fn config(&self, i: u32) -> Config {
        match self {
            States::All(space) => space.config(u128::from(i)),
            States::Reachable { configs, .. } => configs[i as usize].clone(),
        }
    }

    /// The number of a configuration, when it is one of these.
    pub(super) fn index(&self, cfg: &Config) -> Option<u32> {
        match self {
            States::All(space) => space.index(cfg).map(|i| i as u32),
            States::Reachable { index, .. } => index.get(cfg).copied(),
        }
    }

    /// Whether these are the configurations reachable from a start
    /// (number 0), rather than all.
    pub(super) fn reached_from_a_start(&self) -> bool {
        matches!(self, States::Reachable { .. })
    }

    /// A shortest run from the start to configuration `i`: the movers of
    /// each step (none when every configuration is a start).
    pub(super) fn stem(&self, mut i: u32) -> Vec<Vec<u32>> {
        let States::Reachable { parent, .. } = self else {
            return Vec::new();
        };
        let mut steps = Vec::new();
        while let Some((p, movers)) = &parent[i as usize] {
            steps.push(movers.clone());
            i = *p;
        }
        steps.reverse();
        steps
    }
}
