//! Phase 3, compilation: instantiates a checked program on a topology
//! (parameters, domains, priorities and roles become constants) and turns
//! every guard, statement and predicate into closures over the flat
//! configuration. Nothing walks the IR at run time.

pub mod columns;
mod instantiate;

pub use instantiate::instantiate;

use crate::check::ir::{self, Arith, BExpr, Cmp, Coll, Domain, IExpr, Proc, Value};
use crate::diagnostic::Problem;
use crate::span::Span;
use crate::state::channels::{Channels, MAX_FIELDS};
use crate::topology::{Topology, NONE};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

/// What a closure sees while it runs.
pub struct Env<'a> {
    /// The configuration before the step: `stride` values per process.
    pub state: &'a [i64],
    /// The process whose guard or statement runs (unused in global predicates).
    pub me: usize,
    /// The mover's own row while its statement runs; its writes land here.
    pub scratch: &'a [Cell<i64>],
    /// The topology.
    pub topo: &'a Topology,
    /// Quantifier variables.
    pub locals: &'a [Cell<i64>],
    /// Which processes are enabled (for `enabled(p)`).
    pub enabled: &'a dyn Enabledness,
    /// How many processes are enabled (so `count(p in procs : enabled(p))` costs O(1)).
    pub enabled_count: usize,
    /// The channels (read by `receive` guards and `msgs`).
    pub chans: &'a Channels,
    /// What the running statement does besides writing its own row.
    pub fx: &'a Effects,
}

/// Which processes are enabled, as global predicates (`enabled(p)`) read
/// it: the runtime answers from its bookkeeping, an explorer from a column.
pub trait Enabledness {
    /// Whether process `p` has an enabled action.
    fn is_enabled(&self, p: usize) -> bool;
}

/// For guards and statements, which cannot ask whether a process is enabled.
pub struct NoneEnabled;

impl Enabledness for NoneEnabled {
    fn is_enabled(&self, _: usize) -> bool {
        false
    }
}

/// A column of chosen actions, one per process.
impl Enabledness for Vec<u16> {
    fn is_enabled(&self, p: usize) -> bool {
        self[p] != NO_ACTION
    }
}

/// The chosen action of a process with no enabled action.
pub const NO_ACTION: u16 = u16::MAX;

/// A message a statement sends: destination, type, fields, the `send`'s span.
pub type Sent = (usize, u16, [i64; MAX_FIELDS], Span);

/// What a statement does besides writing its own row: messages sent, edge
/// variables written (which also land at the other end), the message taken.
#[derive(Default, Debug)]
pub struct Effects {
    /// Messages sent.
    pub sends: RefCell<Vec<Sent>>,
    /// (the edge's other end, variable, value, the assignment's span).
    pub edge_writes: RefCell<Vec<(usize, usize, i64, Span)>>,
    /// The sender whose channel's head this action takes.
    pub received: Cell<Option<usize>>,
}

impl Effects {
    /// Forgets everything recorded.
    pub fn clear(&self) {
        self.sends.borrow_mut().clear();
        self.edge_writes.borrow_mut().clear();
        self.received.set(None);
    }
}

/// A runtime error raised inside a closure, pointing at the expression.
#[derive(Debug, Clone)]
pub struct Fault {
    /// The expression or assignment that failed.
    pub span: Span,
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub help: String,
}

/// A closure's result; faults are boxed to keep the success path small.
pub type Res<T> = Result<T, Box<Fault>>;

fn fault<T>(span: Span, message: String, help: &str) -> Res<T> {
    Err(Box::new(Fault {
        span,
        message,
        help: help.to_string(),
    }))
}

/// A compiled integer-like expression.
pub type IFn = Box<dyn Fn(&Env) -> Res<i64> + Send + Sync>;
/// A compiled boolean expression.
pub type BFn = Box<dyn Fn(&Env) -> Res<bool> + Send + Sync>;
/// A compiled statement: writes go to `Env::scratch`.
pub type SFn = Box<dyn Fn(&Env) -> Res<()> + Send + Sync>;
type PFn = Box<dyn Fn(&Env) -> Res<usize> + Send + Sync>;
/// A compiled domain check run before an assignment lands.
type CheckFn = Box<dyn Fn(&Env, i64) -> Res<()> + Send + Sync>;
/// A compiled closure producing any result.
type AnyFn<T> = Box<dyn Fn(&Env) -> Res<T> + Send + Sync>;

/// A variable's domain with its bounds known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarDomain {
    /// `false`/`true` as 0/1.
    Bool,
    /// `lo..=hi`.
    Range(i64, i64),
    /// `0..len-1`, the enumeration's values.
    Enum(usize),
    /// Self or a neighbour.
    Node,
}

impl VarDomain {
    /// Whether `v` lies in the domain for process `me`.
    pub fn contains(&self, v: i64, me: usize, topo: &Topology) -> bool {
        match *self {
            VarDomain::Bool => v == 0 || v == 1,
            VarDomain::Range(lo, hi) => (lo..=hi).contains(&v),
            VarDomain::Enum(len) => v >= 0 && (v as usize) < len,
            VarDomain::Node => {
                v >= 0 && (v as usize) < topo.n() && topo.is_self_or_nbr(me, v as usize)
            }
        }
    }
    /// Every value in the domain for process `me`, in increasing order
    /// (for a node reference: `me`, then its neighbours in their order).
    pub fn values(&self, me: usize, topo: &Topology) -> Vec<i64> {
        match *self {
            VarDomain::Bool => vec![0, 1],
            VarDomain::Range(lo, hi) => (lo..=hi).collect(),
            VarDomain::Enum(len) => (0..len as i64).collect(),
            VarDomain::Node => std::iter::once(me as i64)
                .chain(topo.nbrs(me).iter().map(|&q| i64::from(q)))
                .collect(),
        }
    }
    /// How many values [`VarDomain::values`] lists.
    pub fn size(&self, me: usize, topo: &Topology) -> u128 {
        match *self {
            VarDomain::Bool => 2,
            VarDomain::Range(lo, hi) => (i128::from(hi) - i128::from(lo) + 1).max(0) as u128,
            VarDomain::Enum(len) => len as u128,
            VarDomain::Node => topo.nbrs(me).len() as u128 + 1,
        }
    }
    /// The domain as a user writes it.
    pub fn describe(&self) -> String {
        match *self {
            VarDomain::Bool => "bool".into(),
            VarDomain::Range(lo, hi) => format!("{lo}..{hi}"),
            VarDomain::Enum(_) => "the enumeration's values".into(),
            VarDomain::Node => "self or a neighbour".into(),
        }
    }
}

/// One compiled action.
pub struct CAction {
    /// Its label.
    pub label: String,
    /// Its priority (smaller is more urgent; 0 when none was given).
    pub priority: i64,
    /// The guard.
    pub guard: BFn,
    /// The statement.
    pub body: SFn,
    /// The action's source, for diagnostics.
    pub span: Span,
    /// Whether its guard reads a timer (so a round's end can enable it).
    pub reads_timers: bool,
}

