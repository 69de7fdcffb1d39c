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
use guarded::verify::{Choices, Convergence, Explorer, Fairness, Run, Starts, Symbolic, Verdict};

const DIJKSTRA: &str = include_str!("../programs/dijkstra_kstate.gc");
const JOHNEN: &str = include_str!("../programs/johnen_leader.gc");
const HERMAN: &str = include_str!("../programs/herman.gc");
const FREE_COLOUR: &str = include_str!("golden/programs/free_colour.gc");
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

/// A process that spins for as long as its left neighbour does not fix
/// itself: a cycle only while a process enabled throughout never moves,
/// so every weakly fair run converges.
const SPINNER: &str = "var x: 0..1
var y: 0..1
process {
    fix  :: x == 0 -> x := 1
    spin :: x == 1 and left.x == 0 -> y := 1 - y
}
legitimate: forall(p in procs : p.x == 1)
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
    // Draws of a member of a set (a colour no neighbour has).
    for topology in ["ring:3", "ring:4", "chain:4", "star:4", "grid:2x3"] {
        out.push(("free_colour", FREE_COLOUR, topology.into(), vec![]));
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
        Convergence::HoldsUnderFairness { .. } => "holds under weak fairness".into(),
        Convergence::NotDeclared { deadlock } => format!("deadlock {}", deadlock.is_some()),
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
        // From a start, the run to the legitimate configuration first.
        let (last, before) = run.steps.split_last().expect("a step leaves");
        let mut rel = inst.step_relation();
        let at = replay(
            inst,
            &Run {
                steps: before.to_vec(),
                ..run.clone()
            },
        );
        assert!(
            legit(&at),
            "{what}: closure leaves a legitimate configuration"
        );
        let after = rel.successor_of(&at, last).unwrap();
        assert!(!legit(&after), "{what}: closure leaves");
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
            for (i, step) in run.steps.iter().enumerate() {
                let on_cycle = i >= *cycle_from;
                assert!(
                    !on_cycle || !legit(&at),
                    "{what}: the cycle stays outside legitimacy"
                );
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

/// Each process's moves are run into a table before they become diagrams:
/// a table that does not shrink (each process's next value mixes both
/// neighbours', 200^3 values) is held to the memory budget too.
#[test]
fn a_table_past_the_memory_budget_is_a_refusal_not_a_crash() {
    const MIXING: &str = "param K = 200
topology ring:3
var x: 0..K-1
process {
    a :: x != (left.x * 7 + right.x * 3) mod K -> x := (left.x * 7 + right.x * 3) mod K
}
legitimate: forall(p in procs : p.x == 0)
";
    let inst = instance(MIXING, "ring:3", &[]);
    let made = Symbolic::new(&inst, Choices::Every, 8 << 20, None);
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
        // 1000^3 with K = 1000: more than 2^28.
        (
            "dijkstra_kstate.gc",
            &["-t", "ring:9", "-p", "K=1000"][..],
            "values of its neighbourhood",
        ),
        (
            "arbitration.gc",
            &["--from", "all"][..],
            "declares no `legitimate:`",
        ),
        ("dijkstra_kstate.gc", &["--symmetry"][..], "--symmetry"),
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

/// Where both engines start: the declared values, and every arbitrary
/// start.
fn starts_of(inst: &mut Instance) -> [(&'static str, Starts); 2] {
    let space = inst.arbitrary_space();
    // Where a variable has no declared value, one start in the middle.
    let declared = inst
        .initial(&guarded::runtime::init::InitMode::Declared, &[])
        .unwrap_or_else(|_| space.config(space.count() / 2));
    [
        ("declared", Starts::One(declared)),
        ("random", Starts::Every(inst.arbitrary_space())),
    ]
}

/// How many steps a counterexample takes, from the start: both engines
/// give a shortest one from starts.
fn lengths(v: &Verdict) -> [Option<usize>; 3] {
    [
        v.invariant.as_ref().map(|(_, r)| r.steps.len()),
        v.closure.as_ref().map(|r| r.steps.len()),
        v.fault.as_ref().map(|(_, r)| r.steps.len()),
    ]
}

#[test]
fn from_starts_both_engines_agree_under_every_daemon() {
    let mut compared = 0;
    let extra: Vec<Case> = vec![
        ("spinner", SPINNER, "ring:4".into(), vec![]),
        ("stuck", STUCK, "chain:4".into(), vec![]),
    ];
    for (name, src, topology, params) in cases().into_iter().chain(extra) {
        let mut inst = instance(src, &topology, &params);
        let starts = starts_of(&mut inst);
        let symbolic = Symbolic::new(&inst, Choices::Every, 1 << 30, None).unwrap();
        for (from, starts) in starts {
            // Its 8.5 million arbitrary starts take the explicit engine
            // seconds a daemon.
            if (name, topology.as_str(), from) == ("johnen", "uring:4", "random") {
                continue;
            }
            for daemon in &DAEMONS {
                let what = format!(
                    "{name} on {topology} {params:?} from {from}, {}",
                    daemon.name()
                );
                let mut explicit =
                    Explorer::reachable(&inst, clone_starts(&starts), daemon, None).unwrap();
                explicit.count_rounds(false);
                let a = explicit.verify(daemon).unwrap();
                let b = symbolic
                    .verify_from(daemon, Some(&starts), Fairness::Unfair)
                    .unwrap();
                let (mut sa, sb) = (summary(&a, false), summary(&b, false));
                // The symbolic engine counts no transitions from starts.
                sa = sa.replacen(
                    &format!("{:?} transitions", None::<u64>),
                    "None transitions",
                    1,
                );
                assert_eq!(sa, sb, "{what}");
                assert_eq!(lengths(&a), lengths(&b), "{what}: shortest counterexamples");
                check_runs(&inst, &b, &what);
                for run in [b.closure.as_ref(), b.invariant.as_ref().map(|(_, r)| r)]
                    .into_iter()
                    .flatten()
                {
                    assert!(
                        is_a_start(&starts, &run.start),
                        "{what}: runs begin at a start"
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared >= 300, "{compared}");
}

/// `starts` again (it is not `Clone`: a space is large).
fn clone_starts(starts: &Starts) -> Starts {
    match starts {
        Starts::One(cfg) => Starts::One(cfg.clone()),
        Starts::Every(space) => Starts::Every(space.clone()),
        Starts::Filled(space, fills) => Starts::Filled(space.clone(), fills.clone()),
    }
}

fn is_a_start(starts: &Starts, cfg: &guarded::state::Config) -> bool {
    match starts {
        Starts::One(start) => start.rows == cfg.rows,
        Starts::Every(space) => space.index(cfg).is_some(),
        Starts::Filled(..) => starts.iter().any(|start| start == *cfg),
    }
}

#[test]
fn under_weak_fairness_both_engines_agree_and_fair_cycles_are_fair() {
    let mut kinds = std::collections::BTreeMap::new();
    let extra: Vec<Case> = (3..=5)
        .map(|n| ("spinner", SPINNER, format!("ring:{n}"), vec![]))
        .collect();
    for (name, src, topology, params) in cases().into_iter().chain(extra) {
        let inst = instance(src, &topology, &params);
        let mut explicit = Explorer::new(&inst).unwrap();
        explicit.count_rounds(false);
        let symbolic = Symbolic::new(&inst, Choices::Every, 1 << 30, None).unwrap();
        for daemon in &DAEMONS {
            let what = format!("{name} on {topology} {params:?}, {}", daemon.name());
            let a = explicit.verify_fairly(daemon, Fairness::Weak).unwrap();
            let b = symbolic.verify_from(daemon, None, Fairness::Weak).unwrap();
            let central = *daemon == Daemon::Central;
            assert_eq!(summary(&a, central), summary(&b, central), "{what}");
            assert_eq!(b.fairness, Fairness::Weak);
            check_runs(&inst, &b, &what);
            if let Convergence::Cycle { run, cycle_from } = &b.convergence {
                assert_weakly_fair(&inst, run, *cycle_from, &what);
            }
            let outcome = summary(&b, false);
            let outcome = outcome
                .rsplit("; ")
                .next()
                .unwrap()
                .split(" in ")
                .next()
                .unwrap();
            *kinds.entry(outcome.to_string()).or_insert(0) += 1;
        }
    }
    // Each outcome met: convergence, a fair cycle, only unfair ones, a deadlock.
    for kind in ["holds", "cycle", "holds under weak fairness", "deadlock"] {
        assert!(kinds.get(kind).is_some_and(|&k| k > 5), "{kind}: {kinds:?}");
    }
}

#[test]
fn only_unfair_cycles_hold_under_weak_fairness_from_starts_too() {
    let mut inst = instance(SPINNER, "ring:4", &[]);
    let starts = starts_of(&mut inst);
    let symbolic = Symbolic::new(&inst, Choices::Every, 1 << 30, None).unwrap();
    for (from, starts) in starts {
        for daemon in [Daemon::Central, Daemon::Distributed, Daemon::LocallyCentral] {
            let b = symbolic
                .verify_from(&daemon, Some(&starts), Fairness::Weak)
                .unwrap();
            let unfair = symbolic
                .verify_from(&daemon, Some(&starts), Fairness::Unfair)
                .unwrap();
            match from {
                "declared" => continue,
                _ => {
                    assert!(
                        matches!(b.convergence, Convergence::HoldsUnderFairness { .. }),
                        "{from} {daemon:?}: {:?}",
                        b.convergence
                    );
                    assert!(matches!(unfair.convergence, Convergence::Cycle { .. }));
                }
            }
        }
    }
}

/// Every process enabled throughout the cycle of `run` (its steps from
/// `cycle_from`) moves in it.
fn assert_weakly_fair(inst: &Instance, run: &Run, cycle_from: usize, what: &str) {
    let mut rel = inst.step_relation();
    let mut at = run.start.clone();
    let mut throughout: Option<Vec<u32>> = None;
    let mut moved = std::collections::BTreeSet::new();
    for (i, step) in run.steps.iter().enumerate() {
        if i >= cycle_from {
            let enabled = rel.enabled(&at).unwrap();
            throughout = Some(match throughout {
                None => enabled,
                Some(t) => t.into_iter().filter(|p| enabled.contains(p)).collect(),
            });
            moved.extend(step.iter().map(|m| m.process));
        }
        at = rel.successor_of(&at, step).unwrap();
    }
    for p in throughout.unwrap_or_default() {
        assert!(
            moved.contains(&p),
            "{what}: process {p} enabled throughout the cycle never moves"
        );
    }
}

/// From the command line: `--from random --fairness weak --engine
/// symbolic` answers as the explicit engine does (configurations reached,
/// the verdict), and the fair cycles it writes replay with `guarded run`,
/// never legitimate.
#[test]
fn from_starts_under_weak_fairness_on_the_command_line() {
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc");
    // The witnesses go to a directory `guarded` makes.
    let dir = common::scratch("symbolic-fair", "witnesses");
    let dir_s = dir.to_str().unwrap();
    let common = [
        "verify",
        program,
        "-t",
        "ring:5",
        "-p",
        "K=2",
        "--from",
        "random",
        "--fairness",
        "weak",
        "-d",
        "central,distributed",
    ];
    let (code, out, err) =
        guarded(&[&common[..], &["--engine", "symbolic", "--witness", dir_s]].concat());
    assert_eq!(code, 5, "{err}");
    let (_, explicit, _) = guarded(&[&common[..], &["--engine", "explicit"]].concat());
    for daemon in ["central", "distributed"] {
        let symbolic =
            format!("daemon {daemon} (symbolic engine): 32 configurations reached, 10 legitimate");
        assert!(out.contains(&symbolic), "{out}");
        let reached = format!("daemon {daemon}: 32 configurations reached, 10 legitimate");
        assert!(explicit.contains(&reached), "{explicit}");
        let witness = dir.join(format!("{daemon}-cycle"));
        replays_never_legitimate(program, &["-t", "ring:5", "-p", "K=2"], &witness);
    }
    assert_eq!(out.matches("a weakly fair cycle").count(), 2, "{out}");
    assert_eq!(
        explicit.matches("a weakly fair cycle").count(),
        2,
        "{explicit}"
    );
    std::fs::remove_dir_all(dir.parent().unwrap()).ok();
}

/// Properties of runs on both engines: Dijkstra's ring with its own
/// (`token_fair`, `one_privilege_stays`) and more, some failing (too few
/// states, a predicate that does not stay), a process starved unless
/// weakly fair, Johnen's election.
const PROPERTIES: &str = "
property all_ones: sometimes forall(q in procs : q.x == 1)
property converges: true leads_to count(q in procs : enabled(q)) == 1
property zeros_stay: stable forall(q in procs : q.x == 0)
property some_privilege: always count(q in procs : enabled(q)) >= 1
property one_privilege: always count(q in procs : enabled(q)) <= 1
property left_zero: forall(p in procs : sometimes p.x == 0 and p.left.x == 1)
property my_turn: forall(p in procs : enabled(p) leads_to not enabled(p))
";

const SPINNER_PROPERTIES: &str = "
property fixed: forall(p in procs : always eventually p.x == 1)
property none_fixed: sometimes forall(p in procs : p.x == 0 and p.y == 1)
property spins: forall(p in procs : stable p.y == 0)
";

/// Parameters of an instance.
type Params = Vec<(&'static str, i64)>;

#[test]
fn properties_agree_on_both_engines_and_their_runs_replay() {
    let dijkstra = format!("{DIJKSTRA}{PROPERTIES}");
    let spinner = format!("{SPINNER}{SPINNER_PROPERTIES}");
    // A run that ends short of a 2 (every process at 0 or 2).
    let stuck = format!("{STUCK}property gets_two: true leads_to exists(p in procs : p.x == 2)\n");
    let cases: Vec<(&str, &str, &str, Params)> = vec![
        ("dijkstra", &dijkstra, "ring:3", vec![("K", 3)]),
        ("dijkstra", &dijkstra, "ring:4", vec![("K", 2)]),
        ("dijkstra", &dijkstra, "ring:4", vec![("K", 4)]),
        ("spinner", &spinner, "ring:3", vec![]),
        ("johnen", JOHNEN, "uring:3", vec![]),
        ("stuck", &stuck, "chain:3", vec![]),
    ];
    let (mut compared, mut skipped, mut failing) = (0, 0, std::collections::BTreeSet::new());
    for (name, src, topology, params) in cases {
        let mut inst = instance(src, topology, &params);
        let starts = starts_of(&mut inst);
        let symbolic = Symbolic::new(&inst, Choices::Every, 1 << 30, None).unwrap();
        let origins = [None, Some(&starts[0].1), Some(&starts[1].1)];
        for (k, starts) in origins.into_iter().enumerate() {
            for daemon in &DAEMONS {
                for fairness in [Fairness::Unfair, Fairness::Weak] {
                    let what = format!(
                        "{name} on {topology} {params:?} from {k}, {}, {fairness:?}",
                        daemon.name()
                    );
                    let mut explicit = match starts {
                        None => Explorer::new(&inst).unwrap(),
                        Some(s) => {
                            Explorer::reachable(&inst, clone_starts(s), daemon, None).unwrap()
                        }
                    };
                    explicit.count_rounds(false);
                    let a = explicit.verify_fairly(daemon, fairness).unwrap().properties;
                    let b = symbolic
                        .verify_from(daemon, starts, fairness)
                        .unwrap()
                        .properties;
                    assert_eq!(a.len(), b.len(), "{what}");
                    for (x, y) in a.iter().zip(&b) {
                        let what = format!("{what}: `{}`", x.name);
                        if y.not_checked.is_some() {
                            skipped += 1;
                            continue;
                        }
                        assert_eq!(x.not_checked, None, "{what}");
                        assert_eq!((x.holds, x.process), (y.holds, y.process), "{what}");
                        let nearest = matches!(x.form, "always" | "sometimes" | "stable");
                        let length = |v: &guarded::verify::PropertyVerdict| {
                            v.run.as_ref().map(|(r, _)| r.steps.len())
                        };
                        if nearest && starts.is_some() {
                            assert_eq!(length(x), length(y), "{what}: a nearest one");
                        }
                        if let Some((run, cycle_from)) = &y.run {
                            let end = replay(&inst, run);
                            if let Some(s) = starts {
                                assert!(is_a_start(s, &run.start), "{what}: from a start");
                            }
                            if let Some(from) = *cycle_from {
                                let mut at = run.start.clone();
                                let mut rel = inst.step_relation();
                                for step in &run.steps[..from] {
                                    at = rel.successor_of(&at, step).unwrap();
                                }
                                assert_eq!(at.rows, end.rows, "{what}: the cycle closes");
                                let fair = fairness == Fairness::Weak
                                    && !matches!(daemon, Daemon::Synchronous);
                                if fair {
                                    assert_weakly_fair(&inst, run, from, &what);
                                }
                            }
                        }
                        if !y.holds {
                            failing.insert((name, x.name.clone()));
                        }
                        compared += 1;
                    }
                }
            }
        }
    }
    eprintln!("{compared} compared, {skipped} not checked by the symbolic engine");
    assert!(compared >= 500, "{compared}");
    for expected in [
        ("dijkstra", "converges"),
        ("dijkstra", "zeros_stay"),
        ("dijkstra", "one_privilege"),
        ("dijkstra", "my_turn"),
        ("spinner", "fixed"),
        ("spinner", "spins"),
        ("spinner", "none_fixed"),
        ("stuck", "gets_two"),
    ] {
        assert!(
            failing.contains(&(expected.0, expected.1.to_string())),
            "{expected:?} fails somewhere: {failing:?}"
        );
    }
}

/// From the command line: the symbolic engine's counterexample to a
/// property is written as a witness that `guarded run` replays, round a
/// cycle that never reaches the property's second predicate (here
/// legitimacy: one privilege).
#[test]
fn a_property_counterexample_from_the_symbolic_engine_replays() {
    let program = common::scratch("symbolic-property", "dijkstra.gc");
    let dir = program.parent().unwrap().to_path_buf();
    let src = format!(
        "{DIJKSTRA}property converges: true leads_to count(q in procs : enabled(q)) == 1\n"
    );
    std::fs::write(&program, src).unwrap();
    let (program, witness) = (program.to_str().unwrap(), dir.join("w"));
    let (code, out, err) = guarded(&[
        "verify",
        program,
        "-t",
        "ring:4",
        "-p",
        "K=2",
        "-d",
        "central",
        "--engine",
        "symbolic",
        "--witness",
        witness.to_str().unwrap(),
    ]);
    assert_eq!(code, 5, "{err}");
    assert!(
        out.contains("`converges` fails: it never holds again on a cycle of"),
        "{out}"
    );
    let witness = witness.join("central-property-converges");
    replays_never_legitimate(program, &["-t", "ring:4", "-p", "K=2"], &witness);
    std::fs::remove_dir_all(&dir).ok();
}

/// Replays the witness `witness` (`.init` and `.sched` after it) of
/// `program` on the instance `instance` with `guarded run`: every step of
/// it, and none legitimate.
fn replays_never_legitimate(program: &str, instance: &[&str], witness: &std::path::Path) {
    let (init, sched) = (
        witness.with_extension("init"),
        witness.with_extension("sched"),
    );
    let steps = std::fs::read_to_string(&sched).unwrap().lines().count();
    let schedule = format!("schedule:{}", sched.display());
    let run = [
        &["run", program][..],
        instance,
        &[
            "--init",
            init.to_str().unwrap(),
            "--daemon",
            &schedule,
            "--format",
            "json",
        ],
    ]
    .concat();
    let (code, json, err) = guarded(&run);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["steps"], steps, "{}", witness.display());
    assert_eq!(v["first_legitimate"], serde_json::Value::Null);
}
