//! `guarded verify`: explores every configuration of an instance under
//! each daemon asked for and prints, per daemon, the verdict, the worst
//! case or a shortest counterexample; `--witness DIR` writes each run it
//! reports as an init file and a schedule that `guarded run` replays.

use super::{load, plain, usage_error, InstanceArgs, EXIT_INPUT, EXIT_OK, EXIT_RUNTIME};
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::init::format_config;
use crate::state::Config;
use crate::verify::{Convergence, Explorer, Refusal, Run, Verdict};
use clap::Args;
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// A property failed: an invariant, closure or convergence.
pub const EXIT_PROPERTY: i32 = 5;

/// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
const EXIT_INTERRUPTED: i32 = 130;

/// Set by Ctrl-C; the exploration stops at its next progress report.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// A progress bar on standard error (drawn only on a terminal): what the
/// explorer is doing, how far, its rate and what is left.
struct Bar {
    bar: ProgressBar,
    phase: std::cell::RefCell<String>,
}

impl Bar {
    fn new() -> Self {
        let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
        Bar {
            bar: ProgressBar::new(0),
            phase: std::cell::RefCell::new(String::new()),
        }
    }

    /// Shows `what` at `done` of `total` (a spinner when the total is unknown);
    /// false once Ctrl-C was pressed.
    fn tell(&self, what: &str, done: u64, total: u64) -> bool {
        if *self.phase.borrow() != what {
            *self.phase.borrow_mut() = what.to_string();
            let template = if total > 0 {
                "{msg} {bar:30} {human_pos}/{human_len} ({rate}, {eta} left)"
            } else {
                "{spinner} {msg} {human_pos} states ({rate})"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                // Whole numbers a second: indicatif's own rate shows four decimals.
                let rate = |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0}/s", s.per_sec());
                };
                self.bar.set_style(style.with_key("rate", rate));
            }
            self.bar.set_message(what.to_string());
            self.bar.set_length(total);
            self.bar.reset();
        }
        self.bar.set_position(done);
        !INTERRUPTED.load(Ordering::SeqCst)
    }
}

/// The daemons verified when `--daemon all` (the default).
const ALL: [Daemon; 4] = [
    Daemon::Central,
    Daemon::LocallyCentral,
    Daemon::Distributed,
    Daemon::Synchronous,
];

/// Steps of a run printed in full; longer ones are cut (the witness files
/// hold them whole).
const SHOWN_STEPS: usize = 40;

#[derive(Args, Debug)]
pub(super) struct VerifyArgs {
    #[command(flatten)]
    pub(super) instance: InstanceArgs,
    /// Daemon: central, locally-central, distributed, synchronous, or all.
    #[arg(short, long, default_value = "all", value_name = "DAEMON")]
    daemon: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = super::Format::Text)]
    format: super::Format,
    /// Write every worst-case run and counterexample as DIR/NAME.init and
    /// DIR/NAME.sched, replayed by `guarded run PROGRAM --init DIR/NAME.init
    /// --daemon schedule:DIR/NAME.sched`.
    #[arg(long, value_name = "DIR")]
    witness: Option<PathBuf>,
}

