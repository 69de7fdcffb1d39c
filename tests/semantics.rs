//! The execution model of DESIGN.md, one small program per rule: composite
//! atomicity, simultaneous assignment, priorities, daemons, locality.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome, ScheduledStep, Simulation};
use guarded::runtime::init::InitMode;
use guarded::verify::{Explorer, Starts};

fn sim(src: &str, topology: &str, daemon: Daemon, seed: u64) -> Simulation {
    let setup = Setup {
        topology: Some(topology.into()),
        daemon,
        seed,
        ..Setup::default()
    };
    simulate(src, &setup).unwrap_or_else(|e| panic!("{e}"))
}

fn values(s: &Simulation) -> Vec<i64> {
    s.rows().to_vec()
}

fn schedule(steps: &[&[u32]]) -> Daemon {
    Daemon::Schedule(
        steps
            .iter()
            .enumerate()
            .map(|(k, p)| ScheduledStep {
                delays: None,
                line: k + 1,
                procs: p.to_vec(),
                named: vec![None; p.len()],
                spans: Vec::new(),
            })
            .collect(),
    )
}

#[test]
fn neighbours_read_the_configuration_before_the_step() {
    // Everyone copies its left neighbour at once: a rotation, not a smear.
    let src =
        "var x: 0..9 = index\nvar go: bool = true\nprocess { r :: go -> x := left.x; go := false }";
    let mut s = sim(src, "ring:4", Daemon::Synchronous, 0);
    assert_eq!(s.step().unwrap(), Outcome::Moved);
    let xs: Vec<i64> = values(&s).chunks(2).map(|r| r[0]).collect();
    assert_eq!(xs, [3, 0, 1, 2]);
    assert!(s.is_silent());
}

#[test]
fn a_sequence_sees_its_own_earlier_writes() {
    let src = "var x: 0..9 = 1\nvar y: 0..9 = 0\nprocess { a :: y == 0 -> x := x + 1; y := x * 2 }";
    let mut s = sim(src, "chain:1", Daemon::Central, 0);
    s.step().unwrap();
    assert_eq!(values(&s), [2, 4]);
}

#[test]
fn a_statement_reads_its_row_as_written_and_neighbours_as_before() {
    // Plain copies and offsets of own and left variables, which compile to
    // one closure each: the own row as written so far, the neighbour's
    // row before the step (under both daemons).
    let src = "var x: 0..9 = index + 1\nvar y: 0..9 = 0\nvar z: 0..9 = 0\nprocess { a :: y == 0 -> x := 5; y := x; z := left.x + 1; x := left.x; y := y - 1 }";
    let mut one = sim(src, "ring:3", schedule(&[&[2]]), 0);
    one.step().unwrap();
    assert_eq!(values(&one), [1, 0, 0, 2, 0, 0, 2, 4, 3]);
    let mut all = sim(src, "ring:3", Daemon::Synchronous, 0);
    all.step().unwrap();
    assert_eq!(values(&all), [3, 4, 4, 1, 4, 2, 2, 4, 3]);
}

/// What a statement evaluates before its first assignment reads the
/// configuration (the compiler reads it so, as guards do); after an
/// assignment, in an `if` either branch of which assigned, and in a
/// `for`'s later members, it reads the row as written, also through a
/// node variable that names the process itself.
#[test]
fn a_statement_reads_its_row_as_written_once_anything_is_assigned() {
    let src = "var x: 0..99 = 1\nvar y: 0..99 = 0\nvar z: 0..99 = 0\nvar w: 0..99 = 0\n\
               var up: node = self\n\
               process { a :: y == 0 -> \
                 if up.x == 1 { x := 10 }; \
                 y := up.x; \
                 for q in nbrs { x := x + 1 }; \
                 if x == 12 { z := up.x + 1 } else { z := 50 }; \
                 w := up.x }";
    let mut s = sim(src, "ring:3", schedule(&[&[0]]), 0);
    s.step().unwrap();
    // x becomes 10, then 12 over the two neighbours, each read as written.
    assert_eq!(values(&s)[..4], [12, 10, 13, 12]);
    let src = "var x: 0..99 = 1\nvar y: 0..99 = 0\nvar up: node = self\n\
               process { a :: y == 0 -> for q in nbrs { x := x + 1 }; y := up.x }";
    let mut s = sim(src, "ring:3", schedule(&[&[0]]), 0);
    s.step().unwrap();
    assert_eq!(values(&s)[..2], [3, 3]);
}

#[test]
fn a_multiple_assignment_evaluates_every_value_first() {
    let src = "var x: 0..9 = 1\nvar y: 0..9 = 2\nvar done: bool = false\nprocess { a :: not done -> x, y, done := y, x, true }";
    let mut s = sim(src, "chain:1", Daemon::Central, 0);
    s.step().unwrap();
    assert_eq!(values(&s), [2, 1, 1]);
}

/// A multiple assignment checks the values that may leave their
/// domains (and only those need it: a constant within the range, a
/// boolean, the process itself as a node are written as they are), and a
/// value outside faults before anything is written.
#[test]
fn a_multiple_assignment_writes_constants_booleans_and_itself_and_checks_the_rest() {
    let src = "var x: 0..3 = 0\nvar k: 0..9 = 0\nvar b: bool = false\nvar p: node = self\n\
               process {\n\
                 away :: k == 0 -> p, k := right, 1\n\
                 a :: k != 0 -> x, k, b, p := x + 1, 7, not b, self\n\
               }";
    let mut s = sim(src, "ring:3", schedule(&[&[0u32] as &[u32]; 5]), 0);
    let first = |s: &Simulation| values(s)[..4].to_vec();
    let rows = [[0, 1, 0, 1], [1, 7, 1, 0], [2, 7, 0, 0], [3, 7, 1, 0]];
    for (step, row) in rows.iter().enumerate() {
        assert_eq!(s.step().unwrap(), Outcome::Moved, "step {step}");
        assert_eq!(first(&s), row, "step {step}");
    }
    let fault = s.step().expect_err("x := 4 leaves 0..3");
    assert!(
        format!("{fault:?}").contains("`x` := 4 is outside its domain 0..3"),
        "{fault:?}"
    );
    assert_eq!(first(&s), [3, 7, 1, 0], "nothing written");
}

#[test]
fn a_multiple_assignment_repeating_an_expression_gives_it_one_value_and_draws_each_time() {
    // The minimum and the maximum are each written twice (and computed
    // once a run of the assignment); each sum draws its own value.
    let src = "var x: 0..9 = (index * 7) mod 10\nvar lo: 0..9 = 0\nvar hi: 0..9 = 0\nvar lo2: 0..9 = 0\nvar hi2: 0..9 = 0\nvar d1: 0..1009 = 0\nvar d2: 0..1009 = 0\nvar go: bool = true\nprocess { a :: go -> lo, hi, lo2, hi2, d1, d2, go := min(q in nbrs : q.x), max(q in nbrs : q.x), min(q in nbrs : q.x), max(q in nbrs : q.x), min(q in nbrs : q.x) + random(0..1000), min(q in nbrs : q.x) + random(0..1000), false }";
    for daemon in [Daemon::Synchronous, Daemon::Central] {
        let mut s = sim(src, "ring:6", daemon, 7);
        while s.step().unwrap() == Outcome::Moved {}
        let rows: Vec<Vec<i64>> = values(&s).chunks(8).map(<[i64]>::to_vec).collect();
        let x = |p: usize| rows[p][0];
        let mut draws_differ = false;
        for (p, row) in rows.iter().enumerate() {
            let nbrs = [x((p + 5) % 6), x((p + 1) % 6)];
            let (lo, hi) = (nbrs[0].min(nbrs[1]), nbrs[0].max(nbrs[1]));
            assert_eq!(&row[1..5], &[lo, hi, lo, hi], "process {p}: {row:?}");
            assert!((0..=1000).contains(&(row[5] - lo)) && (0..=1000).contains(&(row[6] - lo)));
            draws_differ |= row[5] != row[6];
        }
        assert!(draws_differ, "{rows:?}");
    }
}

#[test]
fn the_most_urgent_enabled_action_runs_then_program_order() {
    let src = "var x: 0..9 = 0\nprocess {\n late priority 2 :: x == 0 -> x := 2\n first priority 1 :: x == 0 -> x := 1\n second priority 1 :: x == 0 -> x := 3\n}";
    let mut s = sim(src, "chain:1", Daemon::Central, 0);
    assert_eq!(s.chosen_action(0).unwrap().label, "first");
    assert_eq!(s.enabled_actions(0).unwrap().len(), 2);
    s.step().unwrap();
    assert_eq!(values(&s), [1]);
}

#[test]
fn a_less_urgent_action_runs_when_no_more_urgent_one_is_enabled() {
    let src = "var x: 0..9 = 5\nprocess {\n a priority 1 :: x == 0 -> x := 1\n b priority 2 :: x == 5 -> x := 0\n}";
    let mut s = sim(src, "chain:1", Daemon::Central, 0);
    s.step().unwrap();
    s.step().unwrap();
    assert_eq!(values(&s), [1]);
    assert!(s.is_silent());
}

const BUSY: &str = "var x: 0..1 = 0\nprocess { flip :: true -> x := 1 - x }";

#[test]
fn the_locally_central_daemon_never_moves_two_neighbours() {
    for topo in ["ring:9", "grid:4x4", "complete:6", "random:25", "tree:20"] {
        let mut s = sim(BUSY, topo, Daemon::LocallyCentral, 3);
        let mut total = 0;
        for _ in 0..300 {
            s.step().unwrap();
            let m = &s.last().movers();
            total += m.len();
            for (i, &a) in m.iter().enumerate() {
                for &b in &m[i + 1..] {
                    assert!(
                        !s.topology().adjacent(a as usize, b as usize),
                        "{topo}: {a} and {b} moved together"
                    );
                }
            }
        }
        assert!(
            total > 300 || topo == "complete:6",
            "{topo}: one mover a step is only central"
        );
    }
}

