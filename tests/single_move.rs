//! The central daemon's lean path for one move (`Simulation::single_move`)
//! against the general step: the same configurations, movers, actions,
//! rows, enabled list (in order: the daemon draws from it), rounds,
//! legitimacy and errors after every step.

use guarded::runtime::engine::{Daemon, FastPaths, Outcome, Simulation};
use guarded::runtime::init::InitMode;
use guarded::topology::Ids;

mod common;
use common::{run_until_stopped, simulation, Start, FAULTY};

const DIJKSTRA: &str = include_str!("../programs/dijkstra_kstate.gc");
const JOHNEN: &str = include_str!("../programs/johnen_leader.gc");
const SSLE: &str = include_str!("../programs/ssle.gc");
/// Actions with binders (`for j in nbrs`): the record names the member.
const MATCHING: &str = include_str!("../programs/matching.gc");

/// Guards that read the right neighbour only, so a move changes the
/// guard of the process before the mover and not the one after it; a
/// legitimacy predicate that is not kept per process.
const RIGHT_READER: &str = "
var x: 0..4 = 0
process {
    up :: x < right.x -> x := x + 1
    down priority 1 :: x > right.x + 1 -> x := x - 2
}
legitimate: count(p in procs : enabled(p)) <= 1
";

/// Guards that read both neighbours, so one move can enable or disable
/// the processes on both sides of the mover: the enabled list must then
/// change in the same order on both paths.
const BOTH_SIDES: &str = "
var x: 0..3 = 0
process {
    climb :: x < left.x and x <= right.x -> x := x + 1
    jump :: x == left.x or x == right.x -> x := (x + 2) mod 4
}
";

/// Guards that read no neighbour, with a legitimacy predicate kept per
/// process that reads both neighbours: its value at the neighbours of a
/// mover changes although their guards do not.
const LOCAL_LEGIT: &str = "
var x: 0..2 = 0
process {
    turn :: true -> x := (x + 1) mod 3
}
legitimate: forall(p in procs : forall(q in nbrs(p) : p.x != q.x))
";

/// Two values a process, so that a step's record keeps whole rows.
const TWO_CELLS: &str = "
var x: 0..3 = 0
var flips: 0..1 = 0
process {
    copy :: x != left.x -> x := left.x; flips := 1 - flips
}
legitimate: count(p in procs : enabled(p)) == 1
";

/// Legitimacy kept per process that faults part way (a division by zero
/// once some process reaches 7; random starts are below 4), and
/// legitimacy evaluated whole.
const LEGIT_FAULTS: &str = "
var x: 0..9 random 0..3
process {
    up :: x < 9 and x <= left.x -> x := x + 1
}
legitimate: forall(p in procs : 10 / (7 - p.x) > 0)
";
const WHOLE_LEGIT: &str = "
var x: 0..3 = 0
process {
    climb :: x < left.x or x < right.x -> x := x + 1
    wrap priority 1 :: x == left.x and x == right.x -> x := (x + 1) mod 4
}
legitimate: min(p in procs : p.x) == max(p in procs : p.x)
";

/// Guards that read different variables, at their own process, at
/// neighbours and through a node variable, so that a single move leaves
/// some alone (those reading nothing it changed); actions of two
/// priorities; a guard that faults (a division by zero) where the guards
/// before it are false, its `y` and `z[1]` are 1 and 3 and a neighbour has
/// `w` at 3, which only moves reach.
const PARTIAL_READS: &str = "
var x: 0..3
var y: 0..2
var z: array[2] of 0..4
var w: 0..3 random 0..2
var aim: node
def Full(P) = P.z[1] == 4
process {
    tint :: Full(aim) and w > 0 -> w := 0
    reset priority 1 :: y == 2 and z[0] == 4 -> y := 0; z[0] := 0
    climb :: exists(q in nbrs : x < q.x) and z[1] != 2 -> x := x + 1
    follow :: aim.y > y and z[1] < 4 -> y := y + 1; z[1] := z[1] + 1
    own :: z[0] < 4 and x == 0 -> z[0] := z[0] + 1
    fragile :: y == 1 and z[1] == 3 and 12 / (3 - max(q in nbrs : q.w)) > 5 -> x := 0; w := (w + 1) mod 4
    point :: forall(q in nbrs : q.x == x) and aim != self -> aim := self
    drop :: z[1] == 4 and exists(q in nbrs : q.aim == self) -> z[1] := 0; aim := argmin(q in nbrs : q.x)
    spin :: x == 3 and forall(q in nbrs : q.x >= 2) -> x := 0; y := (y + 1) mod 3
    bump :: aim == self and z[1] < 4 and w > 0 -> z[1] := z[1] + 1
    glow :: w == 2 and forall(q in nbrs : q.y != 1) and min(q in nbrs : q.y) < 2 -> y := 1
}
";

