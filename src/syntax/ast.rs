//! The untyped abstract syntax tree: what the parser produces, with a span on
//! every node. Names are still strings; the checker resolves them.

use crate::span::Span;

/// An identifier with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name as written.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A whole program: its declarations in source order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    /// `param NAME = expr`, in order (later defaults may use earlier ones).
    pub params: Vec<Param>,
    /// `topology SPEC`, at most one is allowed (the checker says so).
    pub topologies: Vec<(String, Span)>,
    /// `enum NAME = {a, b}`.
    pub enums: Vec<EnumDecl>,
    /// `var NAME: DOMAIN [= init]`.
    pub vars: Vec<VarDecl>,
    /// `process [where PRED] { actions }`.
    pub roles: Vec<Role>,
    /// `legitimate: expr`.
    pub legitimate: Vec<Expr>,
    /// `invariant NAME: expr`.
    pub invariants: Vec<(Ident, Expr)>,
    /// `property NAME: FORM`.
    pub properties: Vec<Property>,
    /// `def NAME(params) = expr` and `def NAME(params) { statements }`.
    pub defs: Vec<Def>,
    /// `report NAME: expr`.
    pub reports: Vec<(Ident, Expr)>,
    /// `message NAME(field: DOMAIN, ...)`.
    pub messages: Vec<MessageDecl>,
    /// `channel capacity C [random lo..hi] [delay lo..hi]` (at most one
    /// is allowed).
    pub capacity: Vec<ChannelDecl>,
    /// Each `a + b mod c` (or `-`) written without brackets: the sum's span,
    /// the `mod`'s (which binds tighter) and its left operand's (see
    /// [`crate::syntax::precedence_warnings`]).
    pub unbracketed_mods: Vec<[Span; 3]>,
}

/// `property NAME: FORM`, or `property NAME: forall(p in procs : FORM)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// Its name.
    pub name: Ident,
    /// The process it is said of, each in turn, if it is said of each.
    pub each: Option<Ident>,
    /// What it says of runs.
    pub form: Temporal<Expr>,
    /// `under weak fairness` (or strong) after it: the runs it is about.
    pub fairness: Option<(Assumed, Span)>,
    /// The whole declaration.
    pub span: Span,
}

/// The fairness a property assumes (`under weak fairness`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assumed {
    /// `under weak fairness`.
    Weak,
    /// `under strong fairness`.
    Strong,
}

/// What a property says of runs, over predicates `B`.
#[derive(Clone, Debug, PartialEq)]
pub enum Temporal<B> {
    /// `always P`: P holds in every configuration a run reaches (unlike
    /// an invariant, a run goes on where it fails).
    Always(B),
    /// `sometimes P`: some run reaches a configuration where P holds.
    Sometimes(B),
    /// `stable P`: once P holds it holds for ever (no step leaves it).
    Stable(B),
    /// `P leads_to Q`: every run through a configuration where P holds
    /// reaches one where Q holds, then or later (`always eventually Q`
    /// is `true leads_to Q`).
    LeadsTo(B, B),
}

impl<B> Temporal<B> {
    /// The form's name: `always`, `sometimes`, `stable` or `leads_to`.
    pub fn name(&self) -> &'static str {
        match self {
            Temporal::Always(_) => "always",
            Temporal::Sometimes(_) => "sometimes",
            Temporal::Stable(_) => "stable",
            Temporal::LeadsTo(..) => "leads_to",
        }
    }

    /// Its predicates, in order: P, or P and Q.
    pub fn predicates(&self) -> Vec<&B> {
        match self {
            Temporal::Always(p) | Temporal::Sometimes(p) | Temporal::Stable(p) => vec![p],
            Temporal::LeadsTo(p, q) => vec![p, q],
        }
    }

    /// The same form over other predicates.
    pub fn map<C>(&self, mut f: impl FnMut(&B) -> Option<C>) -> Option<Temporal<C>> {
        Some(match self {
            Temporal::Always(p) => Temporal::Always(f(p)?),
            Temporal::Sometimes(p) => Temporal::Sometimes(f(p)?),
            Temporal::Stable(p) => Temporal::Stable(f(p)?),
            Temporal::LeadsTo(p, q) => {
                let (p, q) = (f(p), f(q));
                Temporal::LeadsTo(p?, q?)
            }
        })
    }
}

