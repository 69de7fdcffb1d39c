//! Closures that go through the members of a collection: the members
//! themselves ([`Members`], `Compiler::over`), `forall`/`exists` over a
//! filtered set, and `min`/`argmin` (the member with the best keys).

use super::*;

/// A test of a collection's member whose first operand compares one of the
/// member's own variables (plus a constant) with a plain read that does
/// not read it (SSLE's `q.parent == P and Is_True_Chld(q)`, the members of
/// `Chldrn(P)`): that comparison is made in the quantifier's loop, its
/// read once before it, and the member's local is set and the rest
/// called only where it holds, where a closure for the whole test was
/// called at each member. Neither read can fault, so reading the value
/// once changes no fault, and the rest is still called only where the
/// comparison holds, as the `and` does.
pub(super) struct FirstTest {
    /// The member's slot compared, and the constant added to it.
    pub(super) at: usize,
    pub(super) plus: i64,
    pub(super) op: Cmp,
    /// What it is compared with.
    pub(super) read: Plain,
    /// The operands after it, joined (none: the comparison is the test).
    pub(super) rest: Option<BFn>,
}

/// A [`FirstTest`] as a quantifier's loop asks it: its value read, its
/// operator a constant where the closure is compiled for one, and its
/// parts copied out (kept in registers across the calls of the rest).
pub(super) struct First<'f> {
    at: usize,
    plus: i64,
    value: i64,
    op: Cmp,
    rest: Option<&'f BFn>,
}

impl First<'_> {
    /// Whether member `q` passes the first comparison (made in line).
    #[inline(always)]
    pub(super) fn holds(&self, e: &Env, q: i64, stride: usize) -> bool {
        let x = e.state[q as usize * stride + self.at].wrapping_add(self.plus);
        self.op.holds(x, self.value)
    }

    /// Whether member `q` (bound to `slot`), past the first comparison,
    /// passes the rest: its local set and the rest called.
    #[inline(always)]
    pub(super) fn rest(&self, e: &Env, (q, slot): (i64, usize)) -> Res<bool> {
        e.locals[slot].set(q);
        self.rest.map_or(Ok(true), |r| r.holds(e))
    }
}

/// The closure of a quantifier over `$coll` whose members' test is the
/// [`FirstTest`] `$test`, compiled once per operator (the comparison's
/// operator a constant in each): `$body` sees the environment, the
/// members and the test as a [`First`], its value read.
macro_rules! over_first {
    ($c:expr, $coll:expr, $test:expr, |$e:ident, $items:ident, $first:ident| $body:block) => {{
        let test: FirstTest = $test;
        let stride = $c.stride;
        ir::specialize_cmp!(test.op, OP => $c.over($coll, move |$e, $items| {
            let value = test.read.get($e, stride);
            let $first = First {
                at: test.at,
                plus: test.plus,
                value,
                op: OP,
                rest: test.rest.as_ref(),
            };
            $body
        }))
    }};
}

