//! Promela out: an instance as a model for SPIN. One process, the daemon,
//! loops over atomic steps: under the central daemon one `d_step` branch
//! per process, action and binder member; under the synchronous daemon,
//! where each process has one move, one `d_step` that moves every enabled
//! process from a copy of the configuration; otherwise (the distributed
//! and locally central daemons, and the synchronous one where processes
//! choose) one `atomic` branch in which SPIN picks the movers and their
//! moves, then moves them so (see [`daemons`]). A process makes any of its
//! moves, as `verify` explores them (or, asked, its first enabled action
//! alone, as `guarded run` takes it).
//! The legitimacy predicate becomes the LTL property `<>[] legitimate`,
//! invariants assertions checked after the start and after every step,
//! and values leaving their domains failed assertions. The start is the
//! given configuration, or (`--from all`) any configuration, chosen
//! nondeterministically over the domains.
//!
//! Messages are kept in fixed arrays, each with its age (see [`messages`]),
//! from a given start; the synchronous step takes every mover's message
//! before any statement sends.
//!
//! `argmin`-like choices are unrolled over their members (see [`best`]).
//! Under the synchronous daemon an edge variable is read from the copy,
//! or as the mover wrote it in the step, and each write marks its edge
//! with its writer, so that two ends writing one edge fail an assertion.
//!
//! A random draw is a choice of any value it can take, made just before
//! the statement that draws (see [`draws`]).
//!
//! What the translation cannot say is refused with the reason: timers,
//! messages from every configuration, a choice among a filtered range of
//! integers, reads it cannot resolve on the instance (say a
//! per-neighbour value indexed by a node variable), and a draw from a set
//! that may be empty where the statement may not make it.

mod best;
mod cycles;
mod daemons;
mod draws;
mod expr;
mod messages;
mod stmt;

use crate::check::ir::{self, VarKind};
use crate::compile::{Compiled, VarDomain};
use crate::span::Span;
use crate::state::Config;
use crate::topology::Topology;
use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Write;
use stmt::indent;

/// The most simple cycles `acyclic` is unrolled over.
const MAX_CYCLES: usize = 10_000;

/// Which daemon the model's loop follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromelaDaemon {
    /// One enabled process moves per step.
    Central,
    /// Every enabled process moves in every step.
    Synchronous,
    /// Any non-empty set of enabled processes moves.
    Distributed,
    /// Any non-empty set of enabled processes, no two neighbours, moves.
    LocallyCentral,
}

/// Where the model starts.
pub enum Start {
    /// Any configuration the domains allow.
    All,
    /// Any configuration within the declared `random` ranges (the domains
    /// elsewhere): the arbitrary starts.
    Arbitrary,
    /// This configuration.
    At(Config),
}

/// What the translation cannot express, and where in the program.
#[derive(Debug)]
pub struct Untranslatable {
    /// What it is.
    pub message: String,
    /// Where, when known.
    pub span: Option<Span>,
    /// What to do instead, when something more than the usual applies.
    pub help: Option<&'static str>,
}

impl Untranslatable {
    pub(super) fn new(message: impl Into<String>, span: Option<Span>) -> Self {
        Untranslatable {
            message: message.into(),
            span,
            help: None,
        }
    }
}

/// A bound variable's value: known, or a Promela expression.
#[derive(Clone, Debug)]
pub(super) enum Val {
    Const(i64),
    Dyn(String),
}

/// The translator's state at one place of the program.
#[derive(Clone)]
pub(super) struct Tr<'a> {
    prog: &'a ir::Program,
    code: &'a Compiled,
    topo: &'a Topology,
    /// The process whose action is being translated.
    me: usize,
    /// Bound variables (quantifiers, `for`, `let`).
    locals: Vec<Option<Val>>,
    /// Synchronous daemon: other processes (and every read in a guard)
    /// are read from the copy taken before the step.
    reading_old: bool,
    in_guard: bool,
    max_degree: usize,
    /// Each edge's index, by its ends (smaller first).
    edge_ids: &'a HashMap<(usize, usize), usize>,
    /// How many temporaries the assignments need.
    temporaries: &'a Cell<usize>,
    /// Whether a process makes any of its moves, not only its first.
    every_choice: bool,
    /// Where the channels' contents are, when the program passes messages.
    channels: Option<&'a messages::Layout>,
    /// The draws' choices (see [`draws`]).
    draws: &'a draws::Draws,
    /// Whether what is translated may go unevaluated where it stands (a
    /// draw there must not fail on an empty set).
    conditional: bool,
    /// Whether the move translated is an `atomic` sequence, which draws
    /// (see [`draws`]).
    atomic_move: bool,
}

