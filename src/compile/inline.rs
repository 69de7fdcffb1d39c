//! Guards and statements a run loop can evaluate itself, without calling
//! their closures: a guard that compares two reads, and a statement that
//! assigns one, where each read is a constant, the process's own
//! variable or, on a ring, its left neighbour's (Dijkstra's `x !=
//! left.x -> x := left.x`). The lean ring loop
//! (`runtime/engine/lean_ring.rs`) takes them. They mean what the
//! closures compiled from the same action do: the reads are those a
//! fused closure makes ([`super::fused`]), neither can fault, and the
//! value assigned lies in its variable's domain, so the closure checks
//! nothing either.

use super::fused::Plain;
use super::Compiler;
use crate::check::ir::{self, BExpr, Cmp, IExpr, Value, VarKind};

/// A read an inline guard or statement makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InlineRead {
    /// A constant.
    Const(i64),
    /// A slot of the process's own row.
    Own(usize),
    /// A slot of its left neighbour's row, on a ring.
    Left(usize),
}

impl InlineRead {
    /// Its value in `state` (rows of `stride` values) for process `me`,
    /// whose left neighbour is `left`.
    #[inline(always)]
    pub fn get(self, state: &[i64], stride: usize, me: usize, left: usize) -> i64 {
        match self {
            InlineRead::Const(c) => c,
            InlineRead::Own(slot) => state[me * stride + slot],
            InlineRead::Left(slot) => state[left * stride + slot],
        }
    }
}

/// A guard `a op b` of two reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineGuard {
    /// The comparison.
    pub op: Cmp,
    /// Its left side.
    pub a: InlineRead,
    /// Its right side.
    pub b: InlineRead,
}

impl InlineGuard {
    /// Whether it holds (as [`InlineRead::get`] reads).
    #[inline(always)]
    pub fn holds(&self, state: &[i64], stride: usize, me: usize, left: usize) -> bool {
        let read = |r: InlineRead| r.get(state, stride, me, left);
        self.op.holds(read(self.a), read(self.b))
    }
}

/// A statement `slot := value` of one read, whose values all lie in the
/// variable's domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineAssign {
    /// The slot of the mover's row it writes.
    pub slot: usize,
    /// The value it writes, read before the move.
    pub value: InlineRead,
}

impl Compiler<'_> {
    /// Guard `g` as an inline guard, where it is one (this compiler
    /// compiling guards).
    pub(super) fn inline_guard(&self, g: &BExpr) -> Option<InlineGuard> {
        let BExpr::Cmp(op, a, b) = g else {
            return None;
        };
        Some(InlineGuard {
            op: *op,
            a: self.inline_read(a)?,
            b: self.inline_read(b)?,
        })
    }

    /// Statement `s` as an inline assignment, where it is one (this
    /// compiler compiling guards, as an action's statement reads before it
    /// writes: see `Compiler::stmt_after`).
    pub(super) fn inline_assign(&self, s: &ir::Stmt) -> Option<InlineAssign> {
        let (targets, values) = match s {
            ir::Stmt::Assign(targets, values) => (targets, values),
            ir::Stmt::Seq(v) => match &v[..] {
                [ir::Stmt::Assign(targets, values)] => (targets, values),
                _ => return None,
            },
            _ => return None,
        };
        let ([target], [value @ Value::Int(x)]) = (&targets[..], &values[..]) else {
            return None;
        };
        let var = &self.prog.vars[target.var];
        let scalar = target.index.is_none() && var.len.is_none() && !self.per_nbr[target.var];
        if !scalar || var.kind != VarKind::Plain || !self.within_domain(target, value) {
            return None;
        }
        Some(InlineAssign {
            slot: self.offsets[target.var],
            value: self.inline_read(x)?,
        })
    }

    /// `e` as an inline read, where it is one.
    fn inline_read(&self, e: &IExpr) -> Option<InlineRead> {
        match self.plain(e)? {
            Plain::Const(c) => Some(InlineRead::Const(c)),
            Plain::Own(slot) => Some(InlineRead::Own(slot)),
            Plain::Left(slot, _) => Some(InlineRead::Left(slot)),
            _ => None,
        }
    }
}
