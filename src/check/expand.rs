//! Expansion of `def`s: a use is replaced by the definition's body with the
//! arguments substituted for the parameters, and the checker then checks the
//! result where it stands. Substitution is by name, as in the papers'
//! macros, so `Is_True_Chld(q)` reads `q.parent.key` and locality is judged
//! at the use. Variables the body binds are renamed so an argument's names
//! are never captured.

use crate::syntax::ast::{Collection, Expr, Stmt, Target};
use std::collections::HashMap;

/// Marks a renamed bound variable; no user name contains it.
pub const FRESH_MARK: char = '#';

/// Substitutes arguments for parameters in a definition's body.
pub struct Subst<'a> {
    map: HashMap<String, Expr>,
    fresh: &'a mut usize,
}

impl<'a> Subst<'a> {
    /// Maps each parameter to its argument; `fresh` numbers renamed binders.
    pub fn new(params: &[String], args: &[Expr], fresh: &'a mut usize) -> Self {
        Subst {
            map: params.iter().cloned().zip(args.iter().cloned()).collect(),
            fresh,
        }
    }

    /// Runs `f` with `name` bound to a fresh name, returning it and `f`'s result.
    fn binding<T>(
        &mut self,
        name: &crate::syntax::ast::Ident,
        f: impl FnOnce(&mut Self) -> T,
    ) -> (crate::syntax::ast::Ident, T) {
        *self.fresh += 1;
        let base = name.name.split(FRESH_MARK).next().unwrap_or(&name.name);
        let renamed = crate::syntax::ast::Ident {
            name: format!("{base}{FRESH_MARK}{}", self.fresh),
            span: name.span,
        };
        let old = self
            .map
            .insert(name.name.clone(), Expr::Name(renamed.clone()));
        let out = f(self);
        match old {
            Some(o) => self.map.insert(name.name.clone(), o),
            None => self.map.remove(&name.name),
        };
        (renamed, out)
    }

    /// The expression with parameters replaced.
    pub fn expr(&mut self, e: &Expr) -> Expr {
        match e {
            Expr::Int(..) | Expr::Bool(..) => e.clone(),
            Expr::Name(id) => self.map.get(&id.name).cloned().unwrap_or_else(|| e.clone()),
            Expr::Field(b, f, s) => Expr::Field(Box::new(self.expr(b)), f.clone(), *s),
            Expr::Call(f, args, s) => {
                Expr::Call(f.clone(), args.iter().map(|a| self.expr(a)).collect(), *s)
            }
            Expr::Unary(op, a, s) => Expr::Unary(*op, Box::new(self.expr(a)), *s),
            Expr::Binary(op, a, b, s) => {
                Expr::Binary(*op, Box::new(self.expr(a)), Box::new(self.expr(b)), *s)
            }
            Expr::Quant(k, var, coll, body, s) => {
                let coll = self.coll(coll);
                let (var, body) = self.binding(var, |me| me.expr(body));
                Expr::Quant(*k, var, coll, Box::new(body), *s)
            }
            Expr::Index(a, i, s) => Expr::Index(Box::new(self.expr(a)), Box::new(self.expr(i)), *s),
            Expr::Tuple(v, s) => Expr::Tuple(v.iter().map(|a| self.expr(a)).collect(), *s),
            Expr::Cond(c, a, b, s) => Expr::Cond(
                Box::new(self.expr(c)),
                Box::new(self.expr(a)),
                Box::new(self.expr(b)),
                *s,
            ),
            Expr::Random(from, s) => {
                Expr::Random(from.as_ref().map(|c| Box::new(self.coll(c))), *s)
            }
            Expr::Set(var, coll, pred, s) => {
                let coll = self.coll(coll);
                let (var, pred) = self.binding(var, |me| me.expr(pred));
                Expr::Set(var, coll, Box::new(pred), *s)
            }
            Expr::Edge(v, s) => Expr::Edge(v.iter().map(|a| self.expr(a)).collect(), *s),
            Expr::Acyclic(a, b, pred, s) => {
                let (a, (b, pred)) = self.binding(a, |me| me.binding(b, |me| me.expr(pred)));
                Expr::Acyclic(a, b, Box::new(pred), *s)
            }
        }
    }

    fn coll(&mut self, c: &Collection) -> Collection {
        match c {
            Collection::Procs => Collection::Procs,
            Collection::Nbrs(of) => Collection::Nbrs(of.as_ref().map(|e| Box::new(self.expr(e)))),
            Collection::Range(lo, hi) => {
                Collection::Range(Box::new(self.expr(lo)), Box::new(self.expr(hi)))
            }
            Collection::Set(e) => Collection::Set(Box::new(self.expr(e))),
        }
    }

