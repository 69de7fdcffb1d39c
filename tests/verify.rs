//! `guarded verify` held to an obviously correct explorer and to
//! `guarded run`: on tiny instances a naive recursion over the public step
//! API gives the same verdicts, worst cases and shortest cycle lengths under
//! every daemon; every run the verifier reports replays with `guarded run`
//! and the same steps and moves; the command's exit status says whether the
//! properties hold.

mod common;
use common::{every_step as naive_steps, instance, Step};
use guarded::load::Instance;
use guarded::runtime::daemon::Daemon;
use guarded::state::Config;
use guarded::verify::{Convergence, Explorer, Fairness, Run};
use std::collections::{HashMap, VecDeque};
use std::process::Command;

const DIJKSTRA: &str = include_str!("../programs/dijkstra_kstate.gc");
const DAEMONS: [Daemon; 4] = [
    Daemon::Central,
    Daemon::LocallyCentral,
    Daemon::Distributed,
    Daemon::Synchronous,
];

/// What the naive explorer says: the worst (steps, moves, rounds), or the
/// length of a shortest cycle outside legitimacy, or a deadlock; and
/// whether legitimacy is closed.
#[derive(Debug, PartialEq, Eq)]
enum Naive {
    Worst(u64, u64, u64),
    Cycle(usize),
    Deadlock,
}

/// No run from a configuration counts: every way on raises a runtime error.
const NO_RUN: u64 = u64::MAX;