/// Guards that read neighbours past a test of their node variable
/// (`q.aim == self`, either way round), in `forall`, `exists`, `count`
/// and `sum`, with reads before the test (every member's, one of them a
/// division by zero where a neighbour's `w`, `x` and `y` are all 3, which
/// only moves reach) and through the neighbour's `aim` past it: a single
/// move of a neighbour whose `aim` named the process neither before nor
/// after it leaves only the reads past the test alone. Every process can
/// always move (`tick` and `turn`), and `aim` keeps changing.
const UNDER_TEST: &str = "
var x: 0..3
var y: 0..3
var w: 0..3 random 0..2
var aim: node
process {
    settle priority 1 :: forall(q in nbrs : q.aim == self => q.x <= x) and x < 3 and w == 1 -> x := x + 1
    adopt priority 1 :: exists(q in nbrs : q.x < 3 and q.aim == self and q.y > y) and y < 3 -> y := y + 1
    follow priority 1 :: aim != self and aim.y < y -> y := aim.y
    spill priority 1 :: sum(q in {r in nbrs : r.aim == self} : q.x) >= 4 and y > 0 -> y := 0
    brittle priority 2 :: exists(q in nbrs : 6 / (9 - q.w - q.x - q.y) > 7 and q.aim == self) -> w := 0
    gather priority 2 :: count(q in nbrs : w > 0 and self == q.aim and q.aim.w < 3 and q.x >= x) >= 1 and w < 3 -> w := w + 1
    turn priority 2 :: w == 3 -> aim := argmin(q in nbrs : q.y); w := 0; x := 0
    tick priority 3 :: w < 3 -> w := w + 1; x := (x + 1) mod 4; y := (y + w) mod 4
}
";

// Actions whose move disables them (`x != E -> x := E`, the mover's
// guard then not evaluated again after a central step) beside ones that
// look alike but do not: `bump` reads what it writes (and is always
// enabled, so that runs go on), `nudge` assigns `x` again after. `mix`
// is led by its comparison in an `and`, `flip` compares booleans, and
// `copy` assigns another variable first.
const SELF_DISABLING: &str = "
var x: 0..4 = 0
var y: 0..4 = 0
var b: bool = false
process where index == 0 {
    bump :: x != (x + 1) mod 5 and y < 5 -> x := (x + 1) mod 5; y := (y + 1) mod 5
}
process where index mod 4 == 1 {
    copy :: left.x != x -> y := (left.x + y) mod 5; x := left.x
}
process where index mod 4 == 2 {
    mix :: x != (left.x + right.x) mod 5 and y != 4 -> x := (left.x + right.x) mod 5
}
process where index mod 4 == 3 {
    flip :: b != not left.b -> b := not left.b; x := right.x
}
process where index != 0 and index mod 4 == 0 {
    nudge :: x != left.x -> x := left.x; x := (x + y) mod 5; y := (y + 1) mod 5
}
legitimate: forall(p in procs : p.y == 4)
";

// The same shapes over the neighbours, for topologies that are not
// rings: `low` and `top` disable themselves, `bump` does not.
const SELF_DISABLING_NBRS: &str = "
var x: 0..4 = 0
var y: 0..4 = 0
process where index mod 3 == 0 {
    low :: x != min(q in nbrs : q.x) -> x := min(q in nbrs : q.x)
}
process where index mod 3 == 1 {
    top :: max(q in nbrs : q.y) != y and x > 0 -> x := x - 1; y := max(q in nbrs : q.y)
}
process where index mod 3 == 2 {
    bump :: x != (x + 1) mod 5 and y < 5 -> x := (x + 1) mod 5; y := (y + 1) mod 5
}
";

