//! A daemon's steps as a relation between a configuration (unprimed bits)
//! and the next (primed bits), one diagram over every bit, and the images
//! through it. (Under the central daemon a disjunction kept per process,
//! each image renaming and quantifying one process's bits at a time, took
//! 2.5 times as long and twice the memory on Dijkstra's ring of 10: the
//! whole relation is small, each process's bits beside their primes.)
//!
//! A process may move and keep its values (a move that writes what was
//! there): the step then leads back to its configuration, which matters
//! for cycles. The relations below say so: a set of movers is any the
//! daemon allows, each mover's cells after one of its moves, the others'
//! unchanged.

use super::encoding::Encoding;
use super::local::{oom, Process};
use super::Refusal;
use crate::runtime::daemon::Daemon;
use crate::topology::Topology;
use oxidd::bdd::BDDFunction as F;
use oxidd::util::AllocResult;
use oxidd::{BooleanFunction, BooleanFunctionQuant, BooleanOperator, FunctionSubst};

/// A daemon's steps: the relation over unprimed and primed bits.
pub(super) struct Relation(F);

impl Relation {
    /// The steps of `daemon` (central, locally-central, distributed or
    /// synchronous) over `procs`' moves.
    pub(super) fn new(
        enc: &Encoding,
        procs: &[Process],
        topo: &Topology,
        daemon: &Daemon,
    ) -> Result<Self, Refusal> {
        let whole = match daemon {
            Daemon::Central => central(enc, procs),
            Daemon::Synchronous => synchronous(enc, procs),
            Daemon::Distributed => distributed(enc, procs, None),
            Daemon::LocallyCentral => distributed(enc, procs, Some(topo)),
            other => {
                return Err(Refusal::Unsupported(format!(
                    "the symbolic engine explores the central, locally-central, distributed and synchronous daemons, not {}",
                    other.name()
                )))
            }
        };
        whole.map(Relation).map_err(oom)
    }

    /// The configurations with a step into `set`.
    pub(super) fn pre(&self, enc: &Encoding, set: &F) -> AllocResult<F> {
        let after = set.substitute(&enc.to_primed)?;
        self.0
            .apply_exists(BooleanOperator::And, &after, &enc.primed)?
            .and(&enc.universe)
    }

    /// The configurations a step from `set` leads to.
    pub(super) fn post(&self, enc: &Encoding, set: &F) -> AllocResult<F> {
        self.0
            .apply_exists(BooleanOperator::And, set, &enc.unprimed)?
            .substitute(&enc.to_unprimed)
    }
    /// These steps from the configurations of `from` only (from a start,
    /// a run stops where an invariant fails).
    pub(super) fn leaving_only(&self, from: &F) -> AllocResult<Relation> {
        self.0.and(from).map(Relation)
    }

    /// These steps where process `p` is not enabled, or moves (a step of
    /// `daemon` of which it is one of the movers): those that count for
    /// `p`'s weak fairness, which a fair cycle takes at least once.
    pub(super) fn fair_to(
        &self,
        procs: &[Process],
        topo: &Topology,
        daemon: &Daemon,
        p: usize,
    ) -> AllocResult<Relation> {
        let moving = match daemon {
            // Every enabled process moves at every step.
            Daemon::Synchronous => return Ok(Relation(self.0.clone())),
            Daemon::Central => {
                let mut alone = procs[p].moves.clone();
                for (q, other) in procs.iter().enumerate() {
                    if q != p {
                        alone = alone.and(&other.keeps)?;
                    }
                }
                alone
            }
            // `p` moves, its neighbours too only under the distributed
            // daemon; the rest as the daemon allows (the relation says).
            _ => {
                let mut with = procs[p].moves.clone();
                if matches!(daemon, Daemon::LocallyCentral) {
                    for &q in topo.nbrs(p) {
                        with = with.and(&procs[q as usize].keeps)?;
                    }
                }
                with
            }
        };
        let counts = moving.or(&procs[p].enabled.not()?)?;
        self.0.and(&counts).map(Relation)
    }
}

/// One process moves (one of its moves), the others keep their values.
fn central(enc: &Encoding, procs: &[Process]) -> AllocResult<F> {
    let mut any = enc.falsity();
    for (p, pr) in procs.iter().enumerate() {
        let mut alone = pr.moves.clone();
        for (q, other) in procs.iter().enumerate() {
            if q != p {
                alone = alone.and(&other.keeps)?;
            }
        }
        any = any.or(&alone)?;
    }
    Ok(any)
}

/// Every enabled process moves (one of its moves), the rest keep their
/// values; some process is enabled.
fn synchronous(enc: &Encoding, procs: &[Process]) -> AllocResult<F> {
    let (mut all, mut some) = (enc.truth(), enc.falsity());
    for pr in procs {
        let idle = pr.enabled.not()?.and(&pr.keeps)?;
        all = all.and(&pr.moves.or(&idle)?)?;
        some = some.or(&pr.enabled)?;
    }
    all.and(&some)
}

/// Some non-empty set of enabled processes moves (with `topo`, no two of
/// them neighbours), the rest keep their values. A process whose cells
/// change moved; where none change, some process moved and kept them.
fn distributed(enc: &Encoding, procs: &[Process], topo: Option<&Topology>) -> AllocResult<F> {
    let (mut all, mut changed, mut kept) = (enc.truth(), enc.falsity(), enc.falsity());
    for pr in procs {
        all = all.and(&pr.keeps.or(&pr.moves)?)?;
        changed = changed.or(&pr.keeps.not()?)?;
        kept = kept.or(&pr.moves.and(&pr.keeps)?)?;
    }
    if let Some(topo) = topo {
        for p in 0..topo.n() {
            for &q in topo.nbrs(p) {
                let q = q as usize;
                if p < q {
                    all = all.and(&procs[p].keeps.or(&procs[q].keeps)?)?;
                }
            }
        }
    }
    all.and(&changed.or(&kept)?)
}
