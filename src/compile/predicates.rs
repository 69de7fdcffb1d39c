//! The compiled predicates over a whole configuration: the legitimacy
//! predicate's conjuncts, the invariants and the properties of runs.

use super::{by_process, const_eval, BExpr, BFn, Cmp, Compiler, GlobalFn, Plain};
use crate::check::ir::VarKind;
use crate::span::Span;

/// A conjunct of the legitimacy predicate.
pub enum LegitPart {
    /// `forall(p in procs : body)` with `body` local to p: holds when it
    /// holds at every process; the bound variable's slot, and whether
    /// `body` cannot fault (its value then does not depend on the order
    /// the processes are asked in).
    Forall(usize, BFn, bool),
    /// `count(p in procs : body) CMP k` with `body` local to p.
    Count(usize, BFn, Cmp, i64),
    /// Anything else, evaluated in full.
    Whole(BFn),
}

/// A compiled property of runs.
pub struct CProperty {
    /// Its name.
    pub name: String,
    /// Where it is said of every process: the slot its process is in.
    pub each: Option<usize>,
    /// What it says, over the compiled predicates.
    pub form: crate::syntax::ast::Temporal<BFn>,
    /// The fairness it assumes (`under weak fairness`), if any.
    pub fairness: Option<crate::syntax::ast::Assumed>,
    /// Its predicates taken apart by process, for the symbolic verifier,
    /// where each is.
    pub by_process: Option<crate::syntax::ast::Temporal<by_process::ByProcess>>,
}

/// A compiled invariant.
pub struct CInvariant {
    /// Its name.
    pub name: String,
    /// The predicate.
    pub test: BFn,
    /// When it is `forall(x in procs : body)` with `body` local to x:
    /// x's slot and the body, which holds or not at each process alone.
    pub local: Option<(usize, BFn)>,
    /// When it is `acyclic(x -> y : body)` with `body` local to x for a
    /// neighbour y: x's and y's slots and the body, which says x's arcs.
    pub arcs: Option<(usize, usize, BFn)>,
    /// Its conjuncts, those over every process of a body local to it kept
    /// apart (as legitimacy's are), so that a run asks them again only
    /// where a step can change them; empty where none is.
    pub parts: Vec<LegitPart>,
    /// The predicate taken apart by process, for the symbolic verifier.
    pub by_process: Option<by_process::ByProcess>,
    /// Its source.
    pub span: Span,
}

/// The program's properties of runs, compiled.
pub(super) fn properties(c: &Compiler) -> Vec<CProperty> {
    c.prog
        .properties
        .iter()
        .map(|p| CProperty {
            name: p.name.clone(),
            each: p.each,
            form: p
                .form
                .map(|b| Some(c.bexpr(b)))
                .expect("every predicate compiles"),
            fairness: p.fairness,
            by_process: p.form.map(|b| c.by_process(b, p.each)),
        })
        .collect()
}

/// The compiled predicates over the whole configuration.
pub(super) struct Predicates {
    pub(super) legitimate: Option<BFn>,
    pub(super) legit_parts: Vec<LegitPart>,
    pub(super) legit_by_process: Option<by_process::ByProcess>,
    pub(super) legit_enabled_count: Option<(Cmp, i64)>,
    pub(super) legit_slots: Option<u64>,
    pub(super) invariants: Vec<CInvariant>,
    pub(super) properties: Vec<CProperty>,
    pub(super) reports: Vec<(String, GlobalFn)>,
}

/// The legitimacy predicate (whole, in incremental parts, and as a count
/// of enabled processes when it is one), the invariants and the reports.
pub(super) fn of_program(c: &Compiler) -> Predicates {
    let prog = c.prog;
    let legit = prog.legitimate.as_ref().map(|(b, _)| b);
    Predicates {
        legitimate: legit.map(|b| c.bexpr(b)),
        legit_parts: legit.map(|b| c.legit_parts(b)).unwrap_or_default(),
        legit_by_process: legit.and_then(|b| c.by_process(b, None)),
        // Messages and edge variables: a step changes more than rows.
        legit_slots: legit
            .filter(|_| prog.messages.is_empty())
            .filter(|_| !prog.vars.iter().any(|v| v.kind == VarKind::Edge))
            .map(|b| c.slots_read(b))
            .filter(|&slots| slots != u64::MAX),
        legit_enabled_count: match legit {
            Some(BExpr::Cmp(op, count, k))
                if matches!(c.plain(count), Some(Plain::EnabledCount)) =>
            {
                const_eval(k, &c.params, c.n).map(|k| (*op, k))
            }
            _ => None,
        },
        invariants: prog
            .invariants
            .iter()
            .map(|(name, b, span)| CInvariant {
                name: name.clone(),
                test: c.bexpr(b),
                local: c.local_forall(b),
                by_process: c.by_process(b, None),
                arcs: c.local_acyclic(b),
                parts: c.legit_parts(b),
                span: *span,
            })
            .collect(),
        properties: properties(c),
        reports: prog
            .reports
            .iter()
            .map(|(name, e)| (name.clone(), c.global(e)))
            .collect(),
    }
}
