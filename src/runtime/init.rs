//! Initial configurations: declared values, uniformly random values over
//! every domain, and assignment files. One format serves files, `--set`
//! overrides and saved configurations: one `PROCESS.VAR = VALUE` a line,
//! `PROCESS` a process index or `*` for all, `#` starting a comment. An
//! array is written whole, `3.F = [0, 2, 1]`, or by element, `3.F[1] = 2`.

use crate::check::ir::{self, Ty};
use crate::compile::{Compiled, Env, VarDomain};
use crate::diagnostic::Problem;
use crate::span::Span;
use crate::state::channels::{Channels, MAX_FIELDS};
use crate::topology::Topology;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::Cell;
use std::collections::VecDeque;

/// Where the initial configuration comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitMode {
    /// The declared initial values (and DOT node attributes).
    Declared,
    /// Uniformly random over every domain (or declared `random` range): the
    /// arbitrary start.
    Random,
    /// Declared values overridden by an assignment file (its name and text).
    File(String, String),
}

/// One parsed `PROCESS.VAR = VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// The process, or `None` for every process.
    pub process: Option<usize>,
    /// The variable.
    pub var: usize,
    /// The first slot written.
    pub slot: usize,
    /// The values, from `slot` on (several for a whole array).
    pub values: Vec<i64>,
    /// Where it was written, for diagnostics.
    pub span: Span,
}

/// Parses a value of type `ty` as a user writes it.
pub fn parse_value(prog: &ir::Program, ty: Ty, text: &str) -> Result<i64, String> {
    let text = text.trim();
    match ty {
        Ty::Bool => match text {
            "true" => Ok(1),
            "false" => Ok(0),
            _ => Err(format!(
                "`{text}` is not a boolean (write `true` or `false`)"
            )),
        },
        Ty::Int => text
            .parse()
            .map_err(|_| format!("`{text}` is not an integer")),
        Ty::Node => text
            .parse()
            .map_err(|_| format!("`{text}` is not a process index")),
        Ty::Enum(e) => prog.enums[e]
            .values
            .iter()
            .position(|v| v == text)
            .map(|k| k as i64)
            .ok_or_else(|| format!("`{text}` is not one of {}", prog.enums[e].values.join(", "))),
    }
}

/// Parses assignment lines, with spans into `text`.
pub fn parse_assignments(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    text: &str,
) -> Result<Vec<Assignment>, Vec<Problem>> {
    parse_lines(text, false, |line, span| {
        parse_line(prog, code, topo, line, span)
    })
}

