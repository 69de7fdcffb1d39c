//! Reads through a process that an equality has shown to be the process
//! itself. Where `N == self` has held (an operand of a conjunction before
//! the others, the premise of an implication, the condition of an
//! `if ... then`), a later read through `N` (`q.parent.x` after `q.parent
//! == self`, SSLE's `Is_True_Chld(q)` among a process's children; or
//! `parent.x` after `parent == self`) reads the process's own row, and the
//! check that `N` names the process or a neighbour passes. Such reads are rewritten as reads of the process
//! itself before compiling, which the fused reads and comparisons of own
//! variables then serve (no check, no read of `N` again, no dispatch on
//! the kind of read).
//!
//! The rewrite keeps every value and every fault: `N` is read again in the
//! same environment (an expression writes nothing, and a binder that
//! rebinds a local `N` reads ends what is known of `N`), a draw is never
//! such an `N`, and a read through the process itself reads what a read of
//! the process reads, in a statement too (the row being written). Across
//! statements nothing is carried: a statement's writes may change `N`.

use crate::check::ir::{
    self, Action, BExpr, Best, Binder, Coll, Draw, IExpr, Proc, Stmt, Target, Value,
};

/// `action` with its reads through a process known to be itself rewritten
/// (see the module's doc): its guard, its binder's filter and the
/// expressions of its statement.
pub(super) fn narrowed_action(action: &Action) -> Action {
    let none = Known(Vec::new());
    Action {
        guard: none.b(&action.guard),
        body: none.stmt(&action.body),
        binder: action.binder.as_ref().map(|b| none.binder(b)),
        ..action.clone()
    }
}

/// The node expressions known to denote the process itself where an
/// expression is evaluated.
#[derive(Clone)]
struct Known(Vec<IExpr>);

/// Whether `e` denotes the process itself.
fn is_me(e: &IExpr) -> bool {
    matches!(e, IExpr::NodeOf(Proc::Me) | IExpr::Index(Proc::Me))
}

impl Known {
    /// What is known once `x` has held as well: the sides of its
    /// equalities with the process itself, `x` a chain of `and`s.
    fn after(&self, x: &BExpr) -> Known {
        let mut known = self.clone();
        known.add_equalities(x);
        known
    }

    fn add_equalities(&mut self, x: &BExpr) {
        match x {
            BExpr::And(a, b) => {
                self.add_equalities(a);
                self.add_equalities(b);
            }
            BExpr::Cmp(ir::Cmp::Eq, a, b) => {
                for (node, other) in [(a, b), (b, a)] {
                    if is_me(other) && !is_me(node) && !ir::draws_i(node) {
                        self.0.push(node.clone());
                    }
                }
            }
            _ => {}
        }
    }

    /// What stays known inside a binder of the local `slots`: what does
    /// not read them.
    fn binding(&self, slots: &[usize]) -> Known {
        Known(
            self.0
                .iter()
                .filter(|n| !ir::reads_locals_i(n, slots))
                .cloned()
                .collect(),
        )
    }

    fn proc(&self, p: &Proc) -> Proc {
        match p {
            Proc::Via(node, span) => {
                let node = self.i(node);
                if self.0.contains(&node) {
                    Proc::Me
                } else {
                    Proc::Via(Box::new(node), *span)
                }
            }
            // `parent.x` after `parent == self`.
            Proc::Through(v) if self.0.contains(&IExpr::Var(Proc::Me, *v)) => Proc::Me,
            Proc::At(node, span) => Proc::At(Box::new(self.i(node)), *span),
            other => other.clone(),
        }
    }

    fn coll(&self, c: &Coll) -> Coll {
        match c {
            Coll::NbrsOf(p) => Coll::NbrsOf(self.proc(p)),
            Coll::Procs => Coll::Procs,
            Coll::Range(lo, hi, span) => Coll::Range(self.boxed(lo), self.boxed(hi), *span),
        }
    }

    fn boxed(&self, e: &IExpr) -> Box<IExpr> {
        Box::new(self.i(e))
    }

    fn boxed_b(&self, x: &BExpr) -> Box<BExpr> {
        Box::new(self.b(x))
    }