impl Tr<'_> {
    /// The index of the edge between `owner` and its `k`-th neighbour.
    fn edge_of(&self, owner: usize, k: usize) -> usize {
        let q = self.topo.nbrs(owner)[k] as usize;
        self.edge_ids[&(owner.min(q), owner.max(q))]
    }
}

/// The Promela type holding a domain's values.
fn promela_type(d: &VarDomain, n: usize) -> Result<&'static str, Untranslatable> {
    let fits = |lo: i64, hi: i64| -> Result<&'static str, Untranslatable> {
        Ok(if lo >= 0 && hi <= 255 {
            "byte"
        } else if lo >= -32768 && hi <= 32767 {
            "short"
        } else if lo >= i64::from(i32::MIN) && hi <= i64::from(i32::MAX) {
            "int"
        } else {
            return Err(Untranslatable::new(
                format!("a domain {lo}..{hi} beyond Promela's 32-bit integers"),
                None,
            ));
        })
    };
    match *d {
        VarDomain::Bool => Ok("bool"),
        VarDomain::Range(lo, hi) => fits(lo, hi),
        VarDomain::Enum(_) => Ok("byte"),
        VarDomain::Node => fits(0, n as i64),
    }
}

/// The Promela model of an instance: its processes make any of their
/// moves with `every_choice`, else their first enabled action alone.
pub fn model(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    (daemon, every_choice): (PromelaDaemon, bool),
    start: &Start,
    caption: &str,
) -> Result<String, Untranslatable> {
    refuse_what_cannot_be_said(prog)?;
    let n = topo.n();
    let mut edges = Vec::new();
    let mut edge_ids = HashMap::new();
    for p in 0..n {
        for &q in topo.nbrs(p) {
            let key = (p.min(q as usize), p.max(q as usize));
            if let std::collections::hash_map::Entry::Vacant(e) = edge_ids.entry(key) {
                e.insert(edges.len());
                edges.push(key);
            }
        }
    }
    let temporaries = Cell::new(0);
    let draws = draws::Draws::default();
    let base = Tr {
        prog,
        code,
        topo,
        me: 0,
        locals: vec![None; prog.max_locals],
        reading_old: false,
        in_guard: false,
        max_degree: topo.max_degree().max(1),
        edge_ids: &edge_ids,
        temporaries: &temporaries,
        every_choice,
        channels: None,
        draws: &draws,
        conditional: false,
        atomic_move: false,
    };
    let layout = messages::Layout::of(&base)?;
    let base = Tr {
        channels: layout.as_ref(),
        ..base
    };
    let loop_body = match daemon {
        PromelaDaemon::Central => central_steps(&base)?,
        // One deterministic `d_step` where each process has one move.
        PromelaDaemon::Synchronous if !(every_choice && code.may_choose()) => {
            synchronous_step(&base)?
        }
        _ => daemons::several_movers(&base, daemon)?,
    };
    let predicates = predicates(&base)?;
    let mut out = String::new();
    let _ = writeln!(out, "/* {}", comment_text(caption));
    let _ = writeln!(
        out,
        "   Written by `guarded export promela`. Check it with SPIN:"
    );
    if prog.legitimate.is_some() {
        let _ = writeln!(out, "     spin -a FILE && gcc -O2 -o pan pan.c && ./pan -a      (convergence: <>[] legitimate)");
    }
    let _ = writeln!(
        out,
        "     spin -a FILE && gcc -O2 -DSAFETY -DNOCLAIM -o pan pan.c && ./pan   (invariants, domains{})",
        if prog.legitimate.is_some() {
            ""
        } else {
            ", deadlock"
        }
    );
    let _ = writeln!(out, "*/\n");
    out.push_str(expr::ARITH_MACROS);
    out.push('\n');
    declarations(&base, &edges, daemon, &mut out)?;
    for k in 0..temporaries.get() {
        let _ = writeln!(out, "hidden int t{k};");
    }
    out.push_str(&draws.declarations());
    out.push('\n');
    out.push_str(&predicates);
    let start = start_block(&base, &edges, start)?;
    let _ = writeln!(out, "\nactive proctype daemon() {{");
    let _ = writeln!(out, "{}", indent(&start));
    // With `legitimate:`, a configuration where no process is enabled is
    // judged by the property (a run that stops there must be legitimate);
    // without it, SPIN reports it as an invalid end state: a deadlock.
    let end = if prog.legitimate.is_some() {
        "end: "
    } else {
        ""
    };
    let _ = writeln!(out, "    {end}do");
    out.push_str(&loop_body);
    let _ = writeln!(out, "    od\n}}");
    Ok(out)
}

