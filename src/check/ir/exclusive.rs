//! Whether two guards can never hold together, proved from their text: the
//! question of which actions of one priority a process may have to choose
//! between. Each guard is put in disjunctive normal form, and every pair of
//! disjuncts (one from each guard) must contradict itself: a literal and
//! its negation, two comparisons of the same two expressions that no
//! ordering satisfies (`leader == id` and `leader < id`), or comparisons of
//! one expression with constants that no value satisfies (`s == thinking`
//! and `s == eating`). What it cannot prove it does not claim: `false`
//! means "may hold together".

use super::{reads_locals, BExpr, Cmp, IExpr};

/// The most disjuncts a guard's normal form may have before the question
/// is given up (answered "may hold together").
const MOST_DISJUNCTS: usize = 64;

/// An atom and whether it holds.
type Literal<'e> = (&'e BExpr, bool);

/// Whether `a` and `b` (guards of one process, read in one configuration)
/// can never both hold. Literals that read one of the local slots `free`
/// (a binder's member or a received message's fields, which the two
/// guards bind each on its own) say nothing about the other guard and are
/// left out.
pub fn exclusive(a: &BExpr, b: &BExpr, free: &[usize]) -> bool {
    let (Some(da), Some(db)) = (dnf(a, true), dnf(b, true)) else {
        return false;
    };
    da.iter().all(|x| {
        db.iter().all(|y| {
            let both = x.iter().chain(y);
            contradicts(both.filter(|(atom, _)| !reads_locals(atom, free)))
        })
    })
}

/// The disjunctive normal form of `b` (of `not b` when `holds` is false):
/// a list of conjunctions of literals; `None` past [`MOST_DISJUNCTS`].
fn dnf(b: &BExpr, holds: bool) -> Option<Vec<Vec<Literal<'_>>>> {
    let out = match (b, holds) {
        (BExpr::Not(a), h) => dnf(a, !h)?,
        (BExpr::And(x, y), true) | (BExpr::Or(x, y), false) => {
            both(dnf(x, holds)?, dnf(y, holds)?)?
        }
        (BExpr::Or(x, y), true) | (BExpr::And(x, y), false) => {
            let mut out = dnf(x, holds)?;
            out.extend(dnf(y, holds)?);
            out
        }
        (BExpr::Implies(x, y), true) => {
            let mut out = dnf(x, false)?;
            out.extend(dnf(y, true)?);
            out
        }
        (BExpr::Implies(x, y), false) => both(dnf(x, true)?, dnf(y, false)?)?,
        // No disjunct: the guard never holds.
        (BExpr::Const(c), h) if *c != h => Vec::new(),
        (BExpr::Const(_), _) => vec![Vec::new()],
        _ => vec![vec![(b, holds)]],
    };
    (out.len() <= MOST_DISJUNCTS).then_some(out)
}

/// The conjunction of two normal forms.
fn both<'e>(x: Vec<Vec<Literal<'e>>>, y: Vec<Vec<Literal<'e>>>) -> Option<Vec<Vec<Literal<'e>>>> {
    if x.len().saturating_mul(y.len()) > MOST_DISJUNCTS {
        return None;
    }
    Some(
        x.iter()
            .flat_map(|a| y.iter().map(move |b| a.iter().chain(b).copied().collect()))
            .collect(),
    )
}

/// The signs of `a - b` for which `a op b` holds, as bits: 1 negative,
/// 2 zero, 4 positive.
fn signs(op: Cmp) -> u8 {
    [(-1, 1u8), (0, 2), (1, 4)]
        .iter()
        .filter(|(s, _)| op.holds(*s, 0))
        .fold(0, |m, (_, bit)| m | bit)
}

/// The signs of `b - a` where those of `a - b` are `s`.
fn mirrored(s: u8) -> u8 {
    (s & 2) | (s & 1) << 2 | (s & 4) >> 2
}

/// What the comparisons of one expression with constants allow: an
/// interval, less the values excluded.
struct Allowed {
    lo: i64,
    hi: i64,
    excluded: Vec<i64>,
}

impl Allowed {
    /// Narrows to the values `v` with `v - c` of a sign in `s`.
    fn narrow(&mut self, s: u8, c: i64) {
        match s {
            0 => (self.lo, self.hi) = (1, 0),
            1 => self.hi = self.hi.min(c.saturating_sub(1)),
            2 => (self.lo, self.hi) = (self.lo.max(c), self.hi.min(c)),
            3 => self.hi = self.hi.min(c),
            4 => self.lo = self.lo.max(c.saturating_add(1)),
            5 => self.excluded.push(c),
            6 => self.lo = self.lo.max(c),
            _ => {}
        }
    }

    /// Whether no value is left.
    fn empty(&self) -> bool {
        if self.lo > self.hi {
            return true;
        }
        let width = self.hi.abs_diff(self.lo);
        width < 64 && (self.lo..=self.hi).all(|v| self.excluded.contains(&v))
    }
}

/// Whether two literals say opposite things: one atom, held and not; or two
/// comparisons of the same booleans, `a == b` held and `a != b` held.
fn opposite((a, x): Literal, (b, y): Literal) -> bool {
    match (a, b) {
        (BExpr::BoolEq(e, a1, a2), BExpr::BoolEq(f, b1, b2)) => {
            let same = (a1 == b1 && a2 == b2) || (a1 == b2 && a2 == b1);
            same && (x == *e) != (y == *f)
        }
        _ => a == b && x != y,
    }
}

