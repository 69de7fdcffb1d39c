//! What a run reports, as text and JSON: the trace (text or JSON lines),
//! the summary, rows and channels as the REPL shows them, and runtime
//! errors and invariant violations as diagnostics. Shared by the front ends.

pub mod closed_form;
mod summary;
mod trace;

pub use summary::{key as stop_key, RunInfo, Stats, Summary, Tally};
pub use trace::{step_line, Tracer};

/// The exit statuses of the command line, which a sweep's rows record too.
pub mod exit {
    /// Success.
    pub const EXIT_OK: i32 = 0;
    /// The program or an input file is wrong.
    pub const EXIT_INPUT: i32 = 1;
    /// The command line is wrong.
    pub const EXIT_USAGE: i32 = 2;
    /// The program failed at run time.
    pub const EXIT_RUNTIME: i32 = 3;
    /// An invariant was violated.
    pub const EXIT_INVARIANT: i32 = 4;
}

use crate::diagnostic::{render, Problem};
use crate::runtime::engine::{RunError, Simulation};
use crate::state::channels::Msg;
use serde_json::{json, Map, Value};

// Messages at every layer count things (the checker's and the runtime's
// too), so the word form lives with the diagnostics.
pub use crate::diagnostic::counted;

/// Process `p`'s row as `x=3 b=true`.
pub fn row_text(sim: &Simulation, p: usize, row: &[i64]) -> String {
    sim.code.value_texts(&sim.prog, &sim.topo, p, row).join(" ")
}

/// A message as `find(3)`.
pub fn msg_text(sim: &Simulation, m: &Msg) -> String {
    crate::runtime::init::msg_text(&sim.prog, m)
}

/// The non-empty channels: sender, receiver, and the messages, head first.
pub fn nonempty_channels(sim: &Simulation) -> Vec<(usize, u32, Vec<String>)> {
    let mut out = Vec::new();
    if sim.chans.all_empty() {
        // Nothing to list, and no neighbours asked for (see `Topology::nbrs`).
        return out;
    }
    for p in 0..sim.n() {
        for &q in sim.topo.nbrs(p) {
            match sim.chans.between(&sim.topo, p, q as usize) {
                Some(c) if !c.is_empty() => {
                    out.push((p, q, c.iter().map(|m| msg_text(sim, m)).collect()));
                }
                _ => {}
            }
        }
    }
    out
}

/// The non-empty channels, one line each: `  channel 3->5: find(2) observer(1)`.
pub fn channels_text(sim: &Simulation) -> String {
    let mut out = String::new();
    for (p, q, ms) in nonempty_channels(sim) {
        out.push_str(&format!("  channel {p}->{q}: {}\n", ms.join(" ")));
    }
    out
}

/// `text` padded with spaces to `width` characters, to the right of it
/// (`right`) or to the left. Not `format!("{:w$}")`, whose width panics
/// past 65,535 (a long `--param` value, a merged CSV, an array's values).
pub fn pad(text: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(text.chars().count()));
    if right {
        format!("{text}{fill}")
    } else {
        format!("{fill}{text}")
    }
}

/// Whether process ids are worth showing: some id is not its index.
pub fn ids_differ(sim: &Simulation) -> bool {
    let kept = sim.topo.kept_ids();
    kept.iter().enumerate().any(|(p, &id)| id != p as i64)
}

/// How a configuration's line names process `p`: `3`, or `3 (id 7)` when
/// `ids` (ids differ from indices).
pub fn process_label(sim: &Simulation, p: usize, ids: bool) -> String {
    if ids {
        format!("{p} (id {})", sim.topo.id(p))
    } else {
        p.to_string()
    }
}

/// Process `p`'s row as JSON.
pub(crate) fn row_json(sim: &Simulation, p: usize, row: &[i64]) -> Value {
    values_json(&sim.prog, &sim.code, sim.topo.nbrs(p), row)
}

/// A process's row as a JSON object: each variable's value (booleans as
/// booleans, enumeration values by name, arrays as arrays, per-neighbour
/// and edge variables as objects keyed by the neighbour).
pub(crate) fn values_json(
    prog: &crate::check::ir::Program,
    code: &crate::compile::Compiled,
    nbrs: &[u32],
    row: &[i64],
) -> Value {
    let mut m = Map::new();
    for (k, v) in prog.vars.iter().enumerate() {
        let one = |x: i64| match v.ty {
            crate::check::ir::Ty::Bool => json!(x != 0),
            crate::check::ir::Ty::Enum(_) => json!(prog.show_value(v.ty, x)),
            _ => json!(x),
        };
        let val = if code.per_nbr[k] {
            Value::Object(
                nbrs.iter()
                    .zip(&row[code.slots(k)])
                    .map(|(q, &x)| (q.to_string(), one(x)))
                    .collect(),
            )
        } else {
            match code.lens[k] {
                None => one(row[code.offsets[k]]),
                Some(_) => Value::Array(row[code.slots(k)].iter().map(|&x| one(x)).collect()),
            }
        };
        m.insert(v.name.clone(), val);
    }
    Value::Object(m)
}