/// Timers (which advance with rounds the model does not keep).
fn refuse_what_cannot_be_said(prog: &ir::Program) -> Result<(), Untranslatable> {
    if let Some(v) = prog.vars.iter().find(|v| v.kind == VarKind::Timer) {
        return Err(Untranslatable::new(
            format!("the timer `{}`", v.name),
            Some(v.span),
        ));
    }
    Ok(())
}

/// The variables' arrays (and, for the synchronous daemon, their hidden copies).
fn declarations(
    t: &Tr,
    edges: &[(usize, usize)],
    daemon: PromelaDaemon,
    out: &mut String,
) -> Result<(), Untranslatable> {
    let n = t.topo.n();
    for (k, v) in t.prog.vars.iter().enumerate() {
        let ty = promela_type(&t.code.domains[t.code.offsets[k]], n).map_err(|mut e| {
            e.span = Some(v.span);
            e
        })?;
        let (prefix, size, what) = if v.kind == VarKind::Edge {
            ("e_", edges.len().max(1), "one per edge")
        } else if t.code.per_nbr[k] {
            (
                "v_",
                n * t.max_degree,
                "per process, one per neighbour position",
            )
        } else {
            ("v_", n * t.code.lens[k].unwrap_or(1), "per process")
        };
        let _ = writeln!(out, "{ty} {prefix}{}[{size}];  /* {what} */", v.name);
        if daemon != PromelaDaemon::Central {
            // SPIN hides no bits: a boolean's copy is a byte.
            let copy = if ty == "bool" { "byte" } else { ty };
            if v.kind == VarKind::Edge {
                // And which end wrote each edge in the step (1 + its number).
                let _ = writeln!(out, "hidden {copy} o_e_{}[{size}];", v.name);
                let _ = writeln!(out, "hidden byte w_e_{}[{size}];", v.name);
            } else {
                let _ = writeln!(out, "hidden {copy} o_{}[{size}];", v.name);
            }
        }
    }
    for e in &t.prog.enums {
        let values: Vec<String> = e
            .values
            .iter()
            .enumerate()
            .map(|(k, v)| format!("{v} = {k}"))
            .collect();
        let _ = writeln!(out, "/* enum {}: {} */", e.name, values.join(", "));
    }
    if let Some(channels) = t.channels {
        channels.declare(out, daemon != PromelaDaemon::Central);
    }
    if daemon != PromelaDaemon::Central {
        daemons::declare(n, out);
    }
    Ok(())
}

