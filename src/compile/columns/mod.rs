//! Column kernels: guards and statements compiled a second time, for the
//! synchronous daemon on rings, into operations over a run of consecutive
//! processes at once. Each operation is a tight loop over slices (the
//! compiler vectorizes it) instead of a closure called once per process.
//! The hottest loops are built for several instruction sets and chosen by
//! the processor's features at run time (`multiversion`): plain x86-64 has
//! no 64-bit vector comparison.
//!
//! Only programs whose reads stay on the ring (own variables, `left`,
//! `right`, `index`, `id`, constants) and whose statements assign their own
//! variables compile; loops over constant ranges are unrolled and whole
//! arrays taken element by element. The others run process by process. A kernel
//! never reports a fault itself: it says that one may have happened
//! (overflow, division by zero, a value outside its domain, anywhere in the
//! chunk) and the runtime redoes the step process by process, which raises
//! the same diagnostic as always.

use super::{const_eval, Compiler, VarDomain, NO_ACTION};
use crate::check::ir::VarKind;
use crate::check::ir::{self, Arith, BExpr, Cmp, IExpr, Proc, Stmt, Value};
use multiversion::multiversion;

mod build;
mod kernels;

pub(in crate::compile) use build::compile;
use kernels::{choose_where, copy_column, kernel, side, view};
pub use kernels::{count_equal, ColumnValue};

/// Processes evaluated together: small enough that every register stays in
/// the first-level cache.
pub const CHUNK: usize = 1024;

/// Where an operand comes from.
#[derive(Clone, Copy, Debug)]
enum Src {
    /// A slot of the process itself (in a statement: its row as updated so far).
    Own(usize),
    /// A slot of the left neighbour (`i - 1`, wrapping).
    Left(usize),
    /// A slot of the right neighbour (`i + 1`, wrapping).
    Right(usize),
    /// The process's index.
    Index,
    /// The process's id.
    Id,
    /// A register: a constant or an earlier operation's result.
    Reg(usize),
}

/// One operation over a chunk; booleans are 0 and 1.
#[derive(Clone, Copy, Debug)]
enum Op {
    Arith(Arith, Src, Src, usize),
    Neg(Src, usize),
    Abs(Src, usize),
    Cmp(Cmp, Src, Src, usize),
    And(Src, Src, usize),
    Or(Src, Src, usize),
    Not(Src, usize),
    /// `a == b` (true) or `a != b` (false) on booleans.
    BoolEq(bool, Src, Src, usize),
    /// A value kept in a register.
    Copy(Src, usize),
}

impl Op {
    /// Whether it reads the process's own row.
    fn reads_own(&self) -> bool {
        let (a, b, _) = self.operands();
        matches!(a, Src::Own(_)) || matches!(b, Some(Src::Own(_)))
    }

    /// Its first operand, its second if it has one, and its output register.
    fn operands(&self) -> (Src, Option<Src>, usize) {
        match *self {
            Op::Arith(_, a, b, o)
            | Op::Cmp(_, a, b, o)
            | Op::And(a, b, o)
            | Op::Or(a, b, o)
            | Op::BoolEq(_, a, b, o) => (a, Some(b), o),
            Op::Neg(a, o) | Op::Abs(a, o) | Op::Not(a, o) | Op::Copy(a, o) => (a, None, o),
        }
    }
}

/// An expression: the operations that compute it, in order, and its value.
#[derive(Clone, Debug)]
struct Kernel {
    ops: Vec<Op>,
    value: Src,
}

/// A simultaneous assignment: every value computed before any lands.
#[derive(Clone, Debug)]
struct Group {
    ops: Vec<Op>,
    writes: Vec<Write>,
}

/// One assignment of a group.
#[derive(Clone, Debug)]
struct Write {
    slot: usize,
    value: Src,
    /// The range a value must be in, when the variable's domain is one.
    range: Option<(i64, i64)>,
}

/// An action: its guard and its statement as a sequence of groups.
#[derive(Clone, Debug)]
struct ColAction {
    /// The guard; when it ends in a comparison, that comparison is
    /// `last_cmp` instead, made while choosing (one pass fewer).
    guard: Kernel,
    last_cmp: Option<(Cmp, Src, Src)>,
    /// Whether the statement is one assignment of every slot of the row
    /// from values that are not the row's own.
    rewrites_row: bool,
    body: Vec<Group>,
}