/// Runs `guarded verify`; returns the exit code.
pub(super) fn verify(a: &VerifyArgs) -> i32 {
    let daemons: Vec<Daemon> = match a.daemon.as_str() {
        "all" => ALL.to_vec(),
        name if name.starts_with("schedule") => {
            return usage_error(
                "verify explores every run a daemon allows; a schedule is one run: replay it with `guarded run`".into(),
            )
        }
        name => match ALL.iter().find(|d| d.name() == name || (name == "sync" && **d == Daemon::Synchronous)) {
            Some(d) => vec![d.clone()],
            None => {
                let names = ALL.iter().map(|d| d.name()).chain(["all"]);
                let hint = crate::diagnostic::suggest(name, names)
                    .map_or(String::new(), |h| format!(" (did you mean `{h}`?)"));
                return usage_error(format!(
                    "unknown daemon `{name}`{hint}; use central, locally-central, distributed, synchronous or all"
                ));
            }
        },
    };
    let loaded = match load(&a.instance) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let inst = &loaded.inst;
    if let Some(dir) = &a.witness {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return usage_error(format!("--witness: cannot create `{}`: {e}", dir.display()));
        }
    }
    let bar = Bar::new();
    let progress = |what: &str, done: u64, total: u64| bar.tell(what, done, total);
    let explorer = match Explorer::with_progress(inst, Some(&progress)) {
        Ok(x) => x,
        Err(r) => {
            bar.bar.finish_and_clear();
            return refused(&r, inst, &a.instance.program, &loaded.source);
        }
    };
    let json = a.format == super::Format::Json;
    let mut out = if json {
        String::new()
    } else {
        header(inst, &a.instance.program, explorer.configurations())
    };
    let mut blocks = Vec::new();
    let mut all_hold = true;
    for daemon in &daemons {
        let verdict = match explorer.verify(daemon) {
            Ok(v) => v,
            Err(r) => {
                bar.bar.finish_and_clear();
                print!("{out}");
                return refused(&r, inst, &a.instance.program, &loaded.source);
            }
        };
        all_hold &= verdict.holds();
        let written = match &a.witness {
            Some(dir) => match write_witnesses(inst, &verdict, dir) {
                Ok(w) => w,
                Err(e) => {
                    print!("{out}");
                    return usage_error(format!("--witness: {e}"));
                }
            },
            None => Vec::new(),
        };
        if json {
            blocks.push(verdict_json(inst, &verdict, &written));
        } else {
            out.push_str(&block(inst, &verdict, &written));
        }
    }
    bar.bar.finish_and_clear();
    if json {
        let params: serde_json::Map<String, serde_json::Value> = inst
            .code
            .params
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        let v = json!({
            "program": a.instance.program,
            "topology": inst.topo.name,
            "processes": inst.topo.n(),
            "parameters": params,
            "configurations": explorer.configurations(),
            "holds": all_hold,
            "daemons": blocks,
        });
        out = format!("{v}\n");
    }
    print!("{out}");
    if all_hold {
        EXIT_OK
    } else {
        EXIT_PROPERTY
    }
}

/// Why the instance was not explored, as the user reads it.
fn refused(r: &Refusal, inst: &Instance, program: &str, source: &str) -> i32 {
    match r {
        Refusal::Interrupted => {
            eprintln!("interrupted: `{program}` was not explored to the end");
            EXIT_INTERRUPTED
        }
        Refusal::Unsupported(why) => {
            eprintln!("error: cannot verify `{program}`: {why}");
            EXIT_INPUT
        }
        Refusal::TooLarge(count) => {
            eprintln!(
                "error: `{program}` on {} has {count} configurations, more than the {} the verifier numbers; choose a smaller topology or narrower domains (parameters)",
                inst.topo.name,
                crate::verify::MAX_CONFIGURATIONS
            );
            EXIT_INPUT
        }
        Refusal::Runtime(failure) => {
            let (e, cfg) = &**failure;
            eprint!(
                "{}",
                crate::report::runtime_error(e, program, source, plain(), None)
            );
            eprintln!("  in the configuration {}", config_text(inst, cfg));
            EXIT_RUNTIME
        }
    }
}

fn header(inst: &Instance, program: &str, configurations: u64) -> String {
    let params: Vec<String> = inst
        .code
        .params
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let params = if params.is_empty() {
        String::new()
    } else {
        format!(", {}", params.join(" "))
    };
    format!(
        "{program} on {} ({} processes{params}): {configurations} configurations\n",
        inst.topo.name,
        inst.topo.n()
    )
}

