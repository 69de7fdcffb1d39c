//! Dijkstra's K-state ring: a hand-written simulator (the baseline) against
//! `programs/dijkstra_kstate.gc` run through the library, on the same sizes,
//! seeds and step budgets, in one run so the ratio is measured under the same
//! machine load. `cargo bench --bench dijkstra`.
//!
//! Central daemon: steps per second over a fixed budget of steps, every
//! batch from the same configuration: the random start (`central`) or the
//! configuration 40 steps per process later (`central-settled`).
//! Synchronous daemon: process updates per second (n per step) over a few
//! steps from the same random start. At the end, a table of both sides and
//! their ratios, and one of the bytes per process each side holds.

use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Simulation, Snapshot};
use guarded::runtime::init::InitMode;
use guarded::runtime::run::{run, Limits, Stop, Unobserved};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

const PROGRAM: &str = include_str!("../programs/dijkstra_kstate.gc");
const NONE: u32 = u32::MAX;

/// The baseline: a flat array of states and an enabled set kept
/// incrementally, O(1) work per central step.
#[derive(Clone)]
struct Baseline {
    x: Vec<u32>,
    k: u32,
    list: Vec<u32>,
    pos: Vec<u32>,
    rng: ChaCha8Rng,
}

impl Baseline {
    fn new(n: usize, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let k = n as u32;
        let x = (0..n).map(|_| rng.gen_range(0..k)).collect();
        let mut b = Baseline {
            x,
            k,
            list: Vec::new(),
            pos: vec![NONE; n],
            rng,
        };
        for i in 0..n {
            b.update(i);
        }
        b
    }

    #[inline]
    fn privileged(&self, i: usize) -> bool {
        let n = self.x.len();
        let left = if i == 0 { n - 1 } else { i - 1 };
        (i == 0) == (self.x[i] == self.x[left])
    }

    #[inline]
    fn update(&mut self, i: usize) {
        let on = self.privileged(i);
        let at = self.pos[i];
        if on && at == NONE {
            self.pos[i] = self.list.len() as u32;
            self.list.push(i as u32);
        } else if !on && at != NONE {
            let last = self.list.pop().expect("non-empty");
            if last as usize != i {
                self.list[at as usize] = last;
                self.pos[last as usize] = at;
            }
            self.pos[i] = NONE;
        }
    }

    #[inline]
    fn fire(x: &mut [u32], k: u32, i: usize) {
        let n = x.len();
        let left = if i == 0 { n - 1 } else { i - 1 };
        x[i] = if i == 0 { (x[0] + 1) % k } else { x[left] };
    }

    fn central_step(&mut self) {
        let i = self.list[self.rng.gen_range(0..self.list.len())] as usize;
        Self::fire(&mut self.x, self.k, i);
        self.update(i);
        self.update((i + 1) % self.x.len());
    }

    /// One synchronous step: every privileged machine fires on the old states.
    fn synchronous_step(&mut self, next: &mut Vec<u32>) {
        let n = self.x.len();
        next.clear();
        next.push(if self.x[0] == self.x[n - 1] {
            (self.x[0] + 1) % self.k
        } else {
            self.x[0]
        });
        next.extend(self.x.windows(2).map(|w| w[0]));
        std::mem::swap(&mut self.x, next);
    }
}

fn interpreter(n: usize, seed: u64, daemon: Daemon) -> Simulation {
    let setup = Setup {
        topology: Some(format!("ring:{n}")),
        params: vec![("K".into(), n as i64)],
        seed,
        init: InitMode::Random,
        daemon,
        ..Setup::default()
    };
    simulate(PROGRAM, &setup).expect("the bundled program runs")
}

const SIZES: [usize; 3] = [1_000, 100_000, 1_000_000];

/// `iters` runs of the run loop within `limits`, each from `start`, as
/// `guarded run` takes the steps (in batches inside the engine when
/// nothing watches them); only the runs are timed.
fn timed_runs(sim: &mut Simulation, start: &Snapshot, limits: &Limits, iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        sim.restore(start.clone());
        let t = Instant::now();
        let stop = run(sim, limits, &mut Unobserved);
        total += t.elapsed();
        assert!(matches!(stop, Stop::StepLimit), "{stop:?}");
    }
    total
}
const CENTRAL_BUDGET: u64 = 100_000;
const SYNC_STEPS: usize = 100;

