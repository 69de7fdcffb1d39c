//! The symbolic engine held to the explicit one: on the bundled programs
//! it takes and on protocols of the literature at several sizes, under
//! every daemon, both give the same verdicts, the same counts of
//! configurations and legitimate ones, the same worst steps (and worst
//! moves and transitions under the central daemon); every run the
//! symbolic engine reports replays through the step relation and shows
//! what it says. And `--engine` on the command line: what it picks, what
//! it refuses.

mod common;
use common::{guarded, instance};
use guarded::load::Instance;
use guarded::runtime::daemon::Daemon;
use guarded::verify::{Choices, Convergence, Explorer, Run, Symbolic, Verdict};

const DIJKSTRA: &str = include_str!("../programs/dijkstra_kstate.gc");
const JOHNEN: &str = include_str!("../programs/johnen_leader.gc");
const HERMAN: &str = include_str!("../programs/herman.gc");
const FOUR_STATE: &str = include_str!("golden/programs/four_state.gc");
const COUNTER: &str = include_str!("golden/programs/counter_invariant.gc");

const DAEMONS: [Daemon; 4] = [
    Daemon::Central,
    Daemon::LocallyCentral,
    Daemon::Distributed,
    Daemon::Synchronous,
];

/// Three-colouring a ring, and a maximal independent set.
const COLOURING: &str = include_str!("../benches/programs/colouring.gc");
const MIS: &str = include_str!("../benches/programs/mis.gc");

/// Two actions of one priority, both enabled: a process may choose the
/// one that changes nothing forever (a cycle the first-action refinement
/// does not have).
const CHOOSER: &str = "var x: 0..1
process {
    b :: x == 0 -> x := 1
    c :: x == 0 -> x := 0
}
legitimate: forall(p in procs : p.x == 1)
";

/// A deadlock: processes at 0 are stuck, and legitimacy wants a 2.
const STUCK: &str = "var x: 0..2
process { a :: x == 1 -> x := 2 }
legitimate: forall(p in procs : p.x != 1) and exists(p in procs : p.x == 2)
";

/// A closure violation with an invariant: a counter that keeps counting
/// past legitimacy.
const PAST: &str = "var x: 0..3
process { up :: x < 3 and x <= left.x -> x := x + 1 }
invariant low: forall(p in procs : p.x <= 2 or p.left.x == 3)
legitimate: count(p in procs : p.x == 2) >= 1
";

/// An instance: a name, the program, the topology and parameters.
type Case = (&'static str, &'static str, String, Vec<(&'static str, i64)>);

/// Every instance both engines are compared on.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for n in 3..=6 {
        for k in [n - 1, n] {
            out.push(("dijkstra", DIJKSTRA, format!("ring:{n}"), vec![("K", k)]));
        }
    }
    // Too few states: cycles under some daemons.
    out.push(("dijkstra", DIJKSTRA, "ring:5".into(), vec![("K", 2)]));
    for n in [3, 4] {
        out.push(("johnen", JOHNEN, format!("uring:{n}"), vec![]));
    }
    // Draws, each value explored; an invariant on the count's parity.
    for n in [3, 5, 7] {
        out.push(("herman", HERMAN, format!("uring:{n}"), vec![]));
    }
    for n in [3, 4, 5] {
        out.push(("four_state", FOUR_STATE, format!("chain:{n}"), vec![]));
        out.push(("colouring", COLOURING, format!("ring:{n}"), vec![]));
        out.push(("mis", MIS, format!("ring:{n}"), vec![]));
        out.push(("mis", MIS, format!("chain:{n}"), vec![]));
        out.push(("chooser", CHOOSER, format!("ring:{n}"), vec![]));
        out.push(("stuck", STUCK, format!("chain:{n}"), vec![]));
        out.push(("past", PAST, format!("ring:{n}"), vec![]));
    }
    out.push(("mis", MIS, "star:5".into(), vec![]));
    out.push(("mis", MIS, "grid:2x3".into(), vec![]));
    out.push(("counter", COUNTER, "chain:4".into(), vec![]));
    out
}

