//! Phase 2, checking: resolves names, types every expression, enforces
//! locality (a process reads only itself and its neighbours) and lowers the
//! AST into the typed IR of [`ir`]. Every problem found is reported, not only
//! the first.

mod call;
mod channels;
mod declare;
mod expand;
mod expr;
pub mod ir;
mod names;
mod shown;
mod stmt;
mod tuples;

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
    let roles = prog
        .roles
        .iter()
        .enumerate()
        .map(|(k, r)| {
            c.role_index = Some(k);
            c.role(r)
        })
        .collect();
    c.role_index = None;
    let legitimate = c.legitimacy(prog);
    let invariants = c.invariants(prog);
    let properties = c.properties(prog);
    let reports = c.reports(prog);
    let (capacity, delay) = c.capacity(prog);
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
        properties,
        reports,
        messages: c.messages,
        capacity,
        delay,
        max_locals: c.max_locals,
        draws: c.draws,
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

pub use shown::{
    check_in_action, check_shown_expr, expand_definition, shown_name, ArrayShown, Candidates,
    SetShown, Shown,
};

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

impl Checker {
    /// A checker of an expression apart from the program, with the
    /// program's declarations, at `scope`.
    fn standalone(prog: &ast::Program, scope: Scope) -> Checker {
        let mut c = Checker::default();
        c.declare(prog);
        // The program itself already checked; only the expression's problems count.
        c.problems.clear();
        c.scope = Some(scope);
        c
    }
}

fn check_standalone(
    prog: &ast::Program,
    e: &Expr,
    scope: Scope,
) -> Result<(Checked, usize), Vec<Problem>> {
    let mut c = Checker::standalone(prog, scope);
    match c.expr(e) {
        Some(_) if !c.problems.is_empty() => Err(dedup(c.problems)),
        Some(Typed::Int(i, ty)) => Ok((Checked::Int(i, ty), c.max_locals)),
        Some(Typed::Bool(b)) => Ok((Checked::Bool(b), c.max_locals)),
        Some(t) => {
            let found = c.typed_name(&t);
            Err(vec![Problem::new(
                "guarded::check::not_scalar",
                format!("{found} is not one value"),
            )
            .label(e.span(), format!("this is {found}"))
            .help(
                "a condition is one bool and a measure one number: compare it whole (`a == b`), or read one element or component (`x[0]`)",
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
    /// How deep the checker is in expressions and statements (definitions
    /// expanded), and whether [`MAX_DEPTH`] was reported.
    depth: usize,
    too_deep: bool,
    /// Definition uses expanded so far, against [`MAX_EXPANSIONS`].
    expansions: usize,
    /// Where unknown names were reported (start and end): a definition
    /// expanded many times meets the same one at each use, and the
    /// suggestion for a long name takes time (reported once either way).
    unknown_at: HashSet<(usize, usize)>,
    /// Whether an action's statement is being checked (random draws are
    /// allowed there only).
    in_statement: bool,
    /// Whether some statement draws at random.
    draws: bool,
    /// The role whose actions are being checked.
    role_index: Option<usize>,
}

/// The deepest nesting of expressions and statements the checker follows,
/// definitions expanded: deeper is refused rather than risking the stack.
pub const MAX_DEPTH: usize = 2_000;

/// The most definition uses one program may expand to: definitions that
/// use each other twice over double at each level, and 40 levels would be
/// 2^40 copies.
pub const MAX_EXPANSIONS: usize = 200_000;

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

    /// Whether the unknown name written at `span` is met for the first
    /// time (see `unknown_at`): the caller reports it, and works out its
    /// suggestion, only then.
    fn first_unknown(&mut self, span: Span) -> bool {
        self.unknown_at.insert((span.start, span.end))
    }

    /// Enters one level of nesting at `span`; false (reported once) past
    /// [`MAX_DEPTH`], and the caller checks nothing below.
    fn descend(&mut self, span: Span) -> bool {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep {
                self.too_deep = true;
                self.err(
                    Problem::new(
                        "guarded::check::too_deep",
                        format!("nested more than {MAX_DEPTH} levels deep (definitions expanded)"),
                    )
                    .label(span, "this is too deep")
                    .help("split the expression or statement, e.g. into definitions used one after another"),
                );
            }
            return false;
        }
        self.depth += 1;
        true
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
