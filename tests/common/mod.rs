//! Set-up and fault programs shared by the tests of the runtime's fast
//! paths (columns, single moves, allocation).

// Each test binary uses part of this module.
#![allow(dead_code)]

pub mod markov;
pub mod server;

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Choice, Daemon, Outcome, Simulation};
use guarded::runtime::init::InitMode;
use guarded::state::Config;
use guarded::topology::Ids;

/// How a simulation starts: everything but the program and the topology.
pub struct Start<'a> {
    pub params: &'a [(&'a str, i64)],
    pub seed: u64,
    pub init: InitMode,
    pub ids: Ids,
    pub daemon: Daemon,
}

/// The set-up of a run from a random start on `topology`, under `daemon`
/// and `choice`.
pub fn random_setup(topology: &str, daemon: &Daemon, choice: Choice, seed: u64) -> Setup {
    Setup {
        topology: Some(topology.into()),
        seed,
        init: InitMode::Random,
        daemon: daemon.clone(),
        choice,
        ..Setup::default()
    }
}

/// A simulation of `src` on `topology`; panics with the rendered
/// diagnostics if the program does not start.
pub fn simulation(src: &str, topology: &str, start: Start) -> Simulation {
    let setup = Setup {
        topology: Some(topology.into()),
        params: start
            .params
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        ids: start.ids,
        seed: start.seed,
        init: start.init,
        daemon: start.daemon,
        ..Setup::default()
    };
    simulate(src, &setup).unwrap_or_else(|e| panic!("{e}"))
}

/// Programs that fault from their declared start on a ring: one leaves its
/// domain at the fourth step, one overflows once x reaches 2, one divides
/// by zero in a guard once a neighbour's x is 0.
pub const FAULTY: [&str; 3] = [
    "var x: 0..3 = 0\nprocess { up :: x >= left.x -> x := x + 1 }",
    "var x: 0..9 = 1\nprocess { up :: true -> x := (x * 9223372036854775807) mod 10 }",
    "var x: 0..9 = 1\nprocess { down :: 10 / left.x > 1 -> x := x - 1 }",
];

/// Steps until a step does not move; what that step returned, as text.
pub fn run_until_stopped(sim: &mut Simulation) -> String {
    loop {
        match sim.step() {
            Ok(Outcome::Moved) => {}
            other => break format!("{other:?}"),
        }
    }
}

/// Checks the step `sim` just took against the pure step relation: from
/// `before` (the configuration before it), the movers and actions the
/// simulator chose must be enabled there, and the relation's successor for
/// them must be the simulator's configuration; the simulator's enabled
/// processes must be the relation's in it.
pub fn assert_step_follows_relation(sim: &Simulation, before: &Config, what: &str) {
    let mut rel = sim.step_relation();
    let last = sim.last();
    if last.tick {
        return;
    }
    let moves: Vec<(u32, u32)> = last
        .movers()
        .iter()
        .copied()
        .zip(last.actions().iter().copied())
        .collect();
    for &(p, a) in &moves {
        match rel.enabled_actions(before, p as usize) {
            Ok(options) => assert!(
                options.contains(&a),
                "{what}: process {p} ran action {a}, not enabled ({options:?})"
            ),
            // A later guard of the same priority faults; running the first
            // enabled action never evaluates it.
            Err(_) => assert_eq!(
                rel.first_enabled(before, p as usize)
                    .expect("the first guards evaluate"),
                Some(a),
                "{what}: process {p}"
            ),
        }
    }
    // The step records each mover's action, the binder member it ran for
    // and the values it drew: one of the relation's moves with those must
    // give the successor.
    let mut options: Vec<Vec<guarded::runtime::step::Move>> = Vec::new();
    for (k, &(p, a)) in moves.iter().enumerate() {
        let mut mine = Vec::new();
        // Where a later guard faults, only the first move is the
        // simulator's (compared below).
        if rel.moves_into(before, p as usize, true, &mut mine).is_err() {
            mine.clear();
        }
        mine.retain(|m| {
            m.action == a
                && m.member == last.member(k)
                && m.draws.as_deref().unwrap_or(&[]) == last.drawn(k)
        });
        options.push(mine);
    }
    let mut successors = Vec::new();
    each_choice(&options, &mut Vec::new(), &mut |step| {
        if let Ok(next) = rel.successor_of(before, step) {
            successors.push(next);
        }
    });
    let current = sim.config();
    // Only where no choice with the recorded actions gives the simulator's
    // configuration is the first choice's successor the one to compare
    // (under `--choice random` the first members may conflict on an edge
    // where the members taken did not).
    if !successors.contains(&current) {
        let next = rel
            .successor(before, &moves)
            .expect("the relation takes the step too");
        assert_eq!(next, current, "{what}: the relation's successor");
    }
    let next = current;
    let mut enabled = sim.enabled().to_vec();
    enabled.sort_unstable();
    assert_eq!(
        rel.enabled(&next).expect("guards evaluate"),
        enabled,
        "{what}: enabled processes"
    );
    if let Some(kept) = sim.legitimate() {
        assert_eq!(
            rel.legitimate(&next).expect("evaluates"),
            Some(kept),
            "{what}: legitimacy"
        );
    }
}

