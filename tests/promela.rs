//! Promela out, checked by SPIN: the model `guarded export promela` writes
//! must give SPIN's verdicts the verifier's (convergence of Dijkstra's ring
//! under the central and synchronous daemons, invariants of arbitration),
//! and SPIN must store exactly the configurations `verify` reaches, plus
//! the one state before the start. SPIN is the Debian package `spin`;
//! without it the tests say loudly that they were skipped, and under
//! `CI=true` they fail.

mod common;
use common::guarded;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A directory of its own for each model (SPIN writes pan.c where it runs).
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guarded-spin-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes the program `text` as `dir/name`; its path.
fn program_file(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn have_spin() -> bool {
    if Command::new("spin").arg("-V").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "SPIN (`spin`) is not installed: CI must install it (.ci/run does)"
    );
    eprintln!("SKIPPED: SPIN is not installed; the Promela export was not checked by SPIN");
    false
}

/// What SPIN says of a model: its errors and the states it stored.
struct Verdict {
    errors: u64,
    stored: u64,
    report: String,
}

/// Exports `args`' instance, then generates, compiles and runs the
/// verifier: for the LTL property (`ltl`), or safety only.
fn spin(name: &str, args: &[&str], ltl: bool) -> Verdict {
    let dir = workdir(name);
    let model = dir.join("model.pml");
    let (code, _, err) = guarded(
        &[
            &["export", "promela"],
            args,
            &["-o", model.to_str().unwrap()],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{name}: {err}");
    let run = |cmd: &mut Command| {
        let out = cmd.current_dir(&dir).output().expect("the tool runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{name}: {cmd:?} fails:\n{text}");
        text
    };
    run(Command::new("spin").args(["-a", "model.pml"]));
    let mut gcc = Command::new("gcc");
    gcc.args(["-O1", "-o", "pan", "pan.c"]);
    if !ltl {
        // Safety alone: the configurations, without the property's automaton.
        gcc.args(["-DSAFETY", "-DNOCLAIM"]);
    }
    run(&mut gcc);
    let mut pan = Command::new(dir.join("pan"));
    pan.arg("-m1000000");
    if ltl {
        pan.arg("-a");
    }
    let report = run(&mut pan);
    let number = |after: &str, before: &str| -> u64 {
        let line = report
            .lines()
            .find(|l| l.contains(before))
            .unwrap_or_else(|| panic!("{name}: no `{before}` in\n{report}"));
        let text = if after.is_empty() {
            line
        } else {
            line.split(after).nth(1).unwrap_or(line)
        };
        text.split(|c: char| !c.is_ascii_digit())
            .find(|s| !s.is_empty())
            .unwrap()
            .parse()
            .unwrap()
    };
    Verdict {
        errors: number("errors:", "errors:"),
        stored: number("", "states, stored"),
        report,
    }
}

fn verify(args: &[&str]) -> (i32, String) {
    let (code, out, err) = guarded(&[&["verify"], args].concat());
    assert!(code == 0 || code == 5, "{err}");
    (code, out)
}

/// How many configurations `verify` reaches from `args`' start, where
/// every check holds.
fn reached(args: &[&str]) -> u64 {
    let (code, out) = verify(args);
    assert_eq!(code, 0, "{out}");
    out.split(" configurations reached")
        .next()
        .and_then(|s| s.split_whitespace().last())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no count in {out}"))
}

/// SPIN's safety run of `args`' model (`name`) finds no error and stores
/// exactly the configurations `verify` reaches from their start, plus the
/// state before it: how many `verify` reaches, and SPIN's verdict.
fn spin_stores_what_verify_reaches(name: &str, args: &[&str]) -> (u64, Verdict) {
    let reached = reached(args);
    let v = spin(name, args, false);
    assert_eq!(v.errors, 0, "{name}:\n{}", v.report);
    assert_eq!(
        v.stored,
        reached + 1,
        "{name}: SPIN stores the state before the start too\n{}",
        v.report
    );
    (reached, v)
}

/// `verify` fails on `args`' instance saying `verify_says`, and SPIN's
/// safety run of its model reports `spin_says`.
fn both_fail(name: &str, args: &[&str], verify_says: &str, spin_says: &str) {
    let (code, out) = verify(args);
    assert_eq!(code, 5, "{name}: {out}");
    assert!(out.contains(verify_says), "{name}: {out}");
    let v = spin(name, args, false);
    assert!(v.report.contains(spin_says), "{name}: {}", v.report);
}

#[test]
fn spin_agrees_on_dijkstras_ring() {
    if !have_spin() {
        return;
    }
    for (daemon, k, converges) in [
        ("central", "3", false),
        ("central", "5", true),
        ("synchronous", "4", false),
        ("synchronous", "5", true),
    ] {
        let param = format!("K={k}");
        let instance = [
            "programs/dijkstra_kstate.gc",
            "--topology",
            "ring:5",
            "--param",
            &param,
            "--daemon",
            daemon,
        ];
        let (code, out) = verify(&instance);
        assert_eq!(code == 0, converges, "verify {daemon} K={k}: {out}");
        let v = spin(&format!("dijkstra-{daemon}-{k}"), &instance, true);
        assert_eq!(
            v.errors == 0,
            converges,
            "SPIN {daemon} K={k}:\n{}",
            v.report
        );
        if !converges {
            assert!(v.report.contains("acceptance cycle"), "{}", v.report);
        }
    }
}

#[test]
fn spin_reaches_what_verify_reaches_in_arbitration() {
    if !have_spin() {
        return;
    }
    for topology in ["chain:3", "ring:4", "star:4", "complete:4"] {
        let instance = [
            "programs/arbitration.gc",
            "--topology",
            topology,
            "--daemon",
            "central",
        ];
        // Safety: Q0-Q2 and no two neighbours eating (assertions), no
        // deadlock (invalid end states), every value in its domain.
        let name = format!("arbitration-{topology}");
        let (_, v) = spin_stores_what_verify_reaches(&name, &instance);
        assert!(v.report.contains("invalid end states\t+"), "{}", v.report);
    }
}

/// Where a process may choose, the model gives SPIN every move, as
/// `verify` explores them, or (`--choice first`) the first action alone:
/// SPIN's verdict on convergence is the verifier's under each.
#[test]
fn spin_agrees_on_every_choice_and_on_the_first() {
    if !have_spin() {
        return;
    }
    let dir = workdir("choices");
    let both = program_file(
        &dir,
        "both.gc",
        "var x: 0..1 = 0\nprocess {\n    b :: x == 0 -> x := 1\n    c :: x == 0 -> x := 0\n}\nlegitimate: forall(p in procs : p.x == 1)\n",
    );
    let both = both.as_str();
    for (program, topology) in [(both, "ring:3"), ("programs/matching.gc", "ring:4")] {
        for choice in ["every", "first"] {
            let instance = [
                program,
                "--topology",
                topology,
                "--daemon",
                "central",
                "--choice",
                choice,
            ];
            let (code, out) = verify(&instance);
            let v = spin(&format!("choices-{topology}-{choice}"), &instance, true);
            assert_eq!(
                v.errors == 0,
                code == 0,
                "{program} {choice}: {out}\n{}",
                v.report
            );
        }
    }
    // The two semantics part on the first program: SPIN finds its cycle.
    let v = spin("both-every", &[both, "--topology", "ring:3"], true);
    assert!(v.report.contains("acceptance cycle"), "{}", v.report);
    // Under the synchronous daemon too, where SPIN picks each process's
    // move before the step.
    let v = spin(
        "both-synchronous",
        &[both, "--topology", "ring:3", "--daemon", "synchronous"],
        true,
    );
    assert!(v.report.contains("acceptance cycle"), "{}", v.report);
}

/// Steps of several movers that SPIN picks (the distributed and locally
/// central daemons, and the synchronous one where processes choose): it
/// stores the configurations `verify` reaches (plus one) and agrees on
/// convergence where the two daemons part (Dijkstra's ring of 4 with
/// K = 3: a cycle under the distributed daemon, none locally central).
#[test]
fn spin_agrees_under_the_distributed_and_locally_central_daemons() {
    if !have_spin() {
        return;
    }
    let dir = workdir("several-movers");
    let oldest = program_file(&dir, "oldest.gc", OLDEST_FIRST);
    let oldest = oldest.as_str();
    let election = "tests/golden/programs/chang_roberts.gc";
    for (program, topology, daemon, choice, reached) in [
        // Messages to different processes not ordered against one
        // another (38, 162, 434 and 599 where they were).
        (election, "ring:3", "distributed", "every", 25),
        (election, "ring:4", "locally-central", "first", 59),
        (oldest, "ring:3", "distributed", "every", 419),
        (oldest, "star:4", "locally-central", "first", 269),
        (oldest, "ring:3", "synchronous", "every", 4),
    ] {
        let instance = [
            program,
            "--topology",
            topology,
            "--daemon",
            daemon,
            "--choice",
            choice,
            "--from",
            "declared",
        ];
        let name = format!("several-{}-{topology}-{daemon}", program.len());
        let (found, _) = spin_stores_what_verify_reaches(&name, &instance);
        assert_eq!(found, reached, "{name}");
    }
    for (daemon, converges) in [("distributed", false), ("locally-central", true)] {
        let instance = [
            "programs/dijkstra_kstate.gc",
            "--topology",
            "ring:4",
            "--param",
            "K=3",
            "--daemon",
            daemon,
        ];
        let (code, out) = verify(&instance);
        assert_eq!(code == 0, converges, "{out}");
        let v = spin(&format!("dijkstra-k3-{daemon}"), &instance, true);
        assert_eq!(v.errors == 0, converges, "{daemon}:\n{}", v.report);
    }
}

#[test]
fn spin_finds_a_broken_invariant_and_a_value_out_of_its_domain() {
    if !have_spin() {
        return;
    }
    let dir = workdir("broken");
    let write = |name: &str, text: &str| program_file(&dir, name, text);
    let invariant = write("inv.gc", "var x: 0..5 = 0\nprocess { up :: x < left.x + 1 and x < 5 -> x := x + 1 }\ninvariant small: forall(p in procs : p.x < 3)\n");
    let v = spin("inv", &[&invariant, "--topology", "ring:3"], false);
    assert_eq!(v.errors, 1, "{}", v.report);
    assert!(v.report.contains("assertion violated"), "{}", v.report);
    let domain = write(
        "dom.gc",
        "var x: 0..2 = 0\nprocess { up :: true -> x := x + 1 }\n",
    );
    let v = spin("dom", &[&domain, "--topology", "ring:3"], false);
    assert_eq!(v.errors, 1, "{}", v.report);
    assert!(v.report.contains("assertion violated"), "{}", v.report);
    let deadlock = write(
        "dead.gc",
        "var x: 0..2 = 0\nprocess { up :: x < 2 -> x := x + 1 }\n",
    );
    let v = spin("dead", &[&deadlock, "--topology", "ring:3"], false);
    assert!(
        v.report.contains("invalid end state"),
        "a deadlock: {}",
        v.report
    );
}

/// A program whose processes send on every side and take the oldest of
/// their messages: two receive actions of one priority on different
/// types, two that may take the same message (the first in program order
/// does), one of a more urgent priority, an action that is not a receive
/// among them, a send to a neighbour a variable names, and `msgs` in an
/// invariant.
const OLDEST_FIRST: &str = "\
message a(v: 0..7)
message b(v: 0..7, w: bool)
channel capacity 3
var x: 0..7 = 0
var sent: 0..1 = 0
var last: node = self
process {
    go :: sent < 1 -> sent := 1; for q in nbrs { if q.index < index { send a(index) to q } else { send b(index, x == 0) to q } }
    ra :: receive a(v) from q -> x := v; last := q
    rb :: receive b(v, w) from q and (v != x or w) -> x := (v + 1) mod 8; if last != self { send a(x) to last }
    rd :: receive b(v, w) from q and w -> x := 7
    rc priority 1 :: receive b(v, w) from q and v == x and not w -> skip
}
invariant bounded: forall(p in procs : sum(q in nbrs(p) : msgs(p, q)) <= 6)
legitimate: forall(p in procs : not enabled(p))
";

/// With messages, SPIN stores exactly the configurations `verify` reaches
/// from the start (plus the state before it), under the central daemon
/// (every choice and the first alike) and the synchronous one; on Chang
/// and Roberts' election it also finds convergence, and a send to a full
/// channel fails an assertion where `verify` reports the fault.
#[test]
fn spin_reaches_what_verify_reaches_with_messages() {
    if !have_spin() {
        return;
    }
    let dir = workdir("messages-program");
    let oldest = program_file(&dir, "oldest.gc", OLDEST_FIRST);
    let oldest = oldest.as_str();
    let election = "tests/golden/programs/chang_roberts.gc";
    // The synchronous step is one deterministic `d_step` to SPIN: there
    // each process takes its first move.
    let cases = [
        (election, "ring:3", "central", "every"),
        (election, "ring:4", "central", "every"),
        (election, "ring:3", "synchronous", "first"),
        (election, "ring:5", "synchronous", "first"),
        (oldest, "ring:3", "central", "every"),
        (oldest, "ring:3", "central", "first"),
        (oldest, "star:4", "central", "every"),
        (oldest, "complete:4", "central", "every"),
        (oldest, "complete:4", "central", "first"),
        (oldest, "ring:3", "synchronous", "first"),
        (oldest, "complete:4", "synchronous", "first"),
    ];
    for (program, topology, daemon, choice) in cases {
        let instance = [
            program,
            "--topology",
            topology,
            "--daemon",
            daemon,
            "--from",
            "declared",
            "--choice",
            choice,
        ];
        let name = format!("messages-{}-{topology}-{daemon}-{choice}", program.len());
        spin_stores_what_verify_reaches(&name, &instance);
    }
    let v = spin(
        "messages-election-ltl",
        &[election, "-t", "ring:4", "--from", "declared"],
        true,
    );
    assert_eq!(v.errors, 0, "the election converges:\n{}", v.report);
    // Room for one message a channel: a send to a full one.
    let full = program_file(
        &dir,
        "full.gc",
        &OLDEST_FIRST.replace("capacity 3", "capacity 1"),
    );
    let instance = [full.as_str(), "-t", "ring:3", "--from", "declared"];
    both_fail("messages-full", &instance, "is full", "assertion violated");
}

/// `argmin` and `min` over neighbours, unrolled: on SSLE with its keys
/// bounded, SPIN stores exactly the configurations `verify` reaches from
/// the arbitrary starts (plus one), finds convergence on the chain of 3,
/// and the repair's cycle under an unfair daemon; a choice from an empty
/// set fails SPIN where `verify` reports the fault.
#[test]
fn spin_agrees_on_ssle() {
    if !have_spin() {
        return;
    }
    let bounded = [
        "--param",
        "max_id=2",
        "--param",
        "start_level=1",
        "--param",
        "max_level=2",
        "--from",
        "random",
        "--daemon",
        "central",
    ];
    for (topology, reached) in [("chain:3", 166_770), ("ring:3", 375_438)] {
        let instance = [&["programs/ssle.gc", "--topology", topology][..], &bounded].concat();
        let (found, _) = spin_stores_what_verify_reaches(&format!("ssle-{topology}"), &instance);
        assert_eq!(found, reached, "{topology}");
    }
    let instance = [&["programs/ssle.gc", "--topology", "chain:3"][..], &bounded].concat();
    let v = spin("ssle-chain-ltl", &instance, true);
    assert_eq!(v.errors, 0, "SSLE converges:\n{}", v.report);
    let repair = [
        "programs/ssle.gc",
        "--topology",
        "chain:3",
        "--param",
        "max_id=2",
        "--param",
        "max_level=3",
        "--param",
        "repair=1",
        "--daemon",
        "central",
    ];
    let (code, out) = verify(&repair);
    assert_eq!(code, 5, "{out}");
    assert!(out.contains("convergence  fails: a cycle"), "{out}");
    let v = spin("ssle-repair", &repair, true);
    assert!(v.report.contains("acceptance cycle"), "{}", v.report);
    // Nothing to choose from: a node variable assigned none, a key read
    // through none.
    let dir = workdir("empty-choice");
    for (name, statement, says) in [
        (
            "argmin",
            "x := x + 1; p := argmin(q in {r in nbrs : r.x > 2} : q.x)",
            "assertion violated",
        ),
        (
            "min",
            "x := min(q in {r in nbrs : r.x > 2} : q.x)",
            "invalid array index",
        ),
    ] {
        let text = format!(
            "topology chain:3\nvar p: node = self\nvar x: 0..3 = 0\n\
             process {{ pick :: x < 2 -> {statement} }}\n"
        );
        let program = program_file(&dir, &format!("{name}.gc"), &text);
        let instance = [program.as_str(), "--from", "declared"];
        let name = format!("empty-{name}");
        both_fail(&name, &instance, "no member to choose from", says);
    }
}

/// Edge variables under the synchronous daemon: a mover reads what the
/// other end held before the step and its own write of the step; two ends
/// writing one edge fail an assertion where the runtime reports the
/// conflict. SPIN stores every configuration `verify` numbers (plus one)
/// and agrees on convergence; on arbitration both find that Q0 fails once
/// every philosopher is hungry at once.
#[test]
fn spin_agrees_on_edge_variables_under_the_synchronous_daemon() {
    if !have_spin() {
        return;
    }
    let dir = workdir("edges-program");
    let edges = program_file(
        &dir,
        "edges.gc",
        "edge var m: 0..3 = 0\nvar c: 0..3 = 0\nprocess {\n\
         up for q in nbrs :: q.index > index and edge(q).m < 3 and c < 3 -> edge(q).m := edge(q).m + 1; c := edge(q).m\n\
         down for q in nbrs :: q.index < index and edge(q).m > c -> c := edge(q).m\n}\n\
         legitimate: forall(p in procs : not enabled(p))\n",
    );
    let edges = edges.as_str();
    let synchronous = ["--daemon", "synchronous", "--choice", "first"];
    for (topology, configurations) in [("ring:3", 4096), ("star:4", 16384)] {
        let instance = [
            &[edges, "--topology", topology, "--from", "all"][..],
            &synchronous,
        ]
        .concat();
        let (code, out) = verify(&instance);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains(&format!("{configurations} configurations")),
            "{out}"
        );
        let v = spin(&format!("edges-{topology}"), &instance, false);
        assert_eq!(v.errors, 0, "{}", v.report);
        assert_eq!(v.stored, configurations + 1, "{}", v.report);
        let v = spin(&format!("edges-{topology}-ltl"), &instance, true);
        assert_eq!(v.errors, 0, "{}", v.report);
        // From the start, where what a mover reads of its own edge after
        // writing it decides the successors (every configuration is
        // stored from every start whatever the steps).
        let instance = [
            &[edges, "--topology", topology, "--from", "declared"][..],
            &synchronous,
        ]
        .concat();
        let (code, out) = verify(&instance);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("5 configurations reached"), "{out}");
        let v = spin(&format!("edges-{topology}-start"), &instance, false);
        assert_eq!(v.stored, 6, "{}", v.report);
    }
    let clash = program_file(
        &dir,
        "clash.gc",
        "edge var m: 0..1 = 0\nprocess { set for q in nbrs :: edge(q).m == 0 -> edge(q).m := 1 }\n",
    );
    let clash = [
        &[clash.as_str(), "-t", "ring:3", "--from", "declared"][..],
        &synchronous,
    ]
    .concat();
    both_fail(
        "edges-clash",
        &clash,
        "both write `m`",
        "assertion violated ((w_e_m",
    );
    let forks = [
        "programs/arbitration.gc",
        "-t",
        "ring:4",
        "-d",
        "synchronous",
    ];
    both_fail(
        "edges-arbitration",
        &forks,
        "`Q0` does not hold",
        "assertion violated",
    );
}

