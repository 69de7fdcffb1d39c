//! The resolved, typed intermediate representation the checker produces:
//! names are slot indices, neighbour reads are explicit forms, and integer
//! and boolean expressions are separate types, so later phases need no
//! type tests.

use crate::span::Span;

/// The type of a value. Everything but `Bool` is stored as an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// An integer.
    Int,
    /// A boolean.
    Bool,
    /// A value of the enumeration with this index.
    Enum(usize),
    /// A process reference (a process index at run time).
    Node,
}

/// A variable's declared domain.
#[derive(Clone, Debug)]
pub enum Domain {
    /// `bool`
    Bool,
    /// Self or a neighbour.
    Node,
    /// The values of an enumeration.
    Enum(usize),
    /// `lo..hi` inclusive; bounds use only parameters and `n`.
    Range(IExpr, IExpr),
}

/// A process-scoped variable.
#[derive(Clone, Debug)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Its domain.
    pub domain: Domain,
    /// The declared initial value (of every element, for an array); it may
    /// use `index`, `id`, `n` and parameters.
    pub init: Option<Value>,
    /// For an array, its length (constant after instantiation); `ty` and
    /// `domain` are then those of its elements.
    pub len: Option<IExpr>,
    /// `random lo..hi`: where arbitrary configurations draw it from.
    pub random: Option<(IExpr, IExpr)>,
    /// One value per neighbour (`array[nbrs] of D`, and every edge variable),
    /// indexed by the neighbour.
    pub per_nbr: bool,
    /// `var`, `edge var` (shared by both ends: every write lands at both) or
    /// `timer` (advances by one at the end of every round).
    pub kind: VarKind,
    /// The declaration.
    pub span: Span,
}

/// What kind of state a variable is, as the later phases need to know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// `var`: owned by the process.
    Plain,
    /// `edge var`: one value per edge, shared by its two ends.
    Edge,
    /// `timer`: advances by one at the end of every round.
    Timer,
}

impl From<crate::syntax::ast::VarKind> for VarKind {
    fn from(k: crate::syntax::ast::VarKind) -> Self {
        use crate::syntax::ast::VarKind as Ast;
        match k {
            Ast::Plain => VarKind::Plain,
            Ast::Edge => VarKind::Edge,
            Ast::Timer => VarKind::Timer,
        }
    }
}

/// The most fields a message type may have (the runtime keeps them inline).
pub const MAX_FIELDS: usize = 4;

/// An enumeration.
#[derive(Clone, Debug)]
pub struct Enum {
    /// Its name (generated for anonymous ones).
    pub name: String,
    /// Its values, in order.
    pub values: Vec<String>,
}

/// A parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its default; may use `n` and earlier parameters.
    pub default: IExpr,
    /// The declaration.
    pub span: Span,
}