/// A compiled role: its actions sorted by priority, program order kept among equals.
pub struct CRole {
    /// Actions, most urgent first.
    pub actions: Vec<CAction>,
}

/// A conjunct of the legitimacy predicate.
pub enum LegitPart {
    /// `forall(p in procs : body)` with `body` local to p: holds when it
    /// holds at every process; the bound variable's slot.
    Forall(usize, BFn),
    /// `count(p in procs : body) CMP k` with `body` local to p.
    Count(usize, BFn, Cmp, i64),
    /// Anything else, evaluated in full.
    Whole(BFn),
}

/// A compiled invariant.
pub struct CInvariant {
    /// Its name.
    pub name: String,
    /// The predicate.
    pub test: BFn,
    /// Its source.
    pub span: Span,
}

/// A program instantiated on a topology and compiled.
pub struct Compiled {
    /// Values per process.
    pub stride: usize,
    /// The topology's sizes the program's constants were computed with.
    pub size: Size,
    /// Each variable's first slot in a process's row.
    pub offsets: Vec<usize>,
    /// Each array variable's length; `None` for a scalar. Per-neighbour
    /// variables have one slot per neighbour of the busiest process.
    pub lens: Vec<Option<usize>>,
    /// Which variables have one value per neighbour (slot k: the k-th neighbour).
    pub per_nbr: Vec<bool>,
    /// Whether it was compiled for a `ring`/`uring` (neighbours computed).
    pub regular_ring: bool,
    /// Whether statements can do more than write their own row (send
    /// messages, take them, write edge variables).
    pub has_effects: bool,
    /// Timers: first slot, slots, the value they stop at.
    pub timers: Vec<(usize, usize, i64)>,
    /// The channel capacity, when the program passes messages.
    pub capacity: Option<usize>,
    /// How many messages a random configuration puts in each channel.
    pub random_fill: (usize, usize),
    /// Each message type's field domains.
    pub message_domains: Vec<Vec<VarDomain>>,
    /// Parameter values, in declaration order.
    pub params: Vec<(String, i64)>,
    /// The roles.
    pub roles: Vec<CRole>,
    /// Each process's role.
    pub role_of: Vec<u32>,
    /// Domains by slot (an array's elements share its element domain).
    pub domains: Vec<VarDomain>,
    /// What arbitrary (random) configurations draw each slot from: the
    /// domain, or a declared `random lo..hi` within it.
    pub arbitrary: Vec<VarDomain>,
    /// Declared initial values by variable (every element of an array gets
    /// it); evaluated with `me` set and no state.
    pub inits: Vec<Option<IFn>>,
    /// The legitimacy predicate.
    pub legitimate: Option<BFn>,
    /// Whether it reads a timer (else rounds that only advance timers leave it be).
    pub legitimate_reads_timers: bool,
    /// The legitimacy predicate split into conjuncts, when some can be kept
    /// up to date from the processes a step affects; empty otherwise.
    pub legit_parts: Vec<LegitPart>,
    /// The legitimacy predicate when it is `count(p in procs : enabled(p))
    /// CMP k`: the runtime decides it from the enabled set's size alone.
    pub legit_enabled_count: Option<(Cmp, i64)>,
    /// The invariants.
    pub invariants: Vec<CInvariant>,
    /// The reports, by name.
    pub reports: Vec<(String, GlobalFn)>,
    /// Size of the quantifier-variable frame.
    pub max_locals: usize,
    /// The column form the synchronous daemon runs, when every action has one.
    pub columns: Option<columns::ColumnCode>,
}

impl Compiled {
    /// The slots variable `v` occupies in a process's row.
    pub fn slots(&self, v: usize) -> std::ops::Range<usize> {
        let start = self.offsets[v];
        start..start + self.lens[v].unwrap_or(1)
    }

    /// The variable a slot belongs to, and the element for an array.
    pub fn var_of_slot(&self, slot: usize) -> (usize, Option<usize>) {
        let v = self.offsets.partition_point(|&o| o <= slot) - 1;
        (v, self.lens[v].map(|_| slot - self.offsets[v]))
    }