/// One plain action a role and one value a process, with legitimacy a
/// count of enabled processes, as the ring batch's lean loop takes them:
/// guards reading the right neighbour only, so that a move changes the
/// guard of the process before the mover; movers that may stay enabled.
const LEAN_RIGHT: &str = "
var x: 0..3 random 0..3
process {
    up :: x <= right.x -> x := (x + 1) mod 4
}
legitimate: count(p in procs : enabled(p)) != 2
";

/// Two roles of one plain action each, one reading both neighbours, the
/// other the right one, whose move disables it without the shape that
/// says so (its guard is evaluated again).
const LEAN_BOTH: &str = "
var x: 0..4 random 0..4
process where index mod 2 == 0 {
    even :: x != left.x or x == right.x -> x := (left.x + right.x + 1) mod 5
}
process where index mod 2 == 1 {
    odd :: x < right.x -> x := right.x
}
legitimate: count(p in procs : enabled(p)) <= 1
";

/// Guards and statements the lean loop evaluates itself (a comparison of
/// two reads, an assignment of one: see `InlineGuard`), with a constant
/// on either side, a mover that stays enabled and one disabled without
/// the shape that says so.
const LEAN_INLINE: &str = "
var x: 0..3 random 0..3
process where index mod 3 == 0 {
    reset :: 1 <= left.x -> x := 0
}
process where index mod 3 != 0 {
    copy :: left.x < x -> x := left.x
}
legitimate: count(p in procs : enabled(p)) == 1
";

/// One role's guard and statement inline, the other's neither: the loop
/// then calls every guard, and makes the first role's moves itself.
const LEAN_MIXED: &str = "
var x: 0..3 random 0..3
process where index mod 2 == 0 {
    copy :: x != left.x -> x := left.x
}
process where index mod 2 == 1 {
    up :: x <= left.x and x < 3 -> x := x + 1
}
legitimate: count(p in procs : enabled(p)) >= 2
";

fn start(src: &str, topology: &str, params: &[(&str, i64)], seed: u64, lean: bool) -> Simulation {
    start_from(
        src,
        topology,
        params,
        seed,
        lean,
        InitMode::Random,
        Ids::Index,
    )
}

fn start_from(
    src: &str,
    topology: &str,
    params: &[(&str, i64)],
    seed: u64,
    lean: bool,
    init: InitMode,
    ids: Ids,
) -> Simulation {
    let start = Start {
        params,
        seed,
        init,
        ids,
        daemon: Daemon::Central,
    };
    let mut sim = simulation(src, topology, start);
    // The full side evaluates every guard it needs after each step.
    sim.set_fast_paths(FastPaths {
        single_move: lean,
        guards_left_alone: lean,
        ..FastPaths::default()
    });
    sim
}

/// A mover's row before and after a step.
type Rows = (Vec<i64>, Vec<i64>);

/// The last step: movers, actions, binder members, and each mover's rows
/// before and after.
fn last_step(s: &Simulation) -> (Vec<u32>, Vec<u32>, Vec<Option<i64>>, Vec<Rows>) {
    let last = s.last();
    let movers = 0..last.movers().len();
    let members = movers.clone().map(|k| last.member(k)).collect();
    let rows = movers
        .map(|k| {
            let (before, after) = s.mover_rows(k);
            (before.to_vec(), after.to_vec())
        })
        .collect();
    (
        last.movers().to_vec(),
        last.actions().to_vec(),
        members,
        rows,
    )
}

