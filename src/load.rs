//! The one loader: from a program's text and a set-up (topology, ids,
//! parameters, seed, initial configuration, daemon) to an instance ready to
//! step, through every phase: parse, check, build the topology, compile,
//! the initial configuration. The command line, the REPL, tests and
//! benches all start here. Errors come back as values (where they point,
//! and the problems), never as rendered text: the front end renders them.
//!
//! The generator is drawn from in one order: topology, ids, initial
//! values, then the daemon's draws, so a seed names a run.

use crate::check::{self, ir};
use crate::compile::{self, Compiled};
use crate::diagnostic::{render, Problem};
use crate::formula::Formula;
use crate::runtime::daemon::{Daemon, ScheduleError};
use crate::runtime::engine::{Choice, Simulation};
use crate::runtime::init::{initial_state, InitMode};
use crate::runtime::space::Space;
use crate::runtime::step::{RunError, StepRelation};
use crate::state::channels::Channels;
use crate::state::Config;
use crate::syntax::{self, ast};
use crate::topology::{self, Ids, Topology};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

mod read;
pub use read::{
    read_file, read_program, read_text, refuses_as_not_text, ReadError, MAX_FILE_BYTES,
    MAX_PROGRAM_BYTES, NOT_TEXT,
};

/// Everything needed to start a run, with the command line's defaults.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Topology spec (`ring:8`); `None` uses the program's default.
    pub topology: Option<String>,
    /// Parameter overrides.
    pub params: Vec<(String, i64)>,
    /// Parameter overrides as formulas of `n`, the number of processes
    /// (`K=n`), evaluated once the topology is built; after `params`.
    pub param_formulas: Vec<(String, Formula)>,
    /// Process ids.
    pub ids: Ids,
    /// Seed of the one generator.
    pub seed: u64,
    /// Initial configuration.
    pub init: InitMode,
    /// `PROCESS.VAR=VALUE` overrides.
    pub sets: Vec<String>,
    /// The daemon.
    pub daemon: Daemon,
    /// Among several enabled actions of one process, the first or a random one.
    pub choice: Choice,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            topology: None,
            params: Vec::new(),
            param_formulas: Vec::new(),
            ids: Ids::Index,
            seed: 0,
            init: InitMode::Declared,
            sets: Vec::new(),
            daemon: Daemon::Central,
            choice: Choice::First,
        }
    }
}

/// The parameter overrides of `setup` on a topology of `n` processes, its
/// formulas evaluated.
fn params_for(setup: &Setup, n: usize) -> Result<Vec<(String, i64)>, String> {
    let mut params = setup.params.clone();
    for (name, f) in &setup.param_formulas {
        let v = f
            .eval(n as i64)
            .map_err(|e| format!("--param {name}: the formula {e} at n = {n}"))?;
        params.push((name.clone(), v));
    }
    Ok(params)
}

/// Why a program could not be loaded or started.
#[derive(Debug)]
pub enum LoadError {
    /// The set-up is wrong in a way that concerns no source text (a bad
    /// topology spec or id list given on the command line, no topology at
    /// all): a usage error.
    Usage(String),
    /// Neither the set-up nor the program names a topology.
    NoTopology,
    /// Problems in some source text: the program, or a configuration file
    /// or `--set` line (`origin` names it, `text` is its text).
    Input {
        /// The source's name; empty for the program itself.
        origin: String,
        /// The source's text; empty for the program itself.
        text: String,
        /// The problems, each pointing into that text.
        problems: Vec<Problem>,
    },
    /// The initial configuration cannot be evaluated (a guard faults at step 0).
    Runtime(RunError),
}

impl LoadError {
    /// The error rendered as a user reads it; `name` and `source` are the
    /// program's.
    pub fn render(&self, name: &str, source: &str, plain: bool) -> String {
        match self {
            LoadError::Usage(m) => format!("error: {m}\n"),
            LoadError::NoTopology => format!(
                "error: `{name}` declares no default topology; give one with --topology, e.g. --topology ring:8\n"
            ),
            LoadError::Input {
                origin, problems, ..
            } if origin.is_empty() => render(problems, name, source, plain),
            LoadError::Input {
                origin,
                text,
                problems,
            } => render(problems, origin, text, plain),
            LoadError::Runtime(e) => crate::report::runtime_error(e, name, source, plain, None),
        }
    }
}

