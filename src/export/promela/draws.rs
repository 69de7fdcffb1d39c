//! Random draws in Promela. SPIN has no probabilities, so a draw is a
//! nondeterministic choice of any member, as `verify` explores it: a
//! hidden variable chosen (by `select` over a range, by an `if` over a
//! set's members) just before the statement that draws, then read where
//! the draw stands. An empty range or set fails an assertion, as it stops
//! a run. A `d_step` resolves choices deterministically, so a move that
//! draws is an `atomic` sequence (SPIN stores neither's inner states, so
//! the states stored are the configurations still), where what moves
//! messages is a `d_step` still (see [`Tr::sealed`]).

use super::stmt::indent;
use super::{Tr, Untranslatable, Val};
use crate::check::ir::Draw;
use crate::span::Span;
use std::cell::{Cell, RefCell};

/// The choices the draws of the statement being translated make, and how
/// many hidden variables they take.
#[derive(Default)]
pub(super) struct Draws {
    /// Each draw's choice, in Promela, in order; the statement that draws
    /// takes them (see [`Tr::drawing`]).
    choices: RefCell<Vec<String>>,
    /// The most choices one statement makes: the hidden variables needed.
    most: Cell<usize>,
}

impl Draws {
    /// The declarations of the hidden variables the draws are chosen into.
    pub(super) fn declarations(&self) -> String {
        (0..self.most.get())
            .map(|k| format!("hidden int rnd{k};  /* a random draw's value */\n"))
            .collect()
    }
}

/// One way a draw may choose: the condition (`None`: always) and the
/// statement that sets the draw's variable.
type Choice = (Option<String>, String);

