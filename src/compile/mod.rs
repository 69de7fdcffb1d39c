//! Phase 3, compilation: instantiates a checked program on a topology
//! (parameters, domains, priorities and roles become constants) and turns
//! every guard, statement and predicate into closures over the flat
//! configuration. Nothing walks the IR at run time.

pub mod by_process;
mod closures;
mod env;
pub use closures::{boolean, AnyFn, BFn, Fault, Holds, IFn, Res, SFn, Truth};
use closures::{fault, CheckFn, PFn};
pub use env::{Draws, Effects, Enabledness, Env, NoneEnabled};
pub mod columns;
mod expr;
mod faults;
mod fused;
mod inline;
pub use inline::{InlineAssign, InlineGuard};
mod instantiate;
mod junction;
mod layout;
mod member_tuples;
mod narrow;
pub use layout::{every_slot, slot_bit};
mod overlaps;
pub use overlaps::overlapping_actions;
mod predicates;
mod quantifiers;
mod reads;
mod role_map;
mod shared;
mod slot_readers;
pub use role_map::RoleMap;
pub use slot_readers::SlotReaders;
mod stmt;
mod tuples;
pub use predicates::{CInvariant, CProperty, LegitPart};

use fused::{fused_cmp, fused_offset, fused_read, fused_via, Plain};
pub use instantiate::instantiate;
use junction::Junction;

use crate::check::ir::{self, Arith, BExpr, Cmp, Coll, Domain, IExpr, Proc, Value};
use crate::diagnostic::Problem;
use crate::span::Span;
use crate::state::channels::{Channels, MAX_FIELDS};
use crate::topology::{Topology, NONE};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

/// The chosen action of a process with no enabled action.
pub const NO_ACTION: u16 = u16::MAX;

/// The most values a quantifier or `for` loop over a range goes through in
/// one evaluation: past it the evaluation is a runtime error, not a hang.
pub const MAX_RANGE: i64 = 10_000_000;

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
            VarDomain::Node => topo.nbr_count(me) as u128 + 1,
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
    /// The slots of a row its guard reads, at its own process and at
    /// others (bit `k` for slot `k`, slots from 63 on sharing bit 63): the
    /// bookkeeping after a step leaves alone the guards that read nothing
    /// the step changed.
    pub guard_reads: crate::check::ir::GuardReads,
    /// The slots of its own row its statement may write (bits as in
    /// `guard_reads`).
    pub writes: u64,
    /// For `receive ... from q`: the local slot the guard binds the sender
    /// to (the channel whose head it would take).
    pub receive_from: Option<usize>,
    /// For `for q in C`: the members the action may run for.
    pub binder: Option<CBinder>,
    /// Whether its statement draws at random.
    pub draws: bool,
    /// Whether a move of it by one process alone (every other standing
    /// still) leaves that process with no enabled action: it is its
    /// role's only action and its move leaves its guard false (`x != E
    /// -> x := E`, see [`crate::check::ir::disables_itself`]). The
    /// central daemon's steps then do not evaluate the mover's guard
    /// again.
    pub disables_mover: bool,
    /// Its place among every role's actions (roles in order, each's in
    /// compiled order): where a run counts its moves.
    pub place: u32,
    /// Its guard, where a run loop can evaluate it itself (see
    /// [`InlineGuard`]); only for an action with no binder and no
    /// `receive`.
    pub inline_guard: Option<InlineGuard>,
    /// Its statement, where a run loop can make its move itself (see
    /// [`InlineAssign`]); only for an action with no binder and no
    /// `receive`.
    pub inline_assign: Option<InlineAssign>,
}

/// The binder of an action `for q in C`: which members enable it, and its
/// statement for a member of the caller's choice.
pub struct CBinder {
    /// The local slot the member is bound to.
    pub slot: usize,
    /// Every member for which the collection's filter and the guard hold,
    /// in the collection's order.
    pub members: AnyFn<Vec<i64>>,
    /// The statement, for the member the caller put in `slot`.
    pub body: SFn,
}