impl LoadError {
    /// The error in one line (a sweep's CSV cell).
    pub fn headline(&self) -> String {
        match self {
            LoadError::Usage(m) => m.clone(),
            LoadError::NoTopology => "the program declares no default topology".to_string(),
            LoadError::Input {
                origin, problems, ..
            } => {
                let first = problems.first().map_or("", |p| p.message.as_str());
                if origin.is_empty() {
                    first.to_string()
                } else {
                    format!("{origin}: {first}")
                }
            }
            LoadError::Runtime(e) => crate::report::runtime_headline(e),
        }
    }
}

fn program_problems(problems: Vec<Problem>) -> LoadError {
    LoadError::Input {
        origin: String::new(),
        text: String::new(),
        problems,
    }
}

/// A program checked and compiled on its topology, with the generator as
/// the topology and ids left it: everything but a configuration.
pub struct Instance {
    /// The program's syntax tree (the REPL checks typed expressions against it).
    pub(crate) ast: Arc<ast::Program>,
    /// The checked program.
    pub(crate) prog: Arc<ir::Program>,
    /// The topology, ids assigned.
    pub(crate) topo: Topology,
    /// The program compiled on it.
    pub(crate) code: Arc<Compiled>,
    /// The run's generator.
    pub(crate) rng: ChaCha8Rng,
    /// Whether the topology and ids were built without drawing from the generator.
    seed_free: bool,
}

/// A wrong line of a topology file (`message` at `place`), shown in it.
pub fn topology_file_error(message: String, place: topology::FilePlace) -> LoadError {
    LoadError::Input {
        problems: vec![Problem::new("guarded::topology::file", message)
            .label(crate::span::Span::new(place.span.0, place.span.1), "here")
            .help(place.help)],
        origin: place.path,
        text: place.text,
    }
}

/// A program parsed and checked, not yet placed on a topology: what every
/// instance of one program shares (a sweep checks its program once).
#[derive(Clone)]
pub struct Checked {
    ast: Arc<ast::Program>,
    prog: Arc<ir::Program>,
}

/// The initial configuration a run starts from when none is asked for:
/// the declared one when every variable has a declared value, a random one
/// otherwise.
fn default_init(prog: &ir::Program) -> InitMode {
    if prog.vars.iter().all(|v| v.init.is_some()) {
        InitMode::Declared
    } else {
        InitMode::Random
    }
}

/// Parses and checks `source`.
pub fn check(source: &str) -> Result<Checked, LoadError> {
    let ast = syntax::parse_program(source).map_err(|p| program_problems(vec![p]))?;
    let prog = check::check(&ast).map_err(program_problems)?;
    Ok(Checked {
        ast: Arc::new(ast),
        prog: Arc::new(prog),
    })
}

impl Checked {
    /// The declared parameters' names, in declaration order.
    pub fn param_names(&self) -> Vec<String> {
        self.prog.params.iter().map(|p| p.name.clone()).collect()
    }

    /// Whether the program declares a `legitimate:` predicate.
    pub fn has_legitimacy(&self) -> bool {
        self.prog.legitimate.is_some()
    }

    /// Whether the program runs in ticks (its channels declare a `delay`).
    pub fn runs_in_ticks(&self) -> bool {
        self.prog.delay.is_some()
    }

    /// The topology the program declares as its default, if any.
    pub fn default_topology(&self) -> Option<String> {
        self.prog.topology.as_ref().map(|t| t.0.clone())
    }

    /// How many variables, roles and actions the program declares.
    pub fn sizes(&self) -> (usize, usize, usize) {
        let actions = self.prog.roles.iter().map(|r| r.actions.len()).sum();
        (self.prog.vars.len(), self.prog.roles.len(), actions)
    }

    /// The `report` names, in declaration order.
    pub fn report_names(&self) -> Vec<String> {
        self.prog.reports.iter().map(|r| r.0.clone()).collect()
    }

    /// The initial configuration a run starts from when none is asked for.
    pub fn default_init(&self) -> InitMode {
        default_init(&self.prog)
    }

