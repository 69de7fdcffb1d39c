//! `guarded expect`: the expected time to legitimacy, where runs draw
//! (the daemon's movers as `guarded run` draws them, the values of
//! `random(...)`): whether legitimacy is reached with probability 1, and
//! the expected steps, moves and rounds from the worst configuration,
//! from the declared start, and on average over the starts.

use super::*;
use crate::report::counted;
use crate::verify::expected::{self, Cost, Model, MoverChoice, Movers, Solution};
use options::ExpectChoiceArg;

#[derive(Args, Debug)]
pub(in crate::cli) struct ExpectArgs {
    #[command(flatten)]
    pub(super) instance: InstanceArgs,
    /// Daemon: synchronous, central or distributed (movers drawn as
    /// `guarded run` draws them), or with --adversary also locally-central;
    /// a comma-separated list, or a range of sizes (`--topology
    /// ring:3..8`), gives a table of every size under every daemon.
    #[arg(short, long, default_value = "synchronous", value_name = "DAEMON")]
    daemon: String,
    /// The daemon chooses the movers to make stabilization slowest (the
    /// maximum over its strategies) instead of drawing them.
    #[arg(long)]
    pub(super) adversary: bool,
    /// Where runs start: `all` (every configuration, the default), `random`
    /// (every configuration within the declared `random` ranges, channels
    /// empty),
    /// `declared` or an init file; the average is over these starts.
    #[arg(long, value_name = "all|random|declared|FILE")]
    pub(super) from: Option<String>,
    /// A process's choice between enabled actions and binder members:
    /// `every` (each a choice, made to be slowest), `first` (the first,
    /// as `guarded run` takes it) or `random` (one drawn uniformly, as
    /// `guarded run --choice random` draws it).
    #[arg(long, value_enum, default_value_t = ExpectChoiceArg::Every)]
    pub(super) choice: ExpectChoiceArg,
    /// Output format: `text`, `json`, or `csv` (a row per size and daemon).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(super) format: Format,
    /// Write the worst configurations as DIR/worst-steps.init,
    /// DIR/worst-moves.init and DIR/worst-rounds.init (`guarded run
    /// --init`), and where probability 1 fails, DIR/no-sure-arrival.init.
    #[arg(long, value_name = "DIR")]
    pub(super) witness: Option<PathBuf>,
}

/// The most configurations the model keeps.
const MOST_CONFIGURATIONS: usize = 1 << 24;

/// The expected steps, moves and rounds (or why rounds are not computed),
/// the most sweeps value iteration took, and whether every value computed
/// is certified.
pub(super) struct Measures {
    pub(super) steps: Measure,
    pub(super) moves: Measure,
    pub(super) rounds: Result<Measure, String>,
    pub(super) sweeps: usize,
    pub(super) certified: bool,
}

/// The most states (a configuration and the processes its round still
/// owes) the model of rounds keeps.
const MOST_ROUND_STATES: usize = 1 << 24;

/// What one measure came to.
pub(super) struct Measure {
    pub(super) worst: (f64, u32),
    pub(super) average: f64,
    pub(super) declared: Option<f64>,
}

/// The daemons `--daemon` names: one or a comma-separated list, each
/// once; locally-central only with `--adversary`.
fn expect_daemons(names: &str, adversary: bool) -> Result<Vec<Daemon>, i32> {
    let mut out: Vec<Daemon> = Vec::new();
    for name in names.split(',').map(str::trim) {
        let daemon = match Daemon::parse(name, &|_| Err(String::new())) {
            Ok(d @ (Daemon::Central | Daemon::Synchronous | Daemon::Distributed)) => d,
            Ok(Daemon::LocallyCentral) if adversary => Daemon::LocallyCentral,
            Ok(_) | Err(_) => {
                return Err(usage_error(format!(
                    "--daemon: `{name}` is not one of synchronous, central, distributed (and locally-central with --adversary), nor a comma-separated list of them"
                )))
            }
        };
        if !out.contains(&daemon) {
            out.push(daemon);
        }
    }
    Ok(out)
}