impl Compiler<'_> {
    /// `argmin`/`argmax`: the member with the best keys; ties go to the
    /// member with the smallest id (integers: the smallest).
    pub(super) fn best(&self, b: &ir::Best) -> IFn {
        use crate::check::ir::MAX_KEYS;
        let keys = &b.keys[..b.keys.len().min(MAX_KEYS)];
        // Keys that are the member's own variables (`Q.key`, outside
        // statements) are read from its row, not called for.
        let own: Option<Vec<usize>> = keys
            .iter()
            .map(|k| match self.plain(k)? {
                Plain::Local(offset, local) if local == b.slot => Some(offset),
                _ => None,
            })
            .collect();
        if let Some(offsets) = own {
            let stride = self.stride;
            return self.best_by(b, move |e, q, cur| {
                for (c, &offset) in cur.iter_mut().zip(&offsets) {
                    *c = e.state[q as usize * stride + offset];
                }
                Ok(())
            });
        }
        let keys: Vec<IFn> = keys.iter().map(|k| self.iexpr(k)).collect();
        self.best_by(b, move |e, _, cur| {
            for (c, k) in cur.iter_mut().zip(&keys) {
                *c = k(e)?;
            }
            Ok(())
        })
    }

    /// [`Compiler::best`] with `keys` reading member `q`'s keys into the
    /// slice given (as long as the keys are many), in order.
    fn best_by(
        &self,
        b: &ir::Best,
        keys: impl Fn(&Env, i64, &mut [i64]) -> Res<()> + Send + Sync + 'static,
    ) -> IFn {
        use crate::check::ir::MAX_KEYS;
        // Few keys (SSLE's are two) kept in arrays of their own size: a
        // better member's keys are then copied without a call of `memcpy`,
        // and no array of `MAX_KEYS` is cleared for each search.
        match b.keys.len() {
            1 => self.best_by_in::<1>(b, keys),
            2 => self.best_by_in::<2>(b, keys),
            3 => self.best_by_in::<3>(b, keys),
            4 => self.best_by_in::<4>(b, keys),
            _ => self.best_by_in::<MAX_KEYS>(b, keys),
        }
    }

    /// [`Compiler::best_by`] with the keys in arrays of `N` (at least as
    /// many as the keys, but `MAX_KEYS`).
    fn best_by_in<const N: usize>(
        &self,
        b: &ir::Best,
        keys: impl Fn(&Env, i64, &mut [i64]) -> Res<()> + Send + Sync + 'static,
    ) -> IFn {
        let slot = b.slot;
        let filter = b.filter.as_ref().map(|f| self.bexpr(f));
        let n = b.keys.len().min(N);
        let (max, span) = (b.max, b.span);
        let nodes = !matches!(b.coll, Coll::Range(..));
        self.over(&b.coll, move |e, items| {
            let mut best: Option<i64> = None;
            let mut best_keys = [0i64; N];
            let mut cur = [0i64; N];
            for q in items {
                e.locals[slot].set(q);
                if let Some(f) = &filter {
                    if !f.holds(e)? {
                        continue;
                    }
                }
                keys(e, q, &mut cur[..n])?;
                let better = match best {
                    None => true,
                    Some(b) => {
                        let ord = cur[..n].cmp(&best_keys[..n]);
                        let ord = if max { ord.reverse() } else { ord };
                        match ord {
                            std::cmp::Ordering::Less => true,
                            std::cmp::Ordering::Greater => false,
                            std::cmp::Ordering::Equal => {
                                nodes && e.topo.id(q as usize) < e.topo.id(b as usize)
                            }
                        }
                    }
                };
                if better {
                    best = Some(q);
                    best_keys = cur;
                }
            }
            best.map_or_else(|| no_member(span), Ok)
        })
    }

    /// Which of `a` and `b` is a key of the member bound to `slot` (see
    /// [`Compiler::member_key`]), the other not reading it as one: whether
    /// it is `a`, the key, and the other.
    pub(super) fn member_side<'x>(
        &self,
        slot: usize,
        (a, b): (&'x IExpr, &'x IExpr),
    ) -> Option<(bool, (usize, i64), &'x IExpr)> {
        match (self.member_key(slot, a), self.member_key(slot, b)) {
            (Some(key), None) => Some((true, key, b)),
            (None, Some(key)) => Some((false, key, a)),
            _ => None,
        }
    }

    /// `e` as a key of the member a `let` binds to `slot`: its own scalar
    /// variable, plus a constant that cannot take a value of the
    /// variable's domain past 64 bits; its slot and the constant.
    fn member_key(&self, slot: usize, e: &IExpr) -> Option<(usize, i64)> {
        let (var, plus) = match e {
            IExpr::Var(Proc::Local(local), v) if *local == slot => (*v, 0),
            IExpr::Arith(op, a, c, _) => match &**a {
                IExpr::Var(Proc::Local(local), v) if *local == slot => {
                    (*v, self.constant_added(*op, c)?)
                }
                _ => return None,
            },
            _ => return None,
        };
        let Plain::Local(offset, _) = self.plain(&IExpr::Var(Proc::Local(slot), var))? else {
            return None;
        };
        self.domain_allows(var, plus)?;
        Some((offset, plus))
    }

    /// `Some` where `plus` added to any value of variable `var`'s domain
    /// stays within 64 bits (a node's, only where it is 0).
    pub(super) fn domain_allows(&self, var: usize, plus: i64) -> Option<()> {
        let (lo, hi) = match self.domains[var] {
            VarDomain::Bool => (0, 1),
            VarDomain::Range(lo, hi) => (lo, hi),
            VarDomain::Enum(len) => (0, len as i64 - 1),
            VarDomain::Node if plus == 0 => (0, 0),
            VarDomain::Node => return None,
        };
        lo.checked_add(plus)?;
        hi.checked_add(plus)?;
        Some(())
    }

    /// Whether the topology is `ring:N` with N at least 3: process i's
    /// neighbours are i-1 and i+1 (mod N), in increasing order.
    fn plain_ring(&self) -> bool {
        self.topo
            .is_some_and(|t| t.regular_ring == Some(true) && t.n() >= 3)
    }

    /// Builds a closure that runs `f` over the members of a collection.
    pub(super) fn over<T: 'static>(
        &self,
        coll: &Coll,
        f: impl Fn(&Env, &mut Members) -> Res<T> + Send + Sync + 'static,
    ) -> AnyFn<T> {
        if let (Coll::NbrsOf(_), Some(topo)) = (coll, self.topo) {
            topo.want_rows();
        }
        match coll {
            Coll::Procs => Box::new(move |e| f(e, &mut Members::Values(0..=e.topo.n() as i64 - 1))),
            // On a ring of at least three (`ring:N`), a process's two
            // neighbours are computed, not looked up.
            Coll::NbrsOf(Proc::Me) if self.plain_ring() => Box::new(move |e| {
                let pair = ring_nbrs(e.me as u32, e.topo.n() as u32);
                f(e, &mut Members::Nodes(pair.iter()))
            }),
            // The process's own neighbours and a quantified process's:
            // found without a call.
            Coll::NbrsOf(Proc::Me) => {
                Box::new(move |e| f(e, &mut Members::Nodes(e.topo.nbrs(e.me).iter())))
            }
            Coll::NbrsOf(Proc::Local(slot)) => {
                let slot = *slot;
                Box::new(move |e| {
                    let q = e.locals[slot].get() as usize;
                    f(e, &mut Members::Nodes(e.topo.nbrs(q).iter()))
                })
            }
            Coll::NbrsOf(p) => {
                let p = self.proc(p);
                Box::new(move |e| {
                    let q = p(e)?;
                    f(e, &mut Members::Nodes(e.topo.nbrs(q).iter()))
                })
            }
            Coll::Range(lo, hi, span) => {
                let (lo, hi, span) = (self.iexpr(lo), self.iexpr(hi), *span);
                Box::new(move |e| {
                    let (lo, hi) = (lo(e)?, hi(e)?);
                    let count = i128::from(hi) - i128::from(lo) + 1;
                    if count > MAX_RANGE as i128 {
                        return fault(
                            span,
                            format!("the range {lo}..{hi} has {count} values, more than the {MAX_RANGE} a quantifier or loop goes through"),
                            "bound the range by a parameter or `n`",
                        );
                    }
                    f(e, &mut Members::Values(lo..=hi))
                })
            }
        }
    }

    /// A quantifier over a filtered collection as the checker spells it,
    /// `forall(q in C : f => b)` or `exists(q in C : f and b)`, with the
    /// filter and the body called from the quantifier's loop, not through
    /// a closure joining them: the same operands evaluated in the same
    /// order. `None` where the body is not so, or where either part is
    /// fixed by the instance or the whole is a comparison of tuples (which
    /// compile better whole).
    pub(super) fn filtered_quantifier(
        &self,
        slot: usize,
        coll: &Coll,
        exists: bool,
        body: &BExpr,
    ) -> Option<BFn> {
        let (filter, then) = match body {
            BExpr::Implies(a, b) if !exists => (a, b),
            BExpr::And(a, b) if exists => (a, b),
            _ => return None,
        };
        if self.truth_of(filter).is_some()
            || self.truth_of(then).is_some()
            || self.fused_tuple_comparison(body).is_some()
        {
            return None;
        }
        if let Some(first) = self.member_first(slot, filter) {
            let (then, stride) = (self.bexpr(then), self.stride);
            // A member decides as below; those the first comparison leaves
            // out, without a call.
            return Some(over_first!(self, coll, first, |e, items, first| {
                for q in items {
                    if first.holds(e, q, stride)
                        && first.rest(e, (q, slot))?
                        && then.holds(e)? == exists
                    {
                        return Ok(Truth::from(exists));
                    }
                }
                Ok(Truth::from(!exists))
            }));
        }
        let (filter, then) = (self.bexpr(filter), self.bexpr(then));
        // A member decides where the filter holds and the body is what
        // the quantifier looks for: false for `forall`, true for `exists`.
        Some(self.over(coll, move |e, items| {
            for q in items {
                e.locals[slot].set(q);
                if filter.holds(e)? && then.holds(e)? == exists {
                    return Ok(Truth::from(exists));
                }
            }
            Ok(Truth::from(!exists))
        }))
    }
}

