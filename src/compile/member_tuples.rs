//! Comparisons of a collection member's own variables, taken as a tuple,
//! with values that do not read the member (SSLE's `forall(Q in nbrs(P) :
//! Q.key <= Succ(P.key))` in `Done(P)`, and `Succ(Min_Key_Nbr(P)) <
//! P.key`): the values read once, before the members, and each member's
//! variables compared in the quantifier's loop, with no local set and no
//! closure called for it. Neither side can fault (plain reads, constants
//! that cannot take a variable's value past 64 bits), so reading the
//! values once and the member's variables in any order changes no value
//! and no fault.

use super::fused::{LeftRow, LocalRow, MeRow, RowBase, ThroughRow};
use super::quantifiers::{no_member, MOST_COMPARED};
use super::tuples::{row_of, with_row, RowOf};
use super::*;

/// A comparison, lexicographic, of a member's variables (each plus a
/// constant; the member on the left) with values (each plus a constant).
pub(super) struct MemberTuple {
    pub(super) op: Cmp,
    /// Per pair: the member's slot compared, and the constant added.
    pub(super) member: Box<[(usize, i64)]>,
    /// Per pair: what it is compared with, and the constant added.
    values: Box<[(Plain, i64)]>,
}

impl MemberTuple {
    /// The values, read once.
    #[inline(always)]
    fn wanted(&self, e: &Env, stride: usize) -> [i64; MOST_COMPARED] {
        let mut wanted = [0i64; MOST_COMPARED];
        for (w, &(v, plus)) in wanted.iter_mut().zip(self.values.iter()) {
            *w = v.get(e, stride).wrapping_add(plus);
        }
        wanted
    }
}

/// Whether member `q`'s variables (`member`, each plus its constant)
/// compare by `op` with `wanted`, lexicographically: the first pair that
/// differs decides, and equal tuples satisfy `==`, `<=` and `>=`.
#[inline(always)]
fn compares(
    e: &Env,
    (q, stride): (i64, usize),
    member: &[(usize, i64)],
    wanted: &[i64],
    op: Cmp,
) -> bool {
    let row = q as usize * stride;
    for (&(offset, plus), &y) in member.iter().zip(wanted) {
        let x = e.state[row + offset].wrapping_add(plus);
        if x != y {
            return op.holds(x, y);
        }
    }
    op.holds(0, 0)
}