/// Runs both ways for at most `steps` steps; how many steps were taken.
fn same_runs(
    src: &str,
    topology: &str,
    params: &[(&str, i64)],
    seed: u64,
    steps: usize,
    ids: Ids,
) -> usize {
    let what = format!("{topology} {params:?} seed {seed}");
    let mut lean = start_from(
        src,
        topology,
        params,
        seed,
        true,
        InitMode::Random,
        ids.clone(),
    );
    let mut full = start_from(src, topology, params, seed, false, InitMode::Random, ids);
    assert_eq!(lean.enabled(), full.enabled(), "{what}: at the start");
    for k in 0..steps {
        let before = lean.config();
        let (a, b) = (lean.step(), full.step());
        match (&a, &b) {
            (Ok(x), Ok(y)) => assert_eq!(x, y, "{what}: outcome of step {k}"),
            (Err(x), Err(y)) => {
                assert_eq!(
                    format!("{x:?}"),
                    format!("{y:?}"),
                    "{what}: error at step {k}"
                );
                return k;
            }
            _ => panic!("{what}: step {k}: {a:?} against {b:?}"),
        }
        if a.as_ref().is_ok_and(|o| *o != Outcome::Moved) {
            return k;
        }
        assert_eq!(
            lean.rows(),
            full.rows(),
            "{what}: configuration after step {k}"
        );
        assert_eq!(last_step(&lean), last_step(&full), "{what}: step {k}");
        assert!(
            lean.moves_per_action().eq(full.moves_per_action()),
            "{what}: moves per action after step {k}"
        );
        common::assert_step_follows_relation(&lean, &before, &format!("{what}: step {k}"));
        assert_eq!(
            lean.enabled(),
            full.enabled(),
            "{what}: enabled list after step {k}"
        );
        assert_eq!(
            lean.now(),
            full.now(),
            "{what}: steps, moves, rounds after step {k}"
        );
        assert_eq!(
            lean.legitimate(),
            full.legitimate(),
            "{what}: legitimacy after step {k}"
        );
        assert_eq!(
            lean.legitimate(),
            lean.legitimate_in_full().expect("evaluates"),
            "{what}: kept legitimacy against a full evaluation after step {k}"
        );
        assert_eq!(
            lean.stabilized_at(),
            full.stabilized_at(),
            "{what}: step {k}"
        );
        assert_eq!(
            lean.legitimacy_losses(),
            full.legitimacy_losses(),
            "{what}: step {k}"
        );
    }
    steps
}

#[test]
fn dijkstra_on_rings_of_every_small_size_and_a_large_one() {
    for n in (2..=9).chain([64, 1500]) {
        for (topology, k) in [
            (format!("ring:{n}"), n),
            (format!("uring:{n}"), n.max(3) - 1),
        ] {
            for seed in 0..3 {
                let params = [("K", k as i64)];
                same_runs(DIJKSTRA, &topology, &params, seed, 3000, Ids::Index);
            }
        }
    }
}

#[test]
fn guards_reading_either_side_and_legitimacy_read_at_neighbours() {
    let lean = [LEAN_RIGHT, LEAN_BOTH, LEAN_INLINE, LEAN_MIXED];
    for src in [RIGHT_READER, BOTH_SIDES, LOCAL_LEGIT]
        .into_iter()
        .chain(lean)
    {
        for n in [2, 3, 5, 40] {
            for seed in 0..4 {
                same_runs(src, &format!("ring:{n}"), &[], seed, 2000, Ids::Index);
            }
        }
    }
}

#[test]
fn johnen_and_ssle_until_silent() {
    let mut steps = 0;
    for n in [3, 10, 31] {
        for k in 0..=2 {
            let taken = same_runs(
                JOHNEN,
                &format!("uring:{n}"),
                &[("k", k)],
                n as u64,
                100_000,
                Ids::Random(0, n as i64 + k),
            );
            assert!(
                taken < 100_000,
                "Johnen on uring:{n}, k={k} never fell silent"
            );
            steps += taken;
        }
    }
    for topology in ["random:12", "random:40", "grid:5x5", "chain:9"] {
        for seed in 0..3 {
            let taken = same_runs(SSLE, topology, &[], seed, 100_000, Ids::Shuffled);
            assert!(taken < 100_000, "SSLE on {topology} never fell silent");
            steps += taken;
        }
    }
    // Binder members recorded alike (Hsu and Huang's matching).
    for topology in ["ring:7", "random:12", "grid:4x4"] {
        for seed in 0..3 {
            let taken = same_runs(MATCHING, topology, &[], seed, 100_000, Ids::Index);
            assert!(taken < 100_000, "matching on {topology} never fell silent");
            steps += taken;
        }
    }
    assert!(steps > 1000, "the runs took {steps} steps in all");
}

