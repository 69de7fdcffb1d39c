//! `guarded expect`: expected times held to independent computations.
//! Herman's ring against McIver and Morgan's 4abc/N for every
//! three-token configuration, and against a Markov chain built here by
//! hand and solved by Gaussian elimination; Dijkstra's ring under a
//! central daemon drawing uniformly, likewise by hand; an adversary
//! against `verify`'s exact worst cases (a program that does not draw);
//! probability 1 failing where an adversary can cycle, and on the
//! command line; a program whose processes choose (actions, binder
//! members) and draw inside branches, with the central and distributed
//! daemons' draws and rounds, against value iteration over a model built
//! by hand; programs that pass messages, against a random walk's hitting
//! time and against runs.

mod common;
use common::markov::{assert_agrees, certified_close, chain};
use common::{guarded, instance, sweep_mean, sweep_mean_with};
use guarded::runtime::daemon::Daemon;
use guarded::verify::expected::{self, Cost, Model, MoverChoice, Movers};
use guarded::verify::{Convergence, Explorer, Starts};

const HERMAN: &str = include_str!("../programs/herman.gc");
const DIJKSTRA: &str = include_str!("../programs/dijkstra_kstate.gc");

/// `guarded expect` with `args` (which ask for JSON): its exit status 0, and
/// the JSON it printed.
fn expect_json(args: &[&str]) -> serde_json::Value {
    let (code, json, err) = guarded(args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&json).unwrap()
}

/// The model of `inst` from every configuration.
fn model_of(inst: &guarded::load::Instance, movers: &Movers) -> Model {
    let every = Starts::Every(inst.space());
    expected::build(inst, every, movers, MoverChoice::Slowest, 1 << 20, None).unwrap()
}

/// The model of `src` on `topology` from every configuration, and the
/// expected steps from each.
fn solve(src: &str, topology: &str, params: &[(&str, i64)], movers: Movers) -> (Model, Vec<f64>) {
    let inst = instance(src, topology, params);
    let model = model_of(&inst, &movers);
    assert!(expected::no_sure_arrival(&model).is_none(), "{topology}");
    let steps = expected::expected(&model, Cost::Steps, None).unwrap();
    assert!(steps.certified, "{topology}");
    (model, steps.values)
}

/// Herman's ring of `n` by hand: bit i of `s` is process i's; process i
/// holds a token when its bit equals its predecessor's (i - 1); in a step
/// every token holder draws its bit, every other copies its predecessor's.
fn herman_by_hand(n: usize) -> Vec<f64> {
    let bit = |s: usize, i: usize| (s >> i) & 1;
    let pred = |i: usize| (i + n - 1) % n;
    let tokens = |s: usize| (0..n).filter(|&i| bit(s, i) == bit(s, pred(i))).count();
    chain(
        1 << n,
        |s| tokens(s) == 1,
        |s| {
            let holders: Vec<usize> = (0..n).filter(|&i| bit(s, i) == bit(s, pred(i))).collect();
            let p = 0.5f64.powi(holders.len() as i32);
            (0..1usize << holders.len())
                .map(|coins| {
                    let mut t = 0;
                    for i in 0..n {
                        let b = match holders.iter().position(|&h| h == i) {
                            Some(k) => (coins >> k) & 1,
                            None => bit(s, pred(i)),
                        };
                        t |= b << i;
                    }
                    (t, p)
                })
                .collect()
        },
    )
}

#[test]
fn herman_agrees_with_a_chain_solved_by_hand() {
    for n in [3, 5, 7] {
        let (model, values) = solve(
            HERMAN,
            &format!("uring:{n}"),
            &[],
            Movers::AsRuns(Daemon::Synchronous),
        );
        let by_hand = herman_by_hand(n);
        assert_eq!(model.configs.len(), 1 << n);
        assert_agrees(&model.configs, &values, &by_hand, &format!("ring of {n}"));
    }
}

#[test]
fn herman_three_tokens_take_4abc_over_n() {
    for n in [5usize, 7, 9, 11] {
        let (model, values) = solve(
            HERMAN,
            &format!("uring:{n}"),
            &[],
            Movers::AsRuns(Daemon::Synchronous),
        );
        let mut checked = 0;
        for (cfg, v) in model.configs.iter().zip(&values) {
            let x = &cfg.rows;
            let holders: Vec<usize> = (0..n).filter(|&i| x[i] == x[(i + n - 1) % n]).collect();
            if holders.len() != 3 {
                continue;
            }
            let (a, b) = (holders[1] - holders[0], holders[2] - holders[1]);
            let c = n - a - b;
            let want = 4.0 * (a * b * c) as f64 / n as f64;
            assert!(
                certified_close(*v, want),
                "ring of {n}, tokens {holders:?}: {v} against {want}"
            );
            checked += 1;
        }
        // Three places out of n, each with two values of the first bit.
        assert_eq!(checked, 2 * n * (n - 1) * (n - 2) / 6, "ring of {n}");
        // The worst start is three tokens as evenly spaced as they go.
        let worst = values.iter().copied().fold(0.0, f64::max);
        let (a, b) = (n / 3, (n - n / 3) / 2);
        let best_abc = (a * b * (n - a - b)) as f64;
        assert!(
            certified_close(worst, 4.0 * best_abc / n as f64),
            "ring of {n}: {worst}"
        );
    }
}

