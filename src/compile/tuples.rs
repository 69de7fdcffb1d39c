//! Comparisons of tuples as one closure. The checker spells a tuple
//! comparison out component by component (`compare_tuples`: `(a0, a1) <=
//! (b0, b1)` is `a0 < b0 or (a0 == b0 and a1 < b1) or (a0 == b0 and a1 ==
//! b1)`), which compiles to a tree of seven closures, each a call; SSLE's
//! keys are compared so everywhere. Where every component is a plain read,
//! possibly plus or minus a constant (`P.level + 1`), the tree is
//! recognized and compiled as one loop over the pairs, which reads them in
//! order up to the first that differs, as the tree does. A chain of
//! equalities (`a == b and c == d`) is the same comparison, and a single
//! comparison with a constant added on one side is a tuple of one.

use super::fused::{LeftRow, LocalRow, MeRow, RowBase, ThroughRow};
use super::*;

/// An operand of a fused comparison: a plain read, or a row's slot read
/// through one (`q.parent.x`: the slot, and the span its fault is
/// reported at), plus a constant (0 for none), whose overflow is reported
/// at `span`.
#[derive(Clone, Copy)]
pub(super) struct Operand {
    pub(super) read: Plain,
    through: Option<(usize, Span)>,
    plus: i64,
    span: Span,
    /// Whether `plus` cannot take any value of the variable read past 64
    /// bits (its domain says; true where it is 0).
    bounded: bool,
}

/// An operand read without going through a value: most are, and their
/// comparisons are compiled without the test for one.
#[derive(Clone, Copy)]
struct Direct {
    read: Plain,
    plus: i64,
    span: Span,
}

/// An operand that cannot fault: a plain read, plus a constant that
/// cannot take any value of the variable read past 64 bits. Most of
/// SSLE's are (`P.level + 1` within `0..max_level`), and their closures
/// then test nothing for a fault.
#[derive(Clone, Copy)]
struct Safe {
    read: Plain,
    plus: i64,
}

/// Reading an operand of a fused comparison.
trait Get: Copy + Send + Sync + 'static {
    fn get(&self, e: &Env, stride: usize) -> Res<i64>;
}

/// `value + plus`, its overflow reported at `span`.
#[inline(always)]
fn added(value: i64, plus: i64, span: Span) -> Res<i64> {
    if plus == 0 {
        return Ok(value);
    }
    value.checked_add(plus).map_or_else(|| overflow(span), Ok)
}

impl Get for Direct {
    #[inline(always)]
    fn get(&self, e: &Env, stride: usize) -> Res<i64> {
        added(self.read.get(e, stride), self.plus, self.span)
    }
}

impl Get for Safe {
    #[inline(always)]
    fn get(&self, e: &Env, stride: usize) -> Res<i64> {
        Ok(self.read.get(e, stride).wrapping_add(self.plus))
    }
}

impl Get for Operand {
    #[inline(always)]
    fn get(&self, e: &Env, stride: usize) -> Res<i64> {
        let mut value = self.read.get(e, stride);
        if let Some((slot, span)) = self.through {
            value = read_through_value(e, value, slot, stride, span)?;
        }
        added(value, self.plus, self.span)
    }
}

impl Operand {
    /// Whether reading it can fault.
    pub(super) fn may_fault(&self) -> bool {
        self.plus != 0 || self.through.is_some()
    }

    /// It as a [`Safe`] operand, where it cannot fault.
    fn safe(&self) -> Option<Safe> {
        (self.through.is_none() && self.bounded).then_some(Safe {
            read: self.read,
            plus: self.plus,
        })
    }

    /// Its plain read and constant, where it cannot fault (see [`Safe`]).
    pub(super) fn safe_read(&self) -> Option<(Plain, i64)> {
        self.safe().map(|s| (s.read, s.plus))
    }

    /// It as a [`Direct`] operand, unless it reads through a value.
    fn direct(&self) -> Option<Direct> {
        self.through.is_none().then_some(Direct {
            read: self.read,
            plus: self.plus,
            span: self.span,
        })
    }
}