/// Whether legitimacy is closed, whether some step raises a runtime
/// error, and the verdict.
fn naive(inst: &Instance, daemon: &Daemon) -> (bool, bool, Naive) {
    let mut rel = inst.step_relation();
    let configs: Vec<Config> = inst.space().iter().collect();
    let index: HashMap<&Config, usize> = configs.iter().enumerate().map(|(i, c)| (c, i)).collect();
    let legit: Vec<bool> = configs
        .iter()
        .map(|c| rel.legitimate(c).unwrap() == Some(true))
        .collect();
    let steps: Vec<Vec<Step>> = configs
        .iter()
        .map(|c| naive_steps(inst, &mut rel, c, daemon, &mut |next| index[&next]))
        .collect();
    // The steps that raise no runtime error: where each leads and how many move.
    let succ: Vec<Vec<(usize, u64)>> = steps
        .iter()
        .map(|s| s.iter().filter_map(|&(to, _, w)| Some((to?, w))).collect())
        .collect();
    let closed = (0..configs.len()).all(|i| !legit[i] || succ[i].iter().all(|&(j, _)| legit[j]));
    let fault = steps.iter().flatten().any(|step| step.0.is_none());
    if (0..configs.len()).any(|i| !legit[i] && steps[i].is_empty()) {
        return (closed, fault, Naive::Deadlock);
    }
    // A shortest cycle outside legitimacy: breadth first from every configuration.
    let mut shortest: Option<usize> = None;
    for u in (0..configs.len()).filter(|&u| !legit[u]) {
        let mut dist = HashMap::from([(u, 0usize)]);
        let mut queue = VecDeque::from([u]);
        while let Some(x) = queue.pop_front() {
            let dx = dist[&x];
            for &(y, _) in &succ[x] {
                if legit[y] {
                    continue;
                }
                if y == u {
                    let len = dx + 1;
                    shortest = Some(shortest.map_or(len, |s| s.min(len)));
                    queue.clear();
                    break;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(y) {
                    e.insert(dx + 1);
                    queue.push_back(y);
                }
            }
        }
    }
    if let Some(len) = shortest {
        return (closed, fault, Naive::Cycle(len));
    }
    // No cycle: the most steps and moves by plain recursion, over the runs
    // that raise no runtime error.
    fn most(
        i: usize,
        succ: &[Vec<(usize, u64)>],
        legit: &[bool],
        memo: &mut [Option<(u64, u64)>],
    ) -> (u64, u64) {
        if legit[i] {
            return (0, 0);
        }
        if let Some(m) = memo[i] {
            return m;
        }
        let mut best = (NO_RUN, NO_RUN);
        for &(j, w) in &succ[i] {
            let (s, m) = most(j, succ, legit, memo);
            if s != NO_RUN {
                let (bs, bm) = if best.0 == NO_RUN { (0, 0) } else { best };
                best = (bs.max(s + 1), bm.max(m + w));
            }
        }
        memo[i] = Some(best);
        best
    }
    let mut memo = vec![None; configs.len()];
    let worst = (0..configs.len())
        .map(|i| most(i, &succ, &legit, &mut memo))
        .filter(|&(s, _)| s != NO_RUN)
        .fold((0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
    // Rounds as DESIGN.md defines them, by plain recursion over the
    // configuration, the round's pending processes and whether it started.
    let enabled: Vec<u64> = configs
        .iter()
        .map(|c| rel.enabled(c).unwrap().iter().fold(0, |m, &p| m | 1 << p))
        .collect();
    // Per configuration, the steps that raise no runtime error: where each
    // leads and its movers as bits.
    let moved: Vec<Vec<(usize, u64)>> = steps
        .iter()
        .map(|s| {
            s.iter()
                .filter_map(|&(to, bits, _)| Some((to?, bits)))
                .collect()
        })
        .collect();
    type Memo = HashMap<(usize, u64, bool), u64>;
    /// The steps, enabled processes as bits, legitimacy.
    type Graph<'g> = (&'g [Vec<(usize, u64)>], &'g [u64], &'g [bool]);
    fn rounds(key: (usize, u64, bool), g: Graph, memo: &mut Memo) -> u64 {
        let (moved, enabled, legit) = g;
        let (c, pending, started) = key;
        if legit[c] {
            return u64::from(started);
        }
        if let Some(&r) = memo.get(&key) {
            return r;
        }
        let mut best = NO_RUN;
        for &(j, movers) in &moved[c] {
            let left = pending & !movers & enabled[j];
            let r = if left == 0 {
                let after = rounds((j, enabled[j], false), g, memo);
                if after == NO_RUN {
                    NO_RUN
                } else {
                    1 + after
                }
            } else {
                rounds((j, left, true), g, memo)
            };
            if r != NO_RUN {
                best = if best == NO_RUN { r } else { best.max(r) };
            }
        }
        memo.insert(key, best);
        best
    }
    let mut memo = Memo::new();
    let g = (&moved[..], &enabled[..], &legit[..]);
    let most_rounds = (0..configs.len())
        .map(|c| rounds((c, enabled[c], false), g, &mut memo))
        .filter(|&r| r != NO_RUN)
        .max()
        .unwrap_or(0);
    // What the verifier's rounds search prunes by: from a state in the
    // middle of a round, no fewer rounds than from its configuration's
    // fresh round, and at most one more.
    for (&(c, pending, started), &r) in &memo.clone() {
        let fresh = rounds((c, enabled[c], false), g, &mut memo);
        if r == NO_RUN || fresh == NO_RUN {
            continue;
        }
        assert!(
            fresh <= r && r <= fresh + 1,
            "{} rounds from {:?} with {pending:b} pending (started: {started}), {fresh} fresh",
            r,
            configs[c]
        );
    }
    (closed, fault, Naive::Worst(worst.0, worst.1, most_rounds))
}

/// From a start, naively: breadth first over every step (a configuration
/// where an invariant fails not expanded); how many configurations it
/// reaches, the steps from them that raise no runtime error, whether one
/// raises one, the first invariant violated, whether one is a deadlock.
fn naive_from(
    inst: &Instance,
    start: Config,
    daemon: &Daemon,
) -> (usize, u64, bool, Option<String>, bool) {
    let mut rel = inst.step_relation();
    let mut start = start;
    start.canonicalize();
    let mut number = HashMap::from([(start.clone(), 0usize)]);
    let mut order = vec![start];
    let (mut transitions, mut fault, mut invariant, mut deadlock) = (0, false, None, false);
    let mut c = 0;
    while c < order.len() {
        let cfg = order[c].clone();
        c += 1;
        if let Some(name) = rel.violated_invariant(&cfg).unwrap() {
            invariant.get_or_insert(name.to_string());
            continue;
        }
        let mut found = Vec::new();
        let steps = naive_steps(inst, &mut rel, &cfg, daemon, &mut |next| {
            found.push(next);
            found.len() - 1
        });
        deadlock |= steps.is_empty();
        for (to, _, _) in steps {
            match to {
                Some(k) => {
                    transitions += 1;
                    let next = found[k].clone();
                    if !number.contains_key(&next) {
                        number.insert(next.clone(), order.len());
                        order.push(next);
                    }
                }
                None => fault = true,
            }
        }
    }
    (order.len(), transitions, fault, invariant, deadlock)
}

fn verified(inst: &Instance, daemon: &Daemon) -> (bool, bool, Naive) {
    let v = Explorer::new(inst).unwrap().verify(daemon).unwrap();
    let result = match &v.convergence {
        Convergence::Holds {
            steps,
            moves,
            rounds,
        } => Naive::Worst(
            steps.steps.len() as u64,
            moves
                .as_ref()
                .expect("the explicit engine counts moves")
                .moves(),
            rounds.as_ref().expect("rounds are counted").0,
        ),
        Convergence::Cycle { run, cycle_from } => Naive::Cycle(run.steps.len() - cycle_from),
        Convergence::NotDeclared { .. } | Convergence::HoldsUnderFairness { .. } => {
            unreachable!("every case declares legitimacy, and the daemon is unfair")
        }
        Convergence::Deadlock(_) => Naive::Deadlock,
    };
    (v.closure.is_none(), v.fault.is_some(), result)
}

/// A ring where a token is dropped when the right neighbour has none: it
/// ends with no token and no process enabled (a deadlock), and a step from
/// one token leaves legitimacy; and a program whose every step leaves
/// legitimacy (closure fails) and cycles.
const DEADLOCKS: &str = "var x: 0..2\nprocess { pass :: x == 1 and right.x == 0 -> x := 0 }\nlegitimate: count(p in procs : p.x == 1) == 1";
const NOT_CLOSED: &str = "var x: 0..1\nprocess { flip :: true -> x := 1 - x }\nlegitimate: forall(p in procs : p.x == 0)";

/// A program, a topology and parameter values.
type Case = (&'static str, String, Vec<(&'static str, i64)>);

/// Two actions of one priority, both enabled at once: `c` may be taken
/// forever.
const BOTH_ENABLED: &str = "var x: 0..1 = 0\nprocess {\n    b :: x == 0 -> x := 1\n    c :: x == 0 -> x := 0\n}\nlegitimate: forall(p in procs : p.x == 1)";
/// A binder with two members, one of them undone at once.
const ANY_MEMBER: &str = "var p: node = self\nprocess {\n    aim for q in nbrs :: p == self and index > 0 -> p := q\n    undo :: p != self and p.index > index -> p := self\n}\nlegitimate: forall(i in procs : (i.index == 0 and i.p == i) or (i.index > 0 and i.p != i and i.p.index < i.index))";
/// Draws of members: a neighbour to point at (some point away, and are
/// undone), and a colour from a set that depends on the neighbours.
const MEMBER_DRAWS: &str = "var p: node = self\nvar c: 0..2 = 0\nprocess {\n    aim :: p == self and index > 0 -> p := random(nbrs)\n    undo :: p != self and p.index > index -> p := self\n    colour :: exists(q in nbrs : q.c == c) -> c := random({k in 0..2 : k != c and k >= count(q in nbrs : q.c == 0)})\n}\nlegitimate: forall(i in procs : (i.index == 0 or i.p.index < i.index) and forall(j in nbrs(i) : j.c != i.c))";
/// A move that draws, and one that draws only part of the time.
const DRAWS: &str = "var x: 0..2 = 0\nprocess {\n    roll :: x == 0 -> x := random(0..2)\n    maybe :: x == 2 -> if random(bool) { x := 1 } else { x := random(1..2) }\n}\nlegitimate: forall(p in procs : p.x == 1)";

#[test]
fn the_verifier_agrees_with_a_naive_explorer_on_tiny_instances() {
    let mut cases: Vec<Case> = Vec::new();
    for n in 2..=4usize {
        for k in 2..=(n as i64 + 1) {
            cases.push((DIJKSTRA, format!("ring:{n}"), vec![("K", k)]));
        }
    }
    // Large enough for the rounds search to prune, small enough to recurse.
    cases.push((DIJKSTRA, "ring:5".into(), vec![("K", 5)]));
    cases.push((DEADLOCKS, "ring:3".into(), vec![]));
    cases.push((NOT_CLOSED, "chain:3".into(), vec![]));
    // Every bundled program verify takes from every configuration, and
    // programs whose processes choose between actions, members and draws.
    let johnen = include_str!("../programs/johnen_leader.gc");
    let ssle = include_str!("../programs/ssle.gc");
    let matching = include_str!("../programs/matching.gc");
    let herman = include_str!("../programs/herman.gc");
    cases.push((johnen, "uring:3".into(), vec![("k", 0)]));
    cases.push((
        ssle,
        "chain:2".into(),
        vec![("max_id", 2), ("max_level", 3)],
    ));
    cases.push((
        ssle,
        "chain:2".into(),
        vec![("max_id", 1), ("max_level", 2), ("repair", 1)],
    ));
    for topology in ["chain:3", "ring:4", "star:4"] {
        cases.push((matching, topology.into(), vec![]));
    }
    cases.push((herman, "uring:3".into(), vec![]));
    cases.push((herman, "uring:5".into(), vec![]));
    cases.push((BOTH_ENABLED, "ring:3".into(), vec![]));
    cases.push((ANY_MEMBER, "chain:3".into(), vec![]));
    cases.push((ANY_MEMBER, "star:4".into(), vec![]));
    cases.push((DRAWS, "ring:3".into(), vec![]));
    cases.push((MEMBER_DRAWS, "chain:3".into(), vec![]));
    cases.push((MEMBER_DRAWS, "star:4".into(), vec![]));
    for (src, topology, params) in &cases {
        let inst = instance(src, topology, params);
        for d in &DAEMONS {
            assert_eq!(
                verified(&inst, d),
                naive(&inst, d),
                "{topology} {params:?} under {}",
                d.name()
            );
        }
    }
}

/// From a start, the verifier reaches what a naive breadth-first search
/// over every move reaches, takes the same steps, and finds the same
/// faults, invariant violations and deadlocks.
#[test]
fn from_a_start_the_verifier_agrees_with_a_naive_search() {
    let arbitration = include_str!("../programs/arbitration.gc");
    let cases: [(&str, &str); 6] = [
        (arbitration, "chain:3"),
        (arbitration, "star:4"),
        (arbitration, "ring:4"),
        (BOTH_ENABLED, "ring:3"),
        (ANY_MEMBER, "star:4"),
        (DRAWS, "ring:3"),
    ];
    for (src, topology) in cases {
        let mut inst = instance(src, topology, &[]);
        let start = inst
            .initial(&guarded::runtime::init::InitMode::Declared, &[])
            .unwrap();
        for d in &DAEMONS {
            let ex = Explorer::reachable(&inst, start.clone(), d, None).unwrap();
            let v = ex.verify(d).unwrap();
            let (count, transitions, fault, invariant, deadlock) =
                naive_from(&inst, start.clone(), d);
            let what = format!("{topology} under {}", d.name());
            assert_eq!(v.configurations as usize, count, "{what}");
            assert_eq!(v.fault.is_some(), fault, "{what}");
            assert_eq!(
                v.invariant.as_ref().map(|(n, _)| n.clone()),
                invariant,
                "{what}"
            );
            if !inst.has_legitimacy() {
                assert_eq!(v.transitions, Some(transitions), "{what}");
                let found = matches!(
                    v.convergence,
                    Convergence::NotDeclared { deadlock: Some(_) }
                );
                assert_eq!(found, deadlock && invariant.is_none(), "{what}");
            }
        }
    }
}

#[test]
fn dijkstra_on_ring4_with_k4_matches_the_exploration_test() {
    let inst = instance(DIJKSTRA, "ring:4", &[("K", 4)]);
    let v = Explorer::new(&inst)
        .unwrap()
        .verify(&Daemon::Central)
        .unwrap();
    assert_eq!((v.configurations, v.legitimate), (256, 40));
    assert!(v.holds());
    match v.convergence {
        Convergence::Holds { steps, moves, .. } => {
            assert_eq!(
                (steps.steps.len(), moves.as_ref().map(|m| m.moves())),
                (13, Some(13))
            )
        }
        other => panic!("{other:?}"),
    }
}

fn guarded(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Every witness `verify --witness` writes for Dijkstra on ring:5 replays
/// with `guarded run`: the same number of steps and moves, reaching
/// legitimacy at the last step for a worst case, back at the start and
/// never legitimate for a cycle.
#[test]
fn every_witness_replays_with_guarded_run() {
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc");
    for (k, code) in [("5", 0), ("3", 5)] {
        let dir = std::env::temp_dir().join(format!("guarded-witness-{}-{k}", std::process::id()));
        let dir_s = dir.to_str().unwrap();
        let param = format!("K={k}");
        let (exit, text) = guarded(&[
            "verify",
            program,
            "--topology",
            "ring:5",
            "--param",
            &param,
            "--witness",
            dir_s,
        ]);
        assert_eq!(exit, code, "{text}");
        let mut replayed = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "init") {
                continue;
            }
            let sched = path.with_extension("sched");
            let steps: Vec<String> = std::fs::read_to_string(&sched)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect();
            let moves: usize = steps.iter().map(|l| l.split_whitespace().count()).sum();
            let schedule = format!("schedule:{}", sched.display());
            let (_, json) = guarded(&[
                "run",
                program,
                "--topology",
                "ring:5",
                "--param",
                &param,
                "--init",
                path.to_str().unwrap(),
                "--daemon",
                &schedule,
                "--format",
                "json",
            ]);
            let v: serde_json::Value =
                serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
            let what = path.display().to_string();
            assert_eq!(v["steps"], steps.len(), "{what}");
            assert_eq!(v["moves"], moves, "{what}");
            if what.contains("most-rounds") {
                let name = path.file_name().unwrap().to_str().unwrap().to_string();
                let daemon = DAEMONS
                    .iter()
                    .find(|d| name.starts_with(&format!("{}-most", d.name())))
                    .unwrap();
                let inst = instance(DIJKSTRA, "ring:5", &[("K", k.parse().unwrap())]);
                let verdict = Explorer::new(&inst).unwrap().verify(daemon).unwrap();
                let Convergence::Holds { rounds, .. } = verdict.convergence else {
                    panic!("{what}: converges");
                };
                assert_eq!(
                    v["stabilized"]["round"],
                    rounds.unwrap().0,
                    "{what}: the same rounds"
                );
            }
            if what.contains("most-") {
                assert_eq!(v["legitimate"], true, "{what}");
                assert_eq!(
                    v["stabilized"]["step"],
                    steps.len(),
                    "{what}: legitimate at the last step only"
                );
            } else {
                assert_eq!(
                    v["first_legitimate"],
                    serde_json::Value::Null,
                    "{what}: never legitimate"
                );
                let start = std::fs::read_to_string(&path).unwrap();
                let end = &v;
                let xs: Vec<String> = end["final"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .enumerate()
                    .map(|(p, r)| format!("{p}.x = {}", r["x"]))
                    .collect();
                assert_eq!(
                    start.trim(),
                    xs.join("\n"),
                    "{what}: a cycle ends where it started"
                );
            }
            replayed += 1;
        }
        assert_eq!(
            replayed,
            if code == 0 { 12 } else { 4 },
            "witnesses for K={k}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn what_cannot_be_explored_is_refused_with_a_reason() {
    // Channels: every configuration would include every channel content.
    let arrow = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/arrow.gc");
    let (exit, _) = guarded(&["verify", arrow, "--topology", "chain:3"]);
    assert_eq!(exit, 1);
    let dijkstra = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc");
    let (exit, _) = guarded(&["verify", dijkstra, "--daemon", "centrl"]);
    assert_eq!(exit, 2);
}

/// A program that passes messages starts from every channel content
/// `--init random` can draw (`--from random`), and the header says what
/// the starts hold; one whose channels declare no messages at the start
/// starts with them empty. Programs that run in ticks are still refused.
#[test]
fn arbitrary_starts_with_messages_fill_the_channels() {
    let dir = std::env::temp_dir().join(format!("guarded-verify-fills-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let merging = |fill: &str| {
        format!(
            "message tok\nchannel capacity 1 {fill}\nvar has: bool\n\
             process {{\n walk :: has -> has := false; send tok to random(nbrs)\n\
             take :: receive tok from q -> has := true\n}}\n\
             legitimate: count(p in procs : p.has) + sum(p in procs : sum(q in nbrs(p) : msgs(p, q))) == 1\n"
        )
    };
    for (fill, starts, says) in [
        (
            "random 0..1",
            512,
            "each channel 0 to 1 messages of every type and field",
        ),
        ("random 0..0", 8, "channels empty"),
    ] {
        let program = dir.join("merging.gc");
        std::fs::write(&program, merging(fill)).unwrap();
        let program = program.to_str().unwrap();
        let args = [
            "verify", program, "-t", "ring:3", "-d", "central", "--from", "random",
        ];
        let (exit, out) = guarded(&args);
        assert_eq!(exit, 5, "{fill}: {out}");
        assert!(
            out.contains(&format!("{starts} arbitrary starts")),
            "{fill}: {out}"
        );
        assert!(out.contains(says), "{fill}: {out}");
        assert!(
            out.contains("convergence  fails: no process is enabled"),
            "{fill}: {out}"
        );
    }
    // Channels without a message type hold nothing: random starts leave
    // them empty (`run --init random` drew a type from none and panicked),
    // and a fill of one or more is refused before the run.
    let program = dir.join("none.gc");
    for (fill, exit_run, exit_verify) in [("", 0, 0), (" random 1..2", 1, 1)] {
        let text = format!("channel capacity 2{fill}\nvar x: bool\nprocess {{ a :: x -> x := false }}\nlegitimate: forall(p in procs : not p.x)\n");
        std::fs::write(&program, text).unwrap();
        let program = program.to_str().unwrap();
        let (exit, out) = guarded(&["run", program, "-t", "ring:3", "--init", "random"]);
        assert_eq!(exit, exit_run, "{fill}: {out}");
        let (exit, out) = guarded(&["verify", program, "-t", "ring:3", "--from", "random"]);
        assert_eq!(exit, exit_verify, "{fill}: {out}");
        if exit_verify != 0 {
            let (_, _, said) = common::guarded(&["check", program, "-t", "ring:3"]);
            assert!(said.contains("declares no message type"), "{said}");
        }
    }
    let arrow = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/arrow.gc");
    let (exit, _) = guarded(&["verify", arrow, "-t", "tree:3", "--from", "random"]);
    assert_eq!(exit, 1, "in ticks: refused");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_json_verdict_says_what_the_text_says() {
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc");
    let (exit, out) = guarded(&[
        "verify",
        program,
        "--topology",
        "ring:4",
        "--param",
        "K=4",
        "--format",
        "json",
    ]);
    assert_eq!(exit, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["configurations"], 256);
    assert_eq!(v["holds"], true);
    let daemons: Vec<&str> = v["daemons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["daemon"].as_str().unwrap())
        .collect();
    assert_eq!(
        daemons,
        ["central", "locally-central", "distributed", "synchronous"]
    );
    let central = &v["daemons"][0];
    assert_eq!(central["legitimate"], 40);
    assert_eq!(central["convergence"]["worst_steps"], 13);
    assert_eq!(central["convergence"]["worst_moves"], 13);
    assert_eq!(central["convergence"]["worst_rounds"], 5);
    let steps = central["convergence"]["most_steps"]["steps"]
        .as_array()
        .unwrap();
    assert_eq!(steps.len(), 13);
    let (exit, out) = guarded(&[
        "verify",
        program,
        "--topology",
        "ring:5",
        "--param",
        "K=3",
        "--daemon",
        "distributed",
        "--format",
        "json",
    ]);
    assert_eq!(exit, 5);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["holds"], false);
    let cycle = &v["daemons"][0]["convergence"]["cycle"];
    assert_eq!(cycle["steps"].as_array().unwrap().len(), 4);
}

/// Dijkstra's claim, exhaustively on rings of 3 to 6 machines: under the
/// central daemon (and the locally-central one) K >= N = n - 1 states
/// suffice and K = N - 1 does not; under the distributed and synchronous
/// daemons K = N does not (the program's header notes this defect of the
/// paper's distributed-demon argument under composite atomicity) and
/// K = N + 1 = n does. Wherever it converges on n >= 4 machines, the
/// worst case is 2n - 3 rounds under every daemon (as the README's table
/// shows up to n = 8).
#[test]
fn dijkstras_bound_is_exact_for_each_daemon() {
    for n in 3..=6i64 {
        for k in (n - 2).max(2)..=n {
            let inst = instance(DIJKSTRA, &format!("ring:{n}"), &[("K", k)]);
            let explorer = Explorer::new(&inst).unwrap();
            for d in &DAEMONS {
                let needs = match d {
                    Daemon::Central | Daemon::LocallyCentral => n - 1,
                    _ => n,
                };
                let v = explorer.verify(d).unwrap();
                assert!(v.closure.is_none(), "closure, n={n} K={k} {}", d.name());
                assert_eq!(
                    matches!(v.convergence, Convergence::Holds { .. }),
                    k >= needs,
                    "n={n} K={k} under {}",
                    d.name()
                );
                if let (Convergence::Holds { rounds, .. }, 4..) = (&v.convergence, n) {
                    let (rounds, _) = rounds.as_ref().expect("rounds are counted");
                    assert_eq!(*rounds as i64, 2 * n - 3, "n={n} K={k} {}", d.name());
                }
            }
        }
    }
}

/// The configurations reachable from a start, breadth first with the
/// public API, skipping steps that fault.
fn reachable_count(inst: &Instance, start: Config, daemon: &Daemon) -> usize {
    let mut rel = inst.step_relation();
    let mut seen = std::collections::HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    while let Some(c) = queue.pop_front() {
        let enabled = rel.enabled(&c).unwrap();
        for set in daemon.move_sets(&enabled, inst.topology(), 0) {
            if let Ok(next) = rel.successor_first(&c, &set) {
                if seen.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
    }
    seen.len()
}

/// Dijkstra and Scholten's arbitration is not self-stabilizing: it is
/// explored from its declared start. Under the central and locally-central
/// daemons Q0-Q2 hold in every reachable configuration, no step faults and
/// none is a deadlock; under the distributed and synchronous ones
/// neighbours take their forks in one step and Q0 breaks (a run stops
/// there, and so does the exploration), and the witness replays with
/// `guarded run` stopping at the violated invariant at its last step.
#[test]
fn arbitration_is_safe_under_the_daemons_it_is_written_for() {
    let src = include_str!("../programs/arbitration.gc");
    let mut inst = instance(src, "ring:4", &[]);
    let start = inst
        .initial(&guarded::runtime::init::InitMode::Declared, &[])
        .unwrap();
    for d in &DAEMONS {
        let ex = Explorer::reachable(&inst, start.clone(), d, None).unwrap();
        let v = ex.verify(d).unwrap();
        let safe = matches!(d, Daemon::Central | Daemon::LocallyCentral);
        assert_eq!(v.holds(), safe, "{}: {v:?}", d.name());
        assert_eq!(v.invariant.is_none(), safe, "{}", d.name());
        assert!(matches!(
            v.convergence,
            Convergence::NotDeclared { deadlock: None }
        ));
        if safe {
            assert_eq!(
                ex.configurations() as usize,
                reachable_count(&inst, start.clone(), d),
                "{}",
                d.name()
            );
        }
    }
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/arbitration.gc");
    let dir = std::env::temp_dir().join(format!("guarded-arbitration-{}", std::process::id()));
    let dir_s = dir.to_str().unwrap();
    let (exit, text) = guarded(&[
        "verify",
        program,
        "--topology",
        "ring:4",
        "--daemon",
        "synchronous",
        "--witness",
        dir_s,
    ]);
    assert_eq!(exit, 5, "{text}");
    let init = dir.join("synchronous-invariant.init");
    let sched_file = dir.join("synchronous-invariant.sched");
    let steps = std::fs::read_to_string(&sched_file)
        .unwrap()
        .lines()
        .count();
    let sched = format!("schedule:{}", sched_file.display());
    let (exit, json) = guarded(&[
        "run",
        program,
        "--topology",
        "ring:4",
        "--init",
        init.to_str().unwrap(),
        "--daemon",
        &sched,
        "--format",
        "json",
        "--no-final",
    ]);
    assert_eq!(exit, 4, "an invariant is violated");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["steps"], steps, "at the witness's last step");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The README's table of arbitration on small graphs: each row's counts of
/// reachable configurations, safety under the central and locally-central
/// daemons, and Q0 broken under the synchronous one.
#[test]
fn arbitration_on_small_graphs_is_as_the_readme_says() {
    let src = include_str!("../programs/arbitration.gc");
    let readme = include_str!("../README.md");
    let rows: [(&str, &[(&str, u64)]); 8] = [
        (
            "| path (`chain:3`, `chain:4`, `chain:5`, `chain:6`) | 3, 4, 5, 6 | 29, 93, 299, 961 |",
            &[
                ("chain:3", 29),
                ("chain:4", 93),
                ("chain:5", 299),
                ("chain:6", 961),
            ],
        ),
        (
            "| path (`chain:7`, `chain:8`) | 7, 8 | 3,089, 9,929 |",
            &[("chain:7", 3089), ("chain:8", 9929)],
        ),
        (
            "| cycle (`ring:3`, `ring:4`, `ring:5`, `ring:6`) | 3, 4, 5, 6 | 31, 105, 341, 1,101 |",
            &[
                ("ring:3", 31),
                ("ring:4", 105),
                ("ring:5", 341),
                ("ring:6", 1101),
            ],
        ),
        (
            "| cycle (`ring:7`, `ring:8`) | 7, 8 | 3,543, 11,393 |",
            &[("ring:7", 3543), ("ring:8", 11393)],
        ),
        (
            "| K4, K5 (`complete:4`, `complete:5`) | 4, 5 | 129, 651 |",
            &[("complete:4", 129), ("complete:5", 651)],
        ),
        (
            "| star (`star:5`, `star:6`, `star:7`) | 5, 6, 7 | 353, 1,299, 4,889 |",
            &[("star:5", 353), ("star:6", 1299), ("star:7", 4889)],
        ),
        (
            "| grid (`grid:2x3`, `grid:3x3`) | 6, 9 | 1,365, 75,775 |",
            &[("grid:2x3", 1365), ("grid:3x3", 75775)],
        ),
        (
            "| Petersen graph (`petersen`) | 10 | 397,641 |",
            &[("petersen", 397641)],
        ),
    ];
    for (row, graphs) in rows {
        assert!(readme.contains(row), "the README shows {row}");
        for &(topology, count) in graphs {
            let mut inst = instance(src, topology, &[]);
            let start = inst
                .initial(&guarded::runtime::init::InitMode::Declared, &[])
                .unwrap();
            for d in [Daemon::Central, Daemon::LocallyCentral, Daemon::Synchronous] {
                let ex = Explorer::reachable(&inst, start.clone(), &d, None).unwrap();
                let v = ex.verify(&d).unwrap();
                let safe = d != Daemon::Synchronous;
                assert_eq!(v.invariant.is_none(), safe, "{topology} {}", d.name());
                if safe {
                    assert_eq!(ex.configurations(), count, "{topology} {}", d.name());
                    assert!(matches!(
                        v.convergence,
                        Convergence::NotDeclared { deadlock: None }
                    ));
                } else {
                    let (name, run) = v.invariant.as_ref().unwrap();
                    assert_eq!(name, "Q0", "{topology}");
                    assert_eq!(
                        run.steps.len(),
                        1,
                        "{topology}: Q0 breaks at the first step"
                    );
                }
            }
        }
    }
}

/// A step that leaves its domain is a counterexample from every
/// configuration too, and its witness replays as a runtime error.
#[test]
fn a_faulting_step_is_reported_and_replays_as_a_runtime_error() {
    let dir = std::env::temp_dir().join(format!("guarded-fault-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("up.gc");
    std::fs::write(
        &program,
        "var x: 0..2\nprocess { up :: x < 3 -> x := x + 1 }\nlegitimate: forall(p in procs : p.x == 2)\n",
    )
    .unwrap();
    let p = program.to_str().unwrap();
    let w = dir.join("w");
    let (exit, text) = guarded(&[
        "verify",
        p,
        "--topology",
        "chain:2",
        "--daemon",
        "central",
        "--witness",
        w.to_str().unwrap(),
    ]);
    assert_eq!(exit, 5, "{text}");
    assert!(
        text.contains("faults       fails: `x` := 3 is outside its domain 0..2"),
        "{text}"
    );
    let sched = format!("schedule:{}", w.join("central-fault.sched").display());
    let init = w.join("central-fault.init");
    let (exit, _) = guarded(&[
        "run",
        p,
        "--topology",
        "chain:2",
        "--init",
        init.to_str().unwrap(),
        "--daemon",
        &sched,
    ]);
    assert_eq!(exit, 3, "the witness's step raises the error");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Weak fairness: a process that spins forever can starve another under an
/// unfair daemon, and that cycle is unfair (the starved process is enabled
/// throughout and never moves), so the program converges under weak
/// fairness; Dijkstra's ring with too few states has a weakly fair cycle
/// (every privileged process moves at every synchronous step).
#[test]
fn weak_fairness_excuses_only_unfair_cycles() {
    let spin = "var x: 0..1 = 0\nvar done: bool = false\n\
        process where index == 0 { spin :: true -> x := 1 - x }\n\
        process where index == 1 { finish :: not done -> done := true }\n\
        legitimate: forall(p in procs : p.index == 0 or p.done)\n";
    let inst = instance(spin, "chain:2", &[]);
    let ex = Explorer::new(&inst).unwrap();
    let unfair = ex.verify(&Daemon::Central).unwrap();
    assert!(matches!(unfair.convergence, Convergence::Cycle { .. }));
    let fair = ex.verify_fairly(&Daemon::Central, Fairness::Weak).unwrap();
    assert!(fair.holds());
    match fair.convergence {
        Convergence::HoldsUnderFairness { run, cycle_from } => {
            assert!(
                (cycle_from..run.steps.len()).all(|k| run.movers(k) == [0]),
                "only the spinner moves"
            );
        }
        other => panic!("{other:?}"),
    }
    // Steps that change nothing: a configuration alone, its own cycle,
    // fair when every process stutters in turn.
    let stutter = "var x: 0..1 = 0\nprocess { idle :: x == 0 -> x := x }\n\
        legitimate: forall(p in procs : p.x == 1)\n";
    let inst = instance(stutter, "chain:2", &[]);
    let v = Explorer::new(&inst)
        .unwrap()
        .verify_fairly(&Daemon::Central, Fairness::Weak)
        .unwrap();
    match v.convergence {
        Convergence::Cycle { run, cycle_from } => {
            assert_eq!(cycle_from, 0);
            let movers: Vec<Vec<u32>> = (0..run.steps.len()).map(|k| run.movers(k)).collect();
            assert_eq!(movers, [vec![0], vec![1]], "each stutters in turn");
        }
        other => panic!("{other:?}"),
    }
    let inst = instance(DIJKSTRA, "ring:4", &[("K", 3)]);
    let v = Explorer::new(&inst)
        .unwrap()
        .verify_fairly(&Daemon::Synchronous, Fairness::Weak)
        .unwrap();
    match v.convergence {
        Convergence::Cycle { run, cycle_from } => {
            // Fair: every process enabled at every configuration of the
            // cycle moves in it (synchronous steps move them all).
            let rel = inst.step_relation();
            let cycle = &cycle_configs(&inst, &run, cycle_from);
            let always: Vec<u32> = (0..4u32)
                .filter(|&p| cycle.iter().all(|c| rel.enabled(c).unwrap().contains(&p)))
                .collect();
            for p in always {
                assert!(
                    (cycle_from..run.steps.len()).any(|k| run.movers(k).contains(&p)),
                    "process {p} moves"
                );
            }
        }
        other => panic!("{other:?}"),
    }
}

/// The configurations a run goes through round its cycle, replayed by
/// the step relation (checked to close).
fn cycle_configs(inst: &Instance, run: &Run, cycle_from: usize) -> Vec<Config> {
    let mut rel = inst.step_relation();
    let mut cfg = run.start.clone();
    let mut configs = Vec::new();
    for moves in &run.steps {
        configs.push(cfg.clone());
        cfg = rel.successor_of(&cfg, moves).unwrap();
    }
    assert_eq!(cfg, configs[cycle_from], "the cycle closes");
    configs.split_off(cycle_from)
}

/// A process enabled now and then, never throughout: process 0 flips `t`
/// for ever and process 1 may fix itself only while `t` is 1. The flipping
/// cycle is weakly fair (1 is not enabled throughout it) but not strongly
/// (1 is enabled on it and never moves), so the program converges under
/// strong fairness only; Dijkstra's ring with too few states has a
/// strongly fair cycle, each process enabled on it moving in it.
#[test]
fn strong_fairness_excuses_a_process_enabled_now_and_then() {
    let flicker = "var t: 0..1 = 0\nvar d: bool = false\n\
        process where index == 0 { flip :: true -> t := 1 - t }\n\
        process where index != 0 { fix :: not d and left.t == 1 -> d := true }\n\
        legitimate: forall(p in procs : p.index == 0 or p.d)\n";
    let inst = instance(flicker, "ring:2", &[]);
    let ex = Explorer::new(&inst).unwrap();
    for daemon in [Daemon::Central, Daemon::Distributed, Daemon::LocallyCentral] {
        let weak = ex.verify_fairly(&daemon, Fairness::Weak).unwrap();
        assert!(
            matches!(weak.convergence, Convergence::Cycle { .. }),
            "{daemon:?}"
        );
        let strong = ex.verify_fairly(&daemon, Fairness::Strong).unwrap();
        assert!(strong.holds(), "{daemon:?}");
        assert_eq!(strong.fairness, Fairness::Strong);
        match strong.convergence {
            Convergence::HoldsUnderFairness { run, cycle_from } => {
                let configs = cycle_configs(&inst, &run, cycle_from);
                let rel = inst.step_relation();
                assert!(configs.iter().any(|c| rel.enabled(c).unwrap().contains(&1)));
                assert!((cycle_from..run.steps.len()).all(|k| !run.movers(k).contains(&1)));
            }
            other => panic!("{other:?}"),
        }
    }
    let inst = instance(DIJKSTRA, "ring:4", &[("K", 2)]);
    let rel = inst.step_relation();
    for daemon in [Daemon::Central, Daemon::Distributed] {
        let v = Explorer::new(&inst)
            .unwrap()
            .verify_fairly(&daemon, Fairness::Strong)
            .unwrap();
        let Convergence::Cycle { run, cycle_from } = v.convergence else {
            panic!("{:?}", v.convergence)
        };
        let configs = cycle_configs(&inst, &run, cycle_from);
        for p in 0..4u32 {
            if configs.iter().any(|c| rel.enabled(c).unwrap().contains(&p)) {
                assert!(
                    (cycle_from..run.steps.len()).any(|k| run.movers(k).contains(&p)),
                    "{daemon:?}: process {p} is enabled on the cycle and moves"
                );
            }
        }
    }
}

/// Johnen's Theorem 19, exhaustively on the smallest ring that fits: on a
/// unidirectional ring of N = 3 with k = 1 (157,464 configurations), under
/// the distributed daemon, every run ends in the one silent legitimate
/// configuration within (k + 2)N + 1 = 10 rounds (the exact worst case is 4).
#[test]
fn johnens_round_bound_holds_on_every_configuration_of_a_small_ring() {
    // (ring, daemon, configurations, worst rounds): the bound is (k + 2)N + 1.
    let cases = [
        ("uring:3", Daemon::Distributed, 157_464, 4),
        ("uring:4", Daemon::Central, 8_503_056, 5),
    ];
    for (ring, daemon, configurations, most) in cases {
        let inst = instance(
            include_str!("../programs/johnen_leader.gc"),
            ring,
            &[("k", 1)],
        );
        let v = Explorer::new(&inst).unwrap().verify(&daemon).unwrap();
        assert_eq!((v.configurations, v.legitimate), (configurations, 1));
        assert!(v.holds());
        let Convergence::Holds { rounds, .. } = v.convergence else {
            panic!("converges");
        };
        let (worst, _) = rounds.expect("rounds are counted");
        let n = inst.topology().n() as u64;
        assert!(worst <= (1 + 2) * n + 1, "{worst} rounds");
        assert_eq!(worst, most, "{ring}");
    }
}

/// The evaluation of every configuration, and the search for the worst
/// case from 65,536 configurations on, run on every thread: one thread or
/// four give the same verdicts, counts, first invariant violation and
/// worst cases.
#[test]
fn one_thread_or_four_give_the_same_verdicts() {
    let counter = include_str!("golden/programs/counter_invariant.gc");
    // Several blocks of configurations each (46,656, 117,649 and 100,000).
    let cases = [
        (DIJKSTRA, "ring:6", vec![("K", 6)]),
        (DIJKSTRA, "ring:6", vec![("K", 7)]),
        (counter, "chain:5", vec![]),
    ];
    let on = |threads: usize, src: &str, topology: &str, params: &[(&str, i64)]| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let inst = instance(src, topology, params);
            let ex = Explorer::new(&inst).unwrap();
            DAEMONS
                .iter()
                .map(|d| format!("{:?}", ex.verify(d).unwrap()))
                .collect::<Vec<_>>()
        })
    };
    for (src, topology, params) in &cases {
        assert_eq!(
            on(1, src, topology, params),
            on(4, src, topology, params),
            "{topology} {params:?}"
        );
    }
}

/// From a start, the configurations next in line are expanded on every
/// thread: one thread or four number them alike and give the same
/// verdicts, first fault, first invariant violation and runs. Arbitration
/// (kept as codes; Q0 breaks under two daemons) reaches tens of thousands
/// of configurations; a program with channels (kept whole) overflows a
/// domain.
#[test]
fn from_a_start_one_thread_or_four_give_the_same_verdicts() {
    let arbitration = include_str!("../programs/arbitration.gc");
    let pings = "message ping\nchannel capacity 2\nvar sent: 0..2 = 0\nvar got: 0..3 = 0\n\
                 process {\n    go :: sent < 2 -> sent := sent + 1; for q in nbrs { send ping to q }\n\
                 \x20   take :: receive ping from q -> got := got + 1\n}\n";
    let on = |threads: usize, src: &str, topology: &str| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut inst = instance(src, topology, &[]);
            let start = inst
                .initial(&guarded::runtime::init::InitMode::Declared, &[])
                .unwrap();
            DAEMONS
                .iter()
                .map(|d| {
                    let ex = Explorer::reachable(&inst, start.clone(), d, None).unwrap();
                    format!("{:?}", ex.verify(d).unwrap())
                })
                .collect::<Vec<_>>()
        })
    };
    let cases = [
        (arbitration, "chain:7", ["configurations: 3089", "Q0"]),
        (
            pings,
            "ring:3",
            // 9758 while messages to different processes were ordered.
            ["configurations: 8222", "outside its domain"],
        ),
    ];
    for (src, topology, shown) in cases {
        let one = on(1, src, topology);
        assert_eq!(one, on(4, src, topology), "{topology}");
        // What the cases are there to show.
        let all = one.join("\n");
        for what in shown {
            assert!(all.contains(what), "{topology} shows {what}: {all}");
        }
    }
}

/// The command's loose ends: daemons as a list, in the order given, each
/// once; from a start the JSON counts what each daemon reaches; a step
/// repeated in a row is written once with how many; counts of one are
/// singular.
#[test]
fn daemons_as_a_list_counts_per_daemon_and_runs_in_short() {
    let (code, text) = guarded(&[
        "verify",
        concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc"),
        "--topology",
        "ring:4",
        "--param",
        "K=3",
        "-d",
        "synchronous,central,synchronous",
    ]);
    assert_eq!(code, 5, "{text}");
    let blocks: Vec<&str> = text.lines().filter(|l| l.starts_with("daemon ")).collect();
    assert_eq!(blocks.len(), 2, "{text}");
    assert!(
        blocks[0].starts_with("daemon synchronous:") && blocks[1].starts_with("daemon central:")
    );
    assert!(
        text.contains(
            "a cycle of 3 steps outside legitimacy, from x = [0, 2, 1, 0], moving {0,1,2,3} ×3"
        ),
        "{text}"
    );
    // Nothing is drawn, so no word about probability (tests/herman.rs has one).
    assert!(!text.contains("guarded expect"), "{text}");
    let (code, json) = guarded(&[
        "verify",
        concat!(env!("CARGO_MANIFEST_DIR"), "/programs/arbitration.gc"),
        "--topology",
        "chain:3",
        "-d",
        "central,synchronous",
        "--format",
        "json",
    ]);
    assert_eq!(code, 5, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let reached: Vec<(&str, u64)> = v["daemons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["daemon"].as_str().unwrap(),
                d["configurations"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(reached[0], ("central", 29), "{json}");
    assert_eq!(reached[1].0, "synchronous");
    let (code, text) = guarded(&["verify", "programs/dijkstra_kstate.gc", "-d", "centrl"]);
    assert_eq!(code, 2, "{text}");
}

/// A family of sizes: one table, the exact closed form of each worst case
/// (Dijkstra's 4-state chain: (n-1)(n-2) moves under the central daemon),
/// and the same as CSV and JSON; where a size fails, no closed form.
#[test]
fn a_family_of_sizes_gives_its_closed_forms() {
    let four_state = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/programs/four_state.gc"
    );
    let (code, text) = guarded(&[
        "verify",
        four_state,
        "--topology",
        "chain:3..10",
        "-d",
        "central",
        "--no-rounds",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("(8 sizes)"), "{text}");
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.contains("chain:9 "))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        row,
        ["9", "chain:9", "65536", "central", "holds", "56", "56", "-"],
        "{text}"
    );
    assert!(text.contains("moves   n^2 - 3n + 2 = (n-1)(n-2)"), "{text}");
    let (code, csv) = guarded(&[
        "verify",
        four_state,
        "--topology",
        "chain:3..5",
        "-d",
        "central,synchronous",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{csv}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "n,topology,parameters,configurations,daemon,holds,verdict,worst_steps,worst_moves,worst_rounds");
    assert_eq!(lines.len(), 1 + 3 * 2, "{csv}");
    assert!(
        lines[1].starts_with("3,chain:3,,16,central,true,holds,2,2,"),
        "{csv}"
    );
    let (code, json) = guarded(&[
        "verify",
        concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc"),
        "--topology",
        "ring:3..7",
        "--param",
        "K=n",
        "-d",
        "synchronous",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["sizes"].as_array().unwrap().len(), 5);
    assert_eq!(v["sizes"][2]["parameters"]["K"], 5);
    assert_eq!(
        v["closed_forms"]["synchronous"]["rounds"]["polynomial"],
        "2n - 3"
    );
    assert_eq!(
        v["closed_forms"]["synchronous"]["moves"]["polynomial"],
        "(3n^2 - 3n - 2)/2"
    );
    // K = 3 admits a cycle from the ring of 5 on: no closed form, exit 5.
    let (code, text) = guarded(&[
        "verify",
        concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc"),
        "--topology",
        "ring:3..6",
        "--param",
        "K=3",
        "-d",
        "central",
        "--no-rounds",
    ]);
    assert_eq!(code, 5, "{text}");
    assert!(text.contains("steps   not every size converges"), "{text}");
    // Where the symbolic engine leaves a measure uncounted, the sizes
    // converge and the closed form says which sizes it lacks.
    let (code, text) = guarded(&[
        "verify",
        concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc"),
        "--topology",
        "ring:3..6",
        "--param",
        "K=n",
        "-d",
        "synchronous",
        "--no-rounds",
        "--engine",
        "symbolic",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("moves   not counted at n = 3, 4, 5, 6"),
        "{text}"
    );
    assert!(!text.contains("converges"), "{text}");
    // Four sizes fit no more than a line: the verdict names the degree
    // tried, and two sizes fit nothing, so no range of fitted sizes is
    // named.
    let dijkstra = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc");
    let family = |sizes: &str| {
        let topology = format!("ring:{sizes}");
        guarded(&[
            "verify",
            dijkstra,
            "--topology",
            &topology,
            "--param",
            "K=n",
            "-d",
            "central",
            "--no-rounds",
        ])
    };
    let (code, text) = family("3..6");
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("through n = 3..4, predicting n = 5 and 6"),
        "{text}"
    );
    assert!(
        text.contains(
            "steps   no polynomial of degree <= 1 fits; 4 sizes try no higher, degree <= 3 needs 6"
        ),
        "{text}"
    );
    let (code, text) = family("3..4");
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("closed forms in n ("), "{text}");
    assert!(
        text.contains("steps   too few sizes for a closed form (at least 3)"),
        "{text}"
    );
}

/// A program whose timers advance with rounds is refused, saying what to
/// do instead: with channels, run in ticks (which verify explores from a
/// start, timers included); without, explore runs.
#[test]
fn timers_in_rounds_are_refused_with_what_to_do_instead() {
    let dir = std::env::temp_dir().join(format!("guarded-timers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A token the leader sends again when it has not come back for 8
    // ticks (or rounds): longer than the way round, 3 hops of at most 2.
    let resend = "process where index == 0 {\n    \
                  got :: receive ping from q -> t := 0; send ping to right\n    \
                  resend :: t >= 8 -> t := 0; send ping to right\n}\n\
                  process where index != 0 {\n    pass :: receive ping from q -> send ping to right\n}\n\
                  legitimate: sum(p in procs : sum(q in nbrs(p) : msgs(p, q))) == 1\n";
    let program = |name: &str, channel: &str| {
        let text = format!("topology ring:3\nmessage ping\n{channel}\ntimer t: 0..8 = 8\n{resend}");
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let in_rounds = program("rounds.gc", "channel capacity 2");
    let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(["verify", &in_rounds, "--from", "declared"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("timers") && err.contains("`delay lo..hi`"),
        "{err}"
    );
    // The same program in ticks is explored, its timer with it.
    let in_ticks = program("ticks.gc", "channel capacity 2 delay 1..2");
    let (code, out) = guarded(&["verify", &in_ticks, "--from", "declared"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("convergence  holds"), "{out}");
    assert!(out.contains("0:resend"), "the timer's action runs: {out}");
    let no_channels = dir.join("plain.gc");
    std::fs::write(
        &no_channels,
        "topology ring:3\ntimer t: 0..2 = 0\nvar x: 0..1 = 0\n\
         process {\n    a :: t >= 2 and x != left.x -> x := left.x; t := 0\n}\n\
         legitimate: true\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(["verify", &no_channels.to_string_lossy()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("`guarded sweep`"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Where some role has several actions, every mover of a witness is named,
/// the one of a role with one action too: `{0,1:raise}` would read as both
/// taking `raise`.
#[test]
fn every_mover_is_named_once_some_role_has_several_actions() {
    let dir = std::env::temp_dir().join(format!("guarded-named-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("named.gc");
    std::fs::write(
        &program,
        "var x: 0..1\n\
         process where index == 0 { root :: x == 1 -> x := 0 }\n\
         process where index != 0 {\n\
             lower :: x == 1 and left.x == 0 -> x := 0\n\
             raise :: x == 0 and left.x == 1 -> x := 1\n\
         }\n\
         legitimate: forall(p in procs : p.x == 0)\n",
    )
    .unwrap();
    let (exit, text) = guarded(&[
        "verify",
        program.to_str().unwrap(),
        "--topology",
        "chain:3",
        "--from",
        "all",
        "--daemon",
        "synchronous",
    ]);
    assert_eq!(exit, 0, "{text}");
    assert!(
        text.contains("most moves   from x = [1, 0, 1], moving {0:root,1:raise,2:lower} {1:lower,2:raise} {2:lower}"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A domain too large for the state space's lists (`0..1000000000`) is
/// refused with the variable's name by every command that would list it,
/// where it aborted the process (an allocation of 8 GB); `expect` from
/// the declared start lists nothing and still answers.
#[test]
fn a_domain_too_large_to_list_is_refused_not_a_crash() {
    let file = common::scratch("wide", "big.gc");
    std::fs::write(
        &file,
        "var big: 0..1000000000 = 0\nprocess { a :: big < 3 -> big := big + 1 }\n\
         legitimate: forall(p in procs : p.big >= 3)\n",
    )
    .unwrap();
    let program = file.to_str().unwrap();
    for args in [
        &["verify", program, "-t", "ring:3"][..],
        &["verify", program, "-t", "ring:3", "--from", "declared"],
        &["verify", program, "-t", "ring:3", "--from", "random"],
        &["verify", program, "-t", "ring:3", "--engine", "symbolic"],
        &["expect", program, "-t", "ring:3"],
        &["expect", program, "-t", "ring:3", "--from", "random"],
    ] {
        // A process killed by the failed allocation has no exit code.
        let (code, _, err) = common::guarded(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains("the variable `big` has 1000000001 values"),
            "{args:?}: {err}"
        );
    }
    let (code, _, err) =
        common::guarded(&["expect", program, "-t", "ring:3", "--from", "declared"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(&file).ok();
}