/// `channel capacity C [random lo..hi] [delay lo..hi]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelDecl {
    /// The capacity C.
    pub capacity: Expr,
    /// How many messages a random start puts in a channel.
    pub random: Option<(Expr, Expr)>,
    /// How many ticks a message takes (the program runs in ticks).
    pub delay: Option<(Expr, Expr)>,
}

/// `message NAME(field: DOMAIN, ...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageDecl {
    /// Its name.
    pub name: Ident,
    /// Its fields in order.
    pub fields: Vec<(Ident, Domain)>,
}

/// What kind of variable a declaration makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// `var`: owned by the process.
    Plain,
    /// `edge var`: one value per edge, shared by its two ends.
    Edge,
    /// `timer`: advances by one at the end of every round.
    Timer,
}

/// `receive m(a, b) from q`.
#[derive(Clone, Debug, PartialEq)]
pub struct Receive {
    /// The message type.
    pub message: Ident,
    /// Names bound to its fields.
    pub fields: Vec<Ident>,
    /// The name bound to the sender.
    pub from: Ident,
}

/// A named expression or statement with parameters, expanded where used.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    /// Its name.
    pub name: Ident,
    /// Its parameters (untyped: arguments are substituted).
    pub params: Vec<Ident>,
    /// What it stands for.
    pub body: DefBody,
    /// The whole definition.
    pub span: Span,
}

/// What a definition stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum DefBody {
    /// A predicate, function, tuple or set.
    Expr(Expr),
    /// A statement (a macro in the papers' sense).
    Stmt(Stmt),
}

/// `param NAME = default`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name.
    pub name: Ident,
    /// Its default value, evaluated at instantiation (it may use `n`).
    pub default: Expr,
}

/// `enum NAME = {a, b, c}`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDecl {
    /// Its name.
    pub name: Ident,
    /// Its values in order.
    pub values: Vec<Ident>,
}

/// The declared domain of a variable.
#[derive(Clone, Debug, PartialEq)]
pub enum Domain {
    /// `bool`
    Bool(Span),
    /// `node`: self or a neighbour.
    Node(Span),
    /// `lo..hi`, inclusive.
    Range(Box<Expr>, Box<Expr>),
    /// `{a, b, c}`: an anonymous enumeration.
    Enum(Vec<Ident>, Span),
    /// A named enumeration.
    Named(Ident),
    /// `array[len] of DOMAIN`; no length: `array[nbrs]`, one per neighbour.
    Array(Option<Box<Expr>>, Box<Domain>, Span),
}

impl Domain {
    /// The values an anonymous enumeration here declares (`{a, b}`, also
    /// as an array's elements); none for other domains.
    pub fn enum_values(&self) -> &[Ident] {
        match self {
            Domain::Enum(values, _) => values,
            Domain::Array(_, inner, _) => inner.enum_values(),
            _ => &[],
        }
    }
}

/// `var NAME: DOMAIN [= init]`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// `var`, `edge var` or `timer`.
    pub kind: VarKind,
    /// Its name.
    pub name: Ident,
    /// Its domain.
    pub domain: Domain,
    /// The declared initial value, if any.
    pub init: Option<Expr>,
    /// `random lo..hi`: the range arbitrary configurations draw from.
    pub random: Option<(Expr, Expr)>,
    /// The whole declaration.
    pub span: Span,
    /// Declared inside a role (its index): only that role's processes own
    /// it; the others keep its declared value.
    pub role: Option<usize>,
}

/// `process [where PRED] { actions }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Role {
    /// The selecting predicate over `index`, `id`, `n` and parameters.
    pub selector: Option<Expr>,
    /// The actions, in program order.
    pub actions: Vec<Action>,
    /// The `process` keyword and selector, for messages.
    pub head: Span,
}

