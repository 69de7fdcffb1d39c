//! `guarded sweep`: many runs of one program over a grid of topologies,
//! daemons, parameter values and seeds, each exactly the run `guarded run`
//! does with those options, into rows (a CSV), a summary and a plot.
//!
//! The grid is planned once ([`Sweep::plan`]: the program checked, every
//! topology built once to learn its size, parameter formulas evaluated,
//! files read); then each point is an independent run ([`Sweep::run`]),
//! so that any thread, or any machine of a sharded sweep, gives the same row.

pub mod grid;
pub mod plot;
pub mod summary;
pub mod table;
mod workers;

use crate::load::{Checked, Instance, LoadError, Setup};
use crate::report::exit::{EXIT_INPUT, EXIT_INVARIANT, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE};
use crate::runtime::daemon::Daemon;
use crate::runtime::engine::{Choice, Simulation};
use crate::runtime::init::InitMode;
use crate::runtime::run::{Limits, Observer, Stop};
use crate::topology::{self, Ids};
use grid::ParamAxis;
use rand::SeedableRng;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use table::{Measured, Row, Table};

/// The most instances kept for reuse at once: a sweep goes through its
/// topologies in order, so a few suffice, and large ones are not all held.
const MAX_TEMPLATES: usize = 16;

/// The most points one sweep may have: the grid and the rows are held in
/// memory (a few hundred bytes a point).
pub const MAX_POINTS: usize = 10_000_000;

/// The grid's axes as the command line gives them.
#[derive(Clone, Debug, Default)]
pub struct Axes {
    /// `--topology` values (empty: the program's default topology).
    pub topologies: Vec<String>,
    /// `--daemon` values.
    pub daemons: Vec<String>,
    /// `--param` values.
    pub params: Vec<String>,
    /// `--seeds`.
    pub seeds: String,
    /// `--shard I/N`: only the points whose index is I - 1 modulo N.
    pub shard: Option<(usize, usize)>,
}

/// What every run of the sweep shares.
#[derive(Clone, Debug)]
pub struct Options {
    /// Process ids.
    pub ids: Ids,
    /// `--init` as given.
    pub init: Option<String>,
    /// `--set` lines.
    pub sets: Vec<String>,
    /// Among several enabled actions of one process, the first or a random one.
    pub choice: Choice,
    /// When each run stops.
    pub limits: Limits,
    /// Record each run's time.
    pub timings: bool,
}

/// One run of the grid.
#[derive(Clone, Debug)]
pub struct Point {
    /// Its index in the whole grid.
    pub index: usize,
    /// The topology spec.
    pub topology: Arc<str>,
    /// The topology's family.
    pub family: Arc<str>,
    /// The number of processes.
    pub n: usize,
    /// Which daemon (an index into the sweep's daemons).
    pub daemon: usize,
    /// The swept parameters as written (`K=n+1`).
    pub param_words: Arc<str>,
    /// Their values at this point.
    pub params: Vec<(String, i64)>,
    /// The seed.
    pub seed: u64,
}

/// Why a sweep cannot start.
#[derive(Debug)]
pub enum PlanError {
    /// The program is wrong (or an input file it needs).
    Program(LoadError),
    /// The command line is wrong.
    Usage(String),
}

/// What an instance is built from besides the seed: the topology spec and
/// the parameters.
type TemplateKey = (String, Vec<(String, i64)>);

/// A worker's simulation of its last run, started again for the next run
/// of the same instance and daemon (a run's own set-up would otherwise
/// cost more than a short run: tables allocated, the topology copied).
#[derive(Default)]
struct Spare {
    /// The instance (topology, parameters) and daemon (index) it runs.
    key: Option<(TemplateKey, usize)>,
    sim: Option<Simulation>,
    /// The topology's edge count, for the rows.
    edges: usize,
}

/// The grid's axes, expanded: what [`Sweep::lay_out`] reads points from.
struct Grid<'a> {
    specs: &'a [String],
    param_axes: &'a [ParamAxis],
    seeds: &'a [u64],
}

/// A planned sweep: the checked program, the grid's points and what every
/// run shares.
pub struct Sweep {
    program: Arc<str>,
    checked: Checked,
    /// The program's parameters and reports: the table's columns.
    params: Vec<String>,
    reports: Vec<String>,
    daemons: Vec<(Arc<str>, Daemon)>,
    init: InitMode,
    init_name: Arc<str>,
    options: Options,
    /// Files the topologies name, read once.
    files: Mutex<HashMap<String, Result<String, String>>>,
    /// Instances whose topology and code no seed changes, by topology and
    /// parameters: the runs of other seeds start from them instead of
    /// building and compiling again (most of a short run's cost).
    templates: Mutex<HashMap<TemplateKey, Instance>>,
    /// The grid, in order: topologies, then daemons, then parameter values,
    /// then seeds.
    pub points: Vec<Point>,
}

