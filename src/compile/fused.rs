//! Fused reads: a comparison of two plain reads (a constant, an own
//! variable, the left neighbour's on a ring, a quantified process's, the
//! one an own variable names, the process itself or a quantified one as a
//! value, the number of enabled processes) compiled as one closure
//! specialized for the two kinds of read, the commonest guard of the
//! papers' programs and of their quantifiers' bodies.

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
    /// A slot of the row of the process a local names (`Q.x`): slot, local.
    Local(usize, usize),
    /// A slot of the row of the process an own variable names
    /// (`parent.x`): the variable's slot, the slot read.
    Through(usize, usize),
    /// The process itself, as a value (`self`, `index`).
    Me,
    /// A local's value (`Q`, `i`).
    LocalValue(usize),
    /// The process's own id.
    MyId,
    /// The id of the process a local names (`Q.id`).
    LocalId(usize),
    /// In a statement, a slot of the process's own row as written so far.
    Scratch(usize),
    /// In a statement, a slot of the left neighbour's row on a
    /// `ring`/`uring` of `n` processes (the row being written on a ring of
    /// one, where the neighbour is the process itself).
    LeftInStatement(usize, usize),
    /// In a statement, a slot of the row of the process a local names
    /// (the row being written where that is the process itself): slot,
    /// local.
    LocalInStatement(usize, usize),
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

#[derive(Clone, Copy)]
struct ReadLocal(usize, usize);

#[derive(Clone, Copy)]
struct ReadThrough(usize, usize);

#[derive(Clone, Copy)]
struct ReadMe;

#[derive(Clone, Copy)]
struct ReadLocalValue(usize);

#[derive(Clone, Copy)]
struct ReadMyId;

#[derive(Clone, Copy)]
struct ReadLocalId(usize);

#[derive(Clone, Copy)]
struct ReadScratch(usize);

#[derive(Clone, Copy)]
struct ReadLeftInStatement(usize, usize);

#[derive(Clone, Copy)]
struct ReadLocalInStatement(usize, usize);

impl PlainRead for ReadConst {
    #[inline(always)]
    fn get(self, _: &Env, _: usize) -> i64 {
        self.0
    }
}

/// Where the row of a process a read names starts: the one definition of
/// which process that is, for reads of one slot and for comparisons of a
/// row's slots (`row_tuples`), which find the row once.
pub(super) trait RowBase: Copy + Send + Sync + 'static {
    fn base(self, e: &Env, stride: usize) -> usize;
}

/// The process itself.
#[derive(Clone, Copy)]
pub(super) struct MeRow;

/// Its left neighbour on a `ring`/`uring` of this many processes.
#[derive(Clone, Copy)]
pub(super) struct LeftRow(pub(super) usize);

/// The process this local names.
#[derive(Clone, Copy)]
pub(super) struct LocalRow(pub(super) usize);

/// The process the own variable in this slot names.
#[derive(Clone, Copy)]
pub(super) struct ThroughRow(pub(super) usize);

impl RowBase for MeRow {
    #[inline(always)]
    fn base(self, e: &Env, stride: usize) -> usize {
        e.me * stride
    }
}

impl RowBase for LeftRow {
    #[inline(always)]
    fn base(self, e: &Env, stride: usize) -> usize {
        (if e.me == 0 { self.0 - 1 } else { e.me - 1 }) * stride
    }
}

impl RowBase for LocalRow {
    #[inline(always)]
    fn base(self, e: &Env, stride: usize) -> usize {
        e.locals[self.0].get() as usize * stride
    }
}

impl RowBase for ThroughRow {
    #[inline(always)]
    fn base(self, e: &Env, stride: usize) -> usize {
        e.state[e.me * stride + self.0] as usize * stride
    }
}

impl PlainRead for ReadOwn {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        e.state[MeRow.base(e, stride) + self.0]
    }
}

impl PlainRead for ReadLeft {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        let ReadLeft(slot, n) = self;
        e.state[LeftRow(n).base(e, stride) + slot]
    }
}

impl PlainRead for ReadEnabledCount {
    #[inline(always)]
    fn get(self, e: &Env, _: usize) -> i64 {
        e.enabled_count as i64
    }
}

impl PlainRead for ReadLocal {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        let ReadLocal(slot, local) = self;
        e.state[LocalRow(local).base(e, stride) + slot]
    }
}

impl PlainRead for ReadThrough {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        let ReadThrough(own, slot) = self;
        e.state[ThroughRow(own).base(e, stride) + slot]
    }
}

impl PlainRead for ReadMe {
    #[inline(always)]
    fn get(self, e: &Env, _: usize) -> i64 {
        e.me as i64
    }
}

