//! Lowering `property NAME: FORM` declarations: a form of runs over
//! predicates, perhaps said of every process.

use super::ast::*;
use super::lower::{ident, lower_expr};
use super::parse::Rule;
use crate::span::Span;
use pest::iterators::Pair;

/// `property NAME: FORM` (FORM perhaps for every process).
pub(super) fn lower_property(item: Pair<Rule>) -> Property {
    let span: Span = item.as_span().into();
    let mut it = item.into_inner().skip(1);
    let name = ident(it.next().unwrap());
    let body = it.next().unwrap();
    let fairness = it.next().map(|clause| {
        let span: Span = clause.as_span().into();
        let strong = clause.into_inner().any(|w| w.as_rule() == Rule::w_strong);
        let assumed = if strong {
            Assumed::Strong
        } else {
            Assumed::Weak
        };
        (assumed, span)
    });
    let (each, temporal) = match body.as_rule() {
        Rule::each_process => {
            let mut inner = body.into_inner().skip(1);
            let var = ident(inner.next().unwrap());
            // `in`, `procs`, then the form.
            let form = inner.find(|p| p.as_rule() != Rule::kw_in && p.as_rule() != Rule::kw_procs);
            (Some(var), form.unwrap())
        }
        _ => (None, body),
    };
    let rule = temporal.as_rule();
    let span_of: Span = temporal.as_span().into();
    let exprs: Vec<Expr> = temporal
        .into_inner()
        .filter(|p| p.as_rule() == Rule::expr)
        .map(lower_expr)
        .collect();
    let mut exprs = exprs.into_iter();
    let mut next = || exprs.next().unwrap();
    let form = match rule {
        Rule::t_always => Temporal::Always(next()),
        Rule::t_sometimes => Temporal::Sometimes(next()),
        Rule::t_stable => Temporal::Stable(next()),
        Rule::t_always_eventually => Temporal::LeadsTo(Expr::Bool(true, span_of), next()),
        Rule::t_leads_to => {
            let p = next();
            Temporal::LeadsTo(p, next())
        }
        r => unreachable!("property form {r:?}"),
    };
    Property {
        name,
        each,
        form,
        fairness,
        span,
    }
}