#[test]
fn the_central_daemon_moves_one_and_the_distributed_some() {
    let mut c = sim(BUSY, "ring:10", Daemon::Central, 1);
    let mut d = sim(BUSY, "ring:10", Daemon::Distributed, 1);
    let mut sizes = std::collections::BTreeSet::new();
    for _ in 0..200 {
        c.step().unwrap();
        assert_eq!(c.last().movers().len(), 1);
        d.step().unwrap();
        assert!(!d.last().movers().is_empty());
        sizes.insert(d.last().movers().len());
    }
    assert!(
        sizes.len() > 3,
        "distributed subsets should vary: {sizes:?}"
    );
}

#[test]
fn a_schedule_is_followed_exactly_and_refuses_disabled_processes() {
    let src = "var x: 0..9 = 0\nprocess where index == 0 { a :: x < 3 -> x := x + 1 }\nprocess where index != 0 { b :: x != left.x -> x := left.x }";
    let mut s = sim(src, "chain:3", schedule(&[&[0], &[1], &[0, 2]]), 0);
    for _ in 0..3 {
        s.step().unwrap();
    }
    assert_eq!(values(&s), [2, 1, 1]);
    assert_eq!(s.step().unwrap(), Outcome::ScheduleDone);
    let mut bad = sim(src, "chain:3", schedule(&[&[2]]), 0);
    assert!(bad.step().is_err());
}

#[test]
fn quantifiers_over_neighbours_and_processes() {
    // Each process takes the maximum of its neighbourhood; legitimacy: all equal.
    let src = "var x: 0..20\nprocess { up :: exists(q in nbrs : q.x > x) -> x := x + 1 }\nlegitimate: forall(p in procs : forall(q in nbrs(p) : q.x == p.x))";
    let setup = Setup {
        topology: Some("grid:3x3".into()),
        init: InitMode::Random,
        seed: 4,
        ..Setup::default()
    };
    let mut s = simulate(src, &setup).unwrap();
    let max = *s.rows().iter().max().unwrap();
    while s.step().unwrap() == Outcome::Moved {}
    assert!(s.is_silent());
    assert_eq!(s.legitimate(), Some(true));
    assert!(s.rows().iter().all(|&v| v == max));
    assert!(s.stabilized_at().is_some());
}

#[test]
fn roles_by_id_and_ids_from_a_list() {
    let src = "var leader: bool = false\nprocess where id == 7 { win :: not leader -> leader := true }\nprocess where id != 7 { }";
    let setup = Setup {
        topology: Some("chain:3".into()),
        ids: "5,7,6".parse().unwrap(),
        ..Setup::default()
    };
    let mut s = simulate(src, &setup).unwrap();
    s.step().unwrap();
    assert_eq!(values(&s), [0, 1, 0]);
}

#[test]
fn an_edge_variable_starts_with_its_value_at_the_lower_numbered_end() {
    // `self` differs at the two ends: the lower-numbered one's is kept, and
    // a write by either end lands at both.
    let src = "edge var head: node = self\nprocess { flip for q in nbrs :: edge(q).head == self and q.index > index -> edge(q).head := q }\n\
               legitimate: forall(p in procs : forall(q in nbrs(p) : (edge(p, q).head == p) == (p.index < q.index)))";
    for topology in ["ring:5", "grid:3x3", "random:7"] {
        let mut s = sim(src, topology, Daemon::Central, 1);
        assert_eq!(s.legitimate(), Some(true), "{topology}");
        assert_eq!(s.step().unwrap(), Outcome::Moved, "{topology}");
        assert_eq!(
            s.legitimate(),
            Some(false),
            "{topology}: a write at both ends"
        );
    }
}

#[test]
fn node_variables_read_through_and_stay_local() {
    // Each process points at its smallest-index neighbour and copies its x.
    let src = "var x: 0..9 = index\nvar p: node = self\n\
               process { point :: p == self and exists(q in nbrs : q.index < index) -> p := left\n\
                         copy :: p != self and p.x != x -> x := p.x }";
    let mut s = sim(src, "chain:4", Daemon::Synchronous, 0);
    while s.step().unwrap() == Outcome::Moved {}
    let xs: Vec<i64> = values(&s).chunks(2).map(|r| r[0]).collect();
    assert_eq!(xs, [0, 0, 0, 0]);
}

#[test]
fn node_variables_name_neighbours_and_reads_through_them_are_checked() {
    let setup = Setup {
        topology: Some("ring:6".into()),
        sets: vec!["1.p=2".into()],
        daemon: schedule(&[&[0]]),
        ..Setup::default()
    };
    // Taking a neighbour's pointer may name a non-neighbour: rejected before the run.
    let src = "var p: node = self\nprocess { grab :: p == self -> p := right.p }";
    let err = simulate(src, &setup).err().expect("rejected");
    assert!(
        err.contains("may only name this process or a neighbour"),
        "{err}"
    );
    // Reading through it is allowed, and checked when it happens: process 0
    // reads process 1's pointer, which names process 2, not a neighbour of 0.
    let src = "var p: node = self\nvar x: 0..1 = 0\nprocess { look :: right.p.x == 0 -> x := 1 }";
    // (Guards are first evaluated on the initial configuration.)
    let err = simulate(src, &setup).err().expect("a runtime error");
    assert!(
        err.contains("process 0 reads process 2, which is not a neighbour"),
        "{err}"
    );
    // Where the pointer names the reader itself the read is fine.
    let setup = Setup {
        sets: vec!["1.p=0".into()],
        ..setup
    };
    let mut s = simulate(src, &setup).unwrap();
    assert_eq!(s.step().unwrap(), Outcome::Moved);
}

#[test]
fn a_random_choice_among_equally_urgent_actions_uses_both() {
    let src = "var x: 0..1 = 0\nprocess { a :: true -> x := 0\n b :: true -> x := 1 }";
    let mut s = sim(src, "chain:1", Daemon::Central, 2);
    s.set_choice(guarded::runtime::engine::Choice::Random);
    let mut seen = [false; 2];
    for _ in 0..50 {
        s.step().unwrap();
        seen[s.rows()[0] as usize] = true;
    }
    assert_eq!(seen, [true, true]);
}

/// A step whose movers write no variable legitimacy reads leaves it as it
/// was, but not in a program with messages: a move that writes nothing
/// (Chang and Roberts' `done`, the last of a run) takes a message, which
/// the predicate reads. Legitimacy kept after each step agrees with a full
/// evaluation, in such a program and in SSLE, whose A4 to A6 write only
/// what its legitimacy does not read.
#[test]
fn legitimacy_stands_only_where_nothing_it_reads_changed() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, i64)], InitMode);
    let cases: [Case; 3] = [
        (
            include_str!("golden/programs/chang_roberts.gc"),
            "ring:4",
            &[],
            InitMode::Declared,
        ),
        (
            include_str!("../programs/ssle.gc"),
            "ring:9",
            &[("repair", 1)],
            InitMode::Random,
        ),
        (
            include_str!("../programs/ssle.gc"),
            "random:9",
            &[("repair", 1)],
            InitMode::Random,
        ),
    ];
    let mut reached = 0;
    for (src, topology, params, init) in cases {
        for daemon in [Daemon::Central, Daemon::Distributed, Daemon::Synchronous] {
            for seed in 0..4 {
                let setup = Setup {
                    topology: Some(topology.into()),
                    params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                    seed,
                    init: init.clone(),
                    daemon: daemon.clone(),
                    ..Setup::default()
                };
                let mut s = simulate(src, &setup).unwrap();
                for step in 0..400 {
                    assert_eq!(
                        s.legitimate(),
                        s.legitimate_in_full().unwrap(),
                        "{topology} {} seed {seed} step {step}",
                        daemon.name()
                    );
                    if s.step().unwrap() != Outcome::Moved {
                        break;
                    }
                }
                reached += usize::from(s.legitimate() == Some(true));
            }
        }
    }
    // Chang and Roberts' runs end legitimate, with `done`.
    assert!(reached >= 12, "{reached} runs ended legitimate");
}

/// Legitimacy kept incrementally (conjuncts over all processes of a local
/// predicate, re-evaluated only where a step can change them) always agrees
/// with evaluating the whole predicate, for the bundled programs that use it,
/// under every daemon, from random starts and after outside changes.
#[test]
fn incremental_legitimacy_agrees_with_full_evaluation() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, i64)]);
    let cases: [Case; 4] = [
        (
            include_str!("../programs/johnen_leader.gc"),
            "uring:9",
            &[("k", 2)],
        ),
        (
            include_str!("../programs/ssle.gc"),
            "random:14",
            &[("repair", 1)],
        ),
        (include_str!("../programs/ssle.gc"), "tree:12", &[]),
        (include_str!("../programs/arrow.gc"), "tree:8", &[]),
    ];
    for (src, topology, params) in cases {
        // A program that runs in ticks has one daemon.
        let daemons = match guarded::load::check(src).unwrap().runs_in_ticks() {
            true => vec![Daemon::Ticks],
            false => vec![Daemon::Central, Daemon::Synchronous, Daemon::Distributed],
        };
        for daemon in daemons {
            for seed in 0..3 {
                let setup = Setup {
                    topology: Some(topology.into()),
                    params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                    seed,
                    init: guarded::runtime::init::InitMode::Random,
                    daemon: daemon.clone(),
                    ..Setup::default()
                };
                let mut s = simulate(src, &setup).unwrap();
                assert!(s.legitimacy_is_incremental(), "{topology}: not incremental");
                for step in 0..600 {
                    assert_eq!(
                        s.legitimate(),
                        s.legitimate_in_full().unwrap(),
                        "{topology} step {step}"
                    );
                    if step == 300 {
                        // An outside change: a third of the processes corrupted.
                        let procs: Vec<usize> = (0..s.n()).step_by(3).collect();
                        s.corrupt(&procs).unwrap();
                    }
                    if s.step().unwrap() != Outcome::Moved {
                        break;
                    }
                }
            }
        }
    }
}