impl PlainRead for ReadLocalValue {
    #[inline(always)]
    fn get(self, e: &Env, _: usize) -> i64 {
        e.locals[self.0].get()
    }
}

impl PlainRead for ReadMyId {
    #[inline(always)]
    fn get(self, e: &Env, _: usize) -> i64 {
        e.topo.id(e.me)
    }
}

impl PlainRead for ReadLocalId {
    #[inline(always)]
    fn get(self, e: &Env, _: usize) -> i64 {
        e.topo.id(e.locals[self.0].get() as usize)
    }
}

impl PlainRead for ReadScratch {
    #[inline(always)]
    fn get(self, e: &Env, _: usize) -> i64 {
        e.scratch[self.0].get()
    }
}

impl PlainRead for ReadLeftInStatement {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        let ReadLeftInStatement(slot, n) = self;
        let q = if e.me == 0 { n - 1 } else { e.me - 1 };
        if q == e.me {
            e.scratch[slot].get()
        } else {
            e.state[q * stride + slot]
        }
    }
}

impl PlainRead for ReadLocalInStatement {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        let ReadLocalInStatement(slot, local) = self;
        let q = e.locals[local].get() as usize;
        if q == e.me {
            e.scratch[slot].get()
        } else {
            e.state[q * stride + slot]
        }
    }
}

/// Evaluates `$body` with `$read` bound to the statically typed read of
/// plain read `$plain`: one expansion per kind, so that closures built in
/// `$body` are compiled for that kind.
macro_rules! with_read {
    ($plain:expr, $read:ident => $body:expr) => {
        match $plain {
            Plain::Const(x) => {
                let $read = ReadConst(x);
                $body
            }
            Plain::Own(slot) => {
                let $read = ReadOwn(slot);
                $body
            }
            Plain::Left(slot, n) => {
                let $read = ReadLeft(slot, n);
                $body
            }
            Plain::EnabledCount => {
                let $read = ReadEnabledCount;
                $body
            }
            Plain::Local(slot, local) => {
                let $read = ReadLocal(slot, local);
                $body
            }
            Plain::Through(own, slot) => {
                let $read = ReadThrough(own, slot);
                $body
            }
            Plain::Me => {
                let $read = ReadMe;
                $body
            }
            Plain::LocalValue(local) => {
                let $read = ReadLocalValue(local);
                $body
            }
            Plain::MyId => {
                let $read = ReadMyId;
                $body
            }
            Plain::LocalId(local) => {
                let $read = ReadLocalId(local);
                $body
            }
            Plain::Scratch(slot) => {
                let $read = ReadScratch(slot);
                $body
            }
            Plain::LeftInStatement(slot, n) => {
                let $read = ReadLeftInStatement(slot, n);
                $body
            }
            Plain::LocalInStatement(slot, local) => {
                let $read = ReadLocalInStatement(slot, local);
                $body
            }
        }
    };
}

impl Plain {
    /// Whether it reads local `slot` (its value, or the row or id of the
    /// process it names).
    pub(super) fn reads_local(self, slot: usize) -> bool {
        match self {
            Plain::Local(_, l)
            | Plain::LocalValue(l)
            | Plain::LocalId(l)
            | Plain::LocalInStatement(_, l) => l == slot,
            _ => false,
        }
    }

    /// The value read, the kind of read decided now (where a closure is
    /// not specialized for it).
    #[inline(always)]
    pub(super) fn get(self, e: &Env, stride: usize) -> i64 {
        with_read!(self, read => read.get(e, stride))
    }
}

/// `a op b` for two plain reads: one closure, specialized for the kinds of
/// both reads.
pub(super) fn fused_cmp(op: Cmp, a: Plain, b: Plain, stride: usize) -> BFn {
    fn both<A: PlainRead, B: PlainRead>(op: Cmp, a: A, b: B, stride: usize) -> BFn {
        ir::specialize_cmp!(op, OP => boolean(move |e| Ok(OP.holds(a.get(e, stride), b.get(e, stride)))))
    }
    fn with_a<A: PlainRead>(op: Cmp, a: A, b: Plain, stride: usize) -> BFn {
        with_read!(b, read_b => both(op, a, read_b, stride))
    }
    with_read!(a, read_a => with_a(op, read_a, b, stride))
}

/// `slot := a` in a statement, for a plain read `a` whose values all lie
/// in the slot's domain (nothing to check): one closure.
pub(super) fn fused_assign(slot: usize, a: Plain, stride: usize) -> SFn {
    fn with<A: PlainRead>(slot: usize, a: A, stride: usize) -> SFn {
        Box::new(move |e| {
            e.scratch[slot].set(a.get(e, stride));
            Ok(())
        })
    }
    with_read!(a, read => with(slot, read, stride))
}

