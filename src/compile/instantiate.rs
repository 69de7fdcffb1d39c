//! Instantiation: a checked program on one topology. Parameters, domains,
//! lengths and priorities become constants, each process gets its role,
//! what depends on the topology is checked (ring neighbours, a tree), and
//! guards, statements and predicates are compiled into closures.
//! [`instantiate()`] is a short driver over these steps; every step reports
//! its problems, and all of them are returned together.

use super::layout::Layout;
use super::*;
use crate::check::ir::VarKind;

/// A checked program being instantiated on a topology: what every step
/// reads, and the problems found so far.
pub(super) struct Instantiation<'a> {
    pub(super) prog: &'a ir::Program,
    pub(super) topo: &'a Topology,
    pub(super) n: Size,
    /// Parameter values, in declaration order.
    pub(super) params: Vec<i64>,
    pub(super) problems: Vec<Problem>,
}

/// Instantiates `prog` on `topo` with parameter overrides, checking what can
/// only be checked once sizes are known, and compiles it.
pub fn instantiate(
    prog: &ir::Program,
    topo: &Topology,
    overrides: &[(String, i64)],
) -> Result<Compiled, Vec<Problem>> {
    let mut inst = Instantiation {
        prog,
        topo,
        n: Size {
            n: topo.n() as i64,
            maxdeg: topo.max_degree() as i64,
        },
        params: Vec::new(),
        problems: Vec::new(),
    };
    inst.parameters(overrides);
    let layout = inst.layout();
    // The configuration, the start's values and the simulator's copies:
    // about five words a slot.
    let slots = topo.n() as u128 * layout.domains.len() as u128;
    if let Err(m) = crate::memory::check(slots * 40, &format!("the configuration ({slots} values)"))
    {
        return Err(vec![Problem::new("guarded::instance::memory", m)
            .help("fewer processes, or smaller arrays per process")]);
    }
    let channels = inst.channels();
    let timers = layout.timers(prog);
    let per_nbr: Vec<bool> = prog.vars.iter().map(|v| v.per_nbr).collect();
    let c = Compiler {
        prog,
        topo: Some(topo),
        params: inst.params.clone(),
        n: inst.n,
        stride: layout.domains.len(),
        in_stmt: false,
        domains: layout.var_domains.clone(),
        offsets: layout.offsets.clone(),
        lens: layout.lens.iter().map(|l| l.unwrap_or(1)).collect(),
        per_nbr: per_nbr.clone(),
        regular_ring: topo.regular_ring.is_some(),
        message_domains: channels.message_domains.clone(),
        problems: Rc::new(RefCell::new(Vec::new())),
        shared: Rc::from([]),
    };
    inst.constants_in_domains(&c, &layout);
    inst.topology_checks();
    // Selectors may read `left`, `right` or `tree_parent`: only evaluated
    // once the topology is known to have them.
    let role_of = if inst.problems.is_empty() {
        inst.roles_of_processes(&c)
    } else {
        vec![0; topo.n()]
    };
    let (roles, orders) = inst.actions(&c, &role_of);
    // Draws go through the effects too: a step that draws takes the
    // general path, which draws for its movers in one order.
    let has_effects = !prog.messages.is_empty()
        || prog.vars.iter().any(|v| v.kind == VarKind::Edge)
        || prog.draws;
    let columns = if has_effects || !timers.is_empty() {
        None
    } else {
        column_form(&c, prog, &orders)
    };
    let predicates = super::predicates::of_program(&c);
    inst.problems.extend(c.problems.borrow_mut().drain(..));
    if !inst.problems.is_empty() {
        return Err(inst.problems);
    }
    let inits = initial_values(&c);
    let fixed = fixed_values(prog, topo, &inits, &role_of);
    let is_timer = |v: usize| prog.vars[v].kind == VarKind::Timer;
    Ok(Compiled {
        stride: layout.domains.len(),
        size: inst.n,
        regular_ring: topo.regular_ring.is_some(),
        has_effects,
        has_random: prog.draws,
        has_binders: prog
            .roles
            .iter()
            .any(|r| r.actions.iter().any(|a| a.binder.is_some())),
        offsets: layout.offsets,
        lens: layout.lens,
        per_nbr,
        timers,
        capacity: channels.capacity,
        delay: channels.delay,
        random_fill: channels.random_fill,
        message_domains: channels.message_domains,
        params: prog
            .params
            .iter()
            .map(|p| p.name.clone())
            .zip(inst.params)
            .collect(),
        under_slot: (roles.iter()).find_map(|r| r.slot_readers.as_ref()?.under),
        roles,
        role_of: super::RoleMap::new(&role_of),
        domains: layout.domains,
        arbitrary: layout.arbitrary,
        inits,
        fixed,
        legitimate: predicates.legitimate,
        legit_parts: predicates.legit_parts,
        legit_by_process: predicates.legit_by_process,
        legit_enabled_count: predicates.legit_enabled_count,
        legitimate_reads_timers: prog
            .legitimate
            .as_ref()
            .is_some_and(|(b, _)| ir::reads_var_b(b, &is_timer)),
        legit_slots: predicates.legit_slots,
        invariants: predicates.invariants,
        properties: predicates.properties,
        reports: predicates.reports,
        max_locals: prog.max_locals,
        columns,
    })
}

