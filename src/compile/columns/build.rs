//! Building the column form: guards and statements lowered to
//! operations over registers (constants, temporaries, columns of the
//! configuration), loops over constant ranges unrolled.

use super::*;

/// Compiles a program's column form, or `None` when some guard or
/// statement reads or writes anything but what [`Src`] names.
pub(in crate::compile) fn compile(c: &Compiler, roles: &[Vec<&ir::Action>]) -> Option<ColumnCode> {
    if !c.regular_ring {
        return None;
    }
    let mut b = Builder {
        c,
        constants: Vec::new(),
        ops: Vec::new(),
        next: 0,
        most: 0,
        unrolled: Vec::new(),
    };
    let mut out = Vec::new();
    for actions in roles {
        let mut cols = Vec::new();
        for a in actions {
            if a.binder.is_some() || a.receive.is_some() {
                return None;
            }
            b.start();
            let value = b.bexpr(&a.guard)?;
            let mut ops = std::mem::take(&mut b.ops);
            let last_cmp = match ops.last() {
                Some(&Op::Cmp(cmp, x, y, o)) if matches!(value, Src::Reg(r) if r == o) => {
                    ops.pop();
                    Some((cmp, x, y))
                }
                _ => None,
            };
            let guard = Kernel { ops, value };
            let mut body = Vec::new();
            b.stmt(&a.body, &mut body)?;
            let rewrites_row = match &body[..] {
                [g] => {
                    let reads_own = g.ops.iter().any(|op| op.reads_own());
                    let mut slots: Vec<usize> = g.writes.iter().map(|w| w.slot).collect();
                    slots.sort_unstable();
                    slots.dedup();
                    !reads_own && slots.len() == c.stride
                }
                _ => false,
            };
            cols.push(ColAction {
                guard,
                last_cmp,
                rewrites_row,
                body,
            });
        }
        out.push(cols);
    }
    // Temporaries were numbered from CONSTANT_REGISTERS: move them down to
    // just after the constants used.
    let shift = CONSTANT_REGISTERS - b.constants.len();
    let fix = |s: &mut Src| {
        if let Src::Reg(r) = s {
            if *r >= CONSTANT_REGISTERS {
                *r -= shift;
            }
        }
    };
    let fix_ops = |ops: &mut Vec<Op>| {
        for op in ops {
            match op {
                Op::Arith(_, a, b, o)
                | Op::Cmp(_, a, b, o)
                | Op::And(a, b, o)
                | Op::Or(a, b, o)
                | Op::BoolEq(_, a, b, o) => {
                    fix(a);
                    fix(b);
                    *o -= shift;
                }
                Op::Neg(a, o) | Op::Abs(a, o) | Op::Not(a, o) | Op::Copy(a, o) => {
                    fix(a);
                    *o -= shift;
                }
            }
        }
    };
    for act in out.iter_mut().flatten() {
        fix_ops(&mut act.guard.ops);
        fix(&mut act.guard.value);
        if let Some((_, x, y)) = &mut act.last_cmp {
            fix(x);
            fix(y);
        }
        for g in &mut act.body {
            fix_ops(&mut g.ops);
            for w in &mut g.writes {
                fix(&mut w.value);
            }
        }
    }
    let narrow = |d: &VarDomain| match *d {
        VarDomain::Range(lo, hi) => i32::try_from(lo).is_ok() && i32::try_from(hi).is_ok(),
        VarDomain::Bool => true,
        VarDomain::Enum(k) => i32::try_from(k).is_ok(),
        VarDomain::Node => false,
    };
    Some(ColumnCode {
        roles: out,
        registers: b.constants.len() + b.most,
        constants: b.constants,
        stride: c.stride,
        narrows: c.domains.iter().all(narrow),
    })
}

struct Builder<'a, 'b> {
    c: &'a Compiler<'b>,
    constants: Vec<i64>,
    ops: Vec<Op>,
    /// The next free temporary (counted after the constants).
    next: usize,
    /// The most temporaries any expression needed.
    most: usize,
    /// Loop variables of the loops being unrolled, innermost last: (slot, value).
    unrolled: Vec<(usize, i64)>,
}

/// The most iterations a loop over a range is unrolled into.
const MAX_UNROLL: i64 = 64;

/// Temporaries start after this many registers, which constants may use.
const CONSTANT_REGISTERS: usize = 64;

impl Builder<'_, '_> {
    /// Starts an expression: its temporaries may reuse the previous one's.
    fn start(&mut self) {
        self.next = 0;
        self.ops.clear();
    }

    fn constant(&mut self, v: i64) -> Option<Src> {
        let k = match self.constants.iter().position(|&c| c == v) {
            Some(k) => k,
            None if self.constants.len() < CONSTANT_REGISTERS => {
                self.constants.push(v);
                self.constants.len() - 1
            }
            None => return None,
        };
        Some(Src::Reg(k))
    }

    fn temp(&mut self) -> usize {
        let r = CONSTANT_REGISTERS + self.next;
        self.next += 1;
        self.most = self.most.max(self.next);
        r
    }

