//! The summary of a run: one value ([`Summary`]) worked out once from the
//! simulation and how the run was set up, rendered as text or as JSON.

use super::{channels_json, row_text, sorted};
use crate::runtime::engine::{Point, Simulation};
use crate::runtime::run::Stop;
use serde_json::{json, Map, Value};
use std::io::{self, Write};

/// The stop reason as the text summary words it.
pub fn describe(stop: &Stop) -> &'static str {
    match stop {
        Stop::Silent => "silent (no process enabled)",
        Stop::Legitimate => "legitimate (--until legitimate)",
        Stop::StepLimit => "step limit",
        Stop::MoveLimit => "move limit",
        Stop::IdleLimit => "idle limit (too many rounds in a row with only timers advancing)",
        Stop::ScheduleDone => "end of schedule",
        Stop::Invariant(_) | Stop::InvariantFault(_) => "invariant violated",
        Stop::Error(_) => "runtime error",
        Stop::Observer => "stopped by the user",
    }
}

/// The stop reason as a key (JSON, and later CSV).
pub fn key(stop: &Stop) -> &'static str {
    match stop {
        Stop::Silent => "silent",
        Stop::Legitimate => "legitimate",
        Stop::StepLimit => "step-limit",
        Stop::MoveLimit => "move-limit",
        Stop::IdleLimit => "idle-limit",
        Stop::ScheduleDone => "schedule-done",
        Stop::Invariant(_) | Stop::InvariantFault(_) => "invariant",
        Stop::Error(_) => "error",
        Stop::Observer => "stopped",
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
    pub stop: &'a Stop,
    /// Whether to print the final configuration.
    pub show_final: bool,
    /// Speed and memory, with `--stats`.
    pub stats: Option<Stats>,
    /// Moves per action label, and messages sent and delivered, when counted.
    pub tally: Option<&'a Tally>,
}

/// What a run did, counted step by step: moves per action (by label, roles
/// merged) and messages sent and delivered.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Per action label, in first-seen order: moves.
    pub moves: Vec<(String, u64)>,
    /// Messages sent (none counted when the program has no messages).
    pub sent: u64,
    /// Messages taken from a channel by a `receive`.
    pub delivered: u64,
}

impl Tally {
    /// `advance 12, copy 48`.
    fn moves_text(&self) -> String {
        let each: Vec<String> = self.moves.iter().map(|(l, k)| format!("{l} {k}")).collect();
        each.join(", ")
    }
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
    /// How many of them ran on the configuration narrowed to 32-bit values.
    pub narrowed_steps: u64,
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

/// Everything a run's summary says, worked out once.
pub struct Summary<'a> {
    /// How the run was set up and why it stopped.
    pub info: &'a RunInfo<'a>,
    /// The topology's name and size.
    pub topology: String,
    /// The number of processes.
    pub processes: usize,
    /// Parameter values.
    pub parameters: Vec<(String, i64)>,
    /// Steps, moves and rounds (a started round counted).
    pub now: Point,
    /// Complete rounds.
    pub rounds_complete: u64,
    /// Whether legitimacy holds at the end (`None`: no predicate).
    pub legitimate: Option<bool>,
    /// From when legitimacy has held without interruption.
    pub stabilized: Option<Point>,
    /// When it first held.
    pub first_legitimate: Option<Point>,
    /// How often it was lost after holding.
    pub losses: u64,
    /// No process enabled and no timer running.
    pub silent: bool,
    /// How many processes are enabled (the JSON form lists them, and the
    /// final configuration marks them, from the simulation itself: a list
    /// of a large ring's enabled processes is not kept for a count).
    pub enabled: usize,
    /// The program's reports, as text, or why one is undefined.
    pub reports: Vec<(String, Result<String, String>)>,
    /// Whether the program runs in ticks (a step is a tick).
    pub ticks: bool,
}