impl Compiler<'_> {
    /// `count(q in coll : first)`, `first` a [`FirstTest`] of q (bound to
    /// `slot`).
    pub(super) fn count_first(&self, slot: usize, coll: &Coll, first: FirstTest) -> IFn {
        let stride = self.stride;
        over_first!(self, coll, first, |e, items, first| {
            let mut k = 0;
            for q in items {
                k += i64::from(first.holds(e, q, stride) && first.rest(e, (q, slot))?);
            }
            Ok(k)
        })
    }

    /// `forall(q in coll : first)` (`exists` if `want`), `first` a
    /// [`FirstTest`] of q (bound to `slot`).
    pub(super) fn quantifier_first(
        &self,
        slot: usize,
        coll: &Coll,
        want: bool,
        first: FirstTest,
    ) -> BFn {
        let stride = self.stride;
        over_first!(self, coll, first, |e, items, first| {
            for q in items {
                if (first.holds(e, q, stride) && first.rest(e, (q, slot))?) == want {
                    return Ok(Truth::from(want));
                }
            }
            Ok(Truth::from(!want))
        })
    }

    /// `x`, a test of the member bound to `slot`, as a [`FirstTest`]
    /// where its first operand (an `and` however it nests, the
    /// instance's fixed `true`s left out) is such a comparison; `None`
    /// otherwise, in statements, or where a fixed operand is `false`.
    pub(super) fn member_first(&self, slot: usize, x: &BExpr) -> Option<FirstTest> {
        if self.in_stmt {
            return None;
        }
        let mut operands = Vec::new();
        Junction::And.operands(x, &mut operands);
        let mut kept = Vec::with_capacity(operands.len());
        for operand in operands {
            match self.truth_of(operand) {
                Some(true) => {}
                Some(false) => return None,
                None => kept.push(operand.clone()),
            }
        }
        let mut kept = kept.into_iter();
        let BExpr::Cmp(op, a, b) = kept.next()? else {
            return None;
        };
        let (on_left, (at, plus), value) = self.member_side(slot, (&a, &b))?;
        let op = if on_left { op } else { op.swapped() };
        let read = self.plain(value).filter(|r| !r.reads_local(slot))?;
        let rest = kept.reduce(|a, b| BExpr::And(Box::new(a), Box::new(b)));
        Some(FirstTest {
            at,
            plus,
            op,
            read,
            rest: rest.map(|r| self.bexpr(&r)),
        })
    }
}

