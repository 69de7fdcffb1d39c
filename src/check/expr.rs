//! Expressions: typing, comparisons (of tuples: see [`super::tuples`]),
//! arithmetic, and reads of edge variables.

use super::*;

impl Checker {
    pub(super) fn typed_name(&self, t: &Typed) -> String {
        match t {
            Typed::Bool(_) => "bool".into(),
            Typed::Int(_, ty) => ty_name(self, *ty),
            Typed::Tuple(v) => format!(
                "a tuple ({})",
                v.iter()
                    .map(|c| self.typed_name(c))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Typed::Array(_, v) => format!("an array of {}", ty_name(self, self.vars[*v].ty)),
        }
    }

    /// `if c then a else b`, the branches of one type (componentwise for tuples).
    fn cond(&mut self, c: BExpr, a: Typed, b: Typed, span: Span) -> Option<Typed> {
        Some(match (a, b) {
            (Typed::Bool(a), Typed::Bool(b)) => Typed::Bool(BExpr::Or(
                Box::new(BExpr::And(Box::new(c.clone()), Box::new(a))),
                Box::new(BExpr::And(Box::new(BExpr::Not(Box::new(c))), Box::new(b))),
            )),
            (Typed::Int(a, ta), Typed::Int(b, tb)) if ta == tb => {
                Typed::Int(IExpr::Cond(Box::new(c), Box::new(a), Box::new(b)), ta)
            }
            (Typed::Tuple(a), Typed::Tuple(b)) if a.len() == b.len() => Typed::Tuple(
                a.into_iter()
                    .zip(b)
                    .map(|(a, b)| self.cond(c.clone(), a, b, span))
                    .collect::<Option<Vec<_>>>()?,
            ),
            (a, b) => {
                let (ta, tb) = (self.typed_name(&a), self.typed_name(&b));
                self.err(
                    Problem::new(
                        "guarded::check::type_mismatch",
                        format!("the branches of `if ... then ... else` differ: {ta} and {tb}"),
                    )
                    .label(span, "this conditional")
                    .help("both branches must have one type: integers, booleans, one enumeration, nodes, or tuples of them"),
                );
                return None;
            }
        })
    }

    pub(super) fn bool_expr(&mut self, e: &Expr) -> Option<BExpr> {
        match self.expr(e)? {
            Typed::Bool(b) => Some(b),
            t => {
                let found = self.typed_name(&t);
                self.err(
                    Problem::new(
                        "guarded::check::type_mismatch",
                        format!("expected bool, found {found}"),
                    )
                    .label(e.span(), format!("this is {found}"))
                    .help("a condition must be true or false; compare it, e.g. `x == 0`"),
                );
                None
            }
        }
    }

    /// Checks an integer-like expression, of type `want` when given.
    pub(super) fn int_expr(&mut self, e: &Expr, want: Option<Ty>) -> Option<IExpr> {
        match self.expr(e)? {
            Typed::Int(i, ty) if want.is_none_or(|w| w == ty) => Some(i),
            t => {
                let found = self.typed_name(&t);
                let wanted = want.map_or("a number".into(), |w| ty_name(self, w));
                self.err(
                    Problem::new(
                        "guarded::check::type_mismatch",
                        format!("expected {wanted}, found {found}"),
                    )
                    .label(e.span(), format!("this is {found}"))
                    .help(format!("this position needs {wanted}")),
                );
                None
            }
        }
    }

    pub(super) fn scope(&self) -> Scope {
        self.scope.unwrap_or(Scope::Global)
    }

    /// `random(lo..hi)`, `random(bool)` or `random(S)` (a member of a
    /// collection): only in statements, where the run's generator draws it
    /// when the statement runs.
    fn draw(&mut self, from: Option<&Collection>, span: Span) -> Option<Typed> {
        if !self.in_statement {
            self.problems.push(
                Problem::new(
                    "guarded::check::random_outside_statement",
                    "a random draw outside a statement",
                )
                .label(span, "drawn here")
                .help("`random(...)` may appear only in an action's statement (after `->`); guards, predicates, declarations and selectors must not depend on chance"),
            );
            return None;
        }
        self.draws = true;
        let range = |lo, hi| Box::new(ir::Draw::Range(lo, hi));
        match from {
            None => Some(Typed::Bool(BExpr::Cmp(
                Cmp::Eq,
                IExpr::Random(range(IExpr::Const(0), IExpr::Const(1)), span),
                IExpr::Const(1),
            ))),
            Some(Collection::Range(lo, hi)) => {
                let lo = self.int_expr(lo, Some(Ty::Int))?;
                let hi = self.int_expr(hi, Some(Ty::Int))?;
                Some(Typed::Int(IExpr::Random(range(lo, hi), span), Ty::Int))
            }
            Some(Collection::Set(e))
                if !matches!(**e, Expr::Set(..) | Expr::Call(..) | Expr::Name(_)) =>
            {
                let help = match **e {
                    Expr::Int(k, _) if k > 0 => format!(
                        "write the range: `random(0..{})` draws one of {k} values, `random(0..{k})` one of {}",
                        k - 1,
                        k + 1
                    ),
                    _ => "write `random(lo..hi)`, `random(bool)`, `random(nbrs)`, `random({q in nbrs : P})` or `random(S)` for a `def` that stands for a set".into(),
                };
                self.err(
                    Problem::new(
                        "guarded::check::not_a_set",
                        "`random` draws from a range, `bool` or a set",
                    )
                    .label(e.span(), "not a range or a set")
                    .help(help),
                );
                None
            }
            Some(coll) => {
                // The member is bound under a name no program can write.
                let member = ast::Ident {
                    name: "random member".into(),
                    span,
                };
                let mark = self.mark();
                let bound = self.collection(&member, coll, span, 0);
                self.release(mark);
                let (slot, coll, filter, kind) = bound?;
                let ty = match kind {
                    LocalKind::Int => Ty::Int,
                    LocalKind::Field(t) => t,
                    LocalKind::Node { .. } => Ty::Node,
                };
                let draw = ir::Draw::Member { slot, coll, filter };
                Some(Typed::Int(IExpr::Random(Box::new(draw), span), ty))
            }
        }
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Option<Typed> {
        if !self.descend(e.span()) {
            return None;
        }
        let typed = self.expr_at_depth(e);
        self.depth -= 1;
        typed
    }

    fn expr_at_depth(&mut self, e: &Expr) -> Option<Typed> {
        match e {
            Expr::Int(v, _) => Some(Typed::Int(IExpr::Const(*v), Ty::Int)),
            Expr::Bool(b, _) => Some(Typed::Bool(BExpr::Const(*b))),
            Expr::Name(id) => self.name(id),
            Expr::Field(base, field, span) if matches!(**base, Expr::Edge(..)) => {
                let Expr::Edge(args, espan) = &**base else {
                    unreachable!("matched above")
                };
                self.edge_read(args, *espan, field, *span)
            }
            Expr::Field(base, field, span) => {
                // `q.key` for a one-parameter definition `key` is `key(q)`.
                if !self.var_index.contains_key(&field.name) && self.defs.contains_key(&field.name)
                {
                    return self.use_def(field, std::slice::from_ref(base), *span);
                }
                let p = self.proc_of(base)?;
                self.field(p, field)
            }
            Expr::Call(f, args, span) => self.call(f, args, *span),
            Expr::Random(from, span) => self.draw(from.as_deref(), *span),
            Expr::Unary(UnOp::Not, a, _) => {
                Some(Typed::Bool(BExpr::Not(Box::new(self.bool_expr(a)?))))
            }
            Expr::Unary(UnOp::Neg, a, span) => Some(Typed::Int(
                IExpr::Neg(Box::new(self.int_expr(a, Some(Ty::Int))?), *span),
                Ty::Int,
            )),
            Expr::Binary(op, l, r, span) => self.binary(*op, l, r, *span),
            Expr::Quant(kind, var, coll, body, span) => {
                self.quantifier(*kind, var, coll, body, *span)
            }
            Expr::Index(base, index, span) => {
                let arr = self.expr(base);
                match arr? {
                    Typed::Tuple(comps) => self.component(comps, index, *span),
                    Typed::Array(p, v) => {
                        let i = Box::new(self.index_expr(v, index)?);
                        Some(match self.vars[v].ty {
                            Ty::Bool => Typed::Bool(BExpr::Elem(p, v, i, *span)),
                            ty => Typed::Int(IExpr::Elem(p, v, i, *span), ty),
                        })
                    }
                    t => {
                        let found = self.typed_name(&t);
                        self.err(
                            Problem::new(
                                "guarded::check::not_an_array",
                                format!("cannot index {found}"),
                            )
                            .label(base.span(), format!("this is {found}"))
                            .help("arrays (variables declared `array[LEN] of DOMAIN`) have elements, and tuples have components (`key[0]`)"),
                        );
                        None
                    }
                }
            }
            Expr::Cond(c, a, b, span) => {
                let c = self.bool_expr(c);
                let (a, b) = (self.expr(a), self.expr(b));
                self.cond(c?, a?, b?, *span)
            }
            Expr::Tuple(items, _) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.expr(i));
                }
                Some(Typed::Tuple(out.into_iter().collect::<Option<Vec<_>>>()?))
            }
            Expr::Edge(_, span) => {
                self.err(
                    Problem::new("guarded::check::edge_value", "`edge(..)` is not a value")
                        .label(*span, "an edge")
                        .help("read one of its variables: `edge(q).x`"),
                );
                None
            }
            Expr::Acyclic(a, b, pred, span) => {
                if self.scope() != Scope::Global {
                    self.err(
                        Problem::new(
                            "guarded::check::non_local",
                            "`acyclic` looks at the whole configuration",
                        )
                        .label(*span, "not local to a process")
                        .help("use it in `legitimate:`, an `invariant` or a `report`"),
                    );
                    return None;
                }
                let mark = self.mark();
                let sa = self.bind(&a.name, LocalKind::Node { nbr: false });
                let sb = self.bind(&b.name, LocalKind::Node { nbr: false });
                let pred = self.bool_expr(pred);
                self.release(mark);
                Some(Typed::Bool(BExpr::Acyclic(sa, sb, Box::new(pred?))))
            }
            Expr::Set(_, _, _, span) => {
                self.err(
                    Problem::new("guarded::check::set_value", "a set is not a value")
                        .label(*span, "a set")
                        .help("quantify over it: `forall(q in S : ...)`, `count(q in S)`, `argmin(q in S : q.x)`"),
                );
                None
            }
        }
    }

    /// `edge(q).x` in an action, `edge(p, q).x` in a global predicate.
    pub(super) fn edge_read(
        &mut self,
        args: &[Expr],
        espan: Span,
        field: &ast::Ident,
        span: Span,
    ) -> Option<Typed> {
        let Some(&v) = self
            .var_index
            .get(&field.name)
            .filter(|&&v| self.vars[v].kind == ir::VarKind::Edge)
        else {
            if !self.first_unknown(field.span) {
                return None;
            }
            let edge_vars: Vec<&str> = self
                .vars
                .iter()
                .filter(|v| v.kind == ir::VarKind::Edge)
                .map(|v| v.name.as_str())
                .collect();
            let help = match suggest(&field.name, edge_vars.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None if edge_vars.is_empty() => "declare one: `edge var x: DOMAIN`".into(),
                None => format!("the edge variables are {}", edge_vars.join(", ")),
            };
            self.err(
                Problem::new(
                    "guarded::check::not_edge_variable",
                    format!("`{}` is not an edge variable", field.name),
                )
                .label(field.span, "not declared with `edge var`")
                .help(help),
            );
            return None;
        };
        let (owner, other) = match (self.scope(), args) {
            (Scope::Process, [q]) => (Proc::Me, q),
            (Scope::Global, [p, q]) => (self.proc_of(p)?, q),
            (scope, _) => {
                let want = if scope == Scope::Global {
                    "`edge(p, q)`: both ends"
                } else {
                    "`edge(q)`: the other end"
                };
                self.err(
                    Problem::new("guarded::check::edge_arity", format!("here an edge is written {want}"))
                        .label(espan, "this edge")
                        .help("in an action `edge(q).x` is the edge to neighbour q; in a global predicate `edge(p, q).x`"),
                );
                return None;
            }
        };
        let i = Box::new(self.index_expr(v, other)?);
        Some(match self.vars[v].ty {
            Ty::Bool => Typed::Bool(BExpr::Elem(owner, v, i, span)),
            ty => Typed::Int(IExpr::Elem(owner, v, i, span), ty),
        })
    }

    /// Compares two checked values; `None` after reporting a mismatch.
    pub(super) fn compare(
        &mut self,
        op: BinOp,
        a: Typed,
        b: Typed,
        l: Span,
        r: Span,
    ) -> Option<BExpr> {
        use BinOp::*;
        let cmp = match op {
            Eq => Cmp::Eq,
            Ne => Cmp::Ne,
            Lt => Cmp::Lt,
            Le => Cmp::Le,
            Gt => Cmp::Gt,
            _ => Cmp::Ge,
        };
        // In a global predicate a process may be named by its number, so a
        // node compares with one (`p.parent == 0`, or a definition's node
        // parameter given `(0)` in the REPL): the number is checked to be a
        // process when read, as `(0).x` is.
        let named = |i: IExpr, span: Span| IExpr::NodeOf(Proc::At(Box::new(i), span));
        let (a, b) = match (a, b) {
            (Typed::Int(a, Ty::Node), Typed::Int(b, Ty::Int))
                if self.scope() == Scope::Global && matches!(op, Eq | Ne) =>
            {
                (Typed::Int(a, Ty::Node), Typed::Int(named(b, r), Ty::Node))
            }
            (Typed::Int(a, Ty::Int), Typed::Int(b, Ty::Node))
                if self.scope() == Scope::Global && matches!(op, Eq | Ne) =>
            {
                (Typed::Int(named(a, l), Ty::Node), Typed::Int(b, Ty::Node))
            }
            other => other,
        };
        match (a, b) {
            (Typed::Bool(a), Typed::Bool(b)) if matches!(op, Eq | Ne) => {
                Some(BExpr::BoolEq(op == Eq, Box::new(a), Box::new(b)))
            }
            (Typed::Int(a, ta), Typed::Int(b, tb))
                if ta == tb && (ta == Ty::Int || matches!(op, Eq | Ne)) =>
            {
                Some(BExpr::Cmp(cmp, a, b))
            }
            (Typed::Array(pa, va), Typed::Array(pb, vb))
                if self.vars[va].ty == self.vars[vb].ty
                    && (self.vars[va].ty == Ty::Int || matches!(op, Eq | Ne)) =>
            {
                Some(BExpr::ArrayCmp(cmp, pa, va, pb, vb, l.join(r)))
            }
            (Typed::Tuple(a), Typed::Tuple(b)) if a.len() == b.len() => {
                self.compare_tuples(op, a, b, l, r)
            }
            (a, b) => {
                let (na, nb) = (self.typed_name(&a), self.typed_name(&b));
                let help = if na == nb {
                    format!("values of type {na} can only be compared with == and !=")
                } else if [na.as_str(), nb.as_str()] == ["node", "int"]
                    || [na.as_str(), nb.as_str()] == ["int", "node"]
                {
                    "in an action a node compares with a node (`parent == self`, `parent == q` of `q in nbrs`, `parent.index == 0` for a number); only a global predicate (`legitimate`, a report, the REPL) names a process by its number".into()
                } else {
                    "both sides of a comparison must have the same type (tuples: the same length)"
                        .into()
                };
                self.err(
                    Problem::new(
                        "guarded::check::type_mismatch",
                        format!("cannot compare {na} with {nb} using `{}`", op.symbol()),
                    )
                    .label(l, na)
                    .label(r, nb)
                    .help(help),
                );
                None
            }
        }
    }

    pub(super) fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, span: Span) -> Option<Typed> {
        use BinOp::*;
        match op {
            And | Or | Implies => {
                let a = self.bool_expr(l);
                let b = self.bool_expr(r);
                let (a, b) = (Box::new(a?), Box::new(b?));
                Some(Typed::Bool(match op {
                    And => BExpr::And(a, b),
                    Or => BExpr::Or(a, b),
                    _ => BExpr::Implies(a, b),
                }))
            }
            Add | Sub | Mul | Div | Mod => {
                let arith = match op {
                    Add => Arith::Add,
                    Sub => Arith::Sub,
                    Mul => Arith::Mul,
                    Div => Arith::Div,
                    _ => Arith::Mod,
                };
                let a = self.expr(l);
                let b = self.expr(r);
                self.arith(arith, a?, b?, l.span(), r.span(), span)
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let a = self.expr(l);
                let b = self.expr(r);
                let b = self.compare(op, a?, b?, l.span(), r.span())?;
                Some(Typed::Bool(b))
            }
        }
    }

    /// Arithmetic on integers, and componentwise `+`/`-` on tuples of one length.
    pub(super) fn arith(
        &mut self,
        op: Arith,
        a: Typed,
        b: Typed,
        l: Span,
        r: Span,
        span: Span,
    ) -> Option<Typed> {
        match (a, b) {
            (Typed::Int(a, Ty::Int), Typed::Int(b, Ty::Int)) => Some(Typed::Int(
                IExpr::Arith(op, Box::new(a), Box::new(b), span),
                Ty::Int,
            )),
            (Typed::Tuple(a), Typed::Tuple(b))
                if a.len() == b.len() && matches!(op, Arith::Add | Arith::Sub) =>
            {
                let mut out = Vec::new();
                for (x, y) in a.into_iter().zip(b) {
                    out.push(self.arith(op, x, y, l, r, span)?);
                }
                Some(Typed::Tuple(out))
            }
            (a, b) => {
                for (t, s) in [(&a, l), (&b, r)] {
                    if !matches!(t, Typed::Int(_, Ty::Int)) {
                        let found = self.typed_name(t);
                        self.err(
                            Problem::new(
                                "guarded::check::type_mismatch",
                                format!("expected int, found {found}"),
                            )
                            .label(s, format!("this is {found}"))
                            .help("arithmetic works on integers, and `+`/`-` on tuples of the same length"),
                        );
                        return None;
                    }
                }
                None
            }
        }
    }
}
