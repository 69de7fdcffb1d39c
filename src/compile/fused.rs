//! Fused reads: a comparison of two plain reads (a constant, an own
//! variable, the left neighbour's on a ring, the number of enabled
//! processes) compiled as one closure specialized for the two kinds of
//! read, the commonest guard of the papers' programs.

use super::*;

/// A value a fused closure reads directly (see `Compiler::plain`).
#[derive(Clone, Copy)]
pub(super) enum Plain {
    Const(i64),
    /// A slot of the process's own row.
    Own(usize),
    /// A slot of the left neighbour's row on a `ring`/`uring` of `n` processes.
    Left(usize, usize),
    /// `count(p in procs : enabled(p))`, which the runtime keeps.
    EnabledCount,
}

/// A plain read of a kind fixed when the closure is made, so that a fused
/// comparison is compiled for its pair of kinds and decides nothing at run
/// time.
trait PlainRead: Copy + Send + Sync + 'static {
    fn get(self, e: &Env, stride: usize) -> i64;
}

#[derive(Clone, Copy)]
struct ReadConst(i64);

#[derive(Clone, Copy)]
struct ReadOwn(usize);

#[derive(Clone, Copy)]
struct ReadLeft(usize, usize);

#[derive(Clone, Copy)]
struct ReadEnabledCount;

impl PlainRead for ReadConst {
    #[inline(always)]
    fn get(self, _: &Env, _: usize) -> i64 {
        self.0
    }
}

impl PlainRead for ReadOwn {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        e.state[e.me * stride + self.0]
    }
}

impl PlainRead for ReadLeft {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        let ReadLeft(slot, n) = self;
        let q = if e.me == 0 { n - 1 } else { e.me - 1 };
        e.state[q * stride + slot]
    }
}

impl PlainRead for ReadEnabledCount {
    #[inline(always)]
    fn get(self, e: &Env, _: usize) -> i64 {
        e.enabled_count as i64
    }
}

/// `a op b` for two plain reads: one closure, specialized for the kinds of
/// both reads.
pub(super) fn fused_cmp(op: Cmp, a: Plain, b: Plain, stride: usize) -> BFn {
    fn with_a<A: PlainRead>(op: Cmp, a: A, b: Plain, stride: usize) -> BFn {
        match b {
            Plain::Const(c) => both(op, a, ReadConst(c), stride),
            Plain::Own(slot) => both(op, a, ReadOwn(slot), stride),
            Plain::Left(slot, n) => both(op, a, ReadLeft(slot, n), stride),
            Plain::EnabledCount => both(op, a, ReadEnabledCount, stride),
        }
    }
    fn both<A: PlainRead, B: PlainRead>(op: Cmp, a: A, b: B, stride: usize) -> BFn {
        ir::specialize_cmp!(op, OP => Box::new(move |e| Ok(OP.holds(a.get(e, stride), b.get(e, stride)))))
    }
    match a {
        Plain::Const(c) => with_a(op, ReadConst(c), b, stride),
        Plain::Own(slot) => with_a(op, ReadOwn(slot), b, stride),
        Plain::Left(slot, n) => with_a(op, ReadLeft(slot, n), b, stride),
        Plain::EnabledCount => with_a(op, ReadEnabledCount, b, stride),
    }
}

impl Compiler<'_> {
    /// A read of slot `slot` of the process `p` denotes.
    /// `e` as a plain read a fused closure can make without calls: a
    /// constant, the number of enabled processes, or in a guard an own
    /// variable or, on a ring, the left neighbour's.
    pub(super) fn plain(&self, e: &IExpr) -> Option<Plain> {
        if let Some(c) = const_eval(e, &self.params, self.n) {
            return Some(Plain::Const(c));
        }
        if let IExpr::Count(slot, Coll::Procs, body) = e {
            if matches!(&**body, BExpr::Enabled(Proc::Local(s)) if s == slot) {
                return Some(Plain::EnabledCount);
            }
        }
        let IExpr::Var(p, v) = e else { return None };
        if self.in_stmt || self.prog.vars[*v].len.is_some() || self.per_nbr[*v] {
            return None;
        }
        match p {
            Proc::Me => Some(Plain::Own(self.offsets[*v])),
            Proc::Left(_) if self.regular_ring => {
                Some(Plain::Left(self.offsets[*v], self.n.n as usize))
            }
            _ => None,
        }
    }
}