impl Compiler<'_> {
    /// `cmp`, a comparison of tuples (or of one pair), as the variables of
    /// the member bound to `slot` (each plus a constant) on one side and
    /// values that read neither `slot` nor `other` on the other; `None`
    /// where it is not so, or where either side could fault.
    pub(super) fn member_tuple(
        &self,
        slot: usize,
        other: usize,
        cmp: &BExpr,
    ) -> Option<MemberTuple> {
        let (op, pairs) = tuples::compared_pairs(cmp)?;
        if pairs.len() > MOST_COMPARED {
            return None;
        }
        let (mut member, mut values, mut left) = (Vec::new(), Vec::new(), None);
        for &(a, c) in &pairs {
            let (on_left, key, value) = self.member_side(slot, (a, c))?;
            if left.is_some_and(|l| l != on_left) {
                return None;
            }
            left = Some(on_left);
            let (read, plus) = self.operand(value)?.safe_read()?;
            if read.reads_local(slot) || read.reads_local(other) {
                return None;
            }
            member.push(key);
            values.push((read, plus));
        }
        Some(MemberTuple {
            op: if left? { op } else { op.swapped() },
            member: member.into(),
            values: values.into(),
        })
    }

    /// `forall(q in coll : body)` (`exists` if `want`) where `body`, of
    /// the member bound to `slot`, is a [`MemberTuple`] of two pairs
    /// whose values are slots of one row, each plus a constant
    /// (`Q.key <= Succ(P.key)`): that row found once, and each member's
    /// pair compared in the loop. `None` where it is not so, or in
    /// statements. (Of any other shape, one closure reading the values
    /// whatever they are was slower than the fused comparison called per
    /// member: SSLE's ring 3,450 to 3,578 instructions a step.)
    pub(super) fn quantifier_tuple(
        &self,
        slot: usize,
        coll: &Coll,
        want: bool,
        body: &BExpr,
    ) -> Option<BFn> {
        if self.in_stmt {
            return None;
        }
        let test = self.member_tuple(slot, slot, body)?;
        self.pair_against_row(coll, (want, None), &test)
    }

    /// [`Compiler::quantifier_tuple`] of `test`, where it is two pairs
    /// whose values are slots of one row (`Succ(P.key)`): the row found
    /// once, nothing decided at run time about where it is. `want` as
    /// there; `empty`, where an empty collection is a fault there (the
    /// keys of its best member compared). `None` where `test` is not so.
    fn pair_against_row(
        &self,
        coll: &Coll,
        (want, empty): (bool, Option<Span>),
        test: &MemberTuple,
    ) -> Option<BFn> {
        let &[(m0, p0), (m1, p1)] = &test.member[..] else {
            return None;
        };
        let &[(v0, q0), (v1, q1)] = &test.values[..] else {
            return None;
        };
        let ((row, a0), (other, a1)) = (row_of(v0)?, row_of(v1)?);
        if row != other {
            return None;
        }
        let (member, value) = ([(m0, p0), (m1, p1)], [(a0, q0), (a1, q1)]);
        let shape = (want, empty, test.op, member);
        Some(with_row!(row, row => self.pair_against_row_of(coll, shape, (row, value))))
    }

    /// [`Compiler::pair_against_row`] with the row's kind known.
    fn pair_against_row_of<R: RowBase>(
        &self,
        coll: &Coll,
        (want, empty, op, member): (bool, Option<Span>, Cmp, [(usize, i64); 2]),
        (row, value): (R, [(usize, i64); 2]),
    ) -> BFn {
        let stride = self.stride;
        let [(m0, p0), (m1, p1)] = member;
        let [(v0, q0), (v1, q1)] = value;
        ir::specialize_cmp!(op, OP => self.over(coll, move |e, items| {
            if let Some(span) = empty.filter(|_| items.is_empty()) {
                return no_member(span);
            }
            let base = row.base(e, stride);
            let (w0, w1) = (e.state[base + v0].wrapping_add(q0), e.state[base + v1].wrapping_add(q1));
            let found = items.any(|q| {
                let at = q as usize * stride;
                let x = e.state[at + m0].wrapping_add(p0);
                let holds = if x != w0 {
                    OP.holds(x, w0)
                } else {
                    OP.holds(e.state[at + m1].wrapping_add(p1), w1)
                };
                holds == want
            });
            Ok(Truth::from(found == want))
        }))
    }

    /// `let m = argmin(q in C : keys) in (m's keys + constants) OP values`
    /// (`body`, a boolean made a number, `negate`d if asked), where the
    /// keys are the member's own variables, `OP` orders and the values do
    /// not read `m`: as `exists(q in C : ...)` for `<`/`<=` of a minimum
    /// (or `>`/`>=` of a maximum) and `forall` for the others, each member
    /// compared as it comes and the search stopped at the first that
    /// decides, rather than the best found first (SSLE's
    /// `Succ(Min_Key_Nbr(P)) < P.key`). The same value: the best member's
    /// keys are at most (at least) every member's, lexicographically and
    /// so on any prefix, and adding constants keeps the order. The same
    /// faults: an empty collection faults before anything is read, and
    /// nothing else can. `None` where the expression is not so.
    pub(super) fn best_compared(
        &self,
        slot: usize,
        b: &ir::Best,
        body: &IExpr,
        negate: bool,
    ) -> Option<BFn> {
        let IExpr::FromBool(cmp) = body else {
            return None;
        };
        if b.filter.is_some() || self.in_stmt {
            return None;
        }
        let keys: Vec<usize> = (b.keys.iter())
            .map(|k| match self.plain(k)? {
                Plain::Local(offset, local) if local == b.slot => Some(offset),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let mut test = self.member_tuple(slot, b.slot, cmp)?;
        // The member's variables are the keys, in order (a prefix of them).
        let prefix = test.member.len() <= keys.len()
            && test.member.iter().zip(&keys).all(|(&(at, _), &k)| at == k);
        if !prefix {
            return None;
        }
        if negate {
            test.op = test.op.negated();
        }
        let exists = match (test.op, b.max) {
            (Cmp::Lt | Cmp::Le, false) | (Cmp::Gt | Cmp::Ge, true) => true,
            (Cmp::Gt | Cmp::Ge, false) | (Cmp::Lt | Cmp::Le, true) => false,
            _ => return None,
        };
        if let Some(tight) = self.pair_against_row(&b.coll, (exists, Some(b.span)), &test) {
            return Some(tight);
        }
        let (stride, span) = (self.stride, b.span);
        Some(
            ir::specialize_cmp!(test.op, OP => self.over(&b.coll, move |e, items| {
                let Some(first) = items.next() else {
                    return no_member(span);
                };
                let wanted = test.wanted(e, stride);
                let holds = |q: i64| compares(e, (q, stride), &test.member, &wanted, OP);
                let decided = std::iter::once(first).chain(items).any(|q| holds(q) == exists);
                Ok(Truth::from(decided == exists))
            })),
        )
    }
}
