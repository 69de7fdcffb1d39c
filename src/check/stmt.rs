//! Statements: assignments (targets, simultaneous values, what a process
//! may write), sends, and the values they assign.

use super::*;
use crate::diagnostic::counted;

impl Checker {
    pub(super) fn stmt(&mut self, s: &ast::Stmt) -> ir::Stmt {
        if !self.descend(s.span()) {
            return ir::Stmt::Skip;
        }
        let checked = self.stmt_at_depth(s);
        self.depth -= 1;
        checked
    }

    fn stmt_at_depth(&mut self, s: &ast::Stmt) -> ir::Stmt {
        match s {
            ast::Stmt::Skip(_) => ir::Stmt::Skip,
            ast::Stmt::Seq(v, _) => ir::Stmt::Seq(v.iter().map(|s| self.stmt(s)).collect()),
            ast::Stmt::If(c, t, e, _) => {
                let c = self.bool_expr(c).unwrap_or(BExpr::Const(false));
                let t = self.stmt(t);
                let e = e.as_ref().map_or(ir::Stmt::Skip, |e| self.stmt(e));
                ir::Stmt::If(c, Box::new(t), Box::new(e))
            }
            ast::Stmt::For(var, coll, body, span) => {
                let mark = self.mark();
                let bound = self.collection(var, coll, *span, 0);
                let body = self.stmt(body);
                self.release(mark);
                match bound {
                    Some((slot, coll, filter, _)) => {
                        ir::Stmt::For(ir::Binder { slot, coll, filter }, Box::new(body))
                    }
                    None => ir::Stmt::Skip,
                }
            }
            ast::Stmt::Send(m, args, to, span) => self.send(m, args, to, *span),
            ast::Stmt::Call(f, args, span) => {
                let Some(body) = self.expand_stmt(f, args, *span) else {
                    return ir::Stmt::Skip;
                };
                self.stmt(&body)
            }
            ast::Stmt::Assign(targets, values, span) => self.assign(targets, values, *span),
        }
    }

