//! Johnen's leader election on k-bounded unidirectional rings
//! (programs/johnen_leader.gc): Theorem 19 and the specification checked
//! from random configurations with random k-bounded ids.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome, Simulation};
use guarded::runtime::init::InitMode;
use guarded::topology::Ids;

const PROGRAM: &str = include_str!("../programs/johnen_leader.gc");

fn ring(n: usize, k: i64, ids: Ids, seed: u64, daemon: Daemon) -> Simulation {
    let setup = Setup {
        topology: Some(format!("uring:{n}")),
        params: vec![("k".into(), k)],
        ids,
        seed,
        init: InitMode::Random,
        daemon,
        ..Setup::default()
    };
    simulate(PROGRAM, &setup).unwrap_or_else(|e| panic!("{e}"))
}

/// The processes whose `Ld` is true.
fn leaders(sim: &Simulation) -> Vec<usize> {
    (0..sim.n())
        .filter(|&p| sim.value(p, "Ld") != Some(0))
        .collect()
}

/// Runs to silence; returns the round in which the last move happened.
fn run_to_silence(sim: &mut Simulation, limit: u64) -> u64 {
    loop {
        match sim.step().expect("no runtime error") {
            Outcome::Silent => return sim.now().round,
            _ => assert!(sim.now().round <= limit, "no silence within {limit} rounds"),
        }
    }
}

/// Theorem 19 and Theorem 17: from any configuration, under the synchronous,
/// central and distributed daemons, the ring becomes silent within
/// (k+2)N + 1 rounds with exactly one leader, the process of minimum id.
#[test]
fn silent_with_the_minimum_id_elected_within_the_bound() {
    let mut worst_ratio: f64 = 0.0;
    let mut worst = String::new();
    let mut runs = 0;
    for n in 3..=16usize {
        for k in 0..=3i64 {
            let bound = (k as u64 + 2) * n as u64 + 1;
            for daemon in [Daemon::Synchronous, Daemon::Central, Daemon::Distributed] {
                for seed in 0..20 {
                    // Random distinct ids at most N + k.
                    let ids = Ids::Random(0, n as i64 + k);
                    let mut sim = ring(n, k, ids, seed, daemon.clone());
                    let rounds = run_to_silence(&mut sim, bound);
                    let what = format!("N={n} k={k} {} seed={seed}", daemon.name());
                    assert!(rounds <= bound, "{what}: {rounds} rounds > {bound}");
                    assert_eq!(
                        sim.legitimate(),
                        Some(true),
                        "{what}: silent but not legitimate"
                    );
                    let l = leaders(&sim);
                    assert_eq!(l.len(), 1, "{what}: leaders {l:?}");
                    let min = *sim.topology().ids().iter().min().unwrap();
                    assert_eq!(
                        sim.topology().id(l[0]),
                        min,
                        "{what}: the leader is not the minimum id"
                    );
                    if rounds as f64 / bound as f64 > worst_ratio {
                        worst_ratio = rounds as f64 / bound as f64;
                        worst = format!("{what}: {rounds} of {bound} rounds");
                    }
                    runs += 1;
                }
            }
        }
    }
    assert_eq!(runs, 14 * 4 * 3 * 20);
    // The bound is tight: synchronous runs on small rings reach it exactly.
    println!("largest rounds / ((k+2)N+1): {worst_ratio:.3} ({worst})");
}

/// Ids beyond N + k are outside the paper's model: the tool refuses them.
#[test]
fn ids_beyond_n_plus_k_are_refused() {
    let setup = Setup {
        topology: Some("uring:4".into()),
        params: vec![("k".into(), 1)],
        ids: Ids::List(vec![0, 1, 2, 9]),
        ..Setup::default()
    };
    let err = simulate(PROGRAM, &setup).err().expect("refused");
    assert!(err.contains("matches no role"), "{err}");
}

/// The paper's Fig. 1 shape: on a 10-ring that is 3-bounded, the final F of
/// every process lists the SI ids (those at most k + 1) in ring order.
#[test]
fn final_arrays_hold_the_small_ids_in_ring_order() {
    let ids = vec![7, 0, 9, 3, 12, 5, 2, 10, 11, 4];
    let mut sim = ring(10, 3, Ids::List(ids.clone()), 1, Daemon::Distributed);
    run_to_silence(&mut sim, 5 * 10 + 1);
    let f = sim.slots("F").unwrap();
    for p in 0..10 {
        let arr = &sim.row(p)[f.clone()];
        // The last entries are the ids of the previous SI processes, nearest last.
        let mut expect = Vec::new();
        let mut q = p;
        while expect.len() < arr.len() {
            if ids[q] <= 4 {
                expect.push(ids[q]);
            }
            q = (q + 9) % 10;
        }
        expect.reverse();
        assert_eq!(arr, &expect[..], "process {p}");
    }
    assert_eq!(leaders(&sim), vec![1]);
}
