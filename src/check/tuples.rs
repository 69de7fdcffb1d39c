//! Tuples: their components, read by number, and their lexicographic
//! comparison, lowered component by component (one search read once
//! where a side is a `min` of tuples).

use super::*;

impl Checker {
    /// `t[k]`: component `k` (from 0, written as a number) of the tuple
    /// `comps`. The component is chosen as the program is checked, as its
    /// type may differ from the others'.
    pub(super) fn component(
        &mut self,
        mut comps: Vec<Typed>,
        index: &Expr,
        span: Span,
    ) -> Option<Typed> {
        let len = comps.len();
        let numbered = format!(
            "components are numbered from 0: this tuple's are `[0]` to `[{}]`",
            len - 1
        );
        let written = match index {
            Expr::Int(k, _) => Some(*k),
            Expr::Unary(UnOp::Neg, inner, _) => match **inner {
                Expr::Int(k, _) => Some(-k),
                _ => None,
            },
            _ => None,
        };
        let Some(k) = written else {
            self.err(
                Problem::new(
                    "guarded::check::tuple_component",
                    "a tuple's component must be a number written out",
                )
                .label(index.span(), "not a number")
                .help(numbered),
            );
            return None;
        };
        match usize::try_from(k).ok().filter(|&k| k < len) {
            Some(k) => Some(comps.swap_remove(k)),
            None => {
                self.err(
                    Problem::new(
                        "guarded::check::tuple_component",
                        format!("a tuple of {len} components has no component {k}"),
                    )
                    .label(span, format!("component {k}"))
                    .help(numbered),
                );
                None
            }
        }
    }

    /// Tuples compare lexicographically: the first differing component decides.
    pub(super) fn compare_tuples(
        &mut self,
        op: BinOp,
        a: Vec<Typed>,
        b: Vec<Typed>,
        l: Span,
        r: Span,
    ) -> Option<BExpr> {
        use BinOp::*;
        // A `min`/`max` of tuples on the left is one search read once per
        // component: searched once for the whole comparison instead.
        if let Some((slot, best, a)) = shared_best(&a, &b) {
            let inner = self.compare_tuples(op, a, b, l, r)?;
            let once = IExpr::Let(
                slot,
                Box::new(best),
                Box::new(IExpr::FromBool(Box::new(inner))),
            );
            return Some(BExpr::Cmp(ir::Cmp::Ne, once, IExpr::Const(0)));
        }
        let eqs: Vec<BExpr> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| self.compare(Eq, x.clone(), y.clone(), l, r))
            .collect::<Option<_>>()?;
        let all_eq = eqs
            .iter()
            .cloned()
            .reduce(|x, y| BExpr::And(Box::new(x), Box::new(y)))
            .unwrap_or(BExpr::Const(true));
        match op {
            Eq => return Some(all_eq),
            Ne => return Some(BExpr::Not(Box::new(all_eq))),
            _ => {}
        }
        // a < b: some prefix equal, then a smaller component; `<=` also when all equal.
        let strict = if matches!(op, Lt | Le) { Lt } else { Gt };
        let mut out = if matches!(op, Le | Ge) {
            all_eq
        } else {
            BExpr::Const(false)
        };
        for k in (0..a.len()).rev() {
            let less = self.compare(strict, a[k].clone(), b[k].clone(), l, r)?;
            let prefix = eqs[..k]
                .iter()
                .cloned()
                .fold(less, |acc, e| BExpr::And(Box::new(e), Box::new(acc)));
            out = BExpr::Or(Box::new(prefix), Box::new(out));
        }
        Some(out)
    }
}

/// Where every component of `a` reads one search (`Let(slot, best, key)`,
/// possibly plus or minus a constant: a `min` of tuples, or its successor)
/// and the comparison with `b` can search once, first, with the same values
/// and faults: the search draws nothing; the keys and `b` are plain reads
/// that bind no local (`b` reads none of the search's slot, and cannot fault
/// or draw, so reading it before the search changes nothing); in the
/// lowered comparison every key is still read after the search. Returns the
/// slot, the search and `a` reading the slot.
fn shared_best(a: &[Typed], b: &[Typed]) -> Option<(usize, IExpr, Vec<Typed>)> {
    let mut shared: Option<(usize, &IExpr)> = None;
    let mut stripped = Vec::with_capacity(a.len());
    for c in a {
        let Typed::Int(e, ty) = c else { return None };
        let (slot, best, key) = match e {
            IExpr::Let(slot, best, key) if plain_read(key, None) => {
                (*slot, &**best, (**key).clone())
            }
            IExpr::Arith(op @ (Arith::Add | Arith::Sub), x, k, span)
                if matches!(&**k, IExpr::Const(_)) =>
            {
                let IExpr::Let(slot, best, key) = &**x else {
                    return None;
                };
                if !plain_read(key, None) {
                    return None;
                }
                let key = IExpr::Arith(*op, key.clone(), k.clone(), *span);
                (*slot, &**best, key)
            }
            _ => return None,
        };
        match shared {
            None if matches!(best, IExpr::Best(_)) => shared = Some((slot, best)),
            Some((s, b)) if s == slot && b == best => {}
            _ => return None,
        }
        stripped.push(Typed::Int(key, *ty));
    }
    let (slot, best) = shared?;
    let b_plain = (b.iter()).all(|c| matches!(c, Typed::Int(e, _) if plain_read(e, Some(slot))));
    (b_plain && !ir::draws_i(best)).then(|| (slot, best.clone(), stripped))
}

/// Whether `e` is a read that cannot fault, draw or bind: a constant, a
/// parameter, `n`, a local other than `forbidden`, or a plain variable, id
/// or index of the process itself, of a process a local names (not
/// `forbidden`) or of the one an own variable names.
fn plain_read(e: &IExpr, forbidden: Option<usize>) -> bool {
    let allowed = |s: usize| forbidden != Some(s);
    match e {
        IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg => true,
        IExpr::Local(s) => allowed(*s),
        IExpr::Var(p, _) | IExpr::Index(p) | IExpr::Id(p) | IExpr::NodeOf(p) => match p {
            Proc::Me | Proc::Through(_) => true,
            Proc::Local(s) => allowed(*s),
            _ => false,
        },
        _ => false,
    }
}