/// A verdict in the terms both engines give: which properties hold, the
/// counts, and the worst steps or the kind of counterexample.
fn summary(v: &Verdict, central: bool) -> String {
    let convergence = match &v.convergence {
        Convergence::Holds { steps, moves, .. } => {
            let moves = moves.as_ref().filter(|_| central).map(Run::moves);
            format!("holds in {} steps, {moves:?} moves", steps.steps.len())
        }
        Convergence::Deadlock(_) => "deadlock".into(),
        Convergence::Cycle { .. } => "cycle".into(),
        other => format!("{other:?}"),
    };
    let transitions = v.transitions.filter(|_| central);
    format!(
        "{} configurations, {} legitimate, {transitions:?} transitions; invariant {:?}, closure {}, fault {}; {convergence}",
        v.configurations,
        v.legitimate,
        v.invariant.as_ref().map(|(name, _)| name),
        v.closure.is_none(),
        v.fault.is_some(),
    )
}

/// Checks that `run` is a run of `inst` under `daemon`: each step one the
/// step relation takes; and returns where it ends.
fn replay(inst: &Instance, run: &Run) -> guarded::state::Config {
    let mut rel = inst.step_relation();
    let mut at = run.start.clone();
    for step in &run.steps {
        at = rel
            .successor_of(&at, step)
            .unwrap_or_else(|e| panic!("a reported step faults: {e:?}"));
    }
    at
}

/// What every run the symbolic engine reports must show.
fn check_runs(inst: &Instance, v: &Verdict, what: &str) {
    let rel = inst.step_relation();
    let legit = |c: &guarded::state::Config| rel.legitimate(c).unwrap() == Some(true);
    if let Some(run) = &v.closure {
        assert!(legit(&run.start), "{what}: closure starts legitimate");
        assert!(!legit(&replay(inst, run)), "{what}: closure leaves");
    }
    match &v.convergence {
        Convergence::Holds { steps, .. } => {
            assert!(
                legit(&replay(inst, steps)),
                "{what}: the worst run ends legitimate"
            );
            let mut rel = inst.step_relation();
            let mut at = steps.start.clone();
            for step in &steps.steps {
                assert!(
                    !legit(&at),
                    "{what}: the worst run is legitimate before its end"
                );
                at = rel.successor_of(&at, step).unwrap();
            }
        }
        Convergence::Cycle { run, cycle_from } => {
            let mut rel = inst.step_relation();
            let mut at = run.start.clone();
            let mut seen = Vec::new();
            for step in &run.steps {
                assert!(!legit(&at), "{what}: the cycle stays outside legitimacy");
                seen.push(at.clone());
                at = rel.successor_of(&at, step).unwrap();
            }
            assert_eq!(at.rows, seen[*cycle_from].rows, "{what}: the cycle closes");
        }
        Convergence::Deadlock(run) => {
            assert!(
                rel.enabled(&replay(inst, run)).unwrap().is_empty(),
                "{what}"
            );
        }
        _ => {}
    }
}

#[test]
fn both_engines_agree_under_every_daemon() {
    let (mut compared, mut compared_moves) = (0, 0);
    for (name, src, topology, params) in cases() {
        let inst = instance(src, &topology, &params);
        let mut explicit = Explorer::new(&inst).unwrap();
        explicit.count_rounds(false);
        let symbolic = Symbolic::new(&inst, Choices::Every, 1 << 30, None)
            .unwrap_or_else(|_| panic!("{name} on {topology}: the symbolic engine takes it"));
        assert_eq!(
            symbolic.configurations(),
            u128::from(explicit.configurations()),
            "{name} on {topology}"
        );
        for daemon in &DAEMONS {
            let what = format!("{name} on {topology} {params:?}, {}", daemon.name());
            let central = *daemon == Daemon::Central;
            let (a, b) = (
                explicit.verify(daemon).unwrap(),
                symbolic.verify(daemon).unwrap(),
            );
            assert_eq!(summary(&a, central), summary(&b, central), "{what}");
            if let (
                Convergence::Holds { moves: Some(x), .. },
                Convergence::Holds { moves: Some(y), .. },
            ) = (&a.convergence, &b.convergence)
            {
                assert_eq!(x.moves(), y.moves(), "{what}: worst moves");
                let end = replay(&inst, y);
                let legit = inst.step_relation().legitimate(&end).unwrap();
                assert_eq!(
                    legit,
                    Some(true),
                    "{what}: the run of most moves ends legitimate"
                );
                compared_moves += 1;
            }
            check_runs(&inst, &b, &what);
            compared += 1;
        }
    }
    assert!(compared >= 152, "{compared}");
    // Central and synchronous, where no move faults.
    assert!(compared_moves >= 30, "{compared_moves}");
}