/// Dijkstra's ring of `n` with `k` states by hand, the central daemon
/// drawing one enabled process uniformly: process 0 advances when it
/// equals its predecessor (n - 1), the others copy theirs when they
/// differ; legitimate with one process enabled.
fn dijkstra_by_hand(n: usize, k: usize) -> Vec<f64> {
    let digits = |s: usize| -> Vec<usize> { (0..n).map(|i| s / k.pow(i as u32) % k).collect() };
    let enabled = |x: &[usize]| -> Vec<usize> {
        (0..n)
            .filter(|&i| match i {
                0 => x[0] == x[n - 1],
                _ => x[i] != x[i - 1],
            })
            .collect()
    };
    let number = |x: &[usize]| -> usize {
        x.iter()
            .enumerate()
            .map(|(i, &d)| d * k.pow(i as u32))
            .sum()
    };
    chain(
        k.pow(n as u32),
        |s| enabled(&digits(s)).len() == 1,
        |s| {
            let x = digits(s);
            let en = enabled(&x);
            en.iter()
                .map(|&i| {
                    let mut y = x.clone();
                    y[i] = match i {
                        0 => (x[0] + 1) % k,
                        _ => x[i - 1],
                    };
                    (number(&y), 1.0 / en.len() as f64)
                })
                .collect()
        },
    )
}

#[test]
fn dijkstra_under_a_uniform_central_daemon_agrees_with_a_chain_solved_by_hand() {
    for (n, k) in [(3, 3), (4, 3), (4, 4)] {
        let (model, values) = solve(
            DIJKSTRA,
            &format!("ring:{n}"),
            &[("K", k as i64)],
            Movers::AsRuns(Daemon::Central),
        );
        let by_hand = dijkstra_by_hand(n, k);
        for (cfg, v) in model.configs.iter().zip(&values) {
            let s: usize = cfg
                .rows
                .iter()
                .enumerate()
                .map(|(i, &d)| d as usize * k.pow(i as u32))
                .sum();
            assert!(
                certified_close(*v, by_hand[s]),
                "ring of {n}, K = {k}, {:?}: {v} against {}",
                cfg.rows,
                by_hand[s]
            );
        }
    }
}

/// With an adversary and no draws, the expected steps and rounds are
/// the worst cases `verify` finds by its own searches (rounds over
/// configurations and pending processes there too).
#[test]
fn an_adversary_takes_the_worst_case_verify_finds() {
    for n in [3, 4, 5] {
        let inst = instance(DIJKSTRA, &format!("ring:{n}"), &[]);
        let explorer = Explorer::new(&inst).unwrap();
        for daemon in [
            Daemon::Central,
            Daemon::Distributed,
            Daemon::LocallyCentral,
            Daemon::Synchronous,
        ] {
            let verdict = explorer.verify(&daemon).unwrap();
            let Convergence::Holds { steps, rounds, .. } = verdict.convergence else {
                panic!("Dijkstra's ring of {n} converges");
            };
            let (model, values) = solve(
                DIJKSTRA,
                &format!("ring:{n}"),
                &[],
                Movers::Adversary(daemon.clone()),
            );
            let worst = values.iter().copied().fold(0.0, f64::max);
            assert!(
                certified_close(worst, steps.steps.len() as f64),
                "ring of {n}, {}: {worst} against {}",
                daemon.name(),
                steps.steps.len()
            );
            let by_rounds = expected::expected_rounds(&model, n, 1 << 20, &values, None).unwrap();
            let worst = by_rounds.values.iter().copied().fold(0.0, f64::max);
            let (verify_rounds, _) = rounds.expect("rounds counted");
            assert!(by_rounds.certified);
            assert!(
                certified_close(worst, verify_rounds as f64),
                "ring of {n}, {}: rounds {worst} against {verify_rounds}",
                daemon.name()
            );
        }
    }
}

/// Under the synchronous daemon every step is a round.
#[test]
fn synchronous_rounds_are_steps() {
    for n in [3, 5, 7] {
        let (model, steps) = solve(
            HERMAN,
            &format!("uring:{n}"),
            &[],
            Movers::AsRuns(Daemon::Synchronous),
        );
        let rounds = expected::expected_rounds(&model, n, 1 << 20, &steps, None).unwrap();
        for (s, r) in steps.iter().zip(&rounds.values) {
            assert!(
                (s - r).abs() <= expected::CERTIFIED_WITHIN * s.max(1.0),
                "ring of {n}: {s} steps, {r} rounds"
            );
        }
    }
}

#[test]
fn where_an_adversary_can_cycle_probability_1_fails() {
    // Two states on the ring of 5: cycles under the central daemon.
    let inst = instance(DIJKSTRA, "ring:5", &[("K", 2)]);
    let model = model_of(&inst, &Movers::Adversary(Daemon::Central));
    let (start, kept) = expected::no_sure_arrival(&model).expect("an adversary cycles");
    let rel = inst.step_relation();
    assert_eq!(
        rel.legitimate(&model.configs[kept as usize]).unwrap(),
        Some(false)
    );
    assert!((start as usize) < model.starts);
}

