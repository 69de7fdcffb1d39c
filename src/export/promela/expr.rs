//! Expressions in Promela. The instance is fixed, so quantifiers are
//! unrolled over their members and every neighbour is a known process;
//! what stays dynamic (a node-valued variable's target, an array index) is
//! a Promela expression. Arithmetic is Euclidean, as in the language.

use super::{Tr, Untranslatable, Val};
use crate::check::ir::{Arith, BExpr, Cmp, Coll, IExpr, Proc, VarKind};
use crate::span::Span;
use crate::topology::NONE;

/// A process an expression refers to: known, or a Promela expression.
#[derive(Clone, Debug)]
pub(super) enum At {
    Known(usize),
    Dynamic(String),
}

impl At {
    fn text(&self) -> String {
        match self {
            At::Known(p) => p.to_string(),
            At::Dynamic(s) => format!("({s})"),
        }
    }
}

/// Euclidean `mod` and `/` (never a negative remainder), as Promela macros.
pub(super) const ARITH_MACROS: &str = "\
#define ABS(a) ((a) < 0 -> -(a) : (a))
#define EMOD(a, b) ((((a) % (b)) + ABS(b)) % ABS(b))
#define EDIV(a, b) (((a) - EMOD(a, b)) / (b))
#define MIN(a, b) ((a) < (b) -> (a) : (b))
#define MAX(a, b) ((a) > (b) -> (a) : (b))
";

