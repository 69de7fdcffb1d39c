//! Which variables a guard reads, at its own process and at others, and
//! roughly what evaluating it costs: what the bookkeeping after a step
//! needs to leave alone the guards the step cannot have changed.

use super::read_walk::{Part, ReadWalk};
use super::under_test::reads_under_test;
use super::*;

/// The variables a guard reads, as masks with bit `v` for variable `v`
/// (variables from 63 on share bit 63).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardReads {
    /// Variables read anywhere: at the guard's own process (`x`,
    /// `self.x`) or at others.
    pub anywhere: u64,
    /// Variables read at a process that may be another: a neighbour, the
    /// one a node variable names (which may be its own process).
    pub others: u64,
    /// Variables read at a process that may be its own: itself, or one
    /// that a node variable, an expression, a ring side or the tree
    /// parent names (all counted so, though a ring side never is); not a
    /// member of its own neighbours (topologies drop self-loops), so that
    /// a step that changed only the mover's row leaves alone the mover's
    /// guards that read what it changed only at neighbours (SSLE's
    /// `Q.color` of its neighbours `Q`).
    pub at_self: u64,
    /// Where every read at the process an own node variable names
    /// (`parent.x`) goes through one such variable: that variable and the
    /// variables read there. A step of one other process changes nothing
    /// read there unless the variable names that process (SSLE's
    /// `Is_True_Chld(self)` reads its parent's key only).
    pub named: Option<(usize, u64)>,
    /// Where some reads at other processes are made only under a test
    /// `q.v == self` of a neighbour `q` (SSLE's children, `{Q in nbrs :
    /// Q.parent == self and ...}`): `v`, and the variables so read (`v`
    /// among them). A step of one other process changes nothing so read
    /// unless its `v` names this process, before the step or after it.
    pub under: Option<(usize, u64)>,
    /// The variables in `others` read at other processes than `named`'s,
    /// and not only under `under`'s test (all of `others` where both are
    /// `None`).
    pub others_elsewhere: u64,
    /// What evaluating it costs, roughly: its reads, and four more for
    /// each quantifier (left alone, a guard of one or two reads saves
    /// less than telling whether it may be).
    pub cost: u32,
}

impl GuardReads {
    /// What a guard counts as that reads more than variables (whether
    /// processes are enabled, channels): everything, everywhere.
    pub const ALL: GuardReads = GuardReads {
        anywhere: u64::MAX,
        others: u64::MAX,
        at_self: u64::MAX,
        named: None,
        under: None,
        others_elsewhere: u64::MAX,
        cost: u32::MAX,
    };
}

/// The bit of variable `v` in a [`GuardReads`] mask.
pub fn var_bit(v: usize) -> u64 {
    1 << v.min(63)
}