    fn b(&self, x: &BExpr) -> BExpr {
        match x {
            BExpr::Const(c) => BExpr::Const(*c),
            BExpr::Var(p, v) => BExpr::Var(self.proc(p), *v),
            BExpr::Not(a) => BExpr::Not(self.boxed_b(a)),
            BExpr::And(a, b) => BExpr::And(self.boxed_b(a), self.after(a).boxed_b(b)),
            BExpr::Or(a, b) => BExpr::Or(self.boxed_b(a), self.boxed_b(b)),
            BExpr::Implies(a, b) => BExpr::Implies(self.boxed_b(a), self.after(a).boxed_b(b)),
            BExpr::BoolEq(eq, a, b) => BExpr::BoolEq(*eq, self.boxed_b(a), self.boxed_b(b)),
            BExpr::Cmp(op, a, b) => BExpr::Cmp(*op, self.i(a), self.i(b)),
            BExpr::Forall(slot, coll, body) => {
                BExpr::Forall(*slot, self.coll(coll), self.binding(&[*slot]).boxed_b(body))
            }
            BExpr::Exists(slot, coll, body) => {
                BExpr::Exists(*slot, self.coll(coll), self.binding(&[*slot]).boxed_b(body))
            }
            BExpr::Enabled(p) => BExpr::Enabled(self.proc(p)),
            BExpr::Elem(p, v, index, span) => {
                BExpr::Elem(self.proc(p), *v, self.boxed(index), *span)
            }
            BExpr::ArrayCmp(op, p, v, q, w, span) => {
                BExpr::ArrayCmp(*op, self.proc(p), *v, self.proc(q), *w, *span)
            }
            BExpr::Acyclic(s, t, body) => {
                BExpr::Acyclic(*s, *t, self.binding(&[*s, *t]).boxed_b(body))
            }
        }
    }

    fn i(&self, e: &IExpr) -> IExpr {
        match e {
            IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg | IExpr::Local(_) => {
                e.clone()
            }
            IExpr::Var(p, v) => IExpr::Var(self.proc(p), *v),
            IExpr::Index(p) => IExpr::Index(self.proc(p)),
            IExpr::Id(p) => IExpr::Id(self.proc(p)),
            IExpr::NodeOf(p) => IExpr::NodeOf(self.proc(p)),
            IExpr::Neg(a, span) => IExpr::Neg(self.boxed(a), *span),
            IExpr::Abs(a, span) => IExpr::Abs(self.boxed(a), *span),
            IExpr::Arith(op, a, b, span) => IExpr::Arith(*op, self.boxed(a), self.boxed(b), *span),
            IExpr::Count(slot, coll, body) => {
                IExpr::Count(*slot, self.coll(coll), self.binding(&[*slot]).boxed_b(body))
            }
            IExpr::Cond(c, a, b) => {
                IExpr::Cond(self.boxed_b(c), self.after(c).boxed(a), self.boxed(b))
            }
            IExpr::Side(p, left, span) => IExpr::Side(self.proc(p), *left, *span),
            IExpr::Sum(slot, coll, counted, summand, span) => {
                let inside = self.binding(&[*slot]);
                IExpr::Sum(
                    *slot,
                    self.coll(coll),
                    inside.boxed_b(counted),
                    inside.boxed(summand),
                    *span,
                )
            }
            IExpr::Elem(p, v, index, span) => {
                IExpr::Elem(self.proc(p), *v, self.boxed(index), *span)
            }
            IExpr::Best(best) => {
                let inside = self.binding(&[best.slot]);
                IExpr::Best(Box::new(Best {
                    coll: self.coll(&best.coll),
                    filter: best.filter.as_ref().map(|f| inside.b(f)),
                    keys: best.keys.iter().map(|k| inside.i(k)).collect(),
                    ..(**best).clone()
                }))
            }
            IExpr::Let(slot, value, body) => {
                IExpr::Let(*slot, self.boxed(value), self.binding(&[*slot]).boxed(body))
            }
            IExpr::FromBool(x) => IExpr::FromBool(self.boxed_b(x)),
            IExpr::Msgs(p, q, m, span) => IExpr::Msgs(self.proc(p), self.proc(q), *m, *span),
            IExpr::Random(draw, span) => {
                let draw = match &**draw {
                    Draw::Range(lo, hi) => Draw::Range(self.i(lo), self.i(hi)),
                    Draw::Member { slot, coll, filter } => Draw::Member {
                        slot: *slot,
                        coll: self.coll(coll),
                        filter: filter.as_ref().map(|f| self.binding(&[*slot]).b(f)),
                    },
                };
                IExpr::Random(Box::new(draw), *span)
            }
        }
    }