/// Single moves leave alone the guards that read nothing the move
/// changed; the general step evaluates them: the runs must still be the
/// same, faults included.
#[test]
fn guards_left_alone_give_the_runs_of_guards_evaluated() {
    let (mut steps, mut faults) = (0, 0);
    let (mut under_steps, mut under_faults) = (0, 0);
    for topology in [
        "ring:3",
        "ring:4",
        "ring:9",
        "chain:6",
        "random:12",
        "grid:4x4",
    ] {
        for seed in 0..6 {
            let taken = same_runs(PARTIAL_READS, topology, &[], seed, 3000, Ids::Index);
            steps += taken;
            faults += usize::from(taken < 3000);
            let taken = same_runs(UNDER_TEST, topology, &[], seed, 3000, Ids::Index);
            under_steps += taken;
            under_faults += usize::from(taken < 3000);
        }
    }
    // Long runs, some ended by the fault.
    assert!(steps > 20_000, "{steps} steps in all");
    assert!(faults > 0, "no run faulted");
    assert!(under_steps > 20_000, "{under_steps} steps in all");
    assert!(under_faults > 0, "no run faulted");
}

/// General steps (several movers, or a random choice among a mover's
/// actions) leave alone the guards that read nothing their movers changed:
/// the same runs as with every guard evaluated, under every daemon.
#[test]
fn general_steps_leaving_guards_alone_take_the_steps_of_guards_evaluated() {
    use guarded::load::simulate;
    use guarded::runtime::engine::Choice;
    let daemons = [
        (Daemon::Central, Choice::Random),
        (Daemon::Distributed, Choice::First),
        (Daemon::Distributed, Choice::Random),
        (Daemon::LocallyCentral, Choice::First),
        (Daemon::Synchronous, Choice::First),
    ];
    let mut steps = 0;
    for (src, topology, params) in [
        (PARTIAL_READS, "ring:9", vec![]),
        (PARTIAL_READS, "random:12", vec![]),
        (UNDER_TEST, "random:12", vec![]),
        (UNDER_TEST, "grid:4x4", vec![]),
        (SSLE, "random:12", vec![("repair", 1)]),
        (SSLE, "ring:7", vec![("repair", 1)]),
    ] {
        for (daemon, choice) in &daemons {
            for seed in 0..3 {
                let what = format!("{topology} {} {choice:?} seed {seed}", daemon.name());
                let mut setup = common::random_setup(topology, daemon, *choice, seed);
                setup.params = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
                let start = |alone: bool| {
                    let mut sim = simulate(src, &setup).unwrap_or_else(|e| panic!("{e}"));
                    sim.set_fast_paths(FastPaths {
                        // The column path takes synchronous steps whole.
                        columns: false,
                        guards_left_alone: alone,
                        ..FastPaths::default()
                    });
                    sim
                };
                let (mut alone, mut evaluated) = (start(true), start(false));
                for k in 0..400 {
                    let (a, b) = (alone.step(), evaluated.step());
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{what}: step {k}");
                    if !matches!(a, Ok(Outcome::Moved)) {
                        break;
                    }
                    steps += 1;
                    assert_eq!(alone.rows(), evaluated.rows(), "{what}: step {k}");
                    assert_eq!(alone.enabled(), evaluated.enabled(), "{what}: step {k}");
                    assert_eq!(alone.now(), evaluated.now(), "{what}: step {k}");
                }
            }
        }
    }
    assert!(steps > 5_000, "{steps} steps in all");
}

#[test]
fn faults_are_reported_as_by_the_general_step() {
    for src in FAULTY {
        for n in [3, 50] {
            let ring = format!("ring:{n}");
            let mut lean = start_from(src, &ring, &[], 1, true, InitMode::Declared, Ids::Index);
            let mut full = start_from(src, &ring, &[], 1, false, InitMode::Declared, Ids::Index);
            let (a, b) = (run_until_stopped(&mut lean), run_until_stopped(&mut full));
            assert!(a.contains("Fault"), "{src}: {a}");
            assert_eq!(a, b, "{src} on ring:{n}");
            assert_eq!(lean.rows(), full.rows());
            // What the step record says of the failed step.
            let (x, y) = (lean.last(), full.last());
            assert_eq!(x.movers(), y.movers(), "{src} on ring:{n}");
            assert_eq!(x.actions(), y.actions(), "{src} on ring:{n}");
            assert_eq!(lean.now(), full.now(), "{src} on ring:{n}");
        }
    }
}

