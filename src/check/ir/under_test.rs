//! Reads made only where a neighbour's node variable names the process.
//! In `forall(q in nbrs : q.parent == self implies q.color == 1)` (a
//! quantifier over a set of children, `{q in nbrs : q.parent == self and
//! ...}`), `q.color` is read only for the neighbours whose `parent` names
//! the process, and the test reads `q.parent` only to compare it with the
//! process: a step of one neighbour whose `parent` named the process
//! neither before nor after it gives the test the same value for it and
//! makes none of the reads past the test, then or now, so the quantifier
//! has its value still (and no fault: conjunctions stop at the first false
//! operand, left to right).

use super::read_walk::{Part, ReadWalk};
use super::*;
use std::collections::HashSet;

/// The reads of a guard made only under a test `q.var == self` (see the
/// module's comment): their processes, as places in the guard's IR (what
/// a [`ReadWalk`] passes its visitor), and the node variable tested.
pub(super) struct UnderTest {
    /// The node variable tested (one for the whole guard: the first found).
    pub(super) var: usize,
    /// Where the reads made under the test name their process.
    pub(super) at: HashSet<*const Proc>,
}

/// The reads of `guard` made under a test `q.var == self` (see
/// [`UnderTest`]); `None` where there are none.
pub(super) fn reads_under_test(guard: &BExpr) -> Option<UnderTest> {
    let mut found: Option<UnderTest> = None;
    let mut each = |part: Part| {
        let Some((slot, chain)) = tested_chain(part) else {
            return;
        };
        // The operands before the test are evaluated for every member.
        let Some((k, var)) = chain.iter().enumerate().find_map(|(k, x)| match x {
            Link::Bool(b) => test_of(b, slot).map(|var| (k, var)),
            Link::Int(_) => None,
        }) else {
            return;
        };
        let under = found.get_or_insert_with(|| UnderTest {
            var,
            at: HashSet::new(),
        });
        if under.var != var {
            return;
        }
        let mut visit = |at: &Proc, _: usize, _: Option<&IExpr>| {
            if names_member(at, slot, var) {
                under.at.insert(at as *const Proc);
            }
        };
        let mut walk = ReadWalk {
            visit: &mut visit,
            each: None,
        };
        for link in &chain[k..] {
            match link {
                Link::Bool(b) => walk.b(b),
                Link::Int(e) => walk.i(e),
            }
        }
    };
    let mut walk = ReadWalk {
        visit: &mut |_, _, _| {},
        each: Some(&mut each),
    };
    walk.b(guard);
    found.filter(|u| !u.at.is_empty())
}

/// A part of a quantifier's body, in the order it is evaluated for a
/// member: the operands of its filter, then what is counted or summed.
enum Link<'e> {
    Bool(&'e BExpr),
    Int(&'e IExpr),
}

/// For a quantifier over the process's own neighbours, its local and its
/// body as a chain of operands each evaluated only where those before it
/// hold: `forall`'s `filter implies body`, `exists`'s and `count`'s
/// conjunctions, `sum`'s filter then summand.
fn tested_chain(part: Part) -> Option<(usize, Vec<Link>)> {
    let mut chain = Vec::new();
    let (slot, coll) = match part {
        Part::Quantifier(BExpr::Forall(slot, coll, body)) => {
            let BExpr::Implies(filter, then) = &**body else {
                return None;
            };
            conjuncts(filter, &mut chain);
            chain.push(Link::Bool(then));
            (slot, coll)
        }
        Part::Quantifier(BExpr::Exists(slot, coll, body))
        | Part::Int(IExpr::Count(slot, coll, body)) => {
            conjuncts(body, &mut chain);
            (slot, coll)
        }
        Part::Int(IExpr::Sum(slot, coll, filter, summand, _)) => {
            conjuncts(filter, &mut chain);
            chain.push(Link::Int(summand));
            (slot, coll)
        }
        _ => return None,
    };
    matches!(coll, Coll::NbrsOf(Proc::Me)).then_some((*slot, chain))
}

/// The operands of the conjunction `x`, in order.
fn conjuncts<'e>(x: &'e BExpr, out: &mut Vec<Link<'e>>) {
    match x {
        BExpr::And(a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(Link::Bool(x)),
    }
}

/// The node variable `v` where `x` is `q.v == self` (either way round),
/// `q` the local `slot`.
fn test_of(x: &BExpr, slot: usize) -> Option<usize> {
    let BExpr::Cmp(Cmp::Eq, a, b) = x else {
        return None;
    };
    let is_self = |e: &IExpr| matches!(e, IExpr::Index(Proc::Me) | IExpr::NodeOf(Proc::Me));
    let member_var = |e: &IExpr| match e {
        IExpr::Var(Proc::Local(s), v) if *s == slot => Some(*v),
        _ => None,
    };
    match (a, b) {
        (x, y) if is_self(y) => member_var(x),
        (x, y) if is_self(x) => member_var(y),
        _ => None,
    }
}

/// Whether a read at `at` reads the member bound to `slot` or, past the
/// test, the process its `var` names (the process itself).
fn names_member(at: &Proc, slot: usize, var: usize) -> bool {
    match at {
        Proc::Local(s) => *s == slot,
        Proc::Via(e, _) => matches!(&**e, IExpr::Var(Proc::Local(s), v) if *s == slot && *v == var),
        _ => false,
    }
}
