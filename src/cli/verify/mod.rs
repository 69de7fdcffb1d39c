//! `guarded verify`: explores every configuration of an instance under
//! each daemon asked for and prints, per daemon, the verdict, the worst
//! case or a shortest counterexample; `--witness DIR` writes each run it
//! reports as an init file and a schedule that `guarded run` replays.

use super::{load, plain, usage_error, InstanceArgs, EXIT_INPUT, EXIT_OK, EXIT_RUNTIME};
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::init::format_config;
use crate::runtime::init::InitMode;
use crate::state::Config;
use crate::verify::{
    Choices, Convergence, Engine, Explorer, Progress, Refusal, Run, Starts, Symbolic, Verdict,
};
use clap::Args;
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod daemons;
mod engines;
mod expect;
mod expect_family;
mod family;
mod json;
mod one_line;
mod options;
mod show;
mod witness;

use daemons::{daemons, daemons_for_time};
use engines::{engine, explore_symbolically, EngineArg};
pub(super) use expect::{expect, ExpectArgs};
use json::verdict_json;
use one_line::config_text;
use options::{ChoiceArg, FairnessArg, Format};
use show::{block, header};
use std::sync::atomic::{AtomicBool, Ordering};
use witness::write_witnesses;

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
    phase: std::sync::Mutex<String>,
}

impl Bar {
    fn new() -> Self {
        let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
        Bar {
            bar: ProgressBar::new(0),
            phase: std::sync::Mutex::new(String::new()),
        }
    }