/// After every central step (single moves, and the general step), the
/// processes listed as enabled are those the step relation finds
/// enabled: a mover whose action disables itself is left out without its
/// guard being evaluated, and one whose action only looks so is not.
#[test]
fn movers_whose_actions_disable_themselves_are_disabled() {
    let topologies = [
        "ring:3",
        "ring:5",
        "ring:12",
        "random:14",
        "grid:3x4",
        "chain:6",
    ];
    let mut steps = 0;
    for topology in topologies {
        let src = match topology.starts_with("ring") {
            true => SELF_DISABLING,
            false => SELF_DISABLING_NBRS,
        };
        for (seed, lean) in [(1, true), (2, true), (3, true), (4, false), (5, false)] {
            let what = format!("{topology} seed {seed} lean {lean}");
            let mut sim = start(src, topology, &[], seed, lean);
            for k in 0..400 {
                match sim.step() {
                    Ok(Outcome::Moved) => {}
                    _ => break,
                }
                let cfg = sim.config();
                let mut enabled: Vec<u32> = sim.enabled().to_vec();
                enabled.sort_unstable();
                let rel = sim.step_relation();
                let want: Vec<u32> = (0..sim.n() as u32)
                    .filter(|&p| {
                        let first = rel.first_enabled(&cfg, p as usize);
                        first.expect("evaluates").is_some()
                    })
                    .collect();
                assert_eq!(enabled, want, "{what}: step {k}");
                steps += 1;
            }
        }
    }
    assert!(steps > 10_000, "{steps} steps in all");
}

#[test]
fn single_moves_mix_with_other_steps() {
    // The REPL switches daemons and forces moves between central steps.
    let mut lean = start(DIJKSTRA, "ring:30", &[("K", 30)], 7, true);
    let mut full = start(DIJKSTRA, "ring:30", &[("K", 30)], 7, false);
    for round in 0..20 {
        for sim in [&mut lean, &mut full] {
            sim.set_daemon(Daemon::Central);
            for _ in 0..5 {
                sim.step().expect("steps");
            }
            sim.set_daemon(Daemon::Synchronous);
            sim.step().expect("steps");
            let p = sim.enabled()[0];
            sim.step_with(&[p], None).expect("steps");
        }
        assert_eq!(lean.rows(), full.rows(), "round {round}");
        assert_eq!(lean.enabled(), full.enabled(), "round {round}");
        assert_eq!(lean.now(), full.now(), "round {round}");
    }
}

#[test]
fn prefetching_on_a_large_ring_of_rowless_processes() {
    // No variables: every row is empty, and a ring this size makes the
    // central step look ahead (it must not read rows that are not there).
    let src = "process {\n    tick :: true -> skip\n}\n";
    let mut lean = start_from(
        src,
        "ring:140000",
        &[],
        1,
        true,
        InitMode::Declared,
        Ids::Index,
    );
    let mut full = start_from(
        src,
        "ring:140000",
        &[],
        1,
        false,
        InitMode::Declared,
        Ids::Index,
    );
    for k in 0..1000 {
        assert_eq!(lean.step().ok(), Some(Outcome::Moved), "step {k}");
        assert_eq!(full.step().ok(), Some(Outcome::Moved), "step {k}");
        assert_eq!(lean.last().movers(), full.last().movers(), "step {k}");
    }
    assert_eq!(lean.now(), full.now());
}

