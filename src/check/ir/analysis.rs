//! Questions later phases ask of the IR: which variables an expression
//! reads, whether it reads any state at all, and whether a predicate is
//! local to one process (so legitimacy can be kept process by process).

use super::read_walk::{Part, ReadWalk};
use super::*;

/// Which variables are node references, and which are edge variables.
struct NodeVars<'a>(&'a dyn Fn(usize) -> bool, &'a dyn Fn(usize) -> bool);

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
        BExpr::ArrayCmp(_, p, v, q, w, _) => {
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
        IExpr::Index(p) | IExpr::Id(p) | IExpr::NodeOf(p) | IExpr::Side(p, _, _) => {
            reads_var_p(p, hit)
        }
        IExpr::Neg(a, _) | IExpr::Abs(a, _) => reads_var_i(a, hit),
        IExpr::Arith(_, a, b, _) | IExpr::Let(_, a, b) => {
            reads_var_i(a, hit) || reads_var_i(b, hit)
        }
        IExpr::Count(_, coll, body) => reads_var_c(coll, hit) || reads_var_b(body, hit),
        IExpr::Sum(_, coll, filter, body, _) => {
            reads_var_c(coll, hit) || reads_var_b(filter, hit) || reads_var_i(body, hit)
        }
        IExpr::Cond(c, a, b) => reads_var_b(c, hit) || reads_var_i(a, hit) || reads_var_i(b, hit),
        IExpr::Elem(p, v, i, _) => hit(*v) || reads_var_p(p, hit) || reads_var_i(i, hit),
        IExpr::Best(b) => {
            reads_var_c(&b.coll, hit)
                || b.filter.as_ref().is_some_and(|f| reads_var_b(f, hit))
                || b.keys.iter().any(|k| reads_var_i(k, hit))
        }
        IExpr::FromBool(b) => reads_var_b(b, hit),
        IExpr::Msgs(p, q, _, _) => reads_var_p(p, hit) || reads_var_p(q, hit),
        IExpr::Random(d, _) => match &**d {
            Draw::Range(a, b) => reads_var_i(a, hit) || reads_var_i(b, hit),
            Draw::Member { coll, filter, .. } => {
                reads_var_c(coll, hit) || filter.as_ref().is_some_and(|f| reads_var_b(f, hit))
            }
        },
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
        Coll::Range(a, b, _) => reads_var_i(a, hit) || reads_var_i(b, hit),
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

/// [`local_to`] for the body of `acyclic(p -> q : b)`, with `q` one of
/// p's neighbours (the arcs run along edges): whether `b` reads only p,
/// its neighbours and p's own edges, so that p's arcs are p's alone.
pub fn local_arc(
    b: &BExpr,
    p: usize,
    q: usize,
    node_var: &dyn Fn(usize) -> bool,
    edge_var: &dyn Fn(usize) -> bool,
) -> bool {
    local_b(
        b,
        p,
        &mut vec![q],
        &mut Vec::new(),
        &NodeVars(node_var, edge_var),
    )
}

fn allowed(q: &Proc, p: usize, nbr: &[usize], nv: &NodeVars) -> bool {
    match q {
        Proc::Local(s) => *s == p || nbr.contains(s),
        // The process p's own node variable names p or a neighbour of p,
        // and so does p's `left` or `right`.
        Proc::At(e, _) => {
            matches!(&**e, IExpr::Var(Proc::Local(s), v) if *s == p && (nv.0)(*v))
                || matches!(&**e, IExpr::Side(Proc::Local(s), _, _) if *s == p)
        }
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
                Coll::Range(lo, hi, _) => free_i(lo, bound) && free_i(hi, bound),
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
        BExpr::ArrayCmp(_, q, _, r, _, _) => allowed(q, p, nbr, nv) && allowed(r, p, nbr, nv),
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
        Coll::Range(lo, hi, _) => {
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
        // p's own `left` or `right`: a neighbour (a neighbour's is not).
        IExpr::Side(q, _, _) => matches!(q, Proc::Local(s) if *s == p),
        IExpr::Var(q, _) | IExpr::Index(q) | IExpr::Id(q) | IExpr::NodeOf(q) => {
            allowed(q, p, nbr, nv)
        }
        IExpr::Neg(a, _) | IExpr::Abs(a, _) => local_i(a, p, nbr, vals, nv),
        IExpr::Arith(_, a, b, _) => local_i(a, p, nbr, vals, nv) && local_i(b, p, nbr, vals, nv),
        IExpr::Count(s, coll, body) => local_bound(*s, coll, p, nbr, vals, nv, |nbr, vals| {
            local_b(body, p, nbr, vals, nv)
        }),
        IExpr::Sum(s, coll, filter, body, _) => {
            local_bound(*s, coll, p, nbr, vals, nv, |nbr, vals| {
                local_b(filter, p, nbr, vals, nv) && local_i(body, p, nbr, vals, nv)
            })
        }
        IExpr::Cond(c, a, b) => {
            local_b(c, p, nbr, vals, nv)
                && local_i(a, p, nbr, vals, nv)
                && local_i(b, p, nbr, vals, nv)
        }
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
        // Statements only: never in a predicate.
        IExpr::Random(..) => false,
    }
}

/// Whether `action`'s statement draws at random (`random(...)`).
pub fn draws(action: &Action) -> bool {
    finds_draw(|walk| walk.stmt(&action.body))
}

/// Whether `e` draws at random (`random(...)`) anywhere.
pub fn draws_i(e: &IExpr) -> bool {
    finds_draw(|walk| walk.i(e))
}

/// Whether what `walk_over` walks holds a `random(...)`.
fn finds_draw(walk_over: impl FnOnce(&mut ReadWalk)) -> bool {
    let mut found = false;
    {
        let mut each = |part: Part| found |= matches!(part, Part::Int(IExpr::Random(..)));
        let mut walk = ReadWalk {
            visit: &mut |_, _, _| {},
            each: Some(&mut each),
        };
        walk_over(&mut walk);
    }
    found
}

/// Whether `b` reads one of the local `slots` (a binder's member, a
/// received message's sender or fields) anywhere.
pub fn reads_locals(b: &BExpr, slots: &[usize]) -> bool {
    finds_local(slots, |walk| walk.b(b))
}

/// [`reads_locals`] of an integer expression.
pub fn reads_locals_i(e: &IExpr, slots: &[usize]) -> bool {
    finds_local(slots, |walk| walk.i(e))
}

/// Whether what `walk_over` walks reads one of the local `slots`.
fn finds_local(slots: &[usize], walk_over: impl FnOnce(&mut ReadWalk)) -> bool {
    let mut found = false;
    {
        let mut each = |part: Part| {
            found |= match part {
                Part::Int(IExpr::Local(s)) | Part::Proc(Proc::Local(s)) => slots.contains(s),
                _ => false,
            }
        };
        let mut walk = ReadWalk {
            visit: &mut |_, _, _| {},
            each: Some(&mut each),
        };
        walk_over(&mut walk);
    }
    found
}

/// The value of `b` where it is known without the configuration, given
/// the integer expressions known so (`int`): found without evaluating
/// anything that could fault, as the operators short-circuit (an `and`
/// whose first operand is false is false whatever the second).
pub fn fixed_truth(b: &BExpr, int: &dyn Fn(&IExpr) -> Option<i64>) -> Option<bool> {
    let fixed = |x: &BExpr| fixed_truth(x, int);
    match b {
        BExpr::Const(b) => Some(*b),
        BExpr::Cmp(op, x, y) => Some(op.holds(int(x)?, int(y)?)),
        BExpr::Not(a) => fixed(a).map(|t| !t),
        BExpr::And(a, b) => match fixed(a)? {
            false => Some(false),
            true => fixed(b),
        },
        BExpr::Or(a, b) => match fixed(a)? {
            true => Some(true),
            false => fixed(b),
        },
        BExpr::Implies(a, b) => match fixed(a)? {
            false => Some(true),
            true => fixed(b),
        },
        BExpr::BoolEq(eq, a, b) => Some((fixed(a)? == fixed(b)?) == *eq),
        _ => None,
    }
}