/// The members of a collection, in order, as a quantifier's closure goes
/// through them: one type rather than an iterator behind a pointer, so
/// that taking the next is not a call.
pub(super) enum Members<'a> {
    /// Processes: a neighbour list.
    Nodes(std::slice::Iter<'a, u32>),
    /// Integers, or every process by index.
    Values(std::ops::RangeInclusive<i64>),
}

impl Members<'_> {
    /// Whether there are no members (left).
    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        match self {
            Members::Nodes(nodes) => nodes.len() == 0,
            Members::Values(values) => values.is_empty(),
        }
    }
}

impl Iterator for Members<'_> {
    type Item = i64;

    #[inline(always)]
    fn next(&mut self) -> Option<i64> {
        match self {
            Members::Nodes(nodes) => nodes.next().map(|&q| i64::from(q)),
            Members::Values(values) => values.next(),
        }
    }
}

/// Process `p`'s neighbours on a ring of `n` (at least 3), in increasing
/// order, as [`crate::topology::Topology::nbrs`] lists them.
#[inline(always)]
fn ring_nbrs(p: u32, n: u32) -> [u32; 2] {
    if p == 0 {
        [1, n - 1]
    } else if p + 1 == n {
        [0, n - 2]
    } else {
        [p - 1, p + 1]
    }
}

/// The most pairs a comparison with the best member's keys compares as
/// members come ([`Compiler::best_compared`]): SSLE's keys are two.
pub(super) const MOST_COMPARED: usize = 4;

/// An `argmin`/`argmax`, or a `min`/`max` of keys, over nothing.
pub(super) fn no_member<T>(span: Span) -> Res<T> {
    fault(
        span,
        "no member to choose from".into(),
        "the collection (after its filter) is empty here; guard the use, e.g. with `exists(q in S : true)`",
    )
}

#[cfg(test)]
mod tests {
    /// The neighbours computed on a ring are those its topology lists, in
    /// its order, at every process of rings of 3 to 9.
    #[test]
    fn a_rings_computed_neighbours_are_its_listed_ones() {
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
        for n in 3..10u32 {
            let topo =
                crate::topology::build(&format!("ring:{n}"), &mut rng, &|_| Err(String::new()))
                    .expect("a ring");
            assert_eq!(topo.regular_ring, Some(true));
            for p in 0..n {
                assert_eq!(
                    super::ring_nbrs(p, n),
                    topo.nbrs(p as usize),
                    "ring:{n} process {p}"
                );
            }
        }
    }
}
