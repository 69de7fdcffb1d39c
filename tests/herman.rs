//! Herman's probabilistic token ring (programs/herman.gc) and the random
//! draws it needs: the number of tokens is odd and never grows, one token
//! is left with probability 1 and stays alone, and the mean number of steps
//! from three tokens at distances a, b, c is 4abc/N (McIver and Morgan).
//! Draws come from the run's seeded generator: a seed names a run.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Simulation};
use guarded::runtime::init::InitMode;
use guarded::topology::Ids;

const HERMAN: &str = include_str!("../programs/herman.gc");

fn run(src: &str, topology: &str, init: InitMode, seed: u64, daemon: Daemon) -> Simulation {
    let setup = Setup {
        topology: Some(topology.into()),
        seed,
        init,
        daemon,
        ids: Ids::Index,
        ..Setup::default()
    };
    simulate(src, &setup).unwrap_or_else(|e| panic!("{e}"))
}

/// Tokens: processes whose bit equals their predecessor's.
fn tokens(sim: &Simulation) -> usize {
    let x = sim.config().rows;
    let n = x.len();
    (0..n).filter(|&i| x[i] == x[(i + n - 1) % n]).count()
}

/// A start with tokens at processes 0, a and a + b of a ring of a + b + c.
fn three_tokens(a: usize, b: usize, c: usize) -> InitMode {
    let n = a + b + c;
    let mut x = vec![false; n];
    for i in 1..n {
        x[i] = if i == a || i == a + b {
            x[i - 1]
        } else {
            !x[i - 1]
        };
    }
    assert_eq!(x[0], x[n - 1], "a token at 0 too");
    let text: String = x
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{i}.x = {v}\n"))
        .collect();
    InitMode::File("three tokens".into(), text)
}

#[test]
fn tokens_are_odd_never_grow_and_one_stays_alone() {
    for seed in 0..200 {
        let mut sim = run(
            HERMAN,
            "uring:15",
            InitMode::Random,
            seed,
            Daemon::Synchronous,
        );
        let mut before = tokens(&sim);
        assert_eq!(before % 2, 1);
        let mut alone = None;
        for step in 0..2000 {
            sim.step().unwrap();
            let now = tokens(&sim);
            assert!(
                now % 2 == 1 && now <= before,
                "seed {seed}: {before} -> {now} tokens"
            );
            assert_eq!(sim.legitimate(), Some(now == 1));
            if now == 1 && alone.is_none() {
                alone = Some(step);
            }
            if alone.is_some_and(|s| step > s + 100) {
                break;
            }
            before = now;
        }
        assert!(
            alone.is_some(),
            "seed {seed}: more than one token after 2000 steps"
        );
    }
}

#[test]
fn the_mean_time_from_three_tokens_is_4abc_over_n() {
    for (a, b, c) in [(3, 3, 3), (1, 1, 7), (5, 5, 5), (1, 4, 10), (7, 7, 7)] {
        let n = a + b + c;
        let runs = 4000;
        let mut total = 0u64;
        let mut squares = 0u64;
        for seed in 0..runs {
            let topology = format!("uring:{n}");
            let mut sim = run(
                HERMAN,
                &topology,
                three_tokens(a, b, c),
                seed,
                Daemon::Synchronous,
            );
            assert_eq!(tokens(&sim), 3);
            while sim.legitimate() != Some(true) {
                sim.step().unwrap();
            }
            let steps = sim.now().step;
            total += steps;
            squares += steps * steps;
        }
        let mean = total as f64 / runs as f64;
        let sd = (squares as f64 / runs as f64 - mean * mean).sqrt();
        let expected = 4.0 * (a * b * c) as f64 / n as f64;
        // Four standard errors: the seeds are fixed, so this never flakes,
        // and a protocol off by a few percent would fail it.
        let tolerance = 4.0 * sd / (runs as f64).sqrt();
        assert!(
            (mean - expected).abs() < tolerance,
            "({a}, {b}, {c}): mean {mean:.2} steps over {runs} runs, expected 4abc/N = {expected:.2} (tolerance {tolerance:.2})"
        );
    }
}