/// Runs `parse` on each non-empty, non-comment line of `text` that is (when
/// `channels`) or is not a channel line, with its span; all problems at once.
fn parse_lines<T>(
    text: &str,
    channels: bool,
    parse: impl Fn(&str, Span) -> Result<T, Problem>,
) -> Result<Vec<T>, Vec<Problem>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.split('#').next().unwrap_or("");
        let trimmed = body.trim();
        if trimmed.is_empty() || is_channel_line(trimmed) != channels {
            continue;
        }
        let lead = body.len() - body.trim_start().len();
        let span = Span::new(start + lead, start + lead + trimmed.len());
        match parse(trimmed, span) {
            Ok(a) => out.push(a),
            Err(p) => problems.push(p),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn parse_line(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    line: &str,
    span: Span,
) -> Result<Assignment, Problem> {
    let bad = |msg: String, help: &str| {
        Problem::new("guarded::config::bad_assignment", msg)
            .label(span, "in this assignment")
            .help(help.to_string())
    };
    let (lhs, value) = line.split_once('=').ok_or_else(|| {
        bad(
            format!("expected `PROCESS.VAR = VALUE`, found `{line}`"),
            "for example `3.x = 2`, or `*.x = 0` for every process",
        )
    })?;
    let (who, var) = lhs.trim().split_once('.').ok_or_else(|| {
        bad(
            format!("`{}` does not name a process and a variable", lhs.trim()),
            "write `PROCESS.VAR`, e.g. `3.x`",
        )
    })?;
    let process = match who.trim() {
        "*" => None,
        w => {
            let p: usize = w.parse().map_err(|_| {
                bad(
                    format!("`{w}` is not a process index"),
                    "processes are numbered 0 to n-1; `*` means all",
                )
            })?;
            if p >= topo.n() {
                return Err(bad(
                    format!(
                        "process {p} does not exist; the topology has {} processes",
                        topo.n()
                    ),
                    "processes are numbered 0 to n-1",
                ));
            }
            Some(p)
        }
    };
    let var = var.trim();
    // `F[2]` names one element of an array.
    let (var, element) = match var.split_once('[') {
        Some((name, rest)) => {
            let i = rest
                .strip_suffix(']')
                .and_then(|i| i.trim().parse::<usize>().ok())
                .ok_or_else(|| {
                    bad(
                        format!("`{var}` is not a variable or an array element"),
                        "write `F[2]` for element 2 of array `F`",
                    )
                })?;
            (name.trim(), Some(i))
        }
        None => (var, None),
    };
    let Some(k) = prog.vars.iter().position(|v| v.name == var) else {
        let names: Vec<&str> = prog.vars.iter().map(|v| v.name.as_str()).collect();
        let help = match crate::diagnostic::suggest(var, names.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("the variables are {}", names.join(", ")),
        };
        return Err(bad(format!("the program has no variable `{var}`"), &help));
    };
    let v = &prog.vars[k];
    let one = |text: &str| -> Result<i64, Problem> {
        if v.ty == Ty::Node && text.trim() == "self" {
            return match process {
                Some(p) => Ok(p as i64),
                None => Err(bad(
                    "`self` needs one process, not `*`".into(),
                    "write the process index",
                )),
            };
        }
        parse_value(prog, v.ty, text)
            .map_err(|m| bad(m, "the value must belong to the variable's type"))
    };
    let (slot, values) = match (code.lens[k], element) {
        (None, Some(_)) => {
            return Err(bad(
                format!("`{var}` is not an array"),
                &format!("write `{var} = VALUE`"),
            ))
        }
        (None, None) => (code.offsets[k], vec![one(value)?]),
        (Some(len), Some(i)) if i >= len && !code.per_nbr[k] => {
            return Err(bad(
                format!("`{var}` has {len} elements; there is no element {i}"),
                &format!("indices run from 0 to {}", len - 1),
            ))
        }
        (Some(_), Some(q)) if code.per_nbr[k] => {
            let Some(p) = process else {
                return Err(bad(
                    format!("`{var}` has one value per neighbour; name one process, not `*`"),
                    &format!("write `3.{var}[5] = ...` for process 3's value for its neighbour 5"),
                ));
            };
            let Some(pos) = topo.nbr_pos(p, q) else {
                return Err(bad(
                    format!("process {q} is not a neighbour of process {p}"),
                    &format!(
                        "`{var}[q]` is the value for neighbour q; the neighbours of {p} are {:?}",
                        topo.nbrs(p)
                    ),
                ));
            };
            (code.offsets[k] + pos, vec![one(value)?])
        }
        (Some(_), None) if code.per_nbr[k] => {
            return Err(bad(
                format!("`{var}` has one value per neighbour; set them one at a time"),
                &format!("write `PROCESS.{var}[NEIGHBOUR] = VALUE`"),
            ))
        }
        (Some(_), Some(i)) => (code.offsets[k] + i, vec![one(value)?]),
        (Some(len), None) => {
            let list = value
                .trim()
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .ok_or_else(|| {
                    bad(
                        format!("`{var}` is an array of {len}; write its values in brackets"),
                        &format!(
                            "for example `{var} = [{}]`, or one element: `{var}[0] = ...`",
                            vec!["0"; len].join(", ")
                        ),
                    )
                })?;
            let values = list
                .split(',')
                .filter(|t| !t.trim().is_empty())
                .map(one)
                .collect::<Result<Vec<_>, _>>()?;
            if values.len() != len {
                return Err(bad(
                    format!("`{var}` has {len} elements, {} given", values.len()),
                    "give one value per element",
                ));
            }
            (code.offsets[k], values)
        }
    };
    Ok(Assignment {
        process,
        var: k,
        slot,
        values,
        span,
    })
}

/// A message as written in configurations and traces: `find(3)`, `pong`.
pub fn msg_text(prog: &ir::Program, m: &crate::state::channels::Msg) -> String {
    let t = &prog.messages[m.kind as usize];
    let fields: Vec<String> = t
        .fields
        .iter()
        .zip(m.fields)
        .map(|((_, ty, _), v)| prog.show_value(*ty, v))
        .collect();
    if fields.is_empty() {
        t.name.clone()
    } else {
        format!("{}({})", t.name, fields.join(","))
    }
}

/// Whether a line sets a channel: `3->5 = find(2) observer(1)`.
fn is_channel_line(line: &str) -> bool {
    line.split('=').next().is_some_and(|lhs| lhs.contains("->"))
}

/// The contents a line gives one channel: sender, receiver, messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelLine {
    /// The sender.
    pub from: usize,
    /// The receiver.
    pub to: usize,
    /// The messages, head first: type and fields.
    pub msgs: Vec<(u16, [i64; MAX_FIELDS])>,
}