    /// The slot of an own scalar variable, or of an array element at a
    /// constant index: the only storage column kernels read or write.
    fn slot(&self, v: usize, index: Option<&IExpr>) -> Option<usize> {
        match index {
            None => self.element(v, None),
            Some(i) => self.element(v, Some(self.value_of(i)?)),
        }
    }

    /// [`Builder::slot`] with the index known.
    fn element(&self, v: usize, index: Option<i64>) -> Option<usize> {
        let var = &self.c.prog.vars[v];
        if var.kind != VarKind::Plain || var.per_nbr || var.ty == ir::Ty::Node {
            return None;
        }
        match (index, &var.len) {
            (None, None) => Some(self.c.offsets[v]),
            (Some(i), Some(_)) => (0..self.c.lens[v] as i64)
                .contains(&i)
                .then(|| self.c.offsets[v] + i as usize),
            _ => None,
        }
    }

    /// The value of an expression known at compile time: constants,
    /// parameters, and the variables of loops being unrolled.
    fn value_of(&self, e: &IExpr) -> Option<i64> {
        match e {
            IExpr::Local(slot) => self
                .unrolled
                .iter()
                .rev()
                .find(|(s, _)| s == slot)
                .map(|&(_, v)| v),
            IExpr::Arith(op, a, b, _) => op.apply(self.value_of(a)?, self.value_of(b)?),
            IExpr::Neg(a, _) => ir::negate(self.value_of(a)?),
            e => const_eval(e, &self.c.params, self.c.n),
        }
    }

    /// The values a loop over `lo..hi` unrolls into, when few enough.
    fn unroll(&self, coll: &ir::Coll) -> Option<std::ops::RangeInclusive<i64>> {
        let ir::Coll::Range(lo, hi, _) = coll else {
            return None;
        };
        let (lo, hi) = (self.value_of(lo)?, self.value_of(hi)?);
        (hi.saturating_sub(lo) < MAX_UNROLL).then_some(lo..=hi)
    }

    /// Bounds every value of `src` is known to lie within.
    fn bounds(&self, src: Src) -> Option<(i64, i64)> {
        match src {
            Src::Own(slot) | Src::Left(slot) | Src::Right(slot) => {
                let v = self.c.offsets.partition_point(|&o| o <= slot) - 1;
                match self.c.domains[v] {
                    VarDomain::Range(lo, hi) => Some((lo, hi)),
                    VarDomain::Bool => Some((0, 1)),
                    VarDomain::Enum(k) => Some((0, k as i64 - 1)),
                    VarDomain::Node => None,
                }
            }
            Src::Reg(r) => self.constants.get(r).map(|&c| (c, c)),
            Src::Index | Src::Id => None,
        }
    }

    /// A variable of the process itself or a ring neighbour.
    fn var(&mut self, p: &Proc, v: usize, index: Option<&IExpr>) -> Option<Src> {
        let slot = self.slot(v, index)?;
        self.var_at(p, slot)
    }

    /// A slot of the process itself or a ring neighbour.
    fn var_at(&self, p: &Proc, slot: usize) -> Option<Src> {
        match p {
            Proc::Me => Some(Src::Own(slot)),
            Proc::Left(_) => Some(Src::Left(slot)),
            Proc::Right(_) => Some(Src::Right(slot)),
            _ => None,
        }
    }

    fn op(&mut self, make: impl FnOnce(usize) -> Op) -> Option<Src> {
        let r = self.temp();
        self.ops.push(make(r));
        Some(Src::Reg(r))
    }

    fn iexpr(&mut self, e: &IExpr) -> Option<Src> {
        if let Some(v) = self.value_of(e) {
            return self.constant(v);
        }
        match e {
            IExpr::Var(p, v) => self.var(p, *v, None),
            IExpr::Elem(p, v, i, _) => self.var(p, *v, Some(i)),
            IExpr::Index(Proc::Me) => Some(Src::Index),
            IExpr::Id(Proc::Me) => Some(Src::Id),
            IExpr::Neg(a, _) => {
                let a = self.iexpr(a)?;
                self.op(|o| Op::Neg(a, o))
            }
            IExpr::Abs(a, _) => {
                let a = self.iexpr(a)?;
                self.op(|o| Op::Abs(a, o))
            }
            IExpr::Arith(op, a, b, _) => {
                let (a, b) = (self.iexpr(a)?, self.iexpr(b)?);
                self.op(|o| Op::Arith(*op, a, b, o))
            }
            IExpr::FromBool(b) => self.bexpr(b),
            _ => None,
        }
    }

