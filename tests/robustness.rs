//! No input makes guarded panic: mutated programs (characters deleted,
//! duplicated or replaced, seeded so failures reproduce) go through the
//! whole pipeline and a few steps, and must end in a result or a diagnostic.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::Daemon;
use guarded::runtime::init::InitMode;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEEDS: &[&str] = &[
    include_str!("../programs/dijkstra_kstate.gc"),
    include_str!("golden/programs/faults.gc"),
    include_str!("golden/programs/counter_invariant.gc"),
    include_str!("../programs/johnen_leader.gc"),
    include_str!("../programs/ssle.gc"),
    include_str!("../programs/arbitration.gc"),
    include_str!("../programs/arrow.gc"),
    "var x: 0..20\nvar p: node = self\nvar s: {a, b} = a\nprocess { up priority 1 :: exists(q in nbrs : q.x > x) -> x, s := x + 1, b\n \
     point :: p == self -> p := left; if x > 3 { x := x mod 3 } else { skip } }\n\
     legitimate: forall(p in procs : forall(q in nbrs(p) : q.x == p.x))\ninvariant i: count(p in procs : p.s == a) >= 0",
];

const NOISE: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    ":",
    "::",
    "->",
    ":=",
    ".",
    "..",
    "0",
    "-1",
    "x",
    "left",
    "mod",
    "/",
    " ",
    "\n",
    "forall",
    "procs",
    "9999999999999999999999",
    "[",
    "]",
    ",",
    "def",
    "argmin",
    "(1, 2)",
    "for",
    "in",
    "receive",
    "send",
    "edge(",
    "timer",
];

#[test]
fn mutated_programs_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut ran = 0;
    for round in 0..3000 {
        let mut src = SEEDS[round % SEEDS.len()].to_string();
        for _ in 0..rng.gen_range(1..4) {
            let mut at = rng.gen_range(0..=src.len());
            while !src.is_char_boundary(at) {
                at -= 1;
            }
            match rng.gen_range(0..3) {
                0 => {
                    let mut end = (at + rng.gen_range(1..6)).min(src.len());
                    while !src.is_char_boundary(end) {
                        end += 1;
                    }
                    src.replace_range(at..end, "");
                }
                1 => src.insert_str(at, NOISE[rng.gen_range(0..NOISE.len())]),
                _ => {
                    let mut end = (at + 1).min(src.len());
                    while !src.is_char_boundary(end) {
                        end += 1;
                    }
                    src.replace_range(at..end, NOISE[rng.gen_range(0..NOISE.len())]);
                }
            }
        }
        let setup = Setup {
            topology: Some(["ring:5", "chain:4", "grid:2x3", "tree:6"][round % 4].into()),
            init: InitMode::Random,
            seed: round as u64,
            daemon: [Daemon::Central, Daemon::Synchronous, Daemon::LocallyCentral][round % 3]
                .clone(),
            ..Setup::default()
        };
        let outcome = std::panic::catch_unwind(|| {
            let Ok(mut sim) = simulate(&src, &setup) else {
                return false;
            };
            {
                for _ in 0..50 {
                    if sim.step().is_err() {
                        break;
                    }
                    let _ = sim.violated_invariant();
                }
            }
            true
        });
        assert!(outcome.is_ok(), "panic on mutated program #{round}:\n{src}");
        ran += usize::from(outcome.unwrap_or(false));
    }
    // Enough mutants must survive checking for the runtime to be exercised too.
    assert!(ran > 300, "only {ran} mutants ran");
}
