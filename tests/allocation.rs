//! No allocation per step in the steady state: after a warm-up (buffers
//! grown to their working size), steps of every bundled program allocate
//! nothing, under the central daemon and, where the program runs under
//! them, the synchronous, distributed and locally-central ones. An
//! allocator that counts is installed for this test binary only.

use guarded::load::{load, read_file, Setup};
use guarded::runtime::engine::{Daemon, Outcome, Simulation};
use guarded::runtime::init::InitMode;
use guarded::topology::Ids;

mod common;
use common::{simulation, Start};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread's allocations are counted: only the thread
    /// that steps, while it measures. The test harness's own threads
    /// allocate when they are scheduled, which under load can be in the
    /// middle of a measurement (four allocations once in CI).
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

/// Counts an allocation of the thread measuring.
fn count() {
    if COUNTED.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

/// The allocations this thread makes in `f`, and what `f` gives.
fn counting<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    COUNTED.set(true);
    let out = f();
    COUNTED.set(false);
    (ALLOCATIONS.load(Ordering::Relaxed) - before, out)
}

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn start(src: &str, topology: &str, params: &[(&str, i64)], daemon: Daemon) -> Simulation {
    let start = Start {
        params,
        seed: 4,
        init: InitMode::Random,
        ids: Ids::Shuffled,
        daemon,
    };
    simulation(src, topology, start)
}

/// Allocations made by `steps` steps after `warm_up` steps, and whether
/// a process moved in every one of them.
fn allocations(sim: &mut Simulation, warm_up: usize, steps: usize) -> (usize, bool) {
    for _ in 0..warm_up {
        sim.step().expect("steps");
    }
    counting(|| {
        let mut moved = true;
        for _ in 0..steps {
            moved &= sim.step().expect("steps") == Outcome::Moved;
        }
        moved
    })
}

// One test function: the counter is shared by the whole binary, so tests
// running side by side would count each other's allocations.
#[test]
fn steps_allocate_nothing_once_warmed_up() {
    let dijkstra = include_str!("../programs/dijkstra_kstate.gc");
    let johnen = include_str!("../programs/johnen_leader.gc");
    let ssle = include_str!("../programs/ssle.gc");
    let arrow = include_str!("../programs/arrow.gc");
    let arbitration = include_str!("../programs/arbitration.gc");
    // A draw of a member of a set, at every step.
    let recolour = "var c: 0..3\n\
        process { recolour :: true -> c := random({k in 0..3 : k != c}) }\n";
    let cases = [
        (
            "dijkstra",
            dijkstra,
            "ring:3000",
            vec![("K", 3000)],
            Daemon::Central,
        ),
        (
            "dijkstra",
            dijkstra,
            "ring:3000",
            vec![("K", 3000)],
            Daemon::Synchronous,
        ),
        (
            "dijkstra",
            dijkstra,
            "ring:3000",
            vec![("K", 3000)],
            Daemon::Distributed,
        ),
        (
            "johnen",
            johnen,
            "uring:3000",
            vec![("k", 2)],
            Daemon::Central,
        ),
        (
            "johnen",
            johnen,
            "uring:3000",
            vec![("k", 2)],
            Daemon::Synchronous,
        ),
        ("ssle", ssle, "random:2000", vec![], Daemon::Central),
        ("arrow", arrow, "tree:40", vec![], Daemon::Ticks),
        (
            "arbitration",
            arbitration,
            "random:40",
            vec![],
            Daemon::LocallyCentral,
        ),
        ("recolour", recolour, "random:200", vec![], Daemon::Central),
        (
            "recolour",
            recolour,
            "random:200",
            vec![],
            Daemon::Distributed,
        ),
    ];
    for (name, src, topology, params, daemon) in cases {
        let what = format!("{name} on {topology} under {}", daemon.name());
        let mut sim = start(src, topology, &params, daemon);
        // Channels grow to their largest contents once (amortized, not per
        // step): message passing warms up longer to reach them.
        let (warm_up, steps) = match sim.daemon() {
            Daemon::Synchronous => (20, 20),
            _ if name == "arrow" => (2_000, 2_000),
            _ => (2_000, 2_000),
        };
        let (made, moved) = allocations(&mut sim, warm_up, steps);
        assert!(moved, "{what}: fell silent, so the steps measured nothing");
        assert_eq!(made, 0, "{what}: {made} allocations in {steps} steps");
    }
    // A sweep's worker starts its one simulation again for each seed
    // (`Simulation::restart`): once warmed up, starting again from a
    // configuration drawn beforehand and running allocate nothing.
    let restarts = [
        (
            "dijkstra",
            dijkstra,
            "ring:300",
            vec![("K", 300)],
            Daemon::Central,
        ),
        (
            "dijkstra",
            dijkstra,
            "ring:3000",
            vec![("K", 3000)],
            Daemon::Synchronous,
        ),
        (
            "johnen",
            johnen,
            "uring:300",
            vec![("k", 2)],
            Daemon::Central,
        ),
        ("ssle", ssle, "random:200", vec![], Daemon::Central),
    ];
    for (name, src, topology, params, daemon) in restarts {
        let what = format!(
            "{name} on {topology} under {}, started again",
            daemon.name()
        );
        let setup = Setup {
            topology: Some(topology.into()),
            params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ids: Ids::Shuffled,
            seed: 4,
            init: InitMode::Random,
            daemon: daemon.clone(),
            ..Setup::default()
        };
        let mut sim = start(src, topology, &params, daemon);
        let mut inst = load(src, &setup, &read_file).expect("loads");
        for attempt in 0..4 {
            let config = inst.initial(&InitMode::Random, &[]).expect("a start");
            let rng = inst.generator().clone();
            let (made, moved) = counting(|| {
                sim.restart((config.rows, config.chans), rng)
                    .expect("starts");
                let mut moved = true;
                for _ in 0..20 {
                    moved &= sim.step().expect("steps") == Outcome::Moved;
                }
                moved
            });
            assert!(moved, "{what}: fell silent");
            // The first attempts grow the buffers a run needs.
            if attempt >= 2 {
                assert_eq!(made, 0, "{what}: {made} allocations");
            }
        }
    }
}