/// The process a read refers to.
#[derive(Clone, Debug)]
pub enum Proc {
    /// The current process.
    Me,
    /// Its left neighbour on a ring or chain.
    Left(Span),
    /// Its right neighbour on a ring or chain.
    Right(Span),
    /// A bound variable (quantifier) holding a process index.
    Local(usize),
    /// The process an own node-valued variable names.
    Through(usize),
    /// Any node expression; only in global predicates, where reads are unrestricted.
    At(Box<IExpr>, Span),
    /// A node expression in an action that may not name a neighbour (say
    /// `q.parent` for a neighbour `q`): checked when it is read.
    Via(Box<IExpr>, Span),
    /// The process's parent in a rooted tree topology (itself at the root).
    TreeParent(Span),
}

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`, Euclidean: `a / b` is the `q` with `a = q*b + r` and `0 <= r < |b|`
    Div,
    /// `mod`, Euclidean: never negative, so `(x - 1) mod K` is in `0..K-1`
    Mod,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
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
}

impl Arith {
    /// `a op b`, or `None` on overflow or division by zero: the one
    /// definition of the arithmetic operators, which the closures, the
    /// constant folder and the column kernels all use.
    #[inline(always)]
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            Arith::Add => a.checked_add(b),
            Arith::Sub => a.checked_sub(b),
            Arith::Mul => a.checked_mul(b),
            Arith::Div => a.checked_div_euclid(b),
            Arith::Mod => a.checked_rem_euclid(b),
            Arith::Min => Some(a.min(b)),
            Arith::Max => Some(a.max(b)),
        }
    }

    /// [`Arith::apply`] for loops that check once at the end: the value
    /// (anything when it failed) and whether it failed.
    #[inline(always)]
    pub fn apply_flagged(self, a: i64, b: i64) -> (i64, bool) {
        match self {
            // The same results as `apply`, in the form that vectorizes.
            Arith::Add => a.overflowing_add(b),
            Arith::Sub => a.overflowing_sub(b),
            Arith::Mul => a.overflowing_mul(b),
            _ => match self.apply(a, b) {
                Some(v) => (v, false),
                None => (0, true),
            },
        }
    }
}

/// `-a`, or `None` on overflow.
#[inline(always)]
pub fn negate(a: i64) -> Option<i64> {
    a.checked_neg()
}

/// `abs(a)`, or `None` on overflow.
#[inline(always)]
pub fn absolute(a: i64) -> Option<i64> {
    a.checked_abs()
}

/// Expands `$body` once per comparison operator, with `$c` bound to that
/// operator as a constant: code specialized per operator (fused reads,
/// column kernels) still takes each operator's meaning from [`Cmp::holds`].
macro_rules! specialize_cmp {
    ($op:expr, $c:ident => $body:expr) => {
        match $op {
            $crate::check::ir::Cmp::Eq => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Eq;
                $body
            }
            $crate::check::ir::Cmp::Ne => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Ne;
                $body
            }
            $crate::check::ir::Cmp::Lt => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Lt;
                $body
            }
            $crate::check::ir::Cmp::Le => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Le;
                $body
            }
            $crate::check::ir::Cmp::Gt => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Gt;
                $body
            }
            $crate::check::ir::Cmp::Ge => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Ge;
                $body
            }
        }
    };
}
pub(crate) use specialize_cmp;

impl Cmp {
    /// Whether `a op b` holds: the one definition of the comparisons.
    #[inline(always)]
    pub const fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// What a quantifier ranges over.
#[derive(Clone, Debug)]
pub enum Coll {
    /// The neighbours (those whose variables it may read) of this process.
    NbrsOf(Proc),
    /// All processes.
    Procs,
    /// The integers `lo..=hi`.
    Range(Box<IExpr>, Box<IExpr>),
}

/// A collection with the filter a set adds, and the slot its variable uses.
#[derive(Clone, Debug)]
pub struct Binder {
    /// The bound variable's local slot.
    pub slot: usize,
    /// What it ranges over.
    pub coll: Coll,
    /// Which members count.
    pub filter: Option<BExpr>,
}

/// Integer-valued expressions (integers, enumeration values, node references).
#[derive(Clone, Debug)]
pub enum IExpr {
    /// A constant.
    Const(i64),
    /// A parameter's value.
    Param(usize),
    /// The number of processes.
    N,
    /// The largest number of neighbours of any process.
    MaxDeg,
    /// A variable of a process.
    Var(Proc, usize),
    /// The index of a process.
    Index(Proc),
    /// The id of a process.
    Id(Proc),
    /// The node reference to a process.
    NodeOf(Proc),
    /// `-e`
    Neg(Box<IExpr>, Span),
    /// `|e|`
    Abs(Box<IExpr>, Span),
    /// `a op b`; the span is reported on division by zero.
    Arith(Arith, Box<IExpr>, Box<IExpr>, Span),
    /// `count(q in C: P)`: the bound variable's local slot, the collection, the body.
    Count(usize, Coll, Box<BExpr>),
    /// An integer bound variable (`i in 0..k`, `for i in ...`).
    Local(usize),
    /// An element of an array variable: process, variable, index, span of the read.
    Elem(Proc, usize, Box<IExpr>, Span),
    /// The member of a collection whose keys are smallest (or largest),
    /// lexicographically; ties go to the smallest id, then index. Empty: a fault.
    Best(Box<Best>),
    /// `body` evaluated with the local `slot` set to `value`.
    Let(usize, Box<IExpr>, Box<IExpr>),
    /// `int(b)`: 1 or 0.
    FromBool(Box<BExpr>),
    /// `msgs(p, q, m)`: messages (of type `m`, or all) in the channel from p to q.
    Msgs(Proc, Proc, Option<usize>, Span),
}

/// See [`IExpr::Best`].
#[derive(Clone, Debug)]
pub struct Best {
    /// The bound variable's slot.
    pub slot: usize,
    /// What it ranges over.
    pub coll: Coll,
    /// Which members count.
    pub filter: Option<BExpr>,
    /// The keys compared, most significant first.
    pub keys: Vec<IExpr>,
    /// Largest instead of smallest.
    pub max: bool,
    /// Reported when no member qualifies.
    pub span: Span,
}

/// Boolean-valued expressions.
#[derive(Clone, Debug)]
pub enum BExpr {
    /// A constant.
    Const(bool),
    /// A boolean variable of a process.
    Var(Proc, usize),
    /// `not e`
    Not(Box<BExpr>),
    /// `a and b`
    And(Box<BExpr>, Box<BExpr>),
    /// `a or b`
    Or(Box<BExpr>, Box<BExpr>),
    /// `a => b`
    Implies(Box<BExpr>, Box<BExpr>),
    /// `a == b` (true) or `a != b` (false) on booleans.
    BoolEq(bool, Box<BExpr>, Box<BExpr>),
    /// An integer comparison.
    Cmp(Cmp, IExpr, IExpr),
    /// `forall(q in C: P)`
    Forall(usize, Coll, Box<BExpr>),
    /// `exists(q in C: P)`
    Exists(usize, Coll, Box<BExpr>),
    /// `enabled(p)` (global predicates only).
    Enabled(Proc),
    /// An element of a boolean array.
    Elem(Proc, usize, Box<IExpr>, Span),
    /// Whole-array equality (true) or difference (false) of two arrays of one length.
    ArrayEq(bool, Proc, usize, Proc, usize, Span),
    /// `acyclic(p -> q : P)`: the slots of p and q, and P.
    Acyclic(usize, usize, Box<BExpr>),
}

/// A value of either kind.
#[derive(Clone, Debug)]
pub enum Value {
    /// Integer-like.
    Int(IExpr),
    /// Boolean.
    Bool(BExpr),
    /// A whole array variable of a process.
    Array(Proc, usize),
}

/// The left of an assignment.
#[derive(Clone, Debug)]
pub struct Target {
    /// The variable.
    pub var: usize,
    /// The element of an array; `None` assigns the whole variable.
    pub index: Option<IExpr>,
    /// Where it is written.
    pub span: Span,
}

/// Statements.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// Nothing.
    Skip,
    /// Simultaneous assignment to own variables.
    Assign(Vec<Target>, Vec<Value>),
    /// `for` over a collection, in order, with the loop variable in a local slot.
    For(Binder, Box<Stmt>),
    /// `send m(values) to q`.
    Send(usize, Vec<Value>, IExpr, Span),
    /// In sequence.
    Seq(Vec<Stmt>),
    /// Conditional.
    If(BExpr, Box<Stmt>, Box<Stmt>),
}

/// A guarded action.
#[derive(Clone, Debug)]
pub struct Action {
    /// Its label.
    pub label: String,
    /// Its priority expression (constant after instantiation); smaller is more urgent.
    pub priority: Option<(IExpr, Span)>,
    /// The guard.
    pub guard: BExpr,
    /// The statement.
    pub body: Stmt,
    /// The whole action, for runtime diagnostics.
    pub span: Span,
    /// `for q in C`: enabled for some member, runs for the first.
    pub binder: Option<Binder>,
    /// `receive m(x) from q`: the message type, the sender's slot and the fields' slots.
    pub receive: Option<(usize, usize, Vec<usize>)>,
}

/// `channel capacity K random lo..hi`: K, the range, the declaration.
pub type Capacity = (IExpr, Option<(IExpr, IExpr)>, Span);

/// A message type.
#[derive(Clone, Debug)]
pub struct Message {
    /// Its name.
    pub name: String,
    /// Its fields: name, type, domain.
    pub fields: Vec<(String, Ty, Domain)>,
}

/// A role: the program of the processes its selector matches.
#[derive(Clone, Debug)]
pub struct Role {
    /// Selector over `index`, `id`, `n` and parameters; `None` matches all.
    pub selector: Option<BExpr>,
    /// The actions in program order.
    pub actions: Vec<Action>,
    /// The role's head, for messages.
    pub head: Span,
    /// Whether any action reads `left` / `right`, with a span of one such read.
    pub reads_left: Option<Span>,
    /// See `reads_left`.
    pub reads_right: Option<Span>,
    /// Whether any action reads `tree_parent`.
    pub reads_tree: Option<Span>,
}

/// A checked program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Parameters in declaration order.
    pub params: Vec<Param>,
    /// The default topology, if declared.
    pub topology: Option<(String, Span)>,
    /// Enumerations.
    pub enums: Vec<Enum>,
    /// Process variables; instantiation lays them out in a process's row.
    pub vars: Vec<Var>,
    /// Roles in program order.
    pub roles: Vec<Role>,
    /// The legitimacy predicate.
    pub legitimate: Option<(BExpr, Span)>,
    /// Named invariants.
    pub invariants: Vec<(String, BExpr, Span)>,
    /// Named values printed in a run's summary.
    pub reports: Vec<(String, crate::check::Checked)>,
    /// Message types.
    pub messages: Vec<Message>,
    /// The capacity of every channel, when messages are declared, and how
    /// many messages random configurations put in a channel (`lo..hi`).
    pub capacity: Option<Capacity>,
    /// How many quantifier variables may be live at once.
    pub max_locals: usize,
}

impl Program {
    /// Writes a value of type `ty` the way a user reads it.
    pub fn show_value(&self, ty: Ty, v: i64) -> String {
        match ty {
            Ty::Bool => (v != 0).to_string(),
            Ty::Enum(e) => self.enums[e]
                .values
                .get(v as usize)
                .cloned()
                .unwrap_or_else(|| format!("<{v}>")),
            Ty::Int | Ty::Node => v.to_string(),
        }
    }
}

/// Whether an expression reads a variable `hit` accepts (anywhere: own,
/// neighbours', through node references). Used to find the guards that can
/// change when only timers do.
pub fn reads_var_b(b: &BExpr, hit: &dyn Fn(usize) -> bool) -> bool {
    match b {
        BExpr::Const(_) => false,
        BExpr::Var(p, v) => hit(*v) || reads_var_p(p, hit),
        BExpr::Not(a) => reads_var_b(a, hit),
        BExpr::And(a, c) | BExpr::Or(a, c) | BExpr::Implies(a, c) | BExpr::BoolEq(_, a, c) => {
            reads_var_b(a, hit) || reads_var_b(c, hit)
        }
        BExpr::Cmp(_, a, c) => reads_var_i(a, hit) || reads_var_i(c, hit),
        BExpr::Forall(_, coll, body) | BExpr::Exists(_, coll, body) => {
            reads_var_c(coll, hit) || reads_var_b(body, hit)
        }
        BExpr::Enabled(p) => reads_var_p(p, hit),
        BExpr::Elem(p, v, i, _) => hit(*v) || reads_var_p(p, hit) || reads_var_i(i, hit),
        BExpr::ArrayEq(_, p, v, q, w, _) => {
            hit(*v) || hit(*w) || reads_var_p(p, hit) || reads_var_p(q, hit)
        }
        BExpr::Acyclic(_, _, body) => reads_var_b(body, hit),
    }
}

/// See [`reads_var_b`].
pub fn reads_var_i(e: &IExpr, hit: &dyn Fn(usize) -> bool) -> bool {
    match e {
        IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg | IExpr::Local(_) => false,
        IExpr::Var(p, v) => hit(*v) || reads_var_p(p, hit),
        IExpr::Index(p) | IExpr::Id(p) | IExpr::NodeOf(p) => reads_var_p(p, hit),
        IExpr::Neg(a, _) | IExpr::Abs(a, _) => reads_var_i(a, hit),
        IExpr::Arith(_, a, b, _) | IExpr::Let(_, a, b) => {
            reads_var_i(a, hit) || reads_var_i(b, hit)
        }
        IExpr::Count(_, coll, body) => reads_var_c(coll, hit) || reads_var_b(body, hit),
        IExpr::Elem(p, v, i, _) => hit(*v) || reads_var_p(p, hit) || reads_var_i(i, hit),
        IExpr::Best(b) => {
            reads_var_c(&b.coll, hit)
                || b.filter.as_ref().is_some_and(|f| reads_var_b(f, hit))
                || b.keys.iter().any(|k| reads_var_i(k, hit))
        }
        IExpr::FromBool(b) => reads_var_b(b, hit),
        IExpr::Msgs(p, q, _, _) => reads_var_p(p, hit) || reads_var_p(q, hit),
    }
}

fn reads_var_p(p: &Proc, hit: &dyn Fn(usize) -> bool) -> bool {
    match p {
        Proc::Through(v) => hit(*v),
        Proc::At(e, _) | Proc::Via(e, _) => reads_var_i(e, hit),
        _ => false,
    }
}

fn reads_var_c(c: &Coll, hit: &dyn Fn(usize) -> bool) -> bool {
    match c {
        Coll::NbrsOf(p) => reads_var_p(p, hit),
        Coll::Procs => false,
        Coll::Range(a, b) => reads_var_i(a, hit) || reads_var_i(b, hit),
    }
}

/// Whether `b`, evaluated for the process in local slot `p`, reads only
/// that process and its neighbours (through quantifiers over `nbrs(p)`),
/// the channels between them, and `enabled(p)`: then it can only change when
/// `p` moves or one of the processes `p` reads does, and a legitimacy
/// predicate `forall(p in procs : b)` can be kept up to date incrementally.
/// `node_var(v)` says whether variable `v` is a node reference (its value is
/// its owner or a neighbour), `edge_var(v)` whether it is an edge variable
/// (whose copy at a neighbour can change when a third process writes it).
pub fn local_to(
    b: &BExpr,
    p: usize,
    node_var: &dyn Fn(usize) -> bool,
    edge_var: &dyn Fn(usize) -> bool,
) -> bool {
    local_b(
        b,
        p,
        &mut Vec::new(),
        &mut Vec::new(),
        &NodeVars(node_var, edge_var),
    )
}

/// Which variables are node references, and which are edge variables.
struct NodeVars<'a>(&'a dyn Fn(usize) -> bool, &'a dyn Fn(usize) -> bool);

fn allowed(q: &Proc, p: usize, nbr: &[usize], nv: &NodeVars) -> bool {
    match q {
        Proc::Local(s) => *s == p || nbr.contains(s),
        // The process p's own node variable names p or a neighbour of p.
        Proc::At(e, _) => matches!(&**e, IExpr::Var(Proc::Local(s), v) if *s == p && (nv.0)(*v)),
        _ => false,
    }
}

/// An element read: edge variables only at p itself (a neighbour's copy can
/// change when a third process writes the edge).
fn elem_ok(q: &Proc, v: usize, p: usize, nbr: &[usize], nv: &NodeVars) -> bool {
    if (nv.1)(v) {
        matches!(q, Proc::Local(s) if *s == p)
    } else {
        allowed(q, p, nbr, nv)
    }
}

/// Whether `e` reads nothing of the configuration (only constants, ids,
/// indices and variables it binds itself): its value is fixed for a run.
pub fn state_free(e: &IExpr) -> bool {
    free_i(e, &mut Vec::new())
}

fn free_i(e: &IExpr, bound: &mut Vec<usize>) -> bool {
    let proc_ok = |q: &Proc, bound: &[usize]| matches!(q, Proc::Local(s) if bound.contains(s));
    match e {
        IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg => true,
        IExpr::Local(s) => bound.contains(s),
        IExpr::Index(q) | IExpr::Id(q) | IExpr::NodeOf(q) => proc_ok(q, bound),
        IExpr::Neg(a, _) | IExpr::Abs(a, _) => free_i(a, bound),
        IExpr::Arith(_, a, b, _) => free_i(a, bound) && free_i(b, bound),
        IExpr::Best(b) => {
            let coll_ok = match &b.coll {
                Coll::Procs => true,
                Coll::Range(lo, hi) => free_i(lo, bound) && free_i(hi, bound),
                Coll::NbrsOf(q) => proc_ok(q, bound),
            };
            coll_ok && b.filter.is_none() && {
                bound.push(b.slot);
                let ok = b.keys.iter().all(|k| free_i(k, bound));
                bound.pop();
                ok
            }
        }
        IExpr::Let(s, v, body) => {
            free_i(v, bound) && {
                bound.push(*s);
                let ok = free_i(body, bound);
                bound.pop();
                ok
            }
        }
        _ => false,
    }
}

fn local_b(
    b: &BExpr,
    p: usize,
    nbr: &mut Vec<usize>,
    vals: &mut Vec<usize>,
    nv: &NodeVars,
) -> bool {
    match b {
        BExpr::Const(_) => true,
        BExpr::Var(q, _) => allowed(q, p, nbr, nv),
        BExpr::Not(a) => local_b(a, p, nbr, vals, nv),
        BExpr::And(a, c) | BExpr::Or(a, c) | BExpr::Implies(a, c) | BExpr::BoolEq(_, a, c) => {
            local_b(a, p, nbr, vals, nv) && local_b(c, p, nbr, vals, nv)
        }
        BExpr::Cmp(_, a, c) => local_i(a, p, nbr, vals, nv) && local_i(c, p, nbr, vals, nv),
        BExpr::Forall(s, coll, body) | BExpr::Exists(s, coll, body) => {
            local_bound(*s, coll, p, nbr, vals, nv, |nbr, vals| {
                local_b(body, p, nbr, vals, nv)
            })
        }
        // A neighbour's enabledness can change without it or p being affected.
        BExpr::Enabled(q) => matches!(q, Proc::Local(s) if *s == p),
        BExpr::Elem(q, v, i, _) => elem_ok(q, *v, p, nbr, nv) && local_i(i, p, nbr, vals, nv),
        BExpr::ArrayEq(_, q, _, r, _, _) => allowed(q, p, nbr, nv) && allowed(r, p, nbr, nv),
        BExpr::Acyclic(..) => false,
    }
}

/// Checks `inner` with slot `s` bound over `coll`, when `coll` is local.
fn local_bound(
    s: usize,
    coll: &Coll,
    p: usize,
    nbr: &mut Vec<usize>,
    vals: &mut Vec<usize>,
    nv: &NodeVars,
    inner: impl FnOnce(&mut Vec<usize>, &mut Vec<usize>) -> bool,
) -> bool {
    match coll {
        Coll::NbrsOf(Proc::Local(o)) if *o == p => {
            nbr.push(s);
            let ok = inner(nbr, vals);
            nbr.pop();
            ok
        }
        Coll::Range(lo, hi) => {
            if !(local_i(lo, p, nbr, vals, nv) && local_i(hi, p, nbr, vals, nv)) {
                return false;
            }
            vals.push(s);
            let ok = inner(nbr, vals);
            vals.pop();
            ok
        }
        _ => false,
    }
}

fn local_i(
    e: &IExpr,
    p: usize,
    nbr: &mut Vec<usize>,
    vals: &mut Vec<usize>,
    nv: &NodeVars,
) -> bool {
    if free_i(e, &mut vals.clone()) {
        return true;
    }
    match e {
        IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg => true,
        IExpr::Local(s) => vals.contains(s),
        IExpr::Var(q, _) | IExpr::Index(q) | IExpr::Id(q) | IExpr::NodeOf(q) => {
            allowed(q, p, nbr, nv)
        }
        IExpr::Neg(a, _) | IExpr::Abs(a, _) => local_i(a, p, nbr, vals, nv),
        IExpr::Arith(_, a, b, _) => local_i(a, p, nbr, vals, nv) && local_i(b, p, nbr, vals, nv),
        IExpr::Count(s, coll, body) => local_bound(*s, coll, p, nbr, vals, nv, |nbr, vals| {
            local_b(body, p, nbr, vals, nv)
        }),
        IExpr::Elem(q, v, i, _) => elem_ok(q, *v, p, nbr, nv) && local_i(i, p, nbr, vals, nv),
        IExpr::Best(b) => local_bound(b.slot, &b.coll, p, nbr, vals, nv, |nbr, vals| {
            b.filter
                .as_ref()
                .is_none_or(|f| local_b(f, p, nbr, vals, nv))
                && b.keys.iter().all(|k| local_i(k, p, nbr, vals, nv))
        }),
        IExpr::Let(s, v, body) => {
            // The bound value is a member of the same collection as in `v`.
            local_i(v, p, nbr, vals, nv)
                && {
                    let is_nbr = matches!(&**v, IExpr::Best(b) if matches!(b.coll, Coll::NbrsOf(Proc::Local(o)) if o == p));
                    if is_nbr {
                        nbr.push(*s);
                    } else {
                        vals.push(*s);
                    }
                    let ok = local_i(body, p, nbr, vals, nv);
                    if is_nbr {
                        nbr.pop();
                    } else {
                        vals.pop();
                    }
                    ok
                }
        }
        IExpr::FromBool(b) => local_b(b, p, nbr, vals, nv),
        // A channel with p at one end changes only when p or the other end moves.
        IExpr::Msgs(q, r, _, _) => {
            let is_p = |x: &Proc| matches!(x, Proc::Local(s) if *s == p);
            (is_p(q) && allowed(r, p, nbr, nv)) || (allowed(q, p, nbr, nv) && is_p(r))
        }
    }
}