/// One daemon's result block.
fn block(inst: &Instance, v: &Verdict, written: &[(String, PathBuf)]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\ndaemon {}: {} legitimate, {} transitions",
        v.daemon.name(),
        v.legitimate,
        v.transitions
    );
    let mut line = |k: &str, text: String| {
        let _ = writeln!(s, "  {k:<12} {text}");
    };
    line(
        "invariants",
        match &v.invariant {
            None if inst.code.invariants.is_empty() => "none declared".into(),
            None => "hold in every configuration".into(),
            Some((name, cfg)) => format!("`{name}` does not hold in {}", config_text(inst, cfg)),
        },
    );
    line(
        "closure",
        match &v.closure {
            None => "holds: no step leaves legitimacy".into(),
            Some(run) => format!("fails: {}", run_text(inst, run)),
        },
    );
    match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => {
            line("convergence", "holds: every run reaches legitimacy".into());
            let counted = match rounds {
                Some((r, _)) => format!(", {r} rounds"),
                None => format!(
                    " (rounds not counted: more than 64 processes or {} states)",
                    crate::verify::MAX_ROUND_STATES
                ),
            };
            line(
                "worst case",
                format!(
                    "{} steps, {} moves{counted}",
                    steps.steps.len(),
                    moves.moves()
                ),
            );
            line("most steps", run_text(inst, steps));
            line("most moves", run_text(inst, moves));
            if let Some((_, run)) = rounds {
                line("most rounds", run_text(inst, run));
            }
        }
        Convergence::Deadlock(cfg) => line(
            "convergence",
            format!(
                "fails: no process is enabled in {}, which is not legitimate",
                config_text(inst, cfg)
            ),
        ),
        Convergence::Cycle(run) => line(
            "convergence",
            format!(
                "fails: a cycle of {} steps outside legitimacy, {}",
                run.steps.len(),
                run_text(inst, run)
            ),
        ),
    }
    for (what, path) in written {
        line(
            "witness",
            format!("{what}: {}.init, .sched", path.display()),
        );
    }
    s
}

/// A configuration as JSON: one object of values per process.
fn config_json(inst: &Instance, cfg: &Config) -> serde_json::Value {
    let stride = inst.code.stride;
    serde_json::Value::Array(
        (0..inst.topo.n())
            .map(|p| {
                crate::report::values_json(
                    &inst.prog,
                    &inst.code,
                    &cfg.rows[p * stride..(p + 1) * stride],
                )
            })
            .collect(),
    )
}

/// A run as JSON: its start, each step's movers, and its moves.
fn run_json(inst: &Instance, run: &Run) -> serde_json::Value {
    json!({
        "start": config_json(inst, &run.start),
        "steps": run.steps,
        "moves": run.moves(),
    })
}

/// One daemon's verdict as JSON.
fn verdict_json(inst: &Instance, v: &Verdict, written: &[(String, PathBuf)]) -> serde_json::Value {
    let convergence = match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => json!({
            "holds": true,
            "worst_steps": steps.steps.len(),
            "worst_moves": moves.moves(),
            "worst_rounds": rounds.as_ref().map(|r| r.0),
            "most_steps": run_json(inst, steps),
            "most_moves": run_json(inst, moves),
            "most_rounds": rounds.as_ref().map(|r| run_json(inst, &r.1)),
        }),
        Convergence::Deadlock(cfg) => json!({"holds": false, "deadlock": config_json(inst, cfg)}),
        Convergence::Cycle(run) => json!({"holds": false, "cycle": run_json(inst, run)}),
    };
    let witnesses: serde_json::Map<String, serde_json::Value> = written
        .iter()
        .map(|(what, path)| (what.clone(), json!(path.display().to_string())))
        .collect();
    json!({
        "daemon": v.daemon.name(),
        "holds": v.holds(),
        "legitimate": v.legitimate,
        "transitions": v.transitions,
        "invariant": v.invariant.as_ref().map(|(name, cfg)| json!({"name": name, "in": config_json(inst, cfg)})),
        "closure": v.closure.as_ref().map(|run| json!({"holds": false, "step": run_json(inst, run)})).unwrap_or(json!({"holds": true})),
        "convergence": convergence,
        "witnesses": witnesses,
    })
}