/// Legitimacy's conjuncts over every process are asked lazily (only where
/// the value needs them: not while one is known false elsewhere), yet a
/// run sees what the whole predicate says after every step, faults
/// included: a division by zero at one process is the predicate's fault
/// only where no process before it makes a conjunct false, as the
/// predicate evaluated in order finds it. Conjuncts whose body cannot
/// fault, may fault, a count and a whole conjunct; the central daemon's
/// batches and the distributed daemon.
#[test]
fn lazy_legitimacy_says_and_faults_as_the_whole_predicate() {
    let moves = "var x: 0..9 = 0\nprocess {\n    up :: x < 9 and x <= left.x -> x := x + 1\n    \
                 down :: x > 0 and x > right.x + 1 -> x := x - 1\n}\n";
    let predicates = [
        // May fault (x == 7 at a process before any x == 2): asked in order.
        "forall(p in procs : p.x != 2 and (p.x < 5 or 10 / (p.x - 7) < 100))",
        // Cannot fault: asked in any order.
        "forall(p in procs : p.x != 2 and p.x + 1 < 9)",
        "count(p in procs : p.x == 0) >= 1 and max(p in procs : p.x) < 9 \
         and forall(p in procs : p.x != 4)",
        "forall(p in procs : p.x != 3) and forall(p in procs : 10 / (p.x - 7) < 100)",
    ];
    let (mut faults, mut falses, mut truths) = (0, 0, 0);
    for predicate in predicates {
        let src = format!("{moves}legitimate: {predicate}\n");
        for daemon in [Daemon::Central, Daemon::Distributed] {
            for seed in 0..12 {
                let setup = Setup {
                    topology: Some("ring:9".into()),
                    seed,
                    init: InitMode::Random,
                    daemon: daemon.clone(),
                    ..Setup::default()
                };
                // A start where the predicate faults is refused at once.
                let Ok(mut s) = simulate(&src, &setup) else {
                    continue;
                };
                for step in 0..400 {
                    let whole = s.legitimate_in_full();
                    let what = format!("{predicate} {daemon:?} seed {seed} step {step}");
                    assert_eq!(s.legitimate(), *whole.as_ref().expect(&what), "{what}");
                    match s.legitimate() {
                        Some(true) => truths += 1,
                        _ => falses += 1,
                    }
                    match s.step() {
                        Ok(Outcome::Moved) => {}
                        Ok(_) => break,
                        Err(e) => {
                            let said = format!("{e:?}");
                            let whole = s.legitimate_in_full();
                            let fault = whole.expect_err(&format!("{what}: {said}"));
                            assert!(said.contains(&fault.message), "{what}: {said}");
                            faults += 1;
                            break;
                        }
                    }
                }
            }
        }
    }
    assert!(
        faults >= 10 && falses >= 100 && truths >= 100,
        "{faults} {falses} {truths}"
    );
}

#[test]
fn a_read_from_a_wider_domain_is_still_checked() {
    // `x := y` needs no check when y's domain lies within x's, and must
    // keep it otherwise, process by process and column by column alike.
    let src = "var x: 0..3 = 0\nvar y: 0..9 = 7\nprocess { a :: x < left.x or x == 0 -> x := y }";
    for daemon in [Daemon::Central, Daemon::Synchronous] {
        let mut s = sim(src, "ring:4", daemon.clone(), 0);
        let err = format!("{:?}", s.step().unwrap_err());
        assert!(err.contains("outside its domain 0..3"), "{daemon:?}: {err}");
    }
    let narrow =
        "var x: 0..9 = 0\nvar y: 2..5 = 4\nprocess { a :: x < left.x or x == 0 -> x := y }";
    let mut s = sim(narrow, "ring:4", Daemon::Synchronous, 0);
    s.step().unwrap();
    assert_eq!(
        values(&s).chunks(2).map(|r| r[0]).collect::<Vec<_>>(),
        [4; 4]
    );
}

#[test]
fn division_and_mod_are_euclidean_for_negative_operands() {
    // `a / b` is the q with a = q*b + r and 0 <= r < |b|: the remainder is
    // never negative, so `(x - 1) mod K` stays in 0..K-1.
    let src = "var x: -7..7 = -7\nprocess { a :: false -> skip }\n\
        def X = min(p in procs : p.x)\n\
        report q1: 7 / -2\nreport r1: 7 mod -2\nreport q2: X / 2\nreport r2: X mod 2\n\
        report q3: X / -2\nreport r3: X mod -2\nreport r4: (0 - 1) mod 5\n";
    let s = sim(src, "chain:1", Daemon::Central, 0);
    let got: Vec<String> = s
        .reports()
        .into_iter()
        .map(|(n, v)| format!("{n}={}", v.unwrap()))
        .collect();
    assert_eq!(
        got,
        ["q1=-3", "r1=1", "q2=-4", "r2=1", "q3=4", "r3=1", "r4=4"]
    );
}

#[test]
fn overflow_of_negation_and_abs_points_at_the_expression() {
    for (expr, start) in [
        ("-(x * 4611686018427387904 * 2)", "-("),
        ("abs(x * 4611686018427387904 * 2)", "abs("),
    ] {
        let src = format!("var x: -1..1 = -1\nprocess {{ a :: {expr} > 0 -> skip }}");
        let setup = Setup {
            topology: Some("chain:1".into()),
            ..Setup::default()
        };
        let inst = guarded::load::load(&src, &setup, &guarded::load::read_file).unwrap();
        let cfg = guarded::state::Config {
            rows: vec![-1],
            chans: Default::default(),
        };
        match inst.step_relation().first_enabled(&cfg, 0) {
            Err(guarded::runtime::step::RunError::Fault { fault, .. }) => {
                assert_eq!(fault.message, "arithmetic overflow");
                assert!(
                    src[fault.span.start..].starts_with(start),
                    "{expr}: {:?}",
                    fault.span
                );
                assert!(fault.span.end > fault.span.start);
            }
            other => panic!("{expr}: {other:?}"),
        }
    }
}

#[test]
fn selectors_may_compare_processes_of_the_topology() {
    // The root of a tree: its own parent.
    let src = "var x: 0..3 = 0\n\
        process where tree_parent == self { a :: x == 0 -> x := 1 }\n\
        process where tree_parent != self { a :: x == 0 -> x := 2 }\n";
    let mut s = sim(src, "tree:6", Daemon::Synchronous, 0);
    s.step().unwrap();
    assert_eq!(values(&s), vec![1, 2, 2, 2, 2, 2]);
}

#[test]
fn arrays_compare_lexicographically() {
    // Process p moves when its array is below its left neighbour's.
    let src = "var A: array[3] of 0..3 = 0\nvar moved: bool = false\n\
        process { go :: A < left.A and not moved -> moved := true }\n";
    let rows = [[0, 1, 2], [0, 1, 3], [1, 0, 0], [1, 0, 0]];
    let text: String = rows
        .iter()
        .enumerate()
        .map(|(p, r)| format!("{p}.A = [{}, {}, {}]\n", r[0], r[1], r[2]))
        .collect();
    let setup = Setup {
        topology: Some("ring:4".into()),
        daemon: Daemon::Synchronous,
        init: InitMode::File("rows".into(), text),
        ..Setup::default()
    };
    let mut s = simulate(src, &setup).unwrap();
    s.step().unwrap();
    // 0 < 3's [1,0,0]: yes; 1's [0,1,3] < [0,1,2]: no; 2's [1,0,0] < [0,1,3]: no;
    // 3's [1,0,0] < [1,0,0]: no (equal).
    let moved: Vec<i64> = (0..4).map(|p| s.value(p, "moved").unwrap()).collect();
    assert_eq!(moved, vec![1, 0, 0, 0]);
    for (op, want) in [
        ("<=", [1, 0, 0, 1]),
        (">", [0, 1, 1, 0]),
        (">=", [0, 1, 1, 1]),
        ("!=", [1, 1, 1, 0]),
    ] {
        let src = src.replace("A < left.A", &format!("A {op} left.A"));
        let mut s = simulate(&src, &setup).unwrap();
        s.step().unwrap();
        let moved: Vec<i64> = (0..4).map(|p| s.value(p, "moved").unwrap()).collect();
        assert_eq!(moved, want.to_vec(), "A {op} left.A");
    }
}

#[test]
fn min_compares_keys_of_up_to_32_components() {
    // Ten components, the last one deciding: among 0's neighbours 1 and 2, 2.
    let keys = (0..9).map(|_| "0").collect::<Vec<_>>().join(", ");
    let src = format!(
        "var x: 0..9 = 0\nvar best: node = self\n\
         process {{ pick :: best == self -> best := argmin(q in nbrs : ({keys}, (q.index + 1) mod 3)) }}\n"
    );
    let mut s = sim(&src, "complete:3", Daemon::Synchronous, 0);
    s.step().unwrap();
    assert_eq!(s.value(0, "best"), Some(2));
}

#[test]
fn argmin_and_argmax_of_one_to_six_keys_choose_the_best_member_ties_by_id() {
    // Keys from a small domain, so that members often tie on all of them;
    // the member with the smallest id wins a tie. Each number of keys has
    // its own search (arrays of the keys' size up to four), checked here
    // against the order written out.
    for keys in 1..=6 {
        // Each key a different pattern over the processes, ties left.
        let vars: String = (0..keys)
            .map(|k| {
                format!(
                    "var k{k}: 0..1 = (index * {} + index / {}) mod 2\n",
                    k + 1,
                    k + 2
                )
            })
            .collect();
        let tuple = (0..keys).map(|k| format!("q.k{k}")).collect::<Vec<_>>();
        let tuple = if keys == 1 {
            tuple[0].clone()
        } else {
            format!("({})", tuple.join(", "))
        };
        let src = format!(
            "{vars}var lo: node = self\nvar hi: node = self\nvar go: bool = true\n\
             process {{ pick :: go -> lo, hi, go := argmin(q in nbrs : {tuple}), argmax(q in nbrs : {tuple}), false }}\n"
        );
        for seed in 0..20 {
            let setup = Setup {
                topology: Some("random:9".into()),
                daemon: Daemon::Synchronous,
                seed,
                ..Setup::default()
            };
            let mut s = simulate(&src, &setup).unwrap_or_else(|e| panic!("{e}"));
            let key = |s: &Simulation, q: usize| -> Vec<i64> {
                (0..keys)
                    .map(|k| s.value(q, &format!("k{k}")).unwrap())
                    .collect()
            };
            let before: Vec<Vec<i64>> = (0..9).map(|q| key(&s, q)).collect();
            s.step().unwrap();
            for p in 0..9 {
                let nbrs = s.topology().nbrs(p).to_vec();
                if nbrs.is_empty() {
                    continue;
                }
                let id = |q: u32| s.topology().id(q as usize);
                let lo = nbrs.iter().copied().min_by(|&a, &b| {
                    before[a as usize]
                        .cmp(&before[b as usize])
                        .then(id(a).cmp(&id(b)))
                });
                let hi = nbrs.iter().copied().min_by(|&a, &b| {
                    before[b as usize]
                        .cmp(&before[a as usize])
                        .then(id(a).cmp(&id(b)))
                });
                let what = format!("{keys} keys, seed {seed}, process {p}");
                assert_eq!(s.value(p, "lo"), lo.map(i64::from), "argmin, {what}");
                assert_eq!(s.value(p, "hi"), hi.map(i64::from), "argmax, {what}");
            }
        }
    }
}

