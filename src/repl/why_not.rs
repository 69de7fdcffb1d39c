//! Why a process cannot fire an action (`fire P ACTION` on one that is not
//! enabled): each action's verdict as the simulation has it, then its
//! guard's conjuncts with their values and the values they read, for each
//! member of the action's binder and each message a receive could take.

use super::shown::{members, shown_in, ShownFn};
use super::*;
use std::cell::Cell;

/// One way the guard is evaluated: a line saying which (none where the
/// action has neither binder nor receive) and the locals it sets.
struct Binding {
    header: Option<String>,
    locals: Vec<(usize, i64)>,
}

impl Session {
    /// Explains, action by action, why process `p` cannot fire (`wanted`:
    /// the action asked for, else every action of its role).
    pub(super) fn why_not(&self, p: usize, wanted: Option<&str>) -> String {
        let header = match wanted {
            Some(w) => format!("process {p} cannot fire `{w}`:\n"),
            None => format!("process {p} is not enabled:\n"),
        };
        header + &self.actions_explained(p, wanted)
    }

    /// Why each action of process `p` (a process of the instance) is
    /// enabled or not, as `fire P` explains a process that cannot move:
    /// the simulator's verdict on each, then its guard's conjuncts with
    /// their values and what they read.
    pub fn explain_process(&self, p: usize) -> String {
        self.actions_explained(p, None)
    }

    /// [`Session::explain_process`] for the action `wanted` only, if given.
    fn actions_explained(&self, p: usize, wanted: Option<&str>) -> String {
        let role = self.sim.code.role_of.of(p);
        let mut s = String::new();
        let compiled = &self.sim.code.roles[role].actions;
        let first = self.sim.chosen_action(p).map(|a| a.priority);
        for a in &self.ast.roles[role].actions {
            if wanted.is_some_and(|w| w != a.label.name) {
                continue;
            }
            let Some(index) = compiled.iter().position(|c| c.label == a.label.name) else {
                continue;
            };
            let prio = compiled[index].priority;
            // The simulation's own verdict: the values below explain it.
            let verdict = match (self.sim.guard_holds(p, index), first) {
                (Ok(true), Some(fp)) if fp < prio => {
                    format!("its guard holds, but a more urgent action (priority {fp}) is enabled")
                }
                (Ok(true), _) => "its guard holds".into(),
                (Ok(false), _) => "its guard is false".into(),
                (Err(e), _) => format!("its guard cannot be evaluated: {}", self.runtime_error(&e)),
            };
            let _ = writeln!(s, "  `{}`: {verdict}", a.label.name);
            for line in self.explain_guard(p, a) {
                let _ = writeln!(s, "{line}");
            }
        }
        s
    }

    /// The lines that explain `a`'s guard at `p`: each conjunct's value and
    /// what it reads, once for each binding.
    fn explain_guard(&self, p: usize, a: &ast::Action) -> Vec<String> {
        let mut conj = Vec::new();
        conjuncts(&a.guard, &mut conj);
        self.explain_parts(p, a, &conj, None, "    ")
    }

