//! What checking invariants after every step costs a run, against the same
//! run that does not check them, in one run so that the ratio is measured
//! under the same machine load: `cargo bench --bench invariants`.
//!
//! Dijkstra and Scholten's arbitration (`programs/arbitration.gc`: three
//! local invariants and a local acyclicity) and a mutual exclusion count
//! (`count(p in procs : p.cs) <= 1` on Dijkstra's ring), central daemon,
//! from the declared start, on rings of growing size: where the checks
//! after a step ask only what the step can have changed
//! (`src/runtime/engine/invariants.rs`), the ratio stays the same as the
//! ring grows. Each figure is the fastest of three runs, alternated.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::Daemon;
use guarded::runtime::run::{run, Limits, Stop, Unobserved};
use std::time::{Duration, Instant};

const ARBITRATION: &str = include_str!("../programs/arbitration.gc");

/// Dijkstra's K-state ring with a critical section, and its mutual
/// exclusion as a count.
const MUTEX: &str = "param K = n
var x: 0..K-1 = 0
var cs: bool = false
process where index == 0 {
    enter :: x == left.x and not cs -> cs := true
    leave :: x == left.x and cs -> cs := false; x := (x + 1) mod K
}
process where index != 0 {
    enter :: x != left.x and not cs -> cs := true
    leave :: x != left.x and cs -> cs := false; x := left.x
}
invariant mutex: count(p in procs : p.cs) <= 1
";

/// `steps` steps of `src` on a ring of `n`, checking its invariants or
/// not: how long they took.
fn timed(src: &str, n: usize, steps: u64, invariants: bool) -> Duration {
    let setup = Setup {
        topology: Some(format!("ring:{n}")),
        daemon: Daemon::Central,
        seed: 1,
        ..Setup::default()
    };
    let mut sim = simulate(src, &setup).expect("the program runs");
    let limits = Limits {
        steps,
        invariants,
        ..Limits::default()
    };
    let t = Instant::now();
    let stop = run(&mut sim, &limits, &mut Unobserved);
    let took = t.elapsed();
    assert!(matches!(stop, Stop::StepLimit), "{stop:?}");
    took
}

fn main() {
    let large = std::env::var_os("GUARDED_BENCH_LARGE").is_some();
    let sizes: &[usize] = if large {
        &[1_000, 10_000, 100_000, 1_000_000]
    } else {
        &[1_000, 10_000, 100_000]
    };
    let steps = 200_000;
    println!("Invariants checked after every step, central daemon, {steps} steps from the declared start");
    println!(
        "{:<12} {:>9} {:>14} {:>14} {:>7}",
        "program", "n", "checked s/s", "unchecked s/s", "ratio"
    );
    for (name, src) in [("arbitration", ARBITRATION), ("mutex", MUTEX)] {
        for &n in sizes {
            let (mut with, mut without) = (Duration::MAX, Duration::MAX);
            for _ in 0..3 {
                with = with.min(timed(src, n, steps, true));
                without = without.min(timed(src, n, steps, false));
            }
            let rate = |d: Duration| steps as f64 / d.as_secs_f64();
            println!(
                "{name:<12} {n:>9} {:>14.3e} {:>14.3e} {:>7.3}",
                rate(with),
                rate(without),
                rate(with) / rate(without)
            );
        }
    }
}
