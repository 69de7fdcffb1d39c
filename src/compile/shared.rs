//! Subexpressions that the right-hand sides of one multiple assignment
//! share, computed once each time it runs. Definitions expand in place,
//! so a program written with them repeats itself: SSLE's attach,
//! `parent, leader, level, ... := Best_Nbr(self), Succ(Best_Nbr(self).key), ...`,
//! finds the best neighbour three times (the parent, and the two parts of
//! its key). The assignment evaluates every right-hand side before it
//! writes anything, so all of them see one configuration; each run clears
//! the values it kept ([`super::Effects::shared`]) first, and a shared
//! subexpression keeps its value the first time and reads it after.
//!
//! A shared subexpression reads no variable bound outside it (so its value
//! is the same wherever it stands), draws nothing (two draws are two
//! values) and does not ask which processes are enabled. Its first
//! evaluation is the one made first without sharing, so a fault is raised
//! where it always was; later ones give the value the first gave, as
//! evaluating again would. Equal means equal up to where in the source a
//! part was written ([`crate::span::Span`]s compare equal), which says
//! only where a fault is reported, and only the first evaluation can
//! fault.

use super::{boolean, BFn, Compiler, Env, IFn, SFn};
use crate::check::ir::{self, BExpr, Coll, IExpr, Proc, Value};
use std::cell::Cell;
use std::rc::Rc;

/// The most subexpressions one assignment shares: the values are kept
/// beside every statement's effects, so they stay few.
const MAX_SHARED: usize = 8;

/// The fewest parts (expressions, processes named, collections) a shared
/// subexpression has: below it, reading the kept value costs about what
/// computing it does.
const SMALLEST: usize = 5;

/// The most candidates [`shared_parts`] counts, the largest: it compares
/// each with every part of every right-hand side.
const MOST_TRIED: usize = 128;

/// The values of the subexpressions the running assignment shares: which
/// are known (bits), and those values.
#[derive(Default, Debug)]
pub struct SharedValues {
    known: Cell<u32>,
    values: [Cell<i64>; MAX_SHARED],
}

impl SharedValues {
    /// Forgets every value (an assignment starts).
    #[inline(always)]
    fn clear(&self) {
        self.known.set(0);
    }

    /// Value `k`, if known.
    #[inline(always)]
    fn get(&self, k: usize) -> Option<i64> {
        (self.known.get() >> k & 1 != 0).then(|| self.values[k].get())
    }

    /// Value `k` is `v`.
    #[inline(always)]
    fn set(&self, k: usize, v: i64) {
        self.values[k].set(v);
        self.known.set(self.known.get() | 1 << k);
    }
}

/// A shared subexpression of either type.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shared {
    Bool(BExpr),
    Int(IExpr),
}

