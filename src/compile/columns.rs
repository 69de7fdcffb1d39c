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

/// What kernels read: the configuration for neighbours (its length gives
/// the ring's size), the rows for the process itself (the same in guards;
/// the rows updated so far in statements), and ids.
pub struct Rows<'a> {
    /// The configuration neighbours are read from.
    pub state: &'a [i64],
    /// Where own reads come from: the chunk's rows, `stride` values each.
    pub own: &'a [i64],
    /// Process ids.
    pub ids: &'a [i64],
}

/// A chunk could fault: the step must be redone process by process.
#[derive(Debug)]
pub struct MayFault;

impl ColumnCode {
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
    pub fn choose(
        &self,
        role: usize,
        rows: &Rows,
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
            let x = view(self.stride, x, rows, lo, len, regs, &mut s0[0]);
            let y = view(self.stride, y, rows, lo, len, regs, &mut s1[0]);
            choose_where(cmp, first, a, x, y, out);
        }
        Ok(())
    }

    /// Runs the statements of processes `lo..` of role `role`, each the
    /// one `chosen` names (none for `NO_ACTION`), writing their rows after
    /// the step into `next`; reads neighbours in `before.state` (`before.own`
    /// is not read).
    pub fn execute(
        &self,
        role: usize,
        before: &Rows,
        lo: usize,
        chosen: &[u16],
        next: &mut [i64],
        s: &mut Scratch,
    ) -> Result<(), MayFault> {
        let len = chosen.len();
        let stride = self.stride;
        let old = &before.state[lo * stride..(lo + len) * stride];
        // The common synchronous case: the whole chunk runs one action.
        let first = chosen.first().copied().unwrap_or(NO_ACTION);
        let uniform = count_equal(chosen, first) == len;
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
            let everyone = running == len;
            for group in &act.body {
                let rows = Rows {
                    state: before.state,
                    own: next,
                    ids: before.ids,
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
                        (true, 1) => copy_column(next, v),
                        (true, _) => cells.zip(v).for_each(|(cell, &x)| *cell = x),
                        (false, 1) => write_where(next, v, chosen, a),
                        (false, _) => {
                            for ((cell, &c), &x) in cells.zip(chosen).zip(v) {
                                *cell = if c == a { x } else { *cell };
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs one operation; whether it may have faulted.
    fn run(&self, op: &Op, rows: &Rows, lo: usize, len: usize, s: &mut Scratch) -> bool {
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

/// Elements a column is moved in at a time by [`write_blocks`] when it
/// goes through the stack.
const BOUNCE: usize = 128;

/// Copies `src` into `dst` (of the same length), see [`write_blocks`].
fn copy_column(dst: &mut [i64], src: &[i64]) {
    write_blocks(dst, src, |dst, src, _| dst.copy_from_slice(src));
}

/// Sets `dst[i] = src[i]` where `chosen[i] == a` (all of the same length),
/// see [`write_blocks`].
fn write_where(dst: &mut [i64], src: &[i64], chosen: &[u16], a: u16) {
    write_blocks(dst, src, |dst, src, at| {
        let chosen = &chosen[at..at + src.len()];
        for ((cell, &c), &x) in dst.iter_mut().zip(chosen).zip(src) {
            *cell = if c == a { x } else { *cell };
        }
    });
}

/// Whether streaming stores to `dst` while loading `src` ahead of them
/// would hit addresses equal in their low 12 bits to stores just made.
///
/// Why it matters: the configuration and the next one are large
/// allocations, often at the same offset within a page, so `dst[i]` and
/// `src[i - 1]` (a left neighbour's value) can differ by 8 bytes in their
/// low 12 address bits. The processor then takes loads to depend on the
/// stores before them and stalls: on this machine a direct copy ran at a
/// tenth of the speed of one through the stack.
fn stores_alias_loads(dst: &[i64], src: &[i64]) -> bool {
    let ahead = (dst.as_ptr() as usize).wrapping_sub(src.as_ptr() as usize) % 4096;
    (1..1024).contains(&ahead)
}

/// Runs `write(dst_part, src_part, offset)` over `dst` and `src` (of the
/// same length): in one call on the slices themselves, or, when stores
/// to `dst` would alias loads from `src` (see [`stores_alias_loads`]),
/// block by block, each block of `src` first copied to the stack.
fn write_blocks(dst: &mut [i64], src: &[i64], mut write: impl FnMut(&mut [i64], &[i64], usize)) {
    debug_assert_eq!(dst.len(), src.len());
    if !stores_alias_loads(dst, src) {
        write(dst, src, 0);
        return;
    }
    let mut buf = [0i64; BOUNCE];
    for (k, (d, s)) in dst.chunks_mut(BOUNCE).zip(src.chunks(BOUNCE)).enumerate() {
        let b = &mut buf[..s.len()];
        b.copy_from_slice(s);
        write(d, b, k * BOUNCE);
    }
}

/// Sets `out[i]` to `a` where `x[i] cmp y[i]` and no earlier action was
/// chosen (`first`: none was before), else leaves it (`NO_ACTION` when
/// `first`).
#[multiversion(targets = "simd")]
fn choose_where(cmp: Cmp, first: bool, a: u16, x: &[i64], y: &[i64], out: &mut [u16]) {
    ir::specialize_cmp!(cmp, OP => {
        if first {
            for ((c, &x), &y) in out.iter_mut().zip(x).zip(y) {
                *c = if OP.holds(x, y) { a } else { NO_ACTION };
            }
        } else {
            for ((c, &x), &y) in out.iter_mut().zip(x).zip(y) {
                *c = if *c == NO_ACTION && OP.holds(x, y) { a } else { *c };
            }
        }
    })
}

/// How many of `chosen` (at most [`CHUNK`]) equal `a`, counted in 16-bit
/// lanes so the loop vectorizes.
#[multiversion(targets = "simd")]
pub fn count_equal(chosen: &[u16], a: u16) -> usize {
    debug_assert!(chosen.len() <= CHUNK);
    usize::from(chosen.iter().fold(0u16, |n, &c| n + u16::from(c == a)))
}

/// The values of `src` for processes `lo..lo + len`: a slice of the rows
/// when they lie side by side, else gathered into `buf`.
fn view<'a>(
    stride: usize,
    src: Src,
    rows: &Rows<'a>,
    lo: usize,
    len: usize,
    regs: &'a [Vec<i64>],
    buf: &'a mut [i64],
) -> &'a [i64] {
    // Not the rows' length over the stride: a program without variables has
    // empty rows.
    let n = rows.ids.len();
    match src {
        Src::Reg(r) => &regs[r][..len],
        Src::Id => &rows.ids[lo..lo + len],
        Src::Own(_) if stride == 1 => &rows.own[..len],
        Src::Left(_) if stride == 1 && lo >= 1 => &rows.state[lo - 1..lo - 1 + len],
        Src::Right(_) if stride == 1 && lo + len < n => &rows.state[lo + 1..lo + 1 + len],
        _ => {
            let buf = &mut buf[..len];
            for (i, b) in buf.iter_mut().enumerate() {
                let p = lo + i;
                *b = match src {
                    Src::Own(slot) => rows.own[i * stride + slot],
                    Src::Left(slot) => {
                        rows.state[(if p == 0 { n - 1 } else { p - 1 }) * stride + slot]
                    }
                    Src::Right(slot) => {
                        rows.state[(if p + 1 == n { 0 } else { p + 1 }) * stride + slot]
                    }
                    Src::Index => p as i64,
                    Src::Reg(_) | Src::Id => unreachable!("read in place above"),
                };
            }
            buf
        }
    }
}

/// One operation's loop; whether it may have faulted.
#[multiversion(targets = "simd")]
fn kernel(op: &Op, x: &[i64], y: Option<&[i64]>, out: &mut [i64]) -> bool {
    let y = y.unwrap_or(x);
    let mut bad = false;
    macro_rules! each {
        (|$a:ident, $b:ident| $e:expr) => {
            for ((o, &$a), &$b) in out.iter_mut().zip(x).zip(y) {
                *o = $e;
            }
        };
    }
    match *op {
        // Each operator's loop on its own, so each vectorizes.
        Op::Arith(Arith::Add, ..) => each!(|a, b| {
            let (v, o) = Arith::Add.apply_flagged(a, b);
            bad |= o;
            v
        }),
        Op::Arith(Arith::Sub, ..) => each!(|a, b| {
            let (v, o) = Arith::Sub.apply_flagged(a, b);
            bad |= o;
            v
        }),
        Op::Arith(Arith::Mul, ..) => each!(|a, b| {
            let (v, o) = Arith::Mul.apply_flagged(a, b);
            bad |= o;
            v
        }),
        Op::Arith(Arith::Min, ..) => each!(|a, b| Arith::Min.apply_flagged(a, b).0),
        Op::Arith(Arith::Max, ..) => each!(|a, b| Arith::Max.apply_flagged(a, b).0),
        Op::Arith(op, ..) => each!(|a, b| {
            let (v, o) = op.apply_flagged(a, b);
            bad |= o;
            v
        }),
        Op::Neg(..) => each!(|a, _b| {
            let r = ir::negate(a);
            bad |= r.is_none();
            r.unwrap_or(0)
        }),
        Op::Abs(..) => each!(|a, _b| {
            let r = ir::absolute(a);
            bad |= r.is_none();
            r.unwrap_or(0)
        }),
        Op::Cmp(c, ..) => ir::specialize_cmp!(c, OP => each!(|a, b| i64::from(OP.holds(a, b)))),
        Op::And(..) => each!(|a, b| a & b),
        Op::Or(..) => each!(|a, b| a | b),
        Op::Not(..) => each!(|a, _b| 1 - a),
        Op::BoolEq(eq, ..) => each!(|a, b| i64::from((a == b) == eq)),
        Op::Copy(..) => each!(|a, _b| a),
    }
    bad
}

/// Compiles a program's column form, or `None` when some guard or
/// statement reads or writes anything but what [`Src`] names.
pub(super) fn compile(c: &Compiler, roles: &[Vec<&ir::Action>]) -> Option<ColumnCode> {
    if !c.regular_ring {
        return None;
    }
    let mut b = Builder {
        c,
        constants: Vec::new(),
        ops: Vec::new(),
        next: 0,
        most: 0,
        unrolled: Vec::new(),
    };
    let mut out = Vec::new();
    for actions in roles {
        let mut cols = Vec::new();
        for a in actions {
            if a.binder.is_some() || a.receive.is_some() {
                return None;
            }
            b.start();
            let value = b.bexpr(&a.guard)?;
            let mut ops = std::mem::take(&mut b.ops);
            let last_cmp = match ops.last() {
                Some(&Op::Cmp(cmp, x, y, o)) if matches!(value, Src::Reg(r) if r == o) => {
                    ops.pop();
                    Some((cmp, x, y))
                }
                _ => None,
            };
            let guard = Kernel { ops, value };
            let mut body = Vec::new();
            b.stmt(&a.body, &mut body)?;
            let rewrites_row = match &body[..] {
                [g] => {
                    let reads_own = g.ops.iter().any(|op| op.reads_own());
                    let mut slots: Vec<usize> = g.writes.iter().map(|w| w.slot).collect();
                    slots.sort_unstable();
                    slots.dedup();
                    !reads_own && slots.len() == c.stride
                }
                _ => false,
            };
            cols.push(ColAction {
                guard,
                last_cmp,
                rewrites_row,
                body,
            });
        }
        out.push(cols);
    }
    // Temporaries were numbered from CONSTANT_REGISTERS: move them down to
    // just after the constants used.
    let shift = CONSTANT_REGISTERS - b.constants.len();
    let fix = |s: &mut Src| {
        if let Src::Reg(r) = s {
            if *r >= CONSTANT_REGISTERS {
                *r -= shift;
            }
        }
    };
    let fix_ops = |ops: &mut Vec<Op>| {
        for op in ops {
            match op {
                Op::Arith(_, a, b, o)
                | Op::Cmp(_, a, b, o)
                | Op::And(a, b, o)
                | Op::Or(a, b, o)
                | Op::BoolEq(_, a, b, o) => {
                    fix(a);
                    fix(b);
                    *o -= shift;
                }
                Op::Neg(a, o) | Op::Abs(a, o) | Op::Not(a, o) | Op::Copy(a, o) => {
                    fix(a);
                    *o -= shift;
                }
            }
        }
    };
    for act in out.iter_mut().flatten() {
        fix_ops(&mut act.guard.ops);
        fix(&mut act.guard.value);
        if let Some((_, x, y)) = &mut act.last_cmp {
            fix(x);
            fix(y);
        }
        for g in &mut act.body {
            fix_ops(&mut g.ops);
            for w in &mut g.writes {
                fix(&mut w.value);
            }
        }
    }
    Some(ColumnCode {
        roles: out,
        registers: b.constants.len() + b.most,
        constants: b.constants,
        stride: c.stride,
    })
}

struct Builder<'a, 'b> {
    c: &'a Compiler<'b>,
    constants: Vec<i64>,
    ops: Vec<Op>,
    /// The next free temporary (counted after the constants).
    next: usize,
    /// The most temporaries any expression needed.
    most: usize,
    /// Loop variables of the loops being unrolled, innermost last: (slot, value).
    unrolled: Vec<(usize, i64)>,
}

/// The most iterations a loop over a range is unrolled into.
const MAX_UNROLL: i64 = 64;

/// Temporaries start after this many registers, which constants may use.
const CONSTANT_REGISTERS: usize = 64;

impl Builder<'_, '_> {
    /// Starts an expression: its temporaries may reuse the previous one's.
    fn start(&mut self) {
        self.next = 0;
        self.ops.clear();
    }

    fn constant(&mut self, v: i64) -> Option<Src> {
        let k = match self.constants.iter().position(|&c| c == v) {
            Some(k) => k,
            None if self.constants.len() < CONSTANT_REGISTERS => {
                self.constants.push(v);
                self.constants.len() - 1
            }
            None => return None,
        };
        Some(Src::Reg(k))
    }

    fn temp(&mut self) -> usize {
        let r = CONSTANT_REGISTERS + self.next;
        self.next += 1;
        self.most = self.most.max(self.next);
        r
    }

    /// The slot of an own scalar variable, or of an array element at a
    /// constant index: the only storage column kernels read or write.
    fn slot(&self, v: usize, index: Option<&IExpr>) -> Option<usize> {
        match index {
            None => self.element(v, None),
            Some(i) => self.element(v, Some(self.value_of(i)?)),
        }
    }

    /// [`Builder::slot`] with the index known.
    fn element(&self, v: usize, index: Option<i64>) -> Option<usize> {
        let var = &self.c.prog.vars[v];
        if var.kind != VarKind::Plain || var.per_nbr || var.ty == ir::Ty::Node {
            return None;
        }
        match (index, &var.len) {
            (None, None) => Some(self.c.offsets[v]),
            (Some(i), Some(_)) => (0..self.c.lens[v] as i64)
                .contains(&i)
                .then(|| self.c.offsets[v] + i as usize),
            _ => None,
        }
    }

    /// The value of an expression known at compile time: constants,
    /// parameters, and the variables of loops being unrolled.
    fn value_of(&self, e: &IExpr) -> Option<i64> {
        match e {
            IExpr::Local(slot) => self
                .unrolled
                .iter()
                .rev()
                .find(|(s, _)| s == slot)
                .map(|&(_, v)| v),
            IExpr::Arith(op, a, b, _) => op.apply(self.value_of(a)?, self.value_of(b)?),
            IExpr::Neg(a, _) => ir::negate(self.value_of(a)?),
            e => const_eval(e, &self.c.params, self.c.n),
        }
    }

    /// The values a loop over `lo..hi` unrolls into, when few enough.
    fn unroll(&self, coll: &ir::Coll) -> Option<std::ops::RangeInclusive<i64>> {
        let ir::Coll::Range(lo, hi) = coll else {
            return None;
        };
        let (lo, hi) = (self.value_of(lo)?, self.value_of(hi)?);
        (hi.saturating_sub(lo) < MAX_UNROLL).then_some(lo..=hi)
    }

    /// Bounds every value of `src` is known to lie within.
    fn bounds(&self, src: Src) -> Option<(i64, i64)> {
        match src {
            Src::Own(slot) | Src::Left(slot) | Src::Right(slot) => {
                let v = self.c.offsets.partition_point(|&o| o <= slot) - 1;
                match self.c.domains[v] {
                    VarDomain::Range(lo, hi) => Some((lo, hi)),
                    VarDomain::Bool => Some((0, 1)),
                    VarDomain::Enum(k) => Some((0, k as i64 - 1)),
                    VarDomain::Node => None,
                }
            }
            Src::Reg(r) => self.constants.get(r).map(|&c| (c, c)),
            Src::Index | Src::Id => None,
        }
    }

    /// A variable of the process itself or a ring neighbour.
    fn var(&mut self, p: &Proc, v: usize, index: Option<&IExpr>) -> Option<Src> {
        let slot = self.slot(v, index)?;
        self.var_at(p, slot)
    }

    /// A slot of the process itself or a ring neighbour.
    fn var_at(&self, p: &Proc, slot: usize) -> Option<Src> {
        match p {
            Proc::Me => Some(Src::Own(slot)),
            Proc::Left(_) => Some(Src::Left(slot)),
            Proc::Right(_) => Some(Src::Right(slot)),
            _ => None,
        }
    }

    fn op(&mut self, make: impl FnOnce(usize) -> Op) -> Option<Src> {
        let r = self.temp();
        self.ops.push(make(r));
        Some(Src::Reg(r))
    }

    fn iexpr(&mut self, e: &IExpr) -> Option<Src> {
        if let Some(v) = self.value_of(e) {
            return self.constant(v);
        }
        match e {
            IExpr::Var(p, v) => self.var(p, *v, None),
            IExpr::Elem(p, v, i, _) => self.var(p, *v, Some(i)),
            IExpr::Index(Proc::Me) => Some(Src::Index),
            IExpr::Id(Proc::Me) => Some(Src::Id),
            IExpr::Neg(a, _) => {
                let a = self.iexpr(a)?;
                self.op(|o| Op::Neg(a, o))
            }
            IExpr::Abs(a, _) => {
                let a = self.iexpr(a)?;
                self.op(|o| Op::Abs(a, o))
            }
            IExpr::Arith(op, a, b, _) => {
                let (a, b) = (self.iexpr(a)?, self.iexpr(b)?);
                self.op(|o| Op::Arith(*op, a, b, o))
            }
            IExpr::FromBool(b) => self.bexpr(b),
            _ => None,
        }
    }

    fn bexpr(&mut self, e: &BExpr) -> Option<Src> {
        match e {
            BExpr::Const(b) => self.constant(i64::from(*b)),
            BExpr::Var(p, v) => self.var(p, *v, None),
            BExpr::Elem(p, v, i, _) => self.var(p, *v, Some(i)),
            BExpr::Not(a) => {
                let a = self.bexpr(a)?;
                self.op(|o| Op::Not(a, o))
            }
            BExpr::And(a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                self.op(|o| Op::And(a, b, o))
            }
            BExpr::Or(a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                self.op(|o| Op::Or(a, b, o))
            }
            BExpr::Implies(a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                let na = self.op(|o| Op::Not(a, o))?;
                self.op(|o| Op::Or(na, b, o))
            }
            BExpr::BoolEq(eq, a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                self.op(|o| Op::BoolEq(*eq, a, b, o))
            }
            BExpr::Cmp(op, a, b) => {
                let (a, b) = (self.iexpr(a)?, self.iexpr(b)?);
                self.op(|o| Op::Cmp(*op, a, b, o))
            }
            // Over a constant range: unrolled into a chain of `and`s (`or`s).
            BExpr::Forall(slot, coll, body) | BExpr::Exists(slot, coll, body) => {
                let all = matches!(e, BExpr::Forall(..));
                let mut acc = self.constant(i64::from(all))?;
                for i in self.unroll(coll)? {
                    self.unrolled.push((*slot, i));
                    let b = self.bexpr(body);
                    self.unrolled.pop();
                    let b = b?;
                    acc = if all {
                        self.op(|o| Op::And(acc, b, o))?
                    } else {
                        self.op(|o| Op::Or(acc, b, o))?
                    };
                }
                Some(acc)
            }
            // Element by element.
            BExpr::ArrayEq(eq, p, v, q, w, _) => {
                let len = self.c.lens[*v].min(self.c.lens[*w]);
                let mut acc = self.constant(1)?;
                for k in 0..len as i64 {
                    let a = self.var_at(p, self.element(*v, Some(k))?)?;
                    let b = self.var_at(q, self.element(*w, Some(k))?)?;
                    let same = self.op(|o| Op::Cmp(Cmp::Eq, a, b, o))?;
                    acc = self.op(|o| Op::And(acc, same, o))?;
                }
                if *eq {
                    Some(acc)
                } else {
                    self.op(|o| Op::Not(acc, o))
                }
            }
            _ => None,
        }
    }

    /// Flattens a statement into groups of simultaneous assignments.
    fn stmt(&mut self, s: &Stmt, out: &mut Vec<Group>) -> Option<()> {
        match s {
            Stmt::Skip => Some(()),
            Stmt::Seq(list) => list.iter().try_for_each(|s| self.stmt(s, out)),
            Stmt::For(binder, body) if binder.filter.is_none() => {
                for i in self.unroll(&binder.coll)? {
                    self.unrolled.push((binder.slot, i));
                    let done = self.stmt(body, out);
                    self.unrolled.pop();
                    done?;
                }
                Some(())
            }
            Stmt::Assign(targets, values) => {
                self.start();
                /// What one slot is assigned.
                enum Rhs<'v> {
                    Int(&'v IExpr),
                    Bool(&'v BExpr),
                    /// A slot of a process: an element of a whole-array copy.
                    Slot(&'v Proc, usize),
                }
                // A whole array assigned from another is one write per element.
                let mut pairs: Vec<(usize, usize, Rhs)> = Vec::new();
                for (t, v) in targets.iter().zip(values) {
                    match v {
                        Value::Array(p, w) if t.index.is_none() => {
                            let len = self.c.lens[t.var].min(self.c.lens[*w]);
                            for k in 0..len as i64 {
                                let slot = self.element(t.var, Some(k))?;
                                let from = self.element(*w, Some(k))?;
                                pairs.push((t.var, slot, Rhs::Slot(p, from)));
                            }
                        }
                        Value::Array(..) => return None,
                        Value::Int(e) => {
                            pairs.push((t.var, self.slot(t.var, t.index.as_ref())?, Rhs::Int(e)))
                        }
                        Value::Bool(b) => {
                            pairs.push((t.var, self.slot(t.var, t.index.as_ref())?, Rhs::Bool(b)))
                        }
                    }
                }
                let mut writes = Vec::new();
                for (var, slot, rhs) in pairs {
                    let value = match rhs {
                        Rhs::Int(e) => self.iexpr(e)?,
                        Rhs::Bool(b) => self.bexpr(b)?,
                        Rhs::Slot(p, from) => self.var_at(p, from)?,
                    };
                    let known = self.bounds(value);
                    // Own values are read from the rows being written: keep them first.
                    let value = match value {
                        Src::Own(_) => self.op(|o| Op::Copy(value, o))?,
                        v => v,
                    };
                    let range = match self.c.domains[var] {
                        // A value read from a variable whose domain lies
                        // within, or a constant within, needs no check.
                        VarDomain::Range(lo, hi) => match known {
                            Some((l, h)) if lo <= l && h <= hi => None,
                            _ => Some((lo, hi)),
                        },
                        VarDomain::Bool | VarDomain::Enum(_) => None,
                        VarDomain::Node => return None,
                    };
                    writes.push(Write { slot, value, range });
                }
                out.push(Group {
                    ops: std::mem::take(&mut self.ops),
                    writes,
                });
                Some(())
            }
            Stmt::For(..) | Stmt::Send(..) | Stmt::If(..) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dst` and `src` from one allocation, `dst` 513 elements after `src`:
    /// 8 bytes ahead in the low 12 address bits, the case copied through
    /// the stack; and 1000 elements after (3904 bytes ahead), the direct case.
    fn pair(gap: usize, len: usize) -> (Vec<i64>, std::ops::Range<usize>) {
        let buf: Vec<i64> = (0..(gap + len) as i64).map(|i| i * 3 + 1).collect();
        (buf, gap..gap + len)
    }

    #[test]
    fn copies_whether_or_not_stores_alias_loads() {
        for (gap, aliased) in [(513, true), (1000, false)] {
            for len in [0, 1, 127, 128, 129, 500, 513] {
                let (mut buf, to) = pair(gap, len);
                let expected: Vec<i64> = buf[..len].to_vec();
                let (src, dst) = buf.split_at_mut(gap);
                let (src, dst) = (&src[..len], &mut dst[..len]);
                if len > 0 {
                    assert_eq!(stores_alias_loads(dst, src), aliased, "gap {gap}");
                }
                copy_column(dst, src);
                assert_eq!(&buf[to], &expected[..], "gap {gap}, length {len}");
            }
        }
    }

    #[test]
    fn writes_only_where_chosen_whether_or_not_stores_alias_loads() {
        for gap in [513, 1000] {
            let len = 300;
            let (mut buf, to) = pair(gap, len);
            let chosen: Vec<u16> = (0..len).map(|i| (i % 3) as u16).collect();
            let expected: Vec<i64> = (0..len)
                .map(|i| if chosen[i] == 1 { buf[i] } else { buf[gap + i] })
                .collect();
            let (src, dst) = buf.split_at_mut(gap);
            write_where(&mut dst[..len], &src[..len], &chosen, 1);
            assert_eq!(&buf[to], &expected[..], "gap {gap}");
        }
    }
}