/// Tuples of operands compared lexicographically by `op`: the first pair
/// that differs decides, and equal tuples satisfy `==`, `<=` and `>=`.
/// Pairs are read in order up to the first that differs.
pub(super) fn fused_tuples(op: Cmp, pairs: Vec<(Operand, Operand)>, stride: usize) -> BFn {
    let safe: Option<Vec<(Safe, Safe)>> = pairs
        .iter()
        .map(|(a, b)| Some((a.safe()?, b.safe()?)))
        .collect();
    if let Some(safe) = safe {
        if let Some(f) = row_tuples(op, &safe, stride) {
            return f;
        }
        return tuples_of(op, safe, stride);
    }
    let direct: Option<Vec<(Direct, Direct)>> = pairs
        .iter()
        .map(|(a, b)| Some((a.direct()?, b.direct()?)))
        .collect();
    match direct {
        Some(direct) => tuples_of(op, direct, stride),
        None => tuples_of(op, pairs, stride),
    }
}

/// [`fused_tuples`] for one kind of operand.
fn tuples_of<O: Get>(op: Cmp, pairs: Vec<(O, O)>, stride: usize) -> BFn {
    // `OP.holds` of two different values is what the pair decides, and
    // of two equal ones what equal tuples give. One and two pairs (keys,
    // a sum compared) without a loop: the loop's closure loads everything
    // any read might need before it starts.
    if let [(a, b)] = pairs[..] {
        return ir::specialize_cmp!(op, OP => boolean(move |e| {
            Ok(OP.holds(a.get(e, stride)?, b.get(e, stride)?))
        }));
    }
    if let [(a0, b0), (a1, b1)] = pairs[..] {
        return ir::specialize_cmp!(op, OP => boolean(move |e| {
            let (x, y) = (a0.get(e, stride)?, b0.get(e, stride)?);
            if x != y {
                return Ok(OP.holds(x, y));
            }
            Ok(OP.holds(a1.get(e, stride)?, b1.get(e, stride)?))
        }));
    }
    let pairs: Box<[(O, O)]> = pairs.into();
    ir::specialize_cmp!(op, OP => boolean(move |e| {
        for (a, b) in pairs.iter() {
            let (x, y) = (a.get(e, stride)?, b.get(e, stride)?);
            if x != y {
                return Ok(OP.holds(x, y));
            }
        }
        Ok(OP.holds(0, 0))
    }))
}

/// Whose row a side of a comparison of tuples reads where each of its
/// operands is a slot of one process's row (SSLE's `Q.key <= Succ(P.key)`:
/// the member's and the process's own): the process itself, its left
/// neighbour on a ring of `n`, the one a local names, the one an own node
/// variable (its slot) names.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum RowOf {
    Me,
    Left(usize),
    Local(usize),
    Through(usize),
}

/// `$body` with `$row` bound to the [`RowBase`] of `$of`.
macro_rules! with_row {
    ($of:expr, $row:ident => $body:expr) => {
        match $of {
            RowOf::Me => {
                let $row = MeRow;
                $body
            }
            RowOf::Left(n) => {
                let $row = LeftRow(n);
                $body
            }
            RowOf::Local(local) => {
                let $row = LocalRow(local);
                $body
            }
            RowOf::Through(own) => {
                let $row = ThroughRow(own);
                $body
            }
        }
    };
}

pub(super) use with_row;

/// The row a plain read reads a slot of, and the slot.
pub(super) fn row_of(read: Plain) -> Option<(RowOf, usize)> {
    Some(match read {
        Plain::Own(slot) => (RowOf::Me, slot),
        Plain::Left(slot, n) => (RowOf::Left(n), slot),
        Plain::Local(slot, local) => (RowOf::Local(local), slot),
        Plain::Through(own, slot) => (RowOf::Through(own), slot),
        _ => return None,
    })
}

/// [`tuples_of`] of [`Safe`] operands where each side reads one process's
/// row throughout: each row found once and its slots read without
/// deciding at each read what kind of read it is. `None` where the sides
/// are not so.
fn row_tuples(op: Cmp, pairs: &[(Safe, Safe)], stride: usize) -> Option<BFn> {
    let mut rows = None;
    let mut slots = Vec::with_capacity(pairs.len());
    for (a, b) in pairs {
        let ((ra, sa), (rb, sb)) = (row_of(a.read)?, row_of(b.read)?);
        if rows.is_some_and(|r| r != (ra, rb)) {
            return None;
        }
        rows = Some((ra, rb));
        slots.push(((sa, a.plus), (sb, b.plus)));
    }
    let (ra, rb) = rows?;
    Some(with_row!(ra, a => with_row!(rb, b => rows_compared(op, (a, b), slots, stride))))
}