/// Draws from a range whose bounds a neighbour holds and from a set
/// that a filter makes (never empty here, though the model cannot know
/// it). The invariant reads every variable: SPIN keeps no value that
/// nothing reads, and would store fewer states than there are
/// configurations.
const DRAWS: &str = "\
topology ring:4
var x: 0..3 = 3
var p: node = self
process {
    shrink :: x > 0 -> x := random(0..left.x); p := random({q in nbrs : q.x >= left.x})
    reset :: x == 0 -> x := random(right.x..3)
}
invariant read: forall(q in procs : q.p == q or q.x <= 3)
";

/// A token that walks to a neighbour drawn at random, by messages (whose
/// slots the model indexes by hidden variables).
const WALK: &str = "\
message tok
channel capacity 1
var has: bool = index == 0
process {
    go :: has -> has := false; send tok to random(nbrs)
    take :: receive tok from q -> has := true
}
invariant one: count(p in procs : p.has) <= 1
";

#[test]
fn spin_takes_every_value_a_draw_can_take() {
    if !have_spin() {
        return;
    }
    let dir = workdir("draws");
    let draws = program_file(&dir, "draws.gc", DRAWS);
    let walk = program_file(&dir, "walk.gc", WALK);
    let empty = program_file(
        &dir,
        "empty.gc",
        "topology ring:3\nvar c: 0..1 = 0\nprocess {\n    recolour :: exists(q in nbrs : q.c == c) -> \
         c := random({k in 0..1 : forall(q in nbrs : q.c != k)})\n}\n",
    );
    let herman = "programs/herman.gc";
    let colour = "tests/golden/programs/free_colour.gc";
    for (program, topology, daemon, reached) in [
        (colour, "ring:5", "central", 81),
        (colour, "star:4", "locally-central", 121),
        (draws.as_str(), "ring:4", "central", 6513),
        (draws.as_str(), "ring:4", "distributed", 6561),
        (draws.as_str(), "ring:4", "synchronous", 4097),
        (walk.as_str(), "ring:4", "central", 12),
        (walk.as_str(), "chain:4", "synchronous", 10),
        (walk.as_str(), "ring:4", "distributed", 12),
    ] {
        let instance = [
            program,
            "--topology",
            topology,
            "--daemon",
            daemon,
            "--from",
            "declared",
        ];
        let name = format!("draws-{}-{topology}-{daemon}", program.len());
        let (found, _) = spin_stores_what_verify_reaches(&name, &instance);
        assert_eq!(found, reached, "{name}");
    }
    // Convergence: the colouring reaches a proper colouring whatever is
    // drawn; Herman's ring keeps its tokens where every coin lands as it was.
    for (program, topology, daemon, converges) in [
        (colour, "ring:5", "central", true),
        (herman, "uring:5", "synchronous", false),
    ] {
        let instance = [program, "--topology", topology, "--daemon", daemon];
        let (code, out) = verify(&instance);
        assert_eq!(code == 0, converges, "{out}");
        let v = spin(&format!("draws-ltl-{topology}"), &instance, true);
        assert_eq!(v.errors == 0, converges, "{program}:\n{}", v.report);
    }
    // A draw from an empty set stops a run; in the model it fails.
    both_fail(
        "draws-empty",
        &[&empty, "--daemon", "central"],
        "a random member of an empty set",
        "assertion violated",
    );
}

