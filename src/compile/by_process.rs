//! Global predicates taken apart by process, for the symbolic verifier:
//! the boolean structure over quantifiers and counts across every process,
//! each quantifier's body compiled on its own and local to its process
//! (it reads that process's row, its neighbours' rows and whether it is
//! enabled), so that what the body says at a process is a table over a
//! few values, as a process's guards are. The bodies are the closures
//! every other front end runs: nothing here is a second semantics.

use super::{const_eval, BFn};
use crate::check::ir::{self, BExpr, Cmp, Coll, IExpr};

/// A predicate over a whole configuration, by process.
pub enum ByProcess {
    /// A constant.
    Const(bool),
    /// `not a`.
    Not(Box<ByProcess>),
    /// `a and b`.
    And(Box<ByProcess>, Box<ByProcess>),
    /// `a or b`.
    Or(Box<ByProcess>, Box<ByProcess>),
    /// `a == b` on booleans.
    Iff(Box<ByProcess>, Box<ByProcess>),
    /// `forall(p in procs : body)`: the bound variable's slot and the body.
    Forall(usize, BFn),
    /// `exists(p in procs : body)`.
    Exists(usize, BFn),
    /// `count(p in procs : body) CMP k`.
    Count(usize, BFn, Cmp, i64),
}

impl super::Compiler<'_> {
    /// `b` taken apart by process, when every part of it is: boolean
    /// connectives over `forall`, `exists` and `count` across `procs` with
    /// bodies local to the bound process, counts compared with constants.
    pub(super) fn by_process(&self, b: &BExpr) -> Option<ByProcess> {
        let node_var = |v: usize| self.prog.vars[v].ty == ir::Ty::Node;
        let edge_var = |v: usize| self.prog.vars[v].kind == ir::VarKind::Edge;
        let local = |slot: usize, body: &BExpr| ir::local_to(body, slot, &node_var, &edge_var);
        let konst = |e: &IExpr| const_eval(e, &self.params, self.n);
        let boxed = |b: &BExpr| self.by_process(b).map(Box::new);
        Some(match b {
            BExpr::Const(c) => ByProcess::Const(*c),
            BExpr::Not(a) => ByProcess::Not(boxed(a)?),
            BExpr::And(a, c) => ByProcess::And(boxed(a)?, boxed(c)?),
            BExpr::Or(a, c) => ByProcess::Or(boxed(a)?, boxed(c)?),
            BExpr::Implies(a, c) => ByProcess::Or(Box::new(ByProcess::Not(boxed(a)?)), boxed(c)?),
            BExpr::BoolEq(eq, a, c) => {
                let iff = ByProcess::Iff(boxed(a)?, boxed(c)?);
                if *eq {
                    iff
                } else {
                    ByProcess::Not(Box::new(iff))
                }
            }
            BExpr::Forall(slot, Coll::Procs, body) if local(*slot, body) => {
                ByProcess::Forall(*slot, self.bexpr(body))
            }
            BExpr::Exists(slot, Coll::Procs, body) if local(*slot, body) => {
                ByProcess::Exists(*slot, self.bexpr(body))
            }
            BExpr::Cmp(op, IExpr::Count(slot, Coll::Procs, body), k) if local(*slot, body) => {
                ByProcess::Count(*slot, self.bexpr(body), *op, konst(k)?)
            }
            BExpr::Cmp(op, k, IExpr::Count(slot, Coll::Procs, body)) if local(*slot, body) => {
                ByProcess::Count(*slot, self.bexpr(body), op.flipped(), konst(k)?)
            }
            _ => return None,
        })
    }
}
