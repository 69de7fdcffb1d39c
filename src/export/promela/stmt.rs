//! Actions and statements in Promela: which action of a process runs (any
//! enabled one, for any member of its binder, as `verify` explores them;
//! or the first, by priority then program order, as `guarded run` takes
//! it) and what it does. A simultaneous assignment computes
//! every value first (into hidden temporaries, which are not part of the
//! state), checks it against its domain, then assigns.

use super::expr::{conjunction, disjunction, At};
use super::messages::Receive;
use super::{Tr, Untranslatable, Val};
use crate::check::ir::{self, Action, BExpr, IExpr, Stmt, Target, Value, VarKind};
use crate::compile::VarDomain;

/// One way a process can move: the condition under which it is the move
/// the process makes, and the statement it runs.
pub(super) struct Move {
    pub(super) label: String,
    pub(super) fires: String,
    pub(super) body: String,
    /// The channel whose head the move takes, if it receives.
    pub(super) takes: Option<usize>,
    /// Whether it is an `atomic` sequence, not a `d_step`: it draws at
    /// random (see [`super::draws`]).
    pub(super) draws: bool,
}

/// An action instance: the binding of its `for q in C` (slot, member),
/// if any, and the condition under which it may run.
type Instance = (Option<(usize, i64)>, String);

/// One way a process may move within its priority: an action, for a
/// binder member or taking a message.
struct Opt<'a> {
    action: &'a Action,
    /// Whether its guard holds (what makes the process enabled).
    holds: String,
    /// Whether it is a move the process may make among its priority's:
    /// for a receive, that its message is the one taken.
    fires: String,
    taking: Taking,
}

/// What an option binds.
enum Taking {
    Member(Option<(usize, i64)>),
    Receive(Receive),
}

