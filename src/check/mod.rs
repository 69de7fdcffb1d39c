//! Phase 2, checking: resolves names, types every expression, enforces
//! locality (a process reads only itself and its neighbours) and lowers the
//! AST into the typed IR of [`ir`]. Every problem found is reported, not only
//! the first.

mod expand;
pub mod ir;

use crate::diagnostic::{suggest, Problem};
use crate::span::Span;
use crate::syntax::ast::{self, BinOp, Collection, Expr, QuantKind, UnOp};
use expand::{Subst, FRESH_MARK};
use ir::{Arith, BExpr, Cmp, Coll, Domain, IExpr, Proc, Ty, Value};
use std::collections::HashMap;
use std::collections::HashSet;

/// Names the language gives a meaning of its own.
pub const BUILTIN_NAMES: &[&str] = &[
    "n",
    "index",
    "id",
    "self",
    "left",
    "right",
    "enabled",
    "min",
    "max",
    "abs",
    "argmin",
    "argmax",
    "int",
    "msgs",
    "tree_parent",
    "maxdeg",
    "acyclic",
];

/// Checks a parsed program and lowers it to the typed IR.
pub fn check(prog: &ast::Program) -> Result<ir::Program, Vec<Problem>> {
    let mut c = Checker::default();
    c.declare(prog);
    let roles = prog.roles.iter().map(|r| c.role(r)).collect();
    let legitimate = c.legitimacy(prog);
    let invariants = c.invariants(prog);
    let reports = c.reports(prog);
    let capacity = c.capacity(prog);
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
        return Err(dedup(c.problems));
    }
    Ok(ir::Program {
        params: c.params,
        topology: prog.topologies.first().cloned(),
        enums: c.enums,
        vars: c.vars,
        roles,
        legitimate,
        invariants,
        reports,
        messages: c.messages,
        capacity,
        max_locals: c.max_locals,
    })
}

/// Drops repeats: an error inside a definition's body is found at every use.
fn dedup(problems: Vec<Problem>) -> Vec<Problem> {
    let mut seen = HashSet::new();
    problems
        .into_iter()
        .filter(|p| {
            let at = p.labels.first().map(|(s, _)| (s.start, s.end));
            seen.insert((p.code, p.message.clone(), at))
        })
        .collect()
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
        Some(_) if !c.problems.is_empty() => Err(dedup(c.problems)),
        Some(Typed::Int(i, ty)) => Ok((Checked::Int(i, ty), c.max_locals)),
        Some(Typed::Bool(b)) => Ok((Checked::Bool(b), c.max_locals)),
        Some(t) => {
            let found = c.typed_name(&t);
            Err(vec![Problem::new(
                "guarded::check::not_scalar",
                format!("cannot show {found} as one value"),
            )
            .label(e.span(), format!("this is {found}"))
            .help(
                "evaluate one component or element at a time, e.g. `p.F[0]`",
            )])
        }
        None => Err(dedup(c.problems)),
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

/// A checked expression.
#[derive(Clone)]
enum Typed {
    Int(IExpr, Ty),
    Bool(BExpr),
    /// A tuple, compared lexicographically; it exists only while checking.
    Tuple(Vec<Typed>),
    /// A whole array variable of a process.
    Array(Proc, usize),
}

/// What a bound variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LocalKind {
    /// A process; `nbr` when it ranges over this process's neighbours.
    Node { nbr: bool },
    /// An integer.
    Int,
    /// A received message's field of this type.
    Field(Ty),
}

