//! The exact closed form of a worst case over a family of sizes: the
//! lowest-degree polynomial in `n` with rational coefficients through the
//! values at every size but the last two, kept only where it predicts those
//! two exactly. Exact arithmetic on fractions throughout: a closed form is
//! a claim, not a curve fitted by least squares.

use std::fmt;

/// A fraction in lowest terms, its denominator positive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ratio {
    num: i128,
    den: i128,
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ratio {
    const ZERO: Ratio = Ratio { num: 0, den: 1 };

    fn new(num: i128, den: i128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den).max(1);
        let sign = if den < 0 { -1 } else { 1 };
        Some(Ratio {
            num: sign * num / g,
            den: sign * den / g,
        })
    }

    fn int(v: i128) -> Ratio {
        Ratio { num: v, den: 1 }
    }

    fn add(self, o: Ratio) -> Option<Ratio> {
        let num = self
            .num
            .checked_mul(o.den)?
            .checked_add(o.num.checked_mul(self.den)?)?;
        Ratio::new(num, self.den.checked_mul(o.den)?)
    }

    fn sub(self, o: Ratio) -> Option<Ratio> {
        self.add(Ratio::new(-o.num, o.den)?)
    }

    fn mul(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.num.checked_mul(o.num)?, self.den.checked_mul(o.den)?)
    }

    fn div(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.num.checked_mul(o.den)?, self.den.checked_mul(o.num)?)
    }
}

/// A polynomial in `n` with rational coefficients, lowest power first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Polynomial {
    coefficients: Vec<Ratio>,
}

impl Polynomial {
    /// The polynomial of degree at most `points.len() - 1` through
    /// `points` (distinct `n`), by Newton's divided differences; `None` on
    /// overflow.
    fn through(points: &[(i64, i64)]) -> Option<Polynomial> {
        let xs: Vec<i128> = points.iter().map(|p| i128::from(p.0)).collect();
        let mut table: Vec<Ratio> = points.iter().map(|p| Ratio::int(i128::from(p.1))).collect();
        let k = points.len();
        // table[j] becomes the divided difference f[x0..xj].
        for level in 1..k {
            for j in (level..k).rev() {
                let diff = table[j].sub(table[j - 1])?;
                table[j] = diff.div(Ratio::int(xs[j] - xs[j - level]))?;
            }
        }
        // From the Newton form to coefficients, innermost first.
        let mut coefficients = vec![Ratio::ZERO; k.max(1)];
        for j in (0..k).rev() {
            // coefficients := coefficients * (n - x_j) + table[j]
            let mut next = vec![Ratio::ZERO; k.max(1)];
            for (d, c) in coefficients.iter().enumerate() {
                if d + 1 < next.len() {
                    next[d + 1] = next[d + 1].add(*c)?;
                }
                next[d] = next[d].sub(c.mul(Ratio::int(xs[j]))?)?;
            }
            next[0] = next[0].add(table[j])?;
            coefficients = next;
        }
        while coefficients.len() > 1 && coefficients.last() == Some(&Ratio::ZERO) {
            coefficients.pop();
        }
        Some(Polynomial { coefficients })
    }

    /// Its value at `n`, when it is an integer.
    fn at(&self, n: i64) -> Option<i64> {
        let mut v = Ratio::ZERO;
        for c in self.coefficients.iter().rev() {
            v = v.mul(Ratio::int(i128::from(n)))?.add(*c)?;
        }
        (v.den == 1).then(|| i64::try_from(v.num).ok()).flatten()
    }

    /// Its degree (0 for a constant, the zero polynomial included).
    pub fn degree(&self) -> usize {
        self.coefficients.len() - 1
    }

    /// The common denominator of its coefficients and the integer
    /// coefficients over it, lowest power first.
    fn over_common_denominator(&self) -> (i128, Vec<i128>) {
        let den = self
            .coefficients
            .iter()
            .fold(1i128, |l, c| l / gcd(l, c.den).max(1) * c.den);
        let ints = self
            .coefficients
            .iter()
            .map(|c| c.num * (den / c.den))
            .collect();
        (den, ints)
    }

    /// Its integer roots with multiplicity, when it has `degree` of them
    /// (it splits into linear factors over the integers).
    fn integer_roots(&self) -> Option<Vec<i128>> {
        let (_, mut ints) = self.over_common_denominator();
        let mut roots = Vec::new();
        while ints.len() > 1 {
            // A root divides the constant term (or is 0).
            let constant = ints[0];
            let root = if constant == 0 {
                0
            } else {
                let bound = constant.abs();
                (1..=bound.min(1_000_000))
                    .filter(|d| bound % d == 0)
                    .flat_map(|d| [d, -d])
                    .find(|&r| eval_int(&ints, r) == Some(0))?
            };
            roots.push(root);
            ints = divide_by_root(&ints, root);
        }
        Some(roots)
    }
}

