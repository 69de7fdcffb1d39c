//! Statements as closures: assignments (simultaneous, to elements, to
//! edge variables, domain-checked), sequences, conditionals, loops,
//! sends; and actions over a collection or on receiving a message.

use super::quantifiers::Members;
use super::shared::forgetting_shared;
use super::*;

/// One target: where it writes and what.
enum Write {
    /// A scalar or an element at a known slot.
    Slot(usize, IFn, CheckFn),
    /// A boolean scalar (no check: any boolean is in its domain).
    Bool(usize, BFn),
    /// An element at a computed slot.
    At(IFn, IFn, CheckFn),
    /// A whole array copied from an array at the process `PFn` names.
    Array(usize, usize, PFn, usize),
    /// An edge variable: the variable, the other end, the value; it
    /// lands in this process's slot for that neighbour and at the other end.
    Edge(usize, IFn, IFn, IFn, CheckFn, Span),
}

/// The most targets a multiple assignment compiled by
/// [`Compiler::slot_writes`] has.
const MOST_SLOT_WRITES: usize = 8;

/// Where a value of [`Compiler::slot_writes`] comes from.
enum Source {
    /// A constant within the target's domain.
    Const(i64),
    /// A closure whose value lies within the domain.
    Unchecked(IFn),
    /// A boolean.
    Bool(BFn),
    /// A closure whose value is checked before it is written.
    Checked(IFn, CheckFn),
}