    fn bexpr(&mut self, e: &BExpr) -> Option<Src> {
        match e {
            BExpr::Const(b) => self.constant(i64::from(*b)),
            BExpr::Var(p, v) => self.var(p, *v, None),
            BExpr::Elem(p, v, i, _) => self.var(p, *v, Some(i)),
            BExpr::Not(a) => {
                let a = self.bexpr(a)?;
                self.op(|o| Op::Not(a, o))
            }
            BExpr::And(a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                self.op(|o| Op::And(a, b, o))
            }
            BExpr::Or(a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                self.op(|o| Op::Or(a, b, o))
            }
            BExpr::Implies(a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                let na = self.op(|o| Op::Not(a, o))?;
                self.op(|o| Op::Or(na, b, o))
            }
            BExpr::BoolEq(eq, a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                self.op(|o| Op::BoolEq(*eq, a, b, o))
            }
            BExpr::Cmp(op, a, b) => {
                let (a, b) = (self.iexpr(a)?, self.iexpr(b)?);
                self.op(|o| Op::Cmp(*op, a, b, o))
            }
            // Over a constant range: unrolled into a chain of `and`s (`or`s).
            BExpr::Forall(slot, coll, body) | BExpr::Exists(slot, coll, body) => {
                let all = matches!(e, BExpr::Forall(..));
                let mut acc = self.constant(i64::from(all))?;
                for i in self.unroll(coll)? {
                    self.unrolled.push((*slot, i));
                    let b = self.bexpr(body);
                    self.unrolled.pop();
                    let b = b?;
                    acc = if all {
                        self.op(|o| Op::And(acc, b, o))?
                    } else {
                        self.op(|o| Op::Or(acc, b, o))?
                    };
                }
                Some(acc)
            }
            // Element by element.
            BExpr::ArrayCmp(cmp @ (Cmp::Eq | Cmp::Ne), p, v, q, w, _) => {
                let len = self.c.lens[*v].min(self.c.lens[*w]);
                let mut acc = self.constant(1)?;
                for k in 0..len as i64 {
                    let a = self.var_at(p, self.element(*v, Some(k))?)?;
                    let b = self.var_at(q, self.element(*w, Some(k))?)?;
                    let same = self.op(|o| Op::Cmp(Cmp::Eq, a, b, o))?;
                    acc = self.op(|o| Op::And(acc, same, o))?;
                }
                if *cmp == Cmp::Eq {
                    Some(acc)
                } else {
                    self.op(|o| Op::Not(acc, o))
                }
            }
            _ => None,
        }
    }

    /// Flattens a statement into groups of simultaneous assignments.
    fn stmt(&mut self, s: &Stmt, out: &mut Vec<Group>) -> Option<()> {
        match s {
            Stmt::Skip => Some(()),
            Stmt::Seq(list) => list.iter().try_for_each(|s| self.stmt(s, out)),
            Stmt::For(binder, body) if binder.filter.is_none() => {
                for i in self.unroll(&binder.coll)? {
                    self.unrolled.push((binder.slot, i));
                    let done = self.stmt(body, out);
                    self.unrolled.pop();
                    done?;
                }
                Some(())
            }
            Stmt::Assign(targets, values) => {
                self.start();
                /// What one slot is assigned.
                enum Rhs<'v> {
                    Int(&'v IExpr),
                    Bool(&'v BExpr),
                    /// A slot of a process: an element of a whole-array copy.
                    Slot(&'v Proc, usize),
                }
                // A whole array assigned from another is one write per element.
                let mut pairs: Vec<(usize, usize, Rhs)> = Vec::new();
                for (t, v) in targets.iter().zip(values) {
                    match v {
                        Value::Array(p, w) if t.index.is_none() => {
                            let len = self.c.lens[t.var].min(self.c.lens[*w]);
                            for k in 0..len as i64 {
                                let slot = self.element(t.var, Some(k))?;
                                let from = self.element(*w, Some(k))?;
                                pairs.push((t.var, slot, Rhs::Slot(p, from)));
                            }
                        }
                        Value::Array(..) => return None,
                        Value::Int(e) => {
                            pairs.push((t.var, self.slot(t.var, t.index.as_ref())?, Rhs::Int(e)))
                        }
                        Value::Bool(b) => {
                            pairs.push((t.var, self.slot(t.var, t.index.as_ref())?, Rhs::Bool(b)))
                        }
                    }
                }
                let mut writes = Vec::new();
                for (var, slot, rhs) in pairs {
                    let value = match rhs {
                        Rhs::Int(e) => self.iexpr(e)?,
                        Rhs::Bool(b) => self.bexpr(b)?,
                        Rhs::Slot(p, from) => self.var_at(p, from)?,
                    };
                    let known = self.bounds(value);
                    // Own values are read from the rows being written: keep them first.
                    let value = match value {
                        Src::Own(_) => self.op(|o| Op::Copy(value, o))?,
                        v => v,
                    };
                    let range = match self.c.domains[var] {
                        // A value read from a variable whose domain lies
                        // within, or a constant within, needs no check.
                        VarDomain::Range(lo, hi) => match known {
                            Some((l, h)) if lo <= l && h <= hi => None,
                            _ => Some((lo, hi)),
                        },
                        VarDomain::Bool | VarDomain::Enum(_) => None,
                        VarDomain::Node => return None,
                    };
                    writes.push(Write { slot, value, range });
                }
                out.push(Group {
                    ops: std::mem::take(&mut self.ops),
                    writes,
                });
                Some(())
            }
            Stmt::For(..) | Stmt::Send(..) | Stmt::If(..) => None,
        }
    }
}
