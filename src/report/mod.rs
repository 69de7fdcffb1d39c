//! What a run reports, as text and JSON: the trace (text or JSON lines),
//! the summary, rows and channels as the REPL shows them, and runtime
//! errors and invariant violations as diagnostics. Shared by the front ends.

use crate::diagnostic::{render, Problem};
use crate::runtime::engine::{RunError, Simulation};
use crate::state::channels::Msg;
use serde_json::{json, Map, Value};
use std::io::{self, Write};

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// No process is enabled.
    Silent,
    /// `--until legitimate` and it holds.
    Legitimate,
    /// `--max-steps` reached.
    StepLimit,
    /// `--max-moves` reached.
    MoveLimit,
    /// The schedule ran out.
    ScheduleDone,
    /// An invariant was violated.
    Invariant,
    /// A runtime error.
    Error,
}

impl Stop {
    fn describe(self) -> &'static str {
        match self {
            Stop::Silent => "silent (no process enabled)",
            Stop::Legitimate => "legitimate (--until legitimate)",
            Stop::StepLimit => "step limit",
            Stop::MoveLimit => "move limit",
            Stop::ScheduleDone => "end of schedule",
            Stop::Invariant => "invariant violated",
            Stop::Error => "runtime error",
        }
    }
    fn key(self) -> &'static str {
        match self {
            Stop::Silent => "silent",
            Stop::Legitimate => "legitimate",
            Stop::StepLimit => "step-limit",
            Stop::MoveLimit => "move-limit",
            Stop::ScheduleDone => "schedule-done",
            Stop::Invariant => "invariant",
            Stop::Error => "error",
        }
    }
}

/// What the summary says about how the run was set up.
pub struct RunInfo<'a> {
    /// The program's path.
    pub program: &'a str,
    /// The daemon's name.
    pub daemon: &'a str,
    /// The seed.
    pub seed: u64,
    /// The initial configuration's origin.
    pub init: &'a str,
    /// Why the run ended.
    pub stop: Stop,
    /// Whether to print the final configuration.
    pub show_final: bool,
    /// Speed and memory, with `--stats`.
    pub stats: Option<Stats>,
}

/// What `--stats` reports. Timing depends on the machine, so it never
/// appears in golden outputs.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    /// Wall-clock seconds of the run loop (not parsing or set-up).
    pub seconds: f64,
    /// Steps taken in that time.
    pub steps: u64,
    /// Moves made in that time.
    pub moves: u64,
    /// Bytes held by the configuration, runtime tables and topology.
    pub bytes: usize,
    /// Steps of the run evaluated column by column (synchronous fast path).
    pub column_steps: u64,
}

impl Stats {
    /// `seconds` in seconds, milliseconds or microseconds, so that a short
    /// run (a few thousand fast steps take well under a millisecond) does
    /// not read as 0.000 s.
    fn duration(seconds: f64) -> String {
        if seconds >= 1.0 {
            format!("{seconds:.3} s")
        } else if seconds >= 1e-3 {
            format!("{:.1} ms", seconds * 1e3)
        } else {
            format!("{:.1} µs", seconds * 1e6)
        }
    }

    fn rate(count: u64, seconds: f64) -> f64 {
        if seconds > 0.0 {
            count as f64 / seconds
        } else {
            0.0
        }
    }
}

