//! Closures that go through the members of a collection: the members
//! themselves ([`Members`], `Compiler::over`), `forall`/`exists` over a
//! filtered set, and `min`/`argmin` (the member with the best keys).

use super::*;

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
            best.map_or_else(
                || {
                    fault(
                        span,
                        "no member to choose from".into(),
                        "the collection (after its filter) is empty here; guard the use, e.g. with `exists(q in S : true)`",
                    )
                },
                Ok,
            )
        })
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

/// The members of a collection, in order, as a quantifier's closure goes
/// through them: one type rather than an iterator behind a pointer, so
/// that taking the next is not a call.
pub(super) enum Members<'a> {
    /// Processes: a neighbour list.
    Nodes(std::slice::Iter<'a, u32>),
    /// Integers, or every process by index.
    Values(std::ops::RangeInclusive<i64>),
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