/// `text` (a path, a topology spec: anything the user wrote) as it may
/// stand inside a `/* */` comment: no `*/` to end it early, no line break
/// or other control character (SPIN's preprocessor and C compiler read the
/// model, so text that escaped the comment would run as code).
fn comment_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '/' if out.ends_with('*') => out.push_str("\\/"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// `#define`s of the legitimacy predicate and the invariants, and the LTL property.
fn predicates(t: &Tr) -> Result<String, Untranslatable> {
    let mut out = String::new();
    for (k, (name, pred, _)) in t.prog.invariants.iter().enumerate() {
        let _ = writeln!(
            out,
            "/* invariant {name} */\n#define invariant_{k} {}",
            t.bexpr(pred)?
        );
    }
    if let Some((pred, _)) = &t.prog.legitimate {
        // LTL reads `->` as implication, so the property reads a variable
        // set after every step (a function of the configuration: it adds
        // no states).
        let _ = writeln!(out, "#define legitimate {}", t.bexpr(pred)?);
        let _ = writeln!(out, "bool legit;");
        let _ = writeln!(out, "ltl converges {{ <> [] legit }}");
    }
    Ok(out)
}

/// What follows the start and every step: every invariant asserted, and
/// the legitimacy the property reads updated.
fn invariant_checks(t: &Tr) -> String {
    let mut out: String = (0..t.prog.invariants.len())
        .map(|k| format!(";\nassert(invariant_{k})"))
        .collect();
    if t.prog.legitimate.is_some() {
        out.push_str(";\nlegit = legitimate");
    }
    out
}

/// One loop branch per process and action.
fn central_steps(base: &Tr) -> Result<String, Untranslatable> {
    let mut out = String::new();
    let checks = invariant_checks(base);
    for p in 0..base.topo.n() {
        let t = Tr {
            me: p,
            in_guard: true,
            ..base.clone()
        };
        for m in t.moves()? {
            let _ = writeln!(out, "    /* process {p}: {} */", m.label);
            let body = indent(&indent(&format!("{}{checks}", m.body)));
            let sequence = if m.draws { "atomic" } else { "d_step" };
            let _ = writeln!(
                out,
                "    :: {sequence} {{ {} ->\n{body}\n       }}",
                m.fires
            );
        }
    }
    Ok(out)
}

/// Process `p`'s translators in a step of several movers: reading the
/// configuration as it is (its guards before anything moves) and reading
/// the copy from before the step (what its move does).
fn now_and_old<'a>(base: &Tr<'a>, p: usize) -> (Tr<'a>, Tr<'a>) {
    let now = Tr {
        me: p,
        in_guard: true,
        ..base.clone()
    };
    let old = Tr {
        reading_old: true,
        ..now.clone()
    };
    (now, old)
}

/// The one branch of the synchronous daemon: copy, then every enabled
/// process moves, reading the others (and its guards) from the copy.
fn synchronous_step(base: &Tr) -> Result<String, Untranslatable> {
    let base = &base.drawing_steps();
    let n = base.topo.n();
    let mut any = Vec::new();
    let mut takes = Vec::new();
    let mut moves = Vec::new();
    for p in 0..n {
        let (now, old) = now_and_old(base, p);
        any.push(now.enabled(p)?);
        let own = old.moves()?;
        if let Some(take) = base.channels.and_then(|c| c.take_for(&own)) {
            takes.push(format!("/* process {p} takes */\n{take}"));
        }
        let branches: Vec<String> = own
            .into_iter()
            .map(|m| format!(":: {} ->  /* {} */\n{}", m.fires, m.label, indent(&m.body)))
            .collect();
        if !branches.is_empty() {
            moves.push(format!(
                "/* process {p} */\nif\n{}\n:: else -> skip\nfi",
                branches.join("\n")
            ));
        }
    }
    let copy = copies(base);
    // Every head taken before any statement sends.
    let body = if base.atomic_move {
        format!(
            "{}{}",
            base.prepared_moves(copy, takes, moves),
            invariant_checks(base)
        )
    } else {
        let steps: Vec<String> = takes.into_iter().chain(moves).collect();
        format!(
            "{};\n{}{}",
            copy.join("; "),
            steps.join(";\n"),
            invariant_checks(base)
        )
    };
    Ok(format!(
        "    :: {} {{ {} ->\n{}\n       }}\n",
        if base.atomic_move { "atomic" } else { "d_step" },
        expr::disjunction(any),
        indent(&indent(&body))
    ))
}

