//! The run loop's targets that instruction counts decide (issue 37), each
//! measured the way the README measures it: `guarded run` under
//! `valgrind --tool=callgrind` at two step budgets, the difference in
//! instructions divided by the difference in steps (or in processes
//! updated), so that parsing and set-up cancel out. Counts hardly vary for
//! one binary (unlike times on a shared machine): set-up's vary by a few
//! thousand instructions from run to run, some hash tables being seeded
//! at random, which moves a figure by a few instructions a step.
//! `cargo bench --bench instructions` (needs valgrind: the Debian package
//! `valgrind`; without it, says so and measures nothing).

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/measure.rs"]
mod measure;
use measure::GUARDED;

/// One case: what it runs, the two budgets, what a step counts for, and
/// the target it is held to.
struct Case {
    name: &'static str,
    args: Vec<String>,
    budgets: (u64, u64),
    /// Processes a step updates (1 for a central step), so that the
    /// figure is per process update where the target is.
    per_step: u64,
    unit: &'static str,
    /// The most instructions the target allows, and where that comes from.
    target: (f64, &'static str),
}

/// `guarded run PROGRAM -t TOPOLOGY` from a random start, with `more`.
fn run(program: &str, topology: &str, more: &[&str]) -> Vec<String> {
    let args = [
        "run",
        program,
        "-t",
        topology,
        "--init",
        "random",
        "--no-final",
    ];
    args.iter().chain(more).map(|a| a.to_string()).collect()
}

fn cases() -> Vec<Case> {
    let dijkstra = |topology, daemon| {
        run(
            "programs/dijkstra_kstate.gc",
            topology,
            &["--seed", "1", "-d", daemon],
        )
    };
    let ssle = |topology| {
        let more = ["--param", "repair=1", "--seed", "3", "-d", "central"];
        run("programs/ssle.gc", topology, &more)
    };
    // (name, what it runs, budgets, processes a step updates, unit, target)
    let table = [
        (
            "Dijkstra, central, ring:1000",
            dijkstra("ring:1000", "central"),
            (20_000, 120_000),
            1,
            "a step",
            (200.0, "the issue's"),
        ),
        (
            "Dijkstra, synchronous, ring:10000",
            dijkstra("ring:10000", "synchronous"),
            (20, 120),
            10_000,
            "a process update",
            (6.0, "the issue's"),
        ),
        (
            "SSLE (repair=1), central, ring:1000",
            ssle("ring:1000"),
            (5_000, 10_000),
            1,
            "a step",
            (3_750.0, "a quarter of the issue's 15,000"),
        ),
        // The first figure measured for random:1000 (2026-11-28).
        (
            "SSLE (repair=1), central, random:1000",
            ssle("random:1000"),
            (5_000, 10_000),
            1,
            "a step",
            (6_211.5, "a quarter of the first measure's 24,846"),
        ),
    ];
    table
        .into_iter()
        .map(|(name, args, budgets, per_step, unit, target)| Case {
            name,
            args,
            budgets,
            per_step,
            unit,
            target,
        })
        .collect()
}

/// Instructions `guarded args --max-steps budget` takes, run in `dir`.
fn instructions(args: &[String], budget: u64, dir: &Path) -> u64 {
    let out = dir.join("callgrind.out");
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(GUARDED)
        .args(args)
        .args(["--max-steps", &budget.to_string()])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .expect("valgrind runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "guarded {args:?} under callgrind failed: {stderr}"
    );
    // "==123== I   refs:      54,177,762"
    let refs = stderr
        .lines()
        .find_map(|l| l.split("I   refs:").nth(1))
        .unwrap_or_else(|| panic!("no instruction count in: {stderr}"));
    refs.trim()
        .replace(',', "")
        .parse()
        .expect("a count of instructions")
}

fn workdir() -> PathBuf {
    let dir = std::env::temp_dir().join("guarded-bench-instructions");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn main() {
    let valgrind = Command::new("valgrind").arg("--version").output();
    if !valgrind.is_ok_and(|o| o.status.success()) {
        println!("valgrind is not installed (Debian package `valgrind`): nothing measured");
        return;
    }
    let dir = workdir();
    println!(
        "{:<38} {:>9} {:<17} {:>8} {:<4} target's basis",
        "case", "instr.", "", "target", "met"
    );
    for case in cases() {
        let (low, high) = case.budgets;
        let (a, b) = (
            instructions(&case.args, low, &dir),
            instructions(&case.args, high, &dir),
        );
        let per = (b as f64 - a as f64) / ((high - low) * case.per_step) as f64;
        let (most, why) = case.target;
        let met = if per <= most { "yes" } else { "no" };
        println!(
            "{:<38} {per:>9.1} {:<17} {most:>8} {met:<4} {why}",
            case.name, case.unit
        );
    }
}
