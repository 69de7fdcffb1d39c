//! Instantiation: a checked program on one topology. Parameters, domains,
//! lengths and priorities become constants, each process gets its role,
//! what depends on the topology is checked (ring neighbours, a tree), and
//! guards, statements and predicates are compiled into closures.
//! [`instantiate`] is a short driver over these steps; every step reports
//! its problems, and all of them are returned together.

use super::*;
use crate::check::ir::VarKind;

/// A checked program being instantiated on a topology: what every step
/// reads, and the problems found so far.
struct Instantiation<'a> {
    prog: &'a ir::Program,
    topo: &'a Topology,
    n: Size,
    /// Parameter values, in declaration order.
    params: Vec<i64>,
    problems: Vec<Problem>,
}

/// Where each variable lives in a process's row, and what it may hold.
struct Layout {
    /// By variable: its domain.
    var_domains: Vec<VarDomain>,
    /// By variable: its number of slots, `None` for a scalar.
    lens: Vec<Option<usize>>,
    /// By variable: its first slot.
    offsets: Vec<usize>,
    /// By slot: the domain.
    domains: Vec<VarDomain>,
    /// By slot: what random configurations draw from.
    arbitrary: Vec<VarDomain>,
}

/// Channel capacity, random fill and message field domains.
struct ChannelSetup {
    capacity: Option<usize>,
    random_fill: (usize, usize),
    message_domains: Vec<Vec<VarDomain>>,
}

/// The compiled predicates over the whole configuration.
struct Predicates {
    legitimate: Option<BFn>,
    legit_parts: Vec<LegitPart>,
    legit_enabled_count: Option<(Cmp, i64)>,
    invariants: Vec<CInvariant>,
    reports: Vec<(String, GlobalFn)>,
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
        problems: Rc::new(RefCell::new(Vec::new())),
    };
    inst.constants_in_domains(&c, &layout);
    let role_of = inst.roles_of_processes(&c);
    inst.topology_checks();
    let (roles, orders) = inst.actions(&c);
    let has_effects =
        !prog.messages.is_empty() || prog.vars.iter().any(|v| v.kind == VarKind::Edge);
    // The column form, over the IR actions in the compiled (priority) order.
    let columns = if has_effects || !timers.is_empty() {
        None
    } else {
        let sorted: Vec<Vec<&ir::Action>> = prog
            .roles
            .iter()
            .zip(&orders)
            .map(|(role, order)| order.iter().map(|&k| &role.actions[k]).collect())
            .collect();
        columns::compile(&c, &sorted)
    };
    let predicates = predicates(&c);
    inst.problems.extend(c.problems.borrow_mut().drain(..));
    if !inst.problems.is_empty() {
        return Err(inst.problems);
    }
    let inits = initial_values(&c);
    let is_timer = |v: usize| prog.vars[v].kind == VarKind::Timer;
    Ok(Compiled {
        stride: layout.domains.len(),
        size: inst.n,
        regular_ring: topo.regular_ring.is_some(),
        has_effects,
        offsets: layout.offsets,
        lens: layout.lens,
        per_nbr,
        timers,
        capacity: channels.capacity,
        random_fill: channels.random_fill,
        message_domains: channels.message_domains,
        params: prog
            .params
            .iter()
            .map(|p| p.name.clone())
            .zip(inst.params)
            .collect(),
        roles,
        role_of,
        domains: layout.domains,
        arbitrary: layout.arbitrary,
        inits,
        legitimate: predicates.legitimate,
        legit_parts: predicates.legit_parts,
        legit_enabled_count: predicates.legit_enabled_count,
        legitimate_reads_timers: prog
            .legitimate
            .as_ref()
            .is_some_and(|(b, _)| ir::reads_var_b(b, &is_timer)),
        invariants: predicates.invariants,
        reports: predicates.reports,
        max_locals: prog.max_locals,
        columns,
    })
}

impl Layout {
    /// Timers: first slot, slots, the value they stop at.
    fn timers(&self, prog: &ir::Program) -> Vec<(usize, usize, i64)> {
        prog.vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.kind == VarKind::Timer)
            .filter_map(|(k, _)| match self.var_domains[k] {
                VarDomain::Range(_, hi) => Some((self.offsets[k], self.lens[k].unwrap_or(1), hi)),
                _ => None,
            })
            .collect()
    }
}