#[test]
fn a_process_takes_its_oldest_message_whichever_action_takes_it() {
    // `ra` comes first in program order, but the `b` from 2 is older than the
    // `a`s from 0: it is taken first, and no channel starves the other.
    let src = "topology chain:3\nmessage a\nmessage b\nchannel capacity 4\nvar got: 0..2 = 0\n\
        process where index == 1 {\n  ra :: receive a from q -> got := 1\n  rb :: receive b from q -> got := 2\n}\n\
        process where index != 1 { idle :: false -> skip }\n";
    let setup = Setup {
        topology: Some("chain:3".into()),
        init: InitMode::File("channels".into(), "2->1 = b\n0->1 = a a\n".into()),
        ..Setup::default()
    };
    let mut s = simulate(src, &setup).unwrap();
    let mut got = Vec::new();
    for _ in 0..3 {
        s.step().unwrap();
        got.push(s.value(1, "got").unwrap());
    }
    assert_eq!(got, vec![2, 1, 1]);
    // Sent the other way round, the `a`s are older.
    let setup = Setup {
        init: InitMode::File("channels".into(), "0->1 = a a\n2->1 = b\n".into()),
        ..setup
    };
    let mut s = simulate(src, &setup).unwrap();
    let mut got = Vec::new();
    for _ in 0..3 {
        s.step().unwrap();
        got.push(s.value(1, "got").unwrap());
    }
    assert_eq!(got, vec![1, 1, 2]);
}

/// A step is a set of movers: messages sent in one step are stamped by
/// sender number, however the movers were listed. Leaf 2 of a star becomes
/// enabled a step before leaf 1 (so a synchronous run's enabled list holds
/// 2 first), both send to the centre in step 4, and the centre takes the
/// older: leaf 1's, under the synchronous daemon and under a schedule
/// listing the senders either way round, as `verify` has it.
#[test]
fn messages_sent_in_one_step_are_stamped_by_sender_number() {
    let src = "message ping\nchannel capacity 2\nvar got: -1..2 = -1\nvar phase: 0..2 = 0\n\
        var st: 0..2 = 0\nvar sent: bool = false\n\
        process where index == 0 {\n  inc :: phase < 2 -> phase := phase + 1\n\
          take :: receive ping from q and got == -1 -> got := q.index\n}\n\
        process where index != 0 {\n\
          a :: st < index and exists(q in nbrs : q.phase >= 3 - index) -> st := st + 1\n\
          b :: st == index and not sent -> sent := true; for r in nbrs { send ping to r }\n}\n";
    let mut s = sim(src, "star:3", Daemon::Synchronous, 0);
    while s.step().unwrap() == Outcome::Moved {}
    assert_eq!(s.value(0, "got").unwrap(), 1);
    for senders in [[1, 2], [2, 1]] {
        let steps: [&[u32]; 5] = [&[0], &[0, 2], &[1, 2], &senders, &[0]];
        let mut s = sim(src, "star:3", schedule(&steps), 0);
        while s.step().unwrap() == Outcome::Moved {}
        assert_eq!(s.value(0, "got").unwrap(), 1, "senders listed {senders:?}");
    }
    // `verify` from the declared start agrees: the centre never takes
    // leaf 2's first.
    let src = format!("{src}property first_from_1: always (0).got != 2\n");
    let mut inst = load_on(&src, "star:3");
    let start = inst.initial(&InitMode::Declared, &[]).unwrap();
    let (daemon, starts) = (
        guarded::runtime::daemon::Daemon::Synchronous,
        Starts::One(start),
    );
    let ex = Explorer::reachable(&inst, starts, &daemon, None).unwrap();
    let verdict = ex.verify(&daemon).unwrap();
    assert!(verdict.properties.iter().all(|v| v.holds));
}

/// Dijkstra's 4-state chain with `up` declared in the middle role: the
/// bottom keeps `up = true` and the top `up = false`, whatever the start.
const FOUR_STATE: &str = include_str!("golden/programs/four_state.gc");

#[test]
fn a_role_variable_keeps_its_declared_value_at_the_other_processes() {
    for seed in 0..50 {
        let setup = Setup {
            topology: Some("chain:7".into()),
            seed,
            init: InitMode::Random,
            ..Setup::default()
        };
        let mut s = simulate(FOUR_STATE, &setup).unwrap();
        for _ in 0..200 {
            assert_eq!(s.value(0, "up"), Some(1), "seed {seed}");
            assert_eq!(s.value(6, "up"), Some(0), "seed {seed}");
            if s.step().unwrap() != Outcome::Moved {
                break;
            }
        }
        assert_eq!(
            s.legitimate(),
            Some(true),
            "seed {seed}: stabilized within 200 steps"
        );
    }
    // `--set` may not change it there; `*` sets the processes that own it.
    let setup = |sets: &[&str]| Setup {
        topology: Some("chain:5".into()),
        sets: sets.iter().map(|s| s.to_string()).collect(),
        ..Setup::default()
    };
    let err = simulate(FOUR_STATE, &setup(&["0.up=false"])).err().unwrap();
    assert!(
        err.contains("`up` belongs to another role than process 0's"),
        "{err}"
    );
    let s = simulate(FOUR_STATE, &setup(&["*.up=true"])).unwrap();
    let up: Vec<i64> = (0..5).map(|p| s.value(p, "up").unwrap()).collect();
    assert_eq!(up, vec![1, 1, 1, 1, 0]);
}

#[test]
fn every_configuration_leaves_other_roles_values_alone() {
    let setup = Setup {
        topology: Some("chain:5".into()),
        ..Setup::default()
    };
    let inst = guarded::load::load(FOUR_STATE, &setup, &guarded::load::read_file).unwrap();
    // x at 5 processes, up at the 3 in the middle: 2^5 * 2^3.
    assert_eq!(inst.space().count(), 256);
}

/// The smallest pair among `p`'s neighbours, ties to the smallest id, as
/// `min(q in nbrs(p) : (q.a, q.b))` means it.
fn lowest_pair(s: &Simulation, p: usize) -> (i64, i64) {
    let pairs = neighbour_pairs(s, p);
    pairs.min().expect("every process has a neighbour")
}

/// The `(a, b)` pairs of process `p`'s neighbours.
fn neighbour_pairs(s: &Simulation, p: usize) -> impl Iterator<Item = (i64, i64)> + '_ {
    let pair = |q: usize| (s.value(q, "a").unwrap(), s.value(q, "b").unwrap());
    (s.topology().nbrs(p).iter()).map(move |&q| pair(q as usize))
}

#[test]
fn a_minimum_of_pairs_compares_lexicographically_however_it_is_read() {
    // Each action's guard compares the neighbours' smallest pair (or its
    // successor) with the process's own: the comparison reads the minimum
    // once, whichever components it looks at, and a side that counts
    // (binding a variable of its own) reads it as before.
    let src = "var a: 0..2\nvar b: 0..2\n\
        def key(p) = (p.a, p.b)\n\
        def low(p) = min(q in nbrs(p) : q.key)\n\
        process {\n\
          lt priority 1 :: low(self) < self.key -> a := a\n\
          le priority 2 :: low(self) + (0, 1) <= self.key -> a := a\n\
          cnt priority 3 :: low(self) <= (count(q in nbrs : q.b > b), a) -> a := a\n\
          ne priority 4 :: low(self) != self.key -> a := a\n\
        }";
    for seed in 0..40 {
        let setup = Setup {
            topology: Some("random:9".into()),
            init: InitMode::Random,
            seed,
            ..Setup::default()
        };
        let s = simulate(src, &setup).unwrap_or_else(|e| panic!("{e}"));
        for p in 0..s.n() {
            let (a, b) = (s.value(p, "a").unwrap(), s.value(p, "b").unwrap());
            let low = lowest_pair(&s, p);
            let above = (s.topology().nbrs(p).iter())
                .filter(|&&q| s.value(q as usize, "b").unwrap() > b)
                .count() as i64;
            let expected = if low < (a, b) {
                Some(0)
            } else if (low.0, low.1 + 1) <= (a, b) {
                Some(1)
            } else if low <= (above, a) {
                Some(2)
            } else if low != (a, b) {
                Some(3)
            } else {
                None
            };
            let got = s.enabled_actions(p).expect("no fault").first().copied();
            assert_eq!(got, expected, "seed {seed}, process {p}");
        }
    }
}

