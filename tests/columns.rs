//! The synchronous daemon's column path (guards and statements evaluated
//! over whole runs of processes) against the same runs taken process by
//! process: equal configurations, movers, actions, rows, rounds, legitimacy
//! and errors after every step.

use guarded::runtime::engine::COLUMN_CHUNK as CHUNK;
use guarded::runtime::engine::{Daemon, FastPaths, Outcome, Simulation};
use guarded::runtime::init::InitMode;
use guarded::topology::Ids;

mod common;
use common::{run_until_stopped, simulation, Start, FAULTY};

const DIJKSTRA: &str = include_str!("../programs/dijkstra_kstate.gc");

/// Several variables and arrays (rows wider than one value), priorities,
/// both neighbours, sequences that read their own writes, a simultaneous
/// swap, and most operators.
const RICH: &str = "
param M = 7
var a: 0..M-1 = index mod M
var b: bool = false
var c: array[3] of 0..M-1 = 0
process where index mod 3 == 0 {
    swap priority 1 :: a != c[1] and not b -> a, c[1] := c[1], a; b := true
    bump priority 2 :: b or a == right.a -> a := (a + left.a + id) mod M; c[0] := abs(a - right.c[2]) mod M; b := not b
}
process where index mod 3 != 0 {
    flip :: b != left.b -> b := left.b; c[2] := (c[2] + 1) mod M
    copy :: (a < left.a => b) and c[0] != (index / 2) mod M -> a := max(left.a, right.a) - min(left.a, right.a); c[1] := -(-a); c[0] := (index / 2) mod M
}
legitimate: forall(p in procs : not p.b)
";

fn start(
    src: &str,
    topology: &str,
    params: &[(&str, i64)],
    seed: u64,
    columns: bool,
) -> Simulation {
    start_from(
        src,
        topology,
        params,
        seed,
        columns,
        InitMode::Random,
        Ids::Index,
    )
}

fn start_from(
    src: &str,
    topology: &str,
    params: &[(&str, i64)],
    seed: u64,
    columns: bool,
    init: InitMode,
    ids: Ids,
) -> Simulation {
    let start = Start {
        params,
        seed,
        init,
        ids,
        daemon: Daemon::Synchronous,
    };
    let mut sim = simulation(src, topology, start);
    // Short runs of one role too, which by default go process by process.
    sim.set_fast_paths(FastPaths {
        columns,
        column_min_run: 1,
        ..FastPaths::default()
    });
    sim
}

/// The last step as (process, action, row before, row after), by process.
fn moves(s: &Simulation) -> Vec<(u32, u32, Vec<i64>, Vec<i64>)> {
    let last = s.last();
    let mut v: Vec<_> = (0..last.movers().len())
        .map(|k| {
            let (before, after) = s.mover_rows(k);
            (
                last.movers()[k],
                last.actions()[k],
                before.to_vec(),
                after.to_vec(),
            )
        })
        .collect();
    v.sort();
    v
}

fn enabled(s: &Simulation) -> Vec<u32> {
    let mut e = s.enabled().to_vec();
    e.sort();
    e
}

/// Runs both ways for `steps` steps; the number of column steps taken.
fn same_runs(src: &str, topology: &str, params: &[(&str, i64)], seed: u64, steps: usize) -> u64 {
    let what = format!("{topology} {params:?} seed {seed}");
    let mut fast = start(src, topology, params, seed, true);
    let mut slow = start(src, topology, params, seed, false);
    for k in 0..steps {
        let before = fast.config();
        let (a, b) = (fast.step(), slow.step());
        match (&a, &b) {
            (Ok(x), Ok(y)) => assert_eq!(x, y, "{what}: outcome of step {k}"),
            (Err(x), Err(y)) => {
                assert_eq!(
                    format!("{x:?}"),
                    format!("{y:?}"),
                    "{what}: error at step {k}"
                );
                break;
            }
            _ => panic!("{what}: step {k}: {a:?} against {b:?}"),
        }
        if matches!(a, Ok(Outcome::Silent)) {
            break;
        }
        assert_eq!(
            fast.rows(),
            slow.rows(),
            "{what}: configuration after step {k}"
        );
        assert_eq!(moves(&fast), moves(&slow), "{what}: moves of step {k}");
        common::assert_step_follows_relation(&fast, &before, &format!("{what}: step {k}"));
        assert_eq!(fast.now(), slow.now(), "{what}: step {k}");
        assert!(
            fast.moves_per_action().eq(slow.moves_per_action()),
            "{what}: moves per action after step {k}"
        );
        assert_eq!(
            enabled(&fast),
            enabled(&slow),
            "{what}: enabled after step {k}"
        );
        assert_eq!(fast.legitimate(), slow.legitimate(), "{what}: step {k}");
        assert_eq!(
            fast.stabilized_at(),
            slow.stabilized_at(),
            "{what}: step {k}"
        );
        assert_eq!(fast.first_legitimate(), slow.first_legitimate());
    }
    assert_eq!(slow.column_steps(), 0);
    fast.column_steps()
}

