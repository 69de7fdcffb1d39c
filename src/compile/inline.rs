//! Guards and statements a run loop can evaluate itself, without calling
//! their closures: a guard that compares two reads, and a statement that
//! assigns one, where each read is a constant, the process's own
//! variable or, on a ring, its left neighbour's (Dijkstra's `x !=
//! left.x -> x := left.x`). The lean ring loop
//! (`runtime/engine/lean_ring.rs`) takes them. They mean what the
//! closures compiled from the same action do: the reads are those a
//! fused closure makes ([`super::fused`]), neither can fault, and the
//! value assigned lies in its variable's domain, so the closure checks
//! nothing either.

use super::fused::Plain;
use super::Compiler;
use crate::check::ir::{self, BExpr, Cmp, IExpr, Value, VarKind};

/// A read an inline guard or statement makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InlineRead {
    /// A constant.
    Const(i64),
    /// A slot of the process's own row.
    Own(usize),
    /// A slot of its left neighbour's row, on a ring.
    Left(usize),
}

impl InlineRead {
    /// Its value in `state` (rows of `stride` values) for process `me`,
    /// whose left neighbour is `left`.
    #[inline(always)]
    pub fn get(self, state: &[i64], stride: usize, me: usize, left: usize) -> i64 {
        match self {
            InlineRead::Const(c) => c,
            InlineRead::Own(slot) => state[me * stride + slot],
            InlineRead::Left(slot) => state[left * stride + slot],
        }
    }
}

/// A guard `a op b` of two reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineGuard {
    /// The comparison.
    pub op: Cmp,
    /// Its left side.
    pub a: InlineRead,
    /// Its right side.
    pub b: InlineRead,
}

impl InlineGuard {
    /// Whether it holds (as [`InlineRead::get`] reads).
    #[inline(always)]
    pub fn holds(&self, state: &[i64], stride: usize, me: usize, left: usize) -> bool {
        let read = |r: InlineRead| r.get(state, stride, me, left);
        self.op.holds(read(self.a), read(self.b))
    }
}

/// A statement `slot := value` of one read, whose values all lie in the
/// variable's domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineAssign {
    /// The slot of the mover's row it writes.
    pub slot: usize,
    /// The value it writes, read before the move.
    pub value: InlineRead,
}

impl Compiler<'_> {
    /// Guard `g` as an inline guard, where it is one (this compiler
    /// compiling guards).
    pub(super) fn inline_guard(&self, g: &BExpr) -> Option<InlineGuard> {
        let BExpr::Cmp(op, a, b) = g else {
            return None;
        };
        Some(InlineGuard {
            op: *op,
            a: self.inline_read(a)?,
            b: self.inline_read(b)?,
        })
    }

    /// Statement `s` as an inline assignment, where it is one (this
    /// compiler compiling guards, as an action's statement reads before it
    /// writes: see `Compiler::stmt_after`).
    pub(super) fn inline_assign(&self, s: &ir::Stmt) -> Option<InlineAssign> {
        let (targets, values) = match s {
            ir::Stmt::Assign(targets, values) => (targets, values),
            ir::Stmt::Seq(v) => match &v[..] {
                [ir::Stmt::Assign(targets, values)] => (targets, values),
                _ => return None,
            },
            _ => return None,
        };
        let ([target], [value @ Value::Int(x)]) = (&targets[..], &values[..]) else {
            return None;
        };
        let var = &self.prog.vars[target.var];
        let scalar = target.index.is_none() && var.len.is_none() && !self.per_nbr[target.var];
        if !scalar || var.kind != VarKind::Plain || !self.within_domain(target, value) {
            return None;
        }
        Some(InlineAssign {
            slot: self.offsets[target.var],
            value: self.inline_read(x)?,
        })
    }

    /// `e` as an inline read, where it is one.
    fn inline_read(&self, e: &IExpr) -> Option<InlineRead> {
        match self.plain(e)? {
            Plain::Const(c) => Some(InlineRead::Const(c)),
            Plain::Own(slot) => Some(InlineRead::Own(slot)),
            Plain::Left(slot, _) => Some(InlineRead::Left(slot)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::{Effects, Env, Holds};
    use crate::load::{check, Setup};
    use crate::state::channels::Channels;
    use rand::{Rng, SeedableRng};
    use std::cell::Cell;

    /// Actions whose guard or statement is inline, and others that only
    /// look so (a sum, the right neighbour, a value past the target's
    /// domain, two assignments).
    const ACTIONS: &str = "
param K = 5
var x: 0..K-1
var y: 0..3
process {
    a :: x != left.x -> x := left.x
    b :: 2 < x -> x := 0
    c :: left.x >= 1 -> x := x
    d :: x == y -> y := 3
    e :: x < left.y -> y := left.y
    f :: x + 1 == left.x -> x := (x + 1) mod K
    g :: x <= right.x -> x := right.x
    h :: x > 1 -> y := x
    i :: 1 == 1 -> x := left.x; y := 0
}
";

    /// Which actions the compiler finds inline, and that each inline form
    /// gives what the closures compiled beside it give, at every process
    /// of random configurations on a ring.
    #[test]
    fn inline_forms_mean_what_their_closures_do() {
        let setup = Setup {
            topology: Some("ring:5".into()),
            ..Setup::default()
        };
        let inst = check(ACTIONS)
            .expect("checks")
            .instantiate(&setup, &|_| Err("no files".into()))
            .expect("compiles");
        let (code, topo) = (&inst.code, &inst.topo);
        let actions = &code.roles[0].actions;
        let found: Vec<(&str, bool, bool)> = (actions.iter())
            .map(|a| {
                (
                    &a.label[..],
                    a.inline_guard.is_some(),
                    a.inline_assign.is_some(),
                )
            })
            .collect();
        let expected = [
            ("a", true, true),
            ("b", true, true),
            ("c", true, true),
            ("d", true, true),
            ("e", true, true),
            ("f", false, false),
            ("g", false, false),
            ("h", true, false),
            ("i", true, false),
        ];
        assert_eq!(found, expected);
        let stride = code.stride;
        let locals = vec![Cell::new(0); code.max_locals];
        let (chans, fx) = (Channels::default(), Effects::default());
        let scratch = vec![Cell::new(0); stride];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            // `x` in 0..5, `y` in 0..4.
            let state: Vec<i64> = (0..5 * stride)
                .map(|k| rng.gen_range(0..if k % stride == code.offsets[0] { 5 } else { 4 }))
                .collect();
            for me in 0..5 {
                let left = topo.left(me) as usize;
                let env = Env {
                    scratch: &scratch,
                    ..Env::new(&state, topo, &locals, &chans, &fx, me)
                };
                for a in actions {
                    if let Some(g) = a.inline_guard {
                        let closure = a.guard.holds(&env).expect("no fault");
                        assert_eq!(g.holds(&state, stride, me, left), closure, "{}", a.label);
                    }
                    if let Some(assign) = a.inline_assign {
                        let row = &state[me * stride..(me + 1) * stride];
                        scratch.iter().zip(row).for_each(|(c, &v)| c.set(v));
                        (a.body)(&env).expect("no fault");
                        let mut want = row.to_vec();
                        want[assign.slot] = assign.value.get(&state, stride, me, left);
                        let got: Vec<i64> = scratch.iter().map(Cell::get).collect();
                        assert_eq!(got, want, "{}", a.label);
                    }
                }
            }
        }
    }
}
