//! Declarations: parameters, enumerations, variables, messages,
//! definitions (and their recursion), roles and actions, legitimacy,
//! invariants and reports, each resolved into the IR.

use super::*;

impl Checker {
    pub(super) fn declare_name(&mut self, id: &ast::Ident, what: &str) -> bool {
        if BUILTIN_NAMES.contains(&id.name.as_str()) {
            self.err(
                Problem::new(
                    "guarded::check::reserved_name",
                    format!("`{}` is a built-in name", id.name),
                )
                .label(id.span, format!("this {what} would hide the built-in"))
                .help("choose another name"),
            );
            return false;
        }
        if let Some(prev) = self.declared.get(&id.name) {
            let prev = *prev;
            self.err(
                Problem::new("guarded::check::duplicate_name", format!("`{}` is declared twice", id.name))
                    .label(id.span, format!("this {what} reuses the name"))
                    .label(prev, "first declared here")
                    .help("every parameter, variable, enumeration and enumeration value needs its own name"),
            );
            return false;
        }
        self.declared.insert(id.name.clone(), id.span);
        true
    }

    pub(super) fn declare(&mut self, prog: &ast::Program) {
        if let Some((_, span)) = prog.topologies.get(1) {
            self.err(
                Problem::new(
                    "guarded::check::duplicate_topology",
                    "more than one default topology",
                )
                .label(*span, "second `topology` declaration")
                .help("keep one; the command line's --topology overrides it anyway"),
            );
        }
        // Names first, so a default that uses a later parameter gets a pointed message.
        for (i, p) in prog.params.iter().enumerate() {
            if self.declare_name(&p.name, "parameter") {
                self.param_index.insert(p.name.name.clone(), i);
            }
        }
        for p in &prog.params {
            self.scope = Some(Scope::ParamDefault);
            self.params_visible = self.params.len();
            let default = self
                .int_expr(&p.default, Some(Ty::Int))
                .unwrap_or(IExpr::Const(0));
            self.params.push(ir::Param {
                name: p.name.name.clone(),
                default,
                span: p.name.span,
            });
        }
        self.params_visible = self.params.len();
        for e in &prog.enums {
            if self.declare_name(&e.name, "enumeration") {
                self.enum_index
                    .insert(e.name.name.clone(), self.enums.len());
            }
            self.add_enum(e.name.name.clone(), &e.values);
        }
        for d in &prog.defs {
            if self.declare_name(&d.name, "definition") {
                self.defs.insert(d.name.name.clone(), d.clone());
            }
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for p in &d.params {
                if let Some(prev) = seen.insert(&p.name, p.span) {
                    self.err(
                        Problem::new(
                            "guarded::check::duplicate_name",
                            format!("parameter `{}` appears twice", p.name),
                        )
                        .label(p.span, "second one")
                        .label(prev, "first one")
                        .help("give each parameter of a definition its own name"),
                    );
                }
            }
        }
        self.find_recursion();
        for m in &prog.messages {
            self.declare_message(m);
        }
        for v in &prog.vars {
            self.declare_var(v);
        }
    }

