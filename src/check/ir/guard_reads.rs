//! Which variables a guard reads, at its own process and at others, and
//! roughly what evaluating it costs: what the bookkeeping after a step
//! needs to leave alone the guards the step cannot have changed.

use super::analysis::{Part, ReadWalk};
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
    let mut reads = GuardReads {
        anywhere: 0,
        others: 0,
        cost: 0,
    };
    let mut quantifiers = 0;
    let mut beyond_variables = false;
    {
        let mut visit = |at: &Proc, v: usize, _: Option<&IExpr>| {
            reads.anywhere |= var_bit(v);
            reads.cost += 1;
            if !matches!(at, Proc::Me) {
                reads.others |= var_bit(v);
            }
        };
        let mut each = |part: Part| {
            beyond_variables |= matches!(
                part,
                Part::Enabled | Part::Int(IExpr::Msgs(..) | IExpr::Random(..))
            );
            let quantifier = matches!(
                part,
                Part::Quantifier | Part::Int(IExpr::Count(..) | IExpr::Sum(..) | IExpr::Best(_))
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
    reads.cost += 4 * quantifiers;
    reads
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
