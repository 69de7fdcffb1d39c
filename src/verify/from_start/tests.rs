//! The search from a start against a plain one, and the memo against the
//! interpreter.

use super::*;
use crate::runtime::init::InitMode;
use crate::state::channels::Channels;

/// Everything an exploration from a start found, in order.
fn found(ex: &Explorer) -> Vec<String> {
    let States::Reachable { reached, parents } = &ex.states else {
        panic!("explored from a start")
    };
    let mut out = vec![format!(
        "{} transitions, fault {:?}, invariant {:?}",
        ex.reached_transitions, ex.fault, ex.invariant
    )];
    // Kept while reaching only towards a declared legitimacy, else
    // asked of the guards.
    assert_eq!(ex.enabled.len() == reached.len(), ex.declared);
    let enabled = ex.enabled_sets().unwrap();
    for i in 0..reached.len() as u32 {
        let at = i as usize;
        out.push(format!(
            "{i}: {:?} from {:?} legit {} terminal {} stops {} enabled {}",
            reached.get(i).rows,
            parents.parent(i),
            ex.legit.get(at),
            ex.terminal.get(at),
            !ex.stops.0.is_empty() && ex.stops.get(at),
            enabled.get(i)
        ));
    }
    out
}

/// The configurations reached from `start` and each one's parent, in
/// the order a plain breadth-first search finds them (one step at a
/// time through the step relation, every move of every mover, a
/// configuration where an invariant fails not expanded; configurations
/// whose messages differ only in how old those to different processes
/// are against one another taken as one, as verify keeps them), and the
/// steps taken, faulting ones left out.
fn plain_search(inst: &Instance, start: &Config, daemon: &Daemon) -> (Vec<String>, u64) {
    let mut rel = inst.step_relation();
    let receivers = Channels::receivers(&inst.topo);
    let mut start = start.clone();
    start.chans.canonicalize_by_receiver(&receivers);
    let mut number = std::collections::HashMap::from([(start.clone(), 0usize)]);
    let (mut order, mut parent) = (vec![start], vec![None]);
    let mut transitions = 0;
    let mut c = 0;
    while c < order.len() {
        let cfg = order[c].clone();
        if rel.violated_invariant(&cfg).unwrap().is_none() {
            let mut moves = Vec::new();
            for p in rel.enabled(&cfg).unwrap() {
                let mut mine = Vec::new();
                rel.moves_into(&cfg, p as usize, true, &mut mine).unwrap();
                moves.extend(mine);
            }
            let owners: Vec<u32> = moves.iter().map(|m| m.process).collect();
            let mut steps: Vec<Vec<crate::runtime::step::Move>> = Vec::new();
            daemon.each_choice_set(&owners, &inst.topo, |places| {
                steps.push(places.iter().map(|&k| moves[k].clone()).collect())
            });
            for step in steps {
                let Ok(mut next) = rel.successor_of(&cfg, &step) else {
                    continue;
                };
                next.chans.canonicalize_by_receiver(&receivers);
                transitions += 1;
                if !number.contains_key(&next) {
                    number.insert(next.clone(), order.len());
                    order.push(next);
                    parent.push(Some(c as u32));
                }
            }
        }
        c += 1;
    }
    let lines = order
        .iter()
        .zip(&parent)
        .enumerate()
        .map(|(i, (cfg, p))| format!("{i}: {:?} {:?} from {p:?}", cfg.rows, cfg.chans))
        .collect();
    (lines, transitions)
}

/// Whether `inst`'s store of configurations reached reads codes kept
/// to look one up.
fn space_of_wide_codes(inst: &Instance) -> bool {
    let space = inst.space();
    let start = space.config(0);
    Reached::new(space, None, &start).look_ups_read_codes()
}

