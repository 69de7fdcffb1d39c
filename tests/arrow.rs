//! The self-stabilizing arrow protocol (programs/arrow.gc): every edge
//! reaches phi(e) = 1 within 3R + tau rounds (Corollary 6.8) from random
//! illegal configurations, keeps it, and afterwards concurrent requests form
//! one queue. R is the round-trip bound of the program's timing model.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome, Simulation};
use guarded::runtime::init::InitMode;
use std::collections::HashMap;

const PROGRAM: &str = include_str!("../programs/arrow.gc");

fn start(n: usize, daemon: Daemon, seed: u64, params: &[(&str, i64)]) -> Simulation {
    let setup = Setup {
        topology: Some(format!("tree:{n}")),
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        seed,
        init: InitMode::Random,
        daemon,
        ..Setup::default()
    };
    simulate(PROGRAM, &setup).unwrap_or_else(|e| panic!("{e}"))
}

fn param(sim: &Simulation, name: &str) -> u64 {
    sim.params().iter().find(|(k, _)| k == name).unwrap().1 as u64
}

/// Runs until the round `until` has passed.
fn run_until_round(sim: &mut Simulation, until: u64, what: &str) {
    while sim.now().round <= until {
        match sim.step() {
            Ok(Outcome::Moved) => {}
            Ok(o) => panic!("{what}: {o:?}"),
            Err(e) => panic!("{what}: {e:?}"),
        }
    }
}

/// Stabilization rounds against 3R + tau for trees of up to 30 processes
/// under four daemons; returns the largest ratio observed.
fn stabilizes_within_the_bound(params: &[(&str, i64)], extra: u64) -> f64 {
    let mut worst: f64 = 0.0;
    for n in [2usize, 5, 10, 20, 30] {
        for daemon in [
            Daemon::Central,
            Daemon::Distributed,
            Daemon::Synchronous,
            Daemon::LocallyCentral,
        ] {
            for seed in 0..5 {
                let mut sim = start(n, daemon.clone(), seed, params);
                let (r, tau) = (param(&sim, "R"), param(&sim, "tau"));
                let bound = 3 * r + tau + extra;
                let what = format!("tree:{n} {} seed={seed} {params:?}", daemon.name());
                // Past the bound, and one more round trip to see it kept.
                run_until_round(&mut sim, bound + r, &what);
                let at = sim
                    .stabilized_at()
                    .unwrap_or_else(|| panic!("{what}: not legal"));
                assert!(
                    at.round <= bound,
                    "{what}: legal from round {} > {bound}",
                    at.round
                );
                worst = worst.max(at.round as f64 / bound as f64);
            }
        }
    }
    worst
}

#[test]
fn every_edge_becomes_legal_within_3r_plus_tau_and_stays() {
    let worst = stabilizes_within_the_bound(&[], 0);
    println!("timeout at tau: largest (legal from round) / (3R + tau) = {worst:.3}");
}

/// The other reading of "exceeds twice the round trip": the timeout comes
/// one round later, and the bound moves by as much.
#[test]
fn timeouts_that_exceed_tau_also_stabilize() {
    let worst = stabilizes_within_the_bound(&[("exceed", 1)], 1);
    println!("timeout after tau: largest (legal from round) / (3R + tau + 1) = {worst:.3}");
}

/// The other order for a delivery and a timeout due together, deliveries
/// first, starves: on a tree of 3 under the synchronous daemon a find
/// bounces on an illegal edge, its parent has a delivery to take every
/// round and never times out, and the edge stays illegal. With the timeout
/// first (the program's default) the same start becomes legal.
#[test]
fn deliveries_before_timeouts_starve_the_correction() {
    let mut sim = start(3, Daemon::Synchronous, 6, &[("timeout_first", 0)]);
    let (r, tau) = (param(&sim, "R"), param(&sim, "tau"));
    run_until_round(&mut sim, 10 * (3 * r + tau), "deliveries first");
    assert_eq!(sim.legitimate(), Some(false));
    assert_eq!(sim.stabilized_at(), None);
    let mut sim = start(3, Daemon::Synchronous, 6, &[]);
    run_until_round(&mut sim, 3 * r + tau + r, "timeout first");
    assert!(sim
        .stabilized_at()
        .is_some_and(|at| at.round <= 3 * r + tau));
}