pub(in crate::cli) fn expect(a: &ExpectArgs) -> i32 {
    let daemons = match expect_daemons(&a.daemon, a.adversary) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let (specs, ranged) = match family_of(&a.instance) {
        Ok(found) => found,
        Err(code) => return code,
    };
    if ranged || daemons.len() > 1 || a.format == Format::Csv {
        return super::expect_family::expect_family(a, &specs, &daemons);
    }
    let mut loaded = match load(&a.instance) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let (origin, declared) = match starting(a, &mut loaded) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let inst = &loaded.inst;
    let bar = Bar::new();
    let computed = compute(a, inst, (&origin, declared.as_ref()), &daemons[0], &bar);
    bar.bar.finish_and_clear();
    let answer = match computed {
        Ok(c) => c,
        Err(r) => return expect_refused(&r, inst, &a.instance.program, &loaded.source),
    };
    if let Some(dir) = &a.witness {
        let (model, bad, measures) = (&answer.model, answer.bad, answer.measures.as_ref());
        if let Err(e) = write_worst(inst, model, bad, measures, dir) {
            eprintln!("error: --witness: {e}");
            return EXIT_INPUT;
        }
    }
    let out = match a.format {
        Format::Json => expect_json(a, inst, &answer),
        _ => expect_text(a, inst, &answer),
    };
    print!("{out}");
    match answer.bad {
        Some(_) => EXIT_PROPERTY,
        None => EXIT_OK,
    }
}

/// Where runs start (`--from`) and the declared start, once the program
/// is found to declare legitimacy.
pub(super) fn starting(
    a: &ExpectArgs,
    loaded: &mut super::super::Loaded,
) -> Result<(Origin, Option<Config>), i32> {
    let program = &a.instance.program;
    if loaded.inst.prog.legitimate.is_none() {
        eprintln!("error: `{program}` declares no `legitimate:` predicate: there is no time to legitimacy to expect");
        return Err(EXIT_INPUT);
    }
    let declared = loaded
        .inst
        .initial(&InitMode::Declared, &[])
        .ok()
        .map(|mut c| {
            c.canonicalize();
            c
        });
    let origin = start_from(a.from.as_deref(), program, loaded)?;
    Ok((origin, declared))
}

/// What `expect` computed for one instance under one daemon: the model,
/// where probability 1 fails, or the expected times, and how steps were
/// drawn and chosen.
pub(super) struct Computed {
    pub(super) model: Model,
    pub(super) bad: Option<(u32, u32)>,
    pub(super) measures: Option<Measures>,
    pub(super) how: String,
}

/// Builds the model of `inst` from `origin` under `daemon` and solves it.
pub(super) fn compute(
    a: &ExpectArgs,
    inst: &Instance,
    (origin, declared): (&Origin, Option<&Config>),
    daemon: &Daemon,
    bar: &Bar,
) -> Result<Computed, Refusal> {
    let starts = match origin {
        Origin::Every => {
            crate::verify::refuse_every_channel_content(inst)?;
            crate::verify::refuse_unlistable(inst)?;
            Starts::Every(inst.space())
        }
        Origin::Arbitrary => Starts::arbitrary(inst)?,
        Origin::At(cfg) => Starts::One(cfg.clone()),
    };
    let movers = match a.adversary {
        true => Movers::Adversary(daemon.clone()),
        false => Movers::AsRuns(daemon.clone()),
    };
    let progress = |what: &str, done: u64, total: u64| bar.tell(what, done, total);
    let model = expected::build(
        inst,
        starts,
        &movers,
        a.choice.into(),
        MOST_CONFIGURATIONS,
        Some(&progress),
    )?;
    let bad = expected::no_sure_arrival(&model);
    let solutions = match bad {
        Some(_) => None,
        None => Some(solve(&model, inst.topo.n(), &progress)?),
    };
    let at_declared = declared.and_then(|d| model.configs.iter().position(|c| c.rows == d.rows));
    let measures = solutions.as_ref().map(|(steps, moves, rounds)| {
        let measure = |values: &[f64]| Measure {
            worst: worst_start(&model, values),
            average: values[..model.starts].iter().sum::<f64>() / model.starts.max(1) as f64,
            declared: at_declared.map(|i| values[i]),
        };
        let rounds_sweeps = rounds.as_ref().map_or(0, |r| r.sweeps);
        let rounds_certified = rounds.as_ref().map_or(true, |r| r.certified);
        Measures {
            steps: measure(&steps.values),
            moves: measure(&moves.values),
            rounds: rounds
                .as_ref()
                .map(|r| measure(&r.values))
                .map_err(Clone::clone),
            sweeps: steps.sweeps.max(moves.sweeps).max(rounds_sweeps),
            certified: steps.certified && moves.certified && rounds_certified,
        }
    });
    let how = describe(&movers, a.choice.into(), inst);
    Ok(Computed {
        model,
        bad,
        measures,
        how,
    })
}