impl Tr<'_> {
    /// The members of a collection, each a known value.
    pub(super) fn members(&self, coll: &Coll) -> Result<Vec<i64>, Untranslatable> {
        match coll {
            Coll::Procs => Ok((0..self.topo.n() as i64).collect()),
            Coll::NbrsOf(p) => match self.proc(p)? {
                At::Known(p) => Ok(self.topo.nbrs(p).iter().map(|&q| i64::from(q)).collect()),
                At::Dynamic(_) => Err(Untranslatable::new(
                    "a quantifier over the neighbours of a process named by a variable",
                    None,
                )),
            },
            Coll::Range(lo, hi, span) => match (self.constant(lo), self.constant(hi)) {
                (Some(lo), Some(hi)) if hi - lo < 100_000 => Ok((lo..=hi).collect()),
                _ => Err(Untranslatable::new(
                    "a range whose bounds are not constants (or that is too long to unroll)",
                    Some(*span),
                )),
            },
        }
    }

    /// The value of `e` when it is known now (constants, parameters, bound
    /// variables with known values).
    pub(super) fn constant(&self, e: &IExpr) -> Option<i64> {
        match e {
            IExpr::Const(v) => Some(*v),
            IExpr::Param(k) => self.code.params.get(*k).map(|p| p.1),
            IExpr::N => Some(self.topo.n() as i64),
            IExpr::MaxDeg => Some(self.topo.max_degree() as i64),
            IExpr::Local(s) => match self.locals.get(*s)? {
                Some(Val::Const(v)) => Some(*v),
                _ => None,
            },
            IExpr::Neg(a, _) => self.constant(a)?.checked_neg(),
            IExpr::Abs(a, _) => self.constant(a)?.checked_abs(),
            IExpr::Arith(op, a, b, _) => op.apply(self.constant(a)?, self.constant(b)?),
            IExpr::Index(p) | IExpr::NodeOf(p) => match self.proc(p).ok()? {
                At::Known(p) => Some(p as i64),
                At::Dynamic(_) => None,
            },
            IExpr::Id(p) => match self.proc(p).ok()? {
                At::Known(p) => Some(self.topo.id(p)),
                At::Dynamic(_) => None,
            },
            IExpr::Side(p, left, span) => self.side(p, *left, *span).ok().map(|q| q as i64),
            _ => None,
        }
    }

    /// The value of `e` where it is known without the configuration (it
    /// compares constants, indices and ids of known processes).
    pub(super) fn bconstant(&self, e: &BExpr) -> Option<bool> {
        crate::check::ir::fixed_truth(e, &|x| self.constant(x))
    }

    /// The process `p` refers to.
    pub(super) fn proc(&self, p: &Proc) -> Result<At, Untranslatable> {
        let me = self.me;
        let side = |q: u32, span, which: &str| {
            if q == NONE {
                Err(Untranslatable::new(
                    format!("`{which}` of process {me}, which has none where it is read"),
                    Some(span),
                ))
            } else {
                Ok(At::Known(q as usize))
            }
        };
        match p {
            Proc::Me => Ok(At::Known(me)),
            Proc::Left(span) => side(self.topo.left(me), *span, "left"),
            Proc::Right(span) => side(self.topo.right(me), *span, "right"),
            Proc::TreeParent(span) => match self.topo.parent.get(me) {
                Some(&q) if q != NONE => Ok(At::Known(q as usize)),
                Some(_) => Ok(At::Known(me)),
                None => Err(Untranslatable::new("`tree_parent` off a tree", Some(*span))),
            },
            Proc::Local(s) => match self.locals.get(*s).cloned().flatten() {
                Some(Val::Const(v)) => self.known(v, None),
                Some(Val::Dyn(e)) => Ok(At::Dynamic(e)),
                None => Err(Untranslatable::new("an unbound local", None)),
            },
            Proc::Through(v) => Ok(At::Dynamic(self.read(&At::Known(me), *v, None)?)),
            Proc::At(e, span) | Proc::Via(e, span) => match self.constant(e) {
                Some(q) => self.known(q, Some(*span)),
                None => Ok(At::Dynamic(self.iexpr(e)?)),
            },
        }
    }

    /// Process `q`, a value known now (written at `span`, where known),
    /// where the instance has it: a program may name a process that does
    /// not exist, which a run reports when the read happens.
    fn known(&self, q: i64, span: Option<Span>) -> Result<At, Untranslatable> {
        let n = self.topo.n();
        match usize::try_from(q) {
            Ok(q) if q < n => Ok(At::Known(q)),
            _ => Err(Untranslatable::new(
                format!(
                    "process {q} (this instance has processes 0 to {})",
                    n.saturating_sub(1)
                ),
                span,
            )),
        }
    }

    /// `p.left` (`left`) or `p.right` of a known process `p`.
    fn side(&self, p: &Proc, left: bool, span: Span) -> Result<usize, Untranslatable> {
        let q = match self.proc(p)? {
            At::Known(q) => q,
            At::Dynamic(_) => {
                return Err(Untranslatable::new(
                    "`left`/`right` of a process named by a variable",
                    Some(span),
                ))
            }
        };
        let side = (q < self.topo.n()).then(|| {
            if left {
                self.topo.left(q)
            } else {
                self.topo.right(q)
            }
        });
        match side {
            Some(s) if s != NONE => Ok(s as usize),
            _ => Err(Untranslatable::new(
                format!(
                    "`{}` of process {q}, which has none where it is read",
                    if left { "left" } else { "right" }
                ),
                Some(span),
            )),
        }
    }

    /// The array holding variable `v` as read from process `at`: the copy
    /// from before the step when the synchronous daemon reads another
    /// process (or evaluates a guard).
    fn array(&self, v: usize, at: &At) -> String {
        let old =
            self.reading_old && (self.in_guard || !matches!(at, At::Known(p) if *p == self.me));
        let prefix = if old { "o_" } else { "v_" };
        format!("{prefix}{}", self.prog.vars[v].name)
    }

    /// A read of variable `v` of `at`, element `index` for arrays and
    /// per-neighbour values.
    pub(super) fn read(
        &self,
        at: &At,
        v: usize,
        index: Option<&IExpr>,
    ) -> Result<String, Untranslatable> {
        let var = &self.prog.vars[v];
        if self.code.per_nbr[v] {
            let index = index.expect("per-neighbour reads are indexed");
            let owner = match at {
                At::Known(o) => *o,
                At::Dynamic(_) => {
                    return Err(Untranslatable::new(
                        format!(
                            "a per-neighbour value (`{}`) of a process named by a variable",
                            var.name
                        ),
                        None,
                    ))
                }
            };
            let Some(q) = self.constant(index) else {
                return Err(Untranslatable::new(
                    format!("`{}` indexed by a neighbour named by a variable", var.name),
                    None,
                ));
            };
            let Some(k) = usize::try_from(q)
                .ok()
                .and_then(|q| self.topo.nbr_pos(owner, q))
            else {
                return Err(Untranslatable::new(
                    format!(
                        "`{}` of process {owner} read for {q}, which is not its neighbour",
                        var.name
                    ),
                    None,
                ));
            };
            return Ok(if var.kind == VarKind::Edge {
                let (name, e) = (&var.name, self.edge_of(owner, k));
                if !self.reading_old {
                    format!("e_{name}[{e}]")
                } else if self.in_guard || owner != self.me {
                    format!("o_e_{name}[{e}]")
                } else {
                    // The mover's own statement: its own write of the step,
                    // if any, else the value from before the step (the
                    // other end may not write it in the same step).
                    format!(
                        "(w_e_{name}[{e}] == {} -> e_{name}[{e}] : o_e_{name}[{e}])",
                        self.me + 1
                    )
                }
            } else {
                format!("{}[{}]", self.array(v, at), owner * self.max_degree + k)
            });
        }
        let len = self.code.lens[v].unwrap_or(1);
        let place = match (at, index) {
            (At::Known(p), None) => (p * len).to_string(),
            (At::Known(p), Some(i)) => match self.constant(i) {
                Some(i) => (p * len + i as usize).to_string(),
                None => format!("{} + ({})", p * len, self.iexpr(i)?),
            },
            (At::Dynamic(_), None) => format!("{} * {len}", at.text()),
            (At::Dynamic(_), Some(i)) => format!("{} * {len} + ({})", at.text(), self.iexpr(i)?),
        };
        Ok(format!("{}[{place}]", self.array(v, at)))
    }

    /// An integer expression.
    pub(super) fn iexpr(&self, e: &IExpr) -> Result<String, Untranslatable> {
        if let Some(v) = self.constant(e) {
            return Ok(if v < 0 {
                format!("({v})")
            } else {
                v.to_string()
            });
        }
        Ok(match e {
            IExpr::Var(p, v) => self.read(&self.proc(p)?, *v, None)?,
            IExpr::Elem(p, v, i, _) => self.read(&self.proc(p)?, *v, Some(i))?,
            IExpr::Index(p) | IExpr::NodeOf(p) => self.proc(p)?.text(),
            IExpr::Id(p) => {
                let at = self.proc(p)?.text();
                let n = self.topo.n();
                let mut chain = self.topo.id(n - 1).to_string();
                for q in (0..n - 1).rev() {
                    chain = format!("({at} == {q} -> {} : {chain})", self.topo.id(q));
                }
                chain
            }
            IExpr::Neg(a, _) => format!("(-{})", self.iexpr(a)?),
            IExpr::Abs(a, _) => format!("ABS({})", self.iexpr(a)?),
            IExpr::Arith(op, a, b, _) => {
                let (a, b) = (self.iexpr(a)?, self.iexpr(b)?);
                match op {
                    Arith::Add => format!("({a} + {b})"),
                    Arith::Sub => format!("({a} - {b})"),
                    Arith::Mul => format!("({a} * {b})"),
                    Arith::Div => format!("EDIV({a}, {b})"),
                    Arith::Mod => format!("EMOD({a}, {b})"),
                    Arith::Min => format!("MIN({a}, {b})"),
                    Arith::Max => format!("MAX({a}, {b})"),
                }
            }
            IExpr::Cond(c, a, b) => format!(
                "({} -> {} : {})",
                self.bexpr(c)?,
                self.maybe().iexpr(a)?,
                self.maybe().iexpr(b)?
            ),
            IExpr::FromBool(b) => format!("({} -> 1 : 0)", self.bexpr(b)?),
            IExpr::Count(slot, coll, body) => {
                let terms = self.each(*slot, coll, |t| {
                    Ok(format!("({} -> 1 : 0)", t.bexpr(body)?))
                })?;
                sum(terms)
            }
            IExpr::Sum(slot, coll, filter, body, _) => {
                let terms = self.each(*slot, coll, |t| {
                    Ok(format!(
                        "({} -> {} : 0)",
                        t.bexpr(filter)?,
                        t.maybe().iexpr(body)?
                    ))
                })?;
                sum(terms)
            }
            IExpr::Let(slot, value, body) => {
                let value = match self.constant(value) {
                    Some(v) => Val::Const(v),
                    None => Val::Dyn(self.iexpr(value)?),
                };
                self.with(*slot, value, |t| t.iexpr(body))?
            }
            IExpr::Side(p, left, span) => self.side(p, *left, *span)?.to_string(),
            IExpr::Best(b) => self.best(b)?,
            IExpr::Msgs(p, q, kind, span) => match (self.proc(p)?, self.proc(q)?) {
                (At::Known(p), At::Known(q)) => self.msgs((p, q), *kind, *span)?,
                _ => {
                    return Err(Untranslatable::new(
                        "`msgs` of a process named by a variable",
                        Some(*span),
                    ))
                }
            },
            // Bound to what the model computes (a message's field).
            IExpr::Local(s) => match self.locals.get(*s) {
                Some(Some(Val::Dyn(e))) => format!("({e})"),
                _ => {
                    return Err(Untranslatable::new(
                        "a local variable without a value",
                        None,
                    ))
                }
            },
            IExpr::Random(d, span) => self.draw(d, *span)?,
            IExpr::Const(_) | IExpr::Param(_) | IExpr::N | IExpr::MaxDeg => {
                return Err(Untranslatable::new(
                    "a local variable without a value",
                    None,
                ))
            }
        })
    }

    /// A boolean expression.
    pub(super) fn bexpr(&self, e: &BExpr) -> Result<String, Untranslatable> {
        Ok(match e {
            BExpr::Const(b) => if *b { "true" } else { "false" }.to_string(),
            BExpr::Var(p, v) => format!("({} != 0)", self.read(&self.proc(p)?, *v, None)?),
            BExpr::Elem(p, v, i, _) => {
                format!("({} != 0)", self.read(&self.proc(p)?, *v, Some(i))?)
            }
            BExpr::Not(a) => format!("!({})", self.bexpr(a)?),
            // Where the left side is known here, the right is what the
            // language evaluates, or nothing: `p.index > 0 and p.left.x`
            // reads no missing neighbour of process 0.
            BExpr::And(a, b) => match self.bconstant(a) {
                Some(false) => "false".to_string(),
                Some(true) => self.bexpr(b)?,
                None => format!("({} && {})", self.bexpr(a)?, self.maybe().bexpr(b)?),
            },
            BExpr::Or(a, b) => match self.bconstant(a) {
                Some(true) => "true".to_string(),
                Some(false) => self.bexpr(b)?,
                None => format!("({} || {})", self.bexpr(a)?, self.maybe().bexpr(b)?),
            },
            // `!!(…)` is no Promela: the negation takes parentheses.
            BExpr::Implies(a, b) => match self.bconstant(a) {
                Some(false) => "true".to_string(),
                Some(true) => self.bexpr(b)?,
                None => format!("(!({}) || {})", self.bexpr(a)?, self.maybe().bexpr(b)?),
            },
            BExpr::BoolEq(eq, a, b) => {
                let (a, b) = (self.bexpr(a)?, self.bexpr(b)?);
                let op = if *eq { "==" } else { "!=" };
                format!("(({a} -> 1 : 0) {op} ({b} -> 1 : 0))")
            }
            BExpr::Cmp(op, a, b) => {
                let op = match op {
                    Cmp::Eq => "==",
                    Cmp::Ne => "!=",
                    Cmp::Lt => "<",
                    Cmp::Le => "<=",
                    Cmp::Gt => ">",
                    Cmp::Ge => ">=",
                };
                format!("({} {op} {})", self.iexpr(a)?, self.iexpr(b)?)
            }
            // Evaluated until one member decides.
            BExpr::Forall(slot, coll, body) => {
                conjunction(self.maybe().each(*slot, coll, |t| t.bexpr(body))?)
            }
            BExpr::Exists(slot, coll, body) => {
                disjunction(self.maybe().each(*slot, coll, |t| t.bexpr(body))?)
            }
            BExpr::Enabled(p) => match self.proc(p)? {
                At::Known(q) => self.enabled(q)?,
                At::Dynamic(_) => {
                    return Err(Untranslatable::new(
                        "`enabled` of a process named by a variable",
                        None,
                    ))
                }
            },
            BExpr::ArrayCmp(cmp, p, a, q, b, _) => {
                let (p, q) = (self.proc(p)?, self.proc(q)?);
                let len = self.code.lens[*a].unwrap_or(1);
                let mut pairs = Vec::new();
                for i in 0..len {
                    let i = IExpr::Const(i as i64);
                    pairs.push((self.read(&p, *a, Some(&i))?, self.read(&q, *b, Some(&i))?));
                }
                array_comparison(*cmp, &pairs)
            }
            BExpr::Acyclic(sa, sb, pred) => self.acyclic(*sa, *sb, pred)?,
        })
    }

    /// `body` for each member of `coll` bound to `slot`.
    pub(super) fn each(
        &self,
        slot: usize,
        coll: &Coll,
        body: impl Fn(&Tr) -> Result<String, Untranslatable>,
    ) -> Result<Vec<String>, Untranslatable> {
        self.members(coll)?
            .into_iter()
            .map(|m| self.with(slot, Val::Const(m), &body))
            .collect()
    }

    /// `body` with local `slot` bound to `value`.
    pub(super) fn with<T>(
        &self,
        slot: usize,
        value: Val,
        body: impl Fn(&Tr) -> Result<T, Untranslatable>,
    ) -> Result<T, Untranslatable> {
        let mut inner = self.clone();
        if inner.locals.len() <= slot {
            inner.locals.resize(slot + 1, None);
        }
        inner.locals[slot] = Some(value);
        body(&inner)
    }

    /// `acyclic(p -> q : P)`: no simple cycle of arcs `p -> q` (q a
    /// neighbour of p) all satisfying P; the topology's simple cycles are
    /// listed once, here.
    fn acyclic(&self, sa: usize, sb: usize, pred: &BExpr) -> Result<String, Untranslatable> {
        let cycles =
            super::cycles::simple_cycles(self.topo, super::MAX_CYCLES).ok_or_else(|| {
                Untranslatable::new(
                    format!(
                        "`acyclic` on a topology with more than {} simple cycles",
                        super::MAX_CYCLES
                    ),
                    None,
                )
            })?;
        let mut clauses = Vec::new();
        for cycle in cycles {
            let mut arcs = Vec::new();
            for (k, &p) in cycle.iter().enumerate() {
                let q = cycle[(k + 1) % cycle.len()];
                let t = self.with(sa, Val::Const(p as i64), |t| {
                    t.with(sb, Val::Const(q as i64), |t| t.bexpr(pred))
                })?;
                arcs.push(t);
            }
            clauses.push(format!("!({})", conjunction(arcs)));
        }
        Ok(conjunction(clauses))
    }
}

