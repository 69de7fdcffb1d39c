//! Built-in functions, quantifiers and the collections they range over.

use super::*;

impl Checker {
    pub(super) fn call(&mut self, f: &ast::Ident, args: &[Expr], span: Span) -> Option<Typed> {
        let arity = |c: &mut Checker, n: usize| c.arity(f, args, span, n);
        match f.name.as_str() {
            "enabled" => {
                if !arity(self, 1) {
                    return None;
                }
                if self.scope() != Scope::Global {
                    self.err(
                        Problem::new(
                            "guarded::check::non_local",
                            "`enabled` is not local to a process",
                        )
                        .label(
                            span,
                            "whether a process is enabled depends on its neighbours' state",
                        )
                        .help("use `enabled(p)` in `legitimate:` or `invariant` predicates"),
                    );
                    return None;
                }
                let p = self.proc_of(&args[0])?;
                Some(Typed::Bool(BExpr::Enabled(p)))
            }
            "min" | "max" => {
                if !arity(self, 2) {
                    return None;
                }
                let a = self.int_expr(&args[0], Some(Ty::Int));
                let b = self.int_expr(&args[1], Some(Ty::Int));
                let op = if f.name == "min" {
                    Arith::Min
                } else {
                    Arith::Max
                };
                Some(Typed::Int(
                    IExpr::Arith(op, Box::new(a?), Box::new(b?), span),
                    Ty::Int,
                ))
            }
            "abs" => {
                if !arity(self, 1) {
                    return None;
                }
                Some(Typed::Int(
                    IExpr::Abs(Box::new(self.int_expr(&args[0], Some(Ty::Int))?), span),
                    Ty::Int,
                ))
            }
            "int" => {
                if !arity(self, 1) {
                    return None;
                }
                let b = self.bool_expr(&args[0])?;
                Some(Typed::Int(IExpr::FromBool(Box::new(b)), Ty::Int))
            }
            "msgs" => self.msgs_call(f, args, span),
            _ if self.defs.contains_key(&f.name) => self.use_def(f, args, span),
            _ if !self.first_unknown(f.span) => None,
            _ => {
                let neighbour = ["left", "right", "tree_parent"].contains(&f.name.as_str());
                let help = match suggest(&f.name, sorted_names(&self.defs)) {
                    // `left(p)`: the papers' l_p, which the language writes as a field.
                    _ if neighbour && args.len() == 1 => format!(
                        "a process's neighbour is a field: `p.{0}` (and `p.{0}.x` its variable)",
                        f.name
                    ),
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "the functions are `enabled(p)`, `min(a, b)`, `max(a, b)`, `abs(a)` and those declared with `def`".into(),
                };
                self.err(
                    Problem::new(
                        "guarded::check::unknown_function",
                        format!("unknown function `{}`", f.name),
                    )
                    .label(f.span, "not a function")
                    .help(help),
                );
                None
            }
        }
    }