    pub(super) fn send(
        &mut self,
        m: &ast::Ident,
        args: &[Expr],
        to: &Expr,
        span: Span,
    ) -> ir::Stmt {
        let Some(&k) = self.msg_index.get(&m.name) else {
            let help = match suggest(&m.name, sorted_names(&self.msg_index)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "declare it: `message NAME(field: DOMAIN)`".into(),
            };
            self.err(
                Problem::new(
                    "guarded::check::unknown_message",
                    format!("unknown message type `{}`", m.name),
                )
                .label(m.span, "not declared")
                .help(help),
            );
            return ir::Stmt::Skip;
        };
        let fields = self.messages[k].fields.clone();
        if fields.len() != args.len() {
            self.err(
                Problem::new(
                    "guarded::check::arity",
                    format!(
                        "`{}` has {} field{}, {} given",
                        m.name,
                        fields.len(),
                        if fields.len() == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .label(span, "one value per field")
                .help(format!(
                    "write `send {}({}) to q`",
                    m.name,
                    fields
                        .iter()
                        .map(|f| f.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
            return ir::Stmt::Skip;
        }
        let mut values = Vec::new();
        for (a, (name, ty, _)) in args.iter().zip(&fields) {
            values.push(self.value(a, *ty, &format!("field `{name}`")));
        }
        let dest = match self.expr(to) {
            Some(Typed::Int(e, Ty::Node)) if self.names_neighbour(&e) => Some(e),
            Some(t) => {
                let found = self.typed_name(&t);
                self.err(
                    Problem::new("guarded::check::send_not_neighbour", "a message goes to a neighbour")
                        .label(to.span(), format!("this is {found}, not surely a neighbour"))
                        .help("send to `q` of `q in nbrs`, the sender of a received message, `left`, `right`, `tree_parent` or an own node variable"),
                );
                None
            }
            None => None,
        };
        match (values.into_iter().collect::<Option<Vec<_>>>(), dest) {
            (Some(values), Some(dest)) => ir::Stmt::Send(k, values, dest, span),
            _ => ir::Stmt::Skip,
        }
    }

    pub(super) fn assign(
        &mut self,
        targets: &[ast::Target],
        values: &[Expr],
        span: Span,
    ) -> ir::Stmt {
        // Right-hand sides first; a tuple gives one value per component.
        let mut vals: Vec<(Typed, Span)> = Vec::new();
        let mut ok = true;
        for v in values {
            match self.expr(v) {
                Some(t) => {
                    let mut parts = Vec::new();
                    flatten(t, &mut parts);
                    vals.extend(parts.into_iter().map(|p| (p, v.span())));
                }
                None => ok = false,
            }
        }
        if !ok {
            for t in targets {
                self.assignable(&t.name);
            }
            return ir::Stmt::Skip;
        }
        if targets.len() != vals.len() {
            self.err(
                Problem::new(
                    "guarded::check::assignment_arity",
                    format!(
                        "{} but {}",
                        counted(targets.len() as u64, "variable"),
                        counted(vals.len() as u64, "value")
                    ),
                )
                .label(span, "the counts differ")
                .help("a multiple assignment `a, b := e1, e2` needs one value per variable (a tuple counts its components)"),
            );
            return ir::Stmt::Skip;
        }
        let mut out_t = Vec::new();
        let mut out_v = Vec::new();
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (k, t) in targets.iter().enumerate() {
            if t.index.is_none() {
                if let Some(prev) = seen.insert(&t.name.name, t.span) {
                    self.err(
                        Problem::new(
                            "guarded::check::assigned_twice",
                            format!(
                                "`{}` is assigned twice in one multiple assignment",
                                t.name.name
                            ),
                        )
                        .label(t.span, "second time")
                        .label(prev, "first time")
                        .help("each variable may appear once on the left of `:=`"),
                    );
                }
            }
            if let Some((target, value)) = self.assign_target(t, vals.get(k).cloned()) {
                out_t.push(target);
                out_v.push(value);
            }
        }
        if out_t.len() == targets.len() {
            ir::Stmt::Assign(out_t, out_v)
        } else {
            ir::Stmt::Skip
        }
    }

    /// One target of an assignment and the value it gets (`val`, `None`
    /// when the counts differ), checked: a variable this process may
    /// write, an element of an array, a value of its type, a node that is
    /// sure to be local.
    fn assign_target(
        &mut self,
        t: &ast::Target,
        val: Option<(Typed, Span)>,
    ) -> Option<(ir::Target, Value)> {
        let var = self.assignable(&t.name)?;
        if let Some(owner) = self.vars[var].role {
            if self.role_index != Some(owner) {
                self.err(
                    Problem::new(
                        "guarded::check::other_roles_variable",
                        format!("`{}` belongs to another role", t.name.name),
                    )
                    .label(t.span, "written here")
                    .label(self.vars[var].span, "declared in that role")
                    .help("a variable declared in a role is changed only by that role's actions; the other processes keep its declared value"),
                );
                return None;
            }
        }
        if t.edge && self.vars[var].kind != ir::VarKind::Edge {
            self.err(
                Problem::new(
                    "guarded::check::not_edge_variable",
                    format!("`{}` is not an edge variable", t.name.name),
                )
                .label(t.span, "written as an edge's variable")
                .help("declare it `edge var`, or assign it as `x := ...`"),
            );
            return None;
        }
        let is_array = self.is_array(var);
        let index = match &t.index {
            Some(i) if is_array => self.index_expr(var, i),
            Some(_) => {
                self.err(
                    Problem::new(
                        "guarded::check::not_an_array",
                        format!("`{}` is not an array", t.name.name),
                    )
                    .label(t.span, "indexed here")
                    .help("only variables declared `array[LEN] of DOMAIN` have elements"),
                );
                return None;
            }
            None => None,
        };
        let (val, vspan) = val?;
        let ty = self.vars[var].ty;
        let value = if is_array && t.index.is_none() {
            match val {
                Typed::Array(p, src) if self.vars[src].ty == ty => Some(Value::Array(p, src)),
                other => {
                    let found = self.typed_name(&other);
                    self.err(
                        Problem::new(
                            "guarded::check::type_mismatch",
                            format!("expected an array of {}, found {found}", ty_name(self, ty)),
                        )
                        .label(vspan, format!("this is {found}"))
                        .help(format!(
                            "`{}` is an array of {}: assign another such array, or one element with `{}[i] := ...`",
                            t.name.name,
                            ty_name(self, ty),
                            t.name.name
                        )),
                    );
                    None
                }
            }
        } else {
            self.typed_value(val, vspan, ty, &format!("`{}`", t.name.name))
        };
        let value = value?;
        if ty == Ty::Node {
            if let Value::Int(e) = &value {
                if !self.names_neighbour(e) {
                    self.err(
                        Problem::new(
                            "guarded::check::node_not_local",
                            format!("`{}` may only name this process or a neighbour", t.name.name),
                        )
                        .label(vspan, "this process may not be a neighbour")
                        .help("assign `self`, a neighbour (`q` of `q in nbrs`, `left`, `right`), an `argmin(q in nbrs : ...)` or another own node variable"),
                    );
                    return None;
                }
            }
        }
        if t.index.is_some() && index.is_none() {
            return None;
        }
        Some((
            ir::Target {
                var,
                index,
                span: t.span,
            },
            value,
        ))
    }

    /// Whether a node expression is sure to name this process or a neighbour.
    pub(super) fn names_neighbour(&self, e: &IExpr) -> bool {
        match e {
            IExpr::NodeOf(Proc::Me | Proc::Left(_) | Proc::Right(_) | Proc::TreeParent(_)) => true,
            IExpr::NodeOf(Proc::Local(slot)) => self
                .locals
                .iter()
                .rev()
                .find(|l| l.slot == *slot)
                .is_some_and(|l| l.kind == LocalKind::Node { nbr: true }),
            IExpr::NodeOf(Proc::Through(v)) => self.vars[*v].ty == Ty::Node,
            IExpr::Var(Proc::Me, v) | IExpr::Elem(Proc::Me, v, _, _) => {
                self.vars[*v].ty == Ty::Node
            }
            IExpr::Best(b) => matches!(b.coll, Coll::NbrsOf(Proc::Me)),
            IExpr::Random(d, _) => matches!(
                **d,
                ir::Draw::Member {
                    coll: Coll::NbrsOf(Proc::Me),
                    ..
                }
            ),
            IExpr::Let(_, _, body) => self.names_neighbour(body),
            IExpr::Cond(_, a, b) => self.names_neighbour(a) && self.names_neighbour(b),
            _ => false,
        }
    }

    pub(super) fn assignable(&mut self, t: &ast::Ident) -> Option<usize> {
        if let Some(&v) = self.var_index.get(&t.name) {
            return Some(v);
        }
        let what = if self.param_index.contains_key(&t.name) {
            "a parameter"
        } else if self.enum_consts.contains_key(&t.name) {
            "an enumeration value"
        } else if BUILTIN_NAMES.contains(&t.name.as_str()) {
            "a built-in name"
        } else if self.defs.contains_key(&t.name) {
            "a definition"
        } else if self.locals.iter().any(|l| l.name == t.name) {
            "a bound variable"
        } else {
            let help = match suggest(&t.name, sorted_names(&self.var_index)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "declare it with `var NAME: DOMAIN`".into(),
            };
            self.err(
                Problem::new(
                    "guarded::check::unknown_variable",
                    format!("unknown variable `{}`", t.name),
                )
                .label(t.span, "not declared")
                .help(help),
            );
            return None;
        };
        self.err(
            Problem::new(
                "guarded::check::not_assignable",
                format!("cannot assign to `{}`", t.name),
            )
            .label(t.span, format!("this is {what}"))
            .help("an action assigns only its own process's variables"),
        );
        None
    }

    /// Checks `e` as a value for something of type `ty`.
    pub(super) fn value(&mut self, e: &Expr, ty: Ty, target: &str) -> Option<Value> {
        let t = self.expr(e)?;
        self.typed_value(t, e.span(), ty, target)
    }

    /// A checked value for something of type `ty`.
    pub(super) fn typed_value(
        &mut self,
        t: Typed,
        span: Span,
        ty: Ty,
        target: &str,
    ) -> Option<Value> {
        match (t, ty) {
            (Typed::Bool(b), Ty::Bool) => Some(Value::Bool(b)),
            (Typed::Int(i, it), _) if it == ty => Some(Value::Int(i)),
            (t, _) => {
                let found = self.typed_name(&t);
                // The habits of languages where 0 and 1 are truth values.
                let truth = match (&t, ty) {
                    (Typed::Int(IExpr::Const(k @ (0 | 1)), Ty::Int), Ty::Bool) => Some(*k == 1),
                    _ => None,
                };
                let instead = match (&t, ty) {
                    _ if truth.is_some() => ": write `false` or `true`",
                    (Typed::Bool(_), Ty::Int) => ": `int(b)` is 1 where `b` holds, else 0",
                    _ => "",
                };
                let mut problem = Problem::new(
                    "guarded::check::type_mismatch",
                    format!("expected {}, found {}", ty_name(self, ty), found),
                )
                .label(span, format!("this is {found}"))
                .help(format!(
                    "{target} holds values of type {}{instead}",
                    ty_name(self, ty)
                ));
                if let Some(b) = truth {
                    problem = problem.fix(format!("Write `{b}`"), span, b.to_string());
                }
                self.err(problem);
                None
            }
        }
    }
}
