//! The two engines of `guarded verify` side by side, in one run so that
//! the ratios are measured under the same machine load:
//! `cargo bench --bench engines`.
//!
//! Each instance is verified from every configuration with `--engine
//! explicit` and with `--engine symbolic` (no rounds), each a separate
//! process whose wall time and peak resident memory are measured; both
//! must give the same verdict and the same worst steps. Past 2^32
//! configurations the explicit engine refuses, and only the symbolic one
//! runs. Dijkstra's K-state ring with n = K under the central and the
//! synchronous daemons, then three more protocols on rings under the
//! central daemon: a three-colouring, a maximal independent set and
//! Johnen's leader election (unidirectional rings).
//!
//! Small sizes by default (seconds); `GUARDED_BENCH_LARGE=1` adds sizes
//! where the explicit engine takes a minute or more, and one size of each
//! protocol past its 2^32 configurations, for the symbolic engine alone
//! (Dijkstra's ring up to n = K = 12 under the central daemon).

use std::path::{Path, PathBuf};

#[path = "common/measure.rs"]
mod measure;
use measure::{mb, measure, Took, GUARDED};

/// The most configurations the explicit engine numbers.
const EXPLICIT_MOST: u128 = u32::MAX as u128;

/// An instance: the program (a path under the project), its topology, its
/// parameters, the daemon, and how many configurations it has.
struct Case {
    program: &'static str,
    topology: String,
    params: Vec<String>,
    daemon: &'static str,
    configurations: u128,
}

/// A protocol on a family of rings: the program, the topology family,
/// the small and the large sizes, and the values of a process's row.
type Family = (
    &'static str,
    &'static str,
    &'static [u32],
    &'static [u32],
    u128,
);

fn path(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(relative)
        .to_string_lossy()
        .into_owned()
}

fn workdir() -> PathBuf {
    let dir = std::env::temp_dir().join("guarded-bench-engines");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// `guarded verify` on `case` with `engine`.
fn verify(case: &Case, engine: &str) -> Took {
    let program = path(case.program);
    let mut args = vec![
        "verify",
        program.as_str(),
        "--topology",
        case.topology.as_str(),
        "--daemon",
        case.daemon,
        "--no-rounds",
        // The symbolic engine does not check properties: both search alone.
        "--no-properties",
        "--engine",
        engine,
    ];
    for p in &case.params {
        args.extend(["--param", p.as_str()]);
    }
    measure(GUARDED, &args, &workdir())
}

/// The worst case line of a verdict: "124 steps", or the failure.
fn worst(output: &str) -> String {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("worst case"))
        .map(|w| {
            w.trim()
                .split(',')
                .next()
                .unwrap_or("")
                .split(" (")
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_else(|| "no worst case".into())
}

fn seconds(t: &Took) -> String {
    format!("{:.2} s, {} MB", t.seconds, mb(t.bytes))
}

fn row(case: &Case) {
    let symbolic = verify(case, "symbolic");
    let (explicit, ratio) = if case.configurations <= EXPLICIT_MOST {
        let explicit = verify(case, "explicit");
        assert_eq!(
            worst(&explicit.output),
            worst(&symbolic.output),
            "the engines disagree on {} {}",
            case.program,
            case.topology
        );
        let ratio = format!("{:.1}", explicit.seconds / symbolic.seconds.max(1e-3));
        (seconds(&explicit), ratio)
    } else {
        ("past 2^32".to_string(), "-".to_string())
    };
    println!(
        "| {} {} {} | {} | {:.2e} | {} | {} | {} | {} |",
        Path::new(case.program)
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned()),
        case.topology,
        case.params.join(" "),
        case.daemon,
        case.configurations as f64,
        worst(&symbolic.output),
        explicit,
        seconds(&symbolic),
        ratio,
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let large = std::env::var_os("GUARDED_BENCH_LARGE").is_some();
    let mut cases = Vec::new();
    let dijkstra_to = if large { 12 } else { 8 };
    for n in 7..=dijkstra_to {
        for daemon in ["central", "synchronous"] {
            // n = 12 under the central daemon only: the target's one.
            if n == 12 && daemon == "synchronous" {
                continue;
            }
            cases.push(Case {
                program: "programs/dijkstra_kstate.gc",
                topology: format!("ring:{n}"),
                params: vec![format!("K={n}")],
                daemon,
                configurations: (n as u128).pow(n),
            });
        }
    }
    let sizes = |small: &[u32], big: &[u32]| -> Vec<u32> {
        small
            .iter()
            .chain(big.iter().filter(|_| large))
            .copied()
            .collect()
    };
    let rings: [Family; 3] = [
        (
            "benches/programs/colouring.gc",
            "ring",
            &[12, 14],
            &[17, 30],
            3,
        ),
        ("benches/programs/mis.gc", "ring", &[16, 20], &[26, 48], 2),
        // Johnen's F: three cells of 0..2, and Ld: a boolean.
        ("programs/johnen_leader.gc", "uring", &[3, 4], &[5, 6], 54),
    ];
    for (program, family, small, big, values) in rings {
        for n in sizes(small, big) {
            cases.push(Case {
                program,
                topology: format!("{family}:{n}"),
                params: Vec::new(),
                daemon: "central",
                configurations: values.pow(n),
            });
        }
    }
    println!("| instance | daemon | configurations | worst case | explicit | symbolic | explicit / symbolic |");
    println!("|---|---|---|---|---|---|---|");
    for case in &cases {
        row(case);
    }
}
