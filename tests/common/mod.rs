//! Set-up and fault programs shared by the tests of the runtime's fast
//! paths (columns, single moves, allocation).

// Each test binary uses part of this module.
#![allow(dead_code)]

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome, Simulation};
use guarded::runtime::init::InitMode;
use guarded::topology::Ids;

/// How a simulation starts: everything but the program and the topology.
pub struct Start<'a> {
    pub params: &'a [(&'a str, i64)],
    pub seed: u64,
    pub init: InitMode,
    pub ids: Ids,
    pub daemon: Daemon,
}

/// A simulation of `src` on `topology`; panics with the rendered
/// diagnostics if the program does not start.
pub fn simulation(src: &str, topology: &str, start: Start) -> Simulation {
    let setup = Setup {
        topology: Some(topology.into()),
        params: start
            .params
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        ids: start.ids,
        seed: start.seed,
        init: start.init,
        daemon: start.daemon,
        ..Setup::default()
    };
    simulate(src, &setup).unwrap_or_else(|e| panic!("{e}"))
}

/// Programs that fault from their declared start on a ring: one leaves its
/// domain at the fourth step, one overflows once x reaches 2, one divides
/// by zero in a guard once a neighbour's x is 0.
pub const FAULTY: [&str; 3] = [
    "var x: 0..3 = 0\nprocess { up :: x >= left.x -> x := x + 1 }",
    "var x: 0..9 = 1\nprocess { up :: true -> x := (x * 9223372036854775807) mod 10 }",
    "var x: 0..9 = 1\nprocess { down :: 10 / left.x > 1 -> x := x - 1 }",
];

/// Steps until a step does not move; what that step returned, as text.
pub fn run_until_stopped(sim: &mut Simulation) -> String {
    loop {
        match sim.step() {
            Ok(Outcome::Moved) => {}
            other => break format!("{other:?}"),
        }
    }
}
