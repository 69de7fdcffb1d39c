//! SSLE (programs/ssle.gc): the worked example of Fig. 2, the defects of the
//! printed table, and Theorem 1 checked on many graphs and daemons.

mod common;

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome, Simulation};
use guarded::runtime::init::InitMode;
use guarded::topology::Ids;
use guarded::verify::Fairness;
use std::collections::VecDeque;

const PROGRAM: &str = include_str!("../programs/ssle.gc");
const FIG2: &str = include_str!("../programs/ssle_fig2.init");

fn start(
    topology: &str,
    ids: Ids,
    init: InitMode,
    daemon: Daemon,
    params: &[(&str, i64)],
    seed: u64,
) -> Simulation {
    let setup = Setup {
        topology: Some(topology.into()),
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ids,
        seed,
        init,
        daemon,
        ..Setup::default()
    };
    simulate(PROGRAM, &setup).unwrap_or_else(|e| panic!("{e}"))
}

fn get(sim: &Simulation, p: usize, var: &str) -> i64 {
    sim.value(p, var).unwrap()
}

/// (leader, level, colour, parent index) of every process.
fn boxes(sim: &Simulation) -> Vec<(i64, i64, i64, i64)> {
    (0..sim.n())
        .map(|p| {
            (
                get(sim, p, "leader"),
                get(sim, p, "level"),
                get(sim, p, "color"),
                get(sim, p, "parent"),
            )
        })
        .collect()
}

/// (process, action) of the last step, by process index.
fn moves(sim: &Simulation) -> Vec<(usize, String)> {
    let last = sim.last();
    let mut v: Vec<(usize, String)> = last
        .movers()
        .iter()
        .zip(last.actions())
        .map(|(&p, &a)| {
            let p = p as usize;
            (p, sim.action_label(p, a).to_string())
        })
        .collect();
    v.sort();
    v
}

fn fig2() -> Simulation {
    start(
        "chain:6",
        Ids::List(vec![6, 7, 4, 5, 2, 3]),
        InitMode::File("ssle_fig2.init".into(), FIG2.into()),
        Daemon::Synchronous,
        &[],
        0,
    )
}

/// Fig. 2, row by row, where the printed table allows it. Processes by
/// index: 0..5 are ids 6 7 4 5 2 3; A6 moves are not shown in the figure.
#[test]
fn figure_2_rows_c0_to_c2_match_then_the_figure_leaves_the_table() {
    let mut sim = fig2();
    // c0 (id5's box as the following rows need it: 1 3 0).
    assert_eq!(
        boxes(&sim),
        [
            (1, 0, 0, 0),
            (1, 1, 0, 0),
            (1, 2, 0, 1),
            (1, 3, 0, 2),
            (2, 0, 1, 4),
            (3, 0, 0, 5)
        ]
    );
    // c0 -> c1: id6 A2, id5 A4, id3 A1.
    sim.step().unwrap();
    assert_eq!(
        moves(&sim),
        [(0, "A2".into()), (3, "A4".into()), (5, "A1".into())]
    );
    assert_eq!(
        boxes(&sim),
        [
            (6, 0, 0, 0),
            (1, 1, 0, 0),
            (1, 2, 0, 1),
            (1, 3, 1, 2),
            (2, 0, 1, 4),
            (2, 1, 0, 4)
        ]
    );
    // c1 -> c2: id6 A4, id7 A2, id4 A4, id2 A1 (attaching to id5: level 4).
    // This is the step only the simultaneous reading of `P.done <- Done(P)`
    // reproduces (defect 3).
    sim.step().unwrap();
    assert_eq!(
        moves(&sim),
        [
            (0, "A4".into()),
            (1, "A2".into()),
            (2, "A4".into()),
            (4, "A1".into())
        ]
    );
    assert_eq!(
        boxes(&sim),
        [
            (6, 0, 1, 0),
            (7, 0, 0, 1),
            (1, 2, 1, 1),
            (1, 3, 1, 2),
            (1, 4, 0, 3),
            (2, 1, 0, 4)
        ]
    );
    // c2 -> c3: the figure has id7 execute A1, attaching to id4 (key 1 3 0).
    // The table forbids it: id4's parent is id7 and id4 is not a true child
    // of id7's new key, so id4 is a false child of id7, False_Chldrn(id7) is
    // not empty, and A1 is disabled. id7 colours instead (A4). The figure
    // shows a process attaching to its own false child.
    let id7 = 1;
    assert_eq!(get(&sim, 2, "parent"), id7 as i64);
    sim.step().unwrap();
    let m = moves(&sim);
    assert!(m.contains(&(id7, "A4".into())), "{m:?}");
    assert!(!m.contains(&(id7, "A1".into())));
    // From here the run is not the figure's. The paper's remarks at the end
    // of Section 3.6: all processes in Leader's tree after 16 steps (same
    // here), Leader.done after 21 steps (here 20), silent after 25 (here 24).
    while sim.legitimate() != Some(true) {
        sim.step().unwrap();
    }
    assert_eq!(sim.now().step, 16);
    // Leader.done may turn true and false again; the paper means the step
    // after which it stays true.
    let leader = 4;
    let mut done_from = 0;
    while sim.step().unwrap() == Outcome::Moved {
        if get(&sim, leader, "done") == 0 {
            done_from = 0;
        } else if done_from == 0 {
            done_from = sim.now().step;
        }
    }
    assert_eq!(done_from, 20);
    assert_eq!(sim.now().step, 24);
    assert!(boxes(&sim).iter().all(|b| b.0 == 2));
}