/// `label [priority P] :: guard -> statement`.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    /// The action's label.
    pub label: Ident,
    /// Smaller is more urgent; `None` is the same as every other `None`.
    pub priority: Option<Expr>,
    /// `for q in C`: the action is enabled for some member and runs for the first.
    pub binder: Option<(Ident, Collection)>,
    /// `receive m(x) from q`: the guard also needs that message at a channel's head.
    pub receive: Option<Receive>,
    /// The guard.
    pub guard: Expr,
    /// The statement.
    pub body: Stmt,
    /// The whole action.
    pub span: Span,
}

/// Statements.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `skip`
    Skip(Span),
    /// `a, b[i] := e1, e2`: every right-hand side is evaluated before any write.
    Assign(Vec<Target>, Vec<Expr>, Span),
    /// `for i in C { body }`: over a range (inclusive), neighbours or a set.
    For(Ident, Collection, Box<Stmt>, Span),
    /// `send m(e1, e2) to q`.
    Send(Ident, Vec<Expr>, Box<Expr>, Span),
    /// A use of a statement definition.
    Call(Ident, Vec<Expr>, Span),
    /// Statements in sequence.
    Seq(Vec<Stmt>, Span),
    /// `if c { .. } else { .. }`
    If(Box<Expr>, Box<Stmt>, Option<Box<Stmt>>, Span),
}

/// The left of an assignment: a variable or one element of an array.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The variable.
    pub name: Ident,
    /// The element, for `a[i] := ...` (the neighbour, for `edge(q).x := ...`).
    pub index: Option<Expr>,
    /// Written `edge(q).x`.
    pub edge: bool,
    /// The whole target.
    pub span: Span,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (Euclidean integer division, paired with `mod`)
    Div,
    /// `mod` (result in `0..|m|-1`)
    Mod,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `and`
    And,
    /// `or`
    Or,
    /// `=>`
    Implies,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "mod",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "and",
            Or => "or",
            Implies => "=>",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `not`
    Not,
    /// `-`
    Neg,
}

/// Quantifier kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantKind {
    /// `forall(q in S: P)`
    Forall,
    /// `exists(q in S: P)`
    Exists,
    /// `count(q in S: P)`
    Count,
    /// `sum(q in S: e)`: the total of an integer over the members.
    Sum,
    /// `min(q in S: e)`: the smallest value (lexicographic for tuples).
    Min,
    /// `max(q in S: e)`
    Max,
    /// `argmin(q in S: e)`: the member with the smallest value, ties to the smallest id.
    ArgMin,
    /// `argmax(q in S: e)`
    ArgMax,
}

/// What a quantifier ranges over.
#[derive(Clone, Debug, PartialEq)]
pub enum Collection {
    /// The neighbours of the current process, or of the process given.
    Nbrs(Option<Box<Expr>>),
    /// Every process (global predicates only).
    Procs,
    /// `lo..hi`: the integers between, inclusive.
    Range(Box<Expr>, Box<Expr>),
    /// A set: a literal `{q in C : P}` or a definition that stands for one.
    Set(Box<Expr>),
}

/// Expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer literal.
    Int(i64, Span),
    /// `true` / `false`.
    Bool(bool, Span),
    /// A bare name: a variable, parameter, enumeration value, bound
    /// variable or built-in (`index`, `id`, `n`, `self`, `left`, `right`).
    Name(Ident),
    /// `base.field`: a read of `field` at the process `base` denotes.
    Field(Box<Expr>, Ident, Span),
    /// `name(args)`.
    Call(Ident, Vec<Expr>, Span),
    /// A unary operation.
    Unary(UnOp, Box<Expr>, Span),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>, Span),
    /// A quantifier.
    Quant(QuantKind, Ident, Collection, Box<Expr>, Span),
    /// `a[i]`: an element of an array.
    Index(Box<Expr>, Box<Expr>, Span),
    /// `(a, b)`: a tuple, ordered lexicographically.
    Tuple(Vec<Expr>, Span),
    /// `{q in C : P}`: the members of `C` satisfying `P`.
    Set(Ident, Collection, Box<Expr>, Span),
    /// `edge(q)` or `edge(p, q)`, the base of an edge variable read.
    Edge(Vec<Expr>, Span),
    /// `acyclic(p -> q : P)`.
    Acyclic(Ident, Ident, Box<Expr>, Span),
    /// `if c then a else b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>, Span),
    /// A draw: `random(lo..hi)` (a range), `random(nbrs)` or `random(S)` (a
    /// member of a collection), or `random(bool)` (none).
    Random(Option<Box<Collection>>, Span),
}

