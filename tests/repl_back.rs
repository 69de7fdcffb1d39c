//! The REPL's `back` after long runs: its history keeps a snapshot every
//! 64 daemon steps and replays the steps between, so going back any number
//! of steps (within a stretch, to its snapshot, across stretches, across a
//! change of daemon, a `set` or a run that ended silent) must land where a
//! fresh session that took only the steps kept lands, the random generator
//! included: the next steps are the same too. A long `run` prints its last
//! 20 steps by going back over them and taking them again, so those must be
//! the steps `step` prints, however the run stopped.

use std::io::Write;
use std::process::{Command, Stdio};

/// What a `guarded repl` session of `program` on `topology` (random
/// start, seed 4, `daemon`) prints after its `eval 12345` marker, given
/// `lines` before the marker and `after` it.
fn after_marker(program: &str, topology: &str, daemon: &str, lines: &str, after: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(["repl", program, "--topology", topology, "--init", "random"])
        .args(["--seed", "4", "--daemon", daemon])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let script = format!("{lines}eval 12345\n{after}");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (_, tail) = text
        .rsplit_once("12345\n")
        .unwrap_or_else(|| panic!("no marker in {text}"));
    tail.to_string()
}

/// Going back `k` after `lines` is where `fresh` leads, and so are the
/// next steps.
fn lands_as(program: &str, topology: &str, daemon: &str, (lines, k): (&str, usize), fresh: &str) {
    let after = "measures\nshow\nrun 7\nmeasures\nshow\n";
    let went_back = after_marker(
        program,
        topology,
        daemon,
        &format!("{lines}back {k}\n"),
        after,
    );
    let took = after_marker(program, topology, daemon, fresh, after);
    assert_eq!(
        went_back, took,
        "{program} {topology} {daemon}: `{lines}` then back {k}, against `{fresh}`"
    );
}

/// Herman's ring: every process is enabled at every step (a token holder
/// flips, the others copy), so each daemon takes steps of its own at
/// every step, and the coins draw.
const HERMAN: &str = "programs/herman.gc";

#[test]
fn back_after_a_long_run_lands_where_the_steps_kept_lead() {
    for daemon in ["central", "distributed", "locally-central", "synchronous"] {
        for k in [1, 37, 63, 64, 65, 128, 129, 300, 1000] {
            let fresh = format!("run {}\n", 1000 - k);
            lands_as(HERMAN, "uring:11", daemon, ("run 1000\n", k), &fresh);
        }
        // `step` and `run` commands chain their steps alike.
        let commands = ("step 5\nstep 70\nrun 3\n", 77);
        lands_as(HERMAN, "uring:11", daemon, commands, "run 1\n");
        // A `set` between runs is a position of its own.
        let set_between = "run 100\nset 3.x = true\nrun 100\n";
        let after_set = "run 100\nset 3.x = true\n";
        lands_as(HERMAN, "uring:11", daemon, (set_between, 100), after_set);
        lands_as(HERMAN, "uring:11", daemon, (set_between, 101), "run 100\n");
        lands_as(HERMAN, "uring:11", daemon, (set_between, 102), "run 99\n");
    }
    // Steps taken under another daemon replay under it.
    let switched = "run 100\ndaemon central\nrun 100\ndaemon synchronous\nrun 70\n";
    let fresh = "run 100\ndaemon central\nrun 50\ndaemon synchronous\n";
    lands_as(HERMAN, "uring:11", "distributed", (switched, 120), fresh);
    // A run that ends silent keeps no position for the step it did not take.
    let silent = ("run 100\nrun 5\n", 3);
    lands_as(
        "programs/ssle.gc",
        "ring:5",
        "synchronous",
        silent,
        "run 8\n",
    );
}

/// The last steps a long `run` prints (after `setup`) are the ones `step`
/// prints for them, watches and notes included, and the line before them
/// counts the steps not shown.
fn run_prints_its_last_steps(program: &str, topology: &str, daemon: &str, setup: &str, run: &str) {
    let ran = after_marker(program, topology, daemon, setup, run);
    let mut lines = ran.lines().peekable();
    // "... N earlier steps not shown", unless the run took 20 steps.
    let hidden: u64 = match lines.peek().and_then(|l| l.strip_prefix("... ")) {
        Some(rest) => {
            let n = rest.split(' ').next().and_then(|n| n.parse().ok());
            lines.next();
            n.unwrap_or_else(|| panic!("{program} {daemon} `{run}`: {ran}"))
        }
        None => 0,
    };
    // The steps end where the line saying why the run stopped begins.
    let ends = ["ran ", "`", "breakpoint ", "silent:", "guarded::"];
    let shown: Vec<&str> = lines
        .take_while(|l| !ends.iter().any(|e| l.starts_with(e)))
        .collect();
    let steps = shown.iter().filter(|l| l.starts_with("step ")).count();
    assert_eq!(steps, 20, "{program} {daemon} `{run}`: {ran}");
    let stepped = after_marker(
        program,
        topology,
        daemon,
        &format!("{setup}run {hidden}\n"),
        &format!("step {steps}\n"),
    );
    assert_eq!(
        shown.join("\n") + "\n",
        stepped,
        "{program} {topology} {daemon}: `{run}` against `run {hidden}` and `step {steps}`"
    );
}

#[test]
fn a_long_run_prints_the_steps_step_would_print() {
    let watch = "watch count(p in procs : p.x)\n";
    let dir = std::env::temp_dir().join(format!("guarded_repl_run_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Counters that overflow (a runtime error ends the run) or stop (silent).
    let overflows = dir.join("overflows.gc");
    let program = "var x: 0..40 = 0\nprocess { up :: true -> x := x + 1 }\n";
    std::fs::write(&overflows, program).unwrap();
    let stops = dir.join("stops.gc");
    std::fs::write(&stops, program.replace("true", "x < 40")).unwrap();
    let (overflows, stops) = (overflows.to_str().unwrap(), stops.to_str().unwrap());
    // From zero, so that every daemon takes more than 20 steps.
    let zeros = format!("{watch}set 0.x = 0\nset 1.x = 0\nset 2.x = 0\nset 3.x = 0\n");
    for daemon in ["central", "distributed", "locally-central", "synchronous"] {
        run_prints_its_last_steps(HERMAN, "uring:11", daemon, watch, "run 100\n");
        let until = "run 1000 until count(p in procs : p.x) == 1\n";
        run_prints_its_last_steps(HERMAN, "uring:11", daemon, watch, until);
        // Stopped where legitimacy begins, which the last step notes.
        let legitimate = "run 1000 until count(p in procs : token(p)) == 1\n";
        run_prints_its_last_steps(HERMAN, "uring:11", daemon, watch, legitimate);
        let breaks = format!("{watch}break count(p in procs : p.x) == 0\n");
        run_prints_its_last_steps(HERMAN, "uring:11", daemon, &breaks, "run 1000\n");
        run_prints_its_last_steps(overflows, "ring:4", daemon, &zeros, "run 1000\n");
        run_prints_its_last_steps(stops, "ring:4", daemon, &zeros, "run 1000\n");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
