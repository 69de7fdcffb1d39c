//! The legitimacy predicate, the invariants and the predicates of
//! properties as sets of configurations:
//! their structure across processes ([`ByProcess`]) becomes operations on
//! diagrams, and each quantifier's body, local to its process, a table
//! over what that process reads, run with the compiled body itself.

use super::encoding::Encoding;
use super::local::{oom, read_cells};
use super::tabulate::{tabulate, Outcomes};
use super::Refusal;
use crate::compile::by_process::ByProcess;
use crate::compile::{BFn, NO_ACTION};
use crate::load::Instance;
use crate::runtime::step::StepRelation;
use crate::state::Config;
use oxidd::bdd::BDDFunction as F;
use oxidd::BooleanFunction;

/// The configurations where `pred` holds; `kind` says which kind of
/// predicate it is, for the faults it may raise, and `at` the process a
/// property said of each is asked of.
pub(super) fn set_of(
    inst: &Instance,
    enc: &Encoding,
    pred: &ByProcess,
    kind: &'static str,
    at: Option<usize>,
) -> Result<F, Refusal> {
    let n = inst.topo.n();
    let sub = |b: &ByProcess| set_of(inst, enc, b, kind, at);
    let holds = |slot: usize, body: &BFn| -> Result<Vec<F>, Refusal> {
        (0..n)
            .map(|p| body_at(inst, enc, (slot, body), p, kind))
            .collect()
    };
    Ok(match pred {
        ByProcess::Const(true) => enc.truth(),
        ByProcess::Const(false) => enc.falsity(),
        ByProcess::Not(a) => sub(a)?.not().map_err(oom)?,
        ByProcess::And(a, b) => sub(a)?.and(&sub(b)?).map_err(oom)?,
        ByProcess::Or(a, b) => sub(a)?.or(&sub(b)?).map_err(oom)?,
        ByProcess::Iff(a, b) => sub(a)?.equiv(&sub(b)?).map_err(oom)?,
        ByProcess::Forall(slot, body) => {
            let mut all = enc.truth();
            for at in holds(*slot, body)? {
                all = all.and(&at).map_err(oom)?;
            }
            all
        }
        ByProcess::Exists(slot, body) => {
            let mut any = enc.falsity();
            for at in holds(*slot, body)? {
                any = any.or(&at).map_err(oom)?;
            }
            any
        }
        ByProcess::Count(slot, body, holds_at_count) => {
            let mut out = enc.falsity();
            for (c, set) in exactly(enc, &holds(*slot, body)?)?.iter().enumerate() {
                if holds_at_count.holds(c) {
                    out = out.or(set).map_err(oom)?;
                }
            }
            out
        }
        ByProcess::At(slot, body) => {
            let p = at.expect("a property said of each process is asked of one");
            body_at(inst, enc, (*slot, body), p, kind)?
        }
    })
}

/// Where a quantifier's body holds at process `p`.
fn body_at(
    inst: &Instance,
    enc: &Encoding,
    body: (usize, &BFn),
    p: usize,
    kind: &'static str,
) -> Result<F, Refusal> {
    let table = tabulate(enc, &read_cells(inst, enc, p), || BodyHolds {
        rel: inst.step_relation(),
        chosen: vec![NO_ACTION; inst.topo.n()],
        body,
        p,
        kind,
    })?;
    table.function(|_, holds| {
        Ok(match holds {
            0 => enc.falsity(),
            _ => enc.truth(),
        })
    })
}

/// Whether a quantifier's body holds at process `p` (1) or not (0).
struct BodyHolds<'a> {
    rel: StepRelation<'a>,
    chosen: Vec<u16>,
    body: (usize, &'a BFn),
    p: usize,
    kind: &'static str,
}

impl Outcomes for BodyHolds<'_> {
    fn at(&mut self, cfg: &Config) -> Result<u32, Refusal> {
        let fail = |e| Refusal::Runtime(Box::new((e, cfg.clone())));
        let p = self.p;
        self.chosen[p] = self
            .rel
            .first_enabled(cfg, p)
            .map_err(fail)?
            .map_or(NO_ACTION, |a| a as u16);
        let holds = self
            .rel
            .body_holds_at(cfg, &self.chosen, self.body, p, self.kind)
            .map_err(fail)?;
        Ok(u32::from(holds))
    }
}

/// Per count c from 0 to `sets.len()`: where exactly c of `sets` hold.
pub(super) fn exactly(enc: &Encoding, sets: &[F]) -> Result<Vec<F>, Refusal> {
    // so_far[c]: c of the sets so far hold.
    let mut so_far = vec![enc.truth()];
    for at in sets {
        let mut next = vec![enc.falsity(); so_far.len() + 1];
        for (c, set) in so_far.iter().enumerate() {
            let (with, without) = (
                set.and(at).map_err(oom)?,
                set.and(&at.not().map_err(oom)?).map_err(oom)?,
            );
            next[c] = next[c].or(&without).map_err(oom)?;
            next[c + 1] = with;
        }
        so_far = next;
    }
    Ok(so_far)
}