/// The blocks, the memo, the tags of the store and the first steps to
/// each configuration kept from a block give the numbers, parents and
/// steps a plain breadth-first search gives.
#[test]
fn configurations_are_numbered_as_a_plain_search_numbers_them() {
    let arbitration = include_str!("../../../programs/arbitration.gc");
    let johnen = include_str!("../../../programs/johnen_leader.gc");
    let dijkstra = include_str!("../../../programs/dijkstra_kstate.gc");
    // Messages: configurations kept as bytes (see `config_arena`).
    let chang_roberts = include_str!("../../../tests/golden/programs/chang_roberts.gc");
    // 13^13 configurations: codes too wide for a set of codes, so
    // that a look-up reads codes kept (and threads look up first).
    let tokens: Vec<String> = [0, 3, 3, 7, 7, 7, 1, 1, 1, 1, 9, 9, 9]
        .iter()
        .enumerate()
        .map(|(p, x)| format!("{p}.x={x}"))
        .collect();
    // Heads from both neighbours, full channels, a field sent out of its
    // domain: steps written as bytes (see `encoded_step`) or not.
    let full = crate::verify::encoded_step::tests::PROGRAM;
    // 2^85 rows on a ring of 5: rows coded in two 64-bit halves.
    let wide_rows = "message tok(v: 0..1)
channel capacity 2
var c: 0..1 = 0
var big: 0..65535 = 0
process {
    emit :: c == 0 -> c := 1; send tok(index mod 2) to right
    take :: receive tok(v) from q -> c := v; big := (big + 7) mod 65536
}
";
    for (src, topology, params, sets) in [
        (arbitration, "ring:6", &[][..], &[][..]),
        (arbitration, "grid:2x3", &[], &[]),
        (chang_roberts, "ring:7", &[], &[]),
        (full, "ring:4", &[], &[]),
        (wide_rows, "ring:5", &[], &[]),
        (johnen, "uring:4", &[("k", 1)], &[]),
        (dijkstra, "ring:13", &[("K", 13)], &tokens[..]),
    ] {
        let mut inst = super::super::test_instance(src, topology, params);
        let start = inst
            .initial(&InitMode::Declared, sets)
            .or_else(|_| inst.initial(&InitMode::Random, sets))
            .unwrap();
        let halves = inst.space().halves_counts();
        assert_eq!(
            halves.is_some_and(|[high, _]| high > 1),
            src == wide_rows,
            "{topology}"
        );
        // On one thread the numbering looks every step up; on more,
        // the threads look first where a look-up reads codes kept.
        // Batches of at most 64 configurations: on more threads, the
        // next batch is mostly numbered already when one is numbered,
        // and is expanded meanwhile.
        for (daemon, threads, most) in
            [Daemon::Central, Daemon::Distributed]
                .into_iter()
                .flat_map(|d| {
                    [
                        (d.clone(), 1, TOGETHER),
                        (d.clone(), 2, TOGETHER),
                        (d, 2, 64),
                    ]
                })
        {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
            let reach = || {
                let ex = Explorer::reach(
                    &inst,
                    start.clone().into(),
                    (&daemon, Choosing::new(Choices::Every)),
                    None,
                    true,
                    most,
                )
                .unwrap();
                let States::Reachable { reached, parents } = &ex.states else {
                    panic!("explored from a start")
                };
                let explored: Vec<String> = (0..reached.len() as u32)
                    .map(|i| {
                        let cfg = reached.get(i);
                        format!(
                            "{i}: {:?} {:?} from {:?}",
                            cfg.rows,
                            cfg.chans,
                            parents.parent(i)
                        )
                    })
                    .collect();
                (explored, ex.reached_transitions)
            };
            let (explored, reached_transitions) = pool.unwrap().install(reach);
            let (plain, transitions) = plain_search(&inst, &start, &daemon);
            let what = format!(
                "{topology} under {} on {threads}, {most} together",
                daemon.name()
            );
            assert!(plain.len() > 400, "{what}: {}", plain.len());
            let wide = space_of_wide_codes(&inst);
            assert_eq!(wide, topology == "ring:13", "{what}");
            assert_eq!(explored, plain, "{what}");
            assert_eq!(reached_transitions, transitions, "{what}");
        }
    }
}

