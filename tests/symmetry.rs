//! `verify --symmetry` held to the search it reduces: on every bundled
//! program, on topologies with symmetries and without, under every daemon,
//! exploring by orbits gives the same verdicts and the same worst steps,
//! moves and rounds as exploring every configuration; and every run it
//! reports is a run of the program (each step one the daemon allows, each
//! move one the mover may make), ending where the verdict says.

mod common;
use common::instance;
use guarded::load::Instance;
use guarded::runtime::daemon::Daemon;
use guarded::runtime::init::InitMode;
use guarded::runtime::step::Move;
use guarded::state::Config;
use guarded::verify::{Choices, Convergence, Explorer, Run, Verdict};

const DAEMONS: [Daemon; 4] = [
    Daemon::Central,
    Daemon::LocallyCentral,
    Daemon::Distributed,
    Daemon::Synchronous,
];

fn program(name: &str) -> String {
    let path = format!("{}/programs/{name}.gc", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// What must agree between a search and its reduction by orbits.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    invariant: Option<String>,
    closure_fails: bool,
    faults: bool,
    /// Worst (steps, moves, rounds), or "cycle", "deadlock", "unfair
    /// cycle", "no deadlock".
    convergence: String,
}

fn outcome(v: &Verdict) -> Outcome {
    let convergence = match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => format!(
            "{} steps, {} moves, {:?} rounds",
            steps.steps.len(),
            moves
                .as_ref()
                .expect("the explicit engine counts moves")
                .moves(),
            rounds.as_ref().map(|r| r.0)
        ),
        Convergence::Cycle { .. } => "cycle".into(),
        Convergence::Deadlock(_) => "deadlock".into(),
        Convergence::HoldsUnderFairness { .. } => "unfair cycle".into(),
        Convergence::NotDeclared { deadlock } => format!("deadlock: {}", deadlock.is_some()),
    };
    Outcome {
        invariant: v.invariant.as_ref().map(|(name, _)| name.clone()),
        closure_fails: v.closure.is_some(),
        faults: v.fault.is_some(),
        convergence,
    }
}

/// Follows `run` with the step relation, checking that each step is one
/// `daemon` allows (every move one its process may make, the movers a set
/// the daemon may pick), and returns the configurations it passes through.
/// A step that raises a runtime error ends it (a fault's last step).
fn replay(inst: &Instance, daemon: &Daemon, run: &Run, what: &str) -> Vec<Config> {
    let mut rel = inst.step_relation();
    let mut at = vec![run.start.clone()];
    let mut options = Vec::new();
    for (k, step) in run.steps.iter().enumerate() {
        let cfg = at.last().unwrap().clone();
        let mut enabled = Vec::new();
        for p in 0..inst.topology().n() {
            options.clear();
            if rel.moves_into(&cfg, p, true, &mut options).is_err() {
                continue;
            }
            if !options.is_empty() {
                enabled.push(p as u32);
            }
            if let Some(m) = step.iter().find(|m| m.process == p as u32) {
                assert!(
                    options.contains(m),
                    "{what}: step {k}: {m:?} is not a move of process {p}"
                );
            }
        }
        let movers: Vec<u32> = step.iter().map(|m: &Move| m.process).collect();
        assert!(!movers.is_empty(), "{what}: step {k} moves nobody");
        assert!(
            movers.windows(2).all(|w| w[0] < w[1]),
            "{what}: step {k}: movers in order, each once"
        );
        let allowed = match daemon {
            Daemon::Central => movers.len() == 1,
            Daemon::Synchronous => movers == enabled,
            Daemon::LocallyCentral => movers.iter().all(|&p| {
                movers.iter().all(|&q| {
                    p == q
                        || !(inst.topology().nbrs(p as usize).contains(&q)
                            || inst.topology().nbrs(q as usize).contains(&p))
                })
            }),
            _ => true,
        };
        assert!(
            allowed,
            "{what}: step {k}: {movers:?} under {}",
            daemon.name()
        );
        match rel.successor_of(&cfg, step) {
            Ok(next) => at.push(next),
            Err(_) => {
                assert_eq!(k + 1, run.steps.len(), "{what}: a fault ends the run");
                break;
            }
        }
    }
    at
}

