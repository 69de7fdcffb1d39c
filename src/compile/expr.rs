//! Expressions as closures: integer and boolean expressions, quantifiers
//! and `min`/`argmin` over collections, and the legitimacy predicate cut
//! into conjuncts that can be kept up to date process by process.

use super::shared::{shared_bool, shared_int, Shared};
use super::*;

impl Compiler<'_> {
    pub(super) fn iexpr(&self, x: &IExpr) -> IFn {
        if let Some(c) = const_eval(x, &self.params, self.n) {
            return Box::new(move |_| Ok(c));
        }
        if let Some(f) = self.evaluated_once(x) {
            return f;
        }
        if let Some(k) = self.shared_index(|s| matches!(s, Shared::Int(i) if i == x)) {
            return shared_int(k, self.iexpr_here(x));
        }
        self.iexpr_here(x)
    }

    /// [`Compiler::iexpr`] of `x` where it is neither constant nor shared.
    fn iexpr_here(&self, x: &IExpr) -> IFn {
        match x {
            IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg => {
                unreachable!("constants fold above")
            }
            IExpr::Var(p, v) => self.read(p, self.offsets[*v]),
            IExpr::Elem(p, v, i, span) => self.elem(p, *v, i, *span),
            IExpr::Local(slot) => {
                let slot = *slot;
                Box::new(move |e| Ok(e.locals[slot].get()))
            }
            IExpr::Index(p) | IExpr::NodeOf(p) => {
                let f = self.proc(p);
                Box::new(move |e| Ok(f(e)? as i64))
            }
            IExpr::Side(p, left, span) => {
                let (f, left, span) = (self.proc(p), *left, *span);
                Box::new(move |e| {
                    let p = f(e)?;
                    let q = if left {
                        e.topo.left(p)
                    } else {
                        e.topo.right(p)
                    };
                    if q == NONE {
                        return no_neighbour(span, if left { "left" } else { "right" }, p);
                    }
                    Ok(i64::from(q))
                })
            }
            IExpr::Id(p) => {
                let f = self.proc(p);
                Box::new(move |e| Ok(e.topo.id(f(e)?)))
            }
            IExpr::Neg(a, span) | IExpr::Abs(a, span) => {
                let neg = matches!(x, IExpr::Neg(..));
                let (f, span) = (self.iexpr(a), *span);
                Box::new(move |e| {
                    let v = f(e)?;
                    let r = if neg { ir::negate(v) } else { ir::absolute(v) };
                    r.map_or_else(|| overflow(span), Ok)
                })
            }
            IExpr::Arith(op, a, b, span) => self.arith(*op, a, b, *span),
            // The runtime keeps the enabled set, so this count is free.
            IExpr::Count(slot, Coll::Procs, body) if matches!(&**body, BExpr::Enabled(Proc::Local(s)) if s == slot) => {
                Box::new(|e| Ok(e.enabled_count as i64))
            }
            IExpr::Count(slot, coll, body) => {
                let slot = *slot;
                if let Some(first) = self.member_first(slot, body) {
                    return self.count_first(slot, coll, first);
                }
                let body = self.bexpr(body);
                self.over(coll, move |e, items| {
                    let mut k = 0;
                    for q in items {
                        e.locals[slot].set(q);
                        k += i64::from(body.holds(e)?);
                    }
                    Ok(k)
                })
            }
            IExpr::Cond(c, a, b) => {
                let (c, a, b) = (self.bexpr(c), self.iexpr(a), self.iexpr(b));
                Box::new(move |e| if c.holds(e)? { a(e) } else { b(e) })
            }
            IExpr::Sum(slot, coll, filter, body, span) => {
                let (slot, span) = (*slot, *span);
                let (filter, body) = (self.bexpr(filter), self.iexpr(body));
                self.over(coll, move |e, items| {
                    let mut total: i64 = 0;
                    for q in items {
                        e.locals[slot].set(q);
                        if filter.holds(e)? {
                            total = total
                                .checked_add(body(e)?)
                                .map_or_else(|| overflow(span), Ok)?;
                        }
                    }
                    Ok(total)
                })
            }
            IExpr::Best(b) => self.best(b),
            IExpr::FromBool(b) => {
                let f = self.bexpr(b);
                Box::new(move |e| f.holds(e).map(i64::from))
            }
            IExpr::Msgs(p, q, kind, span) => self.msgs(p, q, *kind, *span),
            IExpr::Random(d, span) => self.draw(d, *span),
            IExpr::Let(slot, value, body) => {
                let slot = *slot;
                let (fv, fb) = (self.iexpr(value), self.iexpr(body));
                Box::new(move |e| {
                    let v = fv(e)?;
                    e.locals[slot].set(v);
                    fb(e)
                })
            }
        }
    }

    /// `random(lo..hi)`, or `random(S)` (a member, by its position in the
    /// set): drawn from the run's draw stream when the statement runs.
    fn draw(&self, d: &ir::Draw, span: Span) -> IFn {
        match d {
            ir::Draw::Range(lo, hi) => {
                let (lo, hi) = (self.iexpr(lo), self.iexpr(hi));
                Box::new(move |e| {
                    let (a, b) = (lo(e)?, hi(e)?);
                    if a > b {
                        return fault(
                            span,
                            format!("random({a}..{b}) draws from an empty range"),
                            "the lower bound must not exceed the upper bound",
                        );
                    }
                    draw_in(e, a, b, span, false)
                })
            }
            ir::Draw::Member { slot, coll, filter } => {
                let slot = *slot;
                let filter = filter.as_ref().map(|f| self.bexpr(f));
                self.over(coll, move |e, items| {
                    // The members first: the draw's range is their number. In
                    // a list kept from draw to draw (taken, so that a draw in
                    // the filter gets one of its own), not one made each time.
                    let mut members = MEMBERS.take();
                    members.clear();
                    let drawn = draw_member(e, items, (slot, filter.as_ref(), span), &mut members);
                    MEMBERS.set(members);
                    drawn
                })
            }
        }
    }

    /// An expression that reads no state (`argmin(p in procs : p.id)`),
    /// evaluated once on the topology: its value as a constant closure.
    fn evaluated_once(&self, x: &IExpr) -> Option<IFn> {
        let f = self.state_free(x)?;
        Some(match self.value_of_state_free(&f) {
            Some(c) => Box::new(move |_| Ok(c)),
            // A fault (an empty set) is left to happen when evaluated.
            None => f,
        })
    }

    /// The value of an expression that reads no state (see
    /// [`Compiler::evaluated_once`]), where evaluating it on the topology
    /// does not fault.
    pub(super) fn state_free_value(&self, x: &IExpr) -> Option<i64> {
        self.value_of_state_free(&self.state_free(x)?)
    }

    /// `x` compiled, if it reads no state and the topology is known.
    fn state_free(&self, x: &IExpr) -> Option<IFn> {
        let stateless = matches!(x, IExpr::Best(_) | IExpr::Let(..)) && ir::state_free(x);
        (self.topo.is_some() && stateless).then(|| {
            // Evaluated on its own, away from any assignment's cells.
            Compiler {
                topo: None,
                shared: Rc::from([]),
                ..self.clone()
            }
            .iexpr(x)
        })
    }

    /// What `f`, compiled by [`Compiler::state_free`], gives on the
    /// topology; `None` where it faults.
    fn value_of_state_free(&self, f: &IFn) -> Option<i64> {
        let topo = self.topo?;
        let locals = vec![Cell::new(0); self.prog.max_locals];
        let (chans, fx) = (Channels::default(), Effects::default());
        f(&Env::new(&[], topo, &locals, &chans, &fx, 0)).ok()
    }

    /// `a op b`, faulting on overflow and division by zero.
    fn arith(&self, op: Arith, a: &IExpr, b: &IExpr, span: Span) -> IFn {
        // A plain read plus or minus a constant (`level + 1`): one closure.
        if let Some((pa, c)) = self.plain_plus(op, a, b) {
            return fused_offset(pa, c, span, self.stride);
        }
        let (fa, fb) = (self.iexpr(a), self.iexpr(b));
        match op {
            // The common cases, without the general overflow dispatch.
            Arith::Add => Box::new(move |e| {
                Arith::Add
                    .apply(fa(e)?, fb(e)?)
                    .map_or_else(|| overflow(span), Ok)
            }),
            Arith::Sub => Box::new(move |e| {
                Arith::Sub
                    .apply(fa(e)?, fb(e)?)
                    .map_or_else(|| overflow(span), Ok)
            }),
            _ => Box::new(move |e| {
                let (x, y) = (fa(e)?, fb(e)?);
                if y == 0 && matches!(op, Arith::Div | Arith::Mod) {
                    return fault(
                        span,
                        format!(
                            "division by zero ({x} {} 0)",
                            if op == Arith::Div { "/" } else { "mod" }
                        ),
                        "guard the action so the divisor cannot be 0",
                    );
                }
                op.apply(x, y).map_or_else(|| overflow(span), Ok)
            }),
        }
    }

    /// `msgs(p, q, kind)`: messages of a kind (or all) from `p` to `q`.
    fn msgs(&self, p: &Proc, q: &Proc, kind: Option<usize>, span: Span) -> IFn {
        let (fp, fq, kind) = (self.proc(p), self.proc(q), kind.map(|k| k as u16));
        Box::new(move |e| {
            let (p, q) = (fp(e)?, fq(e)?);
            match e.chans.between(e.topo, p, q) {
                Some(c) => Ok(c.iter().filter(|m| kind.is_none_or(|k| m.kind == k)).count() as i64),
                None if e.topo.arc(p, q).is_none() => fault(
                    span,
                    format!("processes {p} and {q} are not neighbours: there is no channel from {p} to {q}"),
                    "channels join a process to its neighbours",
                ),
                None => Ok(0),
            }
        })
    }

    pub(super) fn bexpr(&self, x: &BExpr) -> BFn {
        if let Some(t) = self.truth_of(x) {
            return boolean(move |_| Ok(t));
        }
        if let Some(k) = self.shared_index(|s| matches!(s, Shared::Bool(b) if b == x)) {
            return shared_bool(k, self.bexpr_here(x));
        }
        self.bexpr_here(x)
    }

    /// Which of the shared subexpressions `is` picks out, if any.
    fn shared_index(&self, is: impl Fn(&Shared) -> bool) -> Option<usize> {
        self.shared.iter().position(is)
    }

    /// [`Compiler::bexpr`] of `x` where it is neither fixed nor shared.
    fn bexpr_here(&self, x: &BExpr) -> BFn {
        if matches!(x, BExpr::Not(_) | BExpr::And(..) | BExpr::Or(..)) {
            if let Some(f) = self.fused_tuple_comparison(x) {
                return f;
            }
        }
        match x {
            BExpr::Const(_) => unreachable!("fixed conditions fold above"),
            BExpr::Var(p, v) => {
                if let Some(pa) = self.plain(&IExpr::Var(p.clone(), *v)) {
                    return fused_cmp(Cmp::Ne, pa, Plain::Const(0), self.stride);
                }
                let f = self.read(p, self.offsets[*v]);
                boolean(move |e| Ok(f(e)? != 0))
            }
            BExpr::Elem(p, v, i, span) => {
                let f = self.elem(p, *v, i, *span);
                boolean(move |e| Ok(f(e)? != 0))
            }
            BExpr::ArrayCmp(cmp, pa, va, pb, vb, span) => {
                self.same_length(*va, *vb, *span);
                let cmp = *cmp;
                let len = self.lens[*va].min(self.lens[*vb]);
                let (oa, ob) = (self.offsets[*va], self.offsets[*vb]);
                let (fa, fb) = (self.proc(pa), self.proc(pb));
                let (stride, in_stmt) = (self.stride, self.in_stmt);
                boolean(move |e| {
                    let (qa, qb) = (fa(e)?, fb(e)?);
                    let get = |q: usize, s: usize| {
                        if in_stmt && q == e.me {
                            e.scratch[s].get()
                        } else {
                            e.state[q * stride + s]
                        }
                    };
                    // The first element where they differ decides.
                    let (x, y) = (0..len)
                        .map(|i| (get(qa, oa + i), get(qb, ob + i)))
                        .find(|(x, y)| x != y)
                        .unwrap_or((0, 0));
                    Ok(cmp.holds(x, y))
                })
            }
            BExpr::Not(a) => self.negation(a),
            BExpr::And(a, b) => self.junction(Junction::And, a, b),
            BExpr::Or(a, b) => self.junction(Junction::Or, a, b),
            BExpr::Implies(a, b) => {
                let (fa, fb) = (self.bexpr(a), self.bexpr(b));
                boolean(move |e| Ok(!fa.holds(e)? || fb.holds(e)?))
            }
            BExpr::BoolEq(eq, a, b) => {
                let (eq, fa, fb) = (*eq, self.bexpr(a), self.bexpr(b));
                boolean(move |e| Ok((fa.holds(e)? == fb.holds(e)?) == eq))
            }
            BExpr::Cmp(op, a, b) => {
                // A boolean made a number and compared with 0 (how a
                // definition with a `let` is spelled): the boolean itself.
                if let (Cmp::Eq | Cmp::Ne, IExpr::Const(0)) = (op, b) {
                    if let Some(f) = self.as_truth(a, *op == Cmp::Eq) {
                        return f;
                    }
                }
                // Two plain reads (the commonest guard): one closure, not three.
                if let (Some(pa), Some(pb)) = (self.plain(a), self.plain(b)) {
                    return fused_cmp(*op, pa, pb, self.stride);
                }
                // A read plus a constant on either side: a tuple of one.
                if let (Some(oa), Some(ob)) = (self.operand(a), self.operand(b)) {
                    return tuples::fused_tuples(*op, vec![(oa, ob)], self.stride);
                }
                let (fa, fb) = (self.iexpr(a), self.iexpr(b));
                ir::specialize_cmp!(*op, OP => boolean(move |e| Ok(OP.holds(fa(e)?, fb(e)?))))
            }
            BExpr::Forall(slot, coll, body) | BExpr::Exists(slot, coll, body) => {
                let slot = *slot;
                let want = matches!(x, BExpr::Exists(..));
                if let Some(f) = self.filtered_quantifier(slot, coll, want, body) {
                    return f;
                }
                if let Some(first) = self.member_first(slot, body) {
                    return self.quantifier_first(slot, coll, want, first);
                }
                if let Some(f) = self.quantifier_tuple(slot, coll, want, body) {
                    return f;
                }
                let body = self.bexpr(body);
                self.over(coll, move |e, items| {
                    for q in items {
                        e.locals[slot].set(q);
                        if body.holds(e)? == want {
                            return Ok(Truth::from(want));
                        }
                    }
                    Ok(Truth::from(!want))
                })
            }
            BExpr::Enabled(p) => {
                let f = self.proc(p);
                boolean(move |e| Ok(e.enabled.is_enabled(f(e)?)))
            }
            BExpr::Acyclic(sa, sb, pred) => self.acyclic(*sa, *sb, pred),
        }
    }

    /// `x`, a boolean made a number (under `let`s), as that boolean,
    /// `negate`d if asked: the same values computed in the same order.
    fn as_truth(&self, x: &IExpr, negate: bool) -> Option<BFn> {
        match x {
            IExpr::FromBool(b) if negate => Some(self.negation(b)),
            IExpr::FromBool(b) => Some(self.bexpr(b)),
            IExpr::Let(slot, value, body) => {
                if let IExpr::Best(best) = &**value {
                    if let Some(f) = self.best_compared(*slot, best, body, negate) {
                        return Some(f);
                    }
                }
                let (slot, value) = (*slot, self.iexpr(value));
                let body = self.as_truth(body, negate)?;
                Some(Box::new(move |e| {
                    let v = value(e)?;
                    e.locals[slot].set(v);
                    body(e)
                }))
            }
            _ => None,
        }
    }

    /// `acyclic(p -> q : pred)`: no directed cycle among the arcs where
    /// `pred` holds (`sa`, `sb`: the slots of `p` and `q`).
    fn acyclic(&self, sa: usize, sb: usize, pred: &BExpr) -> BFn {
        if let Some(topo) = self.topo {
            topo.want_rows();
        }
        let pred = self.bexpr(pred);
        boolean(move |e| {
            let arc = |p: usize, q: usize| {
                e.locals[sa].set(p as i64);
                e.locals[sb].set(q as i64);
                pred.holds(e)
            };
            e.topo.arcs_acyclic(arc, |_| {})
        })
    }

    /// `forall(x in procs : body)` with `body` local to x (see
    /// [`ir::local_to`]): x's slot and the compiled body.
    pub(super) fn local_forall(&self, b: &BExpr) -> Option<(usize, BFn)> {
        let node_var = |v: usize| self.prog.vars[v].ty == ir::Ty::Node;
        let edge_var = |v: usize| self.prog.vars[v].kind == crate::check::ir::VarKind::Edge;
        match b {
            BExpr::Forall(slot, Coll::Procs, body)
                if ir::local_to(body, *slot, &node_var, &edge_var) =>
            {
                Some((*slot, self.bexpr(body)))
            }
            _ => None,
        }
    }

    /// `acyclic(x -> y : body)` with `body` local to x for a neighbour y
    /// (see [`ir::local_arc`]): x's and y's slots and the compiled body.
    pub(super) fn local_acyclic(&self, b: &BExpr) -> Option<(usize, usize, BFn)> {
        let node_var = |v: usize| self.prog.vars[v].ty == ir::Ty::Node;
        let edge_var = |v: usize| self.prog.vars[v].kind == crate::check::ir::VarKind::Edge;
        match b {
            BExpr::Acyclic(sa, sb, body) if ir::local_arc(body, *sa, *sb, &node_var, &edge_var) => {
                Some((*sa, *sb, self.bexpr(body)))
            }
            _ => None,
        }
    }

    /// Splits a legitimacy predicate into conjuncts, keeping those over all
    /// processes of a local predicate incremental; empty if none is.
    pub(super) fn legit_parts(&self, b: &BExpr) -> Vec<LegitPart> {
        fn conjuncts<'b>(b: &'b BExpr, out: &mut Vec<&'b BExpr>) {
            match b {
                BExpr::And(a, c) => {
                    conjuncts(a, out);
                    conjuncts(c, out);
                }
                b => out.push(b),
            }
        }
        let node_var = |v: usize| self.prog.vars[v].ty == ir::Ty::Node;
        let edge_var = |v: usize| self.prog.vars[v].kind == crate::check::ir::VarKind::Edge;
        let local = |slot: usize, body: &BExpr| {
            // `count(p in procs : enabled(p))` already costs nothing.
            !matches!(body, BExpr::Enabled(Proc::Local(s)) if *s == slot)
                && ir::local_to(body, slot, &node_var, &edge_var)
        };
        let mut parts = Vec::new();
        let mut incremental = false;
        let mut list = Vec::new();
        conjuncts(b, &mut list);
        for c in list {
            match c {
                BExpr::Forall(slot, Coll::Procs, body) if local(*slot, body) => {
                    incremental = true;
                    parts.push(LegitPart::Forall(
                        *slot,
                        self.bexpr(body),
                        self.cannot_fault(body),
                    ));
                }
                BExpr::Cmp(op, IExpr::Count(slot, Coll::Procs, body), k)
                    if local(*slot, body) && const_eval(k, &self.params, self.n).is_some() =>
                {
                    incremental = true;
                    let k = const_eval(k, &self.params, self.n).unwrap_or(0);
                    parts.push(LegitPart::Count(*slot, self.bexpr(body), *op, k));
                }
                other => parts.push(LegitPart::Whole(self.bexpr(other))),
            }
        }
        if incremental {
            parts
        } else {
            Vec::new()
        }
    }

    pub(super) fn global(&self, e: &crate::check::Checked) -> GlobalFn {
        match e {
            crate::check::Checked::Int(i, ty) => GlobalFn::Int(self.iexpr(i), *ty),
            crate::check::Checked::Bool(b) => GlobalFn::Bool(self.bexpr(b)),
        }
    }
}

