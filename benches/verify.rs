//! `guarded verify` against SPIN on the same instances, in one run so that
//! the ratios are measured under the same machine load:
//! `cargo bench --bench verify`.
//!
//! Dijkstra's K-state ring with n = K, from every configuration under the
//! central daemon: `guarded verify --daemon central --no-rounds` (the
//! verdict and the exact worst steps and moves) against SPIN's verdict
//! alone (`guarded export promela`, `spin -a`, `gcc -O2`, `pan -a`: is
//! there an acceptance cycle outside legitimacy), each a separate process
//! whose wall time and peak resident memory are measured (with
//! `/usr/bin/time` when there is one). SPIN's compilation is not timed.
//! Then `guarded verify` alone: all four daemons with rounds, the
//! synchronous daemon, and the arbitration program's configurations
//! reached from its start (configurations a second on every core and on
//! one thread, each the fastest of three runs; bytes each; the 3x4 grid's
//! 4.2 million show the bytes a configuration takes once the process's
//! own are small beside them).
//!
//! Then `--symmetry` against the search it reduces, on a ring and the
//! Petersen graph (configurations, orbits, seconds each), a program
//! with messages (Chang and Roberts' election) from its start, and
//! `guarded expect` on Herman's ring (N = 9 to 13, 15 when large), its
//! worst expected steps checked against 4abc/N, and properties of runs on
//! Dijkstra's ring with and without them, by the explicit engine (n = 6,
//! 7) and the symbolic one (n = 9, 10 when large).
//!
//! n = 6 and 7 by default (seconds); `GUARDED_BENCH_LARGE=1` adds n = 8 for
//! everything and n = 9 for the central and synchronous daemons (SPIN
//! needs minutes and gigabytes at n = 8; at n = 9 it is not run).

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/measure.rs"]
mod measure;
use measure::{mb, measure, measure_on, Took, GUARDED};

fn spin_installed() -> bool {
    Command::new("spin").arg("-V").output().is_ok()
}

/// A scratch directory of this benchmark's.
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guarded-bench-verify-{name}"));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn program(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("programs")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// SPIN on Dijkstra's ring of `n` with K = n, central daemon: the
/// convergence verdict (no acceptance cycle) and how many states it stored.
fn spin_dijkstra(n: usize) -> (Took, u64) {
    let dir = workdir(&format!("spin{n}"));
    let (ring, k) = (format!("ring:{n}"), format!("K={n}"));
    let dijkstra = program("dijkstra_kstate.gc");
    let export = [
        "export",
        "promela",
        &dijkstra,
        "--topology",
        &ring,
        "--param",
        &k,
        "--daemon",
        "central",
        "-o",
        "model.pml",
    ];
    measure(GUARDED, &export, &dir);
    measure("spin", &["-a", "model.pml"], &dir);
    measure(
        "gcc",
        &["-O2", "-DMEMLIM=65536", "-o", "pan", "pan.c"],
        &dir,
    );
    let pan = dir.join("pan");
    // The search depth stays in the hundreds here: a larger bound only
    // allocates a larger stack.
    let took = measure(pan.to_str().expect("a path"), &["-a", "-m100000"], &dir);
    assert!(
        took.output.contains("errors: 0") && !took.output.contains("too small"),
        "SPIN finds no convergence, or its search was cut:\n{}",
        took.output
    );
    let stored = took
        .output
        .lines()
        .find(|l| l.contains("states, stored"))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    (took, stored)
}

/// `guarded verify` on Dijkstra's ring of `n` with K = n, with `extra`
/// options.
fn guarded_dijkstra(n: usize, extra: &[&str]) -> Took {
    guarded_on_ring(&program("dijkstra_kstate.gc"), n, extra, false)
}

