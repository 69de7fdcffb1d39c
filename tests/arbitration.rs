//! Dijkstra & Scholten's two-stage arbitration (programs/arbitration.gc):
//! the invariants, mutual exclusion, freedom from deadlock and the delay
//! bound of Section 5, and what goes wrong when neighbours move together.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome, RunError, Simulation};

const PROGRAM: &str = include_str!("../programs/arbitration.gc");
const THINKING: i64 = 0;
const HUNGRY: i64 = 1;
const EATING: i64 = 2;

fn start(topology: &str, daemon: Daemon, seed: u64) -> Simulation {
    let setup = Setup {
        topology: Some(topology.into()),
        seed,
        daemon,
        ..Setup::default()
    };
    simulate(PROGRAM, &setup).unwrap_or_else(|e| panic!("{e}"))
}

fn slot(sim: &Simulation, name: &str) -> usize {
    sim.slots(name).unwrap().start
}

fn phase(sim: &Simulation, p: usize) -> i64 {
    sim.value(p, "s").unwrap()
}

/// Whether the fork of p and its k-th neighbour carries an arrow towards that neighbour.
fn arrow_out(sim: &Simulation, p: usize, k: usize) -> bool {
    let row = sim.row(p);
    let q = sim.topology().nbrs(p)[k] as i64;
    row[slot(sim, "directed") + k] != 0 && row[slot(sim, "head") + k] == q
}

/// The philosophers reachable from `x` along directed forks (x excluded).
fn waits_for(sim: &Simulation, x: usize) -> Vec<usize> {
    let mut seen = vec![false; sim.n()];
    let mut stack = vec![x];
    seen[x] = true;
    while let Some(p) = stack.pop() {
        for (k, &q) in sim.topology().nbrs(p).iter().enumerate() {
            if arrow_out(sim, p, k) && !seen[q as usize] {
                seen[q as usize] = true;
                stack.push(q as usize);
            }
        }
    }
    (0..sim.n()).filter(|&p| seen[p] && p != x).collect()
}

