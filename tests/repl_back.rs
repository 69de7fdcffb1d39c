//! The REPL's `back` after long runs: its history keeps a snapshot every
//! 64 daemon steps and replays the steps between, so going back any number
//! of steps (within a stretch, to its snapshot, across stretches, across a
//! change of daemon, a `set` or a run that ended silent) must land where a
//! fresh session that took only the steps kept lands, the random generator
//! included: the next steps are the same too.

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