#[test]
fn on_the_command_line() {
    let dir = std::env::temp_dir().join(format!("guarded-expect-{}", std::process::id()));
    let dir_s = dir.to_str().unwrap();
    let (code, out, err) = guarded(&[
        "expect",
        "programs/herman.gc",
        "-t",
        "uring:7",
        "--witness",
        dir_s,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("128 configurations reached from 128 starts, 14 legitimate"),
        "{out}"
    );
    assert!(out.contains("probability 1  holds"), "{out}");
    // 4abc/N with a, b, c = 2, 2, 3.
    assert!(out.contains("expected steps  worst 6.857143"), "{out}");
    let worst = std::fs::read_to_string(dir.join("worst-steps.init")).unwrap();
    let (code, json, err) = guarded(&[
        "expect",
        "programs/herman.gc",
        "-t",
        "uring:7",
        "--from",
        &dir.join("worst-steps.init").display().to_string(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}\n{worst}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["starts"], 1);
    assert!(
        certified_close(v["expected_steps"]["worst"].as_f64().unwrap(), 48.0 / 7.0),
        "{json}"
    );
    // An adversary that cycles: exit 5, and where.
    let (code, out, _) = guarded(&[
        "expect",
        "programs/dijkstra_kstate.gc",
        "-t",
        "ring:5",
        "-p",
        "K=2",
        "-d",
        "central",
        "--adversary",
    ]);
    assert_eq!(code, 5, "{out}");
    assert!(out.contains("probability 1  fails"), "{out}");
    // Bad input: a daemon it does not take, a program without legitimacy.
    let (code, _, err) = guarded(&["expect", "programs/herman.gc", "-d", "locally-central"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = guarded(&["expect", "programs/arbitration.gc"]);
    assert_ne!(code, 0);
    assert!(err.contains("legitimate"), "{err}");
    // Messages, and more starts than it keeps: refused at once, saying why.
    let (code, _, err) = guarded(&["expect", "programs/arrow.gc"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot compute expected times"), "{err}");
    let (code, _, err) = guarded(&["expect", "programs/dijkstra_kstate.gc", "-t", "ring:9"]);
    assert_eq!(code, 1);
    assert!(err.contains("more than `guarded expect` keeps"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A process that waits for `heads` heads in a row (a tail starts it
/// over) expects 2^(heads + 1) - 2 steps, and value iteration approaches
/// that slowly: the output says whether its values are certified, and at
/// 14 heads, where a sweep's change falls below 1e-13 of the value while
/// the value is still more than 1e-9 short, it says they are not.
#[test]
fn the_output_says_whether_the_values_are_certified() {
    for (heads, certified) in [(10, true), (14, false)] {
        let path = common::scratch("expect-heads", &format!("heads{heads}.gc"));
        std::fs::write(
            &path,
            format!(
                "topology chain:1\nvar x: 0..{heads} = 0\nprocess {{\n    flip :: x < {heads} -> if random(bool) {{ x := x + 1 }} else {{ x := 0 }}\n}}\nlegitimate: forall(p in procs : p.x == {heads})\n"
            ),
        )
        .unwrap();
        let program = path.to_str().unwrap();
        let exact = f64::from((1 << (heads + 1)) - 2);
        let (code, out, err) = guarded(&["expect", program, "-d", "central"]);
        assert_eq!(code, 0, "{err}");
        let said = match certified {
            true => "certified: each value within 1e-9 of the exact one",
            false => "not certified: no bounds within 1e-9 were found",
        };
        assert!(out.contains(said), "{out}");
        let v = expect_json(&["expect", program, "-d", "central", "--format", "json"]);
        assert_eq!(v["certified"], certified, "{v}");
        let worst = v["expected_steps"]["worst"].as_f64().unwrap();
        assert_eq!(
            certified_close(worst, exact),
            certified,
            "{worst} against {exact}"
        );
    }
}

/// Starts of one value (Herman's all-false and all-true rings, rotations
/// of one another's) are a tie, whatever the rounding of the sweeps: the
/// worst named is the first start, here the declared one, and its value is
/// the declared start's, to the last digit.
#[test]
fn a_tie_for_the_worst_names_the_first_start() {
    for daemon in ["central", "distributed"] {
        let v = expect_json(&[
            "expect",
            "programs/herman.gc",
            "-t",
            "uring:5",
            "-d",
            daemon,
            "--format",
            "json",
        ]);
        for measure in ["expected_steps", "expected_moves", "expected_rounds"] {
            let m = &v[measure];
            assert_eq!(
                m["worst_from"], "x = [false, false, false, false, false]",
                "{daemon} {measure}: {v}"
            );
            assert_eq!(m["worst"], m["declared"], "{daemon} {measure}: {v}");
        }
    }
}

/// Several sizes or daemons in one command: a row each (CSV here), the
/// worst expected steps of Herman's rings those of one size at a time
/// (4abc/N), and the exit code of the worst row.
#[test]
fn families_and_daemon_lists_on_the_command_line() {
    let (code, csv, err) = guarded(&[
        "expect",
        "programs/herman.gc",
        "-t",
        "uring:5..9+2",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 3, "{csv}");
    for (row, (n, worst)) in rows
        .iter()
        .zip([(5, 16.0 / 5.0), (7, 48.0 / 7.0), (9, 12.0)])
    {
        assert_eq!(row[0], n.to_string(), "{csv}");
        assert_eq!(row[5], "synchronous", "{csv}");
        assert_eq!(row[6], "every", "{csv}");
        assert_eq!(row[7], "true", "{csv}");
        let found: f64 = row[8].parse().unwrap();
        assert!((found - worst).abs() < 1e-6, "{csv}");
        // From the declared start as `expect` on that size alone says.
        let (_, single, _) =
            guarded(&["expect", "programs/herman.gc", "-t", &format!("uring:{n}")]);
        let declared: f64 = single
            .split("from the declared start ")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{single}"));
        let found: f64 = row[9].parse().unwrap();
        assert!((found - declared).abs() < 1e-6, "{csv}\n{single}");
        assert!(declared < worst && declared > 0.0, "{single}");
    }
    // The choice a row is about, as `--choice` spells it.
    let (_, first, _) = guarded(&[
        "expect",
        "programs/herman.gc",
        "-t",
        "uring:5",
        "--choice",
        "first",
        "--format",
        "csv",
    ]);
    let row: Vec<&str> = first.lines().nth(1).unwrap_or("").split(',').collect();
    assert_eq!(row.get(6), Some(&"first"), "{first}");
    // A list of daemons: a row each, in the order given, and the table
    // says how each draws its movers.
    let (code, out, err) = guarded(&[
        "expect",
        "programs/herman.gc",
        "-t",
        "uring:5",
        "-d",
        "central,synchronous",
    ]);
    assert_eq!(code, 0, "{err}");
    let central = out.find("5  uring:5").expect("a row for uring:5");
    assert!(out[central..].starts_with("5  uring:5"), "{out}");
    assert!(
        out.contains("steps: central: one enabled process, drawn uniformly"),
        "{out}"
    );
    assert!(
        out.contains("steps: synchronous: every enabled process moves"),
        "{out}"
    );
    let daemons: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("5  uring:5"))
        .map(|l| l.split_whitespace().nth(3).unwrap_or(""))
        .collect();
    assert_eq!(daemons, ["central", "synchronous"], "{out}");
    // Where one row fails probability 1, the family exits 5 and says which.
    let (code, out, _) = guarded(&[
        "expect",
        "programs/dijkstra_kstate.gc",
        "-t",
        "ring:3..4",
        "-p",
        "K=2",
        "-d",
        "central",
        "--adversary",
    ]);
    assert_eq!(code, 5, "{out}");
    assert!(out.contains("fails"), "{out}");
    // A range of one size is a family of one, not a wrong process count.
    let (code, out, err) = guarded(&["expect", "programs/herman.gc", "-t", "uring:5..5"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("on uring:5..5 (1 size)"), "{out}");
    // A daemon it does not take, in a list.
    let (code, _, err) = guarded(&["expect", "programs/herman.gc", "-d", "central,ticks"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`ticks`"), "{err}");
}

#[test]
fn every_draw_of_movers_and_values_is_a_distribution() {
    for movers in [
        Movers::AsRuns(Daemon::Distributed),
        Movers::AsRuns(Daemon::Central),
        Movers::AsRuns(Daemon::Synchronous),
    ] {
        for (src, topology) in [(DIJKSTRA, "ring:4"), (HERMAN, "uring:5")] {
            let inst = instance(src, topology, &[]);
            let model = model_of(&inst, &movers);
            for (s, outcomes) in model.outcomes.iter().enumerate() {
                if outcomes.is_empty() {
                    continue;
                }
                let total: f64 = outcomes.iter().map(|o| o.weight).sum();
                assert!(
                    (total - 1.0).abs() < 1e-12,
                    "{movers:?} {topology} {s}: {total}"
                );
                for c in outcomes.iter().flat_map(|o| &o.choices) {
                    let total: f64 = c.to.iter().map(|t| t.1).sum();
                    assert!((total - 1.0).abs() < 1e-12, "{movers:?} {topology} {s}");
                }
            }
        }
    }
}

/// The expected steps, moves and rounds from the worst start of each
/// against the mean of 20,000 seeded runs of `guarded sweep` from it
/// (within 4 standard errors): the daemons draw their movers as runs do,
/// and runs count rounds their own way.
#[test]
fn runs_average_what_is_expected() {
    let dir = std::env::temp_dir().join(format!("guarded-expect-runs-{}", std::process::id()));
    let program = "programs/dijkstra_kstate.gc";
    for daemon in ["central", "distributed"] {
        let witness = dir.join(daemon);
        let v = expect_json(&[
            "expect",
            program,
            "-t",
            "ring:4",
            "-d",
            daemon,
            "--format",
            "json",
            "--witness",
            witness.to_str().unwrap(),
        ]);
        for (measure, column, worst) in [
            ("expected_steps", "stabilized_step", "worst-steps"),
            ("expected_moves", "stabilized_move", "worst-moves"),
            ("expected_rounds", "stabilized_round", "worst-rounds"),
        ] {
            let init = witness.join(format!("{worst}.init"));
            let csv = dir.join(format!("{daemon}-{worst}.csv"));
            let run = (program, "ring:4", daemon);
            let init = init.to_str().unwrap();
            let (mean, se, _) = sweep_mean(run, init, "0..19999", &csv, column);
            let want = v[measure]["worst"].as_f64().unwrap();
            assert!(
                (mean - want).abs() < 4.0 * se,
                "{daemon} {measure}: runs {mean} ± {se}, expected {want}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Choices, binders and draws in branches: on a chain, a process with
/// `t == 2` beside another `2` calms down for either such neighbour (a
/// binder member each), a coin choosing between that neighbour's id modulo
/// 3 and 0 (the two neighbours' differ, so which member runs matters);
/// otherwise a process drifts down by one, or, at 0 beside a 2, wakes to a
/// coin.
const CALMING: &str = "var t: 0..2 = 2
process {
    calm for q in nbrs :: t == 2 and q.t == 2 -> if random(bool) { t := q.id mod 3 } else { t := 0 }
    drift priority 1 :: t > 0 -> t := t - 1
    wake priority 1 for q in nbrs :: t == 0 and q.t == 2 -> t := random(0..1)
}
legitimate: forall(p in procs : p.t == 0)
";

/// [`CALMING`] by hand on a chain of `n`: state `s` holds process i's `t`
/// as its base-3 digit i. Each process's moves, as lists of (probability,
/// value): `calm` once per neighbour with a 2 (neighbours in increasing
/// order), else `drift` or `wake` once per such neighbour; `first` keeps
/// the first move only.
fn calming_moves(n: usize, s: usize, p: usize, first: bool) -> Vec<Vec<(f64, usize)>> {
    let t = |i: usize| s / 3usize.pow(i as u32) % 3;
    let nbrs: Vec<usize> = [p.wrapping_sub(1), p + 1]
        .into_iter()
        .filter(|&q| q < n)
        .collect();
    let twos: Vec<usize> = nbrs.into_iter().filter(|&q| t(q) == 2).collect();
    let mut moves: Vec<Vec<(f64, usize)>> = match t(p) {
        2 if !twos.is_empty() => twos.iter().map(|&q| vec![(0.5, q % 3), (0.5, 0)]).collect(),
        0 => twos.iter().map(|_| vec![(0.5, 0), (0.5, 1)]).collect(),
        v => vec![vec![(1.0, v - 1)]],
    };
    if first {
        moves.truncate(1);
    }
    moves
}

/// What is counted to legitimacy.
#[derive(Clone, Copy, Debug)]
enum Measure {
    Steps,
    Moves,
    Rounds,
}

/// The expected steps, moves or rounds (`measure`) from each state of
/// [`CALMING`] on a chain of `n`, by value iteration over states and the
/// processes a round still owes (`None`: the next step begins a round),
/// the movers' choices made as `choices` says (the slowest joint choice
/// counting; the first move of each; or each joint choice alike, each
/// mover drawing its own uniformly); `distributed` draws movers as runs do
/// (each enabled process with probability 1/2, one uniformly if none),
/// else one enabled process uniformly.
fn calming_by_hand(
    n: usize,
    distributed: bool,
    choices: MoverChoice,
    measure: Measure,
) -> Vec<f64> {
    let states = 3usize.pow(n as u32);
    let first = choices == MoverChoice::First;
    let moves = |s: usize, p: usize| calming_moves(n, s, p, first);
    let enabled = |s: usize| -> u32 {
        (0..n)
            .filter(|&p| !moves(s, p).is_empty())
            .fold(0, |m, p| m | 1 << p)
    };
    let outcomes = |s: usize| -> Vec<(f64, u32)> {
        let on = enabled(s);
        let k = on.count_ones() as i32;
        if !distributed {
            return (0..n)
                .filter(|p| on >> p & 1 == 1)
                .map(|p| (1.0 / k as f64, 1 << p))
                .collect();
        }
        (1..=on)
            .filter(|set| set & !on == 0)
            .map(|set: u32| {
                let one = if set.count_ones() == 1 {
                    1.0 / k as f64
                } else {
                    0.0
                };
                (0.5f64.powi(k) * (1.0 + one), set)
            })
            .collect()
    };
    // Each joint choice of the movers: its successors with their probabilities.
    let joint = |s: usize, set: u32| -> Vec<Vec<(f64, usize)>> {
        let mut all = vec![vec![(1.0, s)]];
        for p in (0..n).filter(|p| set >> p & 1 == 1) {
            let place = 3usize.pow(p as u32);
            let digit = s / place % 3;
            all = all
                .iter()
                .flat_map(|partial| {
                    moves(s, p).into_iter().map(move |m| {
                        partial
                            .iter()
                            .flat_map(|&(q, r)| {
                                m.iter()
                                    .map(move |&(w, v)| (q * w, r - digit * place + v * place))
                            })
                            .collect()
                    })
                })
                .collect();
        }
        all
    };
    let mut value: std::collections::HashMap<(usize, Option<u32>), f64> = Default::default();
    loop {
        let mut change: f64 = 0.0;
        for s in (0..states).filter(|&s| enabled(s) != 0) {
            let owing: Vec<Option<u32>> = match measure {
                Measure::Steps | Measure::Moves => vec![None],
                _ => std::iter::once(None)
                    .chain((1..=enabled(s)).filter(|o| o & !enabled(s) == 0).map(Some))
                    .collect(),
            };
            for owed in owing {
                let owes = owed.unwrap_or(enabled(s));
                let mut v = 0.0;
                for (weight, set) in outcomes(s) {
                    let paid = match measure {
                        Measure::Steps => 1.0,
                        Measure::Moves => set.count_ones() as f64,
                        Measure::Rounds => f64::from(u8::from(owed.is_none())),
                    };
                    let after = |r: usize| match measure {
                        Measure::Steps | Measure::Moves => {
                            value.get(&(r, None)).copied().unwrap_or(0.0)
                        }
                        _ => {
                            let left = owes & !set & enabled(r);
                            value
                                .get(&(r, (left != 0).then_some(left)))
                                .copied()
                                .unwrap_or(0.0)
                        }
                    };
                    let ways = joint(s, set);
                    let each = ways
                        .iter()
                        .map(|to| paid + to.iter().map(|&(w, r)| w * after(r)).sum::<f64>());
                    let made = match choices {
                        MoverChoice::Drawn => each.sum::<f64>() / ways.len() as f64,
                        _ => each.fold(0.0, f64::max),
                    };
                    v += weight * made;
                }
                let old = value.insert((s, owed), v).unwrap_or(0.0);
                change = change.max((v - old).abs() / v.max(1e-300));
            }
        }
        if change < 1e-13 {
            break;
        }
    }
    (0..states)
        .map(|s| value.get(&(s, None)).copied().unwrap_or(0.0))
        .collect()
}

#[test]
fn choices_binders_and_draws_in_branches_agree_with_a_model_by_hand() {
    for n in [3, 4] {
        let inst = instance(CALMING, &format!("chain:{n}"), &[]);
        for (daemon, distributed) in [(Daemon::Central, false), (Daemon::Distributed, true)] {
            let every_way = [MoverChoice::Slowest, MoverChoice::First, MoverChoice::Drawn];
            for choices in every_way {
                let every = Starts::Every(inst.space());
                let movers = Movers::AsRuns(daemon.clone());
                let model = expected::build(&inst, every, &movers, choices, 1 << 20, None).unwrap();
                assert!(expected::no_sure_arrival(&model).is_none());
                let steps = expected::expected(&model, Cost::Steps, None).unwrap();
                let moves = expected::expected(&model, Cost::Moves, None).unwrap();
                let rounds =
                    expected::expected_rounds(&model, n, 1 << 20, &steps.values, None).unwrap();
                for (measure, found) in [
                    (Measure::Steps, &steps.values),
                    (Measure::Moves, &moves.values),
                    (Measure::Rounds, &rounds.values),
                ] {
                    let by_hand = calming_by_hand(n, distributed, choices, measure);
                    // The slowest choice is not always the first, nor
                    // the average of the choices.
                    for other in every_way.into_iter().filter(|&c| c != choices) {
                        let other = calming_by_hand(n, distributed, other, measure);
                        assert!(by_hand
                            .iter()
                            .zip(&other)
                            .any(|(a, b)| (a - b).abs() > 1e-3));
                    }
                    for (cfg, v) in model.configs.iter().zip(found) {
                        let s = cfg.rows.iter().rev().fold(0, |s, &t| s * 3 + t as usize);
                        let want = by_hand[s];
                        assert!(
                            certified_close(*v, want),
                            "chain of {n}, {daemon:?}, {choices:?}, {measure:?}, {:?}: {v} against {want}",
                            cfg.rows
                        );
                    }
                }
            }
        }
    }
}

/// A token on a random walk round a ring, passed as a message: the holder
/// sends it left or right on a fair coin, and the receiver takes it.
const WALK: &str = "message tok
channel capacity 1
var has: bool = index == 0
process {
    go :: has -> has := false; if random(bool) { send tok to right } else { send tok to left }
    take :: receive tok from q -> has := true
}
legitimate: exists(p in procs : p.index == n - 1 and p.has)
";

/// Messages are part of a configuration: the walk from process 0 reaches
/// its left neighbour, n - 1, in n - 1 hops expected (the walk's hitting
/// time k(n - k) at distance k = 1), each a send and a receive, so
/// 2(n - 1) steps; one process is enabled at a time, under either daemon
/// that draws, so each step is a round.
#[test]
fn a_walk_by_messages_takes_two_steps_a_hop() {
    let dir = std::env::temp_dir().join(format!("guarded-expect-walk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("walk.gc");
    std::fs::write(&program, WALK).unwrap();
    for n in [3usize, 5, 7] {
        for daemon in ["central", "distributed"] {
            let topology = format!("ring:{n}");
            let v = expect_json(&[
                "expect",
                program.to_str().unwrap(),
                "-t",
                &topology,
                "-d",
                daemon,
                "--from",
                "declared",
                "--format",
                "json",
            ]);
            assert_eq!(v["certified"], true, "{v}");
            // The token at a process, or on one of the two arcs out of
            // one of the n - 1 that hand it on (legitimacy is not left).
            assert_eq!(v["configurations"], 3 * n as u64 - 2, "{v}");
            let want = 2.0 * (n as f64 - 1.0);
            for measure in ["expected_steps", "expected_moves", "expected_rounds"] {
                let got = v[measure]["declared"].as_f64().unwrap();
                assert!(certified_close(got, want), "{n} {daemon} {measure}: {got}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Israeli and Jalfon's tokens as messages on a ring: a holder sends its
/// token to a neighbour drawn at random, and a token received merges with
/// any held. A holder that has a token coming in may walk or take it
/// first, the two actions being enabled together.
const MERGING: &str = "message tok
channel capacity 6 random 0..0
var has: bool = index == 0 or index == 3
process {
    walk :: has -> has := false; send tok to random(nbrs)
    take :: receive tok from q -> has := true
}
legitimate: count(p in procs : p.has) + sum(p in procs : sum(q in nbrs(p) : msgs(p, q))) == 1
";

/// Whether tokens merge turns on the choice between walking and taking:
/// with every choice, the worst keeps two tokens apart for ever (walk
/// before taking), and so does the first (always `walk`); drawn as runs
/// with `--choice random` draw it, legitimacy is reached with probability
/// 1, and the expected steps and rounds are within 4 standard errors of
/// the means of 20,000 seeded runs of `guarded sweep --choice random`.
#[test]
fn a_choice_drawn_as_runs_draw_it_is_weighed_as_they_weigh_it() {
    let dir = std::env::temp_dir().join(format!("guarded-expect-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("merging.gc");
    std::fs::write(&program, MERGING).unwrap();
    let program = program.to_str().unwrap();
    let args = |choice: &'static str| {
        let from = ["-t", "ring:6", "-d", "central", "--from", "declared"];
        let mut args = vec!["expect", program];
        args.extend(from);
        args.extend(["--choice", choice]);
        args
    };
    for (choice, worst) in [("every", true), ("first", false)] {
        let (code, out, err) = guarded(&args(choice));
        assert_eq!(code, 5, "{choice}: {out}{err}");
        assert!(out.contains("probability 1  fails"), "{choice}: {out}");
        assert_eq!(
            out.contains("with the worst choices"),
            worst,
            "{choice}: {out}"
        );
    }
    let mut json = args("random");
    json.extend(["--format", "json"]);
    let v = expect_json(&json);
    assert_eq!(v["probability_1"], true, "{v}");
    assert_eq!(v["certified"], true, "{v}");
    assert_eq!(v["choice"], "random", "{v}");
    let how = v["steps_drawn"].as_str().unwrap();
    assert!(
        how.contains("drawn uniformly among those it may take"),
        "{how}"
    );
    for (measure, column) in [
        ("expected_steps", "stabilized_step"),
        ("expected_rounds", "stabilized_round"),
    ] {
        let csv = dir.join(format!("{column}.csv"));
        let run = (program, "ring:6", "central");
        let more = ["--choice", "random"];
        let (mean, se, _) = sweep_mean_with(run, "declared", "0..19999", (&csv, column), &more);
        let want = v[measure]["declared"].as_f64().unwrap();
        assert!(
            (mean - want).abs() < 4.0 * se,
            "{measure}: runs {mean} ± {se}, expected {want}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Chang and Roberts' election from its start, where the central and
/// distributed daemons draw and every process takes its first enabled
/// action (as runs do): the expected steps are the 4n - 1 moves every run
/// makes, and the expected rounds are within 4 standard errors of the mean
/// of 20,000 seeded runs of `guarded sweep`. Every configuration of a
/// program with messages is refused, as `verify` refuses it.
#[test]
fn chang_and_roberts_rounds_average_what_is_expected() {
    let program = "tests/golden/programs/chang_roberts.gc";
    let dir = std::env::temp_dir().join(format!("guarded-expect-cr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for daemon in ["central", "distributed"] {
        let args = ["expect", program, "-t", "ring:4", "-d", daemon];
        let v = expect_json(
            &[
                &args[..],
                &[
                    "--from", "declared", "--choice", "first", "--format", "json",
                ],
            ]
            .concat(),
        );
        let moves = v["expected_moves"]["declared"].as_f64().unwrap();
        assert!(certified_close(moves, 15.0), "{daemon}: {moves}");
        let csv = dir.join(format!("{daemon}.csv"));
        let run = (program, "ring:4", daemon);
        for (measure, column) in [
            ("expected_steps", "stabilized_step"),
            ("expected_rounds", "stabilized_round"),
        ] {
            let (mean, se, _) = sweep_mean(run, "declared", "0..19999", &csv, column);
            let want = v[measure]["declared"].as_f64().unwrap();
            assert!(
                (mean - want).abs() <= 4.0 * se.max(1e-9),
                "{daemon} {measure}: runs {mean} ± {se}, expected {want}"
            );
        }
        let (code, _, err) = guarded(&args);
        assert_ne!(code, 0);
        assert!(err.contains("--from declared"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The model is kept within half the memory budget, and the model lifted
/// to rounds within the rest: past it, the expected times are refused
/// with what to do (Herman's ring of 11 under the distributed daemon
/// draws 3^k ways to move from k tokens), or the rounds alone are not
/// computed, and the output says why.
#[test]
fn models_past_the_memory_budget_are_refused_with_the_reason() {
    let (code, _, err) = guarded(&[
        "expect",
        "programs/herman.gc",
        "-t",
        "uring:11",
        "-d",
        "distributed",
        "--memory-limit",
        "64M",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("the model passes 32 MB (half the memory budget)")
            && err.contains("raise --memory-limit"),
        "{err}"
    );
    let args = [
        "expect",
        "programs/herman.gc",
        "-t",
        "uring:9",
        "-d",
        "central",
    ];
    let v = expect_json(&[&args[..], &["--memory-limit", "64M", "--format", "json"]].concat());
    let why = v["rounds_not_computed"].as_str().unwrap_or_default();
    assert!(why.contains("the model lifted to rounds passes"), "{v}");
    assert!(v["expected_rounds"].is_null(), "{v}");
    // The steps as without the limit.
    let (code, unlimited, err) = guarded(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let u: serde_json::Value = serde_json::from_str(&unlimited).unwrap();
    assert_eq!(v["expected_steps"], u["expected_steps"], "{v}\n{unlimited}");
    assert!(u["rounds_not_computed"].is_null(), "{unlimited}");
}

/// A configuration named in the output shows its messages in transit:
/// process 0's coin either makes legitimacy or sends a token that is
/// passed round the ring for ever, so probability 1 fails from the start,
/// and runs can be kept out of legitimacy from where the token is on its
/// way to process 1 (its rows alone are those of no trap).
#[test]
fn configurations_named_show_their_messages_in_transit() {
    let dir = std::env::temp_dir().join(format!("guarded-expect-coin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("coin.gc");
    std::fs::write(
        &program,
        "message tok
channel capacity 1
var x: 0..3 = 0
process {
    flip :: index == 0 and x == 0 -> if random(bool) { x := 3 } else { x := 1; send tok to right }
    pass :: receive tok from q -> send tok to right
}
legitimate: exists(p in procs : p.x == 3)
",
    )
    .unwrap();
    let program = program.to_str().unwrap();
    let args = ["expect", program, "-t", "ring:3", "-d", "central"];
    let (code, out, err) = guarded(&[&args[..], &["--from", "declared"]].concat());
    assert_eq!(code, 5, "{err}");
    assert!(
        out.contains("probability 1  fails: from x = [0, 0, 0], legitimacy may never be reached")
            && out.contains("from x = [1, 0, 0]; in transit 0->1: tok, runs can be kept out"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The walk with the neighbour drawn by `random(nbrs)`: along a path of
/// n processes from one end to the other, the walk's hitting time is
/// (n - 1)^2 hops (it turns back at process 0, which has one neighbour),
/// each a send and a receive; round a ring, the two-neighbour coin of
/// [`WALK`] again.
#[test]
fn a_walk_to_a_random_neighbour_takes_the_hitting_time() {
    let dir = std::env::temp_dir().join(format!("guarded-expect-nbr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("walk.gc");
    let walk = WALK.replace(
        "if random(bool) { send tok to right } else { send tok to left }",
        "send tok to random(nbrs)",
    );
    assert_ne!(walk, WALK);
    std::fs::write(&program, walk).unwrap();
    for (topology, hops) in [
        ("chain:3", 4.0),
        ("chain:5", 16.0),
        ("chain:7", 36.0),
        ("ring:5", 4.0),
        ("ring:6", 5.0),
    ] {
        let v = expect_json(&[
            "expect",
            program.to_str().unwrap(),
            "-t",
            topology,
            "--from",
            "declared",
            "--format",
            "json",
        ]);
        let got = v["expected_steps"]["declared"].as_f64().unwrap();
        assert!(certified_close(got, 2.0 * hops), "{topology}: {got}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A colour drawn from those no neighbour has (`random(S)` of a set a
/// `def` names): the expected steps to a proper colouring under a central
/// daemon drawing uniformly are within 4 standard errors of the mean of
/// 20,000 seeded runs from the declared start (every process coloured 0).
#[test]
fn a_colour_drawn_from_a_set_averages_what_is_expected() {
    let program = "tests/golden/programs/free_colour.gc";
    let v = expect_json(&[
        "expect", program, "-t", "ring:5", "-d", "central", "--format", "json",
    ]);
    let dir = std::env::temp_dir().join(format!("guarded-expect-colour-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("runs.csv");
    let want = v["expected_steps"]["declared"].as_f64().unwrap();
    let run = (program, "ring:5", "central");
    let (mean, se, runs) = sweep_mean(run, "declared", "0..19999", &csv, "stabilized_step");
    assert_eq!(runs, 20_000);
    assert!(
        (mean - want).abs() <= 4.0 * se,
        "runs {mean} ± {se}, expected {want}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