/// Slots of row `a` (each plus a constant) against slots of row `b`,
/// compared lexicographically by `op`, pairs read in order up to the
/// first that differs.
fn rows_compared<A: RowBase, B: RowBase>(
    op: Cmp,
    (a, b): (A, B),
    slots: Vec<((usize, i64), (usize, i64))>,
    stride: usize,
) -> BFn {
    let read =
        |e: &Env, base: usize, (slot, plus): (usize, i64)| e.state[base + slot].wrapping_add(plus);
    if let [(a0, b0)] = slots[..] {
        return ir::specialize_cmp!(op, OP => boolean(move |e| {
            Ok(OP.holds(read(e, a.base(e, stride), a0), read(e, b.base(e, stride), b0)))
        }));
    }
    if let [(a0, b0), (a1, b1)] = slots[..] {
        return ir::specialize_cmp!(op, OP => boolean(move |e| {
            let (ra, rb) = (a.base(e, stride), b.base(e, stride));
            let (x, y) = (read(e, ra, a0), read(e, rb, b0));
            if x != y {
                return Ok(OP.holds(x, y));
            }
            Ok(OP.holds(read(e, ra, a1), read(e, rb, b1)))
        }));
    }
    let slots: Box<[_]> = slots.into();
    ir::specialize_cmp!(op, OP => boolean(move |e| {
        let (ra, rb) = (a.base(e, stride), b.base(e, stride));
        for &(sa, sb) in slots.iter() {
            let (x, y) = (read(e, ra, sa), read(e, rb, sb));
            if x != y {
                return Ok(OP.holds(x, y));
            }
        }
        Ok(OP.holds(0, 0))
    }))
}

/// A pair of components compared.
type Pair<'x> = (&'x IExpr, &'x IExpr);

/// The pairs of `a0 == b0 and a1 == b1 and ...`, the `and`s nested to the
/// left (as the checker builds an equality of tuples); one pair for a
/// lone equality.
fn equalities(x: &BExpr) -> Option<Vec<Pair<'_>>> {
    match x {
        BExpr::Cmp(Cmp::Eq, a, b) => Some(vec![(a, b)]),
        BExpr::And(rest, last) => {
            let mut pairs = equalities(rest)?;
            let BExpr::Cmp(Cmp::Eq, a, b) = &**last else {
                return None;
            };
            pairs.push((a, b));
            Some(pairs)
        }
        _ => None,
    }
}

/// The operator and pairs of an ordering of tuples as the checker builds
/// it: `less_0 or (eq_0 and less_1) or (eq_1 and (eq_0 and less_2)) or
/// ... or base`, each `or` nested to the right, `less_k` one strict
/// comparison (`<` or `>`) of pair k and `eq_j` the equality of pair j,
/// and `base` false (`<`, `>`) or the equality of every pair (`<=`, `>=`).
fn ordering(x: &BExpr) -> Option<(Cmp, Vec<Pair<'_>>)> {
    let mut pairs: Vec<Pair> = Vec::new();
    let mut strict = None;
    let mut rest = x;
    while let BExpr::Or(prefix, next) = rest {
        let mut less = &**prefix;
        for j in (0..pairs.len()).rev() {
            let BExpr::And(eq, inner) = less else {
                return None;
            };
            match &**eq {
                BExpr::Cmp(Cmp::Eq, a, b) if (a, b) == pairs[j] => less = inner,
                _ => return None,
            }
        }
        let BExpr::Cmp(s @ (Cmp::Lt | Cmp::Gt), a, b) = less else {
            return None;
        };
        if strict.is_some_and(|t| t != *s) {
            return None;
        }
        strict = Some(*s);
        pairs.push((a, b));
        rest = next;
    }
    let strict = strict?;
    let op = match rest {
        BExpr::Const(false) => strict,
        _ if equalities(rest)? == pairs => {
            if strict == Cmp::Lt {
                Cmp::Le
            } else {
                Cmp::Ge
            }
        }
        _ => return None,
    };
    Some((op, pairs))
}