/// The column form, over the IR actions in the compiled (priority) order.
fn column_form(
    c: &Compiler,
    prog: &ir::Program,
    orders: &[Vec<usize>],
) -> Option<columns::ColumnCode> {
    let sorted: Vec<Vec<&ir::Action>> = prog
        .roles
        .iter()
        .zip(orders)
        .map(|(role, order)| order.iter().map(|&k| &role.actions[k]).collect())
        .collect();
    columns::compile(c, &sorted)
}

impl Instantiation<'_> {
    pub(super) fn eval(&self, e: &IExpr) -> Option<i64> {
        const_eval(e, &self.params, self.n)
    }

    /// Parameter values: overrides (each must name a parameter), else the
    /// defaults, in declaration order (a default may use earlier ones).
    fn parameters(&mut self, overrides: &[(String, i64)]) {
        let prog = self.prog;
        for (name, _) in overrides {
            if !prog.params.iter().any(|p| &p.name == name) {
                let known: Vec<&str> = prog.params.iter().map(|p| p.name.as_str()).collect();
                let help = match crate::diagnostic::suggest(name, known.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None if known.is_empty() => "this program declares no parameters".into(),
                    None => format!("its parameters are {}", known.join(", ")),
                };
                self.problems.push(
                    Problem::new(
                        "guarded::instance::unknown_param",
                        format!("the program has no parameter `{name}`"),
                    )
                    .help(help),
                );
            }
        }
        for p in &prog.params {
            let v = match overrides.iter().rev().find(|(name, _)| *name == p.name) {
                Some((_, v)) => *v,
                None => self.eval(&p.default).unwrap_or_else(|| {
                    self.problems.push(
                        Problem::new(
                            "guarded::instance::param_overflow",
                            format!("the default of `{}` cannot be computed", p.name),
                        )
                        .label(p.span, "overflow or division by zero")
                        .help("give the parameter with --param NAME=VALUE"),
                    );
                    0
                }),
            };
            self.params.push(v);
        }
    }

    /// Constant values outside a domain, now that bounds are known:
    /// declared initial values and constants assigned in statements.
    fn constants_in_domains(&mut self, c: &Compiler, layout: &Layout) {
        for (k, v) in self.prog.vars.iter().enumerate() {
            if let (Some(Value::Int(e)), VarDomain::Range(lo, hi)) =
                (&v.init, &layout.var_domains[k])
            {
                match self.eval(e) {
                    Some(x) if !(lo..=hi).contains(&&x) => {
                        self.problems.push(out_of_domain(v, x, *lo, *hi, v.span));
                    }
                    _ => {}
                }
            }
        }
        for role in &self.prog.roles {
            for a in &role.actions {
                c.constant_assignments(&a.body, &mut self.problems);
            }
        }
    }

    /// Which role each process runs: the one whose selector it matches
    /// (exactly one; at most three offenders are reported).
    fn roles_of_processes(&mut self, c: &Compiler) -> Vec<u32> {
        let (prog, topo) = (self.prog, self.topo);
        // The runtime keeps roles and actions in 16 bits.
        if prog.roles.len() > usize::from(u16::MAX)
            || prog
                .roles
                .iter()
                .any(|r| r.actions.len() >= usize::from(u16::MAX))
        {
            self.problems.push(
                Problem::new(
                    "guarded::instance::too_many_roles",
                    "too many roles or actions",
                )
                .help("a program has at most 65535 `process` blocks of at most 65534 actions each"),
            );
        }
        // Message types too travel in 16 bits.
        if prog.messages.len() > usize::from(u16::MAX) {
            self.problems.push(
                Problem::new(
                    "guarded::instance::too_many_messages",
                    "too many message types",
                )
                .help("a program has at most 65535 `message` declarations"),
            );
        }
        let selectors: Vec<Option<BFn>> = prog
            .roles
            .iter()
            .map(|r| r.selector.as_ref().map(|s| c.bexpr(s)))
            .collect();
        let locals = vec![Cell::new(0); prog.max_locals];
        let (no_chans, no_fx) = (Channels::default(), Effects::default());
        let mut role_of = vec![0u32; topo.n()];
        let mut offenders = 0;
        // One list for every process: not an allocation per process.
        let mut matched = Vec::new();
        for (p, role) in role_of.iter_mut().enumerate() {
            let env = Env::new(&[], topo, &locals, &no_chans, &no_fx, p);
            matched.clear();
            for (r, s) in selectors.iter().enumerate() {
                let yes = match s.as_ref().map(|f| f.holds(&env)) {
                    None | Some(Ok(true)) => true,
                    Some(Ok(false)) => false,
                    Some(Err(fault)) => {
                        self.problems.push(
                            Problem::new(
                                "guarded::instance::selector_fault",
                                format!("role selector failed for process {p}: {}", fault.message),
                            )
                            .label(fault.span, "here")
                            .help(fault.help.clone()),
                        );
                        false
                    }
                };
                if yes {
                    matched.push(r);
                }
            }
            if let [only] = matched[..] {
                *role = only as u32;
                continue;
            }
            offenders += 1;
            if offenders <= 3 {
                self.problems.push(role_problem(prog, topo, p, &matched));
            }
        }
        role_of
    }

    /// What the program reads that this topology lacks: ring neighbours
    /// (on a chain the ends lack one, which a guard can test with
    /// `exists(q in nbrs : ...)`, so a read there is a runtime error
    /// naming the process instead), or a tree parent.
    fn topology_checks(&mut self) {
        let topo = self.topo;
        // Channels run along the edges a process reads; on a directed
        // topology the receiver of a message would not read its sender.
        if let (false, Some(capacity)) = (topo.is_undirected(), &self.prog.capacity) {
            self.problems.push(
                Problem::new(
                    "guarded::instance::directed_messages",
                    format!("messages on the directed topology `{}`", topo.name),
                )
                .label(capacity.2, "channels declared here")
                .help("a process sends to a neighbour it reads, which does not read it back, so the receiver could read a process it cannot see; pass messages on undirected topologies (ring, chain, tree, grid, graphs), or use shared variables on a unidirectional ring"),
            );
        }
        let has_tree = topo.parent.iter().any(|&p| p != NONE);
        for role in &self.prog.roles {
            for (span, has, word) in [
                (role.reads_left, topo.has_left, "left"),
                (role.reads_right, topo.has_right, "right"),
            ] {
                let Some(span) = span else { continue };
                if !has {
                    self.problems.push(
                        Problem::new("guarded::instance::no_ring_neighbour", format!("topology `{}` has no `{word}` neighbours", topo.name))
                            .label(span, format!("`{word}` is read here"))
                            .help("`left` and `right` exist on ring and chain topologies (a `uring` has only `left`); on other graphs quantify over `nbrs`"),
                    );
                }
            }
        }
        for role in &self.prog.roles {
            if let (Some(span), false) = (role.reads_tree, has_tree) {
                self.problems.push(
                    Problem::new(
                        "guarded::instance::no_tree",
                        format!("topology `{}` has no tree parent", topo.name),
                    )
                    .label(span, "`tree_parent` is read here")
                    .help("run it on a rooted tree: --topology tree:N"),
                );
            }
        }
    }

    /// Each role's actions compiled and sorted by priority (program order
    /// among equals), with, per role, the program-order index of each;
    /// `role_of` gives each process's role.
    fn actions(&mut self, c: &Compiler, role_of: &[u32]) -> (Vec<CRole>, Vec<Vec<usize>>) {
        let prog = self.prog;
        let is_timer = |v: usize| prog.vars[v].kind == VarKind::Timer;
        let (mut roles, mut orders) = (Vec::new(), Vec::new());
        for (r, role) in prog.roles.iter().enumerate() {
            let mut actions = Vec::new();
            for original in &role.actions {
                // Compiled and analysed narrowed: the same values, fewer
                // reads at others.
                let a = &narrow::narrowed_action(original);
                let priority = match &a.priority {
                    None => 0,
                    Some((e, span)) => self.eval(e).unwrap_or_else(|| {
                        self.problems.push(
                            Problem::new(
                                "guarded::instance::bad_priority",
                                format!("the priority of `{}` cannot be computed", a.label),
                            )
                            .label(*span, "overflow or division by zero")
                            .help("a priority is a constant integer"),
                        );
                        0
                    }),
                };
                let s = Compiler {
                    in_stmt: true,
                    ..c.clone()
                };
                let (guard, body, binder) = match (&a.receive, &a.binder) {
                    (Some(r), _) => {
                        let (guard, body) = c.receive_action(r, &a.guard, s.action_stmt(&a.body));
                        (guard, body, None)
                    }
                    (None, Some(b)) => {
                        let (guard, body, binder) =
                            c.bound_action(b, &a.guard, s.action_stmt(&a.body));
                        (guard, body, Some(binder))
                    }
                    (None, None) => (c.bexpr(&a.guard), s.action_stmt(&a.body), None),
                };
                let plain = a.receive.is_none() && a.binder.is_none();
                let inline_guard = c.inline_guard(&a.guard).filter(|_| plain);
                let inline_assign = c.inline_assign(&a.body).filter(|_| plain);
                let reads_timers = ir::reads_var_b(&a.guard, &is_timer)
                    || a.binder.as_ref().is_some_and(|b| {
                        b.filter
                            .as_ref()
                            .is_some_and(|f| ir::reads_var_b(f, &is_timer))
                    });
                actions.push(CAction {
                    label: a.label.clone(),
                    priority,
                    guard,
                    body,
                    span: a.span,
                    reads_timers,
                    guard_reads: c.guard_reads(a),
                    writes: c.slots_written(a),
                    receive_from: a.receive.as_ref().map(|r| r.1),
                    binder,
                    draws: ir::draws(a),
                    // Decided once the role's actions are all known.
                    disables_mover: ir::disables_itself(a, &|v| prog.vars[v].kind),
                    // Set once every role is compiled.
                    place: 0,
                    inline_guard,
                    inline_assign,
                });
            }
            // Stable: program order decides among equal priorities.
            let mut order: Vec<usize> = (0..actions.len()).collect();
            order.sort_by_key(|&k| actions[k].priority);
            // A role no process takes chooses nothing.
            let taken = role_of.iter().any(|&o| o as usize == r);
            let overlaps = if taken {
                overlaps(role, &actions)
            } else {
                Vec::new()
            };
            let may_choose = taken && (!overlaps.is_empty() || self.may_choose(role, role_of, r));
            // In the compiled (priority) order.
            let at = |k: usize| order.iter().position(|&o| o == k).expect("a permutation") as u32;
            let overlaps = overlaps.iter().map(|&(i, j)| (at(i), at(j))).collect();
            let mut slots: Vec<Option<CAction>> = actions.into_iter().map(Some).collect();
            let mut actions: Vec<_> = order.iter().filter_map(|&k| slots[k].take()).collect();
            orders.push(order);
            if actions.len() > 1 {
                actions.iter_mut().for_each(|a| a.disables_mover = false);
            }
            roles.push(CRole {
                // Decided below, with every role's writes.
                leaves_guards_alone: false,
                slot_readers: None,
                actions,
                may_choose,
                overlaps,
            });
        }
        c.finish_roles(&mut roles);
        (roles, orders)
    }

    /// Whether a process of `role` (number `r`) may choose for a reason
    /// other than two actions enabled together: a binder with more than
    /// one possible member.
    fn may_choose(&self, role: &ir::Role, role_of: &[u32], r: usize) -> bool {
        let topo = self.topo;
        let mine = || (0..topo.n()).filter(|&p| role_of[p] as usize == r);
        let several_members = |b: &ir::Binder| match &b.coll {
            Coll::NbrsOf(Proc::Me) => mine().any(|p| topo.nbr_count(p) >= 2),
            Coll::Procs => topo.n() >= 2,
            Coll::Range(lo, hi, _) => match (self.eval(lo), self.eval(hi)) {
                (Some(lo), Some(hi)) => hi > lo,
                _ => true,
            },
            Coll::NbrsOf(_) => true,
        };
        role.actions
            .iter()
            .any(|a| a.binder.as_ref().is_some_and(several_members))
    }
}

