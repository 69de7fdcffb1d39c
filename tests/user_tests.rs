//! `guarded test`: a user's golden-output tests of their own programs, kept,
//! passed, broken by a change to the program, and refused when malformed.

mod common;
use common::{guarded, scratch};
use std::fs;
use std::path::Path;

const RING: &str = "param K = n
topology ring:4
var x: 0..K-1
process where index == 0 {
    bottom :: x == left.x -> x := (x + 1) mod K
}
process where index != 0 {
    copy :: x != left.x -> x := left.x
}
legitimate: count(p in procs : enabled(p)) == 1
";

#[test]
fn tests_are_kept_passed_and_broken_by_a_change() {
    let dir = scratch("user-tests", "suite");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("repl")).unwrap();
    fs::write(dir.join("ring.gc"), RING).unwrap();
    fs::write(
        dir.join("run.test"),
        "# a run from a random start\n$ guarded run ring.gc --init random --seed 3 --max-steps 5",
    )
    .unwrap();
    fs::write(
        dir.join("repl/steps.test"),
        "$ guarded repl '../ring.gc' --init random --seed 1 --echo\n--- stdin\nstep 2\neval {p in procs : enabled(p)}\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();

    // Nothing kept yet: each fails and says how to keep it.
    let (code, out, _) = guarded(&["test", d]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.matches("no output kept yet").count(), 2, "{out}");

    let (code, out, _) = guarded(&["test", d, "--bless"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("0 passed, 0 failed, 2 blessed\n"), "{out}");
    let kept = fs::read_to_string(dir.join("run.test")).unwrap();
    // The head is kept as written, then what the command did.
    assert!(
        kept.starts_with("# a run from a random start\n$ guarded run ring.gc --init random --seed 3 --max-steps 5\n--- exit 0\n--- stdout\nprogram     ring.gc\n"),
        "{kept}"
    );
    let (_, run, _) = guarded(&[
        "run",
        dir.join("ring.gc").to_str().unwrap(),
        "--init",
        "random",
        "--seed",
        "3",
        "--max-steps",
        "5",
    ]);
    assert!(
        kept.contains(&run.replace(dir.join("ring.gc").to_str().unwrap(), "ring.gc")),
        "{kept}"
    );
    let repl = fs::read_to_string(dir.join("repl/steps.test")).unwrap();
    assert!(
        repl.contains("> eval {p in procs : enabled(p)}\n{"),
        "{repl}"
    );

    let (code, out, _) = guarded(&["test", d]);
    assert_eq!((code, out.as_str()), (0, "2 passed, 0 failed\n"));

    // A change to the program breaks both, each shown as a diff.
    fs::write(dir.join("ring.gc"), RING.replace("copy", "follow")).unwrap();
    let (code, out, _) = guarded(&["test", d]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAILED"), "{out}");
    assert!(out.contains("(expected)\n+++ "), "{out}");
    assert!(out.ends_with("0 passed, 2 failed\n"), "{out}");
    // One file may be named alone.
    let one = dir.join("run.test");
    let (code, out, _) = guarded(&["test", one.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.ends_with("0 passed, 1 failed\n"), "{out}");
}

#[test]
fn malformed_tests_are_refused_with_the_reason() {
    let dir = scratch("user-tests", "bad");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    for (name, text) in [
        ("no_dollar.test", "guarded run x.gc\n"),
        ("itself.test", "$ guarded test .\n"),
        ("trailing.test", "$ guarded check x.gc\nmore\n"),
        ("quote.test", "$ guarded check 'x.gc\n"),
        ("empty.test", "# only a comment\n"),
        ("server.test", "$ guarded explore x.gc\n"),
    ] {
        fs::write(dir.join(name), text).unwrap();
    }
    let (code, out, err) = guarded(&["test", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.ends_with("0 passed, 6 failed\n"), "{out}");
    for reason in [
        "`guarded run x.gc` is not a command",
        "a test may not run `guarded test`",
        "`more` after the command",
        "`$ guarded check 'x.gc` is not a command",
        "no command",
        "a test may not run `guarded explore`",
    ] {
        assert!(err.contains(reason), "{reason}: {err}");
    }
    // A command that would run for hours is stopped at the time limit.
    let slow = dir.join("slow");
    fs::create_dir_all(&slow).unwrap();
    let ring = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/dijkstra_kstate.gc");
    fs::write(
        slow.join("long.test"),
        format!(
            "$ guarded run '{}' --topology ring:100000 --init random --seed 1 --max-steps 100000000000\n",
            ring.display()
        ),
    )
    .unwrap();
    let (code, out, err) = guarded(&["test", "--timeout", "0.5", slow.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("still running after 0.5 s, stopped"), "{err}");
    let (code, _, err) = guarded(&["test", "--timeout", "0", slow.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = guarded(&["test", dir.join("none").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    fs::create_dir_all(dir.join("empty")).unwrap();
    let (code, _, err) = guarded(&["test", dir.join("empty").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no `.test` file"), "{err}");
}

/// The examples the README points at pass as kept (after an intended
/// change of output: `guarded test --bless tests/user`, then read the diff).
#[test]
fn the_readme_examples_pass() {
    let (code, out, err) = guarded(&["test", "tests/user"]);
    assert_eq!((code, out.as_str()), (0, "2 passed, 0 failed\n"), "{err}");
}