#[test]
fn what_cannot_be_translated_is_refused_with_the_reason() {
    let dir = workdir("refused");
    let write = |name: &str, text: &str| program_file(&dir, name, text);
    // A choice among integers that may leave none; a per-neighbour value
    // at a neighbour a variable names.
    let range = write(
        "range.gc",
        "topology chain:3\nvar x: 0..3 = 0\n\
         process { up :: x < 3 -> x := argmin(i in {j in 0..3 : j > x} : i) }\n",
    );
    let named = write(
        "named.gc",
        "topology ring:3\nvar sent: array[nbrs] of 0..1 = 0\nvar p: node = self\n\
         process { a :: sent[p] == 0 -> sent[p] := 1 }\n",
    );
    // A draw that may find its set empty where it may not be made: SPIN's
    // choice, made before the statement, would fail where a run does not.
    let unmade = write(
        "unmade.gc",
        "topology ring:3\nvar c: 0..2 = 0\nprocess { a :: c == left.c -> \
         c := if c == 0 then random({k in 0..2 : k != left.c and k != right.c}) else 0 }\n",
    );
    // Processes the instance does not have, named by a constant (as
    // `enabled`'s argument, which panicked until the fuzzer found it), by
    // an integer a quantifier binds, and behind `id`: a run reports the
    // read when it happens; the model is refused, with where (below).
    let absent: Vec<String> = [
        "count(p in procs : enabled(4294967296)) == 1",
        "forall(q in 0..5 : q.x == 1)",
        "exists(q in 0..3 : q.id == 7)",
        "(-1).x == 0",
    ]
    .iter()
    .enumerate()
    .map(|(k, legitimate)| {
        let text = format!(
            "topology ring:3\nvar x: 0..1 = 0\nprocess {{ a :: x == 0 -> x := 1 }}\n\
             legitimate: {legitimate}\n"
        );
        write(&format!("absent{k}.gc"), &text)
    })
    .collect();
    let (code, _, err) = guarded(&["export", "promela", &unmade]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("cannot translate a random draw from a range or set that may be empty")
            && err.contains("help: make the draw in a statement of its own"),
        "{err}"
    );
    for (program, extra, says) in [
        (
            "programs/arrow.gc",
            vec!["--topology", "tree:3"],
            "cannot translate the timer",
        ),
        (range.as_str(), vec![], "over a filtered range of integers"),
        (
            named.as_str(),
            vec![],
            "indexed by a neighbour named by a variable",
        ),
    ]
    .into_iter()
    .chain(absent.iter().map(|program| {
        let says = "(this instance has processes 0 to 2)";
        (program.as_str(), vec![], says)
    })) {
        let (code, _, err) = guarded(&[&["export", "promela", program], &extra[..]].concat());
        assert_eq!(code, 1, "{program}: {err}");
        assert!(err.contains(says), "{program}: {err}");
        assert!(
            err.contains("help: `guarded verify` explores this instance"),
            "{err}"
        );
    }
    // Messages: from a start, not from every content of the channels.
    let (code, _, err) = guarded(&[
        "export",
        "promela",
        "tests/golden/programs/chang_roberts.gc",
        "-t",
        "ring:3",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("every configuration of a program that passes messages")
            && err.contains("help: start from the declared values (`--from declared`)"),
        "{err}"
    );
    // Nor from its arbitrary starts, which verify explores.
    let args = [
        "export",
        "promela",
        "tests/golden/programs/chang_roberts.gc",
    ];
    let (code, _, err) = guarded(&[&args[..], &["-t", "ring:3", "--from", "random"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("the arbitrary starts of a program that passes messages")
            && err.contains("`guarded verify --from random` explores them"),
        "{err}"
    );
    let (code, _, err) = guarded(&[
        "export",
        "promela",
        "programs/dijkstra_kstate.gc",
        "--daemon",
        "ticks",
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn what_the_user_wrote_stays_inside_the_models_comments() {
    if !have_spin() {
        return;
    }
    // A directory whose name ends the header comment, then C for pan.c.
    let dir = workdir("injection").join("x*/\nc_code { this is not C; }\n/*\\");
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("ring.gc");
    std::fs::copy("programs/dijkstra_kstate.gc", &program).unwrap();
    let program = program.to_str().unwrap();
    let v = spin("injection-model", &[program, "--topology", "ring:3"], true);
    assert_eq!(v.errors, 0, "{}", v.report);
    let (code, model, err) = guarded(&["export", "promela", program, "--topology", "ring:3"]);
    assert_eq!(code, 0, "{err}");
    let header = &model[..model.find("*/").unwrap()];
    assert!(
        header.contains("x*\\/\\nc_code { this is not C; }\\n/*\\\\"),
        "{header}"
    );
    assert!(!model.lines().any(|l| l.starts_with("c_code")), "{model}");
}

#[test]
fn implications_of_negations_and_guarded_missing_neighbours_translate() {
    if !have_spin() {
        return;
    }
    // `not P => Q` was written `!!(…)`, which SPIN rejects; `left` read
    // where `index > 0` guards it was refused at process 0 of a chain.
    let dir = workdir("guarded-left");
    let program = program_file(
        &dir,
        "guarded_left.gc",
        "topology chain:4\nvar x: 0..1 = 0\nprocess {\n    copy :: index > 0 and x != left.x -> x := left.x\n    \
         flip :: not (index > 0) => x == 0 -> x := 1\n}\nlegitimate: forall(p in procs : p.x == 1)\n\
         invariant ones_stay: forall(p in procs : not (p.x == 0) => p.x == 1)\n",
    );
    let program = program.as_str();
    for daemon in ["central", "synchronous"] {
        let instance = [program, "--daemon", daemon, "--choice", "first"];
        let (code, out) = verify(&instance);
        let v = spin(&format!("guarded-left-{daemon}"), &instance, true);
        assert_eq!(v.errors == 0, code == 0, "{daemon}: {out}\n{}", v.report);
        let safety = spin(&format!("guarded-left-{daemon}-safety"), &instance, false);
        assert_eq!(safety.errors, 0, "{daemon}: {}", safety.report);
    }
    // Unguarded, the read is refused, and the message says which.
    let unguarded = program_file(
        &dir,
        "unguarded.gc",
        "topology chain:3\nvar x: 0..1 = 0\nprocess {\n    copy :: x != left.x -> x := left.x\n}\n",
    );
    let (code, _, err) = guarded(&["export", "promela", &unguarded]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`left` of process 0, which has none where it is read"),
        "{err}"
    );
}

/// `--from random`: the model starts anywhere within the declared
/// `random` ranges, as `verify --from random` does, and SPIN reaches as
/// many states per configuration `verify` reaches from there as it does
/// from every configuration (the model stores each configuration the
/// same number of times either way).
#[test]
fn spin_reaches_what_verify_reaches_from_the_arbitrary_starts() {
    if !have_spin() {
        return;
    }
    let dir = workdir("arbitrary-program");
    let program = program_file(
        &dir,
        "grow.gc",
        "topology chain:3\nvar x: 0..3 random 0..1\n\
         process { up :: x < 3 and exists(q in nbrs : q.x >= x) -> x := x + 1 }\n\
         legitimate: forall(p in procs : p.x == 3)\n",
    );
    let program = program.as_str();
    let reached = |from: &str| -> u64 {
        let (code, out) = verify(&[program, "--from", from, "--daemon", "central"]);
        assert_eq!(code, 0, "{out}");
        let line = out
            .lines()
            .find(|l| l.starts_with("daemon central"))
            .unwrap();
        // `N configurations reached, ...` from a start; the header's count
        // from every configuration.
        let count = if from == "all" {
            out.split(" configurations")
                .next()
                .unwrap()
                .rsplit(' ')
                .next()
                .unwrap()
        } else {
            line.split_whitespace().nth(2).unwrap()
        };
        count
            .parse()
            .unwrap_or_else(|_| panic!("no count in {out}"))
    };
    let (all, arbitrary) = (reached("all"), reached("random"));
    assert_eq!((all, arbitrary), (64, 40), "values grow past their starts");
    let stored = |from: &str| {
        let v = spin(
            &format!("arbitrary-{from}"),
            &[program, "--from", from, "--daemon", "central"],
            false,
        );
        assert_eq!(v.errors, 0, "{}", v.report);
        v.stored - 1
    };
    assert_eq!(stored("random") * all, stored("all") * arbitrary);
}