fn ring5_deadlock(repair: i64) -> Simulation {
    // ids 0..4 in ring order; (leader, level, colour, done, parent).
    let config = "\
        0.leader = 0\n0.level = 0\n0.color = 1\n0.done = false\n0.parent = 0\n\
        1.leader = 0\n1.level = 1\n1.color = 0\n1.done = false\n1.parent = 0\n\
        2.leader = 2\n2.level = 0\n2.color = 0\n2.done = true\n2.parent = 2\n\
        3.leader = 0\n3.level = 2\n3.color = 1\n3.done = false\n3.parent = 4\n\
        4.leader = 0\n4.level = 1\n4.color = 1\n4.done = false\n4.parent = 0\n";
    start(
        "ring:5",
        Ids::Index,
        InitMode::File("deadlock".into(), config.into()),
        Daemon::Distributed,
        &[("repair", repair)],
        1,
    )
}

/// Defect 4: the printed algorithm deadlocks on a ring of five; the repair
/// (`repair=1`) converges from the same configuration.
#[test]
fn five_ring_deadlock_and_its_repair() {
    let sim = ring5_deadlock(0);
    assert!(
        sim.is_silent(),
        "the faithful version has an enabled process"
    );
    assert_eq!(sim.legitimate(), Some(false));
    assert_eq!(get(&sim, 2, "leader"), 2, "id2 never joins");

    let mut sim = ring5_deadlock(1);
    assert!(!sim.is_silent());
    while sim.step().unwrap() == Outcome::Moved {
        assert!(sim.now().step < 10_000);
    }
    assert_eq!(sim.legitimate(), Some(true));
    check_bfs_tree(&sim, "ring5 repaired");
}

/// Defect 2: with A1 as printed (no Can_Improve), the leader of a finished
/// tree attaches to its own child and the run never becomes silent.
#[test]
fn a1_as_printed_is_never_silent() {
    let mut sim = start(
        "chain:6",
        Ids::List(vec![6, 7, 4, 5, 2, 3]),
        InitMode::File("ssle_fig2.init".into(), FIG2.into()),
        Daemon::Synchronous,
        &[("literal_A1", 1)],
        0,
    );
    for _ in 0..5000 {
        assert_eq!(
            sim.step().unwrap(),
            Outcome::Moved,
            "silent at step {}",
            sim.now().step
        );
    }
    assert!(sim.legitimacy_losses() > 0 || sim.legitimate() != Some(true));
}