    /// Variable `v` of a process's row as a user reads it: `[a, b]` for
    /// arrays, `{q:a, r:b}` for per-neighbour values (`nbrs`: the owner's).
    pub fn show_var(&self, prog: &ir::Program, nbrs: &[u32], v: usize, row: &[i64]) -> String {
        let ty = prog.vars[v].ty;
        if self.per_nbr[v] {
            return format!(
                "{{{}}}",
                nbrs.iter()
                    .zip(&row[self.slots(v)])
                    .map(|(q, x)| format!("{q}:{}", prog.show_value(ty, *x)))
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
        match self.lens[v] {
            None => prog.show_value(ty, row[self.offsets[v]]),
            Some(_) => format!(
                "[{}]",
                row[self.slots(v)]
                    .iter()
                    .map(|x| prog.show_value(ty, *x))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }
}

/// A value a fused closure reads directly (see `Compiler::plain`).
#[derive(Clone, Copy)]
enum Plain {
    Const(i64),
    /// A slot of the process's own row.
    Own(usize),
    /// A slot of the left neighbour's row on a `ring`/`uring` of `n` processes.
    Left(usize, usize),
    /// `count(p in procs : enabled(p))`, which the runtime keeps.
    EnabledCount,
}

/// A plain read of a kind fixed when the closure is made, so that a fused
/// comparison is compiled for its pair of kinds and decides nothing at run
/// time.
trait PlainRead: Copy + Send + Sync + 'static {
    fn get(self, e: &Env, stride: usize) -> i64;
}

#[derive(Clone, Copy)]
struct ReadConst(i64);
#[derive(Clone, Copy)]
struct ReadOwn(usize);
#[derive(Clone, Copy)]
struct ReadLeft(usize, usize);
#[derive(Clone, Copy)]
struct ReadEnabledCount;

impl PlainRead for ReadConst {
    #[inline(always)]
    fn get(self, _: &Env, _: usize) -> i64 {
        self.0
    }
}
impl PlainRead for ReadOwn {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        e.state[e.me * stride + self.0]
    }
}
impl PlainRead for ReadLeft {
    #[inline(always)]
    fn get(self, e: &Env, stride: usize) -> i64 {
        let ReadLeft(slot, n) = self;
        let q = if e.me == 0 { n - 1 } else { e.me - 1 };
        e.state[q * stride + slot]
    }
}
impl PlainRead for ReadEnabledCount {
    #[inline(always)]
    fn get(self, e: &Env, _: usize) -> i64 {
        e.enabled_count as i64
    }
}

/// `a op b` for two plain reads: one closure, specialized for the kinds of
/// both reads.
fn fused_cmp(op: Cmp, a: Plain, b: Plain, stride: usize) -> BFn {
    fn with_a<A: PlainRead>(op: Cmp, a: A, b: Plain, stride: usize) -> BFn {
        match b {
            Plain::Const(c) => both(op, a, ReadConst(c), stride),
            Plain::Own(slot) => both(op, a, ReadOwn(slot), stride),
            Plain::Left(slot, n) => both(op, a, ReadLeft(slot, n), stride),
            Plain::EnabledCount => both(op, a, ReadEnabledCount, stride),
        }
    }
    fn both<A: PlainRead, B: PlainRead>(op: Cmp, a: A, b: B, stride: usize) -> BFn {
        ir::specialize_cmp!(op, OP => Box::new(move |e| Ok(OP.holds(a.get(e, stride), b.get(e, stride)))))
    }
    match a {
        Plain::Const(c) => with_a(op, ReadConst(c), b, stride),
        Plain::Own(slot) => with_a(op, ReadOwn(slot), b, stride),
        Plain::Left(slot, n) => with_a(op, ReadLeft(slot, n), b, stride),
        Plain::EnabledCount => with_a(op, ReadEnabledCount, b, stride),
    }
}

/// The sizes of a topology a constant may use: `n` and `maxdeg`.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// The number of processes.
    pub n: i64,
    /// The largest number of neighbours of a process.
    pub maxdeg: i64,
}

/// Evaluates an expression built only from constants, parameters and `n`.
pub fn const_eval(e: &IExpr, params: &[i64], n: Size) -> Option<i64> {
    Some(match e {
        IExpr::Const(c) => *c,
        IExpr::Param(i) => *params.get(*i)?,
        IExpr::N => n.n,
        IExpr::MaxDeg => n.maxdeg,
        IExpr::Neg(a, _) => ir::negate(const_eval(a, params, n)?)?,
        IExpr::Abs(a, _) => ir::absolute(const_eval(a, params, n)?)?,
        IExpr::Arith(op, a, b, _) => {
            op.apply(const_eval(a, params, n)?, const_eval(b, params, n)?)?
        }
        _ => return None,
    })
}

/// A compiled stand-alone global expression.
pub enum GlobalFn {
    /// Integer-like, with its type for printing.
    Int(IFn, ir::Ty),
    /// Boolean.
    Bool(BFn),
}

/// Compiles an expression checked by [`crate::check::check_global_expr`] or
/// [`crate::check::check_local_expr`] for the instance `code` was built for;
/// evaluate it with `Simulation::eval_global` or `Simulation::eval_at`.
pub fn compile_global(
    prog: &ir::Program,
    code: &Compiled,
    e: &crate::check::Checked,
) -> Result<GlobalFn, Vec<Problem>> {
    let c = Compiler {
        prog,
        topo: None,
        params: code.params.iter().map(|(_, v)| *v).collect(),
        n: code.size,
        stride: code.stride,
        in_stmt: false,
        domains: (0..prog.vars.len())
            .map(|v| code.domains[code.offsets[v]].clone())
            .collect(),
        offsets: code.offsets.clone(),
        lens: code.lens.iter().map(|l| l.unwrap_or(1)).collect(),
        per_nbr: code.per_nbr.clone(),
        regular_ring: code.regular_ring,
        problems: Rc::new(RefCell::new(Vec::new())),
    };
    let f = c.global(e);
    let problems = c.problems.take();
    if problems.is_empty() {
        Ok(f)
    } else {
        Err(problems)
    }
}

fn out_of_domain(v: &ir::Var, x: i64, lo: i64, hi: i64, span: Span) -> Problem {
    Problem::new("guarded::instance::out_of_domain", format!("{x} is outside the domain {lo}..{hi} of `{}`", v.name))
        .label(span, format!("{x} is not in {lo}..{hi}"))
        .help("use a value in the domain, or widen the domain (the bounds are computed with the current parameters and n)")
}

#[derive(Clone)]
struct Compiler<'a> {
    prog: &'a ir::Program,
    /// The topology, when compiling for one: expressions that read no state
    /// (`min(p in procs : p.id)`) are then evaluated once.
    topo: Option<&'a Topology>,
    params: Vec<i64>,
    n: Size,
    stride: usize,
    /// Whether this compiles a statement: own reads then see own earlier writes.
    in_stmt: bool,
    /// Domains by variable.
    domains: Vec<VarDomain>,
    /// Each variable's first slot.
    offsets: Vec<usize>,
    /// Each variable's number of slots.
    lens: Vec<usize>,
    /// Which variables have one value per neighbour.
    per_nbr: Vec<bool>,
    /// Whether the topology is a `ring` or `uring` (left of i is i-1).
    regular_ring: bool,
    /// Problems found while compiling (constant indices out of range).
    problems: Rc<RefCell<Vec<Problem>>>,
}

