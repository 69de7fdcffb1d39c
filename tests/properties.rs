//! Properties of runs (`property NAME: ...`) checked by `verify`: each form
//! holding where it should and failing on a deliberately broken variant,
//! every run it reports replaying through the step relation and showing
//! what it says (an example ends where it holds; a step leaves a stable
//! predicate; a lasso goes round a cycle that never reaches the second
//! predicate, weakly fair under weak fairness).

mod common;
use common::{guarded, instance};
use guarded::load::Instance;
use guarded::runtime::daemon::Daemon;
use guarded::state::Config;
use guarded::verify::{Explorer, Fairness, PropertyVerdict, Run, Starts};

const DIJKSTRA: &str = include_str!("../programs/dijkstra_kstate.gc");

const DAEMONS: [Daemon; 4] = [
    Daemon::Central,
    Daemon::LocallyCentral,
    Daemon::Distributed,
    Daemon::Synchronous,
];

/// Dijkstra's ring with the properties it declares (`token_fair`,
/// `one_privilege_stays`: what the paper claims with K >= n - 1), and more.
fn dijkstra_with_properties() -> String {
    format!(
        "{DIJKSTRA}
property all_ones: sometimes forall(q in procs : q.x == 1)
property converges: true leads_to count(q in procs : enabled(q)) == 1
property zeros_stay: stable forall(q in procs : q.x == 0)
property some_privilege: always count(q in procs : enabled(q)) >= 1
property one_privilege: always count(q in procs : enabled(q)) <= 1
"
    )
}

/// A process that spins for as long as its left neighbour does not fix
/// itself: the left one may never fix itself unless weakly fair.
const SPINNER: &str = "var x: 0..1
var y: 0..1
process {
    fix  :: x == 0 -> x := 1
    spin :: x == 1 and left.x == 0 -> y := 1 - y
}
legitimate: forall(p in procs : p.x == 1)
property fixed: forall(p in procs : always eventually p.x == 1)
property none_fixed: sometimes forall(p in procs : p.x == 0 and p.y == 1)
";

fn verdicts(inst: &Instance, daemon: &Daemon, fairness: Fairness) -> Vec<PropertyVerdict> {
    let mut ex = Explorer::new(inst).unwrap();
    ex.count_rounds(false);
    ex.verify_fairly(daemon, fairness).unwrap().properties
}

fn named<'v>(vs: &'v [PropertyVerdict], name: &str) -> &'v PropertyVerdict {
    vs.iter().find(|v| v.name == name).unwrap()
}

/// The configurations of `run`, its start first.
fn replay(inst: &Instance, run: &Run) -> Vec<Config> {
    let mut rel = inst.step_relation();
    let mut seen = vec![run.start.clone()];
    for step in &run.steps {
        let next = rel.successor_of(seen.last().unwrap(), step).unwrap();
        seen.push(next);
    }
    seen
}

fn one_enabled(inst: &Instance, cfg: &Config) -> bool {
    inst.step_relation().enabled(cfg).unwrap().len() == 1
}

#[test]
fn dijkstra_keeps_its_properties_under_every_daemon() {
    let src = dijkstra_with_properties();
    for n in [3, 4, 5] {
        let inst = instance(&src, &format!("ring:{n}"), &[]);
        for daemon in &DAEMONS {
            let vs = verdicts(&inst, daemon, Fairness::Unfair);
            for name in [
                "token_fair",
                "one_privilege_stays",
                "all_ones",
                "converges",
                "some_privilege",
            ] {
                assert!(
                    named(&vs, name).holds,
                    "ring of {n}, {}: {name}",
                    daemon.name()
                );
            }
            // The example ends where every value is 1.
            let (run, _) = named(&vs, "all_ones").run.clone().unwrap();
            let end = replay(&inst, &run).pop().unwrap();
            assert!(end.rows.iter().all(|&x| x == 1));
            // All zeros is left at once: process 0 advances.
            let broken = named(&vs, "zeros_stay");
            assert!(!broken.holds);
            let (run, cycle) = broken.run.clone().unwrap();
            assert_eq!(cycle, None);
            let seen = replay(&inst, &run);
            assert!(seen[seen.len() - 2].rows.iter().all(|&x| x == 0));
            assert!(seen[seen.len() - 1].rows.iter().any(|&x| x != 0));
            // From every configuration, one with several privileges.
            let (run, _) = named(&vs, "one_privilege").run.clone().unwrap();
            assert!(run.steps.is_empty());
            assert!(inst.step_relation().enabled(&run.start).unwrap().len() > 1);
        }
    }
}