#[test]
fn a_seed_names_the_draws_and_undo_takes_them_back() {
    let end = |seed| {
        let mut sim = run(
            HERMAN,
            "uring:21",
            InitMode::Random,
            seed,
            Daemon::Synchronous,
        );
        for _ in 0..30 {
            sim.step().unwrap();
        }
        sim.config().rows
    };
    assert_eq!(end(7), end(7));
    assert_ne!(end(7), end(8));
    let mut sim = run(
        HERMAN,
        "uring:21",
        InitMode::Declared,
        1,
        Daemon::Synchronous,
    );
    let snap = sim.snapshot();
    sim.step().unwrap();
    let first = sim.config().rows;
    sim.restore(snap);
    sim.step().unwrap();
    assert_eq!(
        sim.config().rows,
        first,
        "undo restores where the draws stood"
    );
}

#[test]
fn draws_are_uniform_over_their_range() {
    // Every process draws each step; 5 values, 9 processes, 2000 steps.
    let src = "var x: 0..4 = 0\nprocess { draw :: true -> x := random(0..4) }\n";
    let mut sim = run(src, "ring:9", InitMode::Declared, 3, Daemon::Synchronous);
    let mut seen = [0u64; 5];
    for _ in 0..2000 {
        sim.step().unwrap();
        for v in sim.config().rows {
            seen[v as usize] += 1;
        }
    }
    // 18,000 draws, 3,600 expected per value, sd about 54.
    for (v, count) in seen.iter().enumerate() {
        assert!(
            (3350..3850).contains(count),
            "value {v} drawn {count} times: {seen:?}"
        );
    }
}

#[test]
fn a_draw_outside_a_statement_or_from_an_empty_range_is_refused() {
    let guarded = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let dir = std::env::temp_dir().join(format!("guarded-herman-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("guard.gc");
    std::fs::write(
        &bad,
        "var x: 0..3 = 0\nprocess { a :: random(bool) -> x := 1 }\n",
    )
    .unwrap();
    let (code, err) = guarded(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("a random draw outside a statement"), "{err}");
    let empty = dir.join("empty.gc");
    std::fs::write(
        &empty,
        "topology ring:3\nvar x: 0..3 = 0\nprocess { a :: x == 0 -> x := random(3..1) }\n",
    )
    .unwrap();
    let (code, err) = guarded(&["run", empty.to_str().unwrap()]);
    assert_eq!(code, 3);
    assert!(
        err.contains("random(3..1) draws from an empty range"),
        "{err}"
    );
}

/// `verify` explores every value a coin can take: the number of tokens is
/// odd in every configuration and legitimacy (one token) is closed, but
/// some run keeps every token forever (every coin lands as it was), which
/// only probability excludes; the run it reports replays, coins and all.
#[test]
fn verify_explores_every_value_a_coin_takes() {
    let dir = std::env::temp_dir().join(format!("guarded-herman-verify-{}", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args([
            "verify",
            "programs/herman.gc",
            "--topology",
            "uring:5",
            "-d",
            "synchronous",
        ])
        .args(["--witness", dir.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(5), "{text}");
    assert!(
        text.contains("moves: every value each draw can take"),
        "{text}"
    );
    assert!(
        text.contains("invariants   hold in every configuration"),
        "{text}"
    );
    assert!(text.contains("closure      holds"), "{text}");
    assert!(
        text.contains("fails: a cycle of 1 step outside legitimacy, from x = [false, false, false, false, false], moving {0:flip<0>,1:flip<0>,2:flip<0>,3:flip<0>,4:flip<0>}"),
        "{text}"
    );
    // A cycle of draws: the verdict points to the question probability answers.
    assert!(
        text.contains("note         the cycle draws the same values each time round it")
            && text
                .contains("`guarded expect` says whether legitimacy is reached with probability 1"),
        "{text}"
    );
    let replay = std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args([
            "run",
            "programs/herman.gc",
            "--topology",
            "uring:5",
            "--seed",
            "7",
        ])
        .arg("--init")
        .arg(dir.join("synchronous-cycle.init"))
        .arg("--daemon")
        .arg(format!(
            "schedule:{}",
            dir.join("synchronous-cycle.sched").display()
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&replay.stdout);
    assert!(summary.contains("tokens      5"), "{summary}");
}