#[test]
fn dijkstra_rings_step_the_same_column_by_column() {
    // Sizes around and across the kernels' chunk.
    let c = CHUNK;
    for n in [2, 3, 5, 17, c - 1, c, c + 1, 2 * c + 77] {
        for seed in 0..3 {
            let taken = same_runs(DIJKSTRA, &format!("ring:{n}"), &[], seed, 60);
            assert!(taken > 0, "ring:{n} never took the column path");
            same_runs(DIJKSTRA, &format!("uring:{n}"), &[], seed, 60);
        }
        // K below n - 1: the ring need not stabilize; the paths still agree.
        same_runs(DIJKSTRA, &format!("ring:{n}"), &[("K", 2)], 7, 60);
    }
}

/// Guards of one comparison, of each kind, over a domain of three values
/// (so equal values are common and `<` against `<=` tells): the kernels
/// choose the first true one without a pass of their own; and one guard
/// with comparisons inside it, evaluated by the kernels before choosing.
const COMPARISONS: &str = "
param M = 3
var a: 0..M-1 = index mod M
var b: 0..M-1 = 0
process {
    lt :: a < left.a -> a := left.a; b := (b + 1) mod M
    le :: b <= left.b - 1 -> b := (b + 2) mod M
    gt :: a > right.b -> a := (a + right.a) mod M
    ge :: b >= right.a + 1 -> b := right.a
    mix :: (a > left.b) != (b >= right.a) and (a <= right.a or b == left.b) -> a := (a + 2) mod M
    eq :: a == b -> a := (a + 1) mod M
    ne :: left.a != right.b -> b := (left.a + b) mod M
}
";

#[test]
fn guards_of_one_comparison_choose_the_same() {
    for n in [5, CHUNK + 40] {
        for seed in 0..4 {
            let taken = same_runs(COMPARISONS, &format!("ring:{n}"), &[], seed, 40);
            assert!(taken > 0, "ring:{n} never took the column path");
        }
    }
}

#[test]
fn wide_rows_priorities_and_sequences_step_the_same() {
    for n in [3, 4, 10, CHUNK + 88, 2 * CHUNK + 6] {
        for seed in 0..4 {
            let taken = same_runs(RICH, &format!("ring:{n}"), &[], seed, 80);
            assert!(taken > 0, "ring:{n} never took the column path");
        }
    }
}

#[test]
fn faults_are_reported_as_process_by_process() {
    for src in FAULTY {
        // One chunk, or several: a kernel may fault in a later one, after
        // the first ran (and counted its moves).
        for n in [3, 700, 2 * CHUNK + 5] {
            let ring = format!("ring:{n}");
            let mut fast = start_from(src, &ring, &[], 1, true, InitMode::Declared, Ids::Index);
            let mut slow = start_from(src, &ring, &[], 1, false, InitMode::Declared, Ids::Index);
            let (a, b) = (run_until_stopped(&mut fast), run_until_stopped(&mut slow));
            assert!(a.contains("Fault"), "{src}: {a}");
            assert_eq!(a, b, "{src} on ring:{n}");
            assert_eq!(fast.rows(), slow.rows());
            // Values changed from outside (as the REPL's `set` does), the
            // run goes on: a failed column step counted no move.
            for sim in [&mut fast, &mut slow] {
                sim.change_state(|rows| rows.fill(1))
                    .expect("guards evaluate");
                let _ = sim.step();
            }
            assert_eq!(fast.rows(), slow.rows());
            assert!(
                fast.moves_per_action().eq(slow.moves_per_action()),
                "{src} on ring:{n}: moves per action"
            );
        }
    }
}