/// The runs of a verdict found by orbits are runs of the program, and end
/// where the verdict says they do.
fn runs_replay(inst: &Instance, v: &Verdict, what: &str) {
    let rel = inst.step_relation();
    let legitimate = |c: &Config| rel.legitimate(c).unwrap() == Some(true);
    let d = &v.daemon;
    if let Some(run) = &v.closure {
        let at = replay(inst, d, run, what);
        let [.., before, after] = &at[..] else {
            panic!("{what}: a closure counterexample takes a step");
        };
        assert!(legitimate(before) && !legitimate(after), "{what}: closure");
    }
    if let Some((_, run)) = &v.invariant {
        replay(inst, d, run, what);
    }
    if let Some((_, run)) = &v.fault {
        let at = replay(inst, d, run, what);
        assert_eq!(
            at.len(),
            run.steps.len(),
            "{what}: the fault's last step faults"
        );
    }
    match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => {
            let runs = [Some(steps), moves.as_ref(), rounds.as_ref().map(|r| &r.1)];
            for run in runs.into_iter().flatten() {
                let at = replay(inst, d, run, what);
                if run.steps.is_empty() && !legitimate(&at[0]) {
                    // No run counts: each stops at a broken invariant or
                    // a fault first.
                    assert!(v.invariant.is_some() || v.fault.is_some(), "{what}");
                    continue;
                }
                let (last, before) = at.split_last().unwrap();
                assert!(legitimate(last), "{what}: a worst case ends legitimate");
                assert!(
                    !before.iter().any(legitimate),
                    "{what}: and only at its end"
                );
            }
        }
        Convergence::Cycle { run, cycle_from }
        | Convergence::HoldsUnderFairness { run, cycle_from } => {
            let at = replay(inst, d, run, what);
            assert_eq!(
                at[*cycle_from],
                *at.last().unwrap(),
                "{what}: a cycle closes"
            );
            assert!(
                !at.iter().any(legitimate),
                "{what}: a cycle outside legitimacy"
            );
        }
        Convergence::Deadlock(run) => {
            replay(inst, d, run, what);
        }
        Convergence::NotDeclared { deadlock } => {
            if let Some(run) = deadlock {
                replay(inst, d, run, what);
            }
        }
    }
}

/// Every configuration: a program, a topology, its parameters, and the
/// fewest symmetries it must find there.
type Case = (
    &'static str,
    &'static str,
    &'static [(&'static str, i64)],
    usize,
);

#[test]
fn by_orbits_every_configuration_gives_the_same_verdicts() {
    let cases: [Case; 16] = [
        ("dijkstra_kstate", "ring:3", &[], 1),
        ("dijkstra_kstate", "ring:4", &[], 1),
        ("dijkstra_kstate", "ring:5", &[("K", 3)], 1),
        ("matching", "ring:5", &[], 10),
        ("matching", "chain:4", &[], 2),
        ("matching", "star:5", &[], 24),
        ("matching", "complete:4", &[], 24),
        ("herman", "uring:5", &[], 5),
        ("herman", "uring:6", &[], 6),
        ("herman", "uring:4", &[], 4),
        // Johnen's processes read their ids: no symmetry.
        ("johnen_leader", "uring:2", &[("k", 1)], 1),
        ("johnen_leader", "uring:3", &[("k", 1)], 1),
        ("johnen_leader", "uring:4", &[("k", 0)], 1),
        // SSLE reads ids too; its configurations grow fast.
        ("ssle", "chain:2", &[("max_id", 2), ("max_level", 2)], 1),
        ("ssle", "chain:2", &[("max_id", 3), ("max_level", 3)], 1),
        ("ssle", "complete:2", &[("max_id", 1), ("max_level", 2)], 1),
    ];
    for (name, topology, params, fewest) in cases {
        let src = program(name);
        let inst = instance(&src, topology, params);
        let mut every = Explorer::new(&inst).unwrap();
        every.choose(Choices::Every).unwrap();
        let orbits = Explorer::by_orbits(&inst, None, Choices::Every).unwrap();
        let found = orbits.symmetries();
        assert!(found >= fewest, "{name} on {topology}: {found} symmetries");
        if found > 1 {
            assert!(orbits.configurations() < every.configurations());
        }
        for d in &DAEMONS {
            let what = format!("{name} on {topology} under {}", d.name());
            let (a, b) = (every.verify(d).unwrap(), orbits.verify(d).unwrap());
            assert_eq!(outcome(&a), outcome(&b), "{what}");
            assert_eq!(b.symmetries, found, "{what}");
            runs_replay(&inst, &b, &what);
        }
    }
}