/// Row `slot` of the process plain read `node` names, read through it
/// (see [`read_through_value`]), as a closure.
pub(super) fn fused_via(node: Plain, slot: usize, span: Span, stride: usize) -> IFn {
    fn with<A: PlainRead>(node: A, slot: usize, span: Span, stride: usize) -> IFn {
        Box::new(move |e| read_through_value(e, node.get(e, stride), slot, stride, span))
    }
    with_read!(node, read => with(read, slot, span, stride))
}

/// The value of plain read `a`, as a closure.
pub(super) fn fused_read(a: Plain, stride: usize) -> IFn {
    fn with<A: PlainRead>(a: A, stride: usize) -> IFn {
        Box::new(move |e| Ok(a.get(e, stride)))
    }
    with_read!(a, read => with(read, stride))
}

/// `a + c` (`c` negative for a subtraction) for a plain read `a`: one
/// closure, overflow a fault at `span` as for any sum.
pub(super) fn fused_offset(a: Plain, c: i64, span: Span, stride: usize) -> IFn {
    fn with<A: PlainRead>(a: A, c: i64, span: Span, stride: usize) -> IFn {
        Box::new(move |e| {
            a.get(e, stride)
                .checked_add(c)
                .map_or_else(|| overflow(span), Ok)
        })
    }
    with_read!(a, read => with(read, c, span, stride))
}

impl Compiler<'_> {
    /// A read of slot `slot` of the process `p` denotes.
    /// `e` as a plain read a fused closure can make without calls: a
    /// constant (or a value that reads no state, see
    /// [`Compiler::state_free_value`]), the number of enabled processes, a
    /// local's value, an id, or in a guard the process itself, an own
    /// variable, on a ring the left neighbour's, a quantified process's or
    /// the one an own variable names.
    pub(super) fn plain(&self, e: &IExpr) -> Option<Plain> {
        if let Some(c) = const_eval(e, &self.params, self.n).or_else(|| self.state_free_value(e)) {
            return Some(Plain::Const(c));
        }
        if let IExpr::Count(slot, Coll::Procs, body) = e {
            if matches!(&**body, BExpr::Enabled(Proc::Local(s)) if s == slot) {
                return Some(Plain::EnabledCount);
            }
        }
        let scalar = |v: usize| self.prog.vars[v].len.is_none() && !self.per_nbr[v];
        match e {
            IExpr::Local(local)
            | IExpr::Index(Proc::Local(local))
            | IExpr::NodeOf(Proc::Local(local)) => {
                return Some(Plain::LocalValue(*local));
            }
            IExpr::Id(Proc::Me) => return Some(Plain::MyId),
            IExpr::Id(Proc::Local(local)) => return Some(Plain::LocalId(*local)),
            // In a statement the process's own row is being written.
            _ if self.in_stmt => return self.plain_in_statement(e),
            IExpr::Index(Proc::Me) | IExpr::NodeOf(Proc::Me) => return Some(Plain::Me),
            _ => {}
        }
        let IExpr::Var(p, v) = e else { return None };
        if !scalar(*v) {
            return None;
        }
        match p {
            Proc::Me => Some(Plain::Own(self.offsets[*v])),
            Proc::Left(_) if self.regular_ring => {
                Some(Plain::Left(self.offsets[*v], self.n.n as usize))
            }
            Proc::Local(local) => Some(Plain::Local(self.offsets[*v], *local)),
            Proc::Through(var) if scalar(*var) => {
                Some(Plain::Through(self.offsets[*var], self.offsets[*v]))
            }
            _ => None,
        }
    }

    /// [`Compiler::plain`] in a statement, where the process's own row is
    /// the one being written (read from the statement's scratch row): the
    /// process itself, an own variable, on a ring the left neighbour's.
    fn plain_in_statement(&self, e: &IExpr) -> Option<Plain> {
        let scalar = |v: usize| self.prog.vars[v].len.is_none() && !self.per_nbr[v];
        match e {
            IExpr::Index(Proc::Me) | IExpr::NodeOf(Proc::Me) => Some(Plain::Me),
            IExpr::Var(Proc::Me, v) if scalar(*v) => Some(Plain::Scratch(self.offsets[*v])),
            IExpr::Var(Proc::Left(_), v) if scalar(*v) && self.regular_ring => {
                Some(Plain::LeftInStatement(self.offsets[*v], self.n.n as usize))
            }
            IExpr::Var(Proc::Local(local), v) if scalar(*v) => {
                Some(Plain::LocalInStatement(self.offsets[*v], *local))
            }
            _ => None,
        }
    }
}