#[test]
fn programs_beyond_the_column_form_run_process_by_process() {
    // Quantifiers over neighbours: no column form; the step is still taken.
    let src =
        "var x: 0..9 = 0\nprocess { up :: forall(q in nbrs : q.x >= x) and x < 9 -> x := x + 1 }";
    let mut s = start(src, "ring:6", &[], 0, true);
    assert!(!s.has_column_form());
    assert_eq!(s.step().unwrap(), Outcome::Moved);
    assert_eq!(s.column_steps(), 0);
    // Off a ring, neither.
    let s = start(
        "var x: 0..9 = 0\nprocess { up :: x < 9 -> x := x + 1 }",
        "chain:6",
        &[],
        0,
        true,
    );
    assert!(!s.has_column_form());
}

/// Compares everything observable after a step.
fn same_now(fast: &Simulation, slow: &Simulation, what: &str) {
    assert_eq!(fast.rows(), slow.rows(), "{what}: configuration");
    assert_eq!(moves(fast), moves(slow), "{what}: moves");
    assert_eq!(fast.now(), slow.now(), "{what}: step, moves, round");
    assert_eq!(fast.rounds_completed(), slow.rounds_completed(), "{what}");
    assert_eq!(enabled(fast), enabled(slow), "{what}: enabled");
    assert_eq!(fast.legitimate(), slow.legitimate(), "{what}: legitimacy");
    assert_eq!(fast.stabilized_at(), slow.stabilized_at(), "{what}");
}

#[test]
fn column_steps_mix_with_steps_process_by_process() {
    // Synchronous stretches, then one chosen mover at a time (the smallest
    // enabled: the same whatever the list's order), then synchronous again.
    for (src, ring) in [
        (DIJKSTRA, "ring:40"),
        (DIJKSTRA, "ring:700"),
        (RICH, "ring:90"),
    ] {
        for seed in 0..3 {
            let mut fast = start(src, ring, &[], seed, true);
            let mut slow = start(src, ring, &[], seed, false);
            for k in 0..150 {
                let what = format!("{ring} seed {seed} step {k}");
                let one_by_one = (30..100).contains(&k);
                if one_by_one {
                    let Some(&p) = enabled(&fast).first() else {
                        break;
                    };
                    fast.step_with(&[p], None).unwrap();
                    slow.step_with(&[p], None).unwrap();
                } else {
                    let (a, b) = (fast.step().unwrap(), slow.step().unwrap());
                    assert_eq!(a, b, "{what}");
                }
                same_now(&fast, &slow, &what);
            }
            assert!(fast.column_steps() > 0);
        }
    }
    // A long synchronous run that stabilizes: once few are enabled, steps
    // go process by process again; the runs still agree.
    let mut fast = start(DIJKSTRA, "ring:100", &[], 1, true);
    let mut slow = start(DIJKSTRA, "ring:100", &[], 1, false);
    for k in 0..3000 {
        assert_eq!(fast.step().unwrap(), slow.step().unwrap());
        same_now(&fast, &slow, &format!("ring:100 step {k}"));
    }
    assert_eq!(fast.legitimate(), Some(true));
    assert!(fast.column_steps() > 0 && fast.column_steps() < 3000);
}

