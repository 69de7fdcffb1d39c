//! `Simulation::restart` (a sweep's worker runs seed after seed in one
//! simulation) against a simulation built for the run: after a used
//! simulation starts again from a configuration and generator, every run
//! is the one a new simulation takes from them, whatever the old run left
//! behind (a fault half-way through a step included).

use guarded::load::{load, read_file, simulate, LoadError, Setup};
use guarded::runtime::engine::{Choice, Daemon, Simulation};
use guarded::runtime::init::InitMode;
use guarded::runtime::run::{run, Limits, Stop, Unobserved};

mod common;
use common::{random_setup, FAULTY};

/// What a run shows: how it stopped, the configuration (channels too),
/// measures, the last step, the enabled list, legitimacy and counts.
fn seen(sim: &Simulation, stop: &str) -> String {
    let last = sim.last();
    format!(
        "{stop}\n{:?}\n{:?}\n{:?} {:?}\n{:?}\n{:?} {:?} {}\n{:?}",
        sim.config(),
        sim.now(),
        last.movers(),
        last.actions(),
        sim.enabled(),
        sim.legitimate(),
        sim.stabilized_at(),
        sim.legitimacy_losses(),
        sim.moves_per_action().collect::<Vec<_>>(),
    )
}

fn same_after_restart(src: &str, topology: &str, daemon: Daemon, choice: Choice) {
    let what = format!("{topology} {daemon:?} {choice:?}");
    let limits = Limits {
        steps: 400,
        ..Limits::default()
    };
    for seed in [2, 3, 4] {
        // A used simulation of the instance (a seed may draw the topology
        // and ids: this one's are those of the start below): 400 steps,
        // or until it stopped by itself.
        // (A random start where a guard faults has no run to reuse.)
        let Ok(mut reused) = simulate(src, &random_setup(topology, &daemon, choice, seed)) else {
            continue;
        };
        run(&mut reused, &limits, &mut Unobserved);
        let mut inst = load(
            src,
            &random_setup(topology, &daemon, choice, seed),
            &read_file,
        )
        .unwrap_or_else(|e| panic!("{what}: {}", e.headline()));
        // The second random start of the seed: not the one the used
        // simulation began from.
        let _ = inst.initial(&InitMode::Random, &[]);
        let Ok(start) = inst.initial(&InitMode::Random, &[]) else {
            continue;
        };
        let rng = inst.generator().clone();
        let fresh = inst.simulate(start.clone(), daemon.clone(), choice);
        let restarted = reused.restart((start.rows, start.chans), rng);
        let mut fresh = match (fresh, restarted) {
            (Ok(fresh), Ok(())) => fresh,
            (Err(LoadError::Runtime(a)), Err(b)) => {
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "{what}");
                continue;
            }
            (a, b) => panic!(
                "{what} seed {seed}: {:?} against {b:?}",
                a.err().map(|e| e.headline())
            ),
        };
        assert_eq!(
            seen(&reused, "start"),
            seen(&fresh, "start"),
            "{what} seed {seed}"
        );
        let a = run(&mut reused, &limits, &mut Unobserved);
        let b = run(&mut fresh, &limits, &mut Unobserved);
        let a = seen(&reused, &format!("{a:?}"));
        let b = seen(&fresh, &format!("{b:?}"));
        assert_eq!(a, b, "{what} seed {seed}");
    }
}

#[test]
fn bundled_programs_run_after_a_restart_as_from_new() {
    let programs = [
        ("dijkstra_kstate", "ring:9"),
        ("johnen_leader", "uring:7"),
        ("ssle", "grid:3x3"),
        ("arbitration", "ring:5"),
        ("matching", "grid:2x4"),
        ("herman", "uring:7"),
        ("mis", "ring:8"),
        ("arrow", "tree:6"),
    ];
    for (name, topology) in programs {
        let src = std::fs::read_to_string(format!("programs/{name}.gc")).expect("bundled");
        let runs_in_ticks = load(&src, &Setup::default(), &read_file)
            .expect("loads")
            .runs_in_ticks();
        let daemons: &[Daemon] = if runs_in_ticks {
            &[Daemon::Ticks]
        } else {
            &[
                Daemon::Central,
                Daemon::Synchronous,
                Daemon::Distributed,
                Daemon::LocallyCentral,
            ]
        };
        for daemon in daemons {
            for choice in [Choice::First, Choice::Random] {
                same_after_restart(&src, topology, daemon.clone(), choice);
            }
        }
    }
}

#[test]
fn a_run_that_faulted_leaves_nothing_behind() {
    for src in FAULTY {
        for daemon in [Daemon::Central, Daemon::Synchronous, Daemon::Distributed] {
            same_after_restart(src, "ring:5", daemon, Choice::First);
        }
    }
    // Stop reasons compared above include the faults themselves.
    let mut sim = simulate(
        FAULTY[0],
        &random_setup("ring:5", &Daemon::Central, Choice::First, 1),
    )
    .expect("starts");
    let stop = run(&mut sim, &Limits::default(), &mut Unobserved);
    assert!(matches!(stop, Stop::Error(_)), "{stop:?}");
}