/// Parses the channel lines of a configuration text (`A->B = m(1) m2`,
/// head first; nothing after `=` empties the channel), checking types,
/// domains and the capacity.
pub fn parse_channels(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    text: &str,
) -> Result<Vec<ChannelLine>, Vec<Problem>> {
    parse_lines(text, true, |line, span| {
        parse_channel_line(prog, code, topo, line, span)
    })
}

fn parse_channel_line(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    line: &str,
    span: Span,
) -> Result<ChannelLine, Problem> {
    let bad = |msg: String, help: &str| {
        Problem::new("guarded::config::bad_channel", msg)
            .label(span, "in this line")
            .help(help.to_string())
    };
    let Some(capacity) = code.capacity else {
        return Err(bad(
            "the program passes no messages".into(),
            "channel lines `A->B = ...` need `message` declarations",
        ));
    };
    let (lhs, rhs) = line.split_once('=').unwrap_or((line, ""));
    let (a, b) = lhs.split_once("->").unwrap_or((lhs, ""));
    let proc_of = |w: &str| -> Result<usize, Problem> {
        w.trim()
            .parse::<usize>()
            .ok()
            .filter(|&p| p < topo.n())
            .ok_or_else(|| {
                bad(
                    format!("`{}` is not a process", w.trim()),
                    "processes are numbered 0 to n-1",
                )
            })
    };
    let (from, to) = (proc_of(a)?, proc_of(b)?);
    if topo.arc(from, to).is_none() {
        return Err(bad(
            format!("there is no channel from {from} to {to}: {to} is not a neighbour of {from}"),
            "channels join a process to its neighbours",
        ));
    }
    let mut msgs = Vec::new();
    let mut rest = rhs.trim();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| c == '(' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        let Some(kind) = prog.messages.iter().position(|m| m.name == name) else {
            let names: Vec<&str> = prog.messages.iter().map(|m| m.name.as_str()).collect();
            return Err(bad(
                format!("`{name}` is not a message type"),
                &format!("the message types are {}", names.join(", ")),
            ));
        };
        rest = rest[name_end..].trim_start();
        let mut values = Vec::new();
        if let Some(after) = rest.strip_prefix('(') {
            let close = after
                .find(')')
                .ok_or_else(|| bad(format!("`{name}(` is not closed"), "write `name(1, 2)`"))?;
            values = after[..close]
                .split(',')
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .collect();
            rest = after[close + 1..].trim_start();
        }
        let fields = &prog.messages[kind].fields;
        if values.len() != fields.len() {
            return Err(bad(
                format!(
                    "`{name}` has {} fields, {} given",
                    fields.len(),
                    values.len()
                ),
                "give one value per field",
            ));
        }
        let mut m = [0i64; MAX_FIELDS];
        for ((slot, text), ((fname, ty, _), d)) in m
            .iter_mut()
            .zip(&values)
            .zip(fields.iter().zip(&code.message_domains[kind]))
        {
            let v = parse_value(prog, *ty, text)
                .map_err(|e| bad(e, "the value must belong to the field's type"))?;
            if !d.contains(v, from, topo) {
                return Err(bad(
                    format!("{text} is outside the domain of field `{fname}`"),
                    &format!("`{fname}` ranges over {}", d.describe()),
                ));
            }
            *slot = v;
        }
        msgs.push((kind as u16, m));
    }
    if msgs.len() > capacity {
        return Err(bad(
            format!("{} messages, but a channel holds {capacity}", msgs.len()),
            "give fewer messages",
        ));
    }
    Ok(ChannelLine { from, to, msgs })
}