/// The remembered moves and predicates give the exploration the
/// interpreter gives, under every daemon: the same configurations in
/// the same order, the same steps, faults, invariants and enabled
/// sets. Programs with edge variables written and read (a neighbour's
/// other edges among them), moves that fault, invariants local, along
/// arcs and global, failing and holding, and one without effects.
#[test]
fn remembered_moves_explore_as_the_interpreter_does() {
    let arbitration = include_str!("../../../programs/arbitration.gc");
    let dijkstra = include_str!("../../../programs/dijkstra_kstate.gc");
    let edges = "edge var d: 0..2 = 0\nvar x: 0..3 = 0\n\
        process {\n\
        a :: x < 3 and exists(q in nbrs : exists(r in nbrs : r != q and q.d[r] == 1)) -> x := x + 1\n\
        b :: x == 0 -> for q in nbrs { edge(q).d := (edge(q).d + 1) % 3 }\n\
        c :: x == 3 and exists(q in nbrs : edge(q).d == 2) -> x := 4 / (x - 3)\n\
        e :: x == 2 and exists(q in nbrs : d[q] == 1) ->\n\
            for q in nbrs { if d[q] == 1 { edge(q).d := 0 } }; x := 0\n\
        }\n\
        invariant few: forall(p in procs : p.x <= 2 or exists(q in nbrs(p) : edge(p, q).d != 1))\n\
        invariant arcs: acyclic(p -> q : edge(p, q).d == 2 and p.x <= q.x and p.x >= 1)\n\
        invariant global: count(p in procs : p.x == 3) <= 2\n";
    // The first process's move, alone, breaks an invariant; the last's
    // is apart from it: the configuration where both moved is reached
    // only from the last's step, which must not be skipped.
    let first_alone = "var x: 0..1 = 0\nprocess {\n    a :: x == 0 -> x := 1\n}\n\
        invariant not_first_alone: count(p in procs : p.x == 1) != 1 or \
        forall(p in procs : p.index != 0 or p.x == 0)\n";
    // A move that faults, by processes apart from others: the same
    // move faults again after theirs, and is not counted as a step.
    let faulting = "var x: 0..2 = 0\nprocess {\n    a :: x == 0 -> x := 1\n\
        b :: x == 1 -> x := 2 / (x - 1)\n}\n";
    type Case<'s> = (&'s str, &'s str, &'s [(&'s str, i64)]);
    let johnen = include_str!("../../../programs/johnen_leader.gc");
    let matching = include_str!("../../../programs/matching.gc");
    let ssle = include_str!("../../../programs/ssle.gc");
    let cases: [Case; 13] = [
        (arbitration, "ring:4", &[]),
        (arbitration, "complete:4", &[]),
        (arbitration, "grid:2x3", &[]),
        (arbitration, "star:5", &[]),
        (edges, "complete:3", &[]),
        (edges, "complete:4", &[]),
        (first_alone, "chain:3", &[]),
        (faulting, "chain:4", &[]),
        (dijkstra, "ring:4", &[("K", 4)]),
        (matching, "ring:5", &[]),
        // Self-stabilizing programs declare no start: an arbitrary one.
        (johnen, "uring:3", &[("k", 1)]),
        (johnen, "uring:4", &[("k", 1)]),
        (ssle, "chain:2", &[("max_id", 2), ("max_level", 3)]),
    ];
    let (mut remembered_somewhere, mut configurations) = (false, 0);
    for (src, topology, params) in cases {
        let mut inst = super::super::test_instance(src, topology, params);
        let start = inst
            .initial(&InitMode::Declared, &[])
            .or_else(|_| inst.initial(&InitMode::Random, &[]))
            .unwrap();
        let space = inst.space();
        remembered_somewhere |= MoveMemo::new(&inst, &space).is_some();
        for daemon in [
            Daemon::Central,
            Daemon::LocallyCentral,
            Daemon::Distributed,
            Daemon::Synchronous,
        ] {
            let what = format!("{topology} under {}", daemon.name());
            let explore = |remember| {
                Explorer::reach(
                    &inst,
                    start.clone().into(),
                    (&daemon, Choosing::new(Choices::Every)),
                    None,
                    remember,
                    TOGETHER,
                )
                .map(|ex| found(&ex))
                .map_err(|r| format!("{r:?}"))
            };
            let (interpreted, remembered) = (explore(false), explore(true));
            assert!(interpreted.is_ok(), "{what}: {interpreted:?}");
            configurations += interpreted.as_ref().map_or(0, |f| f.len() - 1);
            assert_eq!(interpreted, remembered, "{what}");
            // One thread leaves every look-up to the numbering.
            let alone = rayon::ThreadPoolBuilder::new().num_threads(1).build();
            let remembered_alone = alone.unwrap().install(|| explore(true));
            assert_eq!(interpreted, remembered_alone, "{what} on one thread");
        }
    }
    assert!(
        remembered_somewhere && configurations > 10_000,
        "{configurations}"
    );
}

/// What is held at once stays within its bound, and the threads get
/// blocks enough, from few processes to many.
#[test]
fn configurations_expanded_together_hold_few_steps() {
    for daemon in [Daemon::Central, Daemon::Distributed, Daemon::Synchronous] {
        for (n, held) in [1, 2, 9, 20, 64, 200]
            .into_iter()
            .flat_map(|n| [(n, MOST_STEPS_HELD), (n, MOST_WHOLE_STEPS_HELD)])
        {
            let (together, block) = together(&daemon, n, TOGETHER, held);
            let most_steps = match daemon {
                Daemon::Distributed => (1u64 << n.min(63)) - 1,
                _ => n as u64,
            };
            let what = format!("{} on {n}", daemon.name());
            assert!(together >= 1 && block >= 1 && block <= together, "{what}");
            assert!(
                together == 1 || u64::from(together) * most_steps <= held,
                "{what}"
            );
            assert!(together < 16 || together / block >= 16, "{what}");
        }
    }
    assert_eq!(
        together(&Daemon::Central, 9, TOGETHER, MOST_STEPS_HELD),
        (TOGETHER, BLOCK)
    );
    assert_eq!(
        together(&Daemon::Central, 9, TOGETHER, MOST_WHOLE_STEPS_HELD),
        (3640, 227)
    );
}

/// From every arbitrary start (values in the declared `random` ranges,
/// free to grow past them within the domains): the starts come first,
/// in the space's order, with no parent; what is reached is what each
/// start reaches, together; every path leads back to a start; the worst
/// case is the worst of the starts' own, under each daemon.
#[test]
fn every_arbitrary_start_is_searched_from() {
    let src = "topology chain:3\nvar x: 0..3 random 0..1\n\
               process { up :: x < 3 and exists(q in nbrs : q.x >= x) -> x := x + 1 }\n\
               legitimate: forall(p in procs : p.x == 3)\n";
    let inst = super::super::test_instance(src, "chain:3", &[]);
    let arbitrary = inst.arbitrary_space();
    assert_eq!(
        arbitrary.count(),
        8,
        "two values for each of three processes"
    );
    // The most steps, and the most rounds.
    let worst = |v: super::super::Verdict| match v.convergence {
        super::super::Convergence::Holds { steps, rounds, .. } => {
            (steps.steps.len(), rounds.expect("rounds counted").0)
        }
        other => panic!("converges: {other:?}"),
    };
    for daemon in [Daemon::Central, Daemon::Distributed, Daemon::Synchronous] {
        let mut ex = Explorer::reachable(&inst, Starts::Every(arbitrary.clone()), &daemon, None)
            .expect("explorable");
        ex.count_rounds(true);
        let States::Reachable { reached, parents } = &ex.states else {
            panic!("explored from starts")
        };
        assert_eq!(parents.starts(), 8);
        let mut union = std::collections::BTreeSet::new();
        let mut each_worst = (0, 0);
        for (k, start) in arbitrary.iter().enumerate() {
            assert_eq!(reached.get(k as u32).rows, start.rows, "start {k} in order");
            assert_eq!(parents.parent(k as u32), None);
            let mut alone = Explorer::reachable(&inst, start, &daemon, None).expect("explorable");
            alone.count_rounds(true);
            for i in 0..alone.count {
                union.insert(alone.states.config(i).rows);
            }
            let (steps, rounds) = worst(alone.verify(&daemon).expect("verified"));
            each_worst = (each_worst.0.max(steps), each_worst.1.max(rounds));
        }
        let together: std::collections::BTreeSet<Vec<i64>> =
            (0..ex.count).map(|i| ex.states.config(i).rows).collect();
        assert_eq!(together, union, "{}", daemon.name());
        assert!(together.iter().any(|rows| rows.contains(&3)), "values grow");
        for i in 0..ex.count {
            assert!(ex.states.path_to(i)[0] < 8, "a path from a start");
        }
        assert_eq!(worst(ex.verify(&daemon).expect("verified")), each_worst);
    }
}

/// Reached for a search without rounds, no configuration's enabled
/// processes are kept; asked for rounds after all, the search works them
/// out again and finds what it finds with them kept, under each daemon,
/// with the fairness searches that ask for them too (a ring where one
/// process can go on napping and waking before a leader is known).
#[test]
fn enabled_processes_are_kept_only_for_rounds() {
    use crate::verify::Fairness;
    let chang_roberts = include_str!("../../../tests/golden/programs/chang_roberts.gc");
    let restless = chang_roberts
        .replace(
            "var awake: bool = false",
            "var awake: bool = false\nvar nap: bool = false",
        )
        .replace(
            "done :: receive elected(u) from q and u == id -> skip",
            "done :: receive elected(u) from q and u == id -> skip\n    \
             doze :: leader == -1 and index == 0 -> nap := not nap",
        );
    assert_eq!(restless.matches("nap").count(), 3);
    for (src, converges) in [(chang_roberts, true), (&restless, false)] {
        let mut inst = super::super::test_instance(src, "ring:4", &[]);
        let start = inst.initial(&InitMode::Declared, &[]).unwrap();
        for daemon in [Daemon::Central, Daemon::Distributed, Daemon::Synchronous] {
            let reach = |rounds: bool| {
                let plan = (Choices::Every, false, rounds);
                Explorer::reachable_for(&inst, start.clone(), (&daemon, None), plan).unwrap()
            };
            let (kept, mut asked) = (reach(true), reach(false));
            assert_eq!(kept.enabled.len(), kept.count as usize);
            assert_eq!(asked.enabled.len(), 0, "none kept without rounds");
            asked.count_rounds(true);
            for fairness in [Fairness::Unfair, Fairness::Weak] {
                let [a, b] = [&kept, &asked].map(|ex| {
                    format!(
                        "{:?}",
                        ex.verify_fairly(&daemon, fairness).map(|v| v.convergence)
                    )
                });
                assert_eq!(a, b, "{}", daemon.name());
                let cycle = a.contains("Cycle") || a.contains("HoldsUnderFairness");
                assert_eq!(!cycle && a.contains("rounds: Some"), converges, "{a}");
            }
        }
    }
}

/// Programs that pass messages start from every channel content
/// `--init random` can draw too: what a search from all of them reaches,
/// each start first in its order, is what plain searches from each one
/// reach, together (Israeli and Jalfon's merging tokens on a chain of
/// three, channels of one message or none).
#[test]
fn every_arbitrary_channel_content_is_searched_from() {
    let src = "message tok\nchannel capacity 1 random 0..1\nvar has: bool\n\
               process {\n\
               walk :: has -> has := false; send tok to random(nbrs)\n\
               take :: receive tok from q -> has := true\n}\n\
               legitimate: count(p in procs : p.has) + sum(p in procs : sum(q in nbrs(p) : msgs(p, q))) == 1\n";
    let inst = super::super::test_instance(src, "chain:3", &[]);
    let starts = Starts::arbitrary(&inst).expect("few enough");
    assert_eq!(starts.count(), 8 * 16, "three flags, four channels");
    let each: Vec<Config> = starts.iter().collect();
    for daemon in [Daemon::Central, Daemon::Distributed] {
        let starts = Starts::arbitrary(&inst).expect("few enough");
        let ex = Explorer::reachable(&inst, starts, &daemon, None).expect("explorable");
        let mut union = std::collections::BTreeSet::new();
        for (k, start) in each.iter().enumerate() {
            let mut first = start.clone();
            first
                .chans
                .canonicalize_by_receiver(&Channels::receivers(&inst.topo));
            let kept = ex.states.config(k as u32);
            assert!(kept == first, "start {k} in order");
            union.extend(
                plain_search(&inst, start, &daemon)
                    .0
                    .into_iter()
                    .map(|line| {
                        // The configuration, without the plain search's numbers.
                        line.split_once(": ")
                            .expect("numbered")
                            .1
                            .rsplit_once(" from ")
                            .expect("a parent")
                            .0
                            .to_string()
                    }),
            );
        }
        let together: std::collections::BTreeSet<String> = (0..ex.count)
            .map(|i| {
                let cfg = ex.states.config(i);
                format!("{:?} {:?}", cfg.rows, cfg.chans)
            })
            .collect();
        assert_eq!(together, union, "{}", daemon.name());
    }
}

/// Where the first search keeps each configuration's steps for the
/// searches after it (configurations kept whole), they are the steps
/// worked out again, in the same order, with their movers and whether the
/// configuration is terminal; under every daemon, on one thread and on
/// two, with every move or the first of each mover, where a choice of
/// actions makes steps of the same mover (Chang and Roberts' with a
/// second `learn`) and where an invariant stops runs. Not kept by orbits,
/// nor where a step faults (the searches must meet it), nor under a
/// daemon of several movers with the first action alone (listed in
/// another order); past 64 processes there, see `kept_steps`' tests.
#[test]
fn kept_steps_are_those_worked_out_again() {
    use crate::verify::search::Search;
    use crate::verify::Fairness;
    let chang_roberts = include_str!("../../../tests/golden/programs/chang_roberts.gc");
    let learn =
        "learn :: receive elected(u) from q and u != id -> leader := u; send elected(u) to right";
    let twice = format!("{learn}\n    re{learn}");
    let choosing = chang_roberts.replace(learn, &twice);
    let few_awake = chang_roberts.replace(
        "count(p in procs : p.leader == p.id) <= 1",
        "count(p in procs : p.awake) <= 3",
    );
    let faulting = chang_roberts.replace(
        "u < id and awake -> skip",
        "u < id and awake -> leader := 1 / (u - 2)",
    );
    assert!(choosing != chang_roberts && few_awake != chang_roberts && faulting != chang_roberts);
    let central = Daemon::Central;
    let daemons = [
        central.clone(),
        Daemon::Distributed,
        Daemon::LocallyCentral,
        Daemon::Synchronous,
    ];
    let cases = [
        (chang_roberts, "ring:6", Choices::Every, 1, true),
        (chang_roberts, "ring:6", Choices::Every, 2, true),
        (&choosing, "ring:5", Choices::Every, 1, true),
        (&choosing, "ring:5", Choices::First, 2, true),
        (&few_awake, "ring:6", Choices::Every, 1, true),
        (&faulting, "ring:6", Choices::Every, 1, false),
    ];
    for ((src, topology, choices, threads, kept), daemon) in cases
        .into_iter()
        .flat_map(|case| daemons.iter().map(move |d| (case, d)))
    {
        let kept = kept && (*daemon == central || choices == Choices::Every);
        let mut inst = super::super::test_instance(src, topology, &[]);
        let start = inst.initial(&InitMode::Declared, &[]).unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
        let mut ex = pool
            .unwrap()
            .install(|| Explorer::reachable_choosing(&inst, start.clone(), daemon, None, choices))
            .unwrap();
        let what = format!("{topology}, {threads} threads, {}", daemon.name());
        assert_eq!(ex.kept_steps.is_some(), kept, "{what}");
        let each = |ex: &Explorer| {
            let mut search = Search::new(ex, daemon, Fairness::Unfair);
            let mut out = Vec::new();
            (0..ex.count)
                .map(|i| {
                    let terminal = search.successors_from(i, None, &mut out).unwrap();
                    (terminal, out.clone())
                })
                .collect::<Vec<_>>()
        };
        let read = each(&ex);
        ex.kept_steps = None;
        let again = each(&ex);
        // Synchronous runs of the few awake stop at their first step.
        let steps = read.iter().map(|s| s.1.len()).sum::<usize>();
        assert!(steps > if *daemon == central { 100 } else { 0 }, "{what}");
        assert_eq!(read, again, "{what}");
    }
    // A uniform ring: the rotations.
    let tokens = "message tok\nchannel capacity 1 random 0..1\nvar has: bool\n\
                  process {\n\
                  walk :: has -> has := false; send tok to random(nbrs)\n\
                  take :: receive tok from q -> has := true\n}\n";
    let inst = super::super::test_instance(tokens, "ring:4", &[]);
    let starts = Starts::arbitrary(&inst).expect("few enough");
    let orbits = Explorer::reachable_by_orbits(&inst, starts, &central, None, Choices::Every);
    let orbits = orbits.unwrap();
    assert!(orbits.symmetry.is_some() && orbits.kept_steps.is_none());
}