    /// Builds the set-up's topology, assigns its ids and compiles the
    /// program on it. `read` reads the files a topology spec names (`file:`,
    /// `dot:`).
    pub fn instantiate(
        &self,
        setup: &Setup,
        read: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Instance, LoadError> {
        let prog = &self.prog;
        let mut rng = ChaCha8Rng::seed_from_u64(setup.seed);
        let spec = match (&setup.topology, &prog.topology) {
            (Some(t), _) => t.clone(),
            (None, Some((t, _))) => t.clone(),
            (None, None) => return Err(LoadError::NoTopology),
        };
        let mut topo = topology::build(&spec, &mut rng, read).map_err(|e| {
            match (e.place, &setup.topology, &prog.topology) {
                // A wrong line of the file the spec reads: shown in the file.
                (Some(place), _, _) => topology_file_error(e.message, place),
                (None, None, Some((_, span))) => {
                    program_problems(vec![Problem::new("guarded::topology::invalid", e.message)
                        .label(*span, "the default topology")
                        .help("fix the declaration or give --topology")])
                }
                (None, _, _) => LoadError::Usage(e.message),
            }
        })?;
        topology::assign_ids(&mut topo, &setup.ids, &mut rng).map_err(LoadError::Usage)?;
        let params = params_for(setup, topo.n()).map_err(LoadError::Usage)?;
        let code = Arc::new(compile::instantiate(prog, &topo, &params).map_err(program_problems)?);
        if code.capacity.is_some() || code.per_nbr.contains(&true) {
            // Channels are numbered along the rows.
            topo.want_rows();
        }
        topo.keep_rows_made();
        // No draw so far: another seed would build the same topology and code.
        let seed_free = rng.get_word_pos() == 0;
        Ok(Instance {
            ast: Arc::clone(&self.ast),
            prog: Arc::clone(&self.prog),
            topo,
            code,
            rng,
            seed_free,
        })
    }

    /// The instance [`Checked::instantiate`] gives for `seed` and the
    /// set-up `like` was instantiated with, built from `like`'s topology and
    /// code instead of again; `None` when `like` drew from the generator
    /// (a random graph, random ids), so that another seed would build
    /// something else.
    pub fn reinstantiate(&self, like: &Instance, seed: u64) -> Option<Instance> {
        like.seed_free.then(|| Instance {
            ast: Arc::clone(&self.ast),
            prog: Arc::clone(&self.prog),
            topo: like.topo.clone(),
            code: Arc::clone(&like.code),
            rng: ChaCha8Rng::seed_from_u64(seed),
            seed_free: true,
        })
    }
}

/// The initial configuration `init` asks for on a compiled instance, with
/// `sets` applied, drawing from `rng`.
pub(crate) fn initial_config(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    init: &InitMode,
    sets: &[String],
    rng: &mut ChaCha8Rng,
) -> Result<Config, LoadError> {
    let (rows, chans) =
        initial_state(prog, code, topo, init, sets, rng).map_err(|e| LoadError::Input {
            origin: e.origin,
            text: e.text,
            problems: e.problems,
        })?;
    Ok(Config { rows, chans })
}

/// Parses, checks and compiles `source` on the set-up's topology and ids.
/// `read` reads the files a topology spec names (`file:`, `dot:`).
pub fn load(
    source: &str,
    setup: &Setup,
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Instance, LoadError> {
    check(source)?.instantiate(setup, read)
}

impl Instance {
    /// The run's generator as it stands (after the draws of the topology,
    /// ids and any initial configuration taken so far).
    pub fn generator(&self) -> &ChaCha8Rng {
        &self.rng
    }

    /// Whether no seed changes the instance (topology and ids): runs of
    /// other seeds may start from it.
    pub fn seed_free(&self) -> bool {
        self.seed_free
    }

    /// The initial configuration `init` asks for, with `sets` applied,
    /// drawing from the instance's generator.
    pub fn initial(&mut self, init: &InitMode, sets: &[String]) -> Result<Config, LoadError> {
        initial_config(
            &self.prog,
            &self.code,
            &self.topo,
            init,
            sets,
            &mut self.rng,
        )
    }

    /// The initial configuration a run starts from when none is asked for.
    pub fn default_init(&self) -> InitMode {
        default_init(&self.prog)
    }

    /// Whether the program declares a legitimacy predicate.
    pub fn has_legitimacy(&self) -> bool {
        self.prog.legitimate.is_some()
    }

    /// Whether the program runs in ticks (its channels declare a `delay`).
    pub fn runs_in_ticks(&self) -> bool {
        self.prog.delay.is_some()
    }

    /// The daemon runs take when none is asked for: `ticks` for a
    /// program that runs in ticks, else `central`.
    pub fn default_daemon(&self) -> Daemon {
        if self.runs_in_ticks() {
            Daemon::Ticks
        } else {
            Daemon::Central
        }
    }

    /// Refuses a schedule naming a process or an action this instance
    /// lacks (see [`crate::runtime::daemon::check_moves`]).
    pub fn check_schedule(&self, daemon: &Daemon) -> Result<(), ScheduleError> {
        daemon.check_schedule(&self.code, self.topo.n())
    }

    /// A simulation from `start` under `daemon`.
    pub fn simulate(
        self,
        start: Config,
        daemon: Daemon,
        choice: Choice,
    ) -> Result<Simulation, LoadError> {
        self.check_schedule(&daemon).map_err(|e| LoadError::Input {
            origin: "schedule".into(),
            text: String::new(),
            problems: vec![Problem::new(
                "guarded::schedule::move",
                format!("line {}: {}", e.line, e.message),
            )
            .help(e.help)],
        })?;
        daemon
            .check_time(self.runs_in_ticks())
            .map_err(|m| LoadError::Input {
                origin: "daemon".into(),
                text: String::new(),
                problems: vec![Problem::new("guarded::daemon::time", m)
                    .help("see \"Time in ticks\" in docs/language.md")],
            })?;
        let start: (Vec<i64>, Channels) = (start.rows, start.chans);
        let mut topo = self.topo;
        if daemon == Daemon::LocallyCentral {
            topo.want_rows();
            topo.keep_rows_made();
        }
        Simulation::new(self.prog, self.code, topo, start, daemon, choice, self.rng)
            .map_err(LoadError::Runtime)
    }

    /// A warning for each pair of actions of one role and one priority that
    /// may be enabled together: there `verify` explores both, and runs take
    /// the first.
    pub fn overlapping_actions(&self) -> Vec<Problem> {
        compile::overlapping_actions(&self.code, &self.ast)
    }

    /// The topology, ids assigned.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// The step relation of this instance, as a pure function on configurations.
    pub fn step_relation(&self) -> StepRelation<'_> {
        StepRelation::new(&self.prog, &self.code, &self.topo)
    }

    /// Every configuration of this instance.
    pub fn space(&self) -> Space {
        Space::new(&self.prog, &self.code, &self.topo)
    }

    /// Every arbitrary start: the configurations within the declared
    /// `random` ranges (the domains elsewhere), channels empty.
    pub fn arbitrary_space(&self) -> Space {
        Space::arbitrary(&self.prog, &self.code, &self.topo)
    }
}

/// The initial configuration `--init` names: `declared`, `random`, or a
/// file of assignments (read with `read`); `default` without the option.
pub fn init_mode(
    arg: Option<&str>,
    default: InitMode,
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<InitMode, String> {
    Ok(match arg {
        None => default,
        Some("declared") => InitMode::Declared,
        Some("random") => InitMode::Random,
        Some(path) => InitMode::File(
            path.to_string(),
            read(path).map_err(|e| {
                let meant = crate::diagnostic::suggest(path, ["declared", "random"])
                    .map_or(String::new(), |w| format!("did you mean `{w}`? "));
                format!("--init: {e} ({meant}use `declared`, `random` or a file)")
            })?,
        ),
    })
}

/// How a summary names an initial configuration's origin.
pub fn init_name(mode: &InitMode) -> String {
    match mode {
        InitMode::Declared => "declared".to_string(),
        InitMode::Random => "random".to_string(),
        InitMode::File(path, _) => path.clone(),
    }
}

/// Runs the whole pipeline on a program's text and returns a simulation at
/// step 0, or the rendered diagnostics (for tests and benches).
pub fn simulate(source: &str, setup: &Setup) -> Result<Simulation, String> {
    let fail = |e: LoadError| e.render("program", source, true);
    let mut inst = load(source, setup, &read_file).map_err(fail)?;
    let start = inst.initial(&setup.init, &setup.sets).map_err(fail)?;
    inst.simulate(start, setup.daemon.clone(), setup.choice)
        .map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that cannot be read and is spelt like a mode is taken for
    /// a slip of the mode's name.
    #[test]
    fn an_unreadable_init_file_spelt_like_a_mode_suggests_it() {
        let unreadable = |path: &str| Err(format!("cannot read `{path}`"));
        let said = init_mode(Some("rand"), InitMode::Declared, &unreadable).unwrap_err();
        assert!(said.contains("did you mean `random`?"), "{said}");
        let said =
            init_mode(Some("configs/start.init"), InitMode::Declared, &unreadable).unwrap_err();
        assert!(!said.contains("did you mean"), "{said}");
    }
}