/// What `guard` reads, with the binder's collection and filter where the
/// action has one (they decide whether it is enabled too).
pub fn guard_reads(guard: &BExpr, binder: Option<&Binder>) -> GuardReads {
    let own_nbrs = own_neighbour_locals(guard, binder);
    let mut reads = GuardReads {
        anywhere: 0,
        others: 0,
        at_self: 0,
        named: None,
        under: None,
        others_elsewhere: 0,
        cost: 0,
    };
    let under_test = reads_under_test(guard);
    let mut under = 0u64;
    // The node variables read through, and what is read at what they name.
    let (mut pointers, mut named) = (0u64, 0u64);
    let mut pointer = None;
    let mut quantifiers = 0;
    let mut beyond_variables = false;
    {
        let mut visit = |at: &Proc, v: usize, _: Option<&IExpr>| {
            reads.anywhere |= var_bit(v);
            reads.cost += 1;
            let tested = (under_test.as_ref()).is_some_and(|u| u.at.contains(&(at as *const Proc)));
            match at {
                Proc::Me => {}
                _ if tested => {
                    reads.others |= var_bit(v);
                    under |= var_bit(v);
                }
                Proc::Through(p) => {
                    reads.others |= var_bit(v);
                    pointers |= var_bit(*p);
                    pointer = Some(*p);
                    named |= var_bit(v);
                }
                _ => {
                    reads.others |= var_bit(v);
                    reads.others_elsewhere |= var_bit(v);
                }
            }
            let never_self = matches!(at, Proc::Local(s) if *s < 64 && own_nbrs >> s & 1 != 0);
            if !never_self {
                reads.at_self |= var_bit(v);
            }
        };
        let mut each = |part: Part| {
            beyond_variables |= matches!(
                part,
                Part::Enabled | Part::Int(IExpr::Msgs(..) | IExpr::Random(..))
            );
            let quantifier = matches!(
                part,
                Part::Quantifier(_) | Part::Int(IExpr::Count(..) | IExpr::Sum(..) | IExpr::Best(_))
            );
            quantifiers += u32::from(quantifier);
        };
        let mut walk = ReadWalk {
            visit: &mut visit,
            each: Some(&mut each),
        };
        walk.b(guard);
        if let Some(binder) = binder {
            walk.binder(binder);
        }
    }
    if beyond_variables {
        return GuardReads::ALL;
    }
    match pointer {
        // One node variable (not sharing its bit with others past 63).
        Some(p) if pointers.count_ones() == 1 && p < 63 => reads.named = Some((p, named)),
        _ => reads.others_elsewhere |= named,
    }
    reads.under = under_test.map(|u| (u.var, under)).filter(|_| under != 0);
    reads.cost += 4 * quantifiers;
    reads
}

/// The local slots (below 64) of `guard` and `binder` bound only to
/// members of the process's own neighbours (`q in nbrs`), as bits: none
/// of them is ever the process itself. A slot bound anywhere to anything
/// else (slots may be reused by quantifiers side by side) is left out.
fn own_neighbour_locals(guard: &BExpr, binder: Option<&Binder>) -> u64 {
    let (mut nbrs, mut other) = (0u64, 0u64);
    {
        let mut each = |part: Part| {
            if let Part::Bound(slot, coll) = part {
                let bit = if slot < 64 { 1 << slot } else { 0 };
                match coll {
                    Some(Coll::NbrsOf(Proc::Me)) => nbrs |= bit,
                    _ => other |= bit,
                }
            }
        };
        let mut walk = ReadWalk {
            visit: &mut |_, _, _| {},
            each: Some(&mut each),
        };
        walk.b(guard);
        if let Some(binder) = binder {
            walk.binder(binder);
        }
    }
    nbrs & !other
}