impl<'a> Summary<'a> {
    /// The summary of `sim`'s run so far.
    pub fn of(sim: &Simulation, info: &'a RunInfo<'a>) -> Self {
        Summary {
            info,
            topology: sim.topo.name.clone(),
            processes: sim.n(),
            parameters: sim.code.params.clone(),
            now: sim.now(),
            rounds_complete: sim.rounds_completed(),
            legitimate: sim.legitimate(),
            stabilized: sim.stabilized_at(),
            first_legitimate: sim.first_legitimate(),
            losses: sim.legitimacy_losses(),
            silent: sim.is_silent(),
            enabled: sim.enabled_count(),
            reports: sim.reports(),
            ticks: sim.runs_in_ticks(),
        }
    }

    /// What a step is called: a tick, in a program that runs in ticks.
    fn step_word(&self) -> &'static str {
        if self.ticks {
            "tick"
        } else {
            "step"
        }
    }

    fn stabilized_text(&self) -> String {
        match (self.stabilized, self.first_legitimate) {
            (Some(p), first) => {
                let word = self.step_word();
                let mut v = match self.ticks {
                    true => format!("tick {}, move {}", p.step, p.moves),
                    false => format!("step {}, move {}, round {}", p.step, p.moves, p.round),
                };
                if self.losses > 0 {
                    let f = first.unwrap_or(p);
                    v.push_str(&format!(
                        " (first held at {word} {}, lost {} times since)",
                        f.step, self.losses
                    ));
                }
                v
            }
            (None, Some(f)) => format!("no (held at {} {} but was lost)", self.step_word(), f.step),
            (None, None) => "no".into(),
        }
    }

    fn silent_text(&self) -> String {
        if self.silent {
            "yes".into()
        } else if self.enabled == 0 && self.ticks {
            "no (no process enabled, but timers are running or messages on their way)".into()
        } else if self.enabled == 0 {
            "no (no process enabled, but timers are running)".into()
        } else {
            format!("no ({} enabled)", self.enabled)
        }
    }

    /// The summary in text form; `sim` gives the final configuration.
    pub fn write_text(&self, out: &mut impl Write, sim: &Simulation) -> io::Result<()> {
        let (info, now) = (self.info, self.now);
        let mut s = String::new();
        let mut line = |k: &str, v: String| s.push_str(&format!("{k:<11} {v}\n"));
        line("program", info.program.to_string());
        line(
            "topology",
            format!(
                "{} ({})",
                self.topology,
                super::counted(self.processes as u64, "process")
            ),
        );
        if !self.parameters.is_empty() {
            let each: Vec<String> = self
                .parameters
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            line("parameters", each.join(" "));
        }
        // Where a process may have several moves, which one runs.
        let choice = if sim.code.may_choose() && !self.ticks {
            format!(", choice {}", sim.choice.name())
        } else {
            String::new()
        };
        line(
            "daemon",
            format!("{}, seed {}{choice}", info.daemon, info.seed),
        );
        line("init", info.init.to_string());
        let word = self.step_word();
        line(
            "stopped",
            format!("{} after {word} {}", describe(info.stop), now.step),
        );
        line(&format!("{word}s"), now.step.to_string());
        line("moves", now.moves.to_string());
        // In ticks every tick is a round: the line would repeat the ticks.
        if !self.ticks {
            line(
                "rounds",
                format!("{} ({} complete)", now.round, self.rounds_complete),
            );
        }
        match self.legitimate {
            None => line("legitimate", "no predicate declared".into()),
            Some(l) => {
                let at_end = if l {
                    "yes, at the end"
                } else {
                    "no, not at the end"
                };
                line("legitimate", at_end.into());
                line("stabilized", self.stabilized_text());
            }
        }
        line("silent", self.silent_text());
        if let Some(t) = info.tally {
            if !t.moves.is_empty() {
                line("actions", t.moves_text());
            }
            if sim.code.capacity.is_some() {
                line(
                    "messages",
                    format!("{} sent, {} delivered", t.sent, t.delivered),
                );
            }
        }
        for (name, v) in &self.reports {
            line(
                name,
                v.clone().unwrap_or_else(|why| format!("undefined ({why})")),
            );
        }
        if let Some(st) = info.stats {
            line("speed", speed_text(&st));
            line(
                "memory",
                format!(
                    "{:.1} bytes/process ({:.1} MB in all)",
                    st.bytes as f64 / self.processes as f64,
                    st.bytes as f64 / 1e6
                ),
            );
        }
        out.write_all(s.as_bytes())?;
        if info.show_final {
            self.write_final(out, sim)?;
        }
        Ok(())
    }

    /// The final configuration, line by line (the configuration of a large
    /// ring would be a large text), enabled processes marked.
    fn write_final(&self, out: &mut impl Write, sim: &Simulation) -> io::Result<()> {
        writeln!(out, "final configuration:")?;
        let stride = sim.stride();
        let ids = super::ids_differ(sim);
        for p in 0..sim.n() {
            let mark = if sim.chosen_action(p).is_some() {
                " *"
            } else {
                ""
            };
            let row = row_text(sim, p, &sim.state[p * stride..(p + 1) * stride]);
            writeln!(out, "  {}: {row}{mark}", super::process_label(sim, p, ids))?;
        }
        write!(out, "{}", super::channels_text(sim))?;
        // The legend of the marks, where there is a mark.
        match self.enabled {
            0 => Ok(()),
            _ => writeln!(out, "  (* enabled)"),
        }
    }

    /// The summary as one JSON object; `sim` gives the final configuration.
    pub fn to_json(&self, sim: &Simulation) -> String {
        let (info, now) = (self.info, self.now);
        let params: Map<String, Value> = self
            .parameters
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        let mut v = json!({
            "program": info.program,
            "topology": self.topology,
            "processes": self.processes,
            "parameters": params,
            "daemon": info.daemon,
            "seed": info.seed,
            "choice": sim.choice.name(),
            "init": info.init,
            "stopped": key(info.stop),
            "steps": now.step,
            "time": if self.ticks { "ticks" } else { "rounds" },
            "moves": now.moves,
            "rounds": now.round,
            "rounds_complete": self.rounds_complete,
            "legitimate": self.legitimate,
            "stabilized": self.stabilized,
            "first_legitimate": self.first_legitimate,
            "legitimacy_losses": self.losses,
            "silent": self.silent,
            "enabled": sorted(sim.enabled()),
        });
        if let Some(t) = info.tally {
            let moves: Map<String, Value> =
                t.moves.iter().map(|(l, k)| (l.clone(), json!(k))).collect();
            v["actions"] = Value::Object(moves);
            if sim.code.capacity.is_some() {
                v["messages"] = json!({"sent": t.sent, "delivered": t.delivered});
            }
        }
        if !self.reports.is_empty() {
            let mut m = Map::new();
            for (name, r) in &self.reports {
                let value = match r {
                    Ok(v) => json!(v),
                    Err(why) => json!({ "undefined": why }),
                };
                m.insert(name.clone(), value);
            }
            v["reports"] = Value::Object(m);
        }
        if let Some(st) = info.stats {
            v["stats"] = json!({
                "seconds": st.seconds,
                "steps_per_second": Stats::rate(st.steps, st.seconds),
                "moves_per_second": Stats::rate(st.moves, st.seconds),
                "bytes": st.bytes,
                "bytes_per_process": st.bytes as f64 / self.processes as f64,
                "column_steps": st.column_steps,
                "narrowed_steps": st.narrowed_steps,
            });
        }
        if info.show_final {
            let stride = sim.stride();
            v["final"] = super::configuration_json(sim, &sim.state[..sim.n() * stride]);
            if sim.code.capacity.is_some() {
                v["channels"] = channels_json(sim);
            }
        }
        format!("{v}\n")
    }
}

fn speed_text(st: &Stats) -> String {
    format!(
        "{:.3e} steps/s, {:.3e} moves/s ({} steps in {}{})",
        Stats::rate(st.steps, st.seconds),
        Stats::rate(st.moves, st.seconds),
        st.steps,
        Stats::duration(st.seconds),
        match (st.column_steps, st.narrowed_steps) {
            (0, _) => String::new(),
            (all, 0) => format!(", {all} column by column"),
            (all, narrowed) => format!(", {all} column by column, {narrowed} on 32-bit values"),
        }
    )
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