/// A part of an expression: what [`each_child`] walks.
#[derive(Clone, Copy)]
enum Part<'e> {
    Bool(&'e BExpr),
    Int(&'e IExpr),
    Proc(&'e Proc),
    Coll(&'e Coll),
}

impl Part<'_> {
    fn is(&self, shared: &Shared) -> bool {
        match (self, shared) {
            (Part::Bool(b), Shared::Bool(s)) => *b == s,
            (Part::Int(i), Shared::Int(s)) => *i == s,
            _ => false,
        }
    }

    fn to_shared(self) -> Option<Shared> {
        match self {
            Part::Bool(b) => Some(Shared::Bool(b.clone())),
            Part::Int(i) => Some(Shared::Int(i.clone())),
            Part::Proc(_) | Part::Coll(_) => None,
        }
    }
}

/// Calls `f` with each direct part of `part`, and with the local slots the
/// part binds for it (a quantifier's variable binds in its body, not in
/// its collection).
fn each_child<'e>(part: Part<'e>, f: &mut dyn FnMut(Part<'e>, &[usize])) {
    use Part::{Bool as B, Coll as C, Int as I, Proc as P};
    match part {
        B(b) => match b {
            BExpr::Const(_) => {}
            BExpr::Var(p, _) | BExpr::Enabled(p) => f(P(p), &[]),
            BExpr::Not(a) => f(B(a), &[]),
            BExpr::And(a, c) | BExpr::Or(a, c) | BExpr::Implies(a, c) | BExpr::BoolEq(_, a, c) => {
                f(B(a), &[]);
                f(B(c), &[]);
            }
            BExpr::Cmp(_, a, c) => {
                f(I(a), &[]);
                f(I(c), &[]);
            }
            BExpr::Forall(s, coll, body) | BExpr::Exists(s, coll, body) => {
                f(C(coll), &[]);
                f(B(body), &[*s]);
            }
            BExpr::Elem(p, _, i, _) => {
                f(P(p), &[]);
                f(I(i), &[]);
            }
            BExpr::ArrayCmp(_, p, _, q, _, _) => {
                f(P(p), &[]);
                f(P(q), &[]);
            }
            BExpr::Acyclic(s, t, body) => f(B(body), &[*s, *t]),
        },
        I(e) => match e {
            IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg | IExpr::Local(_) => {}
            IExpr::Var(p, _) | IExpr::Index(p) | IExpr::Id(p) | IExpr::NodeOf(p) => f(P(p), &[]),
            IExpr::Side(p, _, _) => f(P(p), &[]),
            IExpr::Neg(a, _) | IExpr::Abs(a, _) => f(I(a), &[]),
            IExpr::Arith(_, a, b, _) => {
                f(I(a), &[]);
                f(I(b), &[]);
            }
            IExpr::Random(d, _) => match &**d {
                ir::Draw::Range(a, b) => {
                    f(I(a), &[]);
                    f(I(b), &[]);
                }
                ir::Draw::Member { slot, coll, filter } => {
                    f(C(coll), &[]);
                    if let Some(filter) = filter {
                        f(B(filter), &[*slot]);
                    }
                }
            },
            IExpr::Let(s, value, body) => {
                f(I(value), &[]);
                f(I(body), &[*s]);
            }
            IExpr::Count(s, coll, body) => {
                f(C(coll), &[]);
                f(B(body), &[*s]);
            }
            IExpr::Sum(s, coll, filter, body, _) => {
                f(C(coll), &[]);
                f(B(filter), &[*s]);
                f(I(body), &[*s]);
            }
            IExpr::Cond(c, a, b) => {
                f(B(c), &[]);
                f(I(a), &[]);
                f(I(b), &[]);
            }
            IExpr::Elem(p, _, i, _) => {
                f(P(p), &[]);
                f(I(i), &[]);
            }
            IExpr::Best(best) => {
                f(C(&best.coll), &[]);
                if let Some(filter) = &best.filter {
                    f(B(filter), &[best.slot]);
                }
                for key in &best.keys {
                    f(I(key), &[best.slot]);
                }
            }
            IExpr::FromBool(b) => f(B(b), &[]),
            IExpr::Msgs(p, q, _, _) => {
                f(P(p), &[]);
                f(P(q), &[]);
            }
        },
        P(p) => match p {
            Proc::At(e, _) | Proc::Via(e, _) => f(I(e), &[]),
            Proc::Me
            | Proc::Left(_)
            | Proc::Right(_)
            | Proc::Local(_)
            | Proc::Through(_)
            | Proc::TreeParent(_) => {}
        },
        C(c) => match c {
            Coll::NbrsOf(p) => f(P(p), &[]),
            Coll::Procs => {}
            Coll::Range(lo, hi, _) => {
                f(I(lo), &[]);
                f(I(hi), &[]);
            }
        },
    }
}

/// What [`survey`] finds of a part: its size in parts, whether it may be
/// shared (reads only slots bound inside it, draws nothing, asks no
/// process whether it is enabled), and whether it costs enough to (goes
/// through a collection or a node variable's process).
struct Survey {
    size: usize,
    closed: bool,
    costly: bool,
}

/// [`Survey`] of `part`, with `bound` the slots bound inside it around
/// the part looked at now.
fn survey(part: Part, bound: &mut Vec<usize>) -> Survey {
    let costly = matches!(
        part,
        Part::Bool(BExpr::Forall(..) | BExpr::Exists(..))
            | Part::Int(IExpr::Count(..) | IExpr::Sum(..) | IExpr::Best(_))
            | Part::Proc(Proc::Through(_) | Proc::Via(..))
    );
    let mut closed = match part {
        Part::Int(IExpr::Local(s)) | Part::Proc(Proc::Local(s)) => bound.contains(s),
        Part::Int(IExpr::Random(..)) | Part::Bool(BExpr::Enabled(_)) => false,
        _ => true,
    };
    let (mut size, mut costly) = (1, costly);
    each_child(part, &mut |child, binds| {
        let depth = bound.len();
        bound.extend_from_slice(binds);
        let inner = survey(child, bound);
        bound.truncate(depth);
        size += inner.size;
        closed &= inner.closed;
        costly |= inner.costly;
    });
    Survey {
        size,
        closed,
        costly,
    }
}

/// How often `shared` occurs in `part`, not counting inside the parts
/// already `chosen` (those are computed once whatever they contain).
fn occurrences(part: Part, shared: &Shared, chosen: &[Shared]) -> usize {
    if part.is(shared) {
        return 1;
    }
    if chosen.iter().any(|c| part.is(c)) {
        return 0;
    }
    let mut count = 0;
    each_child(part, &mut |child, _| {
        count += occurrences(child, shared, chosen)
    });
    count
}

/// The subexpressions worth computing once among `roots` (the
/// expressions of one assignment, in the order it evaluates them): each
/// reads nothing bound outside it, reads another process or goes through
/// a collection, has at least [`SMALLEST`] parts and occurs at least twice
/// outside the others chosen; the largest first, at most [`MAX_SHARED`].
fn shared_parts(roots: &[Part]) -> Vec<Shared> {
    let mut found = Vec::new();
    for &root in roots {
        collect(root, &mut found);
    }
    found.sort_by_key(|&(_, size)| std::cmp::Reverse(size));
    let mut chosen: Vec<Shared> = Vec::new();
    let mut tried: Vec<Shared> = Vec::new();
    for (part, _) in found {
        if chosen.len() == MAX_SHARED || tried.len() == MOST_TRIED {
            break;
        }
        let Some(candidate) = part.to_shared() else {
            continue;
        };
        if tried.contains(&candidate) {
            continue;
        }
        tried.push(candidate.clone());
        let count: usize = roots
            .iter()
            .map(|&root| occurrences(root, &candidate, &chosen))
            .sum();
        if count >= 2 {
            chosen.push(candidate);
        }
    }
    chosen
}

/// Every expression in `part` (itself included) that may be shared on its
/// own, with its size, into `found`.
fn collect<'e>(part: Part<'e>, found: &mut Vec<(Part<'e>, usize)>) {
    if matches!(part, Part::Bool(_) | Part::Int(_)) {
        let alone = survey(part, &mut Vec::new());
        if alone.closed && alone.costly && alone.size >= SMALLEST {
            found.push((part, alone.size));
        }
    }
    each_child(part, &mut |child, _| collect(child, found));
}

impl<'a> Compiler<'a> {
    /// This compiler reading from [`super::Effects::shared`] the subexpressions that
    /// `targets := values` shares, if it shares any (and is not compiled
    /// as part of another assignment's sharing already).
    pub(super) fn sharing(&self, targets: &[ir::Target], values: &[Value]) -> Option<Compiler<'a>> {
        if !self.shared.is_empty() {
            return None;
        }
        let mut roots = Vec::new();
        for value in values {
            match value {
                Value::Int(x) => roots.push(Part::Int(x)),
                Value::Bool(b) => roots.push(Part::Bool(b)),
                Value::Array(..) => {}
            }
        }
        roots.extend(
            targets
                .iter()
                .filter_map(|t| t.index.as_ref().map(Part::Int)),
        );
        let shared = shared_parts(&roots);
        (!shared.is_empty()).then(|| Compiler {
            shared: Rc::from(shared),
            ..self.clone()
        })
    }
}

/// `body` run with the values of its shared subexpressions forgotten
/// first.
pub(super) fn forgetting_shared(body: SFn) -> SFn {
    Box::new(move |e: &Env| {
        e.fx.shared.clear();
        body(e)
    })
}

/// `f`, its value kept as shared value `k` of the running assignment.
pub(super) fn shared_int(k: usize, f: IFn) -> IFn {
    Box::new(move |e: &Env| {
        if let Some(v) = e.fx.shared.get(k) {
            return Ok(v);
        }
        let v = f(e)?;
        e.fx.shared.set(k, v);
        Ok(v)
    })
}

/// `f`, its value kept as shared value `k` of the running assignment.
pub(super) fn shared_bool(k: usize, f: BFn) -> BFn {
    boolean(move |e: &Env| {
        if let Some(v) = e.fx.shared.get(k) {
            return Ok(v != 0);
        }
        let v = f(e)?.holds();
        e.fx.shared.set(k, i64::from(v));
        Ok(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared subexpressions of the first action's assignment.
    fn shared_in(src: &str) -> Vec<Shared> {
        let ast = crate::syntax::parse_program(src).expect("parses");
        let prog = crate::check::check(&ast).expect("checks");
        let ir::Stmt::Assign(targets, values) = &prog.roles[0].actions[0].body else {
            panic!("one assignment");
        };
        let mut roots: Vec<Part> = values
            .iter()
            .filter_map(|v| match v {
                Value::Int(x) => Some(Part::Int(x)),
                Value::Bool(b) => Some(Part::Bool(b)),
                Value::Array(..) => None,
            })
            .collect();
        roots.extend(
            targets
                .iter()
                .filter_map(|t| t.index.as_ref().map(Part::Int)),
        );
        shared_parts(&roots)
    }

    const VARS: &str = "var x: 0..9\nvar a: 0..99\nvar b: 0..99\nvar c: 0..99\n";

    /// The one subexpression shared by `assignment`, an action's statement.
    fn the_one_shared(assignment: &str) -> Shared {
        let shared = shared_in(&format!("{VARS}process {{ t :: true -> {assignment} }}"));
        assert_eq!(shared.len(), 1, "{shared:?}");
        shared.into_iter().next().expect("one")
    }

    #[test]
    fn a_collection_read_twice_is_shared() {
        let shared = the_one_shared("a, b := min(q in nbrs : q.x), min(q in nbrs : q.x) + 1");
        // `min` is the best member's key: its choice and its key read.
        assert!(matches!(shared, Shared::Int(IExpr::Let(..))), "{shared:?}");
    }

    #[test]
    fn the_largest_repeated_part_is_shared_not_what_it_contains() {
        let shared = the_one_shared(
            "a, b, c := min(q in nbrs : q.x) + 1, min(q in nbrs : q.x) + 1, max(q in nbrs : q.x)",
        );
        assert!(
            matches!(shared, Shared::Int(IExpr::Arith(..))),
            "{shared:?}"
        );
    }

    #[test]
    fn draws_are_never_shared() {
        // The minimum is; each sum with its draw is not.
        let shared = the_one_shared(
            "a, b := min(q in nbrs : q.x) + random(0..9), min(q in nbrs : q.x) + random(0..9)",
        );
        assert!(matches!(shared, Shared::Int(IExpr::Let(..))), "{shared:?}");
    }

    #[test]
    fn what_reads_a_variable_bound_outside_it_or_costs_little_is_not_shared() {
        let bound = format!(
            "{VARS}process {{ t for q in nbrs :: true -> a, b := count(r in nbrs : r.x > q.x), count(r in nbrs : r.x > q.x) }}"
        );
        assert!(shared_in(&bound).is_empty());
        let cheap = format!("{VARS}process {{ t :: true -> a, b := x + left.x, x + left.x }}");
        assert!(shared_in(&cheap).is_empty());
        let once = format!(
            "{VARS}process {{ t :: true -> a, b := min(q in nbrs : q.x), max(q in nbrs : q.x) }}"
        );
        assert!(shared_in(&once).is_empty());
    }
}