    /// Whether `f` has `n` arguments; reports it when not.
    fn arity(&mut self, f: &ast::Ident, args: &[Expr], span: Span, n: usize) -> bool {
        if args.len() == n {
            return true;
        }
        self.err(
            Problem::new(
                "guarded::check::arity",
                format!(
                    "`{}` takes {n} argument{}, found {}",
                    f.name,
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
            )
            .label(span, "wrong number of arguments")
            .help(format!("write `{}({})`", f.name, vec!["_"; n].join(", "))),
        );
        false
    }

    /// `msgs(p, q, m)` or `msgs(p, q)`: messages in transit, in global predicates.
    fn msgs_call(&mut self, f: &ast::Ident, args: &[Expr], span: Span) -> Option<Typed> {
        if args.len() != 2 && args.len() != 3 {
            self.arity(f, args, span, 3);
            return None;
        }
        if self.scope() != Scope::Global {
            self.err(
                Problem::new("guarded::check::non_local", "a process cannot look into channels")
                    .label(span, "channel contents are not local")
                    .help("use `msgs(p, q, m)` in `legitimate:`, invariants and reports; an action sees the head of a channel with `receive`"),
            );
            return None;
        }
        let p = self.proc_of(&args[0]);
        let q = self.proc_of(&args[1]);
        let m = match args.get(2) {
            None => None,
            Some(Expr::Name(id)) if self.msg_index.contains_key(&id.name) => {
                Some(self.msg_index[&id.name])
            }
            Some(other) => {
                self.err(
                    Problem::new("guarded::check::unknown_message", "expected a message type")
                        .label(other.span(), "not a message type")
                        .help("write `msgs(p, q, NAME)` with a declared `message NAME`, or `msgs(p, q)` for all"),
                );
                return None;
            }
        };
        Some(Typed::Int(IExpr::Msgs(p?, q?, m, span), Ty::Int))
    }

    pub(super) fn quantifier(
        &mut self,
        kind: QuantKind,
        var: &ast::Ident,
        coll: &Collection,
        body: &Expr,
        span: Span,
    ) -> Option<Typed> {
        let mark = self.mark();
        let bound = self.collection(var, coll, span, 0);
        let body = match &bound {
            Some(_) => self.expr(body),
            None => None,
        };
        self.release(mark);
        let (slot, coll, filter, kind_of) = bound?;
        let body = body?;
        let guarded = |filter: Option<BExpr>, b: BExpr, and: bool| match filter {
            None => b,
            Some(f) if and => BExpr::And(Box::new(f), Box::new(b)),
            Some(f) => BExpr::Implies(Box::new(f), Box::new(b)),
        };
        let want_bool = |c: &mut Checker, t: Typed| match t {
            Typed::Bool(b) => Some(b),
            t => {
                let found = c.typed_name(&t);
                c.err(
                    Problem::new(
                        "guarded::check::type_mismatch",
                        format!("expected bool, found {found}"),
                    )
                    .label(span, format!("the predicate is {found}"))
                    .help("`forall`, `exists` and `count` take a condition after `:`"),
                );
                None
            }
        };
        Some(match kind {
            QuantKind::Forall => Typed::Bool(BExpr::Forall(
                slot,
                coll,
                Box::new(guarded(filter, want_bool(self, body)?, false)),
            )),
            QuantKind::Exists => Typed::Bool(BExpr::Exists(
                slot,
                coll,
                Box::new(guarded(filter, want_bool(self, body)?, true)),
            )),
            QuantKind::Count => Typed::Int(
                IExpr::Count(
                    slot,
                    coll,
                    Box::new(guarded(filter, want_bool(self, body)?, true)),
                ),
                Ty::Int,
            ),
            QuantKind::Sum => match body {
                Typed::Int(e, Ty::Int) => Typed::Int(
                    IExpr::Sum(
                        slot,
                        coll,
                        Box::new(filter.unwrap_or(BExpr::Const(true))),
                        Box::new(e),
                        span,
                    ),
                    Ty::Int,
                ),
                t => {
                    let found = self.typed_name(&t);
                    self.err(
                        Problem::new(
                            "guarded::check::type_mismatch",
                            format!("expected int, found {found}"),
                        )
                        .label(span, format!("the summand is {found}"))
                        .help("`sum(q in S : e)` adds up an integer `e`; to count members use `count`"),
                    );
                    return None;
                }
            },
            QuantKind::Min | QuantKind::Max | QuantKind::ArgMin | QuantKind::ArgMax => {
                return self.best_of(kind, (slot, coll, filter, kind_of), body, span)
            }
        })
    }

    /// `min`, `max`, `argmin` or `argmax` over a bound collection: the key
    /// (an integer or a tuple of at most 8) ordered, the best member or its key.
    fn best_of(
        &mut self,
        kind: QuantKind,
        (slot, coll, filter, kind_of): (usize, Coll, Option<BExpr>, LocalKind),
        body: Typed,
        span: Span,
    ) -> Option<Typed> {
        let mut parts = Vec::new();
        let tuple = matches!(body, Typed::Tuple(_));
        flatten(body, &mut parts);
        let mut keys = Vec::new();
        for p in parts {
            match p {
                Typed::Int(k, Ty::Int) => keys.push(k),
                t => {
                    let found = self.typed_name(&t);
                    self.err(
                        Problem::new(
                            "guarded::check::type_mismatch",
                            format!("cannot order {found}"),
                        )
                        .label(span, format!("the key is {found}"))
                        .help("`min`, `max`, `argmin` and `argmax` compare integers or tuples of integers"),
                    );
                    return None;
                }
            }
        }
        if keys.len() > ir::MAX_KEYS {
            self.err(
                Problem::new(
                    "guarded::check::too_many_keys",
                    format!("a key of {} components", keys.len()),
                )
                .label(span, "compared here")
                .help(format!(
                    "`min`, `max`, `argmin` and `argmax` compare tuples of at most {} integers",
                    ir::MAX_KEYS
                )),
            );
            return None;
        }
        let max = matches!(kind, QuantKind::Max | QuantKind::ArgMax);
        let best = IExpr::Best(Box::new(ir::Best {
            slot,
            coll,
            filter,
            keys: keys.clone(),
            max,
            span,
        }));
        if matches!(kind, QuantKind::ArgMin | QuantKind::ArgMax) {
            let ty = match kind_of {
                LocalKind::Int => Ty::Int,
                LocalKind::Field(t) => t,
                LocalKind::Node { .. } => Ty::Node,
            };
            return Some(Typed::Int(best, ty));
        }
        let mut comps: Vec<Typed> = keys
            .into_iter()
            .map(|k| {
                Typed::Int(
                    IExpr::Let(slot, Box::new(best.clone()), Box::new(k)),
                    Ty::Int,
                )
            })
            .collect();
        if tuple {
            Some(Typed::Tuple(comps))
        } else {
            comps.pop()
        }
    }

    /// Binds `var` over a collection: its slot, the collection, the filter a
    /// set adds, and what the variable holds. The caller releases the binding.
    pub(super) fn collection(
        &mut self,
        var: &ast::Ident,
        coll: &Collection,
        span: Span,
        depth: usize,
    ) -> Option<(usize, Coll, Option<BExpr>, LocalKind)> {
        let (coll, kind) = match coll {
            Collection::Procs => {
                if self.scope() != Scope::Global {
                    self.err(
                        Problem::new("guarded::check::non_local", "a process cannot range over all processes")
                            .label(span, "reads processes that are not neighbours")
                            .help("quantify over `nbrs` in guards and statements; `procs` is for `legitimate:` and invariants"),
                    );
                    return None;
                }
                (Coll::Procs, LocalKind::Node { nbr: false })
            }
            Collection::Nbrs(None) => {
                if self.scope() != Scope::Process {
                    self.err(
                        Problem::new("guarded::check::no_process", "`nbrs` without a process")
                            .label(span, "whose neighbours?")
                            .help("outside an action write `nbrs(p)` for a process `p` bound by `forall(p in procs: ...)`"),
                    );
                    return None;
                }
                (Coll::NbrsOf(Proc::Me), LocalKind::Node { nbr: true })
            }
            Collection::Nbrs(Some(of)) => {
                let p = self.proc_of(of)?;
                let mine = matches!(p, Proc::Me);
                if self.scope() == Scope::Process && !mine {
                    self.err(
                        Problem::new(
                            "guarded::check::non_local",
                            "a process can only range over its own neighbours",
                        )
                        .label(of.span(), "the neighbours of another process are not local")
                        .help("write `nbrs` for this process's neighbours"),
                    );
                    return None;
                }
                (Coll::NbrsOf(p), LocalKind::Node { nbr: mine })
            }
            Collection::Range(lo, hi) => {
                let lo = self.int_expr(lo, Some(Ty::Int));
                let hi = self.int_expr(hi, Some(Ty::Int));
                (
                    Coll::Range(Box::new(lo?), Box::new(hi?), span),
                    LocalKind::Int,
                )
            }
            Collection::Set(e) => return self.set(var, e, span, depth),
        };
        let slot = self.bind(&var.name, kind);
        Some((slot, coll, None, kind))
    }

    /// Binds `var` over a set `{q in C : P}` (written out or named by a definition).
    pub(super) fn set(
        &mut self,
        var: &ast::Ident,
        e: &Expr,
        span: Span,
        depth: usize,
    ) -> Option<(usize, Coll, Option<BExpr>, LocalKind)> {
        let (name, args, at) = match e {
            Expr::Set(binder, inner, pred, _) => {
                let (slot, coll, filter, kind) = self.collection(var, inner, span, depth)?;
                // The set's own variable names the same member while its predicate is checked.
                let mark = self.mark();
                self.locals.push(LocalVar {
                    name: binder.name.clone(),
                    slot,
                    kind,
                });
                let pred = self.bool_expr(pred);
                self.locals.truncate(mark.0);
                let pred = pred?;
                let filter = Some(match filter {
                    Some(f) => BExpr::And(Box::new(f), Box::new(pred)),
                    None => pred,
                });
                return Some((slot, coll, filter, kind));
            }
            Expr::Call(f, args, at) => (f, args.as_slice(), *at),
            Expr::Name(f) => (f, &[][..], f.span),
            other => {
                self.err(
                    Problem::new("guarded::check::not_a_set", "not a set")
                        .label(other.span(), "a quantifier ranges over this")
                        .help("write `nbrs`, `procs`, `lo..hi`, `{q in nbrs : P}` or the name of a `def` that stands for a set"),
                );
                return None;
            }
        };
        if !self.defs.contains_key(&name.name) || depth > 64 {
            if !self.first_unknown(name.span) {
                return None;
            }
            let help = match suggest(&name.name, sorted_names(&self.defs)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "define it: `def NAME(p) = {q in nbrs(p) : ...}`".into(),
            };
            self.err(
                Problem::new(
                    "guarded::check::not_a_set",
                    format!("`{}` is not a set", name.name),
                )
                .label(at, "a quantifier ranges over this")
                .help(help),
            );
            return None;
        }
        let Some(ast::DefBody::Expr(body)) = self.expand(name, args, at, false) else {
            return None;
        };
        self.set(var, &body, span, depth + 1)
    }
}