/// `guarded verify` on `program` (Dijkstra's ring, perhaps with more
/// declared) on the ring of `n` with K = n, with `extra` options, and
/// checking the program's properties if `properties`.
fn guarded_on_ring(program: &str, n: usize, extra: &[&str], properties: bool) -> Took {
    let (ring, k) = (format!("ring:{n}"), format!("K={n}"));
    let args = [
        &[
            "verify",
            program,
            "--topology",
            &ring,
            "--param",
            &k,
            // Against SPIN and the earlier runs: the explicit engine, which
            // `auto` would leave from n = 8 on (benches/engines.rs has both).
            "--engine",
            "explicit",
        ][..],
        // The search alone, as SPIN's, unless the properties are asked for.
        match properties {
            true => &[][..],
            false => &["--no-properties"][..],
        },
        extra,
    ]
    .concat();
    let took = measure(GUARDED, &args, &workdir("guarded"));
    assert!(
        took.output.contains("convergence  holds"),
        "{}",
        took.output
    );
    took
}

fn per(bytes: Option<u64>, count: f64) -> String {
    bytes.map_or("-".into(), |b| format!("{:.1}", b as f64 / count))
}

/// The number in the line of `output` that contains `label`, before it.
fn count_before(output: &str, label: &str) -> f64 {
    output
        .lines()
        .find_map(|l| {
            let before = l.split(label).next().filter(|_| l.contains(label))?;
            let word = before.split_whitespace().last()?;
            word.replace(',', "").parse().ok()
        })
        .unwrap_or(f64::NAN)
}

/// `--symmetry` against the search it reduces, on topologies with many
/// symmetries: Hsu and Huang's matching from every configuration (central,
/// no rounds).
fn symmetry(large: bool) {
    println!("\n--symmetry: one configuration per orbit, against every configuration (central daemon, no rounds)");
    println!(
        "{:<15} {:<9} {:>10} {:>8} {:>10} {:>8} {:>8} {:>6} {:>8} {:>9}",
        "program",
        "graph",
        "configs",
        "orbits",
        "symmetries",
        "every s",
        "orbits s",
        "ratio",
        "every MB",
        "orbits MB"
    );
    let mut cases = vec![("matching.gc", "ring:11"), ("matching.gc", "petersen")];
    if large {
        cases.push(("matching.gc", "ring:13"));
    }
    for (name, graph) in cases {
        let prog = program(name);
        let args = [
            "verify",
            &prog,
            "--topology",
            graph,
            "--daemon",
            "central",
            "--no-rounds",
        ];
        let every = measure(GUARDED, &args, &workdir("guarded"));
        let reduced = measure(
            GUARDED,
            &[&args[..], &["--symmetry"]].concat(),
            &workdir("guarded"),
        );
        let worst = |t: &Took| {
            t.output
                .lines()
                .find(|l| l.contains("worst case") || l.contains("invariants"))
                .map(str::to_string)
        };
        assert_eq!(worst(&every), worst(&reduced), "{name} on {graph}");
        let (configs, orbits) = if every.output.contains("configurations reached") {
            (
                count_before(&every.output, "configurations reached"),
                count_before(&reduced.output, "orbits reached"),
            )
        } else {
            (
                count_before(&every.output, "configurations"),
                count_before(&reduced.output, "orbits under"),
            )
        };
        println!(
            "{name:<15} {graph:<9} {configs:>10.0} {orbits:>8.0} {:>10.0} {:>8.2} {:>8.2} {:>6.1} {:>8} {:>9}",
            count_before(&reduced.output, "symmetries"),
            every.seconds,
            reduced.seconds,
            every.seconds / reduced.seconds,
            mb(every.bytes),
            mb(reduced.bytes)
        );
    }
}