/// Long runs from the all-thinking start under daemons that never move two
/// neighbours together: Q0, Q1, Q2 and mutual exclusion after every step
/// (the engine checks the declared invariants), no deadlock, and every
/// hungry philosopher eats. The delay argument of Section 5, checked as the
/// paper states it: the philosophers a hungry X waits for (reachable from X
/// along directed forks) form a set that never grows, and each member eats
/// at most once while still in it (eating, then thinking, takes it out), so
/// at most N - 1 meals of philosophers X waits for delay X. A philosopher
/// that has left the set may eat again before X does: such meals are not
/// bounded by the argument (and do happen).
#[test]
fn invariants_no_deadlock_and_the_delay_bound() {
    let mut largest = (0usize, String::new());
    for topology in [
        "ring:7",
        "complete:6",
        "grid:3x4",
        "random:12",
        "random:20",
        "star:8",
        "tree:15",
    ] {
        for daemon in [Daemon::Central, Daemon::LocallyCentral] {
            for seed in 0..4 {
                let mut sim = start(topology, daemon.clone(), seed);
                let n = sim.n();
                let what = format!("{topology} {} seed={seed}", daemon.name());
                // Per hungry philosopher: whom it waits for, and their meals since.
                let mut waiting: Vec<Option<(Vec<usize>, Vec<usize>)>> = vec![None; n];
                let mut meals = 0;
                for _ in 0..4000 {
                    let before: Vec<i64> = (0..n).map(|p| phase(&sim, p)).collect();
                    // Whom each hungry philosopher waits for now: a subset of the first set.
                    let now: Vec<Vec<usize>> = (0..n)
                        .map(|x| match &waiting[x] {
                            Some((first, _)) => {
                                let w = waits_for(&sim, x);
                                assert!(
                                    w.iter().all(|p| first.contains(p)),
                                    "{what}: the set {x} waits for grew"
                                );
                                w
                            }
                            None => Vec::new(),
                        })
                        .collect();
                    match sim.step() {
                        Ok(Outcome::Moved) => {}
                        Ok(o) => panic!("{what}: {o:?} at step {}", sim.now().step),
                        Err(e) => panic!("{what}: {e:?}"),
                    }
                    if let Some(i) = sim.violated_invariant().unwrap() {
                        panic!(
                            "{what}: invariant {} broken at step {}",
                            sim.invariant_name(i),
                            sim.now().step
                        );
                    }
                    for p in 0..n {
                        match (before[p], phase(&sim, p)) {
                            (THINKING, HUNGRY) => {
                                waiting[p] = Some((waits_for(&sim, p), Vec::new()))
                            }
                            (HUNGRY, EATING) => {
                                meals += 1;
                                if let Some((_, ate)) = waiting[p].take() {
                                    if ate.len() > largest.0 {
                                        largest = (ate.len(), format!("{what}: philosopher {p}"));
                                    }
                                    assert!(
                                        ate.len() < n,
                                        "{what}: {p} waited for {} meals",
                                        ate.len()
                                    );
                                }
                                for (x, w) in waiting.iter_mut().enumerate() {
                                    if let Some((_, ate)) = w {
                                        if now[x].contains(&p) {
                                            assert!(
                                                !ate.contains(&p),
                                                "{what}: {p} ate twice while {x} waited for it"
                                            );
                                            ate.push(p);
                                        }
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                assert!(meals > 0, "{what}: nobody ate");
                // Everyone still hungry eats: run on until they all have.
                let mut extra = 0;
                while waiting.iter().any(Option::is_some) {
                    let before: Vec<i64> = (0..n).map(|p| phase(&sim, p)).collect();
                    assert_eq!(sim.step().unwrap(), Outcome::Moved);
                    for p in 0..n {
                        if before[p] == HUNGRY && phase(&sim, p) == EATING {
                            waiting[p] = None;
                        }
                    }
                    extra += 1;
                    assert!(extra < 100 * n, "{what}: a hungry philosopher starves");
                }
            }
        }
    }
    println!(
        "largest delay observed: {} meals ({})",
        largest.0, largest.1
    );
}

/// The paper's reason for making neighbouring transitions mutually
/// exclusive: under the synchronous daemon every philosopher takes T0 at
/// once, none sees a tabled neighbour, and Q0 breaks at the first step.
#[test]
fn synchronous_moves_break_q0_at_the_first_step() {
    let mut sim = start("ring:6", Daemon::Synchronous, 0);
    assert_eq!(sim.step().unwrap(), Outcome::Moved);
    assert_eq!(sim.now().step, 1);
    let i = sim
        .violated_invariant()
        .unwrap()
        .expect("an invariant breaks");
    assert_eq!(sim.invariant_name(i), "Q0");
}

/// Two neighbours writing their shared fork in one step is a conflict that
/// names both, the edge and the actions.
#[test]
fn neighbours_writing_one_fork_together_conflict() {
    let mut sim = start("ring:4", Daemon::Central, 0);
    // 0 becomes hungry then eats (its neighbours think: no arrows).
    sim.step_with(&[0], None).unwrap();
    sim.step_with(&[0], None).unwrap();
    assert_eq!(phase(&sim, 0), EATING);
    // 1 directs an arrow towards tabled 0 (T0) while 0 clears its forks (T2).
    let err = sim.step_with(&[0, 1], None).unwrap_err();
    match err {
        RunError::Conflict {
            var,
            edge,
            writers,
            step,
        } => {
            assert_eq!(var, "directed");
            assert_eq!(edge, (0, 1));
            assert_eq!(step, 3);
            let who: Vec<(usize, &str)> =
                writers.iter().map(|(p, l, _)| (*p, l.as_str())).collect();
            assert_eq!(who, [(0, "T2"), (1, "T0")]);
        }
        other => panic!("not a conflict: {other:?}"),
    }
}