/// `ints` (lowest power first) at `x`.
fn eval_int(ints: &[i128], x: i128) -> Option<i128> {
    ints.iter()
        .rev()
        .try_fold(0i128, |v, &c| v.checked_mul(x)?.checked_add(c))
}

/// `ints` divided by `(n - root)`, a root of it (synthetic division).
fn divide_by_root(ints: &[i128], root: i128) -> Vec<i128> {
    let k = ints.len() - 1;
    let mut quotient = vec![0i128; k];
    let mut carry = 0i128;
    for d in (1..=k).rev() {
        carry = ints[d] + carry * root;
        quotient[d - 1] = carry;
    }
    quotient
}

/// A term `c n^d` written after others: its sign as an operator.
fn term(c: i128, d: usize, first: bool) -> String {
    let sign = match (c < 0, first) {
        (true, true) => "-",
        (true, false) => " - ",
        (false, true) => "",
        (false, false) => " + ",
    };
    let a = c.abs();
    let power = match d {
        0 => String::new(),
        1 => "n".into(),
        d => format!("n^{d}"),
    };
    match (a, d) {
        (1, d) if d > 0 => format!("{sign}{power}"),
        (a, _) => format!("{sign}{a}{power}"),
    }
}

impl fmt::Display for Polynomial {
    /// Expanded, highest power first, over a common denominator
    /// (`(3n^2 - n)/2`); then `= (n-1)(n-2)` where it splits over the
    /// integers with a leading coefficient of one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (den, ints) = self.over_common_denominator();
        let mut expanded = String::new();
        for (d, &c) in ints.iter().enumerate().rev() {
            if c != 0 {
                expanded += &term(c, d, expanded.is_empty());
            }
        }
        if expanded.is_empty() {
            expanded = "0".into();
        }
        let several_terms = ints.iter().filter(|&&c| c != 0).count() > 1;
        match (den, several_terms) {
            (1, _) => f.write_str(&expanded)?,
            (den, true) => write!(f, "({expanded})/{den}")?,
            (den, false) => write!(f, "{expanded}/{den}")?,
        }
        let monic = den == 1 && ints.last() == Some(&1);
        if monic && self.degree() >= 2 && several_terms {
            if let Some(mut roots) = self.integer_roots() {
                roots.sort_unstable();
                let mut factors = String::new();
                for (k, &r) in roots.iter().enumerate() {
                    if k > 0 && roots[k - 1] == r {
                        continue;
                    }
                    let times = roots[k..].iter().take_while(|&&x| x == r).count();
                    let base = match r {
                        0 => "n".to_string(),
                        r if r > 0 => format!("(n-{r})"),
                        r => format!("(n+{})", -r),
                    };
                    factors += &match times {
                        1 => base,
                        t => format!("{base}^{t}"),
                    };
                }
                write!(f, " = {factors}")?;
            }
        }
        Ok(())
    }
}

/// What a family's values say of their closed form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The polynomial through every size but the last two (and but the
    /// first `exceptions`, small sizes where the values depart from it),
    /// which it predicts exactly.
    Exact {
        /// The polynomial.
        polynomial: Polynomial,
        /// The sizes at the small end it leaves out, and their values.
        exceptions: Vec<(i64, i64)>,
    },
    /// No polynomial of degree at most `tried` through every size but the
    /// last two predicts them (nor through fewer, the smallest left out as
    /// exceptions, down to half of them). `tried` is below `bound`, the
    /// degree asked for, where too few sizes were fitted to try higher.
    NoneFits {
        /// The highest degree the sizes allowed trying.
        tried: usize,
        /// The highest degree asked for.
        bound: usize,
    },
    /// Too few sizes to fit and then check a prediction (at least three).
    TooFew,
}

/// The closed form of the values `points` (`(n, value)`, distinct `n` in
/// increasing order): the lowest-degree polynomial, of degree at most
/// `most_degree`, through all but the last two, when it predicts those two
/// exactly. Where none does, the smallest sizes are left out one by one
/// (small instances are often exceptions), down to half of those fitted.
pub fn fit(points: &[(i64, i64)], most_degree: usize) -> Fit {
    if points.len() < 3 {
        return Fit::TooFew;
    }
    let (fitted, checked) = points.split_at(points.len() - 2);
    for skipped in 0..=fitted.len() / 2 {
        let fitted = &fitted[skipped..];
        if let Some(polynomial) = lowest_through(fitted, most_degree) {
            if checked.iter().all(|&(n, v)| polynomial.at(n) == Some(v)) {
                return Fit::Exact {
                    polynomial,
                    exceptions: points[..skipped].to_vec(),
                };
            }
        }
    }
    Fit::NoneFits {
        tried: most_degree.min(fitted.len() - 1),
        bound: most_degree,
    }
}