/// Central daemon, steps per second: every measured batch of steps starts
/// from the same configuration, so both sides are measured at the same
/// point of their runs. `central` starts from the random configuration
/// (nearly every process enabled; at 1,000,000 processes the steps go all
/// over memory); `central-settled` after 40 steps per process, when far
/// fewer processes are enabled and moves stay near each other (at 1,000
/// processes the ring has stabilized: one process enabled).
fn central(c: &mut Criterion) {
    for (group, steps_per_process) in [("central", 0), ("central-settled", 40)] {
        let mut g = c.benchmark_group(group);
        g.sample_size(10)
            .measurement_time(Duration::from_secs(3))
            .warm_up_time(Duration::from_secs(1));
        g.throughput(Throughput::Elements(CENTRAL_BUDGET));
        for n in SIZES {
            let warm_up = steps_per_process * n;
            let mut base = Baseline::new(n, 1);
            for _ in 0..warm_up {
                base.central_step();
            }
            // Each batch of steps runs from a copy of the start; only the
            // steps are timed.
            g.bench_with_input(BenchmarkId::new("baseline", n), &n, |b, _| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut ring = base.clone();
                        let t = Instant::now();
                        for _ in 0..CENTRAL_BUDGET {
                            ring.central_step();
                        }
                        total += t.elapsed();
                    }
                    total
                })
            });
            let mut sim = interpreter(n, 1, Daemon::Central);
            for _ in 0..warm_up {
                sim.step().expect("no runtime error");
            }
            let start = sim.snapshot();
            // The run loop, as `guarded run` takes the steps (in batches
            // inside the engine when nothing watches them).
            let limits = Limits {
                steps: CENTRAL_BUDGET,
                ..Limits::default()
            };
            g.bench_with_input(BenchmarkId::new("guarded", n), &n, |b, _| {
                b.iter_custom(|iters| timed_runs(&mut sim, &start, &limits, iters))
            });
        }
        g.finish();
    }
}

fn synchronous(c: &mut Criterion) {
    let mut g = c.benchmark_group("synchronous");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        g.throughput(Throughput::Elements((n * SYNC_STEPS) as u64));
        let base = Baseline::new(n, 2);
        let mut next = Vec::with_capacity(n);
        g.bench_with_input(BenchmarkId::new("baseline", n), &n, |b, _| {
            b.iter_batched_ref(
                || base.clone(),
                |ring| {
                    for _ in 0..SYNC_STEPS {
                        ring.synchronous_step(&mut next);
                    }
                },
                BatchSize::LargeInput,
            )
        });
        let mut sim = interpreter(n, 2, Daemon::Synchronous);
        let start = sim.snapshot();
        // The run loop, as `guarded run` takes the steps (in a batch over
        // the configuration narrowed, nothing watching them); each batch
        // from a copy of the start, only the steps timed.
        let limits = Limits {
            steps: SYNC_STEPS as u64,
            ..Limits::default()
        };
        g.bench_with_input(BenchmarkId::new("guarded", n), &n, |b, _| {
            b.iter_custom(|iters| timed_runs(&mut sim, &start, &limits, iters))
        });
    }
    g.finish();
}

#[path = "common/ratios.rs"]
mod ratios;

criterion_group!(benches, central, synchronous);

/// Bytes per process each side holds after its steps, from its tables'
/// capacities (deterministic, unlike times): the baseline's states, enabled
/// list and positions (and, synchronously, the next states), against
/// `Simulation::memory_bytes`.
fn memory() {
    println!("\nbytes per process after the steps (tables' capacities):");
    println!("daemon          size  baseline  guarded  beyond");
    for n in SIZES {
        for daemon in [Daemon::Central, Daemon::Synchronous] {
            let mut base = Baseline::new(n, 1);
            let mut next = Vec::new();
            let mut sim = interpreter(n, 1, daemon.clone());
            if daemon == Daemon::Central {
                for _ in 0..CENTRAL_BUDGET {
                    base.central_step();
                }
                let limits = Limits {
                    steps: CENTRAL_BUDGET,
                    ..Limits::default()
                };
                run(&mut sim, &limits, &mut Unobserved);
            } else {
                for _ in 0..SYNC_STEPS {
                    base.synchronous_step(&mut next);
                }
                let limits = Limits {
                    steps: SYNC_STEPS as u64,
                    ..Limits::default()
                };
                run(&mut sim, &limits, &mut Unobserved);
            }
            let words = base.x.capacity() + base.list.capacity() + base.pos.capacity();
            let baseline = (words + next.capacity()) as f64 * 4.0 / n as f64;
            let guarded = sim.memory_bytes() as f64 / n as f64;
            println!(
                "{:<12} {n:>7} {baseline:>9.1} {guarded:>8.1} {:>7.1}",
                daemon.name(),
                guarded - baseline
            );
        }
    }
}

fn main() {
    let started = std::time::SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();
    ratios::print(&["central", "central-settled", "synchronous"], started);
    memory();
}
