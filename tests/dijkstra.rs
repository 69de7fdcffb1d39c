//! Dijkstra's K-state token ring (programs/dijkstra_kstate.gc): the paper's
//! claims checked, the measures on hand-worked runs, and the paper's
//! distributed-demon remark put to the test.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome, ScheduledStep, Simulation};
use guarded::runtime::init::InitMode;

const PROGRAM: &str = include_str!("../programs/dijkstra_kstate.gc");

fn ring(n: usize, k: i64, seed: u64, init: InitMode, daemon: Daemon) -> Simulation {
    let setup = Setup {
        topology: Some(format!("ring:{n}")),
        params: vec![("K".into(), k)],
        seed,
        init,
        daemon,
        ..Setup::default()
    };
    simulate(PROGRAM, &setup).unwrap_or_else(|e| panic!("{e}"))
}

fn step(sim: &mut Simulation) {
    assert_eq!(sim.step().expect("no runtime error"), Outcome::Moved);
}

/// A run on a large ring holds what its steps need and no more: under
/// the central daemon the configuration (8 bytes a process), the
/// per-process bookkeeping (8) and the enabled list (4); the ring computes
/// its neighbours, so no table of them (8) is made. The locally-central
/// daemon reads them: it makes the table.
#[test]
fn a_run_on_a_large_ring_makes_no_table_of_neighbours() {
    use guarded::runtime::run::{run, Limits, Unobserved};
    let n = 40_000;
    let limits = Limits {
        steps: 5_000,
        ..Limits::default()
    };
    let held = |daemon| {
        let mut sim = ring(n, n as i64, 1, InitMode::Random, daemon);
        run(&mut sim, &limits, &mut Unobserved);
        sim.memory_bytes() as f64 / n as f64
    };
    let central = held(Daemon::Central);
    assert!(central < 23.0, "{central} bytes a process");
    let locally_central = held(Daemon::LocallyCentral);
    assert!(
        locally_central > central + 7.9,
        "{locally_central} against {central}"
    );
}

/// The paper's theorem: K >= N (= n - 1 for n machines), central demon,
/// any start: exactly one privilege within finitely many moves, and then
/// forever (closure), checked here for 10·n further steps.
#[test]
fn central_daemon_stabilizes_with_k_equal_n_minus_1() {
    let mut worst = 0;
    for n in 3..=12 {
        for seed in 0..60 {
            let mut sim = ring(n, n as i64 - 1, seed, InitMode::Random, Daemon::Central);
            while sim.legitimate() != Some(true) {
                step(&mut sim);
                assert!(
                    sim.now().step < 100_000,
                    "n={n} seed={seed}: no stabilization"
                );
            }
            worst = worst.max(sim.now().moves);
            for _ in 0..10 * n {
                step(&mut sim);
                assert_eq!(
                    sim.legitimate(),
                    Some(true),
                    "n={n} seed={seed}: legitimacy lost at step {}",
                    sim.now().step
                );
                assert_eq!(sim.enabled().len(), 1);
            }
        }
    }
    // Stabilization takes O(n^2) moves; a loose sanity bound for n <= 12.
    assert!(worst < 12 * 12 * 4, "worst case {worst} moves");
}

/// Every one of the 3^3 configurations of a 3-ring with K = 3 = n stabilizes
/// under the synchronous daemon: K = n suffices for every daemon.
#[test]
fn synchronous_daemon_stabilizes_from_every_state_with_k_equal_n() {
    for a in 0..3 {
        for b in 0..3 {
            for c in 0..3 {
                let sets = vec![format!("0.x={a}"), format!("1.x={b}"), format!("2.x={c}")];
                let setup = Setup {
                    topology: Some("ring:3".into()),
                    params: vec![("K".into(), 3)],
                    sets,
                    daemon: Daemon::Synchronous,
                    ..Setup::default()
                };
                let mut sim = simulate(PROGRAM, &setup).unwrap();
                for _ in 0..50 {
                    if sim.legitimate() == Some(true) {
                        break;
                    }
                    step(&mut sim);
                }
                assert_eq!(
                    sim.legitimate(),
                    Some(true),
                    "x = ({a},{b},{c}) does not stabilize"
                );
            }
        }
    }
}

