//! Hsu and Huang's maximal matching (programs/matching.gc): under the
//! central daemon every run becomes silent in a maximal matching within
//! 2m + n moves (Hedetniemi, Jacobs and Srimani), checked here on random
//! runs against an independent reading of the final pointers, and
//! exhaustively on small graphs with `verify`, every choice of neighbour
//! explored; the bound is the central daemon's, and `verify` shows the
//! distributed daemon live-locking (every choice) or exceeding it (the
//! first free neighbour).

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome};
use guarded::runtime::init::InitMode;
use std::process::Command;

const MATCHING: &str = include_str!("../programs/matching.gc");

/// Whether the pointers form a maximal matching: each process married
/// (pointing at a neighbour that points back) or null with every
/// neighbour married.
fn maximal_matching(p: &[i64], nbrs: &dyn Fn(usize) -> Vec<usize>) -> bool {
    let married = |i: usize| p[i] as usize != i && p[p[i] as usize] as usize == i;
    (0..p.len()).all(|i| married(i) || (p[i] as usize == i && nbrs(i).into_iter().all(married)))
}

#[test]
fn random_runs_end_silent_in_a_maximal_matching_within_2m_plus_n_moves() {
    let mut runs = 0;
    for topology in [
        "random:8",
        "random:20",
        "random:30:0.3",
        "tree:25",
        "grid:4x5",
        "ring:15",
        "star:9",
        "complete:7",
    ] {
        for seed in 0..25 {
            let setup = Setup {
                topology: Some(topology.into()),
                seed,
                init: InitMode::Random,
                daemon: Daemon::Central,
                ..Setup::default()
            };
            let mut sim = simulate(MATCHING, &setup).unwrap_or_else(|e| panic!("{e}"));
            let topo = sim.topology().clone();
            let (n, m) = (topo.n() as u64, topo.edge_count() as u64);
            loop {
                match sim.step().unwrap() {
                    Outcome::Moved => assert!(
                        sim.now().moves <= 2 * m + n,
                        "{topology} seed {seed}: past 2m + n moves"
                    ),
                    Outcome::Silent => break,
                    other => panic!("{other:?}"),
                }
            }
            let nbrs = |i: usize| topo.nbrs(i).iter().map(|&q| q as usize).collect::<Vec<_>>();
            assert!(
                maximal_matching(sim.rows(), &nbrs),
                "{topology} seed {seed}: {:?}",
                sim.rows()
            );
            assert_eq!(sim.legitimate(), Some(true));
            runs += 1;
        }
    }
    assert_eq!(runs, 200);
}

fn verify(topology: &str, daemon: &str) -> String {
    verify_with(topology, daemon, &[], 0)
}

/// `guarded verify` of the program with `more` arguments, expecting exit
/// status `code`.
fn verify_with(topology: &str, daemon: &str, more: &[&str], code: i32) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args([
            "verify",
            "programs/matching.gc",
            "--topology",
            topology,
            "--daemon",
            daemon,
        ])
        .args(more)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The worst case's moves in `verify`'s text.
fn worst_moves(text: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.contains("worst case"))
        .expect("a worst case");
    line.split(", ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn every_start_of_small_graphs_converges_within_the_bound_under_the_central_daemon() {
    // (topology, n, m, exact worst-case moves found by the verifier)
    for (topology, n, m, worst) in [
        ("chain:4", 4, 3, 6),
        ("ring:4", 4, 4, 8),
        ("ring:5", 5, 5, 11),
        ("star:5", 5, 4, 8),
        ("complete:4", 4, 6, 10),
        ("grid:2x3", 6, 7, 16),
    ] {
        let text = verify(topology, "central");
        assert!(text.contains("closure      holds"), "{text}");
        assert!(text.contains("convergence  holds"), "{text}");
        assert_eq!(worst_moves(&text), worst, "{topology}: {text}");
        assert!(worst <= 2 * m + n, "{topology}");
    }
}

#[test]
fn the_bound_is_the_central_daemons() {
    // Under the distributed daemon, "some free neighbour" lets the ring of 5
    // live-lock: every process proposes to the next, then every one backs
    // off, and again.
    let text = verify_with("ring:5", "distributed", &[], 5);
    assert!(
        text.contains("convergence  fails: a cycle of 2 steps outside legitimacy")
            && text.contains("{0:R2@1,1:R2@2,2:R2@3,3:R2@4,4:R2@0} {0:R3,1:R3,2:R3,3:R3,4:R3}"),
        "{text}"
    );
    // Each process proposing to its first free neighbour alone (as runs do),
    // it still converges, but a run takes 19 moves, past 2m + n = 15.
    let text = verify_with("ring:5", "distributed", &["--choice", "first"], 0);
    assert!(
        text.contains("convergence  holds: every run of first actions"),
        "{text}"
    );
    assert_eq!(worst_moves(&text), 19, "{text}");
    // The locally-central daemon keeps the bound on these graphs.
    for (topology, n, m) in [("ring:5", 5, 5), ("grid:2x3", 6, 7), ("complete:4", 4, 6)] {
        let text = verify(topology, "locally-central");
        assert!(worst_moves(&text) <= 2 * m + n, "{topology}: {text}");
    }
}
