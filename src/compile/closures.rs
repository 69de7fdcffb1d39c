//! What every compiled closure is: its types (integer, boolean,
//! statement), its result and the fault it reports; a boolean comes back
//! as a word ([`Truth`]) so that the result is returned in registers.

use super::Env;
use crate::span::Span;

/// A runtime error raised inside a closure, pointing at the expression.
#[derive(Debug, Clone)]
pub struct Fault {
    /// The expression or assignment that failed.
    pub span: Span,
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub help: String,
}

/// A closure's result; faults are boxed to keep the success path small.
pub type Res<T> = Result<T, Box<Fault>>;

/// A fault at `span` saying `message`, with `help`.
pub(super) fn fault<T>(span: Span, message: String, help: &str) -> Res<T> {
    Err(Box::new(Fault {
        span,
        message,
        help: help.to_string(),
    }))
}

/// A compiled integer-like expression.
pub type IFn = Box<dyn Fn(&Env) -> Res<i64> + Send + Sync>;
/// A compiled boolean expression.
pub type BFn = Box<dyn Fn(&Env) -> Res<Truth> + Send + Sync>;
/// A compiled statement: writes go to `Env::scratch`.
pub type SFn = Box<dyn Fn(&Env) -> Res<()> + Send + Sync>;
/// A compiled process reference.
pub(super) type PFn = Box<dyn Fn(&Env) -> Res<usize> + Send + Sync>;
/// A compiled domain check run before an assignment lands.
pub(super) type CheckFn = Box<dyn Fn(&Env, i64) -> Res<()> + Send + Sync>;
/// A compiled closure producing any result.
pub type AnyFn<T> = Box<dyn Fn(&Env) -> Res<T> + Send + Sync>;

/// A boolean as a compiled closure returns it: a whole word, so that
/// `Res<Truth>` comes back in two registers, where a `Res<bool>` (the
/// flag and the tag at different offsets) is returned through memory, a
/// store and two loads on every one of a guard's calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Truth(usize);

impl Truth {
    /// Whether it is true.
    #[inline(always)]
    pub fn holds(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for Truth {
    #[inline(always)]
    fn from(b: bool) -> Self {
        Truth(usize::from(b))
    }
}

/// Calling a compiled boolean expression for a `bool`.
pub trait Holds {
    /// The expression's value in `env`.
    fn holds(&self, env: &Env) -> Res<bool>;
}

impl Holds for BFn {
    #[inline(always)]
    fn holds(&self, env: &Env) -> Res<bool> {
        self(env).map(Truth::holds)
    }
}

/// Boxes a closure computing a `bool` as a [`BFn`].
#[inline(always)]
pub fn boolean(f: impl Fn(&Env) -> Res<bool> + Send + Sync + 'static) -> BFn {
    Box::new(move |env| f(env).map(Truth::from))
}
