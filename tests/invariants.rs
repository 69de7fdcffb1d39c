//! Invariants checked after each step of a run only where the step may have
//! changed them (`src/runtime/engine/invariants.rs`: local conjuncts, counts
//! kept, at the movers and their neighbours, a local acyclicity by an order
//! of its arcs kept from step to step)
//! agree with every invariant evaluated in full: where all hold, which one
//! is broken first, and the faults; under every daemon, on several graphs.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, InvariantChecks, Outcome, Simulation};
use guarded::runtime::init::InitMode;

/// How a run checked both ways ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// Every invariant held for so many steps (the run went silent or
    /// reached its last step).
    Held(u64),
    /// An invariant broke, or faulted, at a step.
    Broken(u64),
}

/// Runs `sim` for up to `steps` steps, checking the invariants after each
/// as the run loop does and in full, which must agree.
fn run_both_ways(mut sim: Simulation, steps: u64, what: &str) -> End {
    let mut checks = InvariantChecks::default();
    for step in 0..=steps {
        let kept = format!("{:?}", sim.violated_invariant_checked(&mut checks));
        let full = format!("{:?}", sim.violated_invariant());
        assert_eq!(kept, full, "{what}, step {step}");
        if full != "Ok(None)" {
            return End::Broken(step);
        }
        if step == steps || sim.step().unwrap_or_else(|e| panic!("{what}: {e:?}")) != Outcome::Moved
        {
            return End::Held(step);
        }
    }
    unreachable!("the loop returns")
}

/// A ring where process 0 counts up to 9 and the others copy their left
/// neighbour, with the invariants `invariants`.
fn counting_ring(invariants: &str) -> String {
    format!(
        "var x: 0..9 = 0\n\
         process where index == 0 {{ up :: x < 9 -> x := x + 1 }}\n\
         process where index != 0 {{ copy :: x != left.x -> x := left.x }}\n{invariants}"
    )
}

fn daemons() -> [Daemon; 4] {
    [
        Daemon::Central,
        Daemon::Distributed,
        Daemon::LocallyCentral,
        Daemon::Synchronous,
    ]
}

/// Every run of `src` on each of `topologies`, under each daemon, from
/// each of `seeds`: how each ended, with its daemon's name.
fn ends(
    src: &str,
    topologies: &[&str],
    init: InitMode,
    seeds: u64,
    steps: u64,
) -> Vec<(&'static str, End)> {
    let mut ends = Vec::new();
    for topology in topologies {
        for daemon in daemons() {
            for seed in 0..seeds {
                let what = format!("{topology} {} seed {seed}", daemon.name());
                let setup = Setup {
                    topology: Some(topology.to_string()),
                    daemon: daemon.clone(),
                    seed,
                    init: init.clone(),
                    ..Setup::default()
                };
                let sim = simulate(src, &setup).unwrap_or_else(|e| panic!("{what}: {e}"));
                ends.push((daemon.name(), run_both_ways(sim, steps, &what)));
            }
        }
    }
    ends
}

/// Dijkstra and Scholten's arbitration keeps its four invariants (three
/// local ones over the forks, and no directed cycle of them) in every run
/// where no two neighbours move together; where they do (the distributed
/// and synchronous daemons), two neighbours becoming hungry at once break
/// them, found the same way.
#[test]
fn arbitration_keeps_its_invariants_checked_either_way() {
    let src = include_str!("../programs/arbitration.gc");
    let ends = ends(
        src,
        &["ring:7", "grid:3x3", "random:10", "grid:5x5"],
        InitMode::Declared,
        3,
        300,
    );
    for (daemon, end) in &ends {
        match *daemon {
            "central" | "locally-central" => assert_eq!(*end, End::Held(300), "{ends:?}"),
            _ => assert!(matches!(end, End::Broken(_)), "{ends:?}"),
        }
    }
}

