//! The explorer in a real browser: Debian's Chromium (or `$CHROMIUM`),
//! driven by playwright-core (`tests/browser/`, installed by `.ci/run` with
//! `npm ci`) through `tests/browser/explore.mjs`. On Dijkstra's ring it
//! clicks a process that is not enabled (the page says why), an enabled
//! process three times, goes back, branches, saves the
//! path, and `guarded run` replays the saved files to the configuration
//! the page shows; it verifies the K = 3 ring of 4 from the page, opens
//! the synchronous cycle and walks it to its end; it edits the program to
//! a type error, sees the diagnostic, and fixes it. Without Node.js,
//! playwright-core or Chromium the tests say they were skipped; under
//! `CI=true` they fail.

mod common;
use common::server::Server;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const DIJKSTRA: &str = "programs/dijkstra_kstate.gc";

fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into())
}

/// Whether the browser and its driver are there; when not, says so (and
/// fails under CI).
fn have_browser() -> bool {
    let node = Command::new("node").arg("--version").output().is_ok();
    let driver = Path::new("tests/browser/node_modules/playwright-core").is_dir();
    let chromium = Command::new(chromium()).arg("--version").output().is_ok();
    if node && driver && chromium {
        return true;
    }
    let missing = format!("node: {node}, playwright-core: {driver}, chromium: {chromium}");
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the browser test needs Node.js, tests/browser's playwright-core (`npm ci` there) and Chromium ({missing}): .ci/run installs them"
    );
    eprintln!("SKIPPED: the explorer was not tested in a browser ({missing})");
    false
}

/// Runs a scenario of `explore.mjs` against `server`; what it printed.
fn drive(scenario: &str, server: &Server, dir: &Path) -> Value {
    let out = Command::new("node")
        .arg("tests/browser/explore.mjs")
        .arg(scenario)
        .arg(server.url())
        .arg(dir)
        .env("CHROMIUM", chromium())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{scenario}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn scratch(name: &str) -> PathBuf {
    common::scratch("explore", name)
}

/// The final configuration `guarded run` prints: each process's values.
fn final_values(text: &str) -> Vec<Vec<String>> {
    text.split("final configuration:")
        .nth(1)
        .expect("a final configuration")
        .lines()
        .filter(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|l| {
            let (_, values) = l.split_once(": ").expect("P: values");
            values
                .trim_end_matches(" *")
                .split_whitespace()
                .map(|v| v.split_once('=').expect("name=value").1.to_string())
                .collect()
        })
        .collect()
}

#[test]
fn click_back_branch_save_and_replay() {
    if !have_browser() {
        return;
    }
    let args = [DIJKSTRA, "-t", "ring:5", "--init", "random", "--seed", "3"];
    let server = Server::start(&args);
    let dir = scratch("walk");
    let shown = drive("walk", &server, &dir);
    // A process that is not enabled, clicked, said why (its guard is
    // false), until the next step.
    let why = shown["why"].as_str().unwrap();
    let off = shown["off"].as_str().unwrap();
    assert!(
        why.starts_with(&format!("process {off} is not enabled:\n"))
            && why.contains("its guard is false")
            && why.contains("left.x"),
        "{shown}"
    );
    assert_eq!(shown["whyHidden"], true, "{shown}");
    // Its message is plain; a run until a half-typed expression fails, in red.
    assert_eq!(shown["told"]["error"], false, "{shown}");
    assert!(
        shown["told"]["text"]
            .as_str()
            .unwrap()
            .contains("is not enabled"),
        "{shown}"
    );
    assert_eq!(shown["failed"]["error"], true, "{shown}");
    assert!(
        shown["failed"]["text"].as_str().unwrap().contains("=="),
        "{shown}"
    );
    // Three steps, one back, and a branch beside the third.
    assert_eq!(shown["path"].as_array().unwrap().len(), 4, "{shown}");
    assert_eq!(shown["children"], 2, "{shown}");
    assert!(shown["measures"].as_str().unwrap().starts_with("step 3 "));
    let sched = std::fs::read_to_string(dir.join("path.sched")).unwrap();
    assert_eq!(sched.lines().count(), 3, "{sched}");
    let replay = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .arg("run")
        .args(&args[..3])
        .arg("--init")
        .arg(dir.join("path.init"))
        .arg("--daemon")
        .arg(format!("schedule:{}", dir.join("path.sched").display()))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{text}");
    let values: Vec<Vec<String>> = serde_json::from_value(shown["values"].clone()).unwrap();
    assert_eq!(final_values(&text), values);
}

#[test]
fn a_counterexample_walked_to_its_end() {
    if !have_browser() {
        return;
    }
    let server = Server::start(&[DIJKSTRA, "-t", "ring:4", "-p", "K=3", "-d", "synchronous"]);
    let shown = drive("counterexample", &server, &scratch("cycle"));
    assert!(shown["output"]
        .as_str()
        .unwrap()
        .contains("convergence  fails: a cycle of 3 steps"));
    let walked = shown["walked"].as_array().unwrap();
    assert_eq!(walked.len(), 4, "{shown}");
    for (k, w) in walked.iter().enumerate() {
        assert!(w["measures"]
            .as_str()
            .unwrap()
            .starts_with(&format!("step {k} ")));
    }
    // The cycle's end is its start.
    assert_eq!(walked[0]["values"], walked[3]["values"]);
    assert_ne!(walked[0]["values"], walked[1]["values"]);
}

#[test]
fn an_edit_to_a_type_error_and_back() {
    if !have_browser() {
        return;
    }
    let server = Server::start(&[DIJKSTRA, "-t", "ring:4"]);
    let shown = drive("edit", &server, &scratch("edit"));
    let diagnostic = shown["diagnostic"].as_str().unwrap();
    assert!(
        diagnostic.contains("expected int, found bool"),
        "{diagnostic}"
    );
    assert!(
        diagnostic.contains("help: `x` holds values of type int"),
        "{diagnostic}"
    );
    assert_eq!(shown["after"], "");
}