/// The pairs of `role`'s actions (`compiled` in program order) of one
/// priority whose guards are not proved exclusive, so that both may be
/// enabled at once; receives of one priority aside (the oldest message
/// decides among them).
fn overlaps(role: &ir::Role, compiled: &[CAction]) -> Vec<(usize, usize)> {
    // The local slots an action's head binds: each guard binds its own.
    let bound = |a: &ir::Action| -> Vec<usize> {
        let binder = a.binder.iter().map(|b| b.slot);
        let received = a
            .receive
            .iter()
            .flat_map(|(_, from, fields)| std::iter::once(*from).chain(fields.iter().copied()));
        binder.chain(received).collect()
    };
    let ir = &role.actions;
    let mut out = Vec::new();
    for i in 0..ir.len() {
        for j in i + 1..ir.len() {
            let (a, b) = (&ir[i], &ir[j]);
            if compiled[i].priority != compiled[j].priority
                || (a.receive.is_some() && b.receive.is_some())
            {
                continue;
            }
            let free: Vec<usize> = bound(a).into_iter().chain(bound(b)).collect();
            if !ir::exclusive(&a.guard, &b.guard, &free) {
                out.push((i, j));
            }
        }
    }
    out
}

/// The problem of process `p`, which matches the roles `matched` (none or several).
fn role_problem(prog: &ir::Program, topo: &Topology, p: usize, matched: &[usize]) -> Problem {
    let id = topo.id(p);
    let mut pr = if matched.is_empty() {
        Problem::new("guarded::instance::no_role", format!("process {p} (id {id}) matches no role"))
            .help("every process must match exactly one `process where ...` block; add a role or widen a selector")
    } else {
        Problem::new("guarded::instance::two_roles", format!("process {p} (id {id}) matches {} roles", matched.len()))
            .help("every process must match exactly one `process where ...` block; make the selectors exclusive")
    };
    for r in matched {
        pr = pr.label(
            prog.roles[*r].head,
            format!("process {p} matches this role"),
        );
    }
    if matched.is_empty() {
        for r in &prog.roles {
            pr = pr.label(r.head, format!("process {p} does not match"));
        }
    }
    pr
}

