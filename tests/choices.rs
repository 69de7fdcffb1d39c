//! `verify` means every run the language allows: where a process has
//! several enabled actions of one priority, an action's binder several
//! members, or a statement draws, every choice is explored (and `--choice
//! first` restricts it to the refinement runs take by default, saying so).
//! Each case here is a program whose verdict or worst case changes with the
//! choices, and each counterexample replays with `guarded run --daemon
//! schedule:`, the moves its schedule names taken exactly.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the binary; exit status, standard output and standard error.
fn guarded(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guarded-choices-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `src` written as `name.gc` in `dir`.
fn program(dir: &Path, name: &str, src: &str) -> String {
    let path = dir.join(format!("{name}.gc"));
    std::fs::write(&path, src).unwrap();
    path.to_str().unwrap().to_string()
}

/// Replays witness `dir/NAME` of `program` with `guarded run` (and `more`
/// arguments): its trace and summary.
fn replay(program: &str, dir: &Path, name: &str, more: &[&str]) -> String {
    let init = dir.join(format!("{name}.init"));
    let sched = format!("schedule:{}", dir.join(format!("{name}.sched")).display());
    let mut args = vec![
        "run",
        program,
        "--init",
        init.to_str().unwrap(),
        "--daemon",
        &sched,
        "--trace",
    ];
    args.extend(more);
    let (code, out, err) = guarded(&args);
    assert_eq!(code, 0, "{out}{err}");
    out
}

/// `guarded verify` of `src` under `daemon`, its witnesses written to `w`.
fn verify_with_witness(src: &str, daemon: &str, w: &Path) -> (i32, String, String) {
    guarded(&[
        "verify",
        src,
        "-d",
        daemon,
        "--witness",
        w.to_str().unwrap(),
    ])
}

/// The line of `text` that starts with `key` (after indentation).
fn line<'t>(text: &'t str, key: &str) -> &'t str {
    text.lines()
        .find(|l| l.trim_start().starts_with(key))
        .unwrap_or_else(|| panic!("no `{key}` in {text}"))
}

const BOTH_ENABLED: &str = "topology ring:3
var x: 0..1 = 0
process {
    b :: x == 0 -> x := 1
    c :: x == 0 -> x := 0        // same priority, both enabled
}
legitimate: forall(p in procs : p.x == 1)
";