/// The paper says the same algorithm works for a distributed demon "without
/// any further refinements". Under composite atomicity that needs K > N: with
/// N + 1 = 3 machines and K = N = 2, the synchronous daemon (a distributed
/// daemon's legal choice) cycles between (0,1,0) and (1,0,1) with three
/// privileges forever.
#[test]
fn k_equal_n_minus_1_fails_under_the_synchronous_daemon() {
    let setup = Setup {
        topology: Some("ring:3".into()),
        params: vec![("K".into(), 2)],
        sets: vec!["1.x=1".into()],
        daemon: Daemon::Synchronous,
        ..Setup::default()
    };
    let mut sim = simulate(PROGRAM, &setup).unwrap();
    let start = sim.rows().to_vec();
    for _ in 0..1000 {
        assert_eq!(sim.legitimate(), Some(false));
        assert_eq!(sim.enabled().len(), 3);
        step(&mut sim);
    }
    // Period two: back where it started after an even number of steps.
    assert_eq!(sim.rows(), start);
}

/// Rounds on a hand-worked run. Ring of 4, K = 4, x = (0,3,3,0): enabled
/// {0,1,3}. Step 1: machine 3 copies (x3 := 3), which disables machine 0
/// without it moving (neutralized). Step 2: machine 1 copies: every process
/// of the round's start has now moved or been neutralized, so round 1 ends
/// at step 2; after step 1 the unfinished round already counts as one.
/// Round 2 starts with {2}; step 3 moves 2 and ends it. Round 3 is {3}.
#[test]
fn rounds_count_neutralized_processes_and_partial_rounds() {
    let schedule = [vec![3], vec![1], vec![2], vec![3]]
        .into_iter()
        .enumerate()
        .map(|(k, procs)| ScheduledStep {
            delays: None,
            line: k + 1,
            named: vec![None; procs.len()],
            spans: Vec::new(),
            procs,
        })
        .collect();
    let setup = Setup {
        topology: Some("ring:4".into()),
        params: vec![("K".into(), 4)],
        sets: vec!["1.x=3".into(), "2.x=3".into()],
        daemon: Daemon::Schedule(schedule),
        ..Setup::default()
    };
    let mut sim = simulate(PROGRAM, &setup).unwrap();
    let mut enabled = sim.enabled().to_vec();
    enabled.sort();
    assert_eq!(enabled, [0, 1, 3]);
    step(&mut sim);
    assert_eq!((sim.rounds_completed(), sim.now().round), (0, 1));
    step(&mut sim);
    assert_eq!((sim.rounds_completed(), sim.now().round), (1, 1));
    step(&mut sim);
    assert_eq!((sim.rounds_completed(), sim.now().round), (2, 2));
    // x = (0,0,0,3): only machine 3 is enabled, and step 4 ends round 3.
    step(&mut sim);
    assert_eq!(sim.rounds_completed(), 3);
    assert_eq!(sim.step().unwrap(), Outcome::ScheduleDone);
}

/// Under the synchronous daemon every step is a round.
#[test]
fn synchronous_steps_are_rounds() {
    let mut sim = ring(7, 7, 5, InitMode::Random, Daemon::Synchronous);
    for _ in 0..30 {
        step(&mut sim);
        assert_eq!(sim.rounds_completed(), sim.now().step);
    }
}

/// A seed names a run: the same seed gives the same configuration sequence.
#[test]
fn same_seed_same_run() {
    let trace = |seed| {
        let mut sim = ring(9, 9, seed, InitMode::Random, Daemon::Distributed);
        let mut seen = vec![sim.rows().to_vec()];
        for _ in 0..200 {
            step(&mut sim);
            seen.push(sim.rows().to_vec());
        }
        seen
    };
    assert_eq!(trace(11), trace(11));
    assert_ne!(trace(11), trace(12));
}

/// The binary prints byte-identical output for the same command twice.
#[test]
fn same_command_same_output() {
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
            .args([
                "run",
                "programs/dijkstra_kstate.gc",
                "--topology",
                "ring:30",
                "--daemon",
                "distributed",
            ])
            .args([
                "--seed",
                "8",
                "--init",
                "random",
                "--trace",
                "--max-steps",
                "300",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("runs")
            .stdout
    };
    let a = run();
    assert!(!a.is_empty());
    assert_eq!(a, run());
}

/// `--stats` adds speed and memory to the summary (values depend on the
/// machine, so only their presence and form are checked).
#[test]
fn stats_report_speed_and_memory() {
    let run = |format: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
            .args([
                "run",
                "programs/dijkstra_kstate.gc",
                "--topology",
                "ring:100",
                "--init",
                "random",
            ])
            .args([
                "--max-steps",
                "5000",
                "--stats",
                "--no-final",
                "--format",
                format,
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("runs");
        assert!(out.status.success());
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let text = run("text");
    assert!(text.contains("5000 steps in"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("memory") && l.contains("bytes/process")),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&run("json")).expect("json");
    assert!(json["stats"]["steps_per_second"]
        .as_f64()
        .is_some_and(|v| v > 0.0));
    assert!(json["stats"]["bytes_per_process"]
        .as_f64()
        .is_some_and(|v| v > 8.0));
}
