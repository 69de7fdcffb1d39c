//! Which expressions cannot fault on the instance compiled for: where every
//! read names a process, every sum, difference and product of the values
//! the domains allow stays within 64 bits, no divisor can be zero and
//! every `min`, `max`, `argmin` and `argmax` ranges over a collection
//! that has members. Conservative: anything else (an array element, a
//! `left` that a chain's end lacks, a draw) may fault. Legitimacy's
//! conjuncts over every process are kept more lazily where their body
//! cannot fault (see `runtime/engine/legit_parts.rs`): their value then
//! does not depend on the order the processes are asked in.

use super::{Compiler, VarDomain};
use crate::check::ir::{Arith, BExpr, Coll, IExpr, Proc};

/// The values an expression can take, as a closed range.
type Bounds = (i128, i128);

/// Any 64-bit value.
const ANY: Bounds = (i64::MIN as i128, i64::MAX as i128);

fn within_64_bits((lo, hi): Bounds) -> Option<Bounds> {
    (lo >= ANY.0 && hi <= ANY.1).then_some((lo, hi))
}

impl Compiler<'_> {
    /// Whether evaluating `b` cannot fault.
    pub(super) fn cannot_fault(&self, b: &BExpr) -> bool {
        match b {
            BExpr::Const(_) => true,
            BExpr::Var(p, _) | BExpr::Enabled(p) => self.names_a_process(p),
            BExpr::Not(a) => self.cannot_fault(a),
            BExpr::And(a, c) | BExpr::Or(a, c) | BExpr::Implies(a, c) | BExpr::BoolEq(_, a, c) => {
                self.cannot_fault(a) && self.cannot_fault(c)
            }
            BExpr::Cmp(_, a, c) => self.bounds(a).is_some() && self.bounds(c).is_some(),
            BExpr::Forall(_, coll, body) | BExpr::Exists(_, coll, body) => {
                self.members_of(coll).is_some() && self.cannot_fault(body)
            }
            BExpr::ArrayCmp(_, p, _, q, _, _) => self.names_a_process(p) && self.names_a_process(q),
            BExpr::Elem(..) | BExpr::Acyclic(..) => false,
        }
    }

    /// Whether reading process `p` cannot fault.
    fn names_a_process(&self, p: &Proc) -> bool {
        match p {
            // Bound to a process, or read from a node variable, whose
            // values name processes.
            Proc::Me | Proc::Local(_) | Proc::Through(_) | Proc::TreeParent(_) => true,
            Proc::At(e, _) => self
                .bounds(e)
                .is_some_and(|(lo, hi)| lo >= 0 && hi < i128::from(self.n.n)),
            // A chain's ends lack a side; a node value may name no neighbour.
            Proc::Left(_) | Proc::Right(_) | Proc::Via(..) => false,
        }
    }

    /// Where asking for the members of `coll` cannot fault: whether it
    /// surely has one.
    fn members_of(&self, coll: &Coll) -> Option<bool> {
        match coll {
            Coll::Procs => Some(self.n.n > 0),
            Coll::NbrsOf(p) => self.names_a_process(p).then(|| {
                self.topo
                    .is_some_and(|t| (0..t.n()).all(|q| !t.nbrs(q).is_empty()))
            }),
            Coll::Range(lo, hi, _) => {
                let (lo, hi) = (self.bounds(lo)?, self.bounds(hi)?);
                Some(lo.1 <= hi.0)
            }
        }
    }

    /// The values `e` can take, where evaluating it cannot fault.
    fn bounds(&self, e: &IExpr) -> Option<Bounds> {
        let n = i128::from(self.n.n);
        match e {
            IExpr::Const(c) => Some((i128::from(*c), i128::from(*c))),
            IExpr::Param(k) => self.params.get(*k).map(|&v| (i128::from(v), i128::from(v))),
            IExpr::N => Some((n, n)),
            IExpr::MaxDeg => Some((0, n)),
            IExpr::Local(_) => Some(ANY),
            IExpr::Var(p, v) => self.names_a_process(p).then(|| self.domain_bounds(*v)),
            IExpr::Index(p) | IExpr::NodeOf(p) => self.names_a_process(p).then_some((0, n - 1)),
            IExpr::Id(p) => self.names_a_process(p).then_some(ANY),
            IExpr::Neg(a, _) => {
                let (lo, hi) = self.bounds(a)?;
                within_64_bits((-hi, -lo))
            }
            IExpr::Abs(a, _) => {
                let (lo, hi) = self.bounds(a)?;
                let most = lo.abs().max(hi.abs());
                let least = if lo <= 0 && hi >= 0 {
                    0
                } else {
                    lo.abs().min(hi.abs())
                };
                within_64_bits((least, most))
            }
            IExpr::Arith(op, a, b, _) => self.arith_bounds(*op, self.bounds(a)?, self.bounds(b)?),
            IExpr::Count(_, coll, body) => {
                self.members_of(coll)?;
                let most = match coll {
                    Coll::Range(lo, hi, _) => (self.bounds(hi)?.1 - self.bounds(lo)?.0 + 1).max(0),
                    Coll::Procs | Coll::NbrsOf(_) => n,
                };
                self.cannot_fault(body).then_some((0, most))
            }
            IExpr::Cond(c, a, b) => {
                let (a, b) = (self.bounds(a)?, self.bounds(b)?);
                self.cannot_fault(c).then_some((a.0.min(b.0), a.1.max(b.1)))
            }
            IExpr::FromBool(b) => self.cannot_fault(b).then_some((0, 1)),
            IExpr::Let(_, value, body) => {
                self.bounds(value)?;
                self.bounds(body)
            }
            IExpr::Best(best) => {
                // A filter may leave no member.
                let has_members = self.members_of(&best.coll)? && best.filter.is_none();
                let keys_safe = best.keys.iter().all(|k| self.bounds(k).is_some());
                (has_members && keys_safe).then_some(ANY)
            }
            IExpr::Side(..)
            | IExpr::Sum(..)
            | IExpr::Elem(..)
            | IExpr::Msgs(..)
            | IExpr::Random(..) => None,
        }
    }

    /// The values variable `v`'s domain allows.
    fn domain_bounds(&self, v: usize) -> Bounds {
        match self.domains.get(v) {
            Some(VarDomain::Bool) => (0, 1),
            Some(VarDomain::Range(lo, hi)) => (i128::from(*lo), i128::from(*hi)),
            Some(VarDomain::Enum(len)) => (0, *len as i128 - 1),
            Some(VarDomain::Node) => (0, i128::from(self.n.n) - 1),
            None => ANY,
        }
    }

    /// The values of `a op b`, where it cannot fault.
    fn arith_bounds(&self, op: Arith, a: Bounds, b: Bounds) -> Option<Bounds> {
        let corners = |f: fn(i128, i128) -> i128| {
            let values = [f(a.0, b.0), f(a.0, b.1), f(a.1, b.0), f(a.1, b.1)];
            let lo = values.iter().copied().min().unwrap_or(0);
            let hi = values.iter().copied().max().unwrap_or(0);
            within_64_bits((lo, hi))
        };
        match op {
            Arith::Add => corners(|x, y| x + y),
            Arith::Sub => corners(|x, y| x - y),
            Arith::Mul => corners(|x, y| x.saturating_mul(y)),
            Arith::Min => Some((a.0.min(b.0), a.1.min(b.1))),
            Arith::Max => Some((a.0.max(b.0), a.1.max(b.1))),
            // No zero divisor, and no quotient past 64 bits (MIN / -1).
            Arith::Div | Arith::Mod if b.0 <= 0 && b.1 >= 0 => None,
            Arith::Div => {
                let most = a.0.abs().max(a.1.abs());
                within_64_bits((-most, most))
            }
            Arith::Mod => {
                let most = b.0.abs().max(b.1.abs());
                Some((0, most - 1))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::LegitPart;
    use crate::load::{check, Setup};

    /// Whether each `forall` conjunct of `legitimate` (after `vars`) is
    /// found unable to fault on `topology`.
    fn cannot_fault(vars: &str, legitimate: &str, topology: &str) -> Vec<bool> {
        let src = format!("{vars}\nprocess {{ a :: false -> skip }}\nlegitimate: {legitimate}\n");
        let setup = Setup {
            topology: Some(topology.into()),
            ..Setup::default()
        };
        let inst = check(&src)
            .expect("checks")
            .instantiate(&setup, &|_| Err("no files".into()))
            .expect("compiles");
        (inst.code.legit_parts.iter())
            .filter_map(|part| match part {
                LegitPart::Forall(_, _, cannot) => Some(*cannot),
                _ => None,
            })
            .collect()
    }

    /// Sums of bounded values, reads through node variables and `min` over
    /// neighbours every process has cannot fault; a division whose divisor
    /// may be zero, a sum past 64 bits, `min` over a set a filter may leave
    /// empty, a neighbour a chain's end lacks and an array element may.
    #[test]
    fn what_cannot_fault_is_told_from_what_may() {
        let vars =
            "param big = 4611686018427387904\nvar x: 0..9\nvar up: node\nvar a: array[3] of 0..9";
        let cases = [
            ("p.x + 1 < 9 and p.up.x * 3 - 2 != 5", "ring:5", true),
            ("p.x == min(q in nbrs(p) : q.x) + 1", "ring:5", true),
            ("p.x == min(q in nbrs(p) : q.x) + 1", "chain:1", false),
            ("10 / (p.x + 1) > 0 and p.x mod 3 == 0", "ring:5", true),
            ("10 / (p.x - 7) > 0", "ring:5", false),
            ("p.x * big * 2 > 0", "ring:5", false),
            (
                "p.x == min(q in {r in nbrs(p) : r.x > 3} : q.x)",
                "ring:5",
                false,
            ),
            ("p.left.x == p.x", "chain:3", false),
            ("p.a[p.x] == 0", "ring:5", false),
            (
                "count(q in nbrs(p) : q.x == 0) + 1 > 0 and (if p.x > 2 then 1 else 0) < 2",
                "ring:5",
                true,
            ),
        ];
        for (body, topology, expected) in cases {
            let said = cannot_fault(vars, &format!("forall(p in procs : {body})"), topology);
            assert_eq!(said, [expected], "{body} on {topology}");
        }
    }
}
