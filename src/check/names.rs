//! Names: bound variables and their scopes, definitions expanded at their
//! use, processes an expression denotes, and reads of their variables
//! (locality).

use super::*;

impl Checker {
    /// The innermost bound variable called `name`.
    pub(super) fn local(&self, name: &str) -> Option<&LocalVar> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    pub(super) fn mark(&self) -> (usize, usize) {
        (self.locals.len(), self.live)
    }

    pub(super) fn release(&mut self, (len, live): (usize, usize)) {
        self.locals.truncate(len);
        self.live = live;
    }

    /// Binds `name` to a new local slot.
    pub(super) fn bind(&mut self, name: &str, kind: LocalKind) -> usize {
        let slot = self.live;
        self.live += 1;
        self.max_locals = self.max_locals.max(self.live);
        self.locals.push(LocalVar {
            name: name.to_string(),
            slot,
            kind,
        });
        slot
    }

    /// The body of definition `f` with `args` substituted, if `f` is a
    /// definition of the wanted kind used with the right number of arguments.
    pub(super) fn expand(
        &mut self,
        f: &ast::Ident,
        args: &[Expr],
        span: Span,
        stmt: bool,
    ) -> Option<ast::DefBody> {
        let def = self.defs.get(&f.name).cloned()?;
        if self.recursive.contains(&f.name) {
            return None;
        }
        self.expansions += 1;
        if self.expansions > MAX_EXPANSIONS {
            if self.expansions == MAX_EXPANSIONS + 1 {
                self.err(
                    Problem::new(
                        "guarded::check::expansion",
                        format!("the definitions expand to more than {MAX_EXPANSIONS} uses"),
                    )
                    .label(span, "expanding this use went past the limit")
                    .help("a definition that uses another twice doubles its size at each level; use it once, or write the repeated part as a `for` loop or quantifier"),
                );
            }
            return None;
        }
        if def.params.len() != args.len() {
            let params: Vec<&str> = def.params.iter().map(|p| p.name.as_str()).collect();
            self.err(
                Problem::new(
                    "guarded::check::arity",
                    format!(
                        "`{}` takes {} argument{}, found {}",
                        f.name,
                        params.len(),
                        if params.len() == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .label(span, "wrong number of arguments")
                .label(def.name.span, "defined here")
                .help(arity_help(&f.name, &params, args.len())),
            );
            return None;
        }
        let is_stmt = matches!(def.body, ast::DefBody::Stmt(_));
        if is_stmt != stmt {
            let (what, help) = if stmt {
                (
                    "an expression, not a statement",
                    "use it inside a guard or an expression, e.g. `x := f(a)`",
                )
            } else {
                (
                    "a statement, not an expression",
                    "use it as a statement: `f(a)` on its own after `->`",
                )
            };
            self.err(
                Problem::new(
                    "guarded::check::def_kind",
                    format!("`{}` is {what}", f.name),
                )
                .label(span, "used here")
                .label(def.name.span, "defined here")
                .help(help),
            );
            return None;
        }
        let params: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
        let mut subst = Subst::new(&params, args, &mut self.fresh);
        Some(match &def.body {
            ast::DefBody::Expr(e) => ast::DefBody::Expr(subst.expr(e)),
            ast::DefBody::Stmt(s) => ast::DefBody::Stmt(subst.stmt(s)),
        })
    }

    /// Checks a use of an expression definition.
    pub(super) fn use_def(&mut self, f: &ast::Ident, args: &[Expr], span: Span) -> Option<Typed> {
        let Some(ast::DefBody::Expr(body)) = self.expand(f, args, span, false) else {
            return None;
        };
        self.expr(&body)
    }

    /// A use of a statement definition, expanded.
    pub(super) fn expand_stmt(
        &mut self,
        f: &ast::Ident,
        args: &[Expr],
        span: Span,
    ) -> Option<ast::Stmt> {
        if !self.defs.contains_key(&f.name) {
            if !self.first_unknown(f.span) {
                return None;
            }
            let help = match suggest(&f.name, sorted_names(&self.defs)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "a statement is `x := e`, `if`, `for`, `skip`, or a `def NAME(..) { .. }` used by name".into(),
            };
            self.err(
                Problem::new(
                    "guarded::check::unknown_statement",
                    format!("`{}` is not a statement", f.name),
                )
                .label(span, "not a defined statement")
                .help(help),
            );
            return None;
        }
        match self.expand(f, args, span, true)? {
            ast::DefBody::Stmt(s) => Some(s),
            ast::DefBody::Expr(_) => None,
        }
    }

    /// Resolves an expression that denotes a process: the base of a field
    /// read, the argument of `enabled` or `nbrs`.
    pub(super) fn proc_of(&mut self, e: &Expr) -> Option<Proc> {
        let scope = self.scope();
        if let Expr::Name(id) = e {
            if let Some(l) = self.local(&id.name) {
                if let LocalKind::Node { .. } = l.kind {
                    return Some(Proc::Local(l.slot));
                }
            }
            match (id.name.as_str(), scope) {
                ("self", Scope::Process | Scope::Init | Scope::Selector) => return Some(Proc::Me),
                ("left", Scope::Process | Scope::Selector) => {
                    self.reads_left.get_or_insert(id.span);
                    return Some(Proc::Left(id.span));
                }
                ("right", Scope::Process | Scope::Selector) => {
                    self.reads_right.get_or_insert(id.span);
                    return Some(Proc::Right(id.span));
                }
                ("tree_parent", Scope::Process | Scope::Selector) => {
                    self.reads_tree.get_or_insert(id.span);
                    return Some(Proc::TreeParent(id.span));
                }
                _ => {}
            }
        }
        let t = self.expr(e)?;
        match t {
            Typed::Int(IExpr::NodeOf(p), Ty::Node) => Some(p),
            Typed::Int(IExpr::Var(Proc::Me, v), Ty::Node) if scope == Scope::Process => {
                Some(Proc::Through(v))
            }
            // In a global predicate a process may be named by its number
            // (`msgs(0, 1)`), checked against the processes when read.
            Typed::Int(i, Ty::Node | Ty::Int) if scope == Scope::Global => {
                Some(Proc::At(Box::new(i), e.span()))
            }
            // Reads through a neighbour's node variable (`q.parent.x`) are
            // checked when they happen: the process named must be a neighbour.
            Typed::Int(i, Ty::Node) if scope == Scope::Process => {
                Some(Proc::Via(Box::new(i), e.span()))
            }
            Typed::Int(_, Ty::Node) => {
                self.err(
                    Problem::new("guarded::check::not_constant", "a process read before the configuration exists")
                        .label(e.span(), "this names a process through a variable")
                        .help("initial values and role selectors may use `index`, `id`, `n` and parameters (selectors also the processes `self`, `left`, `right`, `tree_parent`), not variables"),
                );
                None
            }
            t => {
                let found = self.typed_name(&t);
                self.err(
                    Problem::new("guarded::check::type_mismatch", format!("expected a process, found {found}"))
                        .label(e.span(), format!("this is {found}"))
                        .help("reads like `p.x` need a process on the left: `self`, `left`, `right`, a bound variable or a node variable"),
                );
                None
            }
        }
    }

    pub(super) fn field(&mut self, p: Proc, field: &ast::Ident) -> Option<Typed> {
        match field.name.as_str() {
            "index" => return Some(Typed::Int(IExpr::Index(p), Ty::Int)),
            "id" => return Some(Typed::Int(IExpr::Id(p), Ty::Int)),
            side @ ("left" | "right") if !self.var_index.contains_key(side) => {
                if self.scope() != Scope::Global {
                    self.err(
                        Problem::new(
                            "guarded::check::not_local",
                            format!("`.{side}` of another process is read from a global predicate only"),
                        )
                        .label(field.span, "two hops away, perhaps")
                        .help("an action reads its own `left` and `right`; `p.left` and `p.right` belong in `legitimate:`, `invariant` and `report`"),
                    );
                    return None;
                }
                let left = side == "left";
                if left {
                    self.reads_left.get_or_insert(field.span);
                } else {
                    self.reads_right.get_or_insert(field.span);
                }
                return Some(Typed::Int(IExpr::Side(p, left, field.span), Ty::Node));
            }
            _ => {}
        }
        if self.scope() == Scope::Init || self.scope() == Scope::Selector {
            self.err(
                Problem::new(
                    "guarded::check::not_constant",
                    format!("`{}` is read before the configuration exists", field.name),
                )
                .label(field.span, "a variable")
                .help(
                    "initial values and role selectors may use `index`, `id`, `n` and parameters (selectors also the processes `self`, `left`, `right`, `tree_parent`), not variables",
                ),
            );
            return None;
        }
        match self.var_index.get(&field.name).copied() {
            Some(v) => Some(self.var_read(p, v)),
            None if !self.first_unknown(field.span) => None,
            None => {
                let help = match suggest(
                    &field.name,
                    sorted_names(&self.var_index).chain(["index", "id"]),
                ) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "a process has its declared variables, `index`, `id`, and one-parameter definitions (`p.f` is `f(p)`)".into(),
                };
                self.err(
                    Problem::new(
                        "guarded::check::unknown_variable",
                        format!("unknown variable `{}`", field.name),
                    )
                    .label(field.span, "no such variable")
                    .help(help),
                );
                None
            }
        }
    }

    pub(super) fn var_read(&self, p: Proc, v: usize) -> Typed {
        if self.is_array(v) {
            return Typed::Array(p, v);
        }
        match self.vars[v].ty {
            Ty::Bool => Typed::Bool(BExpr::Var(p, v)),
            ty => Typed::Int(IExpr::Var(p, v), ty),
        }
    }

    pub(super) fn name(&mut self, id: &ast::Ident) -> Option<Typed> {
        let scope = self.scope();
        if let Some(l) = self.local(&id.name) {
            return Some(match l.kind {
                LocalKind::Node { .. } => Typed::Int(IExpr::NodeOf(Proc::Local(l.slot)), Ty::Node),
                LocalKind::Int => Typed::Int(IExpr::Local(l.slot), Ty::Int),
                LocalKind::Field(Ty::Bool) => {
                    Typed::Bool(BExpr::Cmp(Cmp::Ne, IExpr::Local(l.slot), IExpr::Const(0)))
                }
                LocalKind::Field(ty) => Typed::Int(IExpr::Local(l.slot), ty),
            });
        }
        if self.defs.contains_key(&id.name) {
            return self.use_def(id, &[], id.span);
        }
        if let Some(&v) = self.var_index.get(&id.name) {
            if scope == Scope::Process {
                return Some(self.var_read(Proc::Me, v));
            }
            let help = match scope {
                Scope::Global => format!("in a global predicate say whose: `forall(p in procs: p.{} ...)`", id.name),
                _ => "domains, priorities, parameters, selectors and initial values may use only `n`, parameters, `index` and `id`".into(),
            };
            self.err(
                Problem::new(
                    "guarded::check::no_process",
                    format!("variable `{}` read without a process", id.name),
                )
                .label(id.span, "which process's?")
                .help(help),
            );
            return None;
        }
        if let Some(&i) = self.param_index.get(&id.name) {
            if scope == Scope::ParamDefault && i >= self.params_visible {
                self.err(
                    Problem::new(
                        "guarded::check::param_order",
                        format!("parameter `{}` is declared later", id.name),
                    )
                    .label(id.span, "used before its declaration")
                    .help("a default may use `n` and the parameters declared before it"),
                );
                return None;
            }
            return Some(Typed::Int(IExpr::Param(i), Ty::Int));
        }
        if let Some(&(e, k)) = self.enum_consts.get(&id.name) {
            return Some(Typed::Int(IExpr::Const(k), Ty::Enum(e)));
        }
        let local = matches!(scope, Scope::Process | Scope::Selector | Scope::Init);
        match id.name.as_str() {
            "n" => return Some(Typed::Int(IExpr::N, Ty::Int)),
            "maxdeg" => return Some(Typed::Int(IExpr::MaxDeg, Ty::Int)),
            "index" if local => return Some(Typed::Int(IExpr::Index(Proc::Me), Ty::Int)),
            "id" if local => return Some(Typed::Int(IExpr::Id(Proc::Me), Ty::Int)),
            "self" if local => return Some(Typed::Int(IExpr::NodeOf(Proc::Me), Ty::Node)),
            "left" | "right" | "tree_parent"
                if matches!(scope, Scope::Process | Scope::Selector) =>
            {
                let p = self.proc_of(&Expr::Name(id.clone()))?;
                return Some(Typed::Int(IExpr::NodeOf(p), Ty::Node));
            }
            "index" | "id" | "self" | "left" | "right" | "tree_parent" => {
                self.err(
                    Problem::new("guarded::check::no_process", format!("`{}` has no process here", id.name))
                        .label(id.span, "whose?")
                        .help(match scope {
                            Scope::Global => "in a global predicate bind a process first: `forall(p in procs: p.index ...)`",
                            _ => "only actions, role selectors and initial values belong to a process (`left`, `right` and `tree_parent` only actions and selectors)",
                        }),
                );
                return None;
            }
            _ => {}
        }
        if !self.first_unknown(id.span) {
            return None;
        }
        let mut candidates: Vec<&str> = self
            .locals
            .iter()
            .map(|l| l.name.as_str())
            .filter(|n| !n.contains(FRESH_MARK))
            .collect();
        candidates.extend(sorted_names(&self.defs));
        candidates.extend(sorted_names(&self.var_index));
        candidates.extend(sorted_names(&self.param_index));
        candidates.extend(sorted_names(&self.enum_consts));
        candidates.extend(["n", "maxdeg", "index", "id", "self", "left", "right"]);
        let help = match suggest(&id.name, candidates) {
            Some(s) => format!("did you mean `{s}`?"),
            None => "declare it with `var`, `param` or `enum`".into(),
        };
        self.err(
            Problem::new(
                "guarded::check::unknown_name",
                format!("unknown name `{}`", id.name),
            )
            .label(id.span, "not declared")
            .help(help),
        );
        None
    }
}

/// How to use a definition of `params` given `found` arguments: a
/// definition without parameters used at a process (`(3).best`, `best(q)`)
/// is read at the process whose action uses it, so it needs a parameter
/// to be read elsewhere.
fn arity_help(name: &str, params: &[&str], found: usize) -> String {
    if params.is_empty() && found == 1 {
        return format!(
            "`{name}` has no parameter: it is read at the process whose action uses it; to read it at a given process, give it one (`def {name}(P) = ...`, reading `P.x` and `nbrs(P)`), then `q.{name}` is `{name}(q)`"
        );
    }
    format!("write `{name}({})`", params.join(", "))
}