    /// A variable: its kind, domain, length, `random` range and initial value.
    fn declare_var(&mut self, v: &ast::VarDecl) {
        self.scope = Some(Scope::Constant);
        let (len, per_nbr, elem) = match &v.domain {
            ast::Domain::Array(Some(len), elem, _) => {
                (self.int_expr(len, Some(Ty::Int)), false, elem.as_ref())
            }
            ast::Domain::Array(None, elem, _) => (None, true, elem.as_ref()),
            d => (None, v.kind == ast::VarKind::Edge, d),
        };
        if v.kind == ast::VarKind::Edge {
            if let ast::Domain::Array(_, _, span) = &v.domain {
                self.err(
                    Problem::new("guarded::check::edge_array", "an edge variable holds one value per edge")
                        .label(*span, "an array")
                        .help("declare `edge var x: DOMAIN`; each edge has its own x, read as `edge(q).x` or `x[q]`"),
                );
            }
        }
        let (ty, domain) = self.scalar_domain(elem);
        if v.kind == ast::VarKind::Timer && !matches!(domain, Domain::Range(..)) {
            self.err(
                Problem::new(
                    "guarded::check::timer_domain",
                    "a timer counts rounds: its domain is a range",
                )
                .label(v.name.span, "this timer")
                .help("declare `timer t: 0..T` (it stops at T), or `timer t: array[nbrs] of 0..T`"),
            );
        }
        let random = v.random.as_ref().and_then(|(lo, hi)| {
            if ty != Ty::Int {
                self.err(
                    Problem::new("guarded::check::random_range", "`random lo..hi` needs an integer variable")
                        .label(lo.span().join(hi.span()), "a range for a variable that is not an integer")
                        .help("remove it: arbitrary configurations draw other variables from their whole domain"),
                );
                return None;
            }
            let lo = self.int_expr(lo, Some(Ty::Int));
            let hi = self.int_expr(hi, Some(Ty::Int));
            Some((lo?, hi?))
        });
        let len = match &v.domain {
            ast::Domain::Array(Some(_), _, _) => Some(len.unwrap_or(IExpr::Const(1))),
            _ => None,
        };
        self.scope = Some(Scope::Init);
        let init = v
            .init
            .as_ref()
            .and_then(|e| self.value(e, ty, "the variable's domain"));
        if self.declare_name(&v.name, "variable") {
            self.var_index.insert(v.name.name.clone(), self.vars.len());
        }
        if v.role.is_some() && (init.is_none() || v.kind != ast::VarKind::Plain) {
            self.err(
                Problem::new(
                    "guarded::check::role_variable",
                    format!("`{}` is declared in a role without a value for the others", v.name.name),
                )
                .label(v.span, "declared here")
                .help("a variable of one role is a plain `var` with a declared value (`var up: bool = true`): the processes of the other roles keep that value"),
            );
        }
        self.vars.push(ir::Var {
            name: v.name.name.clone(),
            ty,
            domain,
            init,
            len,
            random,
            per_nbr,
            kind: v.kind.into(),
            span: v.span,
            role: v.role,
        });
    }

    /// Whether variable `v` has elements (a fixed array or one per neighbour).
    pub(super) fn is_array(&self, v: usize) -> bool {
        self.vars[v].len.is_some() || self.vars[v].per_nbr
    }

    /// An index into variable `v`: an integer, or a neighbour for per-neighbour arrays.
    pub(super) fn index_expr(&mut self, v: usize, e: &Expr) -> Option<IExpr> {
        if !self.vars[v].per_nbr {
            return self.int_expr(e, Some(Ty::Int));
        }
        match self.expr(e)? {
            Typed::Int(i, Ty::Node) => Some(i),
            t => {
                let found = self.typed_name(&t);
                self.err(
                    Problem::new("guarded::check::type_mismatch", format!("expected a neighbour, found {found}"))
                        .label(e.span(), format!("this is {found}"))
                        .help(format!("`{}` has one value per neighbour: index it with a neighbour, e.g. `{}[q]` for `q in nbrs`", self.vars[v].name, self.vars[v].name)),
                );
                None
            }
        }
    }

    /// Reports definitions that use themselves, directly or through others.
    pub(super) fn find_recursion(&mut self) {
        let mut graph: HashMap<String, Vec<(String, Span)>> = HashMap::new();
        for (name, d) in &self.defs {
            let params: Vec<String> = d.params.iter().map(|p| p.name.clone()).collect();
            let mut out = Vec::new();
            match &d.body {
                ast::DefBody::Expr(e) => expand::uses(e, &params, &mut out),
                ast::DefBody::Stmt(s) => expand::stmt_uses(s, &params, &mut out),
            }
            out.retain(|(u, _)| self.defs.contains_key(u));
            graph.insert(name.clone(), out);
        }
        let mut names: Vec<&String> = graph.keys().collect();
        names.sort_by_key(|n| self.defs[*n].span.start);
        for start in names {
            // Depth-first from `start`, looking for a path back to it.
            let mut stack: Vec<(&str, Span)> =
                graph[start].iter().map(|(u, s)| (u.as_str(), *s)).collect();
            let mut seen: HashSet<&str> = HashSet::new();
            while let Some((u, at)) = stack.pop() {
                if u == start {
                    self.recursive.insert(start.clone());
                    let d = &self.defs[start];
                    self.problems.push(
                        Problem::new(
                            "guarded::check::recursive_def",
                            format!("`{start}` is defined in terms of itself"),
                        )
                        .label(at, "this use leads back to it")
                        .label(d.name.span, "defined here")
                        .help("definitions are expanded where they are used, so they cannot recurse; use a quantifier or a `for` loop"),
                    );
                    break;
                }
                if seen.insert(u) {
                    stack.extend(graph[u].iter().map(|(v, s)| (v.as_str(), *s)));
                }
            }
        }
    }