/// The lowest-degree polynomial, of degree at most `most_degree`, through
/// every point of `fitted`.
fn lowest_through(fitted: &[(i64, i64)], most_degree: usize) -> Option<Polynomial> {
    for degree in 0..=most_degree.min(fitted.len().checked_sub(1)?) {
        let poly = Polynomial::through(&fitted[..=degree])?;
        if fitted.iter().all(|&(n, v)| poly.at(n) == Some(v)) {
            return Some(poly);
        }
    }
    None
}

impl fmt::Display for Fit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fit::Exact {
                polynomial,
                exceptions,
            } => {
                write!(f, "{polynomial}")?;
                if let Some(&(after, _)) = exceptions.last() {
                    let each: Vec<String> = exceptions
                        .iter()
                        .map(|(n, v)| format!("{v} at n = {n}"))
                        .collect();
                    write!(f, " for n > {after} (but {})", each.join(", "))?;
                }
                Ok(())
            }
            // A fit uses degree + 1 sizes and checks 2 more.
            Fit::NoneFits { tried, bound } if tried < bound => write!(
                f,
                "no polynomial of degree <= {tried} fits; {} sizes try no higher, degree <= {bound} needs {}",
                tried + 3,
                bound + 3
            ),
            Fit::NoneFits { tried, .. } => write!(f, "no polynomial of degree <= {tried} fits"),
            Fit::TooFew => f.write_str("too few sizes for a closed form (at least 3)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(f: impl Fn(i64) -> i64, ns: std::ops::RangeInclusive<i64>) -> Vec<(i64, i64)> {
        ns.map(|n| (n, f(n))).collect()
    }

    #[test]
    fn it_finds_the_lowest_degree_and_writes_it_as_people_do() {
        let shown = |f: &dyn Fn(i64) -> i64| fit(&points(f, 3..=8), 3).to_string();
        assert_eq!(shown(&|n| (n - 1) * (n - 2)), "n^2 - 3n + 2 = (n-1)(n-2)");
        assert_eq!(shown(&|_| 7), "7");
        assert_eq!(shown(&|n| 2 * n - 1), "2n - 1");
        assert_eq!(shown(&|n| n * (3 * n - 1) / 2), "(3n^2 - n)/2");
        assert_eq!(shown(&|n| n * n * n), "n^3");
        assert_eq!(
            shown(&|n| n * (n - 1) * (n - 1)),
            "n^3 - 2n^2 + n = n(n-1)^2"
        );
        assert_eq!(shown(&|n| (n + 1) * (n - 2)), "n^2 - n - 2 = (n+1)(n-2)");
        assert_eq!(shown(&|n| n / 2), "no polynomial of degree <= 3 fits");
        assert_eq!(shown(&|n| 1 << n), "no polynomial of degree <= 3 fits");
        assert_eq!(fit(&[(3, 1), (4, 2)], 3), Fit::TooFew);
        // The last two sizes are checked, not fitted: a quadratic through
        // four points that then departs is no closed form.
        let departs = [(3, 4), (4, 9), (5, 16), (6, 25), (7, 36), (8, 50)];
        assert_eq!(fit(&departs, 3), Fit::NoneFits { tried: 3, bound: 3 });
        // Three sizes fit no more than a constant, and the verdict says
        // so rather than claiming every cubic was ruled out.
        let too_few = fit(&points(|n| n * n, 3..=5), 3);
        assert_eq!(too_few, Fit::NoneFits { tried: 0, bound: 3 });
        assert_eq!(
            too_few.to_string(),
            "no polynomial of degree <= 0 fits; 3 sizes try no higher, degree <= 3 needs 6"
        );
        assert_eq!(fit(&points(|n| n * n, 3..=7), 3).to_string(), "n^2");
        // A small size that departs is left out, and said so.
        let small = [(3, 2), (4, 13), (5, 24), (6, 38), (7, 55), (8, 75)];
        assert_eq!(
            fit(&small, 3).to_string(),
            "(3n^2 - 5n - 2)/2 for n > 3 (but 2 at n = 3)"
        );
    }
}