/// The program: `c` may be taken forever, under every daemon; the
/// first-action refinement converges, and the output says it is about it.
#[test]
fn two_actions_of_one_priority_are_both_explored() {
    let dir = scratch("both");
    let src = program(&dir, "both", BOTH_ENABLED);
    let w = dir.join("w");
    let (code, out, err) = guarded(&["verify", &src, "--witness", w.to_str().unwrap()]);
    assert_eq!(code, 5, "{out}{err}");
    assert!(out.contains("every run of the program"), "{out}");
    for daemon in ["central", "locally-central", "distributed", "synchronous"] {
        let block = out.split(&format!("daemon {daemon}:")).nth(1).unwrap();
        let verdict = line(block, "convergence");
        assert!(
            verdict.contains("fails: a cycle of 1 step outside legitimacy"),
            "{daemon}: {verdict}"
        );
        assert!(
            verdict.contains(":c"),
            "{daemon}: the cycle takes `c`: {verdict}"
        );
        let sched = std::fs::read_to_string(w.join(format!("{daemon}-cycle.sched"))).unwrap();
        assert!(sched.contains(":c"), "{daemon}: {sched}");
        // The cycle replays: it takes `c` and stays where it began.
        let trace = replay(&src, &w, &format!("{daemon}-cycle"), &[]);
        assert!(trace.contains(" c (no change)"), "{daemon}: {trace}");
        assert!(line(&trace, "legitimate").contains("no"), "{trace}");
    }
    let (code, out, _) = guarded(&["verify", &src, "--choice", "first"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("--choice first): the verdicts are about that refinement"),
        "{out}"
    );
    assert!(
        line(&out, "convergence").contains("every run of first actions reaches legitimacy"),
        "{out}"
    );
    // `check` says where the two semantics part.
    let (code, out, err) = guarded(&["check", &src]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("`b` and `c` (priority 0) may be enabled together"),
        "{err}"
    );
}

/// One process on a chain, pointing at a neighbour of a smaller index:
/// the first member of `aim`'s binder is one, so runs converge; the other
/// member is undone at once, and a process may choose it forever.
const ANY_MEMBER: &str = "topology chain:3
var p: node = self
process {
    aim for q in nbrs :: p == self and index > 0 -> p := q
    undo :: p != self and p.index > index -> p := self
}
legitimate: forall(i in procs : (i.index == 0 and i.p == i) or (i.index > 0 and i.p != i and i.p.index < i.index))
";

#[test]
fn every_member_of_a_binder_is_explored() {
    let dir = scratch("member");
    let src = program(&dir, "member", ANY_MEMBER);
    let w = dir.join("w");
    let (code, out, err) = verify_with_witness(&src, "central", &w);
    assert_eq!(code, 5, "{out}{err}");
    let verdict = line(&out, "convergence");
    assert!(verdict.contains("fails: a cycle of 2 steps"), "{verdict}");
    assert!(
        verdict.contains("1:aim@2") && verdict.contains("1:undo"),
        "{verdict}"
    );
    let trace = replay(&src, &w, "central-cycle", &[]);
    assert!(
        trace.contains("1 aim@2 (p: 1 -> 2)") && trace.contains("1 undo (p: 2 -> 1)"),
        "{trace}"
    );
    // The first member alone: every run converges, in at most 4 moves.
    let (code, out, _) = guarded(&["verify", &src, "-d", "central", "--choice", "first"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        line(&out, "worst case")
            .trim_start()
            .starts_with("worst case   4 steps, 4 moves"),
        "{out}"
    );
    // A schedule naming a member the guard does not hold for is refused.
    let bad = dir.join("bad.sched");
    std::fs::write(&bad, "1:aim@7\n").unwrap();
    let sched = format!("schedule:{}", bad.display());
    let (code, out, err) = guarded(&["run", &src, "--daemon", &sched, "--init", "declared"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(err.contains("not enabled for member 7"), "{err}");
}

/// A draw is every value it can take: a coin that may keep failing.
const COIN: &str = "topology ring:3
var x: 0..1 = 0
process { toss :: x == 0 -> x := random(0..1) }
legitimate: forall(p in procs : p.x == 1)
";

#[test]
fn every_value_of_a_draw_is_explored() {
    let dir = scratch("coin");
    let src = program(&dir, "coin", COIN);
    let w = dir.join("w");
    let (code, out, err) = verify_with_witness(&src, "synchronous", &w);
    assert_eq!(code, 5, "{out}{err}");
    let verdict = line(&out, "convergence");
    assert!(
        verdict.contains("{0:toss<0>,1:toss<0>,2:toss<0>}"),
        "{verdict}"
    );
    // The draws named in the schedule are those the run takes, whatever
    // the seed.
    for seed in ["1", "2", "3"] {
        let trace = replay(&src, &w, "synchronous-cycle", &["--seed", seed]);
        assert!(trace.contains("0 toss<0> (no change)"), "{trace}");
    }
    // Every other value of the three coins leads towards legitimacy.
    let (code, out, _) = guarded(&["verify", &src, "-d", "central", "--choice", "first"]);
    assert_eq!(
        code, 5,
        "draws take every value under --choice first too: {out}"
    );
}

/// A draw from a set is every member it can take, named by its position
/// in the set: process 1 of a chain of three points at a neighbour drawn
/// at random, and only pointing at process 2 (its second neighbour,
/// `aim<1>`) is undone. The witness replays whatever the seed, and a
/// position past the set is refused.
#[test]
fn every_member_a_draw_can_take_is_explored() {
    let dir = scratch("member_draw");
    let src = program(
        &dir,
        "member_draw",
        "topology chain:3
var p: node = self
process {
    aim :: p == self and index == 1 -> p := random(nbrs)
    undo :: p != self and p.index > index -> p := self
}
legitimate: forall(i in procs : i.index != 1 or i.p.index < i.index)
",
    );
    let w = dir.join("w");
    let (code, out, err) = verify_with_witness(&src, "central", &w);
    assert_eq!(code, 5, "{out}{err}");
    let verdict = line(&out, "convergence");
    assert!(verdict.contains("{1:aim<1>} {1:undo}"), "{verdict}");
    for seed in ["1", "2", "3"] {
        let trace = replay(&src, &w, "central-cycle", &["--seed", seed]);
        assert!(trace.contains("1 aim<1> (p: 1 -> 2)"), "{trace}");
    }
    // Runs draw both neighbours: some seed's run converges at once.
    let converged = (0..20).any(|seed| {
        let (code, out, _) =
            guarded(&["run", &src, "--seed", &seed.to_string(), "--max-steps", "1"]);
        code == 0 && out.contains("legitimate  yes")
    });
    assert!(converged);
    let bad = dir.join("bad.sched");
    std::fs::write(&bad, "1:aim<2>\n").unwrap();
    let sched = format!("schedule:{}", bad.display());
    let (code, out, err) = guarded(&["run", &src, "--daemon", &sched]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(err.contains("not a position in the set, 0..1"), "{err}");
}

/// A receive and a plain action of one priority, both enabled at process
/// 0 once a message arrives before it starts: `check` warns about the
/// pair, and not about the two receives (the oldest message decides
/// between them), nor about an action with a binder.
#[test]
fn check_warns_of_a_receive_beside_a_plain_action() {
    let dir = scratch("receive");
    let src = program(
        &dir,
        "receive",
        "topology chain:3
message go
channel capacity 2
var got: bool = false
process {
    start :: not got -> got := true; for q in nbrs { send go to q }
    take :: receive go from q and not got -> got := true
    drop :: receive go from q and got -> skip
    aim for q in nbrs :: got and q.got -> skip
}
",
    );
    let (code, out, err) = guarded(&["check", &src]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("`start` and `take` (priority 0) may be enabled together"),
        "{err}"
    );
    assert_eq!(err.matches("may be enabled together").count(), 1, "{err}");
}

/// A token walking to a neighbour drawn at random, by messages.
const WALK: &str = "message tok
channel capacity 1
var has: bool = index == 0
process {
    go :: has -> has := false; send tok to random(nbrs)
    take :: receive tok from q -> has := true
}
";

/// The JSON lines of a traced run of `args`: the start, then each step.
fn json_trace(args: &[&str]) -> Vec<serde_json::Value> {
    let (code, out, err) = guarded(&[args, &["--trace-format", "json"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    out.lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The binder member and the values a trace shows each move running for
/// and drawing are the ones the run took: the trace read back as a
/// schedule (`P:ACTION@Q<v,...>`, member and draws given) takes the same
/// steps, each move writing, drawing and naming the same.
#[test]
fn a_traced_run_replays_as_the_schedule_of_its_moves_members_and_draws() {
    let dir = scratch("replay-draws");
    let walk = program(&dir, "walk", WALK);
    for (program, topology, daemon, init, choice) in [
        (
            "programs/herman.gc",
            "uring:9",
            "synchronous",
            "random",
            "first",
        ),
        (
            "tests/golden/programs/free_colour.gc",
            "ring:7",
            "central",
            "random",
            "first",
        ),
        (
            "programs/mis.gc",
            "random:8:0.4",
            "distributed",
            "random",
            "first",
        ),
        (walk.as_str(), "ring:5", "central", "declared", "first"),
        // Binders: the first member, and any member (Hsu and Huang).
        (
            "programs/matching.gc",
            "ring:7",
            "central",
            "random",
            "first",
        ),
        (
            "programs/matching.gc",
            "random:10",
            "distributed",
            "random",
            "random",
        ),
    ] {
        let instance = [program, "-t", topology, "--seed", "5", "--init", init];
        let run = json_trace(
            &[
                &["run"],
                &instance[..],
                &["-d", daemon, "--max-steps", "30", "--choice", choice],
            ]
            .concat(),
        );
        let mut schedule = String::new();
        let mut named = 0;
        for step in &run[1..] {
            let moves: Vec<String> = step["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let mut one = format!("{}:{}", m["process"], m["action"].as_str().unwrap());
                    if let Some(member) = m["member"].as_i64() {
                        one.push_str(&format!("@{member}"));
                        named += 1;
                    }
                    if let Some(values) = m["drawn"].as_array() {
                        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                        one.push_str(&format!("<{}>", values.join(",")));
                        named += 1;
                    }
                    one
                })
                .collect();
            schedule.push_str(&moves.join(" "));
            schedule.push('\n');
        }
        assert!(
            named > 0 && run.len() > 2,
            "{program}: no members or draws in {run:?}"
        );
        let file = dir.join("replay.sched");
        std::fs::write(&file, &schedule).unwrap();
        let sched = format!("schedule:{}", file.display());
        let replayed = json_trace(&[&["run"], &instance[..], &["-d", &sched]].concat());
        assert_eq!(
            replayed, run,
            "{program} on {topology}, schedule:\n{schedule}"
        );
    }
}