/// A program's column form: per role, its actions in the compiled
/// (priority) order.
#[derive(Clone, Debug)]
pub struct ColumnCode {
    roles: Vec<Vec<ColAction>>,
    /// Register values that never change (constants).
    constants: Vec<i64>,
    /// Registers in all.
    registers: usize,
    stride: usize,
    /// Whether every variable's values fit `i32` (see [`ColumnValue`]).
    narrows: bool,
}

/// The registers kernels compute into; made once, reused every step.
pub struct Scratch {
    regs: Vec<Vec<i64>>,
    gather: [Vec<i64>; 2],
}

impl Scratch {
    /// Bytes held.
    pub fn bytes(&self) -> usize {
        (self.regs.len() + 2) * CHUNK * 8
    }
}

/// What kernels read: the configuration for neighbours, the rows for the
/// process itself (the same in guards; the rows updated so far in
/// statements), and ids; values kept as `T` (see [`ColumnValue`]).
pub struct Rows<'a, T = i64> {
    /// The configuration neighbours are read from.
    pub state: &'a [T],
    /// Where own reads come from: the chunk's rows, `stride` values each.
    pub own: &'a [T],
    /// Process ids, or none where every id is its process's index.
    pub ids: &'a [i64],
    /// The number of processes.
    pub n: usize,
}

/// A chunk could fault: the step must be redone process by process.
#[derive(Debug)]
pub struct MayFault;

impl ColumnCode {
    /// Whether every variable's domain fits `i32`, so that kernels can
    /// keep the configuration narrowed (values read from it or written to
    /// it lie in their domains: writes outside are caught first).
    pub fn narrows(&self) -> bool {
        self.narrows
    }

    /// Whether some guard reads the left neighbour, and whether some reads
    /// the right one: a move changes only the guards of the processes
    /// that read it.
    pub fn guards_read(&self) -> (bool, bool) {
        let (mut left, mut right) = (false, false);
        let mut see = |src: Src| match src {
            Src::Left(_) => left = true,
            Src::Right(_) => right = true,
            _ => {}
        };
        for act in self.roles.iter().flatten() {
            for op in &act.guard.ops {
                let (a, b, _) = op.operands();
                see(a);
                b.into_iter().for_each(&mut see);
            }
            see(act.guard.value);
            if let Some((_, x, y)) = act.last_cmp {
                see(x);
                see(y);
            }
        }
        (left, right)
    }

    /// Fresh registers for this code.
    pub fn scratch(&self) -> Scratch {
        let mut regs = vec![vec![0; CHUNK]; self.registers];
        for (r, &c) in self.constants.iter().enumerate() {
            regs[r].fill(c);
        }
        Scratch {
            regs,
            gather: [vec![0; CHUNK], vec![0; CHUNK]],
        }
    }

    /// Chooses for processes `lo..lo + out.len()` of role `role` their
    /// first action whose guard holds (`NO_ACTION` when none), reading
    /// `rows.own` as the rows of exactly those processes.
    pub fn choose<T: ColumnValue>(
        &self,
        role: usize,
        rows: &Rows<T>,
        lo: usize,
        out: &mut [u16],
        s: &mut Scratch,
    ) -> Result<(), MayFault> {
        if self.roles[role].is_empty() {
            out.fill(NO_ACTION);
        }
        for (a, act) in self.roles[role].iter().enumerate() {
            let a = a as u16;
            let mut bad = false;
            for op in &act.guard.ops {
                bad |= self.run(op, rows, lo, out.len(), s);
            }
            if bad {
                return Err(MayFault);
            }
            let len = out.len();
            let (s0, s1) = s.gather.split_at_mut(1);
            let regs = &s.regs;
            // The first action's choice needs no look at earlier ones.
            let first = a == 0;
            let Some((cmp, x, y)) = act.last_cmp else {
                let g = view(
                    self.stride,
                    act.guard.value,
                    rows,
                    lo,
                    len,
                    regs,
                    &mut s0[0],
                );
                for (c, &g) in out.iter_mut().zip(g) {
                    *c = if (first || *c == NO_ACTION) && g != 0 {
                        a
                    } else if first {
                        NO_ACTION
                    } else {
                        *c
                    };
                }
                continue;
            };
            // Compared as the rows keep them where both lie side by side.
            let (sx, sy) = (
                side(self.stride, x, rows, lo, len),
                side(self.stride, y, rows, lo, len),
            );
            if let (Some(x), Some(y)) = (sx, sy) {
                T::choose_where(cmp, first, a, x, y, out);
                continue;
            }
            let x = view(self.stride, x, rows, lo, len, regs, &mut s0[0]);
            let y = view(self.stride, y, rows, lo, len, regs, &mut s1[0]);
            choose_where(cmp, first, a, x, y, out);
        }
        Ok(())
    }