/// Programs with messages from their start, against the targets of 10^6
/// configurations a second a core and 32 bytes a configuration: Chang and
/// Roberts' election (tests/golden/programs/chang_roberts.gc) on rings,
/// central and distributed, and the arrow protocol without timers
/// (benches/programs/arrow_untimed.gc) on chains, from arrows towards
/// process 0 (a start file), central; each on every core and, for the
/// central daemon, on one thread.
fn messages(large: bool) {
    println!("\nMessages from a start, no rounds (targets: 1e6 configs/s a core, 32 B/config)");
    println!(
        "{:<14} {:<8} {:<12} {:>7} {:>10} {:>9} {:>12} {:>6} {:>9}",
        "program",
        "topology",
        "daemon",
        "threads",
        "reached",
        "seconds",
        "configs/s",
        "MB",
        "B/config"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chang_roberts = root.join("tests/golden/programs/chang_roberts.gc");
    let arrow = root.join("benches/programs/arrow_untimed.gc");
    let dir = workdir("guarded");
    // (program, topology, daemon, start)
    // Messages to different processes are not ordered against one
    // another (2026-12-05): the ring of 8 central reaches 2,824
    // configurations where it reached 348,204, so the rings are larger
    // than before. The rows' code must fit two 64-bit halves for steps
    // to be written as bytes: Chang and Roberts' ring of 14 (about 2^69
    // rows) is the first to take two.
    let mut cases = vec![
        (&chang_roberts, "ring:11", "distributed", None),
        (&chang_roberts, "ring:12", "central", None),
        (&chang_roberts, "ring:12", "distributed", None),
        (&chang_roberts, "ring:13", "central", None),
        (&chang_roberts, "ring:14", "central", None),
        (&arrow, "chain:7", "central", Some(7)),
        (&arrow, "chain:8", "central", Some(8)),
    ];
    if large {
        cases.push((&chang_roberts, "ring:15", "central", None));
        // Past 6 million configurations: where the process's own few MB
        // no longer weigh on the bytes a configuration.
        cases.push((&chang_roberts, "ring:16", "central", None));
        cases.push((&chang_roberts, "ring:13", "distributed", None));
        cases.push((&arrow, "chain:9", "central", Some(9)));
    }
    for (program, topology, daemon, chain) in cases {
        let name = program.file_stem().map_or("", |s| s.to_str().unwrap_or(""));
        // The arrows along the chain, towards process 0.
        let start = match chain {
            Some(n) => {
                let file = dir.join(format!("arrow_chain{n}.init"));
                let lines: String = (1..n).map(|i| format!("{i}.p = {}\n", i - 1)).collect();
                std::fs::write(&file, lines).expect("a start file");
                file.to_string_lossy().into_owned()
            }
            None => "declared".into(),
        };
        let program = program.to_string_lossy();
        let args = [
            "verify",
            &program,
            "--topology",
            topology,
            "--daemon",
            daemon,
            "--from",
            &start,
            "--no-rounds",
        ];
        let threads: &[Option<usize>] = match daemon {
            "central" => &[None, Some(1)],
            _ => &[None],
        };
        for &on in threads {
            let took = measure_on(GUARDED, &args, &dir, on);
            assert!(
                took.output.contains("convergence  holds"),
                "{}",
                took.output
            );
            let reached = count_before(&took.output, "configurations reached");
            println!(
                "{name:<14} {topology:<8} {daemon:<12} {:>7} {reached:>10.0} {:>9.2} {:>12.0} {:>6} {:>9}",
                on.map_or("all".into(), |t| t.to_string()),
                took.seconds,
                reached / took.seconds,
                mb(took.bytes),
                per(took.bytes, reached)
            );
        }
    }
}

fn main() {
    let large = std::env::var_os("GUARDED_BENCH_LARGE").is_some();
    // One part alone: GUARDED_BENCH_ONLY=messages.
    if std::env::var("GUARDED_BENCH_ONLY").as_deref() == Ok("messages") {
        return messages(large);
    }
    let sizes: &[usize] = if large { &[6, 7, 8] } else { &[6, 7] };
    let spin = spin_installed();
    if !spin {
        println!("spin is not installed (Debian package `spin`): guarded alone");
    }
    println!("\nDijkstra's ring, n = K, every configuration, central daemon: verdict + worst steps and moves (guarded) / verdict (SPIN)");
    println!(
        "{:>3} {:>13} {:>10} {:>9} {:>8} {:>10} {:>9} {:>13} {:>9}",
        "n",
        "configs",
        "guarded s",
        "MB",
        "B/config",
        "SPIN s",
        "SPIN MB",
        "SPIN stored",
        "SPIN/ours"
    );
    for &n in sizes {
        let ours = guarded_dijkstra(n, &["--daemon", "central", "--no-rounds"]);
        let count = (n as f64).powi(n as i32);
        let (theirs, stored) = if spin {
            let (t, s) = spin_dijkstra(n);
            (Some(t), s)
        } else {
            (None, 0)
        };
        println!(
            "{n:>3} {count:>13.0} {:>10.2} {:>9} {:>8} {:>10} {:>9} {:>13} {:>9}",
            ours.seconds,
            mb(ours.bytes),
            per(ours.bytes, count),
            theirs
                .as_ref()
                .map_or("-".into(), |t| format!("{:.2}", t.seconds)),
            theirs.as_ref().map_or("-".into(), |t| mb(t.bytes)),
            stored,
            theirs
                .as_ref()
                .map_or("-".into(), |t| format!("{:.1}", t.seconds / ours.seconds)),
        );
    }
    println!("\nguarded verify alone (every configuration of the ring, n = K)");
    println!(
        "{:>3} {:<36} {:>10} {:>9} {:>9}",
        "n", "task", "seconds", "MB", "B/config"
    );
    let mut tasks: Vec<(usize, &str, Vec<&str>)> = Vec::new();
    for &n in sizes {
        tasks.push((n, "all four daemons, rounds included", vec![]));
        tasks.push((
            n,
            "synchronous",
            vec!["--daemon", "synchronous", "--no-rounds"],
        ));
    }
    if large {
        tasks.push((9, "central", vec!["--daemon", "central", "--no-rounds"]));
        tasks.push((
            9,
            "synchronous",
            vec!["--daemon", "synchronous", "--no-rounds"],
        ));
    }
    for (n, task, extra) in tasks {
        let took = guarded_dijkstra(n, &extra);
        let count = (n as f64).powi(n as i32);
        println!(
            "{n:>3} {task:<36} {:>10.2} {:>9} {:>9}",
            took.seconds,
            mb(took.bytes),
            per(took.bytes, count)
        );
    }
    println!("\nArbitration from its declared start, central daemon: configurations reached");
    println!(
        "{:<10} {:>12} {:>10} {:>12} {:>12} {:>14} {:>9} {:>9}",
        "graph", "reached", "seconds", "configs/s", "1 thread s", "1 thread c/s", "MB", "B/config"
    );
    let graphs: &[&str] = if large {
        &["ring:10", "ring:12", "petersen", "grid:3x3", "grid:3x4"]
    } else {
        &["ring:10", "petersen", "grid:3x4"]
    };
    let arbitration = program("arbitration.gc");
    for graph in graphs {
        // The search alone: its properties cost passes of their own.
        let args = [
            "verify",
            &arbitration,
            "--topology",
            graph,
            "--daemon",
            "central",
            "--no-properties",
        ];
        // Runs of a tenth of a second vary with the machine's load: the
        // fastest of three, on both sides.
        let fastest = |threads| {
            (0..3)
                .map(|_| measure_on(GUARDED, &args, &workdir("guarded"), threads))
                .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
                .expect("three runs")
        };
        let (took, alone) = (fastest(None), fastest(Some(1)));
        let reached = count_before(&took.output, "configurations reached");
        println!(
            "{graph:<10} {reached:>12.0} {:>10.2} {:>12.0} {:>12.2} {:>14.0} {:>9} {:>9}",
            took.seconds,
            reached / took.seconds,
            alone.seconds,
            reached / alone.seconds,
            mb(took.bytes),
            per(took.bytes, reached)
        );
    }
    symmetry(large);
    messages(large);
    expected_times(large);
    properties(large);
}

/// `verify` with properties of runs on Dijkstra's ring (token fairness
/// for each process, a stable predicate, a `sometimes`, a `leads_to`),
/// against the same run without them (central daemon, no rounds).
fn properties(large: bool) {
    println!("\nProperties of runs: Dijkstra's ring, n = K, every configuration, central");
    println!(
        "{:>3} {:>10} {:>12} {:>22} {:>9}",
        "n", "configs", "without s", "with 5 properties s", "MB"
    );
    let text = std::fs::read_to_string(program("dijkstra_kstate.gc")).expect("the program");
    let with = workdir("guarded").join("dijkstra_properties.gc");
    // The program's own two (token fairness, one privilege stays) and
    // three more.
    let props = "
property all_ones: sometimes forall(q in procs : q.x == 1)
property converges: true leads_to count(q in procs : enabled(q)) == 1
property zero_first: forall(p in procs : sometimes p.x == 1)
";
    std::fs::write(&with, text + props).expect("a file for the bench");
    let with = with.to_str().expect("a path").to_string();
    let sizes: &[usize] = if large { &[6, 7, 8] } else { &[6, 7] };
    for &n in sizes {
        let central = ["--daemon", "central", "--no-rounds"];
        let without = guarded_dijkstra(n, &central);
        let took = guarded_on_ring(&with, n, &central, true);
        assert!(took.output.contains("`converges` holds"), "{}", took.output);
        property_row(n, &without, &took);
    }
    // The symbolic engine, past what the explicit one numbers quickly.
    println!("  symbolic engine:");
    for n in if large { vec![9usize, 10] } else { vec![9] } {
        let (ring, k) = (format!("ring:{n}"), format!("K={n}"));
        let args = |properties: &'static [&'static str]| {
            let base = [
                "verify",
                &with,
                "--topology",
                &ring,
                "--param",
                &k,
                "--engine",
                "symbolic",
                "--daemon",
                "central",
                "--no-rounds",
            ];
            [&base[..], properties].concat()
        };
        let dir = workdir("guarded");
        let without = measure(GUARDED, &args(&["--no-properties"]), &dir);
        let took = measure(GUARDED, &args(&[]), &dir);
        assert!(took.output.contains("`converges` holds"), "{}", took.output);
        property_row(n, &without, &took);
    }
}