/// Stops a run when the sweep is interrupted.
struct Interruptible<'a>(&'a AtomicBool);

impl Observer for Interruptible<'_> {
    fn watches_steps(&self) -> bool {
        false
    }
    fn keep_going(&mut self) -> bool {
        !self.0.load(Ordering::Relaxed)
    }
}

impl Sweep {
    /// Checks the program and lays out the grid. `read` reads the files the
    /// topologies, schedules and `--init` name.
    pub fn plan(
        program: &str,
        source: &str,
        axes: &Axes,
        options: Options,
        read: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Sweep, PlanError> {
        let checked = crate::load::check(source).map_err(PlanError::Program)?;
        let usage = PlanError::Usage;
        if options.limits.until_legitimate && !checked.has_legitimacy() {
            return Err(usage(format!(
                "`{program}` declares no `legitimate:` predicate, so --until legitimate cannot be decided"
            )));
        }
        let daemons = grid::daemons(&axes.daemons, checked.runs_in_ticks(), read).map_err(usage)?;
        let daemons: Vec<(Arc<str>, Daemon)> = (daemons.into_iter())
            .map(|(name, d)| (name.into(), d))
            .collect();
        let seeds = grid::seeds(&axes.seeds).map_err(|e| usage(format!("--seeds: {e}")))?;
        let param_axes = axes
            .params
            .iter()
            .map(|p| ParamAxis::parse(p).map_err(|e| usage(format!("--param: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let declared = checked.param_names();
        for (i, axis) in param_axes.iter().enumerate() {
            if param_axes[..i].iter().any(|a| a.name == axis.name) {
                return Err(usage(format!(
                    "--param: `{}` is given twice; list its values in one --param {}=V1,V2,...",
                    axis.name, axis.name
                )));
            }
            if !declared.contains(&axis.name) {
                let hint =
                    crate::diagnostic::suggest(&axis.name, declared.iter().map(String::as_str))
                        .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
                return Err(usage(format!(
                    "--param: the program has no parameter `{}`{hint}; it declares: {}",
                    axis.name,
                    if declared.is_empty() {
                        "none".to_string()
                    } else {
                        declared.join(", ")
                    }
                )));
            }
        }
        let specs = match (axes.topologies.is_empty(), checked.default_topology()) {
            (false, _) => {
                grid::topologies(&axes.topologies).map_err(|e| usage(format!("--topology: {e}")))?
            }
            (true, Some(t)) => vec![t],
            (true, None) => return Err(PlanError::Program(LoadError::NoTopology)),
        };
        let init = crate::load::init_mode(options.init.as_deref(), checked.default_init(), read)
            .map_err(usage)?;
        // The grid's size before any of it is laid out: the parameters'
        // combinations multiply (three axes of 1,000 values are 10^9).
        let axis_lengths = param_axes.iter().map(|a| a.values.len());
        let total = [specs.len(), daemons.len(), seeds.len()]
            .into_iter()
            .chain(axis_lengths)
            .try_fold(1usize, |acc, k| acc.checked_mul(k))
            .filter(|&t| t <= MAX_POINTS)
            .ok_or_else(|| usage(format!("the grid has more than {MAX_POINTS} points")))?;
        let (first, every) = axes.shard.map_or((0, 1), |(i, n)| (i - 1, n));
        let mut sweep = Sweep {
            program: program.into(),
            params: declared,
            reports: checked.report_names(),
            checked,
            daemons,
            init_name: crate::load::init_name(&init).into(),
            init,
            options,
            files: Mutex::new(HashMap::new()),
            templates: Mutex::new(HashMap::new()),
            points: Vec::with_capacity(total.saturating_sub(first).div_ceil(every)),
        };
        let grid = Grid {
            specs: &specs,
            param_axes: &param_axes,
            seeds: &seeds,
        };
        sweep.lay_out(&grid, (first..total).step_by(every), read)?;
        Ok(sweep)
    }

    /// Lays out the points of `grid` at `indices` (in increasing order):
    /// only those, so that a topology none of them uses is not built nor
    /// a combination of parameter values formed.
    fn lay_out(
        &mut self,
        grid: &Grid,
        indices: impl Iterator<Item = usize>,
        read: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<(), PlanError> {
        let mut sizes: Vec<Option<usize>> = vec![None; grid.specs.len()];
        // Every point of a spec shares its texts, and consecutive points
        // (seeds vary fastest) their parameters' words.
        let texts: Vec<(Arc<str>, Arc<str>)> = (grid.specs.iter())
            .map(|spec| {
                (
                    spec.as_str().into(),
                    spec.split(':').next().unwrap_or(spec).into(),
                )
            })
            .collect();
        let mut last_words: Arc<str> = "".into();
        for index in indices {
            // Mixed radix: topologies, daemons, parameter axes, seeds (last fastest).
            let (mut rest, seed) = (
                index / grid.seeds.len(),
                grid.seeds[index % grid.seeds.len()],
            );
            let mut combo = Vec::with_capacity(grid.param_axes.len());
            for axis in grid.param_axes.iter().rev() {
                combo.push(&axis.values[rest % axis.values.len()]);
                rest /= axis.values.len();
            }
            combo.reverse();
            let (at, daemon) = (rest / self.daemons.len(), rest % self.daemons.len());
            let spec = &grid.specs[at];
            let n = match sizes[at] {
                Some(n) => n,
                None => *sizes[at].insert(self.size(spec, read)?),
            };
            let mut params = Vec::with_capacity(combo.len());
            for (axis, (text, formula)) in grid.param_axes.iter().zip(&combo) {
                let v = formula.eval(n as i64).map_err(|e| {
                    PlanError::Usage(format!(
                        "--param {}={text} on {spec} (n = {n}): {e}",
                        axis.name
                    ))
                })?;
                params.push((axis.name.clone(), v));
            }
            let words: Vec<String> = grid
                .param_axes
                .iter()
                .zip(&combo)
                .map(|(axis, (text, _))| format!("{}={text}", axis.name))
                .collect();
            let words = words.join(" ");
            if *last_words != *words {
                last_words = words.into();
            }
            self.points.push(Point {
                index,
                topology: texts[at].0.clone(),
                family: texts[at].1.clone(),
                n,
                daemon,
                param_words: last_words.clone(),
                params,
                seed,
            });
        }
        Ok(())
    }

    /// The number of processes of `spec`, which no family draws at random;
    /// the files it names are read once, here. A wrong line of one is a
    /// wrong input file, shown in it.
    fn size(
        &self,
        spec: &str,
        read: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<usize, PlanError> {
        let cached = |path: &str| -> Result<String, String> {
            let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
            files
                .entry(path.to_string())
                .or_insert_with(|| read(path))
                .clone()
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let topo = topology::build(spec, &mut rng, &cached).map_err(|e| match e.place {
            Some(place) => PlanError::Program(crate::load::topology_file_error(e.message, place)),
            None => PlanError::Usage(format!("--topology {spec}: {e}")),
        })?;
        Ok(topo.n())
    }

    /// An empty table with this sweep's columns.
    pub fn table(&self) -> Table {
        Table {
            params: self.params.clone(),
            reports: self.reports.clone(),
            timings: self.options.timings,
            rows: Vec::new(),
        }
    }

    /// Runs one point of the grid; `None` when `interrupted` stopped it
    /// before it finished (a partial run is no row).
    pub fn run(&self, point: &Point, interrupted: &AtomicBool) -> Option<Row> {
        self.run_reusing(point, interrupted, &mut Spare::default())
    }

    /// [`Sweep::run`], in the simulation of the worker's last run when it
    /// ran the same instance and daemon.
    fn run_reusing(
        &self,
        point: &Point,
        interrupted: &AtomicBool,
        spare: &mut Spare,
    ) -> Option<Row> {
        let started = std::time::Instant::now();
        let (name, daemon) = &self.daemons[point.daemon];
        let mut row = Row {
            point: point.index,
            program: self.program.clone(),
            topology: point.topology.clone(),
            family: point.family.clone(),
            n: point.n,
            edges: None,
            daemon: name.clone(),
            seed: point.seed,
            init: self.init_name.clone(),
            params: point.param_words.clone(),
            measured: None,
            stop: "load",
            exit: EXIT_OK,
            message: String::new(),
            // Filled by `record` once the run has started.
            param_values: Vec::new(),
            reports: Vec::new(),
            seconds: None,
        };
        match self.simulate(point, daemon, spare) {
            Err(e) => {
                row.param_values = (self.params.iter())
                    .map(|n| {
                        let given = point.params.iter().find(|p| &p.0 == n);
                        given.map_or(String::new(), |p| p.1.to_string())
                    })
                    .collect();
                row.reports = vec![String::new(); self.reports.len()];
                row.exit = match e {
                    LoadError::Usage(_) | LoadError::NoTopology => EXIT_USAGE,
                    LoadError::Input { .. } => EXIT_INPUT,
                    LoadError::Runtime(_) => EXIT_RUNTIME,
                };
                row.message = e.headline();
            }
            Ok((sim, edges)) => {
                let stop = crate::runtime::run::run(
                    sim,
                    &self.options.limits,
                    &mut Interruptible(interrupted),
                );
                if matches!(stop, Stop::Observer) {
                    return None;
                }
                row.edges = Some(edges);
                self.record(&mut row, sim, &stop);
            }
        }
        if self.options.timings {
            row.seconds = Some(started.elapsed().as_secs_f64());
        }
        Some(row)
    }

    /// The run of `point` at step 0, as `guarded run` starts it, in
    /// `spare`: its simulation started again where it ran the same
    /// instance and daemon, else a new one (kept for the next run where
    /// no seed changes the instance); and the topology's edge count.
    fn simulate<'s>(
        &self,
        point: &Point,
        daemon: &Daemon,
        spare: &'s mut Spare,
    ) -> Result<(&'s mut Simulation, usize), LoadError> {
        let same = spare
            .key
            .as_ref()
            .is_some_and(|((topology, params), daemon)| {
                (topology.as_str(), params, *daemon)
                    == (&*point.topology, &point.params, point.daemon)
            });
        // Taken out while it starts again: a start that fails leaves no spare.
        if let Some(mut sim) = spare.sim.take().filter(|_| same) {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(point.seed);
            let start = crate::load::initial_config(
                &sim.prog,
                &sim.code,
                &sim.topo,
                &self.init,
                &self.options.sets,
                &mut rng,
            )?;
            sim.restart((start.rows, start.chans), rng)
                .map_err(LoadError::Runtime)?;
            return Ok((spare.sim.insert(sim), spare.edges));
        }
        spare.key = None;
        let (sim, reusable) = self.build(point, daemon)?;
        spare.edges = sim.topology().edge_count();
        spare.key = reusable.then(|| {
            (
                (point.topology.to_string(), point.params.clone()),
                point.daemon,
            )
        });
        Ok((spare.sim.insert(sim), spare.edges))
    }

    /// A new simulation of `point`, and whether no seed changes its
    /// instance (so that other seeds' runs may start it again).
    fn build(&self, point: &Point, daemon: &Daemon) -> Result<(Simulation, bool), LoadError> {
        let setup = Setup {
            topology: Some(point.topology.to_string()),
            params: point.params.clone(),
            param_formulas: Vec::new(),
            ids: self.options.ids.clone(),
            seed: point.seed,
            init: self.init.clone(),
            sets: self.options.sets.clone(),
            daemon: daemon.clone(),
            choice: self.options.choice,
        };
        let read = |path: &str| -> Result<String, String> {
            let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
            files
                .get(path)
                .cloned()
                .unwrap_or_else(|| Err(format!("cannot read `{path}`")))
        };
        let key = (point.topology.to_string(), point.params.clone());
        let cached = {
            let templates = self.templates.lock().unwrap_or_else(|e| e.into_inner());
            let template = templates.get(&key);
            template.and_then(|t| self.checked.reinstantiate(t, point.seed))
        };
        let mut inst = match cached {
            Some(inst) => inst,
            None => {
                let inst = self.checked.instantiate(&setup, &read)?;
                if let Some(template) = self.checked.reinstantiate(&inst, point.seed) {
                    let mut templates = self.templates.lock().unwrap_or_else(|e| e.into_inner());
                    if templates.len() >= MAX_TEMPLATES {
                        templates.clear();
                    }
                    templates.insert(key, template);
                }
                inst
            }
        };
        let reusable = inst.seed_free();
        let start = inst.initial(&setup.init, &setup.sets)?;
        Ok((inst.simulate(start, setup.daemon, setup.choice)?, reusable))
    }

    /// Fills `row` with what the finished run `sim` measured.
    fn record(&self, row: &mut Row, sim: &Simulation, stop: &Stop) {
        let now = sim.now();
        row.measured = Some(Measured {
            steps: now.step,
            moves: now.moves,
            rounds: now.round,
            rounds_complete: sim.rounds_completed(),
            stabilized: sim.stabilized_at().map(|p| [p.step, p.moves, p.round]),
            legitimate: sim.legitimate(),
            silent: sim.is_silent(),
        });
        row.stop = crate::report::stop_key(stop);
        (row.exit, row.message) = match stop {
            Stop::Invariant(i) => (EXIT_INVARIANT, crate::report::invariant_headline(sim, *i)),
            Stop::InvariantFault(e) | Stop::Error(e) => {
                (EXIT_RUNTIME, crate::report::runtime_headline(e))
            }
            _ => (EXIT_OK, String::new()),
        };
        row.param_values = sim.params().iter().map(|p| p.1.to_string()).collect();
        row.reports = sim
            .reports()
            .into_iter()
            .map(|(_, v)| v.unwrap_or_default())
            .collect();
    }
}