impl Compiler<'_> {
    pub(super) fn constant_assignments(&self, s: &ir::Stmt, problems: &mut Vec<Problem>) {
        match s {
            ir::Stmt::Skip => {}
            ir::Stmt::Seq(v) => v
                .iter()
                .for_each(|s| self.constant_assignments(s, problems)),
            ir::Stmt::If(_, a, b) => {
                self.constant_assignments(a, problems);
                self.constant_assignments(b, problems);
            }
            ir::Stmt::For(_, body) => self.constant_assignments(body, problems),
            ir::Stmt::Send(..) => {}
            ir::Stmt::Assign(targets, values) => {
                for (t, val) in targets.iter().zip(values) {
                    if let (Value::Int(e), VarDomain::Range(lo, hi)) = (val, &self.domains[t.var]) {
                        if let Some(x) = const_eval(e, &self.params, self.n) {
                            if !(*lo..=*hi).contains(&x) {
                                problems.push(out_of_domain(
                                    &self.prog.vars[t.var],
                                    x,
                                    *lo,
                                    *hi,
                                    t.span,
                                ));
                            }
                        }
                    }
                    if let Value::Array(_, src) = val {
                        self.same_length(t.var, *src, t.span);
                    }
                }
            }
        }
    }

    /// Reports arrays of different lengths used as one.
    pub(super) fn same_length(&self, a: usize, b: usize, span: Span) {
        if self.lens[a] != self.lens[b] {
            let (va, vb) = (&self.prog.vars[a], &self.prog.vars[b]);
            self.problems.borrow_mut().push(
                Problem::new(
                    "guarded::instance::array_lengths",
                    format!(
                        "`{}` has {} but `{}` has {}",
                        va.name,
                        crate::diagnostic::counted(self.lens[a] as u64, "element"),
                        vb.name,
                        self.lens[b]
                    ),
                )
                .label(span, "the whole arrays are used together here")
                .help("whole-array comparison and assignment need arrays of one length"),
            );
        }
    }

    /// An action with `for q in C`: enabled when the guard holds for some
    /// member; with no member named, the statement runs for the first such
    /// member. Also the binder itself, so that a step may name the member.
    pub(super) fn bound_action(
        &self,
        b: &ir::Binder,
        guard: &BExpr,
        body: SFn,
    ) -> (BFn, SFn, CBinder) {
        let slot = b.slot;
        let g = Arc::new(self.bexpr(guard));
        let filter = Arc::new(b.filter.as_ref().map(|f| self.bexpr(f)));
        // Whether some member qualifies (binding it): the guard's own
        // closure and the statement's, so that neither calls the other.
        let search = |g: Arc<BFn>, filter: Arc<Option<BFn>>| {
            move |e: &Env, items: &mut Members| -> Res<Truth> {
                for q in items {
                    e.locals[slot].set(q);
                    if filter.as_ref().as_ref().map_or(Ok(true), |f| f.holds(e))? && g.holds(e)? {
                        return Ok(Truth::from(true));
                    }
                }
                Ok(Truth::from(false))
            }
        };
        let guard = self.over(&b.coll, search(g.clone(), filter.clone()));
        let find = self.over(&b.coll, search(g.clone(), filter.clone()));
        let members = self.over(&b.coll, move |e, items| {
            let mut out = Vec::new();
            for q in items {
                e.locals[slot].set(q);
                if filter.as_ref().as_ref().map_or(Ok(true), |f| f.holds(e))? && g.holds(e)? {
                    out.push(q);
                }
            }
            Ok(out)
        });
        let body: Arc<SFn> = Arc::new(body);
        let at_member = body.clone();
        let body: SFn = Box::new(move |e| if find.holds(e)? { body(e) } else { Ok(()) });
        let binder = CBinder {
            slot,
            members,
            body: Box::new(move |e| at_member(e)),
        };
        (guard, body, binder)
    }

    /// `receive m(x) from q and G`: enabled when some channel into the
    /// process has an `m` at its head, arrived, for which G holds; of
    /// several, the oldest message is taken.
    pub(super) fn receive_action(
        &self,
        r: &(usize, usize, Vec<usize>),
        guard: &BExpr,
        body: SFn,
    ) -> (BFn, SFn) {
        let (kind, from, fields) = (r.0 as u16, r.1, r.2.clone());
        let g = self.bexpr(guard);
        // Binds the chosen sender and fields; true when one qualifies.
        let find = move |e: &Env| -> Res<bool> {
            // The oldest head that qualifies: its sequence number, sender
            // and channel.
            let mut best: Option<(u64, usize, usize)> = None;
            let senders = e.topo.readers(e.me).iter().zip(e.topo.arcs_into(e.me));
            for (&s, &arc) in senders {
                let Some(head) = e.chans.queues[arc as usize].front() else {
                    continue;
                };
                // A message in transit (in ticks) is not there to take yet.
                if head.kind != kind
                    || head.due != 0
                    || best.is_some_and(|(seq, _, _)| seq < head.seq)
                {
                    continue;
                }
                e.locals[from].set(i64::from(s));
                for (k, slot) in fields.iter().enumerate() {
                    e.locals[*slot].set(head.fields[k]);
                }
                if g.holds(e)? {
                    best = Some((head.seq, s as usize, arc as usize));
                }
            }
            let Some((_, s, arc)) = best else {
                return Ok(false);
            };
            let head = e.chans.queues[arc].front().expect("found above");
            e.locals[from].set(s as i64);
            for (k, slot) in fields.iter().enumerate() {
                e.locals[*slot].set(head.fields[k]);
            }
            Ok(true)
        };
        let find = Arc::new(find);
        let find2 = find.clone();
        let guard: BFn = boolean(move |e| find(e));
        let body: SFn = Box::new(move |e| {
            if find2(e)? {
                e.fx.received.set(Some(e.locals[from].get() as usize));
                body(e)
            } else {
                Ok(())
            }
        });
        (guard, body)
    }

    /// An action's statement (this compiler compiling statements): what
    /// it evaluates before its first assignment is compiled as a guard is
    /// (see [`Compiler::stmt_after`]).
    pub(super) fn action_stmt(&self, s: &ir::Stmt) -> SFn {
        self.stmt_after(s, true).0
    }

    /// `s`, where `unwritten` says that nothing has been assigned before
    /// it in the move: the mover's row being written (`Env::scratch`) is
    /// then its row in the configuration, so the expressions `s`
    /// evaluates until it assigns read that instead, compiled as guards
    /// are, with their reads of the process's own variables fused
    /// (SSLE's `done := Done(self)`: its quantifiers over the neighbours
    /// compare keys without a call). With it, whether the row is still
    /// unwritten after `s`: a `for` counts as assigning (its filter runs
    /// between its body's writes), a `send` assigns nothing, and an `if`
    /// leaves it unwritten only where neither branch assigns.
    fn stmt_after(&self, s: &ir::Stmt, unwritten: bool) -> (SFn, bool) {
        let reading = || match unwritten {
            true => Compiler {
                in_stmt: false,
                ..self.clone()
            },
            false => self.clone(),
        };
        match s {
            ir::Stmt::Skip => (self.stmt(s), unwritten),
            ir::Stmt::Assign(..) => (reading().stmt(s), false),
            ir::Stmt::Send(..) => (reading().stmt(s), unwritten),
            ir::Stmt::For(..) => (self.stmt(s), false),
            ir::Stmt::Seq(v) => {
                let mut still = unwritten;
                let fs: Vec<SFn> = v
                    .iter()
                    .map(|s| {
                        let (f, after) = self.stmt_after(s, still);
                        still = after;
                        f
                    })
                    .collect();
                (Box::new(move |e| fs.iter().try_for_each(|f| f(e))), still)
            }
            ir::Stmt::If(c, a, b) => {
                let fc = reading().bexpr(c);
                let ((fa, after_a), (fb, after_b)) =
                    (self.stmt_after(a, unwritten), self.stmt_after(b, unwritten));
                let f: SFn = Box::new(move |e| if fc.holds(e)? { fa(e) } else { fb(e) });
                (f, after_a && after_b)
            }
        }
    }

    pub(super) fn stmt(&self, s: &ir::Stmt) -> SFn {
        match s {
            ir::Stmt::Skip => Box::new(|_| Ok(())),
            ir::Stmt::Seq(v) => {
                let fs: Vec<SFn> = v.iter().map(|s| self.stmt(s)).collect();
                Box::new(move |e| fs.iter().try_for_each(|f| f(e)))
            }
            ir::Stmt::If(c, a, b) => {
                let (fc, fa, fb) = (self.bexpr(c), self.stmt(a), self.stmt(b));
                Box::new(move |e| if fc.holds(e)? { fa(e) } else { fb(e) })
            }
            ir::Stmt::For(b, body) => {
                let slot = b.slot;
                let filter = b.filter.as_ref().map(|f| self.bexpr(f));
                let body = self.stmt(body);
                self.over(&b.coll, move |e, items| {
                    for i in items {
                        e.locals[slot].set(i);
                        if filter.as_ref().map_or(Ok(true), |f| f.holds(e))? {
                            body(e)?;
                        }
                    }
                    Ok(())
                })
            }
            ir::Stmt::Send(kind, values, to, span) => {
                let kind = *kind as u16;
                let span = *span;
                let fields: Vec<IFn> = values
                    .iter()
                    .map(|v| match v {
                        Value::Int(x) => self.iexpr(x),
                        Value::Bool(b) => {
                            let f = self.bexpr(b);
                            Box::new(move |e: &Env| f.holds(e).map(i64::from)) as IFn
                        }
                        Value::Array(..) => unreachable!("the checker types fields as scalars"),
                    })
                    .collect();
                let to = self.iexpr(to);
                let message = &self.prog.messages[kind as usize];
                let name = message.name.clone();
                let checks: Vec<(String, VarDomain)> = message
                    .fields
                    .iter()
                    .map(|f| f.0.clone())
                    .zip(self.message_domains[kind as usize].iter().cloned())
                    .collect();
                Box::new(move |e| {
                    let q = to(e)?;
                    if usize::try_from(q)
                        .ok()
                        .and_then(|q| e.topo.arc(e.me, q))
                        .is_none()
                    {
                        return fault(
                            span,
                            format!(
                                "process {} sends to process {q}, which is not a neighbour",
                                e.me
                            ),
                            "messages go to neighbours",
                        );
                    }
                    let mut m = [0i64; MAX_FIELDS];
                    for ((slot, f), (field, domain)) in m.iter_mut().zip(&fields).zip(&checks) {
                        *slot = f(e)?;
                        if !domain.contains(*slot, e.me, e.topo) {
                            return fault(
                                span,
                                format!("`{name}` sent with `{field}` = {}, outside the field's domain", *slot),
                                "a message's fields must lie in the domains its `message` declaration gives",
                            );
                        }
                    }
                    e.fx.sends.borrow_mut().push((q as usize, kind, m, span));
                    Ok(())
                })
            }
            ir::Stmt::Assign(targets, values) => self.assign(targets, values),
        }
    }

    pub(super) fn assign(&self, targets: &[ir::Target], values: &[Value]) -> SFn {
        match self.sharing(targets, values) {
            Some(sharing) => forgetting_shared(sharing.assign_here(targets, values)),
            None => self.assign_here(targets, values),
        }
    }

    /// [`Compiler::assign`], the subexpressions it shares (if any) read
    /// from [`Effects::shared`].
    fn assign_here(&self, targets: &[ir::Target], values: &[Value]) -> SFn {
        let writes: Vec<Write> = targets
            .iter()
            .zip(values)
            .map(|(t, val)| self.write_of(t, val))
            .collect();
        // The common case, one plain write, without the buffer; without
        // the check when the value is a read of a variable whose domain
        // lies within the target's.
        if writes.len() == 1 && matches!(writes[0], Write::Slot(..)) {
            let Some(Write::Slot(slot, f, check)) = writes.into_iter().next() else {
                unreachable!("matched above")
            };
            if self.within_domain(&targets[0], &values[0]) {
                if let Value::Int(x) = &values[0] {
                    if let Some(read) = self.plain(x) {
                        return super::fused::fused_assign(slot, read, self.stride);
                    }
                }
                return Box::new(move |e| {
                    e.scratch[slot].set(f(e)?);
                    Ok(())
                });
            }
            return Box::new(move |e| {
                let v = f(e)?;
                check(e, v)?;
                e.scratch[slot].set(v);
                Ok(())
            });
        }
        if let [Write::Bool(..)] = writes[..] {
            let Some(Write::Bool(slot, f)) = writes.into_iter().next() else {
                unreachable!("matched above")
            };
            return Box::new(move |e| {
                e.scratch[slot].set(i64::from(f.holds(e)?));
                Ok(())
            });
        }
        let at_slots = |w: &Write| matches!(w, Write::Slot(..) | Write::Bool(..));
        if writes.len() <= MOST_SLOT_WRITES && writes.iter().all(at_slots) {
            return self.slot_writes(targets, values, writes);
        }
        let stride = self.stride;
        // Every right-hand side and index is evaluated before anything is written.
        Box::new(move |e| {
            let mut small = [(0usize, 0i64); 16];
            let mut big = Vec::new();
            let mut k = 0;
            let mut push = |slot: usize, v: i64| {
                if k < small.len() {
                    small[k] = (slot, v);
                } else {
                    if big.is_empty() {
                        big.extend_from_slice(&small);
                    }
                    big.push((slot, v));
                }
                k += 1;
            };
            for w in &writes {
                match w {
                    Write::Slot(slot, f, check) => {
                        let v = f(e)?;
                        check(e, v)?;
                        push(*slot, v);
                    }
                    Write::Bool(slot, f) => push(*slot, i64::from(f.holds(e)?)),
                    Write::At(slot, f, check) => {
                        let s = slot(e)? as usize;
                        let v = f(e)?;
                        check(e, v)?;
                        push(s, v);
                    }
                    Write::Edge(var, q, slot, f, check, span) => {
                        let s = slot(e)? as usize;
                        let v = f(e)?;
                        check(e, v)?;
                        push(s, v);
                        e.fx.edge_writes
                            .borrow_mut()
                            .push((q(e)? as usize, *var, v, *span));
                    }
                    Write::Array(dst, len, p, src) => {
                        let q = p(e)?;
                        for i in 0..*len {
                            let v = if q == e.me {
                                e.scratch[src + i].get()
                            } else {
                                e.state[q * stride + src + i]
                            };
                            push(dst + i, v);
                        }
                    }
                }
            }
            let done: &[(usize, i64)] = if k <= small.len() { &small[..k] } else { &big };
            for &(slot, v) in done {
                e.scratch[slot].set(v);
            }
            Ok(())
        })
    }

    /// Whether `value` lies in the domain of `target`'s variable whatever
    /// the configuration, so that its assignment needs no check: a read
    /// of a variable whose range lies within the target's, a boolean or
    /// an enumeration value (typed so), a constant within the range, the
    /// process itself as a node.
    pub(super) fn within_domain(&self, target: &ir::Target, value: &Value) -> bool {
        match (value, &self.domains[target.var]) {
            (Value::Int(IExpr::Var(_, w)), VarDomain::Range(lo, hi)) => {
                matches!(self.domains[*w], VarDomain::Range(l, h) if *lo <= l && h <= *hi)
            }
            (_, VarDomain::Bool | VarDomain::Enum(_)) => true,
            (Value::Int(IExpr::Index(ir::Proc::Me)), VarDomain::Node) => true,
            (Value::Int(x), VarDomain::Range(lo, hi)) => {
                const_eval(x, &self.params, self.n).is_some_and(|v| (*lo..=*hi).contains(&v))
            }
            _ => false,
        }
    }

    /// A multiple assignment of at most [`MOST_SLOT_WRITES`] targets, each
    /// at a slot known when compiled (`writes`, all [`Write::Slot`] or
    /// [`Write::Bool`]): the values computed in order into an array on the
    /// stack, constants without a call and checks only where a value may
    /// leave its domain (SSLE's resets write five variables, three of them
    /// constants or its own index), then written.
    fn slot_writes(&self, targets: &[ir::Target], values: &[Value], writes: Vec<Write>) -> SFn {
        let mut sources = Vec::with_capacity(writes.len());
        for ((t, v), w) in targets.iter().zip(values).zip(writes) {
            let (slot, f, check) = match w {
                Write::Slot(slot, f, check) => (slot, f, check),
                Write::Bool(slot, f) => {
                    sources.push((slot, Source::Bool(f)));
                    continue;
                }
                _ => unreachable!("slot writes only"),
            };
            let within = self.within_domain(t, v);
            let source = match v {
                Value::Int(x) if within => const_eval(x, &self.params, self.n).map(Source::Const),
                _ => None,
            };
            let source = source.unwrap_or_else(|| match within {
                true => Source::Unchecked(f),
                false => Source::Checked(f, check),
            });
            sources.push((slot, source));
        }
        Box::new(move |e| {
            let mut values = [0i64; MOST_SLOT_WRITES];
            for ((_, source), value) in sources.iter().zip(&mut values) {
                *value = match source {
                    Source::Const(v) => *v,
                    Source::Unchecked(f) => f(e)?,
                    Source::Bool(f) => i64::from(f.holds(e)?),
                    Source::Checked(f, check) => {
                        let v = f(e)?;
                        check(e, v)?;
                        v
                    }
                };
            }
            for ((slot, _), value) in sources.iter().zip(values) {
                e.scratch[*slot].set(value);
            }
            Ok(())
        })
    }

    /// Where one target of an assignment writes, and the value it writes.
    fn write_of(&self, t: &ir::Target, val: &Value) -> Write {
        if let (Value::Bool(b), None) = (val, &t.index) {
            return Write::Bool(self.offsets[t.var], self.bexpr(b));
        }
        let check = self.domain_check(t.var, t.span);
        let f: IFn = match val {
            Value::Int(x) => self.iexpr(x),
            Value::Bool(b) => {
                let f = self.bexpr(b);
                Box::new(move |e| f.holds(e).map(i64::from))
            }
            Value::Array(p, src) => {
                return Write::Array(
                    self.offsets[t.var],
                    self.lens[t.var].min(self.lens[*src]),
                    self.proc(p),
                    self.offsets[*src],
                )
            }
        };
        let edge = self.prog.vars[t.var].kind == crate::check::ir::VarKind::Edge;
        match &t.index {
            None => Write::Slot(self.offsets[t.var], f, check),
            Some(i) if edge => Write::Edge(
                t.var,
                self.iexpr(i),
                self.my_nbr_slot(t.var, i, t.span),
                f,
                check,
                t.span,
            ),
            Some(i) if self.per_nbr[t.var] => {
                Write::At(self.my_nbr_slot(t.var, i, t.span), f, check)
            }
            Some(i) => match self.element(t.var, i, t.span) {
                Ok(slot) => Write::Slot(slot, f, check),
                Err(slot) => Write::At(slot, f, check),
            },
        }
    }

    pub(super) fn domain_check(&self, var: usize, span: Span) -> CheckFn {
        let name = self.prog.vars[var].name.clone();
        match self.domains[var].clone() {
            VarDomain::Bool | VarDomain::Enum(_) => Box::new(|_, _| Ok(())),
            VarDomain::Range(lo, hi) => Box::new(move |_, v| {
                if (lo..=hi).contains(&v) {
                    Ok(())
                } else {
                    fault(
                        span,
                        format!("`{name}` := {v} is outside its domain {lo}..{hi}"),
                        "the statement must keep every variable in its declared domain",
                    )
                }
            }),
            VarDomain::Node => Box::new(move |e, v| {
                if v >= 0 && (v as usize) < e.topo.n() && e.topo.is_self_or_nbr(e.me, v as usize) {
                    Ok(())
                } else {
                    fault(span, format!("`{name}` := {v}, which is neither process {} nor one of its neighbours", e.me), "a node variable may only name its own process or a neighbour")
                }
            }),
        }
    }
}