    fn binder(&self, b: &Binder) -> Binder {
        Binder {
            slot: b.slot,
            coll: self.coll(&b.coll),
            filter: b.filter.as_ref().map(|f| self.binding(&[b.slot]).b(f)),
        }
    }

    fn value(&self, v: &Value) -> Value {
        match v {
            Value::Int(e) => Value::Int(self.i(e)),
            Value::Bool(x) => Value::Bool(self.b(x)),
            Value::Array(p, v) => Value::Array(self.proc(p), *v),
        }
    }

    /// Each expression of `s` on its own: nothing known is carried from
    /// one to another (statements write).
    fn stmt(&self, s: &Stmt) -> Stmt {
        match s {
            Stmt::Skip => Stmt::Skip,
            Stmt::Assign(targets, values) => Stmt::Assign(
                targets
                    .iter()
                    .map(|t| Target {
                        index: t.index.as_ref().map(|e| self.i(e)),
                        ..t.clone()
                    })
                    .collect(),
                values.iter().map(|v| self.value(v)).collect(),
            ),
            Stmt::For(binder, body) => Stmt::For(self.binder(binder), Box::new(self.stmt(body))),
            Stmt::Send(m, values, to, span) => Stmt::Send(
                *m,
                values.iter().map(|v| self.value(v)).collect(),
                self.i(to),
                *span,
            ),
            Stmt::Seq(parts) => Stmt::Seq(parts.iter().map(|p| self.stmt(p)).collect()),
            Stmt::If(c, then, otherwise) => Stmt::If(
                self.b(c),
                Box::new(self.stmt(then)),
                Box::new(self.stmt(otherwise)),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;

    /// `q.1` for the member `q` in local slot 0, and a read of slot 0
    /// through it.
    fn up_of_q() -> IExpr {
        IExpr::Var(Proc::Local(0), 1)
    }

    fn through_up_of_q() -> BExpr {
        let via = Proc::Via(Box::new(up_of_q()), Span::default());
        BExpr::Cmp(ir::Cmp::Eq, IExpr::Var(via, 0), IExpr::Const(1))
    }

    fn me() -> IExpr {
        IExpr::NodeOf(Proc::Me)
    }

    /// `forall(q in nbrs : q.up == self and B)` for the inner `B`.
    fn after_equality(inner: BExpr) -> BExpr {
        let equal = BExpr::Cmp(ir::Cmp::Eq, up_of_q(), me());
        let and = BExpr::And(Box::new(equal), Box::new(inner));
        BExpr::Forall(0, Coll::NbrsOf(Proc::Me), Box::new(and))
    }

    fn reads_via(x: &BExpr) -> bool {
        format!("{x:?}").contains("Via(")
    }

    /// A binder of another slot keeps what is known; one that binds the
    /// slot the equality read again ends it (its member is another
    /// process).
    #[test]
    fn what_is_known_holds_inside_binders_of_other_slots_only() {
        let none = Known(Vec::new());
        let bare = after_equality(through_up_of_q());
        assert!(reads_via(&bare) && !reads_via(&none.b(&bare)));
        let other_slot = BExpr::Exists(1, Coll::NbrsOf(Proc::Me), Box::new(through_up_of_q()));
        assert!(!reads_via(&none.b(&after_equality(other_slot))));
        let same_slot = BExpr::Exists(0, Coll::NbrsOf(Proc::Me), Box::new(through_up_of_q()));
        assert!(reads_via(&none.b(&after_equality(same_slot))));
    }

    /// An equality with the process itself, on either side, narrows what
    /// follows it; one in an `or`, or what precedes it, does not.
    #[test]
    fn only_what_is_evaluated_after_the_equality_held_is_narrowed() {
        let none = Known(Vec::new());
        let equal = BExpr::Cmp(ir::Cmp::Eq, me(), up_of_q());
        let and = BExpr::And(Box::new(equal.clone()), Box::new(through_up_of_q()));
        assert!(!reads_via(&none.b(&and)));
        let before = BExpr::And(Box::new(through_up_of_q()), Box::new(equal.clone()));
        assert!(reads_via(&none.b(&before)));
        let or = BExpr::Or(Box::new(equal.clone()), Box::new(through_up_of_q()));
        assert!(reads_via(&none.b(&or)));
        let implies = BExpr::Implies(Box::new(equal), Box::new(through_up_of_q()));
        assert!(!reads_via(&none.b(&implies)));
    }
}