/// The variables `s` may assign (bits as [`var_bit`] gives them): of its
/// own process, the only ones a statement without effects writes.
pub fn writes(s: &Stmt) -> u64 {
    match s {
        Stmt::Skip | Stmt::Send(..) => 0,
        Stmt::Assign(targets, _) => targets.iter().fold(0, |m, t| m | var_bit(t.var)),
        Stmt::For(_, body) => writes(body),
        Stmt::Seq(list) => list.iter().fold(0, |m, s| m | writes(s)),
        Stmt::If(_, then, otherwise) => writes(then) | writes(otherwise),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the first action's guard reads, `x`, `y`, `p` and `r`
    /// declared (variables 0 to 3: masks 1, 2, 4 and 8).
    fn reads_of(guard: &str) -> GuardReads {
        let src = format!(
            "var x: 0..3 = 0\nvar y: 0..3 = 0\nvar p: node = self\nvar r: node = self\n\
             process {{ a :: {guard} -> skip }}\n"
        );
        let ast = crate::syntax::parse_program(&src).expect("parses");
        let prog = crate::check::check(&ast).expect("checks");
        let action = &prog.roles[0].actions[0];
        guard_reads(&action.guard, action.binder.as_ref())
    }

    /// A variable read only at the process's neighbours is not read at the
    /// process itself; one read through a node variable may be, as is the
    /// node variable; a `min` over the neighbours reads them only.
    #[test]
    fn what_is_read_at_the_process_itself_is_told_from_what_is_read_at_neighbours() {
        let (x, y, p) = (1, 2, 4);
        let cases = [
            ("exists(q in nbrs : q.x > 0)", x, 0),
            ("x > 0 and forall(q in nbrs : q.y == x)", x | y, x),
            ("p.x > y", x | y | p, x | y | p),
            ("min(q in nbrs : q.x) > y", x | y, y),
            ("exists(q in nbrs : q.p == self and q.p.y == 0)", y | p, y),
        ];
        for (guard, others_or_own, at_self) in cases {
            let reads = reads_of(guard);
            assert_eq!(reads.anywhere, others_or_own, "{guard}");
            assert_eq!(reads.at_self, at_self, "{guard}");
        }
    }

    /// What one node variable names is told from the other processes a
    /// guard reads (variable 2 is `p`); through two such variables, or
    /// through a neighbour's, it is not.
    #[test]
    fn what_is_read_where_a_node_variable_points_is_told_apart() {
        let (x, y, p, r) = (1, 2, 4, 8);
        let cases = [
            ("p.x > y", Some((2, x)), 0),
            (
                "p.x == p.y and exists(q in nbrs : q.y > 0)",
                Some((2, x | y)),
                y,
            ),
            ("p.x > 0 and r.y > 0", None, x | y),
            ("exists(q in nbrs : q.p.x > 0)", None, x | p),
            ("x > 0 and p == self", None, 0),
        ];
        for (guard, named, elsewhere) in cases {
            let reads = reads_of(guard);
            assert_eq!(reads.named, named, "{guard}");
            assert_eq!(reads.others_elsewhere, elsewhere, "{guard}");
            // Whatever is read at another process is in one or the other.
            let there = named.map_or(0, |n| n.1);
            assert_eq!(reads.others, elsewhere | there, "{guard}");
            assert_eq!(reads.others & r, 0, "{guard}");
        }
    }

    /// What is read of a neighbour past a test `q.p == self` (either way
    /// round) in a quantifier over the neighbours is told from what is
    /// read of every neighbour (before the test, or with no test); one
    /// node variable's tests count (the first found).
    #[test]
    fn what_is_read_past_a_test_of_a_neighbours_node_variable_is_told_apart() {
        let (x, y, p, r) = (1, 2, 4, 8);
        let cases = [
            (
                "forall(q in nbrs : q.p == self => q.x > 0)",
                Some((2, p | x)),
                0,
            ),
            (
                "exists(q in nbrs : q.y > 0 and self == q.p and q.x > 0)",
                Some((2, p | x)),
                y,
            ),
            (
                "count(q in nbrs : q.p == self and q.p.y > 0) > 1",
                Some((2, p | y)),
                0,
            ),
            (
                "sum(q in {s in nbrs : s.p == self} : q.x) > 1",
                Some((2, p | x)),
                0,
            ),
            ("exists(q in nbrs : q.p == q and q.x > 0)", None, p | x),
            ("exists(q in nbrs : q.x > 0 => q.p == self)", None, p | x),
            (
                "exists(q in nbrs : q.p == self) and exists(q in nbrs : q.r == self and q.y > 0)",
                Some((2, p)),
                r | y,
            ),
        ];
        for (guard, under, elsewhere) in cases {
            let reads = reads_of(guard);
            assert_eq!(reads.under, under, "{guard}");
            assert_eq!(reads.others_elsewhere, elsewhere, "{guard}");
            // Whatever is read at another process is in one or the other.
            assert_eq!(
                reads.others,
                elsewhere | under.map_or(0, |u| u.1),
                "{guard}"
            );
        }
    }

    /// A local slot bound to the neighbours in one place and to every
    /// process in another (slots are reused side by side) may name the
    /// process itself.
    #[test]
    fn a_slot_bound_beyond_the_neighbours_anywhere_may_be_the_process_itself() {
        let read = |v| Box::new(BExpr::Var(Proc::Local(0), v));
        let nbrs = BExpr::Exists(0, Coll::NbrsOf(Proc::Me), read(0));
        assert_eq!(guard_reads(&nbrs, None).at_self, 0);
        let both = BExpr::And(
            Box::new(nbrs),
            Box::new(BExpr::Forall(0, Coll::Procs, read(1))),
        );
        assert_eq!(guard_reads(&both, None).at_self, 0b11);
    }
}
