//! A walk over the IR that reports every variable read (with the process
//! read and the element's index) and, optionally, every part on the way:
//! what the analyses of reads (`guard_reads.rs`, `own_reads.rs`,
//! `observes.rs`) are built on.

use super::*;

/// A part of an expression [`ReadWalk`] passes to its `each`.
#[derive(Clone, Copy)]
pub(super) enum Part<'e> {
    Int(&'e IExpr),
    Proc(&'e Proc),
    /// `enabled(q)`: whether a process is enabled, which is no variable.
    Enabled,
    /// A `forall` or `exists`.
    Quantifier(&'e BExpr),
    /// A local slot bound: to the members of a collection, or (`None`) to
    /// a value that is not one (`let`, `acyclic`'s pair).
    Bound(usize, Option<&'e Coll>),
}

/// Calls `visit` with every variable read's process, variable and index
/// (an element's), everywhere in what it walks; and `each`, if given, with
/// every integer expression, process named, quantifier and local bound.
pub(super) struct ReadWalk<'v> {
    pub(super) visit: &'v mut dyn FnMut(&Proc, usize, Option<&IExpr>),
    pub(super) each: Option<&'v mut dyn FnMut(Part)>,
}

impl ReadWalk<'_> {
    /// Walks all of `action`: its guard, statement, binder and priority.
    pub(super) fn action(&mut self, action: &Action) {
        self.b(&action.guard);
        self.stmt(&action.body);
        if let Some(binder) = &action.binder {
            self.binder(binder);
        }
        if let Some((priority, _)) = &action.priority {
            self.i(priority);
        }
    }

    pub(super) fn b(&mut self, b: &BExpr) {
        match b {
            BExpr::Const(_) => {}
            BExpr::Var(p, v) => self.read(p, *v, None),
            BExpr::Not(a) => self.b(a),
            BExpr::And(a, c) | BExpr::Or(a, c) | BExpr::Implies(a, c) | BExpr::BoolEq(_, a, c) => {
                self.b(a);
                self.b(c);
            }
            BExpr::Cmp(_, a, c) => {
                self.i(a);
                self.i(c);
            }
            BExpr::Forall(slot, coll, body) | BExpr::Exists(slot, coll, body) => {
                if let Some(each) = self.each.as_mut() {
                    each(Part::Quantifier(b));
                    each(Part::Bound(*slot, Some(coll)));
                }
                self.coll(coll);
                self.b(body);
            }
            BExpr::Enabled(p) => {
                if let Some(each) = self.each.as_mut() {
                    each(Part::Enabled);
                }
                self.proc(p)
            }
            BExpr::Elem(p, v, i, _) => {
                self.read(p, *v, Some(i));
                self.i(i);
            }
            BExpr::ArrayCmp(_, p, v, q, w, _) => {
                self.read(p, *v, None);
                self.read(q, *w, None);
            }
            BExpr::Acyclic(s, t, body) => {
                if let Some(each) = self.each.as_mut() {
                    each(Part::Bound(*s, None));
                    each(Part::Bound(*t, None));
                }
                self.b(body)
            }
        }
    }

    pub(super) fn i(&mut self, e: &IExpr) {
        if let Some(each) = self.each.as_mut() {
            each(Part::Int(e));
            match e {
                IExpr::Count(s, coll, _) | IExpr::Sum(s, coll, ..) => {
                    each(Part::Bound(*s, Some(coll)))
                }
                IExpr::Best(b) => each(Part::Bound(b.slot, Some(&b.coll))),
                IExpr::Random(d, _) => {
                    if let Draw::Member { slot, coll, .. } = &**d {
                        each(Part::Bound(*slot, Some(coll)));
                    }
                }
                // `min(q in C : k)` is the best member's key: its local
                // names a member of C.
                IExpr::Let(s, value, _) => match &**value {
                    IExpr::Best(b) => each(Part::Bound(*s, Some(&b.coll))),
                    _ => each(Part::Bound(*s, None)),
                },
                _ => {}
            }
        }
        match e {
            IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg | IExpr::Local(_) => {}
            IExpr::Var(p, v) => self.read(p, *v, None),
            IExpr::Index(p) | IExpr::Id(p) | IExpr::NodeOf(p) | IExpr::Side(p, _, _) => {
                self.proc(p)
            }
            IExpr::Neg(a, _) | IExpr::Abs(a, _) => self.i(a),
            IExpr::Arith(_, a, b, _) | IExpr::Let(_, a, b) => {
                self.i(a);
                self.i(b);
            }
            IExpr::Random(d, _) => match &**d {
                Draw::Range(a, b) => {
                    self.i(a);
                    self.i(b);
                }
                Draw::Member { coll, filter, .. } => {
                    self.coll(coll);
                    if let Some(f) = filter {
                        self.b(f);
                    }
                }
            },
            IExpr::Count(_, coll, body) => {
                self.coll(coll);
                self.b(body);
            }
            IExpr::Sum(_, coll, filter, body, _) => {
                self.coll(coll);
                self.b(filter);
                self.i(body);
            }
            IExpr::Cond(c, a, b) => {
                self.b(c);
                self.i(a);
                self.i(b);
            }
            IExpr::Elem(p, v, i, _) => {
                self.read(p, *v, Some(i));
                self.i(i);
            }
            IExpr::Best(b) => {
                self.coll(&b.coll);
                if let Some(f) = &b.filter {
                    self.b(f);
                }
                b.keys.iter().for_each(|k| self.i(k));
            }
            IExpr::FromBool(b) => self.b(b),
            IExpr::Msgs(p, q, _, _) => {
                self.proc(p);
                self.proc(q);
            }
        }
    }

    fn read(&mut self, p: &Proc, v: usize, index: Option<&IExpr>) {
        (self.visit)(p, v, index);
        self.proc(p);
    }

    fn proc(&mut self, p: &Proc) {
        if let Some(each) = self.each.as_mut() {
            each(Part::Proc(p));
        }
        match p {
            Proc::Through(v) => (self.visit)(&Proc::Me, *v, None),
            Proc::At(e, _) | Proc::Via(e, _) => self.i(e),
            _ => {}
        }
    }

    fn coll(&mut self, c: &Coll) {
        match c {
            Coll::NbrsOf(p) => self.proc(p),
            Coll::Procs => {}
            Coll::Range(a, b, _) => {
                self.i(a);
                self.i(b);
            }
        }
    }

    pub(super) fn binder(&mut self, binder: &Binder) {
        if let Some(each) = self.each.as_mut() {
            each(Part::Bound(binder.slot, Some(&binder.coll)));
        }
        self.coll(&binder.coll);
        if let Some(f) = &binder.filter {
            self.b(f);
        }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Int(e) => self.i(e),
            Value::Bool(b) => self.b(b),
            Value::Array(p, v) => self.read(p, *v, None),
        }
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Skip => {}
            Stmt::Assign(targets, values) => {
                for t in targets {
                    if let Some(i) = &t.index {
                        self.i(i);
                    }
                }
                values.iter().for_each(|v| self.value(v));
            }
            Stmt::For(binder, body) => {
                self.binder(binder);
                self.stmt(body);
            }
            Stmt::Send(_, values, to, _) => {
                values.iter().for_each(|v| self.value(v));
                self.i(to);
            }
            Stmt::Seq(list) => list.iter().for_each(|s| self.stmt(s)),
            Stmt::If(c, a, b) => {
                self.b(c);
                self.stmt(a);
                self.stmt(b);
            }
        }
    }
}