/// A configuration as JSON: per process its values, and its `id` too when
/// ids differ from indices.
pub(crate) fn configuration_json(sim: &Simulation, rows: &[i64]) -> Value {
    let (stride, ids) = (sim.stride(), ids_differ(sim));
    Value::Array(
        (0..sim.n())
            .map(|p| {
                let mut v = row_json(sim, p, &rows[p * stride..(p + 1) * stride]);
                if ids {
                    v["id"] = json!(sim.topo.id(p));
                }
                v
            })
            .collect(),
    )
}

/// The non-empty channels as JSON: `[{"from": 3, "to": 5, "messages": ["find(2)"]}]`.
pub(crate) fn channels_json(sim: &Simulation) -> Value {
    nonempty_channels(sim)
        .into_iter()
        .map(|(p, q, ms)| json!({"from": p, "to": q, "messages": ms}))
        .collect()
}

/// A runtime error as a problem against the program's source; `None` for
/// a schedule's error, which points into no source.
fn runtime_problem(e: &RunError) -> Option<Problem> {
    match e {
        RunError::Fault {
            fault,
            process,
            action,
            step,
            during,
        } => {
            let who = match (process, action) {
                (Some(p), Some((label, _))) => format!("process {p}, action `{label}`"),
                (Some(p), None) => format!("process {p}"),
                _ => "the whole configuration".to_string(),
            };
            let mut pr = Problem::new(
                "guarded::runtime::fault",
                format!(
                    "runtime error at step {step} in {who}, evaluating {during}: {}",
                    fault.message
                ),
            )
            .label(fault.span, fault.message.clone())
            .help(fault.help.clone());
            if let Some((label, span)) = action {
                // The action's name alone: a label over the whole action
                // would enclose the fault's, and miette then draws the
                // fault's pointer at the end of the line, under nothing.
                let name = crate::span::Span::new(span.start, span.start + label.len());
                pr = pr.label(name, format!("in action `{label}`"));
            }
            Some(pr)
        }
        RunError::Conflict {
            step,
            var,
            edge,
            writers,
        } => {
            let [(p, la, sa), (q, lb, sb)] = &**writers;
            Some(Problem::new(
                "guarded::runtime::conflict",
                format!(
                    "conflict at step {step}: processes {p} and {q} both write `{var}` of edge {}-{}",
                    edge.0, edge.1
                ),
            )
            .label(*sa, format!("process {p} writes it in `{la}`"))
            .label(*sb, format!("process {q} writes it in `{lb}`"))
            .help("an edge variable may be written by one end per step: run under a daemon that never moves two neighbours together (central, locally-central)"))
        }
        RunError::Schedule { .. } => None,
    }
}

/// A runtime error as a diagnostic against the program's source.
pub fn runtime_error(
    e: &RunError,
    program: &str,
    source: &str,
    plain: bool,
    sim: Option<&Simulation>,
) -> String {
    let Some(pr) = runtime_problem(e) else {
        return format!("error: {}\n", runtime_headline(e));
    };
    let mut out = render(&[pr], program, source, plain);
    if let (
        Some(sim),
        RunError::Fault {
            process: Some(p), ..
        },
    ) = (sim, e)
    {
        let stride = sim.stride();
        out.push_str(&format!(
            "  process {p} before the step: {}\n",
            row_text(sim, *p, &sim.state[p * stride..(p + 1) * stride])
        ));
    }
    out
}

/// A runtime error in one line (a sweep's CSV cell).
pub fn runtime_headline(e: &RunError) -> String {
    match (runtime_problem(e), e) {
        (Some(pr), _) => pr.message,
        (None, RunError::Schedule { line, message }) => format!("schedule line {line}: {message}"),
        (None, _) => unreachable!("only a schedule's error has no problem"),
    }
}

/// An invariant violation as a diagnostic naming the step that broke it.
pub fn invariant_violation(
    sim: &Simulation,
    index: usize,
    program: &str,
    source: &str,
    plain: bool,
) -> String {
    render(&[invariant_problem(sim, index)], program, source, plain)
}

/// An invariant violation in one line (a sweep's CSV cell).
pub fn invariant_headline(sim: &Simulation, index: usize) -> String {
    invariant_problem(sim, index).message
}

fn invariant_problem(sim: &Simulation, index: usize) -> Problem {
    let inv = &sim.code.invariants[index];
    let now = sim.now();
    let cause = if now.step == 0 {
        "in the initial configuration".to_string()
    } else {
        let last = sim.last();
        let moves: Vec<String> = last
            .movers()
            .iter()
            .zip(last.actions())
            .map(|(&p, &a)| {
                format!(
                    "{p} {}",
                    sim.code.roles[sim.code.role_of.of(p as usize)].actions[a as usize].label
                )
            })
            .collect();
        format!(
            "by step {} (round {}), in which moved: {}",
            now.step,
            now.round,
            moves.join(", ")
        )
    };
    Problem::new(
        "guarded::runtime::invariant",
        format!("invariant `{}` violated {cause}", inv.name),
    )
    .label(inv.span, "this no longer holds")
    .help("rerun with --trace to see the steps that led here")
}

pub(crate) fn sorted(v: &[u32]) -> Vec<u32> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v
}

pub(crate) fn list(v: &[u32]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
}