/// Token fairness broken: a bottom machine that stops counting at K - 1
/// lets the ring run down to all K - 1, where no machine is privileged: a
/// run that ends without some machine privileged again, which replays.
#[test]
fn a_ring_that_stops_counting_is_not_token_fair() {
    let src = DIJKSTRA.replace(
        "advance :: x == left.x -> x := (x + 1) mod K",
        "advance :: x == left.x and x < K - 1 -> x := x + 1",
    );
    assert_ne!(src, DIJKSTRA, "the variant differs");
    let inst = instance(&src, "ring:4", &[]);
    for daemon in &DAEMONS {
        let vs = verdicts(&inst, daemon, Fairness::Unfair);
        let v = named(&vs, "token_fair");
        assert!(!v.holds, "{}", daemon.name());
        let p = v.process.expect("said of each process") as u32;
        let (run, cycle) = v.run.clone().unwrap();
        assert_eq!(cycle, None, "the run ends");
        let seen = replay(&inst, &run);
        let rel = inst.step_relation();
        let end = seen.last().unwrap();
        assert!(
            rel.enabled(end).unwrap().is_empty(),
            "no machine privileged"
        );
        for cfg in &seen {
            assert!(
                !rel.enabled(cfg).unwrap().contains(&p),
                "machine {p} never privileged"
            );
        }
    }
}

#[test]
fn too_few_states_break_convergence_with_a_lasso() {
    let src = dijkstra_with_properties();
    let inst = instance(&src, "ring:4", &[("K", 2)]);
    for daemon in &DAEMONS[..3] {
        for fairness in [Fairness::Unfair, Fairness::Weak, Fairness::Strong] {
            let vs = verdicts(&inst, daemon, fairness);
            let v = named(&vs, "converges");
            assert!(!v.holds, "{}", daemon.name());
            let (run, cycle_from) = v.run.clone().unwrap();
            let from = cycle_from.expect("a cycle");
            let seen = replay(&inst, &run);
            assert_eq!(
                seen[from].rows,
                seen[seen.len() - 1].rows,
                "the cycle closes"
            );
            for cfg in &seen[from..] {
                assert!(
                    !one_enabled(&inst, cfg),
                    "the cycle never reaches one token"
                );
            }
            match fairness {
                Fairness::Weak => assert_weakly_fair(&inst, &run, from),
                Fairness::Strong => assert_strongly_fair(&inst, &run, from),
                Fairness::Unfair => {}
            }
        }
    }
}

#[test]
fn a_starved_process_breaks_always_eventually_unless_weakly_fair() {
    for n in [3, 4] {
        let inst = instance(SPINNER, &format!("ring:{n}"), &[]);
        for daemon in [Daemon::Central, Daemon::Distributed, Daemon::LocallyCentral] {
            let unfair = verdicts(&inst, &daemon, Fairness::Unfair);
            let v = named(&unfair, "fixed");
            assert!(!v.holds, "{}", daemon.name());
            let p = v.process.expect("said of a process");
            let (run, from) = v.run.clone().unwrap();
            let seen = replay(&inst, &run);
            let stride = seen[0].rows.len() / n;
            for cfg in &seen[from.unwrap()..] {
                assert_eq!(cfg.rows[p * stride], 0, "process {p} never fixed");
            }
            let fair = verdicts(&inst, &daemon, Fairness::Weak);
            assert!(named(&fair, "fixed").holds, "{}", daemon.name());
            // Every configuration is a start: the example is one of them.
            let (run, _) = named(&fair, "none_fixed").run.clone().unwrap();
            assert!(run.steps.is_empty());
        }
    }
}