/// The expected steps, moves and rounds (or why rounds are not
/// computed) from each configuration of `model`, of `processes`.
fn solve(
    model: &Model,
    processes: usize,
    progress: Progress,
) -> Result<(Solution, Solution, Result<Solution, String>), Refusal> {
    let steps = expected::expected(model, Cost::Steps, Some(progress))?;
    let moves = match model.one_move_a_step() {
        true => steps.clone(),
        false => expected::expected(model, Cost::Moves, Some(progress))?,
    };
    let rounds = expected::expected_rounds(
        model,
        processes,
        MOST_ROUND_STATES,
        &steps.values,
        Some(progress),
    );
    let rounds = match rounds {
        Ok(solution) => Ok(solution),
        Err(Refusal::Unsupported(why)) => Err(why),
        Err(Refusal::TooManyReached(count)) => Err(format!(
            "more than {count} configurations and rounds in progress"
        )),
        Err(other) => return Err(other),
    };
    Ok((steps, moves, rounds))
}

/// Why the expected times were not computed, as the user reads it.
pub(super) fn expect_refused(r: &Refusal, inst: &Instance, program: &str, source: &str) -> i32 {
    match r {
        Refusal::Unsupported(why) => {
            eprintln!("error: cannot compute expected times for `{program}`: {why}");
            EXIT_INPUT
        }
        Refusal::TooManyReached(count) => {
            eprintln!(
                "error: `{program}` on {}: its starts are or reach more than {count} configurations, more than `guarded expect` keeps; choose a smaller topology or narrower domains (parameters), or start from fewer (`--from declared` or a file)",
                inst.topo.name
            );
            EXIT_INPUT
        }
        other => refused(other, inst, program, source),
    }
}

/// The start with the largest value, and the value: the first of those
/// whose values are within [`TIES`] of the largest, which value iteration
/// does not tell apart (starts symmetric to each other have one value, up
/// to the rounding of the sweeps' order).
fn worst_start(model: &Model, values: &[f64]) -> (f64, u32) {
    let starts = &values[..model.starts];
    let most = starts.iter().fold(0.0f64, |m, &v| m.max(v));
    let tied = |&s: &usize| most - starts[s] <= TIES * most.max(1.0);
    (0..model.starts)
        .find(tied)
        .map_or((0.0, 0), |s| (starts[s], s as u32))
}

/// Values closer than this are a tie (relative to the value, absolutely
/// where it is below one): value iteration's values lie within
/// [`expected::CERTIFIED_WITHIN`] of the exact ones where certified (so
/// two of one exact value within twice that), further where not.
const TIES: f64 = 2.0 * expected::CERTIFIED_WITHIN;

/// How the steps are drawn and chosen, as the output says it.
fn describe(movers: &Movers, choices: MoverChoice, inst: &Instance) -> String {
    let may_choose = inst.code.may_choose();
    let who = match movers {
        Movers::AsRuns(Daemon::Synchronous) | Movers::Adversary(Daemon::Synchronous) => {
            "synchronous: every enabled process moves".to_string()
        }
        Movers::AsRuns(Daemon::Central) => {
            "central: one enabled process, drawn uniformly (as guarded run draws it)".into()
        }
        Movers::AsRuns(_) => "distributed: each enabled process with probability 1/2, one drawn uniformly when none is (as guarded run draws them)".into(),
        Movers::Adversary(d) => format!(
            "{}: an adversary chooses the movers to make stabilization slowest",
            d.name()
        ),
    };
    let choice = match (choices, may_choose) {
        (_, false) => "each mover's one enabled action",
        (MoverChoice::Slowest, true) => {
            "each mover's choice of action and binder member made to be slowest"
        }
        (MoverChoice::First, true) => "each mover's first enabled action (as guarded run takes it)",
        (MoverChoice::Drawn, true) => "each mover's action and binder member drawn uniformly among those it may take (as guarded run --choice random draws them)",
    };
    let draws = match inst.code.has_random {
        true => "each value drawn uniformly",
        false => "no draws",
    };
    format!("{who}; {choice}; {draws}")
}