/// A local invariant broken at a process that did not move: the process
/// before the one whose count runs ahead reads it as its right neighbour.
#[test]
fn a_local_invariant_broken_beside_the_mover_is_found() {
    let src = &counting_ring("invariant near: forall(p in procs : p.right.x - p.x <= 3)\n");
    let ends = ends(
        src,
        &["ring:6", "ring:9", "ring:20"],
        InitMode::Declared,
        4,
        200,
    );
    assert!(
        ends.iter()
            .any(|(_, e)| matches!(e, End::Broken(s) if *s > 0)),
        "{ends:?}"
    );
}

/// A cycle of pointers closed by a step: each process points at its
/// neighbour of smallest id, so 0 and 1 end up pointing at each other.
#[test]
fn a_cycle_closed_by_a_step_is_found() {
    let src = "var d: node = self\n\
        process { point :: d == self -> d := argmin(q in nbrs : q.id) }\n\
        invariant no_loop: acyclic(x -> y : x.d == y)\n";
    let pointing = ends(
        src,
        &["ring:6", "grid:3x3", "random:9", "ring:20"],
        InitMode::Declared,
        3,
        100,
    );
    assert!(
        pointing
            .iter()
            .all(|(_, e)| matches!(e, End::Broken(s) if *s > 0)),
        "{pointing:?}"
    );
    // Every process points to its right: the last to do so closes a cycle
    // round the whole ring, which the search follows from it.
    let round = "var d: node = self\n\
        process { point :: d == self -> d := right }\n\
        invariant no_loop: acyclic(x -> y : x.d == y)\n";
    let round_ends = ends(round, &["ring:20", "ring:31"], InitMode::Declared, 3, 100);
    for (daemon, end) in &round_ends {
        match *daemon {
            "central" => assert!(matches!(*end, End::Broken(20 | 31)), "{round_ends:?}"),
            _ => assert!(matches!(end, End::Broken(_)), "{round_ends:?}"),
        }
    }
}

/// Pointers redrawn at every move, with keys redrawn too: arcs into and
/// out of a mover change together, so the order of arcs kept from step to
/// step (`src/runtime/engine/arc_order.rs`) is mended in every way, not only
/// by placing a process first. With the arcs going down the keys, no
/// cycle can form and every run holds; with arcs also between equal keys,
/// cycles form after a while, as a full evaluation finds them.
#[test]
fn redrawn_pointers_keep_the_order_of_arcs_right() {
    let program = |arc: &str| {
        format!(
            "var d: node = self\n\
             var k: 0..3 random 0..3\n\
             process {{ redraw :: true -> k := random(0..3); d := random(nbrs) }}\n\
             invariant no_loop: acyclic(x -> y : x.d == y and {arc})\n"
        )
    };
    let graphs = ["ring:12", "grid:4x4", "random:16", "complete:6"];
    let down = ends(&program("y.k < x.k"), &graphs, InitMode::Random, 4, 400);
    assert!(down.iter().all(|(_, e)| *e == End::Held(400)), "{down:?}");
    let level = ends(&program("y.k <= x.k"), &graphs, InitMode::Random, 4, 400);
    let late = |(_, e): &&(&str, End)| matches!(e, End::Broken(s) if *s > 10);
    assert!(level.iter().filter(late).count() >= 8, "{level:?}");
    // No two processes pointing at each other: the cycles are longer, and
    // found only where the order is right.
    let longer = ends(
        &program("y.d != x and y.k <= x.k"),
        &["grid:5x5", "random:20", "complete:7", "torus:4x4"],
        InitMode::Random,
        6,
        1000,
    );
    assert!(longer.iter().filter(late).count() >= 8, "{longer:?}");
}

