//! Phase 2, checking: resolves names, types every expression, enforces
//! locality (a process reads only itself and its neighbours) and lowers the
//! AST into the typed IR of [`ir`]. Every problem found is reported, not only
//! the first.

pub mod ir;

use crate::diagnostic::Problem;
use crate::span::Span;
use crate::syntax::ast::{self, BinOp, Collection, Expr, QuantKind, UnOp};
use ir::{Arith, BExpr, Cmp, Coll, Domain, IExpr, Proc, Ty, Value};
use std::collections::HashMap;

/// Names the language gives a meaning of its own.
pub const BUILTIN_NAMES: &[&str] = &[
    "n", "index", "id", "self", "left", "right", "enabled", "min", "max", "abs",
];

/// Checks a parsed program and lowers it to the typed IR.
pub fn check(prog: &ast::Program) -> Result<ir::Program, Vec<Problem>> {
    let mut c = Checker::default();
    c.declare(prog);
    let roles = prog.roles.iter().map(|r| c.role(r)).collect();
    let legitimate = c.legitimacy(prog);
    let invariants = c.invariants(prog);
    if prog.roles.is_empty() {
        c.problems.push(
            Problem::new(
                "guarded::check::no_role",
                "the program has no `process` block",
            )
            .label(Span::new(0, 0), "")
            .help(
                "add `process { label :: guard -> statement }` with the actions every process runs",
            ),
        );
    }
    if !c.problems.is_empty() {
        return Err(c.problems);
    }
    Ok(ir::Program {
        params: c.params,
        topology: prog.topologies.first().cloned(),
        enums: c.enums,
        vars: c.vars,
        roles,
        legitimate,
        invariants,
        max_locals: c.max_locals,
    })
}

/// A checked stand-alone expression.
#[derive(Clone, Debug)]
pub enum Checked {
    /// Integer-like, with its type.
    Int(IExpr, Ty),
    /// Boolean.
    Bool(BExpr),
}

/// Checks an expression over the whole configuration (as in `legitimate:`)
/// against a program's declarations: for the REPL's `eval`, watches and
/// breakpoints. Returns it with the number of quantifier slots it needs.
pub fn check_global_expr(prog: &ast::Program, e: &Expr) -> Result<(Checked, usize), Vec<Problem>> {
    check_standalone(prog, e, Scope::Global)
}

/// Checks an expression as a guard would see it (own variables, `left.x`,
/// neighbours): for the REPL's explanations of disabled guards.
pub fn check_local_expr(prog: &ast::Program, e: &Expr) -> Result<(Checked, usize), Vec<Problem>> {
    check_standalone(prog, e, Scope::Process)
}

fn check_standalone(
    prog: &ast::Program,
    e: &Expr,
    scope: Scope,
) -> Result<(Checked, usize), Vec<Problem>> {
    let mut c = Checker::default();
    c.declare(prog);
    // The program itself already checked; only the expression's problems count.
    c.problems.clear();
    c.scope = Some(scope);
    match c.expr(e) {
        Some(_) if !c.problems.is_empty() => Err(c.problems),
        Some(Typed::Int(i, ty)) => Ok((Checked::Int(i, ty), c.max_locals)),
        Some(Typed::Bool(b)) => Ok((Checked::Bool(b), c.max_locals)),
        None => Err(c.problems),
    }
}

/// Where an expression sits, which decides what it may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// A parameter default: `n` and earlier parameters.
    ParamDefault,
    /// A domain bound or priority: `n` and parameters.
    Constant,
    /// A role selector: also `index` and `id`.
    Selector,
    /// A declared initial value: also `index`, `id` and `self`.
    Init,
    /// A guard or statement: the process and its neighbours.
    Process,
    /// Legitimacy and invariants: the whole configuration.
    Global,
}

/// A checked expression of either kind.
enum Typed {
    Int(IExpr, Ty),
    Bool(BExpr),
}

#[derive(Default)]
struct Checker {
    problems: Vec<Problem>,
    params: Vec<ir::Param>,
    param_index: HashMap<String, usize>,
    enums: Vec<ir::Enum>,
    enum_index: HashMap<String, usize>,
    enum_consts: HashMap<String, (usize, i64)>,
    vars: Vec<ir::Var>,
    var_index: HashMap<String, usize>,
    /// Quantifier variables in scope, innermost last: (name, local slot).
    locals: Vec<String>,
    max_locals: usize,
    scope: Option<Scope>,
    params_visible: usize,
    reads_left: Option<Span>,
    reads_right: Option<Span>,
    /// Every name declared at top level, for duplicate detection.
    declared: HashMap<String, Span>,
}

