//! `eval` of tuples, sets and arrays as well as single values: each
//! component, candidate, filter and element compiled as a single value
//! is, and the whole written as the program (or `show`) writes it,
//! `(3, 1)`, `{0, 4}` or `[2,1,2]`.

use super::inspect::Rewrites;
use super::*;
use crate::check::{ArrayShown, Candidates, Checked, Shown};
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
    /// An array's elements: each index put in local `slot`, `element`
    /// read; the indices are `0..len`, or the neighbours of `owner` where
    /// there is no `len` (values per neighbour).
    Array {
        owner: GlobalFn,
        slot: usize,
        element: GlobalFn,
        len: Option<usize>,
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
        let (shown, locals, rewrites, wrapping) = match self
            .checked_with_names(text, check::check_shown_expr)
        {
            Ok((shown, locals, rewrites)) => (shown, locals, rewrites, Rewrites::default()),
            Err(first) => {
                // A collection alone (`nbrs(2)`, `procs`, `0..3`) is no
                // expression; shown, it is the set of all its members.
                let (prefix, suffix) = ("{member in ", " : true}");
                let whole = format!("{prefix}{text}{suffix}");
                match syntax::parse_expression(text) {
                    Err(_) if syntax::parse_expression(&whole).is_ok() => {
                        let (shown, locals, rewrites) = self
                            .checked_with_names(&whole, check::check_shown_expr)
                            .map_err(|_| first)?;
                        let wrapping = Rewrites::wrapped(prefix.len(), text.len(), suffix.len());
                        (shown, locals, rewrites, wrapping)
                    }
                    _ => return Err(first),
                }
            }
        };
        let back = |s| wrapping.back(rewrites.back(s));
        let compile = |c: Checked| {
            compile::compile_global(&self.sim.prog, &self.sim.code, &c)
                .map_err(|ps| self.render_typed(ps, text, &back))
        };
        Ok((compile_shown(shown, &self.sim.code.lens, &compile)?, locals))
    }

    /// A checked expression to show compiled, where its problems need no
    /// source to point into (the explanations of guards skip what fails).
    pub(super) fn compile_checked_shown(&self, shown: Shown) -> Option<ShownFn> {
        let compile = |c: Checked| {
            compile::compile_global(&self.sim.prog, &self.sim.code, &c).map_err(|_| String::new())
        };
        compile_shown(shown, &self.sim.code.lens, &compile).ok()
    }
}

/// The value of a compiled expression in `sim`'s configuration, as `eval`
/// and watches print it, or why it has none.
pub(super) fn shown_value(sim: &Simulation, f: &ShownFn, locals: usize) -> Result<String, String> {
    shown_in(sim, 0, f, &sim.locals_for(locals))
}

/// [`shown_value`] as process `me` sees the configuration (for an
/// expression checked as a guard reads it, `left.F`), with the locals in
/// `cells` (from [`Simulation::locals_for`]), some of them set beforehand:
/// a binder's member, a received message's fields.
pub(super) fn shown_in(
    sim: &Simulation,
    me: usize,
    f: &ShownFn,
    cells: &[std::cell::Cell<i64>],
) -> Result<String, String> {
    let value = |g: &GlobalFn| {
        sim.eval_in(me, g, cells)
            .map_err(|fault| fault.message.clone())
    };
    Ok(match f {
        ShownFn::One(g) => sim.prog.show_value(type_of(g), value(g)?),
        ShownFn::Tuple(items) => {
            let shown: Result<Vec<String>, _> =
                items.iter().map(|i| shown_in(sim, me, i, cells)).collect();
            format!("({})", shown?.join(", "))
        }
        ShownFn::Set { .. } => {
            let kept: Vec<String> = members(sim, me, f, cells)?
                .iter()
                .map(i64::to_string)
                .collect();
            // Processes by number, as `eval` prints a node.
            format!("{{{}}}", kept.join(", "))
        }
        ShownFn::Array {
            owner,
            slot,
            element,
            len,
        } => {
            let element_at = |index: i64| {
                cells[*slot].set(index);
                value(element).map(|v| sim.prog.show_value(type_of(element), v))
            };
            // As `show` writes a variable (`Compiled::show_var`).
            match len {
                Some(len) => {
                    let shown: Result<Vec<String>, _> = (0..*len as i64).map(element_at).collect();
                    format!("[{}]", shown?.join(","))
                }
                None => {
                    let mut shown = Vec::new();
                    for &q in nbrs_of(sim, value(owner)?)? {
                        shown.push(format!("{q}:{}", element_at(i64::from(q))?));
                    }
                    format!("{{{}}}", shown.join(","))
                }
            }
        }
    })
}

/// The members of a compiled set (none for anything else) as process
/// `me` sees the configuration, in order; its candidate is left in its slot.
pub(super) fn members(
    sim: &Simulation,
    me: usize,
    f: &ShownFn,
    cells: &[std::cell::Cell<i64>],
) -> Result<Vec<i64>, String> {
    let ShownFn::Set {
        slot,
        candidates,
        filter,
    } = f
    else {
        return Ok(Vec::new());
    };
    let value = |g: &GlobalFn| {
        sim.eval_in(me, g, cells)
            .map_err(|fault| fault.message.clone())
    };
    let n = sim.n();
    let candidates: Vec<i64> = match candidates {
        CandidatesFn::Procs => (0..n as i64).collect(),
        CandidatesFn::NbrsOf(of) => nbrs_of(sim, value(of)?)?
            .iter()
            .map(|&r| i64::from(r))
            .collect(),
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
    for m in candidates {
        cells[*slot].set(m);
        if filter.as_ref().map_or(Ok(1), value)? != 0 {
            kept.push(m);
        }
    }
    Ok(kept)
}

/// The neighbours of process `q`, or why `q` names none.
fn nbrs_of(sim: &Simulation, q: i64) -> Result<&[u32], String> {
    match usize::try_from(q).ok().filter(|&q| q < sim.n()) {
        Some(q) => Ok(sim.topology().nbrs(q)),
        None => Err(format!(
            "{q} is not a process (they are 0 to {})",
            sim.n() - 1
        )),
    }
}

/// `shown` compiled; `lens` are the instance's array lengths by variable.
fn compile_shown(
    shown: Shown,
    lens: &[Option<usize>],
    compile: &impl Fn(Checked) -> Result<GlobalFn, String>,
) -> Result<ShownFn, String> {
    Ok(match shown {
        Shown::One(c) => ShownFn::One(compile(c)?),
        Shown::Tuple(items) => ShownFn::Tuple(
            items
                .into_iter()
                .map(|i| compile_shown(i, lens, compile))
                .collect::<Result<_, _>>()?,
        ),
        Shown::Array(ArrayShown {
            var,
            owner,
            slot,
            element,
            per_nbr,
        }) => ShownFn::Array {
            owner: compile(Checked::Int(owner, Ty::Node))?,
            slot,
            element: compile(element)?,
            len: if per_nbr { None } else { lens[var] },
        },
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