/// The operator and pairs of `x` if it compares tuples of two components
/// or more as the checker spells such comparisons out (an equality, its
/// negation, an ordering), and whether a fault in a later pair could show
/// before an earlier pair decides (an ordering of three or more, whose
/// spelling checks later equalities first).
fn tuple_comparison(x: &BExpr) -> Option<(Cmp, Vec<Pair<'_>>, bool)> {
    let (op, pairs) = match x {
        BExpr::And(..) => (Cmp::Eq, equalities(x)?),
        BExpr::Not(inner) => (Cmp::Ne, equalities(inner)?),
        BExpr::Or(..) => ordering(x)?,
        _ => return None,
    };
    let reordered = !matches!(op, Cmp::Eq | Cmp::Ne) && pairs.len() > 2;
    (pairs.len() >= 2).then_some((op, pairs, reordered))
}

/// The operator and pairs of `x` if it compares two values (one pair) or
/// two tuples as the checker spells that out (see [`tuple_comparison`]).
pub(super) fn compared_pairs(x: &BExpr) -> Option<(Cmp, Vec<Pair<'_>>)> {
    match x {
        BExpr::Cmp(op, a, b) => Some((*op, vec![(a, b)])),
        _ => tuple_comparison(x).map(|(op, pairs, _)| (op, pairs)),
    }
}

impl Compiler<'_> {
    /// `e` as an operand of a fused comparison: a plain read or a read
    /// through one, or either plus or minus a constant.
    pub(super) fn operand(&self, e: &IExpr) -> Option<Operand> {
        if let Some((read, through)) = self.operand_read(e) {
            return Some(Operand {
                read,
                through,
                plus: 0,
                span: Span::default(),
                bounded: true,
            });
        }
        let IExpr::Arith(op, a, b, span) = e else {
            return None;
        };
        let (read, through) = self.operand_read(a)?;
        let plus = self.constant_added(*op, b)?;
        // Outside statements a variable's value is in its domain (a
        // statement's own row is checked as it is written, but kept apart).
        let bounded = match &**a {
            IExpr::Var(_, v) if !self.in_stmt => self.domain_allows(*v, plus).is_some(),
            _ => false,
        };
        Some(Operand {
            read,
            through,
            plus,
            span: *span,
            bounded,
        })
    }

    /// `e` as a plain read, or as a scalar read through one outside
    /// statements (`q.parent.x`).
    fn operand_read(&self, e: &IExpr) -> Option<(Plain, Option<(usize, Span)>)> {
        if let Some(read) = self.plain(e) {
            return Some((read, None));
        }
        let IExpr::Var(Proc::Via(node, span), v) = e else {
            return None;
        };
        let scalar = self.prog.vars[*v].len.is_none() && !self.per_nbr[*v];
        (scalar && !self.in_stmt)
            .then(|| Some((self.plain(node)?, Some((self.offsets[*v], *span)))))
            .flatten()
    }

    /// `a op b` as a plain read plus a constant, for `op` a `+` or `-` of
    /// a constant `b` (a `-` of the most negative constant is not one).
    pub(super) fn plain_plus(&self, op: Arith, a: &IExpr, b: &IExpr) -> Option<(Plain, i64)> {
        Some((self.plain(a)?, self.constant_added(op, b)?))
    }

    /// What `op b` adds, for `op` a `+` or `-` of a constant `b`.
    pub(super) fn constant_added(&self, op: Arith, b: &IExpr) -> Option<i64> {
        if !matches!(op, Arith::Add | Arith::Sub) {
            return None;
        }
        let c = const_eval(b, &self.params, self.n)?;
        if op == Arith::Sub {
            c.checked_neg()
        } else {
            Some(c)
        }
    }

    /// `x` as one closure if it is a comparison of tuples whose components
    /// are all operands (see [`Compiler::operand`]).
    pub(super) fn fused_tuple_comparison(&self, x: &BExpr) -> Option<BFn> {
        let (op, pairs, reordered) = tuple_comparison(x)?;
        let operands = pairs
            .iter()
            .map(|(a, b)| Some((self.operand(a)?, self.operand(b)?)))
            .collect::<Option<Vec<_>>>()?;
        // Plain reads cannot fault, sums and reads through a value can:
        // where the spelling reads a later pair first, only those in the
        // first pair keep the order of faults.
        if reordered
            && operands[1..]
                .iter()
                .any(|(a, b)| a.may_fault() || b.may_fault())
        {
            return None;
        }
        Some(fused_tuples(op, operands, self.stride))
    }
}