fn expect_text(a: &ExpectArgs, inst: &Instance, answer: &Computed) -> String {
    let (model, how, bad) = (&answer.model, &answer.how, answer.bad);
    let measures = answer.measures.as_ref();
    let mut out = String::new();
    let legit = model.legit.iter().filter(|&&l| l).count();
    let _ = writeln!(
        out,
        "{} on {} ({}): {} reached from {}, {legit} legitimate",
        a.instance.program,
        inst.topo.name,
        counted(inst.topo.n() as u64, "process"),
        counted(model.configs.len() as u64, "configuration"),
        counted(model.starts as u64, "start")
    );
    let _ = writeln!(out, "steps: {how}");
    if let Some((start, trap)) = bad {
        let chosen = a.adversary || (a.choice == ExpectChoiceArg::Every && inst.code.may_choose());
        let kept = match start == trap {
            true => "runs can be kept out of it for ever from there".to_string(),
            false => format!(
                "from {}, runs can be kept out of it for ever",
                config_text(inst, &model.configs[trap as usize])
            ),
        };
        let _ = writeln!(
            out,
            "probability 1  fails: from {}, legitimacy may never be reached (with positive probability{}): {kept}",
            config_text(inst, &model.configs[start as usize]),
            if chosen { ", with the worst choices" } else { "" },
        );
        return out;
    }
    let _ = writeln!(
        out,
        "probability 1  holds: from every start legitimacy is reached with probability 1"
    );
    let Some(measures) = measures else {
        return out;
    };
    let mut named = vec![("steps", &measures.steps), ("moves", &measures.moves)];
    if let Ok(rounds) = &measures.rounds {
        named.push(("rounds", rounds));
    }
    for (name, m) in named {
        let declared = match m.declared {
            Some(v) => format!(", from the declared start {v:.6}"),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "expected {name:<6} worst {:.6}{declared}, average {:.6} over the starts",
            m.worst.0, m.average
        );
        let _ = writeln!(
            out,
            "  worst from   {}",
            config_text(inst, &model.configs[m.worst.1 as usize])
        );
    }
    let _ = writeln!(
        out,
        "solved by      value iteration, {}, {}{}",
        counted(measures.sweeps as u64, "sweep"),
        precision(measures.certified),
        match &measures.rounds {
            Ok(_) => String::new(),
            Err(why) => format!("; rounds are not computed: {why}"),
        }
    );
    out
}

/// How close to the exact values value iteration's are, as the output
/// says it.
pub(super) fn precision(certified: bool) -> String {
    match certified {
        true => format!(
            "certified: each value within {:e} of the exact one (relative; absolute below 1)",
            expected::CERTIFIED_WITHIN
        ),
        false => format!(
            "until no value changed by more than {:e} (relative); not certified: no bounds within {:e} were found, and values may be further from the exact ones",
            expected::TOLERANCE,
            expected::CERTIFIED_WITHIN
        ),
    }
}

fn expect_json(a: &ExpectArgs, inst: &Instance, answer: &Computed) -> String {
    let (model, how, bad) = (&answer.model, &answer.how, answer.bad);
    let measures = answer.measures.as_ref();
    let config = |i: u32| config_text(inst, &model.configs[i as usize]);
    let measure = |m: &Measure| {
        json!({
            "worst": m.worst.0,
            "worst_from": config(m.worst.1),
            "average": m.average,
            "declared": m.declared,
        })
    };
    let v = json!({
        "program": a.instance.program,
        "topology": inst.topo.name,
        "processes": inst.topo.n(),
        "steps_drawn": how,
        "choice": a.choice.name(),
        "configurations": model.configs.len(),
        "starts": model.starts,
        "legitimate": model.legit.iter().filter(|&&l| l).count(),
        "probability_1": bad.is_none(),
        "no_sure_arrival": bad.map(|(s, t)| json!({"from": config(s), "kept_at": config(t)})),
        "expected_steps": measures.map(|m| measure(&m.steps)),
        "expected_moves": measures.map(|m| measure(&m.moves)),
        "expected_rounds": measures.and_then(|m| m.rounds.as_ref().ok().map(measure)),
        "rounds_not_computed": measures.and_then(|m| m.rounds.as_ref().err()),
        "sweeps": measures.map(|m| m.sweeps),
        "certified": measures.map(|m| m.certified),
        "certified_within": expected::CERTIFIED_WITHIN,
    });
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}

/// Writes the worst configurations (or where probability 1 fails) as
/// init files into `dir`.
pub(super) fn write_worst(
    inst: &Instance,
    model: &Model,
    bad: Option<(u32, u32)>,
    measures: Option<&Measures>,
    dir: &Path,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<(&str, u32)> = Vec::new();
    if let Some((start, _)) = bad {
        files.push(("no-sure-arrival", start));
    }
    if let Some(m) = measures {
        files.push(("worst-steps", m.steps.worst.1));
        files.push(("worst-moves", m.moves.worst.1));
        if let Ok(rounds) = &m.rounds {
            files.push(("worst-rounds", rounds.worst.1));
        }
    }
    for (name, i) in files {
        let cfg = &model.configs[i as usize];
        let text = format_config(&inst.prog, &inst.code, &inst.topo, &cfg.rows, &cfg.chans);
        let path = dir.join(format!("{name}.init"));
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