/// An invariant that faults (a division by zero) where a count reaches 3,
/// after others that hold; one that reads whether the process is enabled.
#[test]
fn faults_and_enabledness_are_found_as_in_full() {
    let faults = "var x: 0..5 = 0\n\
        process { up :: x < 5 and forall(q in nbrs : q.x >= x) -> x := x + 1 }\n\
        invariant small: forall(p in procs : p.x <= 5)\n\
        invariant divides: forall(p in procs : 12 / (3 - p.x) != 100)\n";
    let ends_faulting = ends(faults, &["ring:5", "star:5"], InitMode::Declared, 3, 100);
    let broken = |(_, e): &(&str, End)| matches!(e, End::Broken(s) if *s > 0);
    assert!(ends_faulting.iter().all(broken), "{ends_faulting:?}");
    // An acyclicity whose body faults at a process that has moved three
    // times, whichever way its arcs go in the order kept.
    let arcs_fault = "var c: 0..5 = 0\n\
        var d: node = self\n\
        process { up :: c < 5 -> c := c + 1; d := random(nbrs) }\n\
        invariant no_loop: acyclic(x -> y : 12 / (3 - x.c) > 100 or x.d == y)\n";
    let ends_arcs = ends(
        arcs_fault,
        &["ring:8", "grid:4x4", "random:12", "complete:5"],
        InitMode::Declared,
        5,
        200,
    );
    assert!(ends_arcs.iter().all(broken), "{ends_arcs:?}");
    let enabled =
        &counting_ring("invariant moving: forall(p in procs : enabled(p) or p.x == p.left.x)\n");
    let ends_enabled = ends(enabled, &["ring:4", "ring:7"], InitMode::Declared, 4, 200);
    assert!(ends_enabled.iter().all(broken), "{ends_enabled:?}");
}

/// Invariants over channels (a local one, and a count that is asked in
/// full) in Chang and Roberts' election, and Herman's ring, whose count of
/// tokens is asked in full.
#[test]
fn invariants_over_messages_and_counts_agree() {
    let chang_roberts = format!(
        "{}\ninvariant few: forall(p in procs : forall(q in nbrs(p) : msgs(p, q) <= 1))\n",
        include_str!("golden/programs/chang_roberts.gc")
    );
    let ends_cr = ends(
        &chang_roberts,
        &["ring:5", "ring:8"],
        InitMode::Declared,
        4,
        200,
    );
    assert!(!ends_cr.is_empty());
    let herman = include_str!("../programs/herman.gc");
    let ends_herman = ends(herman, &["uring:7", "uring:9"], InitMode::Random, 3, 100);
    assert!(
        ends_herman.iter().all(|(_, e)| matches!(e, End::Held(_))),
        "{ends_herman:?}"
    );
}

/// Counts over every process of a local body, kept from step to step
/// (alone, and in a conjunction with a `forall`): one broken as a wave of
/// increments runs round a ring, one that a run may keep or break, and
/// Chang and Roberts' single leader.
#[test]
fn kept_counts_agree_with_counting_in_full() {
    let descents = &counting_ring(
        "invariant bounded: forall(p in procs : p.x <= 9) and count(p in procs : p.x == 9) <= 12\n\
        invariant few_steps: count(p in procs : p.x != p.right.x) <= 3\n",
    );
    let ends_descents = ends(
        descents,
        &["ring:12", "ring:25"],
        InitMode::Declared,
        4,
        300,
    );
    assert!(
        ends_descents
            .iter()
            .any(|(_, e)| matches!(e, End::Broken(s) if *s > 0)),
        "{ends_descents:?}"
    );
    let behind = &counting_ring("invariant some_behind: count(p in procs : p.x < 9) >= 1\n");
    let ends_full = ends(behind, &["ring:12"], InitMode::Declared, 2, 400);
    assert!(
        ends_full
            .iter()
            .any(|(_, e)| matches!(e, End::Broken(s) if *s > 12)),
        "{ends_full:?}"
    );
    let chang_roberts = include_str!("golden/programs/chang_roberts.gc");
    let ends_cr = ends(
        chang_roberts,
        &["ring:12", "ring:20"],
        InitMode::Declared,
        3,
        400,
    );
    assert!(
        ends_cr.iter().all(|(_, e)| matches!(e, End::Held(_))),
        "{ends_cr:?}"
    );
}
