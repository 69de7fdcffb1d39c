//! The runs the verifier reports, retraced: the searches know a run as the
//! configurations it passes through (and, where they kept them, its
//! movers); its steps' moves are found again through the step relation,
//! as the first of the steps the daemon allows that leads where the run
//! goes (the step breadth first search took, from a start).

use super::moves::Lister;
use super::successors::Bits;
use super::{Explorer, Refusal, Run};
use crate::runtime::daemon::Daemon;
use crate::runtime::step::Move;

impl Explorer<'_> {
    /// The run the verifier reports for configuration `i` followed by
    /// `then`: from `i` itself when every configuration is a start, else
    /// from the start by a shortest way to `i`.
    pub(super) fn run_to(&self, i: u32, then: Vec<Vec<Move>>) -> Run {
        let path = self.states.path_to(i);
        // From every configuration the path is `i` alone.
        let mut steps = match &self.reached_under {
            Some(daemon) => self
                .moves_along(daemon, &path)
                .expect("breadth first search reached it by a step"),
            None => Vec::new(),
        };
        steps.extend(then);
        Run {
            start: self.states.config(path[0]),
            steps,
            delays: Vec::new(),
        }
    }

    /// The moves of each step of a path of configurations under
    /// `daemon`: of its steps from each configuration, in order, the
    /// first that leads to the next (the step breadth first search took);
    /// `None` when none does.
    pub(super) fn moves_along(&self, daemon: &Daemon, path: &[u32]) -> Option<Vec<Vec<Move>>> {
        path.windows(2)
            .map(|pair| self.step_between(daemon, pair[0], None, pair[1]))
            .collect()
    }

    /// Of the steps `daemon` allows from configuration `from` (or, with
    /// `movers`, those steps of theirs alone: each combination of their
    /// moves), in order, the first that leads to `to`: its moves.
    fn step_between(
        &self,
        daemon: &Daemon,
        from: u32,
        movers: Option<&[u32]>,
        to: u32,
    ) -> Option<Vec<Move>> {
        let mut rel = self.relation();
        let cfg = self.states.config(from);
        let (enabled, daemon) = match movers {
            Some(movers) => (movers.to_vec(), &Daemon::Synchronous),
            None => (rel.enabled(&cfg).ok()?, daemon),
        };
        let mut lister = Lister::default();
        lister
            .load(&mut rel, &cfg, &enabled, self.every_move())
            .ok()?;
        lister
            .steps(daemon, &self.inst.topo, self.symmetries())
            .ok()?
            .into_iter()
            .find(|moves| {
                let next = rel.successor_of(&cfg, moves);
                next.is_ok_and(|n| self.leads_to(&n, to))
            })
    }

    /// The moves of steps given as their movers (as bits) and where each
    /// leads, from configuration `from` on.
    pub(super) fn moves_of_hops(
        &self,
        from: u32,
        hops: &[(u64, u32)],
    ) -> Result<Vec<Vec<Move>>, Refusal> {
        let mut at = from;
        let mut out = Vec::with_capacity(hops.len());
        for &(movers, to) in hops {
            let movers: Vec<u32> = Bits(movers).map(|p| p as u32).collect();
            let step = self
                .step_between(&Daemon::Synchronous, at, Some(&movers), to)
                .ok_or_else(|| {
                    Refusal::Unsupported(
                        "a step of a run could not be retraced (an inconsistency in the explorer)"
                            .into(),
                    )
                })?;
            out.push(step);
            at = to;
        }
        Ok(out)
    }
}