thread_local! {
    /// The members of the set a draw is from, kept from draw to draw.
    static MEMBERS: std::cell::Cell<Vec<i64>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A member of `items` where `filter` holds (bound to `slot`), drawn, the
/// members listed in `members` first.
fn draw_member(
    e: &Env,
    items: &mut super::quantifiers::Members,
    (slot, filter, span): (usize, Option<&BFn>, Span),
    members: &mut Vec<i64>,
) -> Res<i64> {
    for q in items {
        e.locals[slot].set(q);
        if filter.map_or(Ok(true), |f| f.holds(e))? {
            members.push(q);
        }
    }
    if members.is_empty() {
        return fault(
            span,
            "a random member of an empty set".into(),
            "draw only where the set has a member: for `random({q in nbrs : P})`, guard the action with `exists(q in nbrs : P)`",
        );
    }
    let k = draw_in(e, 0, members.len() as i64 - 1, span, true)?;
    Ok(members[k as usize])
}

/// A value drawn from `lo..=hi` (not empty) where the environment's draws
/// come from: the run's generator, or values given (a schedule's, the
/// verifier's), each draw's range recorded, and the value among those the
/// statement drew. `member`: the draw is of a member's position in a set,
/// as a wrong given value is told.
fn draw_in(e: &Env, lo: i64, hi: i64, span: Span, member: bool) -> Res<i64> {
    let v = value_in(e, lo, hi, span, member)?;
    e.fx.drawn.borrow_mut().push(v);
    Ok(v)
}

/// [`draw_in`]'s value, before it is recorded as drawn.
fn value_in(e: &Env, lo: i64, hi: i64, span: Span, member: bool) -> Res<i64> {
    match &mut *e.fx.draws.borrow_mut() {
        Draws::Generator(rng) => Ok(rand::Rng::gen_range(rng, lo..=hi)),
        Draws::Given {
            values,
            made,
            ranges,
        } => {
            let v = values.get(*made).copied().unwrap_or(lo);
            *made += 1;
            ranges.push((lo, hi));
            match (lo..=hi).contains(&v) {
                true => Ok(v),
                false if member => fault(
                    span,
                    format!("the value given for this draw, {v}, is not a position in the set, 0..{hi}"),
                    "a draw from a set is given as the member's position in the set's order, from 0 (`P:ACTION<v,...>`)",
                ),
                false => fault(
                    span,
                    format!("the value given for this draw, {v}, is not in {lo}..{hi}"),
                    "a schedule's draws (`P:ACTION<v,...>`) must lie in the ranges the action draws from",
                ),
            }
        }
        Draws::None => fault(
            span,
            "a random draw where no generator is at hand".into(),
            "random draws happen in statements that a run, a schedule or `verify` takes",
        ),
    }
}