/// BFS distances from the minimum id.
fn bfs(sim: &Simulation) -> Vec<i64> {
    let n = sim.n();
    let root = (0..n).min_by_key(|&p| sim.topology().id(p)).unwrap();
    let mut d = vec![-1i64; n];
    d[root] = 0;
    let mut q = VecDeque::from([root]);
    while let Some(p) = q.pop_front() {
        for &r in sim.topology().nbrs(p) {
            let r = r as usize;
            if d[r] < 0 {
                d[r] = d[p] + 1;
                q.push_back(r);
            }
        }
    }
    d
}

/// Every process names the minimum id, levels are BFS distances, and parents
/// form a BFS tree (each non-root's parent is a neighbour one level closer).
fn check_bfs_tree(sim: &Simulation, what: &str) {
    let d = bfs(sim);
    let min = *sim.topology().ids().iter().min().unwrap();
    for p in 0..sim.n() {
        assert_eq!(get(sim, p, "leader"), min, "{what}: process {p} leader");
        assert_eq!(get(sim, p, "level"), d[p], "{what}: process {p} level");
        let parent = get(sim, p, "parent") as usize;
        if d[p] == 0 {
            assert_eq!(parent, p, "{what}: the root's parent");
        } else {
            assert!(
                sim.topology().nbrs(p).contains(&(parent as u32)),
                "{what}: parent not a neighbour"
            );
            assert_eq!(
                d[parent],
                d[p] - 1,
                "{what}: process {p}'s parent is not one level closer"
            );
        }
    }
}

/// Theorem 1: silent, one BFS tree rooted at the minimum id, from random
/// configurations under every daemon; with the repair on graphs with
/// cycles, and the faithful version on chains, trees and stars.
#[test]
fn silent_bfs_tree_rooted_at_the_minimum_id() {
    let daemons = [
        Daemon::Central,
        Daemon::Synchronous,
        Daemon::Distributed,
        Daemon::LocallyCentral,
    ];
    let mut cases: Vec<(String, i64)> = Vec::new();
    for n in [2usize, 3, 5, 8, 13, 21, 30] {
        for family in ["random", "tree", "ring", "chain"] {
            if family == "ring" && n < 3 {
                continue;
            }
            cases.push((format!("{family}:{n}"), 1));
        }
        for family in ["chain", "tree", "star"] {
            cases.push((format!("{family}:{n}"), 0));
        }
    }
    let mut worst = (0.0f64, String::new());
    let mut by_n: std::collections::BTreeMap<usize, u64> = Default::default();
    let mut runs = 0;
    for (topology, repair) in &cases {
        for daemon in &daemons {
            for seed in 0..6 {
                let mut sim = start(
                    topology,
                    Ids::Shuffled,
                    InitMode::Random,
                    daemon.clone(),
                    &[("repair", *repair)],
                    seed,
                );
                let what = format!("{topology} repair={repair} {} seed={seed}", daemon.name());
                loop {
                    match sim.step() {
                        Ok(Outcome::Moved) => {}
                        Ok(_) => break,
                        Err(e) => panic!("{what}: {e:?}"),
                    }
                    assert!(
                        sim.now().round < 5000,
                        "{what}: not silent after 5000 rounds"
                    );
                }
                assert_eq!(sim.legitimate(), Some(true), "{what}");
                check_bfs_tree(&sim, &what);
                // Rounds against n - 1, an upper bound of simp.
                let per = sim.now().round as f64 / (sim.n() as f64 - 1.0).max(1.0);
                if per > worst.0 {
                    worst = (per, format!("{what}: {} rounds", sim.now().round));
                }
                let most = by_n.entry(sim.n()).or_default();
                *most = (*most).max(sim.now().round);
                runs += 1;
            }
        }
    }
    println!(
        "{runs} runs; most rounds per (n-1): {:.2} ({})",
        worst.0, worst.1
    );
    println!("most rounds to silence by n: {by_n:?}");
}