    /// The lines that explain `conj`, conjuncts of `a`'s guard (or of a
    /// definition's body in it) at `p`, at `indent`: each one's value and
    /// what it reads, for every binding under its header, or for binding
    /// `only` alone (a definition explained within it); where one is false,
    /// the members a quantifier is false for, or a definition's parts.
    fn explain_parts(
        &self,
        p: usize,
        a: &ast::Action,
        conj: &[&ast::Expr],
        only: Option<usize>,
        indent: &str,
    ) -> Vec<String> {
        let reads: Vec<Vec<&ast::Expr>> = conj.iter().map(|c| self.reads_in(c)).collect();
        let all: Vec<&ast::Expr> = conj
            .iter()
            .copied()
            .chain(reads.iter().flatten().copied())
            .collect();
        let Some(checked) = check::check_in_action(&self.ast, a, None, &all) else {
            return Vec::new();
        };
        let compiled: Vec<Result<ShownFn, String>> = checked
            .exprs
            .into_iter()
            .map(|e| match e {
                Ok(shown) => self
                    .compile_checked_shown(shown)
                    .ok_or_else(|| "it does not compile for this instance".to_string()),
                Err(problems) => Err(problems
                    .first()
                    .map_or_else(|| "it cannot be checked here".into(), |p| p.message.clone())),
            })
            .collect();
        let cells = self.sim.locals_for(checked.locals);
        let bindings = match self.bindings(p, a, checked.members, checked.receive, &cells) {
            Ok(b) => b,
            Err(why) => return vec![format!("{indent}{why}")],
        };
        let quantified: Vec<Option<Quantified>> =
            conj.iter().map(|c| self.quantified(p, a, c)).collect();
        let mut lines = Vec::new();
        for (b, binding) in bindings.into_iter().enumerate() {
            if only.is_some_and(|o| o != b) {
                continue;
            }
            let indent = match binding.header {
                Some(header) if only.is_none() => {
                    lines.push(format!("{indent}{header}:"));
                    format!("{indent}  ")
                }
                _ => indent.to_string(),
            };
            let indent = indent.as_str();
            for &(slot, v) in &binding.locals {
                cells[slot].set(v);
            }
            let mut next_read = conj.len();
            for (i, (c, reads)) in conj.iter().zip(&reads).enumerate() {
                let text = self.snippet(c.span());
                let value = compiled[i]
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|f| shown_in(&self.sim, p, f, &cells));
                let mut shown_reads = Vec::new();
                for r in reads {
                    let read = compiled[next_read]
                        .as_ref()
                        .ok()
                        .and_then(|f| shown_in(&self.sim, p, f, &cells).ok());
                    next_read += 1;
                    let text = self.snippet(r.span());
                    // A constant that shows as itself (an enumeration's value) says nothing.
                    if let Some(v) = read.filter(|v| *v != text) {
                        shown_reads.push(format!("{text} = {v}"));
                    }
                }
                let false_ = value.as_deref() == Ok("false");
                lines.push(match value {
                    Ok(v) if shown_reads.is_empty() => format!("{indent}{text}  is {v}"),
                    Ok(v) => format!("{indent}{text}  is {v}  ({})", shown_reads.join(", ")),
                    Err(m) => format!("{indent}{text}  cannot be evaluated: {m}"),
                });
                match &quantified[i] {
                    Some(q) if false_ => lines.extend(self.members_failing(p, q, b, indent)),
                    None if false_ => lines.extend(self.definition_parts(p, a, c, b, indent)),
                    _ => {}
                }
            }
        }
        lines
    }

    /// Where conjunct `c` (false at `p` in binding `b`) uses a definition
    /// whose body is not a quantifier (`Can_Move` for `x != left.x and
    /// up`): what the definition is, then its body's conjuncts explained a
    /// level deeper.
    fn definition_parts(
        &self,
        p: usize,
        a: &ast::Action,
        c: &ast::Expr,
        b: usize,
        indent: &str,
    ) -> Vec<String> {
        // A definition without parameters is used by its name alone.
        let (f, args) = match c {
            ast::Expr::Call(f, args, _) => (f, args.as_slice()),
            ast::Expr::Name(f) => (f, &[][..]),
            _ => return Vec::new(),
        };
        let def = self.ast.defs.iter().find(|d| d.name.name == f.name);
        let (Some(def), Some(expanded)) = (def, check::expand_definition(&self.ast, f, args))
        else {
            return Vec::new();
        };
        let mut lines = vec![format!("{indent}  {}", self.definition_said(def, args))];
        let mut parts = Vec::new();
        conjuncts(&expanded, &mut parts);
        lines.extend(self.explain_parts(p, a, &parts, Some(b), &format!("{indent}  ")));
        lines
    }

    /// What a definition used with `args` is, as an explanation says it:
    /// `` `Next` is forall(...) and ..., with p = self, q = left``.
    fn definition_said(&self, def: &ast::Def, args: &[ast::Expr]) -> String {
        let body = match &def.body {
            ast::DefBody::Expr(e) => self.snippet(e.span()),
            ast::DefBody::Stmt(s) => self.snippet(s.span()),
        };
        let with: Vec<String> = (def.params.iter().zip(args))
            .map(|(param, arg)| format!("{} = {}", param.name, self.snippet(arg.span())))
            .collect();
        match with.is_empty() {
            true => format!("`{}` is {body}", def.name.name),
            false => format!("`{}` is {body}, with {}", def.name.name, with.join(", ")),
        }
    }

    /// A conjunct `c` of `a`'s guard that is a `forall` or an `exists`,
    /// or one negated, made ready to be evaluated member by member at `p`;
    /// `None` for any other conjunct, or where its body does not check or
    /// compile.
    fn quantified(&self, p: usize, a: &ast::Action, c: &ast::Expr) -> Option<Quantified> {
        let (c, negated) = match c {
            ast::Expr::Unary(ast::UnOp::Not, inner, _) => (&**inner, true),
            c => (c, false),
        };
        // A definition whose body is one (`Can_Attach(self)`), expanded.
        let expanded;
        let (c, via) = match c {
            ast::Expr::Call(f, args, _) => {
                expanded = check::expand_definition(&self.ast, f, args)?;
                let def = self.ast.defs.iter().find(|d| d.name.name == f.name)?;
                (&expanded, Some(self.definition_said(def, args)))
            }
            c => (c, None),
        };
        let ast::Expr::Quant(kind, var, coll, body, _) = c else {
            return None;
        };
        let exists = match kind {
            ast::QuantKind::Forall => false,
            ast::QuantKind::Exists => true,
            _ => return None,
        };
        let reads = self.reads_in(body);
        let all: Vec<&ast::Expr> = std::iter::once(&**body)
            .chain(reads.iter().copied())
            .collect();
        let checked = check::check_in_action(&self.ast, a, Some((var, coll)), &all)?;
        let set = self.compile_checked_shown(check::Shown::Set(checked.quantified?))?;
        let mut compiled = checked
            .exprs
            .into_iter()
            .map(|e| e.ok().and_then(|shown| self.compile_checked_shown(shown)));
        let body_fn = compiled.next().flatten()?;
        let reads = reads
            .iter()
            .map(|r| self.snippet(r.span()))
            .zip(compiled)
            .collect();
        let cells = self.sim.locals_for(checked.locals);
        let bindings = self
            .bindings(p, a, checked.members, checked.receive, &cells)
            .ok()?;
        Some(Quantified {
            exists,
            negated,
            via,
            var: check::shown_name(&var.name).to_string(),
            set,
            body: body_fn,
            body_text: self.snippet(body.span()),
            reads,
            cells,
            bindings,
        })
    }

    /// The lines under a quantifier that is false at `p` in binding `b`:
    /// the first member its body is false for (`forall`), or each member,
    /// a few at most (`exists`), with the values its body reads there;
    /// negated, the first member its body is true for (`not exists`), or
    /// each (`not forall`).
    fn members_failing(&self, p: usize, q: &Quantified, b: usize, indent: &str) -> Vec<String> {
        /// The most members of a false `exists` listed.
        const MOST: usize = 6;
        let Some(binding) = q.bindings.get(b) else {
            return Vec::new();
        };
        for &(slot, v) in &binding.locals {
            q.cells[slot].set(v);
        }
        let ShownFn::Set { slot, .. } = q.set else {
            return Vec::new();
        };
        let found = match members(&self.sim, p, &q.set, &q.cells) {
            Ok(found) => found,
            Err(why) => return vec![format!("{indent}  its members cannot be listed: {why}")],
        };
        let mut lines: Vec<String> = q.via.iter().map(|v| format!("{indent}  {v}")).collect();
        if found.is_empty() {
            lines.push(format!("{indent}  `{}` ranges over no member here", q.var));
            return lines;
        }
        let said = lines.len();
        // What the body is at the members shown, and whether each is.
        let (shown, every) = match q.negated {
            false => ("false", q.exists),
            true => ("true", !q.exists),
        };
        for (k, &m) in found.iter().enumerate() {
            if lines.len() == said + MOST {
                let left = found.len() - k;
                lines.push(format!("{indent}  ... and {left} more, {shown} for each"));
                break;
            }
            q.cells[slot].set(m);
            let value = shown_in(&self.sim, p, &q.body, &q.cells);
            if value.as_ref().is_ok_and(|v| v != shown) {
                continue;
            }
            let reads: Vec<String> = q
                .reads
                .iter()
                .filter_map(|(text, f)| {
                    let v = shown_in(&self.sim, p, f.as_ref()?, &q.cells).ok()?;
                    // The member is in the line's head already.
                    (v != *text && *text != q.var).then(|| format!("{text} = {v}"))
                })
                .collect();
            let at = format!("{indent}  for {} = {m}: {}", q.var, q.body_text);
            lines.push(match value {
                Ok(v) if reads.is_empty() => format!("{at}  is {v}"),
                Ok(v) => format!("{at}  is {v}  ({})", reads.join(", ")),
                Err(why) => format!("{at}  cannot be evaluated: {why}"),
            });
            if !every {
                break;
            }
        }
        lines
    }

    /// The variable reads in a conjunct worth showing: each once, not the
    /// conjunct itself (its value is said already).
    fn reads_in<'a>(&self, c: &'a ast::Expr) -> Vec<&'a ast::Expr> {
        let mut reads = Vec::new();
        collect_reads(c, &mut reads);
        let mut seen = vec![self.snippet(c.span())];
        reads.retain(|r| {
            let text = self.snippet(r.span());
            let new = !seen.contains(&text);
            seen.push(text);
            new
        });
        reads
    }

    /// The ways `a`'s guard is evaluated at `p`: once, or once for each
    /// member of its binder, and for each message at the head of a channel
    /// into `p` that a receive of `a` would take.
    fn bindings(
        &self,
        p: usize,
        a: &ast::Action,
        binder: Option<check::SetShown>,
        receive: Option<(usize, usize, Vec<usize>)>,
        cells: &[Cell<i64>],
    ) -> Result<Vec<Binding>, String> {
        let mut out = vec![Binding {
            header: None,
            locals: Vec::new(),
        }];
        if let (Some(set), Some((var, _))) = (binder, &a.binder) {
            let slot = set.slot;
            let f = self
                .compile_checked_shown(check::Shown::Set(set))
                .ok_or("its binder does not compile for this instance")?;
            let found = members(&self.sim, p, &f, cells)?;
            if found.is_empty() {
                return Err(format!("`{}` has no member here", var.name));
            }
            out = found
                .iter()
                .map(|&m| Binding {
                    header: Some(format!("for {} = {m}", var.name)),
                    locals: vec![(slot, m)],
                })
                .collect();
        }
        if let (Some((kind, from, fields)), Some(r)) = (receive, &a.receive) {
            let heads = self.heads_into(p, kind);
            if heads.is_empty() {
                return Err(format!(
                    "no `{}` message is at the head of a channel into process {p}",
                    r.message.name
                ));
            }
            let fields = &fields;
            out = out
                .iter()
                .flat_map(|b| {
                    heads.iter().map(move |(sender, msg, text)| {
                        let mut locals = b.locals.clone();
                        locals.push((from, *sender as i64));
                        locals.extend(fields.iter().zip(msg).map(|(&s, &v)| (s, v)));
                        let received = format!("{text} from {sender}");
                        Binding {
                            header: Some(match &b.header {
                                Some(h) => format!("{h}, {received}"),
                                None => received,
                            }),
                            locals,
                        }
                    })
                })
                .collect();
        }
        Ok(out)
    }

    /// The messages of type `kind` at the head of a channel into `p`: the
    /// sender, the fields, the message as traces write it.
    fn heads_into(&self, p: usize, kind: usize) -> Vec<(usize, Vec<i64>, String)> {
        let (topo, chans) = (self.sim.topology(), self.sim.channels());
        (0..self.sim.n())
            .filter_map(|s| {
                let head = chans.between(topo, s, p)?.front()?;
                (usize::from(head.kind) == kind).then(|| {
                    let text = crate::report::msg_text(&self.sim, head);
                    (s, head.fields.to_vec(), text)
                })
            })
            .collect()
    }
}