    /// Shows `what` at `done` of `total` (a spinner when the total is unknown);
    /// false once Ctrl-C was pressed.
    fn tell(&self, what: &str, done: u64, total: u64) -> bool {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if *phase != what {
            *phase = what.to_string();
            let template = if total > 0 {
                "{msg} {bar:30} {human_pos}/{human_len} ({rate}, {eta} left)"
            } else {
                "{spinner} {msg}: {human_pos} searched ({rate})"
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

/// Steps of a run printed in full; longer ones are cut (the witness files
/// hold them whole).
const SHOWN_STEPS: usize = 40;

#[derive(Args, Debug)]
pub(super) struct VerifyArgs {
    #[command(flatten)]
    pub(super) instance: InstanceArgs,
    /// Daemon: central, locally-central, distributed, synchronous, a
    /// comma-separated list of them (`central,synchronous`), or all.
    #[arg(short, long, default_value = "all", value_name = "DAEMON")]
    daemon: String,
    /// Where to start: `all` (every configuration, the default when the program
    /// declares `legitimate:`), `random` (every configuration within the
    /// declared `random` ranges, the arbitrary starts of `--init random`,
    /// values then free to go anywhere in their domains), `declared` (the
    /// declared initial values, the default otherwise) or an init file;
    /// from starts, only the configurations they reach are explored.
    #[arg(long, value_name = "all|random|declared|FILE")]
    from: Option<String>,
    /// Fairness, per process: `none` (the daemon may starve a process
    /// forever), `weak` (a cycle outside legitimacy, or round which a
    /// property fails, counts only when every process enabled throughout
    /// it moves in it) or `strong` (only when every process enabled
    /// anywhere on it moves in it; explicit engine).
    #[arg(long, value_enum, default_value_t = FairnessArg::None)]
    fairness: FairnessArg,
    /// Output format: `text`, `json`, or `csv` (a row per size and daemon,
    /// as for a family of sizes).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write every worst-case run and counterexample as DIR/NAME.init and
    /// DIR/NAME.sched, replayed by `guarded run PROGRAM --init DIR/NAME.init
    /// --daemon schedule:DIR/NAME.sched`, and DIR/NAME.dot, its
    /// configurations as a Graphviz chain.
    #[arg(long, value_name = "DIR")]
    witness: Option<PathBuf>,
    /// Do not search for the worst case in rounds (it searches over
    /// configurations and round states together: many times the time and
    /// memory of the rest); with the symbolic engine, nor for the worst
    /// moves under the synchronous daemon (a layer per move: several
    /// times the time of the rest).
    #[arg(long)]
    no_rounds: bool,
    /// Do not check the program's properties of runs (`property NAME:
    /// ...`): each is a pass over every configuration, and `stable` and
    /// `leads_to` keep every step; the output lists them as not checked.
    #[arg(long)]
    no_properties: bool,
    /// Which moves of a process are explored: `every` (each enabled action
    /// of the most urgent priority, each member of its binder whose guard
    /// holds, each value a draw can take: every run of the program) or
    /// `first` (the first enabled action in program order, for the first
    /// member, as `guarded run` takes it: a refinement).
    #[arg(long, value_enum, default_value_t = ChoiceArg::Every)]
    choice: ChoiceArg,
    /// Explore one configuration of each orbit under the instance's
    /// symmetries (automorphisms of the topology that keep roles and what
    /// the program reads of which process is which): the same verdicts and
    /// worst cases, with as many times fewer configurations as symmetries.
    #[arg(long)]
    symmetry: bool,
    /// Which engine explores: `explicit` (one configuration at a time:
    /// every measure, rounds included, up to 2^32 configurations),
    /// `symbolic` (sets of configurations as decision diagrams: verdicts
    /// and worst steps far past that, from every configuration or from
    /// starts), or `auto` (symbolic where it can take the program and
    /// there are 10^7 configurations or more, or as many arbitrary starts
    /// with `--from random`; else explicit); the output says which.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
}

/// The topologies `--topology` names (none: the program's own), and
/// whether they are a family, to be shown as a table: several sizes, or a
/// range that names one (`ring:4..4`).
pub(super) fn family_of(instance: &InstanceArgs) -> Result<(Vec<String>, bool), i32> {
    let specs = match &instance.topology {
        Some(t) => crate::sweep::grid::topologies(std::slice::from_ref(t))
            .map_err(|e| usage_error(format!("--topology: {e}")))?,
        None => Vec::new(),
    };
    let ranged = specs.len() > 1 || specs.first() != instance.topology.as_ref();
    Ok((specs, ranged))
}

/// Runs `guarded verify`; returns the exit code.
pub(super) fn verify(a: &VerifyArgs) -> i32 {
    let daemons = match daemons(&a.daemon) {
        Ok(d) => d,
        Err(code) => return code,
    };
    if a.symmetry && a.fairness != FairnessArg::None {
        return usage_error(format!(
            "--fairness {} follows each process round a cycle, which a cycle between orbits does not: drop --symmetry",
            crate::verify::Fairness::from(a.fairness).name()
        ));
    }
    if let Some(dir) = &a.witness {
        // Found writable before the search, not after it.
        let probe = dir.join(".guarded-witness-probe");
        let writable = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&probe, b""))
            .and_then(|()| std::fs::remove_file(&probe));
        if let Err(e) = writable {
            return usage_error(format!(
                "--witness: cannot write into `{}`: {e}",
                dir.display()
            ));
        }
    }
    let (specs, ranged) = match family_of(&a.instance) {
        Ok(found) => found,
        Err(code) => return code,
    };
    if ranged || a.format == Format::Csv {
        return family::family(a, &specs, &daemons);
    }
    let mut loaded = match load(&a.instance) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let start = match start(a, &mut loaded) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let inst = &loaded.inst;
    let daemons = match daemons_for_time(a, inst, daemons) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let bar = Bar::new();
    let explored = explore(a, inst, &start, &daemons, &bar, a.witness.as_deref());
    bar.bar.finish_and_clear();
    let (found, stopped) = match explored {
        Ok(found) => (found, None),
        Err((found, stop)) => (found, Some(stop)),
    };
    let json = a.format == Format::Json;
    let all_hold = found.verdicts.iter().all(|(v, _)| v.holds());
    let out = if json {
        let blocks = found
            .verdicts
            .iter()
            .map(|(v, written)| verdict_json(inst, v, written))
            .collect();
        json::summary_json(
            a,
            inst,
            (found.configurations, found.symmetries),
            start.is_from_starts(),
            all_hold,
            blocks,
        )
    } else {
        let mut out = header(
            inst,
            &a.instance.program,
            (found.configurations, a.symmetry.then_some(found.symmetries)),
            a.choice.into(),
            &start,
        );
        for (v, written) in &found.verdicts {
            out.push_str(&block(inst, v, written, start.is_from_starts()));
        }
        out
    };
    match stopped {
        // Nothing explored at all: the refusal alone.
        Some(Stop::Refused(r)) if found.configurations.is_none() && found.verdicts.is_empty() => {
            refused(&r, inst, &a.instance.program, &loaded.source)
        }
        Some(Stop::Refused(r)) if !json => {
            print!("{out}");
            refused(&r, inst, &a.instance.program, &loaded.source)
        }
        Some(Stop::Refused(r)) => refused(&r, inst, &a.instance.program, &loaded.source),
        Some(Stop::Witness(e)) => {
            print!("{out}");
            usage_error(format!("--witness: {e}"))
        }
        None => {
            print!("{out}");
            if all_hold {
                EXIT_OK
            } else {
                EXIT_PROPERTY
            }
        }
    }
}

/// What exploring one instance under each daemon found: the configurations
/// (from every configuration), and each daemon's verdict with the witness
/// files written.
struct Found {
    configurations: Option<u64>,
    /// How many symmetries it went by (1: none).
    symmetries: usize,
    verdicts: Vec<(Verdict, Vec<(String, PathBuf)>)>,
}

/// Why an exploration stopped before its end.
enum Stop {
    Refused(Refusal),
    Witness(String),
}

/// Explores `inst` from every configuration (or from the starts `origin`
/// names) under each of `daemons`, with `a`'s choices, fairness and rounds, writing each
/// verdict's runs into `witness` if given; on a stop, what was found
/// before it.
fn explore(
    a: &VerifyArgs,
    inst: &Instance,
    origin: &Origin,
    daemons: &[Daemon],
    bar: &Bar,
    witness: Option<&Path>,
) -> Result<Found, (Found, Stop)> {
    let progress = |what: &str, done: u64, total: u64| bar.tell(what, done, total);
    let mut found = Found {
        configurations: None,
        symmetries: 1,
        verdicts: Vec::new(),
    };
    if let Err(r) = crate::verify::refuse_unlistable(inst) {
        return Err((found, Stop::Refused(r)));
    }
    match engine(a, inst, origin) {
        Ok(Engine::Explicit) => {}
        Ok(Engine::Symbolic) => {
            return explore_symbolically(a, inst, origin, daemons, &progress, witness, found)
        }
        Err(r) => return Err((found, Stop::Refused(r))),
    }
    // From every configuration one numbering serves every daemon; from a
    // start, what is reached depends on the daemon.
    let every = match origin {
        Origin::Every => {
            let made = match a.symmetry {
                true => Explorer::by_orbits(inst, Some(&progress), a.choice.into()),
                false => Explorer::with_progress(inst, Some(&progress)).map(|mut x| {
                    x.choose(a.choice.into())
                        .expect("an explorer from every configuration takes any choices");
                    x
                }),
            };
            match made {
                Ok(mut x) => {
                    x.count_rounds(!a.no_rounds);
                    x.check_properties(!a.no_properties);
                    found.configurations = Some(x.configurations());
                    found.symmetries = x.symmetries();
                    Some(x)
                }
                Err(r) => return Err((found, Stop::Refused(r))),
            }
        }
        Origin::Arbitrary | Origin::At(_) => None,
    };
    for daemon in daemons {
        let verdict = match (daemon, origin) {
            (Daemon::Ticks, Origin::At(cfg)) => {
                let progress: Progress = &progress;
                crate::verify::verify_ticks(inst, cfg.clone(), Some(progress))
            }
            _ => verify_under(
                a,
                inst,
                origin,
                daemon,
                every.as_ref(),
                &progress,
                &mut found,
            ),
        };
        found = keep(inst, verdict, witness, found)?;
    }
    Ok(found)
}

/// Keeps `verdict` (or the refusal in its place) in `found`, with its
/// witnesses written into `witness` if given.
fn keep(
    inst: &Instance,
    verdict: Result<Verdict, Refusal>,
    witness: Option<&Path>,
    mut found: Found,
) -> Result<Found, (Found, Stop)> {
    let verdict = match verdict {
        Ok(v) => v,
        Err(r) => return Err((found, Stop::Refused(r))),
    };
    let (written, failed) = match witness {
        Some(dir) => match write_witnesses(inst, &verdict, dir) {
            Ok(w) => (w, None),
            Err(e) => (Vec::new(), Some(e)),
        },
        None => (Vec::new(), None),
    };
    // The verdict is printed even when its witnesses could not be.
    found.verdicts.push((verdict, written));
    match failed {
        Some(e) => Err((found, Stop::Witness(e))),
        None => Ok(found),
    }
}

/// The verdict under `daemon`, from every configuration (`every`, numbered
/// already) or from the starts `origin` names.
fn verify_under(
    a: &VerifyArgs,
    inst: &Instance,
    origin: &Origin,
    daemon: &Daemon,
    every: Option<&Explorer>,
    progress: Progress,
    found: &mut Found,
) -> Result<Verdict, Refusal> {
    let reached;
    let explorer = match (every, origin) {
        (Some(x), _) => x,
        (None, Origin::At(_) | Origin::Arbitrary) => {
            let progress: Progress = progress;
            let starts = match origin {
                Origin::At(cfg) => Starts::One(cfg.clone()),
                _ => Starts::arbitrary(inst)?,
            };
            let (choices, progress) = (a.choice.into(), Some(progress));
            let plan = (choices, a.symmetry, !a.no_rounds);
            let mut x = Explorer::reachable_for(inst, starts, (daemon, progress), plan)?;
            x.check_properties(!a.no_properties);
            found.symmetries = x.symmetries();
            reached = x;
            &reached
        }
        (None, Origin::Every) => unreachable!("every configuration is numbered above"),
    };
    explorer.verify_fairly(daemon, a.fairness.into())
}

/// A count of configurations as the user reads it: it saturates, and past
/// 2^128 says so.
fn saturated(count: u128) -> String {
    if count == u128::MAX {
        "2^128 or more".to_string()
    } else {
        count.to_string()
    }
}

/// Past what the explicit engine numbers: whether the symbolic engine
/// takes the instance (explored `from_starts`), or why it cannot.
fn symbolic_instead(inst: &Instance, from_starts: bool) -> String {
    match crate::verify::symbolic_unsupported(inst, from_starts) {
        Some(why) => format!(" (the symbolic engine cannot take it either: {why})"),
        None => ", or use --engine symbolic".into(),
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
        Refusal::TooManyReached(count) => {
            eprintln!(
                "error: `{program}` on {} reaches more than {count} configurations from its start, more than the verifier keeps ({:.1} GiB, half the memory budget, and with channels at most 2 GiB of configurations); choose a smaller topology, or raise the budget with --memory-limit",
                inst.topo.name,
                crate::verify::max_reachable_bytes() as f64 / f64::from(1u32 << 30)
            );
            EXIT_INPUT
        }
        Refusal::TooLarge(count) => {
            eprintln!(
                "error: `{program}` on {} has {} configurations, more than the {} the verifier numbers; choose a smaller topology or narrower domains (parameters){}",
                inst.topo.name,
                saturated(*count),
                crate::verify::MAX_CONFIGURATIONS,
                symbolic_instead(inst, false)
            );
            EXIT_INPUT
        }
        Refusal::OutOfNodes => {
            eprintln!(
                "error: `{program}` on {}: the decision diagrams outgrew their node limit (the memory budget); raise it with --memory-limit, or use --engine explicit",
                inst.topo.name
            );
            EXIT_INPUT
        }
        Refusal::TooManyStarts(count) => {
            eprintln!(
                "error: `{program}` on {} has {} arbitrary starts (--from random), more than the {} the verifier numbers; choose a smaller topology or narrower `random` ranges (parameters){}",
                inst.topo.name,
                saturated(*count),
                crate::verify::MAX_CONFIGURATIONS,
                symbolic_instead(inst, true)
            );
            EXIT_INPUT
        }
        Refusal::TooManySteps(daemon, enabled, symmetries) => {
            let (most, why, leave_out) = match symmetries {
                1 => (crate::runtime::daemon::MAX_STEPS_LISTED, String::new(), ""),
                k => (
                    crate::verify::steps_listed(*k, inst.topo.n()),
                    format!(
                        " by orbits (each step's configuration is compared with its images under {k} symmetries, process by process: at most {} process images from one configuration)",
                        crate::verify::MOST_IMAGES
                    ),
                    ", or leave out --symmetry",
                ),
            };
            eprintln!(
                "error: `{program}` on {} has a configuration with {enabled} enabled processes, where the {} daemon allows more than {most} steps ({}), more than the verifier lists from one configuration{why}; choose another daemon, `--choice first` or a smaller topology{leave_out}",
                inst.topo.name,
                daemon.name(),
                match daemon {
                    Daemon::LocallyCentral => "set of them no two of which are neighbours, each with any of its moves",
                    Daemon::Synchronous => "one move of each",
                    Daemon::Central => "any one of them, with any of its moves",
                    _ => "non-empty set of them, each with any of its moves",
                },
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

/// Where verify's runs start (`--from`).
pub(super) enum Origin {
    /// Every configuration.
    Every,
    /// Every arbitrary start: each configuration within the declared
    /// `random` ranges, values then free to go anywhere in their domains.
    Arbitrary,
    /// One configuration: the declared values, or an init file's.
    At(Config),
}

impl Origin {
    /// Whether only what the starts reach is explored.
    pub(super) fn is_from_starts(&self) -> bool {
        !matches!(self, Origin::Every)
    }
}

/// Where the exploration starts: `--from`, by default every configuration
/// when the program declares `legitimate:`, else the declared values.
fn start(a: &VerifyArgs, loaded: &mut super::Loaded) -> Result<Origin, i32> {
    start_from(a.from.as_deref(), &a.instance.program, loaded)
}

/// `--from all|random|declared|FILE` (of `verify` and `export promela`).
pub(super) fn start_from(
    from: Option<&str>,
    program: &str,
    loaded: &mut super::Loaded,
) -> Result<Origin, i32> {
    let mode = match from {
        Some("all") => return Ok(Origin::Every),
        None if loaded.inst.prog.legitimate.is_some() => return Ok(Origin::Every),
        Some("random") if loaded.inst.runs_in_ticks() => {
            eprintln!(
                "error: `{program}` runs in ticks, and its arbitrary starts would hold messages on their way for every number of ticks: start from the declared values (`--from declared`) or an init file"
            );
            return Err(EXIT_INPUT);
        }
        Some("random") => return Ok(Origin::Arbitrary),
        None | Some("declared") => InitMode::Declared,
        Some(path) => match crate::load::read_file(path) {
            Ok(text) => InitMode::File(path.to_string(), text),
            Err(e) => {
                let meant = crate::diagnostic::suggest(path, ["all", "random", "declared"])
                    .map_or(String::new(), |w| format!("did you mean `{w}`? "));
                return Err(usage_error(format!(
                    "--from: {e} ({meant}use `all`, `random`, `declared` or a file)"
                )));
            }
        },
    };
    loaded
        .inst
        .initial(&mode, &[])
        .map(Origin::At)
        .map_err(|e| super::report_load_error(&e, program, &loaded.source))
}