/// The other reading of one find crossing two edges: a find forwarded onto
/// an edge this node corrects is not counted in that edge's `sent`. The
/// observe phases then underestimate phi(e), and these runs become legal
/// only after the bound (if at all within five times it), where the default
/// reading is legal within it. (Not every start shows it: from seeds 2, 3,
/// 4, 6 and 8 the uncounted reading is legal within the bound too.)
#[test]
fn uncounted_forwarded_finds_break_the_bound() {
    for seed in [1, 5, 7] {
        let mut sim = start(20, Daemon::Central, seed, &[("count_forwarded", 0)]);
        let (r, tau) = (param(&sim, "R"), param(&sim, "tau"));
        let bound = 3 * r + tau;
        run_until_round(&mut sim, 5 * bound, "uncounted");
        assert!(
            sim.stabilized_at().is_none_or(|at| at.round > bound),
            "seed {seed}: legal from {:?}",
            sim.stabilized_at()
        );
        let mut sim = start(20, Daemon::Central, seed, &[]);
        run_until_round(&mut sim, bound + r, "counted");
        assert!(sim.stabilized_at().is_some_and(|at| at.round <= bound));
    }
}

/// Whether no find is in transit and no request is pending.
fn quiet(sim: &Simulation) -> bool {
    let no_requests = (0..sim.n()).all(|p| sim.value(p, "want") == Some(0));
    no_requests
        && sim
            .channels()
            .queues
            .iter()
            .all(|q| q.iter().all(|m| sim.message_name(m.kind) != "find"))
}

/// After stabilization, concurrent requests by random processes are queued
/// in one total order: each behind exactly one predecessor, no two behind
/// the same, all in one chain starting at the sink's last request.
#[test]
fn requests_after_stabilization_form_one_queue() {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    for n in [5usize, 12, 25] {
        for seed in 0..6 {
            let mut sim = start(n, Daemon::Distributed, seed, &[]);
            let (r, tau) = (param(&sim, "R"), param(&sim, "tau"));
            let what = format!("tree:{n} seed={seed}");
            run_until_round(&mut sim, 3 * r + tau, &what);
            assert_eq!(sim.legitimate(), Some(true), "{what}");
            while !quiet(&sim) {
                assert_eq!(sim.step().unwrap(), Outcome::Moved);
            }
            // Requests from a random half of the processes, all at once.
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut requesters: Vec<usize> = (0..n).collect();
            requesters.shuffle(&mut rng);
            requesters.truncate(n.div_ceil(2));
            let (stride, slot) = (sim.stride(), sim.slots("want").unwrap().start);
            sim.change_state(|s| {
                for &p in &requesters {
                    s[p * stride + slot] = 1;
                }
            })
            .unwrap();
            // A request is named by its process; `None` is a process's last
            // request from before (the virtual one the queue starts at).
            let mut last: Vec<Option<usize>> = vec![None; n];
            let mut behind: HashMap<usize, (usize, Option<usize>)> = HashMap::new();
            let mut steps = 0;
            loop {
                assert_eq!(sim.step().unwrap(), Outcome::Moved);
                steps += 1;
                assert!(steps < 200_000, "{what}: requests never all queued");
                let rec = sim.last();
                for (k, &v) in rec.movers().iter().enumerate() {
                    let v = v as usize;
                    let label = sim.action_label(v, rec.actions()[k]);
                    if label == "request_queue" {
                        // Queued behind this process's own last request.
                        assert!(behind.insert(v, (v, last[v])).is_none());
                        last[v] = Some(v);
                    } else if label == "request" {
                        last[v] = Some(v);
                    } else if label.ends_with("_queue") {
                        let (_, m) = rec.received[k].expect("a queue action takes a find");
                        let origin = m.fields[0] as usize;
                        assert!(
                            behind.insert(origin, (v, last[v])).is_none(),
                            "{what}: {origin} queued twice"
                        );
                    }
                }
                if behind.len() == requesters.len() && quiet(&sim) {
                    break;
                }
            }
            // No two requests behind the same one.
            let mut preds: Vec<(usize, Option<usize>)> = behind.values().copied().collect();
            preds.sort();
            preds.dedup();
            assert_eq!(
                preds.len(),
                requesters.len(),
                "{what}: two requests behind one"
            );
            // One chain: exactly one request is behind a virtual (old) request.
            let heads: Vec<usize> = behind
                .iter()
                .filter(|(_, (_, pr))| pr.is_none())
                .map(|(r, _)| *r)
                .collect();
            assert_eq!(heads.len(), 1, "{what}: the queue starts at {heads:?}");
            // Walk it: every request once.
            let succ: HashMap<usize, usize> = behind
                .iter()
                .filter_map(|(r, (_, pr))| pr.map(|p| (p, *r)))
                .collect();
            let mut seen = vec![heads[0]];
            while let Some(&next) = succ.get(seen.last().unwrap()) {
                seen.push(next);
                assert!(seen.len() <= requesters.len(), "{what}: a cycle");
            }
            assert_eq!(
                seen.len(),
                requesters.len(),
                "{what}: the queue is {seen:?}"
            );
            assert_eq!(
                sim.legitimate(),
                Some(true),
                "{what}: illegal after the requests"
            );
        }
    }
}