#[test]
fn large_rings_give_back_bookkeeping_column_steps_do_not_need() {
    // Past 256 KB of per-process bookkeeping, a column step gives it
    // back, and the steps that need it (a chosen mover, few enabled)
    // build it again: runs agree with process by process all along.
    for (src, ring) in [(DIJKSTRA, "ring:140000"), (RICH, "ring:140001")] {
        let mut fast = start(src, ring, &[], 3, true);
        let mut slow = start(src, ring, &[], 3, false);
        for k in 0..8 {
            let what = format!("{ring} step {k}");
            if k == 3 || k == 4 {
                let p = enabled(&fast)[k * 1000];
                fast.step_with(&[p], None).unwrap();
                slow.step_with(&[p], None).unwrap();
            } else {
                assert_eq!(fast.step().unwrap(), slow.step().unwrap(), "{what}");
            }
            if src == DIJKSTRA && (k == 2 || k == 7) {
                // Held before anyone asks for the movers or the enabled
                // list: the configuration and the one before it (8 + 8)
                // and the chosen actions before and after (2 + 2); the
                // process table (8), the enabled list (4) and the step's
                // movers and actions (4 + 4) are given back, and the ring
                // computes its neighbours (no table of 8). (RICH's
                // registers, a megabyte or so whatever the ring's size,
                // would blur the count.)
                let held = fast.memory_bytes() as f64 / fast.n() as f64;
                assert!(held < 23.0, "{what}: {held} bytes a process");
            }
            same_now(&fast, &slow, &what);
        }
        assert_eq!(fast.column_steps(), 6);
    }
}

/// Statements whose kernels may fault where no mover does: `12 / y` is
/// computed for the whole chunk, and processes with `y == 0` never run it.
const MAY_FAULT: &str = "
var x: 0..5 = 0
var y: 0..3 = 0
process {
    a :: y > 0 and x != left.x -> x := (x + 12 / y) mod 6
    b :: x == left.x and x != right.x -> x := (x + 1) mod 6
}
";

#[test]
fn a_large_rings_column_step_given_up_restores_the_bookkeeping() {
    // The process table given back at a column step's start comes back
    // when the step is given up (and taken process by process): chosen
    // actions and places in the enabled list, after steps that left the
    // list out of index order.
    let ring = "ring:140000";
    let mut fast = start(MAY_FAULT, ring, &[], 5, true);
    let mut slow = start(MAY_FAULT, ring, &[], 5, false);
    for k in 0..8 {
        let what = format!("{ring} step {k}");
        if k % 3 == 1 {
            let mover = enabled(&fast)[k * 997];
            fast.step_with(&[mover], None).unwrap();
            slow.step_with(&[mover], None).unwrap();
        } else {
            assert_eq!(fast.step().unwrap(), slow.step().unwrap(), "{what}");
        }
        same_now(&fast, &slow, &what);
    }
    assert_eq!(fast.column_steps(), 0, "every column step was given up");
}

#[test]
fn short_runs_of_one_role_go_process_by_process_by_default() {
    // RICH alternates roles every one or two processes: dispatching kernels
    // per run would cost more than it saves.
    let mut rich = start(RICH, "ring:600", &[], 0, true);
    rich.set_fast_paths(FastPaths::default());
    let mut dijkstra = start(DIJKSTRA, "ring:600", &[], 0, true);
    dijkstra.set_fast_paths(FastPaths::default());
    for _ in 0..5 {
        rich.step().unwrap();
        dijkstra.step().unwrap();
    }
    assert_eq!(rich.column_steps(), 0);
    assert_eq!(dijkstra.column_steps(), 5);
}

#[test]
fn johnens_election_steps_the_same_column_by_column() {
    // Loops over constant ranges, whole-array comparison and assignment,
    // definitions: unrolled into kernels.
    const JOHNEN: &str = include_str!("../programs/johnen_leader.gc");
    for n in [3, 10, CHUNK + 5] {
        for k in 0..3 {
            for (seed, ids) in [(1, Ids::Index), (2, Ids::Random(0, n as i64 + k))] {
                let ring = format!("uring:{n}");
                let make = |columns: bool| {
                    let init = InitMode::Random;
                    start_from(JOHNEN, &ring, &[("k", k)], seed, columns, init, ids.clone())
                };
                let (mut fast, mut slow) = (make(true), make(false));
                assert!(fast.has_column_form(), "Johnen has a column form");
                for step in 0..(k as usize + 2) * n + 2 {
                    let what = format!("uring:{n} k={k} seed {seed} step {step}");
                    let (a, b) = (fast.step().unwrap(), slow.step().unwrap());
                    assert_eq!(a, b, "{what}");
                    if a == Outcome::Silent {
                        break;
                    }
                    same_now(&fast, &slow, &what);
                }
                assert!(
                    fast.is_silent(),
                    "uring:{n} k={k}: silent within (k+2)n rounds"
                );
                assert!(fast.column_steps() > 0);
            }
        }
    }
}