/// Whether the conjunction of `literals` is unsatisfiable, by the rules in
/// the module's doc.
fn contradicts<'e>(literals: impl Iterator<Item = &'e Literal<'e>>) -> bool {
    let mut atoms: Vec<Literal> = Vec::new();
    let mut pairs: Vec<(&IExpr, &IExpr, u8)> = Vec::new();
    let mut bounds: Vec<(&IExpr, Allowed)> = Vec::new();
    for &(atom, holds) in literals {
        let BExpr::Cmp(op, l, r) = atom else {
            if atoms.iter().any(|&(a, h)| opposite((a, h), (atom, holds))) {
                return true;
            }
            atoms.push((atom, holds));
            continue;
        };
        let s = if holds { signs(*op) } else { 7 ^ signs(*op) };
        let (term, s, c) = match (l, r) {
            (IExpr::Const(a), IExpr::Const(b)) => {
                let sign = 1u8 << (a.cmp(b) as i8 + 1);
                if s & sign == 0 {
                    return true;
                }
                continue;
            }
            (t, IExpr::Const(c)) => (t, s, *c),
            (IExpr::Const(c), t) => (t, mirrored(s), *c),
            _ => {
                // Two expressions: the signs of their difference.
                let found = pairs.iter_mut().find_map(|(a, b, known)| {
                    if *a == l && *b == r {
                        Some((known, s))
                    } else if *a == r && *b == l {
                        Some((known, mirrored(s)))
                    } else {
                        None
                    }
                });
                match found {
                    Some((known, s)) => {
                        *known &= s;
                        if *known == 0 {
                            return true;
                        }
                    }
                    None if s == 0 => return true,
                    None => pairs.push((l, r, s)),
                }
                continue;
            }
        };
        let at = match bounds.iter().position(|(t, _)| *t == term) {
            Some(at) => at,
            None => {
                let all = Allowed {
                    lo: i64::MIN,
                    hi: i64::MAX,
                    excluded: Vec::new(),
                };
                bounds.push((term, all));
                bounds.len() - 1
            }
        };
        bounds[at].1.narrow(s, c);
        if bounds[at].1.empty() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::ir::Proc;

    fn var(v: usize) -> IExpr {
        IExpr::Var(Proc::Me, v)
    }
    fn cmp(op: Cmp, a: IExpr, b: IExpr) -> BExpr {
        BExpr::Cmp(op, a, b)
    }
    fn and(a: BExpr, b: BExpr) -> BExpr {
        BExpr::And(Box::new(a), Box::new(b))
    }
    fn not(a: BExpr) -> BExpr {
        BExpr::Not(Box::new(a))
    }

    #[test]
    fn contradictions_it_proves() {
        let s = || var(0);
        // s == thinking, s == eating
        assert!(exclusive(
            &cmp(Cmp::Eq, s(), IExpr::Const(0)),
            &and(cmp(Cmp::Eq, s(), IExpr::Const(2)), BExpr::Var(Proc::Me, 3)),
            &[]
        ));
        // leader == id and level == 0, against leader < id
        let id = || IExpr::Id(Proc::Me);
        assert!(exclusive(
            &and(
                cmp(Cmp::Eq, var(1), id()),
                cmp(Cmp::Eq, var(2), IExpr::Const(0))
            ),
            &cmp(Cmp::Lt, var(1), id()),
            &[]
        ));
        // b, against not b (either way round, through an or)
        let b = || BExpr::Var(Proc::Me, 4);
        let either = BExpr::Or(
            Box::new(and(b(), cmp(Cmp::Gt, var(1), IExpr::Const(3)))),
            Box::new(cmp(Cmp::Lt, var(1), IExpr::Const(0))),
        );
        assert!(exclusive(
            &either,
            &and(not(b()), cmp(Cmp::Ge, var(1), IExpr::Const(0))),
            &[]
        ));
        // b == left.b against b != left.b, for booleans
        let eq = |e: bool| {
            BExpr::BoolEq(
                e,
                Box::new(BExpr::Var(Proc::Me, 4)),
                Box::new(BExpr::Var(Proc::Left(Default::default()), 4)),
            )
        };
        assert!(exclusive(&eq(true), &eq(false), &[]));
        assert!(!exclusive(&eq(true), &not(eq(false)), &[]));
        // x != left.x, against left.x == x (mirrored)
        let left = || IExpr::Var(Proc::Left(Default::default()), 0);
        assert!(exclusive(
            &cmp(Cmp::Ne, s(), left()),
            &cmp(Cmp::Eq, left(), s()),
            &[]
        ));
    }

    #[test]
    fn what_it_does_not_claim() {
        let x = || var(0);
        // x == 0, against x >= 0
        assert!(!exclusive(
            &cmp(Cmp::Eq, x(), IExpr::Const(0)),
            &cmp(Cmp::Ge, x(), IExpr::Const(0)),
            &[]
        ));
        // F != left.F against Ld: nothing relates them
        assert!(!exclusive(
            &cmp(Cmp::Ne, x(), IExpr::Var(Proc::Left(Default::default()), 0)),
            &BExpr::Var(Proc::Me, 1),
            &[]
        ));
        // q.x == 1 against q.x != 1 for members bound each on its own
        let member = || IExpr::Var(Proc::Local(5), 0);
        assert!(!exclusive(
            &cmp(Cmp::Eq, member(), IExpr::Const(1)),
            &cmp(Cmp::Ne, member(), IExpr::Const(1)),
            &[5]
        ));
    }
}