/// Process `p`'s row as `x=3 b=true`.
pub fn row_text(sim: &Simulation, p: usize, row: &[i64]) -> String {
    let nbrs = sim.topo.nbrs(p);
    sim.prog
        .vars
        .iter()
        .enumerate()
        .map(|(k, v)| format!("{}={}", v.name, sim.code.show_var(&sim.prog, nbrs, k, row)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A message as `find(3)`.
pub fn msg_text(sim: &Simulation, m: &Msg) -> String {
    crate::runtime::init::msg_text(&sim.prog, m)
}

/// The non-empty channels, one line each: `  channel 3->5: find(2) observer(1)`.
pub fn channels_text(sim: &Simulation) -> String {
    let mut out = String::new();
    for p in 0..sim.n() {
        for &q in sim.topo.nbrs(p) {
            let Some(c) = sim.chans.between(&sim.topo, p, q as usize) else {
                continue;
            };
            if !c.is_empty() {
                let ms: Vec<String> = c.iter().map(|m| msg_text(sim, m)).collect();
                out.push_str(&format!("  channel {p}->{q}: {}\n", ms.join(" ")));
            }
        }
    }
    out
}

fn row_json(sim: &Simulation, row: &[i64]) -> Value {
    let mut m = Map::new();
    for (k, v) in sim.prog.vars.iter().enumerate() {
        let one = |x: i64| match v.ty {
            crate::check::ir::Ty::Bool => json!(x != 0),
            crate::check::ir::Ty::Enum(_) => json!(sim.prog.show_value(v.ty, x)),
            _ => json!(x),
        };
        let val = match sim.code.lens[k] {
            None => one(row[sim.code.offsets[k]]),
            Some(_) => Value::Array(row[sim.code.slots(k)].iter().map(|&x| one(x)).collect()),
        };
        m.insert(v.name.clone(), val);
    }
    Value::Object(m)
}

/// The `k`-th mover of the last step: its process, action label, and rows
/// before and after.
fn mover(sim: &Simulation, k: usize) -> (usize, &str, &[i64], &[i64]) {
    let last = sim.last();
    let p = last.movers()[k] as usize;
    let label =
        &sim.code.roles[sim.code.role_of[p] as usize].actions[last.actions()[k] as usize].label;
    let (before, after) = sim.mover_rows(k);
    (p, label, before, after)
}

/// The variables a move changed, by index.
fn changed(sim: &Simulation, before: &[i64], after: &[i64]) -> Vec<usize> {
    (0..sim.prog.vars.len())
        .filter(|&k| {
            let s = sim.code.slots(k);
            before[s.clone()] != after[s]
        })
        .collect()
}

/// Prints the trace as the run goes.
pub struct Tracer {
    json: bool,
    order: Vec<usize>,
    was_legit: Option<bool>,
    /// Rounds that passed with no process enabled and are not printed yet.
    idle: Option<(u64, u64)>,
}

impl Tracer {
    /// A tracer in text or JSON-lines form.
    pub fn new(json: bool) -> Self {
        Tracer {
            json,
            order: Vec::new(),
            was_legit: None,
            idle: None,
        }
    }

    /// Prints rounds that passed idle, as one line.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        match self.idle.take() {
            None => Ok(()),
            Some((a, b)) if self.json => {
                writeln!(out, "{}", json!({"idle_rounds": [a, b], "tick": true}))
            }
            Some((a, b)) if a == b => writeln!(
                out,
                "-- round {a} passes with no process enabled; timers advance"
            ),
            Some((a, b)) => writeln!(
                out,
                "-- rounds {a} to {b} pass with no process enabled; timers advance"
            ),
        }
    }

    /// The initial configuration.
    pub fn initial(&mut self, out: &mut impl Write, sim: &Simulation) -> io::Result<()> {
        let stride = sim.stride();
        self.was_legit = sim.legitimate();
        if self.json {
            let procs: Vec<Value> = (0..sim.n())
                .map(|p| row_json(sim, &sim.state[p * stride..(p + 1) * stride]))
                .collect();
            let mut m = Map::new();
            m.insert("step".into(), json!(0));
            m.insert("configuration".into(), Value::Array(procs));
            m.insert("enabled".into(), json!(sorted(sim.enabled())));
            if let Some(l) = sim.legitimate() {
                m.insert("legitimate".into(), json!(l));
            }
            writeln!(out, "{}", Value::Object(m))
        } else {
            writeln!(out, "initial configuration:")?;
            for p in 0..sim.n() {
                writeln!(
                    out,
                    "  {p}: {}",
                    row_text(sim, p, &sim.state[p * stride..(p + 1) * stride])
                )?;
            }
            write!(out, "{}", channels_text(sim))?;
            writeln!(out, "enabled: {}", list(&sorted(sim.enabled())))?;
            if sim.legitimate() == Some(true) {
                writeln!(out, "-- legitimate at the start")?;
            }
            Ok(())
        }
    }

    /// The step just taken.
    pub fn step(&mut self, out: &mut impl Write, sim: &Simulation) -> io::Result<()> {
        let now = sim.now();
        if sim.last().tick {
            // Idle rounds are gathered into one line.
            let r = now.round.max(1);
            self.idle = Some(self.idle.map_or((r, r), |(a, _)| (a, r)));
            return Ok(());
        }
        self.finish(out)?;
        if self.json {
            let last = sim.last();
            // Movers in index order, so traces read the same whatever the daemon's order.
            self.order.clear();
            self.order.extend(0..last.movers().len());
            self.order.sort_by_key(|&k| last.movers()[k]);
            let moves: Vec<Value> = self
                .order
                .iter()
                .map(|&k| {
                    let (p, label, before, after) = mover(sim, k);
                    let values = row_json(sim, after);
                    let mut w = Map::new();
                    for v in changed(sim, before, after) {
                        let name = &sim.prog.vars[v].name;
                        w.insert(name.clone(), values[name].clone());
                    }
                    json!({"process": p, "action": label, "writes": Value::Object(w)})
                })
                .collect();
            let mut m = Map::new();
            m.insert("step".into(), json!(now.step));
            m.insert("round".into(), json!(now.round.max(1)));
            m.insert("moves".into(), Value::Array(moves));
            if let Some(l) = sim.legitimate() {
                m.insert("legitimate".into(), json!(l));
            }
            writeln!(out, "{}", Value::Object(m))?;
        } else {
            writeln!(out, "{}", step_line(sim))?;
            match (self.was_legit, sim.legitimate()) {
                (Some(false), Some(true)) => writeln!(
                    out,
                    "-- legitimate from step {} (move {}, round {})",
                    now.step, now.moves, now.round
                )?,
                (Some(true), Some(false)) => {
                    writeln!(out, "-- legitimacy lost at step {}", now.step)?
                }
                _ => {}
            }
        }
        self.was_legit = sim.legitimate();
        Ok(())
    }
}

/// The last step in one line: `step 4 round 2: 1 copy (x: 0 -> 2); ...`,
/// movers in index order so traces read the same whatever the daemon's order.
pub fn step_line(sim: &Simulation) -> String {
    let last = sim.last();
    let now = sim.now();
    let mut order: Vec<usize> = (0..last.movers().len()).collect();
    order.sort_by_key(|&k| last.movers()[k]);
    let parts: Vec<String> = order
        .iter()
        .map(|&k| {
            let (p, label, before, after) = mover(sim, k);
            let changes: Vec<String> = changed(sim, before, after)
                .into_iter()
                .map(|v| {
                    format!(
                        "{}: {} -> {}",
                        sim.prog.vars[v].name,
                        sim.code.show_var(&sim.prog, sim.topo.nbrs(p), v, before),
                        sim.code.show_var(&sim.prog, sim.topo.nbrs(p), v, after)
                    )
                })
                .collect();
            let mut changes = changes;
            if let Some(Some((from, m))) = last.received.get(k) {
                changes.push(format!("took {} from {from}", msg_text(sim, m)));
            }
            for (_, to, m) in last.sent.iter().filter(|s| s.0 as usize == p) {
                changes.push(format!("sent {} to {to}", msg_text(sim, m)));
            }
            let changes = if changes.is_empty() {
                "no change".to_string()
            } else {
                changes.join(", ")
            };
            format!("{p} {label} ({changes})")
        })
        .collect();
    if last.tick {
        return format!(
            "-- round {} passes with no process enabled; timers advance",
            now.round.max(1)
        );
    }
    format!(
        "step {} round {}: {}",
        now.step,
        now.round.max(1),
        parts.join("; ")
    )
}

fn sorted(v: &[u32]) -> Vec<u32> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v
}