fn ty_name(c: &Checker, t: Ty) -> String {
    match t {
        Ty::Int => "int".into(),
        Ty::Bool => "bool".into(),
        Ty::Node => "node".into(),
        Ty::Enum(e) => format!("enum `{}`", c.enums[e].name),
    }
}

/// Edit distance with adjacent transpositions, for "did you mean" help.
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// The closest candidate to `name`, if any is close enough to be a typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (distance(name, c), c))
        .filter(|(d, c)| *d <= (name.len().max(c.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

impl Checker {
    fn err(&mut self, p: Problem) {
        self.problems.push(p);
    }

    fn declare_name(&mut self, id: &ast::Ident, what: &str) -> bool {
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

    fn declare(&mut self, prog: &ast::Program) {
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
        for v in &prog.vars {
            self.scope = Some(Scope::Constant);
            let (ty, domain) = match &v.domain {
                ast::Domain::Bool(_) => (Ty::Bool, Domain::Bool),
                ast::Domain::Node(_) => (Ty::Node, Domain::Node),
                ast::Domain::Enum(values, _) => {
                    let e = self.add_enum(format!("{{{}}}", join_names(values)), values);
                    (Ty::Enum(e), Domain::Enum(e))
                }
                ast::Domain::Named(id) => match self.enum_index.get(&id.name) {
                    Some(&e) => (Ty::Enum(e), Domain::Enum(e)),
                    None => {
                        let help = match suggest(&id.name, self.enum_index.keys().map(String::as_str)) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => "a domain is `lo..hi`, `bool`, `node`, `{a, b, c}` or a declared `enum`".into(),
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
            };
            self.scope = Some(Scope::Init);
            let init = v
                .init
                .as_ref()
                .and_then(|e| self.value(e, ty, "the variable's domain"));
            if self.declare_name(&v.name, "variable") {
                self.var_index.insert(v.name.name.clone(), self.vars.len());
            }
            self.vars.push(ir::Var {
                name: v.name.name.clone(),
                ty,
                domain,
                init,
                slot: self.vars.len(),
                span: v.span,
            });
        }
    }

    fn add_enum(&mut self, name: String, values: &[ast::Ident]) -> usize {
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

    fn role(&mut self, r: &ast::Role) -> ir::Role {
        self.scope = Some(Scope::Selector);
        let selector = r.selector.as_ref().and_then(|e| self.bool_expr(e));
        self.reads_left = None;
        self.reads_right = None;
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
            let guard = self.bool_expr(&a.guard).unwrap_or(BExpr::Const(false));
            let body = self.stmt(&a.body);
            actions.push(ir::Action {
                label: a.label.name.clone(),
                priority,
                guard,
                body,
                span: a.span,
            });
        }
        ir::Role {
            selector,
            actions,
            head: r.head,
            reads_left: self.reads_left,
            reads_right: self.reads_right,
        }
    }

    fn legitimacy(&mut self, prog: &ast::Program) -> Option<(BExpr, Span)> {
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

    fn invariants(&mut self, prog: &ast::Program) -> Vec<(String, BExpr, Span)> {
        self.scope = Some(Scope::Global);
        let mut seen: HashMap<&str, Span> = HashMap::new();
        let mut out = Vec::new();
        for (name, e) in &prog.invariants {
            if let Some(prev) = seen.insert(&name.name, name.span) {
                self.err(
                    Problem::new(
                        "guarded::check::duplicate_invariant",
                        format!("invariant `{}` is declared twice", name.name),
                    )
                    .label(name.span, "second one")
                    .label(prev, "first one")
                    .help("give each invariant its own name; violations are reported by name"),
                );
            }
            if let Some(b) = self.bool_expr(e) {
                out.push((name.name.clone(), b, e.span()));
            }
        }
        out
    }

    fn stmt(&mut self, s: &ast::Stmt) -> ir::Stmt {
        match s {
            ast::Stmt::Skip(_) => ir::Stmt::Skip,
            ast::Stmt::Seq(v, _) => ir::Stmt::Seq(v.iter().map(|s| self.stmt(s)).collect()),
            ast::Stmt::If(c, t, e, _) => {
                let c = self.bool_expr(c).unwrap_or(BExpr::Const(false));
                let t = self.stmt(t);
                let e = e.as_ref().map_or(ir::Stmt::Skip, |e| self.stmt(e));
                ir::Stmt::If(c, Box::new(t), Box::new(e))
            }
            ast::Stmt::Assign(targets, values, span) => {
                if targets.len() != values.len() {
                    self.err(
                        Problem::new(
                            "guarded::check::assignment_arity",
                            format!("{} variables but {} values", targets.len(), values.len()),
                        )
                        .label(*span, "the counts differ")
                        .help(
                            "a multiple assignment `a, b := e1, e2` needs one value per variable",
                        ),
                    );
                    return ir::Stmt::Skip;
                }
                let mut out_t = Vec::new();
                let mut out_v = Vec::new();
                let mut seen: HashMap<&str, Span> = HashMap::new();
                for (t, v) in targets.iter().zip(values) {
                    if let Some(prev) = seen.insert(&t.name, t.span) {
                        self.err(
                            Problem::new(
                                "guarded::check::assigned_twice",
                                format!(
                                    "`{}` is assigned twice in one multiple assignment",
                                    t.name
                                ),
                            )
                            .label(t.span, "second time")
                            .label(prev, "first time")
                            .help("each variable may appear once on the left of `:=`"),
                        );
                    }
                    let Some(var) = self.assignable(t) else {
                        continue;
                    };
                    let ty = self.vars[var].ty;
                    if let Some(val) = self.value(v, ty, &format!("`{}`", t.name)) {
                        out_t.push((var, t.span));
                        out_v.push(val);
                    }
                }
                if out_t.len() == targets.len() {
                    ir::Stmt::Assign(out_t, out_v)
                } else {
                    ir::Stmt::Skip
                }
            }
        }
    }

    fn assignable(&mut self, t: &ast::Ident) -> Option<usize> {
        if let Some(&v) = self.var_index.get(&t.name) {
            return Some(v);
        }
        let what = if self.param_index.contains_key(&t.name) {
            "a parameter"
        } else if self.enum_consts.contains_key(&t.name) {
            "an enumeration value"
        } else if BUILTIN_NAMES.contains(&t.name.as_str()) {
            "a built-in name"
        } else if self.locals.contains(&t.name) {
            "a quantifier variable"
        } else {
            let help = match suggest(&t.name, self.var_index.keys().map(String::as_str)) {
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
    fn value(&mut self, e: &Expr, ty: Ty, target: &str) -> Option<Value> {
        let t = self.expr(e)?;
        match (t, ty) {
            (Typed::Bool(b), Ty::Bool) => Some(Value::Bool(b)),
            (Typed::Int(i, it), _) if it == ty => Some(Value::Int(i)),
            (t, _) => {
                let found = self.typed_name(&t);
                self.err(
                    Problem::new(
                        "guarded::check::type_mismatch",
                        format!("expected {}, found {}", ty_name(self, ty), found),
                    )
                    .label(e.span(), format!("this is {found}"))
                    .help(format!(
                        "{target} holds values of type {}",
                        ty_name(self, ty)
                    )),
                );
                None
            }
        }
    }

    fn typed_name(&self, t: &Typed) -> String {
        match t {
            Typed::Bool(_) => "bool".into(),
            Typed::Int(_, ty) => ty_name(self, *ty),
        }
    }

    fn bool_expr(&mut self, e: &Expr) -> Option<BExpr> {
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
    fn int_expr(&mut self, e: &Expr, want: Option<Ty>) -> Option<IExpr> {
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

    fn scope(&self) -> Scope {
        self.scope.unwrap_or(Scope::Global)
    }

    fn expr(&mut self, e: &Expr) -> Option<Typed> {
        match e {
            Expr::Int(v, _) => Some(Typed::Int(IExpr::Const(*v), Ty::Int)),
            Expr::Bool(b, _) => Some(Typed::Bool(BExpr::Const(*b))),
            Expr::Name(id) => self.name(id),
            Expr::Field(base, field, _) => {
                let p = self.proc_of(base)?;
                self.field(p, field)
            }
            Expr::Call(f, args, span) => self.call(f, args, *span),
            Expr::Unary(UnOp::Not, a, _) => {
                Some(Typed::Bool(BExpr::Not(Box::new(self.bool_expr(a)?))))
            }
            Expr::Unary(UnOp::Neg, a, _) => Some(Typed::Int(
                IExpr::Neg(Box::new(self.int_expr(a, Some(Ty::Int))?)),
                Ty::Int,
            )),
            Expr::Binary(op, l, r, span) => self.binary(*op, l, r, *span),
            Expr::Quant(kind, var, coll, body, span) => {
                self.quantifier(*kind, var, coll, body, *span)
            }
        }
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, span: Span) -> Option<Typed> {
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
                let a = self.int_expr(l, Some(Ty::Int));
                let b = self.int_expr(r, Some(Ty::Int));
                let arith = match op {
                    Add => Arith::Add,
                    Sub => Arith::Sub,
                    Mul => Arith::Mul,
                    Div => Arith::Div,
                    _ => Arith::Mod,
                };
                Some(Typed::Int(
                    IExpr::Arith(arith, Box::new(a?), Box::new(b?), span),
                    Ty::Int,
                ))
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let a = self.expr(l);
                let b = self.expr(r);
                let (a, b) = (a?, b?);
                let cmp = match op {
                    Eq => Cmp::Eq,
                    Ne => Cmp::Ne,
                    Lt => Cmp::Lt,
                    Le => Cmp::Le,
                    Gt => Cmp::Gt,
                    _ => Cmp::Ge,
                };
                match (a, b) {
                    (Typed::Bool(a), Typed::Bool(b)) if matches!(op, Eq | Ne) => Some(Typed::Bool(
                        BExpr::BoolEq(op == Eq, Box::new(a), Box::new(b)),
                    )),
                    (Typed::Int(a, ta), Typed::Int(b, tb))
                        if ta == tb && (ta == Ty::Int || matches!(op, Eq | Ne)) =>
                    {
                        Some(Typed::Bool(BExpr::Cmp(cmp, a, b)))
                    }
                    (a, b) => {
                        let (na, nb) = (self.typed_name(&a), self.typed_name(&b));
                        let help = if na == nb {
                            format!("values of type {na} can only be compared with == and !=")
                        } else {
                            "both sides of a comparison must have the same type".into()
                        };
                        self.err(
                            Problem::new(
                                "guarded::check::type_mismatch",
                                format!("cannot compare {na} with {nb} using `{}`", op.symbol()),
                            )
                            .label(l.span(), na)
                            .label(r.span(), nb)
                            .help(help),
                        );
                        None
                    }
                }
            }
        }
    }

    fn call(&mut self, f: &ast::Ident, args: &[Expr], span: Span) -> Option<Typed> {
        let arity = |c: &mut Checker, n: usize| -> bool {
            if args.len() == n {
                return true;
            }
            c.err(
                Problem::new(
                    "guarded::check::arity",
                    format!(
                        "`{}` takes {n} argument{}, found {}",
                        f.name,
                        if n == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .label(span, "wrong number of arguments")
                .help(format!("write `{}({})`", f.name, vec!["_"; n].join(", "))),
            );
            false
        };
        match f.name.as_str() {
            "enabled" => {
                if !arity(self, 1) {
                    return None;
                }
                if self.scope() != Scope::Global {
                    self.err(
                        Problem::new(
                            "guarded::check::non_local",
                            "`enabled` is not local to a process",
                        )
                        .label(
                            span,
                            "whether a process is enabled depends on its neighbours' state",
                        )
                        .help("use `enabled(p)` in `legitimate:` or `invariant` predicates"),
                    );
                    return None;
                }
                let p = self.proc_of(&args[0])?;
                Some(Typed::Bool(BExpr::Enabled(p)))
            }
            "min" | "max" => {
                if !arity(self, 2) {
                    return None;
                }
                let a = self.int_expr(&args[0], Some(Ty::Int));
                let b = self.int_expr(&args[1], Some(Ty::Int));
                let op = if f.name == "min" {
                    Arith::Min
                } else {
                    Arith::Max
                };
                Some(Typed::Int(
                    IExpr::Arith(op, Box::new(a?), Box::new(b?), span),
                    Ty::Int,
                ))
            }
            "abs" => {
                if !arity(self, 1) {
                    return None;
                }
                Some(Typed::Int(
                    IExpr::Abs(Box::new(self.int_expr(&args[0], Some(Ty::Int))?)),
                    Ty::Int,
                ))
            }
            _ => {
                self.err(
                    Problem::new(
                        "guarded::check::unknown_function",
                        format!("unknown function `{}`", f.name),
                    )
                    .label(f.span, "not a function")
                    .help("the functions are `enabled(p)`, `min(a, b)`, `max(a, b)` and `abs(a)`"),
                );
                None
            }
        }
    }

    fn quantifier(
        &mut self,
        kind: QuantKind,
        var: &ast::Ident,
        coll: &Collection,
        body: &Expr,
        span: Span,
    ) -> Option<Typed> {
        let coll = match coll {
            Collection::Procs => {
                if self.scope() != Scope::Global {
                    self.err(
                        Problem::new("guarded::check::non_local", "a process cannot range over all processes")
                            .label(span, "reads processes that are not neighbours")
                            .help("quantify over `nbrs` in guards and statements; `procs` is for `legitimate:` and invariants"),
                    );
                    return None;
                }
                Coll::Procs
            }
            Collection::Nbrs(None) => {
                if self.scope() != Scope::Process {
                    self.err(
                        Problem::new("guarded::check::no_process", "`nbrs` without a process")
                            .label(span, "whose neighbours?")
                            .help("outside an action write `nbrs(p)` for a process `p` bound by `forall(p in procs: ...)`"),
                    );
                    return None;
                }
                Coll::NbrsOf(Proc::Me)
            }
            Collection::Nbrs(Some(of)) => {
                let p = self.proc_of(of)?;
                if self.scope() == Scope::Process && !matches!(p, Proc::Me) {
                    self.err(
                        Problem::new(
                            "guarded::check::non_local",
                            "a process can only range over its own neighbours",
                        )
                        .label(of.span(), "the neighbours of another process are not local")
                        .help("write `nbrs` for this process's neighbours"),
                    );
                    return None;
                }
                Coll::NbrsOf(p)
            }
        };
        let slot = self.locals.len();
        self.locals.push(var.name.clone());
        self.max_locals = self.max_locals.max(self.locals.len());
        let b = self.bool_expr(body);
        self.locals.pop();
        let b = Box::new(b?);
        Some(match kind {
            QuantKind::Forall => Typed::Bool(BExpr::Forall(slot, coll, b)),
            QuantKind::Exists => Typed::Bool(BExpr::Exists(slot, coll, b)),
            QuantKind::Count => Typed::Int(IExpr::Count(slot, coll, b), Ty::Int),
        })
    }

    /// Resolves an expression that denotes a process: the base of a field
    /// read, the argument of `enabled` or `nbrs`.
    fn proc_of(&mut self, e: &Expr) -> Option<Proc> {
        let scope = self.scope();
        if let Expr::Name(id) = e {
            if let Some(slot) = self.locals.iter().rposition(|l| *l == id.name) {
                return Some(Proc::Local(slot));
            }
            match (id.name.as_str(), scope) {
                ("self", Scope::Process | Scope::Init) => return Some(Proc::Me),
                ("left", Scope::Process) => {
                    self.reads_left.get_or_insert(id.span);
                    return Some(Proc::Left(id.span));
                }
                ("right", Scope::Process) => {
                    self.reads_right.get_or_insert(id.span);
                    return Some(Proc::Right(id.span));
                }
                _ => {}
            }
            if scope == Scope::Process {
                if let Some(&v) = self.var_index.get(&id.name) {
                    if self.vars[v].ty == Ty::Node {
                        return Some(Proc::Through(v));
                    }
                }
            }
        }
        let t = self.expr(e)?;
        match t {
            Typed::Int(i, Ty::Node) if scope == Scope::Global => Some(Proc::At(Box::new(i))),
            Typed::Int(_, Ty::Node) => {
                self.err(
                    Problem::new("guarded::check::non_local", "read beyond the neighbours")
                        .label(e.span(), "this process may not be a neighbour")
                        .help("a guard or statement reads its own variables, its neighbours' (`left.x`, `q.x` for `q in nbrs`) and those of processes its own node variables name"),
                );
                None
            }
            t => {
                let found = self.typed_name(&t);
                self.err(
                    Problem::new("guarded::check::type_mismatch", format!("expected a process, found {found}"))
                        .label(e.span(), format!("this is {found}"))
                        .help("reads like `p.x` need a process on the left: `self`, `left`, `right`, a quantifier variable or a node variable"),
                );
                None
            }
        }
    }

    fn field(&mut self, p: Proc, field: &ast::Ident) -> Option<Typed> {
        match field.name.as_str() {
            "index" => return Some(Typed::Int(IExpr::Index(p), Ty::Int)),
            "id" => return Some(Typed::Int(IExpr::Id(p), Ty::Int)),
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
                    "initial values and role selectors may use `index`, `id`, `n` and parameters",
                ),
            );
            return None;
        }
        match self.var_index.get(&field.name) {
            Some(&v) => Some(self.var_read(p, v)),
            None => {
                let help = match suggest(
                    &field.name,
                    self.var_index
                        .keys()
                        .map(String::as_str)
                        .chain(["index", "id"]),
                ) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "a process has its declared variables, `index` and `id`".into(),
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

    fn var_read(&self, p: Proc, v: usize) -> Typed {
        match self.vars[v].ty {
            Ty::Bool => Typed::Bool(BExpr::Var(p, v)),
            ty => Typed::Int(IExpr::Var(p, v), ty),
        }
    }

    fn name(&mut self, id: &ast::Ident) -> Option<Typed> {
        let scope = self.scope();
        if let Some(slot) = self.locals.iter().rposition(|l| *l == id.name) {
            return Some(Typed::Int(IExpr::NodeOf(Proc::Local(slot)), Ty::Node));
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
            "index" if local => return Some(Typed::Int(IExpr::Index(Proc::Me), Ty::Int)),
            "id" if local => return Some(Typed::Int(IExpr::Id(Proc::Me), Ty::Int)),
            "self" if matches!(scope, Scope::Process | Scope::Init) => {
                return Some(Typed::Int(IExpr::NodeOf(Proc::Me), Ty::Node))
            }
            "left" | "right" if scope == Scope::Process => {
                let p = self.proc_of(&Expr::Name(id.clone()))?;
                return Some(Typed::Int(IExpr::NodeOf(p), Ty::Node));
            }
            "index" | "id" | "self" | "left" | "right" => {
                self.err(
                    Problem::new("guarded::check::no_process", format!("`{}` has no process here", id.name))
                        .label(id.span, "whose?")
                        .help(match scope {
                            Scope::Global => "in a global predicate bind a process first: `forall(p in procs: p.index ...)`",
                            _ => "only actions, role selectors and initial values belong to a process",
                        }),
                );
                return None;
            }
            _ => {}
        }
        let mut candidates: Vec<&str> = self.locals.iter().map(String::as_str).collect();
        candidates.extend(self.var_index.keys().map(String::as_str));
        candidates.extend(self.param_index.keys().map(String::as_str));
        candidates.extend(self.enum_consts.keys().map(String::as_str));
        candidates.extend(["n", "index", "id", "self", "left", "right"]);
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

fn join_names(v: &[ast::Ident]) -> String {
    v.iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_program;

    fn errors(src: &str) -> Vec<String> {
        match check(&parse_program(src).expect("parses")) {
            Ok(_) => vec![],
            Err(ps) => ps.into_iter().map(|p| p.code.to_string()).collect(),
        }
    }

    #[test]
    fn a_correct_program_checks() {
        assert_eq!(
            errors("param K = n\nvar x: 0..K-1\nprocess { a :: x != left.x -> x := left.x }"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn unknown_names_and_types() {
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: y == 1 -> x := 1 }"),
            ["guarded::check::unknown_name"]
        );
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: x -> x := 1 }"),
            ["guarded::check::type_mismatch"]
        );
        assert_eq!(
            errors("var x: 0..3\nvar b: bool\nprocess { a :: b -> x := b }"),
            ["guarded::check::type_mismatch"]
        );
    }

    #[test]
    fn all_errors_are_reported_at_once() {
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: y -> z := 1; x := true }").len(),
            3
        );
    }

    #[test]
    fn locality_is_enforced() {
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: forall(p in procs: p.x == 0) -> x := 1 }"),
            ["guarded::check::non_local"]
        );
        assert_eq!(
            errors("var x: 0..3\nvar p: node\nprocess { a :: p.p.x == 0 -> x := 1 }"),
            ["guarded::check::non_local"]
        );
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: enabled(left) -> x := 1 }"),
            ["guarded::check::non_local"]
        );
    }

    #[test]
    fn globals_need_a_process() {
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: true -> x := 1 }\nlegitimate: x == 0"),
            ["guarded::check::no_process"]
        );
        assert!(errors("var x: 0..3\nprocess { a :: true -> x := 1 }\nlegitimate: forall(p in procs: p.x == 0 and forall(q in nbrs(p): q.x == p.x))").is_empty());
    }
}