/// Runs the binary from the crate's root: exit code, standard output and
/// standard error.
pub fn guarded(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `name` in a scratch directory of this test process's own (`prefix`
/// tells the test files apart).
pub fn scratch(prefix: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("guarded-{prefix}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A step: where it leads (`None`: it raises a runtime error), its movers
/// as bits, how many move.
pub type Step = (Option<usize>, u64, u64);

/// Every step `daemon` allows from `cfg`: every move set, each mover with
/// each of its moves, by plain recursion over their product; `index`
/// numbers the configurations. The naive explorers' successors.
pub fn every_step(
    inst: &guarded::load::Instance,
    rel: &mut guarded::runtime::step::StepRelation,
    cfg: &Config,
    daemon: &guarded::runtime::daemon::Daemon,
    index: &mut dyn FnMut(Config) -> usize,
) -> Vec<Step> {
    let enabled = rel.enabled(cfg).unwrap();
    let mut steps = Vec::new();
    for set in daemon.move_sets(&enabled, inst.topology(), 0) {
        let options: Vec<Vec<guarded::runtime::step::Move>> = set
            .iter()
            .map(|&p| {
                let mut mine = Vec::new();
                rel.moves_into(cfg, p as usize, true, &mut mine).unwrap();
                mine
            })
            .collect();
        each_choice(&options, &mut Vec::new(), &mut |moves| {
            steps.push(moves.to_vec())
        });
    }
    steps
        .into_iter()
        .map(|moves| {
            let bits = moves.iter().fold(0, |m, mv| m | 1u64 << mv.process);
            let next = rel.successor_of(cfg, &moves).ok().map(&mut *index);
            (next, bits, moves.len() as u64)
        })
        .collect()
}

/// Calls `each` with every step of one move from each list of `options`.
fn each_choice(
    options: &[Vec<guarded::runtime::step::Move>],
    chosen: &mut Vec<guarded::runtime::step::Move>,
    each: &mut impl FnMut(&[guarded::runtime::step::Move]),
) {
    match options.split_first() {
        None => each(chosen),
        Some((first, rest)) => {
            for m in first {
                chosen.push(m.clone());
                each_choice(rest, chosen, each);
                chosen.pop();
            }
        }
    }
}

/// `src` loaded on `topology` with `params`; panics with the diagnostics
/// if it does not load.
pub fn instance(src: &str, topology: &str, params: &[(&str, i64)]) -> guarded::load::Instance {
    let setup = Setup {
        topology: Some(topology.into()),
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ..Setup::default()
    };
    guarded::load::load(src, &setup, &guarded::load::read_file).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Runs `guarded sweep` of `program` on `topology` under `daemon` from
/// `init` over `seeds` until legitimacy, writing `csv`: the mean,
/// standard error and count of its column `column`.
pub fn sweep_mean(
    run: (&str, &str, &str),
    init: &str,
    seeds: &str,
    csv: &std::path::Path,
    column: &str,
) -> (f64, f64, usize) {
    sweep_mean_with(run, init, seeds, (csv, column), &[])
}

/// [`sweep_mean`] with the flags `more` too (`--choice random`).
pub fn sweep_mean_with(
    (program, topology, daemon): (&str, &str, &str),
    init: &str,
    seeds: &str,
    (csv, column): (&std::path::Path, &str),
    more: &[&str],
) -> (f64, f64, usize) {
    let mut args = vec![
        "sweep",
        program,
        "-t",
        topology,
        "-d",
        daemon,
        "--init",
        init,
        "--seeds",
        seeds,
        "--until",
        "legitimate",
        "--csv",
        csv.to_str().unwrap(),
    ];
    args.extend(more);
    let (code, _, err) = guarded(&args);
    assert_eq!(code, 0, "{err}");
    mean_and_error(csv, column)
}

/// The mean, standard error and count of the column `column` of a CSV
/// that `guarded sweep` wrote.
fn mean_and_error(csv: &std::path::Path, column: &str) -> (f64, f64, usize) {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == column).unwrap();
    let xs: Vec<f64> = lines
        .map(|l| l.split(',').nth(at).unwrap().parse().unwrap())
        .collect();
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt(), xs.len())
}