/// How often the faithful version deadlocks on graphs with cycles from
/// random configurations (defect 4 is rare but real); it never faults.
#[test]
fn faithful_version_on_graphs_with_cycles() {
    let (mut runs, mut deadlocks) = (0, 0);
    for n in [5usize, 8, 13, 21, 30] {
        for family in ["random", "ring", "grid"] {
            let topology = if family == "grid" {
                format!("grid:{}x{}", n.div_ceil(4), 4)
            } else {
                format!("{family}:{n}")
            };
            for seed in 0..20 {
                let mut sim = start(
                    &topology,
                    Ids::Shuffled,
                    InitMode::Random,
                    Daemon::Distributed,
                    &[],
                    seed,
                );
                while sim.step().expect("no runtime error") == Outcome::Moved {
                    assert!(sim.now().round < 5000);
                }
                runs += 1;
                if sim.legitimate() != Some(true) {
                    deadlocks += 1;
                }
            }
        }
    }
    println!("faithful version, graphs with cycles: {deadlocks} deadlocks in {runs} runs");
}

/// `guarded verify` on chains of three with keys bounded by `max_id = 2`
/// and `max_level = 3` (1,327,104 configurations): the convergence the
/// paper claims, or the counterexample, under the central daemon, unfair
/// or weakly fair (the paper's assumption).
fn verified(repair: i64, weak_fairness: bool) -> guarded::verify::Verdict {
    let inst = common::instance(
        PROGRAM,
        "chain:3",
        &[("max_id", 2), ("max_level", 3), ("repair", repair)],
    );
    let mut explorer = guarded::verify::Explorer::new(&inst).unwrap_or_else(|e| panic!("{e:?}"));
    explorer.count_rounds(false);
    explorer
        .verify_fairly(
            &Daemon::Central,
            if weak_fairness {
                Fairness::Weak
            } else {
                Fairness::Unfair
            },
        )
        .unwrap_or_else(|e| panic!("{e:?}"))
}

/// The only runtime errors are keys leaving their bounds (the paper's keys
/// are unbounded): a process attaching under a parent whose level is the
/// largest kept.
fn only_bound_faults(v: &guarded::verify::Verdict) {
    if let Some((e, _)) = &v.fault {
        let text = format!("{e:?}");
        assert!(text.contains("outside its domain"), "{text}");
        assert!(
            text.contains("\"A1\""),
            "only an attach leaves the bounds: {text}"
        );
    }
}