/// A row of the properties table: n, configurations, seconds without and
/// with the properties, peak memory with them.
fn property_row(n: usize, without: &Took, took: &Took) {
    println!(
        "{n:>3} {:>10.0} {:>12.2} {:>22.2} {:>9}",
        (n as f64).powi(n as i32),
        without.seconds,
        took.seconds,
        mb(took.bytes)
    );
}

/// `guarded expect` on Herman's ring from every configuration (the
/// synchronous daemon, every coin weighed): wall time and peak memory,
/// with the worst expected steps against 4abc/N.
fn expected_times(large: bool) {
    println!("\nguarded expect: Herman's ring, every configuration, synchronous");
    println!(
        "{:>3} {:>9} {:>12} {:>12} {:>10} {:>9}",
        "N", "configs", "worst steps", "4abc/N", "seconds", "MB"
    );
    let herman = program("herman.gc");
    let sizes: &[usize] = if large {
        &[9, 11, 13, 15]
    } else {
        &[9, 11, 13]
    };
    for &n in sizes {
        let ring = format!("uring:{n}");
        let took = measure(
            GUARDED,
            &["expect", &herman, "--topology", &ring],
            &workdir("guarded"),
        );
        let worst = worst_of(&took.output);
        let (a, b) = (n / 3, (n - n / 3) / 2);
        let want = 4.0 * (a * b * (n - a - b)) as f64 / n as f64;
        assert!((worst - want).abs() < 1e-5, "{}", took.output);
        println!(
            "{n:>3} {:>9} {worst:>12.6} {want:>12.6} {:>10.2} {:>9}",
            1u64 << n,
            took.seconds,
            mb(took.bytes)
        );
    }
}

/// The number after `expected steps  worst` in `expect`'s output.
fn worst_of(output: &str) -> f64 {
    output
        .split("expected steps  worst ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN)
}