/// Declared initial values, as closures evaluated with `me` set and no state.
fn initial_values(c: &Compiler) -> Vec<Option<IFn>> {
    c.prog
        .vars
        .iter()
        .map(|v| {
            v.init.as_ref().map(|init| match init {
                Value::Int(e) => c.iexpr(e),
                Value::Bool(b) => {
                    let f = c.bexpr(b);
                    Box::new(move |e: &Env| f.holds(e).map(i64::from)) as IFn
                }
                Value::Array(..) => unreachable!("the checker types initial values as scalars"),
            })
        })
        .collect()
}

/// For each variable declared in a role: at every process of the other
/// roles, the declared value it keeps (`None` where the role owns it).
fn fixed_values(
    prog: &ir::Program,
    topo: &Topology,
    inits: &[Option<IFn>],
    role_of: &[u32],
) -> Vec<Option<Vec<Option<i64>>>> {
    let locals = vec![Cell::new(0); prog.max_locals];
    let (no_chans, no_fx) = (Channels::default(), Effects::default());
    prog.vars
        .iter()
        .enumerate()
        .map(|(v, var)| {
            let owner = var.role?;
            let init = inits[v].as_ref()?;
            Some(
                (0..topo.n())
                    .map(|p| {
                        if role_of[p] as usize == owner {
                            return None;
                        }
                        let env = Env::new(&[], topo, &locals, &no_chans, &no_fx, p);
                        init(&env).ok()
                    })
                    .collect(),
            )
        })
        .collect()
}