/// Two arrays' elements compared lexicographically, unrolled: equal up to
/// some element, which decides (equal throughout for `==`, `<=`, `>=`).
pub(super) fn array_comparison(cmp: Cmp, pairs: &[(String, String)]) -> String {
    let all_equal = conjunction(pairs.iter().map(|(x, y)| format!("({x} == {y})")).collect());
    let strict = |op: &str| {
        disjunction(
            (0..pairs.len())
                .map(|k| {
                    let mut parts: Vec<String> = pairs[..k]
                        .iter()
                        .map(|(x, y)| format!("({x} == {y})"))
                        .collect();
                    parts.push(format!("({} {op} {})", pairs[k].0, pairs[k].1));
                    conjunction(parts)
                })
                .collect(),
        )
    };
    match cmp {
        Cmp::Eq => all_equal,
        Cmp::Ne => format!("!({all_equal})"),
        Cmp::Lt => strict("<"),
        Cmp::Gt => strict(">"),
        Cmp::Le => format!("({} || {all_equal})", strict("<")),
        Cmp::Ge => format!("({} || {all_equal})", strict(">")),
    }
}

fn sum(terms: Vec<String>) -> String {
    if terms.is_empty() {
        "0".into()
    } else {
        format!("({})", terms.join(" + "))
    }
}

/// `a && b && ...` (true when empty).
pub(super) fn conjunction(parts: Vec<String>) -> String {
    match parts.len() {
        0 => "true".into(),
        1 => parts.into_iter().next().unwrap(),
        _ => format!("({})", parts.join(" && ")),
    }
}

/// `a || b || ...` (false when empty).
pub(super) fn disjunction(parts: Vec<String>) -> String {
    match parts.len() {
        0 => "false".into(),
        1 => parts.into_iter().next().unwrap(),
        _ => format!("({})", parts.join(" || ")),
    }
}