/// A `forall` or `exists` among a guard's conjuncts, checked with its
/// variable bound: its members, its body and the reads in it, compiled,
/// with the locals they take and the guard's bindings (binder member,
/// message taken), in the order the guard's explanation lists them.
struct Quantified {
    exists: bool,
    /// Whether the conjunct is the quantifier negated (`not exists(...)`):
    /// false where the quantifier holds, so the members shown are those
    /// its body is true for.
    negated: bool,
    /// Where the quantifier is a definition's body: what the definition
    /// is, with its arguments.
    via: Option<String>,
    var: String,
    set: ShownFn,
    body: ShownFn,
    body_text: String,
    reads: Vec<(String, Option<ShownFn>)>,
    cells: Vec<Cell<i64>>,
    bindings: Vec<Binding>,
}

/// The conjuncts of a guard: `a and b and c` gives a, b, c.
fn conjuncts<'a>(e: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    match e {
        ast::Expr::Binary(ast::BinOp::And, l, r, _) => {
            conjuncts(l, out);
            conjuncts(r, out);
        }
        other => out.push(other),
    }
}

/// The variable reads in an expression outside quantifiers: `x`, `left.x`,
/// `parent.x`, and the calls (of definitions and builtins) with their
/// arguments' reads.
fn collect_reads<'a>(e: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    match e {
        ast::Expr::Name(_) | ast::Expr::Field(..) | ast::Expr::Index(..) => out.push(e),
        ast::Expr::Unary(_, a, _) => collect_reads(a, out),
        ast::Expr::Tuple(items, _) => items.iter().for_each(|a| collect_reads(a, out)),
        ast::Expr::Cond(c, a, b, _) => {
            collect_reads(c, out);
            collect_reads(a, out);
            collect_reads(b, out);
        }
        ast::Expr::Binary(_, a, b, _) => {
            collect_reads(a, out);
            collect_reads(b, out);
        }
        // A call's value (`married(self) = false`, `abs(x - left.x) = 2`),
        // then what its arguments read.
        ast::Expr::Call(_, args, _) => {
            out.push(e);
            args.iter().for_each(|a| collect_reads(a, out));
        }
        _ => {}
    }
}
