//! Expressions as the REPL's `eval` shows them: besides one value, a tuple
//! (SSLE's keys, `(p.leader, p.level)`), a set (`Chldrn(p)`, `{q in procs
//! : q.d == 0}`), which the papers' macros return as often as values and
//! which no `legitimate:` can hold, and a whole array (Johnen's window
//! `(0).F`, or `left.F` in the explanation of a guard).

use super::ir::{BExpr, Coll, IExpr, Ty};
use super::{dedup, Checked, Checker, Scope, Typed};
use crate::diagnostic::Problem;
use crate::syntax::ast::{self, Expr};

/// A checked expression to show.
#[derive(Clone, Debug)]
pub enum Shown {
    /// One value.
    One(Checked),
    /// A tuple's components, in order.
    Tuple(Vec<Shown>),
    /// The members of a set.
    Set(SetShown),
    /// The elements of an array variable.
    Array(ArrayShown),
}

/// An array variable of one process to list: each index in turn (a number
/// below its length, or a neighbour of `owner` for values per neighbour)
/// is put in local `slot`, and `element` read.
#[derive(Clone, Debug)]
pub struct ArrayShown {
    /// The variable.
    pub var: usize,
    /// The process whose array it is.
    pub owner: IExpr,
    /// The local the index is put in.
    pub slot: usize,
    /// The element at the index in `slot`.
    pub element: Checked,
    /// Whether the array holds a value per neighbour of `owner`, indexed
    /// by the neighbour, rather than by numbers from 0.
    pub per_nbr: bool,
}

/// A set to list: each candidate in turn is put in local `slot`, and is a
/// member where `filter` holds.
#[derive(Clone, Debug)]
pub struct SetShown {
    /// The local the candidate is put in.
    pub slot: usize,
    /// Where the candidates come from.
    pub candidates: Candidates,
    /// Which candidates are members (all where there is none).
    pub filter: Option<BExpr>,
}

/// The candidates of a set: a collection.
#[derive(Clone, Debug)]
pub enum Candidates {
    /// Every process.
    Procs,
    /// The neighbours of the process this node expression names.
    NbrsOf(IExpr),
    /// The integers from the first to the second, inclusive.
    Range(IExpr, IExpr),
}

/// The bound variable of a set shown whole; no user name contains `#`.
const MEMBER: &str = "#member";

/// Checks an expression over the whole configuration, as
/// [`super::check_global_expr`] does, for showing: a tuple, a set (written
/// out, or a definition that stands for one) or a whole array is accepted
/// too. Returns it with the number of local slots it needs.
pub fn check_shown_expr(prog: &ast::Program, e: &Expr) -> Result<(Shown, usize), Vec<Problem>> {
    let mut c = Checker::standalone(prog, Scope::Global);
    let shown = if c.names_a_set(e, 0) {
        c.shown_set(e)
    } else {
        match c.expr(e) {
            Some(t) => c.shown(t, e),
            None => None,
        }
    };
    match shown {
        Some(s) if c.problems.is_empty() => Ok((s, c.max_locals)),
        _ => Err(dedup(c.problems)),
    }
}

/// Expressions checked as a guard of one action sees them: the process's
/// scope with the action's binder bound and, for a receive, the sender and
/// the message's fields (the REPL's explanations of a guard that does not
/// hold, member by member and message by message).
#[derive(Debug)]
pub struct InAction {
    /// The binder's members, where the action has one.
    pub members: Option<SetShown>,
    /// A receive's message type, the sender's slot and the fields' slots.
    pub receive: Option<(usize, usize, Vec<usize>)>,
    /// The members of the quantifier whose variable is bound too, if any.
    pub quantified: Option<SetShown>,
    /// Each expression checked (for showing), or its problems.
    pub exprs: Vec<Result<Shown, Vec<Problem>>>,
    /// The local slots they need.
    pub locals: usize,
}