#[test]
fn the_first_action_refinement_is_the_same_on_both() {
    for n in [3, 4] {
        let inst = instance(CHOOSER, &format!("ring:{n}"), &[]);
        let mut explicit = Explorer::new(&inst).unwrap();
        explicit.choose(Choices::First).unwrap();
        explicit.count_rounds(false);
        let symbolic = Symbolic::new(&inst, Choices::First, 1 << 30, None).unwrap();
        for daemon in &DAEMONS {
            let (a, b) = (
                explicit.verify(daemon).unwrap(),
                symbolic.verify(daemon).unwrap(),
            );
            let central = *daemon == Daemon::Central;
            assert_eq!(summary(&a, central), summary(&b, central));
            assert!(b.holds(), "first actions converge");
        }
    }
}

#[test]
fn a_small_node_limit_is_a_refusal_not_a_crash() {
    let inst = instance(DIJKSTRA, "ring:7", &[]);
    let made = Symbolic::new(&inst, Choices::Every, 1 << 16, None)
        .and_then(|s| s.verify(&Daemon::Central));
    assert!(matches!(made, Err(guarded::verify::Refusal::OutOfNodes)));
}

#[test]
fn auto_takes_the_symbolic_engine_past_ten_million_and_says_so() {
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc");
    // 8^8 = 16,777,216 configurations.
    let (code, out, err) = guarded(&[
        "verify",
        program,
        "-t",
        "ring:8",
        "-d",
        "central,synchronous",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("daemon central (symbolic engine): 400 legitimate"),
        "{out}"
    );
    assert!(out.contains("worst case   75 steps, 75 moves"), "{out}");
    assert!(
        out.contains("daemon synchronous (symbolic engine)"),
        "{out}"
    );
    assert!(
        out.contains("worst case   13 steps, 83 moves (rounds not counted"),
        "{out}"
    );
    // Below it, the explicit engine, with rounds.
    let (code, out, _) = guarded(&["verify", program, "-t", "ring:4", "-d", "central"]);
    assert_eq!(code, 0);
    assert!(out.contains("daemon central: "), "{out}");
    assert!(out.contains("rounds"), "{out}");
}

#[test]
fn asked_for_where_it_cannot_go_the_symbolic_engine_says_why() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/");
    for (program, extra, why) in [
        (
            "matching.gc",
            &[][..],
            "legitimacy predicate is not a combination",
        ),
        // 9^3 values of a process's neighbourhood on the ring of 9 with K = 9,
        // 401^3 with K = 401.
        (
            "dijkstra_kstate.gc",
            &["-t", "ring:9", "-p", "K=401"][..],
            "values of its neighbourhood",
        ),
        (
            "arbitration.gc",
            &["--from", "all"][..],
            "declares no `legitimate:`",
        ),
        (
            "dijkstra_kstate.gc",
            &["--from", "declared"][..],
            "`--from all`",
        ),
        ("dijkstra_kstate.gc", &["--symmetry"][..], "--symmetry"),
        (
            "dijkstra_kstate.gc",
            &["--fairness", "weak"][..],
            "weak fairness",
        ),
    ] {
        let path = format!("{dir}{program}");
        let mut args = vec!["verify", path.as_str(), "--engine", "symbolic"];
        args.extend_from_slice(extra);
        let (code, out, err) = guarded(&args);
        assert_ne!(code, 0, "{program} {extra:?}: {out}");
        assert!(err.contains(why), "{program} {extra:?}: {err}");
        assert!(
            err.contains("--engine explicit"),
            "{program} {extra:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}