impl Expr {
    /// The span of the whole expression.
    pub fn span(&self) -> Span {
        match self {
            Expr::Int(_, s) | Expr::Bool(_, s) => *s,
            Expr::Name(i) => i.span,
            Expr::Field(_, _, s)
            | Expr::Call(_, _, s)
            | Expr::Unary(_, _, s)
            | Expr::Binary(_, _, _, s)
            | Expr::Quant(_, _, _, _, s)
            | Expr::Index(_, _, s)
            | Expr::Tuple(_, s)
            | Expr::Set(_, _, _, s)
            | Expr::Edge(_, s)
            | Expr::Acyclic(_, _, _, s)
            | Expr::Cond(_, _, _, s)
            | Expr::Random(_, s) => *s,
        }
    }
}

impl Expr {
    /// Moves every span of the expression `by` bytes on: an expression
    /// typed apart from the program (at the REPL) is checked with the
    /// program's definitions, whose bodies keep the program's spans; moved
    /// past the program's, the expression's own are told from them.
    pub fn shift_spans(&mut self, by: usize) {
        let shift = |s: &mut Span| *s = Span::new(s.start + by, s.end + by);
        let ident = |i: &mut Ident| shift(&mut i.span);
        match self {
            Expr::Int(_, s) | Expr::Bool(_, s) => shift(s),
            Expr::Name(i) => ident(i),
            Expr::Field(b, f, s) => {
                b.shift_spans(by);
                ident(f);
                shift(s);
            }
            Expr::Call(f, args, s) => {
                ident(f);
                args.iter_mut().for_each(|a| a.shift_spans(by));
                shift(s);
            }
            Expr::Unary(_, a, s) => {
                a.shift_spans(by);
                shift(s);
            }
            Expr::Binary(_, a, b, s) | Expr::Index(a, b, s) => {
                a.shift_spans(by);
                b.shift_spans(by);
                shift(s);
            }
            Expr::Quant(_, var, coll, body, s) | Expr::Set(var, coll, body, s) => {
                ident(var);
                coll.shift_spans(by);
                body.shift_spans(by);
                shift(s);
            }
            Expr::Tuple(items, s) | Expr::Edge(items, s) => {
                items.iter_mut().for_each(|a| a.shift_spans(by));
                shift(s);
            }
            Expr::Acyclic(a, b, pred, s) => {
                ident(a);
                ident(b);
                pred.shift_spans(by);
                shift(s);
            }
            Expr::Cond(c, a, b, s) => {
                c.shift_spans(by);
                a.shift_spans(by);
                b.shift_spans(by);
                shift(s);
            }
            Expr::Random(from, s) => {
                if let Some(c) = from {
                    c.shift_spans(by);
                }
                shift(s);
            }
        }
    }
}

impl Collection {
    /// Moves the spans of the expressions in it (see [`Expr::shift_spans`]).
    pub fn shift_spans(&mut self, by: usize) {
        match self {
            Collection::Procs | Collection::Nbrs(None) => {}
            Collection::Nbrs(Some(e)) | Collection::Set(e) => e.shift_spans(by),
            Collection::Range(lo, hi) => {
                lo.shift_spans(by);
                hi.shift_spans(by);
            }
        }
    }
}

impl Stmt {
    /// The span of the whole statement.
    pub fn span(&self) -> Span {
        match self {
            Stmt::Skip(s)
            | Stmt::Assign(_, _, s)
            | Stmt::Seq(_, s)
            | Stmt::If(_, _, _, s)
            | Stmt::For(_, _, _, s)
            | Stmt::Send(_, _, _, s)
            | Stmt::Call(_, _, s) => *s,
        }
    }
}