/// A compiled role: its actions sorted by priority, program order kept among equals.
pub struct CRole {
    /// Actions, most urgent first.
    pub actions: Vec<CAction>,
    /// Whether a process of this role may choose between moves in some
    /// configuration: two actions of one priority whose guards are not
    /// proved exclusive (receives of one priority aside: the oldest message
    /// decides among them), or a binder with more than one possible member.
    /// Where no role may, and none draws, every mover's first enabled
    /// action is its only move.
    pub may_choose: bool,
    /// The pairs of actions (indices into `actions`) of one priority that
    /// may be enabled together: their guards are not proved exclusive.
    pub overlaps: Vec<(u32, u32)>,
    /// Whether a step leaves alone the guards of its processes that read
    /// nothing the step changed: where some guard that costs more than a
    /// read or two reads at other processes nothing some action writes,
    /// in a role of at most 64 actions.
    pub leaves_guards_alone: bool,
    /// Where it leaves guards alone (and has at most 64 actions): which
    /// guards read each slot.
    pub slot_readers: Option<Box<SlotReaders>>,
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
    /// Whether a statement draws at random (`random(...)`).
    pub has_random: bool,
    /// Whether some action runs for a member of a binder (`for q in C`):
    /// then a step records the member each mover ran for.
    pub has_binders: bool,
    /// Timers: first slot, slots, the value they stop at.
    pub timers: Vec<(usize, usize, i64)>,
    /// The channel capacity, when the program passes messages.
    pub capacity: Option<usize>,
    /// `delay lo..hi`: the program runs in ticks, and a message arrives
    /// lo to hi ticks after it is sent.
    pub delay: Option<(u16, u16)>,
    /// How many messages a random configuration puts in each channel.
    pub random_fill: (usize, usize),
    /// Each message type's field domains.
    pub message_domains: Vec<Vec<VarDomain>>,
    /// Parameter values, in declaration order.
    pub params: Vec<(String, i64)>,
    /// The roles.
    pub roles: Vec<CRole>,
    /// The slot whose value at a step's one mover, before and after the
    /// step, tells its neighbours whether their guards' reads under a
    /// test of it count ([`SlotReaders::under`], the same in every role).
    pub under_slot: Option<usize>,
    /// Each process's role.
    pub role_of: RoleMap,
    /// Domains by slot (an array's elements share its element domain).
    pub domains: Vec<VarDomain>,
    /// What arbitrary (random) configurations draw each slot from: the
    /// domain, or a declared `random lo..hi` within it.
    pub arbitrary: Vec<VarDomain>,
    /// Declared initial values by variable (every element of an array gets
    /// it); evaluated with `me` set and no state.
    pub inits: Vec<Option<IFn>>,
    /// Variables declared in a role: per process of another role, the
    /// declared value it keeps (see [`Compiled::fixed_at`]).
    pub fixed: Vec<Option<Vec<Option<i64>>>>,
    /// The legitimacy predicate.
    pub legitimate: Option<BFn>,
    /// Whether it reads a timer (else rounds that only advance timers leave it be).
    pub legitimate_reads_timers: bool,
    /// The slots of a row it reads, at any process (bits as in
    /// [`CAction::writes`]): a step whose movers' actions write none of
    /// them leaves its value as it was. `None` where it reads more than
    /// rows (messages, enabled processes) or a step changes more than its
    /// movers' rows (messages, edge variables).
    pub legit_slots: Option<u64>,
    /// The legitimacy predicate split into conjuncts, when some can be kept
    /// up to date from the processes a step affects; empty otherwise.
    pub legit_parts: Vec<LegitPart>,
    /// The legitimacy predicate taken apart by process, for the symbolic
    /// verifier, when it can be ([`by_process::ByProcess`]).
    pub legit_by_process: Option<by_process::ByProcess>,
    /// The legitimacy predicate when it is `count(p in procs : enabled(p))
    /// CMP k`: the runtime decides it from the enabled set's size alone.
    pub legit_enabled_count: Option<(Cmp, i64)>,
    /// The invariants.
    pub invariants: Vec<CInvariant>,
    /// The properties of runs.
    pub properties: Vec<CProperty>,
    /// The reports, by name.
    pub reports: Vec<(String, GlobalFn)>,
    /// Size of the quantifier-variable frame.
    pub max_locals: usize,
    /// The column form the synchronous daemon runs, when every action has one.
    pub columns: Option<columns::ColumnCode>,
}