    /// Runs the statements of processes `lo..` of role `role`, each the
    /// one `chosen` names (none for `NO_ACTION`; with the action all of them
    /// chose, where that is known, so that the column is not read for
    /// it), writing their rows after the step into `next`; reads neighbours
    /// in `before.state` (`before.own` is not read). Adds to `moved[a]` the
    /// processes that ran action `a`.
    #[allow(clippy::too_many_arguments)]
    pub fn execute<T: ColumnValue>(
        &self,
        role: usize,
        before: &Rows<T>,
        lo: usize,
        (chosen, all_chose): (&[u16], Option<u16>),
        next: &mut [T],
        s: &mut Scratch,
        moved: &mut [u64],
    ) -> Result<(), MayFault> {
        let len = chosen.len();
        let stride = self.stride;
        let old = &before.state[lo * stride..(lo + len) * stride];
        // The common synchronous case: the whole chunk runs one action.
        let (first, uniform) = match all_chose {
            Some(a) => (a, true),
            None => {
                let first = chosen.first().copied().unwrap_or(NO_ACTION);
                (first, count_equal(chosen, first) == len)
            }
        };
        // Rows start as they were, unless that action rewrites whole rows
        // without reading them.
        if !(uniform && first != NO_ACTION && self.roles[role][first as usize].rewrites_row) {
            copy_column(next, old);
        }
        for (a, act) in self.roles[role].iter().enumerate() {
            let a = a as u16;
            let running = match (uniform, a == first) {
                (true, true) => len,
                (true, false) => 0,
                (false, _) => count_equal(chosen, a),
            };
            if running == 0 {
                continue;
            }
            // The move counts, from the count the kernels need anyway.
            moved[usize::from(a)] += running as u64;
            let everyone = running == len;
            for group in &act.body {
                let rows = Rows {
                    state: before.state,
                    own: next,
                    ids: before.ids,
                    n: before.n,
                };
                let mut bad = false;
                for op in &group.ops {
                    bad |= self.run(op, &rows, lo, len, s);
                }
                if bad {
                    return Err(MayFault);
                }
                // Every value is in a register or in the old configuration,
                // so writes cannot disturb the values still to land.
                for w in &group.writes {
                    // A neighbour's value that needs no check, copied as
                    // the rows keep it.
                    let neighbour = matches!(w.value, Src::Left(_) | Src::Right(_));
                    if let (true, None) = (neighbour, w.range) {
                        if let Some(v) = side(stride, w.value, before, lo, len) {
                            match everyone {
                                true => copy_column(next, v),
                                false => T::copy_where(next, v, chosen, a),
                            }
                            continue;
                        }
                    }
                    let v = view(stride, w.value, before, lo, len, &s.regs, &mut s.gather[0]);
                    if let Some((lo, hi)) = w.range {
                        let outside = chosen.iter().zip(v).fold(false, |o, (&c, &x)| {
                            o | ((c == a) & !(lo..=hi).contains(&x))
                        });
                        if outside {
                            return Err(MayFault);
                        }
                    }
                    let cells = next[w.slot..].iter_mut().step_by(stride);
                    match (everyone, stride) {
                        (true, 1) => T::narrow_from(next, v),
                        (true, _) => cells.zip(v).for_each(|(cell, &x)| *cell = T::narrow(x)),
                        (false, 1) => T::write_where(next, v, chosen, a),
                        (false, _) => {
                            for ((cell, &c), &x) in cells.zip(chosen).zip(v) {
                                *cell = if c == a { T::narrow(x) } else { *cell };
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs one operation; whether it may have faulted.
    fn run<T: ColumnValue>(
        &self,
        op: &Op,
        rows: &Rows<T>,
        lo: usize,
        len: usize,
        s: &mut Scratch,
    ) -> bool {
        let (a, b, o) = op.operands();
        // The output register is taken out so operands can borrow the rest.
        let mut out = std::mem::take(&mut s.regs[o]);
        let Scratch { regs, gather } = s;
        let [g0, g1] = gather;
        let x = view(self.stride, a, rows, lo, len, regs, g0);
        let y = b.map(|b| view(self.stride, b, rows, lo, len, regs, g1));
        let bad = kernel(op, x, y, &mut out[..len]);
        s.regs[o] = out;
        bad
    }
}
