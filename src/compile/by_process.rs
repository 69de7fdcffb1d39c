//! Global predicates taken apart by process, for the symbolic verifier:
//! the boolean structure over quantifiers and counts across every process,
//! each quantifier's body compiled on its own and local to its process
//! (it reads that process's row, its neighbours' rows and whether it is
//! enabled), so that what the body says at a process is a table over a
//! few values, as a process's guards are. The bodies are the closures
//! every other front end runs: nothing here is a second semantics.

use super::{const_eval, BFn, Size};
use crate::check::ir::{self, BExpr, Coll, IExpr};

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
    /// A comparison of constants and one `count(p in procs : body)`:
    /// the slot, the body, and by the number of processes the body holds
    /// at, whether the comparison holds.
    Count(usize, BFn, AtCount),
    /// In a property said of each process, a predicate local to that
    /// process: its slot and the predicate, which holds or not at the
    /// process the property is asked of.
    At(usize, BFn),
}

/// Whether a comparison with one `count(...)` holds, by the count.
pub enum AtCount {
    /// `count(...) op k`, or with `true`, `k op count(...)`: kept as the
    /// comparison (a table would take a byte a process, for every run).
    Compared(ir::Cmp, i64, bool),
    /// Else, from 0 to n, as the constant folder works it out.
    Table(Vec<bool>),
}

impl AtCount {
    /// Whether the comparison holds where the count is `c`.
    pub fn holds(&self, c: usize) -> bool {
        match self {
            AtCount::Compared(op, k, false) => op.holds(c as i64, *k),
            AtCount::Compared(op, k, true) => op.holds(*k, c as i64),
            AtCount::Table(holds) => holds.get(c) == Some(&true),
        }
    }
}

impl super::Compiler<'_> {
    /// `b` taken apart by process, when every part of it is: boolean
    /// connectives over `forall`, `exists` and `count` across `procs` with
    /// bodies local to the bound process, counts compared with constants;
    /// in a property said of each process (`each`: the slot of its
    /// process), parts local to that process too.
    pub(super) fn by_process(&self, b: &BExpr, each: Option<usize>) -> Option<ByProcess> {
        let node_var = |v: usize| self.prog.vars[v].ty == ir::Ty::Node;
        let edge_var = |v: usize| self.prog.vars[v].kind == ir::VarKind::Edge;
        let local = |slot: usize, body: &BExpr| ir::local_to(body, slot, &node_var, &edge_var);
        let konst = |e: &IExpr, c: i64| counted(e, c, &self.params, self.n);
        let boxed = |b: &BExpr| self.by_process(b, each).map(Box::new);
        if let BExpr::Const(c) = b {
            return Some(ByProcess::Const(*c));
        }
        if let Some(slot) = each.filter(|&slot| local(slot, b)) {
            return Some(ByProcess::At(slot, self.bexpr(b)));
        }
        Some(match b {
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
            BExpr::Cmp(op, a, b) => {
                let mut found = None;
                if !(one_count(a, &mut found) && one_count(b, &mut found)) {
                    return None;
                }
                let (slot, body) = found?;
                if !local(slot, body) {
                    return None;
                }
                let fixed = |e: &IExpr| const_eval(e, &self.params, self.n);
                let holds = match (a, b) {
                    // A count against a constant (`count(...) == 1`): the
                    // comparison, not a walk of the expressions a count (a
                    // million of them on a ring of 10^6).
                    (IExpr::Count(..), k) if fixed(k).is_some() => {
                        AtCount::Compared(*op, fixed(k)?, false)
                    }
                    (k, IExpr::Count(..)) if fixed(k).is_some() => {
                        AtCount::Compared(*op, fixed(k)?, true)
                    }
                    // Else the comparison at each count, by the constant folder.
                    _ => AtCount::Table(
                        (0..=self.n.n)
                            .map(|c| Some(op.holds(konst(a, c)?, konst(b, c)?)))
                            .collect::<Option<Vec<bool>>>()?,
                    ),
                };
                ByProcess::Count(slot, self.bexpr(body), holds)
            }
            _ => return None,
        })
    }
}

/// Whether `e` holds nothing but constants, parameters, arithmetic and
/// one `count(p in procs : body)`, the same as `found` where that holds
/// one already (the count found is left there).
fn one_count<'e>(e: &'e IExpr, found: &mut Option<(usize, &'e BExpr)>) -> bool {
    match e {
        IExpr::Count(slot, Coll::Procs, body) => match found {
            Some((s, b)) => *s == *slot && **b == **body,
            None => {
                *found = Some((*slot, body));
                true
            }
        },
        IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg => true,
        IExpr::Neg(a, _) | IExpr::Abs(a, _) => one_count(a, found),
        IExpr::Arith(_, a, b, _) => one_count(a, found) && one_count(b, found),
        _ => false,
    }
}

/// The constant folder's value of `e` with its `count(...)` at `c`,
/// without building that expression (once per count, up to n).
fn counted(e: &IExpr, c: i64, params: &[i64], n: Size) -> Option<i64> {
    Some(match e {
        IExpr::Count(..) => c,
        IExpr::Neg(a, _) => ir::negate(counted(a, c, params, n)?)?,
        IExpr::Abs(a, _) => ir::absolute(counted(a, c, params, n)?)?,
        IExpr::Arith(op, a, b, _) => {
            op.apply(counted(a, c, params, n)?, counted(b, c, params, n)?)?
        }
        other => const_eval(other, params, n)?,
    })
}