#[test]
fn a_tuple_component_is_read_by_its_number() {
    // Components of a tuple written out, of a definition, of a conditional
    // and of the neighbours' smallest pair, each copied into a variable of
    // its own by one synchronous step from random rows.
    let src = "var a: 0..2\nvar b: 0..2\n\
        var lo_a: 0..2\nvar lo_b: 0..2\nvar own_b: 0..2\nvar pick: 0..2\nvar lit: 0..9\n\
        def key(p) = (p.a, p.b)\n\
        process {\n\
          copy :: true -> lo_a, lo_b := min(q in nbrs : q.key)[0], min(q in nbrs : q.key)[1];\n\
            own_b := self.key[1]; pick := (if a > b then key(self) else (b, a))[0];\n\
            lit := (7, true, 9)[2]\n\
        }";
    for seed in 0..20 {
        let setup = Setup {
            topology: Some("random:8".into()),
            init: InitMode::Random,
            daemon: Daemon::Synchronous,
            seed,
            ..Setup::default()
        };
        let mut s = simulate(src, &setup).unwrap_or_else(|e| panic!("{e}"));
        let before: Vec<(i64, i64)> = (0..s.n())
            .map(|p| (s.value(p, "a").unwrap(), s.value(p, "b").unwrap()))
            .collect();
        let lows: Vec<(i64, i64)> = (0..s.n()).map(|p| lowest_pair(&s, p)).collect();
        s.step().unwrap();
        for (p, (&(a, b), &low)) in before.iter().zip(&lows).enumerate() {
            let got = |var: &str| s.value(p, var).unwrap();
            assert_eq!((got("lo_a"), got("lo_b")), low, "seed {seed}, process {p}");
            assert_eq!(got("own_b"), b, "seed {seed}, process {p}");
            assert_eq!(
                got("pick"),
                if a > b { a } else { b },
                "seed {seed}, process {p}"
            );
            assert_eq!(got("lit"), 9);
        }
    }
}

/// The neighbours' largest `(a, b)` pair at process `p`.
fn highest_pair(s: &Simulation, p: usize) -> (i64, i64) {
    let pairs = neighbour_pairs(s, p);
    pairs.max().expect("every process has a neighbour")
}

/// Holds the one guard of `src` (over `a` and `b`), named `guard` in
/// messages, to `expected` (given the simulation, the process and its own
/// pair) at every process of `random:9` from 30 random starts.
fn each_guard_on_random_graphs(
    src: &str,
    guard: &str,
    expected: impl Fn(&Simulation, usize, (i64, i64)) -> bool,
) {
    for seed in 0..30 {
        let setup = Setup {
            topology: Some("random:9".into()),
            init: InitMode::Random,
            seed,
            ..Setup::default()
        };
        let s = simulate(src, &setup).unwrap_or_else(|e| panic!("{guard}: {e}"));
        for p in 0..s.n() {
            let own = (s.value(p, "a").unwrap(), s.value(p, "b").unwrap());
            let got = !s.enabled_actions(p).expect("no fault").is_empty();
            assert_eq!(
                got,
                expected(&s, p, own),
                "{guard}: seed {seed}, process {p}"
            );
        }
    }
}