impl Compiler<'_> {
    /// Splits a legitimacy predicate into conjuncts, keeping those over all
    /// processes of a local predicate incremental; empty if none is.
    fn legit_parts(&self, b: &BExpr) -> Vec<LegitPart> {
        fn conjuncts<'b>(b: &'b BExpr, out: &mut Vec<&'b BExpr>) {
            match b {
                BExpr::And(a, c) => {
                    conjuncts(a, out);
                    conjuncts(c, out);
                }
                b => out.push(b),
            }
        }
        let node_var = |v: usize| self.prog.vars[v].ty == ir::Ty::Node;
        let edge_var = |v: usize| self.prog.vars[v].kind == crate::check::ir::VarKind::Edge;
        let local = |slot: usize, body: &BExpr| {
            // `count(p in procs : enabled(p))` already costs nothing.
            !matches!(body, BExpr::Enabled(Proc::Local(s)) if *s == slot)
                && ir::local_to(body, slot, &node_var, &edge_var)
        };
        let mut parts = Vec::new();
        let mut incremental = false;
        let mut list = Vec::new();
        conjuncts(b, &mut list);
        for c in list {
            match c {
                BExpr::Forall(slot, Coll::Procs, body) if local(*slot, body) => {
                    incremental = true;
                    parts.push(LegitPart::Forall(*slot, self.bexpr(body)));
                }
                BExpr::Cmp(op, IExpr::Count(slot, Coll::Procs, body), k)
                    if local(*slot, body) && const_eval(k, &self.params, self.n).is_some() =>
                {
                    incremental = true;
                    let k = const_eval(k, &self.params, self.n).unwrap_or(0);
                    parts.push(LegitPart::Count(*slot, self.bexpr(body), *op, k));
                }
                other => parts.push(LegitPart::Whole(self.bexpr(other))),
            }
        }
        if incremental {
            parts
        } else {
            Vec::new()
        }
    }

    fn global(&self, e: &crate::check::Checked) -> GlobalFn {
        match e {
            crate::check::Checked::Int(i, ty) => GlobalFn::Int(self.iexpr(i), *ty),
            crate::check::Checked::Bool(b) => GlobalFn::Bool(self.bexpr(b)),
        }
    }

    fn constant_assignments(&self, s: &ir::Stmt, problems: &mut Vec<Problem>) {
        match s {
            ir::Stmt::Skip => {}
            ir::Stmt::Seq(v) => v
                .iter()
                .for_each(|s| self.constant_assignments(s, problems)),
            ir::Stmt::If(_, a, b) => {
                self.constant_assignments(a, problems);
                self.constant_assignments(b, problems);
            }
            ir::Stmt::For(_, body) => self.constant_assignments(body, problems),
            ir::Stmt::Send(..) => {}
            ir::Stmt::Assign(targets, values) => {
                for (t, val) in targets.iter().zip(values) {
                    if let (Value::Int(e), VarDomain::Range(lo, hi)) = (val, &self.domains[t.var]) {
                        if let Some(x) = const_eval(e, &self.params, self.n) {
                            if !(*lo..=*hi).contains(&x) {
                                problems.push(out_of_domain(
                                    &self.prog.vars[t.var],
                                    x,
                                    *lo,
                                    *hi,
                                    t.span,
                                ));
                            }
                        }
                    }
                    if let Value::Array(_, src) = val {
                        self.same_length(t.var, *src, t.span);
                    }
                }
            }
        }
    }

    /// Reports arrays of different lengths used as one.
    fn same_length(&self, a: usize, b: usize, span: Span) {
        if self.lens[a] != self.lens[b] {
            let (va, vb) = (&self.prog.vars[a], &self.prog.vars[b]);
            self.problems.borrow_mut().push(
                Problem::new(
                    "guarded::instance::array_lengths",
                    format!(
                        "`{}` has {} elements but `{}` has {}",
                        va.name, self.lens[a], vb.name, self.lens[b]
                    ),
                )
                .label(span, "the whole arrays are used together here")
                .help("whole-array comparison and assignment need arrays of one length"),
            );
        }
    }

    /// The element slot of an array read or write: constant indices are
    /// checked now, others when evaluated.
    fn element(&self, var: usize, index: &IExpr, span: Span) -> Result<usize, IFn> {
        let len = self.lens[var];
        let base = self.offsets[var];
        if let Some(i) = const_eval(index, &self.params, self.n) {
            if i < 0 || i as usize >= len {
                let v = &self.prog.vars[var];
                self.problems.borrow_mut().push(
                    Problem::new(
                        "guarded::instance::index_out_of_range",
                        format!(
                            "index {i} is outside `{}`, which has {len} elements",
                            v.name
                        ),
                    )
                    .label(span, format!("valid indices are 0..{}", len - 1))
                    .help("indices start at 0; check the parameters"),
                );
                return Ok(base);
            }
            return Ok(base + i as usize);
        }
        let f = self.iexpr(index);
        let name = self.prog.vars[var].name.clone();
        Err(Box::new(move |e| {
            let i = f(e)?;
            if i < 0 || i as usize >= len {
                return fault(
                    span,
                    format!("index {i} is outside `{name}`, which has {len} elements"),
                    "indices run from 0 to the length minus one",
                );
            }
            Ok((base + i as usize) as i64)
        }))
    }

    /// A read of the slot `slot` computes (an array element with a
    /// computed index) at the process `p` denotes.
    fn read_at(&self, p: &Proc, slot: IFn) -> IFn {
        let stride = self.stride;
        let proc = self.proc(p);
        if self.in_stmt {
            Box::new(move |e| {
                let q = proc(e)?;
                let s = slot(e)? as usize;
                Ok(if q == e.me {
                    e.scratch[s].get()
                } else {
                    e.state[q * stride + s]
                })
            })
        } else {
            Box::new(move |e| {
                let q = proc(e)?;
                Ok(e.state[q * stride + slot(e)? as usize])
            })
        }
    }

    /// A read of an array element.
    fn elem(&self, p: &Proc, var: usize, index: &IExpr, span: Span) -> IFn {
        if self.per_nbr[var] {
            return self.nbr_elem(p, var, index, span);
        }
        match self.element(var, index, span) {
            Ok(slot) => self.read(p, slot),
            Err(slot) => self.read_at(p, slot),
        }
    }

    /// A read of the value a process `p` keeps for its neighbour `index`.
    fn nbr_elem(&self, p: &Proc, var: usize, index: &IExpr, span: Span) -> IFn {
        let owner = self.proc(p);
        let q = self.iexpr(index);
        let (base, stride, in_stmt) = (self.offsets[var], self.stride, self.in_stmt);
        let name = self.prog.vars[var].name.clone();
        Box::new(move |e| {
            let o = owner(e)?;
            let q = q(e)?;
            let Some(k) = usize::try_from(q).ok().and_then(|q| e.topo.nbr_pos(o, q)) else {
                return fault(
                    span,
                    format!("process {q} is not a neighbour of process {o}, so `{name}` has no value for it"),
                    "index a per-neighbour variable with one of the owner's neighbours",
                );
            };
            Ok(if in_stmt && o == e.me {
                e.scratch[base + k].get()
            } else {
                e.state[o * stride + base + k]
            })
        })
    }

    /// The position of neighbour `q` of the running process, or a fault.
    fn my_nbr_slot(&self, var: usize, index: &IExpr, span: Span) -> IFn {
        let q = self.iexpr(index);
        let base = self.offsets[var];
        let name = self.prog.vars[var].name.clone();
        Box::new(move |e| {
            let q = q(e)?;
            match usize::try_from(q).ok().and_then(|q| e.topo.nbr_pos(e.me, q)) {
                Some(k) => Ok((base + k) as i64),
                None => fault(
                    span,
                    format!("process {q} is not a neighbour of process {}, so `{name}` has no value for it", e.me),
                    "index a per-neighbour variable with one of the process's neighbours",
                ),
            }
        })
    }

    /// An action with `for q in C`: enabled when the guard holds for some
    /// member; the statement runs for the first such member.
    fn bound_action(&self, b: &ir::Binder, guard: &BExpr, body: SFn) -> (BFn, SFn) {
        let slot = b.slot;
        let g = self.bexpr(guard);
        let filter = b.filter.as_ref().map(|f| self.bexpr(f));
        let find = self.over(&b.coll, move |e, items| {
            for q in items {
                e.locals[slot].set(q);
                if filter.as_ref().map_or(Ok(true), |f| f(e))? && g(e)? {
                    return Ok(true);
                }
            }
            Ok(false)
        });
        // The guard and the statement share the search.
        let find: Arc<AnyFn<bool>> = Arc::new(find);
        let find2 = find.clone();
        let guard: BFn = Box::new(move |e| find2(e));
        let body: SFn = Box::new(move |e| if find(e)? { body(e) } else { Ok(()) });
        (guard, body)
    }

    /// `receive m(x) from q and G`: enabled when some channel into the
    /// process has an `m` at its head for which G holds; of several, the
    /// oldest message is taken.
    fn receive_action(
        &self,
        r: &(usize, usize, Vec<usize>),
        guard: &BExpr,
        body: SFn,
    ) -> (BFn, SFn) {
        let (kind, from, fields) = (r.0 as u16, r.1, r.2.clone());
        let g = self.bexpr(guard);
        // Binds the chosen sender and fields; true when one qualifies.
        let find = move |e: &Env| -> Res<bool> {
            let mut best: Option<(u64, usize)> = None;
            for &s in e.topo.readers(e.me) {
                let s = s as usize;
                let Some(head) = e.chans.between(e.topo, s, e.me).and_then(|c| c.front()) else {
                    continue;
                };
                if head.kind != kind || best.is_some_and(|(seq, _)| seq < head.seq) {
                    continue;
                }
                e.locals[from].set(s as i64);
                for (slot, v) in fields.iter().zip(head.fields) {
                    e.locals[*slot].set(v);
                }
                if g(e)? {
                    best = Some((head.seq, s));
                }
            }
            let Some((_, s)) = best else { return Ok(false) };
            let head = e
                .chans
                .between(e.topo, s, e.me)
                .and_then(|c| c.front())
                .expect("found above");
            e.locals[from].set(s as i64);
            for (slot, v) in fields.iter().zip(head.fields) {
                e.locals[*slot].set(v);
            }
            Ok(true)
        };
        let find = Arc::new(find);
        let find2 = find.clone();
        let guard: BFn = Box::new(move |e| find(e));
        let body: SFn = Box::new(move |e| {
            if find2(e)? {
                e.fx.received.set(Some(e.locals[from].get() as usize));
                body(e)
            } else {
                Ok(())
            }
        });
        (guard, body)
    }

    /// A read of slot `slot` of the process `p` denotes.
    /// `e` as a plain read a fused closure can make without calls: a
    /// constant, the number of enabled processes, or in a guard an own
    /// variable or, on a ring, the left neighbour's.
    fn plain(&self, e: &IExpr) -> Option<Plain> {
        if let Some(c) = const_eval(e, &self.params, self.n) {
            return Some(Plain::Const(c));
        }
        if let IExpr::Count(slot, Coll::Procs, body) = e {
            if matches!(&**body, BExpr::Enabled(Proc::Local(s)) if s == slot) {
                return Some(Plain::EnabledCount);
            }
        }
        let IExpr::Var(p, v) = e else { return None };
        if self.in_stmt || self.prog.vars[*v].len.is_some() || self.per_nbr[*v] {
            return None;
        }
        match p {
            Proc::Me => Some(Plain::Own(self.offsets[*v])),
            Proc::Left(_) if self.regular_ring => {
                Some(Plain::Left(self.offsets[*v], self.n.n as usize))
            }
            _ => None,
        }
    }

    fn read(&self, p: &Proc, slot: usize) -> IFn {
        let stride = self.stride;
        match p {
            Proc::Me if self.in_stmt => Box::new(move |e| Ok(e.scratch[slot].get())),
            Proc::Me => Box::new(move |e| Ok(e.state[e.me * stride + slot])),
            // On a ring the left neighbour is computed, not looked up.
            Proc::Left(_) if !self.in_stmt && self.regular_ring => Box::new(move |e| {
                let q = if e.me == 0 { e.topo.n() - 1 } else { e.me - 1 };
                Ok(e.state[q * stride + slot])
            }),
            // In a statement the left neighbour is the process itself only
            // on a ring of one, whose own row is the one being written.
            Proc::Left(_) if self.regular_ring => Box::new(move |e| {
                let q = if e.me == 0 { e.topo.n() - 1 } else { e.me - 1 };
                Ok(if q == e.me {
                    e.scratch[slot].get()
                } else {
                    e.state[q * stride + slot]
                })
            }),
            Proc::Left(span) if !self.in_stmt => {
                let span = *span;
                Box::new(move |e| {
                    let q = e.topo.left[e.me];
                    if q == NONE {
                        return no_neighbour(span, "left", e.me);
                    }
                    Ok(e.state[q as usize * stride + slot])
                })
            }
            _ => {
                let proc = self.proc(p);
                if self.in_stmt {
                    Box::new(move |e| {
                        let q = proc(e)?;
                        Ok(if q == e.me {
                            e.scratch[slot].get()
                        } else {
                            e.state[q * stride + slot]
                        })
                    })
                } else {
                    Box::new(move |e| Ok(e.state[proc(e)? * stride + slot]))
                }
            }
        }
    }

    fn proc(&self, p: &Proc) -> PFn {
        match p {
            Proc::Me => Box::new(|e| Ok(e.me)),
            // On a ring neighbours are computed, not looked up.
            Proc::Left(_) if self.regular_ring => {
                Box::new(|e| Ok(if e.me == 0 { e.topo.n() - 1 } else { e.me - 1 }))
            }
            Proc::Right(span) if self.regular_ring => {
                let span = *span;
                Box::new(move |e| {
                    if e.topo.has_right {
                        Ok(if e.me + 1 == e.topo.n() { 0 } else { e.me + 1 })
                    } else {
                        no_neighbour(span, "right", e.me)
                    }
                })
            }
            Proc::Left(span) | Proc::Right(span) => {
                let span = *span;
                let left = matches!(p, Proc::Left(_));
                Box::new(move |e| {
                    let q = if left {
                        e.topo.left[e.me]
                    } else {
                        e.topo.right[e.me]
                    };
                    if q == NONE {
                        return no_neighbour(span, if left { "left" } else { "right" }, e.me);
                    }
                    Ok(q as usize)
                })
            }
            Proc::Local(slot) => {
                let slot = *slot;
                Box::new(move |e| Ok(e.locals[slot].get() as usize))
            }
            Proc::Through(var) => {
                let own = self.read(&Proc::Me, self.offsets[*var]);
                Box::new(move |e| Ok(own(e)? as usize))
            }
            Proc::At(expr, span) => {
                let (f, span) = (self.iexpr(expr), *span);
                Box::new(move |e| {
                    let q = f(e)?;
                    if q < 0 || q as usize >= e.topo.n() {
                        return fault(
                            span,
                            format!("{q} is not a process"),
                            "node values are process indices",
                        );
                    }
                    Ok(q as usize)
                })
            }
            Proc::TreeParent(_) => Box::new(|e| {
                let p = e.topo.parent[e.me];
                Ok(if p == NONE { e.me } else { p as usize })
            }),
            Proc::Via(expr, span) => {
                let f = self.iexpr(expr);
                let span = *span;
                Box::new(move |e| {
                    let q = f(e)?;
                    if q < 0 || q as usize >= e.topo.n() || !e.topo.is_self_or_nbr(e.me, q as usize)
                    {
                        return fault(
                            span,
                            format!("process {} reads process {q}, which is not a neighbour", e.me),
                            "a process reads only itself and its neighbours; guard the read, e.g. `q.parent == self and q.parent.x ...`",
                        );
                    }
                    Ok(q as usize)
                })
            }
        }
    }

    fn iexpr(&self, x: &IExpr) -> IFn {
        if let Some(c) = const_eval(x, &self.params, self.n) {
            return Box::new(move |_| Ok(c));
        }
        if let Some(topo) = self.topo {
            if matches!(x, IExpr::Best(_) | IExpr::Let(..)) && ir::state_free(x) {
                let f = Compiler {
                    topo: None,
                    ..self.clone()
                }
                .iexpr(x);
                let locals = vec![Cell::new(0); self.prog.max_locals];
                let (chans, fx) = (Channels::default(), Effects::default());
                let env = Env {
                    state: &[],
                    me: 0,
                    scratch: &[],
                    topo,
                    locals: &locals,
                    enabled: &NoneEnabled,
                    enabled_count: 0,
                    chans: &chans,
                    fx: &fx,
                };
                // A fault (an empty set) is left to happen when evaluated.
                if let Ok(c) = f(&env) {
                    return Box::new(move |_| Ok(c));
                }
                return f;
            }
        }
        match x {
            IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg => {
                unreachable!("constants fold above")
            }
            IExpr::Var(p, v) => self.read(p, self.offsets[*v]),
            IExpr::Elem(p, v, i, span) => self.elem(p, *v, i, *span),
            IExpr::Local(slot) => {
                let slot = *slot;
                Box::new(move |e| Ok(e.locals[slot].get()))
            }
            IExpr::Index(p) | IExpr::NodeOf(p) => {
                let f = self.proc(p);
                Box::new(move |e| Ok(f(e)? as i64))
            }
            IExpr::Id(p) => {
                let f = self.proc(p);
                Box::new(move |e| Ok(e.topo.ids[f(e)?]))
            }
            IExpr::Neg(a, span) | IExpr::Abs(a, span) => {
                let neg = matches!(x, IExpr::Neg(..));
                let (f, span) = (self.iexpr(a), *span);
                Box::new(move |e| {
                    let v = f(e)?;
                    let r = if neg { ir::negate(v) } else { ir::absolute(v) };
                    r.map_or_else(|| overflow(span), Ok)
                })
            }
            IExpr::Arith(op, a, b, span) => {
                let (op, span) = (*op, *span);
                let (fa, fb) = (self.iexpr(a), self.iexpr(b));
                match op {
                    // The common cases, without the general overflow dispatch.
                    Arith::Add => Box::new(move |e| {
                        Arith::Add
                            .apply(fa(e)?, fb(e)?)
                            .map_or_else(|| overflow(span), Ok)
                    }),
                    Arith::Sub => Box::new(move |e| {
                        Arith::Sub
                            .apply(fa(e)?, fb(e)?)
                            .map_or_else(|| overflow(span), Ok)
                    }),
                    _ => Box::new(move |e| {
                        let (x, y) = (fa(e)?, fb(e)?);
                        if y == 0 && matches!(op, Arith::Div | Arith::Mod) {
                            return fault(
                                span,
                                format!(
                                    "division by zero ({x} {} 0)",
                                    if op == Arith::Div { "/" } else { "mod" }
                                ),
                                "guard the action so the divisor cannot be 0",
                            );
                        }
                        op.apply(x, y).map_or_else(|| overflow(span), Ok)
                    }),
                }
            }
            // The runtime keeps the enabled set, so this count is free.
            IExpr::Count(slot, Coll::Procs, body) if matches!(&**body, BExpr::Enabled(Proc::Local(s)) if s == slot) => {
                Box::new(|e| Ok(e.enabled_count as i64))
            }
            IExpr::Count(slot, coll, body) => {
                let slot = *slot;
                let body = self.bexpr(body);
                self.over(coll, move |e, items| {
                    let mut k = 0;
                    for q in items {
                        e.locals[slot].set(q);
                        k += i64::from(body(e)?);
                    }
                    Ok(k)
                })
            }
            IExpr::Best(b) => self.best(b),
            IExpr::FromBool(b) => {
                let f = self.bexpr(b);
                Box::new(move |e| f(e).map(i64::from))
            }
            IExpr::Msgs(p, q, kind, span) => {
                let (fp, fq, kind, span) =
                    (self.proc(p), self.proc(q), kind.map(|k| k as u16), *span);
                Box::new(move |e| {
                    let (p, q) = (fp(e)?, fq(e)?);
                    match e.chans.between(e.topo, p, q) {
                        Some(c) => Ok(c.iter().filter(|m| kind.is_none_or(|k| m.kind == k)).count() as i64),
                        None if e.topo.arc(p, q).is_none() => fault(
                            span,
                            format!("processes {p} and {q} are not neighbours: there is no channel from {p} to {q}"),
                            "channels join a process to its neighbours",
                        ),
                        None => Ok(0),
                    }
                })
            }
            IExpr::Let(slot, value, body) => {
                let slot = *slot;
                let (fv, fb) = (self.iexpr(value), self.iexpr(body));
                Box::new(move |e| {
                    let v = fv(e)?;
                    e.locals[slot].set(v);
                    fb(e)
                })
            }
        }
    }

    /// `argmin`/`argmax`: the member with the best keys; ties go to the
    /// member with the smallest id (integers: the smallest).
    fn best(&self, b: &ir::Best) -> IFn {
        const MAX_KEYS: usize = 8;
        let slot = b.slot;
        let filter = b.filter.as_ref().map(|f| self.bexpr(f));
        let keys: Vec<IFn> = b
            .keys
            .iter()
            .take(MAX_KEYS)
            .map(|k| self.iexpr(k))
            .collect();
        let (max, span) = (b.max, b.span);
        let nodes = !matches!(b.coll, Coll::Range(..));
        self.over(&b.coll, move |e, items| {
            let mut best: Option<i64> = None;
            let mut best_keys = [0i64; MAX_KEYS];
            let mut cur = [0i64; MAX_KEYS];
            for q in items {
                e.locals[slot].set(q);
                if let Some(f) = &filter {
                    if !f(e)? {
                        continue;
                    }
                }
                for (c, k) in cur.iter_mut().zip(&keys) {
                    *c = k(e)?;
                }
                let n = keys.len();
                let better = match best {
                    None => true,
                    Some(b) => {
                        let ord = cur[..n].cmp(&best_keys[..n]);
                        let ord = if max { ord.reverse() } else { ord };
                        match ord {
                            std::cmp::Ordering::Less => true,
                            std::cmp::Ordering::Greater => false,
                            std::cmp::Ordering::Equal => {
                                nodes && e.topo.ids[q as usize] < e.topo.ids[b as usize]
                            }
                        }
                    }
                };
                if better {
                    best = Some(q);
                    best_keys[..n].copy_from_slice(&cur[..n]);
                }
            }
            best.map_or_else(
                || {
                    fault(
                        span,
                        "no member to choose from".into(),
                        "the collection (after its filter) is empty here; guard the use, e.g. with `exists(q in S : true)`",
                    )
                },
                Ok,
            )
        })
    }

    /// Builds a closure that runs `f` over the members of a collection.
    fn over<T: 'static>(
        &self,
        coll: &Coll,
        f: impl Fn(&Env, &mut dyn Iterator<Item = i64>) -> Res<T> + Send + Sync + 'static,
    ) -> AnyFn<T> {
        match coll {
            Coll::Procs => Box::new(move |e| f(e, &mut (0..e.topo.n() as i64))),
            Coll::NbrsOf(p) => {
                let p = self.proc(p);
                Box::new(move |e| {
                    let q = p(e)?;
                    f(e, &mut e.topo.nbrs(q).iter().map(|&x| x as i64))
                })
            }
            Coll::Range(lo, hi) => {
                let (lo, hi) = (self.iexpr(lo), self.iexpr(hi));
                Box::new(move |e| {
                    let (lo, hi) = (lo(e)?, hi(e)?);
                    f(e, &mut (lo..=hi))
                })
            }
        }
    }

    fn bexpr(&self, x: &BExpr) -> BFn {
        match x {
            BExpr::Const(b) => {
                let b = *b;
                Box::new(move |_| Ok(b))
            }
            BExpr::Var(p, v) => {
                let f = self.read(p, self.offsets[*v]);
                Box::new(move |e| Ok(f(e)? != 0))
            }
            BExpr::Elem(p, v, i, span) => {
                let f = self.elem(p, *v, i, *span);
                Box::new(move |e| Ok(f(e)? != 0))
            }
            BExpr::ArrayEq(eq, pa, va, pb, vb, span) => {
                self.same_length(*va, *vb, *span);
                let eq = *eq;
                let len = self.lens[*va].min(self.lens[*vb]);
                let (oa, ob) = (self.offsets[*va], self.offsets[*vb]);
                let (fa, fb) = (self.proc(pa), self.proc(pb));
                let (stride, in_stmt) = (self.stride, self.in_stmt);
                Box::new(move |e| {
                    let (qa, qb) = (fa(e)?, fb(e)?);
                    let get = |q: usize, s: usize| {
                        if in_stmt && q == e.me {
                            e.scratch[s].get()
                        } else {
                            e.state[q * stride + s]
                        }
                    };
                    let same = (0..len).all(|i| get(qa, oa + i) == get(qb, ob + i));
                    Ok(same == eq)
                })
            }
            BExpr::Not(a) => {
                let f = self.bexpr(a);
                Box::new(move |e| Ok(!f(e)?))
            }
            BExpr::And(a, b) => {
                let (fa, fb) = (self.bexpr(a), self.bexpr(b));
                Box::new(move |e| Ok(fa(e)? && fb(e)?))
            }
            BExpr::Or(a, b) => {
                let (fa, fb) = (self.bexpr(a), self.bexpr(b));
                Box::new(move |e| Ok(fa(e)? || fb(e)?))
            }
            BExpr::Implies(a, b) => {
                let (fa, fb) = (self.bexpr(a), self.bexpr(b));
                Box::new(move |e| Ok(!fa(e)? || fb(e)?))
            }
            BExpr::BoolEq(eq, a, b) => {
                let (eq, fa, fb) = (*eq, self.bexpr(a), self.bexpr(b));
                Box::new(move |e| Ok((fa(e)? == fb(e)?) == eq))
            }
            BExpr::Cmp(op, a, b) => {
                // Two plain reads (the commonest guard): one closure, not three.
                if let (Some(pa), Some(pb)) = (self.plain(a), self.plain(b)) {
                    return fused_cmp(*op, pa, pb, self.stride);
                }
                let (fa, fb) = (self.iexpr(a), self.iexpr(b));
                ir::specialize_cmp!(*op, OP => Box::new(move |e| Ok(OP.holds(fa(e)?, fb(e)?))))
            }
            BExpr::Forall(slot, coll, body) | BExpr::Exists(slot, coll, body) => {
                let slot = *slot;
                let want = matches!(x, BExpr::Exists(..));
                let body = self.bexpr(body);
                self.over(coll, move |e, items| {
                    for q in items {
                        e.locals[slot].set(q);
                        if body(e)? == want {
                            return Ok(want);
                        }
                    }
                    Ok(!want)
                })
            }
            BExpr::Enabled(p) => {
                let f = self.proc(p);
                Box::new(move |e| Ok(e.enabled.is_enabled(f(e)?)))
            }
            BExpr::Acyclic(sa, sb, pred) => {
                let (sa, sb) = (*sa, *sb);
                let pred = self.bexpr(pred);
                Box::new(move |e| {
                    // Iterative depth-first search; 1 = on the stack, 2 = done.
                    let n = e.topo.n();
                    let mut mark = vec![0u8; n];
                    for root in 0..n {
                        if mark[root] != 0 {
                            continue;
                        }
                        let mut stack = vec![(root, 0usize)];
                        mark[root] = 1;
                        while let Some(&mut (p, ref mut k)) = stack.last_mut() {
                            let nb = e.topo.nbrs(p);
                            if *k == nb.len() {
                                mark[p] = 2;
                                stack.pop();
                                continue;
                            }
                            let q = nb[*k] as usize;
                            *k += 1;
                            e.locals[sa].set(p as i64);
                            e.locals[sb].set(q as i64);
                            if !pred(e)? {
                                continue;
                            }
                            match mark[q] {
                                1 => return Ok(false),
                                0 => {
                                    mark[q] = 1;
                                    stack.push((q, 0));
                                }
                                _ => {}
                            }
                        }
                    }
                    Ok(true)
                })
            }
        }
    }

    fn stmt(&self, s: &ir::Stmt) -> SFn {
        match s {
            ir::Stmt::Skip => Box::new(|_| Ok(())),
            ir::Stmt::Seq(v) => {
                let fs: Vec<SFn> = v.iter().map(|s| self.stmt(s)).collect();
                Box::new(move |e| fs.iter().try_for_each(|f| f(e)))
            }
            ir::Stmt::If(c, a, b) => {
                let (fc, fa, fb) = (self.bexpr(c), self.stmt(a), self.stmt(b));
                Box::new(move |e| if fc(e)? { fa(e) } else { fb(e) })
            }
            ir::Stmt::For(b, body) => {
                let slot = b.slot;
                let filter = b.filter.as_ref().map(|f| self.bexpr(f));
                let body = self.stmt(body);
                self.over(&b.coll, move |e, items| {
                    for i in items {
                        e.locals[slot].set(i);
                        if filter.as_ref().map_or(Ok(true), |f| f(e))? {
                            body(e)?;
                        }
                    }
                    Ok(())
                })
            }
            ir::Stmt::Send(kind, values, to, span) => {
                let kind = *kind as u16;
                let span = *span;
                let fields: Vec<IFn> = values
                    .iter()
                    .map(|v| match v {
                        Value::Int(x) => self.iexpr(x),
                        Value::Bool(b) => {
                            let f = self.bexpr(b);
                            Box::new(move |e: &Env| f(e).map(i64::from)) as IFn
                        }
                        Value::Array(..) => unreachable!("the checker types fields as scalars"),
                    })
                    .collect();
                let to = self.iexpr(to);
                Box::new(move |e| {
                    let q = to(e)?;
                    if usize::try_from(q)
                        .ok()
                        .and_then(|q| e.topo.arc(e.me, q))
                        .is_none()
                    {
                        return fault(
                            span,
                            format!(
                                "process {} sends to process {q}, which is not a neighbour",
                                e.me
                            ),
                            "messages go to neighbours",
                        );
                    }
                    let mut m = [0i64; MAX_FIELDS];
                    for (slot, f) in m.iter_mut().zip(&fields) {
                        *slot = f(e)?;
                    }
                    e.fx.sends.borrow_mut().push((q as usize, kind, m, span));
                    Ok(())
                })
            }
            ir::Stmt::Assign(targets, values) => self.assign(targets, values),
        }
    }

    fn assign(&self, targets: &[ir::Target], values: &[Value]) -> SFn {
        /// One target: where it writes and what.
        enum Write {
            /// A scalar or an element at a known slot.
            Slot(usize, IFn, CheckFn),
            /// An element at a computed slot.
            At(IFn, IFn, CheckFn),
            /// A whole array copied from an array at the process `PFn` names.
            Array(usize, usize, PFn, usize),
            /// An edge variable: the variable, the other end, the value; it
            /// lands in this process's slot for that neighbour and at the other end.
            Edge(usize, IFn, IFn, IFn, CheckFn, Span),
        }
        let writes: Vec<Write> = targets
            .iter()
            .zip(values)
            .map(|(t, val)| {
                let check = self.domain_check(t.var, t.span);
                let f: IFn = match val {
                    Value::Int(x) => self.iexpr(x),
                    Value::Bool(b) => {
                        let f = self.bexpr(b);
                        Box::new(move |e| f(e).map(i64::from))
                    }
                    Value::Array(p, src) => {
                        return Write::Array(
                            self.offsets[t.var],
                            self.lens[t.var].min(self.lens[*src]),
                            self.proc(p),
                            self.offsets[*src],
                        )
                    }
                };
                let edge = self.prog.vars[t.var].kind == crate::check::ir::VarKind::Edge;
                match &t.index {
                    None => Write::Slot(self.offsets[t.var], f, check),
                    Some(i) if edge => Write::Edge(
                        t.var,
                        self.iexpr(i),
                        self.my_nbr_slot(t.var, i, t.span),
                        f,
                        check,
                        t.span,
                    ),
                    Some(i) if self.per_nbr[t.var] => {
                        Write::At(self.my_nbr_slot(t.var, i, t.span), f, check)
                    }
                    Some(i) => match self.element(t.var, i, t.span) {
                        Ok(slot) => Write::Slot(slot, f, check),
                        Err(slot) => Write::At(slot, f, check),
                    },
                }
            })
            .collect();
        // The common case, one plain write, without the buffer; without
        // the check when the value is a read of a variable whose domain
        // lies within the target's.
        if writes.len() == 1 && matches!(writes[0], Write::Slot(..)) {
            let Some(Write::Slot(slot, f, check)) = writes.into_iter().next() else {
                unreachable!("matched above")
            };
            let within = match (&values[0], &self.domains[targets[0].var]) {
                (Value::Int(IExpr::Var(_, w)), VarDomain::Range(lo, hi)) => {
                    matches!(self.domains[*w], VarDomain::Range(l, h) if *lo <= l && h <= *hi)
                }
                (_, VarDomain::Bool | VarDomain::Enum(_)) => true,
                _ => false,
            };
            if within {
                return Box::new(move |e| {
                    e.scratch[slot].set(f(e)?);
                    Ok(())
                });
            }
            return Box::new(move |e| {
                let v = f(e)?;
                check(e, v)?;
                e.scratch[slot].set(v);
                Ok(())
            });
        }
        let stride = self.stride;
        // Every right-hand side and index is evaluated before anything is written.
        Box::new(move |e| {
            let mut small = [(0usize, 0i64); 16];
            let mut big = Vec::new();
            let mut k = 0;
            let mut push = |slot: usize, v: i64| {
                if k < small.len() {
                    small[k] = (slot, v);
                } else {
                    if big.is_empty() {
                        big.extend_from_slice(&small);
                    }
                    big.push((slot, v));
                }
                k += 1;
            };
            for w in &writes {
                match w {
                    Write::Slot(slot, f, check) => {
                        let v = f(e)?;
                        check(e, v)?;
                        push(*slot, v);
                    }
                    Write::At(slot, f, check) => {
                        let s = slot(e)? as usize;
                        let v = f(e)?;
                        check(e, v)?;
                        push(s, v);
                    }
                    Write::Edge(var, q, slot, f, check, span) => {
                        let s = slot(e)? as usize;
                        let v = f(e)?;
                        check(e, v)?;
                        push(s, v);
                        e.fx.edge_writes
                            .borrow_mut()
                            .push((q(e)? as usize, *var, v, *span));
                    }
                    Write::Array(dst, len, p, src) => {
                        let q = p(e)?;
                        for i in 0..*len {
                            let v = if q == e.me {
                                e.scratch[src + i].get()
                            } else {
                                e.state[q * stride + src + i]
                            };
                            push(dst + i, v);
                        }
                    }
                }
            }
            let done: &[(usize, i64)] = if k <= small.len() { &small[..k] } else { &big };
            for &(slot, v) in done {
                e.scratch[slot].set(v);
            }
            Ok(())
        })
    }

    fn domain_check(&self, var: usize, span: Span) -> CheckFn {
        let name = self.prog.vars[var].name.clone();
        match self.domains[var].clone() {
            VarDomain::Bool | VarDomain::Enum(_) => Box::new(|_, _| Ok(())),
            VarDomain::Range(lo, hi) => Box::new(move |_, v| {
                if (lo..=hi).contains(&v) {
                    Ok(())
                } else {
                    fault(
                        span,
                        format!("`{name}` := {v} is outside its domain {lo}..{hi}"),
                        "the statement must keep every variable in its declared domain",
                    )
                }
            }),
            VarDomain::Node => Box::new(move |e, v| {
                if v >= 0 && (v as usize) < e.topo.n() && e.topo.is_self_or_nbr(e.me, v as usize) {
                    Ok(())
                } else {
                    fault(span, format!("`{name}` := {v}, which is neither process {} nor one of its neighbours", e.me), "a node variable may only name its own process or a neighbour")
                }
            }),
        }
    }
}

fn overflow<T>(span: Span) -> Res<T> {
    fault(
        span,
        "arithmetic overflow".into(),
        "values are 64-bit integers",
    )
}

fn no_neighbour<T>(span: Span, word: &str, me: usize) -> Res<T> {
    fault(
        span,
        format!("process {me} has no `{word}` neighbour"),
        "the ends of a chain have no `left`/`right` and a `uring` has no `right`: run it on a ring, or guard the read",
    )
}