/// A program, a topology and parameters.
type Case<'a> = (&'a str, String, Vec<(&'a str, i64)>);

/// An observer that looks at every step (and so makes the run loop take
/// them one by one) but never stops the run.
struct EveryStep;

impl guarded::runtime::run::Observer for EveryStep {}

/// The run loop takes central single moves in batches where nothing
/// watches the steps (`Simulation::single_moves`): the same run, stop,
/// last step and measures as one step at a time, whatever stops it (the
/// step or move budget, legitimacy, silence, a fault, an invariant).
#[test]
fn batches_of_single_moves_take_the_steps_one_by_one_would() {
    use guarded::runtime::run::{run, Limits, Stop, Unobserved};
    let invariant = "var x: 0..9 = 0\nprocess { up :: x < 9 and x <= left.x -> x := x + 1 }\ninvariant small: forall(p in procs : p.x < 7)\n";
    let mut cases: Vec<Case> = vec![
        (DIJKSTRA, "ring:7".into(), vec![("K", 7)]),
        (DIJKSTRA, "ring:300".into(), vec![("K", 300)]),
        // Large enough for central steps to look ahead, and for a run of
        // 100,000 steps to take two batches (the draws a batch took ahead
        // are given back to the generator at its end).
        (DIJKSTRA, "ring:70000".into(), vec![("K", 70000)]),
        (DIJKSTRA, "uring:8".into(), vec![("K", 7)]),
        (JOHNEN, "uring:9".into(), vec![("k", 1)]),
        (SSLE, "random:12".into(), vec![]),
        (MATCHING, "ring:6".into(), vec![]),
        (MATCHING, "ring:200".into(), vec![]),
        (invariant, "ring:5".into(), vec![]),
        // Guards left alone, with rows of several slots.
        (PARTIAL_READS, "ring:4".into(), vec![]),
        (PARTIAL_READS, "ring:9".into(), vec![]),
        (UNDER_TEST, "ring:7".into(), vec![]),
        (UNDER_TEST, "random:12".into(), vec![]),
        (SELF_DISABLING, "ring:9".into(), vec![]),
        (SELF_DISABLING_NBRS, "random:12".into(), vec![]),
    ];
    for src in [
        RIGHT_READER,
        BOTH_SIDES,
        LOCAL_LEGIT,
        TWO_CELLS,
        LEGIT_FAULTS,
        WHOLE_LEGIT,
        LEAN_RIGHT,
        LEAN_BOTH,
        LEAN_INLINE,
        LEAN_MIXED,
    ] {
        cases.push((src, "ring:6".into(), vec![]));
        cases.push((src, "ring:40".into(), vec![]));
    }
    for src in FAULTY {
        cases.push((src, "ring:5".into(), vec![]));
    }
    let mut batched_steps = 0;
    for (src, topology, params) in &cases {
        for (steps, moves, until_legitimate) in [
            (1, None, false),
            (37, None, false),
            (5000, Some(123), false),
            (100_000, None, true),
            (100_000, None, false),
        ] {
            let limits = Limits {
                steps,
                moves,
                until_legitimate,
                invariants: true,
            };
            let what = format!("{topology} {limits:?}:\n{src}");
            let mut ends = Vec::new();
            for batched in [true, false] {
                let mut sim =
                    start_from(src, topology, params, 3, true, InitMode::Random, Ids::Index);
                let stop = if batched {
                    run(&mut sim, &limits, &mut Unobserved)
                } else {
                    run(&mut sim, &limits, &mut EveryStep)
                };
                if batched {
                    batched_steps += sim.now().step;
                }
                // A failed step's record names its movers, not rows.
                let last = match stop {
                    Stop::Error(_) => (
                        sim.last().movers().to_vec(),
                        sim.last().actions().to_vec(),
                        Vec::new(),
                        Vec::new(),
                    ),
                    _ => last_step(&sim),
                };
                ends.push((
                    format!("{stop:?}"),
                    sim.rows().to_vec(),
                    last,
                    sim.now(),
                    sim.enabled().to_vec(),
                    sim.legitimate(),
                    sim.stabilized_at(),
                    sim.legitimacy_losses(),
                    sim.moves_per_action()
                        .map(<[u64]>::to_vec)
                        .collect::<Vec<_>>(),
                ));
            }
            assert_eq!(ends[0], ends[1], "{what}");
        }
    }
    assert!(batched_steps > 10_000, "{batched_steps} steps in all");
}