#[test]
fn from_a_start_an_example_and_a_counterexample_begin_there() {
    let src = dijkstra_with_properties();
    let mut inst = instance(&src, "ring:4", &[]);
    let start = inst
        .initial(&guarded::runtime::init::InitMode::Declared, &[])
        .unwrap();
    let mut ex =
        Explorer::reachable(&inst, Starts::One(start.clone()), &Daemon::Central, None).unwrap();
    ex.count_rounds(false);
    let vs = ex.verify(&Daemon::Central).unwrap().properties;
    let (run, _) = named(&vs, "all_ones").run.clone().unwrap();
    assert_eq!(run.start.rows, start.rows);
    assert_eq!(run.steps.len(), 4, "0000 -> 1000 -> 1100 -> 1110 -> 1111");
    let (run, _) = named(&vs, "zeros_stay").run.clone().unwrap();
    assert_eq!(run.start.rows, start.rows);
    assert_eq!(run.steps.len(), 1);
    // From the declared start (one privilege), it stays one: `always` holds.
    assert!(named(&vs, "one_privilege").holds);
}

/// Every process enabled throughout the cycle of `run` moves in it.
fn assert_weakly_fair(inst: &Instance, run: &Run, from: usize) {
    let seen = replay(inst, run);
    let rel = inst.step_relation();
    let mut throughout: Option<Vec<u32>> = None;
    for cfg in &seen[from..seen.len() - 1] {
        let en = rel.enabled(cfg).unwrap();
        throughout = Some(match throughout {
            None => en,
            Some(t) => t.into_iter().filter(|p| en.contains(p)).collect(),
        });
    }
    let moved: Vec<u32> = run.steps[from..]
        .iter()
        .flatten()
        .map(|m| m.process)
        .collect();
    for p in throughout.unwrap_or_default() {
        assert!(
            moved.contains(&p),
            "process {p} enabled throughout never moves"
        );
    }
}

/// Every process enabled anywhere on the cycle of `run` moves in it.
fn assert_strongly_fair(inst: &Instance, run: &Run, from: usize) {
    let seen = replay(inst, run);
    let rel = inst.step_relation();
    let moved: Vec<u32> = run.steps[from..]
        .iter()
        .flatten()
        .map(|m| m.process)
        .collect();
    for cfg in &seen[from..] {
        for p in rel.enabled(cfg).unwrap() {
            assert!(moved.contains(&p), "process {p} enabled on it never moves");
        }
    }
}

/// Process 0 flips `t` for ever; process 1 may fix itself only while `t`
/// is 1 (`never_fix`: in the broken variant, never): enabled now and then,
/// never throughout, so weak fairness does not make it fix itself and
/// strong fairness does.
const FLICKER: &str = "var t: 0..1
var d: bool
process where index == 0 {
    flip :: true -> t := 1 - t
}
process where index != 0 {
    fix :: not d and left.t == 1 and not never_fix -> d := true
}
legitimate: forall(p in procs : p.index == 0 or p.d)
property fixed: true leads_to forall(p in procs : p.index == 0 or p.d)
";

#[test]
fn a_process_enabled_now_and_then_is_served_only_under_strong_fairness() {
    for (never_fix, topology) in [(0, "ring:2"), (1, "ring:2")] {
        let src = format!("param never_fix = {never_fix}\n{FLICKER}")
            .replace("not never_fix", "never_fix == 0");
        let inst = instance(&src, topology, &[]);
        for daemon in [Daemon::Central, Daemon::Distributed, Daemon::LocallyCentral] {
            let weak = verdicts(&inst, &daemon, Fairness::Weak);
            let v = named(&weak, "fixed");
            assert!(!v.holds, "{topology} {}", daemon.name());
            let (run, from) = v.run.clone().unwrap();
            assert_weakly_fair(&inst, &run, from.unwrap());
            let strong = verdicts(&inst, &daemon, Fairness::Strong);
            let v = named(&strong, "fixed");
            assert_eq!(v.holds, never_fix == 0, "{topology} {}", daemon.name());
            if let Some((run, from)) = v.run.clone() {
                assert_strongly_fair(&inst, &run, from.unwrap());
            }
        }
    }
}

