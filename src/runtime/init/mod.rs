//! Initial configurations: declared values, uniformly random values over
//! every domain (channel contents included: the arbitrary start of
//! self-stabilization), DOT attributes, configuration files and `--set`
//! overrides (their format is read and written in `file.rs`).

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

mod file;
mod partial;
mod written;

pub(crate) use partial::PartialState;

pub(crate) use file::{apply, apply_channels, parse_assignments, parse_channels};
pub(crate) use written::{format_config, in_transit, msg_text};

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

/// An arbitrary row for process `p`: every slot random over its domain (or
/// declared `random` range); per-neighbour slots beyond its neighbours hold
/// the domain's first value, and an edge's node variable names one of the
/// edge's ends. Edge variables still need both ends to agree (`share_edges_of`).
pub(crate) fn random_row(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    p: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<i64> {
    random_values(prog, code, topo, p, rng).collect()
}

/// [`random_row`]'s values one by one, in slot order (a start of many
/// short runs built no row on the way).
fn random_values<'a>(
    prog: &'a ir::Program,
    code: &'a Compiled,
    topo: &'a Topology,
    p: usize,
    rng: &'a mut ChaCha8Rng,
) -> impl Iterator<Item = i64> + 'a {
    let edge = |v: usize| prog.vars[v].kind == crate::check::ir::VarKind::Edge;
    code.arbitrary.iter().enumerate().map(move |(slot, d)| {
        let (v, k) = code.var_of_slot(slot);
        if let Some(x) = code.fixed_at(v, p) {
            return x;
        }
        match (code.per_nbr[v], k) {
            // The filler the state space has, whatever the range drawn from.
            (true, Some(k)) if k >= topo.nbr_count(p) => unused_value(&code.domains[slot], p),
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
}

/// After process `p`'s row changed from outside (a fault injected), its
/// neighbours' copies of the shared edge variables take its values.
pub(crate) fn share_edges_of(
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
pub(crate) fn random_value(d: &VarDomain, p: usize, topo: &Topology, rng: &mut ChaCha8Rng) -> i64 {
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
pub(crate) struct ConfigError {
    /// The source's name (a file path, `--set`, the program).
    pub origin: String,
    /// The source's text.
    pub text: String,
    /// The problems.
    pub problems: Vec<Problem>,
}

/// Builds the initial configuration. DOT attributes apply on top of declared
/// values; `--set` overrides (`sets`, each its own one-line source) come last.
pub(crate) fn initial_state(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    mode: &InitMode,
    sets: &[String],
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<i64>, Channels), ConfigError> {
    let n = topo.n();
    let stride = code.stride;
    let mut state = PartialState::unset(n * stride);
    let here = |problems: Vec<Problem>, origin: &str, text: &str| ConfigError {
        origin: origin.to_string(),
        text: text.to_string(),
        problems,
    };
    if *mode == InitMode::Random {
        for p in 0..n {
            for (slot, v) in random_values(prog, code, topo, p, rng).enumerate() {
                state.put(p * stride + slot, v);
            }
        }
    } else {
        declared_values(prog, code, topo, &mut state)?;
        // Values a DOT file gives as node attributes. Those written
        // `gc:NAME`, by node, looked up rather than searched for (a file
        // of 60,000 nodes took minutes).
        let prefixed: rustc_hash::FxHashSet<(u32, &str)> = topo
            .attrs
            .iter()
            .filter_map(|(p, key, _)| Some((*p, key.strip_prefix("gc:")?)))
            .collect();
        for (p, key, val) in &topo.attrs {
            // `VAR[Q]`: a per-neighbour or edge value; `gc:VAR`: a variable
            // named like a Graphviz attribute (`color`).
            let plain = !key.starts_with("gc:");
            let (key, name) = crate::topology::dot::attribute_variable(key);
            // Beside `gc:NAME`, a plain `NAME` is Graphviz's (a colour).
            if plain && prefixed.contains(&(*p, key)) {
                continue;
            }
            if prog.vars.iter().any(|v| v.name == name) {
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
    let per_nbr_slots: Vec<(usize, usize, &VarDomain)> = (code.domains.iter().enumerate())
        .filter_map(|(slot, d)| match code.var_of_slot(slot) {
            (v, Some(k)) if code.per_nbr[v] => Some((slot, k, d)),
            _ => None,
        })
        .collect();
    if !per_nbr_slots.is_empty() {
        for p in 0..n {
            for &(slot, k, d) in &per_nbr_slots {
                if k >= topo.nbr_count(p) && state.get(p * stride + slot).is_none() {
                    state.put(p * stride + slot, unused_value(d, p));
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
    if *mode == InitMode::Random {
        // Each message takes its fields, a stamp and the queue's slot.
        let most = code.random_fill.1 as u128 * chans.queues.len() as u128 * 64;
        if let Err(m) = crate::memory::check(most, "filling every channel at random") {
            let pr = Problem::new("guarded::init::memory", m)
                .help("declare a smaller `channel capacity`, or a `random lo..hi` fill range");
            return Err(here(vec![pr], "", ""));
        }
        random_channels(code, topo, &mut chans, rng);
    }
    for (origin, text) in sources {
        let lines = parse_channels(prog, code, topo, text).map_err(|ps| here(ps, origin, text))?;
        apply_channels(&mut chans, topo, &lines);
    }
    Ok((every_value_set(prog, code, state, mode)?, chans))
}

/// A problem in the program's declarations, found while building a configuration.
fn program_error(problems: Vec<Problem>) -> ConfigError {
    ConfigError {
        origin: String::new(),
        text: String::new(),
        problems,
    }
}

/// Every declared initial value, checked against its domain.
fn declared_values(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &mut PartialState,
) -> Result<(), ConfigError> {
    let (n, stride) = (topo.n(), code.stride);
    let locals = vec![Cell::new(0); code.max_locals];
    let (no_chans, no_fx) = (Channels::default(), crate::compile::Effects::default());
    for p in 0..n {
        let env = Env::new(&[], topo, &locals, &no_chans, &no_fx, p);
        for (var, init) in code.inits.iter().enumerate() {
            let Some(f) = init else { continue };
            let v = &prog.vars[var];
            let slot = code.offsets[var];
            let value = f(&env).map_err(|fault| {
                program_error(vec![Problem::new(
                    "guarded::config::init_fault",
                    format!(
                        "the initial value of `{}` fails at process {p}: {}",
                        v.name, fault.message
                    ),
                )
                .label(fault.span, "here")
                .help(fault.help.clone())])
            })?;
            if !code.domains[slot].contains(value, p, topo) {
                return Err(program_error(
                    vec![Problem::new(
                        "guarded::config::out_of_domain",
                        format!("the declared initial value of `{}` at process {p} is {}, outside its domain", v.name, prog.show_value(v.ty, value)),
                    )
                    .label(v.span, "declared here")
                    .help(format!("`{}` ranges over {}", v.name, code.domains[slot].describe()))]));
            }
            for s in code.slots(var) {
                state.put(p * stride + s, value);
            }
        }
    }
    Ok(())
}

/// Arbitrary messages in transit: each channel holds a random number of
/// messages (0 to capacity, or the declared range) of random types and fields.
fn random_channels(code: &Compiled, topo: &Topology, chans: &mut Channels, rng: &mut ChaCha8Rng) {
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
        if let Some((_, hi)) = code.delay {
            // In ticks, each on its way for up to the longest delay, in
            // the order they arrive (channels are FIFO).
            let mut dues: Vec<u16> = (0..k).map(|_| rng.gen_range(0..hi)).collect();
            dues.sort_unstable();
            q.iter_mut().zip(dues).for_each(|(m, due)| m.due = due);
        }
        chans.queues[a] = q;
    }
}

/// The configuration, once every slot has a value.
fn every_value_set(
    prog: &ir::Program,
    code: &Compiled,
    state: PartialState,
    mode: &InitMode,
) -> Result<Vec<i64>, ConfigError> {
    let stride = code.stride;
    state.into_values().map_err(|k| {
        let var = &prog.vars[code.var_of_slot(k % stride).0];
        let from = match mode {
            InitMode::File(name, _) => format!(" and {name} does not set it"),
            _ => String::new(),
        };
        program_error(vec![Problem::new(
            "guarded::config::no_initial_value",
            format!("process {} has no initial value for `{}`{from}", k / stride, var.name),
        )
        .label(var.span, "declared without `= value`")
        .help(format!(
            "declare one (`{} {}: ... = VALUE`), set it (`--set {}.{}=VALUE` or an --init file), or start from `--init random`",
            match var.kind {
                ir::VarKind::Plain => "var",
                ir::VarKind::Edge => "edge var",
                ir::VarKind::Timer => "timer",
            },
            var.name,
            k / stride,
            var.name
        ))])
    })
}

/// Both ends of an edge see one value of each edge variable: the smaller
/// index's (declared values such as `self` differ at the two ends).
fn mirror_edges(prog: &ir::Program, code: &Compiled, topo: &Topology, state: &mut PartialState) {
    let stride = code.stride;
    for (v, var) in prog.vars.iter().enumerate() {
        if var.kind != crate::check::ir::VarKind::Edge {
            continue;
        }
        for p in 0..topo.n() {
            for (k, &q) in topo.nbrs(p).iter().enumerate() {
                let q = q as usize;
                if let (true, Some(j)) = (q < p, topo.nbr_pos(q, p)) {
                    let (from, to) = (
                        q * stride + code.offsets[v] + j,
                        p * stride + code.offsets[v] + k,
                    );
                    state.copy(from, to);
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
