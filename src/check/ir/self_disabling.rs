//! Actions whose own move makes their guard false: `x != E -> x := E`,
//! the shape of most rules of self-stabilizing programs ("correct your
//! variable where it differs from what your neighbours imply"). After a
//! move of such an action alone (a central step), the mover's guard need
//! not be evaluated again to know it is false.

use super::read_walk::ReadWalk;
use super::*;

/// Whether a move of `action` by one process, all other processes
/// standing still, leaves its guard false, and whether evaluating the
/// guard there could not fault either:
/// - the guard is `v != E` (either way round, on integers or booleans),
///   alone or as the first operand of an `and`;
/// - the statement is assignments of plain variables only (an edge
///   variable's write changes the neighbour's end too), the last to `v`
///   assigning it `E` (the whole variable);
/// - `E` reads none of the variables the statement writes, and no timer
///   (a round's end changes every timer). An action draws only in its
///   statement and reads no channel and no enabledness.
///
/// Then `E` has after the move the value it had before and when it was
/// assigned (everything it reads is as it was), which `v` now holds, and
/// evaluating it again repeats an evaluation that did not fault. `kind`
/// gives each variable's kind.
pub fn disables_itself(action: &Action, kind: &dyn Fn(usize) -> VarKind) -> bool {
    if action.binder.is_some() || action.receive.is_some() {
        return false;
    }
    let Some((v, differs_from)) = first_conjunct_differs(&action.guard) else {
        return false;
    };
    let mut last = None;
    if !last_assigned(&action.body, v, &mut last) {
        return false;
    }
    let written = writes(&action.body);
    // Past 63 variables the bits do not tell them apart.
    if written & var_bit(63) != 0 {
        return false;
    }
    if (0..63).any(|v| written & var_bit(v) != 0 && kind(v) != VarKind::Plain) {
        return false;
    }
    let reads = (written, kind);
    match (last, differs_from) {
        (Some(Value::Int(e)), Other::Int(g)) if e == g => reads_none_of(reads, |w| w.i(e)),
        (Some(Value::Bool(e)), Other::Bool(g)) if e == g => reads_none_of(reads, |w| w.b(e)),
        _ => false,
    }
}

/// Walks `s`, made of assignments only (false otherwise), leaving in
/// `last` the value last assigned to the whole of variable `v`, `None`
/// where an element of it is assigned after.
fn last_assigned<'s>(s: &'s Stmt, v: usize, last: &mut Option<&'s Value>) -> bool {
    match s {
        Stmt::Skip => true,
        Stmt::Seq(list) => list.iter().all(|s| last_assigned(s, v, last)),
        Stmt::Assign(targets, values) => {
            for (t, value) in targets.iter().zip(values) {
                if t.var == v {
                    *last = t.index.is_none().then_some(value);
                }
            }
            true
        }
        Stmt::For(..) | Stmt::Send(..) | Stmt::If(..) => false,
    }
}

/// What an own variable is compared with.
enum Other<'e> {
    Int(&'e IExpr),
    Bool(&'e BExpr),
}

/// The own variable and what the guard's first conjunct says it differs
/// from, where that conjunct is `v != E` or `E != v`.
fn first_conjunct_differs(guard: &BExpr) -> Option<(usize, Other<'_>)> {
    match guard {
        BExpr::And(first, _) => first_conjunct_differs(first),
        BExpr::Cmp(Cmp::Ne, IExpr::Var(Proc::Me, v), e)
        | BExpr::Cmp(Cmp::Ne, e, IExpr::Var(Proc::Me, v)) => Some((*v, Other::Int(e))),
        BExpr::BoolEq(false, a, b) => match (&**a, &**b) {
            (BExpr::Var(Proc::Me, v), e) | (e, BExpr::Var(Proc::Me, v)) => {
                Some((*v, Other::Bool(e)))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether what `walk_over` walks reads no own variable of `written`
/// (bits as [`var_bit`] gives them) and no timer (of the kinds `kind`
/// gives).
fn reads_none_of(
    (written, kind): (u64, &dyn Fn(usize) -> VarKind),
    walk_over: impl FnOnce(&mut ReadWalk),
) -> bool {
    let mut reads = false;
    {
        let mut visit = |at: &Proc, v: usize, _: Option<&IExpr>| {
            let own_written = matches!(at, Proc::Me) && written & var_bit(v) != 0;
            reads |= own_written || kind(v) == VarKind::Timer;
        };
        let mut walk = ReadWalk {
            visit: &mut visit,
            each: None,
        };
        walk_over(&mut walk);
    }
    !reads
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the first action of a program of the variables `x`, `y`
    /// (integers), `b` (a boolean), `t` (a timer) and `e` (an edge
    /// variable) disables itself.
    fn of(action: &str) -> bool {
        let src = format!(
            "topology ring:4\nvar x: 0..3 = 0\nvar y: 0..3 = 0\nvar b: bool = false\n\
             timer t: 0..3 = 0\nedge var e: 0..3 = 0\nprocess {{ {action} }}\n"
        );
        let ast = crate::syntax::parse_program(&src).expect("parses");
        let prog = crate::check::check(&ast).expect("checks");
        disables_itself(&prog.roles[0].actions[0], &|v| prog.vars[v].kind)
    }

    #[test]
    fn a_copy_of_what_differs_disables_itself() {
        assert!(of("a :: x != left.x -> x := left.x"));
        assert!(of("a :: left.x != x -> x := left.x"));
        assert!(of(
            "a :: x != (left.x + y) mod 4 and y > 0 -> x := (left.x + y) mod 4"
        ));
        assert!(of("a :: x != left.x -> y := 1; x := left.x"));
        assert!(of("a :: b != left.b -> b := left.b"));
        assert!(of(
            "a :: x != max(q in nbrs : q.x) -> x := max(q in nbrs : q.x)"
        ));
    }

    #[test]
    fn other_shapes_do_not() {
        // The value reads what the statement writes.
        assert!(!of("a :: x != (x + 1) mod 4 -> x := (x + 1) mod 4"));
        assert!(!of("a :: x != y -> x := y; y := (y + 1) mod 4"));
        // Another value, another variable, another comparison, or not first.
        assert!(!of("a :: x != left.x -> x := right.x"));
        assert!(!of("a :: x != left.x -> y := left.x"));
        assert!(!of("a :: x < left.x -> x := left.x"));
        assert!(!of("a :: y > 0 and x != left.x -> x := left.x"));
        assert!(!of("a :: x != left.x or y > 0 -> x := left.x"));
        // A timer read, an edge variable written.
        assert!(!of("a :: x != t -> x := t"));
        assert!(!of("a :: x != left.x -> x := left.x; edge(right).e := 1"));
        // A conditional statement.
        assert!(!of("a :: x != left.x -> if y > 0 { x := left.x }"));
        // Assigned again after.
        assert!(!of("a :: x != left.x -> x := left.x; x := 0"));
    }
}