/// A program's text, a topology, its parameters and where to start.
type FromStart<'s> = (
    &'s str,
    &'static str,
    &'static [(&'static str, i64)],
    InitMode,
);

#[test]
fn by_orbits_from_a_start_gives_the_same_verdicts() {
    let arbitration = program("arbitration");
    let herman = program("herman");
    let matching = program("matching");
    let cases: [FromStart; 9] = [
        // The forks' ends are told apart by their indices: no symmetry.
        (&arbitration, "ring:4", &[], InitMode::Declared),
        (&arbitration, "star:4", &[], InitMode::Declared),
        (&arbitration, "grid:2x3", &[], InitMode::Declared),
        (&matching, "ring:6", &[], InitMode::Declared),
        (&matching, "complete:4", &[], InitMode::Declared),
        (&matching, "star:5", &[], InitMode::Random),
        (&herman, "uring:7", &[], InitMode::Declared),
        (&herman, "uring:5", &[], InitMode::Random),
        (&herman, "uring:9", &[], InitMode::Declared),
    ];
    for (src, topology, params, init) in cases {
        let mut inst = instance(src, topology, params);
        let start = inst.initial(&init, &[]).unwrap();
        for d in &DAEMONS {
            let what = format!("{topology} from a start under {}", d.name());
            let every = Explorer::reachable_choosing(&inst, start.clone(), d, None, Choices::Every)
                .unwrap();
            let orbits =
                Explorer::reachable_by_orbits(&inst, start.clone(), d, None, Choices::Every)
                    .unwrap();
            let (a, b) = (every.verify(d).unwrap(), orbits.verify(d).unwrap());
            assert_eq!(outcome(&a), outcome(&b), "{what}");
            assert!(
                b.configurations <= a.configurations,
                "{what}: {} orbits of {}",
                b.configurations,
                a.configurations
            );
            runs_replay(&inst, &b, &what);
        }
    }
}

/// Two tokens sent right by each process of a ring, each taken by its
/// receiver: no ids, so the rotations (and on a ring, reflections) of the
/// ring keep the program, channels included.
const TOKENS: &str = "message tok(v: 0..2)
channel capacity 2
var sent: 0..2 = 0
var got: 0..3 = 0
process {
    s :: sent < 2 -> sent := sent + 1; send tok(sent) to right
    r :: receive tok(v) from q and got < 3 -> got := got + 1
    f :: receive tok(v) from q and got == 3 -> skip
}
legitimate: forall(p in procs : p.sent == 2 and p.got == 2 and forall(q in nbrs(p) : msgs(p, q) == 0))
";

