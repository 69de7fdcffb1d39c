//! Phase 4, the runtime: topologies, initial configurations, daemons, the
//! step relation (composite atomicity) and the measures the papers use.

mod bits;
pub mod daemon;
pub mod engine;
pub mod init;
pub mod record;
pub mod step;

use crate::diagnostic::render;
use crate::topology;
use engine::{Choice, Daemon, Simulation};
use init::InitMode;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Everything needed to start a run, with command-line defaults.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Topology spec (`ring:8`); `None` uses the program's default.
    pub topology: Option<String>,
    /// Parameter overrides.
    pub params: Vec<(String, i64)>,
    /// Process ids.
    pub ids: topology::Ids,
    /// Seed of the one generator.
    pub seed: u64,
    /// Initial configuration.
    pub init: InitMode,
    /// `PROCESS.VAR=VALUE` overrides.
    pub sets: Vec<String>,
    /// The daemon.
    pub daemon: Daemon,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            topology: None,
            params: Vec::new(),
            ids: topology::Ids::Index,
            seed: 0,
            init: InitMode::Declared,
            sets: Vec::new(),
            daemon: Daemon::Central,
        }
    }
}

/// Runs the whole pipeline on a program's text and returns a simulation at
/// step 0, or the rendered diagnostics. The generator is drawn from in the
/// same order as `guarded run`: topology, ids, initial values, daemon.
pub fn simulate(source: &str, setup: &Setup) -> Result<Simulation, String> {
    let name = "program";
    let ast = crate::syntax::parse_program(source).map_err(|p| render(&[p], name, source, true))?;
    let prog = crate::check::check(&ast).map_err(|ps| render(&ps, name, source, true))?;
    let mut rng = ChaCha8Rng::seed_from_u64(setup.seed);
    let spec = setup
        .topology
        .clone()
        .or_else(|| prog.topology.as_ref().map(|t| t.0.clone()))
        .ok_or("no topology")?;
    let mut topo = topology::build(&spec, &mut rng, &|p| {
        std::fs::read_to_string(p).map_err(|e| e.to_string())
    })?;
    topology::assign_ids(&mut topo, &setup.ids, &mut rng)?;
    let code = crate::compile::instantiate(&prog, &topo, &setup.params)
        .map_err(|ps| render(&ps, name, source, true))?;
    let start = init::initial_state(&prog, &code, &topo, &setup.init, &setup.sets, &mut rng)
        .map_err(|e| {
            render(
                &e.problems,
                name,
                if e.origin.is_empty() { source } else { &e.text },
                true,
            )
        })?;
    Simulation::new(
        prog,
        code,
        topo,
        start,
        setup.daemon.clone(),
        Choice::First,
        rng,
    )
    .map_err(|e| format!("{e:?}"))
}