#[test]
fn strong_fairness_on_the_command_line() {
    let file = common::scratch("strong", "flicker.gc");
    let src = format!("param never_fix = 0\ntopology ring:2\n{FLICKER}")
        .replace("not never_fix", "never_fix == 0");
    std::fs::write(&file, src).unwrap();
    let file = file.to_str().unwrap();
    let (code, out, _) = guarded(&["verify", file, "-d", "central", "--fairness", "strong"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("`fixed` holds: every strongly fair run"),
        "{out}"
    );
    assert!(out.contains("holds under strong fairness"), "{out}");
    let (code, out, _) = guarded(&["verify", file, "-d", "central", "--fairness", "weak"]);
    assert_eq!(code, 5, "{out}");
    assert!(
        out.contains("`fixed` fails: it never holds again on a weakly fair cycle"),
        "{out}"
    );
    let json = [
        "verify",
        file,
        "-d",
        "central",
        "--fairness",
        "strong",
        "--format",
        "json",
    ];
    let (code, out, _) = guarded(&json);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["daemons"][0]["fairness"], "strong");
    assert_eq!(v["daemons"][0]["convergence"]["under_fairness"], "strong");
    let symbolic = [
        "verify",
        file,
        "--fairness",
        "strong",
        "--engine",
        "symbolic",
    ];
    let (code, _, err) = guarded(&symbolic);
    assert_eq!(code, 1);
    assert!(err.contains("decides weak fairness only"), "{err}");
}

