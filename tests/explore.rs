//! Exhaustive exploration through the public step API alone: the state
//! space (every configuration the domains allow), the daemon's move sets
//! and the pure step relation. Dijkstra's K-state ring with 4 machines and
//! K = 4 under the central daemon: 256 configurations, 40 of them with
//! exactly one privilege; legitimacy is closed, every run reaches it, and
//! the longest run to it takes 13 moves.

use guarded::load::{load, read_file, Setup};
use guarded::runtime::daemon::Daemon;
use guarded::state::Config;
use std::collections::HashMap;

const DIJKSTRA: &str = include_str!("../programs/dijkstra_kstate.gc");

/// What an exhaustive exploration found under one daemon.
struct Explored {
    configurations: usize,
    legitimate: usize,
    closed: bool,
    /// The most moves any run takes to reach legitimacy, if every run does.
    worst_moves: Option<u64>,
}

fn explore(src: &str, topology: &str, params: &[(&str, i64)], daemon: &Daemon) -> Explored {
    let setup = Setup {
        topology: Some(topology.into()),
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ..Setup::default()
    };
    let inst = load(src, &setup, &read_file).unwrap_or_else(|e| panic!("{e:?}"));
    let space = inst.space();
    let mut rel = inst.step_relation();
    let configs: Vec<Config> = space.iter().collect();
    let index: HashMap<&Config, usize> = configs.iter().enumerate().map(|(i, c)| (c, i)).collect();
    let legit: Vec<bool> = configs
        .iter()
        .map(|c| {
            rel.legitimate(c)
                .unwrap()
                .expect("the program declares legitimacy")
        })
        .collect();
    // Transitions: successor index and the moves of the step.
    let mut succ: Vec<Vec<(usize, u64)>> = Vec::with_capacity(configs.len());
    let mut closed = true;
    for (i, c) in configs.iter().enumerate() {
        let enabled = rel.enabled(c).unwrap();
        let mut out = Vec::new();
        for set in daemon.move_sets(&enabled, inst.topology(), 0) {
            let next = rel.successor_first(c, &set).unwrap();
            let j = index[&next];
            closed &= !legit[i] || legit[j];
            out.push((j, set.len() as u64));
        }
        succ.push(out);
    }
    // The most moves to legitimacy from each configuration: a longest path
    // in the graph outside legitimacy, which must be acyclic and have no
    // dead end for convergence.
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![0u8; configs.len()];
    let mut worst = vec![0u64; configs.len()];
    fn visit(
        i: usize,
        succ: &[Vec<(usize, u64)>],
        legit: &[bool],
        state: &mut [u8],
        worst: &mut [u64],
    ) -> bool {
        if legit[i] || state[i] == DONE {
            return true;
        }
        if state[i] == OPEN || succ[i].is_empty() {
            return false; // a cycle, or a deadlock, outside legitimacy
        }
        state[i] = OPEN;
        let mut most = 0;
        for &(j, moves) in &succ[i] {
            if !visit(j, succ, legit, state, worst) {
                return false;
            }
            most = most.max(moves + worst[j]);
        }
        worst[i] = most;
        state[i] = DONE;
        true
    }
    let converges = (0..configs.len()).all(|i| visit(i, &succ, &legit, &mut state, &mut worst));
    Explored {
        configurations: configs.len(),
        legitimate: legit.iter().filter(|&&l| l).count(),
        closed,
        worst_moves: converges.then(|| worst.iter().copied().max().unwrap_or(0)),
    }
}

#[test]
fn dijkstra_ring4_k4_central_converges_in_at_most_13_moves() {
    let e = explore(DIJKSTRA, "ring:4", &[("K", 4)], &Daemon::Central);
    assert_eq!(e.configurations, 256);
    assert_eq!(e.legitimate, 40);
    assert!(e.closed, "legitimacy is closed");
    assert_eq!(e.worst_moves, Some(13));
}

#[test]
fn dijkstra_with_too_few_states_does_not_converge_synchronously() {
    // K = 2 is below the n - 1 states Dijkstra's argument needs on a ring
    // of 4: some synchronous run never reaches a single privilege (and the
    // ring never deadlocks, so it cycles).
    let e = explore(DIJKSTRA, "ring:4", &[("K", 2)], &Daemon::Synchronous);
    assert_eq!(e.configurations, 16);
    assert_eq!(e.worst_moves, None);
}
