//! The resolved, typed intermediate representation the checker produces:
//! names are slot indices, neighbour reads are explicit forms, and integer
//! and boolean expressions are separate types, so later phases need no
//! type tests.

use crate::span::Span;

mod analysis;
mod exclusive;
mod guard_reads;
mod observes;
mod ops;
mod own_reads;
mod read_walk;
mod self_disabling;
mod under_test;

pub use analysis::{
    draws, draws_i, fixed_truth, local_arc, local_to, reads_locals, reads_locals_i, reads_var_b,
    state_free,
};
pub use exclusive::exclusive;
pub use guard_reads::{guard_reads, var_bit, writes, GuardReads};
pub use observes::observes;
pub(crate) use ops::specialize_cmp;
pub use ops::{absolute, negate, Arith, Cmp};
pub use own_reads::{reads_own_edges_only, reads_own_variables_only};
pub use self_disabling::disables_itself;

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
    /// Declared inside this role: only its processes may change it; the
    /// others keep the declared value.
    pub role: Option<usize>,
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

/// The most components a key of `min`, `max`, `argmin` or `argmax` may
/// have (the compiled comparison keeps them on the stack).
pub const MAX_KEYS: usize = 32;

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
#[derive(Clone, Debug, PartialEq)]
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

/// What a quantifier ranges over.
#[derive(Clone, Debug, PartialEq)]
pub enum Coll {
    /// The neighbours (those whose variables it may read) of this process.
    NbrsOf(Proc),
    /// All processes.
    Procs,
    /// The integers `lo..=hi`, written at the span.
    Range(Box<IExpr>, Box<IExpr>, Span),
}

/// A collection with the filter a set adds, and the slot its variable uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Binder {
    /// The bound variable's local slot.
    pub slot: usize,
    /// What it ranges over.
    pub coll: Coll,
    /// Which members count.
    pub filter: Option<BExpr>,
}

/// Integer-valued expressions (integers, enumeration values, node references).
#[derive(Clone, Debug, PartialEq)]
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
    /// `if c then a else b`.
    Cond(Box<BExpr>, Box<IExpr>, Box<IExpr>),
    /// `p.left` (`true`) or `p.right` of a process in a global predicate:
    /// its ring or chain neighbour, a runtime error where it has none.
    Side(Proc, bool, Span),
    /// `sum(q in C: e)`: the slot, the collection, the members counted (a
    /// set's filter, or true), the summand; overflow is reported at the span.
    Sum(usize, Coll, Box<BExpr>, Box<IExpr>, Span),
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
    /// `random(...)`: drawn uniformly by the run's generator when the
    /// statement runs (statements only); an empty range or set is a fault
    /// at the span.
    Random(Box<Draw>, Span),
}

/// What a draw ([`IExpr::Random`]) draws from.
#[derive(Clone, Debug, PartialEq)]
pub enum Draw {
    /// `random(lo..hi)`: an integer of the range (`random(bool)` is `0..1`).
    Range(IExpr, IExpr),
    /// `random(nbrs)`, `random({q in C : P})`: a member of the collection,
    /// each alike. The draw's value (what a schedule gives and verify
    /// enumerates) is the member's position in the collection's order,
    /// from 0; the expression's value is the member.
    Member {
        /// The bound variable's slot, which the filter reads.
        slot: usize,
        /// What it ranges over.
        coll: Coll,
        /// Which members count.
        filter: Option<BExpr>,
    },
}

/// See [`IExpr::Best`].
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
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
    /// Two whole arrays of one length compared lexicographically (the first
    /// element where they differ decides).
    ArrayCmp(Cmp, Proc, usize, Proc, usize, Span),
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
    /// Named properties of runs, which `verify` checks.
    pub properties: Vec<Property>,
    /// Named values printed in a run's summary.
    pub reports: Vec<(String, crate::check::Checked)>,
    /// Message types.
    pub messages: Vec<Message>,
    /// The capacity of every channel, when messages are declared, and how
    /// many messages random configurations put in a channel (`lo..hi`).
    pub capacity: Option<Capacity>,
    /// `delay lo..hi` of the channel declaration: the program runs in
    /// ticks, each message taking lo to hi of them; where `lo..hi` is.
    pub delay: Option<(IExpr, IExpr, Span)>,
    /// How many quantifier variables may be live at once.
    pub max_locals: usize,
    /// Whether some statement draws at random (`random(...)`).
    pub draws: bool,
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

/// A property of runs (`property NAME: FORM`), checked.
#[derive(Clone, Debug)]
pub struct Property {
    /// Its name.
    pub name: String,
    /// Where it is declared.
    pub span: Span,
    /// Where it is said of every process: the slot its process is in.
    pub each: Option<usize>,
    /// What it says.
    pub form: crate::syntax::ast::Temporal<BExpr>,
    /// The fairness it assumes (`under weak fairness`), if any.
    pub fairness: Option<crate::syntax::ast::Assumed>,
}