/// A bound variable in scope.
struct LocalVar {
    name: String,
    slot: usize,
    kind: LocalKind,
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
    /// Bound variables in scope, innermost last.
    locals: Vec<LocalVar>,
    /// Local slots in use.
    live: usize,
    max_locals: usize,
    /// Definitions by name.
    defs: HashMap<String, ast::Def>,
    /// Definitions that use themselves (reported once, never expanded).
    recursive: HashSet<String>,
    /// Numbers renamed bound variables.
    fresh: usize,
    /// Message types by name.
    msg_index: HashMap<String, usize>,
    messages: Vec<ir::Message>,
    /// Whether any action reads `tree_parent`, with a span of one such read.
    reads_tree: Option<Span>,
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

/// A tuple's components, flattened.
fn flatten(t: Typed, out: &mut Vec<Typed>) {
    match t {
        Typed::Tuple(v) => v.into_iter().for_each(|c| flatten(c, out)),
        t => out.push(t),
    }
}

/// Edit distance with adjacent transpositions, for "did you mean" help.
/// A map's names in alphabetical order, so suggestions do not depend on
/// hashing order.
fn sorted_names<V>(m: &HashMap<String, V>) -> std::vec::IntoIter<&str> {
    let mut v: Vec<&str> = m.keys().map(String::as_str).collect();
    v.sort_unstable();
    v.into_iter()
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
            if self.declare_name(&m.name, "message type") {
                self.msg_index
                    .insert(m.name.name.clone(), self.messages.len());
            }
            self.scope = Some(Scope::Constant);
            let mut fields = Vec::new();
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for (f, d) in &m.fields {
                if let Some(prev) = seen.insert(&f.name, f.span) {
                    self.err(
                        Problem::new(
                            "guarded::check::duplicate_name",
                            format!("field `{}` appears twice", f.name),
                        )
                        .label(f.span, "second one")
                        .label(prev, "first one")
                        .help("give each field of a message its own name"),
                    );
                }
                let (ty, domain) = self.scalar_domain(d);
                if ty == Ty::Node {
                    self.err(
                        Problem::new(
                            "guarded::check::node_field",
                            "a message field cannot be a node reference",
                        )
                        .label(f.span, "a `node` field")
                        .help("send a process number (`index`) or an `id` as an integer"),
                    );
                }
                fields.push((f.name.clone(), ty, domain));
            }
            if fields.len() > ir::MAX_FIELDS {
                self.err(
                    Problem::new(
                        "guarded::check::too_many_fields",
                        format!("`{}` has {} fields", m.name.name, fields.len()),
                    )
                    .label(m.name.span, "this message type")
                    .help(format!("a message has at most {} fields", ir::MAX_FIELDS)),
                );
            }
            self.messages.push(ir::Message {
                name: m.name.name.clone(),
                fields,
            });
        }
        for v in &prog.vars {
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
                    Problem::new("guarded::check::timer_domain", "a timer counts rounds: its domain is a range")
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
            });
        }
    }

    fn capacity(&mut self, prog: &ast::Program) -> Option<ir::Capacity> {
        self.scope = Some(Scope::Constant);
        if let Some(second) = prog.capacity.get(1) {
            self.err(
                Problem::new(
                    "guarded::check::duplicate_capacity",
                    "more than one channel capacity",
                )
                .label(second.0.span(), "second `channel capacity`")
                .help("every channel has the same capacity; keep one declaration"),
            );
        }
        match prog.capacity.first() {
            Some((e, random)) => {
                let random = random.as_ref().and_then(|(lo, hi)| {
                    let lo = self.int_expr(lo, Some(Ty::Int));
                    let hi = self.int_expr(hi, Some(Ty::Int));
                    Some((lo?, hi?))
                });
                self.int_expr(e, Some(Ty::Int))
                    .map(|c| (c, random, e.span()))
            }
            None if !prog.messages.is_empty() => {
                let m = &prog.messages[0];
                self.err(
                    Problem::new(
                        "guarded::check::no_capacity",
                        "messages are declared but channels have no capacity",
                    )
                    .label(m.name.span, "a message type")
                    .help("declare how many messages a channel holds: `channel capacity 4`"),
                );
                None
            }
            None => None,
        }
    }

    /// Whether variable `v` has elements (a fixed array or one per neighbour).
    fn is_array(&self, v: usize) -> bool {
        self.vars[v].len.is_some() || self.vars[v].per_nbr
    }

    /// An index into variable `v`: an integer, or a neighbour for per-neighbour arrays.
    fn index_expr(&mut self, v: usize, e: &Expr) -> Option<IExpr> {
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
    fn find_recursion(&mut self) {
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
    fn scalar_domain(&mut self, d: &ast::Domain) -> (Ty, Domain) {
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
        self.reads_tree = None;
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
            let body = self.stmt(&a.body);
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

    /// Binds a receive clause's sender and fields.
    fn receive(&mut self, r: &ast::Receive) -> Option<(usize, usize, Vec<usize>)> {
        let Some(&m) = self.msg_index.get(&r.message.name) else {
            let help = match suggest(&r.message.name, sorted_names(&self.msg_index)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "declare it: `message NAME(field: DOMAIN)`".into(),
            };
            self.err(
                Problem::new(
                    "guarded::check::unknown_message",
                    format!("unknown message type `{}`", r.message.name),
                )
                .label(r.message.span, "not declared")
                .help(help),
            );
            return None;
        };
        let fields = self.messages[m].fields.clone();
        if fields.len() != r.fields.len() {
            self.err(
                Problem::new(
                    "guarded::check::arity",
                    format!(
                        "`{}` has {} field{}, {} named",
                        r.message.name,
                        fields.len(),
                        if fields.len() == 1 { "" } else { "s" },
                        r.fields.len()
                    ),
                )
                .label(r.message.span, "name each field once")
                .help(format!(
                    "write `receive {}({}) from q`",
                    r.message.name,
                    fields
                        .iter()
                        .map(|f| f.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
            return None;
        }
        let from = self.bind(&r.from.name, LocalKind::Node { nbr: true });
        let slots = r
            .fields
            .iter()
            .zip(&fields)
            .map(|(name, (_, ty, _))| self.bind(&name.name, LocalKind::Field(*ty)))
            .collect();
        Some((m, from, slots))
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

    /// Reports names given twice among invariants (or reports).
    fn unique_names<'n>(
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

    fn reports(&mut self, prog: &ast::Program) -> Vec<(String, Checked)> {
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

    fn send(&mut self, m: &ast::Ident, args: &[Expr], to: &Expr, span: Span) -> ir::Stmt {
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

    fn assign(&mut self, targets: &[ast::Target], values: &[Expr], span: Span) -> ir::Stmt {
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
                    format!("{} variables but {} values", targets.len(), vals.len()),
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
            let Some(var) = self.assignable(&t.name) else {
                continue;
            };
            if t.edge && self.vars[var].kind != ir::VarKind::Edge {
                self.err(
                    Problem::new(
                        "guarded::check::not_edge_variable",
                        format!("`{}` is not an edge variable", t.name.name),
                    )
                    .label(t.span, "written as an edge's variable")
                    .help("declare it `edge var`, or assign it as `x := ...`"),
                );
                continue;
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
                    continue;
                }
                None => None,
            };
            let Some((val, vspan)) = vals.get(k).cloned() else {
                continue;
            };
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
            let Some(value) = value else { continue };
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
                        continue;
                    }
                }
            }
            if t.index.is_some() && index.is_none() {
                continue;
            }
            out_t.push(ir::Target {
                var,
                index,
                span: t.span,
            });
            out_v.push(value);
        }
        if out_t.len() == targets.len() {
            ir::Stmt::Assign(out_t, out_v)
        } else {
            ir::Stmt::Skip
        }
    }

    /// Whether a node expression is sure to name this process or a neighbour.
    fn names_neighbour(&self, e: &IExpr) -> bool {
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
            IExpr::Let(_, _, body) => self.names_neighbour(body),
            _ => false,
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
    fn value(&mut self, e: &Expr, ty: Ty, target: &str) -> Option<Value> {
        let t = self.expr(e)?;
        self.typed_value(t, e.span(), ty, target)
    }

    /// A checked value for something of type `ty`.
    fn typed_value(&mut self, t: Typed, span: Span, ty: Ty, target: &str) -> Option<Value> {
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
                    .label(span, format!("this is {found}"))
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
                            .help("only variables declared `array[LEN] of DOMAIN` have elements"),
                        );
                        None
                    }
                }
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
    fn edge_read(
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

    /// The innermost bound variable called `name`.
    fn local(&self, name: &str) -> Option<&LocalVar> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    fn mark(&self) -> (usize, usize) {
        (self.locals.len(), self.live)
    }

    fn release(&mut self, (len, live): (usize, usize)) {
        self.locals.truncate(len);
        self.live = live;
    }

    /// Binds `name` to a new local slot.
    fn bind(&mut self, name: &str, kind: LocalKind) -> usize {
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
    fn expand(
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
                .help(format!("write `{}({})`", f.name, params.join(", "))),
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
    fn use_def(&mut self, f: &ast::Ident, args: &[Expr], span: Span) -> Option<Typed> {
        let Some(ast::DefBody::Expr(body)) = self.expand(f, args, span, false) else {
            return None;
        };
        self.expr(&body)
    }

    /// A use of a statement definition, expanded.
    fn expand_stmt(&mut self, f: &ast::Ident, args: &[Expr], span: Span) -> Option<ast::Stmt> {
        if !self.defs.contains_key(&f.name) {
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

    /// Compares two checked values; `None` after reporting a mismatch.
    fn compare(&mut self, op: BinOp, a: Typed, b: Typed, l: Span, r: Span) -> Option<BExpr> {
        use BinOp::*;
        let cmp = match op {
            Eq => Cmp::Eq,
            Ne => Cmp::Ne,
            Lt => Cmp::Lt,
            Le => Cmp::Le,
            Gt => Cmp::Gt,
            _ => Cmp::Ge,
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
                if matches!(op, Eq | Ne) && self.vars[va].ty == self.vars[vb].ty =>
            {
                Some(BExpr::ArrayEq(op == Eq, pa, va, pb, vb, l.join(r)))
            }
            (Typed::Tuple(a), Typed::Tuple(b)) if a.len() == b.len() => {
                self.compare_tuples(op, a, b, l, r)
            }
            (a, b) => {
                let (na, nb) = (self.typed_name(&a), self.typed_name(&b));
                let help = if na == nb {
                    format!("values of type {na} can only be compared with == and !=")
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

    /// Tuples compare lexicographically: the first differing component decides.
    fn compare_tuples(
        &mut self,
        op: BinOp,
        a: Vec<Typed>,
        b: Vec<Typed>,
        l: Span,
        r: Span,
    ) -> Option<BExpr> {
        use BinOp::*;
        let eqs: Vec<BExpr> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| self.compare(Eq, x.clone(), y.clone(), l, r))
            .collect::<Option<_>>()?;
        let all_eq = eqs
            .iter()
            .cloned()
            .reduce(|x, y| BExpr::And(Box::new(x), Box::new(y)))
            .unwrap_or(BExpr::Const(true));
        match op {
            Eq => return Some(all_eq),
            Ne => return Some(BExpr::Not(Box::new(all_eq))),
            _ => {}
        }
        // a < b: some prefix equal, then a smaller component; `<=` also when all equal.
        let strict = if matches!(op, Lt | Le) { Lt } else { Gt };
        let mut out = if matches!(op, Le | Ge) {
            all_eq
        } else {
            BExpr::Const(false)
        };
        for k in (0..a.len()).rev() {
            let less = self.compare(strict, a[k].clone(), b[k].clone(), l, r)?;
            let prefix = eqs[..k]
                .iter()
                .cloned()
                .fold(less, |acc, e| BExpr::And(Box::new(e), Box::new(acc)));
            out = BExpr::Or(Box::new(prefix), Box::new(out));
        }
        Some(out)
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
    fn arith(
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
                    IExpr::Abs(Box::new(self.int_expr(&args[0], Some(Ty::Int))?), span),
                    Ty::Int,
                ))
            }
            "int" => {
                if !arity(self, 1) {
                    return None;
                }
                let b = self.bool_expr(&args[0])?;
                Some(Typed::Int(IExpr::FromBool(Box::new(b)), Ty::Int))
            }
            "msgs" => {
                if args.len() != 2 && args.len() != 3 {
                    arity(self, 3);
                    return None;
                }
                if self.scope() != Scope::Global {
                    self.err(
                        Problem::new("guarded::check::non_local", "a process cannot look into channels")
                            .label(span, "channel contents are not local")
                            .help("use `msgs(p, q, m)` in `legitimate:`, invariants and reports; an action sees the head of a channel with `receive`"),
                    );
                    return None;
                }
                let p = self.proc_of(&args[0]);
                let q = self.proc_of(&args[1]);
                let m = match args.get(2) {
                    None => None,
                    Some(Expr::Name(id)) if self.msg_index.contains_key(&id.name) => {
                        Some(self.msg_index[&id.name])
                    }
                    Some(other) => {
                        self.err(
                            Problem::new("guarded::check::unknown_message", "expected a message type")
                                .label(other.span(), "not a message type")
                                .help("write `msgs(p, q, NAME)` with a declared `message NAME`, or `msgs(p, q)` for all"),
                        );
                        return None;
                    }
                };
                Some(Typed::Int(IExpr::Msgs(p?, q?, m, span), Ty::Int))
            }
            _ if self.defs.contains_key(&f.name) => self.use_def(f, args, span),
            _ => {
                let help = match suggest(&f.name, sorted_names(&self.defs)) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "the functions are `enabled(p)`, `min(a, b)`, `max(a, b)`, `abs(a)` and those declared with `def`".into(),
                };
                self.err(
                    Problem::new(
                        "guarded::check::unknown_function",
                        format!("unknown function `{}`", f.name),
                    )
                    .label(f.span, "not a function")
                    .help(help),
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
        let mark = self.mark();
        let bound = self.collection(var, coll, span, 0);
        let body = match &bound {
            Some(_) => self.expr(body),
            None => None,
        };
        self.release(mark);
        let (slot, coll, filter, kind_of) = bound?;
        let body = body?;
        let guarded = |filter: Option<BExpr>, b: BExpr, and: bool| match filter {
            None => b,
            Some(f) if and => BExpr::And(Box::new(f), Box::new(b)),
            Some(f) => BExpr::Implies(Box::new(f), Box::new(b)),
        };
        let want_bool = |c: &mut Checker, t: Typed| match t {
            Typed::Bool(b) => Some(b),
            t => {
                let found = c.typed_name(&t);
                c.err(
                    Problem::new(
                        "guarded::check::type_mismatch",
                        format!("expected bool, found {found}"),
                    )
                    .label(span, format!("the predicate is {found}"))
                    .help("`forall`, `exists` and `count` take a condition after `:`"),
                );
                None
            }
        };
        Some(match kind {
            QuantKind::Forall => Typed::Bool(BExpr::Forall(
                slot,
                coll,
                Box::new(guarded(filter, want_bool(self, body)?, false)),
            )),
            QuantKind::Exists => Typed::Bool(BExpr::Exists(
                slot,
                coll,
                Box::new(guarded(filter, want_bool(self, body)?, true)),
            )),
            QuantKind::Count => Typed::Int(
                IExpr::Count(
                    slot,
                    coll,
                    Box::new(guarded(filter, want_bool(self, body)?, true)),
                ),
                Ty::Int,
            ),
            QuantKind::Min | QuantKind::Max | QuantKind::ArgMin | QuantKind::ArgMax => {
                let mut parts = Vec::new();
                let tuple = matches!(body, Typed::Tuple(_));
                flatten(body, &mut parts);
                let mut keys = Vec::new();
                for p in parts {
                    match p {
                        Typed::Int(k, Ty::Int) => keys.push(k),
                        t => {
                            let found = self.typed_name(&t);
                            self.err(
                                Problem::new(
                                    "guarded::check::type_mismatch",
                                    format!("cannot order {found}"),
                                )
                                .label(span, format!("the key is {found}"))
                                .help("`min`, `max`, `argmin` and `argmax` compare integers or tuples of integers"),
                            );
                            return None;
                        }
                    }
                }
                if keys.len() > 8 {
                    self.err(
                        Problem::new("guarded::check::too_many_keys", format!("a key of {} components", keys.len()))
                            .label(span, "compared here")
                            .help("`min`, `max`, `argmin` and `argmax` compare tuples of at most 8 integers"),
                    );
                    return None;
                }
                let max = matches!(kind, QuantKind::Max | QuantKind::ArgMax);
                let best = IExpr::Best(Box::new(ir::Best {
                    slot,
                    coll,
                    filter,
                    keys: keys.clone(),
                    max,
                    span,
                }));
                if matches!(kind, QuantKind::ArgMin | QuantKind::ArgMax) {
                    let ty = match kind_of {
                        LocalKind::Int => Ty::Int,
                        LocalKind::Field(t) => t,
                        LocalKind::Node { .. } => Ty::Node,
                    };
                    return Some(Typed::Int(best, ty));
                }
                let mut comps: Vec<Typed> = keys
                    .into_iter()
                    .map(|k| {
                        Typed::Int(
                            IExpr::Let(slot, Box::new(best.clone()), Box::new(k)),
                            Ty::Int,
                        )
                    })
                    .collect();
                if tuple {
                    Typed::Tuple(comps)
                } else {
                    comps.pop()?
                }
            }
        })
    }

    /// Binds `var` over a collection: its slot, the collection, the filter a
    /// set adds, and what the variable holds. The caller releases the binding.
    fn collection(
        &mut self,
        var: &ast::Ident,
        coll: &Collection,
        span: Span,
        depth: usize,
    ) -> Option<(usize, Coll, Option<BExpr>, LocalKind)> {
        let (coll, kind) = match coll {
            Collection::Procs => {
                if self.scope() != Scope::Global {
                    self.err(
                        Problem::new("guarded::check::non_local", "a process cannot range over all processes")
                            .label(span, "reads processes that are not neighbours")
                            .help("quantify over `nbrs` in guards and statements; `procs` is for `legitimate:` and invariants"),
                    );
                    return None;
                }
                (Coll::Procs, LocalKind::Node { nbr: false })
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
                (Coll::NbrsOf(Proc::Me), LocalKind::Node { nbr: true })
            }
            Collection::Nbrs(Some(of)) => {
                let p = self.proc_of(of)?;
                let mine = matches!(p, Proc::Me);
                if self.scope() == Scope::Process && !mine {
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
                (Coll::NbrsOf(p), LocalKind::Node { nbr: mine })
            }
            Collection::Range(lo, hi) => {
                let lo = self.int_expr(lo, Some(Ty::Int));
                let hi = self.int_expr(hi, Some(Ty::Int));
                (Coll::Range(Box::new(lo?), Box::new(hi?)), LocalKind::Int)
            }
            Collection::Set(e) => return self.set(var, e, span, depth),
        };
        let slot = self.bind(&var.name, kind);
        Some((slot, coll, None, kind))
    }

    /// Binds `var` over a set `{q in C : P}` (written out or named by a definition).
    fn set(
        &mut self,
        var: &ast::Ident,
        e: &Expr,
        span: Span,
        depth: usize,
    ) -> Option<(usize, Coll, Option<BExpr>, LocalKind)> {
        let (name, args, at) = match e {
            Expr::Set(binder, inner, pred, _) => {
                let (slot, coll, filter, kind) = self.collection(var, inner, span, depth)?;
                // The set's own variable names the same member while its predicate is checked.
                let mark = self.mark();
                self.locals.push(LocalVar {
                    name: binder.name.clone(),
                    slot,
                    kind,
                });
                let pred = self.bool_expr(pred);
                self.locals.truncate(mark.0);
                let pred = pred?;
                let filter = Some(match filter {
                    Some(f) => BExpr::And(Box::new(f), Box::new(pred)),
                    None => pred,
                });
                return Some((slot, coll, filter, kind));
            }
            Expr::Call(f, args, at) => (f, args.as_slice(), *at),
            Expr::Name(f) => (f, &[][..], f.span),
            other => {
                self.err(
                    Problem::new("guarded::check::not_a_set", "not a set")
                        .label(other.span(), "a quantifier ranges over this")
                        .help("write `nbrs`, `procs`, `lo..hi`, `{q in nbrs : P}` or the name of a `def` that stands for a set"),
                );
                return None;
            }
        };
        if !self.defs.contains_key(&name.name) || depth > 64 {
            let help = match suggest(&name.name, sorted_names(&self.defs)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "define it: `def NAME(p) = {q in nbrs(p) : ...}`".into(),
            };
            self.err(
                Problem::new(
                    "guarded::check::not_a_set",
                    format!("`{}` is not a set", name.name),
                )
                .label(at, "a quantifier ranges over this")
                .help(help),
            );
            return None;
        }
        let Some(ast::DefBody::Expr(body)) = self.expand(name, args, at, false) else {
            return None;
        };
        self.set(var, &body, span, depth + 1)
    }

    /// Resolves an expression that denotes a process: the base of a field
    /// read, the argument of `enabled` or `nbrs`.
    fn proc_of(&mut self, e: &Expr) -> Option<Proc> {
        let scope = self.scope();
        if let Expr::Name(id) = e {
            if let Some(l) = self.local(&id.name) {
                if let LocalKind::Node { .. } = l.kind {
                    return Some(Proc::Local(l.slot));
                }
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
                ("tree_parent", Scope::Process) => {
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
            Typed::Int(i, Ty::Node) if scope == Scope::Global => {
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
                        .help("initial values and role selectors may use `index`, `id`, `n` and parameters"),
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

    fn var_read(&self, p: Proc, v: usize) -> Typed {
        if self.is_array(v) {
            return Typed::Array(p, v);
        }
        match self.vars[v].ty {
            Ty::Bool => Typed::Bool(BExpr::Var(p, v)),
            ty => Typed::Int(IExpr::Var(p, v), ty),
        }
    }

    fn name(&mut self, id: &ast::Ident) -> Option<Typed> {
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
            "self" if matches!(scope, Scope::Process | Scope::Init) => {
                return Some(Typed::Int(IExpr::NodeOf(Proc::Me), Ty::Node))
            }
            "left" | "right" | "tree_parent" if scope == Scope::Process => {
                let p = self.proc_of(&Expr::Name(id.clone()))?;
                return Some(Typed::Int(IExpr::NodeOf(p), Ty::Node));
            }
            "index" | "id" | "self" | "left" | "right" | "tree_parent" => {
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
    fn built_in_names_cannot_be_declared() {
        for name in ["n", "maxdeg", "tree_parent"] {
            assert_eq!(
                errors(&format!(
                    "param {name} = 7\nvar x: 0..3\nprocess {{ a :: x == 1 -> x := 2 }}"
                )),
                ["guarded::check::reserved_name"],
                "{name}"
            );
        }
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
        // A read through a neighbour's node variable is checked when it happens.
        assert!(
            errors("var x: 0..3\nvar p: node\nprocess { a :: p.p.x == 0 -> x := 1 }").is_empty()
        );
        assert_eq!(
            errors("var x: 0..3\nvar p: node\nprocess { a :: true -> p := p.p }"),
            ["guarded::check::node_not_local"]
        );
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: enabled(left) -> x := 1 }"),
            ["guarded::check::non_local"]
        );
    }

    #[test]
    fn arrays_tuples_sets_and_definitions() {
        let ok = "param k = 2\nvar F: array[k+2] of 0..k+1\nvar b: bool\nvar par: node\n\
            def Next(p, q) = forall(i in 0..k : p.F[i] == q.F[i+1]) and p.F[k+1] == p.id\n\
            def key(p) = (p.F[0], p.F[1])\n\
            def Kids(p) = {q in nbrs(p) : q.par == p}\n\
            def Update() { for i in 0..k { F[i] := left.F[i+1] }; F[k+1] := min(id, k+1) }\n\
            process {\n\
              a :: not Next(self, left) -> Update()\n\
              b :: F != left.F and self.key < left.key -> F := left.F\n\
              c :: count(q in Kids(self)) > 0 -> par := argmin(q in nbrs : q.key)\n\
              d :: true -> F[0], F[1] := min(q in nbrs : q.key) + (0, 1)\n\
            }";
        assert_eq!(errors(ok), Vec::<String>::new());
        assert_eq!(
            errors("var x: 0..3\ndef f(a) = a + 1\nprocess { a :: f(1, 2) == 0 -> x := 1 }"),
            ["guarded::check::arity"]
        );
        assert_eq!(
            errors("var x: 0..3\ndef f(a) = f(a) + 1\nprocess { a :: f(1) == 0 -> x := 1 }"),
            ["guarded::check::recursive_def"]
        );
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: x[0] == 0 -> x := 1 }"),
            ["guarded::check::not_an_array"]
        );
        assert_eq!(
            errors("var x: 0..3\nprocess { a :: (x, 1) < (1, true) -> x := 1 }"),
            ["guarded::check::type_mismatch"]
        );
        // A definition's bound variable never captures an argument's name.
        assert_eq!(
            errors("var x: 0..3\ndef all(v) = forall(q in nbrs : q.x >= v)\nprocess { a :: exists(q in nbrs : all(q.x)) -> x := 1 }"),
            Vec::<String>::new()
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
