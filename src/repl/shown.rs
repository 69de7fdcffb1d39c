//! `eval` of tuples and sets as well as single values: each component,
//! candidate and filter compiled as a single value is, and the whole
//! written as the program would write it, `(3, 1)` or `{0, 4}`.

use super::*;
use crate::check::{Candidates, Checked, Shown};
use crate::compile::MAX_RANGE;

/// A compiled expression to show (see [`crate::check::Shown`]).
pub(super) enum ShownFn {
    /// One value.
    One(GlobalFn),
    /// A tuple's components.
    Tuple(Vec<ShownFn>),
    /// A set's members: each candidate put in local `slot`, a member where
    /// `filter` holds.
    Set {
        slot: usize,
        candidates: CandidatesFn,
        filter: Option<GlobalFn>,
    },
}

/// Where a set's candidates come from.
pub(super) enum CandidatesFn {
    Procs,
    NbrsOf(GlobalFn),
    Range(GlobalFn, GlobalFn),
}

impl Session {
    /// `text` checked and compiled for `eval` and watches: one value, a
    /// tuple or a set.
    pub(super) fn compile_shown(&self, text: &str) -> Result<(ShownFn, usize), String> {
        let (shown, locals) = self
            .checked_with_names(text, check::check_shown_expr)
            .or_else(|first| {
                // A collection alone (`nbrs(2)`, `procs`, `0..3`) is no
                // expression; shown, it is the set of all its members.
                let whole = format!("{{member in {text} : true}}");
                match syntax::parse_expression(text) {
                    Err(_) if syntax::parse_expression(&whole).is_ok() => self
                        .checked_with_names(&whole, check::check_shown_expr)
                        .map_err(|_| first),
                    _ => Err(first),
                }
            })?;
        let compile = |c: Checked| {
            compile::compile_global(&self.sim.prog, &self.sim.code, &c)
                .map_err(|ps| self.render_typed(ps, text))
        };
        Ok((compile_shown(shown, &compile)?, locals))
    }
}

/// The value of a compiled expression in `sim`'s configuration, as `eval`
/// and watches print it, or why it has none.
pub(super) fn shown_value(sim: &Simulation, f: &ShownFn, locals: usize) -> Result<String, String> {
    shown_in(sim, f, &sim.locals_for(locals))
}

fn shown_in(
    sim: &Simulation,
    f: &ShownFn,
    cells: &[std::cell::Cell<i64>],
) -> Result<String, String> {
    let value = |g: &GlobalFn| {
        sim.eval_in(0, g, cells)
            .map_err(|fault| fault.message.clone())
    };
    Ok(match f {
        ShownFn::One(g) => sim.prog.show_value(type_of(g), value(g)?),
        ShownFn::Tuple(items) => {
            let shown: Result<Vec<String>, _> =
                items.iter().map(|i| shown_in(sim, i, cells)).collect();
            format!("({})", shown?.join(", "))
        }
        ShownFn::Set {
            slot,
            candidates,
            filter,
        } => {
            let n = sim.n();
            let members: Vec<i64> = match candidates {
                CandidatesFn::Procs => (0..n as i64).collect(),
                CandidatesFn::NbrsOf(of) => {
                    let q = value(of)?;
                    match usize::try_from(q).ok().filter(|&q| q < n) {
                        Some(q) => sim
                            .topology()
                            .nbrs(q)
                            .iter()
                            .map(|&r| i64::from(r))
                            .collect(),
                        None => {
                            return Err(format!("{q} is not a process (they are 0 to {})", n - 1))
                        }
                    }
                }
                CandidatesFn::Range(lo, hi) => {
                    let (lo, hi) = (value(lo)?, value(hi)?);
                    if i128::from(hi) - i128::from(lo) >= i128::from(MAX_RANGE) {
                        return Err(format!(
                            "the range {lo}..{hi} has more than the {MAX_RANGE} values a set shown goes through"
                        ));
                    }
                    (lo..=hi).collect()
                }
            };
            let mut kept = Vec::new();
            for m in members {
                cells[*slot].set(m);
                if filter.as_ref().map_or(Ok(1), value)? != 0 {
                    kept.push(m.to_string());
                }
            }
            // Processes by number, as `eval` prints a node.
            format!("{{{}}}", kept.join(", "))
        }
    })
}

fn compile_shown(
    shown: Shown,
    compile: &impl Fn(Checked) -> Result<GlobalFn, String>,
) -> Result<ShownFn, String> {
    Ok(match shown {
        Shown::One(c) => ShownFn::One(compile(c)?),
        Shown::Tuple(items) => ShownFn::Tuple(
            items
                .into_iter()
                .map(|i| compile_shown(i, compile))
                .collect::<Result<_, _>>()?,
        ),
        Shown::Set(set) => {
            let int = |e| compile(Checked::Int(e, Ty::Int));
            ShownFn::Set {
                slot: set.slot,
                candidates: match set.candidates {
                    Candidates::Procs => CandidatesFn::Procs,
                    Candidates::NbrsOf(p) => CandidatesFn::NbrsOf(int(p)?),
                    Candidates::Range(lo, hi) => CandidatesFn::Range(int(lo)?, int(hi)?),
                },
                filter: set.filter.map(|f| compile(Checked::Bool(f))).transpose()?,
            }
        }
    })
}
