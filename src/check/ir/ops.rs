//! The operators' meaning, defined once: arithmetic (checked, Euclidean
//! `/` and `mod`) and comparisons. The closures, the constant folder and
//! the column kernels all use these definitions.

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`, Euclidean: `a / b` is the `q` with `a = q*b + r` and `0 <= r < |b|`
    Div,
    /// `mod`, Euclidean: never negative, so `(x - 1) mod K` is in `0..K-1`
    Mod,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Arith {
    /// `a op b`, or `None` on overflow or division by zero: the one
    /// definition of the arithmetic operators, which the closures, the
    /// constant folder and the column kernels all use.
    #[inline(always)]
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            Arith::Add => a.checked_add(b),
            Arith::Sub => a.checked_sub(b),
            Arith::Mul => a.checked_mul(b),
            Arith::Div => a.checked_div_euclid(b),
            Arith::Mod => a.checked_rem_euclid(b),
            Arith::Min => Some(a.min(b)),
            Arith::Max => Some(a.max(b)),
        }
    }

    /// [`Arith::apply`] for loops that check once at the end: the value
    /// (anything when it failed) and whether it failed.
    #[inline(always)]
    pub fn apply_flagged(self, a: i64, b: i64) -> (i64, bool) {
        match self {
            // The same results as `apply`, in the form that vectorizes.
            Arith::Add => a.overflowing_add(b),
            Arith::Sub => a.overflowing_sub(b),
            Arith::Mul => a.overflowing_mul(b),
            _ => match self.apply(a, b) {
                Some(v) => (v, false),
                None => (0, true),
            },
        }
    }
}

/// `-a`, or `None` on overflow.
#[inline(always)]
pub fn negate(a: i64) -> Option<i64> {
    a.checked_neg()
}

/// `abs(a)`, or `None` on overflow.
#[inline(always)]
pub fn absolute(a: i64) -> Option<i64> {
    a.checked_abs()
}

impl Cmp {
    /// The operator that holds exactly where this one does not (integers
    /// are totally ordered).
    pub const fn negated(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
        }
    }

    /// The operator that holds of `b` and `a` where this one holds of `a`
    /// and `b`.
    pub const fn swapped(self) -> Cmp {
        match self {
            Cmp::Eq | Cmp::Ne => self,
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
        }
    }

    /// Whether `a op b` holds: the one definition of the comparisons.
    #[inline(always)]
    pub const fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// Expands `$body` once per comparison operator, with `$c` bound to that
/// operator as a constant: code specialized per operator (fused reads,
/// column kernels) still takes each operator's meaning from [`Cmp::holds`].
macro_rules! specialize_cmp {
    ($op:expr, $c:ident => $body:expr) => {
        match $op {
            $crate::check::ir::Cmp::Eq => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Eq;
                $body
            }
            $crate::check::ir::Cmp::Ne => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Ne;
                $body
            }
            $crate::check::ir::Cmp::Lt => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Lt;
                $body
            }
            $crate::check::ir::Cmp::Le => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Le;
                $body
            }
            $crate::check::ir::Cmp::Gt => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Gt;
                $body
            }
            $crate::check::ir::Cmp::Ge => {
                const $c: $crate::check::ir::Cmp = $crate::check::ir::Cmp::Ge;
                $body
            }
        }
    };
}
pub(crate) use specialize_cmp;