/// Checks `exprs` inside `action` (see [`InAction`]), with the variable
/// of `quantified` (a quantifier of the guard: its variable and what it
/// ranges over) bound too, so that its body is checked member by member;
/// `None` where the binder, the receive or the quantifier's collection
/// itself does not check.
pub fn check_in_action(
    prog: &ast::Program,
    action: &ast::Action,
    quantified: Option<(&ast::Ident, &ast::Collection)>,
    exprs: &[&Expr],
) -> Option<InAction> {
    let mut c = Checker::standalone(prog, Scope::Process);
    // `var` bound over `coll`, in the order the guard binds them.
    let bind = |c: &mut Checker, var: &ast::Ident, coll| {
        let (slot, coll, filter, _) = c.collection(var, coll, var.span, 0)?;
        Some(SetShown {
            slot,
            candidates: candidates(coll),
            filter,
        })
    };
    let members = match &action.binder {
        Some((var, coll)) => Some(bind(&mut c, var, coll)?),
        None => None,
    };
    let receive = match &action.receive {
        Some(r) => Some(c.receive(r)?),
        None => None,
    };
    let quantified = match quantified {
        Some((var, coll)) => Some(bind(&mut c, var, coll)?),
        None => None,
    };
    if !c.problems.is_empty() {
        return None;
    }
    let exprs = exprs
        .iter()
        .map(|e| {
            let shown = c.expr(e).and_then(|t| c.shown(t, e));
            match shown {
                Some(s) if c.problems.is_empty() => Ok(s),
                _ => Err(dedup(std::mem::take(&mut c.problems))),
            }
        })
        .collect();
    Some(InAction {
        members,
        receive,
        quantified,
        exprs,
        locals: c.max_locals,
    })
}

/// The body of the expression definition `name` used with `args`, the
/// arguments substituted (its bound variables renamed apart: see
/// [`shown_name`]); `None` where `name` is not one, or `args` do not fit.
pub fn expand_definition(prog: &ast::Program, name: &ast::Ident, args: &[Expr]) -> Option<Expr> {
    let mut c = Checker::standalone(prog, Scope::Process);
    match c.expand(name, args, name.span, false)? {
        ast::DefBody::Expr(body) => Some(body),
        ast::DefBody::Stmt(_) => None,
    }
}

/// A bound variable's name as its program writes it (an expanded
/// definition's are renamed apart).
pub fn shown_name(name: &str) -> &str {
    name.split(super::FRESH_MARK).next().unwrap_or(name)
}

/// Where the members of a collection come from, to list them.
fn candidates(coll: Coll) -> Candidates {
    match coll {
        Coll::Procs => Candidates::Procs,
        Coll::NbrsOf(p) => Candidates::NbrsOf(IExpr::NodeOf(p)),
        Coll::Range(lo, hi, _) => Candidates::Range(*lo, *hi),
    }
}

impl Checker {
    /// Whether `e` is a set: written out, or a definition whose body is one
    /// (through other definitions).
    fn names_a_set(&self, e: &Expr, depth: usize) -> bool {
        let name = match e {
            Expr::Set(..) => return true,
            Expr::Call(f, _, _) | Expr::Name(f) => f,
            _ => return false,
        };
        match self.defs.get(&name.name).map(|d| &d.body) {
            Some(ast::DefBody::Expr(body)) if depth < 64 => self.names_a_set(body, depth + 1),
            _ => false,
        }
    }

    fn shown_set(&mut self, e: &Expr) -> Option<Shown> {
        let member = ast::Ident {
            name: MEMBER.into(),
            span: e.span(),
        };
        let (slot, coll, filter, _) = self.set(&member, e, e.span(), 0)?;
        Some(Shown::Set(SetShown {
            slot,
            candidates: candidates(coll),
            filter,
        }))
    }

    fn shown(&mut self, t: Typed, e: &Expr) -> Option<Shown> {
        match t {
            Typed::Int(i, ty) => Some(Shown::One(Checked::Int(i, ty))),
            Typed::Bool(b) => Some(Shown::One(Checked::Bool(b))),
            Typed::Tuple(items) => items
                .into_iter()
                .map(|t| self.shown(t, e))
                .collect::<Option<Vec<_>>>()
                .map(Shown::Tuple),
            Typed::Array(p, v) => {
                // A slot of its own: nothing else is live when it is shown.
                let slot = self.max_locals;
                self.max_locals += 1;
                let index = Box::new(IExpr::Local(slot));
                let span = e.span();
                let element = match self.vars[v].ty {
                    Ty::Bool => Checked::Bool(BExpr::Elem(p.clone(), v, index, span)),
                    ty => Checked::Int(IExpr::Elem(p.clone(), v, index, span), ty),
                };
                Some(Shown::Array(ArrayShown {
                    var: v,
                    owner: IExpr::NodeOf(p),
                    slot,
                    element,
                    per_nbr: self.vars[v].per_nbr,
                }))
            }
        }
    }
}