impl Compiled {
    /// Whether some process may choose between actions or binder members
    /// (see [`CRole::may_choose`]).
    pub fn may_choose(&self) -> bool {
        self.roles.iter().any(|r| r.may_choose)
    }

    /// Whether some process may have more than one move: it may choose,
    /// or its action draws (each value drawn is a move of its own).
    pub fn may_move_several_ways(&self) -> bool {
        self.has_random || self.may_choose()
    }

    /// The local slot that holds the member process `p`'s action `a` runs
    /// for, when the action has a binder (`for q in C`).
    pub fn binder_slot(&self, p: usize, a: u32) -> Option<usize> {
        let role = &self.roles[self.role_of.of(p)];
        role.actions[a as usize].binder.as_ref().map(|b| b.slot)
    }

    /// The value variable `v` keeps at process `p`, when `v` belongs to a
    /// role `p` is not in.
    pub fn fixed_at(&self, v: usize, p: usize) -> Option<i64> {
        self.fixed[v].as_ref().and_then(|per| per[p])
    }

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

    /// A row's values as traces print them, one per variable: `x=3`.
    pub fn value_texts(
        &self,
        prog: &ir::Program,
        topo: &Topology,
        p: usize,
        row: &[i64],
    ) -> Vec<String> {
        // Neighbours are asked for only where a value is kept per
        // neighbour: a ring makes its rows on demand.
        let nbrs = match self.per_nbr.contains(&true) {
            true => topo.nbrs(p),
            false => &[],
        };
        (0..prog.vars.len())
            .map(|v| {
                format!(
                    "{}={}",
                    prog.vars[v].name,
                    self.show_var(prog, nbrs, v, row)
                )
            })
            .collect()
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

/// Compiles an expression checked by [`crate::check::check_global_expr`],
/// [`crate::check::check_shown_expr`] or [`crate::check::check_in_action`]
/// for the instance `code` was built for; evaluate it with
/// `Simulation::eval_global`, `Simulation::eval_at` or `Simulation::eval_in`.
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
        message_domains: code.message_domains.clone(),
        problems: Rc::new(RefCell::new(Vec::new())),
        shared: Rc::from([]),
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
    /// Each message type's field domains, which a `send` keeps to.
    message_domains: Vec<Vec<VarDomain>>,
    /// Problems found while compiling (constant indices out of range).
    problems: Rc<RefCell<Vec<Problem>>>,
    /// The subexpressions read from [`Effects::shared`]: those the
    /// assignment being compiled shares; none elsewhere.
    shared: Rc<[shared::Shared]>,
}

fn overflow<T>(span: Span) -> Res<T> {
    fault(
        span,
        "arithmetic overflow".into(),
        "values are 64-bit integers",
    )
}

/// Process `me` read through a node value `q` that names neither it nor
/// a neighbour (`q.parent.x` where `q.parent` is two hops away).
fn not_a_neighbour<T>(span: Span, me: usize, q: i64) -> Res<T> {
    fault(
        span,
        format!("process {me} reads process {q}, which is not a neighbour"),
        "a process reads only itself and its neighbours; guard the read, e.g. `q.parent == self and q.parent.x ...`",
    )
}

/// Row `slot` of process `q`, read by `e.me` through a node value: a
/// fault at `span` unless `q` is it or a neighbour.
#[inline(always)]
fn read_through_value(e: &Env, q: i64, slot: usize, stride: usize, span: Span) -> Res<i64> {
    if q < 0 || q as usize >= e.topo.n() || !e.topo.is_self_or_nbr(e.me, q as usize) {
        return not_a_neighbour(span, e.me, q);
    }
    Ok(e.state[q as usize * stride + slot])
}

fn no_neighbour<T>(span: Span, word: &str, me: usize) -> Res<T> {
    fault(
        span,
        format!("process {me} has no `{word}` neighbour"),
        "the ends of a chain have no `left`/`right` and a `uring` has no `right`: run it on a ring, or guard the read",
    )
}
