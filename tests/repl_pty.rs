//! The REPL in a real pseudo-terminal: prompt, tab completion, hints do not
//! get in the way, Ctrl-C stays, Ctrl-D leaves, history persists.

use expectrl::{ControlCode, Session};
use std::process::Command;
use std::time::Duration;

fn spawn(history: &std::path::Path) -> Session {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_guarded"));
    cmd.args([
        "repl",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:6",
        "--init",
        "random",
        "--seed",
        "1",
    ])
    .current_dir(env!("CARGO_MANIFEST_DIR"))
    .env("NO_COLOR", "1")
    .env("GUARDED_HISTORY_DIR", history);
    let mut s = Session::spawn(cmd).expect("spawn in a pty");
    s.set_expect_timeout(Some(PATIENCE));
    s
}

/// How long an answer may take: generous, as the whole suite runs beside
/// this test (an answer took more than 20 s once in a loaded CI run).
const PATIENCE: Duration = Duration::from_secs(60);

/// Presses Ctrl-C until the running command says it was interrupted: a
/// press that lands while the line editor still holds the terminal is
/// read as a key, not sent as a signal, and is lost to the run.
fn interrupt_run(s: &mut Session) {
    s.set_expect_timeout(Some(Duration::from_secs(2)));
    let mut tries = 0;
    loop {
        std::thread::sleep(Duration::from_millis(500));
        s.send(ControlCode::EndOfText).unwrap();
        match s.expect("interrupted") {
            Ok(_) => break,
            Err(expectrl::Error::ExpectTimeout) if tries < 30 => tries += 1,
            Err(e) => panic!("the run was not interrupted: {e}"),
        }
    }
    s.set_expect_timeout(Some(PATIENCE));
}

#[test]
fn prompt_completion_interrupt_and_history() {
    let dir = std::env::temp_dir().join(format!("guarded-pty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut s = spawn(&dir);
    s.expect("`help` lists the commands").unwrap();
    s.expect("[0]> ").unwrap();
    // Tab completes `st` to `step`.
    s.send("st\t").unwrap();
    s.expect("step").unwrap();
    s.send("\r").unwrap();
    s.expect("step 1 round 1:").unwrap();
    s.expect("[1]> ").unwrap();
    s.send_line("fire 99").unwrap();
    s.expect("there is no process 99").unwrap();
    // Ctrl-C at the prompt does not leave; sent once the prompt is back,
    // not while the error is still being written.
    s.expect("[1]> ").unwrap();
    s.send(ControlCode::EndOfText).unwrap();
    s.expect("Ctrl-D to leave").unwrap();
    // Ctrl-C during a long run stops the run, not the session.
    s.send_line("run 1000000000").unwrap();
    interrupt_run(&mut s);
    s.expect("> ").unwrap();
    s.send_line("back 1").unwrap();
    s.expect("back 1").unwrap();
    s.send_line("reset").unwrap();
    s.expect("initial configuration").unwrap();
    s.send_line("show 0.x").unwrap();
    s.expect("0.x = 2").unwrap();
    // Ctrl-D leaves.
    s.send(ControlCode::EndOfTransmission).unwrap();
    s.expect(expectrl::Eof).unwrap();
    let history = std::fs::read_to_string(dir.join("history")).expect("history written");
    assert!(
        history.contains("fire 99") && history.contains("show 0.x"),
        "{history}"
    );

    // A new session recalls the last line with the up arrow.
    let mut s = spawn(&dir);
    s.expect("[0]> ").unwrap();
    s.send("\x1b[A\r").unwrap();
    s.expect("0.x = 2").unwrap();
    s.send_line("quit").unwrap();
    s.expect(expectrl::Eof).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_long_run_shows_its_progress_on_a_terminal() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_guarded"));
    cmd.args([
        "run",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:1000",
        "--init",
        "random",
        "--max-steps",
        "100000000",
        "--no-final",
    ])
    .current_dir(env!("CARGO_MANIFEST_DIR"))
    .env("NO_COLOR", "1");
    let mut s = Session::spawn(cmd).expect("spawn in a pty");
    s.set_expect_timeout(Some(PATIENCE));
    // After a second: the step, moves, rounds and rate.
    s.expect(expectrl::Regex(
        "step [0-9]+ · moves [0-9]+ · rounds [0-9]+ · 1 enabled · [0-9]+ steps/s",
    ))
    .unwrap();
    // The line is cleared for the summary.
    s.expect("stopped     step limit after step 100000000")
        .unwrap();
    s.expect(expectrl::Eof).unwrap();
}
