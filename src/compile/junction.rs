//! Chains of `and` and of `or`: `a and b and c` however it nests, compiled
//! as one closure looping over its operands (a call a link costs more than
//! the loop), evaluated left to right and stopping at the first operand
//! that decides, as the binary operators do, without the operands the
//! instance fixes (a comparison of parameters) where they cannot change
//! that; and `not`, moved inward where that saves its closure.

use super::*;

/// `and` or `or`.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Junction {
    And,
    Or,
}

impl Junction {
    /// `a` and `b` if this is the operator they are joined by.
    fn split(self, x: &BExpr) -> Option<(&BExpr, &BExpr)> {
        match (self, x) {
            (Junction::And, BExpr::And(a, b)) | (Junction::Or, BExpr::Or(a, b)) => Some((a, b)),
            _ => None,
        }
    }

    /// The operands of the chain `x`, in order, onto `out`.
    pub(super) fn operands<'x>(self, x: &'x BExpr, out: &mut Vec<&'x BExpr>) {
        match self.split(x) {
            Some((a, b)) => {
                self.operands(a, out);
                self.operands(b, out);
            }
            None => out.push(x),
        }
    }
}

impl Compiler<'_> {
    /// `not a`: moved inward where that saves a closure (see [`negated`]),
    /// and a boolean variable's as a comparison with false.
    pub(super) fn negation(&self, a: &BExpr) -> BFn {
        if let BExpr::Var(p, v) = a {
            if let Some(pa) = self.plain(&IExpr::Var(p.clone(), *v)) {
                return fused_cmp(Cmp::Eq, pa, Plain::Const(0), self.stride);
            }
        }
        if let Some(inward) = negated(a) {
            return self.bexpr(&inward);
        }
        let f = self.bexpr(a);
        boolean(move |e| Ok(!f.holds(e)?))
    }

    /// `a op b` for `op` a junction, with the whole chain `a` and `b` make.
    pub(super) fn junction(&self, op: Junction, a: &BExpr, b: &BExpr) -> BFn {
        let mut parts = Vec::new();
        op.operands(a, &mut parts);
        op.operands(b, &mut parts);
        // Operands of a fixed value (`repair == 0` of a parameter): one
        // that decides before any other is evaluated decides the whole;
        // one that cannot decide (`true` in an `and`) is left out. One
        // that decides after others is kept: they still run first.
        let decides = op == Junction::Or;
        let mut kept: Vec<&BExpr> = Vec::with_capacity(parts.len());
        for part in parts {
            match self.truth_of(part) {
                Some(t) if t == decides && kept.is_empty() => return boolean(move |_| Ok(decides)),
                Some(t) if t != decides => {}
                _ => kept.push(part),
            }
        }
        let parts = kept;
        match parts[..] {
            [] => return boolean(move |_| Ok(!decides)),
            [only] => return self.bexpr(only),
            _ => {}
        }
        if let Some(chain) = self.led_chain(op, &parts) {
            return chain;
        }
        if let [a, b] = parts[..] {
            let (fa, fb) = (self.bexpr(a), self.bexpr(b));
            return match op {
                Junction::And => boolean(move |e| Ok(fa.holds(e)? && fb.holds(e)?)),
                Junction::Or => boolean(move |e| Ok(fa.holds(e)? || fb.holds(e)?)),
            };
        }
        let fs: Vec<BFn> = parts.iter().map(|x| self.bexpr(x)).collect();
        // One loop for each operator, so that neither tests which it is.
        match op {
            Junction::And => boolean(move |e| {
                for f in &fs {
                    if !f.holds(e)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }),
            Junction::Or => boolean(move |e| {
                for f in &fs {
                    if f.holds(e)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }),
        }
    }

    /// The chain `parts` (at least two) of `op` where its first operand
    /// compares an own variable with a constant or with the process
    /// itself (SSLE's `color == 0`, `parent == self`): that comparison
    /// made in the chain's closure, not called for (a call costs more
    /// than the comparison); `None` where the first operand is not so.
    fn led_chain(&self, op: Junction, parts: &[&BExpr]) -> Option<BFn> {
        let (BExpr::Cmp(cmp, a, b), rest) = parts.split_first()? else {
            return None;
        };
        let lead = match (self.plain(a)?, self.plain(b)?) {
            (Plain::Own(slot), Plain::Const(c)) => (*cmp, slot, Some(c)),
            (Plain::Own(slot), Plain::Me) => (*cmp, slot, None),
            (Plain::Const(c), Plain::Own(slot)) => (cmp.swapped(), slot, Some(c)),
            (Plain::Me, Plain::Own(slot)) => (cmp.swapped(), slot, None),
            _ => return None,
        };
        let rest: Vec<BFn> = rest.iter().map(|x| self.bexpr(x)).collect();
        Some(led_by(op, lead, rest, self.stride))
    }

    /// The value of `x` where it is fixed by the instance (constants,
    /// parameters, `n`; see [`ir::fixed_truth`]); `None` where it depends
    /// on the state.
    pub(super) fn truth_of(&self, x: &BExpr) -> Option<bool> {
        ir::fixed_truth(x, &|e| const_eval(e, &self.params, self.n))
    }
}

/// `not x` with the negation moved inward, where that leaves a closure
/// fewer: through `and` and `or` (De Morgan: the same operands are
/// evaluated in the same order, the same ones skipped, so the same faults
/// happen), into a comparison (the opposite operator), `==` of booleans
/// or `implies`, or dropped with a double negation; `None` where it stays.
fn negated(x: &BExpr) -> Option<BExpr> {
    let not = |x: &BExpr| Box::new(BExpr::Not(Box::new(x.clone())));
    Some(match x {
        BExpr::Const(b) => BExpr::Const(!b),
        BExpr::Not(a) => (**a).clone(),
        BExpr::Cmp(op, a, b) => BExpr::Cmp(op.negated(), a.clone(), b.clone()),
        BExpr::And(a, b) => BExpr::Or(not(a), not(b)),
        BExpr::Or(a, b) => BExpr::And(not(a), not(b)),
        BExpr::Implies(a, b) => BExpr::And(a.clone(), not(b)),
        BExpr::BoolEq(eq, a, b) => BExpr::BoolEq(!eq, a.clone(), b.clone()),
        _ => return None,
    })
}

/// A chain of `op` whose first operand compares own slot `slot` by `cmp`
/// with a constant (or, `None`, the process itself), then `rest`, in
/// order: one closure for each operator and comparison, the comparison
/// in line.
fn led_by(
    op: Junction,
    (cmp, slot, value): (Cmp, usize, Option<i64>),
    rest: Vec<BFn>,
    stride: usize,
) -> BFn {
    let decides = op == Junction::Or;
    // Whether the first operand decides the chain (`OP` a constant where
    // this is in line).
    #[inline(always)]
    fn first_decides(
        e: &Env,
        op: Cmp,
        (slot, value, stride): (usize, Option<i64>, usize),
        decides: bool,
    ) -> bool {
        let against = value.unwrap_or(e.me as i64);
        op.holds(e.state[e.me * stride + slot], against) == decides
    }
    let lead = (slot, value, stride);
    match <[BFn; 1]>::try_from(rest) {
        // Two operands: the second's value is the chain's.
        Ok([then]) => ir::specialize_cmp!(cmp, OP => boolean(move |e| {
            if first_decides(e, OP, lead, decides) {
                return Ok(decides);
            }
            then.holds(e)
        })),
        Err(rest) => ir::specialize_cmp!(cmp, OP => boolean(move |e| {
            if first_decides(e, OP, lead, decides) {
                return Ok(decides);
            }
            for f in &rest {
                if f.holds(e)? == decides {
                    return Ok(decides);
                }
            }
            Ok(!decides)
        })),
    }
}
