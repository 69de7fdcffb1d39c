//! Integer formulas of `n`, the number of processes, as the command line
//! writes parameter values that follow the size (`--param K=n`, `K=2*n-1`)
//! and reference curves (`--plot-bound 3*n+1`). Division and `mod` are
//! Euclidean, as in the language.

/// An integer formula of `n`: `n`, `n+1`, `2*n-1`, `n*n`, `2^n`, `(n+1)/2`,
/// `n mod 3`. Division and `mod` are Euclidean, as in the language.
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    /// A number.
    Const(i64),
    /// The number of processes.
    N,
    /// `-a`.
    Neg(Box<Formula>),
    /// `a OP b`, the operator one of `+ - * / mod ^`.
    Bin(char, Box<Formula>, Box<Formula>),
}

impl Formula {
    /// Parses a formula.
    pub fn parse(text: &str) -> Result<Formula, String> {
        let tokens = tokens(text)?;
        let mut p = FormulaParser { tokens, at: 0 };
        let f = p.sum(0)?;
        match p.tokens.get(p.at) {
            None => Ok(f),
            Some(t) => Err(format!("`{text}`: unexpected `{t}`")),
        }
    }

    /// The formula's value for `n` processes.
    pub fn eval(&self, n: i64) -> Result<i64, String> {
        let overflow = || "overflows a 64-bit integer".to_string();
        Ok(match self {
            Formula::Const(c) => *c,
            Formula::N => n,
            Formula::Neg(a) => a.eval(n)?.checked_neg().ok_or_else(overflow)?,
            Formula::Bin(op, a, b) => {
                let (a, b) = (a.eval(n)?, b.eval(n)?);
                match op {
                    '+' => a.checked_add(b),
                    '-' => a.checked_sub(b),
                    '*' => a.checked_mul(b),
                    '/' | '%' if b == 0 => return Err("divides by zero".into()),
                    '/' => a.checked_div_euclid(b),
                    '%' => a.checked_rem_euclid(b),
                    _ if b < 0 => return Err("raises to a negative power".into()),
                    _ => u32::try_from(b).ok().and_then(|b| a.checked_pow(b)),
                }
                .ok_or_else(overflow)?
            }
        })
    }
}

fn tokens(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_alphanumeric() {
            let mut word = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_alphanumeric()) {
                word.push(d);
                chars.next();
            }
            out.push(word);
        } else if "+-*/^()".contains(c) {
            out.push(c.to_string());
            chars.next();
        } else {
            return Err(format!("`{text}`: unexpected `{c}` (a formula uses n, integers, + - * / mod ^ and parentheses)"));
        }
    }
    Ok(out)
}

struct FormulaParser {
    tokens: Vec<String>,
    at: usize,
}

/// Binding strength of each binary operator; `^` binds tightest and to the right.
fn precedence(op: &str) -> Option<(char, u8)> {
    Some(match op {
        "+" => ('+', 1),
        "-" => ('-', 1),
        "*" => ('*', 2),
        "/" => ('/', 2),
        "mod" => ('%', 2),
        "^" => ('^', 3),
        _ => return None,
    })
}

impl FormulaParser {
    fn next(&mut self) -> Option<String> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    /// Operators binding at least as tightly as `min`, by precedence climbing.
    fn sum(&mut self, min: u8) -> Result<Formula, String> {
        let mut left = self.atom()?;
        while let Some((op, prec)) = self.tokens.get(self.at).and_then(|t| precedence(t)) {
            if prec < min {
                break;
            }
            self.at += 1;
            let next_min = if op == '^' { prec } else { prec + 1 };
            let right = self.sum(next_min)?;
            left = Formula::Bin(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn atom(&mut self) -> Result<Formula, String> {
        match self.next().as_deref() {
            Some("n") => Ok(Formula::N),
            // The negation of a power: -2^2 is -4, as usually read.
            Some("-") => Ok(Formula::Neg(Box::new(self.sum(3)?))),
            Some("(") => {
                let f = self.sum(0)?;
                match self.next().as_deref() {
                    Some(")") => Ok(f),
                    _ => Err("a `(` is not closed".into()),
                }
            }
            Some(t) if t.chars().all(|c| c.is_ascii_digit()) => t
                .parse()
                .map(Formula::Const)
                .map_err(|_| format!("`{t}` does not fit in a 64-bit integer")),
            Some(t) => Err(format!("unexpected `{t}` (a formula uses n and integers)")),
            None => Err("the formula ends too soon".into()),
        }
    }
}