#[test]
fn programs_without_variables_run_column_by_column() {
    // Empty rows: the kernels read only constants, indices and ids.
    let src = "process {\n    tick :: index mod 3 != 1 -> skip\n}\n";
    assert!(same_runs(src, "ring:3000", &[], 1, 5) > 0);
}

/// Watches every step, so the run loop takes them one by one.
struct EveryStep;

impl guarded::runtime::run::Observer for EveryStep {}

/// Everything a run's end shows: its stop, configuration, last step,
/// measures, enabled processes and legitimacy.
fn end_of(sim: &Simulation, stop: &guarded::runtime::run::Stop) -> String {
    use guarded::runtime::run::Stop;
    // A failed step's record names its movers, not rows.
    let last = match stop {
        Stop::Error(_) => format!("{:?} {:?}", sim.last().movers(), sim.last().actions()),
        _ => format!("{:?}", moves(sim)),
    };
    format!(
        "{stop:?}\n{:?}\n{last}\n{:?} {} column steps\n{:?}\n{:?} {:?} {:?}\n{:?}",
        sim.rows(),
        sim.now(),
        sim.column_steps(),
        enabled(sim),
        sim.legitimate(),
        sim.stabilized_at(),
        sim.legitimacy_losses(),
        sim.moves_per_action()
            .map(<[u64]>::to_vec)
            .collect::<Vec<_>>(),
    )
}

/// The run loop takes synchronous column steps in batches over the
/// configuration narrowed to 32-bit values where nothing watches the steps
/// (`Simulation::column_moves`): the same run, stop, last step and
/// measures as one step at a time (column by column on the configuration
/// as it is), whatever stops it (the step or move budget, legitimacy, a
/// kernel that may fault, a value out of its domain, too few enabled for
/// column steps); and no batch where a value could not be narrowed or
/// legitimacy reads the configuration.
#[test]
fn batches_on_the_configuration_narrowed_take_the_steps_one_by_one_would() {
    use guarded::runtime::run::{run, Limits, Unobserved};
    let no_legit = RICH.replace("legitimate: forall(p in procs : not p.b)", "");
    let negative = "var x: -6..5 = 0\nprocess {\n    a :: x < left.x -> x := left.x - 1\n    b :: x > right.x + 2 -> x := -x\n}\n";
    // From its declared start, everyone moves at every step, and the
    // sixth takes `c` out of its domain.
    let out_of_domain = "var x: 0..1 = index mod 2\nvar c: 0..5 = 0\nprocess {\n    a :: x != left.x -> x := left.x; c := c + 1\n}\n";
    let wide = "var x: 0..5000000000 = 0\nprocess {\n    a :: x != left.x -> x := left.x\n}\n";
    // From its declared start, two column steps, then a division by a
    // process's `y` of 0 that it does not run, in a kernel: given up.
    let late = "var x: 0..5 = index mod 6\nvar y: 0..3 = 3 - index mod 2\nprocess {\n    a :: y > 0 and x != left.x -> x := (x + 12 / y) mod 6; y := y - 1\n}\n";
    let k = |n: i64| vec![("K", n)];
    // (program, ring, parameters, whether batches narrow it)
    type Case<'a> = (&'a str, &'a str, Vec<(&'a str, i64)>, bool);
    let cases: Vec<Case> = vec![
        (DIJKSTRA, "ring:40", k(40), true),
        (DIJKSTRA, "ring:2125", k(2125), true),
        (DIJKSTRA, "ring:140000", k(140000), true),
        (&no_legit, "ring:90", vec![], true),
        (&no_legit, "ring:2100", vec![], true),
        (negative, "ring:1500", vec![], true),
        // Every column step given up.
        (MAY_FAULT, "ring:300", vec![], false),
        (MAY_FAULT, "ring:140000", vec![], false),
        (late, "ring:300", vec![], true),
        (out_of_domain, "ring:50", vec![], true),
        (RICH, "ring:90", vec![], false),
        (wide, "ring:3000", vec![], false),
    ];
    for (src, ring, params, narrows) in &cases {
        let large = ring.ends_with("140000");
        let mut budgets = vec![(1, None, false), (3, None, false)];
        if !large {
            budgets.extend([
                (37, None, false),
                (500, Some(40_000), false),
                (5000, None, true),
            ]);
        }
        let mut narrowed = 0;
        for (steps, moves, until_legitimate) in budgets {
            let limits = Limits {
                steps,
                moves,
                until_legitimate,
                invariants: true,
            };
            let what = format!("{ring} {limits:?}:\n{src}");
            let init = match [late, out_of_domain].contains(src) {
                true => InitMode::Declared,
                false => InitMode::Random,
            };
            let make = || start_from(src, ring, params, 3, true, init.clone(), Ids::Index);
            let (mut batched, mut one_by_one) = (make(), make());
            let stop = run(&mut batched, &limits, &mut Unobserved);
            if large && *src == DIJKSTRA {
                // After a batch, before anyone asks for the movers or the
                // enabled list: the configuration and the one before (8 +
                // 8) and the chosen actions before and after (2 + 2),
                // narrowed in their own buffers (no 32-bit copies kept),
                // and no table of the ring's neighbours.
                let held = batched.memory_bytes() as f64 / batched.n() as f64;
                assert!(held < 23.0, "{ring} {limits:?}: {held} bytes a process");
            }
            let other = run(&mut one_by_one, &limits, &mut EveryStep);
            let (a, b) = (end_of(&batched, &stop), end_of(&one_by_one, &other));
            // The first line that differs, shortened: rows are long.
            if let Some((x, y)) = a.lines().zip(b.lines()).find(|(x, y)| x != y) {
                let cut = |l: &str| l.chars().take(300).collect::<String>();
                panic!("{what}\nbatched:     {}\none by one: {}", cut(x), cut(y));
            }
            assert_eq!(a, b, "{what}");
            assert_eq!(one_by_one.narrowed_steps(), 0);
            narrowed += batched.narrowed_steps();
        }
        assert_eq!(narrowed > 0, *narrows, "{ring}:\n{src}");
    }
}