impl Tr<'_> {
    /// `statement` after the choices of the draws it reads.
    pub(super) fn after_choices(&self, mut choices: Vec<String>, statement: String) -> String {
        choices.push(statement);
        choices.join(";\n")
    }

    /// `statement`, which moves messages, as a `d_step` in a move that
    /// draws. Elsewhere in an `atomic` sequence SPIN undoes each assignment
    /// as it backtracks, hidden variables too (which a `d_step`, restoring
    /// the state vector alone, would not: a copy of the configuration read
    /// after a choice would keep a later step's values); but an element
    /// assigned at an index a hidden variable holds (a channel's slot) is
    /// undone at the wrong element once the index has moved on.
    pub(super) fn sealed(&self, statement: String) -> String {
        if !self.atomic_move {
            return statement;
        }
        // SPIN refuses a jump into a `d_step` (the end of an `if` jumps to
        // what follows it).
        format!("skip;\nd_step {{\n{}\n}}", indent(&statement))
    }

    /// The translator of a step of several movers: an `atomic` sequence
    /// where the program draws, each statement a `d_step` of its own.
    pub(super) fn drawing_steps(&self) -> Tr<'_> {
        Tr {
            atomic_move: self.prog.draws,
            ..self.clone()
        }
    }

    /// A step of several movers that draws: the copy of the configuration,
    /// the heads taken (in a `d_step`), then each process's move.
    pub(super) fn prepared_moves(
        &self,
        copy: Vec<String>,
        takes: Vec<String>,
        moves: Vec<String>,
    ) -> String {
        let mut parts = vec![copy.join("; ")];
        if !takes.is_empty() {
            parts.push(self.sealed(takes.join(";\n")));
        }
        parts.extend(moves);
        parts.join(";\n")
    }

    /// What `f` translates, with the choices its draws make (to run just
    /// before it).
    pub(super) fn drawing<T>(
        &self,
        f: impl FnOnce() -> Result<T, Untranslatable>,
    ) -> Result<(Vec<String>, T), Untranslatable> {
        let mark = self.draws.choices.borrow().len();
        let out = f()?;
        let choices = self.draws.choices.borrow_mut().split_off(mark);
        Ok((choices, out))
    }

    /// A translator for what the language may leave unevaluated: a branch,
    /// the right of `and`, a quantifier's body after its first member.
    pub(super) fn maybe(&self) -> Tr<'_> {
        Tr {
            conditional: true,
            ..self.clone()
        }
    }

    /// `random(...)`: its choice recorded, the hidden variable it chose into.
    pub(super) fn draw(&self, d: &Draw, span: Span) -> Result<String, Untranslatable> {
        if self.in_guard || !self.atomic_move {
            return Err(Untranslatable::new(
                "a random draw outside a statement",
                Some(span),
            ));
        }
        let var = format!("rnd{}", self.draws.choices.borrow().len());
        let (nested, (options, never_empty)) = self.drawing(|| self.draw_choices(d, &var))?;
        if !nested.is_empty() {
            return Err(Untranslatable::new(
                "a random draw inside a draw's range or set",
                Some(span),
            ));
        }
        if !never_empty && self.conditional {
            return Err(Untranslatable {
                message: "a random draw from a range or set that may be empty, in a part of a statement that may go unevaluated,".into(),
                span: Some(span),
                help: Some("make the draw in a statement of its own, in an `if c { ... }` where it is needed: SPIN's choice is made before the statement runs, and an empty set there would fail where the program does not"),
            });
        }
        let choice = match (options.len(), never_empty) {
            (1, true) => options[0].1.clone(),
            (0, _) => empty(),
            _ => branches(options, never_empty),
        };
        let mut choices = self.draws.choices.borrow_mut();
        choices.push(choice);
        self.draws
            .most
            .set(self.draws.most.get().max(choices.len()));
        Ok(var)
    }

    /// The ways a draw chooses into `var`: each a condition (`None`: always)
    /// and the statement; and whether one always holds (the draw is never
    /// from an empty set).
    fn draw_choices(&self, d: &Draw, var: &str) -> Result<(Vec<Choice>, bool), Untranslatable> {
        Ok(match d {
            Draw::Range(lo, hi) => match (self.constant(lo), self.constant(hi)) {
                (Some(lo), Some(hi)) if lo == hi => (vec![(None, format!("{var} = {lo}"))], true),
                (Some(lo), Some(hi)) if lo < hi => {
                    (vec![(None, format!("select({var} : {lo} .. {hi})"))], true)
                }
                (Some(_), Some(_)) => (Vec::new(), false),
                _ => {
                    let (lo, hi) = (self.iexpr(lo)?, self.iexpr(hi)?);
                    (
                        vec![(
                            Some(format!("{lo} <= {hi}")),
                            format!("select({var} : {lo} .. {hi})"),
                        )],
                        false,
                    )
                }
            },
            Draw::Member { slot, coll, filter } => {
                let mut options = Vec::new();
                let mut never_empty = false;
                for m in self.members(coll)? {
                    let set = format!("{var} = {m}");
                    let Some(filter) = filter else {
                        options.push((None, set));
                        never_empty = true;
                        continue;
                    };
                    let when = self.with(*slot, Val::Const(m), |t| match t.bconstant(filter) {
                        Some(fixed) => Ok(fixed.then_some(None)),
                        None => Ok(Some(Some(t.bexpr(filter)?))),
                    })?;
                    match when {
                        None => {}
                        Some(None) => {
                            never_empty = true;
                            options.push((None, set));
                        }
                        Some(Some(cond)) => options.push((Some(cond), set)),
                    }
                }
                (options, never_empty)
            }
        })
    }
}

/// An `if` taking any of `options` that holds, failing where none does
/// (unless one always holds).
fn branches(options: Vec<Choice>, never_empty: bool) -> String {
    let mut lines: Vec<String> = options
        .into_iter()
        .map(|(when, set)| match when {
            Some(when) => format!(":: {when} -> {set}"),
            None => format!(":: {set}"),
        })
        .collect();
    if !never_empty {
        lines.push(format!(":: else -> {}", empty()));
    }
    format!("if\n{}\nfi", lines.join("\n"))
}

/// What a draw from an empty range or set does: it fails, as it stops a run.
fn empty() -> String {
    "assert(false)  /* a random draw from an empty range or set */".into()
}