/// A configuration in one line: `x = [0, 2, 1]` for one variable per
/// process, else `0: x=1 y=2 | 1: ...`.
fn config_text(inst: &Instance, cfg: &Config) -> String {
    let (prog, code, topo) = (&inst.prog, &inst.code, &inst.topo);
    let stride = code.stride;
    let show = |p: usize, v: usize| {
        code.show_var(
            prog,
            topo.nbrs(p),
            v,
            &cfg.rows[p * stride..(p + 1) * stride],
        )
    };
    if prog.vars.len() == 1 {
        let each: Vec<String> = (0..topo.n()).map(|p| show(p, 0)).collect();
        return format!("{} = [{}]", prog.vars[0].name, each.join(", "));
    }
    let procs: Vec<String> = (0..topo.n())
        .map(|p| {
            let vars: Vec<String> = (0..prog.vars.len())
                .map(|v| format!("{}={}", prog.vars[v].name, show(p, v)))
                .collect();
            format!("{p}: {}", vars.join(" "))
        })
        .collect();
    procs.join(" | ")
}

/// A run in one line: its start and each step's movers.
fn run_text(inst: &Instance, run: &Run) -> String {
    let mut steps: Vec<String> = run
        .steps
        .iter()
        .take(SHOWN_STEPS)
        .map(|m| {
            let ps: Vec<String> = m.iter().map(u32::to_string).collect();
            format!("{{{}}}", ps.join(","))
        })
        .collect();
    if run.steps.len() > SHOWN_STEPS {
        steps.push(format!("... ({} steps in all)", run.steps.len()));
    }
    if steps.is_empty() {
        format!("from {}", config_text(inst, &run.start))
    } else {
        format!(
            "from {}, moving {}",
            config_text(inst, &run.start),
            steps.join(" ")
        )
    }
}

/// Writes each run the verdict reports as NAME.init and NAME.sched in
/// `dir`; what each is, and its path without the extension.
fn write_witnesses(
    inst: &Instance,
    v: &Verdict,
    dir: &Path,
) -> Result<Vec<(String, PathBuf)>, String> {
    let daemon = v.daemon.name();
    let mut runs: Vec<(String, Run)> = Vec::new();
    if let Some((_, cfg)) = &v.invariant {
        runs.push((
            "invariant".into(),
            Run {
                start: cfg.clone(),
                steps: vec![],
            },
        ));
    }
    if let Some(run) = &v.closure {
        runs.push(("closure".into(), run.clone()));
    }
    match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => {
            runs.push(("most-steps".into(), steps.clone()));
            runs.push(("most-moves".into(), moves.clone()));
            if let Some((_, run)) = rounds {
                runs.push(("most-rounds".into(), run.clone()));
            }
        }
        Convergence::Deadlock(cfg) => runs.push((
            "deadlock".into(),
            Run {
                start: cfg.clone(),
                steps: vec![],
            },
        )),
        Convergence::Cycle(run) => runs.push(("cycle".into(), run.clone())),
    }
    let mut written = Vec::new();
    for (what, run) in runs {
        let path = dir.join(format!("{daemon}-{what}"));
        let init = format_config(
            &inst.prog,
            &inst.code,
            &inst.topo,
            &run.start.rows,
            &run.start.chans,
        );
        let sched: String = run
            .steps
            .iter()
            .map(|m| {
                let ps: Vec<String> = m.iter().map(u32::to_string).collect();
                ps.join(" ") + "\n"
            })
            .collect();
        for (ext, text) in [("init", init), ("sched", sched)] {
            let file = path.with_extension(ext);
            std::fs::write(&file, text)
                .map_err(|e| format!("cannot write `{}`: {e}", file.display()))?;
        }
        written.push((what, path));
    }
    Ok(written)
}