/// A guard comparing the neighbours' smallest or largest pair with values
/// of the process, and what it says given those pairs and the process's
/// own.
type BestComparison = (&'static str, fn((i64, i64), (i64, i64), (i64, i64)) -> bool);

#[test]
fn a_best_members_keys_compared_agree_however_the_comparison_is_turned() {
    // Compiled as a search that stops at the first member deciding
    // (`exists` or `forall`), where the best member found first used to
    // be compared: each guard alone, held to the pairs computed here, on
    // either side of the comparison, with constants added, negated, of a
    // minimum and of a maximum; `==` is compiled as before.
    let cases: [BestComparison; 9] = [
        ("low(self) < self.key", |low, _, own| low < own),
        ("low(self) + (0, 1) <= self.key", |low, _, own| {
            (low.0, low.1 + 1) <= own
        }),
        ("not (low(self) < self.key)", |low, _, own| low >= own),
        ("self.key > low(self) + (0, 1)", |low, _, own| {
            own > (low.0, low.1 + 1)
        }),
        ("low(self) > (b, a)", |low, _, own| low > (own.1, own.0)),
        ("high(self) >= self.key", |_, high, own| high >= own),
        ("high(self) + (1, 0) < self.key", |_, high, own| {
            (high.0 + 1, high.1) < own
        }),
        ("not (self.key <= high(self) - (0, 2))", |_, high, own| {
            own > (high.0, high.1 - 2)
        }),
        ("low(self) == self.key", |low, _, own| low == own),
    ];
    for (guard, expected) in cases {
        let src = format!(
            "var a: 0..2\nvar b: 0..2\n\
             def key(p) = (p.a, p.b)\n\
             def low(p) = min(q in nbrs(p) : q.key)\n\
             def high(p) = max(q in nbrs(p) : q.key)\n\
             process {{ t :: {guard} -> a := a }}"
        );
        each_guard_on_random_graphs(&src, guard, |s, p, own| {
            expected(lowest_pair(s, p), highest_pair(s, p), own)
        });
    }
}

/// A guard over the process's own `(a, b)` pair and its node variable `r`
/// (whether `r` names it), and what it says of them.
type LedGuard = (&'static str, fn((i64, i64), bool) -> bool);

#[test]
fn a_chain_led_by_an_own_comparison_agrees_and_stops_where_it_decides() {
    // A chain of `and` or `or` whose first operand compares an own
    // variable with a constant or with the process itself is one closure
    // making that comparison in line: either way round, two operands or
    // more, and a division by zero after it that the first operand keeps
    // from being evaluated (a fault would fail the test).
    let cases: [LedGuard; 8] = [
        ("a == 1 and b > 0", |(a, b), _| a == 1 && b > 0),
        ("1 != a or b == 2", |(a, b), _| a != 1 || b == 2),
        ("a < 2 and b != a and a + b > 0", |(a, b), _| {
            a < 2 && b != a && a + b > 0
        }),
        ("r == self or a + b == 3", |(a, b), named| {
            named || a + b == 3
        }),
        ("self != r and (b == 0 or a == 2)", |(a, b), named| {
            !named && (b == 0 || a == 2)
        }),
        ("2 <= a or b >= a or a == b", |(a, b), _| {
            2 <= a || b >= a || a == b
        }),
        ("a != 0 and 6 / a > 4", |(a, _), _| a == 1),
        ("a == 0 or 6 / a > 2", |_, _| true),
    ];
    for (guard, expected) in cases {
        let src =
            format!("var a: 0..2\nvar b: 0..2\nvar r: node\nprocess {{ t :: {guard} -> a := a }}");
        each_guard_on_random_graphs(&src, guard, |s, p, own| {
            let named = s.value(p, "r").unwrap() == p as i64;
            expected(own, named)
        });
    }
}

/// A guard over the neighbours' `(a, b)` pairs and the process's own,
/// and what it says of them.
type NeighbourGuard = (&'static str, fn(&[(i64, i64)], (i64, i64)) -> bool);

#[test]
fn a_members_first_comparison_checked_in_the_loop_agrees_with_the_whole_test() {
    // Each quantifier's test (or set's filter) begins with a comparison of
    // the member's own variable with a value that does not read it, made
    // in the quantifier's loop where a closure for the whole test was
    // called at each member: `exists`, `forall`, `count`, filtered sets,
    // the member on either side, a constant added, fixed operands left
    // out (and one that is false leaving the test as it was); each guard
    // alone, held to the pairs computed here.
    let cases: [NeighbourGuard; 8] = [
        ("exists(q in nbrs : q.a == 1 and q.b > b)", |ns, (_, b)| {
            ns.iter().any(|&(qa, qb)| qa == 1 && qb > b)
        }),
        ("forall(q in nbrs : q.a != a)", |ns, (a, _)| {
            ns.iter().all(|&(qa, _)| qa != a)
        }),
        (
            "count(q in nbrs : a > q.b and q.a == 0) == 1",
            |ns, (a, _)| ns.iter().filter(|&&(qa, qb)| a > qb && qa == 0).count() == 1,
        ),
        (
            "forall(q in {r in nbrs : r.b == 2} : q.a <= a)",
            |ns, (a, _)| ns.iter().filter(|q| q.1 == 2).all(|&(qa, _)| qa <= a),
        ),
        (
            "exists(q in {r in nbrs : r.a + 1 == 2 and r.b != 0} : q.b == b)",
            |ns, (_, b)| ns.iter().any(|&(qa, qb)| qa + 1 == 2 && qb != 0 && qb == b),
        ),
        ("forall(q in nbrs : K == 1 and q.a >= b)", |ns, (_, b)| {
            ns.iter().all(|&(qa, _)| qa >= b)
        }),
        ("exists(q in nbrs : K == 0 and q.a >= b)", |_, _| false),
        (
            "count(q in {r in nbrs : r.b - 1 < a} : true) >= 2",
            |ns, (a, _)| ns.iter().filter(|q| q.1 - 1 < a).count() >= 2,
        ),
    ];
    for (guard, expected) in cases {
        let src =
            format!("param K = 1\nvar a: 0..2\nvar b: 0..2\nprocess {{ t :: {guard} -> a := a }}");
        each_guard_on_random_graphs(&src, guard, |s, p, own| {
            let pairs: Vec<(i64, i64)> = neighbour_pairs(s, p).collect();
            expected(&pairs, own)
        });
    }
}

#[test]
fn a_members_first_comparison_leaves_the_rest_uncalled_where_it_fails() {
    // The rest of a member's test, here a read through a node variable
    // naming a process two hops away (a fault), is called only where the
    // first comparison holds, as the `and` calls it: on a chain of three
    // whose middle process names the far end, process 0 faults only when
    // its neighbour's `a` is 1.
    let src = "var a: 0..1\nvar far: node = self\n\
        process where index == 0 { t :: exists(q in nbrs : q.a == 1 and q.far.a == 0) -> skip }\n\
        process where index != 0 { idle :: a == 2 -> skip }";
    let inst = load_on(src, "chain:3");
    let rel = inst.step_relation();
    let cfg = |middle_a: i64| guarded::state::Config {
        rows: vec![0, 0, middle_a, 2, 0, 2],
        chans: Default::default(),
    };
    assert_eq!(
        rel.first_enabled(&cfg(0), 0).expect("no read through"),
        None
    );
    match rel.first_enabled(&cfg(1), 0) {
        Err(guarded::runtime::step::RunError::Fault { fault, .. }) => {
            assert!(fault.message.contains("neighbour"), "{}", fault.message)
        }
        other => panic!("the read two hops away faults: {other:?}"),
    }
}

#[test]
fn a_best_members_keys_compared_over_no_neighbour_are_a_fault() {
    // A process with no neighbour: however the comparison is turned, the
    // minimum of nothing is a fault, not `false` (an `exists`) or `true`
    // (a `forall`).
    for guard in [
        "min(q in nbrs : (q.a, q.b)) < (a, b)",
        "not (min(q in nbrs : (q.a, q.b)) < (a, b))",
        "max(q in nbrs : (q.a, q.b)) <= (a, b)",
    ] {
        let src = format!("var a: 0..2 = 0\nvar b: 0..2 = 0\nprocess {{ t :: {guard} -> a := 1 }}");
        let setup = Setup {
            topology: Some("chain:1".into()),
            init: InitMode::Declared,
            ..Setup::default()
        };
        let Err(err) = simulate(&src, &setup) else {
            panic!("{guard}: no neighbour, yet the guard was evaluated")
        };
        assert!(format!("{err:?}").contains("no member"), "{guard}: {err:?}");
    }
}

#[test]
fn a_best_members_key_plus_a_constant_that_may_overflow_faults_only_at_the_best() {
    // `big + 1` overflows only at a member whose `big` is the largest
    // value: compared as members come, every member's would be computed,
    // so such a comparison keeps the best member found first. Process 0's
    // neighbours are 1 (big at its largest) and 2 (big 0): the minimum's
    // `big + 1` is 1, no fault; the maximum's overflows.
    let src = "var big: 0..9223372036854775807\nvar x: 0..1 = 0\n\
        process where index == 0 {\n\
          low :: min(q in nbrs : (q.big, q.x)) + (1, 0) < (5, 0) -> x := 1\n\
        }\n\
        process where index != 0 { idle :: false -> skip }";
    let inst = load_on(src, "star:3");
    let rel = inst.step_relation();
    let cfg = guarded::state::Config {
        rows: vec![0, 0, i64::MAX, 0, 0, 0],
        chans: Default::default(),
    };
    assert_eq!(rel.first_enabled(&cfg, 0).expect("no overflow"), Some(0));
    let high = src.replace("min(q in nbrs", "max(q in nbrs");
    let inst = load_on(&high, "star:3");
    let rel = inst.step_relation();
    match rel.first_enabled(&cfg, 0) {
        Err(guarded::runtime::step::RunError::Fault { fault, .. }) => {
            assert_eq!(fault.message, "arithmetic overflow")
        }
        other => panic!("the maximum's big + 1 overflows: {other:?}"),
    }
}

#[test]
fn a_minimum_over_nothing_is_a_fault_where_the_comparison_reads_it() {
    let src = "var a: 0..2 = 0\nvar b: 0..2 = 0\n\
        def low(p) = min(q in {q in nbrs(p) : q.a > 0} : (q.a, q.b))\n\
        process { go :: low(self) < (a, b) -> a := 1 }";
    let setup = Setup {
        topology: Some("ring:4".into()),
        init: InitMode::Declared,
        ..Setup::default()
    };
    let Err(err) = simulate(src, &setup) else {
        panic!("no neighbour qualifies, yet the guards were evaluated")
    };
    assert!(format!("{err:?}").contains("no member"), "{err:?}");
}

/// `src` loaded on `topology`.
fn load_on(src: &str, topology: &str) -> guarded::load::Instance {
    let setup = Setup {
        topology: Some(topology.into()),
        ..Setup::default()
    };
    guarded::load::load(src, &setup, &guarded::load::read_file)
        .unwrap_or_else(|e| panic!("{src}: {e:?}"))
}

/// Holds guard `t` to guard `s` (over the variables `decls` declares):
/// each enables its process exactly where the other does, in every
/// configuration where both processes' rows are one of `rows`.
fn guards_agree(decls: &str, t: &str, s: &str, rows: impl Iterator<Item = Vec<i64>>) {
    let src = format!(
        "{decls}\nprocess where index == 0 {{\n  t :: {t} -> skip\n}}\n\
         process where index == 1 {{\n  s :: {s} -> skip\n}}"
    );
    let inst = load_on(&src, "chain:2");
    let rel = inst.step_relation();
    for row in rows {
        let cfg = guarded::state::Config {
            rows: [row.clone(), row.clone()].concat(),
            chans: Default::default(),
        };
        let (ours, theirs) = (rel.first_enabled(&cfg, 0), rel.first_enabled(&cfg, 1));
        assert_eq!(
            ours.unwrap().is_some(),
            theirs.unwrap().is_some(),
            "{t} against {s} at {row:?}"
        );
    }
}

/// [`guards_agree`] for each pair of `cases`, over the variables `decls`
/// declares one a line (each `0..1` or `bool`) in every combination.
fn binary_guards_agree(decls: &str, cases: &[(&str, &str)]) {
    let vars = decls.lines().count();
    for (t, s) in cases {
        let rows = (0..1_i64 << vars).map(|code| (0..vars).map(|k| code >> k & 1).collect());
        guards_agree(decls, t, s, rows);
    }
}

/// Whether guard `guard` (over `x: 0..1` and a `big` at its largest)
/// faults at each `x`, one process on its own.
fn faults_at(guard: &str) -> [bool; 2] {
    let src =
        format!("var x: 0..1\nvar big: 0..9223372036854775807\nprocess {{ t :: {guard} -> skip }}");
    let inst = load_on(&src, "chain:1");
    let rel = inst.step_relation();
    [0, 1].map(|x| {
        let cfg = guarded::state::Config {
            rows: vec![x, i64::MAX],
            chans: Default::default(),
        };
        match rel.first_enabled(&cfg, 0) {
            Err(guarded::runtime::step::RunError::Fault { fault, .. }) => {
                assert_eq!(fault.message, "arithmetic overflow", "{guard} at x = {x}");
                true
            }
            Ok(_) => false,
            Err(other) => panic!("{guard} at x = {x}: {other:?}"),
        }
    })
}

/// `x op y` for tuples spelled out so that no comparison of tuples is
/// recognized in it: the reference a tuple comparison is held to.
fn spelled_out(op: &str, xs: &[&str], ys: &[&str]) -> String {
    let pairs: Vec<(&str, &str)> = xs.iter().copied().zip(ys.iter().copied()).collect();
    let differ: Vec<String> = pairs.iter().map(|(x, y)| format!("{x} != {y}")).collect();
    let equal = |k: usize| -> Vec<String> {
        pairs[..k]
            .iter()
            .map(|(x, y)| format!("{x} == {y}"))
            .collect()
    };
    let strict = match op {
        "==" => return format!("not ({})", differ.join(" or ")),
        "!=" => return differ.join(" or "),
        "<" | "<=" => "<",
        _ => ">",
    };
    // Most significant last, and the `or`s nested to the left.
    let mut terms: Vec<String> = Vec::new();
    if op.ends_with('=') {
        terms.push(format!("({})", equal(pairs.len()).join(" and ")));
    }
    for k in (0..pairs.len()).rev() {
        let mut conj = equal(k);
        conj.push(format!("{} {strict} {}", pairs[k].0, pairs[k].1));
        terms.push(format!("({})", conj.join(" and ")));
    }
    terms.join(" or ")
}

#[test]
fn tuple_comparisons_agree_with_their_spelled_out_form() {
    // Tuples compiled as one closure (constants added in the first pair or
    // in the last of two) against the same comparison written out.
    let cases: [(&[&str], &[&str]); 3] = [
        (&["a", "b"], &["c", "d + 1"]),
        (&["a", "b", "c"], &["d - 1", "b", "a"]),
        (&["a", "b"], &["d", "c"]),
    ];
    let decls = "var a: 0..2\nvar b: 0..2\nvar c: 0..2\nvar d: 0..2";
    for (xs, ys) in cases {
        for op in ["==", "!=", "<", "<=", ">", ">="] {
            let tuple = format!("({}) {op} ({})", xs.join(", "), ys.join(", "));
            let rows = (0..81).map(|code: i64| (0..4).map(|k| code / 3_i64.pow(k) % 3).collect());
            guards_agree(decls, &tuple, &spelled_out(op, xs, ys), rows);
        }
    }
}

/// A guard over `a`, `b`, `c` and `d` (each `0..2`) and what it says of
/// their values.
type RowGuard = (&'static str, fn([i64; 4]) -> bool);

#[test]
fn comparisons_with_constants_added_agree_with_the_values_computed_here() {
    // Constants added to variables whose domains keep every sum within 64
    // bits are compiled without a test for overflow; each guard alone, at
    // every row, held to the comparison computed here (not to another
    // spelling the compiler also compiles).
    let cases: [RowGuard; 6] = [
        ("(a, b + 1) < (c, d)", |[a, b, c, d]| (a, b + 1) < (c, d)),
        ("(a - 1, b) >= (d, c + 2)", |[a, b, c, d]| {
            (a - 1, b) >= (d, c + 2)
        }),
        ("(a + 2, b, c) == (d + 2, b, a)", |[a, b, c, d]| {
            (a + 2, b, c) == (d + 2, b, a)
        }),
        ("a + 1 <= c", |[a, _, c, _]| a < c),
        ("(c, d) > (a + 1, b - 2)", |[a, b, c, d]| {
            (c, d) > (a + 1, b - 2)
        }),
        ("(a, b - 1) != (c - 1, d)", |[a, b, c, d]| {
            (a, b - 1) != (c - 1, d)
        }),
    ];
    for (guard, expected) in cases {
        let src = format!(
            "var a: 0..2\nvar b: 0..2\nvar c: 0..2\nvar d: 0..2\nprocess {{ t :: {guard} -> skip }}"
        );
        let inst = load_on(&src, "chain:1");
        let rel = inst.step_relation();
        for code in 0..81_i64 {
            let row = [0, 1, 2, 3].map(|k| code / 3_i64.pow(k) % 3);
            let cfg = guarded::state::Config {
                rows: row.to_vec(),
                chans: Default::default(),
            };
            let got = rel.first_enabled(&cfg, 0).expect("no fault").is_some();
            assert_eq!(got, expected(row), "{guard} at {row:?}");
        }
    }
}

#[test]
fn comparisons_of_two_processes_rows_agree_with_the_values_computed_here() {
    // Tuples whose sides each read one process's row (the process, its
    // left neighbour, a neighbour a quantifier names, the one a node
    // variable names), constants added: compiled with each row found
    // once; each guard alone at every process of rings from random
    // starts, held to the comparison computed here.
    let cases: [(&str, NeighbourGuard); 4] = [
        ("a + 1 <= left.b", ("left", |left, (a, _)| a < left[0].1)),
        (
            "(a, b + 1) <= (left.a, left.b)",
            ("left", |left, (a, b)| (a, b + 1) <= left[0]),
        ),
        (
            "exists(q in nbrs : (q.a, q.b) < (a, b - 1))",
            ("nbrs", |ns, (a, b)| ns.iter().any(|&q| q < (a, b - 1))),
        ),
        (
            "(p.a, p.b + 1) == (a, b)",
            ("p", |p, (a, b)| (p[0].0, p[0].1 + 1) == (a, b)),
        ),
    ];
    for (guard, (whose, expected)) in cases {
        let src =
            format!("var a: 0..2\nvar b: 0..2\nvar p: node\nprocess {{ t :: {guard} -> a := a }}");
        for seed in 0..30 {
            let setup = Setup {
                topology: Some("ring:5".into()),
                init: InitMode::Random,
                seed,
                ..Setup::default()
            };
            let s = simulate(&src, &setup).unwrap_or_else(|e| panic!("{guard}: {e}"));
            let pair = |q: usize| (s.value(q, "a").unwrap(), s.value(q, "b").unwrap());
            for q in 0..s.n() {
                let read: Vec<(i64, i64)> = match whose {
                    "left" => vec![pair((q + s.n() - 1) % s.n())],
                    "p" => vec![pair(s.value(q, "p").unwrap() as usize)],
                    _ => neighbour_pairs(&s, q).collect(),
                };
                let got = !s.enabled_actions(q).expect("no fault").is_empty();
                assert_eq!(
                    got,
                    expected(&read, pair(q)),
                    "{guard}: seed {seed}, process {q}"
                );
            }
        }
    }
}

#[test]
fn a_tuple_comparison_reads_past_the_first_pair_only_where_it_is_equal() {
    // The second pair overflows: a fault exactly where the first pair
    // does not decide, as in the comparison written out.
    assert_eq!(faults_at("(x, 0) < (0, big + 1)"), [true, false]);
}

#[test]
fn a_negation_means_the_opposite_whatever_it_negates() {
    // Each `not` against the same condition written without one.
    let cases = [
        ("not (a < b and c == d)", "a >= b or c != d"),
        ("not (a <= b or c > d)", "a > b and c <= d"),
        ("not (a == b => c != d)", "a == b and c == d"),
        ("not (f == (a > b))", "f != (a > b)"),
        ("not not (a != b)", "a != b"),
        ("not f and not (c >= d)", "f == false and c < d"),
        (
            "not (a < b or not (c < d and not f))",
            "a >= b and c < d and f == false",
        ),
    ];
    let decls = "var a: 0..1\nvar b: 0..1\nvar c: 0..1\nvar d: 0..1\nvar f: bool";
    binary_guards_agree(decls, &cases);
}

#[test]
fn a_negation_evaluates_what_it_negates_in_order() {
    // The second operand overflows: a fault exactly where the first does
    // not decide the negated `and`, `or` or `=>`.
    assert_eq!(faults_at("not (x == 0 and big + 1 > 0)"), [true, false]);
    assert_eq!(faults_at("not (x == 1 or big + 1 > 0)"), [true, false]);
    assert_eq!(faults_at("not (x == 1 => big + 1 > 0)"), [false, true]);
}

#[test]
fn a_condition_the_instance_fixes_means_what_it_says() {
    // On chain:2, `n == 2` holds and `n == 3` does not: an `and` or `or`
    // with either means the rest of it, or its fixed value.
    let cases = [
        ("n == 3 or a < b", "a < b"),
        ("a < b and n == 2", "a < b"),
        ("n == 2 => a < b", "a < b"),
        ("not (n == 3) and (a < b or n != 2)", "a < b"),
        ("(n == 2 or a < b) and c == d", "c == d"),
        ("n == 3 and a < b", "a < b and a > b"),
        ("c == d or (n == 2 and n > 1)", "c == d or a == a"),
    ];
    binary_guards_agree("var a: 0..1\nvar b: 0..1\nvar c: 0..1\nvar d: 0..1", &cases);
}

#[test]
fn a_condition_the_instance_fixes_decides_only_where_it_comes_first() {
    // On one process `n == 1` holds. The overflow faults wherever it is
    // evaluated: not after a fixed operand that decides, still after an
    // operand evaluated before one.
    assert_eq!(faults_at("n == 2 and big + 1 > 0"), [false, false]);
    assert_eq!(faults_at("n == 1 or big + 1 > 0"), [false, false]);
    assert_eq!(faults_at("big + 1 > 0 and n == 2"), [true, true]);
    assert_eq!(faults_at("x == 1 or n == 1 or big + 1 > 0"), [false, false]);
    assert_eq!(
        faults_at("x == 0 and n == 1 and big + 1 > 0"),
        [true, false]
    );
    assert_eq!(
        faults_at("(n == 2 and x == 0) or big + 1 > 0"),
        [true, true]
    );
}

/// Holds guard `t` to guard `s` over `var a: 0..2` and `var b: 0..2` on
/// star:4: each enables exactly the processes the other does, in every
/// configuration.
fn agree_on_star(t: &str, s: &str) {
    let program =
        |guard: &str| format!("var a: 0..2\nvar b: 0..2\nprocess {{ t :: {guard} -> skip }}");
    let ours = load_on(&program(t), "star:4");
    let theirs = load_on(&program(s), "star:4");
    let (ours, theirs) = (ours.step_relation(), theirs.step_relation());
    for code in 0..9_i64.pow(4) {
        let rows = (0..4).flat_map(|p| {
            let v = code / 9_i64.pow(p) % 9;
            [v / 3, v % 3]
        });
        let cfg = guarded::state::Config {
            rows: rows.collect(),
            chans: Default::default(),
        };
        for p in 0..4 {
            assert_eq!(
                ours.first_enabled(&cfg, p).unwrap(),
                theirs.first_enabled(&cfg, p).unwrap(),
                "{t} against {s} at {cfg:?}, process {p}"
            );
        }
    }
}

#[test]
fn a_comparison_with_a_minimum_of_pairs_means_the_same_negated_or_not() {
    // `min(...) < (a, b)` is spelled with a `let` of the neighbour of
    // least key, a boolean made a number, compared with 0.
    let by_min = "min(q in nbrs : (q.a, q.b)) < (a, b)";
    let by_exists = "exists(q in nbrs : q.a < a or (q.a == a and q.b < b))";
    agree_on_star(by_min, by_exists);
    agree_on_star(&format!("not ({by_min})"), &format!("not {by_exists}"));
}

#[test]
fn a_quantifier_over_a_filtered_set_means_what_counting_does() {
    // Spelled `forall(q in C : f => b)` and `exists(q in C : f and b)`.
    let cases = [
        (
            "forall(q in {r in nbrs : r.a == 1} : q.b < b)",
            "count(q in nbrs : q.a == 1 and q.b >= b) == 0",
        ),
        (
            "exists(q in {r in nbrs : r.a != b} : q.b < a)",
            "count(q in nbrs : q.a != b and q.b < a) > 0",
        ),
        (
            "forall(q in nbrs : q.a == a => (q.b == b or q.b == 0))",
            "count(q in nbrs : q.a == a and q.b != b and q.b != 0) == 0",
        ),
        (
            "exists(q in nbrs : (q.a < a or q.b < b) and q.a == q.b)",
            "count(q in nbrs : (q.a < a or q.b < b) and q.a == q.b) >= 1",
        ),
    ];
    for (quantifier, counted) in cases {
        agree_on_star(quantifier, counted);
    }
}

#[test]
fn a_quantifier_over_a_filtered_set_evaluates_the_filter_first() {
    assert_eq!(
        faults_at("forall(i in 0..0 : x == 1 => big + 1 > 0)"),
        [false, true]
    );
    assert_eq!(
        faults_at("exists(i in 0..0 : x == 1 and big + 1 > 0)"),
        [false, true]
    );
    assert_eq!(
        faults_at("exists(i in 0..0 : big + 1 > 0 and x == 1)"),
        [true, true]
    );
    assert_eq!(
        faults_at("forall(i in 0..0 : big + 1 > 0 => x == 1)"),
        [true, true]
    );
}

/// What `exists(q in nbrs : ...)` gives at process `p` of star:4 (centre
/// 0) where each `q` is asked `reads(q)` (whether it goes on to read
/// `q.parent.x`) and then `holds(q, q.parent.x)`: `None` where a read
/// reaches a process two hops away (a fault), before any `q` decides.
fn through_parent(
    p: usize,
    parent: &[i64],
    reads: impl Fn(usize) -> bool,
    holds: impl Fn(usize, i64) -> bool,
    x: &[i64],
) -> Option<bool> {
    let nbrs: Vec<usize> = if p == 0 { vec![1, 2, 3] } else { vec![0] };
    for q in nbrs {
        if !reads(q) {
            continue;
        }
        let r = parent[q] as usize;
        if r != p && !(p == 0 || r == 0) {
            return None;
        }
        if holds(q, x[r]) {
            return Some(true);
        }
    }
    Some(false)
}

#[test]
fn a_read_through_a_neighbours_node_variable_is_checked_wherever_it_is_compiled() {
    // The read as an operand of a comparison, of a tuple's second pair
    // (read only where the first is equal), and inside a sum; each holds
    // exactly where reading `q.parent.x` directly would, and faults at
    // the read exactly where `q.parent` is two hops from the reader.
    type Case = (
        &'static str,
        fn(&[i64], usize) -> bool,
        fn(&[i64], usize, i64) -> bool,
    );
    let cases: [Case; 3] = [
        ("q.parent.x == 1", |_, _| true, |_, _, v| v == 1),
        (
            "(q.x, q.parent.x) == (0, 1)",
            |x, q| x[q] == 0,
            |_, _, v| v == 1,
        ),
        (
            "q.parent.x + q.x == 2",
            |_, _| true,
            |x, q, v| v + x[q] == 2,
        ),
    ];
    for (condition, reads, holds) in cases {
        let src = format!(
            "var parent: node\nvar x: 0..1\nprocess {{ t :: exists(q in nbrs : {condition}) -> skip }}"
        );
        let inst = load_on(&src, "star:4");
        let rel = inst.step_relation();
        let (mut faults, mut enabled) = (0, 0);
        // Parents: the centre any process, a leaf itself or the centre.
        for code in 0..4 * 8 * 16_i64 {
            let leaf = |l: i64| if code >> (l + 1) & 1 == 0 { l } else { 0 };
            let parent = [code % 4, leaf(1), leaf(2), leaf(3)];
            let x: Vec<i64> = (0..4).map(|k| code >> (5 + k) & 1).collect();
            let rows = (0..4).flat_map(|p| [parent[p], x[p]]).collect();
            let cfg = guarded::state::Config {
                rows,
                chans: Default::default(),
            };
            for p in 0..4 {
                let want = through_parent(p, &parent, |q| reads(&x, q), |q, v| holds(&x, q, v), &x);
                let got = match rel.first_enabled(&cfg, p) {
                    Ok(a) => Some(a.is_some()),
                    Err(guarded::runtime::step::RunError::Fault { fault, .. }) => {
                        let two_hops = format!("process {p} reads process {}", parent[0]);
                        assert!(fault.message.starts_with(&two_hops), "{}", fault.message);
                        assert_eq!(&src[fault.span.start..fault.span.end], "q.parent");
                        None
                    }
                    Err(other) => panic!("{condition}: {other:?}"),
                };
                assert_eq!(got, want, "{condition}: process {p}, {parent:?} {x:?}");
                faults += usize::from(got.is_none());
                enabled += usize::from(got == Some(true));
            }
        }
        assert!(faults > 0 && enabled > 0, "{condition}: {faults} {enabled}");
    }
}

/// A read through a process an equality has just named as the reader
/// (`q.up.x` after `q.up == self`, in what follows it in an `and`, an
/// implication or an `if`) reads the reader's own row and cannot fault;
/// elsewhere (after an `or`, in an `else`) it reads the process named and
/// is checked: the compiler's rewrite of the first kind changes no value
/// and no fault. Each guard is held, on many random configurations of
/// `ring:4` (where a neighbour's `up` may name the process opposite, no
/// neighbour), to a hand evaluation in the language's order.
#[test]
fn reads_through_a_process_an_equality_named_as_the_reader_read_the_reader() {
    type Eval = fn(&Ring, usize) -> Result<bool, ()>;
    struct Ring {
        x: Vec<i64>,
        up: Vec<usize>,
    }
    impl Ring {
        /// The neighbours of `p`, in index order.
        fn nbrs(&self, p: usize) -> [usize; 2] {
            let (a, b) = ((p + 3) % 4, (p + 1) % 4);
            [a.min(b), a.max(b)]
        }
        /// `t.x` read from `p`: only the process itself or a neighbour.
        fn through(&self, p: usize, t: usize) -> Result<i64, ()> {
            (t == p || self.nbrs(p).contains(&t))
                .then(|| self.x[t])
                .ok_or(())
        }
    }
    let guards: [(&str, Eval); 6] = [
        (
            "exists(q in nbrs : q.up == self and q.up.x == 1)",
            |r, p| Ok(r.nbrs(p).iter().any(|&q| r.up[q] == p && r.x[p] == 1)),
        ),
        ("exists(q in nbrs : q.up == self or q.up.x == 1)", |r, p| {
            for q in r.nbrs(p) {
                if r.up[q] == p || r.through(p, r.up[q])? == 1 {
                    return Ok(true);
                }
            }
            Ok(false)
        }),
        (
            "forall(q in nbrs : q.up == self => q.up.x == q.x)",
            |r, p| Ok(r.nbrs(p).iter().all(|&q| r.up[q] != p || r.x[p] == r.x[q])),
        ),
        (
            "exists(q in nbrs : (if q.up == self then q.up.x else q.up.x + 1) == 2)",
            |r, p| {
                for q in r.nbrs(p) {
                    let v = match r.up[q] == p {
                        true => r.x[p],
                        false => r.through(p, r.up[q])? + 1,
                    };
                    if v == 2 {
                        return Ok(true);
                    }
                }
                Ok(false)
            },
        ),
        ("up == self and up.x == 2", |r, p| {
            Ok(r.up[p] == p && r.x[p] == 2)
        }),
        ("up != self and up.x == 2", |r, p| {
            Ok(r.up[p] != p && r.x[r.up[p]] == 2)
        }),
    ];
    let (mut faults, mut enabled) = (0, 0);
    for (guard, eval) in guards {
        let src = format!("var x: 0..3\nvar up: node\nprocess {{ a :: {guard} -> skip }}");
        for seed in 0..80 {
            let setup = Setup {
                topology: Some("ring:4".into()),
                init: InitMode::Random,
                seed,
                ..Setup::default()
            };
            // The configuration drawn, from a program that reads nothing.
            let plain = "var x: 0..3\nvar up: node\nprocess { a :: false -> skip }";
            let rows = simulate(plain, &setup).unwrap().rows().to_vec();
            let ring = Ring {
                x: rows.iter().step_by(2).copied().collect(),
                up: rows
                    .iter()
                    .skip(1)
                    .step_by(2)
                    .map(|&u| u as usize)
                    .collect(),
            };
            let expected: Result<Vec<bool>, ()> = (0..4).map(|p| eval(&ring, p)).collect();
            match (simulate(&src, &setup), expected) {
                (Err(e), Err(())) => {
                    assert!(e.contains("which is not a neighbour"), "{guard}: {e}");
                    faults += 1;
                }
                (Ok(s), Ok(expected)) => {
                    assert_eq!(s.rows(), &rows[..], "{guard}: the same start");
                    let found: Vec<bool> = (0..4)
                        .map(|p| !s.enabled_actions(p).unwrap().is_empty())
                        .collect();
                    assert_eq!(found, expected, "{guard}, seed {seed}: {rows:?}");
                    enabled += expected.iter().filter(|&&e| e).count();
                }
                (got, expected) => {
                    panic!(
                        "{guard}, seed {seed}: {rows:?} gave {:?}, expected {expected:?}",
                        got.err()
                    )
                }
            }
        }
    }
    // Both outcomes met, and guards both true and false.
    assert!(
        faults > 10 && enabled > 100,
        "{faults} faults, {enabled} enabled"
    );
}

/// Quantifiers whose body compares a member's variables, as a tuple, with
/// one process's (the compiler finds that process's row once and compares
/// each member in its loop): every operator, the member on either side,
/// constants on either side, and the row of the process itself, of its
/// left neighbour, of the one a node variable names and of another
/// quantifier's member, held to a hand evaluation on random
/// configurations of `ring:4`.
#[test]
fn a_quantifier_comparing_each_member_with_one_row_as_tuples_means_what_it_says() {
    type Eval = fn(&[[i64; 3]], usize) -> bool;
    fn nbrs(p: usize) -> [usize; 2] {
        let (a, b) = ((p + 3) % 4, (p + 1) % 4);
        [a.min(b), a.max(b)]
    }
    let guards: [(&str, Eval); 7] = [
        ("forall(q in nbrs : (q.a, q.b) <= (a, b + 1))", |r, p| {
            nbrs(p)
                .iter()
                .all(|&q| (r[q][0], r[q][1]) <= (r[p][0], r[p][1] + 1))
        }),
        ("exists(q in nbrs : (a, b) < (q.a + 1, q.b))", |r, p| {
            nbrs(p)
                .iter()
                .any(|&q| (r[p][0], r[p][1]) < (r[q][0] + 1, r[q][1]))
        }),
        (
            "forall(q in nbrs : (q.a, q.b) != (left.a, left.b))",
            |r, p| {
                let l = (p + 3) % 4;
                nbrs(p)
                    .iter()
                    .all(|&q| (r[q][0], r[q][1]) != (r[l][0], r[l][1]))
            },
        ),
        ("exists(q in nbrs : (q.a, q.b) == (up.a, up.b))", |r, p| {
            let u = r[p][2] as usize;
            nbrs(p)
                .iter()
                .any(|&q| (r[q][0], r[q][1]) == (r[u][0], r[u][1]))
        }),
        ("exists(q in nbrs : (q.a, q.b - 1) >= (a, b))", |r, p| {
            nbrs(p)
                .iter()
                .any(|&q| (r[q][0], r[q][1] - 1) >= (r[p][0], r[p][1]))
        }),
        (
            "forall(q in nbrs : (q.a, q.b) > (up.a, up.b - 1))",
            |r, p| {
                let u = r[p][2] as usize;
                nbrs(p)
                    .iter()
                    .all(|&q| (r[q][0], r[q][1]) > (r[u][0], r[u][1] - 1))
            },
        ),
        (
            "exists(s in nbrs : forall(q in nbrs : (q.a, q.b) <= (s.a, s.b)))",
            |r, p| {
                nbrs(p).iter().any(|&s| {
                    nbrs(p)
                        .iter()
                        .all(|&q| (r[q][0], r[q][1]) <= (r[s][0], r[s][1]))
                })
            },
        ),
    ];
    let vars = "var a: 0..3\nvar b: 0..3\nvar up: node";
    let (mut held, mut cases) = (0, 0);
    for (guard, eval) in guards {
        let src = format!("{vars}\nprocess {{ g :: {guard} -> skip }}");
        for seed in 0..60 {
            let s = simulate(
                &src,
                &Setup {
                    topology: Some("ring:4".into()),
                    init: InitMode::Random,
                    seed,
                    ..Setup::default()
                },
            )
            .unwrap_or_else(|e| panic!("{guard}: {e}"));
            let rows: Vec<[i64; 3]> = s.rows().chunks(3).map(|r| [r[0], r[1], r[2]]).collect();
            for p in 0..4 {
                let expected = eval(&rows, p);
                let found = !s.enabled_actions(p).unwrap().is_empty();
                assert_eq!(found, expected, "{guard} at {p}, seed {seed}: {rows:?}");
                held += usize::from(expected);
                cases += 1;
            }
        }
    }
    // Each way, often.
    assert!(
        held > cases / 5 && held < cases * 4 / 5,
        "{held} of {cases}"
    );
}
