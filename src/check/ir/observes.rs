//! What a program observes of which process is which: the question
//! symmetry reduction asks before it permutes an instance's processes.

use super::analysis::state_free;
use super::read_walk::{Part, ReadWalk};
use super::*;

/// What a program observes of which process is which, deciding which
/// permutations of an instance's processes are symmetries of it (map every
/// run to a run): none but the identity where it reads indices or ids;
/// where it names ring neighbours, those that keep `left` and `right`; and
/// so on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Observes {
    /// Indices or ids: `index`, `id`, an `argmin`/`argmax` (ties go to the
    /// smaller id), a process named by a constant (`(3).x`, `msgs(0, 1)`).
    pub identity: bool,
    /// `left` (of a ring or chain).
    pub left: bool,
    /// `right`.
    pub right: bool,
    /// `tree_parent`.
    pub tree: bool,
    /// The order of the neighbours: a statement's `for` loop over processes
    /// whose iterations need not commute.
    pub order: bool,
    /// An action's binder ranges over processes: its first member (the one
    /// runs take) depends on the neighbours' order.
    pub binder_over_processes: bool,
}

/// What `prog`'s actions, legitimacy predicate and invariants observe.
pub fn observes(prog: &Program) -> Observes {
    let mut o = Observes::default();
    {
        let mut each = |part: Part| match part {
            Part::Int(IExpr::Index(_) | IExpr::Id(_) | IExpr::Best(_)) => o.identity = true,
            Part::Int(IExpr::Side(_, left, _)) => {
                if *left {
                    o.left = true
                } else {
                    o.right = true
                }
            }
            Part::Proc(Proc::Left(_)) => o.left = true,
            Part::Proc(Proc::Right(_)) => o.right = true,
            Part::Proc(Proc::TreeParent(_)) => o.tree = true,
            Part::Proc(Proc::At(e, _) | Proc::Via(e, _)) if state_free(e) => o.identity = true,
            _ => {}
        };
        let mut walk = ReadWalk {
            visit: &mut |_, _, _| {},
            each: Some(&mut each),
        };
        for a in prog.roles.iter().flat_map(|r| &r.actions) {
            walk.action(a);
        }
        for b in prog
            .legitimate
            .iter()
            .map(|l| &l.0)
            .chain(prog.invariants.iter().map(|i| &i.1))
        {
            walk.b(b);
        }
    }
    for a in prog.roles.iter().flat_map(|r| &r.actions) {
        o.order |= order_matters(&a.body);
        o.binder_over_processes |= a
            .binder
            .as_ref()
            .is_some_and(|b| !matches!(b.coll, Coll::Range(..)));
    }
    o
}

/// Whether a `for` loop over processes in `s` may do something else when
/// its members come in another order.
fn order_matters(s: &Stmt) -> bool {
    match s {
        Stmt::Skip | Stmt::Assign(..) | Stmt::Send(..) => false,
        Stmt::Seq(list) => list.iter().any(order_matters),
        Stmt::If(_, a, b) => order_matters(a) || order_matters(b),
        Stmt::For(binder, body) => {
            let over_processes = !matches!(binder.coll, Coll::Range(..));
            (over_processes && !iterations_commute(binder.slot, body)) || order_matters(body)
        }
    }
}

/// Whether the iterations of a loop whose variable is local `slot` commute:
/// each writes only at its member (`edge(q).x`, `x[q]`, or sends), and
/// reads what the loop writes only at its member, so that no iteration
/// sees another's writes.
fn iterations_commute(slot: usize, body: &Stmt) -> bool {
    let at_member =
        |e: &IExpr| matches!(e, IExpr::Local(s) | IExpr::NodeOf(Proc::Local(s)) if *s == slot);
    let mut written: Vec<usize> = Vec::new();
    let mut ok = true;
    collect_writes(body, &mut |t: &Target| {
        ok &= t.index.as_ref().is_some_and(at_member);
        written.push(t.var);
    });
    if !ok {
        return false;
    }
    let mut visit = |p: &Proc, v: usize, index: Option<&IExpr>| {
        if matches!(p, Proc::Me) && written.contains(&v) && !index.is_some_and(at_member) {
            ok = false;
        }
    };
    let mut walk = ReadWalk {
        visit: &mut visit,
        each: None,
    };
    walk.stmt(body);
    ok
}

/// Calls `each` with every assignment target in `s`.
fn collect_writes(s: &Stmt, each: &mut dyn FnMut(&Target)) {
    match s {
        Stmt::Skip | Stmt::Send(..) => {}
        Stmt::Assign(targets, _) => targets.iter().for_each(&mut *each),
        Stmt::Seq(list) => list.iter().for_each(|s| collect_writes(s, each)),
        Stmt::If(_, a, b) => {
            collect_writes(a, each);
            collect_writes(b, each);
        }
        Stmt::For(_, body) => collect_writes(body, each),
    }
}
