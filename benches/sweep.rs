//! `guarded sweep`'s throughput: runs per second of Dijkstra's ring on 16
//! machines from random starts. `cargo bench --bench sweep`.
//!
//! - `sweep-overhead`: the sweep on one thread (set-up, run, row) against
//!   the bare run loop on simulations built beforehand (the baseline), for
//!   runs until legitimacy (about 40 steps, where set-up weighs most). The
//!   baseline's 1,000 simulations are likely out of the caches when each
//!   runs, while the sweep's worker starts its one simulation again: a
//!   ratio near or above 1 says a run's set-up costs about a cold start.
//! - `sweep-threads`: the sweep on one thread (the baseline) against two,
//!   for runs of 2,000 steps.
//!
//! At the end, a table of both sides and their ratios.

use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use guarded::load::{read_file, simulate, Setup};
use guarded::runtime::engine::Choice;
use guarded::runtime::init::InitMode;
use guarded::runtime::run::{run, Limits, Unobserved};
use guarded::sweep::{Axes, Options, Point, Sweep};
use guarded::topology::Ids;
use std::sync::atomic::AtomicBool;

const PROGRAM: &str = include_str!("../programs/dijkstra_kstate.gc");
const RUNS: u64 = 1000;

fn limits(steps: Option<u64>) -> Limits {
    Limits {
        steps: steps.unwrap_or(100_000),
        until_legitimate: steps.is_none(),
        ..Limits::default()
    }
}

/// The sweep of `RUNS` seeds on ring:16; runs of `steps` steps, or until
/// legitimacy.
fn planned(steps: Option<u64>) -> Sweep {
    let axes = Axes {
        topologies: vec!["ring:16".into()],
        daemons: vec!["central".into()],
        params: Vec::new(),
        seeds: format!("0..{}", RUNS - 1),
        shard: None,
    };
    let options = Options {
        ids: Ids::Index,
        init: Some("random".into()),
        sets: Vec::new(),
        choice: Choice::First,
        limits: limits(steps),
        timings: false,
    };
    Sweep::plan("dijkstra_kstate.gc", PROGRAM, &axes, options, &read_file)
        .unwrap_or_else(|_| panic!("the sweep plans"))
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

fn sweep_all(sweep: &Sweep, pool: &rayon::ThreadPool) {
    let points: Vec<&Point> = sweep.points.iter().collect();
    let never = AtomicBool::new(false);
    sweep.run_points(
        pool,
        &points,
        &never,
        |row| {
            std::hint::black_box(row);
            true
        },
        || true,
    );
}

fn overhead(c: &mut Criterion) {
    let mut g = c.benchmark_group("sweep-overhead");
    g.throughput(Throughput::Elements(RUNS));
    g.bench_with_input(BenchmarkId::new("baseline", RUNS), &RUNS, |b, _| {
        let lim = limits(None);
        b.iter_batched(
            || {
                (0..RUNS)
                    .map(|seed| {
                        let setup = Setup {
                            topology: Some("ring:16".into()),
                            seed,
                            init: InitMode::Random,
                            ..Setup::default()
                        };
                        simulate(PROGRAM, &setup).expect("the program loads")
                    })
                    .collect::<Vec<_>>()
            },
            |mut sims| {
                for sim in &mut sims {
                    std::hint::black_box(run(sim, &lim, &mut Unobserved));
                }
                sims
            },
            BatchSize::LargeInput,
        )
    });
    let sweep = planned(None);
    let one = pool(1);
    g.bench_with_input(BenchmarkId::new("guarded", RUNS), &RUNS, |b, _| {
        b.iter(|| sweep_all(&sweep, &one))
    });
    g.finish();
}

fn threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("sweep-threads");
    g.throughput(Throughput::Elements(RUNS));
    g.sample_size(10);
    let sweep = planned(Some(2000));
    for (side, threads) in [("baseline", 1), ("guarded", 2)] {
        let pool = pool(threads);
        g.bench_with_input(BenchmarkId::new(side, RUNS), &RUNS, |b, _| {
            b.iter(|| sweep_all(&sweep, &pool))
        });
    }
    g.finish();
}

#[path = "common/ratios.rs"]
mod ratios;

criterion_group!(benches, overhead, threads);

fn main() {
    let started = std::time::SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();
    ratios::print(&["sweep-overhead", "sweep-threads"], started);
}