/// Replaces the contents of the channels the lines name.
pub fn apply_channels(chans: &mut Channels, topo: &Topology, lines: &[ChannelLine]) {
    for l in lines {
        if let Some(a) = topo.arc(l.from, l.to) {
            let q: VecDeque<_> = l.msgs.iter().map(|&(k, f)| chans.stamp(k, f)).collect();
            chans.queues[a] = q;
        }
    }
}

/// Applies assignments, checking every value against its domain.
pub fn apply(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &mut [Option<i64>],
    list: &[Assignment],
) -> Result<(), Vec<Problem>> {
    let stride = code.stride;
    let mut problems = Vec::new();
    for a in list {
        let targets: Vec<usize> = match a.process {
            Some(p) => vec![p],
            None => (0..topo.n()).collect(),
        };
        'each: for p in targets {
            for (i, &value) in a.values.iter().enumerate() {
                let d = &code.domains[a.slot + i];
                if !d.contains(value, p, topo) {
                    let v = &prog.vars[a.var];
                    problems.push(
                        Problem::new(
                            "guarded::config::out_of_domain",
                            format!(
                                "{} is outside the domain of `{}` at process {p}",
                                prog.show_value(v.ty, value),
                                v.name
                            ),
                        )
                        .label(a.span, "this value")
                        .help(format!(
                            "`{}` ranges over {}",
                            v.name,
                            d.describe()
                        )),
                    );
                    break 'each;
                }
                state[p * stride + a.slot + i] = Some(value);
                // The other end of an edge variable gets the same value.
                if prog.vars[a.var].kind == crate::check::ir::VarKind::Edge {
                    let k = a.slot + i - code.offsets[a.var];
                    if let Some(&q) = topo.nbrs(p).get(k) {
                        if let Some(j) = topo.nbr_pos(q as usize, p) {
                            state[q as usize * stride + code.offsets[a.var] + j] = Some(value);
                        }
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// An arbitrary row for process `p`: every slot random over its domain (or
/// declared `random` range); per-neighbour slots beyond its neighbours hold
/// the domain's first value, and an edge's node variable names one of the
/// edge's ends. Edge variables still need [`mirror_edges`]-style agreement.
pub fn random_row(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    p: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<i64> {
    let edge = |v: usize| prog.vars[v].kind == crate::check::ir::VarKind::Edge;
    code.arbitrary
        .iter()
        .enumerate()
        .map(|(slot, d)| {
            let (v, k) = code.var_of_slot(slot);
            match (code.per_nbr[v], k) {
                (true, Some(k)) if k >= topo.nbrs(p).len() => unused_value(d, p),
                (true, Some(k)) if edge(v) && *d == VarDomain::Node => {
                    if rng.gen::<bool>() {
                        p as i64
                    } else {
                        topo.nbrs(p)[k] as i64
                    }
                }
                _ => random_value(d, p, topo, rng),
            }
        })
        .collect()
}

/// After process `p`'s row changed from outside (a fault injected), its
/// neighbours' copies of the shared edge variables take its values.
pub fn share_edges_of(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &mut [i64],
    p: usize,
) {
    let stride = code.stride;
    for (v, var) in prog.vars.iter().enumerate() {
        if var.kind != crate::check::ir::VarKind::Edge {
            continue;
        }
        for (k, &q) in topo.nbrs(p).iter().enumerate() {
            if let Some(j) = topo.nbr_pos(q as usize, p) {
                state[q as usize * stride + code.offsets[v] + j] =
                    state[p * stride + code.offsets[v] + k];
            }
        }
    }
}

/// A random value of a domain for process `p`.
pub fn random_value(d: &VarDomain, p: usize, topo: &Topology, rng: &mut ChaCha8Rng) -> i64 {
    match *d {
        VarDomain::Bool => i64::from(rng.gen::<bool>()),
        VarDomain::Range(lo, hi) => rng.gen_range(lo..=hi),
        VarDomain::Enum(len) => rng.gen_range(0..len as i64),
        VarDomain::Node => {
            let nbrs = topo.nbrs(p);
            let k = rng.gen_range(0..=nbrs.len());
            if k == 0 {
                p as i64
            } else {
                nbrs[k - 1] as i64
            }
        }
    }
}

/// Where a configuration problem comes from, for rendering.
#[derive(Debug)]
pub struct ConfigError {
    /// The source's name (a file path, `--set`, the program).
    pub origin: String,
    /// The source's text.
    pub text: String,
    /// The problems.
    pub problems: Vec<Problem>,
}

/// Builds the initial configuration. DOT attributes apply on top of declared
/// values; `--set` overrides (`sets`, each its own one-line source) come last.
pub fn initial_state(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    mode: &InitMode,
    sets: &[String],
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<i64>, Channels), ConfigError> {
    let n = topo.n();
    let stride = code.stride;
    let mut state: Vec<Option<i64>> = vec![None; n * stride];
    let here = |problems: Vec<Problem>, origin: &str, text: &str| ConfigError {
        origin: origin.to_string(),
        text: text.to_string(),
        problems,
    };
    if *mode == InitMode::Random {
        for p in 0..n {
            for (slot, v) in random_row(prog, code, topo, p, rng).into_iter().enumerate() {
                state[p * stride + slot] = Some(v);
            }
        }
    } else {
        let locals = vec![Cell::new(0); code.max_locals];
        let (no_chans, no_fx) = (Default::default(), Default::default());
        for p in 0..n {
            let env = Env {
                state: &[],
                me: p,
                scratch: &[],
                topo,
                locals: &locals,
                enabled: &crate::compile::NoneEnabled,
                enabled_count: 0,
                chans: &no_chans,
                fx: &no_fx,
            };
            for (var, init) in code.inits.iter().enumerate() {
                let Some(f) = init else { continue };
                let v = &prog.vars[var];
                let slot = code.offsets[var];
                let value = f(&env).map_err(|fault| {
                    here(
                        vec![Problem::new(
                            "guarded::config::init_fault",
                            format!(
                                "the initial value of `{}` fails at process {p}: {}",
                                v.name, fault.message
                            ),
                        )
                        .label(fault.span, "here")
                        .help(fault.help.clone())],
                        "",
                        "",
                    )
                })?;
                if !code.domains[slot].contains(value, p, topo) {
                    return Err(here(
                        vec![Problem::new(
                            "guarded::config::out_of_domain",
                            format!("the declared initial value of `{}` at process {p} is {}, outside its domain", v.name, prog.show_value(v.ty, value)),
                        )
                        .label(v.span, "declared here")
                        .help(format!("`{}` ranges over {}", v.name, code.domains[slot].describe()))],
                        "",
                        "",
                    ));
                }
                for s in code.slots(var) {
                    state[p * stride + s] = Some(value);
                }
            }
        }
        // Values a DOT file gives as node attributes.
        for (p, key, val) in &topo.attrs {
            if prog.vars.iter().any(|v| &v.name == key) {
                let line = format!("{p}.{key} = {val}");
                let list = parse_assignments(prog, code, topo, &line)
                    .map_err(|ps| here(ps, &topo.name, &line))?;
                apply(prog, code, topo, &mut state, &list)
                    .map_err(|ps| here(ps, &topo.name, &line))?;
            }
        }
        if let InitMode::File(name, text) = mode {
            let list =
                parse_assignments(prog, code, topo, text).map_err(|ps| here(ps, name, text))?;
            apply(prog, code, topo, &mut state, &list).map_err(|ps| here(ps, name, text))?;
        }
    }
    for s in sets {
        let list = parse_assignments(prog, code, topo, s).map_err(|ps| here(ps, "--set", s))?;
        apply(prog, code, topo, &mut state, &list).map_err(|ps| here(ps, "--set", s))?;
    }
    mirror_edges(prog, code, topo, &mut state);
    // Per-neighbour slots beyond a process's neighbours hold nothing.
    for p in 0..n {
        for (slot, d) in code.domains.iter().enumerate() {
            let (v, k) = code.var_of_slot(slot);
            if let (true, Some(k)) = (code.per_nbr[v], k) {
                if k >= topo.nbrs(p).len() && state[p * stride + slot].is_none() {
                    state[p * stride + slot] = Some(unused_value(d, p));
                }
            }
        }
    }
    let mut chans = Channels::new(topo, code.capacity);
    let mut sources: Vec<(&str, &str)> = Vec::new();
    if let InitMode::File(name, text) = mode {
        sources.push((name, text));
    }
    sources.extend(sets.iter().map(|s| ("--set", s.as_str())));
    if *mode == InitMode::Random && !chans.queues.is_empty() {
        // Arbitrary messages in transit: each channel holds a random number
        // of messages (0 to capacity, or the declared range) of random types
        // and fields.
        for a in 0..chans.queues.len() {
            let k = rng.gen_range(code.random_fill.0..=code.random_fill.1);
            let mut q = VecDeque::with_capacity(k);
            for _ in 0..k {
                let kind = rng.gen_range(0..code.message_domains.len());
                let mut fields = [0i64; MAX_FIELDS];
                for (f, d) in fields.iter_mut().zip(&code.message_domains[kind]) {
                    *f = random_value(d, 0, topo, rng);
                }
                q.push_back(chans.stamp(kind as u16, fields));
            }
            chans.queues[a] = q;
        }
    }
    for (origin, text) in sources {
        let lines = parse_channels(prog, code, topo, text).map_err(|ps| here(ps, origin, text))?;
        apply_channels(&mut chans, topo, &lines);
    }
    let mut out = Vec::with_capacity(state.len());
    for (k, v) in state.iter().enumerate() {
        match v {
            Some(v) => out.push(*v),
            None => {
                let var = &prog.vars[code.var_of_slot(k % stride).0];
                let from = match mode {
                    InitMode::File(name, _) => format!(" and {name} does not set it"),
                    _ => String::new(),
                };
                return Err(here(
                    vec![Problem::new(
                        "guarded::config::no_initial_value",
                        format!("process {} has no initial value for `{}`{from}", k / stride, var.name),
                    )
                    .label(var.span, "declared without `= value`")
                    .help(format!(
                        "declare one (`var {}: ... = VALUE`), set it (`--set {}.{}=VALUE` or an --init file), or start from `--init random`",
                        var.name,
                        k / stride,
                        var.name
                    ))],
                    "",
                    "",
                ));
            }
        }
    }
    Ok((out, chans))
}

/// Both ends of an edge see one value of each edge variable: the smaller
/// index's (declared values such as `self` differ at the two ends).
fn mirror_edges(prog: &ir::Program, code: &Compiled, topo: &Topology, state: &mut [Option<i64>]) {
    let stride = code.stride;
    for (v, var) in prog.vars.iter().enumerate() {
        if var.kind != crate::check::ir::VarKind::Edge {
            continue;
        }
        for p in 0..topo.n() {
            for (k, &q) in topo.nbrs(p).iter().enumerate() {
                let q = q as usize;
                if let (true, Some(j)) = (q < p, topo.nbr_pos(q, p)) {
                    state[p * stride + code.offsets[v] + k] =
                        state[q * stride + code.offsets[v] + j];
                }
            }
        }
    }
}

/// What a slot that belongs to no neighbour holds: the domain's first value.
pub(crate) fn unused_value(d: &VarDomain, p: usize) -> i64 {
    match *d {
        VarDomain::Range(lo, _) => lo,
        VarDomain::Node => p as i64,
        VarDomain::Bool | VarDomain::Enum(_) => 0,
    }
}

/// Writes a configuration in the assignment-file format.
pub fn format_config(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &[i64],
    chans: &Channels,
) -> String {
    let stride = code.stride;
    let mut out = String::new();
    for p in 0..topo.n() {
        let row = &state[p * stride..(p + 1) * stride];
        for (k, v) in prog.vars.iter().enumerate() {
            if code.per_nbr[k] {
                for (j, q) in topo.nbrs(p).iter().enumerate() {
                    let x = row[code.offsets[k] + j];
                    out.push_str(&format!(
                        "{p}.{}[{q}] = {}\n",
                        v.name,
                        prog.show_value(v.ty, x)
                    ));
                }
            } else {
                out.push_str(&format!(
                    "{p}.{} = {}\n",
                    v.name,
                    code.show_var(prog, &[], k, row)
                ));
            }
        }
    }
    for p in 0..topo.n() {
        for &q in topo.nbrs(p) {
            let Some(c) = chans.between(topo, p, q as usize) else {
                continue;
            };
            if c.is_empty() {
                continue;
            }
            let ms: Vec<String> = c.iter().map(|m| msg_text(prog, m)).collect();
            out.push_str(&format!("{p}->{q} = {}\n", ms.join(" ")));
        }
    }
    out
}