/// Going back (`Simulation::restore`) to a configuration reached by
/// column steps, after the run went elsewhere (batches over 32-bit values,
/// a step of one chosen mover), then on by batches or by single steps:
/// the same steps as the first time, and as process by process (the
/// chunks' notes of what they all chose go back with the column they
/// describe).
#[test]
fn going_back_after_column_steps_takes_the_same_steps_again() {
    use guarded::runtime::run::{run, Limits, Unobserved};
    let limits = |steps| Limits {
        steps,
        ..Limits::default()
    };
    let seen = |s: &Simulation| {
        let rows = s.rows().to_vec();
        (rows, moves(s), s.now(), enabled(s), s.legitimate())
    };
    for ring in ["ring:2125", "ring:140000"] {
        let n: i64 = ring[5..].parse().unwrap();
        // The steps taken process by process, for reference.
        let mut slow = start(DIJKSTRA, ring, &[("K", n)], 7, false);
        for _ in 0..8 {
            slow.step().unwrap();
        }
        let there = seen(&slow);
        let mut sim = start(DIJKSTRA, ring, &[("K", n)], 7, true);
        run(&mut sim, &limits(3), &mut Unobserved);
        let back = sim.snapshot();
        run(&mut sim, &limits(5), &mut Unobserved);
        assert_eq!(seen(&sim), there, "{ring}");
        assert!(sim.narrowed_steps() >= 8, "{ring}");
        let elsewhere = enabled(&sim)[0];
        sim.step_with(&[elsewhere], None).unwrap();
        for by_batches in [false, true] {
            sim.restore(back.clone());
            if by_batches {
                run(&mut sim, &limits(5), &mut Unobserved);
            } else {
                for _ in 0..5 {
                    sim.step().unwrap();
                }
            }
            assert_eq!(seen(&sim), there, "{ring}, by batches: {by_batches}");
        }
    }
}