    /// The type and domain of a scalar domain.
    pub(super) fn scalar_domain(&mut self, d: &ast::Domain) -> (Ty, Domain) {
        match d {
            ast::Domain::Bool(_) => (Ty::Bool, Domain::Bool),
            ast::Domain::Node(_) => (Ty::Node, Domain::Node),
            ast::Domain::Enum(values, _) => {
                let e = self.add_enum(format!("{{{}}}", join_names(values)), values);
                (Ty::Enum(e), Domain::Enum(e))
            }
            ast::Domain::Named(id) => match self.enum_index.get(&id.name) {
                Some(&e) => (Ty::Enum(e), Domain::Enum(e)),
                None => {
                    let help = match suggest(&id.name, sorted_names(&self.enum_index)) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => "a domain is `lo..hi`, `bool`, `node`, `{a, b, c}`, `array[LEN] of DOMAIN` or a declared `enum`".into(),
                    };
                    self.err(
                        Problem::new(
                            "guarded::check::unknown_domain",
                            format!("unknown domain `{}`", id.name),
                        )
                        .label(id.span, "not an enumeration")
                        .help(help),
                    );
                    (Ty::Int, Domain::Range(IExpr::Const(0), IExpr::Const(0)))
                }
            },
            ast::Domain::Range(lo, hi) => {
                let lo = self.int_expr(lo, Some(Ty::Int)).unwrap_or(IExpr::Const(0));
                let hi = self.int_expr(hi, Some(Ty::Int)).unwrap_or(IExpr::Const(0));
                (Ty::Int, Domain::Range(lo, hi))
            }
            ast::Domain::Array(_, _, span) => {
                self.err(
                    Problem::new(
                        "guarded::check::nested_array",
                        "arrays of arrays are not supported",
                    )
                    .label(*span, "an array inside an array")
                    .help("use one array of LEN1*LEN2 values and index it with `i * LEN2 + j`"),
                );
                (Ty::Int, Domain::Range(IExpr::Const(0), IExpr::Const(0)))
            }
        }
    }

    pub(super) fn add_enum(&mut self, name: String, values: &[ast::Ident]) -> usize {
        let e = self.enums.len();
        for (k, v) in values.iter().enumerate() {
            if self.declare_name(v, "enumeration value") {
                self.enum_consts.insert(v.name.clone(), (e, k as i64));
            }
        }
        self.enums.push(ir::Enum {
            name,
            values: values.iter().map(|v| v.name.clone()).collect(),
        });
        e
    }

    pub(super) fn role(&mut self, r: &ast::Role) -> ir::Role {
        // A selector may read `left`, `right` and `tree_parent` too: the
        // role then needs them from the topology.
        self.reads_left = None;
        self.reads_right = None;
        self.reads_tree = None;
        self.scope = Some(Scope::Selector);
        let selector = r.selector.as_ref().and_then(|e| self.bool_expr(e));
        let mut labels: HashMap<&str, Span> = HashMap::new();
        let mut actions = Vec::new();
        for a in &r.actions {
            if let Some(prev) = labels.insert(&a.label.name, a.label.span) {
                self.err(
                    Problem::new(
                        "guarded::check::duplicate_label",
                        format!("two actions of one role are labelled `{}`", a.label.name),
                    )
                    .label(a.label.span, "second action with this label")
                    .label(prev, "first one")
                    .help("labels name actions in traces; give each its own"),
                );
            }
            self.scope = Some(Scope::Constant);
            let priority = a
                .priority
                .as_ref()
                .and_then(|p| self.int_expr(p, Some(Ty::Int)).map(|e| (e, p.span())));
            self.scope = Some(Scope::Process);
            let mark = self.mark();
            let binder = a.binder.as_ref().and_then(|(var, coll)| {
                self.collection(var, coll, var.span, 0)
                    .map(|(slot, coll, filter, _)| ir::Binder { slot, coll, filter })
            });
            let receive = a.receive.as_ref().and_then(|r| self.receive(r));
            let guard = self.bool_expr(&a.guard).unwrap_or(BExpr::Const(false));
            self.in_statement = true;
            let body = self.stmt(&a.body);
            self.in_statement = false;
            self.release(mark);
            actions.push(ir::Action {
                label: a.label.name.clone(),
                priority,
                guard,
                body,
                span: a.span,
                binder,
                receive,
            });
        }
        ir::Role {
            selector,
            actions,
            head: r.head,
            reads_left: self.reads_left,
            reads_right: self.reads_right,
            reads_tree: self.reads_tree,
        }
    }

    pub(super) fn legitimacy(&mut self, prog: &ast::Program) -> Option<(BExpr, Span)> {
        self.scope = Some(Scope::Global);
        if let Some(second) = prog.legitimate.get(1) {
            self.err(
                Problem::new(
                    "guarded::check::duplicate_legitimate",
                    "more than one legitimacy predicate",
                )
                .label(second.span(), "second `legitimate:`")
                .help("combine them with `and`"),
            );
        }
        let e = prog.legitimate.first()?;
        self.bool_expr(e).map(|b| (b, e.span()))
    }

    pub(super) fn invariants(&mut self, prog: &ast::Program) -> Vec<(String, BExpr, Span)> {
        self.scope = Some(Scope::Global);
        self.unique_names(
            prog.invariants.iter().map(|(n, _)| n),
            "invariant",
            "give each invariant its own name; violations are reported by name",
        );
        let mut out = Vec::new();
        for (name, e) in &prog.invariants {
            if let Some(b) = self.bool_expr(e) {
                out.push((name.name.clone(), b, e.span()));
            }
        }
        out
    }

    /// The properties of runs, their predicates over the whole
    /// configuration (and the process each is said of, if it is).
    pub(super) fn properties(&mut self, prog: &ast::Program) -> Vec<ir::Property> {
        self.scope = Some(Scope::Global);
        self.unique_names(
            prog.properties.iter().map(|p| &p.name),
            "property",
            "give each property its own name; verdicts are reported by name",
        );
        let mut out = Vec::new();
        for p in &prog.properties {
            let mark = self.mark();
            let each = match &p.each {
                Some(var) => self
                    .collection(var, &ast::Collection::Procs, p.span, 0)
                    .map(|(slot, ..)| Some(slot)),
                None => Some(None),
            };
            let form = each.and_then(|_| p.form.map(|e| self.bool_expr(e)));
            self.release(mark);
            if let (Some((_, span)), false) =
                (p.fairness, matches!(p.form, ast::Temporal::LeadsTo(..)))
            {
                self.err(
                    Problem::new(
                        "guarded::check::fairness_of_a_safety_property",
                        format!("property `{}` says what every run's configurations are: fairness changes nothing there", p.name.name),
                    )
                    .label(span, "only `leads_to` and `always eventually` assume fairness")
                    .help("drop this clause: a run's every beginning is the beginning of a fair run, so `always`, `sometimes` and `stable` mean the same under every fairness".to_string()),
                );
            }
            if let (Some(each), Some(form)) = (each, form) {
                out.push(ir::Property {
                    name: p.name.name.clone(),
                    span: p.span,
                    each,
                    form,
                    fairness: p.fairness.map(|(assumed, _)| assumed),
                });
            }
        }
        out
    }

    /// Reports names given twice among invariants (or reports).
    pub(super) fn unique_names<'n>(
        &mut self,
        names: impl Iterator<Item = &'n ast::Ident>,
        what: &str,
        help: &str,
    ) {
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for name in names {
            if let Some(prev) = seen.insert(&name.name, name.span) {
                let code = if what == "report" {
                    "guarded::check::duplicate_report"
                } else {
                    "guarded::check::duplicate_invariant"
                };
                self.err(
                    Problem::new(code, format!("{what} `{}` is declared twice", name.name))
                        .label(name.span, "second one")
                        .label(prev, "first one")
                        .help(help.to_string()),
                );
            }
        }
    }

    pub(super) fn reports(&mut self, prog: &ast::Program) -> Vec<(String, Checked)> {
        self.scope = Some(Scope::Global);
        self.unique_names(
            prog.reports.iter().map(|(n, _)| n),
            "report",
            "give each report its own name",
        );
        let mut out = Vec::new();
        for (name, e) in &prog.reports {
            match self.expr(e) {
                Some(Typed::Int(i, ty)) => out.push((name.name.clone(), Checked::Int(i, ty))),
                Some(Typed::Bool(b)) => out.push((name.name.clone(), Checked::Bool(b))),
                Some(t) => {
                    let found = self.typed_name(&t);
                    self.err(
                        Problem::new(
                            "guarded::check::not_scalar",
                            format!("a report shows one value, not {found}"),
                        )
                        .label(e.span(), format!("this is {found}"))
                        .help("report one component at a time"),
                    );
                }
                None => {}
            }
        }
        out
    }
}