impl Instantiation<'_> {
    fn eval(&self, e: &IExpr) -> Option<i64> {
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

    /// A declared domain with its bounds computed: the one place that
    /// resolves one, for variables and message fields alike. `what` names
    /// the holder (`` `x` ``, `` field `f` of `m` ``).
    fn domain(&mut self, d: &Domain, what: &str, span: Option<Span>) -> VarDomain {
        let (lo, hi) = match d {
            Domain::Bool => return VarDomain::Bool,
            Domain::Node => return VarDomain::Node,
            Domain::Enum(e) => return VarDomain::Enum(self.prog.enums[*e].values.len()),
            Domain::Range(lo, hi) => (lo, hi),
        };
        let problem = match (self.eval(lo), self.eval(hi)) {
            (Some(lo), Some(hi)) if lo <= hi => return VarDomain::Range(lo, hi),
            (Some(lo), Some(hi)) => Problem::new(
                "guarded::instance::empty_domain",
                format!("the domain of {what} is empty: {lo}..{hi}"),
            )
            .help("a range `lo..hi` needs lo <= hi; check the parameters or the topology size")
            .label_opt(span, format!("{lo}..{hi} with n = {}", self.n.n)),
            _ => Problem::new(
                "guarded::instance::bad_domain",
                format!("the bounds of {what} cannot be computed"),
            )
            .help("check the parameters")
            .label_opt(span, "overflow or division by zero"),
        };
        self.problems.push(problem);
        VarDomain::Range(0, 0)
    }

    /// Every variable's domain, length and place in the row, and what
    /// random configurations draw each slot from.
    fn layout(&mut self) -> Layout {
        let prog = self.prog;
        // One slot per neighbour, for the process with the most neighbours.
        let degree = self.topo.max_degree().max(1);
        let mut l = Layout {
            var_domains: Vec::new(),
            lens: Vec::new(),
            offsets: Vec::new(),
            domains: Vec::new(),
            arbitrary: Vec::new(),
        };
        for v in &prog.vars {
            let what = format!("`{}`", v.name);
            let (len, d) = if v.per_nbr {
                (Some(degree), self.domain(&v.domain, &what, Some(v.span)))
            } else {
                let len = v.len.as_ref().map(|len| self.array_length(v, len));
                (len, self.domain(&v.domain, &what, Some(v.span)))
            };
            l.var_domains.push(d);
            l.lens.push(len);
        }
        // Then what random configurations draw from (reported after the domains).
        for ((d, len), v) in l.var_domains.iter().zip(&l.lens).zip(&prog.vars) {
            let from = self.random_range(v, d);
            l.offsets.push(l.domains.len());
            l.domains
                .extend(std::iter::repeat_n(d.clone(), len.unwrap_or(1)));
            l.arbitrary
                .extend(std::iter::repeat_n(from, len.unwrap_or(1)));
        }
        l
    }

    fn array_length(&mut self, v: &ir::Var, len: &IExpr) -> usize {
        match self.eval(len) {
            Some(k) if (1..=1 << 20).contains(&k) => k as usize,
            k => {
                self.problems.push(
                    Problem::new("guarded::instance::bad_length", format!("the length of array `{}` is {}", v.name, k.map_or("not computable".into(), |k| k.to_string())))
                        .label(v.span, "declared here")
                        .help("an array has 1 to 1048576 elements; check the parameters or the topology size"),
                );
                1
            }
        }
    }

    /// What random configurations draw `v` from: its domain `d`, or its
    /// declared `random lo..hi` within it.
    fn random_range(&mut self, v: &ir::Var, d: &VarDomain) -> VarDomain {
        let (Some((lo, hi)), VarDomain::Range(dlo, dhi)) = (&v.random, d) else {
            return d.clone();
        };
        match (self.eval(lo), self.eval(hi)) {
            (Some(lo), Some(hi)) if *dlo <= lo && lo <= hi && hi <= *dhi => {
                VarDomain::Range(lo, hi)
            }
            (lo, hi) => {
                let show = |x: Option<i64>| x.map_or("?".into(), |x| x.to_string());
                self.problems.push(
                    Problem::new("guarded::instance::random_range", format!("`random {}..{}` of `{}` is not a non-empty part of its domain {dlo}..{dhi}", show(lo), show(hi), v.name))
                        .label(v.span, "declared here")
                        .help("the range random configurations draw from must lie within the domain"),
                );
                d.clone()
            }
        }
    }

    /// The channel capacity, how many messages a random configuration
    /// puts in a channel, and each message type's field domains.
    fn channels(&mut self) -> ChannelSetup {
        let prog = self.prog;
        let capacity = prog
            .capacity
            .as_ref()
            .and_then(|(e, _, span)| match self.eval(e) {
                Some(c) if (1..=1 << 16).contains(&c) => Some(c as usize),
                c => {
                    self.problems.push(
                        Problem::new(
                            "guarded::instance::bad_capacity",
                            format!(
                                "the channel capacity is {}",
                                c.map_or("not computable".into(), |c| c.to_string())
                            ),
                        )
                        .label(*span, "declared here")
                        .help("a channel holds 1 to 65536 messages"),
                    );
                    None
                }
            });
        let random_fill = match (&prog.capacity, capacity) {
            (Some((_, Some((lo, hi)), span)), Some(cap)) => match (self.eval(lo), self.eval(hi)) {
                (Some(lo), Some(hi)) if 0 <= lo && lo <= hi && hi as usize <= cap => {
                    (lo as usize, hi as usize)
                }
                _ => {
                    self.problems.push(
                        Problem::new(
                            "guarded::instance::random_range",
                            "the random channel fill is not within 0..capacity",
                        )
                        .label(*span, "declared here")
                        .help("`channel capacity K random lo..hi` needs 0 <= lo <= hi <= K"),
                    );
                    (0, cap)
                }
            },
            (_, cap) => (0, cap.unwrap_or(0)),
        };
        let message_domains = prog
            .messages
            .iter()
            .map(|m| {
                m.fields
                    .iter()
                    .map(|(name, _, d)| {
                        self.domain(d, &format!("field `{name}` of `{}`", m.name), None)
                    })
                    .collect()
            })
            .collect();
        ChannelSetup {
            capacity,
            random_fill,
            message_domains,
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
        let selectors: Vec<Option<BFn>> = prog
            .roles
            .iter()
            .map(|r| r.selector.as_ref().map(|s| c.bexpr(s)))
            .collect();
        let locals = vec![Cell::new(0); prog.max_locals];
        let (no_chans, no_fx) = (Channels::default(), Effects::default());
        let mut role_of = vec![0u32; topo.n()];
        let mut offenders = 0;
        for (p, role) in role_of.iter_mut().enumerate() {
            let env = Env {
                state: &[],
                me: p,
                scratch: &[],
                topo,
                locals: &locals,
                enabled: &NoneEnabled,
                enabled_count: 0,
                chans: &no_chans,
                fx: &no_fx,
            };
            let mut matched = Vec::new();
            for (r, s) in selectors.iter().enumerate() {
                let yes = match s.as_ref().map(|f| f(&env)) {
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
    /// among equals), with, per role, the program-order index of each.
    fn actions(&mut self, c: &Compiler) -> (Vec<CRole>, Vec<Vec<usize>>) {
        let prog = self.prog;
        let is_timer = |v: usize| prog.vars[v].kind == VarKind::Timer;
        let (mut roles, mut orders) = (Vec::new(), Vec::new());
        for role in &prog.roles {
            let mut actions = Vec::new();
            for a in &role.actions {
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
                let (guard, body) = match (&a.receive, &a.binder) {
                    (Some(r), _) => c.receive_action(r, &a.guard, s.stmt(&a.body)),
                    (None, Some(b)) => c.bound_action(b, &a.guard, s.stmt(&a.body)),
                    (None, None) => (c.bexpr(&a.guard), s.stmt(&a.body)),
                };
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
                });
            }
            // Stable: program order decides among equal priorities.
            let mut order: Vec<usize> = (0..actions.len()).collect();
            order.sort_by_key(|&k| actions[k].priority);
            let mut slots: Vec<Option<CAction>> = actions.into_iter().map(Some).collect();
            let actions = order.iter().filter_map(|&k| slots[k].take()).collect();
            orders.push(order);
            roles.push(CRole { actions });
        }
        (roles, orders)
    }
}

/// The problem of process `p`, which matches the roles `matched` (none or several).
fn role_problem(prog: &ir::Program, topo: &Topology, p: usize, matched: &[usize]) -> Problem {
    let id = topo.ids[p];
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

/// The legitimacy predicate (whole, in incremental parts, and as a count
/// of enabled processes when it is one), the invariants and the reports.
fn predicates(c: &Compiler) -> Predicates {
    let prog = c.prog;
    let legit = prog.legitimate.as_ref().map(|(b, _)| b);
    Predicates {
        legitimate: legit.map(|b| c.bexpr(b)),
        legit_parts: legit.map(|b| c.legit_parts(b)).unwrap_or_default(),
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
                span: *span,
            })
            .collect(),
        reports: prog
            .reports
            .iter()
            .map(|(name, e)| (name.clone(), c.global(e)))
            .collect(),
    }
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
                    Box::new(move |e: &Env| f(e).map(i64::from)) as IFn
                }
                Value::Array(..) => unreachable!("the checker types initial values as scalars"),
            })
        })
        .collect()
}