/// With channels, from a start: the search by orbits steps to the
/// configuration standing for where a step leads, whose processes may be
/// others than the step's (what the search keeps of the configuration
/// before must not be taken for them).
#[test]
fn by_orbits_with_channels_gives_the_same_verdicts() {
    let cases = [
        ("ring:4", Daemon::Central),
        ("ring:4", Daemon::Distributed),
        ("ring:5", Daemon::Central),
    ];
    for (topology, d) in cases {
        let mut inst = instance(TOKENS, topology, &[]);
        let start = inst.initial(&InitMode::Declared, &[]).unwrap();
        let what = format!("{topology} from a start under {}", d.name());
        let every =
            Explorer::reachable_choosing(&inst, start.clone(), &d, None, Choices::Every).unwrap();
        let orbits =
            Explorer::reachable_by_orbits(&inst, start.clone(), &d, None, Choices::Every).unwrap();
        let (a, b) = (every.verify(&d).unwrap(), orbits.verify(&d).unwrap());
        assert!(
            outcome(&a).convergence.contains("steps"),
            "{what}: {:?}",
            outcome(&a)
        );
        assert_eq!(outcome(&a), outcome(&b), "{what}");
        assert!(b.configurations < a.configurations, "{what}: no symmetry");
        runs_replay(&inst, &b, &what);
    }
}

/// A complete graph's symmetries are all the permutations of its
/// processes: a program that cannot tell them apart has, of the 3^4
/// configurations of matching's pointer on K4, as many orbits as patterns
/// of who points at whom up to renaming.
#[test]
fn symmetries_merge_what_cannot_be_told_apart() {
    let src = program("matching");
    let inst = instance(&src, "complete:4", &[]);
    let orbits = Explorer::by_orbits(&inst, None, Choices::Every).unwrap();
    assert_eq!(orbits.symmetries(), 24);
    // Functions from 4 points to 4 points (each pointing at itself or
    // another) up to conjugation by S4: 19 (OEIS A001372).
    assert_eq!(orbits.configurations(), 19);
}

/// `--symmetry` on the command line: the header says how many orbits
/// under how many symmetries, the JSON counts them apart from the
/// configurations, and where the program reads ids it says none was
/// found.
#[test]
fn the_command_line_says_what_it_reduced_by() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let matching = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/matching.gc");
    let args = [
        "verify",
        matching,
        "--topology",
        "ring:6",
        "-d",
        "central",
        "--symmetry",
    ];
    let (code, text) = run(&args);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("729 configurations, 74 orbits under 12 symmetries (--symmetry)"),
        "{text}"
    );
    let (_, json) = run(&[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["configurations"], 729);
    assert_eq!(v["orbits"], 74);
    assert_eq!(v["symmetries"], 12);
    assert_eq!(v["daemons"][0]["orbits"], 74);
    assert_eq!(v["daemons"][0]["convergence"]["worst_steps"], 14);
    let dijkstra = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc");
    let (_, text) = run(&["verify", dijkstra, "--topology", "ring:4", "--symmetry"]);
    assert!(
        text.contains("256 configurations (--symmetry: none"),
        "{text}"
    );
}

/// From every arbitrary start (`verify --from random`), by orbits: the
/// starts stand for their orbits, and the verdicts, worst cases and runs
/// are those of the search over every start.
#[test]
fn by_orbits_from_every_arbitrary_start_gives_the_same_verdicts() {
    let grow = "var x: 0..3 random 0..1\n\
                process { up :: x < 3 and exists(q in nbrs : q.x >= x) -> x := x + 1 }\n\
                legitimate: forall(p in procs : p.x == 3)\n";
    let matching = program("matching");
    for (src, topology) in [(grow, "chain:4"), (grow, "ring:5"), (&matching, "ring:5")] {
        let inst = instance(src, topology, &[]);
        for d in &DAEMONS {
            let what = format!("{topology} from every arbitrary start under {}", d.name());
            let starts = || guarded::verify::Starts::Every(inst.arbitrary_space());
            let every =
                Explorer::reachable_choosing(&inst, starts(), d, None, Choices::Every).unwrap();
            let orbits =
                Explorer::reachable_by_orbits(&inst, starts(), d, None, Choices::Every).unwrap();
            let (a, b) = (every.verify(d).unwrap(), orbits.verify(d).unwrap());
            assert_eq!(outcome(&a), outcome(&b), "{what}");
            assert!(
                b.configurations < a.configurations,
                "{what}: {} orbits of {}",
                b.configurations,
                a.configurations
            );
            runs_replay(&inst, &b, &what);
        }
    }
}
