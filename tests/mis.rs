//! The randomized maximal independent set (programs/mis.gc): the rules
//! alone converge under a central and a locally-central daemon within 2n
//! moves and cycle under a synchronous one; with the coin, the expected
//! synchronous steps `guarded expect` computes agree with a Markov chain
//! written out here and solved by Gaussian elimination, and with the mean
//! of 10,000 seeded runs of `guarded sweep`.

mod common;
use common::markov::{assert_agrees, chain};
use common::{guarded, instance, sweep_mean};
use guarded::runtime::daemon::Daemon;
use guarded::verify::expected::{self, Cost, MoverChoice, Movers};
use guarded::verify::{Convergence, Explorer, Starts};

const MIS: &str = include_str!("../programs/mis.gc");

const GRAPHS: [&str; 7] = [
    "ring:5",
    "ring:6",
    "chain:6",
    "star:5",
    "complete:4",
    "grid:3x3",
    "petersen",
];

#[test]
fn the_rules_alone_converge_within_2n_moves_unless_neighbours_move_together() {
    for topology in GRAPHS {
        let inst = instance(MIS, topology, &[("coin", 0)]);
        let n = inst.topology().n() as u64;
        let ex = Explorer::new(&inst).unwrap();
        for daemon in [Daemon::Central, Daemon::LocallyCentral] {
            match ex.verify(&daemon).unwrap().convergence {
                Convergence::Holds { moves, .. } => {
                    let worst = moves.unwrap().moves();
                    assert!(worst <= 2 * n, "{topology}: {worst} moves");
                }
                other => panic!("{topology}: {other:?}"),
            }
        }
        for daemon in [Daemon::Distributed, Daemon::Synchronous] {
            let v = ex.verify(&daemon).unwrap();
            assert!(
                matches!(v.convergence, Convergence::Cycle { .. }),
                "{topology} {}",
                daemon.name()
            );
        }
    }
    // With the coin, every value of every coin includes all tails for ever.
    let inst = instance(MIS, "ring:4", &[]);
    let v = Explorer::new(&inst)
        .unwrap()
        .verify(&Daemon::Central)
        .unwrap();
    assert!(matches!(v.convergence, Convergence::Cycle { .. }));
}

/// Expected synchronous steps of the coin-tossing MIS on `inst`'s graph,
/// by hand: bit i of a state is process i's `s`; process i is enabled
/// when it is in the set exactly when a neighbour is; in a step each
/// enabled process tosses a coin and flips its bit on heads.
fn mis_by_hand(inst: &guarded::load::Instance) -> Vec<f64> {
    let topo = inst.topology();
    let n = topo.n();
    let bit = |s: usize, i: usize| s >> i & 1 == 1;
    let enabled = |s: usize| -> Vec<usize> {
        (0..n)
            .filter(|&i| bit(s, i) == topo.nbrs(i).iter().any(|&q| bit(s, q as usize)))
            .collect()
    };
    chain(
        1 << n,
        |s| enabled(s).is_empty(),
        |s| {
            let movers = enabled(s);
            let p = 0.5f64.powi(movers.len() as i32);
            (0..1usize << movers.len())
                .map(|heads| {
                    let flipped = (0..movers.len())
                        .filter(|k| heads >> k & 1 == 1)
                        .fold(0, |bits, k| bits | 1 << movers[k]);
                    (s ^ flipped, p)
                })
                .collect()
        },
    )
}

#[test]
fn expected_steps_agree_with_a_chain_solved_by_hand() {
    for topology in ["ring:5", "chain:5", "star:4", "complete:4", "grid:2x3"] {
        let inst = instance(MIS, topology, &[]);
        let movers = Movers::AsRuns(Daemon::Synchronous);
        let model = expected::build(
            &inst,
            Starts::Every(inst.space()),
            &movers,
            MoverChoice::Slowest,
            1 << 20,
            None,
        )
        .unwrap();
        assert!(expected::no_sure_arrival(&model).is_none(), "{topology}");
        let values = expected::expected(&model, Cost::Steps, None)
            .unwrap()
            .values;
        let by_hand = mis_by_hand(&inst);
        assert_eq!(model.configs.len(), by_hand.len());
        assert_agrees(&model.configs, &values, &by_hand, topology);
    }
}

/// From the worst configuration and from a random one (the average over
/// every configuration), the expected steps against 10,000 seeded runs of
/// `guarded sweep` (within 4 standard errors).
#[test]
fn runs_average_what_is_expected() {
    let dir = std::env::temp_dir().join(format!("guarded-mis-{}", std::process::id()));
    let program = "programs/mis.gc";
    for topology in ["ring:6", "grid:3x3"] {
        let witness = dir.join(topology.replace(':', "-"));
        let (code, json, err) = guarded(&[
            "expect",
            program,
            "-t",
            topology,
            "-d",
            "synchronous",
            "--format",
            "json",
            "--witness",
            witness.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let worst_init = witness.join("worst-steps.init");
        for (init, measure) in [
            (worst_init.to_str().unwrap(), "worst"),
            ("random", "average"),
        ] {
            let csv = witness.join(format!("{measure}.csv"));
            let run = (program, topology, "synchronous");
            let (mean, se, runs) = sweep_mean(run, init, "0..9999", &csv, "stabilized_step");
            assert_eq!(runs, 10_000);
            let want = v["expected_steps"][measure].as_f64().unwrap();
            assert!(
                (mean - want).abs() < 4.0 * se,
                "{topology} {measure}: runs {mean} ± {se}, expected {want}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
