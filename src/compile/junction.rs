//! Chains of `and` and of `or`: `a and b and c` however it nests, compiled
//! as one closure looping over its operands (a call a link costs more than
//! the loop), evaluated left to right and stopping at the first operand
//! that decides, as the binary operators do.

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
    fn operands<'x>(self, x: &'x BExpr, out: &mut Vec<&'x BExpr>) {
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
    /// `a op b` for `op` a junction, with the whole chain `a` and `b` make.
    pub(super) fn junction(&self, op: Junction, a: &BExpr, b: &BExpr) -> BFn {
        let mut parts = Vec::new();
        op.operands(a, &mut parts);
        op.operands(b, &mut parts);
        if let [a, b] = parts[..] {
            let (fa, fb) = (self.bexpr(a), self.bexpr(b));
            return match op {
                Junction::And => Box::new(move |e| Ok(fa(e)? && fb(e)?)),
                Junction::Or => Box::new(move |e| Ok(fa(e)? || fb(e)?)),
            };
        }
        let fs: Vec<BFn> = parts.iter().map(|x| self.bexpr(x)).collect();
        // One loop for each operator, so that neither tests which it is.
        match op {
            Junction::And => Box::new(move |e| {
                for f in &fs {
                    if !f(e)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }),
            Junction::Or => Box::new(move |e| {
                for f in &fs {
                    if f(e)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }),
        }
    }
}