impl Tr<'_> {
    /// The actions of process `me`'s role with their priorities and places
    /// in program order, most urgent first (program order among equal
    /// priorities).
    fn ordered_actions(&self) -> Vec<(i64, usize, &Action)> {
        let role = &self.prog.roles[self.code.role_of.of(self.me)];
        let mut actions: Vec<(i64, usize, &Action)> = role
            .actions
            .iter()
            .enumerate()
            .map(|(place, a)| {
                let priority = a.priority.as_ref().and_then(|(e, _)| self.constant(e));
                (priority.unwrap_or(0), place, a)
            })
            .collect();
        actions.sort_by_key(|a| a.0);
        actions
    }

    /// The instances of an action without `receive`: per member of its
    /// `for q in C`, the local binding and whether it qualifies (filter
    /// and guard); one instance without a binder.
    fn instances(&self, a: &Action) -> Result<Vec<Instance>, Untranslatable> {
        // An instance whose guard is false here whatever the configuration
        // (`index > 0 and ...` at process 0) is left out, its statement
        // untranslated: it may read what this process lacks.
        match &a.binder {
            None if self.bconstant(&a.guard) == Some(false) => Ok(Vec::new()),
            None => Ok(vec![(None, self.bexpr(&a.guard)?)]),
            Some(b) => {
                let mut out = Vec::new();
                for q in self.members(&b.coll)? {
                    let ok = self.with(b.slot, Val::Const(q), |t| {
                        let never = |e: &BExpr| t.bconstant(e) == Some(false);
                        if b.filter.as_ref().is_some_and(never) || never(&a.guard) {
                            return Ok(None);
                        }
                        let guard = t.bexpr(&a.guard)?;
                        Ok(Some(match &b.filter {
                            Some(f) => format!("({} && {guard})", t.bexpr(f)?),
                            None => guard,
                        }))
                    })?;
                    out.extend(ok.map(|ok| (Some((b.slot, q)), ok)));
                }
                Ok(out)
            }
        }
    }

    /// The ways the actions of one priority, `group`, can move process
    /// `me`, in program order: each action instance, and each receive
    /// instance (see [`Tr::receives`]).
    fn options<'a>(&self, group: &[(usize, &'a Action)]) -> Result<Vec<Opt<'a>>, Untranslatable> {
        let mut receives = self.receives(group)?.into_iter().peekable();
        let mut out = Vec::new();
        for &(place, a) in group {
            if a.receive.is_some() {
                if a.binder.is_some() {
                    return Err(Untranslatable::new(
                        "a receive action with a binder",
                        Some(a.span),
                    ));
                }
                while let Some((_, r)) = receives.next_if(|(p, _)| *p == place) {
                    out.push(Opt {
                        action: a,
                        holds: r.qualifies.clone(),
                        fires: r.taken.clone(),
                        taking: Taking::Receive(r),
                    });
                }
                continue;
            }
            for (binding, holds) in self.instances(a)? {
                out.push(Opt {
                    action: a,
                    fires: holds.clone(),
                    holds,
                    taking: Taking::Member(binding),
                });
            }
        }
        Ok(out)
    }

    /// The actions of `me`'s role by priority, most urgent first, each
    /// with its place in program order.
    fn priority_groups(&self) -> Vec<Vec<(usize, &Action)>> {
        let mut groups: Vec<Vec<(usize, &Action)>> = Vec::new();
        let mut last = None;
        for (priority, place, a) in self.ordered_actions() {
            if last != Some(priority) {
                groups.push(Vec::new());
                last = Some(priority);
            }
            groups.last_mut().expect("pushed").push((place, a));
        }
        groups
    }

    /// Whether process `q` is enabled: some guard holds.
    pub(super) fn enabled(&self, q: usize) -> Result<String, Untranslatable> {
        let t = Tr {
            me: q,
            ..self.clone()
        };
        let mut any = Vec::new();
        for group in t.priority_groups() {
            any.extend(t.options(&group)?.into_iter().map(|o| o.holds));
        }
        Ok(disjunction(any))
    }

    /// Process `me`'s moves: each option, firing when it holds and no
    /// option of a more urgent priority does (with `every_choice` unset,
    /// and no option before it).
    pub(super) fn moves(&self) -> Result<Vec<Move>, Untranslatable> {
        // The conditions of the options of more urgent priorities.
        let mut urgent: Vec<String> = Vec::new();
        let mut out = Vec::new();
        for group in self.priority_groups() {
            let options = self.options(&group)?;
            // Those before of this priority: an action before a receive
            // runs first where it holds, and a receive before an action
            // where it is the one taken.
            let mut before: Vec<&str> = Vec::new();
            for o in &options {
                let mut fires = vec![o.fires.clone()];
                fires.extend(urgent.iter().map(|b| format!("!({b})")));
                if !self.every_choice {
                    fires.extend(before.iter().map(|b| format!("!({b})")));
                }
                let a = o.action;
                let t = Tr {
                    in_guard: false,
                    atomic_move: self.atomic_move || ir::draws(a),
                    ..self.clone()
                };
                let takes = match &o.taking {
                    Taking::Receive(r) => Some(r.arc),
                    Taking::Member(_) => None,
                };
                let (label, body) = match &o.taking {
                    Taking::Member(Some((slot, q))) => (
                        format!("{} (q = {q})", a.label),
                        t.with(*slot, Val::Const(*q), |t| t.stmt(&a.body))?,
                    ),
                    Taking::Member(None) => (a.label.clone(), t.stmt(&a.body)?),
                    Taking::Receive(r) => (
                        format!("{} (from {})", a.label, r.sender),
                        t.receive_body(a, r)?,
                    ),
                };
                out.push(Move {
                    label,
                    fires: conjunction(fires),
                    body,
                    takes,
                    draws: t.atomic_move,
                });
                before.push(&o.fires);
            }
            urgent.extend(options.iter().map(|o| o.holds.clone()));
        }
        Ok(out)
    }

    /// A statement, as Promela statements separated by `;`.
    pub(super) fn stmt(&self, s: &Stmt) -> Result<String, Untranslatable> {
        Ok(match s {
            Stmt::Skip => "skip".into(),
            Stmt::Seq(list) => {
                let parts: Vec<String> = list
                    .iter()
                    .map(|s| self.stmt(s))
                    .collect::<Result<_, _>>()?;
                if parts.is_empty() {
                    "skip".into()
                } else {
                    parts.join(";\n")
                }
            }
            Stmt::If(c, a, b) => {
                let (choices, c) = self.drawing(|| self.bexpr(c))?;
                let branches = format!(
                    "if\n:: {c} ->\n{}\n:: else ->\n{}\nfi",
                    indent(&self.stmt(a)?),
                    indent(&self.stmt(b)?)
                );
                self.after_choices(choices, branches)
            }
            Stmt::For(b, body) => {
                let mut parts = Vec::new();
                for q in self.members(&b.coll)? {
                    parts.push(self.with(b.slot, Val::Const(q), |t| {
                        let body = t.stmt(body)?;
                        Ok(match &b.filter {
                            Some(f) => {
                                let (choices, f) = t.drawing(|| t.bexpr(f))?;
                                let body = format!(
                                    "if\n:: {f} ->\n{}\n:: else -> skip\nfi",
                                    indent(&body)
                                );
                                t.after_choices(choices, body)
                            }
                            None => body,
                        })
                    })?);
                }
                if parts.is_empty() {
                    "skip".into()
                } else {
                    parts.join(";\n")
                }
            }
            Stmt::Send(kind, values, to, span) => {
                let (choices, send) = self.drawing(|| self.send(*kind, values, to, *span))?;
                self.after_choices(choices, self.sealed(send))
            }
            Stmt::Assign(targets, values) => {
                let (choices, assign) = self.drawing(|| self.assign(targets, values))?;
                self.after_choices(choices, assign)
            }
        })
    }

    /// `t1, t2 := v1, v2`: every value into a temporary, checked, then stored.
    fn assign(&self, targets: &[Target], values: &[Value]) -> Result<String, Untranslatable> {
        let mut computed: Vec<(String, String, Option<String>)> = Vec::new();
        for (t, v) in targets.iter().zip(values) {
            let places = self.places(t)?;
            let sources: Vec<String> = match v {
                Value::Int(e) => vec![self.iexpr(e)?],
                Value::Bool(b) => vec![format!("({} -> 1 : 0)", self.bexpr(b)?)],
                Value::Array(p, w) => {
                    let at = self.proc(p)?;
                    let len = self.code.lens[*w].unwrap_or(1);
                    (0..len)
                        .map(|i| self.read(&at, *w, Some(&IExpr::Const(i as i64))))
                        .collect::<Result<_, _>>()?
                }
            };
            if sources.len() != places.len() {
                return Err(Untranslatable::new(
                    "an assignment of arrays of different lengths",
                    Some(t.span),
                ));
            }
            let check = self.domain_check(t.var);
            for (place, source) in places.into_iter().zip(sources) {
                computed.push((place, source, check.clone()));
            }
        }
        let mut out = Vec::new();
        for (k, (_, source, _)) in computed.iter().enumerate() {
            out.push(format!("t{k} = {source}"));
        }
        for (k, (_, _, check)) in computed.iter().enumerate() {
            if let Some(c) = check {
                out.push(format!("assert({})", c.replace("VALUE", &format!("t{k}"))));
            }
        }
        for (k, (place, _, _)) in computed.iter().enumerate() {
            // Under the synchronous daemon, an edge's ends may not both
            // write it in one step (the runtime's conflict): each write
            // marks the edge with its writer.
            if self.reading_old && place.starts_with("e_") {
                let mark = format!("w_{place}");
                let me = self.me + 1;
                out.push(format!("assert({mark} == 0 || {mark} == {me})"));
                out.push(format!("{mark} = {me}"));
            }
            out.push(format!("{place} = t{k}"));
        }
        self.temporaries
            .set(self.temporaries.get().max(computed.len()));
        Ok(out.join(";\n"))
    }

    /// Where an assignment stores: one place, or every element of an array.
    fn places(&self, t: &Target) -> Result<Vec<String>, Untranslatable> {
        let me = At::Known(self.me);
        let var = &self.prog.vars[t.var];
        // The mover's own variables are read (and so written) in place.
        let store = |read: String| read;
        match &t.index {
            // An edge's own array, not what the synchronous step reads of
            // it (the index names a neighbour: a local or an own variable).
            Some(i) if var.kind == VarKind::Edge => {
                let here = Tr {
                    reading_old: false,
                    ..self.clone()
                };
                Ok(vec![here.read(&me, t.var, Some(i))?])
            }
            Some(i) => Ok(vec![store(self.read(&me, t.var, Some(i))?)]),
            None if var.kind == VarKind::Edge || self.code.per_nbr[t.var] => Err(
                Untranslatable::new("assigning a whole per-neighbour variable", Some(t.span)),
            ),
            None => {
                let len = self.code.lens[t.var].unwrap_or(1);
                if self.code.lens[t.var].is_none() {
                    return Ok(vec![store(self.read(&me, t.var, None)?)]);
                }
                (0..len)
                    .map(|i| {
                        Ok(store(self.read(
                            &me,
                            t.var,
                            Some(&IExpr::Const(i as i64)),
                        )?))
                    })
                    .collect()
            }
        }
    }

    /// The check a value assigned to `var` must pass (`VALUE` stands for
    /// it), when its type alone does not ensure it.
    fn domain_check(&self, var: usize) -> Option<String> {
        let slot = self.code.offsets[var];
        match self.code.domains[slot] {
            VarDomain::Bool | VarDomain::Enum(_) => None,
            VarDomain::Range(lo, hi) => Some(format!("{lo} <= VALUE && VALUE <= {hi}")),
            VarDomain::Node => {
                let mut ok = vec![format!("VALUE == {}", self.me)];
                ok.extend(
                    self.topo
                        .nbrs(self.me)
                        .iter()
                        .map(|q| format!("VALUE == {q}")),
                );
                Some(ok.join(" || "))
            }
        }
    }
}

/// Indents each line by four spaces.
pub(super) fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
