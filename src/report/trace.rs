//! The trace of a run, printed as it goes: every step's movers, actions
//! and changed variables, as text or as JSON lines.

use super::{channels_json, channels_text, list, msg_text, row_json, row_text, sorted};
use crate::runtime::engine::{Simulation, StepRecord};
use crate::state::channels::Msg;
use serde_json::{json, Map, Value};
use std::io::{self, Write};

/// The `k`-th mover of the last step: its process, action label, and rows
/// before and after.
fn mover(sim: &Simulation, k: usize) -> (usize, &str, &[i64], &[i64]) {
    let last = sim.last();
    let p = last.movers()[k] as usize;
    let label = &sim.code.roles[sim.code.role_of.of(p)].actions[last.actions()[k] as usize].label;
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
    /// Whether the program runs in ticks (then a round is a tick).
    ticks: bool,
}

impl Tracer {
    /// A tracer in text or JSON-lines form.
    pub fn new(json: bool) -> Self {
        Tracer {
            json,
            order: Vec::new(),
            was_legit: None,
            idle: None,
            ticks: false,
        }
    }

    /// Prints rounds that passed idle, as one line.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        match self.idle.take() {
            None => Ok(()),
            Some((a, b)) if self.json => {
                writeln!(out, "{}", json!({"idle_rounds": [a, b], "tick": true}))
            }
            Some((a, b)) if a == b => writeln!(out, "-- {}", idle_text(self.ticks, a)),
            Some((a, b)) => {
                let what = if self.ticks { "ticks" } else { "rounds" };
                let rest = if self.ticks {
                    "pass with nothing to do: messages on their way, timers advance"
                } else {
                    "pass with no process enabled; timers advance"
                };
                writeln!(out, "-- {what} {a} to {b} {rest}")
            }
        }
    }

    /// The initial configuration.
    pub fn initial(&mut self, out: &mut impl Write, sim: &Simulation) -> io::Result<()> {
        let stride = sim.stride();
        self.was_legit = sim.legitimate();
        if self.json {
            let mut m = Map::new();
            m.insert("step".into(), json!(0));
            m.insert(
                "configuration".into(),
                super::configuration_json(sim, &sim.state[..sim.n() * stride]),
            );
            if sim.code.capacity.is_some() {
                m.insert("channels".into(), channels_json(sim));
            }
            m.insert("enabled".into(), json!(sorted(sim.enabled())));
            if let Some(l) = sim.legitimate() {
                m.insert("legitimate".into(), json!(l));
            }
            writeln!(out, "{}", Value::Object(m))
        } else {
            writeln!(out, "initial configuration:")?;
            let ids = super::ids_differ(sim);
            for p in 0..sim.n() {
                writeln!(
                    out,
                    "  {}: {}",
                    super::process_label(sim, p, ids),
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
        self.ticks = sim.runs_in_ticks();
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
                    let values = row_json(sim, p, after);
                    let mut w = Map::new();
                    for v in changed(sim, before, after) {
                        let name = &sim.prog.vars[v].name;
                        w.insert(name.clone(), values[name].clone());
                    }
                    let mut one =
                        json!({"process": p, "action": label, "writes": Value::Object(w)});
                    if let Some(m) = last.member(k) {
                        one["member"] = json!(m);
                    }
                    let drawn = last.drawn(k);
                    if !drawn.is_empty() {
                        one["drawn"] = json!(drawn);
                    }
                    if let Some(Some((from, msg))) = last.received.get(k) {
                        one["took"] = json!({"from": from, "message": msg_text(sim, msg)});
                    }
                    let sent: Vec<Value> = sent_by(last, k, p)
                        .map(|(_, to, msg)| {
                            let mut one =
                                json!({"to": to, "message": msg_text(sim, &arrived(msg))});
                            if sim.runs_in_ticks() {
                                one["ticks"] = json!(msg.due + 1);
                            }
                            one
                        })
                        .collect();
                    if !sent.is_empty() {
                        one["sent"] = Value::Array(sent);
                    }
                    one
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
            let word = if self.ticks { "tick" } else { "step" };
            match (self.was_legit, sim.legitimate()) {
                (Some(false), Some(true)) if self.ticks => writeln!(
                    out,
                    "-- legitimate from tick {} (move {})",
                    now.step, now.moves
                )?,
                (Some(false), Some(true)) => writeln!(
                    out,
                    "-- legitimate from step {} (move {}, round {})",
                    now.step, now.moves, now.round
                )?,
                (Some(true), Some(false)) => {
                    writeln!(out, "-- legitimacy lost at {word} {}", now.step)?
                }
                _ => {}
            }
        }
        self.was_legit = sim.legitimate();
        Ok(())
    }
}

/// The last step in one line: `step 4 round 2: 1 copy (x: 0 -> 2); ...`,
/// movers in index order so traces read the same whatever the daemon's
/// order; a move shows its binder member and the values it drew as a
/// schedule gives them (`2 flip<1> (...)`, `3 R1@2 (...)`).
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
            for (_, to, m) in sent_by(last, k, p) {
                let text = msg_text(sim, &arrived(m));
                changes.push(match sim.runs_in_ticks() {
                    true if m.due == 0 => format!("sent {text} to {to} (1 tick)"),
                    true => format!("sent {text} to {to} ({} ticks)", m.due + 1),
                    false => format!("sent {text} to {to}"),
                });
            }
            let changes = if changes.is_empty() {
                "no change".to_string()
            } else {
                changes.join(", ")
            };
            let member = last.member(k).map_or(String::new(), |m| format!("@{m}"));
            format!(
                "{p} {label}{member}{} ({changes})",
                drawn_text(last.drawn(k))
            )
        })
        .collect();
    if last.tick {
        return format!("-- {}", idle_text(sim.runs_in_ticks(), now.round.max(1)));
    }
    if sim.runs_in_ticks() {
        return format!("tick {}: {}", now.step, parts.join("; "));
    }
    format!(
        "step {} round {}: {}",
        now.step,
        now.round.max(1),
        parts.join("; ")
    )
}

/// The values a move drew as a schedule gives them (`<1,0>`), or nothing.
fn drawn_text(drawn: &[i64]) -> String {
    if drawn.is_empty() {
        return String::new();
    }
    let values: Vec<String> = drawn.iter().map(i64::to_string).collect();
    format!("<{}>", values.join(","))
}

/// A round (a tick) in which no process moved.
fn idle_text(ticks: bool, at: u64) -> String {
    if ticks {
        format!("tick {at} passes with nothing to do: messages on their way, timers advance")
    } else {
        format!("round {at} passes with no process enabled; timers advance")
    }
}

/// The messages the `k`-th move of the last step sent (its mover `p`):
/// where a process moves several times in a step (a tick), those of that
/// move; else all the process sent.
fn sent_by(last: &StepRecord, k: usize, p: usize) -> impl Iterator<Item = &(u32, u32, Msg)> + '_ {
    last.sent.iter().enumerate().filter_map(move |(i, s)| {
        let mine = match last.sent_by.get(i) {
            Some(&by) => by as usize == k,
            None => s.0 as usize == p,
        };
        mine.then_some(s)
    })
}

/// A message as sent, without how long it has still to go.
fn arrived(m: &Msg) -> Msg {
    Msg { due: 0, ..*m }
}