/// The statements that copy the configuration, which a step of several
/// movers reads (and clear the edges' writers).
fn copies(base: &Tr) -> Vec<String> {
    let n = base.topo.n();
    let mut copy = Vec::new();
    for (k, v) in base.prog.vars.iter().enumerate() {
        if v.kind == VarKind::Edge {
            let name = &v.name;
            for e in 0..base.edge_ids.len() {
                copy.push(format!(
                    "o_e_{name}[{e}] = e_{name}[{e}]; w_e_{name}[{e}] = 0"
                ));
            }
            continue;
        }
        let size = if base.code.per_nbr[k] {
            n * base.max_degree
        } else {
            n * base.code.lens[k].unwrap_or(1)
        };
        copy.extend((0..size).map(|i| format!("o_{0}[{i}] = v_{0}[{i}]", v.name)));
    }
    if let Some(channels) = base.channels {
        copy.extend(channels.copy());
    }
    copy
}

/// The start: the given configuration (and its invariants checked), or a
/// nondeterministic choice of every value over its domain.
fn start_block(t: &Tr, edges: &[(usize, usize)], start: &Start) -> Result<String, Untranslatable> {
    let (prog, code, topo) = (t.prog, t.code, t.topo);
    let stride = code.stride;
    let mut out = Vec::new();
    for (k, v) in prog.vars.iter().enumerate() {
        let base = code.offsets[k];
        let places: Vec<(String, usize, usize)> = if v.kind == VarKind::Edge {
            edges
                .iter()
                .enumerate()
                .map(|(e, &(p, q))| {
                    let j = topo
                        .nbr_pos(p, q)
                        .or_else(|| topo.nbr_pos(q, p))
                        .unwrap_or(0);
                    let owner = if topo.nbr_pos(p, q).is_some() { p } else { q };
                    (format!("e_{}[{e}]", v.name), owner, base + j)
                })
                .collect()
        } else if code.per_nbr[k] {
            (0..topo.n())
                .flat_map(|p| {
                    (0..topo.nbrs(p).len()).map(move |j| {
                        (
                            format!("v_{}[{}]", v.name, p * t.max_degree + j),
                            p,
                            base + j,
                        )
                    })
                })
                .collect()
        } else {
            let len = code.lens[k].unwrap_or(1);
            (0..topo.n())
                .flat_map(|p| {
                    (0..len).map(move |i| (format!("v_{}[{}]", v.name, p * len + i), p, base + i))
                })
                .collect()
        };
        for (place, p, slot) in places {
            match start {
                Start::At(c) => out.push(format!("{place} = {}", c.rows[p * stride + slot])),
                Start::All | Start::Arbitrary => {
                    let from = match start {
                        Start::Arbitrary => &code.arbitrary,
                        _ => &code.domains,
                    };
                    // A variable of another role keeps its declared value.
                    let values = match code.fixed_at(k, p) {
                        Some(x) => vec![x],
                        None => from[slot].values(p, topo),
                    };
                    let choices: Vec<String> =
                        values.iter().map(|x| format!(":: {place} = {x}")).collect();
                    out.push(format!("if\n{}\nfi", choices.join("\n")));
                }
            }
        }
    }
    match (t.channels, start) {
        (Some(channels), Start::At(c)) => out.extend(channels.start(&c.chans)?),
        (Some(_), _) => {
            let which = match start {
                Start::Arbitrary => "the arbitrary starts of a program that passes messages (every channel content `--init random` can draw; `guarded verify --from random` explores them)",
                _ => "every configuration of a program that passes messages (every content of its channels)",
            };
            return Err(Untranslatable {
                message: which.into(),
                span: prog.capacity.as_ref().map(|c| c.2),
                help: Some(
                    "start from the declared values (`--from declared`) or a configuration file",
                ),
            });
        }
        (None, _) => {}
    }
    let checks = invariant_checks(t);
    Ok(match start {
        Start::At(_) => format!("d_step {{\n{}{checks}\n}};", indent(&out.join(";\n"))),
        Start::All | Start::Arbitrary => {
            format!("atomic {{\n{}{checks}\n}};", indent(&out.join(";\n")))
        }
    })
}