    /// The statement with parameters replaced; a parameter used as an
    /// assignment target must be given a variable's name.
    pub fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s {
            Stmt::Skip(_) => s.clone(),
            Stmt::Assign(targets, values, span) => Stmt::Assign(
                targets
                    .iter()
                    .map(|t| Target {
                        name: match self.map.get(&t.name.name) {
                            Some(Expr::Name(id)) => id.clone(),
                            _ => t.name.clone(),
                        },
                        index: t.index.as_ref().map(|i| self.expr(i)),
                        edge: t.edge,
                        span: t.span,
                    })
                    .collect(),
                values.iter().map(|v| self.expr(v)).collect(),
                *span,
            ),
            Stmt::Seq(v, span) => Stmt::Seq(v.iter().map(|s| self.stmt(s)).collect(), *span),
            Stmt::If(c, a, b, span) => Stmt::If(
                Box::new(self.expr(c)),
                Box::new(self.stmt(a)),
                b.as_ref().map(|b| Box::new(self.stmt(b))),
                *span,
            ),
            Stmt::For(var, coll, body, span) => {
                let coll = self.coll(coll);
                let (var, body) = self.binding(var, |me| me.stmt(body));
                Stmt::For(var, coll, Box::new(body), *span)
            }
            Stmt::Send(m, args, to, span) => Stmt::Send(
                m.clone(),
                args.iter().map(|a| self.expr(a)).collect(),
                Box::new(self.expr(to)),
                *span,
            ),
            Stmt::Call(f, args, span) => Stmt::Call(
                f.clone(),
                args.iter().map(|a| self.expr(a)).collect(),
                *span,
            ),
        }
    }
}

/// The definitions a body uses, with where: calls, bare names, `x.f`
/// field-style uses and named sets (parameters excluded). Used to reject
/// recursion before anything is expanded.
pub fn uses(e: &Expr, params: &[String], out: &mut Vec<(String, crate::span::Span)>) {
    let name = |n: &crate::syntax::ast::Ident, out: &mut Vec<_>| {
        if !params.contains(&n.name) {
            out.push((n.name.clone(), n.span));
        }
    };
    match e {
        Expr::Int(..) | Expr::Bool(..) => {}
        Expr::Name(id) => name(id, out),
        Expr::Field(b, f, _) => {
            uses(b, params, out);
            name(f, out);
        }
        Expr::Call(f, args, _) => {
            name(f, out);
            args.iter().for_each(|a| uses(a, params, out));
        }
        Expr::Unary(_, a, _) => uses(a, params, out),
        Expr::Binary(_, a, b, _) | Expr::Index(a, b, _) => {
            uses(a, params, out);
            uses(b, params, out);
        }
        Expr::Quant(_, _, coll, body, _) | Expr::Set(_, coll, body, _) => {
            coll_uses(coll, params, out);
            uses(body, params, out);
        }
        Expr::Tuple(v, _) | Expr::Edge(v, _) => v.iter().for_each(|a| uses(a, params, out)),
        Expr::Acyclic(_, _, pred, _) => uses(pred, params, out),
        Expr::Cond(c, a, b, _) => {
            uses(c, params, out);
            uses(a, params, out);
            uses(b, params, out);
        }
        Expr::Random(from, _) => {
            if let Some(c) = from {
                coll_uses(c, params, out);
            }
        }
    }
}

fn coll_uses(c: &Collection, params: &[String], out: &mut Vec<(String, crate::span::Span)>) {
    match c {
        Collection::Procs | Collection::Nbrs(None) => {}
        Collection::Nbrs(Some(e)) | Collection::Set(e) => uses(e, params, out),
        Collection::Range(a, b) => {
            uses(a, params, out);
            uses(b, params, out);
        }
    }
}

/// [`uses`] for a statement body.
pub fn stmt_uses(s: &Stmt, params: &[String], out: &mut Vec<(String, crate::span::Span)>) {
    match s {
        Stmt::Skip(_) => {}
        Stmt::Assign(targets, values, _) => {
            for t in targets {
                if let Some(i) = &t.index {
                    uses(i, params, out);
                }
            }
            values.iter().for_each(|v| uses(v, params, out));
        }
        Stmt::Seq(v, _) => v.iter().for_each(|s| stmt_uses(s, params, out)),
        Stmt::If(c, a, b, _) => {
            uses(c, params, out);
            stmt_uses(a, params, out);
            if let Some(b) = b {
                stmt_uses(b, params, out);
            }
        }
        Stmt::For(_, coll, body, _) => {
            coll_uses(coll, params, out);
            stmt_uses(body, params, out);
        }
        Stmt::Send(_, args, to, _) => {
            args.iter().for_each(|a| uses(a, params, out));
            uses(to, params, out);
        }
        Stmt::Call(f, args, _) => {
            if !params.contains(&f.name) {
                out.push((f.name.clone(), f.span));
            }
            args.iter().for_each(|a| uses(a, params, out));
        }
    }
}