fn list(v: &[u32]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
}

/// Writes the summary in text form.
pub fn write_summary_text(
    out: &mut impl Write,
    sim: &Simulation,
    info: &RunInfo,
) -> io::Result<()> {
    let now = sim.now();
    let mut s = String::new();
    let mut line = |k: &str, v: String| s.push_str(&format!("{k:<11} {v}\n"));
    line("program", info.program.to_string());
    line(
        "topology",
        format!("{} ({} processes)", sim.topo.name, sim.n()),
    );
    if !sim.code.params.is_empty() {
        line(
            "parameters",
            sim.code
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    line("daemon", format!("{}, seed {}", info.daemon, info.seed));
    line("init", info.init.to_string());
    line(
        "stopped",
        format!("{} after step {}", info.stop.describe(), now.step),
    );
    line("steps", now.step.to_string());
    line("moves", now.moves.to_string());
    line(
        "rounds",
        format!("{} ({} complete)", now.round, sim.rounds_completed()),
    );
    match sim.legitimate() {
        None => line("legitimate", "no predicate declared".into()),
        Some(l) => {
            line(
                "legitimate",
                if l {
                    "yes, at the end".into()
                } else {
                    "no, not at the end".into()
                },
            );
            match (sim.stabilized_at(), sim.first_legitimate()) {
                (Some(p), first) => {
                    let mut v = format!("step {}, move {}, round {}", p.step, p.moves, p.round);
                    if sim.legitimacy_losses() > 0 {
                        let f = first.unwrap_or(p);
                        v.push_str(&format!(
                            " (first held at step {}, lost {} times since)",
                            f.step,
                            sim.legitimacy_losses()
                        ));
                    }
                    line("stabilized", v);
                }
                (None, Some(f)) => line(
                    "stabilized",
                    format!("no (held at step {} but was lost)", f.step),
                ),
                (None, None) => line("stabilized", "no".into()),
            }
        }
    }
    line(
        "silent",
        if sim.is_silent() {
            "yes".into()
        } else if sim.enabled().is_empty() {
            "no (no process enabled, but timers are running)".into()
        } else {
            format!("no ({} enabled)", sim.enabled().len())
        },
    );
    for (name, v) in sim.reports() {
        line(&name, v.unwrap_or_else(|why| format!("undefined ({why})")));
    }
    if let Some(st) = info.stats {
        line(
            "speed",
            format!(
                "{:.3e} steps/s, {:.3e} moves/s ({} steps in {}{})",
                Stats::rate(st.steps, st.seconds),
                Stats::rate(st.moves, st.seconds),
                st.steps,
                Stats::duration(st.seconds),
                if st.column_steps > 0 {
                    format!(", {} column by column", st.column_steps)
                } else {
                    String::new()
                }
            ),
        );
        line(
            "memory",
            format!(
                "{:.1} bytes/process ({:.1} MB in all)",
                st.bytes as f64 / sim.n() as f64,
                st.bytes as f64 / 1e6
            ),
        );
    }
    out.write_all(s.as_bytes())?;
    if info.show_final {
        // Line by line: the configuration of a large ring would be a large
        // text.
        writeln!(out, "final configuration:")?;
        let stride = sim.stride();
        let enabled = sorted(sim.enabled());
        for p in 0..sim.n() {
            let mark = if enabled.binary_search(&(p as u32)).is_ok() {
                " *"
            } else {
                ""
            };
            let row = row_text(sim, p, &sim.state[p * stride..(p + 1) * stride]);
            writeln!(out, "  {p}: {row}{mark}")?;
        }
        write!(out, "{}", channels_text(sim))?;
        writeln!(out, "  (* enabled)")?;
    }
    Ok(())
}

/// The summary as one JSON object.
pub fn summary_json(sim: &Simulation, info: &RunInfo) -> String {
    let now = sim.now();
    let stride = sim.stride();
    let params: Map<String, Value> = sim
        .code
        .params
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let mut v = json!({
        "program": info.program,
        "topology": sim.topo.name,
        "processes": sim.n(),
        "parameters": params,
        "daemon": info.daemon,
        "seed": info.seed,
        "init": info.init,
        "stopped": info.stop.key(),
        "steps": now.step,
        "moves": now.moves,
        "rounds": now.round,
        "rounds_complete": sim.rounds_completed(),
        "legitimate": sim.legitimate(),
        "stabilized": sim.stabilized_at(),
        "first_legitimate": sim.first_legitimate(),
        "legitimacy_losses": sim.legitimacy_losses(),
        "silent": sim.is_silent(),
        "enabled": sorted(sim.enabled()),
    });
    if !sim.code.reports.is_empty() {
        let mut m = Map::new();
        for (name, r) in sim.reports() {
            m.insert(
                name,
                match r {
                    Ok(v) => json!(v),
                    Err(why) => json!({ "undefined": why }),
                },
            );
        }
        v["reports"] = Value::Object(m);
    }
    if let Some(st) = info.stats {
        v["stats"] = json!({
            "seconds": st.seconds,
            "steps_per_second": Stats::rate(st.steps, st.seconds),
            "moves_per_second": Stats::rate(st.moves, st.seconds),
            "bytes": st.bytes,
            "bytes_per_process": st.bytes as f64 / sim.n() as f64,
            "column_steps": st.column_steps,
        });
    }
    if info.show_final {
        v["final"] = Value::Array(
            (0..sim.n())
                .map(|p| row_json(sim, &sim.state[p * stride..(p + 1) * stride]))
                .collect(),
        );
    }
    format!("{v}\n")
}

/// A runtime error as a diagnostic against the program's source.
pub fn runtime_error(
    e: &RunError,
    program: &str,
    source: &str,
    plain: bool,
    sim: Option<&Simulation>,
) -> String {
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
                pr = pr.label(*span, format!("in action `{label}`"));
            }
            let mut out = render(&[pr], program, source, plain);
            if let (Some(sim), Some(p)) = (sim, process) {
                let stride = sim.stride();
                out.push_str(&format!(
                    "  process {p} before the step: {}\n",
                    row_text(sim, *p, &sim.state[p * stride..(p + 1) * stride])
                ));
            }
            out
        }
        RunError::Conflict {
            step,
            var,
            edge,
            writers,
        } => {
            let [(p, la, sa), (q, lb, sb)] = &**writers;
            let pr = Problem::new(
                "guarded::runtime::conflict",
                format!(
                    "conflict at step {step}: processes {p} and {q} both write `{var}` of edge {}-{}",
                    edge.0, edge.1
                ),
            )
            .label(*sa, format!("process {p} writes it in `{la}`"))
            .label(*sb, format!("process {q} writes it in `{lb}`"))
            .help("an edge variable may be written by one end per step: run under a daemon that never moves two neighbours together (central, locally-central)");
            render(&[pr], program, source, plain)
        }
        RunError::Schedule { line, message } => format!("error: schedule line {line}: {message}\n"),
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
                    sim.code.roles[sim.code.role_of[p as usize] as usize].actions[a as usize].label
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
    let pr = Problem::new(
        "guarded::runtime::invariant",
        format!("invariant `{}` violated {cause}", inv.name),
    )
    .label(inv.span, "this no longer holds")
    .help("rerun with --trace to see the steps that led here");
    render(&[pr], program, source, plain)
}

#[cfg(test)]
mod tests {
    use super::Stats;

    #[test]
    fn durations_keep_their_digits() {
        assert_eq!(Stats::duration(2.5), "2.500 s");
        assert_eq!(Stats::duration(1.0), "1.000 s");
        assert_eq!(Stats::duration(0.0123), "12.3 ms");
        assert_eq!(Stats::duration(0.000_281_8), "281.8 µs");
        assert_eq!(Stats::duration(0.0), "0.0 µs");
    }
}