#[test]
fn on_the_command_line() {
    let program = common::scratch("properties", "dijkstra.gc");
    let dir = program.parent().unwrap().to_path_buf();
    std::fs::write(&program, dijkstra_with_properties()).unwrap();
    let program = program.to_str().unwrap();
    let witness = dir.join("w");
    let (code, out, err) = guarded(&[
        "verify",
        program,
        "-t",
        "ring:4",
        "-p",
        "K=2",
        "-d",
        "central",
        "--no-rounds",
        "--witness",
        witness.to_str().unwrap(),
    ]);
    assert_eq!(code, 5, "{err}");
    assert!(
        out.contains("property     `converges` fails: it never holds again on a cycle of"),
        "{out}"
    );
    assert!(
        out.contains("property     `all_ones` holds: an example"),
        "{out}"
    );
    // The counterexample replays, never reaching one token.
    let sched = witness.join("central-property-converges.sched");
    let schedule = format!("schedule:{}", sched.display());
    let init = witness.join("central-property-converges.init");
    let (code, json, err) = guarded(&[
        "run",
        program,
        "-t",
        "ring:4",
        "-p",
        "K=2",
        "--init",
        init.to_str().unwrap(),
        "--daemon",
        &schedule,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["first_legitimate"], serde_json::Value::Null);
    // The symbolic engine checks them too.
    let (_, out, _) = guarded(&[
        "verify", program, "-t", "ring:4", "-d", "central", "--engine", "symbolic",
    ]);
    assert!(out.contains("`zeros_stay` fails"), "{out}");
    assert!(out.contains("`converges` holds"), "{out}");
    // Dijkstra's ring has no symmetry but the identity: checked.
    let (_, out, _) = guarded(&["verify", program, "-t", "ring:4", "--symmetry"]);
    assert!(out.contains("`zeros_stay` fails"), "{out}");
    let spinner = dir.join("spinner.gc");
    std::fs::write(&spinner, SPINNER).unwrap();
    let spinner = spinner.to_str().unwrap();
    let (_, out, _) = guarded(&["verify", spinner, "-t", "ring:4", "--symmetry"]);
    assert!(out.contains("under 4 symmetries"), "{out}");
    assert!(out.contains("`fixed` not checked by orbits"), "{out}");
    // Steps past half the memory budget: the properties that follow
    // them are not checked, and the output says why.
    let bundled = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/dijkstra_kstate.gc");
    let small = [
        "verify",
        bundled,
        "-t",
        "ring:7",
        "-d",
        "distributed",
        "--no-rounds",
        "--memory-limit",
        "200M",
        "--format",
        "json",
    ];
    let (code, json, err) = guarded(&small);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let token_fair = &v["daemons"][0]["properties"][0];
    assert_eq!(token_fair["holds"], serde_json::Value::Null, "{json}");
    let why = token_fair["not_checked"].as_str().unwrap();
    assert!(why.contains("pass half the memory budget"), "{why}");
    // A family's table names the first property that fails.
    let (code, out, _) = guarded(&["verify", program, "-t", "ring:3..4", "-d", "central"]);
    assert_eq!(code, 5, "{out}");
    assert!(out.contains("property zeros_stay fails"), "{out}");
    let (code, out, _) = guarded(&["verify", program, "-t", "ring:4", "--no-properties"]);
    assert!(
        out.contains("`converges` not checked (--no-properties)"),
        "{out}"
    );
    assert_eq!(code, 0, "the rest holds: {out}");
    // JSON names each.
    let (_, json, _) = guarded(&[
        "verify",
        program,
        "-t",
        "ring:4",
        "-d",
        "central",
        "--format",
        "json",
        "--no-rounds",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let props = v["daemons"][0]["properties"].as_array().unwrap();
    assert_eq!(props.len(), 7);
    assert_eq!(props[4]["name"], "zeros_stay");
    assert_eq!(props[4]["holds"], false);
    std::fs::remove_dir_all(&dir).ok();
}

const ARBITRATION: &str = include_str!("../programs/arbitration.gc");
const JOHNEN: &str = include_str!("../programs/johnen_leader.gc");

/// Dijkstra and Scholten's arbitration: a hungry philosopher eventually
/// eats under a weakly fair central daemon (an unfair one starves it: a
/// neighbour eats again and again); no run has two neighbours eating
/// (`sometimes` fails: mutual exclusion); some run has one eating.
#[test]
fn arbitration_feeds_the_hungry_under_weak_fairness_and_never_two_neighbours() {
    let src = format!(
        "{ARBITRATION}
property eats: forall(p in procs : p.s == hungry leads_to p.s == eating)
property two_eat: sometimes exists(p in procs : p.s == eating and exists(q in nbrs(p) : q.s == eating))
"
    );
    for topology in ["chain:3", "ring:4", "star:4"] {
        let mut inst = instance(&src, topology, &[]);
        let start = inst
            .initial(&guarded::runtime::init::InitMode::Declared, &[])
            .unwrap();
        let daemon = Daemon::Central;
        let reached = |weakly: bool| {
            let mut ex =
                Explorer::reachable(&inst, Starts::One(start.clone()), &daemon, None).unwrap();
            ex.count_rounds(false);
            ex.verify_fairly(
                &daemon,
                if weakly {
                    Fairness::Weak
                } else {
                    Fairness::Unfair
                },
            )
            .unwrap()
            .properties
        };
        let fair = reached(true);
        assert!(named(&fair, "eats").holds, "{topology}");
        let unfair = reached(false);
        let starved = named(&unfair, "eats");
        assert!(!starved.holds, "{topology}");
        // The program's own `served` assumes weak fairness: it holds even
        // when the command asks about every run.
        let served = named(&unfair, "served");
        assert!(
            served.holds && served.fairness == Fairness::Weak,
            "{topology}"
        );
        let p = starved.process.unwrap();
        let (run, from) = starved.run.clone().unwrap();
        let seen = replay(&inst, &run);
        let stride = seen[0].rows.len() / inst.topology().n();
        let hungry = 1;
        for cfg in &seen[from.unwrap()..] {
            assert_eq!(
                cfg.rows[p * stride],
                hungry,
                "{topology}: process {p} stays hungry"
            );
        }
        for vs in [&fair, &unfair] {
            assert!(!named(vs, "two_eat").holds && named(vs, "two_eat").run.is_none());
            let (run, _) = named(vs, "some_eat").run.clone().unwrap();
            let end = replay(&inst, &run).pop().unwrap();
            assert!((0..inst.topology().n()).any(|q| end.rows[q * stride] == 2));
        }
    }
}

/// Johnen's election: the program's `leader_stays` (once the smallest id
/// leads and no window holds a smaller one, it leads for ever) holds;
/// without its second half (`min_kept`) it fails where a smaller fake id
/// is left (ids 2, 1, 3), and any leader may step down (`leader_kept`);
/// once the configuration is silent a leader stays one, and some process
/// is the one leader again and again.
#[test]
fn johnens_leader_stays_once_elected() {
    let src = format!(
        "{JOHNEN}
property stays_leader: forall(p in procs : stable (count(q in procs : enabled(q)) == 0 and p.Ld))
property leader_kept: forall(p in procs : stable p.Ld)
property min_kept: forall(p in procs : stable (p.Ld and Minimum(p)))
property elects: always eventually count(q in procs : q.Ld) == 1
"
    );
    let setup = guarded::load::Setup {
        topology: Some("uring:3".into()),
        ids: guarded::topology::Ids::List(vec![2, 1, 3]),
        ..Default::default()
    };
    let fake = guarded::load::load(&src, &setup, &guarded::load::read_file).unwrap();
    for daemon in &DAEMONS {
        let vs = verdicts(&fake, daemon, Fairness::Unfair);
        assert!(named(&vs, "leader_stays").holds, "{}", daemon.name());
        let broken = named(&vs, "min_kept");
        assert!(
            !broken.holds && broken.process == Some(1),
            "{}",
            daemon.name()
        );
        let seen = replay(&fake, &broken.run.clone().unwrap().0);
        // Process 1 (id 1) leads, then steps down.
        let ld = |cfg: &Config| cfg.rows[4 + 3] == 1;
        assert!(ld(&seen[seen.len() - 2]) && !ld(&seen[seen.len() - 1]));
    }
    let inst = instance(&src, "uring:3", &[]);
    for daemon in &DAEMONS {
        let vs = verdicts(&inst, daemon, Fairness::Unfair);
        assert!(named(&vs, "leader_stays").holds, "{}", daemon.name());
        assert!(named(&vs, "stays_leader").holds, "{}", daemon.name());
        assert!(named(&vs, "elects").holds, "{}", daemon.name());
        let broken = named(&vs, "leader_kept");
        assert!(!broken.holds);
        let p = broken.process.unwrap();
        let (run, _) = broken.run.clone().unwrap();
        let seen = replay(&inst, &run);
        // Each row: F[0..3], then Ld.
        let stride = seen[0].rows.len() / inst.topology().n();
        assert_eq!(stride, 4);
        let ld = |cfg: &Config| cfg.rows[p * stride + 3] == 1;
        assert!(ld(&seen[seen.len() - 2]) && !ld(&seen[seen.len() - 1]));
    }
}

/// `always eventually Q` (read as `true leads_to Q`) is worded as
/// written: its verdicts speak of Q, not of a first and second predicate,
/// which a `leads_to` written out keeps.
#[test]
fn always_eventually_is_worded_as_written() {
    let file = common::scratch("recurring", "spinner.gc");
    let src = format!(
        "topology ring:3\n{SPINNER}property fixed_after: forall(p in procs : p.y == 1 leads_to p.x == 1)\n"
    );
    std::fs::write(&file, src).unwrap();
    let file = file.to_str().unwrap();
    let (code, out, _) = guarded(&["verify", file, "-d", "central"]);
    assert_eq!(code, 5, "{out}");
    assert!(
        out.contains("`fixed` fails for process 0: it never holds again on a cycle of 2 steps"),
        "{out}"
    );
    assert!(
        out.contains("`fixed_after` fails for process 0: a cycle of 2 steps")
            && out.contains("that never reaches its second predicate"),
        "{out}"
    );
    let (code, out, _) = guarded(&["verify", file, "-d", "central", "--fairness", "weak"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("`fixed` holds: every weakly fair run reaches a configuration where it holds, again and again"),
        "{out}"
    );
    assert!(
        out.contains("`fixed_after` holds: every weakly fair run through a configuration where its first predicate holds"),
        "{out}"
    );
    let (_, json, _) = guarded(&["verify", file, "-d", "central", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let forms: Vec<&str> = v["daemons"][0]["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["form"].as_str().unwrap())
        .collect();
    assert_eq!(
        forms,
        ["always eventually", "sometimes", "leads_to"],
        "{json}"
    );
}