#[test]
fn the_printed_algorithm_converges_on_small_chains_under_the_unfair_daemon() {
    use guarded::verify::Convergence;
    let v = verified(0, false);
    only_bound_faults(&v);
    assert!(v.closure.is_none());
    match &v.convergence {
        Convergence::Holds { steps, moves, .. } => {
            assert_eq!(
                (steps.steps.len(), moves.as_ref().map(|m| m.moves())),
                (24, Some(24))
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_repair_needs_weak_fairness() {
    use guarded::verify::Convergence;
    // Unfair: a true root attaches to a colour-1 neighbour that is not of
    // minimum key, detaches at once by A3 (it can improve through the
    // neighbour of minimum key), and again, while that neighbour waits.
    let unfair = verified(1, false);
    only_bound_faults(&unfair);
    let Convergence::Cycle { run, cycle_from } = &unfair.convergence else {
        panic!("{:?}", unfair.convergence);
    };
    assert_eq!(run.steps.len() - cycle_from, 2);
    // Weakly fair, the neighbour moves and the cycle is broken.
    let fair = verified(1, true);
    assert!(
        matches!(fair.convergence, Convergence::HoldsUnderFairness { .. }),
        "{:?}",
        fair.convergence
    );
}

/// The instance `verify --from random` explores: keys bounded by
/// `max_id = n - 1` (the ids are the indices), arbitrary starts drawing
/// levels from 0..1, levels free to grow to 2.
fn arbitrary_starts(topology: &str) -> guarded::load::Instance {
    let n = topology[topology.find(':').unwrap() + 1..]
        .parse::<i64>()
        .unwrap();
    common::instance(
        PROGRAM,
        topology,
        &[("max_id", n - 1), ("start_level", 1), ("max_level", 2)],
    )
}

/// Verifies `inst` from every arbitrary start under `daemon` (the worst
/// case in rounds too, where `rounds`): no step faults or leaves
/// legitimacy, and every run reaches it; the most steps a run takes.
fn converges_from_every_arbitrary_start(
    inst: &guarded::load::Instance,
    daemon: &Daemon,
    rounds: bool,
    what: &str,
) -> usize {
    use guarded::verify::{Convergence, Explorer, Starts};
    let starts = Starts::Every(inst.arbitrary_space());
    let mut ex =
        Explorer::reachable(inst, starts, daemon, None).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    ex.count_rounds(rounds);
    let v = ex
        .verify(daemon)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert!(v.fault.is_none(), "{what}: {:?}", v.fault);
    assert!(v.closure.is_none(), "{what}");
    let Convergence::Holds { steps, .. } = &v.convergence else {
        panic!("{what}: {:?}", v.convergence);
    };
    steps.steps.len()
}

/// The paper's levels are unbounded. From every arbitrary start (levels in
/// 0..1, every other value anywhere in its domain), with room for levels to
/// grow to 2, no run leaves the bounds on the chain and the ring of 3, and
/// the printed algorithm converges under all four daemons, unfair: the
/// fault that `--from all` reports at the largest level is the bound's,
/// not the algorithm's.
#[test]
fn from_every_arbitrary_start_no_level_leaves_its_room() {
    for (topology, rounds) in [("chain:3", true), ("ring:3", false)] {
        let inst = arbitrary_starts(topology);
        for daemon in [
            Daemon::Central,
            Daemon::LocallyCentral,
            Daemon::Distributed,
            Daemon::Synchronous,
        ] {
            let what = format!("{topology}, {}", daemon.name());
            let most_steps = converges_from_every_arbitrary_start(&inst, &daemon, rounds, &what);
            if topology == "chain:3" && daemon != Daemon::Synchronous {
                assert_eq!(most_steps, 24, "{what}");
            }
        }
    }
}

/// The ring of 4 from every arbitrary start (84,934,656 of them): no run
/// leaves the bounds and the printed algorithm converges under all four
/// daemons, unfair, within 44 steps (8 synchronous). Ten minutes to
/// half an hour a daemon on two cores and 1.5 GB, so not part of the
/// default run:
/// `cargo test --release --test ssle -- --ignored`.
#[test]
#[ignore = "ten minutes to half an hour a daemon: run with --ignored"]
fn ring_of_4_from_every_arbitrary_start() {
    let inst = arbitrary_starts("ring:4");
    for (daemon, most_steps) in [
        (Daemon::Central, 44),
        (Daemon::LocallyCentral, 44),
        (Daemon::Distributed, 44),
        (Daemon::Synchronous, 8),
    ] {
        let what = daemon.name();
        let found = converges_from_every_arbitrary_start(&inst, &daemon, false, what);
        assert_eq!(found, most_steps, "{what}");
    }
}

/// Verifies `inst` from every arbitrary start under each daemon with the
/// symbolic engine: no step faults or leaves legitimacy, every run
/// reaches it, and the run that takes the most steps replays through the
/// step relation to a legitimate configuration. Per daemon: the
/// configurations reached and the most steps.
fn symbolically_from_every_arbitrary_start(inst: &guarded::load::Instance) -> Vec<(u64, usize)> {
    use guarded::verify::{Choices, Convergence, Starts, Symbolic};
    let starts = Starts::Every(inst.arbitrary_space());
    let symbolic = Symbolic::new(inst, Choices::Every, 4 << 30, None).expect("symbolic");
    let mut found = Vec::new();
    for daemon in [
        Daemon::Central,
        Daemon::LocallyCentral,
        Daemon::Distributed,
        Daemon::Synchronous,
    ] {
        let what = daemon.name();
        let v = symbolic
            .verify_from(&daemon, Some(&starts), Fairness::Unfair)
            .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        assert!(v.fault.is_none(), "{what}: {:?}", v.fault);
        assert!(v.closure.is_none(), "{what}");
        let Convergence::Holds { steps, .. } = &v.convergence else {
            panic!("{what}: {:?}", v.convergence);
        };
        let mut rel = inst.step_relation();
        let mut at = steps.start.clone();
        for (k, step) in steps.steps.iter().enumerate() {
            assert_eq!(
                rel.legitimate(&at).unwrap(),
                Some(false),
                "{what}: step {k}"
            );
            at = rel
                .successor_of(&at, step)
                .unwrap_or_else(|e| panic!("{what}: step {k} faults: {e:?}"));
        }
        assert_eq!(rel.legitimate(&at).unwrap(), Some(true), "{what}");
        found.push((v.configurations, steps.steps.len()));
    }
    found
}

/// The ring of 4 from its 84,934,656 arbitrary starts with the symbolic
/// engine (seconds, where the explicit search below takes ten minutes to
/// half an hour a daemon): the same configurations reached and the same
/// worst cases.
#[test]
fn ring_of_4_from_every_arbitrary_start_symbolically() {
    let found = symbolically_from_every_arbitrary_start(&arbitrary_starts("ring:4"));
    assert_eq!(
        found,
        [
            (85_468_058, 44),
            (85_468_058, 44),
            (85_498_218, 44),
            (84_934_978, 8)
        ]
    );
}

/// A tree of five, the path (a node of degree 3 would read 10^10 values
/// of its neighbourhood, past what the symbolic engine tabulates), from
/// its 11,059,200,000 arbitrary starts: ids 0..4 along the path, levels
/// drawn from 0..1 and free to grow to 4 (its BFS levels reach 4; no run
/// takes one past it: that would be a fault), every other value
/// anywhere in its domain. The printed algorithm converges under all
/// four daemons, unfair, with no fault.
#[test]
fn a_tree_of_five_from_every_arbitrary_start() {
    let inst = common::instance(
        PROGRAM,
        "chain:5",
        &[("max_id", 4), ("start_level", 1), ("max_level", 4)],
    );
    assert_eq!(inst.arbitrary_space().count(), 11_059_200_000);
    let found = symbolically_from_every_arbitrary_start(&inst);
    assert_eq!(
        found,
        [
            (11_126_399_523, 147),
            (11_126_399_523, 147),
            (11_134_338_590, 148),
            (11_059_203_121, 14)
        ]
    );
}

/// Without the room (levels drawn from the whole domain 0..2), an attach
/// pushes a level past it: the fault `--from random` avoids.
#[test]
fn without_room_to_grow_a_level_leaves_its_bound() {
    use guarded::verify::{Explorer, Starts};
    let inst = common::instance(
        PROGRAM,
        "chain:3",
        &[("max_id", 2), ("start_level", 2), ("max_level", 2)],
    );
    let starts = Starts::Every(inst.arbitrary_space());
    let mut ex = Explorer::reachable(&inst, starts, &Daemon::Central, None).expect("explorable");
    ex.count_rounds(false);
    let v = ex.verify(&Daemon::Central).expect("verified");
    only_bound_faults(&v);
    assert!(v.fault.is_some(), "a level leaves 0..2");
}
