//! A daemon's steps as a relation between a configuration (unprimed bits)
//! and the next (primed bits), and the images through it. Under the
//! central daemon the relation stays a disjunction of the processes'
//! moves, each changing its own cells only (the rest keep theirs), so an
//! image renames and quantifies one process's bits at a time; under the
//! others it is one diagram over every bit.
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
use oxidd::{BooleanFunction, BooleanFunctionQuant, BooleanOperator, FunctionSubst, Subst};

/// One process's part of the central daemon's steps.
pub(super) struct Part {
    moves: F,
    primed: F,
    up: Subst<F>,
    down: Subst<F>,
}

/// A daemon's steps.
pub(super) enum Relation {
    /// One process moves: each process's moves, the rest unchanged.
    Central(Vec<Part>),
    /// The whole relation over unprimed and primed bits.
    Whole(F),
}

impl Relation {
    /// The steps of `daemon` (central, locally-central, distributed or
    /// synchronous) over `procs`' moves.
    pub(super) fn new(
        enc: &Encoding,
        procs: &[Process],
        topo: &Topology,
        daemon: &Daemon,
    ) -> Result<Self, Refusal> {
        let whole = |f: AllocResult<F>| f.map(Relation::Whole).map_err(oom);
        match daemon {
            Daemon::Central => Ok(Relation::Central(
                procs
                    .iter()
                    .map(|pr| Part {
                        moves: pr.moves.clone(),
                        primed: pr.primed.clone(),
                        up: enc.renaming(&pr.own, true),
                        down: enc.renaming(&pr.own, false),
                    })
                    .collect(),
            )),
            Daemon::Synchronous => whole(synchronous(enc, procs)),
            Daemon::Distributed => whole(distributed(enc, procs, None)),
            Daemon::LocallyCentral => whole(distributed(enc, procs, Some(topo))),
            other => Err(Refusal::Unsupported(format!(
                "the symbolic engine explores the central, locally-central, distributed and synchronous daemons, not {}",
                other.name()
            ))),
        }
    }

    /// The configurations with a step into `set`.
    pub(super) fn pre(&self, enc: &Encoding, set: &F) -> AllocResult<F> {
        match self {
            Relation::Central(parts) => {
                let mut out = enc.falsity();
                for part in parts {
                    let after = set.substitute(&part.up)?;
                    let from =
                        part.moves
                            .apply_exists(BooleanOperator::And, &after, &part.primed)?;
                    out = out.or(&from)?;
                }
                out.and(&enc.universe)
            }
            Relation::Whole(t) => {
                let after = set.substitute(&enc.to_primed)?;
                t.apply_exists(BooleanOperator::And, &after, &enc.primed)?
                    .and(&enc.universe)
            }
        }
    }

    /// The configurations a step from `set` leads to.
    pub(super) fn post(&self, enc: &Encoding, set: &F) -> AllocResult<F> {
        match self {
            Relation::Central(parts) => {
                let mut out = enc.falsity();
                for part in parts {
                    // Quantify the mover's unprimed bits: they are what
                    // the primed ones replace.
                    let unprimed = part.primed.substitute(&part.down)?;
                    let to = part
                        .moves
                        .apply_exists(BooleanOperator::And, set, &unprimed)?;
                    out = out.or(&to.substitute(&part.down)?)?;
                }
                Ok(out)
            }
            Relation::Whole(t) => t
                .apply_exists(BooleanOperator::And, set, &enc.unprimed)?
                .substitute(&enc.to_unprimed),
        }
    }
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
